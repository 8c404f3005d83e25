//! MultiOpOracleAgent and MultiOpChallengerAgent (paper 4.4.2): per operation group,
//! sequences with captures and `$captures.<name>` binds, normalized, reviewed with the
//! sequence-logic dimension, and regenerated where flagged. The steps are
//! [`crate::agents::generation`]'s; this module says what a group brings to them.

use crate::agents::Agent;
use crate::agents::cited::cited_lines;
use crate::agents::error::AgentError;
use crate::agents::generation::{OracleOf, RecordOf, Target, Var};
use crate::agents::groups::Group;
use crate::agents::normalize::{BundleIndex, KnownOps, NormalizeOutcome, normalize_multi_with};
use crate::agents::runtime::{AgentCtx, to_prompt_json};
use crate::agents::schemas;
use crate::model::SourceContext;
use crate::project::{Prepared, bundle_index};
use crate::store::{GroupKind, GroupRecord, Session, StoreError, op_slug};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// One operation group as a generation target: the group, its record so far, and its
/// operations' contexts and bundles.
pub struct GroupTarget {
    /// The id the group is kept under on the blackboard.
    group_id: String,
    group: Group,
    record: GroupRecord,
    contexts: HashMap<String, SourceContext>,
    bundle: BundleIndex,
    /// The group's operations' bundles merged, each file once: the cited lines are cut from it.
    bundle_text: String,
    /// Seed data for the group, start-up code in its bundles' files first.
    seed_data: String,
}

/// The source a group's prompts carry for its operations `ops` (with the entry file
/// discovery found each in, if it did): their bundles merged, each file once, its index,
/// and the seed data for those files. A run plan reads the same.
pub fn group_source(
    project: &Prepared,
    ops: &[(String, Option<String>)],
) -> (BundleIndex, String, String) {
    let mut files = BundleIndex::default();
    let mut text = String::new();
    let mut seen = BTreeSet::new();
    for (op_id, discovered) in ops {
        if let Some(b) = project.bundle_for(op_id, discovered.as_deref()) {
            files.files.extend(bundle_index(&b).files);
            for chunk in crate::agents::fit::split_bundle(&b.text).1 {
                if seen.insert(chunk.path.to_string()) {
                    text.push_str(chunk.text);
                }
            }
        }
    }
    // Each file is sent once, as the first operation's bundle has it: for a slice, only
    // the lines that one showed can be cited.
    files.shown = crate::project::text_index(&text).shown;
    let seed = project.seed_data_for(&files.files.keys().cloned().collect::<Vec<_>>());
    (files, text, seed)
}

impl GroupTarget {
    /// The group, its operations' verified contexts, the seed data, and the lines of the
    /// merged bundle the contexts' error cases and envelopes and `oracles` cite.
    fn cited_vars<'a>(&'a self, oracles: impl Iterator<Item = &'a OracleOf<Self>>) -> Vec<Var> {
        let refs = self
            .contexts
            .values()
            .flat_map(|c| c.error_refs())
            .chain(oracles.flat_map(|o| &o.evidence_refs));
        vec![
            ("group_id", self.group_id.clone()),
            ("contexts", group_contexts(&self.contexts)),
            ("seed_data", self.seed_data.clone()),
            ("cited", cited_lines(&self.bundle_text, refs)),
        ]
    }
}

/// The group's verified contexts keyed by operation, each without its own `op_id` (the
/// key says it). Error envelopes every operation shares (one renderer serves them all,
/// as a project's error handler usually does) are shown once, under [`SHARED_ENVELOPES`],
/// instead of in each context; a context keeps only its own others.
fn group_contexts(contexts: &HashMap<String, SourceContext>) -> String {
    let sorted: BTreeMap<&String, &SourceContext> = contexts.iter().collect();
    let shared: Vec<&crate::model::ErrorEnvelope> = match sorted.values().next() {
        Some(first) if sorted.len() > 1 => first
            .error_envelopes
            .iter()
            .filter(|e| sorted.values().all(|c| c.error_envelopes.contains(e)))
            .collect(),
        _ => Vec::new(),
    };
    let mut out = serde_json::Map::new();
    if !shared.is_empty() {
        out.insert(
            SHARED_ENVELOPES.into(),
            serde_json::to_value(&shared).unwrap_or(Value::Null),
        );
    }
    for (op, c) in sorted {
        let mut v = serde_json::to_value(c.verified()).unwrap_or(Value::Null);
        if let Value::Object(map) = &mut v {
            map.remove("op_id");
            let own: Vec<_> = c
                .error_envelopes
                .iter()
                .filter(|e| !shared.contains(e))
                .collect();
            if own.is_empty() {
                map.remove("error_envelopes");
            } else {
                map.insert(
                    "error_envelopes".into(),
                    serde_json::to_value(own).unwrap_or(Value::Null),
                );
            }
        }
        out.insert(op.clone(), v);
    }
    crate::prompts::prompt_json(&Value::Object(out))
}

/// The key of the error envelopes every operation of a group shares.
pub const SHARED_ENVELOPES: &str = "error_envelopes (of every operation)";

impl Target for GroupTarget {
    type Kind = GroupKind;
    const GENERATOR: Agent = Agent::MultiOp;
    const CHALLENGER: Agent = Agent::MultiOpChallenger;
    const REGENERATOR: Agent = Agent::MultiOpRegenerate;
    const MULTI: bool = true;

    fn load(ctx: &AgentCtx, group_id: &str) -> Result<Self, AgentError> {
        let board = ctx.board();
        let (group, record) = board
            .groups
            .get(group_id)
            .cloned()
            .ok_or_else(|| AgentError::Missing(format!("no group {group_id}")))?;
        let mut contexts = HashMap::new();
        let mut ops = Vec::new();
        for step in &group.sequence {
            if let Some(c) = board.contexts.get(&step.op_id) {
                contexts.insert(step.op_id.clone(), c.clone());
            }
            let discovered = board.discovered.get(&step.op_id).map(|(_, f)| f.clone());
            ops.push((step.op_id.clone(), discovered));
        }
        drop(board);
        let (bundle, bundle_text, seed_data) = group_source(&ctx.project, &ops);
        Ok(GroupTarget {
            group_id: group_id.to_string(),
            group,
            record,
            contexts,
            seed_data,
            bundle,
            bundle_text,
        })
    }

    fn stem(group_id: &str) -> String {
        format!("group-{}", op_slug(group_id))
    }

    /// Group calls are filed under no single operation.
    fn call_op(&self) -> Option<&str> {
        None
    }

    /// The group, its operations' verified contexts (no pending claims), seed data and
    /// the lines the contexts cite. A group's agents reason from the contexts extraction
    /// checked, not from the merged bundle again: the contexts hold every field, status
    /// and error body a sequence asserts, and their evidence is shown as the lines.
    fn vars(&self) -> Vec<Var> {
        self.cited_vars(std::iter::empty())
    }

    /// The contexts, the seed data and the lines the contexts and the oracles cite.
    fn review_vars(&self, oracles: &[OracleOf<Self>]) -> Vec<Var> {
        self.cited_vars(oracles.iter())
    }

    /// As the challenger reads, with the flagged oracles' evidence.
    fn revise_vars(&self, flagged: &[&OracleOf<Self>]) -> Vec<Var> {
        self.cited_vars(flagged.iter().copied())
    }

    /// The group's pattern and sequence, which the first generation builds on.
    fn generate_vars(&self) -> Vec<Var> {
        let pattern = serde_json::to_value(self.group.pattern)
            .ok()
            .and_then(|v| v.as_str().map(str::to_string))
            .unwrap_or_default();
        vec![
            ("pattern", pattern),
            ("sequence", to_prompt_json(&self.group.sequence)),
        ]
    }

    /// The group's tailored sequence schema (statuses, fields and inputs of its
    /// operations).
    fn schema(&self, ctx: &AgentCtx) -> Value {
        schemas::for_multi_op(&self.group, &self.contexts, |id| ctx.project.op(id)).noted(
            ctx,
            Agent::MultiOp,
            None,
        )
    }

    /// Against the group's contexts, the spec's operations and the bundle.
    fn normalize(&self, ctx: &AgentCtx, answer: &Value) -> NormalizeOutcome<OracleOf<Self>> {
        let known = KnownOps::from_spec(&ctx.project.spec.operations);
        normalize_multi_with(
            &self.group_id,
            answer,
            &self.contexts,
            &known,
            &self.bundle,
            ctx.normalize,
        )
    }

    /// The record the semantic agent started (it holds the group itself).
    fn fresh(&self) -> RecordOf<Self> {
        self.record.clone()
    }

    /// The record loaded with the group (a group always has one).
    fn current(&self, _ctx: &AgentCtx, _purpose: &str) -> Result<RecordOf<Self>, AgentError> {
        Ok(self.record.clone())
    }

    fn write(session: &Session, record: &RecordOf<Self>) -> Result<(), StoreError> {
        session.write_group(record)
    }

    fn publish(&self, ctx: &AgentCtx, record: RecordOf<Self>) {
        ctx.board()
            .groups
            .insert(record.group_id.clone(), (self.group.clone(), record));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::ErrorEnvelope;

    fn context(op: &str, envelopes: &[&str]) -> (String, SourceContext) {
        let c = SourceContext {
            op_id: op.into(),
            error_envelopes: envelopes
                .iter()
                .map(|n| ErrorEnvelope {
                    name: n.to_string(),
                    ..ErrorEnvelope::default()
                })
                .collect(),
            ..SourceContext::default()
        };
        (op.to_string(), c)
    }

    #[test]
    fn a_group_reads_a_shared_envelope_once_and_each_own_one_in_its_context() {
        let contexts: HashMap<_, _> = [
            context("GET /a", &["Http.sendError", "Advice.handle"]),
            context("POST /a", &["Http.sendError"]),
        ]
        .into_iter()
        .collect();
        let text = group_contexts(&contexts);
        let v: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(text.matches("Http.sendError").count(), 1, "{text}");
        assert_eq!(v[SHARED_ENVELOPES][0]["name"], "Http.sendError");
        assert_eq!(v["GET /a"]["error_envelopes"][0]["name"], "Advice.handle");
        assert!(v["POST /a"].get("error_envelopes").is_none(), "{text}");
        assert!(
            v["GET /a"].get("op_id").is_none(),
            "the key names the operation"
        );
        assert!(v["GET /a"].get("response_schema").is_some());
        // One operation: nothing is shared, its envelopes stay in its context.
        let one: HashMap<_, _> = [context("GET /a", &["Http.sendError"])]
            .into_iter()
            .collect();
        let v: Value = serde_json::from_str(&group_contexts(&one)).unwrap();
        assert!(v.get(SHARED_ENVELOPES).is_none());
        assert_eq!(v["GET /a"]["error_envelopes"][0]["name"], "Http.sendError");
    }
}
