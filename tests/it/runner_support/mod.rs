//! Shared by the runner, check and import tests: the petstore-jdk fixture server (one
//! shared by the tests that only read, started on first use and stopped when the test
//! process exits; private ones for tests that write), and the `mastor` runner.
#![allow(dead_code)]

use std::collections::BTreeMap;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::{Mutex, OnceLock};

use crate::export_common::FixtureApi;
pub use crate::export_common::repo_root;

/// Base URL of the fixture server shared by every test in this process that only reads
/// (started once, on first call, with the stale-status bug off). A test that writes to the
/// API takes a [`private_fixture`] instead, so no test sees another's effects.
pub fn fixture_url() -> &'static str {
    static URL: OnceLock<String> = OnceLock::new();
    URL.get_or_init(|| start_fixture("shared"))
}

/// A fixture server shared by the tests of one module (`name`), started on first use, for
/// a module whose tests write to the API but expect each other's writes.
pub fn module_fixture_url(name: &'static str) -> &'static str {
    static URLS: Mutex<BTreeMap<&'static str, &'static str>> = Mutex::new(BTreeMap::new());
    let mut urls = URLS.lock().unwrap_or_else(|e| e.into_inner());
    urls.entry(name)
        .or_insert_with(|| Box::leak(start_fixture(name).into_boxed_str()))
}

/// A fixture server of one's own (stale-status bug off), stopped when dropped.
pub struct PrivateFixture {
    api: FixtureApi,
    _state: tempfile::TempDir,
}

impl PrivateFixture {
    pub fn url(&self) -> &str {
        &self.api.base_url
    }
}

pub fn private_fixture() -> PrivateFixture {
    let state = tempfile::Builder::new()
        .prefix("mastor-private-fixture-")
        .tempdir()
        .expect("create fixture state dir");
    let api = FixtureApi::start_with(state.path(), Some(false));
    PrivateFixture { api, _state: state }
}

fn start_fixture(name: &str) -> String {
    let state = std::env::temp_dir().join(format!(
        "mastor-runner-fixture-{}-{name}-{}",
        std::process::id(),
        rand_suffix()
    ));
    std::fs::create_dir_all(&state).expect("create fixture state dir");
    let api = FixtureApi::start_with(&state, Some(false));
    let url = api.base_url.clone();
    assert!(
        url.starts_with("http://127.0.0.1:"),
        "unexpected fixture URL {url}"
    );
    // Statics are never dropped: the watchdog stops the server when the process exits.
    std::mem::forget(api);
    spawn_watchdog(&repo_root().join("scripts/fixture-api.sh"), &state);
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
