//! A verdict belongs to the content that ran: editing an oracle makes its verdict stale
//! (shown as `stale`, not `edited FAIL`), undoing the edit brings the old verdict back,
//! and a verdict of the edited form goes stale when the edit is undone.

use crate::tui_common::{petstore_session, t0};
use mastor::model::Outcome;
use mastor::store::Session;
use mastor::tui::driver::{Options, open_session};
use mastor::tui::msg::settle;
use mastor::tui::state::App;
use mastor::tui::update::handle_key;
use mastor::tui::verdict_mark::VerdictMark;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use serde_json::json;

const ORACLE: &str = "GET /pets#fv_limit_10";

fn options(dir: &std::path::Path) -> Options {
    Options {
        theme: Some("dark".into()),
        keymap: Some(dir.join("no-keymap.toml")),
        settings: Some(dir.join("no-settings.toml")),
        mouse: false,
    }
}

/// The petstore session with its stored verdicts stamped with the hash of the content
/// they ran (as `mastor check` now stores them).
fn open() -> (tempfile::TempDir, Session, App) {
    let dir = tempfile::tempdir().unwrap();
    petstore_session(dir.path());
    let (session, app) = open_session(dir.path(), &options(dir.path())).unwrap();
    let mut latest: serde_json::Value = session.read_json("verdicts/latest.json").unwrap().unwrap();
    for v in latest["verdicts"].as_array_mut().unwrap() {
        let id = v["o_id"].as_str().unwrap().to_string();
        v["content_hash"] = json!(app.view.current_content_hash(&id).unwrap());
    }
    session.write_json("verdicts/latest.json", &latest).unwrap();
    drop(session);
    let (session, mut app) = open_session(dir.path(), &options(dir.path())).unwrap();
    app.now = t0() + chrono::Duration::seconds(125);
    (dir, session, app)
}

fn press(session: &Session, app: &mut App, keys: &[KeyCode]) {
    for &code in keys {
        for e in handle_key(app, KeyEvent::new(code, KeyModifiers::NONE)) {
            settle(session, app, e, &mut |text: &str| {
                Ok(text.replace("limit=10 lists", "limit=10 returns"))
            });
        }
    }
}

fn screen(app: &mut App) -> String {
    app.prepare_frame();
    let mut terminal = Terminal::new(TestBackend::new(120, 40)).unwrap();
    terminal.draw(|f| f.render_widget(&*app, f.area())).unwrap();
    terminal.backend().to_string()
}

#[test]
fn edit_makes_the_verdict_stale_and_undo_restores_it() {
    let (_dir, session, mut app) = open();
    assert_eq!(app.view.verdict_mark(ORACLE), Some(VerdictMark::Fail));
    assert_eq!(
        app.view.verdict_mark("GET /pets#bv_limit_100"),
        Some(VerdictMark::Pass)
    );

    // Enter the operation, edit its first oracle in the (scripted) external editor.
    press(&session, &mut app, &[KeyCode::Enter, KeyCode::Char('E')]);
    assert_eq!(
        app.view.verdict_mark(ORACLE),
        Some(VerdictMark::Stale(Outcome::Fail)),
        "the failure was found on the content before the edit"
    );
    assert_eq!(
        app.view.verdict_mark("GET /pets#bv_limit_100"),
        Some(VerdictMark::Pass),
        "other oracles keep their verdicts"
    );
    let text = screen(&mut app);
    insta::assert_snapshot!("verdict_stale_after_edit_120x40", text);
    assert!(text.contains("stale"), "{text}");

    // Undo: the content is the one that ran again.
    press(&session, &mut app, &[KeyCode::Char('u')]);
    assert_eq!(app.view.verdict_mark(ORACLE), Some(VerdictMark::Fail));
}

#[test]
fn undoing_an_edit_makes_the_edited_verdict_stale() {
    let (_dir, session, mut app) = open();
    press(&session, &mut app, &[KeyCode::Enter, KeyCode::Char('E')]);
    // A run of the edited form: it passes, and that verdict is current.
    let mut v = app.view.verdict_details[ORACLE].clone();
    v.outcome = Outcome::Pass;
    v.content_hash = app.view.current_content_hash(ORACLE);
    app.view.apply_verdicts([v]);
    assert_eq!(app.view.verdict_mark(ORACLE), Some(VerdictMark::Pass));
    press(&session, &mut app, &[KeyCode::Char('u')]);
    assert_eq!(
        app.view.verdict_mark(ORACLE),
        Some(VerdictMark::Stale(Outcome::Pass)),
        "the pass belongs to the edit, not to the original"
    );
}

#[test]
fn verdicts_without_a_hash_are_never_stale() {
    let dir = tempfile::tempdir().unwrap();
    petstore_session(dir.path());
    let (session, mut app) = open_session(dir.path(), &options(dir.path())).unwrap();
    press(&session, &mut app, &[KeyCode::Enter, KeyCode::Char('E')]);
    assert_eq!(app.view.verdict_mark(ORACLE), Some(VerdictMark::Fail));
}
