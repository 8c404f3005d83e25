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
use crate::model::{Assertion, FieldOp, SourceContext};
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

/// What the context says about an oracle's assertions: `contradictions` set it aside (a
/// field the body provably lacks, a status the code provably cannot return), `unverified`
/// only flag it (an error-body field where the context knows nothing about that body).
#[derive(Debug, Default)]
pub(super) struct Findings {
    pub contradictions: Vec<Problem>,
    pub unverified: Vec<Problem>,
}

impl Findings {
    /// The request goes out with another method than the operation's (`input.method`):
    /// the context describes the declared method, so a status it lacks (the router's 405)
    /// contradicts nothing.
    pub fn another_method(&mut self) {
        self.contradictions
            .retain(|(r, _)| *r != rule::UNKNOWN_STATUS);
    }
}

/// The unreferenced fields and statuses of `assertions`, checked against `ctx`.
/// `invalid_input` is true for fi/bi oracles, whose 400 from the framework's own type
/// conversion is accepted when the context lists no error case (paper Listing 4);
/// `prefix` names a sequence step in messages.
pub(super) fn problems(
    assertions: &[Assertion],
    ctx: &SourceContext,
    invalid_input: bool,
    prefix: &str,
) -> Findings {
    let mut out = Findings::default();
    let status = assertions.iter().find_map(|a| match a {
        Assertion::Status { expected } => Some(*expected),
        _ => None,
    });
    match status {
        Some(s) if s >= 400 => error_fields(assertions, ctx, s, prefix, &mut out),
        _ => out.contradictions = unknown_fields(assertions, ctx, prefix),
    }
    out.contradictions
        .extend(unknown_statuses(assertions, ctx, invalid_input, prefix));
    out
}

/// The field paths of the field assertions that could contradict an absent field:
/// `is_null` holds on a missing field, so it never does.
fn asserted_fields(assertions: &[Assertion]) -> impl Iterator<Item = (&str, &str)> {
    assertions.iter().filter_map(|a| match a {
        Assertion::Field { field_path, op, .. } if *op != FieldOp::IsNull => {
            first_name_segment(field_path).map(|first| (field_path.as_str(), first))
        }
        _ => None,
    })
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
    asserted_fields(assertions)
        .filter(|(_, first)| !known.contains(first))
        .map(|(field_path, _)| {
            (
                rule::UNKNOWN_FIELD,
                format!(
                    "{prefix}field `{field_path}` is not a verified response field of {}",
                    ctx.op_id
                ),
            )
        })
        .collect()
}

/// Field assertions on an error response (`status` >= 400), checked against the body that
/// status has: the envelope its error cases use plus the cases' own fields. A field
/// outside that body contradicts the context only when the code returns `status` itself
/// and every envelope of it was read from the code (a complete field list); otherwise
/// (a framework error, no envelope found, an envelope only the model claimed) the oracle
/// is kept and flagged `unverified_error_field`.
fn error_fields(
    assertions: &[Assertion],
    ctx: &SourceContext,
    status: u16,
    prefix: &str,
    out: &mut Findings,
) {
    // A status the framework answers has the framework's body: the project's envelopes
    // say nothing about it.
    let cases: Vec<_> = ctx
        .response_schema
        .code_cases()
        .filter(|c| c.status == status)
        .collect();
    let named: BTreeSet<&str> = cases.iter().filter_map(|c| c.envelope.as_deref()).collect();
    let unnamed = cases.is_empty() || cases.iter().any(|c| c.envelope.is_none());
    let envelopes: Vec<_> = ctx
        .error_envelopes
        .iter()
        .filter(|e| named.contains(e.name.as_str()) || unnamed)
        .collect();
    let known: BTreeSet<&str> = envelopes
        .iter()
        .flat_map(|e| e.fields.iter())
        .chain(cases.iter().flat_map(|c| c.body.iter()))
        .filter_map(|f| first_name_segment(&f.name))
        .collect();
    let provable =
        !cases.is_empty() && !envelopes.is_empty() && envelopes.iter().all(|e| e.complete());
    let body = if envelopes.is_empty() {
        "no error envelope is known".to_string()
    } else {
        let names: Vec<&str> = envelopes.iter().map(|e| e.name.as_str()).collect();
        format!(
            "its body is {} ({})",
            names.join(", "),
            known.iter().copied().collect::<Vec<_>>().join(", ")
        )
    };
    for (field_path, first) in asserted_fields(assertions) {
        if known.contains(first) {
            continue;
        }
        if provable {
            out.contradictions.push((
                rule::UNKNOWN_FIELD,
                format!(
                    "{prefix}field `{field_path}` is not in the error body of status {status} of {}: {body}",
                    ctx.op_id
                ),
            ));
        } else {
            out.unverified.push((
                rule::UNVERIFIED_ERROR_FIELD,
                format!(
                    "{prefix}field `{field_path}` of the {status} body of {} is not verified: {body}",
                    ctx.op_id
                ),
            ));
        }
    }
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
    if !schema.names_code_status() {
        return Vec::new();
    }
    let mut out = Vec::new();
    for a in assertions {
        let Assertion::Status { expected } = *a else {
            continue;
        };
        let known = schema.success_status == Some(expected)
            || schema.error_cases.iter().any(|e| e.status == expected);
        let framework_400 =
            expected == 400 && invalid_input && schema.code_cases().next().is_none();
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

/// Sorts one normalized oracle by its `findings`: unverified error-body fields are
/// flagged and never remove it; no contradiction → a candidate for the last rule (dedupe);
/// with `keep_unreferenced` → a candidate with one flag per contradiction; otherwise → set
/// aside, with one drop entry listing the contradictions.
pub(super) fn sort<T>(
    (oracle, entry): (T, serde_json::Value),
    test_id: &str,
    findings: Findings,
    opts: NormalizeOptions,
    rec: &mut super::parse::Recorder,
    candidates: &mut Vec<(T, serde_json::Value)>,
    set_aside: &mut Vec<T>,
) {
    let Findings {
        contradictions,
        unverified,
    } = findings;
    if contradictions.is_empty() || opts.keep_unreferenced {
        for (rule_id, detail) in unverified.into_iter().chain(contradictions) {
            rec.flag(test_id, rule_id, detail);
        }
        candidates.push((oracle, entry));
    } else {
        let all: Vec<Problem> = contradictions.into_iter().chain(unverified).collect();
        rec.set_aside(test_id, &all, &entry);
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
