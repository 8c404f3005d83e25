//! The re-run dialog's plan: keys in, an inline executor with a fake planner, the
//! dialog's state and drawing out (plan shown, stale plans dropped, a second confirm
//! over the budget, the planner's error escaped); and the real planner the command
//! line builds, on the petstore-jdk fixture, against the scripted server: no call, and
//! the totals of `mastor run --dry-run --op`.

use crate::support::*;
use crate::tui_common;

use mastor::llm::scripted::ScriptedServer;
use mastor::store::Session;
use mastor::tui::executor::{Executor, Launchers, PlanLauncher};
use mastor::tui::keymap::Keymap;
use mastor::tui::msg::{Msg, carry_out, dispatch};
use mastor::tui::popups::Rerun;
use mastor::tui::rerun_plan::{PlanState, RerunPlan};
use mastor::tui::state::{App, Popup, Screen};
use mastor::tui::tasks::{TaskKind, Work};
use mastor::tui::theme::Theme;
use mastor::tui::update::{Effect, handle_key};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use std::sync::{Arc, Mutex};
use std::time::Duration;

fn ctrl(c: char) -> KeyEvent {
    KeyEvent::new(KeyCode::Char(c), KeyModifiers::CONTROL)
}

fn code(c: KeyCode) -> KeyEvent {
    KeyEvent::new(c, KeyModifiers::NONE)
}

/// A plan whose figures depend on where the re-run starts (so a stale one shows).
fn fake_plan(from: Option<&str>, over: Option<&str>) -> RerunPlan {
    let k = if from.is_none() { 1 } else { 2 };
    RerunPlan {
        calls: vec![("extraction".into(), 1), ("single_op".into(), k)],
        input_tokens: 12_000 * k as u64,
        prefix_tokens: 4_000,
        output_tokens: 6_500,
        cost_without_cache: 0.0123 * k as f64,
        cost_with_cache: 0.0101,
        models: vec!["primary: deepseek deepseek-chat".into()],
        files: 3,
        lines: 120 * k,
        over_budget: over.map(str::to_string),
        discovery: None,
        text: format!(
            "Run plan (nothing has been sent). from {}\n{}",
            from.unwrap_or("every agent"),
            "a line of the plan\n".repeat(60)
        ),
    }
}

type Seen = Arc<Mutex<Vec<(String, Option<String>)>>>;

/// A planner answering `answer(from)`, recording each call.
fn planner(
    seen: &Seen,
    answer: impl Fn(Option<&str>) -> Result<RerunPlan, String> + Send + Sync + 'static,
) -> Launchers {
    let seen = Arc::clone(seen);
    let plan: PlanLauncher = Arc::new(move |op: &str, from: Option<&str>| {
        seen.lock()
            .unwrap()
            .push((op.to_string(), from.map(str::to_string)));
        answer(from)
    });
    Launchers {
        plan: Some(plan),
        ..Launchers::default()
    }
}

/// The petstore session with its first operation open, and an inline executor.
struct Desk {
    _dir: tempfile::TempDir,
    session: Session,
    app: App,
    exec: Executor,
}

impl Desk {
    fn new(launchers: Launchers) -> Desk {
        let dir = tempfile::tempdir().unwrap();
        let session = tui_common::petstore_session(dir.path());
        let view = mastor::tui::loader::load(&session).unwrap();
        let mut app = App::new(view, Keymap::default_keymap(), Theme::dark());
        assert!(handle_key(&mut app, code(KeyCode::Enter)).is_empty());
        assert!(matches!(app.screen, Screen::Operation(_)));
        let exec = Executor::inline(session.dir(), launchers);
        Desk {
            _dir: dir,
            session,
            app,
            exec,
        }
    }

    fn op_id(&self) -> String {
        self.app.view.ops[self.app.current_op().unwrap()]
            .op_id
            .clone()
    }

    /// Presses `key` the way the driver does: effects carried out, tasks run inline,
    /// everything they report applied.
    fn press(&mut self, key: KeyEvent) {
        let mut keep = |t: &str| Ok(t.to_string());
        dispatch(
            &self.session,
            &mut self.app,
            &mut self.exec,
            &mut keep,
            Msg::Key(key),
        );
    }

    /// Carries out `effects` and applies what their tasks report.
    fn carry(&mut self, effects: Vec<Effect>) {
        let mut keep = |t: &str| Ok(t.to_string());
        for e in effects {
            carry_out(&self.session, &mut self.app, &mut self.exec, &mut keep, e);
        }
        while let Some(m) = self.exec.next(Duration::ZERO) {
            dispatch(&self.session, &mut self.app, &mut self.exec, &mut keep, m);
        }
    }

    fn dialog(&self) -> &Rerun {
        match self.app.popups.last() {
            Some(Popup::Rerun(r)) => r,
            other => panic!("expected the re-run dialog, got {other:?}"),
        }
    }

    fn plan(&self) -> &PlanState {
        &self.dialog().plan
    }

    fn terminal(&mut self, w: u16, h: u16) -> Terminal<TestBackend> {
        crate::tui_common::draw(&mut self.app, w, h)
    }

    fn text(&mut self, w: u16, h: u16) -> String {
        let t = self.terminal(w, h);
        crate::tui_common::buffer_text(t.backend().buffer())
    }

    fn status(&self) -> (String, bool) {
        self.app.status.clone().unwrap_or_default()
    }
}

fn ready(state: &PlanState) -> &RerunPlan {
    match state {
        PlanState::Ready(p) => p,
        other => panic!("expected a plan, got {other:?}"),
    }
}

#[test]
fn the_dialog_shows_the_plan_of_the_chosen_rerun() {
    let seen = Seen::default();
    let mut d = Desk::new(planner(&seen, |from| Ok(fake_plan(from, None))));
    let op_id = d.op_id();
    d.press(ctrl('r'));
    assert_eq!(ready(d.plan()).input_tokens, 12_000);
    let text = d.text(110, 36);
    for line in [
        "plan: 2 call(s): extraction 1 · single_op 1",
        "input ~12000 tokens (4000 from a prefix cache) · output ~6500",
        "cost ~0.0123 USD, ~0.0101 USD with prefix caching (primary: deepseek deepseek-chat)",
        "sends 3 file(s), 120 line(s)",
        "p: the whole plan",
    ] {
        assert!(text.contains(line), "{line:?} not in\n{text}");
    }
    // Another starting agent: its own plan.
    d.press(code(KeyCode::Down));
    assert_eq!(ready(d.plan()).input_tokens, 24_000);
    assert!(d.text(110, 36).contains("sends 3 file(s), 240 line(s)"));
    assert_eq!(
        *seen.lock().unwrap(),
        [
            (op_id.clone(), None),
            (op_id.clone(), Some("extraction".into()))
        ]
    );
    // `p`: the whole text, scrolled; esc back to the dialog.
    d.press(code(KeyCode::Char('p')));
    match d.app.popups.last() {
        Some(Popup::PlanText(t)) => assert!(t.text.contains("from extraction"), "{t:?}"),
        other => panic!("expected the plan text, got {other:?}"),
    }
    assert!(
        d.text(110, 36)
            .contains("Run plan (nothing has been sent). from extraction")
    );
    d.press(code(KeyCode::Char('j')));
    assert!(!d.text(110, 36).contains("Run plan (nothing"), "scrolled");
    d.press(code(KeyCode::Esc));
    assert!(matches!(d.app.popups.last(), Some(Popup::Rerun(_))));
    // Within budget: one confirm starts the re-run; no plan is left running.
    let effects = handle_key(&mut d.app, code(KeyCode::Enter));
    assert_eq!(
        tui_common::works(&effects),
        [Work::Rerun {
            op_id,
            from: Some("extraction".into())
        }]
    );
    assert!(d.app.popups.is_empty());
    assert!(d.app.tasks.get(TaskKind::Plan).is_none());
}

#[test]
fn a_plan_for_a_choice_moved_on_from_is_dropped() {
    let seen = Seen::default();
    let mut d = Desk::new(planner(&seen, |from| Ok(fake_plan(from, None))));
    // Both plans asked for before either runs: the first is stale by then.
    let first = handle_key(&mut d.app, ctrl('r'));
    let second = handle_key(&mut d.app, code(KeyCode::Down));
    assert_eq!((first.len(), second.len()), (1, 1));
    d.carry(first);
    assert_eq!(seen.lock().unwrap().len(), 1, "the first plan ran");
    assert_eq!(*d.plan(), PlanState::Planning, "its end was dropped");
    assert!(d.text(110, 36).contains("planning…"));
    d.carry(second);
    assert_eq!(ready(d.plan()).input_tokens, 24_000);
    // A late end of the first changes nothing now either.
    let stale = Msg::Done {
        seq: 1,
        outcome: Ok(serde_json::to_string(&fake_plan(None, None)).unwrap()),
    };
    assert!(mastor::tui::msg::update(&mut d.app, stale).is_empty());
    assert_eq!(ready(d.plan()).input_tokens, 24_000);
}

#[test]
fn over_the_budget_the_rerun_needs_a_second_confirm() {
    let over = "estimated 3.2000 USD (without prefix caching) > --max-cost 1";
    let seen = Seen::default();
    let mut d = Desk::new(planner(&seen, move |from| Ok(fake_plan(from, Some(over)))));
    d.press(ctrl('r'));
    let warning = format!("over budget: {over}");
    let terminal = d.terminal(110, 36);
    let buf = terminal.backend().buffer();
    let at = (0..buf.area.height)
        .find_map(|y| {
            let row: String = (0..buf.area.width).map(|x| buf[(x, y)].symbol()).collect();
            row.find(&warning)
                .map(|i| (row[..i].chars().count() as u16, y))
        })
        .expect("the budget line is drawn");
    assert_eq!(
        buf[at].fg,
        d.app.theme.warning.fg.unwrap(),
        "in the warning colour"
    );

    let first = handle_key(&mut d.app, code(KeyCode::Enter));
    assert!(first.is_empty(), "{first:?}");
    assert!(d.app.tasks.get(TaskKind::Rerun).is_none());
    assert_eq!(
        d.status(),
        ("over budget: confirm again to send".into(), true)
    );
    assert!(d.dialog().armed);
    assert!(
        d.text(110, 36)
            .contains("over budget: confirm again to send")
    );
    // Another choice is another plan: asked again.
    d.press(code(KeyCode::Down));
    assert!(!d.dialog().armed);
    assert!(handle_key(&mut d.app, code(KeyCode::Enter)).is_empty());
    let effects = handle_key(&mut d.app, code(KeyCode::Enter));
    assert_eq!(
        tui_common::works(&effects),
        [Work::Rerun {
            op_id: d.op_id(),
            from: Some("extraction".into())
        }]
    );
    assert!(d.app.popups.is_empty());
}

#[test]
fn a_confirm_before_the_plan_comes_needs_a_second_one() {
    let mut d = Desk::new(Launchers::default());
    // The plan asked for but not run yet.
    let _ = handle_key(&mut d.app, ctrl('r'));
    assert_eq!(*d.plan(), PlanState::Planning);
    assert!(handle_key(&mut d.app, code(KeyCode::Enter)).is_empty());
    assert!(d.status().0.contains("confirm again"), "{:?}", d.status());
    let effects = handle_key(&mut d.app, code(KeyCode::Enter));
    assert!(matches!(
        tui_common::works(&effects).as_slice(),
        [Work::Rerun { from: None, .. }]
    ));
}

#[test]
fn the_planners_error_is_shown_escaped_and_the_rerun_still_starts() {
    let seen = Seen::default();
    let mut d = Desk::new(planner(&seen, |_| {
        Err("cannot read Pets.java: \u{1b}]0;pwned\u{7}\nline two".into())
    }));
    d.press(ctrl('r'));
    let text = d.text(110, 36);
    assert!(
        text.contains("no plan: cannot read Pets.java: \\u{1b}]0;pwned\\u{7} line two"),
        "{text}"
    );
    assert!(!text.contains('\u{1b}') && !text.contains('\u{7}'));
    assert!(
        d.status().0.is_empty() || !d.status().1,
        "no error on the status line"
    );
    // Without a plan the dialog works as before: one confirm.
    let effects = handle_key(&mut d.app, code(KeyCode::Enter));
    assert!(matches!(
        tui_common::works(&effects).as_slice(),
        [Work::Rerun { from: None, .. }]
    ));
}

#[test]
fn without_a_planner_the_dialog_says_so_and_works_as_before() {
    let mut d = Desk::new(Launchers::default());
    d.press(ctrl('r'));
    assert!(
        d.text(110, 36)
            .contains("no plan: re-runs are not planned here"),
        "{}",
        d.text(110, 36)
    );
    d.press(code(KeyCode::Char('p')));
    assert!(matches!(d.app.popups.last(), Some(Popup::Rerun(_))));
    let effects = handle_key(&mut d.app, code(KeyCode::Enter));
    assert_eq!(tui_common::works(&effects).len(), 1);
}

#[test]
fn snapshot_of_the_rerun_dialog_with_a_plan() {
    let over = "estimated 3.2000 USD (without prefix caching) > --max-cost 1";
    let seen = Seen::default();
    let mut d = Desk::new(planner(&seen, move |from| Ok(fake_plan(from, Some(over)))));
    d.press(ctrl('r'));
    d.press(code(KeyCode::Down));
    let text = d.text(100, 32);
    insta::assert_snapshot!("rerun_dialog_with_plan_100x32", text);
}

/// The real planner, as `mastor tui` builds it: nothing sent, and the figures of
/// `mastor run --dry-run --op` with the same flags.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_real_planner_sends_nothing_and_matches_the_dry_run() {
    let server = ScriptedServer::start(petstore_script()).await.unwrap();
    let home = tempfile::tempdir().unwrap();
    let out = home.path().join("session");
    let project =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/petstore-jdk");
    let base = mastor::cli::PipelineArgs {
        out: Some(out.clone()),
        llm: mastor::llm::config::LlmArgs {
            base_url: Some(server.base_url()),
            provider: Some(mastor::llm::config::Provider::Deepseek),
            model: Some("deepseek-chat".into()),
            ..Default::default()
        },
        ..Default::default()
    };
    let plan = mastor::cli::tui::rerun_planner(project.clone(), base);
    let got = tokio::task::block_in_place(|| plan(GET, None)).expect("a plan");
    assert_eq!(server.calls(), 0, "planning sends no request");
    assert!(!out.exists(), "planning writes no session");

    let args = [
        "run",
        project.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--op",
        GET,
        "--refresh",
        "--dry-run",
        "--json",
        "--provider",
        "deepseek",
        "--model",
        "deepseek-chat",
    ];
    let output = tokio::task::block_in_place(|| {
        mastor_cmd(&server.base_url(), home.path(), &args)
            .output()
            .unwrap()
    });
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert_eq!(server.calls(), 0);
    let dry: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let n = |k: &str| dry[k].as_u64().unwrap();
    assert!(got.input_tokens > 1_000, "{got:?}");
    assert_eq!(
        (got.input_tokens, got.prefix_tokens, got.output_tokens),
        (n("input_tokens"), n("prefix_tokens"), n("output_tokens"))
    );
    let calls = dry["calls"].as_array().unwrap();
    assert_eq!(got.calls.iter().map(|(_, n)| n).sum::<usize>(), calls.len());
    let cost = |k: &str| dry["cost"][k].as_f64().unwrap();
    assert!(got.cost_without_cache > 0.0);
    assert!((got.cost_without_cache - cost("without_cache")).abs() < 1e-9);
    assert!((got.cost_with_cache - cost("with_cache")).abs() < 1e-9);
    assert!(got.text.starts_with("Run plan (nothing has been sent)."));
    assert_eq!(got.over_budget, None, "no budget given");
    // A re-run of one exactly matched operation asks for no discovery (`--discovery
    // auto`), and the dialog is told why.
    assert!(
        !got.calls.iter().any(|(a, _)| a == "discovery"),
        "{:?}",
        got.calls
    );
    assert_eq!(dry["discovery"]["ran"], false);
    assert_eq!(
        got.discovery.as_deref(),
        Some(
            "not planned (auto): the scan matched the operation and no answer could change the match"
        )
    );
}

#[test]
fn the_dialog_says_whether_the_rerun_asks_for_discovery() {
    let seen = Seen::default();
    let mut d = Desk::new(planner(&seen, |from| {
        let mut plan = fake_plan(from, None);
        plan.discovery = Some("not planned (auto): the scan matched the operation and no answer could change the match".into());
        Ok(plan)
    }));
    d.press(ctrl('r'));
    // A long reason wraps inside the dialog.
    let text = d.text(110, 36);
    assert!(
        text.contains("discovery: not planned (auto): the scan matched the operation"),
        "{text}"
    );
}
