//! What the workbench is waiting on: one registry of the background tasks it started
//! (or, in live mode, was started with), keyed by kind.
//!
//! Everything that asks "is something running?" asks the registry: the busy check that
//! refuses a second task, the quit guard, the header's progress, live mode's "run in
//! progress", and the filtering of stale messages (a message whose task number is no
//! longer registered is ignored). A task is registered when `update` asks for it
//! ([`Tasks::start`], then `Effect::Start`), and leaves the registry when its `Done`
//! message is applied. The inputs of a task are a [`Work`]; what runs it is the
//! executor (`executor::body`); what its end changes is `msg::finished`.

use std::collections::BTreeMap;
use std::path::PathBuf;

/// The kinds of background work; at most one task of each kind runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum TaskKind {
    /// The pipeline run live mode (`mastor tui --run`) watches.
    Run,
    /// A re-run of the pipeline for one operation.
    Rerun,
    /// A run of some oracles against a live API.
    Oracles,
    /// Every oracle against a live API, then each failure alone after the reset
    /// command (`check --only all --reset CMD --isolate-failures`), then the failures
    /// on screen.
    Triage,
    /// A mutation analysis.
    Mutate,
    /// A regeneration from survivors (`run --from-survivors`).
    Survivors,
    /// The plan of the re-run the re-run dialog would start (nothing is sent).
    Plan,
}

impl TaskKind {
    /// The task's progress as the header shows it (`None`: the status line only).
    pub fn progress_word(self) -> Option<&'static str> {
        match self {
            TaskKind::Mutate => Some("mutating"),
            TaskKind::Triage => Some("triage"),
            _ => None,
        }
    }

    /// Whether the task stores verdicts (so a change of `verdicts/latest.json` while
    /// it runs is the workbench's own).
    pub fn stores_verdicts(self) -> bool {
        matches!(self, TaskKind::Oracles | TaskKind::Triage)
    }

    /// Whether the task is a pipeline run, which live mode shows as "run in progress".
    pub fn is_pipeline(self) -> bool {
        matches!(self, TaskKind::Run | TaskKind::Rerun)
    }

    /// Whether another task must wait for it. A plan only reads the project and the
    /// session: the re-run it plans must be able to start while it still runs.
    pub fn holds_back(self) -> bool {
        !matches!(self, TaskKind::Plan)
    }
}

/// The inputs of a task the executor runs; `Effect::Start` carries one.
#[derive(Debug, Clone, PartialEq)]
pub enum Work {
    /// Re-run the pipeline for `op_id`, every agent (`from: None`) or from the named
    /// agent on (earlier agents replay their cached answers).
    Rerun { op_id: String, from: Option<String> },
    /// Run oracles against `base_url` and save the verdicts: `only` those o_ids
    /// whatever their review state (a partial run merges into the latest verdicts),
    /// empty: the accepted and edited ones. With `reset`, fresh state and isolation of
    /// failures (`check --reset CMD --isolate-failures`).
    Oracles {
        base_url: String,
        only: Vec<String>,
        reset: Option<String>,
    },
    /// Run `all` (every oracle not dropped) against `base_url` after `reset`, isolate
    /// each failure alone after it, then show the failures.
    Triage {
        base_url: String,
        all: Vec<String>,
        reset: String,
    },
    /// Run the mutation analysis of the session (`mutate_job`) on the oracles `only`
    /// selects, then reload its results.
    Mutate {
        settings: super::mutate_job::MutateSettings,
        only: crate::suite::Only,
        project: PathBuf,
    },
    /// Ask the model for oracles that kill survivors: `mutants` only (empty: every
    /// survivor), within `ops` (empty: all).
    Survivors {
        ops: Vec<String>,
        mutants: Vec<String>,
    },
    /// Plan the re-run of `op_id` from agent `from` (`None`: every agent), as
    /// `mastor run --dry-run --op OP_ID` would, without sending anything.
    Plan { op_id: String, from: Option<String> },
}

impl Work {
    /// The registry key of a task doing this.
    pub fn kind(&self) -> TaskKind {
        match self {
            Work::Rerun { .. } => TaskKind::Rerun,
            Work::Oracles { .. } => TaskKind::Oracles,
            Work::Triage { .. } => TaskKind::Triage,
            Work::Mutate { .. } => TaskKind::Mutate,
            Work::Survivors { .. } => TaskKind::Survivors,
            Work::Plan { .. } => TaskKind::Plan,
        }
    }
}

/// One task in flight.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Task {
    pub kind: TaskKind,
    /// Its number: messages carry it, and one not registered any more is stale.
    pub seq: u64,
    /// What it is, as the status line names it ("re-run of GET /pets", "oracle run").
    pub label: String,
    /// (done, total) when the task reports progress.
    pub progress: Option<(usize, usize)>,
}

/// The tasks in flight, by kind, and the number the next one gets.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Tasks {
    last_seq: u64,
    running: BTreeMap<TaskKind, Task>,
}

impl Tasks {
    /// Registers a task of `kind`; returns its number. A task of the same kind still
    /// registered is replaced: its messages are stale from now on.
    pub fn start(&mut self, kind: TaskKind, label: impl Into<String>) -> u64 {
        self.last_seq += 1;
        let task = Task {
            kind,
            seq: self.last_seq,
            label: label.into(),
            progress: None,
        };
        self.running.insert(kind, task);
        self.last_seq
    }

    /// The number the latest task got (0: none yet).
    pub fn last_seq(&self) -> u64 {
        self.last_seq
    }

    /// The running task of `kind`.
    pub fn get(&self, kind: TaskKind) -> Option<&Task> {
        self.running.get(&kind)
    }

    /// The running task numbered `seq` (`None`: ended or superseded, so stale).
    pub fn by_seq(&self, seq: u64) -> Option<&Task> {
        self.running.values().find(|t| t.seq == seq)
    }

    /// Records progress of task `seq`; the task, or `None` when it is stale.
    pub fn progress(&mut self, seq: u64, done: usize, total: usize) -> Option<&Task> {
        let task = self.running.values_mut().find(|t| t.seq == seq)?;
        task.progress = Some((done, total));
        Some(task)
    }

    /// Takes task `seq` out of the registry (`None`: it is stale).
    pub fn finish(&mut self, seq: u64) -> Option<Task> {
        let kind = self.by_seq(seq)?.kind;
        self.running.remove(&kind)
    }

    /// Takes the task of `kind` out, whatever its number (nothing will report for it).
    pub fn end(&mut self, kind: TaskKind) -> Option<Task> {
        self.running.remove(&kind)
    }

    /// The running tasks, in kind order.
    pub fn iter(&self) -> impl Iterator<Item = &Task> {
        self.running.values()
    }

    /// Whether a task of any of these kinds runs.
    pub fn any(&self, pred: impl Fn(TaskKind) -> bool) -> bool {
        self.running.keys().any(|k| pred(*k))
    }

    /// Why a new task must wait, if one already runs ("a mutation analysis is in
    /// progress").
    pub fn busy(&self) -> Option<String> {
        let t = self.running.values().find(|t| t.kind.holds_back())?;
        let article = if t.label.starts_with(['a', 'e', 'i', 'o', 'u']) {
            "an"
        } else {
            "a"
        };
        Some(format!("{article} {} is in progress", t.label))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_finished_or_superseded_task_is_stale() {
        let mut t = Tasks::default();
        assert_eq!(t.busy(), None);
        let one = t.start(TaskKind::Rerun, "re-run of GET /pets");
        assert_eq!(
            t.busy().as_deref(),
            Some("a re-run of GET /pets is in progress")
        );
        let two = t.start(TaskKind::Rerun, "re-run of GET /pets");
        assert!(t.by_seq(one).is_none() && t.progress(one, 1, 2).is_none());
        assert!(t.finish(one).is_none(), "a superseded task's end is stale");
        assert_eq!(
            t.progress(two, 1, 2).map(|t| t.progress),
            Some(Some((1, 2)))
        );
        assert_eq!(t.finish(two).map(|t| t.seq), Some(two));
        assert!(t.finish(two).is_none() && t.busy().is_none());
        t.start(TaskKind::Oracles, "oracle run");
        assert_eq!(t.busy().as_deref(), Some("an oracle run is in progress"));
        assert!(t.any(TaskKind::stores_verdicts) && !t.any(TaskKind::is_pipeline));
        t.finish(t.get(TaskKind::Oracles).map_or(0, |t| t.seq));
        t.start(TaskKind::Plan, "plan");
        assert_eq!(t.busy(), None, "a plan holds nothing back");
    }
}
