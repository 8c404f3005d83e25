//! File names derived from ids: ids that fold to the same text stay apart, very long ids
//! fit in a file name, and imports happen whole or not at all.

use mastor::export::{self, ExportInput, Format, Selection};
use mastor::model::{Assertion, Oracle, ReviewState, SCHEMA_VERSION, SuiteFile};
use mastor::store::{Session, context_rel, group_rel, suite_rel};
use serde_json::{Value, json};
use std::path::Path;
use std::process::Command;

fn mastor(home: &Path, args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_mastor"))
        .args(args)
        .env("XDG_CONFIG_HOME", home.join("config"))
        .env("XDG_CACHE_HOME", home.join("cache"))
        .env("HOME", home)
        .env_remove("MASTOR_CONFIG")
        .output()
        .expect("run mastor");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn mr_test(test_id: &str) -> Value {
    json!({
        "test_id": test_id,
        "scenario": "Reading a pet twice gives the same pet",
        "seed": [{"op_id": "GET /pets/{petId}", "input": {"path": {"petId": "1"}}}],
        "follow_up": [{"op_id": "GET /pets/{petId}", "input": {"path": {"petId": "1"}}}],
        "relations": [{"left": "follow_up[0].body", "op": "equals", "right": "seed[0].body"}]
    })
}

/// Imports metamorphic tests with these ids; returns the ids the session holds.
fn import_tests(ids: &[&str]) -> Vec<String> {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("suite.json");
    let suite = json!({
        "schema_version": SCHEMA_VERSION,
        "metamorphic": ids.iter().map(|id| mr_test(id)).collect::<Vec<_>>(),
    });
    std::fs::write(&file, suite.to_string()).unwrap();
    let out = dir.path().join("sess");
    let (code, stdout, stderr) = mastor(
        dir.path(),
        &[
            "import",
            file.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ],
    );
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    assert!(
        stdout.contains(&format!("{} metamorphic test(s)", ids.len())),
        "{stdout}"
    );
    let session = Session::open(&out).unwrap();
    let mut held: Vec<String> = mastor::metamorphic::store::load_tests(&session)
        .unwrap()
        .into_iter()
        .map(|t| t.test_id)
        .collect();
    held.sort();
    held
}

#[test]
fn metamorphic_ids_that_fold_alike_keep_their_own_files() {
    let held = import_tests(&["x/y", "x_y", "x.y"]);
    assert_eq!(held, vec!["x.y", "x/y", "x_y"]);
}

#[test]
fn a_300_character_metamorphic_id_imports_whole() {
    let long = "t".repeat(300);
    let held = import_tests(&[&long, "short"]);
    assert_eq!(held, vec!["short".to_string(), long]);
}

#[test]
fn metamorphic_file_names_are_capped_and_hashed() {
    let long = "a".repeat(300);
    let rel = mastor::metamorphic::store::file_rel(&long);
    let name = rel.rsplit('/').next().unwrap();
    assert!(name.len() <= 100, "{name}");
    assert_ne!(
        mastor::metamorphic::store::file_rel("x/y"),
        mastor::metamorphic::store::file_rel("x_y")
    );
}

#[test]
fn operation_file_names_keep_slash_and_underscore_apart() {
    assert_ne!(suite_rel("GET /a/b"), suite_rel("GET /a_b"));
    assert_ne!(context_rel("GET /a/b"), context_rel("GET /a_b"));
    assert_ne!(group_rel("a/b"), group_rel("a_b"));
    let long = format!("GET /{}", "p".repeat(300));
    assert!(suite_rel(&long).len() < 120, "{}", suite_rel(&long));
}

#[test]
fn a_failed_import_leaves_no_session_behind() {
    // A suite whose only entry is malformed loads nothing: the import refuses and the
    // output directory is not created at all.
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("suite.json");
    std::fs::write(&file, "{\"oracles\": [{\"nope\": 1}]}").unwrap();
    let out = dir.path().join("sess");
    let (code, _, _) = mastor(
        dir.path(),
        &[
            "import",
            file.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ],
    );
    assert_eq!(code, 2);
    assert!(!out.exists());
    // Nothing but the input file is left next to it (no staging directory).
    let names: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n != "config" && n != "cache")
        .collect();
    assert_eq!(names, vec!["suite.json"]);
}

#[test]
fn junit_export_of_a_300_character_path_fits_file_name_limits() {
    let path = format!("/{}", "segment".repeat(43));
    assert!(path.len() > 300);
    let oracle = Oracle {
        test_id: "status_ok".into(),
        op_id: format!("GET {path}"),
        description: "answers".into(),
        oracle_strategy: None,
        input: Default::default(),
        assertions: vec![Assertion::Status { expected: 200 }],
        evidence: String::new(),
        evidence_refs: Vec::new(),
        fresh_state: false,
    };
    let mut suite = SuiteFile {
        schema_version: SCHEMA_VERSION,
        ..Default::default()
    };
    suite.review.insert(oracle.o_id(), ReviewState::Accepted);
    suite.oracles.push(oracle);
    let input = ExportInput::from_suite(suite, Selection::Reviewed);
    let dir = tempfile::tempdir().unwrap();
    let report = export::export(&input, Format::Junit, dir.path()).expect("export");
    let class = report
        .files
        .iter()
        .find(|f| f.to_string_lossy().ends_with("Test.java"))
        .expect("a test class");
    let name = class.file_name().unwrap().to_string_lossy().into_owned();
    assert!(name.len() <= 110, "{name}");
    let src = std::fs::read_to_string(class).unwrap();
    let stem = name.trim_end_matches(".java");
    assert!(src.contains(&format!("class {stem} {{")), "{src}");
    let item = &report.items[0];
    assert!(item.location.contains(stem), "{}", item.location);
}
