//! `SessionView`: everything the workbench shows, as plain data loaded once.
//!
//! Drawing reads only this (and the UI state); it never touches the disk. Pipeline
//! events change it through [`SessionView::apply_event`], whether they come from
//! `events.jsonl` on open or, later, from a live run over a channel. This module does
//! no I/O; see `loader` for how a session directory becomes a `SessionView`.

use super::store::{Event, EventKind, JournalEntry};
use crate::model::{
    Decision, EvidenceRef, Hint, MetamorphicTest, MultiOpOracle, Oracle, Outcome, ReviewDecision,
    ReviewState, SourceContext, Verdict,
};
use crate::runner::relations::MrVerdict;
use chrono::{DateTime, Utc};
use serde_json::Value;
use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;

/// Where one agent stands on one operation (or group).
#[derive(Debug, Clone, PartialEq)]
pub enum AgentState {
    /// Known to the run but not started.
    Queued,
    /// Started and not finished; the time lets the screen show elapsed time.
    Running { since: DateTime<Utc> },
    /// Finished normally.
    Done { wall_ms: Option<u64> },
    /// Gave up; the reason is what the pipeline reported.
    Failed { reason: String },
}

/// One agent's status on one operation, with its running totals.
#[derive(Debug, Clone, PartialEq)]
pub struct AgentStatus {
    pub state: AgentState,
    pub retries: u32,
    /// Reason of the latest retry, shown beside the retry count.
    pub last_retry: Option<String>,
}

/// Tokens, money and time, summed over calls or events.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Usage {
    pub calls: u64,
    pub tokens_in: u64,
    pub tokens_out: u64,
    pub cost_usd: f64,
    pub wall_ms: u64,
}

impl Usage {
    fn add_event(&mut self, e: &Event) {
        self.tokens_in += e.tokens_in.unwrap_or(0);
        self.tokens_out += e.tokens_out.unwrap_or(0);
        self.cost_usd += e.cost_usd.unwrap_or(0.0);
        self.wall_ms += e.wall_ms.unwrap_or(0);
    }
}

/// One operation with everything the pipeline produced for it.
#[derive(Debug, Clone, Default)]
pub struct OpView {
    pub op_id: String,
    pub method: String,
    pub path: String,
    pub summary: Option<String>,
    /// Why the operation has no oracles to expect (excluded, no handler found).
    pub note: Option<String>,
    /// Handler location, when the source phase found it.
    pub entry: Option<EvidenceRef>,
    /// Files of the operation's source bundle, relative to the project root.
    pub bundle: Vec<String>,
    /// Why the scan's handler match is weak (a dispatcher it could not see through),
    /// when it is: the prompts carried that handler line all the same.
    pub weak: Option<String>,
    /// The context runs generate from: the reviewer's edit while one stands.
    pub context: Option<SourceContext>,
    /// The reviewer's edit of the context, when one stands.
    pub context_edit: Option<ContextEditView>,
    pub oracles: Vec<Oracle>,
    pub hints: Vec<Hint>,
    /// test_ids the targeted regeneration revised.
    pub regenerated: Vec<String>,
    /// (before, after) of each oracle the targeted regeneration replaced.
    pub replaced: Vec<(Oracle, Oracle)>,
    /// Oracles the regeneration added.
    pub added: Vec<String>,
    /// Normalization reports, one per pass (drops and flags with reasons).
    pub normalization: Vec<crate::agents::normalize::NormalizeReport>,
    /// Agent name → status, in first-seen order of agent names (see `SessionView::agents`).
    pub agents: BTreeMap<String, AgentStatus>,
    pub usage: Usage,
    /// Indices into `SessionView::calls`.
    pub calls: Vec<usize>,
}

/// A standing edit of an operation's source context (`OpView::context` holds the edit).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ContextEditView {
    /// The extraction's context the edit replaces (none when nothing was extracted).
    pub extracted: Option<SourceContext>,
    /// RFC 3339 time of the edit.
    pub at: String,
}

/// One group of operations and its multi-operation oracles.
#[derive(Debug, Clone, Default)]
pub struct GroupView {
    pub group_id: String,
    /// The group as described by the semantic agent (shown as JSON).
    pub group: Value,
    pub oracles: Vec<MultiOpOracle>,
    pub hints: Vec<Hint>,
    pub regenerated: Vec<String>,
    /// Agent name → status for the group's tasks (events tagged `group:<id>`).
    pub agents: BTreeMap<String, AgentStatus>,
}

/// One LLM call record, reduced to what the Calls tab and the Costs screen show.
/// The record's exact type belongs to the llm layer, so fields are read leniently.
#[derive(Debug, Clone, Default)]
pub struct CallView {
    pub id: String,
    pub agent: String,
    pub phase: String,
    pub op_id: Option<String>,
    pub model: String,
    pub tokens_in: u64,
    pub tokens_out: u64,
    pub cost_usd: f64,
    pub wall_ms: u64,
    pub attempts: u64,
    /// The request messages, rendered as `role: content` blocks.
    pub prompt: String,
    pub answer: String,
    pub parse_error: Option<String>,
    /// Final error when the call failed.
    pub error: Option<String>,
    pub cache_hit: bool,
    /// Retries, JSON repairs, re-asks and rejected answers, one line each.
    pub notes: Vec<String>,
    /// Normalization drops recorded with the call: (test_id, reason).
    pub drops: Vec<(String, String)>,
}

/// A loaded source file, split into lines once.
#[derive(Debug, Clone, Default)]
pub struct SourceFile {
    pub lines: Vec<String>,
}

/// The whole session as the workbench sees it.
#[derive(Debug, Clone, Default)]
pub struct SessionView {
    pub dir: PathBuf,
    pub project_root: PathBuf,
    pub ops: Vec<OpView>,
    pub groups: Vec<GroupView>,
    pub calls: Vec<CallView>,
    /// Names of agents that work per operation, in the order they first appeared.
    pub agents: Vec<String>,
    /// Per phase totals from events.
    pub phase_usage: BTreeMap<String, Usage>,
    /// Per agent totals from events (and call counts from call records).
    pub agent_usage: BTreeMap<String, Usage>,
    /// The raw review journal, kept so undo can be replayed exactly.
    pub journal: Vec<JournalEntry>,
    /// Current decision per o_id (last not undone).
    pub decisions: BTreeMap<String, ReviewDecision>,
    /// Latest verdict outcome per o_id.
    pub verdicts: BTreeMap<String, Outcome>,
    /// Latest full verdict per o_id (per-assertion expected / actual), for the detail pane.
    pub verdict_details: BTreeMap<String, Verdict>,
    /// Relative path → file text, for every file an operation can point at.
    pub sources: BTreeMap<String, SourceFile>,
    /// Problems met while loading that did not stop the load, shown on screen.
    pub warnings: Vec<String>,
    /// Per op_id, the static match and the model's discovery answer when they differed
    /// (`conflicts/`), shown on the operation's Context tab.
    pub conflicts: BTreeMap<String, crate::store::HandlerConflict>,
    /// Per op_id, the reviewer's latest handler pick (`handler_choices.jsonl`), used from
    /// the next run on.
    pub handler_choices: BTreeMap<String, crate::store::HandlerChoice>,
    /// op_id → index into `ops`.
    pub op_index: BTreeMap<String, usize>,
    /// Metamorphic tests of the session (`metamorphic/<id>.json`), sorted by id.
    pub metamorphic: Vec<MetamorphicTest>,
    /// Verdicts of the last metamorphic loop (`metamorphic_report.json`) by o_id: the
    /// outcome shown when `verdicts/` has none for the test.
    pub mr_verdicts: BTreeMap<String, MrVerdict>,
    /// test_id → ids of the equivalent candidates (same slug) folded into it.
    pub mr_duplicates: BTreeMap<String, Vec<String>>,
    /// Documented statuses per operation from the session's spec (empty without tests or
    /// spec), so exported metamorphic tests judge an undocumented status as `mastor
    /// check` does.
    pub mr_documented: crate::runner::relations::Documented,
    /// o_id → why normalization set the oracle aside (it is listed with its operation or
    /// group, as `dropped` until a reviewer accepts or edits it).
    pub set_aside: BTreeMap<String, String>,
    /// The raw `judgements.jsonl`, kept so a judgement undo replays exactly.
    pub judgement_journal: Vec<crate::store::JudgementEntry>,
    /// Latest true / false positive judgement per o_id (last not undone); whether it
    /// still applies is `SessionView::judged` (see `tui::judge`).
    pub judgements: BTreeMap<String, crate::store::Judgement>,
    /// When the last metamorphic loop ended: the run time of `mr_verdicts`.
    pub mr_report_at: Option<String>,
    /// Mutation results (`mutation/`), when the session has a matrix.
    pub mutation: Option<super::mutation::MutationView>,
    /// o_id → content hash of the oracle as the reviewer left it (edited form when
    /// edited), so a verdict of other content shows as stale. Kept current by the
    /// `record_*` methods; an o_id missing here is hashed on demand.
    pub content_hashes: BTreeMap<String, String>,
}

impl SessionView {
    /// Applies one pipeline event: the same path for `events.jsonl` on open and for a
    /// live run, so both show the same thing.
    pub fn apply_event(&mut self, e: &Event) {
        // Usage comes from events that carry tokens: the pipeline notes one per LLM
        // call (agent finish/fail events carry only the agent's wall time).
        let counts = e.tokens_in.is_some() || e.tokens_out.is_some() || e.cost_usd.is_some();
        if counts {
            let phase = e.phase.clone().unwrap_or_else(|| "-".to_string());
            let pu = self.phase_usage.entry(phase).or_default();
            pu.add_event(e);
            pu.calls += 1;
            let au = self.agent_usage.entry(e.agent.clone()).or_default();
            au.add_event(e);
            au.calls += 1;
        }
        if let Some(gid) = e.op_id.as_deref().and_then(|o| o.strip_prefix("group:")) {
            if let Some(g) = self.groups.iter_mut().find(|g| g.group_id == gid) {
                update_status(&mut g.agents, e);
            }
            return;
        }
        let Some(idx) = e.op_id.as_ref().and_then(|o| self.op_index.get(o)).copied() else {
            return;
        };
        if !e.agent.is_empty() && !self.agents.iter().any(|a| a == &e.agent) {
            self.agents.push(e.agent.clone());
        }
        let op = &mut self.ops[idx];
        if counts {
            op.usage.add_event(e);
            op.usage.calls += 1;
        }
        update_status(&mut op.agents, e);
    }

    /// Shows `agent` queued on every operation of `op_ids` that has no status for it
    /// yet, so a run just starting lists its work before the first event arrives.
    pub fn mark_queued(&mut self, op_ids: &[String], agent: &str) {
        let mut any = false;
        for id in op_ids {
            let Some(&idx) = self.op_index.get(id) else {
                continue;
            };
            self.ops[idx]
                .agents
                .entry(agent.to_string())
                .or_insert_with(|| {
                    any = true;
                    AgentStatus {
                        state: AgentState::Queued,
                        retries: 0,
                        last_retry: None,
                    }
                });
        }
        if any && !self.agents.iter().any(|a| a == agent) {
            self.agents.insert(0, agent.to_string());
        }
    }

    /// Review state of an o_id: no decision is `Proposed`.
    pub fn review_state(&self, o_id: &str) -> ReviewState {
        match self.decisions.get(o_id).map(|d| d.decision) {
            None if self.set_aside.contains_key(o_id) => ReviewState::Dropped,
            None => ReviewState::Proposed,
            Some(Decision::Accepted) => ReviewState::Accepted,
            Some(Decision::Rejected) => ReviewState::Rejected,
            Some(Decision::Edited) => ReviewState::Edited,
        }
    }

    /// The oracle as the reviewer left it: the edited version when there is one.
    pub fn effective_oracle(&self, oracle: &Oracle) -> Oracle {
        self.edited_as::<Oracle>(&oracle.o_id())
            .unwrap_or_else(|| oracle.clone())
    }

    /// The multi-op oracle as the reviewer left it.
    pub fn effective_multi(&self, oracle: &MultiOpOracle) -> MultiOpOracle {
        self.edited_as::<MultiOpOracle>(&oracle.o_id())
            .unwrap_or_else(|| oracle.clone())
    }

    /// The metamorphic test as the reviewer left it.
    pub fn effective_mr(&self, test: &MetamorphicTest) -> MetamorphicTest {
        self.edited_as::<MetamorphicTest>(&test.o_id())
            .unwrap_or_else(|| test.clone())
    }

    fn edited_as<T: serde::de::DeserializeOwned>(&self, o_id: &str) -> Option<T> {
        let d = self.decisions.get(o_id)?;
        if d.decision != Decision::Edited {
            return None;
        }
        serde_json::from_value(d.edited.clone()?).ok()
    }

    /// Records a decision the journal now holds.
    pub fn record_decision(&mut self, d: ReviewDecision) {
        let o_id = d.o_id.clone();
        self.journal.push(JournalEntry::Decision(d));
        self.decisions = super::store::replay(&self.journal);
        self.refresh_content_hash(&o_id);
    }

    /// Records many decisions the journal now holds, replaying the journal once.
    pub fn record_decisions(&mut self, ds: Vec<ReviewDecision>) {
        let ids: Vec<String> = ds.iter().map(|d| d.o_id.clone()).collect();
        // An appended decision is its oracle's latest, as a replay would find: set it
        // directly rather than replay the whole journal once per chunk of a bulk action.
        for d in &ds {
            self.decisions.insert(d.o_id.clone(), d.clone());
        }
        self.journal
            .extend(ds.into_iter().map(JournalEntry::Decision));
        self.refresh_content_hashes_of(&ids);
    }

    /// Recomputes the cached content hashes of `ids` (a bulk action's chunk) in one pass.
    /// Only oracles with a verdict (or a cached hash) need one; each operation's oracles
    /// are indexed once, where looking each id up alone scanned its operation's list: an
    /// imported file's 100,000 oracles on 4 operations made that quadratic.
    pub fn refresh_content_hashes_of(&mut self, ids: &[String]) {
        use crate::model::content_hash_of;
        let wanted: Vec<&String> = ids
            .iter()
            .filter(|id| {
                self.verdict_details.contains_key(id.as_str())
                    || self.content_hashes.contains_key(id.as_str())
            })
            .collect();
        let mut by_op: HashMap<usize, Vec<&String>> = HashMap::new();
        let mut others: Vec<&String> = Vec::new();
        for id in wanted {
            let scope = id.split_once('#').map(|(s, _)| s);
            let is_mr = super::metamorphic::is_mr_id(id);
            match scope.and_then(|s| self.op_index.get(s)) {
                Some(&i) if !is_mr => by_op.entry(i).or_default().push(id),
                _ => others.push(id),
            }
        }
        let mut hashes: Vec<(String, Option<String>)> = Vec::new();
        for (i, list) in by_op {
            let oracles = &self.ops[i].oracles;
            let index: HashMap<String, usize> = oracles
                .iter()
                .enumerate()
                .map(|(k, o)| (o.o_id(), k))
                .collect();
            for id in list {
                let hash = match index.get(id.as_str()) {
                    Some(&k) => content_hash_of(&self.effective_oracle(&oracles[k])),
                    None => self.current_content_hash(id),
                };
                hashes.push((id.clone(), hash));
            }
        }
        for id in others {
            hashes.push((id.clone(), self.current_content_hash(id)));
        }
        for (id, hash) in hashes {
            match hash {
                Some(h) => self.content_hashes.insert(id, h),
                None => self.content_hashes.remove(&id),
            };
        }
    }

    /// Records an undo the journal now holds.
    pub fn record_undo(&mut self, undo: super::store::Undo) {
        let o_id = undo.undo.clone();
        self.journal.push(JournalEntry::Undo(undo));
        self.decisions = super::store::replay(&self.journal);
        self.refresh_content_hash(&o_id);
    }

    /// The hash of `o_id`'s current content (edited form when edited), as the runner
    /// stamps it on verdicts; `None` for an o_id the session does not hold.
    pub fn current_content_hash(&self, o_id: &str) -> Option<String> {
        use crate::model::content_hash_of;
        if let Some(t) = self.metamorphic.iter().find(|t| t.o_id() == o_id) {
            return content_hash_of(&self.effective_mr(t));
        }
        let (scope, _) = o_id.split_once('#')?;
        if let Some(&i) = self.op_index.get(scope)
            && let Some(o) = self.ops[i].oracles.iter().find(|o| o.o_id() == o_id)
        {
            return content_hash_of(&self.effective_oracle(o));
        }
        let g = self.groups.iter().find(|g| g.group_id == scope)?;
        let m = g.oracles.iter().find(|m| m.o_id() == o_id)?;
        content_hash_of(&self.effective_multi(m))
    }

    /// Recomputes the cached content hash of one o_id (after its decision changed).
    pub fn refresh_content_hash(&mut self, o_id: &str) {
        match self.current_content_hash(o_id) {
            Some(h) => self.content_hashes.insert(o_id.to_string(), h),
            None => self.content_hashes.remove(o_id),
        };
    }

    /// Fills the content hash cache for every oracle with a verdict (on load, and after
    /// verdicts arrive).
    pub fn refresh_content_hashes(&mut self) {
        let ids: Vec<String> = self.verdict_details.keys().cloned().collect();
        for id in ids {
            self.refresh_content_hash(&id);
        }
    }

    /// The verdict column's value for `o_id`: its latest verdict's outcome, or `Stale`
    /// when the oracle's content changed since that verdict ran (see `verdict_mark`).
    pub fn verdict_mark(&self, o_id: &str) -> Option<super::verdict_mark::VerdictMark> {
        use super::verdict_mark::VerdictMark;
        let Some(v) = self.verdict_details.get(o_id) else {
            return self.verdicts.get(o_id).map(|&o| VerdictMark::from(o));
        };
        if v.content_hash.is_none() {
            return Some(VerdictMark::from(v.outcome));
        }
        let current = match self.content_hashes.get(o_id) {
            Some(h) => Some(h.clone()),
            None => self.current_content_hash(o_id),
        };
        Some(VerdictMark::of(v, current.as_deref()))
    }

    /// Applies verdicts read from `verdicts/` (latest run wins).
    pub fn apply_verdicts(&mut self, verdicts: impl IntoIterator<Item = Verdict>) {
        for v in verdicts {
            self.verdicts.insert(v.o_id.clone(), v.outcome);
            if v.content_hash.is_some() && !self.content_hashes.contains_key(&v.o_id) {
                self.refresh_content_hash(&v.o_id);
            }
            self.verdict_details.insert(v.o_id.clone(), v);
        }
    }

    /// Session totals for the summary bar.
    pub fn totals(&self) -> Usage {
        let mut u = Usage::default();
        for a in self.agent_usage.values() {
            u.calls += a.calls;
            u.tokens_in += a.tokens_in;
            u.tokens_out += a.tokens_out;
            u.cost_usd += a.cost_usd;
            u.wall_ms += a.wall_ms;
        }
        u
    }
}

/// Applies one agent event to a status map (notes carry no status change).
fn update_status(agents: &mut BTreeMap<String, AgentStatus>, e: &Event) {
    if e.kind == EventKind::Note {
        return;
    }
    let status = agents.entry(e.agent.clone()).or_insert(AgentStatus {
        state: AgentState::Queued,
        retries: 0,
        last_retry: None,
    });
    match e.kind {
        EventKind::AgentStarted => status.state = AgentState::Running { since: e.at },
        EventKind::AgentFinished => status.state = AgentState::Done { wall_ms: e.wall_ms },
        EventKind::AgentRetry => {
            status.retries += 1;
            status.last_retry = e.message.clone();
        }
        EventKind::AgentFailed => {
            status.state = AgentState::Failed {
                reason: e
                    .message
                    .clone()
                    .unwrap_or_else(|| "no reason given".into()),
            }
        }
        EventKind::PhaseStarted | EventKind::PhaseFinished | EventKind::Note => {}
    }
}

/// Names bound as `$captures.<name>` anywhere in a value (strings included), in order.
pub fn find_binds(v: &Value) -> Vec<String> {
    let mut out = Vec::new();
    fn walk(v: &Value, out: &mut Vec<String>) {
        match v {
            Value::String(s) => {
                let mut rest = s.as_str();
                while let Some(i) = rest.find("$captures.") {
                    rest = &rest[i + "$captures.".len()..];
                    let name: String = rest
                        .chars()
                        .take_while(|c| c.is_alphanumeric() || *c == '_')
                        .collect();
                    if !name.is_empty() && !out.contains(&name) {
                        out.push(name);
                    }
                }
            }
            Value::Array(a) => a.iter().for_each(|x| walk(x, out)),
            Value::Object(m) => m.values().for_each(|x| walk(x, out)),
            _ => {}
        }
    }
    walk(v, &mut out);
    out
}
