//! The executor: runs the body of a task somewhere and feeds what it reports back into
//! the workbench's one message stream. It decides nothing and changes no state: the
//! registry entry was made by `update`, and the task's end is applied by `update` too.
//!
//! Where a body runs is injected ([`Spawn`]): [`Threads`] gives each task its own
//! thread (the workbench), [`Inline`] runs it at once on the caller's thread (tests and
//! the key-sequence bench), so a key sequence covers an oracle run, a re-run or a
//! mutation analysis end to end without an event loop. Work that needs the command
//! line's settings (a model for re-runs and regenerations) comes in as [`Launchers`].

use super::msg::Msg;
use super::oracle_run::{TuiPrefs, run_oracles_with, write_prefs};
use super::tasks::Work;
use crate::store::Event;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::mpsc::{Receiver, Sender, channel};
use std::time::Duration;

/// Re-runs the pipeline for an operation (from an agent on, `None`: every agent),
/// blocking, sending its pipeline events through the reporter.
pub type RerunLauncher =
    Arc<dyn Fn(&str, Option<&str>, &Reporter) -> Result<(), String> + Send + Sync>;

/// One regeneration round from survivors (`ops`, `mutants`; empty: all), blocking;
/// returns the round's report.
pub type SurvivorLauncher =
    Arc<dyn Fn(Vec<String>, Vec<String>) -> Result<String, String> + Send + Sync>;

/// Plans the re-run of an operation (from an agent on, `None`: every agent) as
/// `--dry-run` would, blocking; never sends anything.
pub type PlanLauncher =
    Arc<dyn Fn(&str, Option<&str>) -> Result<super::rerun_plan::RerunPlan, String> + Send + Sync>;

/// What the command line hands the workbench to start work that needs a model; a
/// missing launcher makes that work end at once with an error saying so.
#[derive(Clone, Default)]
pub struct Launchers {
    pub rerun: Option<RerunLauncher>,
    pub survivors: Option<SurvivorLauncher>,
    pub plan: Option<PlanLauncher>,
}

/// How a task body reports: its events, progress and one result, each tagged with the
/// task's number. Dropped without a result (a panic), it reports that the task stopped.
pub struct Reporter {
    tx: Sender<Msg>,
    seq: u64,
    done: bool,
}

impl Reporter {
    /// One pipeline event of a run or re-run.
    pub fn event(&self, event: &Event) {
        let _ = self.tx.send(Msg::Event {
            seq: self.seq,
            event: event.clone(),
        });
    }

    /// The events of a pipeline run, as a sink it can own.
    pub fn sink(&self) -> impl Fn(&Event) + Send + Sync + 'static {
        let (tx, seq) = (self.tx.clone(), self.seq);
        move |event| {
            let _ = tx.send(Msg::Event {
                seq,
                event: event.clone(),
            });
        }
    }

    /// `done` of `total` steps are over.
    pub fn progress(&self, done: usize, total: usize) {
        let _ = self.tx.send(Msg::Progress {
            seq: self.seq,
            done,
            total,
        });
    }

    /// The task's end: a one-line summary, or why it failed.
    pub fn done(mut self, outcome: Result<String, String>) {
        self.done = true;
        let _ = self.tx.send(Msg::Done {
            seq: self.seq,
            outcome,
        });
    }
}

impl Drop for Reporter {
    fn drop(&mut self) {
        if !self.done {
            let _ = self.tx.send(Msg::Done {
                seq: self.seq,
                outcome: Err("it stopped unexpectedly".into()),
            });
        }
    }
}

/// Where task bodies run.
pub trait Spawn {
    /// Runs `job` (named `name`); an `Err` means it never started.
    fn spawn(&mut self, name: &str, job: Box<dyn FnOnce() + Send>) -> Result<(), String>;
}

/// Each task on its own thread: the workbench never waits on one.
pub struct Threads;

impl Spawn for Threads {
    fn spawn(&mut self, name: &str, job: Box<dyn FnOnce() + Send>) -> Result<(), String> {
        std::thread::Builder::new()
            .name(format!("mastor-{name}"))
            .spawn(job)
            .map(|_| ())
            .map_err(|e| format!("cannot start a thread: {e}"))
    }
}

/// Each task at once, on the caller's thread: its messages are waiting when `spawn`
/// returns (tests, benches).
pub struct Inline;

impl Spawn for Inline {
    fn spawn(&mut self, _: &str, job: Box<dyn FnOnce() + Send>) -> Result<(), String> {
        job();
        Ok(())
    }
}

/// The one stream every task reports on, and where tasks run.
pub struct Executor {
    tx: Sender<Msg>,
    rx: Receiver<Msg>,
    dir: PathBuf,
    launchers: Arc<Launchers>,
    spawner: Box<dyn Spawn>,
}

impl Executor {
    /// Tasks of the session in `dir` run by `spawner`.
    pub fn new(dir: &Path, launchers: Launchers, spawner: Box<dyn Spawn>) -> Executor {
        let (tx, rx) = channel();
        Executor {
            tx,
            rx,
            dir: dir.to_path_buf(),
            launchers: Arc::new(launchers),
            spawner,
        }
    }

    /// Each task on its own thread.
    pub fn threads(dir: &Path, launchers: Launchers) -> Executor {
        Executor::new(dir, launchers, Box::new(Threads))
    }

    /// Each task at once, on the caller's thread.
    pub fn inline(dir: &Path, launchers: Launchers) -> Executor {
        Executor::new(dir, launchers, Box::new(Inline))
    }

    /// A reporter for task `seq`, for work started outside the executor (live mode's
    /// pipeline run).
    pub fn reporter(&self, seq: u64) -> Reporter {
        Reporter {
            tx: self.tx.clone(),
            seq,
            done: false,
        }
    }

    /// Runs task `seq` doing `work`; everything it says, its end included, arrives
    /// through [`Executor::next`].
    pub fn spawn(&mut self, seq: u64, work: Work) {
        let reporter = self.reporter(seq);
        let dir = self.dir.clone();
        let launchers = Arc::clone(&self.launchers);
        let name = format!("{:?}", work.kind()).to_lowercase();
        let job = Box::new(move || {
            let outcome = body(work, &dir, &launchers, &reporter);
            reporter.done(outcome);
        });
        if let Err(why) = self.spawner.spawn(&name, job) {
            // The dropped job already said it stopped; this names why (and is stale
            // if that came first, so only one end is applied).
            let _ = self.tx.send(Msg::Done {
                seq,
                outcome: Err(why),
            });
        }
    }

    /// The next message, waiting at most `wait` for one.
    pub fn next(&mut self, wait: Duration) -> Option<Msg> {
        if wait.is_zero() {
            return self.rx.try_recv().ok();
        }
        self.rx.recv_timeout(wait).ok()
    }
}

/// Runs one task (blocking); its one-line result. A new kind of work adds its arm here.
pub fn body(work: Work, dir: &Path, launchers: &Launchers, r: &Reporter) -> Result<String, String> {
    let progress = |done, total| r.progress(done, total);
    match work {
        Work::Rerun { op_id, from } => match &launchers.rerun {
            Some(launch) => launch(&op_id, from.as_deref(), r).map(|()| String::new()),
            None => Err("re-runs are not available here".into()),
        },
        Work::Oracles {
            base_url,
            only,
            reset,
        } => {
            remember(dir, &base_url, reset.as_deref());
            run_oracles_with(dir, &base_url, &only, reset.as_deref(), &progress)
        }
        Work::Triage {
            base_url,
            all,
            reset,
        } => {
            remember(dir, &base_url, Some(&reset));
            run_oracles_with(dir, &base_url, &all, Some(&reset), &progress)
        }
        Work::Mutate {
            settings,
            only,
            project,
        } => super::mutate_job::run(dir, &project, &settings, only, r),
        Work::Survivors { ops, mutants } => match &launchers.survivors {
            Some(launch) => launch(ops, mutants),
            None => Err("regeneration needs a model: open the workbench with `mastor tui`".into()),
        },
        Work::Plan { op_id, from } => match &launchers.plan {
            Some(plan) => plan(&op_id, from.as_deref())
                .and_then(|p| serde_json::to_string(&p).map_err(|e| e.to_string())),
            None => Err("no plan: re-runs are not planned here (no project to plan with)".into()),
        },
    }
}

/// Remembers the base URL and reset command of a run in `tui.json` for the next launch.
fn remember(dir: &Path, base_url: &str, reset: Option<&str>) {
    let prefs = TuiPrefs {
        api_url: Some(base_url.to_string()),
        reset: reset.map(str::to_string),
    };
    if let Err(e) = write_prefs(dir, &prefs) {
        tracing::warn!(error = %e, "base URL not remembered");
    }
}
