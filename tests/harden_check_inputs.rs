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
