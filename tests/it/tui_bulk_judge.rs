//! Failures by cause, judged at once: over the oracles the verdict filter keeps (here
//! the order-dependent failures), `alt-f` judges every failure a false positive with
//! one note, and `U` undoes the whole batch as one step. The isolation label shows in
//! the verdict column and the verdict filter keeps failures by label.

use crate::tui_common;

use mastor::tui::msg::settle;
use mastor::tui::update::{Effect, handle_key};
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use serde_json::json;
use tui_common::bench::{Bench, open_with};

const ORDER: [&str; 2] = ["GET /pets#fv_limit_10", "GET /pets#bv_limit_100"];
const WRONG: &str = "GET /pets#bi_limit_0";
/// The failing oracle of the curation fixture.
const CURATION_FAILING: &str = "GET /pets#fv_limit_10";

/// The petstore session with three failures of GET /pets, isolated: two passed alone
/// after the reset (order-dependent), one failed again (wrong).
fn isolated_failures(dir: &std::path::Path) {
    let session = tui_common::petstore_session(dir);
    let failed = |o_id: &str, isolation: &str| {
        json!({"o_id": o_id, "outcome": "fail", "at": "2026-12-02T12:30:00Z",
               "base_url": "http://127.0.0.1:8080", "isolation": isolation,
               "steps": [{"op_id": "GET /pets", "outcome": "fail",
                 "assertions": [{"index": 0, "outcome": "fail", "expected": 200,
                    "actual": 400, "message": "expected 200, got 400 at status"}]}]})
    };
    session
        .write_json(
            "verdicts/latest.json",
            &json!({"at": "2026-12-02T12:30:00Z", "base_url": "http://127.0.0.1:8080",
                "summary": {"passed": 0, "failed": 3, "errors": 0, "skipped": 0},
                "verdicts": [failed(ORDER[0], "order_dependent"),
                             failed(ORDER[1], "order_dependent"),
                             failed(WRONG, "wrong")]}),
        )
        .unwrap();
}

/// Presses one key and performs its effects as the driver does.
fn press_key(b: &mut Bench, key: KeyEvent) -> Vec<Effect> {
    let effects = handle_key(&mut b.app, key);
    for e in effects.clone() {
        settle(&b.session, &mut b.app, e, &mut |t: &str| Ok(t.to_string()));
    }
    effects
}

fn judgement_lines(b: &Bench) -> Vec<serde_json::Value> {
    std::fs::read_to_string(b.session.dir().join("judgements.jsonl"))
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn order_dependent_failures_are_judged_false_positives_at_once_and_undone_as_one() {
    let mut b = open_with(isolated_failures);
    // The operation, then the verdict filter on "failing: order_dependent".
    b.press("<enter>VV");
    let shown: Vec<String> = b
        .app
        .visible_items()
        .iter()
        .filter_map(|i| b.app.o_id(*i))
        .collect();
    assert_eq!(shown, ORDER, "{}", b.status());
    press_key(&mut b, KeyEvent::new(KeyCode::Char('f'), KeyModifiers::ALT));
    b.press("state left by other oracles<enter>");
    let lines = judgement_lines(&b);
    assert_eq!(lines.len(), 2, "{lines:?}");
    for (line, o_id) in lines.iter().zip(ORDER) {
        assert_eq!(line["o_id"], o_id);
        assert_eq!(line["judgement"], "fp");
        assert_eq!(line["note"], "state left by other oracles");
    }
    assert!(b.status().contains("judged 2 failure(s)"), "{}", b.status());
    assert!(
        b.app.view.judged(WRONG).is_none(),
        "the wrong one is not shown"
    );
    // One undo step takes back the whole batch.
    let undo = b.press("U");
    assert_eq!(undo.len(), 2, "{undo:?}");
    for o_id in ORDER {
        assert!(
            b.app.view.judged(o_id).is_none(),
            "{o_id} is unjudged again"
        );
    }
    assert!(b.press("U").is_empty(), "nothing left to undo");
    // Where the filtered list has no failure, nothing is asked.
    b.press("V");
    b.press("V");
    press_key(&mut b, KeyEvent::new(KeyCode::Char('t'), KeyModifiers::ALT));
    assert!(b.app.popups.is_empty());
}

#[test]
fn an_isolated_failure_shows_its_label_in_the_list_and_filters_by_it() {
    let mut b = open_with(crate::tui_curation::with_failures);
    b.app
        .view
        .verdict_details
        .get_mut(CURATION_FAILING)
        .unwrap()
        .isolation = Some(mastor::model::Isolation::OrderDependent);
    b.app.refresh_lists();
    b.press("<enter>");
    let screen = b.text(80, 24);
    let row = screen
        .lines()
        .find(|l| l.contains("fv_limit_10"))
        .unwrap_or_default()
        .to_string();
    assert!(row.contains("FAIL order_dependent"), "{screen}");
    // V: failing, then failing by cause.
    b.press("<esc>VV");
    assert!(b.status().contains("order_dependent"), "{}", b.status());
    b.press("<enter>");
    let ids: Vec<String> = b
        .app
        .visible_items()
        .iter()
        .filter_map(|i| b.app.o_id(*i))
        .collect();
    assert_eq!(ids, [CURATION_FAILING]);
    b.press("V");
    assert!(b.status().contains("wrong"), "{}", b.status());
    assert!(
        b.app.visible_items().is_empty(),
        "nothing failed again alone"
    );
}
