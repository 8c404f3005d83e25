//! What the model saw for an operation is one key away from its Context tab: `i` opens
//! the Calls tab on the extraction call that made the context (the prompt, with the
//! bundle as it was sent, and the raw answer); without such a call it says why. A weak
//! handler line the prompts carried is said at the top of the tab.

use crate::tui_common;

use mastor::tui::state::{Screen, Tab};
use serde_json::json;
use tui_common::bench::open_with;

#[test]
fn i_on_the_context_tab_opens_the_extraction_call() {
    let mut b = open_with(|dir| {
        let s = tui_common::petstore_session(dir);
        s.write_call("call-x", &json!({"id": "call-x", "agent": "extraction", "phase": "source_analysis",
            "op_id": "GET /pets", "role": "primary", "provider": "deepseek", "model": "deepseek-chat",
            "base_url": "http://127.0.0.1:1/v1", "usage": {"prompt_tokens": 2000, "completion_tokens": 400, "cached_tokens": 0},
            "wall_ms": 3000, "attempts": 1, "retries": [], "cost_usd": 0.001, "cache_hit": false, "reasked": false,
            "finish_reason": "stop", "parse_error": null, "error": null, "started_at": "2026-12-02T12:00:00Z",
            "messages": [{"role": "user", "content": "=== PetHandler.java (lines 60-99) ===\n72: if (limit < 1)"}],
            "raw_answer": "{\"request_params\": [\"limit answered\"]}"}))
            .unwrap();
    });
    // GET /pets, Context tab.
    b.press("<enter>");
    to_context(&mut b);
    assert_eq!(b.app.operation().map(|s| s.tab), Some(Tab::Context));
    let t = b.text(120, 40);
    assert!(t.contains("i: what the model saw"), "{t}");
    b.press("i");
    let s = match &b.app.screen {
        Screen::Operation(s) => s.clone(),
        _ => panic!("left the operation"),
    };
    assert_eq!(s.tab, Tab::Calls);
    let op = &b.app.view.ops[s.op];
    assert_eq!(b.app.view.calls[op.calls[s.calls_cursor]].id, "call-x");
    let t = b.text(120, 40);
    assert!(t.contains("call call-x"), "{t}");
    assert!(
        t.contains("=== PetHandler.java (lines 60-99) ==="),
        "the bundle as sent\n{t}"
    );
    assert!(t.contains("limit answered"), "the raw answer\n{t}");
    // POST /pets has no extraction call: said so, the tab stays.
    b.press("<esc>j<enter>");
    to_context(&mut b);
    b.press("i");
    assert_eq!(b.app.operation().map(|s| s.tab), Some(Tab::Context));
    assert!(
        b.status().contains("no extraction call is recorded"),
        "{}",
        b.status()
    );
}

/// Moves left through the operation's tabs to the Context tab.
fn to_context(b: &mut tui_common::bench::Bench) {
    use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
    for _ in 0..6 {
        if b.app.operation().map(|s| s.tab) == Some(Tab::Context) {
            return;
        }
        let left = KeyEvent::new(KeyCode::Left, KeyModifiers::NONE);
        mastor::tui::update::handle_key(&mut b.app, left);
    }
}

#[test]
fn a_weak_handler_line_is_said_at_the_top_of_the_context_tab() {
    let mut b = open_with(|dir| {
        let s = tui_common::petstore_session(dir);
        let mut ops: serde_json::Value = s.read_json("operations.json").unwrap().unwrap();
        ops["operations"][0]["weak"] = json!("handle serves 4 operations");
        s.write_operations(&ops).unwrap();
    });
    b.press("<enter>");
    to_context(&mut b);
    let t = b.text(120, 40);
    let weak = t
        .lines()
        .position(|l| l.contains("the scan's match"))
        .unwrap_or_else(|| panic!("not said\n{t}"));
    assert!(t.contains("is weak (handle serves 4 operations)"), "{t}");
    let first_fact = t
        .lines()
        .position(|l| l.contains("Request parameters"))
        .unwrap();
    assert!(weak < first_fact, "above the context\n{t}");
    // An operation whose match is not weak says nothing of it.
    b.press("<esc>j<enter>");
    to_context(&mut b);
    assert!(!b.text(120, 40).contains("is weak"));
}
