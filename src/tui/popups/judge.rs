//! The optional note of a true / false positive judgement of a failed test.

use super::{KeyResult, Layer, action, confirm_cancel_hint, dialog, input_line};
use crate::store::{JudgedVerdict, Judgement, Positive};
use crate::tui::action::Action;
use crate::tui::line_edit::LineEdit;
use crate::tui::state::App;
use crate::tui::update::Effect;
use ratatui::buffer::Buffer;
use ratatui::crossterm::event::KeyEvent;
use ratatui::layout::Rect;
use ratatui::text::Line;

/// Judging `o_id`'s failed `verdict`, with a note being typed.
#[derive(Debug)]
pub struct Judge {
    /// The judged item.
    pub o_id: String,
    /// True or false positive.
    pub judgement: Positive,
    /// The failure being judged.
    pub verdict: JudgedVerdict,
    /// The note so far.
    pub text: LineEdit,
}

impl Layer for Judge {
    fn handle_key(&mut self, app: &mut App, key: KeyEvent) -> KeyResult {
        match action(app, &key) {
            Some(Action::Confirm) => {
                let text = self.text.text().trim();
                let j = Judgement {
                    o_id: std::mem::take(&mut self.o_id),
                    judgement: self.judgement,
                    note: (!text.is_empty()).then(|| text.to_string()),
                    at: chrono::Utc::now().to_rfc3339(),
                    verdict: self.verdict.clone(),
                };
                KeyResult::Close(vec![Effect::Judge(j)])
            }
            Some(Action::Cancel) => {
                app.notify("judgement cancelled");
                KeyResult::Close(Vec::new())
            }
            _ => {
                self.text.input(key);
                KeyResult::Consumed(Vec::new())
            }
        }
    }

    fn render(&self, app: &App, area: Rect, buf: &mut Buffer) {
        let run = self
            .verdict
            .run_at
            .as_deref()
            .unwrap_or("time not recorded");
        let lines = vec![
            Line::raw(format!("Judge {} a {}", self.o_id, self.judgement.words())),
            Line::styled(
                format!("latest verdict: {} (run {run})", self.verdict.outcome),
                app.theme.muted,
            ),
            input_line(app, "note: ", &self.text),
            confirm_cancel_hint(app, "judge (note optional)"),
        ];
        dialog(app, self.judgement.mark(), lines, (area, 70, 8), buf);
    }
}
