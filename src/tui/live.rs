//! Live mode: the workbench attached to a run in progress.
//!
//! The run lives elsewhere (a background thread the CLI starts) and reports like any
//! task: its pipeline events and its end come over the executor's stream, tagged with
//! the number of the `TaskKind::Run` task registered for it, and `msg::update` applies
//! them (events through [`SessionView::apply_event`], the same path `events.jsonl` takes
//! on open, so a live screen and a reopened session agree; the end reloads the session
//! from disk, where contexts, suites and groups exist only then). This module holds what
//! is particular to live mode: the queued marks before the first event, and the handle
//! that stops the run when the reviewer quits early ([`Live`]).

use super::executor::Executor;
use super::msg::Msg;
use super::view::SessionView;
use std::time::{Duration, Instant};

/// Agent every selected operation waits for first; live mode shows it queued until its
/// first event arrives.
pub const FIRST_AGENT: &str = crate::agents::Agent::Extraction.name();

/// A way to stop the run in progress.
pub struct Live {
    stop: Box<dyn FnOnce() + Send>,
}

impl Live {
    /// `stop` asks the run to stop; it is called at most once.
    pub fn new(stop: Box<dyn FnOnce() + Send>) -> Live {
        Live { stop }
    }

    /// Stops run task `seq` and waits up to `grace` for its end on `exec`'s stream, so
    /// the files it was writing are complete (completed calls stay cached).
    pub fn stop(self, seq: u64, exec: &mut Executor, grace: Duration) {
        (self.stop)();
        let deadline = Instant::now() + grace;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match exec.next(left) {
                Some(Msg::Done { seq: s, .. }) if s == seq => return,
                Some(_) => {}
                None => return,
            }
        }
    }
}

/// Prepares a freshly opened view for a run about to start: every operation in
/// `selected` without a status for [`FIRST_AGENT`] shows it queued.
pub fn mark_queued(view: &mut SessionView, selected: &[String]) {
    view.mark_queued(selected, FIRST_AGENT);
}
