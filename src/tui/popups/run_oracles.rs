//! Asks for the base URL of the API to run the accepted and edited oracles against.

use super::{KeyResult, Layer, dialog};
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
        match key.code {
            KeyCode::Esc => {
                app.notify("oracle run cancelled");
                KeyResult::Close(Vec::new())
            }
            KeyCode::Enter => {
                let url = self.url.trim().to_string();
                KeyResult::Close(crate::tui::jobs::start_oracle_run(app, url))
            }
            KeyCode::Backspace => {
                self.url.pop();
                KeyResult::Consumed(Vec::new())
            }
            KeyCode::Char(c) if !key.modifiers.contains(KeyModifiers::CONTROL) => {
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
            Line::from(Span::styled(
                "enter: run (verdicts are saved to the session) · esc: cancel",
                app.theme.muted,
            )),
        ];
        dialog(app, "Run oracles", lines, (area, 76, 7), buf);
    }
}
