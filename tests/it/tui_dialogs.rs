//! Honest dialogs: a bulk decision asks for its note first and every open dialog takes
//! every key; the oracle run dialog adds a missing `http://`, remembers its URL across
//! launches, and every line input knows ctrl-u and ctrl-w.

use crate::tui_common::tiny_api;
use crate::tui_undo::{Bench, GET_PETS};

use mastor::model::{Decision, ReviewState};
use mastor::tui::executor::{Executor, Launchers};
use mastor::tui::msg::Msg;
use mastor::tui::state::{Popup, SortKey};
use mastor::tui::tasks::{TaskKind, Work};
use mastor::tui::update::handle_key;
use ratatui::Terminal;
use ratatui::backend::TestBackend;

fn note_text(b: &Bench) -> Option<String> {
    match b.app.popups.last() {
        Some(Popup::Note(n)) => Some(n.text.text().to_string()),
        _ => None,
    }
}

#[test]
fn a_note_typed_straight_after_bulk_reject_is_text_not_commands() {
    let mut b = Bench::new();
    b.press("<enter>");
    // The reviewer types the note at once: `n` (no), `s` (sort), `r` (reject) and the
    // other letters of "owners" all land in the note.
    b.press("Rowners");
    assert_eq!(note_text(&b).as_deref(), Some("owners"));
    assert_eq!(b.app.sort, SortKey::Session);
    assert!(b.app.filters.is_empty());
    assert!(b.session.read_decisions().unwrap().is_empty());
    // Enter continues to the yes / no question, which shows the note.
    b.press("<enter>");
    match b.app.popups.as_slice() {
        [Popup::Confirm(c)] => {
            assert!(!c.accept);
            assert_eq!(c.note.as_deref(), Some("owners"));
            assert_eq!(c.o_ids.len(), 4);
        }
        other => panic!("expected the confirm, got {other:?}"),
    }
    // Stray keys while it is open do nothing at all.
    b.press("svmc/");
    assert_eq!(b.app.popups.len(), 1);
    assert_eq!(b.app.sort, SortKey::Session);
    assert!(b.app.input.is_none() && b.app.filters.is_empty());
    b.press("y");
    assert!(b.app.popups.is_empty());
    let d = b.session.read_decisions().unwrap();
    for o in GET_PETS {
        assert_eq!(d[o].decision, Decision::Rejected);
        assert_eq!(d[o].note.as_deref(), Some("owners"));
    }
}

#[test]
fn bulk_accept_asks_note_then_yes_no_and_either_can_cancel() {
    let mut b = Bench::new();
    b.press("<enter>A<esc>");
    assert!(b.app.popups.is_empty());
    assert_eq!(b.status(), "bulk decision cancelled");
    b.press("Alooks right<enter>n");
    assert!(b.app.popups.is_empty());
    assert!(b.session.read_decisions().unwrap().is_empty());
    b.press("Alooks right<enter><enter>");
    let d = b.session.read_decisions().unwrap();
    assert_eq!(d.len(), 4);
    assert!(
        d.values()
            .all(|x| x.decision == Decision::Accepted && x.note.as_deref() == Some("looks right"))
    );
}

#[test]
fn snapshot_of_the_bulk_confirm_with_its_note() {
    let mut b = Bench::new();
    b.press("<enter>Rowners<enter>");
    let mut terminal = Terminal::new(TestBackend::new(80, 24)).unwrap();
    b.app.prepare_frame();
    terminal
        .draw(|f| f.render_widget(&b.app, f.area()))
        .unwrap();
    let text = format!("{}", terminal.backend());
    assert!(
        text.contains("Reject 4 oracles of the filtered list?"),
        "{text}"
    );
    assert!(text.contains("note: owners"), "{text}");
    let mut settings = insta::Settings::clone_current();
    settings.add_filter(r"/tmp/\.tmp[A-Za-z0-9]+", "[TMP]");
    settings.bind(|| insta::assert_snapshot!("dialog_bulk_reject_confirm_80x24", text));
}

#[test]
fn ctrl_u_and_ctrl_w_edit_every_line_input() {
    let mut b = Bench::new();
    // The operations list filter.
    b.press("/pets get<C-w>");
    assert_eq!(b.app.filters.text, "pets ");
    b.press("<C-u>");
    assert_eq!(b.app.filters.text, "");
    b.press("<esc>");
    // A rejection note.
    b.press("<enter>rflaky bound<C-w>");
    assert_eq!(note_text(&b).as_deref(), Some("flaky "));
    b.press("<C-u>");
    assert_eq!(note_text(&b).as_deref(), Some(""));
    b.press("<esc>");
    // The run dialog.
    b.press("<C-t>http://localhost:8080/api<C-w>");
    match b.app.popups.last() {
        Some(Popup::RunOracles(r)) => assert_eq!(r.url.text(), "http://localhost:8080/"),
        other => panic!("expected the run dialog, got {other:?}"),
    }
    b.press("<C-u>");
    match b.app.popups.last() {
        Some(Popup::RunOracles(r)) => assert_eq!(r.url.text(), ""),
        other => panic!("expected the run dialog, got {other:?}"),
    }
}

#[test]
fn run_dialog_adds_http_and_remembers_the_url_across_launches() {
    let mut b = Bench::new();
    b.press("<enter>a<esc>");
    b.press("<C-t>");
    for c in "127.0.0.1:1".chars() {
        handle_key(&mut b.app, crate::tui_undo::key(&c.to_string()));
    }
    let effects = handle_key(&mut b.app, crate::tui_undo::key("<enter>"));
    assert_eq!(
        crate::tui_common::works(&effects),
        vec![Work::Oracles {
            base_url: "http://127.0.0.1:1".into(),
            only: Vec::new(),
            reset: None,
        }]
    );
    assert!(b.status().contains("http:// added"), "{}", b.status());
    let mut exec = Executor::threads(b.session.dir(), Launchers::default());
    assert!(crate::tui_common::start_and_wait(
        &b.session, &mut b.app, &mut exec, effects, 30
    ));
    // Nothing listens on port 1: the run fails, saying so, and the URL is kept.
    let (status, error) = b.app.status.clone().unwrap();
    assert!(error && status.contains("oracle run failed"), "{status}");
    let mut b = b.relaunch();
    b.press("<C-t>");
    match b.app.popups.last() {
        Some(Popup::RunOracles(r)) => assert_eq!(r.url.text(), "http://127.0.0.1:1"),
        other => panic!("expected the run dialog, got {other:?}"),
    }
    assert_eq!(b.app.view.review_state(GET_PETS[0]), ReviewState::Accepted);
}

#[test]
fn an_oracle_run_shows_n_of_m_while_it_goes() {
    let mut b = Bench::new();
    b.press("<enter>");
    b.bulk_accept();
    let url = tiny_api();
    // The run reports each verdict as it comes (from the runner's threads).
    let heard = std::sync::Mutex::new(Vec::new());
    let summary = mastor::tui::jobs::run_oracles(b.session.dir(), &url, &[], &|done, total| {
        heard.lock().unwrap().push((done, total))
    })
    .unwrap();
    assert!(summary.starts_with("oracles run: "), "{summary}");
    assert_eq!(
        heard.into_inner().unwrap(),
        [(1, 4), (2, 4), (3, 4), (4, 4)]
    );
    // One oracle again (`!`): only it runs, and its verdict merges into the latest ones.
    let o_id = "GET /pets#bi_limit_0";
    let one =
        mastor::tui::jobs::run_oracles(b.session.dir(), &url, &[o_id.into()], &|_, _| {}).unwrap();
    assert!(one.starts_with("oracles run: "), "{one}");
    let latest: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(b.session.dir().join("verdicts/latest.json")).unwrap(),
    )
    .unwrap();
    let ids: Vec<&str> = latest["verdicts"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|v| v["o_id"].as_str())
        .collect();
    assert!(ids.contains(&o_id) && ids.len() >= 4, "{ids:?}");
    // This run's own file holds that one verdict.
    let mut runs: Vec<std::path::PathBuf> = std::fs::read_dir(b.session.dir().join("verdicts"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| !p.ends_with("latest.json"))
        .collect();
    runs.sort();
    let newest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(runs.last().unwrap()).unwrap()).unwrap();
    assert_eq!(newest["verdicts"].as_array().unwrap().len(), 1, "{newest}");
    // While the run goes, the status line says how far it is.
    b.press("<C-t>");
    for c in url.chars() {
        handle_key(&mut b.app, crate::tui_undo::key(&c.to_string()));
    }
    let effects = handle_key(&mut b.app, crate::tui_undo::key("<enter>"));
    assert_eq!(effects.len(), 1);
    assert!(b.app.tasks.get(TaskKind::Oracles).is_some());
    let seq = b.app.tasks.get(TaskKind::Oracles).unwrap().seq;
    let mut exec = Executor::inline(b.session.dir(), Launchers::default());
    let msg = Msg::Progress {
        seq,
        done: 2,
        total: 4,
    };
    mastor::tui::msg::dispatch(
        &b.session,
        &mut b.app,
        &mut exec,
        &mut |t: &str| Ok(t.into()),
        msg,
    );
    assert_eq!(
        b.status(),
        format!("running oracles against {url}: 2 of 4…")
    );
}
