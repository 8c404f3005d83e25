//! The inline JSON editor of an oracle or metamorphic test; an invalid edit stays open
//! with the reason shown under the text.

use super::{KeyResult, Layer, action, centered, key_label};
use crate::model::Decision;
use crate::tui::action::Action;
use crate::tui::review::{decision, validate_edit};
use crate::tui::state::App;
use crate::tui::ui::block;
use crate::tui::update::Effect;
use ratatui::buffer::Buffer;
use ratatui::crossterm::event::KeyEvent;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::Span;
use ratatui::widgets::{Clear, Paragraph, Widget, Wrap};
use ratatui_textarea::TextArea;

/// Editing `o_id` as JSON.
#[derive(Debug)]
pub struct Editor {
    /// The edited item.
    pub o_id: String,
    /// A multi-operation oracle (else single-op or metamorphic).
    pub multi: bool,
    /// An operation's source context (`o_id` is then its op_id; see `context_edit`).
    pub context: bool,
    /// The text being edited.
    pub textarea: Box<TextArea<'static>>,
    /// The last validation failure, shown in place.
    pub error: Option<String>,
}

impl Layer for Editor {
    fn handle_key(&mut self, app: &mut App, key: KeyEvent) -> KeyResult {
        let action = action(app, &key);
        if action == Some(Action::Cancel) {
            app.notify("edit cancelled");
            return KeyResult::Close(Vec::new());
        }
        if action == Some(Action::Save) {
            let text = self.textarea.lines().join("\n");
            if self.context {
                return match crate::tui::context_edit::validate(&self.o_id, &text) {
                    Ok(c) => KeyResult::Close(vec![Effect::SaveContext(c)]),
                    Err(e) => {
                        self.error = Some(e);
                        KeyResult::Consumed(Vec::new())
                    }
                };
            }
            return match validate_edit(&self.o_id, self.multi, &text) {
                Ok(value) => {
                    let o_id = std::mem::take(&mut self.o_id);
                    let d = decision(o_id, Decision::Edited, Some(value), None);
                    KeyResult::Close(vec![Effect::Record(d)])
                }
                Err(e) => {
                    self.error = Some(e);
                    KeyResult::Consumed(Vec::new())
                }
            };
        }
        self.textarea.input(key);
        KeyResult::Consumed(Vec::new())
    }

    fn render(&self, app: &App, area: Rect, buf: &mut Buffer) {
        let r = centered(
            area,
            area.width.saturating_sub(4).max(40),
            area.height.saturating_sub(2),
        );
        Clear.render(r, buf);
        let what = if self.context {
            "the source context of "
        } else {
            ""
        };
        let title = format!(
            "Edit {what}{} · {}: validate and keep · {}: cancel",
            self.o_id,
            key_label(app, Action::Save),
            key_label(app, Action::Cancel)
        );
        let b = block(app, title, true).style(app.theme.popup);
        let inner = b.inner(r);
        b.render(r, buf);
        let err_h = if self.error.is_some() { 3 } else { 0 };
        let [edit, err] =
            Layout::vertical([Constraint::Min(1), Constraint::Length(err_h)]).areas(inner);
        self.textarea.as_ref().render(edit, buf);
        if let Some(e) = &self.error {
            Paragraph::new(Span::styled(format!("✗ {e}"), app.theme.error))
                .wrap(Wrap { trim: false })
                .render(err, buf);
        }
    }
}
