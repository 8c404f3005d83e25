//! Session directory: create/open, version checks, atomic JSON files, typed records.

use mastor::model::{ContextField, ResponseSchema, SourceContext};
use mastor::store::{
    ConfigSummary, Manifest, PhaseState, PhaseStatus, Session, StoreError, SuiteRecord, op_slug,
};
use serde_json::{Value, json};
use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

fn new_session() -> (tempfile::TempDir, Session) {
    let tmp = tempfile::tempdir().unwrap();
    let s = Session::create(
        tmp.path().join(".mastor"),
        Manifest::new("/p", "/p/api.yaml"),
    )
    .unwrap();
    (tmp, s)
}

/// Every entry of `dir` (hidden files included), recursively.
fn all_files(dir: &std::path::Path) -> Vec<String> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let e = e.unwrap();
        if e.file_type().unwrap().is_dir() {
            out.extend(all_files(&e.path()));
        } else {
            out.push(e.file_name().to_string_lossy().into_owned());
        }
    }
    out
}

#[test]
fn create_then_open_round_trips_the_manifest() {
    let (tmp, s) = new_session();
    let dir = tmp.path().join(".mastor");
    assert_eq!(s.dir(), dir.as_path());
    s.set_phase(
        "single_op",
        PhaseState {
            status: PhaseStatus::Done,
            ..Default::default()
        },
    )
    .unwrap();
    drop(s);
    let reopened = Session::open(&dir).unwrap();
    let m = reopened.manifest();
    assert_eq!(m.schema_version, mastor::model::SCHEMA_VERSION);
    assert_eq!(m.project_root, "/p");
    assert_eq!(m.spec_file, "/p/api.yaml");
    assert_eq!(m.phases["single_op"].status, PhaseStatus::Done);
    assert!(m.updated_at >= m.created_at);
}

#[test]
fn create_refuses_to_clobber_an_existing_session() {
    let (tmp, _s) = new_session();
    let err = Session::create(tmp.path().join(".mastor"), Manifest::new("/q", "")).unwrap_err();
    assert!(matches!(err, StoreError::AlreadyExists { .. }), "{err}");
    let s = Session::open_or_create(tmp.path().join(".mastor"), Manifest::new("/q", "")).unwrap();
    assert_eq!(
        s.manifest().project_root,
        "/p",
        "open_or_create must open, not overwrite"
    );
}

#[test]
fn open_without_manifest_says_not_a_session() {
    let tmp = tempfile::tempdir().unwrap();
    let err = Session::open(tmp.path()).unwrap_err();
    let msg = err.to_string();
    assert!(matches!(err, StoreError::NotASession { .. }));
    assert!(msg.contains("not a mastor session"), "{msg}");
    assert!(msg.contains(&tmp.path().display().to_string()), "{msg}");
}

#[test]
fn open_rejects_a_newer_schema_naming_the_dir() {
    let tmp = tempfile::tempdir().unwrap();
    // A future format may not even have our fields: the version must be checked first.
    std::fs::write(
        tmp.path().join("manifest.json"),
        json!({"schema_version": mastor::model::SCHEMA_VERSION + 1, "whatever": 1}).to_string(),
    )
    .unwrap();
    let err = Session::open(tmp.path()).unwrap_err();
    match &err {
        StoreError::NewerSchema {
            found, supported, ..
        } => {
            assert_eq!(*found, mastor::model::SCHEMA_VERSION + 1);
            assert_eq!(*supported, mastor::model::SCHEMA_VERSION);
        }
        other => panic!("expected NewerSchema, got {other}"),
    }
    assert!(err.to_string().contains(&tmp.path().display().to_string()));
}

#[test]
fn damaged_manifest_is_a_parse_error_naming_the_file() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(tmp.path().join("manifest.json"), "{\"schema_version\": 1, ").unwrap();
    let err = Session::open(tmp.path()).unwrap_err();
    assert!(matches!(err, StoreError::Parse { .. }));
    assert!(err.to_string().contains("manifest.json"), "{err}");
}

#[test]
fn write_json_replaces_atomically_and_leaves_no_temp_files() {
    let (_tmp, s) = new_session();
    let s = Arc::new(s);
    let big = |n: usize| json!({"n": n, "pad": "x".repeat(200_000 + n)});
    s.write_json("suites/x.json", &big(0)).unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    let reader = {
        let (s, stop) = (Arc::clone(&s), Arc::clone(&stop));
        std::thread::spawn(move || {
            let mut reads = 0;
            while !stop.load(Ordering::Relaxed) {
                // A torn file would fail to parse; the file must also never vanish.
                let v: Value = s
                    .read_json("suites/x.json")
                    .unwrap()
                    .expect("file vanished");
                let n = v["n"].as_u64().unwrap() as usize;
                assert_eq!(v["pad"].as_str().unwrap().len(), 200_000 + n);
                reads += 1;
            }
            reads
        })
    };
    for n in 1..=40 {
        s.write_json("suites/x.json", &big(n)).unwrap();
    }
    stop.store(true, Ordering::Relaxed);
    assert!(reader.join().unwrap() > 0);
    let last: Value = s.read_json("suites/x.json").unwrap().unwrap();
    assert_eq!(last["n"], 40);
    let files = all_files(s.dir());
    assert!(files.iter().all(|f| !f.ends_with(".tmp")), "{files:?}");
}

#[test]
fn failed_write_keeps_the_old_file_and_no_temp_file() {
    let (_tmp, s) = new_session();
    s.write_json("calls/a.json", &json!({"v": 1})).unwrap();
    // Tuple keys cannot become JSON object keys: serialization fails.
    let bad: HashMap<(i32, i32), i32> = HashMap::from([((1, 2), 3)]);
    let err = s.write_json("calls/a.json", &bad).unwrap_err();
    assert!(matches!(err, StoreError::Serialize { .. }), "{err}");
    let v: Value = s.read_json("calls/a.json").unwrap().unwrap();
    assert_eq!(v, json!({"v": 1}));
    assert!(all_files(s.dir()).iter().all(|f| !f.ends_with(".tmp")));
}

#[test]
fn paths_outside_the_session_are_refused() {
    let (_tmp, s) = new_session();
    for bad in ["../x.json", "a/../../x.json", "/etc/passwd", "", "."] {
        let err = s.write_json(bad, &1).unwrap_err();
        assert!(matches!(err, StoreError::BadPath { .. }), "{bad:?}: {err}");
    }
}

#[test]
fn read_and_list_treat_missing_as_empty_and_skip_temp_files() {
    let (_tmp, s) = new_session();
    assert_eq!(s.read_json::<Value>("contexts/none.json").unwrap(), None);
    assert!(s.list("contexts").unwrap().is_empty());
    s.write_json("contexts/b.json", &1).unwrap();
    s.write_json("contexts/a.json", &2).unwrap();
    std::fs::write(s.dir().join("contexts/.c.json.XYZ.tmp"), "{").unwrap();
    assert_eq!(s.list("contexts").unwrap(), vec!["a.json", "b.json"]);
}

#[test]
fn typed_records_round_trip_under_slugged_names() {
    let (_tmp, s) = new_session();
    let ctx = SourceContext {
        op_id: "GET /pets/{id}".into(),
        error_envelopes: vec![],
        request_params: vec![],
        response_schema: ResponseSchema {
            success_status: Some(200),
            fields: vec![ContextField {
                name: "name".into(),
                ty: "string".into(),
                nullable: false,
            }],
            error_cases: vec![],
        },
        request_params_pending: vec![],
        response_schema_pending: vec![],
    };
    s.write_context(&ctx).unwrap();
    assert_eq!(s.read_context("GET /pets/{id}").unwrap(), Some(ctx));
    assert_eq!(
        s.list("contexts").unwrap(),
        vec![format!("{}.json", op_slug("GET /pets/{id}"))]
    );
    let mut suite = SuiteRecord::new("GET /pets/{id}");
    suite.regenerated.push("fv_1".into());
    let outcome = mastor::agents::normalize::normalize_single(
        "GET /pets/{id}",
        &json!([{"test_id": "fi_1", "assertions": [{"type": "status", "expected": 404}]}, 3]),
        None,
        &Default::default(),
    );
    suite.oracles = outcome.kept.clone();
    suite.normalization.push(outcome.report());
    s.write_suite(&suite).unwrap();
    assert_eq!(s.read_suite("GET /pets/{id}").unwrap(), Some(suite.clone()));
    assert_eq!(suite.normalization[0].dropped.len(), 1);
    assert_eq!(suite.oracles.len(), 1);
    assert_eq!(s.read_suite("GET /other").unwrap(), None);
}

#[test]
fn config_summary_never_keeps_secrets() {
    let c = ConfigSummary::new(
        Some("deepseek".into()),
        Some("qwen".into()),
        [
            ("api_key".to_string(), json!("sk-123")),
            ("AUTH_TOKEN".to_string(), json!("t")),
            ("concurrency".to_string(), json!(4)),
        ],
    );
    let text = serde_json::to_string(&c).unwrap();
    assert!(
        !text.contains("sk-123") && !text.contains("AUTH_TOKEN"),
        "{text}"
    );
    assert_eq!(c.settings.get("concurrency"), Some(&json!(4)));
}
