//! The forms a reviewer reads once a suite leaves mastor: one exported JUnit class and one
//! Postman request, snapshotted, from a session in which a reviewer edited an oracle's
//! expected status. The JUnit class states the request as a builder (method, path,
//! parameters, a body literal) and one assertion per line, carries its place in the run,
//! and its Javadoc says what the test expects now and what the reviewer changed; the
//! Postman request has one `pm.test` per assertion and the reset slot.

use crate::export_common::*;
use mastor::export::{self, Format, Selection};
use mastor::model::{Decision, Outcome, ReviewDecision, StepVerdict, Verdict, content_hash_of};
use mastor::runner::{RunReport, Summary};
use mastor::store::{Manifest, Session, SuiteRecord};
use mastor::suite::session::{LATEST_VERDICTS, VerdictFile};
use serde_json::Value;

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
fn junit_class_and_postman_request_read_as_the_reviewer_left_them() {
    let dir = tempfile::tempdir().unwrap();
    let sdir = dir.path().join("session");
    let session = Session::create(&sdir, Manifest::new("petstore", "openapi.json")).unwrap();
    let suite = petstore_suite(false);
    for op in ["GET /pets/{petId}", "POST /pets"] {
        let mut rec = SuiteRecord::new(op.to_string());
        rec.oracles
            .extend(suite.oracles.iter().filter(|o| o.op_id == op).cloned());
        session.write_suite(&rec).unwrap();
        for o in &rec.oracles {
            decide(&session, &o.o_id(), Decision::Accepted, None);
        }
    }
    // The reviewer changed what `fi_unknown` expects: 404 -> 410 (the description, the
    // model's words, still speaks of the old status).
    let original = suite
        .oracles
        .iter()
        .find(|o| o.o_id() == "GET /pets/{petId}#fi_unknown")
        .unwrap()
        .clone();
    let mut edited = original.clone();
    edited.assertions[0] = status(410);
    decide(
        &session,
        &original.o_id(),
        Decision::Edited,
        Some(serde_json::to_value(&edited).unwrap()),
    );
    let verdict = Verdict {
        o_id: original.o_id(),
        outcome: Outcome::Pass,
        steps: vec![StepVerdict {
            op_id: original.op_id.clone(),
            outcome: Outcome::Pass,
            assertions: vec![],
            exchange: None,
            message: String::new(),
        }],
        at: "2026-12-02T11:00:00Z".into(),
        base_url: "http://127.0.0.1:8080/".into(),
        isolation: None,
        content_hash: content_hash_of(&original),
    };
    let file = VerdictFile {
        at: "2026-12-02T11:00:00Z".into(),
        base_url: "http://127.0.0.1:8080/".into(),
        report: RunReport {
            verdicts: vec![verdict],
            summary: Summary::default(),
        },
    };
    session.write_json(LATEST_VERDICTS, &file).unwrap();

    let mut input = export::load_session(&sdir, Selection::Reviewed).unwrap();
    input.options.package = Some("com.acme.api".into());
    let out = dir.path().join("out");
    let reports =
        export::export_all(&input, &[Format::Junit, Format::Postman], &out, false).expect("export");

    // JUnit: the package is the team's, the layout drops into src/test/java.
    let class = std::fs::read_to_string(out.join("com/acme/api/GetPetsPetIdTest.java"))
        .expect("the GET /pets/{petId} class, in the package's directory");
    insta::assert_snapshot!("junit_readable_class", class);
    assert!(class.contains("@Order(2)"), "{class}");
    assert!(
        class.contains("<p>Expects: status is 410;")
            && class.contains("<p>Edited in review: assertions[0].expected 404 -> 410."),
        "{class}"
    );
    assert!(out.join("junit-platform.properties").is_file());
    let junit = &reports[0].1;
    assert!(
        junit
            .items
            .iter()
            .any(|i| i.location == "com.acme.api.PostPetsTest#test_fi_missing_name")
    );

    // Postman: the base URL the suite last ran against, folders in run order.
    let text = std::fs::read_to_string(out.join("mastor.postman_collection.json")).unwrap();
    let c: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(c["variable"][0]["key"], "baseUrl");
    assert_eq!(c["variable"][0]["value"], "http://127.0.0.1:8080");
    let folders: Vec<&str> = c["item"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        folders,
        ["1. read-only: GET /pets/{petId}", "2. writers: POST /pets"]
    );
    let item = &c["item"][1]["item"][0];
    assert_eq!(item["name"], "POST /pets#fi_missing_name");
    insta::assert_snapshot!(
        "postman_readable_item",
        serde_json::to_string_pretty(item).unwrap()
    );
}

#[test]
fn export_cli_takes_the_package_and_base_url_and_refuses_a_bad_package() {
    let dir = tempfile::tempdir().unwrap();
    let suite = dir.path().join("suite.json");
    std::fs::write(
        &suite,
        serde_json::to_string(&petstore_suite(false)).unwrap(),
    )
    .unwrap();
    let export = |args: &[&str]| {
        std::process::Command::new(env!("CARGO_BIN_EXE_mastor"))
            .arg("export")
            .arg(&suite)
            .args(args)
            .output()
            .unwrap()
    };
    let out = dir.path().join("bad");
    let bad = export(&[
        "--format",
        "junit",
        "--package",
        "com.new.api",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(bad.status.code(), Some(2));
    let err = String::from_utf8_lossy(&bad.stderr);
    assert!(
        err.contains(
            "--package: 'com.new.api' is not a Java package name: 'new' is a reserved word"
        ),
        "{err}"
    );
    assert!(!out.join("com").exists(), "nothing written");

    let out = dir.path().join("good");
    let good = export(&[
        "--format",
        "junit,postman",
        "--package",
        "org.example.petstore",
        "--base-url",
        "http://api.test:8080/",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(
        good.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&good.stderr)
    );
    let class =
        std::fs::read_to_string(out.join("org/example/petstore/GetStatsTest.java")).unwrap();
    assert!(
        class.starts_with("package org.example.petstore;"),
        "{class}"
    );
    let support =
        std::fs::read_to_string(out.join("org/example/petstore/MastorReset.java")).unwrap();
    assert!(support.starts_with("package org.example.petstore;"));
    let c: Value = serde_json::from_str(
        &std::fs::read_to_string(out.join("mastor.postman_collection.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(c["variable"][0]["value"], "http://api.test:8080");
}
