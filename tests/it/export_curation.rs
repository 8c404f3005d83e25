//! Exports a curator can trust: the Postman assertion library once per collection, the
//! readable export showing what an edit changed (original → edited) and which verdicts
//! are stale, and the workbench's export dialog (several formats at once, counts per
//! format, warnings, no silent replacement).

use crate::export_common::*;
use mastor::export::{self, ExportInput, Format, Selection};
use mastor::model::{Decision, Outcome, ReviewDecision, StepVerdict, Verdict, content_hash_of};
use mastor::runner::{RunReport, Summary};
use mastor::store::{Manifest, Session, SuiteRecord};
use mastor::suite::session::{LATEST_VERDICTS, VerdictFile};
use serde_json::Value;

#[test]
fn postman_defines_the_assertion_library_once_per_collection() {
    let dir = tempfile::tempdir().unwrap();
    let input = ExportInput::from_suite(petstore_suite(false), Selection::Reviewed);
    let report = export::export(&input, Format::Postman, dir.path()).unwrap();
    let text = std::fs::read_to_string(&report.files[0]).unwrap();
    assert_eq!(
        text.matches("function mastorCheck(").count(),
        1,
        "one copy of the library for the whole collection"
    );
    let c: Value = serde_json::from_str(&text).unwrap();
    let events = c["event"].as_array().unwrap();
    assert!(
        events.iter().any(|e| e["listen"] == "test"
            && e["script"]["exec"]
                .to_string()
                .contains("mastorLib = function (pm)")),
        "the collection's test script defines it: {events:?}"
    );
    let mut requests = 0;
    let mut stack: Vec<&Value> = c["item"].as_array().unwrap().iter().collect();
    while let Some(item) = stack.pop() {
        if let Some(children) = item["item"].as_array() {
            stack.extend(children);
            continue;
        }
        requests += 1;
        let exec = item["event"]
            .as_array()
            .unwrap()
            .iter()
            .find(|e| e["listen"] == "test")
            .and_then(|e| e["script"]["exec"].as_array())
            .unwrap();
        // One line gets the library's checks, then one line per assertion or capture:
        // none carries a copy of the library.
        let call = exec[0].as_str().unwrap();
        assert!(call.contains("mastorLib(pm)"), "{call}");
        for line in exec.iter().skip(1).filter_map(Value::as_str) {
            assert!(
                line.starts_with("pm.test(") || line.starts_with("check.capture("),
                "{line}"
            );
            assert!(!line.contains("function mastorCheck("), "{line}");
        }
    }
    assert!(requests > 5);
    eprintln!(
        "postman collection: {} bytes for {requests} requests",
        text.len()
    );
}

fn decide(session: &Session, o_id: &str, decision: Decision, edited: Option<Value>) {
    session
        .append_decision(&ReviewDecision {
            o_id: o_id.to_string(),
            decision,
            edited,
            note: None,
            at: "2026-12-02T10:00:00Z".to_string(),
            step: None,
        })
        .unwrap();
}

#[test]
fn readable_export_shows_edits_and_stale_verdicts() {
    let dir = tempfile::tempdir().unwrap();
    let sdir = dir.path().join("session");
    let session = Session::create(&sdir, Manifest::new("petstore", "openapi.json")).unwrap();
    let suite = petstore_suite(false);
    let original = suite.oracles[1].clone(); // GET /pets#fi_bad_limit
    let mut rec = SuiteRecord::new(original.op_id.clone());
    rec.oracles.push(original.clone());
    rec.oracles.push(suite.oracles[0].clone());
    session.write_suite(&rec).unwrap();
    let o_id = original.o_id();
    let mut edited = original.clone();
    edited.description = "a non-numeric limit is refused".into();
    edited.assertions[0] = status(422);
    decide(
        &session,
        &o_id,
        Decision::Edited,
        Some(serde_json::to_value(&edited).unwrap()),
    );
    decide(&session, &suite.oracles[0].o_id(), Decision::Accepted, None);
    // The latest run ran the original (before the edit): its verdict is stale now. The
    // other oracle's verdict is of its current content.
    let verdict = |o: &mastor::model::Oracle, outcome| Verdict {
        o_id: o.o_id(),
        outcome,
        steps: vec![StepVerdict {
            op_id: o.op_id.clone(),
            outcome,
            assertions: vec![],
            exchange: None,
            message: String::new(),
        }],
        at: "2026-12-02T11:00:00Z".into(),
        base_url: "http://127.0.0.1:9".into(),
        isolation: None,
        content_hash: content_hash_of(o),
    };
    let file = VerdictFile {
        at: "2026-12-02T11:00:00Z".into(),
        base_url: "http://127.0.0.1:9".into(),
        report: RunReport {
            verdicts: vec![
                verdict(&original, Outcome::Pass),
                verdict(&suite.oracles[0], Outcome::Fail),
            ],
            summary: Summary::default(),
        },
    };
    session.write_json(LATEST_VERDICTS, &file).unwrap();

    let input = export::load_session(&sdir, Selection::Reviewed).unwrap();
    assert!(input.originals.contains_key(&o_id));
    let out = dir.path().join("md");
    let report = export::export(&input, Format::Readable, &out).unwrap();
    let md = std::fs::read_to_string(&report.files[0]).unwrap();
    let section = |id: &str| -> String {
        let head = format!("### `{id}`");
        let start = md
            .find(&head)
            .unwrap_or_else(|| panic!("no section {id}:\n{md}"));
        let rest = &md[start..];
        let end = rest[head.len()..]
            .find("<a id=")
            .map_or(rest.len(), |e| e + head.len());
        rest[..end].trim_end().to_string()
    };
    let edited_section = section(&o_id);
    insta::assert_snapshot!("readable_edited_oracle_section", edited_section);
    assert!(
        edited_section.contains("`assertions[0].expected`: `400` → `422`"),
        "{edited_section}"
    );
    assert!(edited_section.contains("(stale:"), "{edited_section}");
    let other = section(&suite.oracles[0].o_id());
    assert!(!other.contains("**Edited**"), "{other}");
    assert!(!other.contains("(stale:"), "{other}");
}
