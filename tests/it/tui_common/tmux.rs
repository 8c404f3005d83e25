//! A `mastor` process in a detached tmux session, for end-to-end tests of the real
//! binary in a real terminal. The session is killed on drop.

use std::process::Command;
use std::time::{Duration, Instant};

pub struct Tmux {
    pub name: String,
}

impl Tmux {
    /// Starts `cmd` in a new detached session of `width` x `height`.
    pub fn start(name: &str, cmd: &str, width: u16, height: u16) -> Tmux {
        let (w, h) = (width.to_string(), height.to_string());
        let ok = Command::new("tmux")
            .args(["new-session", "-d", "-x", &w, "-y", &h, "-s", name, cmd])
            .status()
            .expect("tmux runs")
            .success();
        assert!(ok, "tmux new-session failed");
        Tmux { name: name.into() }
    }

    /// Key names (`Enter`, `C-r`, `a`), one after another.
    pub fn keys(&self, keys: &[&str]) {
        for k in keys {
            let ok = Command::new("tmux")
                .args(["send-keys", "-t", &self.name, k])
                .status()
                .expect("tmux send-keys runs")
                .success();
            assert!(ok, "send-keys {k}");
            std::thread::sleep(Duration::from_millis(80));
        }
    }

    /// Literal text (not key names).
    pub fn text(&self, text: &str) {
        Command::new("tmux")
            .args(["send-keys", "-t", &self.name, "-l", text])
            .status()
            .expect("tmux send-keys runs");
        std::thread::sleep(Duration::from_millis(60));
    }

    pub fn screen(&self) -> String {
        let out = Command::new("tmux")
            .args(["capture-pane", "-p", "-t", &self.name])
            .output()
            .expect("tmux capture-pane runs");
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// Waits until `pred` holds on a capture of the pane; returns that capture.
    pub fn wait_until(&self, what: &str, secs: u64, pred: impl Fn(&str) -> bool) -> String {
        let start = Instant::now();
        loop {
            let s = self.screen();
            if pred(&s) {
                return s;
            }
            assert!(
                start.elapsed() < Duration::from_secs(secs),
                "{what} never appeared; screen:\n{s}"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Waits until `needle` is on screen.
    pub fn wait_for(&self, needle: &str, secs: u64) -> String {
        self.wait_until(&format!("`{needle}`"), secs, |s| s.contains(needle))
    }

    pub fn alive(&self) -> bool {
        Command::new("tmux")
            .args(["has-session", "-t", &self.name])
            .output()
            .map(|o| o.status.success())
            .unwrap_or(false)
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = Command::new("tmux")
            .args(["kill-session", "-t", &self.name])
            .output();
    }
}
