//! Hardening, round two: `import` never drops entries silently (exit 2 naming each,
//! `--lenient` keeps the forgiving import, and then `check SESSION --only all` agrees
//! with `check FILE --lenient`), and `run` against a model that answers `{}` to every
//! call does not call its empty operations "ok".

use crate::runner_support::{self, fixture_url};
use crate::support;

use mastor::llm::scripted::{Reply, Script, ScriptedServer};
use serde_json::{Value, json};

/// One good oracle, one malformed entry (an unknown assertion op) and a duplicate id.
fn suite_with_a_bad_and_a_duplicate_entry() -> Value {
    json!([
        {"op_id": "GET /pets/{id}", "test_id": "rex", "input": {"path": {"id": 1}},
         "assertions": [{"type": "status", "expected": 200}]},
        {"op_id": "GET /pets/{id}", "test_id": "bad",
         "assertions": [{"type": "field", "field_path": "name", "op": "resembles", "expected": "R"}]},
        {"op_id": "GET /pets/{id}", "test_id": "rex", "input": {"path": {"id": 2}},
         "assertions": [{"type": "status", "expected": 200}]}
    ])
}

#[test]
fn import_that_would_drop_entries_exits_2_naming_each() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("suite.json");
    std::fs::write(&file, suite_with_a_bad_and_a_duplicate_entry().to_string()).unwrap();
    let f = file.to_str().unwrap();
    let sess = dir.path().join("sess");
    let s = sess.to_str().unwrap();

    let (code, out, err) = runner_support::mastor(&["import", f, "--out", s]);
    assert_eq!(code, 2, "{out}\n{err}");
    assert!(
        err.contains("GET /pets/{id}#bad") && err.contains("resembles"),
        "{err}"
    );
    assert!(err.contains("duplicate o_id `GET /pets/{id}#rex`"), "{err}");
    assert!(err.contains("2 malformed or duplicate entries"), "{err}");
    assert!(!sess.exists(), "a refused import writes nothing");

    // `--lenient` keeps the forgiving import: the rest is imported, each drop named.
    let (code, out, err) = runner_support::mastor(&["import", f, "--out", s, "--lenient"]);
    assert_eq!(code, 0, "{out}\n{err}");
    assert_eq!(
        err.lines().filter(|l| l.starts_with("skipped:")).count(),
        2,
        "{err}"
    );
    assert!(
        out.contains("imported 1 oracle(s)") && out.contains("2 skipped"),
        "{out}"
    );

    // The lenient session and the lenient file check the same oracles, with one result.
    let url = fixture_url();
    let (code_session, out_session, err_session) =
        runner_support::mastor(&["check", s, "--only", "all", "--base-url", url]);
    let (code_file, out_file, err_file) =
        runner_support::mastor(&["check", f, "--lenient", "--base-url", url]);
    assert_eq!(
        code_session, code_file,
        "session:\n{out_session}\n{err_session}\nfile:\n{out_file}\n{err_file}"
    );
    assert_eq!(code_session, 0, "{out_session}\n{err_session}");
    // Strict, the file check reports the dropped entries as errors, as the import does.
    let (code, out, err) = runner_support::mastor(&["check", f, "--base-url", url]);
    assert_eq!(code, 1, "{out}\n{err}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn run_against_a_model_answering_empty_objects_does_not_complete() {
    let script = Script {
        fallback: vec![Reply::json(json!({}))],
        ..Script::default()
    };
    let server = ScriptedServer::start(script).await.unwrap();
    let url = server.base_url();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("session");
    let args = [
        "run",
        "tests/fixtures/petstore-jdk",
        "--out",
        out.to_str().unwrap(),
        "--no-discovery",
        "--max-attempts",
        "1",
        "--op",
        support::POST,
        "--op",
        support::GET,
    ];
    let output = tokio::task::block_in_place(|| {
        let mut cmd = support::mastor_cmd(&url, dir.path(), &args);
        cmd.current_dir(env!("CARGO_MANIFEST_DIR"));
        cmd.output().unwrap()
    });
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(4), "{stdout}\n{stderr}");
    assert!(stdout.contains("(0 ok, 2 failed"), "{stdout}");
    for op in [support::POST, support::GET] {
        assert!(
            stderr.contains(&format!(
                "mastor: {op} failed: extraction: the source context is empty"
            )),
            "{op}: {stderr}"
        );
    }
    let state = support::read_json(&out.join("state.json"));
    for op in [support::POST, support::GET] {
        assert_eq!(state["ops"][op]["state"], "failed", "{state}");
        assert!(
            state["ops"][op]["reason"]
                .as_str()
                .is_some_and(|r| r.contains("empty")),
            "{state}"
        );
    }
}
