//! The pipeline on every Java fixture (JAX-RS, Spring, JDK HttpServer, spec-first) with a
//! scripted model that answers every operation alike: every statically matched operation
//! gets a context and a normalized suite, unmatched ones are reported, and the summary
//! equals what the session holds.

use crate::support;

use mastor::llm::scripted::{Reply, Rule, Script, ScriptedServer};
use mastor::pipeline::orchestrator::{OpState, Orchestrator};
use mastor::store::Session;
use serde_json::{Value, json};
use support::*;

fn generic_script() -> Script {
    let rule = |agent: &str, reply: Value| Rule {
        agent: Some(agent.into()),
        replies: vec![Reply::json(reply)],
        ..Rule::default()
    };
    Script {
        rules: vec![
            rule("discovery", json!({"matches": []})),
            rule(
                "extraction",
                json!({"request_params": [], "response_schema": {"success_status": 200,
                    "fields": [{"name": "id", "type": "long", "nullable": false}],
                    "error_cases": [{"status": 404, "condition": "not found"}]}}),
            ),
            rule(
                "single_op",
                json!({"oracles": [
                    {"test_id": "fv_ok", "oracle_strategy": "fv", "input": {},
                     "assertions": [{"type": "status", "expected": 200},
                                    {"type": "field", "field_path": "id", "op": "not_null", "expected": null}]},
                    {"test_id": "bi_missing", "oracle_strategy": "bi", "input": {"query": {"x": "1"}},
                     "assertions": [{"type": "status", "expected": 404}]},
                    {"test_id": "fv_bare", "oracle_strategy": "fv", "input": {},
                     "assertions": [{"type": "status", "expected": 200}]}]}),
            ),
            rule("single_op_challenger", json!({"hints": []})),
            rule("semantic", json!({"groups": []})),
        ],
        fallback: vec![Reply::status(500)],
        n_ctx: None,
    }
}

fn run_on(server: &ScriptedServer, fixture: &str) -> (Value, Session, i32, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("session");
    let project = format!("tests/fixtures/{fixture}");
    let args = [
        "run",
        project.as_str(),
        "--json",
        "--max-attempts",
        "1",
        "--out",
        out.to_str().unwrap(),
    ];
    let mut cmd = mastor_cmd(&server.base_url(), dir.path(), &args);
    cmd.current_dir(env!("CARGO_MANIFEST_DIR"));
    let output = cmd.output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    let summary = serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|e| panic!("{fixture}: no summary ({e}): {stderr}"));
    let code = output.status.code().unwrap_or(-1);
    (summary, Session::open(&out).unwrap(), code, dir)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_fixture_gets_contexts_and_suites_for_its_matched_operations() {
    let server = ScriptedServer::start(generic_script()).await.unwrap();
    for fixture in [
        "countries-jaxrs",
        "shop-spring",
        "petstore-jdk",
        "users-inflector",
        "jdk-segment-dispatch",
        "spring-overloads",
        "router-method-refs",
    ] {
        let expected = read_json(&fixture_path(fixture).join("expected.json"));
        let matched: Vec<&String> = expected["matches"]
            .as_object()
            .unwrap()
            .iter()
            .filter(|(_, m)| !m.is_null())
            .map(|(op, _)| op)
            .collect();
        let (summary, session, code, _dir) =
            tokio::task::block_in_place(|| run_on(&server, fixture));
        let state: Orchestrator = session.read_json("state.json").unwrap().unwrap();
        assert!(state.is_finished(), "{fixture}");
        for op in &matched {
            assert_eq!(state.ops[*op], OpState::Done, "{fixture} {op}");
            assert!(
                session.read_context(op).unwrap().is_some(),
                "{fixture} {op}"
            );
            let suite = session.read_suite(op).unwrap().unwrap();
            let ids: Vec<&str> = suite.oracles.iter().map(|o| o.test_id.as_str()).collect();
            assert_eq!(ids, vec!["fv_ok", "bi_missing"], "{fixture} {op}");
        }
        let unmatched = state
            .ops
            .values()
            .filter(|s| **s == OpState::Unmatched)
            .count();
        assert_eq!(unmatched + matched.len(), state.ops.len(), "{fixture}");
        // An operation without a handler got no oracles: the run is partial (exit 3).
        let want = if unmatched > 0 { 3 } else { 0 };
        assert_eq!(code, want, "{fixture}: {unmatched} without a handler");
        assert_eq!(summary["ok"], matched.len(), "{fixture}");
        assert_eq!(summary["single_op_oracles"], 2 * matched.len(), "{fixture}");
        assert_eq!(summary["dropped"], matched.len(), "{fixture}: fv_bare each");
    }
}

fn fixture_path(name: &str) -> std::path::PathBuf {
    fixture(name)
}
