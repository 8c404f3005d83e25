//! Which agent a re-run of one operation starts from (earlier agents replay their
//! cached answers).

use super::{KeyResult, Layer, action, centered, confirm_cancel_hint, key_label};
use crate::tui::action::Action;
use crate::tui::jobs::{RERUN_FROM, start_rerun};
use crate::tui::state::App;
use crate::tui::ui::block;
use ratatui::buffer::Buffer;
use ratatui::crossterm::event::KeyEvent;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph, Widget, Wrap};

/// Width of the agent name column.
const NAME_W: usize = 22;

/// The re-run dialog for `op_id`.
#[derive(Debug)]
pub struct Rerun {
    /// The operation to re-run.
    pub op_id: String,
    /// Index into `jobs::RERUN_FROM`.
    pub choice: usize,
}

impl Layer for Rerun {
    fn handle_key(&mut self, app: &mut App, key: KeyEvent) -> KeyResult {
        match action(app, &key) {
            Some(Action::Cancel) => {
                app.notify("re-run cancelled");
                return KeyResult::Close(Vec::new());
            }
            Some(Action::Up) => self.choice = self.choice.saturating_sub(1),
            Some(Action::Down) => self.choice = (self.choice + 1).min(RERUN_FROM.len() - 1),
            Some(Action::Confirm) => {
                let from = RERUN_FROM[self.choice].0.map(str::to_string);
                let op_id = std::mem::take(&mut self.op_id);
                return KeyResult::Close(start_rerun(app, op_id, from));
            }
            _ => return KeyResult::Ignored,
        }
        KeyResult::Consumed(Vec::new())
    }

    /// One line per starting agent, the chosen one marked. Where the descriptions do
    /// not fit beside the names, only the chosen one's is shown, below.
    fn render(&self, app: &App, area: Rect, buf: &mut Buffer) {
        let widest = RERUN_FROM
            .iter()
            .map(|(_, w)| w.chars().count())
            .max()
            .unwrap_or(0);
        let inline = usize::from(area.width) >= NAME_W + widest + 5;
        let edited = app
            .view
            .op_index
            .get(&self.op_id)
            .and_then(|&i| app.view.ops.get(i))
            .is_some_and(|o| o.context_edit.is_some());
        let h = RERUN_FROM.len() as u16 + if inline { 6 } else { 8 } + u16::from(edited);
        let r = centered(area, (NAME_W + widest + 5) as u16, h);
        Clear.render(r, buf);
        let mut lines = vec![Line::raw(format!("Re-run {} from:", self.op_id))];
        lines.extend(self.choice_lines(app, inline));
        lines.push(Line::from(Span::styled(
            "earlier agents replay their cached answers · the old result stays until it finishes",
            app.theme.muted,
        )));
        if edited {
            lines.push(Line::styled(
                "its context is your edit: kept, never extracted over (drop it on the Context tab)",
                app.theme.edited,
            ));
        }
        let choose = format!(
            "{}/{}: choose · ",
            key_label(app, Action::Up),
            key_label(app, Action::Down)
        );
        let mut hint = confirm_cancel_hint(app, "re-run");
        hint.spans.insert(0, Span::styled(choose, app.theme.muted));
        lines.push(hint);
        Paragraph::new(lines)
            .style(app.theme.popup)
            .wrap(Wrap { trim: false })
            .block(block(app, "Re-run", true))
            .render(r, buf);
    }
}

impl Rerun {
    fn choice_lines(&self, app: &App, inline: bool) -> Vec<Line<'static>> {
        let mut lines = Vec::new();
        for (i, (agent, what)) in RERUN_FROM.iter().enumerate() {
            let (mark, style) = if i == self.choice {
                ("▶ ", app.theme.selected)
            } else {
                ("  ", app.theme.popup)
            };
            let name = agent.unwrap_or("all agents");
            let mut spans = vec![Span::styled(format!("{mark}{name:<NAME_W$}"), style)];
            if inline {
                spans.push(Span::styled(format!(" {what}"), app.theme.muted));
            }
            lines.push(Line::from(spans));
        }
        if !inline && let Some((_, what)) = RERUN_FROM.get(self.choice) {
            lines.push(Line::styled(format!("→ {what}"), app.theme.accent));
        }
        lines
    }
}
