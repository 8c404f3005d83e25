//! Which agent a re-run of one operation starts from (earlier agents replay their
//! cached answers), and the plan of that re-run (`tui::rerun_plan`) before anything is
//! sent: calls, tokens, cost, what leaves the machine. Over the workbench's budget, the
//! re-run starts only on a second confirm.

use super::{KeyResult, Layer, action, centered, confirm_cancel_hint, key_label};
use crate::tui::action::Action;
use crate::tui::jobs::{RERUN_FROM, start_rerun};
use crate::tui::rerun_plan::{PlanState, RerunPlan, drop_plan, start_plan};
use crate::tui::state::{App, Popup};
use crate::tui::ui::block;
use ratatui::buffer::Buffer;
use ratatui::crossterm::event::{KeyCode, KeyEvent};
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
    /// The plan of the re-run from the current choice.
    pub plan: PlanState,
    /// Confirm was pressed once over the budget (or before the plan came): the next
    /// one sends.
    pub armed: bool,
}

impl Rerun {
    /// The dialog for `op_id`, every agent chosen, its plan asked for.
    pub fn new(op_id: String) -> Rerun {
        Rerun {
            op_id,
            choice: 0,
            plan: PlanState::Planning,
            armed: false,
        }
    }

    fn from(&self) -> Option<&'static str> {
        RERUN_FROM[self.choice].0
    }

    /// Moves to choice `to`: its plan is asked for, the one of the old choice is stale.
    fn choose(&mut self, app: &mut App, to: usize) -> Vec<super::Effect> {
        if to == self.choice {
            return Vec::new();
        }
        self.choice = to;
        self.armed = false;
        self.plan = PlanState::Planning;
        start_plan(app, &self.op_id, self.from())
    }
}

impl Layer for Rerun {
    fn handle_key(&mut self, app: &mut App, key: KeyEvent) -> KeyResult {
        match action(app, &key) {
            Some(Action::Cancel) => {
                drop_plan(app);
                app.notify("re-run cancelled");
                return KeyResult::Close(Vec::new());
            }
            Some(Action::Up) => {
                return KeyResult::Consumed(self.choose(app, self.choice.saturating_sub(1)));
            }
            Some(Action::Down) => {
                let to = (self.choice + 1).min(RERUN_FROM.len() - 1);
                return KeyResult::Consumed(self.choose(app, to));
            }
            Some(Action::Confirm) => {
                let wait = match &self.plan {
                    PlanState::Ready(p) => p
                        .over_budget
                        .as_ref()
                        .map(|_| "over budget: confirm again to send"),
                    PlanState::Planning => {
                        Some("planning…: confirm again to send without the plan")
                    }
                    PlanState::Failed(_) => None,
                };
                if let Some(why) = wait.filter(|_| !self.armed) {
                    self.armed = true;
                    app.error(why);
                    return KeyResult::Consumed(Vec::new());
                }
                drop_plan(app);
                let from = self.from().map(str::to_string);
                let op_id = std::mem::take(&mut self.op_id);
                return KeyResult::Close(start_rerun(app, op_id, from));
            }
            _ if key.code == KeyCode::Char('p') => match &self.plan {
                PlanState::Ready(p) => app.popups.push(Popup::PlanText(super::PlanText::new(
                    format!("Plan of the re-run of {}", self.op_id),
                    p.text.clone(),
                ))),
                _ => app.notify("no plan to show yet"),
            },
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
        let w = (NAME_W + widest + 5) as u16;
        let inner = usize::from(w.min(area.width).saturating_sub(2)).max(1);
        let plan = self.plan_lines(app);
        let plan_rows: usize = plan.iter().map(|l| l.width().div_ceil(inner).max(1)).sum();
        let h = RERUN_FROM.len() as u16
            + if inline { 6 } else { 8 }
            + u16::from(edited)
            + plan_rows as u16;
        let r = centered(area, w, h);
        Clear.render(r, buf);
        let mut lines = vec![Line::raw(format!(
            "Re-run {} from:",
            crate::text::escape_controls(&self.op_id)
        ))];
        lines.extend(self.choice_lines(app, inline));
        lines.extend(plan);
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
    /// The plan of the chosen re-run, or where it stands.
    fn plan_lines(&self, app: &App) -> Vec<Line<'static>> {
        let t = &app.theme;
        match &self.plan {
            PlanState::Planning => vec![Line::styled("planning…", t.muted)],
            PlanState::Failed(why) => {
                // One paragraph: the planner's error may span lines.
                let why =
                    crate::text::escape_controls(&why.replace(['\n', '\t'], " ")).into_owned();
                if why.starts_with("no plan:") {
                    vec![Line::styled(why, t.muted)]
                } else {
                    vec![Line::styled(format!("no plan: {why}"), t.error)]
                }
            }
            PlanState::Ready(p) => {
                let mut lines = summary(p);
                let mut styled: Vec<Line<'static>> = lines.drain(..).map(Line::raw).collect();
                if let Some(over) = &p.over_budget {
                    let over = crate::text::escape_controls(over);
                    styled.push(Line::styled(format!("over budget: {over}"), t.warning));
                    if self.armed {
                        styled.push(Line::styled(
                            "over budget: confirm again to send",
                            t.warning,
                        ));
                    }
                }
                let note = if self.choice == 0 {
                    "p: the whole plan"
                } else {
                    // The plan does not look answers up in the cache.
                    "p: the whole plan · earlier agents are planned too: an upper bound"
                };
                styled.push(Line::styled(note, t.muted));
                styled
            }
        }
    }

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

/// The plan's figures, one line each.
fn summary(p: &RerunPlan) -> Vec<String> {
    let calls: Vec<String> = p.calls.iter().map(|(a, n)| format!("{a} {n}")).collect();
    let n: usize = p.calls.iter().map(|(_, n)| n).sum();
    let models = crate::text::escape_controls(&p.models.join(", ")).into_owned();
    let mut lines = vec![
        format!("plan: {n} call(s): {}", calls.join(" · ")),
        format!(
            "input ~{} tokens ({} from a prefix cache) · output ~{}",
            p.input_tokens, p.prefix_tokens, p.output_tokens
        ),
        format!(
            "cost ~{:.4} USD, ~{:.4} USD with prefix caching ({models})",
            p.cost_without_cache, p.cost_with_cache
        ),
        format!("sends {} file(s), {} line(s)", p.files, p.lines),
    ];
    // Escaped by the planner.
    if let Some(d) = &p.discovery {
        lines.push(format!("discovery: {d}"));
    }
    lines
}
