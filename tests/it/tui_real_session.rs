//! The workbench on a session the real pipeline wrote (`mastor run` against the
//! scripted LLM server on the petstore fixture): everything it shows is read from what
//! the other modules really write, not from a hand-made fixture.

use crate::support;

use mastor::llm::scripted::ScriptedServer;
use mastor::tui::driver::{Options, open_session};
use mastor::tui::view::AgentState;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use support::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_pipeline_session_opens_with_oracles_calls_and_costs() {
    let server = ScriptedServer::start(petstore_script()).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("session");
    let out_s = out.to_str().unwrap().to_string();
    let mut args = vec![
        "run",
        "tests/fixtures/petstore-jdk",
        "--out",
        &out_s,
        "--json",
    ];
    for op in [POST, GET, DELETE] {
        args.extend(["--op", op]);
    }
    let mut cmd = mastor_cmd(&server.base_url(), dir.path(), &args);
    cmd.current_dir(env!("CARGO_MANIFEST_DIR"));
    let output = tokio::task::block_in_place(|| cmd.output().unwrap());
    assert!(
        output.status.success(),
        "mastor run failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );

    // For looking at a real session by hand: MASTOR_KEEP_SESSION=/some/dir.
    if let Some(keep) = std::env::var_os("MASTOR_KEEP_SESSION") {
        let _ = std::process::Command::new("cp")
            .arg("-r")
            .arg(&out)
            .arg(keep)
            .status();
    }
    let opts = Options {
        theme: Some("light".into()),
        keymap: Some(dir.path().join("none.toml")),
        settings: Some(dir.path().join("no-settings.toml")),
        mouse: false,
    };
    let (_session, mut app) = open_session(&out, &opts).unwrap();
    let view = &app.view;
    let get = &view.ops[view.op_index[GET]];
    assert!(get.context.is_some(), "context of {GET} loaded");
    assert!(!get.oracles.is_empty(), "oracles of {GET} loaded");
    assert!(
        !get.bundle.is_empty(),
        "bundle files of {GET} from the scan report"
    );
    assert!(!get.calls.is_empty(), "call records of {GET} attached");
    assert!(
        get.agents
            .values()
            .all(|a| matches!(a.state, AgentState::Done { .. })),
        "{:?}",
        get.agents
    );
    assert!(
        view.sources.contains_key(PET_HANDLER),
        "handler source loaded"
    );
    assert!(!get.replaced.is_empty(), "regeneration before/after loaded");
    assert!(!get.hints.is_empty(), "challenger hints loaded");
    assert!(!view.groups.is_empty(), "groups loaded");
    assert!(
        view.groups.iter().any(|g| !g.agents.is_empty()),
        "group agent events applied"
    );
    let totals = view.totals();
    assert!(totals.tokens_in > 0 && totals.calls > 0, "{totals:?}");
    assert!(view.warnings.is_empty(), "{:?}", view.warnings);

    // Every screen draws from it.
    use mastor::tui::state::{CostsScreen, GroupsScreen, OperationScreen, Screen};
    for screen in [
        Screen::Operations(Default::default()),
        Screen::Operation(OperationScreen::new(view.op_index[GET])),
        Screen::Groups(GroupsScreen::default()),
        Screen::Costs(CostsScreen),
    ] {
        let is_operation = matches!(screen, Screen::Operation(_));
        app.show(screen);
        app.prepare_frame();
        let mut t = Terminal::new(TestBackend::new(120, 40)).unwrap();
        t.draw(|f| f.render_widget(&app, f.area())).unwrap();
        let text = format!("{}", t.backend());
        assert!(text.contains("mastor"), "{text}");
        if is_operation {
            assert!(text.contains("Oracles"), "{text}");
            assert!(text.contains("PetHandler.java"), "{text}");
        }
    }
}
