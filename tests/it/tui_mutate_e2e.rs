//! End to end: `mutate` started from the real workbench in a real terminal (tmux), on
//! a session imported from the petstore-jdk reference suite. Accept one operation's
//! oracles, ask for a three-mutant run, watch the progress, and find the results on
//! the Mutants screen, the settings remembered in `mutation/tui.json` and the options
//! recorded in `mutation/options.json` for regeneration rounds.

use crate::tui_common;

use tui_common::tmux::Tmux;

use std::process::Command;

#[test]
fn mutate_runs_from_the_workbench_and_its_results_show() {
    if Command::new("tmux").arg("-V").output().is_err() {
        eprintln!("tmux not installed: skipping the terminal end-to-end test");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let session = dir.path().join("s");
    let project = tui_common::petstore_root();
    let out = Command::new(env!("CARGO_BIN_EXE_mastor"))
        .args(["import", "suites/reference.json", "--out"])
        .arg(&session)
        .current_dir(&project)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // The imported session records no project: the workbench (run from the project)
    // shows its sources and mutates it.
    let cmd = format!(
        "cd {project} && env MASTOR_CONFIG={cfg} TERM=xterm-256color {bin} tui {session}",
        project = project.display(),
        cfg = dir.path().join("cfg").display(),
        bin = env!("CARGO_BIN_EXE_mastor"),
        session = session.display()
    );
    let name = format!("mastor-mutate-e2e-{}", std::process::id());
    let t = Tmux::start(&name, &cmd, 120, 40);
    t.wait_for("1 Operations", 20);
    // Accept every oracle of the first operation (asks first).
    t.keys(&["Enter"]);
    t.wait_for("Oracles (", 20);
    t.keys(&["A"]);
    t.wait_for("note:", 20);
    t.keys(&["Enter"]);
    t.wait_for("y / enter", 20);
    t.keys(&["y"]);
    t.wait_until("the bulk accept", 30, |s| s.contains("✓"));
    // Ask for a run: default commands, at most three mutants.
    t.keys(&["C-k"]);
    t.wait_for("max mutants: 20", 20);
    t.keys(&["Tab", "Tab", "BSpace", "BSpace"]);
    t.text("3");
    t.keys(&["Enter"]);
    let s = t.wait_until("the run to end", 240, |s| {
        s.contains("mutate: score") || s.contains("mutate failed")
    });
    assert!(s.contains("mutate: score"), "{s}");
    assert!(
        !s.contains("every oracle ran"),
        "only the accepted oracles ran\n{s}"
    );
    assert!(s.contains("mutation "), "the header shows the score\n{s}");
    t.keys(&["5"]);
    let s = t.wait_for("Mutants (3/3)", 20);
    assert!(s.contains("(diff)"), "{s}");
    t.keys(&["q"]);
    let settings = std::fs::read_to_string(session.join("mutation/tui.json")).unwrap();
    let v: serde_json::Value = serde_json::from_str(&settings).unwrap();
    assert_eq!(v["max_mutants"], 3, "{settings}");
    // The options are recorded as `mastor mutate` records them, so `g` / `G` (a
    // regeneration round) can re-run the mutants instead of refusing.
    let recorded = mastor::mutate::analysis::Settings::read(&session.join("mutation")).unwrap();
    assert_eq!(
        recorded.expect("mutation/options.json").max_mutants,
        Some(3)
    );
    let matrix = std::fs::read_to_string(session.join("mutation/matrix.json")).unwrap();
    assert!(matrix.contains("\"mutants\""), "{matrix}");
}
