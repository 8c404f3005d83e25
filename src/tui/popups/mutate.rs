//! Asks for the commands of a mutation analysis (start, build, how many mutants),
//! prefilled with what this session used last (`mutation/tui.json`).

use super::{KeyResult, Layer, action, confirm_cancel_hint, dialog, input_line, key_label};
use crate::tui::action::Action;
use crate::tui::line_edit::LineEdit;
use crate::tui::mutate_job::{self, MutateSettings};
use crate::tui::state::{App, Popup};
use ratatui::buffer::Buffer;
use ratatui::crossterm::event::KeyEvent;
use ratatui::layout::Rect;
use ratatui::text::Line;

/// The mutate dialog: three lines, one of them being typed.
#[derive(Debug)]
pub struct RunMutate {
    /// Start command (empty: `java` on the class with a main method).
    pub start: LineEdit,
    /// Build command (empty: javac of the changed file).
    pub build: LineEdit,
    /// Mutant limit (empty: every mutant).
    pub max: LineEdit,
    /// Which line keys go to: 0 start, 1 build, 2 max.
    pub field: usize,
}

impl RunMutate {
    /// The dialog prefilled with `s`.
    pub fn new(s: &MutateSettings) -> RunMutate {
        RunMutate {
            start: LineEdit::new(s.start.clone()),
            build: LineEdit::new(s.build.clone()),
            max: LineEdit::new(s.max_mutants.map(|n| n.to_string()).unwrap_or_default()),
            field: 0,
        }
    }

    /// The settings typed, or why the mutant limit is not a number.
    pub fn settings(&self) -> Result<MutateSettings, String> {
        let max = self.max.text().trim();
        let max_mutants = if max.is_empty() {
            None
        } else {
            match max.parse::<usize>() {
                Ok(n) if n > 0 => Some(n),
                _ => return Err(format!("max mutants: `{max}` is not a positive number")),
            }
        };
        Ok(MutateSettings {
            start: self.start.text().trim().to_string(),
            build: self.build.text().trim().to_string(),
            max_mutants,
        })
    }
}

/// The `run_mutate` action: asks for the commands, unless something already runs.
pub fn open_mutate_popup(app: &mut App) {
    if let Some(why) = crate::tui::jobs::busy(app) {
        app.error(format!("cannot run mutate now: {why}"));
        return;
    }
    let settings = mutate_job::read_settings(&app.view.dir).unwrap_or_else(|e| {
        app.error(format!("{e}; using the defaults"));
        MutateSettings::default()
    });
    app.popups
        .push(Popup::RunMutate(Box::new(RunMutate::new(&settings))));
}

impl Layer for RunMutate {
    fn handle_key(&mut self, app: &mut App, key: KeyEvent) -> KeyResult {
        match action(app, &key) {
            Some(Action::Cancel) => {
                app.notify("mutate cancelled");
                KeyResult::Close(Vec::new())
            }
            Some(Action::Confirm) => match self.settings() {
                Ok(s) => KeyResult::Close(mutate_job::start(app, s)),
                Err(e) => {
                    app.error(e);
                    KeyResult::Consumed(Vec::new())
                }
            },
            Some(Action::NextFormat) => {
                self.field = (self.field + 1) % 3;
                KeyResult::Consumed(Vec::new())
            }
            _ => {
                let edit = match self.field {
                    0 => &mut self.start,
                    1 => &mut self.build,
                    _ => &mut self.max,
                };
                edit.input(key);
                KeyResult::Consumed(Vec::new())
            }
        }
    }

    fn render(&self, app: &App, area: Rect, buf: &mut Buffer) {
        let field = |i: usize, label: &str, edit: &LineEdit| {
            let mark = if i == self.field { "▸ " } else { "  " };
            let mut line = input_line(app, &format!("{mark}{label}"), edit);
            if i != self.field {
                // Only the line being typed shows a cursor.
                let text = crate::text::escape_controls(edit.text());
                line = Line::styled(format!("{mark}{label}{text}"), app.theme.muted);
            }
            line
        };
        let lines = vec![
            Line::raw("Mutation analysis of the accepted oracles (all while none is accepted)"),
            Line::styled(
                "Empty commands use the defaults; an empty limit runs every mutant.",
                app.theme.muted,
            ),
            field(0, "start: ", &self.start),
            field(1, "build: ", &self.build),
            field(2, "max mutants: ", &self.max),
            Line::styled(
                format!(
                    "{}: next line · start: {{dir}} {{port}} {{classpath}}, build: {{dir}}",
                    key_label(app, Action::NextFormat)
                ),
                app.theme.muted,
            ),
            confirm_cancel_hint(app, "run in the background"),
        ];
        dialog(app, "Run mutate", lines, (area, 84, 10), buf);
    }
}
