//! Discovery overruling a weak static match, and the reviewer's pick, through the real
//! binary against the scripted model on `jdk-prefix-dispatch`: the admin handler's cut is
//! unreadable, so the scan falls back to `AdminHandler.handle` (weak) for both admin
//! operations. With discovery naming `stats` / `reload`, every operation ends on its real
//! handler (the prompt the extraction agent gets names it) and the conflict is recorded
//! with both answers; without discovery they stay on `handle`, marked weak. A reviewer's
//! pick (`mastor handler`) is used by the next run, over both.

use crate::support::mastor_cmd;
use mastor::llm::scripted::{Reply, Rule, Script, ScriptedServer};
use mastor::store::{HandlerSide, Session};
use serde_json::{Value, json};
use std::path::Path;

const STATS: &str = "GET /admin/v1/stats";
const RELOAD: &str = "POST /admin/v1/reload";
const ADMIN: &str = "src/main/java/lint/AdminHandler.java";

fn script() -> Script {
    let claims = json!({"matches": [
        {"op_id": STATS, "class": "AdminHandler", "method": "stats", "file": ADMIN, "line": 33},
        {"op_id": RELOAD, "class": "AdminHandler", "method": "reload", "file": ADMIN, "line": 37},
        // Names a method that does not exist: the static match must stay.
        {"op_id": "GET /v2/languages", "class": "ApiHandler", "method": "languagesV2", "file": "", "line": 0}
    ]});
    let json = |value: Value| vec![Reply::Json { value }];
    Script {
        rules: vec![
            Rule {
                agent: Some("discovery".into()),
                contains: Some(format!("(entry file: {ADMIN})")),
                replies: json(claims),
                ..Rule::default()
            },
            Rule {
                agent: Some("discovery".into()),
                replies: json(json!({"matches": []})),
                ..Rule::default()
            },
            Rule {
                agent: Some("extraction".into()),
                replies: json(
                    json!({"request_params": [], "response_schema": {"success_status": 200,
                        "fields": [{"name": "status", "type": "String", "nullable": false}]}}),
                ),
                ..Rule::default()
            },
            Rule {
                agent: Some("single_op".into()),
                replies: json(
                    json!({"oracles": [{"test_id": "fv_ok", "oracle_strategy": "fv",
                    "input": {}, "assertions": [{"type": "status", "expected": 200},
                        {"type": "field", "field_path": "status", "op": "not_null", "expected": null}]}]}),
                ),
                ..Rule::default()
            },
        ],
        fallback: json(json!({})),
        n_ctx: None,
    }
}

/// Runs the pipeline on the admin operations (plus one resolved one) into `out`.
fn run(server: &ScriptedServer, home: &Path, out: &Path, extra: &[&str]) -> String {
    let out_s = out.to_str().unwrap();
    let mut args = vec![
        "run",
        "tests/fixtures/jdk-prefix-dispatch",
        "--out",
        out_s,
        "--json",
        "--no-multi-op",
        "--no-challenger",
    ];
    for op in [STATS, RELOAD, "GET /v2/languages"] {
        args.extend(["--op", op]);
    }
    args.extend_from_slice(extra);
    let mut cmd = mastor_cmd(&server.base_url(), home, &args);
    cmd.current_dir(env!("CARGO_MANIFEST_DIR"));
    let output = cmd.output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert_eq!(output.status.code(), Some(0), "mastor run: {stderr}");
    stderr
}

/// The handler each extraction prompt after the first `skip` requests names, by operation.
fn extraction_handlers(server: &ScriptedServer, skip: usize) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = server
        .requests()
        .iter()
        .skip(skip)
        .filter(|r| r.agent.as_deref() == Some("extraction"))
        .map(|r| {
            let text = r.body.to_string();
            let handler = [
                "AdminHandler.handle",
                "AdminHandler.stats",
                "AdminHandler.reload",
                "ApiHandler.languages",
            ]
            .into_iter()
            .filter(|h| text.contains(&format!("{h} (")))
            .collect::<Vec<_>>()
            .join(",");
            (r.op.clone().unwrap_or_default(), handler)
        })
        .collect();
    out.sort();
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn discovery_overrules_weak_matches_and_records_both_answers() {
    let server = ScriptedServer::start(script()).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("session");
    tokio::task::block_in_place(|| run(&server, dir.path(), &out, &[]));
    assert_eq!(
        extraction_handlers(&server, 0),
        vec![
            ("GET /admin/v1/stats".into(), "AdminHandler.stats".into()),
            ("GET /v2/languages".into(), "ApiHandler.languages".into()),
            ("POST /admin/v1/reload".into(), "AdminHandler.reload".into()),
        ]
    );
    let session = Session::open(&out).unwrap();
    let conflicts = session.read_conflicts().unwrap();
    let stats = &conflicts[STATS];
    assert_eq!(stats.won, HandlerSide::Discovered, "{stats:?}");
    assert_eq!(stats.static_entry.method, "handle");
    assert!(stats.static_weak.is_some());
    assert_eq!(
        (stats.discovered.method.as_str(), stats.discovered.line),
        ("stats", 33)
    );
    assert!(
        stats.why.contains("AdminHandler.handle calls it"),
        "{}",
        stats.why
    );
    assert_eq!(conflicts[RELOAD].won, HandlerSide::Discovered);
    // A method the project does not have never wins.
    let lang = &conflicts["GET /v2/languages"];
    assert_eq!(lang.won, HandlerSide::Static, "{lang:?}");
    assert!(lang.why.contains("specific"), "{}", lang.why);
    // It ran by default (`--discovery auto`) because of the weak matches, and says so.
    assert!(
        server
            .requests()
            .iter()
            .any(|r| r.agent.as_deref() == Some("discovery"))
    );
    let state: Value = session.read_json("state.json").unwrap().unwrap();
    let decided = &state["discovery"];
    assert_eq!(
        (decided["mode"].as_str(), decided["ran"].as_bool()),
        (Some("auto"), Some(true))
    );
    let why = decided["why"].as_str().unwrap();
    assert!(
        why.contains(&format!("{STATS}: the static match is weak")),
        "{why}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_discovery_the_admin_operations_stay_weak_on_handle() {
    let server = ScriptedServer::start(script()).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("session");
    tokio::task::block_in_place(|| run(&server, dir.path(), &out, &["--no-discovery"]));
    assert_eq!(
        extraction_handlers(&server, 0),
        vec![
            ("GET /admin/v1/stats".into(), "AdminHandler.handle".into()),
            ("GET /v2/languages".into(), "ApiHandler.languages".into()),
            ("POST /admin/v1/reload".into(), "AdminHandler.handle".into()),
        ]
    );
    let session = Session::open(&out).unwrap();
    let ops: Value = session.read_operations().unwrap().unwrap();
    let weak: Vec<&str> = ops["operations"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|o| o["weak"].is_string())
        .map(|o| o["op_id"].as_str().unwrap())
        .collect();
    assert_eq!(weak, vec![STATS, RELOAD]);
    assert!(session.read_conflicts().unwrap().is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reviewers_pick_is_used_by_the_next_run_over_discovery() {
    let server = ScriptedServer::start(script()).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("session");
    tokio::task::block_in_place(|| run(&server, dir.path(), &out, &[]));
    // The reviewer takes the static side for stats, and names reload's handler by hand.
    let home = dir.path();
    let pick = |args: &[&str]| {
        let mut all = vec!["handler", out.to_str().unwrap()];
        all.extend_from_slice(args);
        let o = mastor_cmd(&server.base_url(), home, &all).output().unwrap();
        let text = String::from_utf8_lossy(&o.stdout).into_owned();
        assert_eq!(
            o.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&o.stderr)
        );
        text
    };
    let said = pick(&["--op", STATS, "--pick", "static"]);
    assert!(said.contains("handle"), "{said}");
    pick(&["--op", RELOAD, "--file", ADMIN, "--method", "stats"]);
    let shown = pick(&["--op", STATS]);
    assert!(
        shown.contains("won:") && shown.contains("picked:"),
        "{shown}"
    );
    let session = Session::open(&out).unwrap();
    let choices = session.read_handler_choices().unwrap();
    assert_eq!(choices[STATS].handler.method, "handle");
    assert_eq!(choices[RELOAD].handler.method, "stats");

    let before = server.requests().len();
    // Every operation is now picked or matched exactly, so `auto` would not ask: asked.
    tokio::task::block_in_place(|| {
        let extra = ["--refresh-from", "extraction", "--discovery", "always"];
        run(&server, dir.path(), &out, &extra)
    });
    // The second run's extraction prompts name the picks.
    assert_eq!(
        extraction_handlers(&server, before),
        vec![
            ("GET /admin/v1/stats".into(), "AdminHandler.handle".into()),
            ("GET /v2/languages".into(), "ApiHandler.languages".into()),
            ("POST /admin/v1/reload".into(), "AdminHandler.stats".into()),
        ]
    );
    let conflicts = session.read_conflicts().unwrap();
    assert_eq!(conflicts[STATS].won, HandlerSide::Picked);
    assert_eq!(conflicts[RELOAD].won, HandlerSide::Picked);

    // Under `auto` a pick counts as resolved: nothing left for discovery to change.
    let before = server.requests().len();
    tokio::task::block_in_place(|| {
        run(&server, dir.path(), &out, &["--refresh-from", "discovery"])
    });
    let asked = server.requests()[before..]
        .iter()
        .filter(|r| r.agent.as_deref() == Some("discovery"))
        .count();
    assert_eq!(asked, 0);
    let state: Value = session.read_json("state.json").unwrap().unwrap();
    assert_eq!(state["discovery"]["ran"], false, "{}", state["discovery"]);
    let why = state["discovery"]["why"].as_str().unwrap();
    assert!(
        why.contains("the reviewer picked the handler of 2 of 3 operations"),
        "{why}"
    );
}
