//! Oracles must not fail because of each other (issue 15, "State"): on a private
//! petstore-jdk server, one oracle deletes Rex, so in the runner's order a later writer
//! (PUT Rex) and a sequence that reads Rex fail although each is right about the code.
//! - without a reset both fail;
//! - with `--reset CMD --reset-scope each` (CMD restarts the server on the same port, so
//!   every oracle starts on the seed data) both pass;
//! - with `--isolate-failures` both are labelled `order_dependent`, while an oracle that is
//!   wrong about the seed data is labelled `wrong`, in the text, JSON and JUnit output.

use crate::export_common::FixtureApi;
use crate::runner_support::{mastor, repo_root};
use serde_json::{Value, json};
use std::collections::BTreeMap;

fn suite() -> Value {
    let status = |n: u16| json!({"type": "status", "expected": n});
    json!({
        "schema_version": 1,
        "oracles": [
            {"test_id": "wrong_name", "op_id": "GET /pets/{id}", "input": {"path": {"id": 2}},
             "assertions": [status(200),
                {"type": "field", "field_path": "name", "op": "equals", "expected": "Garfield"}]},
            {"test_id": "delete_rex", "op_id": "DELETE /pets/{id}", "input": {"path": {"id": 1}},
             "assertions": [status(204)]},
            {"test_id": "rename_rex", "op_id": "PUT /pets/{id}",
             "input": {"path": {"id": 1}, "body": {"name": "Rexy", "status": "available"}},
             "assertions": [status(200),
                {"type": "field", "field_path": "name", "op": "equals", "expected": "Rexy"}]}
        ],
        "multi_op": [
            {"test_id": "read_rex", "group_id": "pets", "steps": [
                {"op_id": "GET /pets/{id}", "input": {"path": {"id": 1}},
                 "assertions": [status(200),
                    {"type": "field", "field_path": "name", "op": "equals", "expected": "Rex"}]}
            ]}
        ]
    })
}

/// A private server plus the shell command that restarts it on the same port.
struct Server {
    api: FixtureApi,
    reset: String,
    _state: tempfile::TempDir,
}

fn server() -> Server {
    let state = tempfile::Builder::new()
        .prefix("mastor-isolation-")
        .tempdir()
        .expect("state dir");
    let api = FixtureApi::start_with(state.path(), Some(false));
    let port = api.base_url.rsplit(':').next().expect("port").to_string();
    let script = repo_root().join("scripts/fixture-api.sh");
    let env = format!(
        "FIXTURE_API_STATE='{s}' FIXTURE_API_CLASSES='{s}/classes'",
        s = state.path().display()
    );
    let reset = format!(
        "{env} bash '{script}' stop >/dev/null && {env} bash '{script}' start {port} >/dev/null",
        script = script.display()
    );
    Server {
        api,
        reset,
        _state: state,
    }
}

/// o_id → (outcome, isolation) from `check --json`.
fn outcomes(stdout: &str) -> BTreeMap<String, (String, Option<String>)> {
    let report: Value = serde_json::from_str(stdout).unwrap_or_else(|e| panic!("{e}: {stdout}"));
    report["verdicts"]
        .as_array()
        .expect("verdicts")
        .iter()
        .map(|v| {
            (
                v["o_id"].as_str().unwrap_or_default().to_string(),
                (
                    v["outcome"].as_str().unwrap_or_default().to_string(),
                    v["isolation"].as_str().map(str::to_string),
                ),
            )
        })
        .collect()
}

const WRONG: &str = "GET /pets/{id}#wrong_name";
const DELETE: &str = "DELETE /pets/{id}#delete_rex";
const RENAME: &str = "PUT /pets/{id}#rename_rex";
const READ: &str = "pets#read_rex";

#[test]
fn check_order_dependent_failures_pass_with_reset_each_and_are_labelled_by_isolation() {
    let dir = tempfile::tempdir().expect("tempdir");
    let file = dir.path().join("suite.json");
    std::fs::write(&file, suite().to_string()).expect("write suite");
    let file = file.to_str().expect("utf-8 path");
    let server = server();
    let url = server.api.base_url.clone();
    let pass = |o: &str| (o.to_string(), ("pass".to_string(), None));
    let fail = |o: &str, i: Option<&str>| (o.to_string(), ("fail".into(), i.map(Into::into)));

    // Without a reset: the writer and the sequence fail after the delete.
    let (code, out, err) = mastor(&["check", file, "--base-url", &url, "--json"]);
    assert_eq!(code, 1, "{err}");
    let expected: BTreeMap<_, _> = [
        fail(WRONG, None),
        pass(DELETE),
        fail(RENAME, None),
        fail(READ, None),
    ]
    .into();
    assert_eq!(outcomes(&out), expected, "{out}");

    // A reset before each oracle: only the oracle that is wrong about the data fails.
    let reset = server.reset.as_str();
    let (code, out, err) = mastor(&[
        "check",
        file,
        "--base-url",
        &url,
        "--json",
        "--reset",
        reset,
        "--reset-scope",
        "each",
    ]);
    assert_eq!(code, 1, "{err}");
    let expected: BTreeMap<_, _> =
        [fail(WRONG, None), pass(DELETE), pass(RENAME), pass(READ)].into();
    assert_eq!(outcomes(&out), expected, "{out}\n{err}");

    // Isolation after a shared-state run: labels, not new outcomes (exit code still 1).
    let junit = dir.path().join("report.xml");
    let (code, out, err) = mastor(&[
        "check",
        file,
        "--base-url",
        &url,
        "--json",
        "--reset",
        reset,
        "--isolate-failures",
        "--junit-xml",
        junit.to_str().expect("utf-8"),
    ]);
    assert_eq!(code, 1, "{err}");
    let expected: BTreeMap<_, _> = [
        fail(WRONG, Some("wrong")),
        pass(DELETE),
        fail(RENAME, Some("order_dependent")),
        fail(READ, Some("order_dependent")),
    ]
    .into();
    assert_eq!(outcomes(&out), expected, "{out}\n{err}");
    let xml = std::fs::read_to_string(&junit).expect("junit xml");
    assert!(xml.contains("message=\"[order_dependent] "), "{xml}");
    assert!(xml.contains("message=\"[wrong] "), "{xml}");

    // The text report labels each line and counts the classes.
    let (code, out, err) = mastor(&[
        "check",
        file,
        "--base-url",
        &url,
        "--reset",
        reset,
        "--isolate-failures",
    ]);
    assert_eq!(code, 1, "{err}");
    assert!(
        out.contains(&format!("✗ {RENAME} [order_dependent]")),
        "{out}"
    );
    assert!(out.contains(&format!("✗ {WRONG} [wrong]")), "{out}");
    assert!(out.contains("1 wrong, 2 order_dependent"), "{out}");
}

#[test]
fn check_isolation_and_reset_each_need_a_reset_command() {
    let dir = tempfile::tempdir().expect("tempdir");
    let file = dir.path().join("suite.json");
    std::fs::write(&file, suite().to_string()).expect("write suite");
    let file = file.to_str().expect("utf-8 path");
    let url = "http://127.0.0.1:9";
    let (code, _, err) = mastor(&["check", file, "--base-url", url, "--isolate-failures"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--isolate-failures needs --reset"), "{err}");
    let (code, _, err) = mastor(&["check", file, "--base-url", url, "--reset-scope", "each"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--reset-scope each needs --reset"), "{err}");
}

#[test]
fn check_failing_reset_command_is_an_error_naming_it() {
    let dir = tempfile::tempdir().expect("tempdir");
    let file = dir.path().join("suite.json");
    std::fs::write(&file, suite().to_string()).expect("write suite");
    let file = file.to_str().expect("utf-8 path");
    // The base URL must accept a connection (checked before any reset); no HTTP answer is
    // needed, since every oracle stops at its failing reset.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let url = format!("http://{}", listener.local_addr().expect("addr"));
    let (code, out, err) = mastor(&[
        "check",
        file,
        "--base-url",
        &url,
        "--json",
        "--reset",
        "echo no database >&2; exit 3",
        "--reset-scope",
        "each",
    ]);
    assert_eq!(code, 1, "{err}");
    let report: Value = serde_json::from_str(&out).expect("json");
    let message = report["verdicts"][0]["steps"][0]["message"]
        .as_str()
        .unwrap_or_default();
    assert!(
        message.contains("reset command `echo no database >&2; exit 3` failed")
            && message.contains("no database"),
        "{message}"
    );
    let (code, out, _) = mastor(&[
        "check",
        file,
        "--base-url",
        &url,
        "--json",
        "--reset",
        "sleep 5",
        "--reset-timeout",
        "0.3",
        "--reset-scope",
        "each",
        "--op",
        "DELETE /pets/{id}",
    ]);
    assert_eq!(code, 1);
    assert!(out.contains("did not finish within 0.3 s"), "{out}");
}
