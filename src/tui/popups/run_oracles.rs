//! Asks which oracles to run against which base URL, and the reset command that gives
//! the run fresh state and isolates its failures (blank: none).

use super::{KeyResult, Layer, action, confirm_cancel_hint, dialog, input_line};
use crate::tui::action::Action;
use crate::tui::line_edit::LineEdit;
use crate::tui::oracle_run::RunScope;
use crate::tui::state::App;
use ratatui::buffer::Buffer;
use ratatui::crossterm::event::{KeyCode, KeyEvent};
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};

/// The oracle run dialog: scope, base URL and reset command being chosen.
#[derive(Debug)]
pub struct RunOracles {
    /// The base URL so far.
    pub url: LineEdit,
    /// The reset command so far (blank: no fresh state, no isolation).
    pub reset: LineEdit,
    /// Which oracles run (up / down change it).
    pub scope: RunScope,
    /// Whether typing goes to the reset command (tab switches) rather than the URL.
    pub on_reset: bool,
}

impl RunOracles {
    /// The dialog prefilled with `url` and `reset`, scope "accepted and edited".
    pub fn new(url: String, reset: String) -> RunOracles {
        RunOracles {
            url: LineEdit::new(url),
            reset: LineEdit::new(reset),
            scope: RunScope::Accepted,
            on_reset: false,
        }
    }
}

impl Layer for RunOracles {
    fn handle_key(&mut self, app: &mut App, key: KeyEvent) -> KeyResult {
        match key.code {
            KeyCode::Tab | KeyCode::BackTab => {
                self.on_reset = !self.on_reset;
                return KeyResult::Consumed(Vec::new());
            }
            KeyCode::Down => {
                self.scope = self.scope.next();
                return KeyResult::Consumed(Vec::new());
            }
            KeyCode::Up => {
                for _ in 1..RunScope::ALL.len() {
                    self.scope = self.scope.next();
                }
                return KeyResult::Consumed(Vec::new());
            }
            _ => {}
        }
        match action(app, &key) {
            Some(Action::Cancel) => {
                app.notify("oracle run cancelled");
                KeyResult::Close(Vec::new())
            }
            Some(Action::Confirm) => {
                let url = self.url.text().trim().to_string();
                let reset = self.reset.text().to_string();
                KeyResult::Close(crate::tui::jobs::start_oracle_run(
                    app, url, self.scope, &reset,
                ))
            }
            _ => {
                let field = if self.on_reset {
                    &mut self.reset
                } else {
                    &mut self.url
                };
                field.input(key);
                KeyResult::Consumed(Vec::new())
            }
        }
    }

    fn render(&self, app: &App, area: Rect, buf: &mut Buffer) {
        let scopes: Vec<Span> = RunScope::ALL
            .iter()
            .flat_map(|s| {
                let style = if *s == self.scope {
                    app.theme.accent
                } else {
                    app.theme.muted
                };
                let mark = if *s == self.scope { "●" } else { "○" };
                [
                    Span::styled(format!("{mark} {}", s.label()), style),
                    Span::raw("  "),
                ]
            })
            .collect();
        let (url, reset) = (&self.url, &self.reset);
        // Only the field being typed in shows a cursor.
        let url_line = if self.on_reset {
            plain(app, "base URL: ", url.text())
        } else {
            input_line(app, "base URL: ", url)
        };
        let reset_line = if self.on_reset {
            input_line(app, "reset command: ", reset)
        } else {
            plain(app, "reset command: ", reset.text())
        };
        let lines = vec![
            Line::raw("Run oracles (up/down: which ones):"),
            Line::from(scopes),
            url_line,
            reset_line,
            Line::styled(
                "tab: URL / reset · with a reset command, failures are re-run alone after it",
                app.theme.muted,
            ),
            confirm_cancel_hint(app, "run (verdicts are saved to the session)"),
        ];
        dialog(app, "Run oracles", lines, (area, 86, 9), buf);
    }
}

/// A field that is not being typed in: its label and text, no cursor.
fn plain(app: &App, label: &str, text: &str) -> Line<'static> {
    Line::from(vec![
        Span::styled(label.to_string(), app.theme.muted),
        Span::raw(crate::text::escape_controls(text).into_owned()),
    ])
}
