//! One test per contradiction a strong model reported in our prompts: for each, the
//! prompt text and the code that acts on the answer say the same thing.

use mastor::agents::challenge::{merge, targets};
use mastor::agents::normalize::{BundleIndex, normalize_single, rule};
use mastor::model::{Assertion, FieldOp, Hint, HintDimension, HintOrigin, Oracle};
use mastor::prompts::Prompts;
use serde_json::{Value, json};

/// Every prompt that writes or reviews oracles, with the placeholders it needs.
const WRITERS: [&str; 4] = [
    "single_op",
    "single_op_regenerate",
    "multi_op",
    "multi_op_regenerate",
];
const REVIEWERS: [&str; 2] = ["single_op_challenger", "multi_op_challenger"];

fn system(name: &str) -> String {
    let vars = [
        "bundle",
        "seed_data",
        "op_id",
        "context",
        "contexts",
        "oracles",
        "mutation",
        "flagged",
        "existing",
        "hints",
        "group_id",
        "pattern",
        "sequence",
        "cited",
    ];
    let filled: Vec<(&str, &str)> = vars.iter().map(|v| (*v, "")).collect();
    Prompts::embedded()
        .render(name, &filled)
        .unwrap_or_else(|e| panic!("{name}: {e}"))
        .system
}

fn oracle(id: &str, strategy: &str, assertions: Value) -> Value {
    json!({"test_id": id, "oracle_strategy": strategy, "assertions": assertions})
}

/// "A 204 has no body: assert the status only" fought "fv and bv need a field assertion",
/// and normalization dropped the status-only oracle. Now there is one form.
#[test]
fn a_bodiless_status_has_one_form_in_prompts_and_normalization() {
    let form = r#"{"type": "field", "field_path": "", "op": "is_null", "expected": null}"#;
    for name in WRITERS.iter().chain(&REVIEWERS) {
        let text = system(name);
        assert!(text.contains(form), "{name} states the no-body form");
        assert!(!text.contains("assert the status only"), "{name}");
    }
    let raw = json!([
        oracle(
            "fv_delete",
            "fv",
            json!([{"type": "status", "expected": 204}])
        ),
        json!({"test_id": "bv_delete", "oracle_strategy": "bv", "input": {"path": {"id": 3}},
            "assertions": [{"type": "status", "expected": 204},
            serde_json::from_str::<Value>(form).unwrap()]}),
        oracle("fv_get", "fv", json!([{"type": "status", "expected": 200}]))
    ]);
    let out = normalize_single("DELETE /pets/{id}", &raw, None, &BundleIndex::default());
    let kept: Vec<&str> = out.kept.iter().map(|o| o.test_id.as_str()).collect();
    assert_eq!(kept, ["fv_delete", "bv_delete"]);
    let no_body = Assertion::Field {
        field_path: String::new(),
        op: FieldOp::IsNull,
        expected: Value::Null,
    };
    assert!(out.kept.iter().all(|o| o.assertions.contains(&no_body)));
    assert_eq!(out.count(rule::NO_BODY_ADDED), 1);
    // A 200 still needs a field assertion.
    assert_eq!(out.dropped[0].rule, rule::NO_FIELD_FV_BV);
}

/// "At least three distinct valid inputs" is impossible with one deletable record.
#[test]
fn valid_inputs_are_as_many_as_the_data_allows() {
    for name in ["single_op", "single_op_regenerate", "single_op_challenger"] {
        let text = system(name);
        assert!(!text.contains("at least three"), "{name}");
        assert!(
            text.contains("as many as the data allows, up to three"),
            "{name}"
        );
    }
    let generator = system("single_op");
    assert!(generator.contains("let an earlier writing oracle of this suite create the record"));
}

/// The execution model is stated once, in code, and every writer and reviewer reads it.
#[test]
fn every_generator_and_challenger_states_the_one_execution_model() {
    for name in WRITERS.iter().chain(&REVIEWERS) {
        assert!(
            system(name).contains(mastor::execution::PROMPT_TEXT),
            "{name} states the execution model"
        );
    }
    // It answers the two questions the old wording left open.
    let text = mastor::execution::PROMPT_TEXT;
    assert!(text.contains("a\n  fresh_state oracle sees what earlier fresh_state oracles changed"));
    assert!(text.contains("across all operations"));
}

/// A revision request is sent on its own: "same rules as before" pointed at nothing.
#[test]
fn revision_prompts_are_self_contained() {
    for (revise, first) in [
        ("single_op_regenerate", "single_op"),
        ("multi_op_regenerate", "multi_op"),
    ] {
        let r = system(revise);
        assert!(!r.contains("as before"), "{revise}");
        let rules = if first == "single_op" {
            "single_op_rules"
        } else {
            "multi_op_rules"
        };
        let part = Prompts::embedded()
            .partial(rules)
            .unwrap()
            .trim_end()
            .to_string();
        // The budget placeholder is filled, so compare the part's first paragraph.
        let head: String = part.lines().take(3).collect::<Vec<_>>().join("\n");
        let head = head.as_str();
        assert!(r.contains(head), "{revise} carries {rules}");
        assert!(system(first).contains(head));
        let prompts = Prompts::embedded();
        let format = prompts.partial("oracle_format").unwrap().trim_end();
        assert!(r.contains(format) && system(first).contains(format));
    }
}

/// `[*]` with contains or not_equals, and where revised and new oracles go, are defined.
#[test]
fn undefined_forms_are_defined_in_the_format_and_in_code() {
    let prompts = Prompts::embedded();
    let format = prompts.partial("oracle_format").unwrap();
    assert!(format.contains("holds when the op holds for EVERY element"));
    assert!(format.contains(r#""[*].id" not_equals 7 means no item has id 7"#));
    // The runner agrees: every element, at least one.
    use mastor::oracle::assert::{Response, evaluate};
    let resp = |body: &str| Response {
        status: 200,
        json: serde_json::from_str(body).map_err(|e| e.to_string()),
        text: body.to_string(),
    };
    let a = |path: &str, op: FieldOp, v: Value| Assertion::Field {
        field_path: path.into(),
        op,
        expected: v,
    };
    let pets = resp(r#"[{"id": 1, "tags": ["x", "y"]}, {"id": 2, "tags": ["x"]}]"#);
    let pass =
        |r: &Response, x: &Assertion| evaluate(0, x, r).outcome == mastor::model::Outcome::Pass;
    assert!(pass(&pets, &a("[*].tags", FieldOp::Contains, json!("x"))));
    assert!(!pass(&pets, &a("[*].tags", FieldOp::Contains, json!("y"))));
    assert!(pass(&pets, &a("[*].id", FieldOp::NotEquals, json!(7))));
    assert!(!pass(&pets, &a("[*].id", FieldOp::NotEquals, json!(2))));
    assert!(!pass(
        &resp("[]"),
        &a("[*].id", FieldOp::NotEquals, json!(7))
    ));
    // Revised oracles keep their place; new ones go after the existing ones.
    assert!(mastor::execution::PROMPT_TEXT.contains("Revised oracles keep their place"));
    let o = |id: &str, s: u16| -> Oracle {
        serde_json::from_value(json!({"test_id": id, "op_id": "GET /a",
            "assertions": [{"type": "status", "expected": s}]}))
        .unwrap()
    };
    let hint = |id: &str| Hint {
        test_id: id.into(),
        dimension: HintDimension::CoverageGaps,
        text: "x".into(),
        origin: HintOrigin::Challenger,
        affects: vec![],
    };
    let r = merge(
        &[o("a", 200), o("b", 400)],
        &[hint("a"), hint("suite")],
        vec![o("new", 404), o("a", 201)],
    );
    let order: Vec<&str> = r.suite.iter().map(|x| x.test_id.as_str()).collect();
    assert_eq!(order, ["a", "b", "new"]);
}

/// Flagging by mention flagged oracles nothing asked to change, and missed "all 21
/// others". Now: the target plus `affects`, and the prompts say so.
#[test]
fn hints_flag_exactly_their_target_and_affects() {
    for name in ["single_op_regenerate", "multi_op_regenerate"] {
        let text = system(name);
        assert!(text.contains(r#"the ids it lists in "affects""#), "{name}");
        assert!(!text.contains("inside the text of a"), "{name}");
    }
    for name in REVIEWERS {
        assert!(
            system(name).contains(
                r#"list exactly
those ids in "affects""#
            ) || system(name).contains(r#"list exactly those ids in "affects""#),
            "{name}"
        );
    }
    let o = |id: &str| -> Oracle {
        serde_json::from_value(json!({"test_id": id, "op_id": "GET /a",
            "assertions": [{"type": "status", "expected": 400}]}))
        .unwrap()
    };
    let suite = [o("fi_1"), o("fi_2"), o("fv_1")];
    let hint = Hint {
        test_id: "suite".into(),
        dimension: HintDimension::AssertionCorrectness,
        text: "like fv_1, every 400 oracle should assert the error body".into(),
        origin: HintOrigin::Challenger,
        affects: vec!["fi_1".into(), "fi_2".into()],
    };
    let t = targets(&suite, &[hint]);
    assert_eq!(t, ["fi_1".to_string(), "fi_2".to_string()].into());
}

/// A deterministic hint asks only for what the format can express and the context makes
/// reachable; the answer budget is stated.
#[test]
fn quadrant_hints_and_the_budget_are_honest() {
    let ctx: mastor::model::SourceContext = serde_json::from_value(json!({
        "op_id": "GET /pets/{id}",
        "request_params": [{"name": "id", "location": "path", "type": "long",
                            "constraints": ["a signed 64-bit integer"]}],
        "response_schema": {"success_status": 200, "fields": [],
            "error_cases": [{"status": 500, "condition": "store down"}]}}))
    .unwrap();
    let fv: Oracle = serde_json::from_value(json!({"test_id": "fv", "op_id": "GET /pets/{id}",
        "oracle_strategy": "fv", "assertions": [{"type": "status", "expected": 200}]}))
    .unwrap();
    let hints = mastor::agents::quadrants::hints(&ctx, &[fv]);
    assert!(hints.is_empty(), "no 500 and no id-range hint: {hints:?}");
    for name in ["single_op", "single_op_regenerate", "multi_op"] {
        assert!(
            system(name).contains("Your answer has a budget of"),
            "{name}"
        );
    }
}
