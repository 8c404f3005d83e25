//! The orchestrator (the paper's MastorAgent): a deterministic state machine over the
//! pipeline's phases.
//!
//! It performs no I/O. The driver feeds it [`Event`]s (a task finished or failed) and
//! carries out the [`Task`]s it returns, so every transition is testable without tokio,
//! network or disk. Agents never call each other: the orchestrator alone decides what runs
//! next, from what has finished.
//!
//! One deliberate departure from the paper: an operation's single-op generation starts as
//! soon as its own source context exists, instead of waiting for every extraction to
//! finish. The oracles are the same; the wall time is shorter when one extraction is slow.

use crate::agents::Agent;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};

/// Which optional parts of the pipeline run (the paper's RQ3 ablations).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct PipelineOptions {
    /// Ask the model which spec operations each bundle implements (cross-check of the
    /// static pre-match).
    pub discovery: bool,
    /// Run the semantic grouping and the multi-op path.
    pub multi_op: bool,
    /// Run the challengers and their one targeted regeneration.
    pub challenger: bool,
}

impl Default for PipelineOptions {
    fn default() -> Self {
        Self {
            discovery: true,
            multi_op: true,
            challenger: true,
        }
    }
}

/// A unit of work for one agent. The driver maps each to an agent call.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(tag = "task", rename_all = "snake_case")]
pub enum Task {
    /// Endpoint discovery over one entry file's bundle.
    Discover { entry_file: String },
    /// SourceExtractionAgent for one operation.
    Extract { op_id: String },
    /// SemanticExtractAgent over all extracted contexts.
    Group,
    /// SingleOpOracleAgent, first generation.
    SingleOp { op_id: String },
    /// SingleOpChallengerAgent review.
    SingleChallenge { op_id: String },
    /// SingleOpOracleAgent targeted regeneration of flagged oracles.
    SingleRegen { op_id: String },
    /// MultiOpOracleAgent for one group.
    MultiOp { group_id: String },
    /// MultiOpChallengerAgent review of one group.
    MultiChallenge { group_id: String },
    /// MultiOpOracleAgent targeted regeneration for one group.
    MultiRegen { group_id: String },
}

impl Task {
    /// The agent that carries the task out.
    pub fn agent(&self) -> Agent {
        match self {
            Task::Discover { .. } => Agent::Discovery,
            Task::Extract { .. } => Agent::Extraction,
            Task::Group => Agent::Semantic,
            Task::SingleOp { .. } => Agent::SingleOp,
            Task::SingleChallenge { .. } => Agent::SingleOpChallenger,
            Task::SingleRegen { .. } => Agent::SingleOpRegenerate,
            Task::MultiOp { .. } => Agent::MultiOp,
            Task::MultiChallenge { .. } => Agent::MultiOpChallenger,
            Task::MultiRegen { .. } => Agent::MultiOpRegenerate,
        }
    }

    /// The phase the task belongs to (paper Tables 12 and 13).
    pub fn phase(&self) -> &'static str {
        self.agent().phase()
    }
}

/// Every pipeline agent, in the order a run meets them.
pub const AGENTS: [Agent; 9] = Agent::PIPELINE;

/// The agents whose output depends on `agent`'s, `agent` included: what a re-run "from
/// `agent` on" must ask the model again, while every other agent may replay its recorded
/// answer (see [`Agent::downstream`]). Err names the unknown agent and lists the
/// pipeline's.
pub fn downstream_of(agent: &str) -> Result<BTreeSet<Agent>, String> {
    match agent.parse::<Agent>() {
        Ok(a) if AGENTS.contains(&a) => Ok(a.downstream()),
        _ => {
            let names: Vec<&str> = AGENTS.iter().map(|a| a.name()).collect();
            Err(format!(
                "unknown agent `{agent}`; one of: {}",
                names.join(", ")
            ))
        }
    }
}

/// What a finished task tells the orchestrator. Only what steers the flow is here; the
/// results themselves go to the store.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "outcome", rename_all = "snake_case")]
pub enum Outcome {
    /// Discovery: the op_ids the bundle implements (already restricted to the spec list).
    Discovered { op_ids: Vec<String> },
    /// A task with nothing to steer (extraction, regeneration).
    Done,
    /// Grouping: the groups found.
    Grouped { group_ids: Vec<String> },
    /// Generation: whether any oracle survived normalization (no challenge otherwise).
    Generated { kept: usize },
    /// Challenger: how many hints it gave (zero: no regeneration).
    Reviewed { hints: usize },
}

/// Input to the state machine.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum Event {
    Succeeded { task: Task, outcome: Outcome },
    Failed { task: Task, reason: String },
}

/// Where one operation stands.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum OpState {
    /// Waiting for discovery (or not yet started).
    Queued,
    /// Discovery found no handler and the static pre-match found none either.
    Unmatched,
    Extracting,
    Generating,
    Challenging,
    Regenerating,
    Done,
    Failed {
        agent: String,
        reason: String,
    },
}

/// Where one multi-op group stands.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum GroupState {
    Generating,
    Challenging,
    Regenerating,
    Done,
    Failed { agent: String, reason: String },
}

/// The orchestrator's whole state: plain data, serialisable into the session.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Orchestrator {
    pub options: PipelineOptions,
    /// op_id → state, for every operation the run covers.
    pub ops: BTreeMap<String, OpState>,
    /// op_ids the static pre-match found a handler for.
    pub static_matched: BTreeSet<String>,
    /// entry file → discovery still running.
    pub discovery_pending: BTreeSet<String>,
    /// op_ids the model claimed during discovery.
    pub discovered: BTreeSet<String>,
    /// Non-fatal problems worth showing (failed discovery, failed grouping, ...).
    pub notes: Vec<String>,
    /// Whether discovery runs in this run and why (`--discovery`); absent in sessions
    /// written before the setting existed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub discovery: Option<crate::pipeline::discovery_mode::DiscoveryDecision>,
    /// None: grouping not started; Some(None): running; Some(Some(ok)): finished.
    pub grouping: Option<Option<bool>>,
    pub groups: BTreeMap<String, GroupState>,
}

impl Orchestrator {
    /// A run over `op_ids`; `static_matched` are those with a statically found handler and
    /// `entry_files` the bundles discovery looks at.
    pub fn new(
        options: PipelineOptions,
        op_ids: impl IntoIterator<Item = String>,
        static_matched: impl IntoIterator<Item = String>,
        entry_files: impl IntoIterator<Item = String>,
    ) -> Self {
        let ops = op_ids.into_iter().map(|o| (o, OpState::Queued)).collect();
        let discovery_pending = if options.discovery {
            entry_files.into_iter().collect()
        } else {
            BTreeSet::new()
        };
        Self {
            options,
            ops,
            static_matched: static_matched.into_iter().collect(),
            discovery_pending,
            discovered: BTreeSet::new(),
            notes: Vec::new(),
            discovery: None,
            grouping: None,
            groups: BTreeMap::new(),
        }
    }

    /// The first tasks of the run.
    pub fn start(&mut self) -> Vec<Task> {
        if self.discovery_pending.is_empty() {
            return self.begin_extraction();
        }
        self.discovery_pending
            .iter()
            .map(|f| Task::Discover {
                entry_file: f.clone(),
            })
            .collect()
    }

    /// Feeds one event in; returns the tasks that may now start.
    pub fn handle(&mut self, event: Event) -> Vec<Task> {
        match event {
            Event::Succeeded { task, outcome } => self.on_success(task, outcome),
            Event::Failed { task, reason } => self.on_failure(task, reason),
        }
    }

    /// True when no task is running or can still start.
    pub fn is_finished(&self) -> bool {
        let ops_done = self.ops.values().all(|s| {
            matches!(
                s,
                OpState::Done | OpState::Failed { .. } | OpState::Unmatched
            )
        });
        let groups_done = self
            .groups
            .values()
            .all(|s| matches!(s, GroupState::Done | GroupState::Failed { .. }));
        let grouping_done = !matches!(self.grouping, Some(None));
        ops_done && groups_done && grouping_done && self.discovery_pending.is_empty()
    }

    fn on_success(&mut self, task: Task, outcome: Outcome) -> Vec<Task> {
        match (&task, outcome) {
            (Task::Discover { entry_file }, outcome) => {
                if let Outcome::Discovered { op_ids } = outcome {
                    self.discovered.extend(op_ids);
                }
                self.discovery_pending.remove(entry_file);
                self.after_discovery()
            }
            (Task::Extract { op_id }, _) => {
                let mut next = Vec::new();
                if self.set_op(op_id, OpState::Generating) {
                    next.push(Task::SingleOp {
                        op_id: op_id.clone(),
                    });
                }
                next.extend(self.maybe_group());
                next
            }
            (Task::Group, outcome) => {
                self.grouping = Some(Some(true));
                let ids = match outcome {
                    Outcome::Grouped { group_ids } => group_ids,
                    _ => Vec::new(),
                };
                ids.into_iter()
                    .map(|g| {
                        self.groups.insert(g.clone(), GroupState::Generating);
                        Task::MultiOp { group_id: g }
                    })
                    .collect()
            }
            (task, outcome) => match task.stage() {
                Some((target, stage)) => self.advance(target, stage, &outcome),
                None => Vec::new(),
            },
        }
    }

    fn on_failure(&mut self, task: Task, reason: String) -> Vec<Task> {
        let agent = task.agent().to_string();
        match &task {
            Task::Discover { entry_file } => {
                self.notes
                    .push(format!("discovery failed for {entry_file}: {reason}"));
                self.discovery_pending.remove(entry_file);
                self.after_discovery()
            }
            Task::Extract { op_id } | Task::SingleOp { op_id } => {
                self.set_op(op_id, OpState::Failed { agent, reason });
                self.maybe_group()
            }

            Task::Group => {
                self.notes.push(format!("grouping failed: {reason}"));
                self.grouping = Some(Some(false));
                Vec::new()
            }
            Task::MultiOp { group_id } => {
                self.groups
                    .insert(group_id.clone(), GroupState::Failed { agent, reason });
                Vec::new()
            }
            // A failed review or regeneration keeps the oracles already generated.
            Task::SingleChallenge { .. }
            | Task::SingleRegen { .. }
            | Task::MultiChallenge { .. }
            | Task::MultiRegen { .. } => {
                if let Some((target, _)) = task.stage() {
                    self.review_failed(target, &agent, &reason);
                }
                Vec::new()
            }
        }
    }

    fn after_discovery(&mut self) -> Vec<Task> {
        if self.discovery_pending.is_empty() {
            self.begin_extraction()
        } else {
            Vec::new()
        }
    }

    /// Operations found by the static pre-match or by discovery are extracted; the rest
    /// are unmatched (paper: excluded from the endpoint list).
    fn begin_extraction(&mut self) -> Vec<Task> {
        let mut next = Vec::new();
        for (op_id, state) in self.ops.iter_mut() {
            if *state != OpState::Queued {
                continue;
            }
            if self.static_matched.contains(op_id) || self.discovered.contains(op_id) {
                *state = OpState::Extracting;
                next.push(Task::Extract {
                    op_id: op_id.clone(),
                });
            } else {
                *state = OpState::Unmatched;
            }
        }
        next.extend(self.maybe_group());
        next
    }

    /// Grouping starts once no extraction is running and at least two contexts exist.
    fn maybe_group(&mut self) -> Vec<Task> {
        if !self.options.multi_op || self.grouping.is_some() {
            return Vec::new();
        }
        let extracting = self
            .ops
            .values()
            .any(|s| matches!(s, OpState::Queued | OpState::Extracting));
        if extracting {
            return Vec::new();
        }
        let extracted = self
            .ops
            .values()
            .filter(|s| {
                !matches!(
                    s,
                    OpState::Unmatched | OpState::Failed { .. } | OpState::Queued
                )
            })
            .count();
        if extracted < 2 {
            self.grouping = Some(Some(false));
            self.notes
                .push("multi-op path skipped: fewer than two extracted operations".into());
            return Vec::new();
        }
        self.grouping = Some(None);
        vec![Task::Group]
    }

    /// Updates an op's state unless it already failed; returns whether it was updated.
    pub(super) fn set_op(&mut self, op_id: &str, state: OpState) -> bool {
        match self.ops.get_mut(op_id) {
            Some(OpState::Failed { .. }) | None => false,
            Some(s) => {
                *s = state;
                true
            }
        }
    }
}

#[cfg(test)]
#[path = "orchestrator_tests.rs"]
mod tests;
