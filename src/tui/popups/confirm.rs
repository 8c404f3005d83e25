//! Asks before a bulk decision: accepting goes ahead, rejecting asks for a note next.

use super::{KeyResult, Layer, Note, Popup, action, dialog, yes_no_line};
use crate::model::Decision;
use crate::tui::action::Action;
use crate::tui::review::decision;
use crate::tui::state::App;
use ratatui::buffer::Buffer;
use ratatui::crossterm::event::KeyEvent;
use ratatui::layout::Rect;
use ratatui::text::Line;

/// Confirmation of a bulk accept or reject of `o_ids`.
#[derive(Debug)]
pub struct Confirm {
    /// Accept (else reject) on yes.
    pub accept: bool,
    /// The items the decision covers.
    pub o_ids: Vec<String>,
}

impl Layer for Confirm {
    fn handle_key(&mut self, app: &mut App, key: KeyEvent) -> KeyResult {
        match action(app, &key) {
            Some(Action::Yes | Action::Confirm) => {
                let o_ids = std::mem::take(&mut self.o_ids);
                if self.accept {
                    let ds = o_ids
                        .into_iter()
                        .map(|o| decision(o, Decision::Accepted, None, None))
                        .collect();
                    KeyResult::Close(app.start_bulk(ds))
                } else {
                    app.popups.push(Popup::Note(Note::new(o_ids)));
                    KeyResult::Close(Vec::new())
                }
            }
            Some(Action::No | Action::Cancel) => {
                app.notify("bulk decision cancelled");
                KeyResult::Close(Vec::new())
            }
            _ => KeyResult::Ignored,
        }
    }

    fn render(&self, app: &App, area: Rect, buf: &mut Buffer) {
        let verb = if self.accept { "Accept" } else { "Reject" };
        let lines = vec![
            Line::raw(format!(
                "{verb} {} oracles of the filtered list?",
                self.o_ids.len()
            )),
            Line::raw(""),
            yes_no_line(app, "yes", "no"),
        ];
        dialog(app, format!("{verb} all"), lines, (area, 60, 7), buf);
    }
}
