//! Metamorphic tests against the live petstore-jdk fixture: a hand-written relation
//! (create a pet, change its status, read it back: the read shows the new status) finds
//! the fixture's stale-status bug and passes without it; a 404 in a seed step is an
//! execution failure, not a relation violation.

use crate::export_common;

use export_common::FixtureApi;

use mastor::metamorphic::check::{SpecView, parse_candidate};
use mastor::runner::RunConfig;
use mastor::runner::relations::{MrOutcome, run_metamorphic};
use serde_json::{Value, json};
use std::path::Path;

fn spec() -> SpecView {
    let loaded = mastor::spec::load(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/petstore-jdk/openapi.json"),
    )
    .expect("spec loads");
    SpecView::new(&loaded.operations)
}

/// Create → change status → read: the read shows the new status.
pub fn status_change_visible() -> Value {
    json!({
        "test_id": "status_change_visible",
        "scenario": "Updating a pet's status is observable when reading that pet",
        "given": "a pet created with status available",
        "when": "its status is changed to sold and the pet is read again",
        "then": "the read shows status sold, as the status response did",
        "seed": [{"op_id": "POST /pets", "input": {"body": {"name": "Mr Meta", "status": "available"}},
                  "captures": {"id": "id"}, "assertions": [{"type": "status", "expected": 201}]}],
        "follow_up": [
            {"op_id": "POST /pets/{petId}/status", "input": {"path": {"petId": "$captures.id"}, "body": {"status": "sold"}},
             "assertions": [{"type": "status", "expected": 200}]},
            {"op_id": "GET /pets/{petId}", "input": {"path": {"petId": "$captures.id"}}}
        ],
        "relations": [
            {"left": "follow_up[1].body.status", "op": "equals", "right": "follow_up[0].request.body.status"},
            {"left": "follow_up[1].body.status", "op": "not_equals", "right": "seed[0].body.status"},
            {"left": "follow_up[1].body.id", "op": "equals", "right": "seed[0].body.id"}
        ]
    })
}

async fn run_one(url: &str, raw: &Value) -> mastor::runner::relations::MrVerdict {
    run_with(url, raw, &spec().documented()).await
}

async fn run_with(
    url: &str,
    raw: &Value,
    documented: &mastor::runner::relations::Documented,
) -> mastor::runner::relations::MrVerdict {
    let spec = spec();
    let t = parse_candidate(raw, "t1").expect("candidate parses");
    assert!(
        mastor::metamorphic::check::spec_problems(&t, &spec).is_empty(),
        "{:?}",
        mastor::metamorphic::check::spec_problems(&t, &spec)
    );
    let cfg = RunConfig {
        base_url: url.to_string(),
        ..RunConfig::default()
    };
    let mut v = run_metamorphic(&[t], &cfg, documented)
        .await
        .expect("run starts");
    v.remove(0)
}

#[tokio::test]
async fn stale_status_bug_is_a_relation_violation_and_passes_without_it() {
    let state = tempfile::tempdir().unwrap();
    let buggy = FixtureApi::start_with(&state.path().join("buggy"), Some(true));
    let v = run_one(&buggy.base_url, &status_change_visible()).await;
    assert_eq!(v.outcome, MrOutcome::RelationViolated, "{v:#?}");
    assert!(v.reason.starts_with("relation 1"), "{}", v.reason);
    assert_eq!(v.requests, 3);
    assert_eq!(v.relations[0].left, json!("available"));
    assert_eq!(v.relations[0].right, json!("sold"));
    drop(buggy);

    let fine = FixtureApi::start_with(&state.path().join("fine"), Some(false));
    let v = run_one(&fine.base_url, &status_change_visible()).await;
    assert_eq!(v.outcome, MrOutcome::Passed, "{v:#?}");
    assert_eq!(v.relations.len(), 3);

    // A seed that reads a pet that does not exist fails before any relation is checked.
    let mut missing = status_change_visible();
    missing["seed"] = json!([{"op_id": "GET /pets/{petId}", "input": {"path": {"petId": 999999}},
                              "captures": {"id": "id"}}]);
    let v = run_one(&fine.base_url, &missing).await;
    assert_eq!(v.outcome, MrOutcome::ExecutionFailed, "{v:#?}");
    assert!(v.relations.is_empty());
    assert!(v.reason.contains("capture"), "{}", v.reason);

    // A status the spec does not document is a contract failure.
    let mut stats = status_change_visible();
    stats["follow_up"][1] = json!({"op_id": "GET /stats"});
    stats["relations"] = json!([{"left": "follow_up[1].total", "op": "greater", "value": 0}]);
    let v = run_one(&fine.base_url, &stats).await;
    assert_eq!(v.outcome, MrOutcome::Passed, "{v:#?}");
    let mut documented = spec().documented();
    documented.insert("GET /stats".into(), vec!["201".into()]);
    let v = run_with(&fine.base_url, &stats, &documented).await;
    assert_eq!(v.outcome, MrOutcome::ExecutionFailed, "{v:#?}");
    assert!(v.reason.contains("not documented"), "{}", v.reason);
}
