//! The note of marking a surviving mutant equivalent (no oracle could tell it from the
//! original): it leaves the score's denominator and is never targeted again.

use super::{KeyResult, Layer, action, confirm_cancel_hint, dialog, input_line};
use crate::tui::action::Action;
use crate::tui::line_edit::LineEdit;
use crate::tui::state::App;
use crate::tui::update::Effect;
use ratatui::buffer::Buffer;
use ratatui::crossterm::event::KeyEvent;
use ratatui::layout::Rect;
use ratatui::text::Line;

/// Marking `mutant` equivalent, with a note being typed.
#[derive(Debug)]
pub struct Equivalent {
    pub mutant: String,
    /// `file:line operator`, escaped, for the title line.
    pub what: String,
    pub text: LineEdit,
}

impl Layer for Equivalent {
    fn handle_key(&mut self, app: &mut App, key: KeyEvent) -> KeyResult {
        match action(app, &key) {
            Some(Action::Confirm) => KeyResult::Close(vec![Effect::MarkEquivalent {
                mutant: std::mem::take(&mut self.mutant),
                note: self.text.text().trim().to_string(),
                undo: false,
            }]),
            Some(Action::Cancel) => {
                app.notify("equivalence mark cancelled");
                KeyResult::Close(Vec::new())
            }
            _ => {
                self.text.input(key);
                KeyResult::Consumed(Vec::new())
            }
        }
    }

    fn render(&self, app: &App, area: Rect, buf: &mut Buffer) {
        let lines = vec![
            Line::raw(format!("Mark {} equivalent ({})", self.mutant, self.what)),
            Line::styled(
                "it leaves the score's denominator; undo with the same key",
                app.theme.muted,
            ),
            input_line(app, "why: ", &self.text),
            confirm_cancel_hint(app, "mark (note optional)"),
        ];
        dialog(app, "≡", lines, (area, 72, 8), buf);
    }
}
