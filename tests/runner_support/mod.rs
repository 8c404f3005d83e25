//! Shared by the runner, check and import tests: one petstore-jdk fixture server per test
//! binary, started on first use and stopped when the test process exits.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;

/// Root of the repository (where `scripts/fixture-api.sh` lives).
pub fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Base URL of this test binary's fixture server (started once, on first call).
pub fn fixture_url() -> &'static str {
    static URL: OnceLock<String> = OnceLock::new();
    URL.get_or_init(start_fixture)
}

fn start_fixture() -> String {
    let state = std::env::temp_dir().join(format!(
        "mastor-runner-fixture-{}-{}",
        std::process::id(),
        rand_suffix()
    ));
    std::fs::create_dir_all(&state).expect("create fixture state dir");
    let script = repo_root().join("scripts/fixture-api.sh");
    let out = Command::new("bash")
        .arg(&script)
        .args(["start", "0"])
        .env("FIXTURE_API_STATE", &state)
        .env("FIXTURE_API_CLASSES", state.join("classes"))
        .env_remove("PETSTORE_BUG_STALE_STATUS")
        .stderr(Stdio::inherit())
        .output()
        .expect("run scripts/fixture-api.sh");
    assert!(out.status.success(), "fixture did not start");
    let url = String::from_utf8_lossy(&out.stdout)
        .lines()
        .last()
        .expect("fixture printed its URL")
        .trim()
        .to_string();
    assert!(
        url.starts_with("http://127.0.0.1:"),
        "unexpected fixture URL {url}"
    );
    spawn_watchdog(&script, &state);
    url
}

/// Stops the server once this test process has exited (statics are never dropped). The
/// watcher runs in the background of a shell that exits at once, so nothing is left
/// unwaited.
fn spawn_watchdog(script: &Path, state: &Path) {
    let cmd = format!(
        "(while kill -0 {pid} 2>/dev/null; do sleep 0.5; done; \
         FIXTURE_API_STATE='{state}' bash '{script}' stop; rm -rf '{state}') \
         </dev/null >/dev/null 2>&1 &",
        pid = std::process::id(),
        state = state.display(),
        script = script.display(),
    );
    let status = Command::new("sh")
        .args(["-c", &cmd])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .expect("spawn fixture watchdog");
    assert!(status.success(), "fixture watchdog did not start");
}

fn rand_suffix() -> u64 {
    use std::time::{SystemTime, UNIX_EPOCH};
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(0)
}

/// A loopback URL where nothing listens (a port bound and released just now).
pub fn closed_port_url() -> String {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = listener.local_addr().expect("addr").port();
    drop(listener);
    format!("http://127.0.0.1:{port}")
}

/// Runs the `mastor` binary; returns (exit code, stdout, stderr).
pub fn mastor(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_mastor"))
        .args(args)
        .env_remove("MASTOR_BASE_URL")
        .output()
        .expect("run mastor");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}
