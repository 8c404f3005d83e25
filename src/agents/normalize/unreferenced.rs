//! Rules `unknown_field` and `unknown_status`: an oracle must reference fields and
//! statuses the verified source context contains (paper §7.3.2: "oracles that fail this
//! check are removed before the next phase begins").
//!
//! By default such an oracle is set aside: dropped with its reasons, and kept in its
//! normalized form so a reviewer can restore it where the context was incomplete.
//! [`NormalizeOptions::keep_unreferenced`] keeps it with a flag instead (the behaviour
//! before the rule removed anything).

use super::parse::first_name_segment;
use super::rule;
use crate::model::{Assertion, SourceContext};
use std::collections::BTreeSet;

/// Switches of a normalization pass that change what is kept.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct NormalizeOptions {
    /// Keep oracles that reference a status or field absent from the verified context,
    /// with an `unknown_status` / `unknown_field` flag, instead of setting them aside.
    pub keep_unreferenced: bool,
}

/// One unreferenced status or field: the rule id and what it names.
pub(super) type Problem = (&'static str, String);

/// The unreferenced fields and statuses of `assertions`, checked against `ctx`.
/// `invalid_input` is true for fi/bi oracles, whose 400 from the framework's own type
/// conversion is accepted when the context lists no error case (paper Listing 4);
/// `prefix` names a sequence step in messages.
pub(super) fn problems(
    assertions: &[Assertion],
    ctx: &SourceContext,
    invalid_input: bool,
    prefix: &str,
) -> Vec<Problem> {
    let mut out = unknown_fields(assertions, ctx, prefix);
    out.extend(unknown_statuses(assertions, ctx, invalid_input, prefix));
    out
}

/// A field path whose first name segment is not a verified response field; skipped when
/// the context lists no fields, and for paths that address the whole body.
fn unknown_fields(assertions: &[Assertion], ctx: &SourceContext, prefix: &str) -> Vec<Problem> {
    let known: BTreeSet<&str> = ctx
        .response_schema
        .fields
        .iter()
        .filter_map(|f| first_name_segment(&f.name))
        .collect();
    if known.is_empty() {
        return Vec::new();
    }
    assertions
        .iter()
        .filter_map(|a| match a {
            Assertion::Field { field_path, .. } => first_name_segment(field_path)
                .filter(|first| !known.contains(first))
                .map(|_| {
                    (
                        rule::UNKNOWN_FIELD,
                        format!(
                            "{prefix}field `{field_path}` is not a verified response field of {}",
                            ctx.op_id
                        ),
                    )
                }),
            _ => None,
        })
        .collect()
}

/// An expected status that is neither the context's `success_status` nor one of its
/// `error_cases`, with the exceptions documented on the normalize module.
fn unknown_statuses(
    assertions: &[Assertion],
    ctx: &SourceContext,
    invalid_input: bool,
    prefix: &str,
) -> Vec<Problem> {
    let schema = &ctx.response_schema;
    if schema.success_status.is_none() && schema.error_cases.is_empty() {
        return Vec::new();
    }
    let mut out = Vec::new();
    for a in assertions {
        let Assertion::Status { expected } = *a else {
            continue;
        };
        let known = schema.success_status == Some(expected)
            || schema.error_cases.iter().any(|e| e.status == expected);
        let framework_400 = expected == 400 && invalid_input && schema.error_cases.is_empty();
        let unknown_success = schema.success_status.is_none() && (200..300).contains(&expected);
        if !known && !framework_400 && !unknown_success {
            out.push((
                rule::UNKNOWN_STATUS,
                format!(
                    "{prefix}status {expected} is not a status the source of {} returns",
                    ctx.op_id
                ),
            ));
        }
    }
    out
}

/// Sorts one normalized oracle by its unreferenced `problems`: none → a candidate for
/// the last rule (dedupe); with `keep_unreferenced` → a candidate with one flag per
/// problem; otherwise → set aside, with one drop entry listing the problems.
pub(super) fn sort<T>(
    (oracle, entry): (T, serde_json::Value),
    test_id: &str,
    problems: Vec<Problem>,
    opts: NormalizeOptions,
    rec: &mut super::parse::Recorder,
    candidates: &mut Vec<(T, serde_json::Value)>,
    set_aside: &mut Vec<T>,
) {
    if problems.is_empty() {
        candidates.push((oracle, entry));
    } else if opts.keep_unreferenced {
        for (rule_id, detail) in problems {
            rec.flag(test_id, rule_id, detail);
        }
        candidates.push((oracle, entry));
    } else {
        rec.set_aside(test_id, &problems, &entry);
        set_aside.push(oracle);
    }
}

/// Makes the ids of set-aside items unique against `taken` (the kept ones and each
/// other), so restoring one never collides with a kept oracle: `<id>_dropped`,
/// `<id>_dropped_2`...
pub(super) fn unique_ids<T>(
    items: &mut [T],
    taken: impl IntoIterator<Item = String>,
    id: impl Fn(&mut T) -> &mut String,
) {
    let mut taken: BTreeSet<String> = taken.into_iter().collect();
    for item in items {
        let slot = id(item);
        if taken.insert(slot.clone()) {
            continue;
        }
        let base = format!("{slot}_dropped");
        let mut candidate = base.clone();
        let mut n = 2;
        while taken.contains(&candidate) {
            candidate = format!("{base}_{n}");
            n += 1;
        }
        taken.insert(candidate.clone());
        *slot = candidate;
    }
}
