//! Asks for the base URL of the API to run the accepted and edited oracles against.

use super::{KeyResult, Layer, action, confirm_cancel_hint, dialog, input_line};
use crate::tui::action::Action;
use crate::tui::line_edit::LineEdit;
use crate::tui::state::App;
use ratatui::buffer::Buffer;
use ratatui::crossterm::event::KeyEvent;
use ratatui::layout::Rect;
use ratatui::text::Line;

/// The oracle run dialog, base URL being typed.
#[derive(Debug)]
pub struct RunOracles {
    /// The base URL so far.
    pub url: LineEdit,
}

impl Layer for RunOracles {
    fn handle_key(&mut self, app: &mut App, key: KeyEvent) -> KeyResult {
        match action(app, &key) {
            Some(Action::Cancel) => {
                app.notify("oracle run cancelled");
                KeyResult::Close(Vec::new())
            }
            Some(Action::Confirm) => {
                let url = self.url.text().trim().to_string();
                KeyResult::Close(crate::tui::jobs::start_oracle_run(app, url))
            }
            _ => {
                self.url.input(key);
                KeyResult::Consumed(Vec::new())
            }
        }
    }

    fn render(&self, app: &App, area: Rect, buf: &mut Buffer) {
        let lines = vec![
            Line::raw("Run the accepted and edited oracles against:"),
            input_line(app, "base URL: ", &self.url),
            confirm_cancel_hint(app, "run (verdicts are saved to the session)"),
        ];
        dialog(app, "Run oracles", lines, (area, 76, 7), buf);
    }
}
