//! The one "run these oracles of a session" (`mastor::suite::run`), as `mastor check` and
//! the workbench's oracle runs both call it: the workbench's runs now get the type
//! filter, isolation of failures and error verdicts for what cannot run.

use crate::tui_common::tiny_api;
use crate::tui_undo::Bench;
use mastor::suite::filter::OracleType;
use mastor::suite::run::{self, Event, RunError, RunOptions};
use mastor::tui::oracle_run::{run_oracles_opts, run_oracles_with};
use serde_json::{Value, json};
use std::sync::Mutex;

fn latest(dir: &std::path::Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(dir.join("verdicts/latest.json")).unwrap())
        .unwrap()
}

#[test]
fn a_workbench_run_with_a_reset_isolates_its_failures_as_check_does() {
    let mut b = Bench::new();
    b.press("<enter>");
    b.bulk_accept();
    // Every request answers `200 []`: the error-case oracles fail, and fail again alone.
    let url = tiny_api();
    let summary = run_oracles_with(b.session.dir(), &url, &[], Some(" true "), &|_, _| {}).unwrap();
    let verdicts = latest(b.session.dir())["verdicts"]
        .as_array()
        .unwrap()
        .clone();
    let failing: Vec<&Value> = verdicts
        .iter()
        .filter(|v| matches!(v["outcome"].as_str(), Some("fail" | "error")))
        .collect();
    assert!(
        !failing.is_empty(),
        "the fixture has oracles a `200 []` fails: {verdicts:?}"
    );
    for v in &failing {
        assert_eq!(v["isolation"], json!("wrong"), "{v}");
    }
    assert!(
        summary.contains(&format!(
            "isolated: {} wrong, 0 order-dependent",
            failing.len()
        )),
        "{summary}"
    );
    // Without a reset there is no isolation, as `check` without --isolate-failures.
    let plain = run_oracles_with(b.session.dir(), &url, &[], None, &|_, _| {}).unwrap();
    assert!(!plain.contains("isolated"), "{plain}");
}

#[test]
fn a_workbench_run_takes_checks_type_filter() {
    let mut b = Bench::new();
    b.press("<enter>");
    b.bulk_accept();
    let url = tiny_api();
    let suite = mastor::suite::session::read(&b.session).unwrap().suite;
    let accepted = |t: OracleType| {
        suite
            .oracles
            .iter()
            .filter(|o| suite.review.contains_key(&o.o_id()) && OracleType::of(o) == t)
            .count()
    };
    let (status, field) = (accepted(OracleType::Status), accepted(OracleType::Field));
    assert!(
        status > 0 && field > 0,
        "{status} status, {field} field oracles"
    );
    for (t, n) in [(OracleType::Status, status), (OracleType::Field, field)] {
        let mut opts = RunOptions::new(&url);
        opts.types = vec![t];
        let totals = Mutex::new(Vec::new());
        run_oracles_opts(b.session.dir(), &opts, &|_, total| {
            totals.lock().unwrap().push(total)
        })
        .unwrap();
        assert!(
            totals.into_inner().unwrap().iter().all(|&total| total == n),
            "{t}"
        );
    }
    // No sequences in this session: the filter leaves nothing, and the run says so.
    let mut opts = RunOptions::new(&url);
    opts.types = vec![OracleType::Multi];
    let err = run::run(b.session.dir(), &opts, &|_| {}).unwrap_err();
    assert!(matches!(err, RunError::NothingToRun(_)), "{err}");
    assert!(err.to_string().contains("types: multi"), "{err}");
}

#[test]
fn entries_that_cannot_run_are_error_verdicts_unless_lenient() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("suite.json");
    let suite = json!([
        {"op_id": "GET /pets", "test_id": "ok", "assertions": [{"type": "status", "expected": 200}]},
        {"op_id": "GET /pets", "test_id": "bad",
         "assertions": [{"type": "field", "field_path": "x", "op": "sounds_like", "expected": 1}]}
    ]);
    std::fs::write(&file, suite.to_string()).unwrap();
    let url = tiny_api();
    let heard = Mutex::new(Vec::new());
    let events = |e: Event| heard.lock().unwrap().push(e);
    let checked = run::run(&file, &RunOptions::new(&url), &events).unwrap();
    let outcomes: Vec<(String, String)> = checked
        .report
        .verdicts
        .iter()
        .map(|v| (v.o_id.clone(), format!("{:?}", v.outcome)))
        .collect();
    assert_eq!(
        outcomes,
        [
            ("GET /pets#ok".to_string(), "Pass".to_string()),
            ("GET /pets#bad".to_string(), "Error".to_string())
        ]
    );
    assert!(
        checked.report.verdicts[1].steps[0]
            .message
            .starts_with("cannot run this entry")
    );
    assert!(
        checked.stored.is_none(),
        "a suite file has no session to store into"
    );
    let mut lenient = RunOptions::new(&url);
    lenient.lenient = true;
    heard.lock().unwrap().clear();
    let checked = run::run(&file, &lenient, &events).unwrap();
    assert_eq!(checked.report.verdicts.len(), 1);
    let heard = heard.into_inner().unwrap();
    assert!(
        heard
            .iter()
            .any(|e| matches!(e, Event::Skipped(s) if s.contains("bad"))),
        "{heard:?}"
    );
}

#[test]
fn isolation_without_a_reset_and_vanished_oracles_are_refused_by_name() {
    let b = Bench::new();
    let mut opts = RunOptions::new("http://127.0.0.1:1");
    opts.isolate_failures = true;
    let err = run::run(b.session.dir(), &opts, &|_| {}).unwrap_err();
    assert!(
        err.to_string().contains("--isolate-failures needs --reset"),
        "{err}"
    );
    let mut opts = RunOptions::new("http://127.0.0.1:1");
    opts.ids = ["GET /pets#gone".to_string()].into();
    let err = run::run(b.session.dir(), &opts, &|_| {}).unwrap_err();
    assert_eq!(
        err.to_string(),
        "GET /pets#gone is no longer in the session"
    );
}
