//! The optional note of a rejection (one oracle, or every one of a bulk reject).

use super::{KeyResult, Layer, action, confirm_cancel_hint, dialog, input_line};
use crate::model::Decision;
use crate::tui::action::Action;
use crate::tui::line_edit::LineEdit;
use crate::tui::review::decision;
use crate::tui::state::App;
use ratatui::buffer::Buffer;
use ratatui::crossterm::event::KeyEvent;
use ratatui::layout::Rect;
use ratatui::text::Line;

/// Rejection note for `o_ids`, being typed.
#[derive(Debug)]
pub struct Note {
    /// The items rejected on Enter.
    pub o_ids: Vec<String>,
    /// The note so far.
    pub text: LineEdit,
}

impl Note {
    /// An empty note for rejecting `o_ids`.
    pub fn new(o_ids: Vec<String>) -> Note {
        Note {
            o_ids,
            text: LineEdit::default(),
        }
    }
}

impl Layer for Note {
    fn handle_key(&mut self, app: &mut App, key: KeyEvent) -> KeyResult {
        match action(app, &key) {
            Some(Action::Confirm) => {
                let text = self.text.text().trim();
                let note = (!text.is_empty()).then(|| text.to_string());
                let ds = std::mem::take(&mut self.o_ids)
                    .into_iter()
                    .map(|o| decision(o, Decision::Rejected, None, note.clone()))
                    .collect();
                KeyResult::Close(app.start_bulk(ds))
            }
            Some(Action::Cancel) => {
                app.notify("rejection cancelled");
                KeyResult::Close(Vec::new())
            }
            _ => {
                self.text.input(key);
                KeyResult::Consumed(Vec::new())
            }
        }
    }

    fn render(&self, app: &App, area: Rect, buf: &mut Buffer) {
        let what = if self.o_ids.len() == 1 {
            self.o_ids[0].clone()
        } else {
            format!("{} oracles", self.o_ids.len())
        };
        let lines = vec![
            Line::raw(format!("Reject {what}")),
            input_line(app, "note: ", &self.text),
            confirm_cancel_hint(app, "reject (note optional)"),
        ];
        dialog(app, "Reject", lines, (area, 70, 7), buf);
    }
}
