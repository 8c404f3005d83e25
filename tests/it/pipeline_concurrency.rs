//! The model client's limit holds across the whole pipeline: with many operations and a
//! slow model, `--concurrency 4` keeps exactly four calls in flight at the peak, never
//! more; and `--op` narrows a run to one operation.

use crate::support;

use mastor::llm::scripted::{Reply, Rule, Script, ScriptedServer};
use serde_json::json;
use support::*;

/// One slow catch-all rule whose answer every agent can decode: no discovery claims, a
/// plain context, one oracle (an operation left with none has not completed), no groups.
fn slow_script(delay_ms: u64) -> Script {
    Script {
        rules: vec![Rule {
            replies: vec![Reply::json(json!({
                "matches": [], "hints": [], "groups": [],
                "oracles": [{"test_id": "fv_ok", "oracle_strategy": "fv", "input": {},
                    "assertions": [{"type": "status", "expected": 200},
                        {"type": "field", "field_path": "id", "op": "not_null", "expected": null}]}],
                "request_params": [],
                "response_schema": {"success_status": 200,
                    "fields": [{"name": "id", "type": "String", "nullable": false}],
                    "error_cases": []},
                "request_params_pending": [], "response_schema_pending": []
            }))],
            delay_ms,
            ..Rule::default()
        }],
        fallback: Vec::new(),
        n_ctx: None,
    }
}

fn run_shop(server: &ScriptedServer, extra: &[&str]) -> serde_json::Value {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("session");
    let fixture = fixture("shop-spring");
    let mut args = vec![
        "run",
        fixture.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--json",
    ];
    args.extend_from_slice(extra);
    let output = mastor(&server.base_url(), dir.path(), &args);
    let stderr = String::from_utf8_lossy(&output.stderr);
    let summary: serde_json::Value =
        serde_json::from_slice(&output.stdout).unwrap_or_else(|e| panic!("{e}: {stderr}"));
    // The fixture has spec operations without a handler: a run over them is partial
    // (exit 3), with every matched operation done.
    let unmatched = summary["unmatched"].as_array().map_or(0, Vec::len);
    let want = if unmatched > 0 { 3 } else { 0 };
    assert_eq!(output.status.code(), Some(want), "mastor run: {stderr}");
    assert!(
        summary["failed"].as_object().unwrap().is_empty(),
        "{stderr}"
    );
    summary
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrency_limit_is_reached_and_never_exceeded() {
    let server = ScriptedServer::start(slow_script(150)).await.unwrap();
    let srv = &server;
    let summary =
        tokio::task::block_in_place(|| run_shop(srv, &["--concurrency", "4", "--no-multi-op"]));
    let extractions = agent_calls(&server, "extraction");
    assert!(extractions >= 20, "only {extractions} extractions");
    assert_eq!(summary["ok"].as_u64(), Some(extractions as u64));
    assert_eq!(server.peak_in_flight(), 4, "peak calls in flight");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrency_one_is_sequential() {
    let server = ScriptedServer::start(slow_script(20)).await.unwrap();
    let srv = &server;
    tokio::task::block_in_place(|| {
        run_shop(
            srv,
            &["--concurrency", "1", "--no-multi-op", "--no-discovery"],
        )
    });
    assert!(server.calls() >= 20);
    assert_eq!(server.peak_in_flight(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn op_flag_runs_exactly_one_operation() {
    let op = "GET /orders/{orderId}";
    let server = ScriptedServer::start(slow_script(0)).await.unwrap();
    let srv = &server;
    let summary = tokio::task::block_in_place(|| run_shop(srv, &["--op", op]));
    assert_eq!(summary["operations"], 1);
    let reqs = server.requests();
    let with_op: Vec<&str> = reqs.iter().filter_map(|r| r.op.as_deref()).collect();
    assert!(!with_op.is_empty());
    assert!(
        with_op.iter().all(|o| *o == op),
        "calls for other operations: {with_op:?}"
    );
    assert_eq!(agent_calls(&server, "extraction"), 1);
    assert_eq!(agent_calls(&server, "single_op"), 1);
    // one operation cannot form a group
    assert_eq!(agent_calls(&server, "semantic"), 0);
}
