//! The workbench's export dialog as key sequences: a checklist of formats exported in
//! one go, counts that follow the chosen formats, warnings about failing accepted
//! oracles, and a question before files of an earlier export are replaced.

use crate::tui_common::{petstore_session, t0};
use mastor::store::Session;
use mastor::tui::driver::{Options, open_session};
use mastor::tui::msg::settle;
use mastor::tui::popups::Export;
use mastor::tui::state::{App, Popup};
use mastor::tui::update::handle_key;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

fn open() -> (tempfile::TempDir, Session, App) {
    let dir = tempfile::tempdir().unwrap();
    petstore_session(dir.path());
    let options = Options {
        theme: Some("dark".into()),
        keymap: Some(dir.path().join("no-keymap.toml")),
        settings: Some(dir.path().join("no-settings.toml")),
        mouse: false,
    };
    let (session, mut app) = open_session(dir.path(), &options).unwrap();
    app.now = t0() + chrono::Duration::seconds(125);
    (dir, session, app)
}

fn press(session: &Session, app: &mut App, keys: &[KeyCode]) {
    for &code in keys {
        for e in handle_key(app, KeyEvent::new(code, KeyModifiers::NONE)) {
            settle(session, app, e, &mut |t: &str| Ok(t.to_string()));
        }
    }
}

fn dialog(app: &mut App) -> &mut Export {
    match app.popups.last_mut() {
        Some(Popup::Export(e)) => e,
        _ => panic!("the export dialog is not open"),
    }
}

fn set_dest(app: &mut App, dest: &std::path::Path) {
    dialog(app).dest = mastor::tui::line_edit::LineEdit::new(dest.display().to_string());
}

use KeyCode::{Char, Down, Enter};

#[test]
fn dialog_exports_several_formats_counts_per_format_and_warns() {
    let (dir, session, mut app) = open();
    // Accept the first two oracles of GET /pets (one of them failed its latest run);
    // `a` moves on to the next one.
    press(
        &session,
        &mut app,
        &[Enter, Char('a'), Char('a'), Char('x')],
    );
    let p = mastor::tui::export::preview(&app.view, &[0]);
    assert_eq!((p.items, p.failing, p.stale), (2, 1, 0));
    let gherkin = mastor::tui::export::formats()
        .iter()
        .position(|f| f.format() == mastor::export::Format::Gherkin)
        .unwrap();
    assert_eq!(
        mastor::tui::export::preview(&app.view, &[gherkin]).items,
        0,
        "gherkin exports metamorphic tests only"
    );

    // ↓ space ↓ ↓ space: junit and readable checked.
    let out = dir.path().join("out dir");
    set_dest(&mut app, &out);
    press(
        &session,
        &mut app,
        &[Down, Char(' '), Down, Down, Char(' ')],
    );
    assert_eq!(dialog(&mut app).chosen, [1, 3]);
    app.prepare_frame();
    let mut terminal = Terminal::new(TestBackend::new(120, 40)).unwrap();
    terminal.draw(|f| f.render_widget(&app, f.area())).unwrap();
    let mut settings = insta::Settings::clone_current();
    settings.add_filter(r"/tmp/\.tmp[A-Za-z0-9]+", "[TMP]");
    settings.bind(|| insta::assert_snapshot!("export_dialog_checklist_120x40", terminal.backend()));
    let screen = terminal.backend().to_string();
    assert!(
        screen.contains("⚠ accepted: 1 failing in their latest run"),
        "{screen}"
    );

    press(&session, &mut app, &[Enter]);
    let msg = match &dialog(&mut app).result {
        Some(Ok(m)) => m.clone(),
        other => panic!("expected results, got {other:?}"),
    };
    assert_eq!(msg.lines().count(), 2, "one line per format: {msg}");
    assert!(
        msg.contains("junit: 2 tests") && msg.contains("readable: 2 tests"),
        "{msg}"
    );
    assert!(out.join("README.md").is_file() || std::fs::read_dir(&out).unwrap().count() > 2);

    // Again into the same place: the dialog asks before replacing; `n` goes back.
    press(&session, &mut app, &[Enter, Char('x')]);
    set_dest(&mut app, &out);
    press(&session, &mut app, &[Down, Char(' ')]);
    press(&session, &mut app, &[Enter]);
    let asked = dialog(&mut app).replacing.clone().expect("asks first");
    assert!(!asked.is_empty());
    press(&session, &mut app, &[Char('n')]);
    assert!(dialog(&mut app).replacing.is_none());
    assert!(dialog(&mut app).result.is_none(), "nothing exported");
    press(&session, &mut app, &[Enter, Char('y')]);
    assert!(
        matches!(&dialog(&mut app).result, Some(Ok(m)) if m.contains("junit: 2 tests")),
        "{:?}",
        dialog(&mut app).result
    );
}

#[test]
fn typing_in_the_destination_keeps_spaces() {
    let (_dir, session, mut app) = open();
    press(&session, &mut app, &[Char('x'), Down, Char(' ')]);
    assert_eq!(
        dialog(&mut app).chosen,
        [1],
        "space checks while the list has focus"
    );
    press(&session, &mut app, &[Char('a'), Char(' '), Char('b')]);
    let d = dialog(&mut app);
    assert!(d.dest.text().ends_with("a b"), "{}", d.dest.text());
    assert_eq!(d.chosen, [1]);
}
