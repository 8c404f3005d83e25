//! SingleOpOracleAgent and SingleOpChallengerAgent (paper 4.4.1): generate the four
//! strategies' oracles for one operation, normalize them, have the challenger review the
//! suite, and regenerate only what it flagged.

use crate::agents::challenge::{self, check_hints, merge};
use crate::agents::normalize::normalize_single_with;
use crate::agents::runtime::{AgentCtx, to_prompt_json};
use crate::agents::schemas;
use crate::model::{ChallengerReview, SourceContext};
use crate::project::bundle_index;
use crate::store::{SuiteRecord, op_slug};
use std::collections::BTreeSet;
use std::sync::Arc;

struct Inputs {
    context: SourceContext,
    bundle: Arc<crate::source::bundle::Bundle>,
}

fn inputs(ctx: &AgentCtx, op_id: &str) -> Result<Inputs, String> {
    let board = ctx.board();
    let context = board
        .contexts
        .get(op_id)
        .cloned()
        .ok_or_else(|| format!("{op_id}: no source context"))?;
    let discovered = board.discovered.get(op_id).map(|(_, f)| f.clone());
    drop(board);
    let bundle = ctx
        .project
        .bundle_for(op_id, discovered.as_deref())
        .ok_or_else(|| format!("{op_id}: no source bundle"))?;
    Ok(Inputs { context, bundle })
}

/// Normalizes a generation or regeneration answer against the operation's verified
/// context and bundle, with the run's options.
fn normalize(
    ctx: &AgentCtx,
    op_id: &str,
    inp: &Inputs,
    answer: &serde_json::Value,
) -> crate::agents::normalize::NormalizeOutcome<crate::model::Oracle> {
    let index = bundle_index(&inp.bundle);
    normalize_single_with(op_id, answer, Some(&inp.context), &index, ctx.normalize)
}

async fn save(ctx: &AgentCtx, suite: SuiteRecord) -> Result<(), String> {
    let record = suite.clone();
    ctx.write(move |s| s.write_suite(&record)).await?;
    ctx.board().suites.insert(suite.op_id.clone(), suite);
    Ok(())
}

/// The operation's suite as the last agent left it; `purpose` names what needs it.
fn current_suite(ctx: &AgentCtx, op_id: &str, purpose: &str) -> Result<SuiteRecord, String> {
    ctx.board()
        .suites
        .get(op_id)
        .cloned()
        .ok_or_else(|| format!("{op_id}: no suite to {purpose}"))
}

/// First generation; returns how many oracles survived normalization.
pub async fn generate(ctx: &AgentCtx, op_id: &str) -> Result<usize, String> {
    let inp = inputs(ctx, op_id)?;
    let context_json = to_prompt_json(&inp.context.verified());
    let seed_data = ctx.project.seed_data_for(&inp.bundle.files);
    let answer = ctx
        .call::<serde_json::Value>(
            crate::agents::Agent::SingleOp,
            Some(op_id),
            &[
                ("op_id", op_id),
                ("context", &context_json),
                ("seed_data", &seed_data),
                ("bundle", &inp.bundle.text),
            ],
            Some(
                schemas::for_single_op(ctx.project.op(op_id), Some(&inp.context)).noted(
                    ctx,
                    crate::agents::Agent::SingleOp,
                    Some(op_id),
                ),
            ),
        )
        .await?;
    let outcome = normalize(ctx, op_id, &inp, &answer.value);
    let mut suite = SuiteRecord::new(op_id);
    suite.normalization.push(outcome.report());
    suite.oracles = outcome.kept;
    suite.add_set_aside(outcome.set_aside);
    let kept = suite.oracles.len();
    save(ctx, suite).await?;
    Ok(kept)
}

/// Challenger review plus the quadrant check; returns the number of hints kept (the
/// model's and ours).
pub async fn challenge(ctx: &AgentCtx, op_id: &str) -> Result<usize, String> {
    let inp = inputs(ctx, op_id)?;
    let mut suite = current_suite(ctx, op_id, "review")?;
    let context_json = to_prompt_json(&inp.context.verified());
    let seed_data = ctx.project.seed_data_for(&inp.bundle.files);
    let oracles_json = to_prompt_json(&suite.oracles);
    let test_ids: Vec<&str> = suite.oracles.iter().map(|o| o.test_id.as_str()).collect();
    let schema = schemas::for_hints(&test_ids, false).noted(
        ctx,
        crate::agents::Agent::SingleOpChallenger,
        Some(op_id),
    );
    let answer = ctx
        .call::<serde_json::Value>(
            crate::agents::Agent::SingleOpChallenger,
            Some(op_id),
            &[
                ("op_id", op_id),
                ("context", &context_json),
                ("oracles", &oracles_json),
                ("seed_data", &seed_data),
                ("bundle", &inp.bundle.text),
            ],
            Some(schema),
        )
        .await?;
    let ids: BTreeSet<&str> = suite.oracles.iter().map(|o| o.test_id.as_str()).collect();
    let mut checked = check_hints(&answer.value, &ids, false);
    // Our own hints for empty quadrants (paper Table 4), after the model's: they drive
    // the same one regeneration.
    checked.hints.extend(crate::agents::quadrants::hints(
        &inp.context,
        &suite.oracles,
    ));
    let n = checked.hints.len();
    challenge::keep_refused(
        ctx,
        format!("reviews/{}.refused.json", op_slug(op_id)),
        &checked,
    )
    .await;
    suite.review = Some(ChallengerReview {
        hints: checked.hints,
    });
    save(ctx, suite).await?;
    Ok(n)
}

/// The one targeted regeneration: only flagged oracles change.
pub async fn regenerate(ctx: &AgentCtx, op_id: &str) -> Result<(), String> {
    let inp = inputs(ctx, op_id)?;
    let mut suite = current_suite(ctx, op_id, "regenerate")?;
    let hints = suite.review.clone().unwrap_or_default().hints;
    let request = challenge::revision_request(&suite.oracles, &hints);
    let context_json = to_prompt_json(&inp.context.verified());
    let seed_data = ctx.project.seed_data_for(&inp.bundle.files);
    let flagged_json = to_prompt_json(&request.flagged);
    let hints_json = to_prompt_json(&request.hints);
    let existing = request.existing.join(", ");
    let answer = ctx
        .call::<serde_json::Value>(
            crate::agents::Agent::SingleOpRegenerate,
            Some(op_id),
            &[
                ("op_id", op_id),
                ("context", &context_json),
                ("flagged", &flagged_json),
                ("existing", &existing),
                ("hints", &hints_json),
                ("seed_data", &seed_data),
                ("bundle", &inp.bundle.text),
            ],
            Some(
                schemas::for_single_op(ctx.project.op(op_id), Some(&inp.context)).noted(
                    ctx,
                    crate::agents::Agent::SingleOp,
                    Some(op_id),
                ),
            ),
        )
        .await?;
    let outcome = normalize(ctx, op_id, &inp, &answer.value);
    let regen = merge(&suite.oracles, &hints, outcome.kept.clone());
    let rel = format!("regen/{}.json", op_slug(op_id));
    let doc = serde_json::json!({"normalization": outcome.report(), "merge": regen});
    ctx.write(move |s| s.write_json(&rel, &doc)).await?;
    suite.regenerated = regen.changed_ids();
    suite.normalization.push(outcome.report());
    suite.oracles = regen.suite;
    suite.add_set_aside(outcome.set_aside);
    save(ctx, suite).await
}
