//! Re-running the pipeline for one operation from the workbench (`ctrl-r`): which
//! agent to start from, and the request for the task. The re-run itself is the command
//! line's launcher (`executor::RerunLauncher`, it owns the model settings), run by the
//! executor; its events and end come back as messages (`msg::update`), and the result
//! replaces the old one only when it ends, by reloading the session from disk.

use super::jobs::{busy, start};
use super::popups::Rerun;
use super::state::{App, Popup, Screen};
use super::tasks::Work;
use super::update::Effect;
use crate::agents::Agent;

/// The re-run choices: the agent a re-run starts from (`None`: every agent, discovery
/// included when `--discovery` says the operation needs it) and what that keeps. Only per-operation agents: a one-operation run has no
/// groups, so the multi-op agents never run in it.
pub const RERUN_FROM: [(Option<&str>, &str); 5] = [
    (None, "every agent asks the model again"),
    (
        Some(Agent::Extraction.name()),
        "extract the source context again; generation and review follow",
    ),
    (
        Some(Agent::SingleOp.name()),
        "keep the context; generate the oracles again, then review them",
    ),
    (
        Some(Agent::SingleOpChallenger.name()),
        "keep context and oracles; review again and regenerate what is flagged",
    ),
    (
        Some(Agent::SingleOpRegenerate.name()),
        "keep context, oracles and hints; regenerate the flagged oracles",
    ),
];

/// The `rerun` action: asks which agent to re-run the operation on screen (or the one
/// selected in the operations list) from, unless something already runs, and asks for
/// the plan of a re-run of every agent.
pub fn open_rerun_popup(app: &mut App) -> Vec<Effect> {
    if let Some(why) = busy(app) {
        app.error(format!("cannot re-run now: {why}"));
        return Vec::new();
    }
    let op = match &app.screen {
        Screen::Operation(s) => Some(s.op),
        Screen::Operations(_) => app.selected_op(),
        _ => {
            app.error("select or open an operation to re-run it");
            return Vec::new();
        }
    };
    let Some(op_id) = op
        .and_then(|i| app.view.ops.get(i))
        .map(|o| o.op_id.clone())
    else {
        app.error("no operation to re-run");
        return Vec::new();
    };
    let effects = super::rerun_plan::start_plan(app, &op_id, None);
    app.popups.push(Popup::Rerun(Rerun::new(op_id)));
    effects
}

/// Starts the re-run of `op_id` from agent `from` (all agents when `None`), unless
/// something already runs.
pub fn start_rerun(app: &mut App, op_id: String, from: Option<String>) -> Vec<Effect> {
    if let Some(why) = busy(app) {
        app.error(format!("cannot re-run now: {why}"));
        return Vec::new();
    }
    let scope = scope(from.as_deref());
    app.notify(format!(
        "re-running {op_id}{scope}: the current result stays until it finishes"
    ));
    let label = format!("re-run of {op_id}{scope}");
    start(app, Work::Rerun { op_id, from }, &label)
}

/// How a message names a re-run's scope: empty for every agent.
fn scope(from: Option<&str>) -> String {
    from.map(|a| format!(" from {a} on")).unwrap_or_default()
}
