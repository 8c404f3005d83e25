//! `--discovery auto|always|off` through the real binary against the scripted model.
//! Discovery costs one call per entry file, each with a bundle; `auto` (the default) asks
//! only when an answer could change the run: an operation without a static handler, or a
//! generic static match discovery may overrule. On petstore's pet operations (POST, GET,
//! DELETE: every one matched to its own method) it is skipped; on the whole petstore API
//! `GET /stats` is served by `StatsHandler.handle`, which routes on the request itself,
//! so it runs. The run's summary (text and `--json`) and the dry-run plan say which and
//! why. The weak-match fixture's run under `auto` is in `scan_overrule`.

use crate::support::*;
use mastor::llm::scripted::ScriptedServer;
use serde_json::Value;
use std::path::Path;
use std::process::Output;

/// Entry files of petstore-jdk: discovery asks once per entry file.
const ENTRY_FILES: usize = 4;

/// `mastor run` on petstore's POST, GET and DELETE with `extra`, into a fresh session.
fn run(server: &ScriptedServer, home: &Path, extra: &[&str]) -> Output {
    let out = home.join("session");
    let mut args = vec![
        "run",
        "tests/fixtures/petstore-jdk",
        "--out",
        out.to_str().unwrap(),
        "--no-multi-op",
        "--no-challenger",
    ];
    for op in [POST, GET, DELETE] {
        args.extend(["--op", op]);
    }
    args.extend_from_slice(extra);
    let mut cmd = mastor_cmd(&server.base_url(), home, &args);
    cmd.current_dir(env!("CARGO_MANIFEST_DIR"));
    tokio::task::block_in_place(|| cmd.output().unwrap())
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
    assert_eq!(d["why"], "the scan matched all 3 operations exactly");
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
        text.contains("Discovery: not run (auto): the scan matched all 3 operations exactly"),
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
    let out = home.join("session");
    let mut args = vec![
        "run",
        "tests/fixtures/petstore-jdk",
        "--out",
        out.to_str().unwrap(),
        "--dry-run",
        "--json",
    ];
    if !all {
        for op in [POST, GET, DELETE] {
            args.extend(["--op", op]);
        }
    }
    args.extend_from_slice(extra);
    let mut cmd = mastor_cmd(&server.base_url(), home, &args);
    cmd.current_dir(env!("CARGO_MANIFEST_DIR"));
    let output = tokio::task::block_in_place(|| cmd.output().unwrap());
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
        "the scan matched all 3 operations exactly"
    );
    let p = plan(&server, home.path(), false, &["--discovery", "always"]);
    assert_eq!(discovery_calls(&p), ENTRY_FILES);
    // The whole API: GET /stats is served by a handler that routes on the request, a
    // match discovery may overrule, so auto plans it and names the operation.
    let p = plan(&server, home.path(), true, &[]);
    assert_eq!(discovery_calls(&p), ENTRY_FILES);
    assert_eq!(p["discovery"]["ran"], true);
    let why = p["discovery"]["why"].as_str().unwrap();
    assert!(
        why.starts_with("GET /stats: ") && why.contains("StatsHandler.handle"),
        "{why}"
    );
    assert_eq!(server.calls(), 0, "a plan sends nothing");
}
