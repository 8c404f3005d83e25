//! The plan of a re-run, shown in the re-run dialog before anything is sent: the same
//! plan `mastor run --dry-run --op OP` prints, made in the background (a `Plan` task)
//! by the planner the command line hands the executor, when the dialog opens and each
//! time the chosen agent changes. A plan for a choice the reviewer has moved on from is
//! stale: starting the next one replaces its registry entry, so its end is dropped.
//!
//! A task's end is one line, so the plan travels as JSON of [`RerunPlan`], the part of
//! `pipeline::plan::Plan` the dialog shows plus the text `--dry-run` prints.

use super::jobs::start;
use super::popups::Rerun;
use super::state::{App, Popup};
use super::tasks::{TaskKind, Work};
use super::update::Effect;
use crate::pipeline::plan::Plan;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};

/// What the re-run dialog shows of a plan.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RerunPlan {
    /// Calls per agent, in the order the plan makes them.
    pub calls: Vec<(String, usize)>,
    pub input_tokens: u64,
    /// Of the input tokens, those a provider's prefix cache would serve.
    pub prefix_tokens: u64,
    pub output_tokens: u64,
    /// Estimated USD under the configured prices, without and with prefix caching.
    pub cost_without_cache: f64,
    pub cost_with_cache: f64,
    /// `role: provider model` of each role called.
    pub models: Vec<String>,
    /// Distinct project files, and lines of them, that some call would send.
    pub files: usize,
    pub lines: usize,
    /// What of the workbench's budget (`--max-cost`, `--max-tokens-total`) the plan
    /// exceeds, if anything.
    pub over_budget: Option<String>,
    /// Whether the re-run asks for discovery and why (`--discovery`), escaped.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub discovery: Option<String>,
    /// The whole plan as `--dry-run` prints it (escaped there).
    pub text: String,
}

impl RerunPlan {
    /// The dialog's part of `plan`, with the budget verdict made by the planner.
    pub fn of(plan: &Plan, over_budget: Option<String>) -> RerunPlan {
        let mut calls: Vec<(String, usize)> = Vec::new();
        let mut sent: BTreeMap<&str, BTreeSet<u64>> = BTreeMap::new();
        for c in &plan.calls {
            let name = c.agent.name();
            match calls.iter_mut().find(|(a, _)| a == name) {
                Some((_, n)) => *n += 1,
                None => calls.push((name.to_string(), 1)),
            }
            for f in &c.sends {
                sent.entry(&f.file)
                    .or_default()
                    .extend(line_numbers(&f.lines));
            }
        }
        RerunPlan {
            calls,
            input_tokens: plan.input_tokens,
            prefix_tokens: plan.prefix_tokens,
            output_tokens: plan.output_tokens,
            cost_without_cache: plan.cost.without_cache,
            cost_with_cache: plan.cost.with_cache,
            models: plan
                .models
                .iter()
                .map(|(r, m)| format!("{r}: {m}"))
                .collect(),
            files: sent.len(),
            lines: sent.values().map(BTreeSet::len).sum(),
            over_budget,
            discovery: Some(plan.discovery.line(true)),
            text: crate::pipeline::plan_text::render(plan),
        }
    }
}

/// The line numbers of `1-40, 52-60` (none for `seed records` or anything else).
fn line_numbers(ranges: &str) -> impl Iterator<Item = u64> + '_ {
    ranges.split(',').flat_map(|r| {
        let (a, b) = r.trim().split_once('-').unwrap_or((r.trim(), r.trim()));
        match (a.parse::<u64>(), b.parse::<u64>()) {
            (Ok(a), Ok(b)) if a <= b => a..=b,
            #[allow(clippy::reversed_empty_ranges)]
            _ => 1..=0,
        }
    })
}

/// Where the dialog's plan stands.
#[derive(Debug, Clone, PartialEq)]
pub enum PlanState {
    /// The planner runs for the current choice.
    Planning,
    Ready(Box<RerunPlan>),
    /// The planner's error (or why there is none: "no plan: ...").
    Failed(String),
}

/// Asks for the plan of the re-run of `op_id` from `from`; a plan still running for an
/// earlier choice is stale from now on.
pub fn start_plan(app: &mut App, op_id: &str, from: Option<&str>) -> Vec<Effect> {
    let work = Work::Plan {
        op_id: op_id.to_string(),
        from: from.map(str::to_string),
    };
    start(app, work, &format!("plan of the re-run of {op_id}"))
}

/// The dialog closed: a plan still running is of no use any more.
pub fn drop_plan(app: &mut App) {
    app.tasks.end(TaskKind::Plan);
}

/// The current plan task ended with `outcome` (the plan as JSON, or why there is none):
/// the re-run dialog shows it.
pub fn show(app: &mut App, outcome: Result<String, String>) {
    let state = match outcome {
        Ok(json) => match serde_json::from_str::<RerunPlan>(&json) {
            Ok(plan) => PlanState::Ready(Box::new(plan)),
            Err(e) => PlanState::Failed(format!("cannot read the plan: {e}")),
        },
        Err(why) => PlanState::Failed(why),
    };
    if let Some(dialog) = dialog(app) {
        dialog.plan = state;
    }
}

fn dialog(app: &mut App) -> Option<&mut Rerun> {
    app.popups.iter_mut().rev().find_map(|p| match p {
        Popup::Rerun(r) => Some(r),
        _ => None,
    })
}

#[cfg(test)]
mod tests {
    use super::line_numbers;

    #[test]
    fn ranges_count_their_lines() {
        assert_eq!(
            line_numbers("1-3, 7, 10-11").collect::<Vec<_>>(),
            [1, 2, 3, 7, 10, 11]
        );
        assert_eq!(line_numbers("seed records").count(), 0);
        assert_eq!(line_numbers("5-2").count(), 0);
    }
}
