//! Background work started from the workbench: re-running the pipeline for one
//! operation, and running the accepted oracles against a live API.
//!
//! `update` only decides (and refuses while something runs); the work itself runs on
//! its own thread with its own tokio runtime and reports over a channel that the event
//! loop drains, so drawing never waits on it. A re-run's events go through the same path
//! as live mode ([`live::apply`]); its result replaces the old one only when it finishes,
//! by reloading the session from disk, and a finish from a superseded re-run is ignored.
//! How a re-run is started (project, flags, model settings) is the CLI's business: it
//! hands a [`RerunLauncher`] in. This module does not talk to a model itself.

use super::live::{self, LiveMsg};
use super::loader;
use super::oracle_run::RunScope;
use super::popups::{Rerun, RunOracles};
use super::state::{App, LiveState, Popup, Screen};
use super::store::Session;
use super::update::Effect;
use crate::agents::Agent;
use crate::runner;
use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender, TryRecvError, channel};
use std::time::{Duration, Instant};

pub use super::oracle_run::{
    API_URL_ENV, PREFS_FILE, TuiPrefs, read_prefs, run_oracles, run_oracles_with, write_prefs,
};

/// What background work tells the workbench.
#[derive(Debug, Clone)]
pub enum JobMsg {
    /// A message of re-run number `seq` (pipeline event or finish).
    Rerun { seq: u64, msg: LiveMsg },
    /// An oracle run ended: a one-line summary, or why it could not run.
    Oracles(Result<String, String>),
    /// An oracle run has verdicts for `done` of its `total` oracles.
    OraclesProgress { done: usize, total: usize },
    /// Progress or end of a mutation analysis (see `mutate_job`).
    Mutate(super::mutate_job::MutateMsg),
    /// A regeneration from survivors ended: its round report, or why it failed.
    Survivors(Result<String, String>),
}

/// Starts a re-run of one operation in the background: given the operation, the agent to
/// start from (`None`: every agent), the re-run number and where to send its messages,
/// it must send every pipeline event and then exactly one `LiveMsg::Finished`, all
/// wrapped in [`JobMsg::Rerun`] with that number.
/// An `Err` means nothing was started.
pub type RerunLauncher =
    Box<dyn FnMut(&str, Option<&str>, u64, Sender<JobMsg>) -> Result<(), String>>;

/// The background work of one workbench: the channel it reports on, and how to start
/// a re-run (none: re-runs are refused with a message).
pub struct Jobs {
    tx: Sender<JobMsg>,
    rx: Receiver<JobMsg>,
    rerun: Option<RerunLauncher>,
    survivors: Option<super::survivors_job::SurvivorLauncher>,
}

impl Jobs {
    /// `rerun` starts re-runs; without it the workbench can still run oracles.
    pub fn new(rerun: Option<RerunLauncher>) -> Jobs {
        let (tx, rx) = channel();
        Jobs {
            tx,
            rx,
            rerun,
            survivors: None,
        }
    }

    /// Lets the workbench start regenerations from survivors with `launch`.
    pub fn with_survivors(mut self, launch: super::survivors_job::SurvivorLauncher) -> Jobs {
        self.survivors = Some(launch);
        self
    }

    /// Starts the background work an effect asks for. Returns the effect untouched when
    /// it is not background work, so the caller performs it as usual.
    pub fn start(&mut self, session: &Session, app: &mut App, effect: Effect) -> Option<Effect> {
        match effect {
            Effect::Rerun { op_id, from, seq } => {
                let started = match self.rerun.as_mut() {
                    Some(launch) => launch(&op_id, from.as_deref(), seq, self.tx.clone()),
                    None => Err("re-runs are not available here".to_string()),
                };
                if let Err(why) = started {
                    app.jobs.rerun_op = None;
                    app.live = LiveState::Failed(why.clone());
                    app.error(format!("cannot re-run {op_id}: {why}"));
                }
                None
            }
            Effect::RunOracles {
                base_url,
                only,
                reset,
            } => {
                let dir = session.dir().to_path_buf();
                let prefs = TuiPrefs {
                    api_url: Some(base_url.clone()),
                    reset: reset.clone(),
                };
                if let Err(e) = write_prefs(&dir, &prefs) {
                    tracing::warn!(error = %e, "base URL not remembered");
                }
                let tx = self.tx.clone();
                let spawned = std::thread::Builder::new()
                    .name("mastor-oracles".into())
                    .spawn(move || {
                        let progress = tx.clone();
                        let report = move |done, total| {
                            let _ = progress.send(JobMsg::OraclesProgress { done, total });
                        };
                        let outcome =
                            run_oracles_with(&dir, &base_url, &only, reset.as_deref(), &report);
                        let _ = tx.send(JobMsg::Oracles(outcome));
                    });
                if let Err(e) = spawned {
                    app.jobs.oracles_running = false;
                    app.error(format!("cannot start the oracle run: {e}"));
                }
                None
            }
            Effect::RunMutate {
                settings,
                only,
                project,
            } => {
                let dir = session.dir().to_path_buf();
                let tx = self.tx.clone();
                let spawned = std::thread::Builder::new()
                    .name("mastor-mutate".into())
                    .spawn(move || {
                        let end = super::mutate_job::run(&dir, &project, &settings, only, &tx);
                        let _ =
                            tx.send(JobMsg::Mutate(super::mutate_job::MutateMsg::Finished(end)));
                    });
                if let Err(e) = spawned {
                    app.jobs.mutate = None;
                    app.error(format!("cannot start the mutation analysis: {e}"));
                }
                None
            }
            Effect::FromSurvivors { ops, mutants } => {
                super::survivors_job::start(self.survivors.as_mut(), app, ops, mutants, &self.tx);
                None
            }
            other => Some(other),
        }
    }

    /// Applies every message waiting (never blocks); returns whether anything changed.
    pub fn drain(&mut self, session: &Session, app: &mut App) -> bool {
        let mut changed = false;
        loop {
            match self.rx.try_recv() {
                Ok(msg) => changed |= apply(session, app, msg),
                Err(TryRecvError::Empty | TryRecvError::Disconnected) => return changed,
            }
        }
    }

    /// Applies messages until no background work is left or `timeout` passes; returns
    /// whether everything finished. For callers without an event loop (scripts, tests).
    pub fn wait(&mut self, session: &Session, app: &mut App, timeout: Duration) -> bool {
        let deadline = Instant::now() + timeout;
        while busy(app).is_some() {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.rx.recv_timeout(left) {
                Ok(msg) => {
                    apply(session, app, msg);
                }
                Err(RecvTimeoutError::Timeout | RecvTimeoutError::Disconnected) => return false,
            }
        }
        true
    }
}

/// Why a new run must wait, if something already runs.
pub fn busy(app: &App) -> Option<String> {
    if let Some(op) = &app.jobs.rerun_op {
        return Some(format!("a re-run of {op} is in progress"));
    }
    if app.jobs.oracles_running {
        return Some("an oracle run is in progress".into());
    }
    if app.jobs.mutate.is_some() {
        return Some("a mutation analysis is in progress".into());
    }
    if app.jobs.survivors_running {
        return Some("a regeneration from survivors is in progress".into());
    }
    (app.live == LiveState::Running).then(|| "a run is in progress".to_string())
}

/// The re-run choices: the agent a re-run starts from (`None`: every agent, discovery
/// included) and what that keeps. Only per-operation agents: a one-operation run has no
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
/// selected in the operations list) from, unless something already runs.
pub fn open_rerun_popup(app: &mut App) {
    if let Some(why) = busy(app) {
        app.error(format!("cannot re-run now: {why}"));
        return;
    }
    let op = match &app.screen {
        Screen::Operation(s) => Some(s.op),
        Screen::Operations(_) => app.selected_op(),
        _ => {
            app.error("select or open an operation to re-run it");
            return;
        }
    };
    let Some(op_id) = op
        .and_then(|i| app.view.ops.get(i))
        .map(|o| o.op_id.clone())
    else {
        app.error("no operation to re-run");
        return;
    };
    app.popups.push(Popup::Rerun(Rerun { op_id, choice: 0 }));
}

/// Starts the re-run of `op_id` from agent `from` (all agents when `None`), unless
/// something already runs.
pub fn start_rerun(app: &mut App, op_id: String, from: Option<String>) -> Vec<Effect> {
    if let Some(why) = busy(app) {
        app.error(format!("cannot re-run now: {why}"));
        return Vec::new();
    }
    app.jobs.rerun_seq += 1;
    app.jobs.rerun_op = Some(op_id.clone());
    app.jobs.rerun_from = from.clone();
    app.live = LiveState::Running;
    let scope = scope(from.as_deref());
    app.notify(format!(
        "re-running {op_id}{scope}: the current result stays until it finishes"
    ));
    vec![Effect::Rerun {
        op_id,
        from,
        seq: app.jobs.rerun_seq,
    }]
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
    app.jobs.oracles_running = true;
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
    vec![Effect::RunOracles {
        base_url: url,
        only,
        reset,
    }]
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
    let known = app
        .jobs
        .last_api_url
        .clone()
        .or_else(|| app.jobs.api_url.clone())
        .or_else(|| {
            only.iter()
                .find_map(|o| app.view.verdict_details.get(o).map(|v| v.base_url.clone()))
        })
        .or_else(|| {
            // The session's most recent run.
            app.view
                .verdict_details
                .values()
                .max_by(|a, b| a.at.cmp(&b.at))
                .map(|v| v.base_url.clone())
        });
    let Some(url) = known else {
        open_run_popup(app);
        return Vec::new();
    };
    app.jobs.oracles_running = true;
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
    vec![Effect::RunOracles {
        base_url: url,
        only,
        reset,
    }]
}

/// `url` with `http://` in front when it names no scheme but a host (`127.0.0.1:8080`,
/// `api.local/v2`, `localhost`); whether it was added. A bare word is left alone, to be
/// refused with a hint rather than taken for a host name.
pub fn with_scheme(url: &str) -> (String, bool) {
    let url = url.trim();
    let host = url.split('/').next().unwrap_or("");
    let hostlike = host.contains(['.', ':']) || host.eq_ignore_ascii_case("localhost");
    if url.contains("://") || !hostlike {
        (url.to_string(), false)
    } else {
        (format!("http://{url}"), true)
    }
}

/// How a message names a re-run's scope: empty for every agent.
fn scope(from: Option<&str>) -> String {
    from.map(|a| format!(" from {a} on")).unwrap_or_default()
}

/// Applies one message; returns whether the screen needs a redraw.
pub fn apply(session: &Session, app: &mut App, msg: JobMsg) -> bool {
    match msg {
        JobMsg::Rerun { seq, msg } if seq != app.jobs.rerun_seq => {
            tracing::debug!(
                seq,
                latest = app.jobs.rerun_seq,
                ?msg,
                "stale re-run message ignored"
            );
            false
        }
        JobMsg::Rerun {
            msg: msg @ LiveMsg::Event(_),
            ..
        } => live::apply(session, app, msg),
        JobMsg::Rerun { msg, .. } => {
            let op = app.jobs.rerun_op.take().unwrap_or_default();
            let scope = scope(app.jobs.rerun_from.take().as_deref());
            let ok = matches!(msg, LiveMsg::Finished(Ok(())));
            live::apply(session, app, msg);
            if ok {
                app.notify(format!("re-run of {op}{scope} finished: session reloaded"));
            }
            true
        }
        JobMsg::Mutate(msg) => super::mutate_job::apply(session, app, msg),
        JobMsg::Survivors(outcome) => super::survivors_job::apply(session, app, outcome),
        JobMsg::OraclesProgress { done, total } => {
            if app.jobs.oracles_running {
                let url = app.jobs.last_api_url.clone().unwrap_or_default();
                app.notify(format!("running oracles against {url}: {done} of {total}…"));
            }
            true
        }
        JobMsg::Oracles(outcome) => {
            app.jobs.oracles_running = false;
            if !reload(session, app, "the oracle run") {
                return true;
            }
            match outcome {
                Ok(summary) => app.notify(summary),
                Err(why) => app.error(format!("oracle run failed: {why}")),
            }
            true
        }
    }
}

/// Reads the session again after background work `what` changed it; false (with the
/// error on screen) when it cannot be read.
pub fn reload(session: &Session, app: &mut App, what: &str) -> bool {
    match loader::load(session) {
        Ok(view) => {
            app.view = view;
            app.refresh_lists();
            true
        }
        Err(e) => {
            app.error(format!("cannot reload the session after {what}: {e}"));
            false
        }
    }
}

#[cfg(test)]
mod tests {
    use super::with_scheme;

    #[test]
    fn a_host_without_a_scheme_gets_http() {
        assert_eq!(
            with_scheme(" 127.0.0.1:1 "),
            ("http://127.0.0.1:1".into(), true)
        );
        assert_eq!(with_scheme("localhost"), ("http://localhost".into(), true));
        assert_eq!(
            with_scheme("api.local/v2"),
            ("http://api.local/v2".into(), true)
        );
        assert_eq!(
            with_scheme("https://x.org"),
            ("https://x.org".into(), false)
        );
        assert_eq!(with_scheme("nope"), ("nope".into(), false));
        assert_eq!(with_scheme(""), (String::new(), false));
    }
}
