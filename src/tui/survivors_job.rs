//! Mutation-guided regeneration from the Mutants screen: the key on one survivor (`g`)
//! or on every survivor of the operation filter (`G`) starts what `mastor run
//! --from-survivors` does, as a task whose body is a launcher the command line hands
//! in (`executor::SurvivorLauncher`: it owns the model settings); the workbench
//! reloads when the round ends.

use super::jobs::busy;
use super::state::{App, Screen};
use super::tasks::Work;
use super::update::Effect;
use crate::mutate::Status;

pub use super::executor::SurvivorLauncher;

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
    let (ops, mutants) = if all {
        match scr.filter.op.clone() {
            Some(op) => (vec![op], Vec::new()),
            None => {
                app.notify("choose an operation with the operation filter first (w)");
                return Vec::new();
            }
        }
    } else {
        match scr.selected(&app.view) {
            Some(m) if m.status == Status::Missed => (Vec::new(), vec![m.mutant.id.clone()]),
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
    let what = match (&mutants[..], &ops[..]) {
        ([one], _) => one.clone(),
        (_, [op]) => format!("the survivors of {op}"),
        _ => "the survivors".to_string(),
    };
    app.notify(format!("asking the model for oracles that kill {what}..."));
    let work = Work::Survivors { ops, mutants };
    super::jobs::start(app, work, "regeneration from survivors")
}
