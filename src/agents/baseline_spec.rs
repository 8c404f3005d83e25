//! The spec-only baseline (SATORI-style, paper §6.2): oracles from the OpenAPI description
//! of an operation alone, with no Java source, in the pipeline's oracle format, written as
//! the same per-operation suites so `check`, `export`, the TUI and `compare` work on it
//! unchanged.
//!
//! One call per operation, not one per spec: SATORI itself works operation by operation,
//! a per-operation prompt stays small whatever the size of the spec (a large spec in one
//! prompt would overflow small models' windows and make the answer's coverage depend on
//! the spec's length), and a failed call loses one operation rather than the whole run,
//! which is what lets the command report a partial result (exit 3) instead of nothing.
//!
//! As for Direct Prompting, answers are only parsed by default; `normalize` runs the
//! pipeline's single-op normalization (without a source context, which does not exist).

use crate::agents::baseline::{
    BaselineError, KIND_SETTING, KIND_SPEC, NORMALIZED_SETTING, RECORD_FILE, convert,
};
use crate::agents::normalize::BundleIndex;
use crate::agents::runtime::AgentCtx;
use crate::store::{PhaseState, PhaseStatus, SuiteRecord};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use std::collections::BTreeMap;

/// Agent (and prompt) name of the per-operation call.
pub const AGENT: crate::agents::Agent = crate::agents::Agent::BaselineSpec;

/// `baseline.json` of a spec-only session.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct SpecRecord {
    /// Whether answers went through the pipeline's normalization (`--normalize`).
    pub normalized: bool,
    /// Operations asked about (one call each).
    pub operations: usize,
    /// Operations whose call answered in the expected shape.
    pub completed: usize,
    /// Operations with at least one oracle kept.
    pub answered: Vec<String>,
    /// Operations whose call answered with no usable oracle.
    pub missing: Vec<String>,
    /// op_id → why its call failed (model unreachable, answer without `oracles`, ...).
    pub failed: BTreeMap<String, String>,
    /// What was kept, dropped or unreadable, over all operations.
    #[serde(flatten)]
    pub tally: super::baseline::Tally,
    pub tokens_in: u64,
    pub tokens_out: u64,
}

/// The operation's description as the prompt carries it: what a spec-based tool reads.
pub fn operation_text(ctx: &AgentCtx, op_id: &str) -> String {
    let Some(op) = ctx.project.op(op_id) else {
        return "{}".into();
    };
    let v = json!({
        "op_id": op.op_id,
        "operationId": op.operation_id,
        "summary": op.summary,
        "tags": op.tags,
        "parameters": op.parameters,
        "requestBody": op.request_body,
        "responses": op.responses,
    });
    serde_json::to_string_pretty(&v).unwrap_or_default()
}

/// What one operation's call produced.
struct OpResult {
    op_id: String,
    outcome: Result<(Value, u64, u64), String>,
}

/// Runs the baseline over every selected operation (calls in flight up to the client's
/// concurrency limit) and writes suites, record and manifest entry. Errors only when the
/// session cannot be written; failed calls are listed in the record.
pub async fn run(ctx: &AgentCtx, normalize: bool) -> Result<SpecRecord, BaselineError> {
    let started = chrono::Utc::now();
    let mut tasks = tokio::task::JoinSet::new();
    for op_id in ctx.project.selected.clone() {
        let ctx = ctx.clone();
        tasks.spawn(async move {
            let operation = operation_text(&ctx, &op_id);
            let outcome = ctx
                .call::<Value>(
                    AGENT,
                    Some(&op_id),
                    &[("op_id", &op_id), ("operation", &operation)],
                    Some(schema()),
                )
                .await
                .map(|a| {
                    let u = a.record.usage;
                    (a.value, u.prompt_tokens, u.completion_tokens)
                })
                .map_err(String::from);
            OpResult { op_id, outcome }
        });
    }
    let mut results = Vec::new();
    while let Some(joined) = tasks.join_next().await {
        match joined {
            Ok(r) => results.push(r),
            Err(e) => tracing::error!("baseline task panicked: {e}"),
        }
    }
    results.sort_by(|a, b| a.op_id.cmp(&b.op_id));
    let mut rec = SpecRecord {
        normalized: normalize,
        operations: ctx.project.selected.len(),
        ..SpecRecord::default()
    };
    let index = BundleIndex::default();
    for r in results {
        let (value, tin, tout) = match r.outcome {
            Ok(v) => v,
            Err(e) => {
                rec.failed.insert(r.op_id, e);
                continue;
            }
        };
        rec.tokens_in += tin;
        rec.tokens_out += tout;
        let Some(list) = oracle_list(&value) else {
            let why = format!("the answer has no `oracles` list: {}", compact(&value));
            rec.failed.insert(r.op_id, why);
            continue;
        };
        rec.completed += 1;
        let converted = convert(&r.op_id, list, normalize, &index);
        rec.tally.add(&converted);
        if converted.kept.is_empty() {
            rec.missing.push(r.op_id.clone());
        } else {
            rec.answered.push(r.op_id.clone());
        }
        let mut suite = SuiteRecord::new(r.op_id);
        suite.normalization.extend(converted.report);
        suite.oracles = converted.kept;
        ctx.session.write_suite(&suite)?;
    }
    ctx.session.write_json(RECORD_FILE, &rec)?;
    let message = format!(
        "spec-only: {} oracles for {} of {} operations, {} calls failed",
        rec.tally.oracles,
        rec.answered.len(),
        rec.operations,
        rec.failed.len()
    );
    let status = if rec.completed == 0 && rec.operations > 0 {
        PhaseStatus::Failed
    } else {
        PhaseStatus::Done
    };
    ctx.session.update_manifest(|m| {
        let settings = &mut m.config.settings;
        settings.insert(KIND_SETTING.into(), json!(KIND_SPEC));
        settings.insert(NORMALIZED_SETTING.into(), json!(normalize));
        m.phases.insert(
            AGENT.name().into(),
            PhaseState {
                status,
                started_at: Some(started),
                finished_at: Some(chrono::Utc::now()),
                message: Some(message),
            },
        );
    })?;
    Ok(rec)
}

/// The oracle list of an answer: `{"oracles": [...]}`, `{"path_oracles": [...]}` or a
/// bare array.
fn oracle_list(v: &Value) -> Option<Vec<Value>> {
    match v {
        Value::Array(items) => Some(items.clone()),
        Value::Object(map) => map
            .get("oracles")
            .or_else(|| map.get("path_oracles"))
            .and_then(Value::as_array)
            .cloned(),
        _ => None,
    }
}

/// At most 200 characters of `v`, for messages.
fn compact(v: &Value) -> String {
    let s = v.to_string();
    match s.char_indices().nth(200) {
        Some((i, _)) => format!("{}...", &s[..i]),
        None => s,
    }
}

/// The answer shape, for providers that accept a JSON schema.
fn schema() -> Value {
    json!({"type": "object", "properties": {"oracles": {"type": "array", "items": {
        "type": "object", "properties": {
            "test_id": {"type": "string"},
            "description": {"type": "string"},
            "input": {"type": "object"},
            "assertions": {"type": "array", "items": {"type": "object"}},
            "evidence": {"type": "string"}},
        "required": ["input", "assertions"]}}}, "required": ["oracles"]})
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_are_read_in_three_shapes() {
        assert_eq!(oracle_list(&json!({"oracles": [1]})).unwrap().len(), 1);
        assert_eq!(
            oracle_list(&json!({"path_oracles": [1, 2]})).unwrap().len(),
            2
        );
        assert_eq!(oracle_list(&json!([])).unwrap().len(), 0);
        assert!(oracle_list(&json!({"ops": []})).is_none());
    }
}
