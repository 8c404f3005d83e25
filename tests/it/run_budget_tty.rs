//! The run budget on a terminal: `mastor run` over `--max-tokens-total` prints the plan
//! and asks before anything is sent. `n` (or just Enter) refuses with exit 4 and nothing
//! sent; `y` sends the run as without a budget. Driven through a real terminal (tmux),
//! since the question is only asked when stdin and stderr are one.

use crate::support::*;
use crate::tui_common::tmux::Tmux;
use mastor::llm::scripted::ScriptedServer;
use std::path::Path;

/// A shell script that runs `mastor run` over its budget as `mastor_cmd` would, then
/// prints its exit code and stays open so the pane can be read.
fn script(dir: &Path, base_url: &str) -> String {
    let cmd = mastor_cmd(base_url, dir, &[]);
    let mut text = String::from("cd '") + env!("CARGO_MANIFEST_DIR") + "'\n";
    for (k, v) in cmd.get_envs() {
        let k = k.to_string_lossy();
        match v {
            Some(v) => text += &format!("export {k}='{}'\n", v.to_string_lossy()),
            None => text += &format!("unset {k}\n"),
        }
    }
    text += &format!(
        "'{}' run tests/fixtures/petstore-jdk --out '{}' --op '{POST}' --op '{GET}' --op '{DELETE}' \
         --no-multi-op --no-discovery --no-challenger --max-tokens-total 1000\n",
        env!("CARGO_BIN_EXE_mastor"),
        dir.join("session").display()
    );
    text += "echo EXIT=$?\nsleep 60\n";
    let path = dir.join("run.sh");
    std::fs::write(&path, text).unwrap();
    format!("sh '{}'", path.display())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_over_its_budget_asks_on_a_terminal_and_sends_only_on_yes() {
    assert!(
        std::process::Command::new("tmux")
            .arg("-V")
            .output()
            .is_ok(),
        "tmux is needed (scripts/setup.sh installs it)"
    );
    let server = ScriptedServer::start(petstore_script()).await.unwrap();
    tokio::task::block_in_place(|| {
        let home = tempfile::tempdir().unwrap();
        let name = format!("mastor-budget-no-{}", std::process::id());
        let t = Tmux::start(&name, &script(home.path(), &server.base_url()), 120, 50);
        let screen = t.wait_for("Send it anyway? [y/N]", 60);
        assert!(screen.contains("over its budget"), "{screen}");
        assert_eq!(
            server.calls(),
            0,
            "nothing is sent while the question waits"
        );
        t.text("n");
        t.keys(&["Enter"]);
        let screen = t.wait_for("EXIT=", 30);
        assert!(screen.contains("EXIT=4"), "{screen}");
        assert!(screen.contains("refused: nothing was sent"), "{screen}");
        assert!(!screen.contains("not interactive"), "{screen}");
        assert_eq!(server.calls(), 0, "a refused run sends nothing");
        assert!(!home.path().join("session/calls").exists());

        let home = tempfile::tempdir().unwrap();
        let name = format!("mastor-budget-yes-{}", std::process::id());
        let t = Tmux::start(&name, &script(home.path(), &server.base_url()), 120, 50);
        t.wait_for("Send it anyway? [y/N]", 60);
        t.text("y");
        t.keys(&["Enter"]);
        let screen = t.wait_for("EXIT=", 120);
        assert!(screen.contains("EXIT=0"), "{screen}");
        // Extraction and generation of three operations, as without a budget.
        assert_eq!(server.calls(), 6);
    });
}
