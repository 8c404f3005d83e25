//! `scripts/local-llm.sh` refuses a server that answers `GET /v1/models` but not a chat
//! completion (the crash of a native llama.cpp build on a CPU with instructions the VM
//! does not grant looks like that), prints the URL only after a real completion, and
//! `status` checks with a completion too. The llama.cpp server is replaced by a
//! stand-in (tests/fixtures/llm-standin/server.py) through `MASTOR_LLM_SERVER_CMD`.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn script(home: &Path, mode: Option<&str>, verb: &str) -> Output {
    let mut cmd = Command::new("bash");
    cmd.arg(root().join("scripts/local-llm.sh"))
        .arg(verb)
        .env("MASTOR_LLM_HOME", home)
        .env("MASTOR_LLM_CHECK_TIMEOUT", "15")
        .env("MASTOR_LLM_START_TIMEOUT", "30")
        .env_remove("MASTOR_LLM_PORT")
        .current_dir(root());
    if let Some(mode) = mode {
        let server = root().join("tests/fixtures/llm-standin/server.py");
        cmd.env(
            "MASTOR_LLM_SERVER_CMD",
            format!("exec python3 '{}' {mode}", server.display()),
        );
    }
    cmd.output().expect("bash runs")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// The stand-in's pid is gone once `start` refused it (no server left behind).
fn assert_no_server_left(home: &Path) {
    assert!(
        !home.join("server.pid").exists(),
        "a refused server leaves no pid file"
    );
}

#[test]
fn start_refuses_a_server_that_drops_chat_completions() {
    let home = tempfile::tempdir().unwrap();
    let out = script(home.path(), Some("drop"), "start");
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert!(
        !out.status.success(),
        "start accepted it: {stdout}\n{stderr}"
    );
    assert!(
        !stdout.contains("http://"),
        "no URL may be printed: {stdout}"
    );
    assert!(
        stderr.contains("did not answer a chat completion") && stderr.contains("Empty reply"),
        "{stderr}"
    );
    assert!(stderr.contains("refusing"), "{stderr}");
    assert_no_server_left(home.path());
}

#[test]
fn start_reports_a_server_that_dies_on_its_first_completion_with_the_log_tail() {
    let home = tempfile::tempdir().unwrap();
    let out = script(home.path(), Some("die"), "start");
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert!(
        !out.status.success(),
        "start accepted it: {stdout}\n{stderr}"
    );
    assert!(!stdout.contains("http://"), "{stdout}");
    assert!(
        stderr.contains("died on its first chat completion"),
        "{stderr}"
    );
    assert!(
        stderr.contains("crashing on the first chat completion"),
        "the log tail is shown: {stderr}"
    );
    assert_no_server_left(home.path());
}

#[test]
fn start_prints_the_url_after_a_completion_and_status_checks_one() {
    let home = tempfile::tempdir().unwrap();
    let out = script(home.path(), Some("ok"), "start");
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert!(out.status.success(), "{stdout}\n{stderr}");
    let url = stdout.lines().last().unwrap_or_default().to_string();
    assert!(
        url.starts_with("http://127.0.0.1:") && url.ends_with("/v1"),
        "{stdout}"
    );
    assert!(
        stderr.contains("checking that it answers a chat completion"),
        "{stderr}"
    );

    let status = script(home.path(), None, "status");
    assert!(status.status.success(), "{}", text(&status.stderr));
    assert_eq!(text(&status.stdout).trim(), url);

    // Point the pid and port files at a server that answers /v1/models only: status
    // must not call it running.
    let stop = script(home.path(), None, "stop");
    assert!(stop.status.success());
    let port = url
        .trim_start_matches("http://127.0.0.1:")
        .trim_end_matches("/v1")
        .to_string();
    let mut dropper = Command::new("python3")
        .arg(root().join("tests/fixtures/llm-standin/server.py"))
        .arg("drop")
        .env("PORT", &port)
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    std::fs::write(home.path().join("server.pid"), dropper.id().to_string()).unwrap();
    std::fs::write(home.path().join("server.port"), &port).unwrap();
    let mut answered_models = false;
    for _ in 0..50 {
        let probe = Command::new("curl")
            .args(["-fsS", "--max-time", "1"])
            .arg(format!("http://127.0.0.1:{port}/v1/models"))
            .output()
            .unwrap();
        if probe.status.success() {
            answered_models = true;
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    assert!(answered_models, "the stand-in did not come up");
    let status = script(home.path(), None, "status");
    let _ = dropper.kill();
    let _ = dropper.wait();
    assert!(!status.status.success(), "{}", text(&status.stdout));
    assert!(text(&status.stdout).trim().is_empty());
}
