//! Live mode: `mastor tui PROJECT --run` starts the pipeline against the scripted model
//! server and shows it while it works. End to end in tmux (queued/running, then done,
//! then the reloaded oracle counts), plus the state-level contract in process: pipeline
//! events in, agent statuses out, quitting a running run asks first, and the end of a
//! run reloads the session without losing the cursor.

use crate::support;
use crate::tui_common;

use tui_common::tmux::Tmux;

use mastor::llm::scripted::{Script, ScriptedServer};
use mastor::store::{Event, EventKind, Session};
use mastor::tui::executor::{Executor, Launchers};
use mastor::tui::keymap::Keymap;
use mastor::tui::live::{self, Live};
use mastor::tui::msg::{self, Msg};
use mastor::tui::state::{App, LiveState, Popup};
use mastor::tui::tasks::TaskKind;
use mastor::tui::theme::Theme;
use mastor::tui::view::AgentState;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};
use support::*;

/// The petstore conversation, with every extraction and single-operation answer held
/// back `delay_ms`, so each stage stays on screen for a while.
fn slow_script(delay_ms: u64) -> Script {
    let mut script = petstore_script();
    for rule in &mut script.rules {
        if matches!(rule.agent.as_deref(), Some("extraction" | "single_op")) {
            rule.delay_ms = delay_ms;
        }
    }
    script
}

/// `mastor tui <petstore> --run` in tmux, pointed at `base_url`, isolated in `home`.
fn launch(base_url: &str, home: &Path, out: &Path, name: &str) -> Tmux {
    let ops: String = [POST, GET, DELETE]
        .iter()
        .map(|op| format!(" --op '{op}'"))
        .collect();
    let cmd = format!(
        "env -u MASTOR_CONFIG -u MASTOR_CHALLENGER_BASE_URL -u MASTOR_API_KEY \
         HOME={home} XDG_CONFIG_HOME={home}/config XDG_CACHE_HOME={home}/cache \
         XDG_STATE_HOME={home}/state MASTOR_BASE_URL={base_url} MASTOR_MODEL=scripted \
         MASTOR_PROVIDER=custom TERM=xterm-256color \
         {bin} tui {project} --run --out {out}{ops} --concurrency 4; sleep 30",
        home = home.display(),
        bin = env!("CARGO_BIN_EXE_mastor"),
        project = fixture("petstore-jdk").display(),
        out = out.display(),
    );
    Tmux::start(name, &cmd, 140, 45)
}

/// Moves the operations cursor until the "Selected" pane shows `op`.
fn select(t: &Tmux, op: &str) {
    let head = format!("│{op} ");
    for _ in 0..12 {
        if t.screen().contains(&head) {
            return;
        }
        t.keys(&["Down"]);
        std::thread::sleep(Duration::from_millis(150));
    }
    panic!("cannot select {op}; screen:\n{}", t.screen());
}

fn tmux_missing() -> bool {
    Command::new("tmux").arg("-V").output().is_err()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn live_run_in_tmux_shows_progress_then_results() {
    if tmux_missing() {
        eprintln!("tmux not installed: skipping the live terminal test");
        return;
    }
    let server = ScriptedServer::start(slow_script(2500)).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("session");
    let name = format!("mastor-live-{}", std::process::id());
    let base_url = server.base_url();
    let (t, early, done, last) = tokio::task::block_in_place(|| {
        let t = launch(&base_url, dir.path(), &out, &name);
        let first = t.wait_until("the live screen", 20, |s| s.contains("run in progress"));
        // The lists never show discovery (no operation's agent): the status line says
        // whether the run asks for it, and why.
        assert!(
            first.contains("discovery: not planned (auto): the scan matched all 3 operations"),
            "{first}"
        );
        select(&t, GET);
        // First capture: GET waits for, or is inside, its slow extraction.
        let early = t.wait_until("GET queued or running", 20, |s| {
            s.contains("extraction: queued") || s.contains("extraction: running")
        });
        // Later: the same operation with its extraction done while the run goes on.
        let done = t.wait_until("GET extraction done", 30, |s| {
            s.contains("extraction: done")
        });
        let last = t.wait_until("the end of the run", 60, |s| s.contains("run finished"));
        (t, early, done, last)
    });
    assert!(
        early.contains(&format!("│{GET} ")),
        "GET not selected:\n{early}"
    );
    assert!(!early.contains("run finished"), "{early}");
    assert!(
        done.contains(&format!("│{GET} ")),
        "GET not selected:\n{done}"
    );
    assert!(done.contains("run in progress"), "{done}");
    assert!(
        early.contains(" ops · 0 oracles:"),
        "a fresh session starts empty:\n{early}"
    );

    // The final counts on screen are those of the session on disk.
    let session = Session::open(&out).unwrap();
    let view = mastor::tui::loader::load(&session).unwrap();
    let oracles: usize = view.ops.iter().map(|o| o.oracles.len()).sum();
    assert!(oracles > 0, "the run wrote no oracles");
    let counts = format!(
        "{} ops · {oracles} oracles: {oracles} to review",
        view.ops.len()
    );
    assert!(last.contains(&counts), "want `{counts}` on:\n{last}");
    assert!(last.contains("extraction: done"), "{last}");
    assert!(
        session.read_suite(GET).unwrap().is_some(),
        "GET suite missing"
    );

    // Finished: q quits at once, without asking.
    t.keys(&["q"]);
    let start = Instant::now();
    while t.screen().contains("run finished") && start.elapsed() < Duration::from_secs(10) {
        std::thread::sleep(Duration::from_millis(100));
    }
    let s = t.screen();
    assert!(!s.contains("Stop it and quit?"), "{s}");
    assert!(s.contains("session: "), "the workbench did not quit:\n{s}");
    assert!(t.alive());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn quitting_a_live_run_asks_then_stops_it() {
    if tmux_missing() {
        eprintln!("tmux not installed: skipping the live terminal test");
        return;
    }
    let server = ScriptedServer::start(slow_script(60_000)).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("session");
    let name = format!("mastor-live-quit-{}", std::process::id());
    let base_url = server.base_url();
    tokio::task::block_in_place(|| {
        let t = launch(&base_url, dir.path(), &out, &name);
        t.wait_until("a running extraction", 20, |s| {
            s.contains("run in progress")
        });
        t.keys(&["q"]);
        t.wait_until("the quit question", 10, |s| s.contains("Stop it and quit?"));
        t.keys(&["n"]);
        let s = t.wait_until("the question gone", 10, |s| {
            !s.contains("Stop it and quit?")
        });
        assert!(s.contains("run in progress"), "{s}");
        t.keys(&["q"]);
        t.wait_until("the quit question again", 10, |s| {
            s.contains("Stop it and quit?")
        });
        let start = Instant::now();
        t.keys(&["y"]);
        let s = t.wait_until("the workbench closed", 10, |s| s.contains("session: "));
        assert!(s.contains("the run did not finish"), "{s}");
        assert!(
            start.elapsed() < Duration::from_secs(8),
            "stopping took {:?}:\n{s}",
            start.elapsed()
        );
    });
    // The session stays resumable: it opens, and its operations are listed.
    let session = Session::open(&out).unwrap();
    let view = mastor::tui::loader::load(&session).unwrap();
    assert!(view.op_index.contains_key(GET));
}

#[test]
fn run_options_without_run_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let out = mastor(
        "http://127.0.0.1:9",
        dir.path(),
        &["tui", dir.path().to_str().unwrap(), "--op", GET],
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{stderr}");
    assert!(stderr.contains("need --run"), "{stderr}");
    // Control: without the run option the complaint is about the missing session.
    let out = mastor(
        "http://127.0.0.1:9",
        dir.path(),
        &["tui", dir.path().to_str().unwrap()],
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{stderr}");
    assert!(!stderr.contains("need --run"), "{stderr}");
    // The budget is the re-run dialog's in review mode; a dry run still needs --run.
    let dir_arg = dir.path().to_str().unwrap();
    for (budget, refused) in [
        (
            vec!["--max-cost", "0.5", "--max-tokens-total", "9000"],
            false,
        ),
        (vec!["--dry-run"], true),
    ] {
        let mut args = vec!["tui", dir_arg];
        args.extend(&budget);
        let out = mastor("http://127.0.0.1:9", dir.path(), &args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{stderr}");
        assert_eq!(
            stderr.contains("need --run"),
            refused,
            "{budget:?}: {stderr}"
        );
    }
}

// ---- state level: events in, statuses out ----------------------------------------

fn event(kind: EventKind, agent: &str, op: &str) -> Event {
    Event::new(kind, agent).op(op.to_string())
}

fn key(c: char) -> KeyEvent {
    KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE)
}

fn live_app(dir: &Path) -> (Session, App) {
    let session = tui_common::petstore_session(dir);
    let view = mastor::tui::loader::load(&session).unwrap();
    let mut app = App::new(view, Keymap::default_keymap(), Theme::dark());
    assert_eq!(app.tasks.start(TaskKind::Run, "run"), RUN);
    (session, app)
}

/// The number of the live run's task in a fresh workbench.
const RUN: u64 = 1;

/// Applies `msg` as the event loop does.
fn feed(session: &Session, app: &mut App, msg: Msg) {
    let mut exec = Executor::inline(session.dir(), Launchers::default());
    msg::dispatch(
        session,
        app,
        &mut exec,
        &mut |t: &str| Ok(t.to_string()),
        msg,
    );
}

fn ev(event: Event) -> Msg {
    Msg::Event { seq: RUN, event }
}

fn end(outcome: Result<String, String>) -> Msg {
    Msg::Done { seq: RUN, outcome }
}

fn state_of(app: &App, op: &str, agent: &str) -> Option<AgentState> {
    let idx = app.view.op_index[op];
    app.view.ops[idx].agents.get(agent).map(|a| a.state.clone())
}

const POST_PETS: &str = "POST /pets";
const GET_ONE: &str = "GET /pets/{id}";

#[test]
fn events_move_statuses_from_queued_to_running_to_done_or_failed() {
    let dir = tempfile::tempdir().unwrap();
    let (session, mut app) = live_app(dir.path());
    live::mark_queued(
        &mut app.view,
        &[POST_PETS.into(), GET_ONE.into(), "GET /unknown".into()],
    );
    assert_eq!(
        app.view.agents.first().map(String::as_str),
        Some("extraction")
    );
    assert_eq!(
        state_of(&app, POST_PETS, "extraction"),
        Some(AgentState::Queued)
    );
    assert_eq!(
        state_of(&app, GET_ONE, "extraction"),
        Some(AgentState::Queued)
    );
    assert_eq!(state_of(&app, "GET /pets", "extraction"), None);

    let started = event(EventKind::AgentStarted, "extraction", POST_PETS);
    let at = started.at;
    feed(&session, &mut app, ev(started));
    assert_eq!(
        state_of(&app, POST_PETS, "extraction"),
        Some(AgentState::Running { since: at })
    );
    let finished = event(EventKind::AgentFinished, "extraction", POST_PETS).wall_ms(1500);
    feed(&session, &mut app, ev(finished));
    assert_eq!(
        state_of(&app, POST_PETS, "extraction"),
        Some(AgentState::Done {
            wall_ms: Some(1500)
        })
    );

    for e in [
        event(EventKind::AgentStarted, "extraction", GET_ONE),
        event(EventKind::AgentRetry, "extraction", GET_ONE).message("HTTP 503"),
        event(EventKind::AgentFailed, "extraction", GET_ONE).message("answer is not JSON"),
    ] {
        feed(&session, &mut app, ev(e));
    }
    let idx = app.view.op_index[GET_ONE];
    let status = &app.view.ops[idx].agents["extraction"];
    assert_eq!(
        status.state,
        AgentState::Failed {
            reason: "answer is not JSON".into()
        }
    );
    assert_eq!(status.retries, 1);
    assert_eq!(status.last_retry.as_deref(), Some("HTTP 503"));
    assert_eq!(app.live(), LiveState::Running, "events do not end the run");
}

#[test]
fn quitting_while_running_asks_first() {
    let dir = tempfile::tempdir().unwrap();
    let (session, mut app) = live_app(dir.path());
    mastor::tui::update::handle_key(&mut app, key('q'));
    assert!(!app.quit);
    assert!(matches!(app.popups.last(), Some(Popup::ConfirmQuit(_))));
    mastor::tui::update::handle_key(&mut app, key('n'));
    assert!(!app.quit);
    assert!(app.popups.is_empty());
    mastor::tui::update::handle_key(&mut app, key('q'));
    mastor::tui::update::handle_key(&mut app, key('y'));
    assert!(app.quit);

    // Once the run is over, q quits at once (and a pending question disappears).
    let dir = tempfile::tempdir().unwrap();
    let (_, mut app) = live_app(dir.path());
    mastor::tui::update::handle_key(&mut app, key('q'));
    feed(&session, &mut app, end(Ok(String::new())));
    assert!(app.popups.is_empty());
    mastor::tui::update::handle_key(&mut app, key('q'));
    assert!(app.quit);
}

#[test]
fn end_of_run_reloads_from_disk_and_keeps_the_cursor() {
    let dir = tempfile::tempdir().unwrap();
    let (session, mut app) = live_app(dir.path());
    live::mark_queued(&mut app.view, &[POST_PETS.into(), GET_ONE.into()]);
    app.operations_mut().unwrap().cursor = 2;
    feed(
        &session,
        &mut app,
        ev(event(EventKind::AgentStarted, "extraction", POST_PETS)),
    );
    // What the run wrote to disk meanwhile: GET's extraction finished.
    session
        .append_event(&event(EventKind::AgentFinished, "extraction", GET_ONE).wall_ms(7))
        .unwrap();
    feed(&session, &mut app, end(Ok(String::new())));
    assert_eq!(app.live(), LiveState::Finished);
    // A second end, or an event after it, is stale: nothing changes.
    feed(&session, &mut app, end(Err("late".into())));
    feed(
        &session,
        &mut app,
        ev(event(EventKind::AgentStarted, "extraction", POST_PETS)),
    );
    assert_eq!(app.live(), LiveState::Finished);
    assert_eq!(state_of(&app, POST_PETS, "extraction"), None);
    assert_eq!(app.ops_cursor(), 2, "cursor kept");
    // Disk wins: GET done as recorded, POST's live-only start is gone.
    assert_eq!(
        state_of(&app, GET_ONE, "extraction"),
        Some(AgentState::Done { wall_ms: Some(7) })
    );
    assert_eq!(state_of(&app, POST_PETS, "extraction"), None);
}

#[test]
fn a_run_that_vanishes_or_is_stopped_ends_live_mode() {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, Ordering};
    let dir = tempfile::tempdir().unwrap();
    let (session, mut app) = live_app(dir.path());

    // The run's thread died without a word: the screen says so and reloads.
    let mut exec = Executor::inline(session.dir(), Launchers::default());
    let reporter = exec.reporter(RUN);
    reporter.event(&event(EventKind::AgentStarted, "extraction", POST_PETS));
    drop(reporter);
    while let Some(m) = exec.next(Duration::ZERO) {
        msg::dispatch(
            &session,
            &mut app,
            &mut exec,
            &mut |t: &str| Ok(t.into()),
            m,
        );
    }
    assert!(
        matches!(&app.live(), LiveState::Failed(why) if why.contains("unexpectedly")),
        "{:?}",
        app.live()
    );
    assert!(app.tasks.busy().is_none(), "the run left the registry");

    // Stopping calls the run's stop hook and returns once the run reports back.
    let reporter = exec.reporter(2);
    let stopped = Arc::new(AtomicBool::new(false));
    let flag = Arc::clone(&stopped);
    let live = Live::new(Box::new(move || {
        flag.store(true, Ordering::SeqCst);
        reporter.done(Err("stopped".into()));
    }));
    let start = Instant::now();
    live.stop(2, &mut exec, Duration::from_secs(5));
    assert!(stopped.load(Ordering::SeqCst));
    assert!(start.elapsed() < Duration::from_secs(2));
}
