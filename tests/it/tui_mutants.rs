//! The workbench over mutation results: the Mutants screen (survivors first, the
//! mutated line as a diff beside the source, killers or the reason there are none),
//! the kills column and filters of the oracle list, and the header's score with and
//! without the oracles rejected in this review. The results are hand-written files
//! over the petstore fixture session.

use crate::tui_common;

use mastor::store::Session;
use mastor::tui::driver::{Options, open_session};
use mastor::tui::msg::settle;
use mastor::tui::state::{App, Screen};
use mastor::tui::tasks::{TaskKind, Work};
use mastor::tui::update::handle_key;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use serde_json::{Value, json};
use std::path::Path;
use tui_common::{PET_HANDLER, petstore_root, petstore_session, t0};

struct Bench {
    _dir: tempfile::TempDir,
    session: Session,
    app: App,
}

/// A mutant of PetHandler.java replacing the `nth` occurrence of `before` on `line`.
fn mutant(id: &str, operator: &str, line: usize, before: &str, after: &str) -> Value {
    let text = std::fs::read_to_string(petstore_root().join(PET_HANDLER)).unwrap();
    let line_start: usize = text
        .split_inclusive('\n')
        .take(line - 1)
        .map(str::len)
        .sum();
    let col = text[line_start..].find(before).unwrap();
    let start = line_start + col;
    json!({"id": id, "operator": operator, "file": PET_HANDLER, "line": line,
           "column": col + 1, "start": start, "end": start + before.len(),
           "before": before, "after": after, "ops": ["GET /pets"]})
}

fn counts(caught: usize, missed: usize, timeout: usize, unviable: usize) -> Value {
    let killed = caught + timeout;
    let score = if killed + missed > 0 {
        json!((killed as f64 / (killed + missed) as f64 * 10_000.0).round() / 10_000.0)
    } else {
        Value::Null
    };
    json!({"mutants": caught + missed + timeout + unviable, "caught": caught,
           "missed": missed, "timeout": timeout, "unviable": unviable, "not_covered": 0,
           "killed": killed, "survived": missed, "no_coverage": 0, "score": score})
}

/// Writes `mutation/` for the fixture session: five mutants of GET /pets's handler,
/// one survivor, two caught, one timeout, one unviable.
pub fn write_results(session_dir: &Path) {
    let dir = session_dir.join("mutation");
    std::fs::create_dir_all(&dir).unwrap();
    let mutants = [
        mutant(
            "m-caught-2",
            "negate_conditionals",
            78,
            "limit > 100",
            "limit <= 100",
        ),
        mutant(
            "m-missed",
            "conditionals_boundary",
            78,
            "limit < 1",
            "limit <= 1",
        ),
        mutant(
            "m-caught-1",
            "negate_conditionals",
            78,
            "limit < 1",
            "limit >= 1",
        ),
        mutant("m-unviable", "math", 92, "+", "-"),
        mutant(
            "m-timeout",
            "return_values",
            66,
            "Http.query(exchange)",
            "null",
        ),
    ];
    let lines: Vec<String> = mutants.iter().map(Value::to_string).collect();
    std::fs::write(dir.join("mutants.jsonl"), lines.join("\n") + "\n").unwrap();
    let o = |t: &str| format!("GET /pets#{t}");
    let matrix = json!({
        "oracles": [o("fv_limit_10"), o("bi_limit_0"), o("fi_limit_abc"), o("bv_limit_100")],
        "excluded": [],
        "mutants": [
            {"id": "m-caught-2", "status": "caught", "killed_by": [
                {"o_id": o("fv_limit_10"), "assertion": "status == 200 (got 400)"},
                {"o_id": o("bv_limit_100"), "assertion": "status == 200 (got 400)\u{1b}[2J"}]},
            {"id": "m-missed", "status": "missed", "killed_by": []},
            {"id": "m-caught-1", "status": "caught", "killed_by": [
                {"o_id": o("fv_limit_10"), "assertion": "status == 200 (got 400)"}]},
            {"id": "m-unviable", "status": "unviable", "killed_by": [],
             "detail": "javac: bad operand types for binary operator '-'"},
            {"id": "m-timeout", "status": "timeout", "killed_by": [],
             "detail": "the suite ran over 10.0 s"}
        ]
    });
    let fig = |t: &str, k: usize, u: usize| json!({"o_id": o(t), "kills": k, "unique_kills": u});
    let mut redundant = fig("bv_limit_100", 1, 0);
    redundant["subsumed_by"] = json!(o("fv_limit_10"));
    let summary = json!({
        "total": counts(2, 1, 1, 1),
        "per_operation": {"GET /pets": counts(2, 1, 1, 1)},
        "per_operator": {},
        "per_oracle": [fig("fv_limit_10", 2, 1), fig("bi_limit_0", 0, 0),
                       fig("fi_limit_abc", 0, 0), redundant],
        "kills_nothing": [o("bi_limit_0"), o("fi_limit_abc")],
        "redundant": [o("bv_limit_100")],
        "excluded": []
    });
    for (name, v) in [("matrix.json", matrix), ("summary.json", summary)] {
        std::fs::write(dir.join(name), serde_json::to_string_pretty(&v).unwrap()).unwrap();
    }
}

fn options(dir: &Path) -> Options {
    Options {
        theme: Some("dark".into()),
        keymap: Some(dir.join("no-keymap.toml")),
        settings: Some(dir.join("no-settings.toml")),
        mouse: false,
    }
}

fn open(with_results: bool) -> Bench {
    let dir = tempfile::tempdir().unwrap();
    let session = petstore_session(dir.path());
    if with_results {
        write_results(session.dir());
    }
    let (session, mut app) = open_session(dir.path(), &options(dir.path())).unwrap();
    app.now = t0() + chrono::Duration::seconds(125);
    Bench {
        _dir: dir,
        session,
        app,
    }
}

fn press(b: &mut Bench, keys: &[KeyEvent]) {
    for k in keys {
        for e in handle_key(&mut b.app, *k) {
            settle(&b.session, &mut b.app, e, &mut |t: &str| Ok(t.to_string()));
        }
    }
}

fn k(c: char) -> KeyEvent {
    KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE)
}

fn ctrl(c: char) -> KeyEvent {
    KeyEvent::new(KeyCode::Char(c), KeyModifiers::CONTROL)
}

fn code(c: KeyCode) -> KeyEvent {
    KeyEvent::new(c, KeyModifiers::NONE)
}

fn screen(app: &mut App, w: u16, h: u16) -> String {
    app.prepare_frame();
    let mut terminal = Terminal::new(TestBackend::new(w, h)).unwrap();
    terminal.draw(|f| f.render_widget(&*app, f.area())).unwrap();
    format!("{}", terminal.backend())
}

fn snap(b: &mut Bench, name: &str) {
    let mut settings = insta::Settings::clone_current();
    settings.add_filter(r"/tmp/\.tmp[A-Za-z0-9]+", "[TMP]");
    settings.bind(|| {
        for (w, h) in [(120, 40), (80, 24)] {
            insta::assert_snapshot!(format!("{name}_{w}x{h}"), screen(&mut b.app, w, h));
        }
    });
}

#[test]
fn mutants_screen_lists_survivors_first_with_the_diff_and_killers() {
    let mut b = open(true);
    press(&mut b, &[k('5')]);
    assert!(matches!(b.app.screen, Screen::Mutants(_)));
    // What would kill the survivor: the operation whose handler holds the line, and
    // its oracles (none accepted in this session, all four still to review).
    let s = screen(&mut b.app, 120, 40);
    assert!(s.contains("to kill it: GET /pets holds the line; 0"), "{s}");
    assert!(s.contains("4 still to review"), "{s}");
    snap(&mut b, "mutants_survivor");
    // Two rows down: caught by two oracles, each with its failing assertion (the escape
    // in one is shown, not sent to the terminal).
    press(&mut b, &[code(KeyCode::Down), code(KeyCode::Down)]);
    let s = screen(&mut b.app, 120, 40);
    assert!(s.contains("GET /pets#bv_limit_100"), "{s}");
    assert!(s.contains(r"\u{1b}[2J"), "{s}");
    snap(&mut b, "mutants_caught");
    // Operators cycle in report order: the third, math, leaves the unviable mutant.
    press(&mut b, &[k('o'), k('o'), k('o')]);
    let s = screen(&mut b.app, 120, 40);
    assert!(s.contains("Mutants (1/5) operator:math"), "{s}");
    assert!(s.contains("why: javac: bad operand types"), "{s}");
    press(&mut b, &[k('c')]);
    assert!(screen(&mut b.app, 120, 40).contains("Mutants (5/5)"));
}

#[test]
fn oracle_list_shows_kills_and_filters_what_kills_nothing_or_is_redundant() {
    let mut b = open(true);
    press(&mut b, &[code(KeyCode::Enter)]);
    snap(&mut b, "mutants_oracle_kills");
    press(&mut b, &[k('M')]);
    let s = screen(&mut b.app, 120, 40);
    assert!(
        s.contains("Oracles (2) [kills nothing] · kills/unique"),
        "{s}"
    );
    press(&mut b, &[k('M')]);
    let s = screen(&mut b.app, 120, 40);
    assert!(
        s.contains("Oracles (1) [redundant]") && s.contains("bv_limit_100"),
        "{s}"
    );
    press(&mut b, &[k('M')]);
    assert!(screen(&mut b.app, 120, 40).contains("Oracles (4)"));
}

#[test]
fn header_score_follows_the_oracles_rejected_in_this_review() {
    let mut b = open(true);
    let s = screen(&mut b.app, 120, 40);
    assert!(
        s.contains("mutation 75.0%") && !s.contains("without"),
        "{s}"
    );
    // Reject fv_limit_10, the only killer of one mutant: 2 of 4 killed.
    press(
        &mut b,
        &[code(KeyCode::Enter), k('r'), code(KeyCode::Enter)],
    );
    let s = screen(&mut b.app, 120, 40);
    assert!(
        s.contains("mutation 75.0% → 50.0% without 1 rejected"),
        "{s}"
    );
}

#[test]
fn without_results_nothing_changes_and_a_broken_matrix_is_a_warning() {
    let mut b = open(false);
    press(&mut b, &[code(KeyCode::Enter)]);
    let s = screen(&mut b.app, 120, 40);
    assert!(
        !s.contains("mutation") && !s.contains("kills/unique"),
        "{s}"
    );
    press(&mut b, &[k('5')]);
    assert!(screen(&mut b.app, 120, 40).contains("No mutation results in this session"));

    let dir = tempfile::tempdir().unwrap();
    let session = petstore_session(dir.path());
    write_results(session.dir());
    std::fs::write(
        session.dir().join("mutation/matrix.json"),
        "{\"oracles\": [",
    )
    .unwrap();
    let (_s, app) = open_session(dir.path(), &options(dir.path())).unwrap();
    assert!(app.view.mutation.is_none());
    assert!(
        app.view
            .warnings
            .iter()
            .any(|w| w.contains("mutation/matrix.json cannot be read")),
        "{:?}",
        app.view.warnings
    );
}

#[test]
fn mutate_popup_remembers_the_commands_and_asks_for_one_run_at_a_time() {
    use mastor::tui::mutate_job::MutateSettings;
    use mastor::tui::update::Effect;
    let mut b = open(false);
    let ctrl_k = KeyEvent::new(KeyCode::Char('k'), KeyModifiers::CONTROL);
    assert!(handle_key(&mut b.app, ctrl_k).is_empty());
    snap(&mut b, "mutants_run_popup");
    for c in "java -jar app.jar {port}".chars() {
        handle_key(&mut b.app, k(c));
    }
    for key in [
        KeyCode::Tab,
        KeyCode::Tab,
        KeyCode::Backspace,
        KeyCode::Backspace,
    ] {
        handle_key(&mut b.app, code(key));
    }
    handle_key(&mut b.app, k('5'));
    let effects = handle_key(&mut b.app, code(KeyCode::Enter));
    let want = MutateSettings {
        start: "java -jar app.jar {port}".into(),
        build: String::new(),
        max_mutants: Some(5),
    };
    match effects.as_slice() {
        [
            Effect::Start {
                work: Work::Mutate { settings, only, .. },
                ..
            },
        ] => {
            assert_eq!(settings, &want);
            // Nothing accepted yet: every oracle runs.
            assert_eq!(*only, mastor::suite::Only::All);
        }
        other => panic!("expected one run, got {other:?}"),
    }
    let saved = mastor::tui::mutate_job::read_settings(b.session.dir()).unwrap();
    assert_eq!(saved, want);
    // One run at a time, and no quitting while its servers run.
    assert!(handle_key(&mut b.app, ctrl_k).is_empty());
    assert!(b.app.popups.is_empty());
    assert!(screen(&mut b.app, 120, 40).contains("a mutation analysis is in progress"));
    handle_key(&mut b.app, k('q'));
    assert!(!b.app.quit);
}

/// What `mutate equivalent` needs besides the files above: the baseline and the runs
/// the summary is recomputed from.
fn write_runs(session_dir: &Path) {
    let dir = session_dir.join("mutation");
    let o = |t: &str| format!("GET /pets#{t}");
    let baseline = json!({"key": "k", "suite_ms": 1, "start_ms": 1, "baseline": {
        "included": [o("bi_limit_0"), o("bv_limit_100"), o("fi_limit_abc"), o("fv_limit_10")],
        "excluded": []}});
    std::fs::write(dir.join("baseline.json"), baseline.to_string()).unwrap();
    let run = |id: &str, status: &str, failed: Vec<String>| {
        json!({"mutant": id, "key": "k", "status": status,
               "failed": failed.iter().map(|f| json!({"o_id": f, "assertion": "status"})).collect::<Vec<_>>()})
        .to_string()
    };
    let runs = [
        run(
            "m-caught-2",
            "caught",
            vec![o("fv_limit_10"), o("bv_limit_100")],
        ),
        run("m-missed", "missed", vec![]),
        run("m-caught-1", "caught", vec![o("fv_limit_10")]),
        run("m-unviable", "unviable", vec![]),
        run("m-timeout", "timeout", vec![]),
    ];
    std::fs::write(dir.join("runs.jsonl"), runs.join("\n") + "\n").unwrap();
}

#[test]
fn a_survivor_is_marked_equivalent_with_a_note_and_the_mark_is_withdrawn() {
    let mut b = open(true);
    write_runs(b.session.dir());
    press(&mut b, &[k('5')]);
    // A caught mutant cannot be equivalent.
    press(&mut b, &[code(KeyCode::Down), k('e')]);
    assert!(b.app.popups.is_empty());
    let s = screen(&mut b.app, 120, 40);
    assert!(
        s.contains("only a survivor can be marked equivalent"),
        "{s}"
    );
    press(&mut b, &[code(KeyCode::Up), k('e')]);
    assert_eq!(
        b.app.popups.len(),
        1,
        "the note popup opens on the survivor"
    );
    for c in "same check".chars() {
        press(&mut b, &[k(c)]);
    }
    press(&mut b, &[code(KeyCode::Enter)]);
    let marks = std::fs::read_to_string(b.session.dir().join("mutation/equivalent.jsonl")).unwrap();
    assert!(
        marks.contains("\"mutant\":\"m-missed\"") && marks.contains("same check"),
        "{marks}"
    );
    let summary: Value = serde_json::from_str(
        &std::fs::read_to_string(b.session.dir().join("mutation/summary.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(summary["total"]["equivalent"], 1);
    assert_eq!(summary["total"]["missed"], 0);
    let s = screen(&mut b.app, 120, 40);
    assert!(s.contains("marked equivalent"), "{s}");
    // The equivalent mutant now sorts last; the same key withdraws its mark.
    let results = b.app.view.mutation.as_ref().unwrap();
    let last = results.mutants.last().unwrap();
    assert_eq!(last.mutant.id, "m-missed");
    press(&mut b, &[code(KeyCode::End), k('e')]);
    let summary: Value = serde_json::from_str(
        &std::fs::read_to_string(b.session.dir().join("mutation/summary.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(summary["total"]["equivalent"], 0, "{summary:#}");
    assert_eq!(summary["total"]["missed"], 1);
}

#[test]
fn survivor_keys_start_a_regeneration_through_the_launcher_and_reload_when_it_ends() {
    use mastor::tui::executor::{Executor, Launchers};
    let mut b = open(true);
    let launched = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let seen = launched.clone();
    let launchers = Launchers {
        rerun: None,
        plan: None,
        survivors: Some(std::sync::Arc::new(move |ops, mutants| {
            seen.lock().unwrap().push((ops, mutants));
            Ok("round 1: 1 survivor(s) targeted, 1 new oracle(s), 1 survivor(s) killed".into())
        })),
    };
    let mut exec = Executor::threads(b.session.dir(), launchers);
    press(&mut b, &[k('5')]);
    // `ctrl-g` on the survivor (listed first).
    let effects = handle_key(&mut b.app, ctrl('g'));
    assert_eq!(
        crate::tui_common::works(&effects),
        vec![Work::Survivors {
            ops: vec![],
            mutants: vec!["m-missed".into()]
        }]
    );
    assert!(b.app.tasks.get(TaskKind::Survivors).is_some());
    crate::tui_common::start_all(&b.session, &mut b.app, &mut exec, effects);
    let five = std::time::Duration::from_secs(5);
    assert!(mastor::tui::msg::wait(
        &b.session, &mut b.app, &mut exec, five
    ));
    assert!(b.app.tasks.get(TaskKind::Survivors).is_none());
    let (msg, is_error) = b.app.status.clone().unwrap();
    assert!(
        !is_error && msg.starts_with("round 1: 1 survivor(s) targeted"),
        "{msg}"
    );
    // `alt-g` needs an operation filter; with one it targets that operation's survivors.
    let alt_g = KeyEvent::new(KeyCode::Char('g'), KeyModifiers::ALT);
    assert!(handle_key(&mut b.app, alt_g).is_empty());
    press(&mut b, &[k('w')]);
    let effects = handle_key(&mut b.app, alt_g);
    assert_eq!(
        crate::tui_common::works(&effects),
        vec![Work::Survivors {
            ops: vec!["GET /pets".into()],
            mutants: vec![]
        }]
    );
    // While it is registered, a second regeneration is refused.
    assert!(handle_key(&mut b.app, ctrl('g')).is_empty());
    let (msg, _) = b.app.status.clone().unwrap();
    assert!(msg.contains("in progress"), "{msg}");
    b.app.tasks.end(TaskKind::Survivors);
    // A caught mutant is not a target.
    press(&mut b, &[k('c'), code(KeyCode::Down)]);
    assert!(handle_key(&mut b.app, ctrl('g')).is_empty());
    assert_eq!(launched.lock().unwrap().len(), 1);
    // Without a launcher (no model settings), the workbench says so.
    let mut none = Executor::inline(b.session.dir(), Launchers::default());
    press(&mut b, &[code(KeyCode::Up)]);
    let effects = handle_key(&mut b.app, ctrl('g'));
    crate::tui_common::start_all(&b.session, &mut b.app, &mut none, effects);
    assert!(mastor::tui::msg::wait(
        &b.session, &mut b.app, &mut none, five
    ));
    let (msg, is_error) = b.app.status.clone().unwrap();
    assert!(is_error && msg.contains("needs a model"), "{msg}");
}

#[test]
fn the_mutants_title_says_when_the_score_is_a_sample_of_accepted_oracles() {
    let dir = tempfile::tempdir().unwrap();
    let session = petstore_session(dir.path());
    write_results(session.dir());
    // The options `mastor mutate --max-mutants 20` (accepted oracles) records.
    std::fs::write(
        session.dir().join("mutation/options.json"),
        json!({"project": null, "spec": null, "all": false, "ops": [], "files": [],
               "operators": [], "max_mutants": 20, "seed": 0, "in_diff": null,
               "build": null, "start": null, "ready": "/", "ready_timeout_s": 30.0,
               "timeout_s": null, "jobs": 2, "request_timeout_s": 5.0})
        .to_string(),
    )
    .unwrap();
    let (_, mut app) = open_session(dir.path(), &options(dir.path())).unwrap();
    handle_key(&mut app, k('5'));
    let s = screen(&mut app, 120, 40);
    assert!(
        s.contains("score of a 20-mutant sample, accepted oracles only"),
        "{s}"
    );
    // Without recorded options nothing is claimed.
    let mut b = open(true);
    press(&mut b, &[k('5')]);
    assert!(!screen(&mut b.app, 120, 40).contains("score of"));
}

/// Writes the petstore session with a failing run and a mutation analysis to
/// `$MASTOR_DEMO_DIR` for `scripts/screenshots.sh` (ignored in normal runs) and checks
/// it opens with its survivors.
#[test]
#[ignore = "used by scripts/screenshots.sh"]
fn write_demo_session() {
    let dir =
        std::path::PathBuf::from(std::env::var_os("MASTOR_DEMO_DIR").expect("set MASTOR_DEMO_DIR"));
    crate::tui_curation::with_failures(&dir);
    write_results(&dir.join(".mastor"));
    let session = Session::open(dir.join(".mastor")).unwrap();
    let view = mastor::tui::loader::load(&session).unwrap();
    assert!(view.mutation.is_some());
}
