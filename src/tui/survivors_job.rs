//! Mutation-guided regeneration from the Mutants screen: the key on one survivor (`g`)
//! or on every survivor of the operation filter (`G`) starts what `mastor run
//! --from-survivors` does, off the UI thread, through a launcher the command line hands
//! in (it owns the model settings); the workbench reloads when the round ends.

use super::jobs::{JobMsg, busy, reload};
use super::state::{App, Screen};
use super::update::Effect;
use crate::mutate::Status;
use crate::store::Session;
use std::sync::mpsc::Sender;

/// Starts one regeneration round: `ops` (empty: all) and `mutants` (empty: every
/// survivor); it must send exactly one [`JobMsg::Survivors`]. An `Err` means nothing
/// was started.
pub type SurvivorLauncher =
    Box<dyn FnMut(Vec<String>, Vec<String>, Sender<JobMsg>) -> Result<(), String>>;

/// The effect of `g` (the selected survivor) or `G` (`all`: the operation filter's
/// survivors), or a message saying why not.
pub fn request(app: &mut App, all: bool) -> Vec<Effect> {
    if let Some(why) = busy(app) {
        app.error(format!("cannot regenerate now: {why}"));
        return Vec::new();
    }
    let Screen::Mutants(scr) = &app.screen else {
        app.notify("open the Mutants screen (5) to target survivors");
        return Vec::new();
    };
    let effect = if all {
        match scr.filter.op.clone() {
            Some(op) => Effect::FromSurvivors {
                ops: vec![op],
                mutants: Vec::new(),
            },
            None => {
                app.notify("choose an operation with the operation filter first (w)");
                return Vec::new();
            }
        }
    } else {
        match scr.selected(&app.view) {
            Some(m) if m.status == Status::Missed => Effect::FromSurvivors {
                ops: Vec::new(),
                mutants: vec![m.mutant.id.clone()],
            },
            Some(m) => {
                let why = format!(
                    "{} is {}: only a survivor can be targeted",
                    m.mutant.id,
                    m.status.name()
                );
                app.notify(why);
                return Vec::new();
            }
            None => {
                app.notify("no mutant selected");
                return Vec::new();
            }
        }
    };
    vec![effect]
}

/// Hands the effect to the launcher, or says why it cannot run here.
pub fn start(
    launch: Option<&mut SurvivorLauncher>,
    app: &mut App,
    ops: Vec<String>,
    mutants: Vec<String>,
    tx: &Sender<JobMsg>,
) {
    let what = match (&mutants[..], &ops[..]) {
        ([one], _) => one.clone(),
        (_, [op]) => format!("the survivors of {op}"),
        _ => "the survivors".to_string(),
    };
    let started = match launch {
        Some(l) => l(ops, mutants, tx.clone()),
        None => Err("regeneration needs a model: open the workbench with `mastor tui`".into()),
    };
    match started {
        Ok(()) => {
            app.jobs.survivors_running = true;
            app.notify(format!("asking the model for oracles that kill {what}..."));
        }
        Err(why) => app.error(format!("cannot regenerate for {what}: {why}")),
    }
}

/// The round ended: reload the session (new proposed oracles, new results) and say how
/// it went.
pub fn apply(session: &Session, app: &mut App, outcome: Result<String, String>) -> bool {
    app.jobs.survivors_running = false;
    if !reload(session, app, "the regeneration") {
        return true;
    }
    app.refresh_mutants();
    match outcome {
        Ok(report) => app.notify(crate::text::escape_controls(
            report.lines().next().unwrap_or("regeneration finished"),
        )),
        Err(why) => app.error(format!("regeneration failed: {why}")),
    }
    true
}
