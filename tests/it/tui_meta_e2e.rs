//! End to end: a real metamorphic session (`mastor metamorphic` with a scripted model
//! against the live petstore-jdk fixture), opened in the real `mastor tui` in tmux. The
//! Metamorphic screen lists the kept tests with their outcomes; one is accepted, and a
//! relaunch shows it accepted.

use crate::runner_support;
use crate::support;
use crate::tui_common;

use mastor::llm::scripted::{Reply, Rule, Script, ScriptedServer};
use serde_json::json;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};
use tui_common::tmux::Tmux;

fn script() -> Script {
    let batch = json!({"tests": [
        {"test_id": "status_visible", "scenario": "Updating a pet's status is visible on read",
         "given": "a new pet", "when": "its status changes", "then": "a read shows it",
         "seed": [{"op_id": "POST /pets", "input": {"body": {"name": "Tui", "status": "available"}},
                   "captures": {"id": "id"}, "assertions": [{"type": "status", "expected": 201}]}],
         "follow_up": [
            {"op_id": "POST /pets/{petId}/status", "input": {"path": {"petId": "$captures.id"}, "body": {"status": "sold"}}},
            {"op_id": "GET /pets/{petId}", "input": {"path": {"petId": "$captures.id"}}}],
         "relations": [{"left": "follow_up[1].body.status", "op": "equals", "right": "follow_up[0].request.body.status"}]},
        {"test_id": "filter_subset", "scenario": "Filtering by status returns a subset of all pets",
         "seed": [{"op_id": "GET /pets", "input": {"query": {"status": "available"}}}],
         "follow_up": [{"op_id": "GET /pets"}],
         "relations": [{"left": "seed[0].body[*].id", "op": "subset", "right": "follow_up[0].body[*].id"}]}
    ]});
    Script {
        rules: vec![
            Rule {
                agent: Some("mr_generator".into()),
                replies: vec![Reply::json(batch)],
                ..Rule::default()
            },
            Rule {
                agent: Some("mr_refiner".into()),
                replies: vec![Reply::json(json!({"tests": [], "dropped": []}))],
                ..Rule::default()
            },
        ],
        fallback: Vec::new(),
        n_ctx: None,
    }
}

fn launch(home: &Path, session: &Path, name: &str) -> Tmux {
    let cmd = format!(
        "env MASTOR_CONFIG={cfg} TERM=xterm-256color {bin} tui {dir}",
        cfg = home.join("cfg").display(),
        bin = env!("CARGO_BIN_EXE_mastor"),
        dir = session.display()
    );
    Tmux::start(name, &cmd, 120, 40)
}

fn quit(t: Tmux) {
    t.keys(&["q"]);
    let start = Instant::now();
    while t.alive() && start.elapsed() < Duration::from_secs(10) {
        std::thread::sleep(Duration::from_millis(100));
    }
    assert!(!t.alive(), "the workbench did not quit on q");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn accept_a_metamorphic_test_of_a_real_session_in_tmux() {
    if Command::new("tmux").arg("-V").output().is_err() {
        eprintln!("tmux not installed: skipping the terminal end-to-end test");
        return;
    }
    let server = ScriptedServer::start(script()).await.unwrap();
    // Its own fixture API: the session's seed writes to it.
    let fixture = runner_support::private_fixture();
    let dir = tempfile::tempdir().unwrap();
    let session = dir.path().join("session");
    let spec =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/petstore-jdk/openapi.json");
    let args = [
        "metamorphic".to_string(),
        spec.display().to_string(),
        "--base-url".into(),
        fixture.url().to_string(),
        "--out".into(),
        session.display().to_string(),
        "--max-iterations".into(),
        "1".into(),
    ];
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let output =
        tokio::task::block_in_place(|| support::mastor(&server.base_url(), dir.path(), &args));
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(
        session
            .join(mastor::metamorphic::store::file_rel("filter_subset"))
            .is_file()
    );

    let name = format!("mastor-mr-e2e-{}", std::process::id());
    tokio::task::block_in_place(|| {
        // A session without operations opens on its metamorphic tests.
        let t = launch(dir.path(), &session, &name);
        let s = t.wait_for("Metamorphic (2)", 20);
        assert!(s.contains("status_visible"), "{s}");
        assert!(s.contains("from metamorphic_report.json"), "{s}");
        // Sorted by id: filter_subset is selected first.
        t.keys(&["a"]);
        t.wait_for("accepted mr#filter_subset", 20);
        quit(t);

        // Relaunch, go to the operations list and back with the screen's key.
        let t = launch(dir.path(), &session, &format!("{name}-2"));
        t.wait_for("Metamorphic (2)", 20);
        t.keys(&["1"]);
        t.wait_for("Operations (0)", 20);
        t.keys(&["4"]);
        let s = t.wait_for("Metamorphic (2)", 20);
        let row = s
            .lines()
            .find(|l| l.contains("filter_subset") && l.contains("Filtering"))
            .unwrap_or_default();
        assert!(row.contains("✓") && row.contains("accepted"), "{s}");
        let other = s
            .lines()
            .find(|l| l.contains("status_visible") && l.contains("Updating"))
            .unwrap_or_default();
        assert!(other.contains("to review"), "{s}");
        quit(t);
    });
}
