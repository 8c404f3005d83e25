//! `mastor import` of the paper's per-operation format into a session.

use crate::runner_support;

use mastor::model::SuiteFile;
use mastor::store::{Session, SuiteRecord};
use mastor::suite;
use runner_support::{mastor, repo_root};
use serde_json::json;

#[test]
fn paper_format_imports_and_reports_the_malformed_oracle() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("paper.json");
    let paper = json!({"operations": [
        {"op_id": "GET /pets/{petId}", "path_oracles": [
            {"path_index": 0, "description": "seed pet",
             "input": {"path": {"petId": "1"}, "query": null, "body": null, "headers": null},
             "assertions": [{"type": "status", "expected": 200},
                            {"type": "field", "field_path": "name", "op": "equals", "expected": "Rex"}],
             "evidence": "PetStore seeds Rex", "oracle_strategy": "fv"},
            {"test_id": "bad_op", "input": {"path": {"petId": "1"}},
             "assertions": [{"type": "field", "field_path": "name", "op": "resembles", "expected": "R"}]},
            {"test_id": "fi_abc", "input": {"petId": "abc"},
             "assertions": [{"type": "status", "expected": 400}], "oracle_strategy": "fi"}
        ]},
        {"op_id": "GET /stats", "oracles": [
            {"test_id": "counts", "assertions": [
                {"type": "field", "field_path": "total", "op": "type", "expected": "integer"}]}
        ]},
        {"op_id": "GET /health", "path_oracles": [{"assertions": [{"type": "status", "expected": 200}]}]}
    ]});
    std::fs::write(&file, serde_json::to_string(&paper).unwrap()).unwrap();
    let out_dir = dir.path().join("sess");
    let spec = repo_root().join("tests/fixtures/petstore-jdk/openapi.json");
    // Strict by default: the malformed entry fails the import, named, nothing written.
    let (code, out, err) = mastor(&[
        "import",
        file.to_str().unwrap(),
        "--spec",
        spec.to_str().unwrap(),
        "--out",
        out_dir.to_str().unwrap(),
    ]);
    assert_eq!(code, 2, "{out}\n{err}");
    assert!(err.contains("GET /pets/{petId}#bad_op"), "{err}");
    assert!(!out_dir.exists());
    let (code, out, err) = mastor(&[
        "import",
        file.to_str().unwrap(),
        "--spec",
        spec.to_str().unwrap(),
        "--out",
        out_dir.to_str().unwrap(),
        "--lenient",
    ]);
    assert_eq!(code, 0, "{out}\n{err}");
    let skipped: Vec<&str> = err.lines().filter(|l| l.starts_with("skipped:")).collect();
    assert_eq!(skipped.len(), 1, "{err}");
    let line = skipped[0];
    assert!(
        line.contains("oracle 1")
            && line.contains("operations[0].path_oracles[1]")
            && line.contains("GET /pets/{petId}#bad_op")
            && line.contains("resembles"),
        "{line}"
    );
    assert!(
        out.contains("imported 4 oracle(s)") && out.contains("1 skipped"),
        "{out}"
    );
    let warnings: Vec<&str> = err.lines().filter(|l| l.starts_with("warning:")).collect();
    assert_eq!(
        warnings.len(),
        1,
        "only GET /health is not in the spec: {err}"
    );
    assert!(warnings[0].contains("GET /health"), "{err}");

    let session = Session::open(&out_dir).unwrap();
    let pets: SuiteRecord = session.read_suite("GET /pets/{petId}").unwrap().unwrap();
    let ids: Vec<&str> = pets.oracles.iter().map(|o| o.test_id.as_str()).collect();
    assert_eq!(ids, ["t1", "fi_abc"]);
    assert_eq!(pets.oracles[0].evidence, "PetStore seeds Rex");
    assert_eq!(
        pets.oracles[1].input.path["petId"],
        json!("abc"),
        "flat input key moved to path"
    );
    assert!(session.read_suite("GET /stats").unwrap().is_some());
    assert!(
        session
            .read_operations::<serde_json::Value>()
            .unwrap()
            .is_some()
    );

    // A second import into the same directory never clobbers it.
    let (code, _, err) = mastor(&[
        "import",
        file.to_str().unwrap(),
        "--out",
        out_dir.to_str().unwrap(),
        "--lenient",
    ]);
    assert_eq!(code, 2);
    assert!(err.contains("already exists"), "{err}");
}

#[test]
fn suite_file_round_trips_through_a_session() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("suite.json");
    let suite = json!({"schema_version": 1,
        "oracles": [{"op_id": "GET /pets", "test_id": "a", "assertions": [{"type": "status", "expected": 200}]},
                    {"op_id": "GET /pets", "test_id": "b", "assertions": [{"type": "status", "expected": 200}]}],
        "multi_op": [{"test_id": "s", "group_id": "pets", "steps": [
            {"op_id": "GET /pets/{id}", "input": {"path": {"id": 1}}, "captures": {"o": "ownerId"},
             "assertions": [{"type": "status", "expected": 200}]},
            {"op_id": "GET /owners/{id}", "input": {"path": {"id": "$captures.o"}},
             "assertions": [{"type": "status", "expected": 200}]}]}],
        "review": {"GET /pets#a": "accepted", "GET /pets#b": "rejected"}});
    std::fs::write(&file, suite.to_string()).unwrap();
    let out_dir = dir.path().join("s");
    let (code, _, err) = mastor(&[
        "import",
        file.to_str().unwrap(),
        "--out",
        out_dir.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    let session = Session::open(&out_dir).unwrap();
    let back = suite::session::read(&session).unwrap();
    let original: SuiteFile = serde_json::from_value(suite).unwrap();
    assert_eq!(back.suite.oracles, original.oracles);
    assert_eq!(back.suite.multi_op, original.multi_op);
    assert_eq!(back.suite.review, original.review);
    assert!(back.problems.is_empty());
}

#[test]
fn a_file_with_nothing_loadable_is_an_input_error() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("bad.json");
    std::fs::write(&file, r#"[{"op_id": "GET /pets"}]"#).unwrap();
    let out_dir = dir.path().join("s");
    let (code, _, err) = mastor(&[
        "import",
        file.to_str().unwrap(),
        "--out",
        out_dir.to_str().unwrap(),
    ]);
    assert_eq!(code, 2);
    assert!(err.contains("no assertions"), "{err}");
    assert!(!out_dir.join("manifest.json").exists());
}
