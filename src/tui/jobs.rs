//! Background work started from the workbench: the busy check every starter makes,
//! the request for a task ([`start`]), and the oracle runs against a live API
//! (`ctrl-t`, `!`, `ctrl-f`). Re-runs are started in `rerun`, mutation analyses in
//! `mutate_job`, regenerations in `survivors_job`; what runs them is the executor and
//! what their end changes is `msg::update` (see the checklist in `tui`).

use super::oracle_run::RunScope;
use super::popups::RunOracles;
use super::state::{App, Popup};
use super::tasks::Work;
use super::update::Effect;
use crate::runner;

pub use super::base_url::with_scheme;
pub use super::oracle_run::{
    API_URL_ENV, PREFS_FILE, TuiPrefs, read_prefs, run_oracles, run_oracles_with, write_prefs,
};
pub use super::rerun::{RERUN_FROM, open_rerun_popup, start_rerun};

/// Why a new task must wait, if one already runs (the registry says).
pub fn busy(app: &App) -> Option<String> {
    app.tasks.busy()
}

/// Registers a task doing `work` (named `label` in messages) and asks for it to run.
pub fn start(app: &mut App, work: Work, label: &str) -> Vec<Effect> {
    let seq = app.tasks.start(work.kind(), label);
    vec![Effect::Start { seq, work }]
}

/// The `run_oracles` action: asks for the base URL, prefilled from `--api-url` or
/// `MASTOR_API_URL`, else the last one used here.
pub fn open_run_popup(app: &mut App) {
    if let Some(why) = busy(app) {
        app.error(format!("cannot run oracles now: {why}"));
        return;
    }
    let url = app
        .jobs
        .api_url
        .clone()
        .or_else(|| app.jobs.last_api_url.clone())
        .unwrap_or_default();
    let reset = app.jobs.last_reset.clone().unwrap_or_default();
    app.popups
        .push(Popup::RunOracles(Box::new(RunOracles::new(url, reset))));
}

/// The run popup was accepted with `url`, `scope` and `reset` (blank: none): checks
/// them and asks for the run. A URL without a scheme (`127.0.0.1:8080`) gets
/// `http://`, and the status line says so.
pub fn start_oracle_run(app: &mut App, url: String, scope: RunScope, reset: &str) -> Vec<Effect> {
    if let Some(why) = busy(app) {
        app.error(format!("cannot run oracles now: {why}"));
        return Vec::new();
    }
    let (url, added) = with_scheme(&url);
    if let Err(e) = runner::parse_base_url(&url) {
        let hint = if url.contains("://") {
            ""
        } else {
            " (a base URL starts with http:// or https://)"
        };
        app.error(format!("{e}{hint}"));
        return Vec::new();
    }
    let only = scope.ids(&app.view);
    if scope != RunScope::Accepted && only.is_empty() {
        app.notify(format!("no {} oracles: nothing to run", scope.label()));
        return Vec::new();
    }
    let reset = Some(reset.trim().to_string()).filter(|c| !c.is_empty());
    app.jobs.last_api_url = Some(url.clone());
    app.jobs.last_reset = reset.clone();
    let note = if added {
        " (no scheme given: http:// added)"
    } else {
        ""
    };
    let isolating = if reset.is_some() {
        ", failures isolated after the reset command"
    } else {
        ""
    };
    let what = match scope {
        RunScope::Accepted => "accepted".to_string(),
        other => format!("{} {}", only.len(), other.label()),
    };
    app.notify(format!(
        "running {what} oracles against {url}{note}{isolating}…"
    ));
    match (scope, reset) {
        // Every oracle after the reset command: run, isolate, then triage the failures.
        (RunScope::All, Some(reset)) => start(
            app,
            Work::Triage {
                base_url: url,
                all: only,
                reset,
            },
            "triage run",
        ),
        (_, reset) => start(
            app,
            Work::Oracles {
                base_url: url,
                only,
                reset,
            },
            "oracle run",
        ),
    }
}

/// The `run_one` / `run_failing` actions: runs the selected oracle (or every failing
/// one) again against the URL used last, with the reset command used last, without a
/// dialog; asks for the URL only when none is known yet.
pub fn run_again(app: &mut App, failing: bool) -> Vec<Effect> {
    if let Some(why) = busy(app) {
        app.error(format!("cannot run oracles now: {why}"));
        return Vec::new();
    }
    let only: Vec<String> = if failing {
        let mut ids: Vec<String> = app
            .view
            .verdicts
            .iter()
            .filter(|(_, o)| {
                matches!(
                    o,
                    crate::model::Outcome::Fail | crate::model::Outcome::Error
                )
            })
            .map(|(id, _)| id.clone())
            .collect();
        ids.sort();
        ids
    } else {
        match app.selected_item().and_then(|i| app.o_id(i)) {
            Some(o) => vec![o],
            None => {
                app.notify("select an oracle to run (an operation's Oracles tab, a group)");
                return Vec::new();
            }
        }
    };
    if only.is_empty() {
        app.notify("no failing oracles: nothing to run again");
        return Vec::new();
    }
    let known = super::base_url::known(app, &only);
    let Some(url) = known else {
        open_run_popup(app);
        return Vec::new();
    };
    app.jobs.last_api_url = Some(url.clone());
    let what = if failing {
        format!("{} failing oracle(s)", only.len())
    } else {
        only[0].clone()
    };
    // The reset command remembered with the URL: the same fresh state and isolation
    // of failures as the run that found them.
    let reset = app.jobs.last_reset.clone();
    let after = if reset.is_some() {
        ", after the reset command"
    } else {
        ""
    };
    app.notify(format!("running {what} again against {url}{after}…"));
    let work = Work::Oracles {
        base_url: url,
        only,
        reset,
    };
    start(app, work, "oracle run")
}
