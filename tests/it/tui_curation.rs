//! The curation workbench: a failing oracle is visible at any width and explains
//! itself (verdict column, one clean line per failed assertion, the failure view with
//! request and response, copies through OSC 52), search over oracle content with
//! `n` / `N` across operations, jumps to the next oracle to review or failing, the
//! verdict filter, runs of one oracle or the failing ones without a dialog, the 80x24
//! layout, mouse clicks and empty states.

use crate::tui_common;

use mastor::store::Session;
use mastor::tui::state::{ItemRef, Popup, Screen, Tab};
use mastor::tui::tasks::{TaskKind, Work};
use mastor::tui::update::Effect;
use ratatui::crossterm::event::{KeyModifiers, MouseButton, MouseEvent, MouseEventKind};
use serde_json::json;
use tui_common::bench::{Bench, open_with};
use tui_common::petstore_session;

const FAILING: &str = "GET /pets#fv_limit_10";

/// The petstore session with a run in which `fv_limit_10` failed with its request and
/// response kept, and `fi_unknown_id` errored.
pub(crate) fn with_failures(dir: &std::path::Path) {
    let session: Session = petstore_session(dir);
    let body = json!({"error": "limit must be <= 5", "pets": (0..60).collect::<Vec<_>>()});
    session
        .write_json(
            "verdicts/latest.json",
            &json!({"at": "2026-12-02T12:30:00Z", "base_url": "http://127.0.0.1:8080",
                "summary": {"passed": 1, "failed": 1, "errors": 1, "skipped": 0},
                "verdicts": [
                {"o_id": "GET /pets#bv_limit_100", "outcome": "pass", "at": "2026-12-02T12:30:00Z",
                 "base_url": "http://127.0.0.1:8080", "steps": [{"op_id": "GET /pets", "outcome": "pass",
                 "assertions": [{"index": 0, "outcome": "pass", "expected": 200, "actual": 200}]}]},
                {"o_id": FAILING, "outcome": "fail", "at": "2026-12-02T12:30:00Z",
                 "base_url": "http://127.0.0.1:8080", "steps": [{"op_id": "GET /pets", "outcome": "fail",
                 "assertions": [
                    {"index": 0, "outcome": "fail", "expected": 200, "actual": 400,
                     "message": "expected 200, got 400 at status"},
                    {"index": 1, "outcome": "fail", "expected": null, "actual": null,
                     "message": "expected a non-null value, but the field is missing at [*].id"}],
                 "exchange": {"method": "GET", "url": "http://127.0.0.1:8080/pets?limit=10",
                    "status": 400, "response_headers": {"content-type": "application/json"},
                    "response_body": body.to_string(), "elapsed_ms": 3,
                    "curl": "curl -X GET 'http://127.0.0.1:8080/pets?limit=10'"}}]},
                {"o_id": "GET /pets/{id}#fi_unknown_id", "outcome": "error", "at": "2026-12-02T12:30:00Z",
                 "base_url": "http://127.0.0.1:8080", "steps": [{"op_id": "GET /pets/{id}", "outcome": "error",
                 "assertions": [], "message": "connection refused"}]}
            ]}),
        )
        .unwrap();
}

fn open() -> Bench {
    open_with(with_failures)
}

/// The selected oracle's review id.
fn selected(b: &Bench) -> Option<String> {
    b.app.selected_item().and_then(|i| b.app.o_id(i))
}

/// Opens GET /pets (the first operation) on its Oracles tab with `o_id` selected.
fn select(b: &mut Bench, o_id: &str) {
    b.press("<enter>");
    b.app.operation_mut().unwrap().tab = Tab::Oracles;
    b.app.refresh_items();
    let at = b
        .app
        .visible_items()
        .iter()
        .position(|i| b.app.o_id(*i).as_deref() == Some(o_id))
        .expect("the oracle is listed");
    for _ in 0..at {
        b.press("j");
    }
    assert_eq!(selected(b).as_deref(), Some(o_id));
}

#[test]
fn a_failing_row_shows_its_verdict_in_red_at_80_columns() {
    let mut b = open();
    b.press("<enter>");
    let t = b.render(80, 24);
    let buf = t.backend().buffer();
    let (x, y) = (0..buf.area.height)
        .find_map(|y| {
            let line: String = (0..80).map(|x| buf[(x, y)].symbol()).collect();
            line.find("FAIL")
                .filter(|_| line.contains("fv_limit_10"))
                .map(|col| (line[..col].chars().count() as u16, y))
        })
        .expect("the failing row shows FAIL at 80 columns");
    assert_eq!(buf[(x, y)].fg, b.app.theme.fail.fg.unwrap());
    // Passing and never-run rows say so in the same column.
    let text = b.text(80, 24);
    assert!(
        text.lines()
            .any(|l| l.contains("pass") && l.contains("bv_limit_100"))
    );
    insta::assert_snapshot!("curation_oracles_failing_80x24", t.backend());
}

#[test]
fn each_failed_assertion_reads_as_one_clean_line() {
    let mut b = open();
    b.press("<enter>");
    let text = b.text(120, 40);
    assert!(
        text.contains("✗ #1 expected 200, got 400 at status"),
        "{text}"
    );
    assert!(text.contains("✗ #2 expected a non-null value"), "{text}");
    assert!(!text.contains("expected null got null"));
}

#[test]
fn the_failure_view_shows_request_and_response_and_copies_curl_and_body() {
    let mut b = open();
    select(&mut b, FAILING);
    b.press("f");
    assert!(matches!(b.app.popups.last(), Some(Popup::Failure(_))));
    let text = b.text(80, 24);
    assert!(
        text.contains("GET http://127.0.0.1:8080/pets?limit=10"),
        "{text}"
    );
    assert!(text.contains("Response 400 in 3 ms"));
    assert!(
        text.contains("\"error\": \"limit must be <= 5\""),
        "pretty-printed body"
    );
    insta::assert_snapshot!("curation_failure_view_80x24", b.render(80, 24).backend());
    // The body is cut at 40 lines until `a`; the view scrolls.
    b.press("G");
    assert!(b.text(80, 24).contains("more lines (a: show all"));
    b.press("a");
    assert!(!b.text(80, 24).contains("more lines (a: show all"));
    let copied = b.press("y");
    assert_eq!(
        copied,
        vec![Effect::Copy {
            text: "curl -X GET 'http://127.0.0.1:8080/pets?limit=10'".into(),
            what: "curl line".into()
        }]
    );
    assert!(
        b.app
            .status
            .as_ref()
            .is_some_and(|(s, _)| s.starts_with("copied the curl line")),
        "{:?}",
        b.app.status
    );
    let body = b.press("Y");
    assert!(matches!(&body[..], [Effect::Copy { text, what }]
        if what == "response body" && text.contains("limit must be <= 5")));
    // Any other key stays in the view; esc closes it.
    b.press("v");
    assert!(
        b.app.filters.state.is_none(),
        "typing in the view changes no filter"
    );
    b.press("<esc>");
    assert!(b.app.popups.is_empty());
    // From the list, y copies without opening the view.
    assert!(matches!(&b.press("y")[..], [Effect::Copy { .. }]));
}

#[test]
fn the_failure_view_of_an_oracle_never_run_says_so() {
    let mut b = open();
    select(&mut b, "GET /pets#bi_limit_0");
    b.press("f");
    assert!(b.app.popups.is_empty());
    assert!(
        b.app
            .status
            .as_ref()
            .is_some_and(|(s, _)| s.contains("never run"))
    );
}

#[test]
fn search_matches_oracle_content_and_n_walks_matches_across_operations() {
    let mut b = open();
    // A field path no method or path contains.
    b.press("/[*].id<enter>");
    assert_eq!(b.app.search, "[*].id");
    let shown: Vec<String> = b
        .app
        .visible_ops
        .iter()
        .map(|&i| b.app.view.ops[i].op_id.clone())
        .collect();
    assert_eq!(
        shown,
        ["GET /pets"],
        "only operations with a matching oracle"
    );
    b.press("c/is refused<enter>n");
    assert_eq!(selected(&b).as_deref(), Some("POST /pets#fi_no_name"));
    // An evidence file: matches in every operation, n goes on across them and wraps.
    b.press("<esc>c/PetRequest<enter>");
    let mut seen = Vec::new();
    for _ in 0..3 {
        b.press("n");
        seen.push(selected(&b).unwrap_or_default());
    }
    assert_eq!(
        seen,
        [
            "POST /pets#fi_no_name",
            "POST /pets#fi_no_name",
            "POST /pets#fi_no_name"
        ]
    );
    b.press("<esc>c/PetHandler<enter>");
    let mut seen = Vec::new();
    for _ in 0..7 {
        b.press("n");
        seen.push(selected(&b).unwrap_or_default());
    }
    assert_eq!(
        seen,
        [
            "GET /pets#fv_limit_10",
            "GET /pets#bi_limit_0",
            "GET /pets#fi_limit_abc",
            "GET /pets#bv_limit_100",
            "POST /pets#fv_create",
            "GET /pets/{id}#fi_unknown_id",
            "GET /pets#fv_limit_10",
        ]
    );
    b.press("N");
    assert_eq!(
        selected(&b).as_deref(),
        Some("GET /pets/{id}#fi_unknown_id")
    );
    assert!(
        b.app
            .status
            .as_ref()
            .is_some_and(|(s, _)| s.contains("matching oracle 6 of 6"))
    );
}

#[test]
fn jumps_reach_the_next_oracle_to_review_and_the_next_failing_one() {
    let mut b = open();
    b.press("}");
    assert_eq!(selected(&b).as_deref(), Some(FAILING));
    b.press("}");
    assert_eq!(
        selected(&b).as_deref(),
        Some("GET /pets/{id}#fi_unknown_id")
    );
    b.press("}");
    assert_eq!(selected(&b).as_deref(), Some(FAILING), "wraps around");
    // Accept it: `a` moves on to the next one to review, which skips it.
    b.press("a");
    assert_eq!(selected(&b).as_deref(), Some("GET /pets#bi_limit_0"));
    b.press("[");
    assert_eq!(
        selected(&b).as_deref(),
        Some("GET /pets/{id}#fi_unknown_id")
    );
}

#[test]
fn the_verdict_filter_keeps_failing_then_unrun_then_passing_oracles() {
    let mut b = open();
    b.press("V");
    let ops: Vec<&str> = b
        .app
        .visible_ops
        .iter()
        .map(|&i| b.app.view.ops[i].op_id.as_str())
        .collect();
    assert_eq!(ops, ["GET /pets", "GET /pets/{id}"]);
    b.press("<enter>");
    let ids: Vec<String> = b
        .app
        .visible_items()
        .iter()
        .filter_map(|i| b.app.o_id(*i))
        .collect();
    assert_eq!(ids, [FAILING]);
    // order_dependent, wrong, inconclusive: no failure was isolated.
    for _ in 0..3 {
        b.press("V");
        assert!(b.app.visible_items().is_empty(), "nothing isolated");
    }
    b.press("V");
    assert!(b.app.visible_items().is_empty(), "nothing is stale");
    b.press("V");
    assert_eq!(
        b.app.visible_items().len(),
        2,
        "bi_limit_0 and fi_limit_abc never ran"
    );
    b.press("V");
    assert_eq!(b.app.visible_items().len(), 1);
    b.press("V");
    assert_eq!(b.app.visible_items().len(), 4);
}

#[test]
fn run_one_and_run_failing_use_the_last_url_without_a_dialog() {
    let mut b = open();
    select(&mut b, "GET /pets#bi_limit_0");
    // No URL given or used here yet: the oracles' last run says where they ran.
    let effects = b.press("!");
    assert_eq!(
        crate::tui_common::works(&effects),
        vec![Work::Oracles {
            base_url: "http://127.0.0.1:8080".into(),
            only: vec!["GET /pets#bi_limit_0".into()],
            reset: None,
        }]
    );
    assert!(b.app.popups.is_empty());
    b.app.tasks.end(TaskKind::Oracles);
    let effects = b.press("<C-f>");
    assert_eq!(
        crate::tui_common::works(&effects),
        vec![Work::Oracles {
            base_url: "http://127.0.0.1:8080".into(),
            only: vec![FAILING.into(), "GET /pets/{id}#fi_unknown_id".into()],
            reset: None,
        }]
    );
}

#[test]
fn at_80x24_help_and_quit_always_show_and_the_oracle_pane_scrolls() {
    let mut b = open();
    for keys in ["", "<enter>", "<tab>", "2", "3", "4", "5"] {
        b.press(keys);
        let text = b.text(80, 24);
        let footer = text.lines().last().unwrap();
        assert!(
            footer.contains("? help") && footer.contains("q quit"),
            "{keys}: {footer}"
        );
    }
    b.press("1");
    select(&mut b, FAILING);
    let before = b.text(80, 24);
    assert!(
        before.contains("more lines)"),
        "the pane says it scrolls: {before}"
    );
    b.press("JJ");
    let after = b.text(80, 24);
    assert_ne!(before, after);
    assert!(
        after.contains("Evidence"),
        "the end of the oracle is in reach: {after}"
    );
    insta::assert_snapshot!("curation_oracle_scrolled_80x24", b.render(80, 24).backend());
}

#[test]
fn clicks_select_rows_tabs_and_screens() {
    let mut b = open();
    b.render(120, 40);
    let click = |b: &mut Bench, column: u16, row: u16| {
        let ev = MouseEvent {
            kind: MouseEventKind::Down(MouseButton::Left),
            column,
            row,
            modifiers: KeyModifiers::NONE,
        };
        mastor::tui::update::handle_mouse(&mut b.app, ev);
        b.render(120, 40);
    };
    let text = b.text(120, 40);
    let row = text
        .lines()
        .position(|l| l.contains("/pets/{id}") && l.contains("GET"))
        .unwrap() as u16;
    click(&mut b, 20, row);
    assert_eq!(b.app.ops_cursor(), 2);
    click(&mut b, 20, row);
    assert!(
        matches!(&b.app.screen, Screen::Operation(s) if s.op == 2),
        "second click opens"
    );
    let text = b.text(120, 40);
    let tabs = text.lines().nth(2).unwrap();
    let col = tabs.find("Context").unwrap() as u16;
    click(&mut b, col + 1, 2);
    assert_eq!(b.app.operation().map(|s| s.tab), Some(Tab::Context));
    let header = text.lines().next().unwrap();
    let col = header.find("Groups").unwrap() as u16;
    click(&mut b, col, 0);
    assert!(matches!(b.app.screen, Screen::Groups(_)));
}

/// A session like an imported suite: no handler, no evidence, no groups.
fn imported(dir: &std::path::Path) {
    let sdir = dir.join(".mastor");
    let session = Session::create(
        &sdir,
        mastor::store::Manifest::new(dir.display().to_string(), "openapi.json"),
    )
    .unwrap();
    session
        .write_operations(&json!({"operations": [
            {"op_id": "GET /things", "method": "GET", "path": "/things", "entry": null, "bundle": null}]}))
        .unwrap();
    let mut suite = mastor::store::SuiteRecord::new("GET /things");
    suite.oracles = vec![
        serde_json::from_value(json!({
        "test_id": "t1", "op_id": "GET /things", "description": "lists things",
        "assertions": [{"type": "status", "expected": 200}]}))
        .unwrap(),
    ];
    session.write_suite(&suite).unwrap();
}

#[test]
fn without_source_the_oracle_takes_the_room_and_empty_screens_say_why() {
    let mut b = open_with(imported);
    b.press("<enter>");
    let text = b.text(80, 24);
    assert!(!text.contains("no evidence reference"), "{text}");
    assert!(!text.contains("Source"));
    insta::assert_snapshot!("curation_no_source_80x24", b.render(80, 24).backend());
    b.press("2");
    let text = b.text(80, 24);
    assert!(
        text.contains("No operation groups in this session"),
        "{text}"
    );
    b.press("4");
    assert!(b.text(80, 24).contains("no metamorphic tests"));
    b.press("5");
    assert!(b.text(80, 24).contains("No mutation results"));
    // Every screen is in the header, empty or not.
    let header = b.text(120, 40).lines().next().unwrap().to_string();
    assert!(
        header.contains("Metamorphic") && header.contains("Mutants"),
        "{header}"
    );
}

#[test]
fn a_list_item_ref_is_what_the_jump_selected() {
    let mut b = open();
    b.press("}");
    assert!(matches!(
        b.app.selected_item(),
        Some(ItemRef::Single { op: 0, .. })
    ));
}

/// The real binary at 80x24 in tmux: the failing row, the failure view, and `y`
/// putting the curl line on the clipboard through OSC 52 (tmux keeps it as a buffer).
#[test]
fn failure_view_and_copy_in_tmux_at_80x24() {
    use std::process::Command;
    if Command::new("tmux").arg("-V").output().is_err() {
        eprintln!("tmux not installed: skipping the terminal end-to-end test");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    with_failures(dir.path());
    let name = format!("mastor-curation-{}", std::process::id());
    let cmd = format!(
        "env MASTOR_CONFIG={cfg} TERM=xterm-256color {bin} tui {dir}",
        cfg = dir.path().join("cfg").display(),
        bin = env!("CARGO_BIN_EXE_mastor"),
        dir = dir.path().display()
    );
    let t = tui_common::tmux::Tmux::start(&name, &cmd, 80, 24);
    // OSC 52 from the application becomes a tmux paste buffer.
    let _ = Command::new("tmux")
        .args(["set-option", "-s", "set-clipboard", "on"])
        .output();
    let s = t.wait_for("Operations (4)", 20);
    assert!(s.contains("? help") && s.contains("q quit"), "{s}");
    t.keys(&["Enter"]);
    let s = t.wait_for("Oracles (4)", 20);
    assert!(s.contains("FAIL") && s.contains("fv_limit_10"), "{s}");
    t.keys(&["f"]);
    let s = t.wait_for("Response 400 in 3 ms", 20);
    assert!(s.contains("GET http://127.0.0.1:8080/pets?limit=10"), "{s}");
    t.keys(&["y"]);
    t.wait_for("copied the curl line", 20);
    let buffer = Command::new("tmux").args(["show-buffer"]).output().unwrap();
    assert_eq!(
        String::from_utf8_lossy(&buffer.stdout),
        "curl -X GET 'http://127.0.0.1:8080/pets?limit=10'"
    );
    t.keys(&["Escape", "q"]);
}

/// The petstore session with a recorded handler conflict on GET /pets/{id}.
fn with_conflict(dir: &std::path::Path) {
    let session = petstore_session(dir);
    let entry = |class: &str, method: &str, line: usize| mastor::model::EntryRef {
        file: tui_common::PET_HANDLER.into(),
        class: class.into(),
        method: method.into(),
        line,
    };
    session
        .write_conflict(&mastor::store::HandlerConflict {
            op_id: "GET /pets/{id}".into(),
            static_entry: entry("PetHandler", "handle", 30),
            static_weak: Some("handle serves 4 operations".into()),
            discovered: entry("PetHandler", "getPet", 96),
            entry_file: tui_common::PET_HANDLER.into(),
            won: mastor::store::HandlerSide::Discovered,
            why: "getPet exists, is reached from handle and routes nothing itself".into(),
        })
        .unwrap();
}

#[test]
fn the_context_tab_shows_a_handler_conflict_and_the_pick_is_journalled() {
    let mut b = open_with(with_conflict);
    b.press("jj<enter>");
    b.app.operation_mut().unwrap().tab = Tab::Context;
    let text = b.text(120, 40);
    assert!(
        text.contains("Handler: the model overruled the scan's match"),
        "{text}"
    );
    assert!(text.contains("PetHandler.handle") && text.contains("(weak: handle serves 4"));
    assert!(text.contains("this run used the model's"));
    let effects = b.press("h");
    assert_eq!(
        effects,
        vec![Effect::PickHandler {
            op_id: "GET /pets/{id}".into(),
            side: mastor::store::HandlerSide::Static
        }]
    );
    let picks = b.session.read_handler_choices().unwrap();
    assert_eq!(picks["GET /pets/{id}"].handler.method, "handle");
    assert!(
        b.text(120, 40)
            .contains("picked: src/main/java/petstore/handlers/PetHandler.java.handle")
    );
    // An operation without a conflict has nothing to pick.
    b.press("<esc>k<enter>");
    b.app.operation_mut().unwrap().tab = Tab::Context;
    assert!(b.press("H").is_empty());
    assert!(
        b.app
            .status
            .as_ref()
            .is_some_and(|(s, _)| s.contains("agree"))
    );
}

#[test]
fn an_edited_oracle_shows_what_changed_and_editor_errors_name_the_typed_line() {
    let mut b = open();
    select(&mut b, "GET /pets#bi_limit_0");
    let effects = b.press("E");
    let Some(Effect::ExternalEdit { o_id, multi, text }) = effects.first().cloned() else {
        panic!("E asks for the external editor: {effects:?}");
    };
    let edited = text.replace("\"expected\": 400", "\"expected\": 422");
    assert_ne!(edited, text);
    for e in b
        .app
        .external_edit_done(o_id.clone(), multi, edited.clone())
    {
        mastor::tui::msg::settle(&b.session, &mut b.app, e, &mut |t: &str| Ok(t.into()));
    }
    let shown = b.text(120, 40);
    assert!(shown.contains("Edited (original → edited)"), "{shown}");
    assert!(
        shown.contains("assertions[0].expected: 400 → 422"),
        "{shown}"
    );
    // A typo inside an assertion: reported where that assertion starts, not lines below.
    let typo = edited.replace("\"type\": \"status\"", "\"type\": \"statuz\"");
    let line = typo
        .lines()
        .position(|l| l.contains("statuz"))
        .map(|i| i + 1)
        .unwrap();
    let err = mastor::tui::review::validate_edit(&o_id, false, &typo).unwrap_err();
    assert!(
        err.contains(&format!("(line {})", line - 1)) || err.contains(&format!("(line {line})")),
        "{err} (typo on line {line})"
    );
}

#[test]
fn the_operations_sort_by_failing_oracles() {
    let mut b = open();
    // session → path → method → to review → failing
    b.press("ssss");
    assert_eq!(b.app.sort.label(), "failing");
    let first: Vec<&str> = b.app.visible_ops[..2]
        .iter()
        .map(|&i| b.app.view.ops[i].op_id.as_str())
        .collect();
    assert_eq!(first, ["GET /pets", "GET /pets/{id}"]);
}
