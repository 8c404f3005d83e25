//! MultiOpOracleAgent and MultiOpChallengerAgent (paper 4.4.2): per operation group,
//! sequences with captures and `$captures.<name>` binds, normalized, reviewed with the
//! sequence-logic dimension, and regenerated where flagged.

use crate::agents::challenge::{self, check_hints, merge};
use crate::agents::groups::Group;
use crate::agents::normalize::{BundleIndex, KnownOps, NormalizeOutcome, normalize_multi_with};
use crate::agents::runtime::{AgentCtx, to_prompt_json};
use crate::agents::schemas;
use crate::model::{ChallengerReview, MultiOpOracle, SourceContext};
use crate::project::bundle_index;
use crate::store::{GroupRecord, op_slug};
use std::collections::{BTreeSet, HashMap};

struct Inputs {
    group: Group,
    record: GroupRecord,
    contexts: HashMap<String, SourceContext>,
    bundle: BundleIndex,
    /// The group's operations' bundles merged, each file once, for the prompts.
    bundle_text: String,
    /// Seed data for the group, start-up code in its bundles' files first.
    seed_data: String,
}

fn inputs(ctx: &AgentCtx, group_id: &str) -> Result<Inputs, String> {
    let board = ctx.board();
    let (group, record) = board
        .groups
        .get(group_id)
        .cloned()
        .ok_or_else(|| format!("no group {group_id}"))?;
    let mut contexts = HashMap::new();
    let mut files = BundleIndex::default();
    let mut bundle_text = String::new();
    let mut seen = std::collections::BTreeSet::new();
    for step in &group.sequence {
        if let Some(c) = board.contexts.get(&step.op_id) {
            contexts.insert(step.op_id.clone(), c.clone());
        }
        let discovered = board.discovered.get(&step.op_id).map(|(_, f)| f.as_str());
        if let Some(b) = ctx.project.bundle_for(&step.op_id, discovered) {
            files.files.extend(bundle_index(&b).files);
            for chunk in crate::agents::fit::split_bundle(&b.text).1 {
                if seen.insert(chunk.path.to_string()) {
                    bundle_text.push_str(chunk.text);
                }
            }
        }
    }
    Ok(Inputs {
        group,
        record,
        contexts,
        seed_data: ctx
            .project
            .seed_data_for(&files.files.keys().cloned().collect::<Vec<_>>()),
        bundle: files,
        bundle_text,
    })
}

/// The group's contexts for a prompt: verified parts only (no pending claims).
fn contexts_json(inp: &Inputs) -> String {
    let ordered: std::collections::BTreeMap<_, _> = inp
        .contexts
        .iter()
        .map(|(op, c)| (op, c.verified()))
        .collect();
    to_prompt_json(&ordered)
}

async fn save(ctx: &AgentCtx, group: Group, record: GroupRecord) -> Result<(), String> {
    let copy = record.clone();
    ctx.write(move |s| s.write_group(&copy)).await?;
    ctx.board()
        .groups
        .insert(record.group_id.clone(), (group, record));
    Ok(())
}

/// Normalizes a model answer for the group against its contexts, the spec's operations
/// and the bundle.
fn normalize(
    ctx: &AgentCtx,
    group_id: &str,
    inp: &Inputs,
    answer: &serde_json::Value,
) -> NormalizeOutcome<MultiOpOracle> {
    let known = KnownOps::from_spec(&ctx.project.spec.operations);
    normalize_multi_with(
        group_id,
        answer,
        &inp.contexts,
        &known,
        &inp.bundle,
        ctx.normalize,
    )
}

/// The group's tailored sequence schema (statuses, fields and inputs of its operations).
fn multi_schema(ctx: &AgentCtx, inp: &Inputs) -> serde_json::Value {
    schemas::for_multi_op(&inp.group, &inp.contexts, |id| ctx.project.op(id)).noted(
        ctx,
        crate::agents::Agent::MultiOp,
        None,
    )
}

/// First generation for one group; returns how many oracles survived normalization.
pub async fn generate(ctx: &AgentCtx, group_id: &str) -> Result<usize, String> {
    let inp = inputs(ctx, group_id)?;
    let sequence = to_prompt_json(&inp.group.sequence);
    let contexts = contexts_json(&inp);
    let pattern = serde_json::to_value(inp.group.pattern)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default();
    let answer = ctx
        .call::<serde_json::Value>(
            crate::agents::Agent::MultiOp,
            None,
            &[
                ("group_id", group_id),
                ("pattern", &pattern),
                ("sequence", &sequence),
                ("contexts", &contexts),
                ("seed_data", &inp.seed_data),
                ("bundle", &inp.bundle_text),
            ],
            Some(multi_schema(ctx, &inp)),
        )
        .await?;
    let outcome = normalize(ctx, group_id, &inp, &answer.value);
    let mut record = inp.record;
    record.normalization.push(outcome.report());
    record.oracles = outcome.kept;
    record.add_set_aside(outcome.set_aside);
    let kept = record.oracles.len();
    save(ctx, inp.group, record).await?;
    Ok(kept)
}

/// Challenger review of one group; returns the number of hints kept.
pub async fn challenge(ctx: &AgentCtx, group_id: &str) -> Result<usize, String> {
    let inp = inputs(ctx, group_id)?;
    let contexts = contexts_json(&inp);
    let oracles = to_prompt_json(&inp.record.oracles);
    let test_ids: Vec<&str> = inp
        .record
        .oracles
        .iter()
        .map(|o| o.test_id.as_str())
        .collect();
    let schema = schemas::for_hints(&test_ids, true).noted(
        ctx,
        crate::agents::Agent::MultiOpChallenger,
        None,
    );
    let answer = ctx
        .call::<serde_json::Value>(
            crate::agents::Agent::MultiOpChallenger,
            None,
            &[
                ("group_id", group_id),
                ("contexts", &contexts),
                ("seed_data", &inp.seed_data),
                ("bundle", &inp.bundle_text),
                ("oracles", &oracles),
            ],
            Some(schema),
        )
        .await?;
    let ids: BTreeSet<&str> = inp
        .record
        .oracles
        .iter()
        .map(|o| o.test_id.as_str())
        .collect();
    let checked = check_hints(&answer.value, &ids, true);
    let rel = format!("reviews/group-{}.refused.json", op_slug(group_id));
    challenge::keep_refused(ctx, rel, &checked).await;
    let n = checked.hints.len();
    let mut record = inp.record;
    record.review = Some(ChallengerReview {
        hints: checked.hints,
    });
    save(ctx, inp.group, record).await?;
    Ok(n)
}

/// Targeted regeneration of the flagged sequences of one group.
pub async fn regenerate(ctx: &AgentCtx, group_id: &str) -> Result<(), String> {
    let inp = inputs(ctx, group_id)?;
    let hints = inp.record.review.clone().unwrap_or_default().hints;
    let request = challenge::revision_request(&inp.record.oracles, &hints);
    let contexts = contexts_json(&inp);
    let flagged_json = to_prompt_json(&request.flagged);
    let hints_json = to_prompt_json(&request.hints);
    let existing = request.existing.join(", ");
    let answer = ctx
        .call::<serde_json::Value>(
            crate::agents::Agent::MultiOpRegenerate,
            None,
            &[
                ("group_id", group_id),
                ("contexts", &contexts),
                ("seed_data", &inp.seed_data),
                ("bundle", &inp.bundle_text),
                ("flagged", &flagged_json),
                ("existing", &existing),
                ("hints", &hints_json),
            ],
            Some(multi_schema(ctx, &inp)),
        )
        .await?;
    let outcome = normalize(ctx, group_id, &inp, &answer.value);
    let regen = merge(&inp.record.oracles, &hints, outcome.kept.clone());
    let rel = format!("regen/group-{}.json", op_slug(group_id));
    let doc = serde_json::json!({"normalization": outcome.report(), "merge": regen});
    ctx.write(move |s| s.write_json(&rel, &doc)).await?;
    let mut record = inp.record;
    record.regenerated = regen.changed_ids();
    record.normalization.push(outcome.report());
    record.oracles = regen.suite;
    record.add_set_aside(outcome.set_aside);
    save(ctx, inp.group, record).await
}
