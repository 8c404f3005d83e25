//! Asks for the base URL of the API to run the accepted and edited oracles against.

use super::{KeyResult, Layer, action, confirm_cancel_hint, dialog};
use crate::tui::action::Action;
use crate::tui::state::App;
use ratatui::buffer::Buffer;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};

/// The oracle run dialog, base URL being typed.
#[derive(Debug)]
pub struct RunOracles {
    /// The base URL so far.
    pub url: String,
}

impl Layer for RunOracles {
    fn handle_key(&mut self, app: &mut App, key: KeyEvent) -> KeyResult {
        match (action(app, &key), key.code) {
            (Some(Action::Cancel), _) => {
                app.notify("oracle run cancelled");
                KeyResult::Close(Vec::new())
            }
            (Some(Action::Confirm), _) => {
                let url = self.url.trim().to_string();
                KeyResult::Close(crate::tui::jobs::start_oracle_run(app, url))
            }
            (_, KeyCode::Backspace) => {
                self.url.pop();
                KeyResult::Consumed(Vec::new())
            }
            (_, KeyCode::Char(c)) if !key.modifiers.contains(KeyModifiers::CONTROL) => {
                self.url.push(c);
                KeyResult::Consumed(Vec::new())
            }
            _ => KeyResult::Ignored,
        }
    }

    fn render(&self, app: &App, area: Rect, buf: &mut Buffer) {
        let lines = vec![
            Line::raw("Run the accepted and edited oracles against:"),
            Line::from(vec![
                Span::styled("base URL: ", app.theme.muted),
                Span::raw(self.url.clone()),
                Span::styled("▏", app.theme.accent),
            ]),
            confirm_cancel_hint(app, "run (verdicts are saved to the session)"),
        ];
        dialog(app, "Run oracles", lines, (area, 76, 7), buf);
    }
}
