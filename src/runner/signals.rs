//! Stopping what mastor started when mastor itself is stopped.
//!
//! SIGINT (Ctrl-C), SIGTERM and SIGHUP (the terminal closed) end mastor; without a
//! handler every server and build it started in a process group of its own would be
//! orphaned and keep its port. [`stop_groups_on_signals`] installs, once per process, a
//! thread that waits for those signals and then stops every group in the registry of
//! `runner::shell` (TERM, a short grace, KILL), runs the caller's last words and exits
//! with 128 + the signal's number. Work that must survive (finished mutant runs) is
//! written as it completes, so nothing else needs to happen before the exit.
//!
//! Limits: SIGKILL cannot be caught (mutation analysis keeps a pid file per server so
//! the next run stops what a killed run left); a process that calls `setsid` has left
//! our group and is not ours to stop.

use super::shell;
use std::sync::Once;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

static INSTALLED: Once = Once::new();
static STOPPING: AtomicBool = AtomicBool::new(false);

/// True once a stop signal arrived: new process groups are killed as they register.
pub fn stopping() -> bool {
    STOPPING.load(Ordering::SeqCst)
}

/// Blocks for good once a stop signal arrived (the handler is about to exit the
/// process with the signal's code): the caller must not report or store the results of
/// a run whose servers were just killed.
pub fn park_if_stopping() {
    while stopping() {
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// Installs the handler (the first call wins; later calls do nothing). `last_words`
/// runs after the groups are stopped and before the exit (restore the terminal, say
/// what was kept). `Err` when the signals cannot be watched.
pub fn stop_groups_on_signals(last_words: fn(&str)) -> Result<(), String> {
    let mut result = Ok(());
    INSTALLED.call_once(|| result = install(last_words));
    result
}

fn install(last_words: fn(&str)) -> Result<(), String> {
    use tokio::signal::unix::{SignalKind, signal};
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("cannot watch signals: {e}"))?;
    let streams = {
        let _enter = rt.enter();
        let watch = |k: SignalKind| signal(k).map_err(|e| format!("cannot watch signals: {e}"));
        (
            watch(SignalKind::interrupt())?,
            watch(SignalKind::terminate())?,
            watch(SignalKind::hangup())?,
        )
    };
    std::thread::Builder::new()
        .name("mastor-signals".into())
        .spawn(move || {
            let (mut int, mut term, mut hup) = streams;
            let (name, number) = rt.block_on(async {
                tokio::select! {
                    _ = int.recv() => ("SIGINT", libc::SIGINT),
                    _ = term.recv() => ("SIGTERM", libc::SIGTERM),
                    _ = hup.recv() => ("SIGHUP", libc::SIGHUP),
                }
            });
            STOPPING.store(true, Ordering::SeqCst);
            let n = shell::kill_all(libc::SIGTERM);
            if n > 0 {
                std::thread::sleep(Duration::from_millis(500));
            }
            shell::kill_all(libc::SIGKILL);
            last_words(&format!(
                "stopped by {name}: {n} process group(s) mastor started were stopped \
                 (processes that left their group with setsid are not ours to stop)"
            ));
            std::process::exit(128 + number);
        })
        .map_err(|e| format!("cannot watch signals: {e}"))?;
    Ok(())
}
