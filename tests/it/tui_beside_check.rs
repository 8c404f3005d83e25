//! `mastor check` (which only adds a verdict file) and a read-only `mastor handler`
//! work beside an open workbench; the workbench picks the new verdicts up as it
//! follows a live run; two verdict writers at once lose nothing; `!` and `ctrl-f` run
//! again with the remembered reset command.

use crate::tui_common::tiny_api;
use crate::tui_undo::{Bench, GET_PETS, key};

use mastor::model::{Outcome, Verdict};
use mastor::runner::RunReport;
use mastor::store::SessionLock;
use mastor::tui::tasks::{TaskKind, Work};
use mastor::tui::update::{Effect, handle_key};
use mastor::tui::verdict_watch::VerdictWatch;
use std::path::Path;
use std::process::Command;

/// `mastor ARGS` with a clean environment; (exit code, stdout, stderr).
fn mastor(home: &Path, args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_mastor"))
        .args(args)
        .env("HOME", home)
        .env_remove("MASTOR_CONFIG")
        .output()
        .expect("run mastor");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn check_and_a_handler_query_run_beside_an_open_workbench_which_shows_the_verdicts() {
    let mut b = Bench::new();
    let dir = b.session.dir().to_path_buf();
    let sdir = dir.to_str().unwrap();
    // What `mastor tui` holds while it is open.
    let _tui = SessionLock::acquire(&dir, "mastor tui").unwrap();
    let mut watch = VerdictWatch::new(&b.session);
    assert!(!watch.look(&b.session, &mut b.app), "nothing new yet");
    let before = b.app.view.verdicts.len();
    let url = tiny_api();
    let (code, _, stderr) = mastor(
        b.dir.path(),
        &["check", sdir, "--only", "all", "--base-url", &url],
    );
    assert!(!stderr.contains("in use by pid"), "{stderr}");
    assert!(matches!(code, 0 | 1), "{code}: {stderr}");
    // The workbench notices the new file and shows its verdicts.
    assert!(watch.look(&b.session, &mut b.app));
    assert!(
        b.status().contains("verdicts stored outside the workbench"),
        "{}",
        b.status()
    );
    assert!(
        b.app.view.verdicts.len() > before,
        "{:?}",
        b.app.view.verdicts
    );
    assert!(
        GET_PETS
            .iter()
            .all(|o| b.app.view.verdicts.contains_key(*o)),
        "{:?}",
        b.app.view.verdicts
    );
    assert!(!watch.look(&b.session, &mut b.app), "seen once");
    // Showing a handler conflict only reads; picking one writes and is refused.
    let (code, out, err) = mastor(b.dir.path(), &["handler", sdir, "--op", "GET /pets"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("no handler conflict recorded"), "{out}");
    let (code, _, err) = mastor(
        b.dir.path(),
        &["handler", sdir, "--op", "GET /pets", "--pick", "static"],
    );
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains(&format!("pid {}", std::process::id())),
        "{err}"
    );
}

#[test]
fn the_workbench_own_run_is_not_news_and_concurrent_writers_lose_nothing() {
    let mut b = Bench::new();
    let mut watch = VerdictWatch::new(&b.session);
    // While the workbench's own run stores verdicts, the change is its own.
    b.app.tasks.start(TaskKind::Oracles, "oracle run");
    let one = |o_id: &str| {
        let mut r = RunReport::default();
        r.push(Verdict {
            o_id: o_id.into(),
            outcome: Outcome::Pass,
            steps: vec![],
            at: "2026-12-02T13:00:00Z".into(),
            base_url: "http://x".into(),
            isolation: None,
            content_hash: None,
        });
        r
    };
    mastor::suite::session::save_verdicts(&b.session, "http://x", &one(GET_PETS[2])).unwrap();
    assert!(!watch.look(&b.session, &mut b.app));
    b.app.tasks.end(TaskKind::Oracles);
    assert!(
        !watch.look(&b.session, &mut b.app),
        "the run's end is absorbed"
    );
    // Eight writers at once (threads of two "processes"): every verdict is kept.
    let ids: Vec<String> = (0..8).map(|i| format!("GET /pets#extra_{i}")).collect();
    std::thread::scope(|s| {
        for id in &ids {
            let session = &b.session;
            let report = one(id);
            s.spawn(move || {
                mastor::suite::session::save_verdicts(session, "http://x", &report).unwrap()
            });
        }
    });
    let latest: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(b.session.dir().join("verdicts/latest.json")).unwrap(),
    )
    .unwrap();
    let kept: Vec<&str> = latest["verdicts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["o_id"].as_str().unwrap())
        .collect();
    for id in &ids {
        assert!(kept.contains(&id.as_str()), "{id} lost: {kept:?}");
    }
    assert!(watch.look(&b.session, &mut b.app), "other writers are news");
}

#[test]
fn run_again_keys_use_the_remembered_reset_command() {
    let mut b = Bench::new();
    b.app.jobs.last_api_url = Some("http://127.0.0.1:1".into());
    b.app.jobs.last_reset = Some("echo reset".into());
    // `!` on the first oracle of GET /pets (asked for, not performed: no event loop).
    b.press("<enter>");
    let effects = handle_key(&mut b.app, key("!"));
    match effects.as_slice() {
        [
            Effect::Start {
                work: Work::Oracles { only, reset, .. },
                ..
            },
        ] => {
            assert_eq!(only, &[GET_PETS[0].to_string()]);
            assert_eq!(reset.as_deref(), Some("echo reset"));
        }
        other => panic!("expected one run, got {other:?}"),
    }
    assert!(
        b.status().contains("after the reset command"),
        "{}",
        b.status()
    );
    b.app.tasks.end(TaskKind::Oracles);
    let effects = handle_key(&mut b.app, key("<C-f>"));
    match effects.as_slice() {
        [
            Effect::Start {
                work: Work::Oracles { reset, .. },
                ..
            },
        ] => assert_eq!(reset.as_deref(), Some("echo reset")),
        other => panic!("expected one run, got {other:?}"),
    }
}

#[test]
fn in_a_terminal_the_open_workbench_shows_a_check_run_from_another_shell() {
    if Command::new("tmux").arg("-V").output().is_err() {
        eprintln!("tmux not installed: skipping the terminal test");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let session = crate::tui_common::petstore_session(dir.path());
    let sdir = session.dir().to_str().unwrap().to_string();
    let cmd = format!(
        "env MASTOR_CONFIG={cfg} TERM=xterm-256color {bin} tui {sdir}",
        cfg = dir.path().join("cfg").display(),
        bin = env!("CARGO_BIN_EXE_mastor"),
    );
    let name = format!("mastor-beside-{}", std::process::id());
    let t = crate::tui_common::tmux::Tmux::start(&name, &cmd, 120, 40);
    t.wait_for("Operations (4)", 20);
    let url = tiny_api();
    let (code, _, err) = mastor(
        dir.path(),
        &["check", &sdir, "--only", "all", "--base-url", &url],
    );
    assert!(matches!(code, 0 | 1), "{code}: {err}");
    let s = t.wait_for("verdicts stored outside the workbench", 20);
    assert!(!s.contains("READ-ONLY"), "{s}");
    t.keys(&["q"]);
}
