//! The Metamorphic screen in process: insta snapshots of the list, the detail and the
//! empty state at 120x40 and 80x24, and key sequences (accept, reject with a note, a
//! valid edit, invalid edits) checked against the review journal on disk.

use crate::tui_common;

use mastor::model::{Decision, ReviewState};
use mastor::store::Session;
use mastor::tui::driver::{Options, open_session};
use mastor::tui::msg::settle;
use mastor::tui::state::{App, Popup, Screen};
use mastor::tui::update::handle_key;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use serde_json::{Value, json};
use std::path::Path;
use tui_common::{petstore_session, t0};

struct Bench {
    dir: tempfile::TempDir,
    session: Session,
    app: App,
}

fn options(dir: &Path) -> Options {
    Options {
        theme: Some("dark".into()),
        keymap: Some(dir.join("no-keymap.toml")),
        settings: Some(dir.join("no-settings.toml")),
        mouse: false,
    }
}

fn status_visible() -> Value {
    json!({
        "test_id": "status_visible",
        "scenario": "Updating a pet's status is visible on read",
        "given": "a pet created with status available",
        "when": "its status is changed to sold and the pet is read again",
        "then": "the read shows status sold",
        "seed": [{"op_id": "POST /pets", "input": {"body": {"name": "Rex", "status": "available"}},
                  "captures": {"id": "id"}, "assertions": [{"type": "status", "expected": 201}]}],
        "follow_up": [
            {"op_id": "POST /pets/{petId}/status", "input": {"path": {"petId": "$captures.id"}, "body": {"status": "sold"}}},
            {"op_id": "GET /pets/{petId}", "input": {"path": {"petId": "$captures.id"}}}],
        "relations": [{"left": "follow_up[1].body.status", "op": "equals", "right": "follow_up[0].request.body.status"}],
        "slug": "post-pets+post-pets-petid-status>get-pets-petid:equals"
    })
}

fn filter_subset() -> Value {
    json!({
        "test_id": "filter_subset",
        "scenario": "Filtering by status returns a subset of all pets",
        "given": "pets of several statuses",
        "when": "the list is filtered by status available",
        "then": "every filtered id is in the full list and none is sold",
        "seed": [{"op_id": "GET /pets", "input": {"query": {"status": "available"}}}],
        "follow_up": [{"op_id": "GET /pets"}],
        "relations": [{"left": "seed[0].body[*].id", "op": "subset", "right": "follow_up[0].body[*].id"},
                      {"left": "seed[0].body[*].status", "op": "not_contains", "value": "sold"}],
        "slug": "get-pets>get-pets:subset+not_contains"
    })
}

fn missing_pet() -> Value {
    json!({
        "test_id": "missing_pet_delete",
        "scenario": "Deleting a pet makes it unreadable",
        "seed": [{"op_id": "GET /pets/{petId}", "input": {"path": {"petId": "999"}}}],
        "follow_up": [{"op_id": "DELETE /pets/{petId}", "input": {"path": {"petId": "999"}}}],
        "relations": [{"left": "follow_up[0].status", "op": "not_equals", "right": "seed[0].status"}]
    })
}

fn count_grows() -> Value {
    json!({
        "test_id": "create_grows_list",
        "scenario": "Creating a pet grows the list by one",
        "seed": [{"op_id": "GET /pets"}],
        "follow_up": [{"op_id": "POST /pets", "input": {"body": {"name": "Tom"}}}, {"op_id": "GET /pets"}],
        "relations": [{"left": "seed[0].body", "op": "count_diff", "right": "follow_up[1].body", "value": 1}]
    })
}

/// The petstore review session plus four metamorphic tests and the loop report: one
/// passed, one relation violated, one execution failed, one never run; one duplicate
/// folded into `status_visible`.
fn meta_session(dir: &Path) -> Session {
    let session = petstore_session(dir);
    let report = json!({
        "iterations": [{"iteration": 1, "candidates": 5, "repaired": 0,
            "new_tests": ["status_visible", "filter_subset", "missing_pet_delete"],
            "dropped": [], "requests": 9, "coverage": 0.8,
            "duplicates": [{"test_id": "mr_7", "same_as": "status_visible",
                            "slug": "post-pets+post-pets-petid-status>get-pets-petid:equals"}]}],
        "tests": [status_visible(), filter_subset(), missing_pet(), count_grows()],
        "verdicts": [
            {"o_id": "mr#status_visible", "test_id": "status_visible", "outcome": "passed",
             "requests": 3, "steps": [], "relations": [
                {"index": 0, "outcome": "holds", "left": "sold", "right": "sold"}]},
            {"o_id": "mr#filter_subset", "test_id": "filter_subset", "outcome": "relation_violated",
             "reason": "relation 2: [\"available\",\"sold\"] contains \"sold\" (left [\"available\",\"sold\"], right \"sold\")",
             "requests": 2, "steps": [], "relations": [
                {"index": 0, "outcome": "holds", "left": [1, 2], "right": [1, 2, 3]},
                {"index": 1, "outcome": "violated", "left": ["available", "sold"], "right": "sold",
                 "message": "[\"available\",\"sold\"] contains \"sold\""}]},
            {"o_id": "mr#missing_pet_delete", "test_id": "missing_pet_delete", "outcome": "execution_failed",
             "reason": "seed[0] (GET /pets/{petId}): status 404 is not documented for GET /pets/{petId}",
             "requests": 1, "steps": [], "relations": []}],
        "stop": "coverage", "coverage": 0.8, "covered": [], "operations": 5, "requests": 6,
        "outcomes": {"passed": 1, "relation_violated": 1, "execution_failed": 1},
        "elapsed_ms": 1200
    });
    let report: mastor::metamorphic::iterate::MrReport = serde_json::from_value(report).unwrap();
    mastor::metamorphic::store::save(&session, &report).unwrap();
    session
}

fn open_with(make: fn(&Path) -> Session) -> Bench {
    let dir = tempfile::tempdir().unwrap();
    make(dir.path());
    let (session, mut app) = open_session(dir.path(), &options(dir.path())).unwrap();
    app.now = t0() + chrono::Duration::seconds(125);
    Bench { dir, session, app }
}

fn key(token: &str) -> KeyEvent {
    let code = match token {
        "<enter>" => KeyCode::Enter,
        "<esc>" => KeyCode::Esc,
        "<bs>" => KeyCode::Backspace,
        "<down>" => KeyCode::Down,
        "<up>" => KeyCode::Up,
        "<end>" => KeyCode::End,
        "<left>" => KeyCode::Left,
        "<C-s>" => return KeyEvent::new(KeyCode::Char('s'), KeyModifiers::CONTROL),
        t => KeyCode::Char(t.chars().next().unwrap()),
    };
    KeyEvent::new(code, KeyModifiers::NONE)
}

/// Presses keys: `<name>` tokens are special keys, other characters are typed.
fn press(b: &mut Bench, keys: &str) {
    press_with_editor(b, keys, &mut |text: &str| Ok(text.to_string()));
}

/// Presses keys with `editor` standing in for `$EDITOR`.
fn press_with_editor(
    b: &mut Bench,
    keys: &str,
    editor: &mut dyn FnMut(&str) -> Result<String, String>,
) {
    let mut rest = keys;
    while let Some(c) = rest.chars().next() {
        let token = match rest.find('>') {
            Some(end) if c == '<' => rest[..=end].to_string(),
            _ => c.to_string(),
        };
        rest = &rest[token.len()..];
        for e in handle_key(&mut b.app, key(&token)) {
            settle(&b.session, &mut b.app, e, editor);
        }
    }
}

fn snap(b: &mut Bench, name: &str) {
    let mut settings = insta::Settings::clone_current();
    settings.add_filter(r"/tmp/\.tmp[A-Za-z0-9]+", "[TMP]");
    settings.bind(|| {
        for (w, h) in [(120, 40), (80, 24)] {
            b.app.prepare_frame();
            let mut terminal = Terminal::new(TestBackend::new(w, h)).unwrap();
            terminal
                .draw(|f| f.render_widget(&b.app, f.area()))
                .unwrap();
            insta::assert_snapshot!(format!("{name}_{w}x{h}"), terminal.backend());
        }
    });
}

/// Review journal lines as JSON, oldest first.
fn journal(b: &Bench) -> Vec<Value> {
    let text = std::fs::read_to_string(b.session.dir().join("review.jsonl")).unwrap_or_default();
    text.lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn shown_ids(b: &Bench) -> Vec<String> {
    b.app
        .visible_items()
        .iter()
        .filter_map(|i| b.app.o_id(*i))
        .collect()
}

#[test]
fn snapshots_of_the_metamorphic_screen() {
    let mut b = open_with(meta_session);
    // With operations to review, the workbench opens on them.
    assert!(matches!(b.app.screen, Screen::Operations(_)));
    snap(&mut b, "mr_operations_summary");
    press(&mut b, "4");
    assert!(matches!(b.app.screen, Screen::Metamorphic(_)));
    // Sorted by id: create_grows_list (not run) comes first.
    snap(&mut b, "mr_list_not_run");
    press(&mut b, "j");
    snap(&mut b, "mr_relation_violated");
    press(&mut b, "j");
    snap(&mut b, "mr_execution_failed");
    press(&mut b, "j");
    snap(&mut b, "mr_passed_with_duplicate");
    press(&mut b, "J");
    snap(&mut b, "mr_passed_scrolled");
}

#[test]
fn snapshot_of_the_empty_state_and_hidden_header_entry() {
    let mut b = open_with(petstore_session);
    let mut t = Terminal::new(TestBackend::new(120, 40)).unwrap();
    t.draw(|f| f.render_widget(&b.app, f.area())).unwrap();
    let header: String = (0..120)
        .map(|x| t.backend().buffer()[(x, 0)].symbol().to_string())
        .collect();
    // Listed even when empty: the screen says why it is empty.
    assert!(header.contains("4 Metamorphic"), "{header}");
    press(&mut b, "4");
    assert!(matches!(b.app.screen, Screen::Metamorphic(_)));
    assert!(b.app.visible_items().is_empty());
    snap(&mut b, "mr_empty");
    // Review keys do nothing without a test; nothing reaches the journal.
    press(&mut b, "aA");
    assert!(journal(&b).is_empty());
}

#[test]
fn accept_reject_edit_and_invalid_edits_reach_the_journal() {
    let mut b = open_with(meta_session);
    press(&mut b, "4");
    assert_eq!(
        shown_ids(&b),
        [
            "mr#create_grows_list",
            "mr#filter_subset",
            "mr#missing_pet_delete",
            "mr#status_visible"
        ]
    );
    // Accept the first, reject the second with a note (each moves on to the next).
    press(&mut b, "arsold pets leak<enter>");
    // Third: an edit that is not JSON, one without follow-up steps, one that renames
    // the test: each shows its error in place and journals nothing.
    press(&mut b, "ex<C-s>");
    let err = |b: &Bench| match b.app.popups.last() {
        Some(Popup::Editor(mastor::tui::popups::Editor { error: Some(e), .. })) => e.clone(),
        other => panic!("expected the editor with an error, got {other:?}"),
    };
    assert!(err(&b).starts_with("not a metamorphic test"), "{}", err(&b));
    let mut no_follow = missing_pet();
    no_follow["follow_up"] = json!([]);
    set_editor(&mut b, &no_follow);
    press(&mut b, "<C-s>");
    assert!(err(&b).contains("`follow_up`"), "{}", err(&b));
    let mut bad_relation = missing_pet();
    bad_relation["relations"][0]["left"] = json!("sideways[0].status");
    set_editor(&mut b, &bad_relation);
    press(&mut b, "<C-s>");
    assert!(err(&b).starts_with("relation 1:"), "{}", err(&b));
    let mut renamed = missing_pet();
    renamed["test_id"] = json!("renamed");
    set_editor(&mut b, &renamed);
    press(&mut b, "<C-s>");
    assert!(err(&b).contains("test_id changed"), "{}", err(&b));
    // The error is drawn in the editor.
    let mut t = Terminal::new(TestBackend::new(120, 40)).unwrap();
    t.draw(|f| f.render_widget(&b.app, f.area())).unwrap();
    let screen: String = t
        .backend()
        .buffer()
        .content()
        .iter()
        .map(|c| c.symbol())
        .collect();
    assert!(screen.contains("✗ test_id changed"), "{screen}");
    assert_eq!(journal(&b).len(), 2, "invalid edits journal nothing");
    press(&mut b, "<esc>");
    assert!(b.app.popups.is_empty());
    // A valid edit: the scenario (third line of the pretty JSON) gets a suffix.
    press(&mut b, "e<down><down><end><left><left> (edited)<C-s>");
    assert!(b.app.popups.is_empty(), "a valid edit closes the editor");

    let lines = journal(&b);
    let summary: Vec<(&str, &str)> = lines
        .iter()
        .map(|l| {
            (
                l["o_id"].as_str().unwrap_or(""),
                l["decision"].as_str().unwrap_or(""),
            )
        })
        .collect();
    assert_eq!(
        summary,
        [
            ("mr#create_grows_list", "accepted"),
            ("mr#filter_subset", "rejected"),
            ("mr#missing_pet_delete", "edited"),
        ]
    );
    assert_eq!(lines[1]["note"], "sold pets leak");
    assert_eq!(
        lines[2]["edited"]["scenario"],
        "Deleting a pet makes it unreadable (edited)"
    );
    assert_eq!(lines[2]["edited"]["test_id"], "missing_pet_delete");

    // Relaunch: every decision and the edited text are back.
    let (_s, again) = open_session(b.dir.path(), &options(b.dir.path())).unwrap();
    let state = |id: &str| again.view.review_state(id);
    assert_eq!(state("mr#create_grows_list"), ReviewState::Accepted);
    assert_eq!(state("mr#filter_subset"), ReviewState::Rejected);
    assert_eq!(state("mr#missing_pet_delete"), ReviewState::Edited);
    assert_eq!(state("mr#status_visible"), ReviewState::Proposed);
    let edited = again.view.effective_mr(&again.view.metamorphic[2]);
    assert!(edited.scenario.ends_with("(edited)"), "{}", edited.scenario);
}

fn set_editor(b: &mut Bench, v: &Value) {
    let text = serde_json::to_string_pretty(v).unwrap();
    match b.app.popups.last_mut() {
        Some(Popup::Editor(mastor::tui::popups::Editor { textarea, .. })) => {
            **textarea = ratatui_textarea::TextArea::new(text.lines().map(str::to_string).collect())
        }
        other => panic!("expected the editor, got {other:?}"),
    }
}

#[test]
fn filters_undo_and_bulk_accept_work_on_metamorphic_tests() {
    let mut b = open_with(meta_session);
    press(&mut b, "4/subset<enter>");
    assert_eq!(shown_ids(&b), ["mr#filter_subset"]);
    // The whole test is searched: `count_diff` is the relation of one test only.
    press(&mut b, "/<bs><bs><bs><bs><bs><bs>count_diff<enter>");
    assert_eq!(shown_ids(&b), ["mr#create_grows_list"]);
    press(&mut b, "c/status_visible<enter>");
    assert_eq!(shown_ids(&b), ["mr#status_visible"]);
    press(&mut b, "a");
    assert_eq!(
        b.app.view.review_state("mr#status_visible"),
        ReviewState::Accepted
    );
    press(&mut b, "u");
    assert_eq!(
        b.app.view.review_state("mr#status_visible"),
        ReviewState::Proposed
    );
    assert_eq!(journal(&b).len(), 2, "a decision and its undo");
    // Review-state filter then bulk accept of what is shown, after confirming.
    press(&mut b, "c<down>r<enter>v");
    assert_eq!(b.app.filters.state, Some(ReviewState::Proposed));
    assert_eq!(shown_ids(&b).len(), 3);
    press(&mut b, "A<esc>");
    assert_eq!(journal(&b).len(), 3);
    press(&mut b, "A<enter>y");
    let d = b.session.read_decisions().unwrap();
    let accepted: Vec<&str> = d
        .iter()
        .filter(|(_, x)| x.decision == Decision::Accepted)
        .map(|(k, _)| k.as_str())
        .collect();
    assert_eq!(
        accepted,
        [
            "mr#create_grows_list",
            "mr#missing_pet_delete",
            "mr#status_visible"
        ]
    );
    assert_eq!(d["mr#filter_subset"].decision, Decision::Rejected);
}

#[test]
fn external_editor_edits_are_validated_like_inline_ones() {
    let mut b = open_with(meta_session);
    // Last row: status_visible. The editor prefixes its scenario.
    press_with_editor(&mut b, "4GE", &mut |text: &str| {
        Ok(text.replace("\"Updating", "\"Edited: updating"))
    });
    let lines = journal(&b);
    assert_eq!(lines.len(), 1);
    assert_eq!(lines[0]["o_id"], "mr#status_visible");
    assert_eq!(lines[0]["decision"], "edited");
    assert_eq!(
        lines[0]["edited"]["scenario"],
        "Edited: updating a pet's status is visible on read"
    );
    // The list shows the edited scenario.
    let shown = b.app.view.effective_mr(&b.app.view.metamorphic[3]);
    assert!(shown.scenario.starts_with("Edited:"), "{}", shown.scenario);
    // An editor result without relations reopens inline with the error; nothing saved.
    press_with_editor(&mut b, "gE", &mut |text: &str| {
        let mut v: Value = serde_json::from_str(text).map_err(|e| e.to_string())?;
        v["relations"] = json!([]);
        Ok(v.to_string())
    });
    match b.app.popups.last() {
        Some(Popup::Editor(mastor::tui::popups::Editor {
            o_id,
            error: Some(e),
            ..
        })) => {
            assert_eq!(o_id, "mr#create_grows_list");
            assert!(e.contains("`relations`"), "{e}");
        }
        other => panic!("expected the editor with an error, got {other:?}"),
    }
    assert_eq!(journal(&b).len(), 1);
}

/// Writes the petstore review session with metamorphic tests to `$MASTOR_DEMO_DIR` for
/// `scripts/screenshots.sh` (ignored in normal runs) and checks it opens.
#[test]
#[ignore = "used by scripts/screenshots.sh"]
fn write_demo_session() {
    let dir =
        std::path::PathBuf::from(std::env::var_os("MASTOR_DEMO_DIR").expect("set MASTOR_DEMO_DIR"));
    meta_session(&dir);
    let session = Session::open(dir.join(".mastor")).unwrap();
    let view = mastor::tui::loader::load(&session).unwrap();
    assert_eq!(view.metamorphic.len(), 4);
}

#[test]
fn a_session_with_only_metamorphic_tests_opens_on_them() {
    let dir = tempfile::tempdir().unwrap();
    let session = Session::create(
        dir.path(),
        mastor::store::Manifest::new(".", "openapi.json"),
    )
    .unwrap();
    let t: mastor::model::MetamorphicTest = serde_json::from_value(count_grows()).unwrap();
    session
        .write_json(&mastor::metamorphic::store::file_rel(&t.test_id), &t)
        .unwrap();
    let (_s, app) = open_session(dir.path(), &options(dir.path())).unwrap();
    assert!(matches!(app.screen, Screen::Metamorphic(_)));
    assert_eq!(
        app.o_id(app.visible_items()[0]).as_deref(),
        Some("mr#create_grows_list")
    );
}

/// Sets the export dialog's format and destination, then exports; returns the summary.
fn export_as(b: &mut Bench, format: usize, dest: &Path) -> String {
    press(b, "x");
    if let Some(Popup::Export(mastor::tui::popups::Export {
        dest: d, format: f, ..
    })) = b.app.popups.last_mut()
    {
        *f = format;
        *d = mastor::tui::line_edit::LineEdit::new(dest.display().to_string());
    }
    press(b, "<enter>");
    let msg = match b.app.popups.last() {
        Some(Popup::Export(mastor::tui::popups::Export {
            result: Some(Ok(msg)),
            ..
        })) => msg.clone(),
        other => panic!("expected an export result, got {other:?}"),
    };
    press(b, "<esc>");
    msg
}

#[test]
fn accepted_metamorphic_tests_are_exported_from_the_dialog() {
    let mut b = open_with(meta_session);
    press(&mut b, "4a<down>a");
    let accepted: Vec<String> = journal(&b)
        .iter()
        .map(|d| {
            d["o_id"]
                .as_str()
                .unwrap()
                .trim_start_matches("mr#")
                .to_string()
        })
        .collect();
    assert_eq!(accepted.len(), 2, "{accepted:?}");
    let names: Vec<&str> = mastor::tui::export::formats()
        .iter()
        .map(|f| f.name())
        .collect();
    let gherkin = names.iter().position(|n| n.starts_with("gherkin")).unwrap();

    // JSON: the suite file carries exactly the accepted tests.
    let json_dest = b.dir.path().join("out/suite.json");
    let msg = export_as(&mut b, 0, &json_dest);
    assert!(msg.contains("2 metamorphic tests"), "{msg}");
    let suite: Value = serde_json::from_str(&std::fs::read_to_string(&json_dest).unwrap()).unwrap();
    let mut ids: Vec<&str> = suite["metamorphic"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["test_id"].as_str().unwrap())
        .collect();
    ids.sort_unstable();
    assert_eq!(ids, accepted);

    // Gherkin: one scenario per accepted test, none for the others.
    let dir = b.dir.path().join("out/behave");
    let msg = export_as(&mut b, gherkin, &dir);
    assert!(msg.contains("2 tests"), "{msg}");
    let feature = std::fs::read_to_string(dir.join("features/metamorphic.feature")).unwrap();
    for t in [
        "create_grows_list",
        "filter_subset",
        "missing_pet_delete",
        "status_visible",
    ] {
        assert_eq!(
            feature.contains(t),
            accepted.iter().any(|a| a == t),
            "{t} in the feature file:\n{feature}"
        );
    }
}
