//! `mastor baseline spec` against the scripted server on the petstore fixture: one call per
//! operation carrying that operation's OpenAPI description and no Java source, answers
//! written as a normal session (check, export and compare read it), exit codes 0/3/4.

use crate::support;

use mastor::llm::scripted::{Reply, Rule, Script, ScriptedServer};
use mastor::store::Session;
use serde_json::{Value, json};
use std::process::Output;
use support::*;

const OPS: usize = 10;

fn get_answer() -> Value {
    json!({"oracles": [
        {"test_id": "get_ok", "description": "documented 200", "input": {"path": {"petId": "1"}},
         "assertions": [{"type": "status", "expected": 200},
                        {"type": "field", "field_path": "name", "op": "type", "expected": "string"}],
         "evidence": "responses.200"},
        {"test_id": "get_missing", "input": {"path": {"petId": "999"}},
         "assertions": [{"type": "status", "expected": 404}]}]})
}

fn script(fallback: Vec<Reply>) -> Script {
    Script {
        rules: vec![Rule {
            agent: Some("baseline_spec".into()),
            op: Some(GET.into()),
            replies: vec![Reply::json(get_answer())],
            ..Rule::default()
        }],
        fallback,
        n_ctx: None,
    }
}

fn run_spec(server: &ScriptedServer, target: &str, out: &std::path::Path) -> Output {
    let home = out.parent().unwrap();
    mastor(
        &server.base_url(),
        home,
        &[
            "baseline",
            "spec",
            target,
            "--out",
            out.to_str().unwrap(),
            "--json",
        ],
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_call_per_operation_from_the_spec_alone() {
    let server = ScriptedServer::start(script(vec![Reply::json(json!({"oracles": []}))]))
        .await
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("spec");
    let fixture = fixture("petstore-jdk");
    let output = tokio::task::block_in_place(|| run_spec(&server, fixture.to_str().unwrap(), &out));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    let record: Value = serde_json::from_slice(&output.stdout).unwrap();

    // One call per operation, each naming its operation, none carrying source code.
    let reqs = server.requests();
    assert_eq!(reqs.len(), OPS, "one call per operation");
    let get = reqs
        .iter()
        .find(|r| r.op.as_deref() == Some(GET))
        .expect("a call for GET");
    let text: String = get.body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|m| m["content"].as_str())
        .collect::<Vec<_>>()
        .join("\n");
    assert!(text.contains("OPERATION: GET /pets/{petId}"), "{text}");
    assert!(text.contains("\"responses\""), "the spec fragment is sent");
    assert!(text.contains("petId"));
    for r in &reqs {
        let body = r.body.to_string();
        assert!(!body.contains("===== FILE:"), "no source bundle is sent");
        assert!(!body.contains("PetHandler"), "no Java source is sent");
    }

    assert_eq!(record["operations"], OPS);
    assert_eq!(record["completed"], OPS);
    assert_eq!(record["oracles"], 2);
    assert_eq!(record["status_oracles"], 1);
    assert_eq!(record["field_oracles"], 1);
    assert_eq!(record["normalized"], false);
    assert_eq!(record["answered"], json!([GET]));

    // A normal session: suites, kind in the manifest, loadable by check and export.
    let session = Session::open(&out).unwrap();
    assert_eq!(session.manifest().config.settings["baseline"], "spec_only");
    assert_eq!(session.read_suite(GET).unwrap().unwrap().oracles.len(), 2);
    let loaded = mastor::suite::session::read(&session).unwrap();
    assert_eq!(loaded.suite.oracles.len(), 2);
    let exported = dir.path().join("export");
    let output = mastor(
        &server.base_url(),
        dir.path(),
        &[
            "export",
            out.to_str().unwrap(),
            "--format",
            "json",
            "--all",
            "--out",
            exported.to_str().unwrap(),
        ],
    );
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let compare = mastor(
        &server.base_url(),
        dir.path(),
        &["compare", out.to_str().unwrap(), "--json"],
    );
    let rows: Value = serde_json::from_slice(&compare.stdout).unwrap();
    assert_eq!(rows[0]["label"], "spec-only");
    assert_eq!(rows[0]["counts"]["status"], 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_spec_file_is_accepted_and_failed_operations_make_exit_3() {
    // Only GET answers in shape; every other call gets an answer without `oracles`.
    let server = ScriptedServer::start(script(vec![Reply::json(json!({"nope": 1}))]))
        .await
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("spec");
    let spec = fixture("petstore-jdk").join("openapi.json");
    let output = tokio::task::block_in_place(|| run_spec(&server, spec.to_str().unwrap(), &out));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(3), "{stderr}");
    assert!(stderr.contains("POST /pets failed"), "{stderr}");
    let record: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(record["completed"], 1);
    assert_eq!(record["failed"].as_object().unwrap().len(), OPS - 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn nothing_answered_is_exit_4() {
    let server = ScriptedServer::start(Script {
        rules: vec![],
        fallback: vec![Reply::json(json!({"nope": 1}))],
        n_ctx: None,
    })
    .await
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("spec");
    let fixture = fixture("petstore-jdk");
    let output = tokio::task::block_in_place(|| run_spec(&server, fixture.to_str().unwrap(), &out));
    assert_eq!(
        output.status.code(),
        Some(4),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
}
