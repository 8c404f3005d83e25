//! The export dialog: a checklist of formats and a destination, then the outcome in
//! place.
//!
//! Tab or ↑/↓ move the format cursor and give the list the focus; space then checks or
//! unchecks the format under it (several formats export in one go; none checked means
//! the one under the cursor). Any other key edits the destination, where a space is
//! typed as usual. The counts follow the chosen formats (Gherkin writes metamorphic
//! tests only), and the dialog warns when accepted oracles currently fail or have stale
//! verdicts. Files an earlier export wrote at the destination are replaced only after a
//! yes; files no export wrote are refused by the export guard whatever the answer.

use super::{
    KeyResult, Layer, action, confirm_cancel_hint, dialog, input_line, key_label, yes_no_line,
};
use crate::tui::action::Action;
use crate::tui::line_edit::LineEdit;
use crate::tui::state::App;
use crate::tui::update::Effect;
use ratatui::buffer::Buffer;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use std::path::PathBuf;

/// Export of the reviewed suite: formats and destination being chosen, then the result.
#[derive(Debug)]
pub struct Export {
    /// Destination path so far.
    pub dest: LineEdit,
    /// Cursor in the format list: an index into `export::formats()`.
    pub format: usize,
    /// Formats checked for export (indices into `export::formats()`), in list order.
    pub chosen: Vec<usize>,
    /// Whether keys go to the format list (space checks) rather than the destination.
    pub list_focus: bool,
    /// Files the export would replace, while the dialog asks whether to.
    pub replacing: Option<Vec<PathBuf>>,
    /// Outcome once the driver has exported (`App::export_done`), one line per format.
    pub result: Option<Result<String, String>>,
}

impl Export {
    /// The dialog for exporting into `dest`, cursor on the first format, none checked.
    pub fn new(dest: String) -> Export {
        Export {
            dest: LineEdit::new(dest),
            format: 0,
            chosen: Vec::new(),
            list_focus: false,
            replacing: None,
            result: None,
        }
    }

    /// The formats an export writes now: the checked ones, else the one under the cursor.
    pub fn targets(&self) -> Vec<usize> {
        if self.chosen.is_empty() {
            vec![self.format]
        } else {
            self.chosen.clone()
        }
    }

    /// Adds one format's outcome: the dialog shows them all, an error if any failed.
    pub fn add_result(&mut self, outcome: Result<String, String>) {
        self.result = Some(match (self.result.take(), outcome) {
            (None, o) => o,
            (Some(Ok(a)), Ok(b)) => Ok(format!("{a}\n{b}")),
            (Some(Ok(a) | Err(a)), Err(b)) | (Some(Err(a)), Ok(b)) => Err(format!("{a}\n{b}")),
        });
    }

    fn toggle(&mut self) {
        match self.chosen.iter().position(|&i| i == self.format) {
            Some(pos) => {
                self.chosen.remove(pos);
            }
            None => {
                self.chosen.push(self.format);
                self.chosen.sort_unstable();
            }
        }
    }

    fn effects(&self) -> Vec<Effect> {
        let dest = PathBuf::from(self.dest.text());
        self.targets()
            .into_iter()
            .map(|format| Effect::Export {
                format,
                dest: dest.clone(),
            })
            .collect()
    }

    /// Files an earlier export wrote at the destination that the chosen formats replace.
    fn would_replace(&self) -> Vec<PathBuf> {
        let formats = crate::tui::export::formats();
        let dest = PathBuf::from(self.dest.text());
        let mut files: Vec<PathBuf> = self
            .targets()
            .into_iter()
            .filter_map(|i| formats.get(i))
            .flat_map(|f| f.would_replace(&dest))
            .collect();
        files.sort();
        files.dedup();
        files
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
        if self.replacing.is_some() {
            return match action {
                Some(Action::Yes | Action::Confirm) => {
                    self.replacing = None;
                    KeyResult::Consumed(self.effects())
                }
                Some(Action::No | Action::Cancel) => {
                    self.replacing = None;
                    KeyResult::Consumed(Vec::new())
                }
                _ => KeyResult::Consumed(Vec::new()),
            };
        }
        let n = crate::tui::export::formats().len();
        let plain = key.modifiers == KeyModifiers::NONE;
        match (action, key.code) {
            (Some(Action::Cancel), _) => return KeyResult::Close(Vec::new()),
            (Some(Action::Confirm), _) => {
                let files = self.would_replace();
                if files.is_empty() {
                    return KeyResult::Consumed(self.effects());
                }
                self.replacing = Some(files);
            }
            (Some(Action::NextFormat), _) => {
                self.format = (self.format + 1) % n;
                self.list_focus = true;
            }
            (_, KeyCode::Down) if plain => {
                self.format = (self.format + 1) % n;
                self.list_focus = true;
            }
            (_, KeyCode::Up) if plain => {
                self.format = (self.format + n - 1) % n;
                self.list_focus = true;
            }
            (_, KeyCode::Char(' ')) if plain && self.list_focus => self.toggle(),
            _ => {
                self.list_focus = false;
                self.dest.input(key);
            }
        }
        KeyResult::Consumed(Vec::new())
    }

    fn render(&self, app: &App, area: Rect, buf: &mut Buffer) {
        let t = &app.theme;
        let formats = crate::tui::export::formats();
        let mut lines = vec![Line::styled(
            format!(
                "formats ({} / ↑↓: move · space: check several):",
                key_label(app, Action::NextFormat)
            ),
            t.muted,
        )];
        for (i, f) in formats.iter().enumerate() {
            let here = i == self.format;
            let checked = self.chosen.contains(&i) || (self.chosen.is_empty() && here);
            let cursor = if here && self.list_focus { "›" } else { " " };
            let style = if here { t.accent } else { t.popup };
            lines.push(Line::from(vec![
                Span::raw(format!("{cursor}[{}] ", if checked { "x" } else { " " })),
                Span::styled(f.name().to_string(), style),
            ]));
        }
        lines.push(input_line(app, "to: ", &self.dest));
        let targets = self.targets();
        let p = crate::tui::export::preview(&app.view, &targets);
        let mr_only = targets.iter().all(|&i| {
            formats
                .get(i)
                .is_some_and(|f| f.format() == crate::export::Format::Gherkin)
        });
        let what = if mr_only {
            "accepted/edited metamorphic tests"
        } else {
            "accepted/edited oracles, sequences and metamorphic tests"
        };
        lines.push(Line::raw(format!("includes {} {what}", p.items)));
        let mut warn = Vec::new();
        if p.failing > 0 {
            warn.push(format!("{} failing in their latest run", p.failing));
        }
        if p.stale > 0 {
            warn.push(format!("{} with a stale verdict (changed since)", p.stale));
        }
        if !warn.is_empty() {
            lines.push(Line::styled(
                format!("⚠ accepted: {}", warn.join(" · ")),
                t.warning,
            ));
        }
        match (&self.replacing, &self.result) {
            (Some(files), _) => {
                lines.push(Line::styled(
                    format!(
                        "replace {} file(s) an earlier export wrote there?",
                        files.len()
                    ),
                    t.warning,
                ));
                lines.push(yes_no_line(app, "replace", "back"));
            }
            (None, None) => lines.push(confirm_cancel_hint(app, "export")),
            (None, Some(Ok(msg))) => {
                lines.extend(msg.lines().map(|l| Line::styled(format!("✓ {l}"), t.done)));
            }
            (None, Some(Err(msg))) => {
                lines.extend(msg.lines().map(|l| Line::styled(format!("✗ {l}"), t.error)));
            }
        }
        let h = (lines.len() as u16 + 2).max(9);
        dialog(app, "Export", lines, (area, 76, h), buf);
    }
}
