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

#[test]
fn keymap_and_theme_files_reject_unknown_keys() {
    use mastor::tui::keymap::Keymap;
    use mastor::tui::theme::Theme;
    let err = Keymap::with_overrides("[reveiw]\nquit = [\"q\"]\n", "k.toml")
        .unwrap_err()
        .to_string();
    assert!(err.contains("k.toml") && err.contains("reveiw"), "{err}");
    let section = "[global]\nquiet = [\"q\"]\n";
    let err = Keymap::with_overrides(section, "k.toml")
        .unwrap_err()
        .to_string();
    assert!(err.contains("k.toml") && err.contains("quiet"), "{err}");
    let err = Theme::from_user_toml("base = \"dark\"\nbackground = \"red\"\n", "t.toml")
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("t.toml") && err.contains("background"),
        "{err}"
    );
}

/// A session written by mastor itself, for the store format tests.
fn imported_session(dir: &Path) -> PathBuf {
    let suite = write(
        dir,
        "suite.json",
        &serde_json::json!([good_oracle()]).to_string(),
    );
    let out = dir.join("sess");
    let (code, _, err) = run(&[
        "import",
        suite.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    out
}

fn add_key(path: &Path, key: &str) {
    let mut v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    v[key] = serde_json::json!(true);
    std::fs::write(path, v.to_string()).unwrap();
}

#[test]
fn session_manifest_rejects_unknown_keys() {
    let dir = tempfile::tempdir().unwrap();
    let sess = imported_session(dir.path());
    // Files mastor writes read back.
    mastor::store::Session::open(&sess).expect("a fresh session opens");
    add_key(&sess.join("manifest.json"), "projet_root");
    let err = mastor::store::Session::open(&sess).unwrap_err().to_string();
    assert!(
        err.contains("projet_root") && err.contains("manifest.json"),
        "{err}"
    );
}

#[test]
fn session_suite_records_reject_unknown_keys() {
    let dir = tempfile::tempdir().unwrap();
    let sess = imported_session(dir.path());
    let session = mastor::store::Session::open(&sess).unwrap();
    mastor::suite::session::read(&session).expect("a fresh session reads");
    let suites = sess.join("suites");
    let file = std::fs::read_dir(&suites)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .find(|p| p.extension().is_some_and(|e| e == "json"))
        .expect("a suite record");
    add_key(&file, "oracle");
    let err = mastor::suite::session::read(&session)
        .unwrap_err()
        .to_string();
    assert!(err.contains("oracle"), "{err}");
    let (code, _, err) = run(&[
        "check",
        sess.to_str().unwrap(),
        "--only",
        "all",
        "--base-url",
        "http://127.0.0.1:9",
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("unknown field `oracle`"), "{err}");
}

fn petstore_spec() -> String {
    std::fs::read_to_string(repo().join("tests/fixtures/petstore-jdk/openapi.json")).unwrap()
}

#[test]
fn a_spec_with_a_utf8_bom_loads() {
    let dir = tempfile::tempdir().unwrap();
    for name in ["openapi.json", "openapi.yaml"] {
        let path = write(dir.path(), name, &format!("\u{feff}{}", petstore_spec()));
        let spec = mastor::spec::load(&path).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(!spec.operations.is_empty(), "{name}");
    }
}

#[test]
fn an_unreadable_auto_found_spec_is_named_with_the_reason() {
    let dir = tempfile::tempdir().unwrap();
    // A link to nothing: found by name, cannot be read (as root, mode 000 still reads).
    std::os::unix::fs::symlink(
        dir.path().join("gone.json"),
        dir.path().join("openapi.json"),
    )
    .unwrap();
    let err = mastor::spec::find_spec(dir.path()).unwrap_err().to_string();
    assert!(err.contains("openapi.json"), "{err}");
    assert!(err.contains("cannot read"), "{err}");

    let dir = tempfile::tempdir().unwrap();
    let path = write(dir.path(), "openapi.json", &petstore_spec());
    let mut perms = std::fs::metadata(&path).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut perms, 0o000);
    std::fs::set_permissions(&path, perms).unwrap();
    if std::fs::read(&path).is_err() {
        // Not root: the mode bites.
        let err = mastor::spec::find_spec(dir.path()).unwrap_err().to_string();
        assert!(
            err.contains("openapi.json") && err.contains("cannot read"),
            "{err}"
        );
    }
}

#[test]
fn a_path_item_that_refs_itself_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let spec = serde_json::json!({"openapi": "3.0.3", "info": {"title": "t", "version": "1"},
    "paths": {
        "/loop": {"$ref": "#/paths/~1loop"},
        "/ok": {"get": {"responses": {"200": {"description": "ok"}}}}
    }});
    let path = write(dir.path(), "openapi.json", &spec.to_string());
    let loaded = mastor::spec::load(&path).unwrap();
    assert_eq!(loaded.operations.len(), 1);
    assert!(
        loaded
            .warnings
            .iter()
            .any(|w| w.contains("/loop") && w.contains("$ref")),
        "{:?}",
        loaded.warnings
    );
}
