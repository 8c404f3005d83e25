//! End to end: the real `mastor tui` binary in a real terminal (tmux). Review three
//! oracles (accept, reject with a note, edit; `a` and `r` move on to the next one),
//! quit, relaunch, and see all three.

use crate::tui_common;

use tui_common::tmux::Tmux;

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

fn launch(dir: &Path, name: &str) -> Tmux {
    let cmd = format!(
        "env MASTOR_CONFIG={cfg} TERM=xterm-256color {bin} tui {dir}",
        cfg = dir.join("cfg").display(),
        bin = env!("CARGO_BIN_EXE_mastor"),
        dir = dir.display()
    );
    Tmux::start(name, &cmd, 120, 40)
}

#[test]
fn review_in_tmux_survives_relaunch() {
    if Command::new("tmux").arg("-V").output().is_err() {
        eprintln!("tmux not installed: skipping the terminal end-to-end test");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    tui_common::petstore_session(dir.path());
    let name = format!("mastor-e2e-{}", std::process::id());

    let t = launch(dir.path(), &name);
    t.wait_for("Operations (4)", 20);
    t.keys(&["Enter"]);
    t.wait_for("Oracles (4)", 20);
    // Accept the first oracle.
    t.keys(&["a"]);
    t.wait_for("accepted GET /pets#fv_limit_10", 20);
    // `a` moved on to the second, still to review: reject it with a note.
    t.keys(&["r"]);
    t.wait_for("note:", 20);
    t.text("too strict");
    t.keys(&["Enter"]);
    t.wait_for("rejected GET /pets#bi_limit_0", 20);
    // `r` moved on to the third: append to its description, validate and keep.
    t.keys(&["e"]);
    t.wait_for("^s: validate and keep", 20);
    t.keys(&["Down", "Down", "Down", "End", "Left", "Left"]);
    t.text(" (edited)");
    t.keys(&["C-s"]);
    t.wait_for("edited GET /pets#fi_limit_abc", 20);
    t.keys(&["q"]);
    let start = Instant::now();
    while t.alive() && start.elapsed() < Duration::from_secs(10) {
        std::thread::sleep(Duration::from_millis(100));
    }
    assert!(!t.alive(), "the workbench did not quit on q");
    drop(t);

    let t = launch(dir.path(), &format!("{name}-2"));
    let s = t.wait_for("Operations (4)", 20);
    assert!(s.contains("1 accepted"), "{s}");
    assert!(s.contains("1 edited"), "{s}");
    assert!(s.contains("1 rejected"), "{s}");
    t.keys(&["Enter"]);
    // Waited for by its rows, not the title alone: a capture can land mid-redraw.
    t.wait_for("Oracles (4)", 20);
    let s = t.wait_for("✓ FAIL  FV fv_limit_10", 20);
    assert!(s.contains("✗   -   BI bi_limit_0"), "{s}");
    assert!(
        s.contains("✎   -   FI fi_limit_abc  limit=abc is not a number"),
        "{s}"
    );
    t.keys(&["Down"]);
    let s = t.wait_for("note: too strict", 20);
    assert!(s.contains("rejected"), "{s}");
    t.keys(&["q"]);
}

/// Writes the petstore review session to `$MASTOR_DEMO_DIR` for `scripts/screenshots.sh`
/// (ignored in normal runs) and checks it opens.
#[test]
#[ignore = "used by scripts/screenshots.sh"]
fn write_demo_session() {
    let dir =
        std::path::PathBuf::from(std::env::var_os("MASTOR_DEMO_DIR").expect("set MASTOR_DEMO_DIR"));
    // With a run whose failure kept its request and response, for the failure view.
    crate::tui_curation::with_failures(&dir);
    let session = mastor::store::Session::open(dir.join(".mastor")).unwrap();
    let view = mastor::tui::loader::load(&session).unwrap();
    assert_eq!(view.ops.len(), 4);
}
