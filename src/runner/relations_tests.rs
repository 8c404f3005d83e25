//! Tests of `runner::relations`: every relation op holding and violated, documented
//! statuses, and how metamorphic verdicts are reported.

use crate::model::{Exchange, MetamorphicTest, Outcome, Relation, RelationOp, StepVerdict};
use crate::runner::Plan;
use crate::runner::relations::*;
use serde_json::Value;
use serde_json::json;

fn ex(status: u16, body: Value) -> Exchange {
    Exchange {
        status: Some(status),
        response_body: body.to_string(),
        request_body: Some(json!({"status": "sold"})),
        ..Exchange::default()
    }
}

fn rel(left: &str, op: RelationOp, right: &str, value: Value) -> Relation {
    Relation {
        left: left.into(),
        op,
        right: right.into(),
        value,
    }
}

#[test]
fn every_op_holds_and_is_violated() {
    let seed = ex(
        200,
        json!({"items": [1, 2], "n": 2, "s": "abc", "o": {"a": 1}}),
    );
    let follow = ex(
        200,
        json!({"items": [1, 2, 3], "n": "3", "s": "abcd", "o": {"a": 2}}),
    );
    let s = [Some(&seed)];
    let f = [Some(&follow)];
    let cases = [
        (
            rel(
                "seed[0].n",
                RelationOp::Equals,
                "follow_up[0].n",
                Value::Null,
            ),
            false,
        ),
        (rel("seed[0].n", RelationOp::Equals, "", json!("2")), true),
        (
            rel(
                "seed[0].n",
                RelationOp::NotEquals,
                "follow_up[0].n",
                Value::Null,
            ),
            true,
        ),
        (
            rel("follow_up[0].items", RelationOp::Contains, "", json!(3)),
            true,
        ),
        (
            rel("seed[0].items", RelationOp::Contains, "", json!(3)),
            false,
        ),
        (
            rel("seed[0].items", RelationOp::NotContains, "", json!(3)),
            true,
        ),
        (
            rel(
                "seed[0].items",
                RelationOp::Subset,
                "follow_up[0].items",
                Value::Null,
            ),
            true,
        ),
        (
            rel(
                "follow_up[0].items",
                RelationOp::Subset,
                "seed[0].items",
                Value::Null,
            ),
            false,
        ),
        (
            rel(
                "seed[0].items",
                RelationOp::CountDiff,
                "follow_up[0].items",
                json!(1),
            ),
            true,
        ),
        (
            rel(
                "seed[0].items",
                RelationOp::CountDiff,
                "follow_up[0].items",
                json!(2),
            ),
            false,
        ),
        (
            rel(
                "follow_up[0].n",
                RelationOp::Greater,
                "seed[0].n",
                Value::Null,
            ),
            true,
        ),
        (
            rel("follow_up[0].n", RelationOp::Less, "seed[0].n", Value::Null),
            false,
        ),
        (
            rel(
                "seed[0].o",
                RelationOp::SameShape,
                "follow_up[0].o",
                Value::Null,
            ),
            true,
        ),
        (
            rel(
                "seed[0]",
                RelationOp::SameShape,
                "follow_up[0].o",
                Value::Null,
            ),
            false,
        ),
        (
            rel("follow_up[0].status", RelationOp::Equals, "", json!(200)),
            true,
        ),
        (
            rel(
                "follow_up[0].request.body.status",
                RelationOp::Equals,
                "",
                json!("sold"),
            ),
            true,
        ),
    ];
    for (i, (r, want)) in cases.iter().enumerate() {
        let v = evaluate(i, r, &s, &f);
        let expected = if *want {
            RelationOutcome::Holds
        } else {
            RelationOutcome::Violated
        };
        assert_eq!(v.outcome, expected, "case {i}: {r:?} -> {v:?}");
    }
    let missing = evaluate(
        0,
        &rel("seed[0].gone", RelationOp::Equals, "", json!(1)),
        &s,
        &f,
    );
    assert_eq!(missing.outcome, RelationOutcome::Unresolved);
    assert!(missing.message.contains("gone"), "{}", missing.message);
}

#[test]
fn verdicts_tell_violation_from_execution_failure() {
    let mr = |outcome, reason: &str, relations| MrVerdict {
        o_id: "mr#t".into(),
        test_id: "t".into(),
        outcome,
        reason: reason.into(),
        requests: 1,
        steps: vec![StepVerdict {
            op_id: "GET /pets".into(),
            outcome: Outcome::Pass,
            assertions: vec![],
            exchange: None,
            message: String::new(),
        }],
        relations,
    };
    let violated = RelationVerdict {
        index: 0,
        outcome: RelationOutcome::Violated,
        left: json!(1),
        right: json!(2),
        message: "seed[0].n equals 2 does not hold".into(),
    };
    let v = mr(MrOutcome::RelationViolated, "relation 1: x", vec![violated])
        .into_verdict("at".into(), "http://h".into());
    assert_eq!(v.o_id, "mr#t");
    assert_eq!(v.outcome, Outcome::Fail);
    let last = v.steps.last().expect("relations step");
    assert_eq!(last.op_id, RELATIONS_STEP);
    assert_eq!(last.message, "relation violated: relation 1: x");
    assert_eq!(last.assertions[0].actual, json!(1));
    assert_eq!(last.assertions[0].expected, json!(2));
    assert_eq!(
        crate::runner::report::first_failure(&v).as_deref(),
        Some("relation violated: relation 1: x")
    );
    let v = mr(
        MrOutcome::ExecutionFailed,
        "seed[0] (GET /pets): server error 500",
        vec![],
    )
    .into_verdict("at".into(), "http://h".into());
    assert_eq!(v.outcome, Outcome::Error);
    assert!(
        crate::runner::report::oracle_line(&v)
            .contains("execution failed: seed[0] (GET /pets): server error 500")
    );
    let v = mr(MrOutcome::Passed, "", vec![]).into_verdict("at".into(), "h".into());
    assert_eq!(v.outcome, Outcome::Pass);
    assert_eq!(crate::runner::report::oracle_line(&v), "✓ mr#t");
}

#[test]
fn writes_of_metamorphic_steps_are_refused_off_loopback() {
    let t: MetamorphicTest = serde_json::from_value(json!({
        "test_id": "t",
        "seed": [{"op_id": "GET /pets"}],
        "follow_up": [{"op_id": "DELETE /pets/{id}", "input": {"path": {"id": 1}}}],
        "relations": [{"left": "seed[0].status", "op": "equals", "value": 200}]
    }))
    .expect("test");
    let plan = Plan {
        metamorphic: vec![t],
        ..Plan::default()
    };
    let remote = crate::runner::parse_base_url("http://api.example.com").expect("url");
    let err = crate::runner::check_write_safety(&plan, &remote, false).expect_err("refused");
    assert!(err.to_string().contains("DELETE /pets/{id}"), "{err}");
    assert!(crate::runner::check_write_safety(&plan, &remote, true).is_ok());
}

#[test]
fn documented_statuses_match_ranges_and_default() {
    let keys = vec!["200".to_string(), "4XX".to_string()];
    assert!(is_documented(200, &keys));
    assert!(is_documented(404, &keys));
    assert!(!is_documented(201, &keys));
    assert!(is_documented(201, &["default".to_string()]));
}
