//! Normalization with framework facts in the context (error cases marked `framework`):
//! their statuses are known, they do not count as the code's error cases (the 400 of an
//! invalid input stays the framework's when the code names none), and their bodies are
//! the framework's, never the project's envelope.

use mastor::agents::normalize::{BundleIndex, normalize_single, rule};
use mastor::model::{
    EnvelopeOrigin, ErrorCase, ErrorEnvelope, ErrorField, ResponseSchema, SourceContext,
};
use serde_json::{Value, json};

const OP: &str = "GET /api/products/{id}";

fn case(status: u16, framework: Option<&str>) -> ErrorCase {
    ErrorCase {
        status,
        condition: "c".into(),
        framework: framework.map(str::to_string),
        ..Default::default()
    }
}

/// A context whose code returns 200 and 404 through a complete `ApiError` envelope,
/// plus `framework` cases.
fn ctx(framework: Vec<ErrorCase>) -> SourceContext {
    let mut error_cases = vec![case(404, None)];
    error_cases.extend(framework);
    SourceContext {
        op_id: OP.into(),
        error_envelopes: vec![ErrorEnvelope {
            name: "ApiErrorAdvice.notFound".into(),
            kind: "exception_handler".into(),
            fields: vec![ErrorField {
                name: "message".into(),
                ty: "string".into(),
                ..Default::default()
            }],
            origin: EnvelopeOrigin::Static,
            evidence_refs: vec![],
        }],
        request_params: vec![],
        response_schema: ResponseSchema {
            success_status: Some(200),
            fields: vec![],
            error_cases,
        },
        request_params_pending: vec![],
        response_schema_pending: vec![],
    }
}

fn oracle(id: &str, status: u16, extra: Vec<Value>) -> Value {
    let mut assertions = vec![json!({"type": "status", "expected": status})];
    assertions.extend(extra);
    json!({"test_id": id, "op_id": OP, "oracle_strategy": "fi",
           "input": {"path": {"id": "abc"}}, "assertions": assertions})
}

fn kept_and_aside(raw: Value, c: &SourceContext) -> (Vec<String>, Vec<String>) {
    let out = normalize_single(OP, &raw, Some(c), &BundleIndex::default());
    let ids = |v: &[mastor::model::Oracle]| v.iter().map(|o| o.test_id.clone()).collect();
    (ids(&out.kept), ids(&out.set_aside))
}

#[test]
fn a_framework_status_is_known_and_only_with_the_fact() {
    let raw = json!({"oracles": [oracle("fi_png", 406, vec![]), oracle("fi_put", 405, vec![])]});
    let without = ctx(vec![]);
    let (kept, aside) = kept_and_aside(raw.clone(), &without);
    assert_eq!(kept, Vec::<String>::new());
    assert_eq!(aside, vec!["fi_png", "fi_put"], "the code returns neither");
    let with = ctx(vec![
        case(406, Some("Spring MVC")),
        case(405, Some("Spring MVC")),
    ]);
    let (kept, aside) = kept_and_aside(raw, &with);
    assert_eq!(kept, vec!["fi_png", "fi_put"]);
    assert!(aside.is_empty());
}

#[test]
fn framework_cases_are_not_the_codes_error_cases() {
    // The code names no error case: an invalid input's 400 is the framework's conversion
    // error, framework facts or not.
    let mut only_framework = ctx(vec![case(405, Some("Spring MVC"))]);
    only_framework.response_schema.error_cases.remove(0);
    let raw = json!({"oracles": [oracle("fi_abc", 400, vec![])]});
    let (kept, _) = kept_and_aside(raw, &only_framework);
    assert_eq!(kept, vec!["fi_abc"]);
}

#[test]
fn a_framework_status_body_is_not_checked_against_the_envelope() {
    // `error` is not a field of the complete envelope: on the code's 404 that is a
    // contradiction, on the framework's 400 it is only unverified.
    let field = json!({"type": "field", "field_path": "error", "op": "not_null"});
    let c = ctx(vec![case(400, Some("Spring MVC"))]);
    let raw = json!({"oracles": [
        oracle("fi_missing_error", 404, vec![field.clone()]),
        oracle("fi_abc_error", 400, vec![field]),
    ]});
    let out = normalize_single(OP, &raw, Some(&c), &BundleIndex::default());
    let kept: Vec<&str> = out.kept.iter().map(|o| o.test_id.as_str()).collect();
    let aside: Vec<&str> = out.set_aside.iter().map(|o| o.test_id.as_str()).collect();
    assert_eq!(kept, vec!["fi_abc_error"]);
    assert_eq!(aside, vec!["fi_missing_error"]);
    assert!(
        out.flags
            .iter()
            .any(|f| f.rule == rule::UNVERIFIED_ERROR_FIELD && f.test_id == "fi_abc_error"),
        "{:?}",
        out.flags
    );
}
