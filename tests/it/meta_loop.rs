//! The metamorphic loop through the real binary: scripted model, live petstore-jdk
//! fixture. Each stopping criterion ends a session on its own; the refiner's drops keep
//! their reason; two equivalent candidates worded differently count once.

use crate::runner_support;
use crate::support;

use mastor::llm::scripted::{Reply, Rule, Script, ScriptedServer};
use serde_json::{Value, json};
use std::path::Path;

fn status_visible(id: &str, scenario: &str) -> Value {
    json!({
        "test_id": id, "scenario": scenario,
        "given": "a new pet", "when": "its status changes", "then": "a read shows it",
        "seed": [{"op_id": "POST /pets", "input": {"body": {"name": "Loop", "status": "available"}},
                  "captures": {"id": "id"}, "assertions": [{"type": "status", "expected": 201}]}],
        "follow_up": [
            {"op_id": "POST /pets/{petId}/status", "input": {"path": {"petId": "$captures.id"}, "body": {"status": "sold"}}},
            {"op_id": "GET /pets/{petId}", "input": {"path": {"petId": "$captures.id"}}}],
        "relations": [{"left": "follow_up[1].body.status", "op": "equals", "right": "follow_up[0].request.body.status"}]
    })
}

fn filter_subset() -> Value {
    json!({
        "test_id": "filter_subset", "scenario": "Filtering by status returns a subset of all pets",
        "seed": [{"op_id": "GET /pets", "input": {"query": {"status": "available"}}}],
        "follow_up": [{"op_id": "GET /pets"}],
        "relations": [{"left": "seed[0].body[*].id", "op": "subset", "right": "follow_up[0].body[*].id"},
                      {"left": "seed[0].body[*].status", "op": "not_contains", "value": "sold"}]
    })
}

fn ghost() -> Value {
    json!({
        "test_id": "ghost", "scenario": "Unicorns are counted",
        "seed": [{"op_id": "GET /unicorns"}],
        "follow_up": [{"op_id": "GET /pets"}],
        "relations": [{"left": "seed[0].body", "op": "count_diff", "right": "follow_up[0].body", "value": 0}]
    })
}

fn script() -> Script {
    let batch = json!({"tests": [
        status_visible("status_visible", "Updating a pet's status is visible on read"),
        // same steps and relation, other words and id: one semantic group
        status_visible("mr_7", "MR 7: A read after a status change shows the new status"),
        ghost(),
        filter_subset(),
    ]});
    Script {
        rules: vec![
            Rule {
                agent: Some("mr_generator".into()),
                replies: vec![Reply::json(batch)],
                ..Rule::default()
            },
            Rule {
                agent: Some("mr_refiner".into()),
                replies: vec![Reply::json(json!({"tests": [], "dropped": [
                    {"test_id": "ghost", "reason": "the spec has no unicorn operation"}]}))],
                ..Rule::default()
            },
        ],
        fallback: Vec::new(),
        n_ctx: None,
    }
}

fn session(server: &ScriptedServer, extra: &[&str]) -> (Value, i32) {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("session");
    let spec =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/petstore-jdk/openapi.json");
    let mut args = vec![
        "metamorphic".to_string(),
        spec.display().to_string(),
        "--base-url".into(),
        runner_support::module_fixture_url("meta_loop").to_string(),
        "--out".into(),
        out.display().to_string(),
        "--json".into(),
    ];
    args.extend(extra.iter().map(|s| s.to_string()));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let output = support::mastor(&server.base_url(), dir.path(), &args);
    let stderr = String::from_utf8_lossy(&output.stderr);
    let report: Value = serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|e| panic!("report is not JSON ({e}): {stderr}"));
    // tests are kept in the session, one file each
    let kept = std::fs::read_dir(out.join("metamorphic"))
        .map(|d| d.count())
        .unwrap_or(0);
    assert_eq!(
        kept,
        report["tests"].as_array().map_or(0, Vec::len),
        "{report}"
    );
    (report, output.status.code().unwrap_or(-1))
}

fn stop(report: &Value) -> &str {
    report["stop"].as_str().unwrap_or_default()
}

fn iterations(report: &Value) -> usize {
    report["iterations"].as_array().map_or(0, Vec::len)
}

async fn with_server<T>(f: impl FnOnce(&ScriptedServer) -> T) -> T {
    let server = ScriptedServer::start(script()).await.unwrap();
    tokio::task::block_in_place(|| f(&server))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stops_on_coverage_and_groups_equivalent_candidates() {
    let (r, code) = with_server(|s| session(s, &["--coverage", "0.4"])).await;
    assert_eq!(stop(&r), "coverage", "{r}");
    assert_eq!(iterations(&r), 1);
    assert_eq!(r["coverage"], json!(0.4));
    let ids: Vec<&str> = r["tests"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|t| t["test_id"].as_str())
        .collect();
    assert_eq!(ids, ["status_visible", "filter_subset"]);
    let dup = &r["iterations"][0]["duplicates"];
    assert_eq!(dup.as_array().map_or(0, Vec::len), 1, "{dup}");
    assert_eq!(dup[0]["test_id"], "mr_7");
    assert_eq!(dup[0]["same_as"], "status_visible");
    assert_eq!(
        r["outcomes"],
        json!({"passed": 2, "relation_violated": 0, "execution_failed": 0})
    );
    // one generator and one refiner call, nothing else
    assert_eq!(r["cost"]["calls"], json!(2), "{}", r["cost"]);
    assert_eq!(code, 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn refiner_drops_an_operation_the_spec_lacks_with_its_reason() {
    let (r, _) = with_server(|s| session(s, &["--max-iterations", "1"])).await;
    let dropped = r["iterations"][0]["dropped"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    assert_eq!(dropped.len(), 1, "{r}");
    assert_eq!(dropped[0]["test_id"], "ghost");
    let reason = dropped[0]["reason"].as_str().unwrap_or_default();
    assert!(reason.contains("no unicorn operation"), "{reason}");
    assert!(
        reason.contains("`GET /unicorns` is not in the spec"),
        "{reason}"
    );
    assert_eq!(stop(&r), "max_iterations");
    assert_eq!(iterations(&r), 1);
    // ARMeta's counts: 4 written, the ghost dropped, mr_7 a duplicate, 2 kept and run.
    assert_eq!(
        r["counts"],
        json!({"hlmts_generated": 4, "dropped": 1, "duplicates_dropped": 1, "kept": 2,
               "emts_executed": 2}),
        "{r}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stops_on_plateau_when_nothing_new_comes() {
    let (r, _) = with_server(|s| session(s, &["--plateau", "1", "--max-iterations", "5"])).await;
    assert_eq!(stop(&r), "plateau", "{r}");
    assert_eq!(iterations(&r), 2);
    // the second batch repeats the first: all duplicates, no new test
    assert_eq!(r["iterations"][1]["new_tests"], json!([]));
    assert_eq!(
        r["iterations"][1]["duplicates"]
            .as_array()
            .map_or(0, Vec::len),
        3
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stops_on_request_budget() {
    let (r, code) = with_server(|s| session(s, &["--budget", "2", "--max-iterations", "5"])).await;
    assert_eq!(stop(&r), "request_budget", "{r}");
    assert_eq!(iterations(&r), 1);
    assert_eq!(r["requests"], json!(2));
    // the first test ran out of budget on its third request: an execution failure
    assert_eq!(r["verdicts"][0]["outcome"], "execution_failed");
    assert!(
        r["verdicts"][0]["reason"]
            .as_str()
            .unwrap_or_default()
            .contains("budget"),
        "{r}"
    );
    assert_eq!(code, 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stops_on_time_budget() {
    let (r, _) =
        with_server(|s| session(s, &["--time-budget", "0", "--max-iterations", "5"])).await;
    assert_eq!(stop(&r), "time_budget", "{r}");
    assert_eq!(iterations(&r), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn gherkin_export_after_the_session_leaves_out_rejected_tests() {
    let dir = tempfile::tempdir().unwrap();
    let features = dir.path().join("gherkin");
    let g = features.display().to_string();
    let (r, _) = with_server(|s| session(s, &["--max-iterations", "1", "--gherkin", &g])).await;
    assert_eq!(r["tests"].as_array().map_or(0, Vec::len), 2, "{r}");
    let text = std::fs::read_to_string(features.join("features/metamorphic.feature")).unwrap();
    assert_eq!(text.matches("Scenario:").count(), 2, "{text}");
    assert!(text.contains("# o_id: mr#status_visible"));
    let side: Value = serde_json::from_str(
        &std::fs::read_to_string(features.join("features/mastor_tests.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(
        side["documented"]["GET /pets/{petId}"],
        json!(["200", "400", "404"])
    );
    assert!(features.join("features/steps/mastor_steps.py").is_file());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn run_with_metamorphic_grounds_the_generator_in_the_session() {
    let mut full = support::petstore_script();
    full.rules.splice(0..0, script().rules);
    let server = ScriptedServer::start(full).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("session");
    let out_s = out.display().to_string();
    let url = runner_support::module_fixture_url("meta_loop").to_string();
    let args = [
        "run",
        "tests/fixtures/petstore-jdk",
        "--out",
        &out_s,
        "--json",
        "--op",
        support::POST,
        "--op",
        support::GET,
        "--op",
        support::DELETE,
        "--metamorphic",
        "--api-url",
        &url,
        "--max-iterations",
        "1",
    ];
    let output = tokio::task::block_in_place(|| {
        let mut cmd = support::mastor_cmd(&server.base_url(), dir.path(), &args);
        cmd.current_dir(env!("CARGO_MANIFEST_DIR"));
        cmd.output().unwrap()
    });
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    let summary: Value = serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {stderr}"));
    let mr = &summary["metamorphic"];
    assert_eq!(mr["tests"].as_array().map_or(0, Vec::len), 2, "{mr}");
    assert_eq!(mr["stop"], "max_iterations");
    // the generator saw the contexts the pipeline extracted, not "(none)"
    let asked = server
        .requests()
        .into_iter()
        .find(|r| r.agent.as_deref() == Some("mr_generator"))
        .expect("generator called");
    let user = asked.body["messages"]
        .as_array()
        .and_then(|m| m.iter().find(|m| m["role"] == "user"))
        .and_then(|m| m["content"].as_str())
        .unwrap_or_default()
        .to_string();
    let contexts = user
        .split("WHAT THE SOURCE CODE SHOWS (may be empty):\n")
        .nth(1)
        .and_then(|rest| rest.split("\n\nRELATED OPERATION GROUPS").next())
        .unwrap_or_default();
    assert!(!contexts.is_empty() && contexts != "(none)", "{user}");
    assert!(contexts.contains("GET /pets/{petId}"), "{contexts}");
    assert!(
        out.join(mastor::metamorphic::store::file_rel("status_visible"))
            .is_file()
    );
}

/// ARMeta runs its generator and refiner layers on models of their own: the refiner's
/// flags send its calls to another server and model, the generator's stay on the primary.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_generator_and_the_refiner_use_their_own_models() {
    let primary = ScriptedServer::start(script()).await.unwrap();
    let refiner = ScriptedServer::start(script()).await.unwrap();
    let refiner_url = refiner.base_url();
    let (r, _) = tokio::task::block_in_place(|| {
        session(
            &primary,
            &[
                "--max-iterations",
                "1",
                "--refiner-base-url",
                &refiner_url,
                "--refiner-model",
                "refiner-model",
                "--generator-model",
                "generator-model",
            ],
        )
    });
    assert_eq!(r["iterations"][0]["dropped"][0]["test_id"], "ghost", "{r}");
    let agents = |s: &ScriptedServer| {
        s.requests()
            .iter()
            .map(|q| (q.agent.clone().unwrap_or_default(), q.body["model"].clone()))
            .collect::<Vec<_>>()
    };
    assert_eq!(
        agents(&primary),
        vec![("mr_generator".to_string(), json!("generator-model"))]
    );
    assert_eq!(
        agents(&refiner),
        vec![("mr_refiner".to_string(), json!("refiner-model"))]
    );
}
