//! One writer per session: a second writer is refused with the holder's pid and
//! command (`check` is not a writer of the session: it only adds verdicts), a lock left by a killed process does not block, and a second workbench is
//! read-only.

use crate::tui_common;

use mastor::model::{Decision, ReviewDecision};
use mastor::store::{LockError, LockHolder, Manifest, Session, SessionLock};
use mastor::tui::driver::{Options, open_session};
use mastor::tui::update::{Effect, handle_key};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const HOLD_DIR: &str = "HARDEN_STORE_HOLD_DIR";

fn new_session(dir: &Path) {
    Session::create(dir, Manifest::new(String::new(), String::new())).unwrap();
}

/// `mastor check` on the session; returns (exit code, stderr).
fn check(session: &Path) -> (i32, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_mastor"))
        .args([
            "check",
            session.to_str().unwrap(),
            "--base-url",
            "http://127.0.0.1:9",
        ])
        .env("HOME", session)
        .env_remove("MASTOR_CONFIG")
        .output()
        .expect("run mastor");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn check_is_not_refused_while_another_process_holds_the_session() {
    // `check` only adds a verdict file (merged under its own lock): a workbench or a
    // run holding the session does not stop it.
    let dir = tempfile::tempdir().unwrap();
    new_session(dir.path());
    let _held = SessionLock::acquire(dir.path(), "holder under test").unwrap();
    let (code, stderr) = check(dir.path());
    assert!(!stderr.contains("in use by pid"), "{stderr}");
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("nothing to run"), "{stderr}");
}

#[test]
fn import_into_a_directory_a_writer_holds_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("sess");
    let _held = SessionLock::acquire(&out, "mastor run").unwrap();
    let file = dir.path().join("suite.json");
    std::fs::write(
        &file,
        r#"[{"test_id": "t", "op_id": "GET /a", "assertions": [{"type": "status", "expected": 200}]}]"#,
    )
    .unwrap();
    let output = Command::new(env!("CARGO_BIN_EXE_mastor"))
        .args([
            "import",
            file.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ])
        .env("HOME", dir.path())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains(&format!("pid {}", std::process::id())),
        "{stderr}"
    );
    assert!(!out.join("manifest.json").exists());
}

/// Not a test on its own: the child process of
/// `a_lock_left_by_a_killed_process_does_not_block`, which takes the lock and waits.
#[test]
#[ignore = "helper process, started by another test"]
fn helper_holds_the_lock_until_killed() {
    let Ok(dir) = std::env::var(HOLD_DIR) else {
        return;
    };
    let _held = SessionLock::acquire(&dir, "helper holding the lock").unwrap();
    std::fs::write(Path::new(&dir).join("ready"), "").unwrap();
    std::thread::sleep(Duration::from_secs(120));
}

#[test]
fn a_lock_left_by_a_killed_process_does_not_block() {
    let dir = tempfile::tempdir().unwrap();
    new_session(dir.path());
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            // The test's name in the one integration test binary (tests/it).
            "harden_store_lock::helper_holds_the_lock_until_killed",
            "--ignored",
            "--test-threads=1",
        ])
        .env(HOLD_DIR, dir.path())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let start = Instant::now();
    while !dir.path().join("ready").exists() {
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "helper never locked"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    match SessionLock::acquire(dir.path(), "second") {
        Err(LockError::Held { holder, .. }) => {
            assert_eq!(holder.pid, child.id());
            assert_eq!(holder.command, "helper holding the lock");
        }
        other => panic!("expected the helper to hold the lock, got {other:?}"),
    }
    assert_eq!(
        SessionLock::holder(dir.path()).map(|h| h.pid),
        Some(child.id())
    );
    // SIGKILL: no destructor runs; the kernel drops the lock with the process.
    child.kill().unwrap();
    child.wait().unwrap();
    // The lock file still names the dead process, but that does not matter.
    assert!(
        std::fs::read_to_string(dir.path().join(".lock"))
            .unwrap()
            .contains(&child.id().to_string())
    );
    assert_eq!(SessionLock::holder(dir.path()), None);
    let (_, stderr) = check(dir.path());
    assert!(!stderr.contains("in use by pid"), "{stderr}");
    SessionLock::acquire(dir.path(), "after the kill").expect("stale lock blocks");
}

fn key(c: char) -> KeyEvent {
    KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE)
}

fn enter() -> KeyEvent {
    KeyEvent::new(KeyCode::Enter, KeyModifiers::NONE)
}

fn workbench(dir: &Path) -> (Session, mastor::tui::state::App) {
    tui_common::petstore_session(dir);
    let opts = Options {
        theme: Some("dark".into()),
        keymap: Some(dir.join("no-keymap.toml")),
        settings: Some(dir.join("no-settings.toml")),
        mouse: false,
    };
    open_session(dir, &opts).unwrap()
}

#[test]
fn a_read_only_workbench_refuses_accept_undo_and_reject() {
    let dir = tempfile::tempdir().unwrap();
    let (session, mut app) = workbench(dir.path());
    let before = session.read_review_journal().unwrap().len();
    // Writable: Enter opens GET /pets, `a` accepts its first oracle.
    let effects = handle_key(&mut app, enter());
    assert!(effects.is_empty());
    let effects = handle_key(&mut app, key('a'));
    assert!(
        matches!(
            &effects[..],
            [Effect::Record(ReviewDecision {
                decision: Decision::Accepted,
                ..
            })]
        ),
        "{effects:?}"
    );

    app.read_only = Some(LockHolder {
        pid: 4242,
        command: "mastor tui".into(),
    });
    for c in ['a', 'u', 'r', 'e', 'A'] {
        let effects = handle_key(&mut app, key(c));
        assert!(effects.is_empty(), "{c}: {effects:?}");
        let (text, is_error) = app.status.clone().expect("a message");
        assert!(is_error, "{text}");
        assert!(
            text.contains("read-only: session locked by pid 4242"),
            "{c}: {text}"
        );
        assert!(app.popups.is_empty(), "{c}: no note or editor opens");
    }
    assert_eq!(session.read_review_journal().unwrap().len(), before);

    // The header says so on every screen.
    app.prepare_frame();
    let mut terminal = Terminal::new(TestBackend::new(160, 30)).unwrap();
    terminal.draw(|f| f.render_widget(&app, f.area())).unwrap();
    let text: String = terminal
        .backend()
        .buffer()
        .content()
        .iter()
        .map(|c| c.symbol())
        .collect();
    assert!(text.contains("READ-ONLY: locked by pid 4242"), "{text}");
}

#[test]
fn baseline_and_metamorphic_are_refused_while_another_process_holds_the_session() {
    let dir = tempfile::tempdir().unwrap();
    new_session(dir.path());
    let _held = SessionLock::acquire(dir.path(), "holder under test").unwrap();
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/petstore-jdk");
    let spec = fixture.join("openapi.json");
    let out = dir.path().to_str().unwrap();
    let commands: [Vec<&str>; 2] = [
        vec!["baseline", "dp", fixture.to_str().unwrap(), "--out", out],
        vec![
            "metamorphic",
            spec.to_str().unwrap(),
            "--base-url",
            "http://127.0.0.1:9",
            "--out",
            out,
        ],
    ];
    for args in commands {
        let o = Command::new(env!("CARGO_BIN_EXE_mastor"))
            .args(&args)
            .env("HOME", dir.path())
            .env("MASTOR_BASE_URL", "http://127.0.0.1:9/v1")
            .env_remove("MASTOR_CONFIG")
            .output()
            .expect("run mastor");
        let stderr = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{}: {stderr}", args[0]);
        assert!(
            stderr.contains("holder under test"),
            "{}: {stderr}",
            args[0]
        );
    }
}
