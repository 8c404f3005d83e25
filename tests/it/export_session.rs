//! Export from a session directory: suites and groups are read from the store, the review
//! journal decides what is exported (edits replace the generated oracle, undo counts),
//! the latest verdicts reach the readable export, and `mastor export <dir>` works.

use crate::export_common;

use export_common::*;
use mastor::export::{self, ExportError, Format, Selection, load_session};
use mastor::model::{Decision, Outcome, ReviewDecision, ReviewState, Verdict};
use mastor::runner::{RunReport, Summary};
use mastor::store::{GroupRecord, Manifest, Session, SuiteRecord};
use mastor::suite::session::{LATEST_VERDICTS, VerdictFile};
use serde_json::json;
use std::path::Path;
use std::process::Command;

fn decide(session: &Session, o_id: &str, decision: Decision, edited: Option<serde_json::Value>) {
    session
        .append_decision(&ReviewDecision {
            o_id: o_id.to_string(),
            decision,
            edited,
            note: None,
            at: "2026-12-02T10:00:00Z".to_string(),
            step: None,
        })
        .expect("append decision");
}

/// A session holding the small petstore suite; returns the o_ids of the oracles used.
fn make_session(dir: &Path) -> Session {
    let suite = petstore_suite(false);
    let session = Session::create(dir, Manifest::new("petstore", "openapi.json")).expect("create");
    let mut by_op: Vec<SuiteRecord> = Vec::new();
    for oracle in suite.oracles {
        match by_op.iter_mut().find(|r| r.op_id == oracle.op_id) {
            Some(record) => record.oracles.push(oracle),
            None => {
                let mut record = SuiteRecord::new(oracle.op_id.clone());
                record.oracles.push(oracle);
                by_op.push(record);
            }
        }
    }
    for record in &by_op {
        session.write_suite(record).expect("write suite");
    }
    for multi in suite.multi_op {
        let mut group = GroupRecord::new(multi.group_id.clone());
        group.oracles.push(multi);
        session.write_group(&group).expect("write group");
    }
    session
}

#[test]
fn session_review_journal_decides_what_is_exported() {
    let dir = tempfile::tempdir().expect("tempdir");
    let session = make_session(dir.path());
    decide(&session, "GET /stats#fv_counts", Decision::Accepted, None);
    decide(&session, "GET /pets#fv_list", Decision::Rejected, None);
    decide(&session, "GET /pets#fv_sold", Decision::Accepted, None);
    session.append_undo("GET /pets#fv_sold").expect("undo");
    let mut edited = petstore_suite(false).oracles[0].clone();
    edited.test_id = "fv_list".into();
    edited.description = "edited by the reviewer".into();
    edited.assertions.truncate(1);
    decide(
        &session,
        "GET /pets#fv_list",
        Decision::Edited,
        Some(serde_json::to_value(&edited).expect("json")),
    );
    decide(
        &session,
        "pet-lifecycle#create_read_delete",
        Decision::Accepted,
        None,
    );
    let verdict = Verdict {
        o_id: "GET /stats#fv_counts".into(),
        outcome: Outcome::Pass,
        steps: vec![],
        at: "2026-12-02T11:00:00Z".into(),
        base_url: "http://127.0.0.1:9".into(),
        isolation: None,
        content_hash: None,
    };
    let file = VerdictFile {
        at: "2026-12-02T11:00:00Z".into(),
        base_url: "http://127.0.0.1:9".into(),
        report: RunReport {
            verdicts: vec![verdict],
            summary: Summary::default(),
        },
    };
    session
        .write_json(LATEST_VERDICTS, &file)
        .expect("verdicts");

    let input = load_session(dir.path(), Selection::Reviewed).expect("load");
    assert_eq!(input.oracles.len(), petstore_suite(false).oracles.len());
    assert_eq!(input.state("GET /pets#fv_list"), ReviewState::Edited);
    assert_eq!(
        input.state("GET /pets#fv_sold"),
        ReviewState::Proposed,
        "undo ignored"
    );
    assert_eq!(input.state("GET /stats#fv_counts"), ReviewState::Accepted);

    let selected: Vec<String> = input.selected_oracles().iter().map(|o| o.o_id()).collect();
    assert_eq!(selected, ["GET /pets#fv_list", "GET /stats#fv_counts"]);
    let list = input.selected_oracles()[0];
    assert_eq!(list.description, "edited by the reviewer");
    assert_eq!(list.assertions.len(), 1);
    let multi: Vec<String> = input.selected_multi_op().iter().map(|m| m.o_id()).collect();
    assert_eq!(multi, ["pet-lifecycle#create_read_delete"]);
    assert_eq!(
        input.verdicts["GET /stats#fv_counts"].outcome,
        Outcome::Pass
    );

    let md_dir = dir.path().join("md");
    let report = export::export(&input, Format::Readable, &md_dir).expect("readable");
    let md = std::fs::read_to_string(&report.files[0]).expect("read");
    assert!(md.contains("- **Verdict:** pass (2026-12-02T11:00:00Z against http://127.0.0.1:9)"));
    assert!(md.contains("edited by the reviewer"));
    assert!(md.contains("- **Review:** edited"));
}

#[test]
fn invalid_edit_in_journal_is_reported_and_the_original_exported() {
    let dir = tempfile::tempdir().expect("tempdir");
    let session = make_session(dir.path());
    decide(
        &session,
        "GET /stats#fv_counts",
        Decision::Edited,
        Some(json!({"assertions": 3})),
    );
    let input = load_session(dir.path(), Selection::Reviewed).expect("loads");
    assert_eq!(input.problems.len(), 1, "{:?}", input.problems);
    assert!(
        input.problems[0].contains("GET /stats#fv_counts"),
        "{:?}",
        input.problems
    );
    let selected = input.selected_oracles();
    assert_eq!(selected.len(), 1);
    assert_eq!(
        selected[0].assertions,
        petstore_suite(false)
            .oracles
            .last()
            .expect("stats")
            .assertions
    );
}

#[test]
fn not_a_session_is_a_typed_error() {
    let dir = tempfile::tempdir().expect("tempdir");
    let err = load_session(dir.path(), Selection::All).expect_err("must fail");
    assert!(matches!(err, ExportError::Session { .. }), "{err}");
    assert!(err.to_string().contains("manifest.json"), "{err}");
}

#[test]
fn cli_exports_a_session_directory() {
    let dir = tempfile::tempdir().expect("tempdir");
    let session_dir = dir.path().join(".mastor");
    let session = make_session(&session_dir);
    decide(&session, "GET /stats#fv_counts", Decision::Accepted, None);
    let out = dir.path().join("out");
    let (code, text) = run(Command::new(env!("CARGO_BIN_EXE_mastor"))
        .arg("export")
        .arg(&session_dir)
        .args(["--format", "json", "--out"])
        .arg(&out));
    assert_eq!(code, 0, "{text}");
    let suite: mastor::model::SuiteFile =
        serde_json::from_str(&std::fs::read_to_string(out.join("suite.json")).expect("read"))
            .expect("suite");
    assert_eq!(suite.oracles.len(), 1);
    assert_eq!(suite.oracles[0].o_id(), "GET /stats#fv_counts");

    // --all adds the proposed ones.
    let (code, text) = run(Command::new(env!("CARGO_BIN_EXE_mastor"))
        .arg("export")
        .arg(&session_dir)
        .args(["--format", "json", "--all", "--out"])
        .arg(&out));
    assert_eq!(code, 0, "{text}");
    let suite: mastor::model::SuiteFile =
        serde_json::from_str(&std::fs::read_to_string(out.join("suite.json")).expect("read"))
            .expect("suite");
    assert_eq!(suite.oracles.len(), petstore_suite(false).oracles.len());
    assert_eq!(suite.multi_op.len(), 2);
}
