//! Bulk review on a large session: accept-all writes the journal in chunks of
//! `BULK_CHUNK` decisions (one write and one fsync each) with progress between them, and
//! Esc stops it with what was written kept.

use crate::tui_common;

use mastor::tui::driver::{Options, open_session};
use mastor::tui::msg::settle;
use mastor::tui::review::BULK_CHUNK;
use mastor::tui::update::{Effect, handle_key};
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

fn press(app: &mut mastor::tui::state::App, c: KeyCode) -> Vec<Effect> {
    handle_key(app, KeyEvent::new(c, KeyModifiers::NONE))
}

fn no_editor(_: &str) -> Result<String, String> {
    Err("no editor here".into())
}

const ORACLES: usize = 2 * BULK_CHUNK + 1_000;

fn open(dir: &std::path::Path) -> (mastor::store::Session, mastor::tui::state::App) {
    let sdir = dir.join("session");
    tui_common::synthetic_session(&sdir, 40, ORACLES);
    let opts = Options {
        theme: Some("dark".into()),
        keymap: Some(dir.join("no-keymap.toml")),
        settings: Some(dir.join("no-settings.toml")),
        mouse: false,
    };
    open_session(&sdir, &opts).unwrap()
}

#[test]
fn accept_all_writes_in_chunks_with_progress_and_one_sync_each() {
    let dir = tempfile::tempdir().unwrap();
    let (session, mut app) = open(dir.path());
    assert!(press(&mut app, KeyCode::Char('A')).is_empty(), "asks first");
    assert!(
        press(&mut app, KeyCode::Enter).is_empty(),
        "no note; asks yes / no"
    );
    let first = press(&mut app, KeyCode::Char('y'));
    assert_eq!(first.len(), 1, "one effect, not one per oracle");
    let Effect::RecordBatch(chunk) = &first[0] else {
        panic!("{first:?}")
    };
    assert_eq!(chunk.len(), BULK_CHUNK);
    for e in first {
        settle(&session, &mut app, e, &mut no_editor);
    }
    let status = app.status.clone().unwrap().0;
    assert!(
        status.contains(&format!("accepted {BULK_CHUNK} of {ORACLES}")),
        "{status}"
    );
    // Keys other than Esc wait while the bulk action runs.
    assert!(press(&mut app, KeyCode::Char('A')).is_empty());
    assert!(app.popups.is_empty());
    let mut chunks = 1;
    while let Some(chunk) = app.next_bulk_chunk() {
        chunks += 1;
        settle(
            &session,
            &mut app,
            Effect::RecordBatch(chunk),
            &mut no_editor,
        );
    }
    assert_eq!(chunks, 3);
    assert!(app.bulk.is_none());
    assert_eq!(
        app.status.clone().unwrap().0,
        format!("accepted {ORACLES} oracles")
    );
    assert_eq!(session.read_decisions().unwrap().len(), ORACLES);
    assert_eq!(session.read_review_journal().unwrap().len(), ORACLES);
}

#[test]
fn esc_stops_a_bulk_action_and_keeps_what_was_written() {
    let dir = tempfile::tempdir().unwrap();
    let (session, mut app) = open(dir.path());
    press(&mut app, KeyCode::Char('A'));
    press(&mut app, KeyCode::Enter);
    for e in press(&mut app, KeyCode::Char('y')) {
        settle(&session, &mut app, e, &mut no_editor);
    }
    assert!(press(&mut app, KeyCode::Esc).is_empty());
    assert!(app.bulk.is_none());
    assert!(app.next_bulk_chunk().is_none());
    let status = app.status.clone().unwrap().0;
    assert!(
        status.starts_with(&format!("stopped: {BULK_CHUNK} of {ORACLES} accepted")),
        "{status}"
    );
    assert_eq!(session.read_decisions().unwrap().len(), BULK_CHUNK);
}
