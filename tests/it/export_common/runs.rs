//! Running an exported suite again and again against one server: a fixture API with the
//! shell command that resets it (a restart on the same port), an HTTP endpoint that runs
//! that command (the reset URL a Postman collection POSTs to), and the JUnit launcher and
//! newman with extra settings.

use super::{FixtureApi, RUN_JARS, class_path, jar, newman, repo_root, run};
use serde_json::Value;
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::process::Command;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

/// A private fixture API plus the shell command that restores its seed data by restarting
/// it on the same port (as `check_isolation` does).
pub struct ResettableApi {
    pub api: FixtureApi,
    pub reset: String,
    _state: tempfile::TempDir,
}

pub fn resettable_api() -> ResettableApi {
    let state = tempfile::Builder::new()
        .prefix("mastor-export-twice-")
        .tempdir()
        .expect("state dir");
    let api = FixtureApi::start_with(state.path(), Some(false));
    let port = api.base_url.rsplit(':').next().expect("port").to_string();
    let script = repo_root().join("scripts/fixture-api.sh");
    let env = format!(
        "FIXTURE_API_STATE='{s}' FIXTURE_API_CLASSES='{s}/classes'",
        s = state.path().display()
    );
    let reset = format!(
        "{env} bash '{script}' stop >/dev/null && {env} bash '{script}' start {port} >/dev/null",
        script = script.display()
    );
    ResettableApi {
        api,
        reset,
        _state: state,
    }
}

/// An HTTP endpoint that runs a shell command for every request and answers 204 when it
/// succeeded, 500 when not: a project's reset URL. Stopped on drop.
pub struct ResetEndpoint {
    pub url: String,
    pub calls: Arc<AtomicUsize>,
    stop: Arc<AtomicBool>,
    addr: std::net::SocketAddr,
}

impl ResetEndpoint {
    pub fn start(command: &str) -> ResetEndpoint {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind reset endpoint");
        let addr = listener.local_addr().expect("addr");
        let stop = Arc::new(AtomicBool::new(false));
        let calls = Arc::new(AtomicUsize::new(0));
        let (stop2, calls2, command) = (stop.clone(), calls.clone(), command.to_string());
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                if stop2.load(Ordering::SeqCst) {
                    break;
                }
                let Ok(mut stream) = stream else { continue };
                read_head(&mut stream);
                let ok = Command::new("sh")
                    .args(["-c", &command])
                    .status()
                    .is_ok_and(|s| s.success());
                calls2.fetch_add(1, Ordering::SeqCst);
                let status = if ok {
                    "204 No Content"
                } else {
                    "500 Reset Failed"
                };
                let _ = write!(
                    stream,
                    "HTTP/1.1 {status}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
                );
            }
        });
        ResetEndpoint {
            url: format!("http://{addr}/reset"),
            calls,
            stop,
            addr,
        }
    }
}

impl Drop for ResetEndpoint {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        // Wakes the accept loop so it sees the flag.
        let _ = TcpStream::connect(self.addr);
    }
}

/// Reads a request's head (and ignores it), bounded at 64 KiB.
fn read_head(stream: &mut TcpStream) {
    let _ = stream.set_read_timeout(Some(std::time::Duration::from_secs(10)));
    let mut head = Vec::new();
    let mut buf = [0u8; 1024];
    while !head.windows(4).any(|w| w == b"\r\n\r\n") && head.len() < 64 * 1024 {
        match stream.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => head.extend_from_slice(&buf[..n]),
        }
    }
}

/// Runs compiled JUnit classes of package `package` with the console launcher, system
/// properties `props` and extra launcher arguments (`--include-tag ...`); the reports go to
/// `dir/<reports>`. Returns exit code, legacy XML report and launcher output.
pub fn launch_junit_with(
    dir: &Path,
    package: &str,
    props: &[(&str, &str)],
    extra: &[&str],
    reports: &str,
) -> (i32, String, String) {
    let reports = dir.join(reports);
    let mut cmd = Command::new("java");
    for (k, v) in props {
        cmd.arg(format!("-D{k}={v}"));
    }
    cmd.arg("-jar")
        .arg(jar("junit-platform-console-standalone.jar"))
        .args(["--disable-banner", "--details=none", "--class-path"])
        .arg(class_path(Some(&dir.join("classes")), &RUN_JARS))
        .args(["--select-package", package])
        .args(extra)
        .arg("--reports-dir")
        .arg(&reports);
    let (code, text) = run(&mut cmd);
    let xml = std::fs::read_to_string(reports.join("TEST-junit-jupiter.xml"))
        .unwrap_or_else(|e| panic!("no JUnit XML report ({e}); launcher said:\n{text}"));
    (code, xml, text)
}

/// Runs newman on a collection with `--env-var` for each of `vars` and the JSON reporter.
pub fn newman_with(
    collection: &Path,
    vars: &[(&str, &str)],
    json_out: &Path,
) -> (i32, Value, String) {
    let mut cmd = Command::new(newman());
    cmd.arg("run").arg(collection);
    for (k, v) in vars {
        cmd.args(["--env-var", &format!("{k}={v}")]);
    }
    cmd.args(["--reporters", "json", "--reporter-json-export"])
        .arg(json_out);
    let (code, text) = run(&mut cmd);
    let raw = std::fs::read_to_string(json_out)
        .unwrap_or_else(|e| panic!("no newman report ({e}); newman said:\n{text}"));
    let parsed: Value = serde_json::from_str(&raw).expect("newman JSON report");
    (code, parsed, text)
}
