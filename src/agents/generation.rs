//! The one generate → challenge → regenerate path (paper 4.4.1 and 4.4.2), written once
//! for every [`Target`]: an operation's single-op suite or a group's multi-op sequences.
//!
//! Each step loads the target's inputs and its record as the last agent left it, calls
//! the model, normalizes, and saves the record to the session and the blackboard. The
//! challenger's hints are checked against the suite, the refused ones kept beside the
//! review, and the one targeted regeneration merged mechanically (only flagged oracles
//! change). What differs per kind (prompt variables, schema, normalizer, files, where
//! the record lives) is the [`Target`] impl's; this module holds no kind-specific code,
//! so the two paths cannot drift apart again.

use crate::agents::Agent;
use crate::agents::challenge::{self, HintCheck, check_hints, merge};
use crate::agents::error::AgentError;
use crate::agents::normalize::NormalizeOutcome;
use crate::agents::oracle_view::{hint_lines, review_lines};
use crate::agents::runtime::AgentCtx;
use crate::agents::schemas;
use crate::model::{ChallengerReview, Hint};
use crate::store::{Record, RecordKind, Session, StoreError, TestId};
use serde_json::Value;
use std::collections::BTreeSet;

/// The oracle type of a target's record.
pub type OracleOf<T> = <<T as Target>::Kind as RecordKind>::Oracle;

/// The record type of a target.
pub type RecordOf<T> = Record<<T as Target>::Kind>;

/// A prompt variable: name and rendered value.
pub type Var = (&'static str, String);

/// What the generation path needs of one kind of target, loaded for one id.
pub trait Target: Sized + Send + Sync {
    /// The kind of record the target's oracles are kept in.
    type Kind: RecordKind;
    /// The first generation's agent (and prompt).
    const GENERATOR: Agent;
    /// The challenger's agent.
    const CHALLENGER: Agent;
    /// The targeted regeneration's agent.
    const REGENERATOR: Agent;
    /// Whether the sequence-logic hint dimension applies (multi-op only).
    const MULTI: bool;

    /// Reads the target's inputs from the blackboard and the project.
    fn load(ctx: &AgentCtx, id: &str) -> Result<Self, AgentError>;
    /// The name of its files under `reviews/` and `regen/`.
    fn stem(id: &str) -> String;
    /// The operation its calls are filed under, if it is one.
    fn call_op(&self) -> Option<&str>;
    /// The prompt variables every call for this target gets.
    fn vars(&self) -> Vec<Var>;
    /// The first generation's extra prompt variables.
    fn generate_vars(&self) -> Vec<Var>;
    /// What the challenger reads besides the suite: by default what every call gets.
    fn review_vars(&self, _oracles: &[OracleOf<Self>]) -> Vec<Var> {
        self.vars()
    }
    /// What a revision reads besides the flagged oracles, the ids and the hints: by
    /// default what every call gets.
    fn revise_vars(&self, _flagged: &[&OracleOf<Self>]) -> Vec<Var> {
        self.vars()
    }
    /// The answer schema of generation and regeneration, noted when it falls back.
    fn schema(&self, ctx: &AgentCtx) -> Value;
    /// Normalizes a generation or regeneration answer against the target's inputs.
    fn normalize(&self, ctx: &AgentCtx, answer: &Value) -> NormalizeOutcome<OracleOf<Self>>;
    /// The record a first generation fills.
    fn fresh(&self) -> RecordOf<Self>;
    /// The record as the last agent left it; `purpose` names what needs it.
    fn current(&self, ctx: &AgentCtx, purpose: &str) -> Result<RecordOf<Self>, AgentError>;
    /// Hints of our own, added after the challenger's (none by default).
    fn own_hints(&self, _oracles: &[OracleOf<Self>]) -> Vec<Hint> {
        Vec::new()
    }
    /// Writes the record to its session file.
    fn write(session: &Session, record: &RecordOf<Self>) -> Result<(), StoreError>;
    /// Puts the record on the blackboard for the next agent.
    fn publish(&self, ctx: &AgentCtx, record: RecordOf<Self>);
}

/// First generation; returns how many oracles survived normalization.
pub async fn generate<T: Target>(ctx: &AgentCtx, id: &str) -> Result<usize, AgentError> {
    let target = T::load(ctx, id)?;
    let mut vars = target.vars();
    vars.extend(target.generate_vars());
    let schema = target.schema(ctx);
    let answer = call(ctx, &target, T::GENERATOR, &vars, schema).await?;
    let outcome = target.normalize(ctx, &answer);
    let mut record = target.fresh();
    record.normalization.push(outcome.report());
    record.oracles = outcome.kept;
    record.add_set_aside(outcome.set_aside);
    let kept = record.oracles.len();
    save(ctx, &target, record).await?;
    Ok(kept)
}

/// Challenger review (plus the target's own hints); returns the number of hints kept.
/// The hints the check refused are kept in the session for the reviewer.
pub async fn challenge<T: Target>(ctx: &AgentCtx, id: &str) -> Result<usize, AgentError> {
    let target = T::load(ctx, id)?;
    let record = target.current(ctx, "review")?;
    let mut vars = target.review_vars(&record.oracles);
    vars.push(("oracles", review_lines(&record.oracles)));
    let note = target
        .call_op()
        .filter(|_| !T::MULTI)
        .and_then(|op| ctx.mutation_notes.get(op))
        .cloned()
        .unwrap_or_default();
    vars.push(("mutation", note));
    let test_ids: Vec<&str> = record.oracles.iter().map(TestId::test_id).collect();
    let schema =
        schemas::for_hints(&test_ids, T::MULTI).noted(ctx, T::CHALLENGER, target.call_op());
    let answer = call(ctx, &target, T::CHALLENGER, &vars, schema).await?;
    let own = target.own_hints(&record.oracles);
    let reviewed = review::<T>(id, record, &answer, own);
    challenge::keep_refused(ctx, reviewed.refused_file, &reviewed.check).await;
    save(ctx, &target, reviewed.record).await?;
    Ok(reviewed.kept)
}

/// The one targeted regeneration: only flagged oracles change.
pub async fn regenerate<T: Target>(ctx: &AgentCtx, id: &str) -> Result<(), AgentError> {
    let target = T::load(ctx, id)?;
    let mut record = target.current(ctx, "regenerate")?;
    let hints = record.review.clone().unwrap_or_default().hints;
    let request = challenge::revision_request(&record.oracles, &hints);
    let vars = revision_vars(&target, &request);
    let schema = target.schema(ctx);
    let answer = call(ctx, &target, T::REGENERATOR, &vars, schema).await?;
    let outcome = target.normalize(ctx, &answer);
    let regen = merge(&record.oracles, &hints, outcome.kept.clone());
    let rel = regen_file::<T>(id);
    let doc = serde_json::json!({"normalization": outcome.report(), "merge": regen});
    ctx.write(move |s| s.write_json(&rel, &doc)).await?;
    record.regenerated = regen.changed_ids();
    record.normalization.push(outcome.report());
    record.oracles = regen.suite;
    record.add_set_aside(outcome.set_aside);
    save(ctx, &target, record).await
}

/// A revision's variables: the target's own, the flagged oracles and the hints as the
/// revision reads them (`oracle_view`), and every id a new oracle must not reuse.
fn revision_vars<T: Target>(
    target: &T,
    request: &challenge::RevisionRequest<'_, OracleOf<T>>,
) -> Vec<Var> {
    let mut vars = target.revise_vars(&request.flagged);
    vars.extend([
        ("flagged", review_lines(&request.flagged)),
        ("existing", request.existing.join(", ")),
        ("hints", hint_lines(&request.hints)),
    ]);
    vars
}

/// A targeted regeneration driven by `hints` from outside the challenger (a mutation
/// analysis' survivors): the same prompt and the same mechanical merge, so existing
/// oracles stay byte for byte and only new ones are added. The merge is filed at `rel`
/// with `note` beside it; the record's review is left as the challenger left it.
/// Returns the test_ids of the oracles it added.
pub async fn regenerate_for<T: Target>(
    ctx: &AgentCtx,
    id: &str,
    hints: &[Hint],
    rel: String,
    note: Value,
) -> Result<Vec<String>, AgentError> {
    let target = T::load(ctx, id)?;
    let mut record = target.current(ctx, "regenerate")?;
    let request = challenge::revision_request(&record.oracles, hints);
    let vars = revision_vars(&target, &request);
    let schema = target.schema(ctx);
    let answer = call(ctx, &target, T::REGENERATOR, &vars, schema).await?;
    let outcome = target.normalize(ctx, &answer);
    let regen = merge(&record.oracles, hints, outcome.kept.clone());
    let added: Vec<String> = regen
        .added
        .iter()
        .map(|o| o.test_id().to_string())
        .collect();
    let doc = serde_json::json!({
        "for": note, "normalization": outcome.report(), "merge": regen, "added": added,
    });
    ctx.write(move |s| s.write_json(&rel, &doc)).await?;
    record.normalization.push(outcome.report());
    record.oracles = regen.suite;
    record.add_set_aside(outcome.set_aside);
    save(ctx, &target, record).await?;
    Ok(added)
}

/// A challenger answer applied to a record: what to save and what to keep aside.
pub struct Reviewed<K: RecordKind> {
    /// The record with its review set.
    pub record: Record<K>,
    /// How many hints the review kept (the model's and ours).
    pub kept: usize,
    /// Where the refused hints are kept ([`refused_file`]).
    pub refused_file: String,
    /// The check of the model's hints: kept (moved into the record) and refused.
    pub check: HintCheck,
}

/// Checks the challenger's `answer` against the record's oracles, adds `own` hints after
/// the model's (they drive the same one regeneration), and sets the record's review.
/// Pure, so both kinds' handling of refused hints can be tested without a model.
pub fn review<T: Target>(
    id: &str,
    mut record: RecordOf<T>,
    answer: &Value,
    own: Vec<Hint>,
) -> Reviewed<T::Kind> {
    let ids: BTreeSet<&str> = record.oracles.iter().map(TestId::test_id).collect();
    let mut check = check_hints(answer, &ids, T::MULTI);
    let own = crate::agents::quadrants::drop_answered(own, &check.hints);
    check.hints.extend(own);
    let kept = check.hints.len();
    record.review = Some(ChallengerReview {
        hints: check.hints.clone(),
    });
    Reviewed {
        record,
        kept,
        refused_file: refused_file::<T>(id),
        check,
    }
}

/// `reviews/<stem>.refused.json`: the hints the check refused, with reasons.
pub fn refused_file<T: Target>(id: &str) -> String {
    format!("reviews/{}.refused.json", T::stem(id))
}

/// `regen/<stem>.json`: the regeneration's normalization report and merge.
pub fn regen_file<T: Target>(id: &str) -> String {
    format!("regen/{}.json", T::stem(id))
}

/// Calls `agent`'s prompt for the target with `vars` and the answer `schema`.
async fn call<T: Target>(
    ctx: &AgentCtx,
    target: &T,
    agent: Agent,
    vars: &[Var],
    schema: Value,
) -> Result<Value, AgentError> {
    let refs: Vec<(&str, &str)> = vars.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let answer = ctx
        .call::<Value>(agent, target.call_op(), &refs, Some(schema))
        .await?;
    Ok(answer.value)
}

/// Writes the record to the session, then hands it to the blackboard.
async fn save<T: Target>(
    ctx: &AgentCtx,
    target: &T,
    record: RecordOf<T>,
) -> Result<(), AgentError> {
    let copy = record.clone();
    ctx.write(move |s| T::write(s, &copy)).await?;
    target.publish(ctx, record);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agents::multi_op::GroupTarget;
    use crate::agents::single_op::OpTarget;
    use crate::store::{GroupRecord, SuiteRecord};
    use serde_json::json;

    /// One hint each kind keeps, one neither keeps (it names no oracle), and one only a
    /// multi-op suite keeps (sequence logic).
    fn answer() -> Value {
        json!({"hints": [
            {"test_id": "suite", "dimension": "coverage_gaps", "text": "no 404 case"},
            {"test_id": "zzz", "dimension": "coverage_gaps", "text": "x"},
            {"test_id": "suite", "dimension": "sequence_logic", "text": "delete before get"}
        ]})
    }

    #[test]
    fn both_kinds_keep_the_hints_the_challenger_had_refused() {
        let single = review::<OpTarget>(
            "GET /pets/{id}",
            SuiteRecord::new("GET /pets/{id}"),
            &answer(),
            vec![],
        );
        let slug = crate::store::op_slug("GET /pets/{id}");
        assert_eq!(single.refused_file, format!("reviews/{slug}.refused.json"));
        assert_eq!(single.check.refused.len(), 2);
        assert!(single.check.refused[0].1.contains("zzz"));
        assert_eq!(single.kept, 1);
        assert_eq!(single.record.review.unwrap().hints.len(), 1);

        let multi =
            review::<GroupTarget>("pet life", GroupRecord::new("pet life"), &answer(), vec![]);
        let group = crate::store::op_slug("pet life");
        assert_eq!(
            multi.refused_file,
            format!("reviews/group-{group}.refused.json")
        );
        assert_eq!(multi.check.refused.len(), 1);
        assert!(multi.check.refused[0].1.contains("zzz"));
        assert_eq!(multi.kept, 2);
        assert_eq!(multi.record.review.unwrap().hints.len(), 2);
        assert_eq!(
            regen_file::<GroupTarget>("pet life"),
            format!("regen/group-{group}.json")
        );
        assert_eq!(
            regen_file::<OpTarget>("GET /pets/{id}"),
            format!("regen/{slug}.json")
        );
    }

    #[test]
    fn our_own_hints_follow_the_models() {
        let own = Hint {
            test_id: "suite".into(),
            dimension: crate::model::HintDimension::CoverageGaps,
            text: "quadrant".into(),
            origin: crate::model::HintOrigin::Quadrant,
            affects: vec![],
        };
        let r = review::<OpTarget>(
            "GET /a",
            SuiteRecord::new("GET /a"),
            &answer(),
            vec![own.clone()],
        );
        let hints = r.record.review.unwrap().hints;
        assert_eq!(hints.last(), Some(&own));
        assert_eq!(r.kept, 2);
    }
}
