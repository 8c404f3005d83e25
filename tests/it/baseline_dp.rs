//! `mastor baseline dp` against the scripted server on the petstore fixture: one call
//! carrying every operation and each source file once in the paper's Listing A.1 prompt,
//! the answer used as it comes (normalized only with `--normalize`) and written as suites
//! that the session reader of `mastor check` loads.

use crate::support;

use mastor::llm::scripted::{Reply, Rule, Script, ScriptedServer};
use mastor::store::Session;
use serde_json::{Value, json};
use support::*;

fn dp_answer() -> Value {
    json!({"operations": [
        {"op_id": GET, "path_oracles": [
            {"description": "pet 1 exists", "input": {"path": {"petId": "1"}},
             "assertions": [{"type": "status", "expected": 200},
                            {"type": "field", "field_path": "name", "op": "not_null", "expected": null}]},
            // no status assertion: kept as is, dropped only with --normalize
            {"description": "name only", "input": {"path": {"petId": "2"}},
             "assertions": [{"type": "field", "field_path": "name", "op": "not_null", "expected": null}]}]},
        {"op_id": POST, "path_oracles": [
            {"description": "blank name", "input": {"body": {"name": ""}},
             "assertions": [{"type": "status", "expected": 400}]}]},
        {"op_id": "GET /nowhere", "path_oracles": [
            {"input": {}, "assertions": [{"type": "status", "expected": 200}]}]}
    ]})
}

fn script() -> Script {
    Script {
        rules: vec![Rule {
            agent: Some("baseline_dp".into()),
            replies: vec![Reply::json(dp_answer())],
            ..Rule::default()
        }],
        fallback: Vec::new(),
        n_ctx: None,
    }
}

fn run_dp(server: &ScriptedServer, extra: &[&str]) -> (Value, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("dp");
    let fixture = fixture("petstore-jdk");
    let mut args = vec![
        "baseline",
        "dp",
        fixture.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--json",
    ];
    args.extend_from_slice(extra);
    let output = mastor(&server.base_url(), dir.path(), &args);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "baseline failed: {stderr}");
    let record = serde_json::from_slice(&output.stdout).unwrap_or_else(|e| panic!("{e}: {stderr}"));
    (record, dir)
}

fn messages(server: &ScriptedServer) -> Vec<Value> {
    let reqs = server.requests();
    assert_eq!(reqs.len(), 1, "one call");
    reqs[0].body["messages"].as_array().unwrap().clone()
}

fn user_prompt(server: &ScriptedServer) -> String {
    messages(server)
        .iter()
        .filter_map(|m| m["content"].as_str())
        .collect::<Vec<_>>()
        .join("\n")
}

/// Paper appendix, Listing A.1, line by line (placeholders filled).
const LISTING_A1: &[&str] = &[
    "Given the source code below, generate as many test oracles\nas possible for every REST operation listed. Cover as many\nexecution paths as you can.",
    "## OAS-defined operations (use these exact op_id values):\n",
    "## Source code:\n",
    "Return strictly the following JSON\n(no markdown fences, pure JSON only):\n{",
    "\"op_id\": \"<HTTP_METHOD> <path>\",",
    "\"path_index\": 0,",
    "\"description\": \"<brief description of this path>\",",
    "\"query\": null,",
    "\"headers\": null",
    "{\"type\": \"status\", \"expected\": 200},",
    "{\"type\": \"field\", \"field_path\": \"result\",",
    "\"op\": \"equals\", \"expected\": 3}",
    "Assertion ops: equals | not_null | is_null | gte | lte |\n matches | type",
];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_prompt_is_the_papers_listing_a1_alone() {
    let server = ScriptedServer::start(script()).await.unwrap();
    let srv = &server;
    let (_record, _dir) = tokio::task::block_in_place(|| run_dp(srv, &[]));
    let msgs = messages(&server);
    assert_eq!(
        msgs.len(),
        1,
        "zero-shot: one user message, no system prompt"
    );
    assert_eq!(msgs[0]["role"], "user");
    let prompt = msgs[0]["content"].as_str().unwrap();
    for line in LISTING_A1 {
        assert!(
            prompt.contains(line),
            "Listing A.1 text missing: {line:?}\n{prompt}"
        );
    }
    assert!(prompt.starts_with("Given the source code below"));
    assert!(prompt.trim_end().ends_with("matches | type"));
    // Filled in the listing's order: operations, then the source.
    let ops_at = prompt.find("1. ").unwrap();
    let src_at = prompt.find("// ===== FILE: ").unwrap();
    assert!(prompt.find("## OAS-defined").unwrap() < ops_at && ops_at < src_at);
    assert!(prompt.find("## Source code:").unwrap() < src_at);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_call_kept_as_answered_into_suites() {
    let server = ScriptedServer::start(script()).await.unwrap();
    let srv = &server;
    let (record, dir) = tokio::task::block_in_place(|| run_dp(srv, &[]));

    // One call: every operation listed, each file once.
    let prompt = user_prompt(&server);
    for op in [GET, POST, DELETE, "GET /stats"] {
        assert!(prompt.contains(op), "{op} missing from the operation list");
    }
    let header = format!("// ===== FILE: {PET_HANDLER} (");
    assert_eq!(prompt.matches(&header).count(), 1, "PetHandler sent once");
    assert!(!prompt.contains("source truncated"));

    // The record: nothing normalized away, unknown operations still refused.
    assert_eq!(record["normalized"], false);
    assert_eq!(record["operations"], 10);
    assert_eq!(record["oracles"], 3, "the oracle without a status is kept");
    assert_eq!(record["status_oracles"], 1);
    assert_eq!(record["field_oracles"], 2);
    assert_eq!(record["status_assertions"], 2);
    assert_eq!(record["field_assertions"], 2);
    assert_eq!(record["dropped"], 0);
    assert_eq!(record["normalization"], json!({}));
    assert_eq!(record["unknown_ops"], json!(["GET /nowhere"]));
    assert_eq!(record["answered"].as_array().unwrap().len(), 2);
    assert_eq!(record["missing"].as_array().unwrap().len(), 8);
    assert!(record["tokens_in"].as_u64().unwrap() > 100);

    // The session: suites as the pipeline writes them, the manifest names the baseline
    // and says it is not normalized.
    let session = Session::open(dir.path().join("dp")).unwrap();
    let get = session.read_suite(GET).unwrap().expect("GET suite");
    assert_eq!(get.oracles.len(), 2);
    assert!(get.normalization.is_empty(), "no normalization pass");
    assert!(session.read_suite(DELETE).unwrap().is_none());
    let manifest = session.manifest();
    assert_eq!(manifest.config.settings["baseline"], "direct_prompting");
    assert_eq!(manifest.config.settings["normalized"], false);
    assert!(manifest.phases.contains_key("baseline_dp"));
    let loaded = mastor::suite::session::read(&session).unwrap();
    assert_eq!(loaded.suite.oracles.len(), 3, "check loads the suites");
    assert!(
        session
            .list("calls")
            .unwrap()
            .iter()
            .any(|c| c.starts_with("baseline_dp"))
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn normalize_flag_opts_into_the_pipelines_normalization() {
    let server = ScriptedServer::start(script()).await.unwrap();
    let srv = &server;
    let (record, dir) = tokio::task::block_in_place(|| run_dp(srv, &["--normalize"]));
    assert_eq!(record["normalized"], true);
    assert_eq!(record["oracles"], 2);
    assert_eq!(record["dropped"], 1);
    let session = Session::open(dir.path().join("dp")).unwrap();
    let get = session.read_suite(GET).unwrap().expect("GET suite");
    assert_eq!(get.oracles.len(), 1);
    assert_eq!(get.normalization[0].dropped.len(), 1);
    assert_eq!(session.manifest().config.settings["normalized"], true);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn source_cap_leaves_whole_files_out_with_a_note() {
    let server = ScriptedServer::start(script()).await.unwrap();
    let srv = &server;
    let (record, _dir) =
        tokio::task::block_in_place(|| run_dp(srv, &["--max-source-chars", "3000"]));
    let prompt = user_prompt(&server);
    let omitted = record["source_omitted"].as_array().unwrap();
    assert!(!omitted.is_empty());
    assert!(prompt.contains("source truncated at 3000 characters"));
    for f in omitted {
        let header = format!("// ===== FILE: {} (", f.as_str().unwrap());
        assert!(!prompt.contains(&header), "{f} was left out but sent");
    }
    assert!(record["source_chars"].as_u64().unwrap() <= 3000 + 2000);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn answer_without_operations_is_an_error_naming_the_shape() {
    let server = ScriptedServer::start(Script {
        rules: vec![],
        fallback: vec![Reply::json(json!({"oracles": []}))],
        n_ctx: None,
    })
    .await
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("dp");
    let fixture = fixture("petstore-jdk");
    let output = tokio::task::block_in_place(|| {
        mastor(
            &server.base_url(),
            dir.path(),
            &[
                "baseline",
                "dp",
                fixture.to_str().unwrap(),
                "--out",
                out.to_str().unwrap(),
            ],
        )
    });
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("no `operations` list"), "{stderr}");
}
