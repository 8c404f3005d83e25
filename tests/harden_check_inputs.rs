//! Input handling around `check` and friends: broken pipes, no terminal, spec files with
//! a BOM or that cannot be read, self-referencing path items, and unknown keys in the
//! files mastor reads.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

fn bin() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_mastor"));
    c.env_remove("MASTOR_BASE_URL");
    c
}

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn run(args: &[&str]) -> (i32, String, String) {
    let out = bin().args(args).output().expect("run mastor");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn a_closed_stdout_is_not_a_panic() {
    let fixture = repo().join("tests/fixtures/petstore-jdk");
    let mut child = bin()
        .args(["scan", fixture.to_str().unwrap(), "--json"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn mastor");
    // The reader goes away before anything is written, like `| head -c 0`.
    drop(child.stdout.take());
    let out = child.wait_with_output().expect("wait");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_ne!(out.status.code(), Some(101), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert_eq!(out.status.code(), Some(0), "{stderr}");
}

#[test]
fn piping_into_head_exits_quietly() {
    let fixture = repo().join("tests/fixtures/petstore-jdk");
    let script = format!(
        "set -o pipefail; '{}' scan '{}' --json | head -c 0",
        env!("CARGO_BIN_EXE_mastor"),
        fixture.display()
    );
    let out = Command::new("bash")
        .args(["-c", &script])
        .output()
        .expect("run bash");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert_ne!(out.status.code(), Some(101), "{stderr}");
}

#[test]
fn tui_without_a_terminal_is_a_one_line_error() {
    let dir = tempfile::tempdir().unwrap();
    let session = dir.path().join("s");
    let suite = dir.path().join("suite.json");
    std::fs::write(
        &suite,
        r#"[{"op_id": "GET /ok", "test_id": "a", "assertions": [{"type": "status", "expected": 200}]}]"#,
    )
    .unwrap();
    let (code, _, err) = run(&[
        "import",
        suite.to_str().unwrap(),
        "--out",
        session.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    let out = bin()
        .args(["tui", session.to_str().unwrap()])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .output()
        .expect("run mastor tui");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(stderr.contains("terminal"), "{stderr}");
    assert_eq!(stderr.trim().lines().count(), 1, "{stderr}");
}

#[allow(dead_code)]
fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

fn good_oracle() -> serde_json::Value {
    serde_json::json!({"op_id": "GET /ok", "test_id": "a",
                       "assertions": [{"type": "status", "expected": 200}]})
}

#[test]
fn unknown_top_level_keys_are_errors_in_check_and_import() {
    use serde_json::json;
    let dir = tempfile::tempdir().unwrap();
    let cases = [
        json!({"schema_version": 1, "oracles": [good_oracle()], "sequences": []}),
        json!({"operations": [{"op_id": "GET /ok", "path_oracles": [good_oracle()]}],
               "sequences": []}),
    ];
    for (n, case) in cases.iter().enumerate() {
        let file = write(dir.path(), &format!("s{n}.json"), &case.to_string());
        let f = file.to_str().unwrap();
        // Nothing listens on port 9: the file is refused before any request.
        let (code, out, err) = run(&["check", f, "--base-url", "http://127.0.0.1:9"]);
        assert_eq!(code, 2, "{out}\n{err}");
        assert!(
            err.contains("`sequences`") && err.contains(f) && err.contains("accepted"),
            "{err}"
        );
        let sess = dir.path().join(format!("sess{n}"));
        let (code, _, err) = run(&["import", f, "--out", sess.to_str().unwrap()]);
        assert_eq!(code, 2, "{err}");
        assert!(err.contains("`sequences`"), "{err}");
        // --lenient: a warning, and the rest loads.
        let (code, out, err) = run(&["import", f, "--out", sess.to_str().unwrap(), "--lenient"]);
        assert_eq!(code, 0, "{err}");
        assert!(out.contains("imported 1 oracle(s)"), "{out}");
        assert!(
            err.contains("warning") && err.contains("`sequences`"),
            "{err}"
        );
    }
}

#[test]
fn unknown_keys_inside_entries_are_problems() {
    use serde_json::json;
    let dir = tempfile::tempdir().unwrap();
    let mut oracle = good_oracle();
    oracle["expect"] = json!(1);
    let mut assertion = good_oracle();
    assertion["test_id"] = json!("b");
    assertion["assertions"][0]["field_path"] = json!("x");
    let seq = json!({"test_id": "s", "group_id": "g", "steps": [
        {"op_id": "GET /ok", "assertions": [{"type": "status", "expected": 200}],
         "capture": {"id": "id"}}]});
    let paper_op = json!({"operations": [{"op_id": "GET /ok", "path_oracle": []}]});
    for (name, v, key) in [
        ("o.json", json!([oracle]), "`expect`"),
        ("a.json", json!([assertion]), "`field_path`"),
        ("q.json", json!([seq]), "`capture`"),
        ("p.json", paper_op, "`path_oracle`"),
    ] {
        let file = write(dir.path(), name, &v.to_string());
        let sess = dir.path().join(format!("sess-{name}"));
        let (code, out, err) = run(&[
            "import",
            file.to_str().unwrap(),
            "--out",
            sess.to_str().unwrap(),
        ]);
        assert_eq!(code, 2, "{name}: {out}\n{err}");
        assert!(
            err.contains(key) && err.contains("accepted"),
            "{name}: {err}"
        );
    }
}
