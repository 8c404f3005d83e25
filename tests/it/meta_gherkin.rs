//! The exported Gherkin suite runs with `behave` against the live fixture and gives the
//! same outcomes as mastor's own run: the stale-status relation is violated with the
//! fixture's bug on and holds with it off; a seed that reads a missing pet is an
//! execution failure in both.

use crate::export_common;

use export_common::FixtureApi;

use mastor::export::gherkin::export_gherkin_with;
use mastor::metamorphic::check::{SpecView, parse_candidate};
use mastor::model::MetamorphicTest;
use mastor::runner::RunConfig;
use mastor::runner::relations::run_metamorphic;
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn tests() -> Vec<MetamorphicTest> {
    let visible = json!({
        "test_id": "status_change_visible",
        "scenario": "Updating a pet's status is observable when reading that pet",
        "given": "a pet created with status \"available\"",
        "when": "its status is changed to sold and the pet is read again",
        "then": "the read shows status sold",
        "seed": [{"op_id": "POST /pets", "input": {"body": {"name": "Gherkin", "status": "available"}},
                  "captures": {"id": "id"}, "assertions": [{"type": "status", "expected": 201}]}],
        "follow_up": [
            {"op_id": "POST /pets/{petId}/status", "input": {"path": {"petId": "$captures.id"}, "body": {"status": "sold"}}},
            {"op_id": "GET /pets/{petId}", "input": {"path": {"petId": "$captures.id"}}}],
        "relations": [
            {"left": "follow_up[1].body.status", "op": "equals", "right": "follow_up[0].request.body.status"},
            {"left": "follow_up[1].body", "op": "same_shape", "right": "seed[0].body"}]
    });
    let missing = json!({
        "test_id": "missing_pet_read", "scenario": "Reading a missing pet twice",
        "seed": [{"op_id": "GET /pets/{petId}", "input": {"path": {"petId": 987654}}, "captures": {"name": "name"}}],
        "follow_up": [{"op_id": "GET /pets"}],
        "relations": [{"left": "follow_up[0].body[*].name", "op": "contains", "right": "seed[0].body.name"}]
    });
    let count = json!({
        "test_id": "create_adds_one", "scenario": "Creating a pet adds exactly one to the total",
        "seed": [{"op_id": "GET /stats"}],
        "follow_up": [{"op_id": "POST /pets", "input": {"body": {"name": "Counted"}}},
                      {"op_id": "GET /stats"}],
        "relations": [{"left": "seed[0].body.total", "op": "count_diff", "right": "follow_up[1].body.total", "value": 1}]
    });
    [visible, missing, count]
        .iter()
        .map(|v| parse_candidate(v, "t").expect("parses"))
        .collect()
}

fn behave() -> PathBuf {
    let out = Command::new("bash")
        .arg(root().join("scripts/behave-venv.sh"))
        .stderr(Stdio::inherit())
        .output()
        .expect("run behave-venv.sh");
    assert!(out.status.success(), "behave venv could not be created");
    PathBuf::from(
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .last()
            .unwrap_or_default()
            .trim(),
    )
}

/// test_id → outcome, from mastor's runner.
async fn mastor_outcomes(
    url: &str,
    tests: &[MetamorphicTest],
    spec: &SpecView,
) -> Vec<(String, String)> {
    let cfg = RunConfig {
        base_url: url.into(),
        ..RunConfig::default()
    };
    let verdicts = run_metamorphic(tests, &cfg, &spec.documented())
        .await
        .expect("runs");
    verdicts
        .iter()
        .map(|v| {
            (
                v.test_id.clone(),
                serde_json::to_value(v.outcome)
                    .unwrap()
                    .as_str()
                    .unwrap()
                    .to_string(),
            )
        })
        .collect()
}

/// test_id → outcome, from behave on the exported suite.
fn behave_outcomes(behave: &Path, url: &str, dir: &Path) -> Vec<(String, String)> {
    let results = dir.join("results.jsonl");
    let _ = std::fs::remove_file(&results);
    let out = Command::new(behave)
        .arg(dir.join("features"))
        .args(["--no-capture", "-f", "plain"])
        .arg("-D")
        .arg(format!("base_url={url}"))
        .arg("-D")
        .arg(format!("results={}", results.display()))
        .output()
        .expect("run behave");
    let text = std::fs::read_to_string(&results).unwrap_or_else(|e| {
        panic!(
            "no results ({e}); behave said:\n{}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    });
    text.lines()
        .map(|l| {
            let v: Value = serde_json::from_str(l).expect("result line is JSON");
            (
                v["test_id"].as_str().unwrap().to_string(),
                v["outcome"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

fn outcome<'a>(list: &'a [(String, String)], id: &str) -> &'a str {
    list.iter()
        .find(|(t, _)| t == id)
        .map(|(_, o)| o.as_str())
        .unwrap_or("absent")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn behave_run_matches_mastor_run_with_and_without_the_bug() {
    let behave = behave();
    let spec_file =
        mastor::spec::load(&root().join("tests/fixtures/petstore-jdk/openapi.json")).unwrap();
    let spec = SpecView::new(&spec_file.operations);
    let tests = tests();
    let dir = tempfile::tempdir().unwrap();
    let report = export_gherkin_with(&tests, &spec.documented(), dir.path()).expect("export");
    assert_eq!(report.items.len(), 3);

    for (bug, visible) in [(true, "relation_violated"), (false, "passed")] {
        let state = tempfile::tempdir().unwrap();
        let fixture = FixtureApi::start_with(state.path(), Some(bug));
        let ours = mastor_outcomes(&fixture.base_url, &tests, &spec).await;
        let theirs =
            tokio::task::block_in_place(|| behave_outcomes(&behave, &fixture.base_url, dir.path()));
        assert_eq!(
            outcome(&ours, "status_change_visible"),
            visible,
            "bug {bug}: {ours:?}"
        );
        assert_eq!(outcome(&ours, "missing_pet_read"), "execution_failed");
        assert_eq!(outcome(&ours, "create_adds_one"), "passed");
        for t in &tests {
            assert_eq!(
                outcome(&theirs, &t.test_id),
                outcome(&ours, &t.test_id),
                "bug {bug}, {}: behave {theirs:?} vs mastor {ours:?}",
                t.test_id
            );
        }
    }
}
