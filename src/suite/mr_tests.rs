//! Metamorphic tests as suite members: loading, selection, and session edits.

use super::*;
use crate::model::{Decision, MetamorphicTest, ReviewDecision};
use crate::store::{Manifest, Session};
use serde_json::json;

fn mr(test_id: &str) -> Value {
    json!({
        "test_id": test_id,
        "scenario": "status change is visible",
        "seed": [{"op_id": "POST /pets", "input": {"body": {"name": "a"}}, "captures": {"id": "id"}}],
        "follow_up": [{"op_id": "GET /pets/{petId}", "input": {"path": {"petId": "$captures.id"}}}],
        "relations": [{"left": "follow_up[0].body.id", "op": "equals", "right": "seed[0].body.id"}]
    })
}

#[test]
fn suite_files_load_metamorphic_tests_and_report_bad_ones() {
    let mut bad_relation = mr("bad_relation");
    bad_relation["relations"][0]["left"] = json!("elsewhere[0].id");
    let mut no_follow_up = mr("no_follow_up");
    no_follow_up["follow_up"] = json!([]);
    let mut unbound = mr("unbound");
    unbound["follow_up"][0]["input"]["path"]["petId"] = json!("$captures.nope");
    let loaded = from_value(
        json!({"schema_version": 1, "metamorphic": [mr("ok"), bad_relation, no_follow_up,
               unbound, mr("ok"), "not an object"]}),
        Path::new("s.json"),
    )
    .expect("loads");
    assert_eq!(loaded.format, SuiteFormat::Suite);
    let ids: Vec<&str> = loaded
        .suite
        .metamorphic
        .iter()
        .map(|t| t.test_id.as_str())
        .collect();
    assert_eq!(ids, ["ok"]);
    let problems: Vec<String> = loaded.problems.iter().map(ToString::to_string).collect();
    assert_eq!(problems.len(), 5, "{problems:#?}");
    assert!(problems[0].contains("metamorphic[1]") && problems[0].contains("elsewhere"));
    assert!(problems[1].contains("(test_id no_follow_up)") && problems[1].contains("follow_up"));
    assert!(problems[2].contains("follow_up[0]") && problems[2].contains("nope"));
    assert!(problems[3].contains("duplicate o_id `mr#ok`"));
    assert!(problems[4].contains("metamorphic[5]"));
}

#[test]
fn select_keeps_metamorphic_tests_by_state_and_any_step_op() {
    let mut suite = from_value(
        json!({"metamorphic": [mr("a"), mr("b")], "review": {"mr#a": "accepted", "mr#b": "rejected"}}),
        Path::new("s.json"),
    )
    .expect("loads")
    .suite;
    let plan = select(&suite, Only::Accepted, &[]).expect("plan");
    assert_eq!(plan.metamorphic.len(), 1);
    assert_eq!(plan.metamorphic[0].test_id, "a");
    assert!(!plan.is_empty());
    // A follow-up step's operation selects the test; another operation does not.
    let plan = select(&suite, Only::All, &["get /pets/{petId}".into()]).expect("plan");
    assert_eq!(plan.metamorphic.len(), 2);
    suite.oracles.push(
        serde_json::from_value(json!({"test_id": "x", "op_id": "GET /stats",
                                      "assertions": [{"type": "status", "expected": 200}]}))
        .expect("oracle"),
    );
    let plan = select(&suite, Only::All, &["GET /stats".into()]).expect("plan");
    assert!(plan.metamorphic.is_empty());
    assert_eq!(plan.oracles.len(), 1);
    let err = select(&suite, Only::All, &["GET /nope".into()]).expect_err("unknown op");
    assert!(err.contains("POST /pets"), "known ops listed: {err}");
}

#[test]
fn session_applies_valid_metamorphic_edits_and_names_invalid_ones() {
    let dir = tempfile::tempdir().expect("tempdir");
    let session = Session::create(dir.path(), Manifest::new("", "")).expect("session");
    let tests: Vec<MetamorphicTest> = ["edited_ok", "edited_bad", "edited_garbage"]
        .iter()
        .map(|id| serde_json::from_value(mr(id)).expect("test"))
        .collect();
    let suite = SuiteFile {
        metamorphic: tests.clone(),
        ..SuiteFile::default()
    };
    session::write(&session, &suite).expect("write");

    let mut good = tests[0].clone();
    good.relations[0].op = crate::model::RelationOp::NotEquals;
    let mut bad = tests[1].clone();
    bad.relations[0].right = "follow_up[7].body.id".into();
    let decide = |o_id: String, edited: Value| ReviewDecision {
        o_id,
        decision: Decision::Edited,
        edited: Some(edited),
        note: None,
        at: "2026-12-02T00:00:00Z".into(),
        step: None,
    };
    for d in [
        decide(good.o_id(), serde_json::to_value(&good).expect("json")),
        decide(bad.o_id(), serde_json::to_value(&bad).expect("json")),
        decide(
            tests[2].o_id(),
            json!({"test_id": "edited_garbage", "seed": 3}),
        ),
    ] {
        session.append_decision(&d).expect("decision");
    }

    let read = session::read(&session).expect("read");
    let by_id = |id: &str| {
        read.suite
            .metamorphic
            .iter()
            .find(|t| t.test_id == id)
            .expect("test present")
    };
    assert_eq!(by_id("edited_ok"), &good, "a valid edit is applied");
    assert_eq!(
        by_id("edited_bad"),
        &tests[1],
        "an invalid edit keeps the original"
    );
    assert_eq!(by_id("edited_garbage"), &tests[2]);
    assert_eq!(read.problems.len(), 2, "{:#?}", read.problems);
    assert!(read.problems[0].starts_with("mr#edited_bad: the edited version is not valid"));
    assert!(read.problems[0].contains("follow_up[7] does not exist"));
    assert!(read.problems[1].starts_with("mr#edited_garbage: the edited version does not parse"));
    assert_eq!(read.suite.review["mr#edited_ok"], ReviewState::Edited);
    let plan = select(&read.suite, Only::Accepted, &[]).expect("plan");
    assert_eq!(plan.metamorphic.len(), 3);
}
