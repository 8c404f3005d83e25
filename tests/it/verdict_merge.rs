//! Verdicts a partial run leaves behind: `check --op X` merges into `verdicts/latest.json`
//! (other oracles keep their own verdict, time and base URL), each run is kept as a
//! stamped file, and every verdict carries the content hash of the oracle that ran.

use crate::runner_support::{fixture_url, mastor};
use mastor::model::{Oracle, Outcome, content_hash_of};
use mastor::store::Session;
use mastor::suite::session::{LATEST_VERDICTS, VerdictFile};
use serde_json::json;

fn suite() -> serde_json::Value {
    json!([
        {"op_id": "GET /pets/{id}", "test_id": "rex", "input": {"path": {"id": 1}},
         "assertions": [{"type": "status", "expected": 200}]},
        {"op_id": "GET /pets/{id}", "test_id": "missing", "input": {"path": {"id": 999}},
         "assertions": [{"type": "status", "expected": 200}]},
        {"op_id": "GET /stats", "test_id": "stats",
         "assertions": [{"type": "field", "field_path": "total", "op": "gte", "expected": 3}]}
    ])
}

fn latest(session: &Session) -> VerdictFile {
    session
        .read_json::<VerdictFile>(LATEST_VERDICTS)
        .expect("readable")
        .expect("latest verdicts stored")
}

#[test]
fn partial_check_merges_into_latest_and_keeps_history() {
    let dir = tempfile::tempdir().unwrap();
    let suite_path = dir.path().join("suite.json");
    std::fs::write(&suite_path, suite().to_string()).unwrap();
    let sd = dir.path().join("session");
    let sd_s = sd.to_str().unwrap();
    let (code, out, err) = mastor(&["import", suite_path.to_str().unwrap(), "--out", sd_s]);
    assert_eq!(code, 0, "{out}\n{err}");

    let (code, out, _) = mastor(&["check", sd_s, "--base-url", fixture_url(), "--only", "all"]);
    assert_eq!(code, 1, "the missing pet fails: {out}");
    let session = Session::open(&sd).unwrap();
    let full = latest(&session);
    assert_eq!(full.report.verdicts.len(), 3);
    let failed_at = full
        .report
        .verdicts
        .iter()
        .find(|v| v.o_id == "GET /pets/{id}#missing")
        .map(|v| v.at.clone())
        .unwrap();

    // A partial run of another operation: its exit code and report describe it alone.
    let (code, out, err) = mastor(&[
        "check",
        sd_s,
        "--base-url",
        fixture_url(),
        "--only",
        "all",
        "--op",
        "GET /stats",
    ]);
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(out.contains("1 passed, 0 failed"), "{out}");
    assert!(!out.contains("#missing"), "{out}");

    let merged = latest(&session);
    let ids: Vec<&str> = merged
        .report
        .verdicts
        .iter()
        .map(|v| v.o_id.as_str())
        .collect();
    assert_eq!(
        ids,
        [
            "GET /pets/{id}#rex",
            "GET /pets/{id}#missing",
            "GET /stats#stats"
        ],
        "every oracle keeps a verdict, in a stable order"
    );
    let missing = &merged.report.verdicts[1];
    assert_eq!(
        missing.outcome,
        Outcome::Fail,
        "the known failure is still there"
    );
    assert_eq!(
        missing.at, failed_at,
        "it keeps the time of the run that found it"
    );
    assert_eq!(
        missing.base_url.trim_end_matches('/'),
        fixture_url().trim_end_matches('/')
    );
    assert_ne!(merged.report.verdicts[2].at, full.report.verdicts[2].at);
    let s = &merged.report.summary;
    assert_eq!((s.passed, s.failed, s.errors), (2, 1, 0), "recounted");

    let history: Vec<String> = session
        .list("verdicts")
        .unwrap()
        .into_iter()
        .filter(|n| n != "latest.json")
        .collect();
    assert_eq!(history.len(), 2, "one stamped file per run: {history:?}");
    let runs: Vec<usize> = history
        .iter()
        .map(|n| {
            session
                .read_json::<VerdictFile>(&format!("verdicts/{n}"))
                .unwrap()
                .unwrap()
                .report
                .verdicts
                .len()
        })
        .collect();
    assert_eq!(runs, [3, 1], "each stamped file holds its own run only");

    // The workbench's history of one oracle: every run that ran it, newest first.
    let stats = mastor::tui::loader::verdict_history(&session, "GET /stats#stats");
    assert_eq!(stats.len(), 2);
    assert!(stats[0].at > stats[1].at, "newest first");
    let missing = mastor::tui::loader::verdict_history(&session, "GET /pets/{id}#missing");
    assert_eq!(missing.len(), 1);
    assert_eq!(missing[0].outcome, Outcome::Fail);
}

#[test]
fn verdicts_carry_the_hash_of_the_oracle_that_ran() {
    let dir = tempfile::tempdir().unwrap();
    let suite_path = dir.path().join("suite.json");
    std::fs::write(&suite_path, suite().to_string()).unwrap();
    let (code, out, _) = mastor(&[
        "check",
        suite_path.to_str().unwrap(),
        "--base-url",
        fixture_url(),
        "--json",
    ]);
    assert_eq!(code, 1, "{out}");
    let report: mastor::runner::RunReport = serde_json::from_str(&out).unwrap();
    let oracles: Vec<Oracle> = serde_json::from_value(suite()).unwrap();
    for (o, v) in oracles.iter().zip(&report.verdicts) {
        assert_eq!(v.o_id, o.o_id());
        assert_eq!(v.content_hash, content_hash_of(o), "{}", v.o_id);
    }
    let mut edited = oracles[0].clone();
    edited.assertions =
        serde_json::from_value(json!([{"type": "status", "expected": 404}])).unwrap();
    assert_ne!(content_hash_of(&edited), content_hash_of(&oracles[0]));
}
