//! Filters and sort orders of the workbench's lists: plain data and one predicate, kept
//! apart from the rest of the UI state so `state` stays a map of what is on screen.

use super::view::{AgentState, OpView};
use crate::model::ReviewState;

/// Agent-status filter of the operations list.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StatusFilter {
    Running,
    Failed,
    Done,
    Queued,
}

impl StatusFilter {
    pub fn label(self) -> &'static str {
        match self {
            StatusFilter::Running => "running",
            StatusFilter::Failed => "failed",
            StatusFilter::Done => "done",
            StatusFilter::Queued => "queued",
        }
    }
}

/// Sort orders of the operations list.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SortKey {
    /// As listed in the session (spec order).
    Session,
    Path,
    Method,
    /// Most oracles to review first.
    Pending,
    /// Most failing oracles (latest verdict fail or error, not stale) first.
    Failing,
    /// Most expensive first.
    Cost,
}

impl SortKey {
    pub fn label(self) -> &'static str {
        match self {
            SortKey::Session => "session",
            SortKey::Path => "path",
            SortKey::Method => "method",
            SortKey::Pending => "to review",
            SortKey::Failing => "failing",
            SortKey::Cost => "cost",
        }
    }

    pub fn next(self) -> SortKey {
        match self {
            SortKey::Session => SortKey::Path,
            SortKey::Path => SortKey::Method,
            SortKey::Method => SortKey::Pending,
            SortKey::Pending => SortKey::Failing,
            SortKey::Failing => SortKey::Cost,
            SortKey::Cost => SortKey::Session,
        }
    }
}

/// Judgement filter of item lists: failures still to judge, or judged ones by kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JudgedFilter {
    /// Latest verdict failed and no judgement applies to it.
    Unjudged,
    Tp,
    Fp,
}

impl JudgedFilter {
    /// Every value, in cycling order.
    pub const ALL: [JudgedFilter; 3] = [JudgedFilter::Unjudged, JudgedFilter::Tp, JudgedFilter::Fp];

    pub fn label(self) -> &'static str {
        match self {
            JudgedFilter::Unjudged => "unjudged failures",
            JudgedFilter::Tp => "true positives",
            JudgedFilter::Fp => "false positives",
        }
    }
}

/// Mutation filter of item lists: oracles a curator may want to reject knowingly.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MutationFilter {
    /// Oracles that kill no mutant.
    KillsNothing,
    /// Oracles whose kills another oracle's kills include.
    Redundant,
}

impl MutationFilter {
    /// Every value, in cycling order.
    pub const ALL: [MutationFilter; 2] = [MutationFilter::KillsNothing, MutationFilter::Redundant];

    /// How the list title and footer name the filter.
    pub fn label(self) -> &'static str {
        match self {
            MutationFilter::KillsNothing => "kills nothing",
            MutationFilter::Redundant => "redundant",
        }
    }

    /// Whether `o_id` is one of these in `m`'s results.
    pub fn keeps(self, m: &super::mutation::MutationView, o_id: &str) -> bool {
        match self {
            MutationFilter::KillsNothing => m.kills_nothing.contains(o_id),
            MutationFilter::Redundant => m.redundant.contains(o_id),
        }
    }
}

/// The `cycle_mutation` action: kills nothing, redundant, off (needs results).
pub fn cycle_mutation(app: &mut super::state::App) {
    if app.view.mutation.is_none() {
        app.notify("no mutation results: run mutate first");
        return;
    }
    let next = match app.filters.mutation {
        None => Some(MutationFilter::ALL[0]),
        Some(f) => MutationFilter::ALL
            .iter()
            .position(|x| *x == f)
            .and_then(|i| MutationFilter::ALL.get(i + 1).copied()),
    };
    app.filters.mutation = next;
    app.refresh_lists();
    app.notify(match next {
        Some(f) => format!("mutation filter: {}", f.label()),
        None => "mutation filter off".into(),
    });
}

/// Verdict filter of item lists: what the latest run said of an oracle.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VerdictFilter {
    /// The latest run failed or errored.
    Failing,
    /// A failure that passed when re-run alone after the reset command.
    OrderDependent,
    /// A failure that failed again alone after the reset command.
    Wrong,
    /// A failure whose re-run alone could not tell.
    Inconclusive,
    /// The oracle changed since its latest run.
    Stale,
    /// Never run.
    NotRun,
    /// The latest run passed.
    Passing,
}

impl VerdictFilter {
    /// Every value, in cycling order.
    pub const ALL: [VerdictFilter; 7] = [
        VerdictFilter::Failing,
        VerdictFilter::OrderDependent,
        VerdictFilter::Wrong,
        VerdictFilter::Inconclusive,
        VerdictFilter::Stale,
        VerdictFilter::NotRun,
        VerdictFilter::Passing,
    ];

    /// How the list title and status line name the filter.
    pub fn label(self) -> &'static str {
        match self {
            VerdictFilter::Failing => "failing",
            VerdictFilter::OrderDependent => "failing: order_dependent",
            VerdictFilter::Wrong => "failing: wrong",
            VerdictFilter::Inconclusive => "failing: inconclusive",
            VerdictFilter::Stale => "stale",
            VerdictFilter::NotRun => "not run",
            VerdictFilter::Passing => "passing",
        }
    }

    /// Whether `o_id`'s latest verdict is one of these.
    pub fn keeps(self, view: &super::view::SessionView, o_id: &str) -> bool {
        use super::verdict_mark::VerdictMark;
        use crate::model::Isolation;
        let v = view.verdict_mark(o_id);
        let failing = matches!(v, Some(VerdictMark::Fail | VerdictMark::Error));
        let isolated = |i: Isolation| {
            failing && view.verdict_details.get(o_id).and_then(|d| d.isolation) == Some(i)
        };
        match self {
            VerdictFilter::Failing => failing,
            VerdictFilter::OrderDependent => isolated(Isolation::OrderDependent),
            VerdictFilter::Wrong => isolated(Isolation::Wrong),
            VerdictFilter::Inconclusive => isolated(Isolation::Inconclusive),
            VerdictFilter::Stale => v.is_some_and(VerdictMark::is_stale),
            VerdictFilter::NotRun => v.is_none(),
            VerdictFilter::Passing => matches!(v, Some(VerdictMark::Pass)),
        }
    }
}

/// The `cycle_verdict` action: failing, each isolation label, stale, not run,
/// passing, off.
pub fn cycle_verdict(app: &mut super::state::App) {
    let next = match app.filters.verdict {
        None => Some(VerdictFilter::ALL[0]),
        Some(f) => VerdictFilter::ALL
            .iter()
            .position(|x| *x == f)
            .and_then(|i| VerdictFilter::ALL.get(i + 1).copied()),
    };
    app.filters.verdict = next;
    app.refresh_lists();
    app.notify(match next {
        Some(f) => format!("verdict filter: {}", f.label()),
        None => "verdict filter off".into(),
    });
}

/// Filters of the operations list; `state` and `judged` also filter item lists.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Filters {
    pub text: String,
    pub method: Option<String>,
    pub status: Option<StatusFilter>,
    pub state: Option<ReviewState>,
    pub judged: Option<JudgedFilter>,
    /// Item lists only: oracles that kill nothing, or redundant ones.
    pub mutation: Option<MutationFilter>,
    /// Item lists and the operations list: by the latest verdict.
    pub verdict: Option<VerdictFilter>,
}

impl Filters {
    pub fn is_empty(&self) -> bool {
        *self == Filters::default()
    }
}

/// Whether any agent of `op` is in the state `s`.
pub fn op_has_status(op: &OpView, s: StatusFilter) -> bool {
    op.agents.values().any(|a| {
        matches!(
            (&a.state, s),
            (AgentState::Running { .. }, StatusFilter::Running)
                | (AgentState::Failed { .. }, StatusFilter::Failed)
                | (AgentState::Done { .. }, StatusFilter::Done)
                | (AgentState::Queued, StatusFilter::Queued)
        )
    })
}
