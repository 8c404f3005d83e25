//! Asks before a bulk decision, after its note was typed (see `note`): the note comes
//! first so that typing it can never answer this question, and this dialog takes every
//! key while it is open, so a stray letter never reaches the list underneath.

use super::{KeyResult, Layer, action, dialog, yes_no_line};
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
    /// The note every decision carries (typed before this question).
    pub note: Option<String>,
}

impl Layer for Confirm {
    fn handle_key(&mut self, app: &mut App, key: KeyEvent) -> KeyResult {
        match action(app, &key) {
            Some(Action::Yes | Action::Confirm) => {
                let d = if self.accept {
                    Decision::Accepted
                } else {
                    Decision::Rejected
                };
                let ds = std::mem::take(&mut self.o_ids)
                    .into_iter()
                    .map(|o| decision(o, d, None, self.note.clone()))
                    .collect();
                KeyResult::Close(app.start_bulk(ds))
            }
            Some(Action::No | Action::Cancel) => {
                app.notify("bulk decision cancelled");
                KeyResult::Close(Vec::new())
            }
            _ => KeyResult::Consumed(Vec::new()),
        }
    }

    fn render(&self, app: &App, area: Rect, buf: &mut Buffer) {
        let verb = if self.accept { "Accept" } else { "Reject" };
        let note = match &self.note {
            Some(n) => format!("note: {}", crate::text::escape_controls(n)),
            None => "no note".to_string(),
        };
        let lines = vec![
            Line::raw(format!(
                "{verb} {} oracles of the filtered list?",
                self.o_ids.len()
            )),
            Line::styled(note, app.theme.muted),
            yes_no_line(app, "yes", "no"),
        ];
        dialog(app, format!("{verb} all"), lines, (area, 60, 7), buf);
    }
}
