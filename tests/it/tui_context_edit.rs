//! Debugging extraction on one endpoint: the Context tab edits the operation's source
//! context with the oracles' inline editor, refuses an edit that is not a source context
//! (unknown key, bad status) with the reason in place and nothing written, keeps a valid
//! one as a reviewed input across a relaunch, shows what changed against the extraction,
//! and drops it on request.

use crate::tui_common;

use mastor::tui::popups::Editor;
use mastor::tui::state::{Popup, Tab};
use serde_json::Value;
use tui_common::bench::{Bench, open_with};

const OP: &str = "GET /pets";

/// GET /pets on its Context tab.
fn to_context(b: &mut Bench) {
    b.press("<enter>");
    for _ in 0..6 {
        if b.app.operation().map(|s| s.tab) == Some(Tab::Context) {
            return;
        }
        let left = ratatui::crossterm::event::KeyEvent::new(
            ratatui::crossterm::event::KeyCode::Left,
            ratatui::crossterm::event::KeyModifiers::NONE,
        );
        mastor::tui::update::handle_key(&mut b.app, left);
    }
    assert_eq!(b.app.operation().map(|s| s.tab), Some(Tab::Context));
}

/// The editor's text as JSON.
fn editor_json(b: &Bench) -> Value {
    match b.app.popups.last() {
        Some(Popup::Editor(Editor {
            textarea, context, ..
        })) => {
            assert!(*context, "the context editor");
            serde_json::from_str(&textarea.lines().join("\n")).unwrap()
        }
        other => panic!("expected the editor, got {other:?}"),
    }
}

fn set_editor(b: &mut Bench, v: &Value) {
    let text = serde_json::to_string_pretty(v).unwrap();
    match b.app.popups.last_mut() {
        Some(Popup::Editor(Editor { textarea, .. })) => {
            **textarea = ratatui_textarea::TextArea::new(text.lines().map(str::to_string).collect())
        }
        other => panic!("expected the editor, got {other:?}"),
    }
}

fn editor_error(b: &Bench) -> String {
    match b.app.popups.last() {
        Some(Popup::Editor(Editor { error: Some(e), .. })) => e.clone(),
        other => panic!("expected the editor with an error, got {other:?}"),
    }
}

#[test]
fn a_context_edit_is_checked_kept_shown_against_the_extraction_and_dropped() {
    let mut b = open_with(|dir| {
        tui_common::petstore_session(dir);
    });
    to_context(&mut b);
    let t = b.text(120, 40);
    assert!(t.contains("e: edit this context"), "{t}");
    b.press("e");
    let original = editor_json(&b);
    assert_eq!(original["op_id"], OP);

    // An unknown key: named with its place, the editor stays, nothing is written.
    let mut typo = original.clone();
    typo["response_schema"]["error_cases"][0]["conditon"] = "typo".into();
    set_editor(&mut b, &typo);
    b.press("<C-s>");
    let e = editor_error(&b);
    assert!(
        e.contains("unknown key `conditon` at `response_schema.error_cases[0].conditon`"),
        "{e}"
    );
    // A status that is not one.
    let mut bad = original.clone();
    bad["response_schema"]["success_status"] = 2000.into();
    set_editor(&mut b, &bad);
    b.press("<C-s>");
    let e = editor_error(&b);
    assert!(e.contains("not an HTTP status"), "{e}");
    // Another operation's id.
    let mut moved = original.clone();
    moved["op_id"] = "POST /pets".into();
    set_editor(&mut b, &moved);
    b.press("<C-s>");
    assert!(editor_error(&b).contains("op_id changed"));
    assert!(b.session.read_context_edits().unwrap().is_empty());

    // A valid edit: kept, journalled, shown with its changes.
    let mut good = original.clone();
    good["response_schema"]["success_status"] = 206.into();
    set_editor(&mut b, &good);
    b.press("<C-s>");
    assert!(b.app.popups.is_empty(), "a valid edit closes the editor");
    assert!(b.status().contains("edited context saved"), "{}", b.status());
    assert!(b.status().contains("--refresh-from single_op"), "{}", b.status());
    let edits = b.session.read_context_edits().unwrap();
    let kept = edits[OP].context.as_ref().unwrap();
    assert_eq!(kept.response_schema.success_status, Some(206));
    let extracted = b.session.read_extracted_context(OP).unwrap().unwrap();
    assert_eq!(extracted.response_schema.success_status, Some(200));
    let t = b.text(120, 40);
    assert!(t.contains("Edited by the reviewer"), "{t}");
    assert!(
        t.contains("response_schema.success_status: 200 → 206"),
        "{t}"
    );
    assert!(t.contains("success 206"), "{t}");

    // Kept across a relaunch.
    let mut b = b.relaunch();
    to_context(&mut b);
    let t = b.text(120, 40);
    assert!(t.contains("response_schema.success_status: 200 → 206"), "{t}");

    // Dropped: the extraction's context again; the journal keeps the edit.
    b.press("u");
    assert!(b.session.read_context_edits().unwrap().is_empty());
    let t = b.text(120, 40);
    assert!(!t.contains("Edited by the reviewer"), "{t}");
    assert!(t.contains("success 200"), "{t}");
    assert!(b.status().contains("context edit dropped"), "{}", b.status());
    // Nothing left to drop: said so.
    b.press("u");
    assert!(b.status().contains("no edit to drop"), "{}", b.status());
}

#[test]
fn the_context_tab_shows_an_edit_against_the_extraction() {
    let mut b = open_with(|dir| {
        let s = tui_common::petstore_session(dir);
        let mut c = s.read_extracted_context(OP).unwrap().unwrap();
        c.response_schema.success_status = Some(206);
        c.request_params.retain(|p| p.name != "tag");
        c.response_schema.fields[2].nullable = false;
        let line = serde_json::json!({"op_id": OP, "context": c, "at": "2026-12-02T12:00:00Z"});
        std::fs::write(
            s.dir().join(mastor::store::CONTEXT_EDITS_FILE),
            format!("{line}\n"),
        )
        .unwrap();
    });
    to_context(&mut b);
    let t = b.render(100, 30);
    insta::assert_snapshot!("context_edit_diff_100x30", t.backend());
}
