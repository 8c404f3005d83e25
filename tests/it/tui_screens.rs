//! Workbench tests in process: every screen and tab as an insta snapshot at 120x40 and
//! 80x24, and key sequences in → state and review journal out.

use crate::tui_common;

use mastor::model::{Decision, ReviewState, SuiteFile};
use mastor::store::Session;
use mastor::tui::driver::{Options, open_session};
use mastor::tui::msg::settle;
use mastor::tui::state::{App, Screen, Tab};
use mastor::tui::update::handle_key;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::crossterm::event::KeyModifiers;
use tui_common::bench::{key, tokens};
use tui_common::{petstore_session, t0};

struct Bench {
    _dir: tempfile::TempDir,
    session: Session,
    app: App,
}

fn options(dir: &std::path::Path) -> Options {
    Options {
        theme: Some("dark".into()),
        // A keymap path that does not exist: the built-in keymap, whatever the user has.
        keymap: Some(dir.join("no-keymap.toml")),
        settings: Some(dir.join("no-settings.toml")),
        mouse: false,
    }
}

fn open() -> Bench {
    let dir = tempfile::tempdir().unwrap();
    petstore_session(dir.path());
    let (session, mut app) = open_session(dir.path(), &options(dir.path())).unwrap();
    app.now = t0() + chrono::Duration::seconds(125);
    Bench {
        _dir: dir,
        session,
        app,
    }
}

/// Presses keys: `<name>` tokens are special keys, other characters are typed.
fn press(b: &mut Bench, keys: &str) {
    for t in tokens(keys) {
        for e in handle_key(&mut b.app, key(&t)) {
            settle(&b.session, &mut b.app, e, &mut |text: &str| {
                Ok(text.replace("limit=10 lists", "limit=10 returns"))
            });
        }
    }
}

fn render(app: &mut App, w: u16, h: u16) -> Terminal<TestBackend> {
    app.prepare_frame();
    let mut terminal = Terminal::new(TestBackend::new(w, h)).unwrap();
    terminal.draw(|f| f.render_widget(&*app, f.area())).unwrap();
    terminal
}

fn snap(b: &mut Bench, name: &str) {
    let mut settings = insta::Settings::clone_current();
    settings.add_filter(r"/tmp/\.tmp[A-Za-z0-9]+", "[TMP]");
    settings.bind(|| {
        for (w, h) in [(120, 40), (80, 24)] {
            let t = render(&mut b.app, w, h);
            insta::assert_snapshot!(format!("{name}_{w}x{h}"), t.backend());
        }
    });
}

#[test]
fn snapshots_of_every_screen_and_tab() {
    let mut b = open();
    snap(&mut b, "operations");
    press(&mut b, "j");
    snap(&mut b, "operations_failed_agent");
    press(&mut b, "j");
    snap(&mut b, "operations_running_agent");
    press(&mut b, "G");
    snap(&mut b, "operations_unmatched_op");
    press(&mut b, "g<enter>");
    assert!(matches!(b.app.screen, Screen::Operation(_)));
    for tab in Tab::ALL {
        b.app.operation_mut().unwrap().tab = tab;
        b.app.refresh_items();
        snap(
            &mut b,
            &format!("operation_{}", format!("{tab:?}").to_lowercase()),
        );
    }
    b.app.operation_mut().unwrap().tab = Tab::Calls;
    press(&mut b, "j");
    snap(&mut b, "operation_calls_retried");
    b.app.operation_mut().unwrap().tab = Tab::Oracles;
    press(&mut b, "no");
    snap(&mut b, "oracle_second_ref_whole_file");
    press(&mut b, "2");
    snap(&mut b, "groups");
    press(&mut b, "<enter>");
    snap(&mut b, "group");
    press(&mut b, "3");
    snap(&mut b, "costs");
    press(&mut b, "?");
    snap(&mut b, "help");
}

#[test]
fn snapshots_of_popups() {
    let mut b = open();
    press(&mut b, "<enter>r");
    snap(&mut b, "popup_reject_note");
    press(&mut b, "<esc>e");
    snap(&mut b, "popup_editor");
    press(&mut b, "<esc>1A<enter>");
    snap(&mut b, "popup_bulk_confirm");
    press(&mut b, "nx");
    snap(&mut b, "popup_export");
    press(&mut b, "<esc>1<enter><C-r><down><down>");
    snap(&mut b, "popup_rerun");
}

#[test]
fn accept_reject_with_note_edit_and_undo_reach_the_journal() {
    let mut b = open();
    // GET /pets → Oracles tab: accept the first, reject the second with a note (each
    // moves on to the next oracle to review).
    press(&mut b, "<enter>arflaky bound<enter>");
    // Edit the third in place: break it first (error shown, nothing saved) then fix it.
    press(&mut b, "e");
    press(&mut b, "x<C-s>");
    match b.app.popups.last() {
        Some(mastor::tui::state::Popup::Editor(mastor::tui::popups::Editor {
            error: Some(e),
            ..
        })) => {
            assert!(e.contains("not an oracle"), "{e}")
        }
        other => panic!("expected the editor with an error, got {other:?}"),
    }
    press(&mut b, "<bs><C-s>");
    assert!(b.app.popups.is_empty(), "valid JSON closes the editor");
    let d = b.session.read_decisions().unwrap();
    assert_eq!(d["GET /pets#fv_limit_10"].decision, Decision::Accepted);
    assert_eq!(d["GET /pets#bi_limit_0"].decision, Decision::Rejected);
    assert_eq!(
        d["GET /pets#bi_limit_0"].note.as_deref(),
        Some("flaky bound")
    );
    assert_eq!(d["GET /pets#fi_limit_abc"].decision, Decision::Edited);
    assert!(d["GET /pets#fi_limit_abc"].edited.is_some());
    // Undo walks back the latest decision (the edit).
    press(&mut b, "u");
    let d = b.session.read_decisions().unwrap();
    assert!(!d.contains_key("GET /pets#fi_limit_abc"));
    assert_eq!(
        b.app.view.review_state("GET /pets#fi_limit_abc"),
        ReviewState::Proposed
    );
    // Reopening shows every decision that is still standing.
    let dir = b.session.dir().parent().unwrap().to_path_buf();
    let (_s, app2) = open_session(&dir, &options(&dir)).unwrap();
    assert_eq!(
        app2.view.review_state("GET /pets#fv_limit_10"),
        ReviewState::Accepted
    );
    assert_eq!(
        app2.view.review_state("GET /pets#bi_limit_0"),
        ReviewState::Rejected
    );
    assert_eq!(
        app2.view.review_state("GET /pets#fi_limit_abc"),
        ReviewState::Proposed
    );
}

#[test]
fn external_edit_is_validated_and_kept() {
    let mut b = open();
    press(&mut b, "<enter>E");
    let d = b.session.read_decisions().unwrap();
    let edited = d["GET /pets#fv_limit_10"].edited.clone().unwrap();
    assert_eq!(edited["description"], "limit=10 returns at most 10 pets");
    let shown = b.app.view.effective_oracle(&b.app.view.ops[0].oracles[0]);
    assert_eq!(shown.description, "limit=10 returns at most 10 pets");
}

#[test]
fn bulk_accept_applies_to_the_filtered_list_after_confirm() {
    let mut b = open();
    // Filter to GET operations, then bulk-accept, decline once, then confirm.
    press(&mut b, "m");
    assert_eq!(b.app.filters.method.as_deref(), Some("DELETE"));
    press(&mut b, "m");
    assert_eq!(b.app.filters.method.as_deref(), Some("GET"));
    press(&mut b, "A<enter>n");
    assert!(b.session.read_decisions().unwrap().is_empty());
    press(&mut b, "A<enter>y");
    let d = b.session.read_decisions().unwrap();
    // GET /pets has 4 oracles and GET /pets/{id} has 1; POST /pets is filtered out.
    assert_eq!(d.len(), 5);
    assert!(d.values().all(|x| x.decision == Decision::Accepted));
    assert!(!d.contains_key("POST /pets#fv_create"));
}

#[test]
fn text_filter_sort_and_state_filter_shape_the_list() {
    let mut b = open();
    press(&mut b, "/{id}<enter>");
    let shown: Vec<&str> = b
        .app
        .visible_ops
        .iter()
        .map(|&i| b.app.view.ops[i].op_id.as_str())
        .collect();
    assert_eq!(shown, ["GET /pets/{id}", "DELETE /pets/{id}"]);
    press(&mut b, "s");
    let shown: Vec<&str> = b
        .app
        .visible_ops
        .iter()
        .map(|&i| b.app.view.ops[i].op_id.as_str())
        .collect();
    assert_eq!(shown, ["DELETE /pets/{id}", "GET /pets/{id}"]);
    press(&mut b, "c");
    assert_eq!(b.app.visible_ops.len(), 4);
    press(&mut b, "t");
    press(&mut b, "t");
    let failed: Vec<&str> = b
        .app
        .visible_ops
        .iter()
        .map(|&i| b.app.view.ops[i].op_id.as_str())
        .collect();
    assert_eq!(failed, ["POST /pets"]);
}

#[test]
fn export_writes_accepted_and_edited_oracles_only() {
    let mut b = open();
    // `a` and `r` move on: accept the first, reject the second, edit the third.
    press(&mut b, "<enter>ar<enter>E");
    let dest = b.session.dir().join("out.json");
    press(&mut b, "x");
    if let Some(mastor::tui::state::Popup::Export(mastor::tui::popups::Export {
        dest: d, ..
    })) = b.app.popups.last_mut()
    {
        *d = mastor::tui::line_edit::LineEdit::new(dest.display().to_string());
    }
    press(&mut b, "<enter>");
    let suite: SuiteFile = serde_json::from_slice(&std::fs::read(&dest).unwrap()).unwrap();
    let ids: Vec<&str> = suite.oracles.iter().map(|o| o.test_id.as_str()).collect();
    assert_eq!(ids, ["fv_limit_10", "fi_limit_abc"]);
    assert_eq!(suite.review["GET /pets#fi_limit_abc"], ReviewState::Edited);
    match b.app.popups.last() {
        Some(mastor::tui::state::Popup::Export(mastor::tui::popups::Export {
            result: Some(Ok(msg)),
            ..
        })) => {
            assert!(msg.contains("wrote 2 oracles"), "{msg}")
        }
        other => panic!("expected an export result, got {other:?}"),
    }
}

#[test]
fn events_drive_agent_status() {
    let b = open();
    use mastor::tui::view::AgentState;
    let post = &b.app.view.ops[b.app.view.op_index["POST /pets"]];
    let gen_status = &post.agents["oracle_generation"];
    assert_eq!(gen_status.retries, 2);
    assert!(
        matches!(&gen_status.state, AgentState::Failed { reason } if reason == "timeout after 3 attempts")
    );
    let one = &b.app.view.ops[b.app.view.op_index["GET /pets/{id}"]];
    assert!(matches!(
        one.agents["source_extraction"].state,
        AgentState::Running { .. }
    ));
    // Group tasks report as `group:<id>` and land on the group, not on an operation.
    let group = &b.app.view.groups[0];
    assert!(matches!(
        group.agents["multi_op"].state,
        AgentState::Done { .. }
    ));
    // Verdicts from verdicts/latest.json.
    assert_eq!(b.app.total_counts.pass, 1);
    assert_eq!(b.app.total_counts.fail, 1);
    let totals = b.app.view.totals();
    assert_eq!(totals.tokens_in, 2000 + 1800 + 900 + 1500 + 700);
}

#[test]
fn bundle_search_jumps_between_matching_files() {
    let mut b = open();
    // GET /pets bundle: PetHandler, PetRequest, Http. Only PetRequest declares parseStatus.
    press(&mut b, "<enter>");
    b.app.operation_mut().unwrap().tab = Tab::Bundle;
    press(&mut b, "/static string parsestatus<enter>");
    assert_eq!(b.app.operation().unwrap().bundle_cursor, 0);
    press(&mut b, "n");
    let bundle = b.app.view.ops[b.app.current_op().unwrap()].bundle.clone();
    assert_eq!(
        bundle[b.app.operation().unwrap().bundle_cursor],
        tui_common::PET_REQUEST
    );
    let target = b.app.source_target().unwrap();
    let line = &b.app.view.sources[tui_common::PET_REQUEST].lines[target.start_line - 1];
    assert!(line.contains("static String parseStatus"), "{line}");
    // The next match wraps around to the same (only) file.
    press(&mut b, "n");
    assert_eq!(bundle.len(), 3);
    assert_eq!(b.app.operation().unwrap().bundle_cursor, 1);
}

#[test]
fn mouse_wheel_moves_the_selection() {
    use ratatui::crossterm::event::{MouseEvent, MouseEventKind};
    let mut b = open();
    let wheel = |kind| MouseEvent {
        kind,
        column: 10,
        row: 10,
        modifiers: KeyModifiers::NONE,
    };
    mastor::tui::update::handle_mouse(&mut b.app, wheel(MouseEventKind::ScrollDown));
    mastor::tui::update::handle_mouse(&mut b.app, wheel(MouseEventKind::ScrollDown));
    assert_eq!(b.app.ops_cursor(), 2);
    mastor::tui::update::handle_mouse(&mut b.app, wheel(MouseEventKind::ScrollUp));
    assert_eq!(b.app.ops_cursor(), 1);
}

#[test]
fn export_dialog_offers_the_export_module_formats() {
    let mut b = open();
    press(&mut b, "<enter>a<down>a");
    let out = b.session.dir().join("junit-out");
    press(&mut b, "x<tab>");
    if let Some(mastor::tui::state::Popup::Export(mastor::tui::popups::Export {
        dest: d,
        format,
        ..
    })) = b.app.popups.last_mut()
    {
        assert_eq!(*format, 1, "tab moves to the next format");
        *d = mastor::tui::line_edit::LineEdit::new(out.display().to_string());
    }
    press(&mut b, "<enter>");
    match b.app.popups.last() {
        Some(mastor::tui::state::Popup::Export(mastor::tui::popups::Export {
            result: Some(Ok(msg)),
            ..
        })) => {
            assert!(msg.contains("2 tests"), "{msg}")
        }
        other => panic!("expected an export result, got {other:?}"),
    }
    let java: Vec<_> = walk(&out)
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == "java"))
        .collect();
    assert!(
        !java.is_empty(),
        "JUnit sources written under {}",
        out.display()
    );
}

fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else {
            out.push(p);
        }
    }
    out
}

/// Oracles normalization set aside (a status or field the context lacks) are listed as
/// `dropped` with the reason, stay out of bulk actions and of the suite, and join the
/// suite once the reviewer accepts one.
#[test]
fn set_aside_oracles_are_listed_as_dropped_and_restored_by_accepting() {
    let dir = tempfile::tempdir().unwrap();
    let session = petstore_session(dir.path());
    let mut rec = session.read_suite("GET /pets").unwrap().unwrap();
    let raw = serde_json::json!([{"test_id": "fi_teapot", "oracle_strategy": "fi",
        "input": {"query": {"limit": "x"}},
        "assertions": [{"type": "status", "expected": 418}]}]);
    let context = session.read_context("GET /pets").unwrap().unwrap();
    let outcome = mastor::agents::normalize::normalize_single(
        "GET /pets",
        &raw,
        Some(&context),
        &Default::default(),
    );
    assert_eq!(outcome.set_aside.len(), 1, "{:?}", outcome.dropped);
    rec.normalization.push(outcome.report());
    rec.add_set_aside(outcome.set_aside);
    session.write_suite(&rec).unwrap();
    let o_id = "GET /pets#fi_teapot";
    let in_suite = |s: &Session| {
        mastor::suite::session::read(s)
            .unwrap()
            .suite
            .oracles
            .iter()
            .any(|o| o.o_id() == o_id)
    };
    assert!(!in_suite(&session), "set aside: not part of the suite");

    let (session, mut app) = open_session(dir.path(), &options(dir.path())).unwrap();
    app.now = t0();
    let mut b = Bench {
        _dir: dir,
        session,
        app,
    };
    assert_eq!(b.app.view.review_state(o_id), ReviewState::Dropped);
    assert!(b.app.view.set_aside[o_id].contains("status 418"));
    // Bulk accept on the operations screen leaves it alone.
    press(&mut b, "A<enter>y");
    assert!(!b.session.read_decisions().unwrap().contains_key(o_id));
    press(&mut b, "u");
    // The state filter reaches `dropped`: only the set-aside oracle is listed.
    press(&mut b, "<enter>");
    while b.app.filters.state != Some(ReviewState::Dropped) {
        press(&mut b, "v");
    }
    assert_eq!(b.app.visible_items().len(), 1);
    let t = render(&mut b.app, 120, 40);
    let screen = format!("{:?}", t.backend());
    assert!(screen.contains("set aside by normalization"), "{screen}");
    assert!(screen.contains("418"), "{screen}");
    press(&mut b, "a");
    assert_eq!(b.app.view.review_state(o_id), ReviewState::Accepted);
    assert!(in_suite(&b.session), "accepted: restored into the suite");
    // Undo returns it to the set-aside pile.
    press(&mut b, "u");
    assert_eq!(b.app.view.review_state(o_id), ReviewState::Dropped);
    assert!(!in_suite(&b.session));
}

/// The dialog and `mastor export` read the session the same way: after a review in the
/// workbench, both write the same JSON suite and the same readable Markdown.
#[test]
fn workbench_and_command_exports_are_identical() {
    let mut b = open();
    press(&mut b, "<enter>a<down>r<enter><down>E<down>a");
    let tui_dir = b.session.dir().join("from-tui");
    let formats = mastor::tui::export::formats();
    let by_name = |n: &str| formats.iter().find(|f| f.name().starts_with(n)).unwrap();
    by_name("json")
        .export(&b.app.view, &tui_dir.join("suite.json"))
        .unwrap();
    by_name("readable").export(&b.app.view, &tui_dir).unwrap();
    let cli_dir = b.session.dir().join("from-cli");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_mastor"))
        .args([
            "export",
            b.session.dir().to_str().unwrap(),
            "--format",
            "json,readable",
            "--out",
        ])
        .arg(&cli_dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut compared = 0;
    for entry in std::fs::read_dir(&cli_dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        if name.starts_with('.') || path.is_dir() {
            continue;
        }
        let tui = std::fs::read(tui_dir.join(&name))
            .unwrap_or_else(|e| panic!("the workbench did not write {name}: {e}"));
        assert_eq!(
            String::from_utf8_lossy(&tui),
            String::from_utf8_lossy(&std::fs::read(&path).unwrap()),
            "{name} differs"
        );
        compared += 1;
    }
    assert!(
        compared >= 2,
        "suite.json and the Markdown file compared, got {compared}"
    );
}

/// An edited oracle that no longer parses is reported on open, as `check` and `export`
/// report it, and the original is shown.
#[test]
fn an_unusable_edit_is_reported_not_dropped() {
    let dir = tempfile::tempdir().unwrap();
    let session = petstore_session(dir.path());
    session
        .append_decision(&mastor::model::ReviewDecision {
            o_id: "GET /pets#fv_limit_10".into(),
            decision: Decision::Edited,
            edited: Some(serde_json::json!({"test_id": "fv_limit_10", "assertions": "nope"})),
            note: None,
            at: t0().to_rfc3339(),
            step: None,
        })
        .unwrap();
    let (_session, app) = open_session(dir.path(), &options(dir.path())).unwrap();
    let warned = app
        .view
        .warnings
        .iter()
        .any(|w| w.contains("GET /pets#fv_limit_10") && w.contains("does not parse"));
    assert!(warned, "{:?}", app.view.warnings);
}
