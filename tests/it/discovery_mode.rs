//! `--discovery auto|always|off` through the real binary against the scripted model.
//! Discovery costs one call per entry file, each with a bundle; `auto` (the default) asks
//! only when an answer could change the run: an operation without a static handler, or a
//! generic static match an answer could replace. On petstore (every operation matched, and
//! `GET /stats`'s routing `handle` calls no method that could replace it) it is skipped.
//! The run's summary (text and `--json`) and the dry-run plan say which and why. Runs
//! under `auto` where discovery is needed (weak matches; the reviewer's picks resolving
//! them) are in `scan_overrule`, and a fixture with operations no scan matched below.

use crate::support::*;
use mastor::llm::scripted::ScriptedServer;
use serde_json::Value;
use std::path::Path;
use std::process::Output;

/// Entry files of petstore-jdk: discovery asks once per entry file.
const ENTRY_FILES: usize = 4;

/// `mastor run` on petstore's POST, GET and DELETE with `extra`, into a fresh session,
/// without the multi-op path and the challenger (discovery is what is counted).
fn run(server: &ScriptedServer, home: &Path, extra: &[&str]) -> Output {
    let mut args = vec!["--no-multi-op", "--no-challenger"];
    args.extend_from_slice(extra);
    run_petstore(&server.base_url(), home, false, &args)
}

/// Runs with `extra` and `--json`; returns the summary's `discovery` and the discovery
/// requests the server received in this run.
async fn decided(extra: &[&str]) -> (Value, usize) {
    let server = ScriptedServer::start(petstore_script()).await.unwrap();
    let home = tempfile::tempdir().unwrap();
    let mut args = vec!["--json"];
    args.extend_from_slice(extra);
    let output = run(&server, home.path(), &args);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{extra:?}: {stderr}");
    let summary: Value = serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|e| panic!("{extra:?}: no JSON summary ({e}): {stderr}"));
    assert_eq!(summary["ok"], 3, "{extra:?}: {summary}");
    (
        summary["discovery"].clone(),
        agent_calls(&server, "discovery"),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn auto_skips_discovery_when_the_scan_matched_every_operation_exactly() {
    let (d, calls) = decided(&[]).await;
    assert_eq!(calls, 0, "auto asks nothing when every match is exact: {d}");
    assert_eq!(d["mode"], "auto");
    assert_eq!(d["ran"], false);
    assert_eq!(
        d["why"],
        "the scan matched all 3 operations and no answer could change a match"
    );
    // Named explicitly, the same.
    let (d, calls) = decided(&["--discovery", "auto"]).await;
    assert_eq!((calls, d["ran"].clone()), (0, Value::Bool(false)), "{d}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn always_asks_once_per_entry_file_and_off_never() {
    let (d, calls) = decided(&["--discovery", "always"]).await;
    assert_eq!(calls, ENTRY_FILES, "{d}");
    assert_eq!(
        (d["mode"].as_str(), d["ran"].as_bool()),
        (Some("always"), Some(true))
    );
    for off in [&["--discovery", "off"][..], &["--no-discovery"][..]] {
        let (d, calls) = decided(off).await;
        assert_eq!(calls, 0, "{off:?}");
        assert_eq!(
            (d["mode"].as_str(), d["ran"].as_bool()),
            (Some("off"), Some(false)),
            "{off:?}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_human_summary_says_what_was_decided() {
    let server = ScriptedServer::start(petstore_script()).await.unwrap();
    let home = tempfile::tempdir().unwrap();
    let output = run(&server, home.path(), &[]);
    assert_eq!(output.status.code(), Some(0));
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(
        text.contains("Discovery: not run (auto): the scan matched all 3 operations and no answer could change a match"),
        "{text}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_discovery_with_an_explicit_discovery_mode_is_a_usage_error() {
    let server = ScriptedServer::start(petstore_script()).await.unwrap();
    let home = tempfile::tempdir().unwrap();
    let output = run(
        &server,
        home.path(),
        &["--no-discovery", "--discovery", "always"],
    );
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("--no-discovery") && stderr.contains("--discovery"),
        "{stderr}"
    );
    assert_eq!(server.calls(), 0);
    assert!(!home.path().join("session").exists());
    let output = run(&server, home.path(), &["--discovery", "sometimes"]);
    assert_eq!(output.status.code(), Some(2));
}

/// The dry-run plan of `extra` on petstore (its whole API when `all`), as JSON.
fn plan(server: &ScriptedServer, home: &Path, all: bool, extra: &[&str]) -> Value {
    let mut args = vec!["--dry-run", "--json"];
    args.extend_from_slice(extra);
    let output = run_petstore(&server.base_url(), home, all, &args);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    serde_json::from_slice(&output.stdout).unwrap()
}

fn discovery_calls(plan: &Value) -> usize {
    plan["calls"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["agent"] == "discovery")
        .count()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_plan_under_auto_lists_no_discovery_call_and_says_why() {
    let server = ScriptedServer::start(petstore_script()).await.unwrap();
    let home = tempfile::tempdir().unwrap();
    let p = plan(&server, home.path(), false, &[]);
    assert_eq!(discovery_calls(&p), 0, "{}", p["calls"]);
    assert_eq!(p["discovery"]["mode"], "auto");
    assert_eq!(p["discovery"]["ran"], false);
    assert_eq!(
        p["discovery"]["why"],
        "the scan matched all 3 operations and no answer could change a match"
    );
    let p = plan(&server, home.path(), false, &["--discovery", "always"]);
    assert_eq!(discovery_calls(&p), ENTRY_FILES);
    // The whole API, `GET /stats` included (see below): nothing to ask either.
    let p = plan(&server, home.path(), true, &[]);
    assert_eq!(discovery_calls(&p), 0);
    assert_eq!(
        p["discovery"]["why"],
        "the scan matched all 10 operations and no answer could change a match"
    );
    assert_eq!(server.calls(), 0, "a plan sends nothing");
}

/// Why skipping `GET /stats` is safe: `StatsHandler.handle` routes on the request (a
/// generic match), but the code shows no other method serving it, so even an answer naming
/// the store method it calls does not replace it. `always` asks and the static match
/// stays; `auto` does not ask.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_generic_match_no_answer_can_replace_is_not_asked_about() {
    use mastor::llm::scripted::{Reply, Rule};
    use mastor::store::{HandlerSide, Session};
    const STATS: &str = "GET /stats";
    let mut script = petstore_script();
    script.rules.insert(
        0,
        Rule {
            agent: Some("discovery".into()),
            contains: Some("entry file: src/main/java/petstore/handlers/StatsHandler.java".into()),
            replies: vec![Reply::json(serde_json::json!({"matches": [
                {"op_id": STATS, "class": "PetStore", "method": "stats",
                 "file": "src/main/java/petstore/store/PetStore.java", "line": 100}]}))],
            ..Rule::default()
        },
    );
    let server = ScriptedServer::start(script).await.unwrap();
    let home = tempfile::tempdir().unwrap();
    let run = |mode: &str, out: &Path| -> Value {
        let args = [
            "run",
            "tests/fixtures/petstore-jdk",
            "--out",
            out.to_str().unwrap(),
            "--op",
            STATS,
            "--no-multi-op",
            "--no-challenger",
            "--json",
            "--discovery",
            mode,
        ];
        let mut cmd = mastor_cmd(&server.base_url(), home.path(), &args);
        cmd.current_dir(env!("CARGO_MANIFEST_DIR"));
        let output = tokio::task::block_in_place(|| cmd.output().unwrap());
        serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
            panic!(
                "no summary ({e}): {}",
                String::from_utf8_lossy(&output.stderr)
            )
        })
    };
    let asked = home.path().join("asked");
    let summary = run("always", &asked);
    assert_eq!(summary["discovery"]["ran"], true);
    assert_eq!(agent_calls(&server, "discovery"), ENTRY_FILES);
    let conflicts = Session::open(&asked).unwrap().read_conflicts().unwrap();
    let stats = &conflicts[STATS];
    assert_eq!(stats.won, HandlerSide::Static, "{stats:?}");
    assert_eq!(stats.static_entry.method, "handle");

    let summary = run("auto", &home.path().join("skipped"));
    assert_eq!(
        summary["discovery"]["ran"], false,
        "{}",
        summary["discovery"]
    );
    assert_eq!(
        agent_calls(&server, "discovery"),
        ENTRY_FILES,
        "auto asked again"
    );
}

/// An operation the scan found no handler for: only discovery can find one, so `auto`
/// asks, once per entry file, and says why.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn auto_asks_when_an_operation_has_no_static_handler() {
    let server = ScriptedServer::start(petstore_script()).await.unwrap();
    let home = tempfile::tempdir().unwrap();
    let out = home.path().join("session");
    let project = "tests/fixtures/countries-jaxrs";
    let scan = mastor_cmd(
        &server.base_url(),
        home.path(),
        &["scan", project, "--json"],
    )
    .current_dir(env!("CARGO_MANIFEST_DIR"))
    .output()
    .unwrap();
    let scan: Value = serde_json::from_slice(&scan.stdout).unwrap();
    let entry_files = scan["entry_files"].as_array().unwrap().len();
    assert!(entry_files > 0, "{}", scan["entry_files"]);
    let args = [
        "run",
        project,
        "--out",
        out.to_str().unwrap(),
        "--no-multi-op",
        "--no-challenger",
        "--json",
    ];
    let mut cmd = mastor_cmd(&server.base_url(), home.path(), &args);
    cmd.current_dir(env!("CARGO_MANIFEST_DIR"));
    let output = tokio::task::block_in_place(|| cmd.output().unwrap());
    let summary: Value = serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
        panic!(
            "no summary ({e}): {}",
            String::from_utf8_lossy(&output.stderr)
        )
    });
    let d = &summary["discovery"];
    assert_eq!(
        (d["mode"].as_str(), d["ran"].as_bool()),
        (Some("auto"), Some(true)),
        "{d}"
    );
    assert_eq!(d["why"], "1 operation without a static handler");
    assert_eq!(agent_calls(&server, "discovery"), entry_files);
}
