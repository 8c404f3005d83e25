//! Property-style checks over seeded random model answers: normalization never panics,
//! its report adds up, and normalizing its own output again changes nothing.

use mastor::agents::normalize::{
    BundleIndex, KnownOps, NormalizeOutcome, normalize_multi, normalize_single, rule,
};
use mastor::model::{ContextField, ErrorCase, ResponseSchema, SourceContext};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use serde_json::{Map, Value, json};
use std::collections::HashMap;

const OPS: [&str; 3] = ["POST /pets", "GET /pets/{id}", "GET /dogs"];
const KEYS: [&str; 24] = [
    "test_id",
    "op_id",
    "oracle_strategy",
    "input",
    "assertions",
    "type",
    "expected",
    "field_path",
    "op",
    "path",
    "query",
    "body",
    "headers",
    "cookie",
    "steps",
    "captures",
    "evidence",
    "evidence_refs",
    "file",
    "start_line",
    "end_line",
    "id",
    "name",
    "oracles",
];
const STRINGS: [&str; 16] = [
    "status",
    "field",
    "fv",
    "fi",
    "bv",
    "bi",
    "xx",
    "equals",
    "not_null",
    "matches",
    "[",
    "name",
    "id",
    "$captures.pid",
    "GET /pets/{id}",
    "src/A.java",
];

fn leaf(rng: &mut StdRng) -> Value {
    match rng.random_range(0..5) {
        0 => Value::Null,
        1 => json!(rng.random_bool(0.5)),
        2 => json!(rng.random_range(-5..700)),
        3 => json!(OPS[rng.random_range(0..OPS.len())]),
        _ => json!(STRINGS[rng.random_range(0..STRINGS.len())]),
    }
}

fn value(rng: &mut StdRng, depth: u32) -> Value {
    if depth == 0 || rng.random_bool(0.3) {
        return leaf(rng);
    }
    if rng.random_bool(0.35) {
        let n = rng.random_range(0..4);
        Value::Array((0..n).map(|_| value(rng, depth - 1)).collect())
    } else {
        let n = rng.random_range(0..6);
        let mut m = Map::new();
        for _ in 0..n {
            m.insert(
                KEYS[rng.random_range(0..KEYS.len())].to_string(),
                value(rng, depth - 1),
            );
        }
        Value::Object(m)
    }
}

/// A mostly well-formed oracle with random damage, so that many survive.
fn oracle_like(rng: &mut StdRng) -> Value {
    let status = [200, 201, 404, 400][rng.random_range(0..4)];
    let mut o = json!({
        "test_id": format!("t{}", rng.random_range(0..6)),
        "oracle_strategy": STRINGS[rng.random_range(2..7)],
        "input": {"path": {"id": rng.random_range(0..3)}},
        "assertions": [{"type": "status", "expected": status},
                       {"type": "field", "field_path": STRINGS[rng.random_range(10..13)], "op": "not_null"}],
        "evidence_refs": [{"file": "src/A.java", "start_line": 1, "end_line": rng.random_range(0..12)}],
        "steps": [
            {"op_id": OPS[rng.random_range(0..3)], "captures": {"pid": "id"},
             "assertions": [{"type": "status", "expected": 201}]},
            {"op_id": "GET /pets/{id}", "input": {"path": {"id": "$captures.pid"}},
             "assertions": [{"type": "status", "expected": 200}]}
        ]
    });
    if let Value::Object(m) = &mut o {
        for _ in 0..rng.random_range(0..3) {
            let k = KEYS[rng.random_range(0..KEYS.len())];
            m.insert(k.to_string(), value(rng, 2));
        }
    }
    o
}

fn ctx(op: &str) -> SourceContext {
    SourceContext {
        op_id: op.into(),
        error_envelopes: vec![],
        request_params: vec![],
        response_schema: ResponseSchema {
            success_status: Some(200),
            fields: vec![ContextField {
                name: "id".into(),
                ty: "integer".into(),
                nullable: false,
            }],
            error_cases: vec![ErrorCase {
                status: 404,
                condition: "missing".into(),
                ..Default::default()
            }],
        },
        request_params_pending: vec![],
        response_schema_pending: vec![],
    }
}

/// Every rule that fired left a trace: a dropped entry or a flag (except the two
/// silently counted id fills).
fn report_adds_up<T>(out: &NormalizeOutcome<T>, input: &Value) {
    for (r, n) in &out.counts {
        if r == rule::MISSING_OP_ID || r == rule::MISSING_GROUP_ID {
            continue;
        }
        let traces = out.dropped.iter().filter(|d| &d.rule == r).count()
            + out.flags.iter().filter(|f| &f.rule == r).count();
        assert_eq!(*n, traces, "rule {r} on {input}");
    }
    assert!(out.dropped.iter().all(|d| !d.reason.is_empty()), "{input}");
}

#[test]
fn random_answers_never_panic_and_normalize_idempotently() {
    let mut rng = StdRng::seed_from_u64(0x6d61_7374);
    let bundle = BundleIndex::from_files([("src/A.java", 10)]);
    let contexts: HashMap<String, SourceContext> =
        OPS.iter().map(|op| (op.to_string(), ctx(op))).collect();
    let known = KnownOps::from_op_ids(&OPS[..2]);
    let context = ctx("GET /pets/{id}");
    let (mut kept_single, mut kept_multi) = (0, 0);
    for round in 0..400 {
        let raw = match round % 4 {
            0 => value(&mut rng, 5),
            1 => json!({"oracles": [value(&mut rng, 4), oracle_like(&mut rng)]}),
            _ => Value::Array(
                (0..rng.random_range(0..5))
                    .map(|_| oracle_like(&mut rng))
                    .collect(),
            ),
        };
        let single = normalize_single("GET /pets/{id}", &raw, Some(&context), &bundle);
        report_adds_up(&single, &raw);
        let again = normalize_single(
            "GET /pets/{id}",
            &serde_json::to_value(&single.kept).unwrap(),
            Some(&context),
            &bundle,
        );
        assert_eq!(again.kept, single.kept, "single, input {raw}");
        assert!(again.dropped.is_empty(), "single, input {raw}");
        let aside = normalize_single(
            "GET /pets/{id}",
            &serde_json::to_value(&single.set_aside).unwrap(),
            Some(&context),
            &bundle,
        );
        assert_eq!(aside.set_aside, single.set_aside, "single, input {raw}");
        assert!(aside.kept.is_empty(), "single, input {raw}");
        kept_single += single.kept.len() + single.set_aside.len();

        let multi = normalize_multi("g", &raw, &contexts, &known, &bundle);
        report_adds_up(&multi, &raw);
        let again = normalize_multi(
            "g",
            &serde_json::to_value(&multi.kept).unwrap(),
            &contexts,
            &known,
            &bundle,
        );
        assert_eq!(again.kept, multi.kept, "multi, input {raw}");
        assert!(again.dropped.is_empty(), "multi, input {raw}");
        kept_multi += multi.kept.len() + multi.set_aside.len();
    }
    // The generator must exercise the keep path too (kept or set aside as restorable),
    // not only rejections.
    assert!(
        kept_single > 50 && kept_multi > 20,
        "{kept_single} {kept_multi}"
    );
}
