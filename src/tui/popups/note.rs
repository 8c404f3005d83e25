//! The optional note of a rejection (one oracle), or of a bulk accept or reject: a bulk
//! decision asks for its note first and only then asks yes / no ([`Confirm`]), so the
//! letters of a note typed straight away are text, never answers or list commands.

use super::{Confirm, KeyResult, Layer, Popup, action, confirm_cancel_hint, dialog, input_line};
use crate::model::Decision;
use crate::tui::action::Action;
use crate::tui::line_edit::LineEdit;
use crate::tui::review::decision;
use crate::tui::state::App;
use ratatui::buffer::Buffer;
use ratatui::crossterm::event::KeyEvent;
use ratatui::layout::Rect;
use ratatui::text::Line;

/// Note for a decision on `o_ids`, being typed.
#[derive(Debug)]
pub struct Note {
    /// The items decided on Enter.
    pub o_ids: Vec<String>,
    /// The note so far.
    pub text: LineEdit,
    /// `None`: reject `o_ids` on Enter. `Some(accept)`: a bulk decision, which asks
    /// for confirmation on Enter.
    pub bulk: Option<bool>,
}

impl Note {
    /// An empty note for rejecting `o_ids`.
    pub fn new(o_ids: Vec<String>) -> Note {
        Note {
            o_ids,
            text: LineEdit::default(),
            bulk: None,
        }
    }

    /// An empty note for a bulk accept (or reject) of `o_ids`, confirmed next.
    pub fn bulk(accept: bool, o_ids: Vec<String>) -> Note {
        Note {
            bulk: Some(accept),
            ..Note::new(o_ids)
        }
    }

    fn verb(&self) -> &'static str {
        match self.bulk {
            Some(true) => "Accept",
            _ => "Reject",
        }
    }
}

impl Layer for Note {
    fn handle_key(&mut self, app: &mut App, key: KeyEvent) -> KeyResult {
        match action(app, &key) {
            Some(Action::Confirm) => {
                let text = self.text.text().trim();
                let note = (!text.is_empty()).then(|| text.to_string());
                let o_ids = std::mem::take(&mut self.o_ids);
                if let Some(accept) = self.bulk {
                    app.popups.push(Popup::Confirm(Confirm {
                        accept,
                        o_ids,
                        note,
                    }));
                    return KeyResult::Close(Vec::new());
                }
                let ds = o_ids
                    .into_iter()
                    .map(|o| decision(o, Decision::Rejected, None, note.clone()))
                    .collect();
                KeyResult::Close(app.start_bulk(ds))
            }
            Some(Action::Cancel) => {
                app.notify(match self.bulk {
                    Some(_) => "bulk decision cancelled",
                    None => "rejection cancelled",
                });
                KeyResult::Close(Vec::new())
            }
            _ => {
                self.text.input(key);
                KeyResult::Consumed(Vec::new())
            }
        }
    }

    fn render(&self, app: &App, area: Rect, buf: &mut Buffer) {
        let what = if self.o_ids.len() == 1 && self.bulk.is_none() {
            crate::text::escape_controls(&self.o_ids[0]).into_owned()
        } else {
            format!("{} oracles", self.o_ids.len())
        };
        let verb = self.verb();
        let hint = match self.bulk {
            Some(_) => "continue (note optional; asks yes / no next)",
            None => "reject (note optional)",
        };
        let lines = vec![
            Line::raw(format!("{verb} {what}")),
            input_line(app, "note: ", &self.text),
            confirm_cancel_hint(app, hint),
        ];
        let title = match self.bulk {
            Some(_) => format!("{verb} all"),
            None => verb.to_string(),
        };
        dialog(app, title, lines, (area, 70, 7), buf);
    }
}
