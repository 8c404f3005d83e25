//! Keeps the process's standard error off the screen while the workbench draws.
//!
//! Background work (mutation analysis, regeneration rounds, re-runs) runs library code
//! that may write to standard error, and child processes that inherit it; one such line
//! lands in the middle of the alternate screen and pushes the header off. While the
//! guard lives, file descriptor 2 points at the workbench's log file (or `/dev/null`
//! when there is none), so anything written there ends up in the log. Dropping the
//! guard, and a panic, put the terminal's standard error back first, so a crash report
//! and the messages after the workbench closes are seen.

use std::os::fd::AsRawFd;
use std::path::Path;
use std::sync::atomic::{AtomicI32, Ordering};

/// The terminal's standard error, duplicated while it is redirected (-1: not redirected).
static SAVED: AtomicI32 = AtomicI32::new(-1);

/// Standard error redirected to a file until dropped.
pub struct StderrGuard(());

impl StderrGuard {
    /// Points standard error at `log` (appended; `/dev/null` when it cannot be opened).
    /// `None` when the redirection itself fails (then nothing changed) or one is already
    /// in place.
    pub fn redirect(log: Option<&Path>) -> Option<StderrGuard> {
        let file = log
            .and_then(|p| {
                std::fs::OpenOptions::new()
                    .create(true)
                    .append(true)
                    .open(p)
                    .ok()
            })
            .or_else(|| {
                std::fs::OpenOptions::new()
                    .write(true)
                    .open("/dev/null")
                    .ok()
            })?;
        // SAFETY: dup / dup2 on descriptors this process owns; no memory is shared.
        let saved = unsafe { libc::dup(2) };
        if saved < 0 {
            return None;
        }
        if SAVED
            .compare_exchange(-1, saved, Ordering::SeqCst, Ordering::SeqCst)
            .is_err()
        {
            // SAFETY: `saved` was just duplicated above and is closed once.
            unsafe { libc::close(saved) };
            return None;
        }
        // SAFETY: as above; `file` stays open until dup2 has copied it.
        if unsafe { libc::dup2(file.as_raw_fd(), 2) } < 0 {
            restore();
            return None;
        }
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            restore();
            previous(info);
        }));
        Some(StderrGuard(()))
    }
}

impl Drop for StderrGuard {
    fn drop(&mut self) {
        restore();
    }
}

/// Puts the terminal's standard error back, if it was redirected.
pub fn restore() {
    let saved = SAVED.swap(-1, Ordering::SeqCst);
    if saved >= 0 {
        // SAFETY: `saved` is the descriptor `redirect` duplicated; restored and closed
        // once (the swap makes sure of that).
        unsafe {
            libc::dup2(saved, 2);
            libc::close(saved);
        }
    }
}
