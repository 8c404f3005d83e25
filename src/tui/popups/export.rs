//! The export dialog: destination and format, then the outcome in place.

use super::{KeyResult, Layer, action, confirm_cancel_hint, dialog, input_line, key_label};
use crate::tui::action::Action;
use crate::tui::line_edit::LineEdit;
use crate::tui::state::App;
use crate::tui::update::Effect;
use ratatui::buffer::Buffer;
use ratatui::crossterm::event::KeyEvent;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use std::path::PathBuf;

/// Export of the reviewed suite: destination being typed, then the result.
#[derive(Debug)]
pub struct Export {
    /// Destination path so far.
    pub dest: LineEdit,
    /// Index into `export::formats()`.
    pub format: usize,
    /// Outcome once the driver has exported (`App::export_done`).
    pub result: Option<Result<String, String>>,
}

impl Export {
    /// The dialog for exporting into `dest`, first format.
    pub fn new(dest: String) -> Export {
        Export {
            dest: LineEdit::new(dest),
            format: 0,
            result: None,
        }
    }
}

impl Layer for Export {
    fn handle_key(&mut self, app: &mut App, key: KeyEvent) -> KeyResult {
        let action = action(app, &key);
        if self.result.is_some() {
            return match action {
                Some(Action::Confirm | Action::Cancel) => KeyResult::Close(Vec::new()),
                _ => KeyResult::Ignored,
            };
        }
        match action {
            Some(Action::Cancel) => return KeyResult::Close(Vec::new()),
            Some(Action::Confirm) => {
                return KeyResult::Consumed(vec![Effect::Export {
                    format: self.format,
                    dest: PathBuf::from(self.dest.text()),
                }]);
            }
            Some(Action::NextFormat) => {
                self.format = (self.format + 1) % crate::tui::export::formats().len();
            }
            _ => {
                self.dest.input(key);
            }
        }
        KeyResult::Consumed(Vec::new())
    }

    fn render(&self, app: &App, area: Rect, buf: &mut Buffer) {
        let formats = crate::tui::export::formats();
        let fname = formats.get(self.format).map(|f| f.name()).unwrap_or("?");
        let suite = crate::tui::export::reviewed_suite(&app.view);
        let mut lines = vec![
            Line::from(vec![
                Span::styled("format: ", app.theme.muted),
                Span::styled(fname.to_string(), app.theme.accent),
                Span::styled(
                    format!("  ({}: next format)", key_label(app, Action::NextFormat)),
                    app.theme.muted,
                ),
            ]),
            input_line(app, "to: ", &self.dest),
            Line::raw(format!(
                "includes {} accepted/edited oracles, {} multi-op, {} metamorphic",
                suite.oracles.len(),
                suite.multi_op.len(),
                suite.metamorphic.len()
            )),
        ];
        lines.push(match &self.result {
            None => confirm_cancel_hint(app, "export"),
            Some(Ok(msg)) => Line::from(Span::styled(format!("✓ {msg}"), app.theme.done)),
            Some(Err(msg)) => Line::from(Span::styled(format!("✗ {msg}"), app.theme.error)),
        });
        dialog(app, "Export", lines, (area, 76, 9), buf);
    }
}
