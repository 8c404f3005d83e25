//! The generate → challenge → regenerate skeleton that single-op suites and multi-op
//! groups share (paper 4.4.1), written once: which task follows which, and what state
//! the target is in. The orchestrator maps its tasks onto it; a target is an operation
//! or a group.

use super::orchestrator::{GroupState, OpState, Orchestrator, Outcome, Task};

/// What a generation path works on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// One operation's single-op suite.
    Op(String),
    /// One group's multi-op oracles.
    Group(String),
}

/// The three steps of the path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stage {
    Generate,
    Challenge,
    Regenerate,
}

/// Where a target stands on its path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Standing {
    At(Stage),
    Done,
}

impl Task {
    /// The target and stage of a generation task; `None` for discovery, extraction and
    /// grouping.
    pub fn stage(&self) -> Option<(Target, Stage)> {
        let op = |id: &String| Target::Op(id.clone());
        let group = |id: &String| Target::Group(id.clone());
        Some(match self {
            Task::SingleOp { op_id } => (op(op_id), Stage::Generate),
            Task::SingleChallenge { op_id } => (op(op_id), Stage::Challenge),
            Task::SingleRegen { op_id } => (op(op_id), Stage::Regenerate),
            Task::MultiOp { group_id } => (group(group_id), Stage::Generate),
            Task::MultiChallenge { group_id } => (group(group_id), Stage::Challenge),
            Task::MultiRegen { group_id } => (group(group_id), Stage::Regenerate),
            _ => return None,
        })
    }

    /// The task for `stage` of `target`.
    pub fn at(target: Target, stage: Stage) -> Task {
        match (target, stage) {
            (Target::Op(op_id), Stage::Generate) => Task::SingleOp { op_id },
            (Target::Op(op_id), Stage::Challenge) => Task::SingleChallenge { op_id },
            (Target::Op(op_id), Stage::Regenerate) => Task::SingleRegen { op_id },
            (Target::Group(group_id), Stage::Generate) => Task::MultiOp { group_id },
            (Target::Group(group_id), Stage::Challenge) => Task::MultiChallenge { group_id },
            (Target::Group(group_id), Stage::Regenerate) => Task::MultiRegen { group_id },
        }
    }
}

impl Orchestrator {
    /// The next task after `stage` of `target` succeeded with `outcome`: a challenge
    /// after a generation that kept something (when challengers are on), a regeneration
    /// after a review with hints; otherwise the target is done.
    pub(super) fn advance(&mut self, target: Target, stage: Stage, outcome: &Outcome) -> Vec<Task> {
        let next = match (stage, outcome) {
            (Stage::Generate, Outcome::Generated { kept })
                if *kept > 0 && self.options.challenger =>
            {
                Some(Stage::Challenge)
            }
            (Stage::Challenge, Outcome::Reviewed { hints }) if *hints > 0 => {
                Some(Stage::Regenerate)
            }
            _ => None,
        };
        match next {
            Some(stage) => {
                self.stand(&target, Standing::At(stage));
                vec![Task::at(target, stage)]
            }
            None => {
                self.stand(&target, Standing::Done);
                Vec::new()
            }
        }
    }

    /// A failed review or regeneration keeps what was generated: a note, and the target
    /// is done. (A failed first generation fails the target; the orchestrator says how.)
    pub(super) fn review_failed(&mut self, target: Target, agent: &str, reason: &str) {
        let id = match &target {
            Target::Op(id) | Target::Group(id) => id.clone(),
        };
        self.notes
            .push(format!("{agent} failed for {id}: {reason}"));
        self.stand(&target, Standing::Done);
    }

    fn stand(&mut self, target: &Target, standing: Standing) {
        match target {
            Target::Op(op_id) => {
                let state = match standing {
                    Standing::At(Stage::Generate) => OpState::Generating,
                    Standing::At(Stage::Challenge) => OpState::Challenging,
                    Standing::At(Stage::Regenerate) => OpState::Regenerating,
                    Standing::Done => OpState::Done,
                };
                self.set_op(op_id, state);
            }
            Target::Group(group_id) => {
                let state = match standing {
                    Standing::At(Stage::Generate) => GroupState::Generating,
                    Standing::At(Stage::Challenge) => GroupState::Challenging,
                    Standing::At(Stage::Regenerate) => GroupState::Regenerating,
                    Standing::Done => GroupState::Done,
                };
                self.groups.insert(group_id.clone(), state);
            }
        }
    }
}
