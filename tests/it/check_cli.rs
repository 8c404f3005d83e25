//! `mastor check` end to end: exit codes, text, JSON and JUnit output, sessions.

use crate::runner_support;

use mastor::model::{Decision, Outcome, ReviewDecision};
use mastor::runner::RunReport;
use mastor::store::Session;
use quick_xml::Reader;
use quick_xml::events::Event;
use runner_support::{closed_port_url, fixture_url, mastor};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

fn write_suite(dir: &Path, v: Value) -> PathBuf {
    let path = dir.join("suite.json");
    std::fs::write(&path, serde_json::to_string_pretty(&v).unwrap()).unwrap();
    path
}

fn small_suite() -> Value {
    json!([
        {"op_id": "GET /pets/{id}", "test_id": "rex", "input": {"path": {"id": 1}},
         "assertions": [{"type": "status", "expected": 200},
                        {"type": "field", "field_path": "name", "op": "equals", "expected": "Rex"}]},
        {"op_id": "GET /pets/{id}", "test_id": "missing", "input": {"path": {"id": 999}},
         "assertions": [{"type": "status", "expected": 200}]},
        {"op_id": "GET /stats", "test_id": "stats",
         "assertions": [{"type": "field", "field_path": "total", "op": "gte", "expected": 3}]}
    ])
}

#[test]
fn text_output_exit_codes_and_op_filter() {
    let dir = tempfile::tempdir().unwrap();
    let suite = write_suite(dir.path(), small_suite());
    let s = suite.to_str().unwrap();
    let (code, out, err) = mastor(&["check", s, "--base-url", fixture_url()]);
    assert_eq!(code, 1, "{out}\n{err}");
    assert!(out.contains("✓ GET /pets/{id}#rex"), "{out}");
    assert!(
        out.contains("✗ GET /pets/{id}#missing  expected 200, got 404 at status"),
        "{out}"
    );
    assert!(
        out.contains("curl -sS -i '"),
        "failure details carry a curl line: {out}"
    );
    assert!(
        out.contains("2 passed, 1 failed, 0 errors, 0 skipped"),
        "{out}"
    );

    let (code, out, _) = mastor(&[
        "check",
        s,
        "--base-url",
        fixture_url(),
        "--op",
        "get /stats",
    ]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("1 passed, 0 failed"), "{out}");
}

#[test]
fn unknown_op_is_an_input_error() {
    let dir = tempfile::tempdir().unwrap();
    let suite = write_suite(dir.path(), small_suite());
    let (code, out, err) = mastor(&[
        "check",
        suite.to_str().unwrap(),
        "--base-url",
        fixture_url(),
        "--op",
        "GET /nope",
    ]);
    assert_eq!(code, 2, "{out}\n{err}");
    assert!(
        err.contains("GET /nope") && err.contains("GET /stats"),
        "{err}"
    );
    assert!(out.is_empty(), "nothing ran: {out}");
}

#[test]
fn bad_unreachable_or_unsafe_base_urls_exit_2_fast() {
    let dir = tempfile::tempdir().unwrap();
    let suite = write_suite(dir.path(), small_suite());
    let s = suite.to_str().unwrap();
    let url = closed_port_url();
    let started = Instant::now();
    let (code, _, err) = mastor(&["check", s, "--base-url", &url]);
    assert!(started.elapsed() < Duration::from_secs(6));
    assert_eq!(code, 2);
    assert!(err.contains("cannot reach") && err.contains(&url), "{err}");

    let (code, _, err) = mastor(&["check", s, "--base-url", "ftp://127.0.0.1/"]);
    assert_eq!(code, 2);
    assert!(err.contains("bad base URL"), "{err}");

    let writes = write_suite(
        dir.path(),
        json!([{"op_id": "POST /pets", "test_id": "c", "input": {"body": {"name": "x"}},
                "assertions": [{"type": "status", "expected": 201}]}]),
    );
    // Refused up front (the runner test shows no connection is attempted).
    let (code, _, err) = mastor(&[
        "check",
        writes.to_str().unwrap(),
        "--base-url",
        "http://192.0.2.1",
    ]);
    assert_eq!(code, 2);
    assert!(
        err.contains("--allow-writes") && err.contains("POST /pets"),
        "{err}"
    );

    let (code, _, err) = mastor(&["check", "/no/such/suite.json", "--base-url", fixture_url()]);
    assert_eq!(code, 2);
    assert!(err.contains("/no/such/suite.json"), "{err}");
}

#[test]
fn json_output_and_junit_xml() {
    let dir = tempfile::tempdir().unwrap();
    let suite = write_suite(dir.path(), small_suite());
    let xml_path = dir.path().join("out/report.xml");
    std::fs::create_dir_all(xml_path.parent().unwrap()).unwrap();
    let (code, out, err) = mastor(&[
        "check",
        suite.to_str().unwrap(),
        "--base-url",
        fixture_url(),
        "--json",
        "--junit-xml",
        xml_path.to_str().unwrap(),
    ]);
    assert_eq!(code, 1, "{err}");
    let report: RunReport = serde_json::from_str(&out).expect("--json prints a RunReport");
    assert_eq!(report.verdicts.len(), 3);
    assert_eq!((report.summary.passed, report.summary.failed), (2, 1));

    let xml = std::fs::read_to_string(&xml_path).unwrap();
    let mut reader = Reader::from_str(&xml);
    let (mut suites, mut cases, mut failures) = (Vec::new(), 0, Vec::new());
    let mut in_failure = false;
    let mut failure_text = String::new();
    loop {
        match reader.read_event().expect("well-formed XML") {
            Event::Start(e) | Event::Empty(e) if e.name().as_ref() == b"testsuite" => {
                let name = e
                    .try_get_attribute("name")
                    .unwrap()
                    .unwrap()
                    .unescape_value()
                    .unwrap();
                suites.push(name.into_owned());
            }
            Event::Start(e) | Event::Empty(e) if e.name().as_ref() == b"testcase" => cases += 1,
            Event::Start(e) if e.name().as_ref() == b"failure" => {
                let msg = e
                    .try_get_attribute("message")
                    .unwrap()
                    .unwrap()
                    .unescape_value()
                    .unwrap();
                failures.push(msg.into_owned());
                in_failure = true;
            }
            Event::CData(t) if in_failure => {
                failure_text.push_str(&String::from_utf8_lossy(&t.into_inner()));
            }
            Event::End(e) if e.name().as_ref() == b"failure" => in_failure = false,
            Event::Eof => break,
            _ => {}
        }
    }
    assert_eq!(suites, ["GET /pets/{id}", "GET /stats"]);
    assert_eq!(cases, 3);
    assert_eq!(failures, ["expected 200, got 404 at status"]);
    assert!(
        failure_text.contains("curl -sS -i") && failure_text.contains("/pets/999"),
        "{failure_text}"
    );
}

#[test]
fn session_runs_accepted_and_edited_and_stores_verdicts() {
    let dir = tempfile::tempdir().unwrap();
    let suite = write_suite(dir.path(), small_suite());
    let session_dir = dir.path().join("session");
    let sd = session_dir.to_str().unwrap();
    let (code, out, err) = mastor(&["import", suite.to_str().unwrap(), "--out", sd]);
    assert_eq!(code, 0, "{out}\n{err}");

    // Nothing accepted yet: the default `accepted` has nothing to run.
    let (code, _, err) = mastor(&["check", sd, "--base-url", fixture_url()]);
    assert_eq!(code, 2);
    assert!(err.contains("--only all"), "{err}");

    let session = Session::open(&session_dir).unwrap();
    let at = "2026-12-02T00:00:00Z".to_string();
    session
        .append_decision(&ReviewDecision {
            o_id: "GET /pets/{id}#rex".into(),
            decision: Decision::Accepted,
            edited: None,
            note: None,
            at: at.clone(),
            step: None,
        })
        .unwrap();
    // The edited form expects the real status, so the edited oracle passes.
    session
        .append_decision(&ReviewDecision {
            o_id: "GET /pets/{id}#missing".into(),
            decision: Decision::Edited,
            edited: Some(json!({"op_id": "GET /pets/{id}", "test_id": "missing",
                "input": {"path": {"id": 999}}, "assertions": [{"type": "status", "expected": 404}]})),
            note: None,
            at,
            step: None,
        })
        .unwrap();
    let (code, out, err) = mastor(&["check", sd, "--base-url", fixture_url()]);
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(out.contains("2 passed, 0 failed"), "{out}");
    assert!(
        !out.contains("#stats"),
        "proposed oracles do not run by default: {out}"
    );

    let latest: Value = session.read_json("verdicts/latest.json").unwrap().unwrap();
    assert_eq!(latest["verdicts"].as_array().unwrap().len(), 2);
    assert_eq!(latest["base_url"], json!(fixture_url()));
    let stamped = session.list("verdicts").unwrap();
    assert_eq!(
        stamped.len(),
        2,
        "latest plus one timestamped copy: {stamped:?}"
    );

    let (code, out, _) = mastor(&["check", sd, "--base-url", fixture_url(), "--only", "all"]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("3 passed"), "{out}");
    let latest: Value = session.read_json("verdicts/latest.json").unwrap().unwrap();
    let outcomes: Vec<Outcome> = serde_json::from_value(
        latest["verdicts"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v["outcome"].clone())
            .collect(),
    )
    .unwrap();
    assert_eq!(outcomes, [Outcome::Pass; 3]);
}
