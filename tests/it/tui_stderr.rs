//! In a real terminal (tmux): what background work writes to standard error never
//! reaches the workbench's screen; it lands in the log. The trigger is a regeneration
//! from survivors (`ctrl-g` on the Mutants screen) over results without recorded options,
//! whose refusal is written to standard error by the round itself.

use crate::tui_common;

use tui_common::tmux::Tmux;

use std::process::Command;

#[test]
fn background_stderr_goes_to_the_log_not_the_screen() {
    if Command::new("tmux").arg("-V").output().is_err() {
        eprintln!("tmux not installed: skipping the terminal test");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let session = tui_common::petstore_session(dir.path());
    crate::tui_mutants::write_results(session.dir());
    let state = dir.path().join("state");
    let cmd = format!(
        "cd {dir} && env MASTOR_CONFIG={cfg} XDG_STATE_HOME={state} TERM=xterm-256color \
         {bin} tui {session}",
        dir = dir.path().display(),
        cfg = dir.path().join("cfg").display(),
        state = state.display(),
        bin = env!("CARGO_BIN_EXE_mastor"),
        session = session.dir().display()
    );
    let name = format!("mastor-stderr-{}", std::process::id());
    let t = Tmux::start(&name, &cmd, 100, 30);
    let first = t.wait_for("1 Operations", 20);
    let header = first.lines().next().unwrap_or_default().to_string();
    t.keys(&["5"]);
    t.wait_for("Mutants (", 20);
    t.keys(&["C-g"]);
    let log = state.join("mastor/tui.log");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    let mut logged = String::new();
    while std::time::Instant::now() < deadline {
        logged = std::fs::read_to_string(&log).unwrap_or_default();
        if logged.contains("no mutation results") {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(200));
    }
    let s = t.wait_until("the regeneration to end", 30, |s| {
        !s.contains("regenerating") || s.contains("no survivor")
    });
    assert!(
        logged.contains("no mutation results"),
        "the round's message is in the log: {logged:?}\n{s}"
    );
    assert!(
        !s.contains("no mutation results"),
        "standard error reached the screen\n{s}"
    );
    assert_eq!(
        s.lines().next().unwrap_or_default(),
        header,
        "the header stays on the first line\n{s}"
    );
    t.keys(&["q"]);
}
