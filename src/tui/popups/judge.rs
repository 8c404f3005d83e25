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
    /// A bulk judgement: the other failures judged the same way with the same note.
    pub more: Vec<(String, JudgedVerdict)>,
    /// The note so far.
    pub text: LineEdit,
}

impl Layer for Judge {
    fn handle_key(&mut self, app: &mut App, key: KeyEvent) -> KeyResult {
        match action(app, &key) {
            Some(Action::Confirm) => {
                let text = self.text.text().trim();
                let note = (!text.is_empty()).then(|| text.to_string());
                let at = chrono::Utc::now().to_rfc3339();
                let judge = |o_id: String, verdict: JudgedVerdict| Judgement {
                    o_id,
                    judgement: self.judgement,
                    note: note.clone(),
                    at: at.clone(),
                    verdict,
                };
                let first = judge(std::mem::take(&mut self.o_id), self.verdict.clone());
                if self.more.is_empty() {
                    return KeyResult::Close(vec![Effect::Judge(first)]);
                }
                let mut all = vec![first];
                all.extend(
                    std::mem::take(&mut self.more)
                        .into_iter()
                        .map(|(o, v)| judge(o, v)),
                );
                KeyResult::Close(vec![Effect::JudgeMany(all)])
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
            Line::raw(if self.more.is_empty() {
                format!("Judge {} a {}", self.o_id, self.judgement.words())
            } else {
                format!(
                    "Judge {} failures of the list (from {}) {}",
                    self.more.len() + 1,
                    self.o_id,
                    self.judgement.words()
                )
            }),
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
