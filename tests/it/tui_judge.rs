//! True / false positive judgements: `T` / `F` (with a note) and `U` in the workbench on
//! metamorphic tests and on oracles, refused where the latest verdict did not fail, kept
//! in `judgements.jsonl` across a relaunch, drawn in the lists and detail panes, and
//! counted (failed, TPFT, FPFT, unjudged, TPR) by `mastor metamorphic`'s report and
//! `mastor compare`, plus the unique-test count across sessions.

use crate::tui_common;

use mastor::store::{Positive, Session};
use mastor::tui::driver::{Options, open_session};
use mastor::tui::msg::settle;
use mastor::tui::state::{App, Popup, Screen};
use mastor::tui::update::handle_key;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use serde_json::{Value, json};
use std::path::Path;
use tui_common::petstore_session;

const LOOP_AT: &str = "2026-12-02T13:00:00+00:00";

fn options(dir: &Path) -> Options {
    Options {
        theme: Some("dark".into()),
        keymap: Some(dir.join("no-keymap.toml")),
        settings: Some(dir.join("no-settings.toml")),
        mouse: false,
    }
}

fn mr(id: &str, scenario: &str) -> Value {
    json!({
        "test_id": id, "scenario": scenario,
        "seed": [{"op_id": "GET /pets"}],
        "follow_up": [{"op_id": "GET /pets"}],
        "relations": [{"left": "seed[0].status", "op": "equals", "right": "follow_up[0].status"}]
    })
}

fn report(
    tests: Value,
    verdicts: Value,
    duplicates: Value,
) -> mastor::metamorphic::iterate::MrReport {
    serde_json::from_value(json!({
        "iterations": [{"iteration": 1, "candidates": 4, "repaired": 0, "new_tests": [],
            "dropped": [], "requests": 6, "coverage": 0.5, "duplicates": duplicates}],
        "tests": tests, "verdicts": verdicts,
        "stop": "plateau", "coverage": 0.5, "covered": [], "operations": 4, "requests": 6,
        "outcomes": {"passed": 1, "relation_violated": 1, "execution_failed": 1},
        "elapsed_ms": 10, "finished_at": LOOP_AT
    }))
    .unwrap()
}

fn verdict(id: &str, outcome: &str) -> Value {
    json!({"o_id": format!("mr#{id}"), "test_id": id, "outcome": outcome,
           "reason": if outcome == "passed" { "" } else { "it broke" },
           "requests": 2, "steps": [], "relations": []})
}

/// The petstore review session (one failing, one passing oracle) plus three
/// metamorphic tests: passed, relation violated, execution failed.
fn judge_session(dir: &Path) -> Session {
    let session = petstore_session(dir);
    let r = report(
        json!([
            mr("a_passes", "MR 1: Listing twice gives the same status"),
            mr("b_violated", "Updating a pet's status is visible"),
            mr("c_exec_failed", "Deleting a pet makes it unreadable")
        ]),
        json!([
            verdict("a_passes", "passed"),
            verdict("b_violated", "relation_violated"),
            verdict("c_exec_failed", "execution_failed")
        ]),
        json!([{"test_id": "mr_9", "same_as": "b_violated", "slug": "x",
                "scenario": "MR 9: updating a pet's status is visible!"}]),
    );
    mastor::metamorphic::store::save(&session, &r).unwrap();
    session
}

struct Bench {
    dir: tempfile::TempDir,
    session: Session,
    app: App,
}

fn open() -> Bench {
    let dir = tempfile::tempdir().unwrap();
    judge_session(dir.path());
    let (session, app) = open_session(dir.path(), &options(dir.path())).unwrap();
    Bench { dir, session, app }
}

fn press(b: &mut Bench, keys: &str) {
    let mut rest = keys;
    while let Some(c) = rest.chars().next() {
        let token = match rest.find('>') {
            Some(end) if c == '<' => rest[..=end].to_string(),
            _ => c.to_string(),
        };
        rest = &rest[token.len()..];
        let code = match token.as_str() {
            "<enter>" => KeyCode::Enter,
            "<esc>" => KeyCode::Esc,
            "<down>" => KeyCode::Down,
            t => KeyCode::Char(t.chars().next().unwrap()),
        };
        for e in handle_key(&mut b.app, KeyEvent::new(code, KeyModifiers::NONE)) {
            settle(&b.session, &mut b.app, e, &mut |t: &str| Ok(t.to_string()));
        }
    }
}

fn lines(b: &Bench) -> Vec<Value> {
    std::fs::read_to_string(b.session.dir().join("judgements.jsonl"))
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn screen(app: &App, w: u16, h: u16) -> String {
    let mut t = Terminal::new(TestBackend::new(w, h)).unwrap();
    t.draw(|f| f.render_widget(app, f.area())).unwrap();
    let buf = t.backend().buffer();
    (0..h)
        .map(|y| (0..w).map(|x| buf[(x, y)].symbol()).collect::<String>() + "\n")
        .collect()
}

fn status(b: &Bench) -> String {
    b.app.status.clone().map(|(s, _)| s).unwrap_or_default()
}

#[test]
fn metamorphic_failures_are_judged_with_a_note_undone_and_kept() {
    let mut b = open();
    press(&mut b, "4");
    assert!(matches!(b.app.screen, Screen::Metamorphic(_)));
    // A passed test cannot be judged: the footer says why, nothing is written.
    press(&mut b, "T");
    assert!(b.app.popups.is_empty());
    assert!(
        status(&b).contains("only a failed test can be judged"),
        "{}",
        status(&b)
    );
    assert!(status(&b).contains("passed"), "{}", status(&b));
    assert!(lines(&b).is_empty());
    // The violated relation is a real bug; the failed execution a wrong test.
    press(&mut b, "<down>T");
    assert!(matches!(
        b.app.popups.last(),
        Some(Popup::Judge(mastor::tui::popups::Judge { .. }))
    ));
    assert!(screen(&b.app, 120, 40).contains("Judge mr#b_violated a true positive"));
    press(&mut b, "status not updated<enter><down>F<enter>");
    let l = lines(&b);
    assert_eq!(l.len(), 2);
    assert_eq!(l[0]["o_id"], "mr#b_violated");
    assert_eq!(l[0]["judgement"], "tp");
    assert_eq!(l[0]["note"], "status not updated");
    assert_eq!(
        l[0]["verdict"],
        json!({"outcome": "relation_violated", "run_at": LOOP_AT})
    );
    assert_eq!(l[1]["judgement"], "fp");
    assert!(l[1].get("note").is_none());
    // Drawn: the marks in the list, the counts in the summary, the note in the detail.
    press(&mut b, "k");
    let s = screen(&b.app, 120, 40);
    assert!(s.contains("TP 1 FP 1 unjudged 0 TPR 50.0%"), "{s}");
    assert!(s.contains("relation violated  TP"), "{s}");
    assert!(s.contains("execution failed   FP"), "{s}");
    assert!(
        s.contains("judged a true positive: status not updated"),
        "{s}"
    );
    // U undoes the latest judgement (the false positive).
    press(&mut b, "U");
    assert_eq!(lines(&b).len(), 3);
    assert_eq!(
        lines(&b)[2],
        json!({"undo_judgement": "mr#c_exec_failed", "at": lines(&b)[2]["at"]})
    );
    assert!(status(&b).contains("unjudged"), "{}", status(&b));
    let s = screen(&b.app, 120, 40);
    assert!(s.contains("TP 1 FP 0 unjudged 1 TPR 50.0%"), "{s}");
    // p cycles the judgement filter: unjudged failures, TP, FP, off.
    let shown = |b: &Bench| -> Vec<String> {
        b.app
            .visible_items()
            .iter()
            .filter_map(|i| b.app.o_id(*i))
            .collect()
    };
    press(&mut b, "p");
    assert_eq!(shown(&b), ["mr#c_exec_failed"]);
    assert!(screen(&b.app, 120, 40).contains("· unjudged failures"));
    press(&mut b, "p");
    assert_eq!(shown(&b), ["mr#b_violated"]);
    press(&mut b, "p");
    assert!(shown(&b).is_empty());
    press(&mut b, "p");
    assert_eq!(shown(&b).len(), 3);
    // Relaunch: the journal is replayed.
    let (_s, again) = open_session(b.dir.path(), &options(b.dir.path())).unwrap();
    assert_eq!(
        again.view.judged("mr#b_violated").map(|j| j.judgement),
        Some(Positive::Tp)
    );
    assert!(again.view.judged("mr#c_exec_failed").is_none());
    let p = again.view.positives();
    assert_eq!(
        (
            p.metamorphic.failed,
            p.metamorphic.tpft,
            p.metamorphic.unjudged
        ),
        (2, 1, 1)
    );
    assert_eq!((p.oracles.failed, p.oracles.unjudged), (1, 1));
}

#[test]
fn failing_oracles_are_judged_and_passing_ones_refused() {
    let mut b = open();
    // GET /pets → Oracles tab: the first oracle failed in the last check.
    press(&mut b, "<enter>Fthe spec allows 500<enter>");
    let l = lines(&b);
    assert_eq!(l.len(), 1, "{l:?}");
    assert_eq!(l[0]["o_id"], "GET /pets#fv_limit_10");
    assert_eq!(l[0]["judgement"], "fp");
    assert_eq!(
        l[0]["verdict"],
        json!({"outcome": "fail", "run_at": "2026-12-02T12:30:00Z"})
    );
    let s = screen(&b.app, 120, 40);
    assert!(s.contains("FAIL FP"), "{s}");
    assert!(
        s.contains("judged a false positive: the spec allows 500"),
        "{s}"
    );
    // A passing oracle and one never run: refused with the reason.
    press(&mut b, "/bv_limit<enter>T");
    assert!(
        status(&b).contains("latest verdict is pass"),
        "{}",
        status(&b)
    );
    press(&mut b, "c<enter><down>T");
    assert!(status(&b).contains("not been run"), "{}", status(&b));
    assert_eq!(lines(&b).len(), 1);
    // Review decisions are untouched by judgements.
    assert!(b.session.read_decisions().unwrap().is_empty());
}

#[test]
fn judgements_with_unknown_keys_are_refused_on_open() {
    let dir = tempfile::tempdir().unwrap();
    let s = judge_session(dir.path());
    std::fs::write(
        s.dir().join("judgements.jsonl"),
        "{\"o_id\":\"mr#b_violated\",\"judgement\":\"tp\",\"at\":\"t\",\"verdict\":{\"outcome\":\"relation_violated\"},\"why\":1}\n\
         {\"undo_judgement\":\"mr#b_violated\",\"at\":\"t\"}\n",
    )
    .unwrap();
    let err = open_session(dir.path(), &options(dir.path()))
        .err()
        .expect("refused");
    assert!(err.to_string().contains("judgements.jsonl"), "{err}");
}

#[test]
fn reports_count_tpft_fpft_and_tpr_and_unique_tests_across_sessions() {
    let dir = tempfile::tempdir().unwrap();
    let s = judge_session(dir.path());
    // A complete run summary, as `mastor check` writes it (the shared fixture is terse).
    let mut latest: Value = s.read_json("verdicts/latest.json").unwrap().unwrap();
    latest["summary"] = json!({"passed": 1, "failed": 1, "errors": 0, "skipped": 0});
    s.write_json("verdicts/latest.json", &latest).unwrap();
    let judge = |o_id: &str, p: Positive, outcome: &str, run_at: &str| {
        s.append_judgement(&mastor::store::Judgement {
            o_id: o_id.into(),
            judgement: p,
            note: None,
            at: "t".into(),
            verdict: mastor::store::JudgedVerdict {
                outcome: outcome.into(),
                run_at: Some(run_at.into()),
            },
        })
        .unwrap()
    };
    judge("mr#b_violated", Positive::Tp, "relation_violated", LOOP_AT);
    // A judgement of an earlier run does not count for the latest one.
    judge(
        "mr#c_exec_failed",
        Positive::Fp,
        "execution_failed",
        "2026-01-01T00:00:00Z",
    );
    judge(
        "GET /pets#fv_limit_10",
        Positive::Tp,
        "fail",
        "2026-12-02T12:30:00Z",
    );

    // `mastor metamorphic`'s report: the loop's failures only.
    let r = mastor::metamorphic::store::load_report(&s)
        .unwrap()
        .unwrap();
    let p = mastor::cli::metamorphic::report_positives(&r, s.dir()).unwrap();
    assert_eq!((p.failed, p.tpft, p.fpft, p.unjudged), (2, 1, 0, 1));
    assert_eq!(p.tpr, Some(0.5));
    assert!(
        p.line().contains("TPFT 1, FPFT 0, unjudged 1; TPR 50.0%"),
        "{}",
        p.line()
    );

    // `mastor compare`: oracles and metamorphic tests apart in JSON, together in text.
    let row = mastor::cli::compare::row(s.dir()).unwrap();
    let v = serde_json::to_value(&row).unwrap();
    assert_eq!(v["positives"]["oracles"]["tpft"], 1);
    assert_eq!(v["positives"]["metamorphic"]["failed"], 2);
    assert_eq!(v["positives"]["total"]["failed"], 3);
    assert_eq!(v["positives"]["total"]["tpft"], 2);
    let text = mastor::cli::compare::render(&[row]);
    assert!(text.contains("tp  fp    TPR"), "{text}");
    assert!(text.contains("  2   0  66.7%"), "{text}");

    // Unique tests across two sessions by title slug: session one has three tests and
    // a folded duplicate worded like b_violated; session two repeats one title.
    let two = tempfile::tempdir().unwrap();
    let s2 = Session::create(
        two.path(),
        mastor::store::Manifest::new(".", "openapi.json"),
    )
    .unwrap();
    let r2 = report(
        json!([
            mr("x", "MR 4: deleting a pet makes it unreadable."),
            mr("y", "Creating a pet grows the list")
        ]),
        json!([]),
        json!([]),
    );
    mastor::metamorphic::store::save(&s2, &r2).unwrap();
    let u = mastor::cli::unique::of_dirs(&[s.dir().to_path_buf(), s2.dir().to_path_buf()]).unwrap();
    assert_eq!((u.sessions, u.titles, u.unique), (2, 6, 4));
    assert_eq!(u.groups["deleting_a_pet_makes_it_unreadable"], 2);
    assert_eq!(u.groups["updating_a_pet_s_status_is_visible"], 2);
    assert!(mastor::cli::unique::line(&u).contains(": 4 (of 6 generated"));
    assert!(mastor::cli::unique::of_dirs(&[two.path().join("nope")]).is_err());
}
