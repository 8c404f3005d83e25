//! Workbench background actions: re-running one operation (`ctrl-r`) and running the
//! accepted oracles against a live API (`ctrl-t`). Keys in, effects and state out, in
//! process; plus one real oracle run against the petstore-jdk fixture API whose verdicts
//! must be saved and show in the reloaded view, and one real re-run against the scripted
//! model server that must ask the model again and reload the session.

use crate::export_common;
use crate::support;
use crate::tui_common;

use export_common::FixtureApi;
use tui_common::tmux::Tmux;

use mastor::model::{Decision, Outcome, ReviewDecision};
use mastor::store::Session;
use mastor::tui::executor::{Executor, Launchers};
use mastor::tui::keymap::Keymap;
use mastor::tui::msg::Msg;
use mastor::tui::state::{App, LiveState, Popup, Screen};
use mastor::tui::tasks::{TaskKind, Work};
use mastor::tui::theme::Theme;
use mastor::tui::update::{Effect, handle_key};
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use std::path::Path;
use std::process::Command;
use std::time::Duration;

fn ctrl(c: char) -> KeyEvent {
    KeyEvent::new(KeyCode::Char(c), KeyModifiers::CONTROL)
}

fn code(c: KeyCode) -> KeyEvent {
    KeyEvent::new(c, KeyModifiers::NONE)
}

fn app_for(session: &Session) -> App {
    let view = mastor::tui::loader::load(session).unwrap();
    App::new(view, Keymap::default_keymap(), Theme::dark())
}

/// The petstore session with its first operation open.
fn on_operation(dir: &Path) -> (Session, App) {
    let session = tui_common::petstore_session(dir);
    let mut app = app_for(&session);
    assert!(handle_key(&mut app, code(KeyCode::Enter)).is_empty());
    assert!(matches!(app.screen, Screen::Operation(_)));
    (session, app)
}

fn accept(o_id: &str) -> ReviewDecision {
    ReviewDecision {
        o_id: o_id.to_string(),
        decision: Decision::Accepted,
        edited: None,
        note: None,
        at: chrono::Utc::now().to_rfc3339(),
        step: None,
    }
}

/// `ctrl-r` then enter: a re-run of every agent.
fn rerun_all(app: &mut App) -> Vec<Effect> {
    open_dialog(app);
    handle_key(app, code(KeyCode::Enter))
}

/// `ctrl-r`: the dialog opens and asks for the plan of a re-run of every agent, which
/// ends without one (no planner here), so the dialog works as it does without plans.
fn open_dialog(app: &mut App) {
    let effects = handle_key(app, ctrl('r'));
    assert!(
        matches!(
            crate::tui_common::works(&effects).as_slice(),
            [Work::Plan { from: None, .. }]
        ),
        "{effects:?}"
    );
    no_plan(app);
}

/// The plan task in flight ends without a plan.
fn no_plan(app: &mut App) {
    let seq = app
        .tasks
        .get(TaskKind::Plan)
        .expect("a plan is asked for")
        .seq;
    let outcome = Err("no plan: not planned here".into());
    assert!(mastor::tui::msg::update(app, Msg::Done { seq, outcome }).is_empty());
}

#[test]
fn ctrl_r_asks_which_agent_to_start_from() {
    let tmp = tempfile::tempdir().unwrap();
    let (_session, mut app) = on_operation(tmp.path());
    let op_id = app.view.ops[app.current_op().unwrap()].op_id.clone();

    open_dialog(&mut app);
    match app.popups.last() {
        Some(Popup::Rerun(mastor::tui::popups::Rerun {
            op_id: o, choice, ..
        })) => {
            assert_eq!((o, *choice), (&op_id, 0))
        }
        other => panic!("expected the re-run popup, got {other:?}"),
    }
    // Down past the end stays on the last choice; up comes back.
    for _ in 0..10 {
        handle_key(&mut app, code(KeyCode::Down));
    }
    handle_key(&mut app, code(KeyCode::Up));
    handle_key(&mut app, code(KeyCode::Up));
    // One plan at opening, and one per choice moved to (4 down, 2 up).
    assert_eq!(app.tasks.last_seq(), 7);
    no_plan(&mut app);
    assert_eq!(
        handle_key(&mut app, code(KeyCode::Enter)),
        vec![Effect::Start {
            seq: 8,
            work: Work::Rerun {
                op_id: op_id.clone(),
                from: Some("single_op".into()),
            }
        }]
    );
    assert!(app.popups.is_empty());
    assert_eq!(
        app.tasks.get(TaskKind::Rerun).map(|t| t.label.as_str()),
        Some(format!("re-run of {op_id} from single_op on").as_str())
    );
    let (msg, _) = app.status.clone().unwrap();
    assert!(msg.contains("from single_op on"), "{msg}");

    // Esc cancels without starting anything (and drops a plan still running).
    app.tasks.end(TaskKind::Rerun);
    assert!(!crate::tui_common::works(&handle_key(&mut app, ctrl('r'))).is_empty());
    assert!(handle_key(&mut app, code(KeyCode::Esc)).is_empty());
    assert!(app.popups.is_empty());
    assert_eq!(app.tasks.last_seq(), 9);
    assert!(app.tasks.busy().is_none() && app.tasks.get(TaskKind::Plan).is_none());
}

#[test]
fn ctrl_r_on_an_operation_asks_for_a_rerun_of_that_op_and_refuses_a_second() {
    let tmp = tempfile::tempdir().unwrap();
    let (_session, mut app) = on_operation(tmp.path());
    let op_id = app.view.ops[app.current_op().unwrap()].op_id.clone();

    let effects = rerun_all(&mut app);
    assert_eq!(
        effects,
        vec![Effect::Start {
            seq: 2,
            work: Work::Rerun {
                op_id: op_id.clone(),
                from: None,
            }
        }]
    );
    assert_eq!(app.live(), LiveState::Running);
    assert_eq!(
        app.tasks.get(TaskKind::Rerun).map(|t| t.label.clone()),
        Some(format!("re-run of {op_id}"))
    );

    // While it runs, another re-run is refused with a message, and so is an oracle run.
    assert!(handle_key(&mut app, ctrl('r')).is_empty());
    assert!(app.popups.is_empty());
    let (msg, is_error) = app.status.clone().unwrap();
    assert!(is_error && msg.contains("in progress"), "{msg}");
    assert!(handle_key(&mut app, ctrl('t')).is_empty());
    assert!(app.popups.is_empty());
    assert_eq!(app.tasks.last_seq(), 2);
}

#[test]
fn ctrl_r_is_refused_while_a_live_run_is_in_progress() {
    let tmp = tempfile::tempdir().unwrap();
    let (_session, mut app) = on_operation(tmp.path());
    app.tasks.start(TaskKind::Run, "run");
    assert!(handle_key(&mut app, ctrl('r')).is_empty());
    assert!(app.popups.is_empty());
    assert!(app.status.clone().unwrap().1);
    assert!(app.tasks.get(TaskKind::Rerun).is_none());
}

#[test]
fn a_stale_rerun_finish_is_ignored_and_the_latest_reloads_from_disk() {
    let tmp = tempfile::tempdir().unwrap();
    let (session, mut app) = on_operation(tmp.path());
    let first = app.view.ops[app.current_op().unwrap()].oracles[0].o_id();

    // Re-run 1 starts and finishes.
    assert_eq!(rerun_all(&mut app).len(), 1);
    let fin = |seq| Msg::Done {
        seq,
        outcome: Ok(String::new()),
    };
    let apply = |app: &mut App, m| {
        let mut exec = Executor::inline(session.dir(), Launchers::default());
        mastor::tui::msg::dispatch(&session, app, &mut exec, &mut |t: &str| Ok(t.into()), m);
    };
    // The re-run is task 2 (task 1 planned it).
    apply(&mut app, fin(2));
    assert_eq!(app.live(), LiveState::Finished);
    assert!(app.tasks.busy().is_none());

    // Re-run 2 starts; meanwhile the disk changes.
    assert_eq!(
        rerun_all(&mut app),
        vec![Effect::Start {
            seq: 4,
            work: Work::Rerun {
                op_id: app.view.ops[app.current_op().unwrap()].op_id.clone(),
                from: None,
            }
        }]
    );
    session.append_decision(&accept(&first)).unwrap();

    // A late finish of re-run 1 changes nothing: no reload, still running.
    apply(&mut app, fin(2));
    assert_eq!(app.live(), LiveState::Running);
    assert!(app.tasks.get(TaskKind::Rerun).is_some());
    assert!(!app.view.decisions.contains_key(&first));

    // The finish of re-run 2 reloads the session: the new data wins.
    apply(&mut app, fin(4));
    assert_eq!(app.live(), LiveState::Finished);
    assert!(app.tasks.get(TaskKind::Rerun).is_none());
    assert!(app.view.decisions.contains_key(&first));
}

#[test]
fn a_rerun_effect_goes_to_the_launcher_and_its_messages_come_back() {
    let tmp = tempfile::tempdir().unwrap();
    let (session, mut app) = on_operation(tmp.path());
    let launched = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let seen = launched.clone();
    let launchers = Launchers {
        rerun: Some(std::sync::Arc::new(
            move |op: &str, from: Option<&str>, r: &mastor::tui::executor::Reporter| {
                seen.lock()
                    .unwrap()
                    .push((op.to_string(), from.map(str::to_string)));
                // An event of this re-run shows while it goes.
                r.event(
                    &mastor::store::Event::new(
                        mastor::store::EventKind::AgentStarted,
                        "extraction",
                    )
                    .op(op.to_string()),
                );
                Err("model unreachable".to_string())
            },
        )),
        survivors: None,
        plan: None,
    };
    // Inline: the re-run is over when the key's effects are carried out.
    let mut exec = Executor::inline(session.dir(), launchers);
    let effects = rerun_all(&mut app);
    crate::tui_common::start_all(&session, &mut app, &mut exec, effects);
    while let Some(m) = exec.next(Duration::ZERO) {
        mastor::tui::msg::dispatch(
            &session,
            &mut app,
            &mut exec,
            &mut |t: &str| Ok(t.into()),
            m,
        );
    }
    let op_id = app.view.ops[app.current_op().unwrap()].op_id.clone();
    assert_eq!(*launched.lock().unwrap(), vec![(op_id, None)]);
    assert_eq!(app.live(), LiveState::Failed("model unreachable".into()));
    let (msg, is_error) = app.status.clone().unwrap();
    assert!(is_error && msg.contains("model unreachable"), "{msg}");
    assert!(app.tasks.busy().is_none(), "the re-run left the registry");

    // Without a launcher the re-run ends at once with a message instead of hanging.
    let mut none = Executor::inline(session.dir(), Launchers::default());
    let effects = rerun_all(&mut app);
    assert!(crate::tui_common::start_and_wait(
        &session, &mut app, &mut none, effects, 5
    ));
    let (msg, is_error) = app.status.clone().unwrap();
    assert!(is_error && msg.contains("not available"), "{msg}");
}

#[test]
fn the_run_popup_prefills_the_url_and_produces_the_run_effect() {
    let tmp = tempfile::tempdir().unwrap();
    let session = tui_common::petstore_session(tmp.path());
    let mut app = app_for(&session);
    // On the operations list, ctrl-r offers to re-run the selected operation.
    open_dialog(&mut app);
    let selected = app.view.ops[app.selected_op().unwrap()].op_id.clone();
    match app.popups.last() {
        Some(Popup::Rerun(mastor::tui::popups::Rerun { op_id, .. })) => {
            assert_eq!(op_id, &selected)
        }
        other => panic!("expected the re-run popup, got {other:?}"),
    }
    assert!(handle_key(&mut app, code(KeyCode::Esc)).is_empty());
    assert_eq!(app.tasks.last_seq(), 1, "only the plan");
    // Where no operation is in view, it says so instead.
    handle_key(&mut app, code(KeyCode::Char('3')));
    assert!(handle_key(&mut app, ctrl('r')).is_empty());
    assert!(app.popups.is_empty());
    assert!(app.status.clone().unwrap().1);
    handle_key(&mut app, code(KeyCode::Char('1')));

    // Prefilled from --api-url / MASTOR_API_URL.
    app.jobs.api_url = Some("http://127.0.0.1:9".into());
    assert!(handle_key(&mut app, ctrl('t')).is_empty());
    match app.popups.last() {
        Some(Popup::RunOracles(r)) => {
            assert_eq!(r.url.text(), "http://127.0.0.1:9")
        }
        other => panic!("expected the run popup, got {other:?}"),
    }
    assert!(handle_key(&mut app, code(KeyCode::Backspace)).is_empty());
    assert!(handle_key(&mut app, code(KeyCode::Char('1'))).is_empty());
    let effects = handle_key(&mut app, code(KeyCode::Enter));
    assert_eq!(
        crate::tui_common::works(&effects),
        vec![Work::Oracles {
            base_url: "http://127.0.0.1:1".into(),
            only: Vec::new(),
            reset: None,
        }]
    );
    assert!(app.popups.is_empty());
    assert!(app.tasks.get(TaskKind::Oracles).is_some());
    assert_eq!(app.jobs.last_api_url.as_deref(), Some("http://127.0.0.1:1"));

    // Without a configured URL, the last one used is offered.
    app.tasks.end(TaskKind::Oracles);
    app.jobs.api_url = None;
    handle_key(&mut app, ctrl('t'));
    match app.popups.last() {
        Some(Popup::RunOracles(r)) => {
            assert_eq!(r.url.text(), "http://127.0.0.1:1")
        }
        other => panic!("expected the run popup, got {other:?}"),
    }

    // A URL that is not one is refused in the status bar.
    for _ in 0..40 {
        handle_key(&mut app, code(KeyCode::Backspace));
    }
    for c in "nope".chars() {
        handle_key(&mut app, code(KeyCode::Char(c)));
    }
    assert!(handle_key(&mut app, code(KeyCode::Enter)).is_empty());
    assert!(app.tasks.get(TaskKind::Oracles).is_none());
    assert!(app.status.clone().unwrap().1);
}

/// `mastor import SUITE [extra] --out DIR`, then the session it made.
fn import(suite: &Path, extra: &[&str], dir: &Path) -> Session {
    let out = Command::new(env!("CARGO_BIN_EXE_mastor"))
        .arg("import")
        .arg(suite)
        .args(extra)
        .arg("--out")
        .arg(dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "import failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    Session::open(dir).unwrap()
}

#[test]
fn running_accepted_oracles_saves_verdicts_that_show_in_the_reloaded_view() {
    let tmp = tempfile::tempdir().unwrap();
    let api = FixtureApi::start_with(&tmp.path().join("api"), Some(false));
    let dir = tmp.path().join("session");
    let reference = tui_common::petstore_root().join("suites/reference.json");
    let session = import(&reference, &[], &dir);
    let mut app = app_for(&session);
    app.jobs.api_url = Some(api.base_url.clone());
    let mut exec = Executor::threads(session.dir(), Launchers::default());

    // Nothing accepted yet: the run says so in the status bar and saves nothing.
    handle_key(&mut app, ctrl('t'));
    let effects = handle_key(&mut app, code(KeyCode::Enter));
    assert!(crate::tui_common::start_and_wait(
        &session, &mut app, &mut exec, effects, 30
    ));
    let (msg, is_error) = app.status.clone().unwrap();
    assert!(is_error && msg.contains("no accepted"), "{msg}");
    assert!(!dir.join("verdicts/latest.json").exists());

    // Accept three oracles of GET /pets, then run for real.
    let suite = mastor::suite::session::read(&session).unwrap().suite;
    let accepted: Vec<String> = suite
        .oracles
        .iter()
        .filter(|o| o.op_id == "GET /pets")
        .take(3)
        .map(|o| o.o_id())
        .collect();
    assert_eq!(accepted.len(), 3);
    for o in &accepted {
        session.append_decision(&accept(o)).unwrap();
    }
    let mut app = app_for(&session);
    app.jobs.api_url = Some(api.base_url.clone());
    assert!(accepted.iter().all(|o| !app.view.verdicts.contains_key(o)));
    handle_key(&mut app, ctrl('t'));
    let effects = handle_key(&mut app, code(KeyCode::Enter));
    assert_eq!(
        crate::tui_common::works(&effects),
        vec![Work::Oracles {
            base_url: api.base_url.clone(),
            only: Vec::new(),
            reset: None,
        }]
    );
    assert!(crate::tui_common::start_and_wait(
        &session, &mut app, &mut exec, effects, 60
    ));
    let (msg, is_error) = app.status.clone().unwrap();
    assert!(!is_error, "{msg}");
    assert!(msg.contains("3 pass"), "{msg}");

    assert!(dir.join("verdicts/latest.json").is_file());
    for o in &accepted {
        assert_eq!(app.view.verdicts.get(o), Some(&Outcome::Pass), "{o}");
    }
    // Only the accepted oracles were run.
    assert_eq!(app.view.verdicts.len(), accepted.len());
}

#[test]
fn accepted_metamorphic_tests_run_alone_and_their_outcomes_are_saved() {
    let tmp = tempfile::tempdir().unwrap();
    let api = FixtureApi::start_with(&tmp.path().join("api"), Some(false));
    let suite = mastor::model::SuiteFile {
        schema_version: mastor::model::SCHEMA_VERSION,
        metamorphic: export_common::petstore_metamorphic(),
        ..Default::default()
    };
    let file = tmp.path().join("mr-suite.json");
    std::fs::write(&file, serde_json::to_vec(&suite).unwrap()).unwrap();
    let spec = tui_common::petstore_root().join("openapi.json");
    let session = import(
        &file,
        &["--spec", spec.to_str().unwrap()],
        &tmp.path().join("session"),
    );
    // Only metamorphic tests are accepted: the run must still start.
    for id in ["mr#limit_is_a_prefix", "mr#missing_pet"] {
        session.append_decision(&accept(id)).unwrap();
    }
    let mut app = app_for(&session);
    app.jobs.api_url = Some(api.base_url.clone());
    let mut exec = Executor::threads(session.dir(), Launchers::default());
    handle_key(&mut app, ctrl('t'));
    let effects = handle_key(&mut app, code(KeyCode::Enter));
    assert!(crate::tui_common::start_and_wait(
        &session, &mut app, &mut exec, effects, 60
    ));
    let (msg, is_error) = app.status.clone().unwrap();
    assert!(!is_error, "{msg}");
    assert!(msg.contains("1 pass") && msg.contains("1 error"), "{msg}");
    assert_eq!(
        app.view.verdicts.get("mr#limit_is_a_prefix"),
        Some(&Outcome::Pass)
    );
    // A seed reading a pet that does not exist is an execution failure, not a finding.
    assert_eq!(
        app.view.verdicts.get("mr#missing_pet"),
        Some(&Outcome::Error)
    );
    assert!(!app.view.verdicts.contains_key("mr#status_change_visible"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_real_rerun_asks_the_model_again_and_reloads_the_session() {
    use mastor::llm::scripted::ScriptedServer;
    use support::{agent_calls, fixture, mastor, petstore_script};
    const GET_ONE: &str = "GET /pets/{petId}";
    if Command::new("tmux").arg("-V").output().is_err() {
        eprintln!("tmux not installed: skipping the terminal re-run test");
        return;
    }
    let server = ScriptedServer::start(petstore_script()).await.unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    let out = tmp.path().join("session");
    let project = fixture("petstore-jdk");
    let run = mastor(
        &server.base_url(),
        &home,
        &[
            "run",
            project.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "--op",
            GET_ONE,
        ],
    );
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let before = agent_calls(&server, "single_op");
    assert!(before > 0);

    let cmd = format!(
        "env -u MASTOR_CONFIG -u MASTOR_CHALLENGER_BASE_URL -u MASTOR_API_KEY \
         HOME={home} XDG_CONFIG_HOME={home}/config XDG_CACHE_HOME={home}/cache \
         XDG_STATE_HOME={home}/state MASTOR_BASE_URL={base_url} MASTOR_MODEL=scripted \
         MASTOR_PROVIDER=custom TERM=xterm-256color {bin} tui {out}; sleep 30",
        home = home.display(),
        base_url = server.base_url(),
        bin = env!("CARGO_BIN_EXE_mastor"),
        out = out.display(),
    );
    let t = Tmux::start(
        &format!("mastor-rerun-{}", std::process::id()),
        &cmd,
        140,
        45,
    );
    t.wait_for("Operations", 20);
    let head = format!("│{GET_ONE} ");
    let mut found = false;
    for _ in 0..12 {
        if t.screen().contains(&head) {
            found = true;
            break;
        }
        t.keys(&["Down"]);
        std::thread::sleep(Duration::from_millis(150));
    }
    assert!(found, "cannot select {GET_ONE}; screen:\n{}", t.screen());
    t.keys(&["Enter", "C-r"]);
    t.wait_for("Re-run GET /pets/{petId} from:", 10);
    // The plan of the re-run, made by the real planner before anything is sent.
    let screen = t.wait_for("p: the whole plan", 30);
    assert!(screen.contains("single_op_challenger 1"), "{screen}");
    t.keys(&["Enter"]);
    let screen = t.wait_for(&format!("re-run of {GET_ONE} finished"), 90);
    assert!(!screen.contains("run failed"), "{screen}");
    // --refresh: the cached answers were not reused, the model was asked again.
    assert!(agent_calls(&server, "single_op") > before);

    // From the challenger on: extraction and generation replay, the review is asked again.
    let calls = |a: &str| agent_calls(&server, a);
    let (extraction, single, challenger) = (
        calls("extraction"),
        calls("single_op"),
        calls("single_op_challenger"),
    );
    assert!(challenger > 0, "the script's suite was never reviewed");
    t.keys(&["C-r"]);
    t.wait_for("Re-run GET /pets/{petId} from:", 10);
    t.keys(&["Down", "Down", "Down"]);
    t.wait_until("the plan from the challenger on", 30, |s| {
        s.contains("▶ single_op_challenger") && s.contains("an upper bound")
    });
    t.keys(&["Enter"]);
    let screen = t.wait_for(
        &format!("re-run of {GET_ONE} from single_op_challenger on finished"),
        90,
    );
    assert!(!screen.contains("run failed"), "{screen}");
    assert_eq!(calls("extraction"), extraction);
    assert_eq!(calls("single_op"), single);
    assert!(calls("single_op_challenger") > challenger);
    t.keys(&["q"]);
}
