//! Live mode: the workbench attached to a run in progress.
//!
//! The run lives elsewhere (a background thread the CLI starts); this module only
//! defines what comes over the channel ([`LiveMsg`]), how it changes the state
//! ([`apply`]), and the handle that stops the run when the reviewer quits early
//! ([`Live`]). Events go through [`SessionView::apply_event`], the same path
//! `events.jsonl` takes on open, so a live screen and a reopened session agree. When the
//! run ends the session is reloaded from disk (contexts, suites and groups exist only
//! then); the cursors are kept and the reloaded data wins. Nothing here talks to a
//! model or waits on the run.

use super::loader;
use super::state::{App, LiveState};
use super::store::{Event, Session};
use super::view::SessionView;
use std::sync::mpsc::{Receiver, RecvTimeoutError, TryRecvError};
use std::time::{Duration, Instant};

/// Agent every selected operation waits for first; live mode shows it queued until its
/// first event arrives.
pub const FIRST_AGENT: &str = crate::agents::Agent::Extraction.name();

/// What a running pipeline tells the workbench.
#[derive(Debug, Clone)]
pub enum LiveMsg {
    /// One pipeline event, exactly as written to `events.jsonl`.
    Event(Event),
    /// The run is over: `Err` carries why it stopped early.
    Finished(Result<(), String>),
}

/// A run in progress as the event loop holds it: its messages and a way to stop it.
pub struct Live {
    rx: Receiver<LiveMsg>,
    stop: Option<Box<dyn FnOnce() + Send>>,
    /// The run's finish arrived; a closed channel after it is normal (a re-run may be
    /// what `App::live` now shows).
    finished: bool,
}

impl Live {
    /// `stop` asks the run to stop; it is called at most once.
    pub fn new(rx: Receiver<LiveMsg>, stop: Box<dyn FnOnce() + Send>) -> Live {
        Live {
            rx,
            stop: Some(stop),
            finished: false,
        }
    }

    /// Applies every message waiting (never blocks); returns whether anything changed.
    pub fn drain(&mut self, session: &Session, app: &mut App) -> bool {
        let mut changed = false;
        loop {
            match self.rx.try_recv() {
                Ok(msg) => {
                    self.finished |= matches!(msg, LiveMsg::Finished(_));
                    changed |= apply(session, app, msg);
                }
                Err(TryRecvError::Empty) => return changed,
                Err(TryRecvError::Disconnected) => {
                    if !self.finished && app.live == LiveState::Running {
                        self.finished = true;
                        let msg = LiveMsg::Finished(Err("the run stopped unexpectedly".into()));
                        changed |= apply(session, app, msg);
                    }
                    return changed;
                }
            }
        }
    }

    /// Stops the run if it is still going and waits up to `grace` for it to wind down,
    /// so the files it was writing are complete (completed calls stay cached).
    pub fn stop(&mut self, grace: Duration) {
        if let Some(stop) = self.stop.take() {
            stop();
        }
        let deadline = Instant::now() + grace;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.rx.recv_timeout(left) {
                Ok(LiveMsg::Finished(_)) => return,
                Ok(LiveMsg::Event(_)) => {}
                Err(RecvTimeoutError::Timeout | RecvTimeoutError::Disconnected) => return,
            }
        }
    }
}

/// Prepares a freshly opened view for a run about to start: every operation in
/// `selected` without a status for [`FIRST_AGENT`] shows it queued.
pub fn mark_queued(view: &mut SessionView, selected: &[String]) {
    view.mark_queued(selected, FIRST_AGENT);
}

/// Applies one message to the workbench; returns whether the screen needs a redraw.
pub fn apply(session: &Session, app: &mut App, msg: LiveMsg) -> bool {
    match msg {
        LiveMsg::Event(e) => {
            app.view.apply_event(&e);
            app.refresh_lists();
            true
        }
        LiveMsg::Finished(outcome) => {
            match loader::load(session) {
                Ok(view) => {
                    app.view = view;
                    app.refresh_lists();
                }
                Err(e) => app.error(format!("cannot reload the session after the run: {e}")),
            }
            match outcome {
                Ok(()) => {
                    app.live = LiveState::Finished;
                    app.notify("run finished: session reloaded");
                }
                Err(why) => {
                    app.error(format!("run stopped: {why}"));
                    app.live = LiveState::Failed(why);
                }
            }
            // The quit question is moot once nothing runs.
            app.popups
                .retain(|p| !matches!(p, super::state::Popup::ConfirmQuit(_)));
            true
        }
    }
}
