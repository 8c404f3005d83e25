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
    assert!(
        b.status().contains("edited context saved"),
        "{}",
        b.status()
    );
    assert!(
        b.status().contains("--refresh-from single_op"),
        "{}",
        b.status()
    );
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
    assert!(
        t.contains("response_schema.success_status: 200 → 206"),
        "{t}"
    );

    // Dropped: the extraction's context again; the journal keeps the edit.
    b.press("u");
    assert!(b.session.read_context_edits().unwrap().is_empty());
    let t = b.text(120, 40);
    assert!(!t.contains("Edited by the reviewer"), "{t}");
    assert!(t.contains("success 200"), "{t}");
    assert!(
        b.status().contains("context edit dropped"),
        "{}",
        b.status()
    );
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

/// From the workbench: with an edit standing, `ctrl-r` from `single_op` regenerates the
/// oracles from it, with no extraction call, and the edit stays.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ctrl_r_from_single_op_regenerates_from_the_edit_in_a_real_terminal() {
    use crate::support::{agent_calls, fixture, mastor, petstore_script};
    use crate::tui_common::tmux::Tmux;
    use mastor::llm::scripted::ScriptedServer;
    const GET_ONE: &str = "GET /pets/{petId}";
    const MARK: &str = "edited in the workbench test";
    if std::process::Command::new("tmux")
        .arg("-V")
        .output()
        .is_err()
    {
        eprintln!("tmux not installed: skipping the terminal re-run test");
        return;
    }
    let server = ScriptedServer::start(petstore_script()).await.unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let (home, out) = (tmp.path().join("home"), tmp.path().join("session"));
    let project = fixture("petstore-jdk");
    let args = [
        "run",
        project.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--op",
        GET_ONE,
    ];
    let run = mastor(&server.base_url(), &home, &args);
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let session = mastor::store::Session::open(&out).unwrap();
    let mut c = session.read_extracted_context(GET_ONE).unwrap().unwrap();
    c.response_schema
        .error_cases
        .push(mastor::model::ErrorCase {
            status: 422,
            condition: MARK.into(),
            ..Default::default()
        });
    session.record_context_edit(&c).unwrap();
    drop(session);
    let (extraction, single) = (
        agent_calls(&server, "extraction"),
        agent_calls(&server, "single_op"),
    );

    let cmd = format!(
        "env -u MASTOR_CONFIG -u MASTOR_CHALLENGER_BASE_URL -u MASTOR_API_KEY \
         HOME={home} XDG_CONFIG_HOME={home}/config XDG_CACHE_HOME={home}/cache \
         XDG_STATE_HOME={home}/state MASTOR_BASE_URL={base_url} MASTOR_MODEL=scripted \
         MASTOR_PROVIDER=custom TERM=xterm-256color {bin} tui {out}; sleep 30",
        home = home.display(),
        base_url = server.base_url(),
        bin = env!("CARGO_BIN_EXE_mastor"),
        out = out.display(),
    );
    let t = Tmux::start(
        &format!("mastor-ctxedit-{}", std::process::id()),
        &cmd,
        140,
        45,
    );
    t.wait_for("Operations", 20);
    let head = format!("│{GET_ONE} ");
    let mut found = false;
    for _ in 0..12 {
        if t.screen().contains(&head) {
            found = true;
            break;
        }
        t.keys(&["Down"]);
        std::thread::sleep(std::time::Duration::from_millis(150));
    }
    assert!(found, "cannot select {GET_ONE}; screen:\n{}", t.screen());
    t.keys(&["Enter", "Left", "Left"]);
    t.wait_for("Edited by the reviewer", 10);
    t.keys(&["C-r"]);
    t.wait_for("Re-run GET /pets/{petId} from:", 10);
    // The plan of the chosen re-run comes first (a confirm before it asks again).
    t.keys(&["Down", "Down"]);
    t.wait_until("the plan from single_op on", 30, |s| {
        s.contains("▶ single_op  ") && s.contains("an upper bound")
    });
    t.keys(&["Enter"]);
    let screen = t.wait_for(
        &format!("re-run of {GET_ONE} from single_op on finished"),
        90,
    );
    assert!(!screen.contains("run failed"), "{screen}");
    t.keys(&["q"]);
    assert_eq!(agent_calls(&server, "extraction"), extraction);
    assert!(agent_calls(&server, "single_op") > single);
    let saw = server
        .requests()
        .iter()
        .filter(|r| r.agent.as_deref() == Some("single_op"))
        .any(|r| r.body.to_string().contains(MARK));
    assert!(saw, "the generator was given the edited context");
    let session = mastor::store::Session::open(&out).unwrap();
    assert_eq!(session.read_context(GET_ONE).unwrap(), Some(c));
}
