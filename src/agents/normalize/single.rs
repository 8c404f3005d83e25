//! Normalization of single-operation suites (rules 1-8 of the module docs).

use super::dedupe::{Dedup, dedupe};
use super::parse::{
    Recorder, assertion_set, canonical, entries, id_field, object_and_id, parse_assertions,
    parse_input, parse_refs, parse_strategy, text_field,
};
use super::unreferenced::{self, NormalizeOptions};
use super::{BundleIndex, NormalizeOutcome, rule};
use crate::model::{Assertion, Oracle, SourceContext, Strategy};
use serde_json::Value;

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
/// skipped without it); `bundle` lists the files evidence refs may point into. Oracles
/// that reference a status or field the context lacks are set aside (see
/// [`normalize_single_with`] to keep them).
pub fn normalize_single(
    op_id: &str,
    raw: &Value,
    ctx: Option<&SourceContext>,
    bundle: &BundleIndex,
) -> NormalizeOutcome<Oracle> {
    normalize_single_with(op_id, raw, ctx, bundle, NormalizeOptions::default())
}

/// [`normalize_single`] with explicit options.
pub fn normalize_single_with(
    op_id: &str,
    raw: &Value,
    ctx: Option<&SourceContext>,
    bundle: &BundleIndex,
    opts: NormalizeOptions,
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
    let mut set_aside = Vec::new();
    for (index, entry) in list.into_iter().enumerate() {
        let Some(oracle) = normalize_entry(op_id, index, entry, bundle, &mut rec) else {
            continue;
        };
        let mut problems = ctx
            .map(|c| {
                let invalid = matches!(oracle.oracle_strategy, Some(Strategy::Fi | Strategy::Bi));
                unreferenced::problems(&oracle.assertions, c, invalid, "")
            })
            .unwrap_or_default();
        if oracle.input.method.is_some() {
            problems.another_method();
        }
        let test_id = oracle.test_id.clone();
        let sorted = (oracle, entry.clone());
        unreferenced::sort(
            sorted,
            &test_id,
            problems,
            opts,
            &mut rec,
            &mut candidates,
            &mut set_aside,
        );
    }
    let kept = dedupe(candidates, &mut rec);
    unreferenced::unique_ids(
        &mut set_aside,
        kept.iter().map(|o| o.test_id.clone()),
        |o| &mut o.test_id,
    );
    NormalizeOutcome {
        kept,
        set_aside,
        dropped: rec.dropped,
        flags: rec.flags,
        counts: rec.counts,
    }
}

/// Statuses whose response has no body (RFC 9110): an fv/bv oracle for one asserts the
/// status and [`no_body`], the one form prompts, normalization and challenger share.
pub const BODILESS: [u16; 3] = [204, 205, 304];

/// The assertion "the response has no body": the whole body is missing.
pub fn no_body() -> Assertion {
    Assertion::Field {
        field_path: String::new(),
        op: crate::model::FieldOp::IsNull,
        expected: Value::Null,
    }
}

/// Applies rules 1-4 and 7 to one entry; `None` when it is dropped.
fn normalize_entry(
    op_id: &str,
    index: usize,
    entry: &Value,
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
    let bodiless = assertions.iter().find_map(|a| match a {
        Assertion::Status { expected } => Some(BODILESS.contains(expected)),
        _ => None,
    }) == Some(true);
    if matches!(strategy, Some(Strategy::Fv | Strategy::Bv)) && !has_field && bodiless {
        assertions.push(no_body());
        rec.flag(
            &test_id,
            rule::NO_BODY_ADDED,
            "bodiless status: the no-body assertion (`\"\"` is_null) was added",
        );
    } else if matches!(strategy, Some(Strategy::Fv | Strategy::Bv)) && !has_field {
        rec.drop(
            &test_id,
            rule::NO_FIELD_FV_BV,
            "fv/bv oracle without a field assertion",
            entry,
        );
        return None;
    }
    let evidence_refs = parse_refs(obj.get("evidence_refs"), bundle, &test_id, rec);
    let fresh_state = match obj.get("fresh_state") {
        None | Some(Value::Null) => false,
        Some(Value::Bool(b)) => *b,
        Some(other) => {
            rec.flag(
                &test_id,
                rule::MALFORMED,
                format!("fresh_state is {other}, not true or false; ignored"),
            );
            false
        }
    };
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
        fresh_state,
    })
}
