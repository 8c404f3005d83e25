//! Normalization of single-operation suites (rules 1-8 of the module docs).

use super::dedupe::{Dedup, dedupe};
use super::parse::{
    Recorder, assertion_set, canonical, entries, first_name_segment, id_field, object_and_id,
    parse_assertions, parse_input, parse_refs, parse_strategy, text_field,
};
use super::{BundleIndex, NormalizeOutcome, rule};
use crate::model::{Assertion, Oracle, SourceContext, Strategy};
use serde_json::Value;
use std::collections::BTreeSet;

impl Dedup for Oracle {
    fn test_id(&self) -> &str {
        &self.test_id
    }

    fn set_test_id(&mut self, id: String) {
        self.test_id = id;
    }

    fn content_key(&self) -> String {
        let input = serde_json::to_value(&self.input).unwrap_or(Value::Null);
        format!(
            "{}\u{0}{}\u{0}{}",
            self.op_id,
            canonical(&input),
            assertion_set(&self.assertions).join("\u{0}")
        )
    }
}

/// Normalizes a model's answer for one operation. `raw` is an array of oracles, or an
/// object holding one under `oracles` or `path_oracles`, or a single oracle object.
/// `ctx` is the operation's verified source context (field and status checks are
/// skipped without it); `bundle` lists the files evidence refs may point into.
pub fn normalize_single(
    op_id: &str,
    raw: &Value,
    ctx: Option<&SourceContext>,
    bundle: &BundleIndex,
) -> NormalizeOutcome<Oracle> {
    let mut rec = Recorder::new(rule::SINGLE);
    let list = match entries(raw, &["oracles", "path_oracles"], "assertions") {
        Ok(list) => list,
        Err(why) => {
            rec.drop("", rule::MALFORMED, why, raw);
            Vec::new()
        }
    };
    let mut candidates = Vec::new();
    for (index, entry) in list.into_iter().enumerate() {
        if let Some(oracle) = normalize_entry(op_id, index, entry, ctx, bundle, &mut rec) {
            candidates.push((oracle, entry.clone()));
        }
    }
    let kept = dedupe(candidates, &mut rec);
    NormalizeOutcome {
        kept,
        dropped: rec.dropped,
        flags: rec.flags,
        counts: rec.counts,
    }
}

/// Applies rules 1-7 to one entry; `None` when it is dropped.
fn normalize_entry(
    op_id: &str,
    index: usize,
    entry: &Value,
    ctx: Option<&SourceContext>,
    bundle: &BundleIndex,
    rec: &mut Recorder,
) -> Option<Oracle> {
    let (obj, test_id) = object_and_id(index, entry, rec, |obj| {
        obj.get("oracle_strategy")
            .and_then(parse_strategy)
            .and_then(|s| serde_json::to_value(s).ok())
            .and_then(|v| v.as_str().map(str::to_string))
            .unwrap_or_else(|| "oracle".to_string())
    })?;
    let strategy = obj.get("oracle_strategy").and_then(parse_strategy);
    let Some(mut assertions) = parse_assertions(obj.get("assertions"), &test_id, "", rec) else {
        rec.drop(&test_id, rule::MALFORMED, "no `assertions` list", entry);
        return None;
    };
    if assertions.is_empty() {
        rec.drop(&test_id, rule::MALFORMED, "no usable assertion", entry);
        return None;
    }
    match id_field(obj, "op_id") {
        None => rec.count(rule::MISSING_OP_ID),
        Some(given) if given != op_id => rec.flag(
            &test_id,
            rule::OP_ID_MISMATCH,
            format!("op_id `{given}` replaced by `{op_id}`"),
        ),
        Some(_) => {}
    }
    if strategy.is_none() {
        let detail = match obj.get("oracle_strategy") {
            None | Some(Value::Null) => "no oracle_strategy".to_string(),
            Some(v) => format!("unknown oracle_strategy {v}; kept without one"),
        };
        rec.flag(&test_id, rule::UNKNOWN_STRATEGY, detail);
    }
    let input = parse_input(obj, &test_id, "", rec);

    if !assertions
        .iter()
        .any(|a| matches!(a, Assertion::Status { .. }))
    {
        rec.drop(&test_id, rule::NO_STATUS, "no status assertion", entry);
        return None;
    }
    let has_field = assertions
        .iter()
        .any(|a| matches!(a, Assertion::Field { .. }));
    if matches!(strategy, Some(Strategy::Fv | Strategy::Bv)) && !has_field {
        rec.drop(
            &test_id,
            rule::NO_FIELD_FV_BV,
            "fv/bv oracle without a field assertion",
            entry,
        );
        return None;
    }
    if let Some(ctx) = ctx {
        check_fields(&test_id, &assertions, ctx, rec);
        check_statuses(&test_id, &assertions, strategy, ctx, rec);
    }
    let evidence_refs = parse_refs(obj.get("evidence_refs"), bundle, &test_id, rec);
    assertions.shrink_to_fit();
    Some(Oracle {
        test_id,
        op_id: op_id.to_string(),
        description: text_field(obj, "description"),
        oracle_strategy: strategy,
        input,
        assertions,
        evidence: text_field(obj, "evidence"),
        evidence_refs,
    })
}

/// Rule `unknown_field`.
fn check_fields(test_id: &str, assertions: &[Assertion], ctx: &SourceContext, rec: &mut Recorder) {
    let known: BTreeSet<&str> = ctx
        .response_schema
        .fields
        .iter()
        .filter_map(|f| first_name_segment(&f.name))
        .collect();
    if known.is_empty() {
        return;
    }
    for a in assertions {
        if let Assertion::Field { field_path, .. } = a
            && let Some(first) = first_name_segment(field_path)
            && !known.contains(first)
        {
            rec.flag(
                test_id,
                rule::UNKNOWN_FIELD,
                format!(
                    "field `{field_path}` is not a verified response field of {}",
                    ctx.op_id
                ),
            );
        }
    }
}

/// Rule `unknown_status`, with the exceptions documented on the module.
fn check_statuses(
    test_id: &str,
    assertions: &[Assertion],
    strategy: Option<Strategy>,
    ctx: &SourceContext,
    rec: &mut Recorder,
) {
    let schema = &ctx.response_schema;
    if schema.success_status.is_none() && schema.error_cases.is_empty() {
        return;
    }
    let invalid_strategy = matches!(strategy, Some(Strategy::Fi | Strategy::Bi));
    for a in assertions {
        let Assertion::Status { expected } = *a else {
            continue;
        };
        let known = schema.success_status == Some(expected)
            || schema.error_cases.iter().any(|e| e.status == expected);
        let framework_400 = expected == 400 && invalid_strategy && schema.error_cases.is_empty();
        let unknown_success = schema.success_status.is_none() && (200..300).contains(&expected);
        if !known && !framework_400 && !unknown_success {
            rec.flag(
                test_id,
                rule::UNKNOWN_STATUS,
                format!(
                    "status {expected} is not a status the source of {} returns",
                    ctx.op_id
                ),
            );
        }
    }
}
