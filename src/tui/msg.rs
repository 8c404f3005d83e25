//! The workbench's one message stream and its one entry point, [`update`].
//!
//! Everything the workbench reacts to is a [`Msg`]: a key or a mouse event, an event,
//! progress or the end of a background task (from the executor), and the outcome of an
//! effect the driver performed (a journal write, an export, the editor). `update`
//! applies it to the state and returns the effects it asks for; [`carry_out`] performs
//! an effect (or hands a task to the executor) and feeds its outcome back into
//! `update`. No other code applies outcomes: the functions that do it stay in their
//! topical files (`review`, `judge`, `undo`, `context_edit`) and are called from here.

use super::executor::Executor;
use super::state::{App, LiveState, Popup};
use super::store::{
    ContextEdit, Event, HandlerChoice, Judgement, JudgementUndo, RedoStep, Session, UndoStep,
};
use super::tasks::{Task, TaskKind};
use super::update::{self, Effect};
use super::view::SessionView;
use crate::model::ReviewDecision;
use ratatui::crossterm::event::{KeyEvent, MouseEvent};

/// Everything the workbench reacts to.
#[derive(Debug)]
pub enum Msg {
    Key(KeyEvent),
    Mouse(MouseEvent),
    /// The terminal changed size (the next frame fits itself).
    Resize,
    /// A pipeline event of task `seq` (a live run or a re-run), as `events.jsonl` has it.
    Event {
        seq: u64,
        event: Event,
    },
    /// Task `seq` is `done` of `total` steps in.
    Progress {
        seq: u64,
        done: usize,
        total: usize,
    },
    /// Task `seq` ended: a one-line summary (maybe empty), or why it failed.
    Done {
        seq: u64,
        outcome: Result<String, String>,
    },
    /// An effect's write went through.
    Saved(Saved),
    /// The session was read again after `after` (an effect or a task changed it);
    /// `note` goes to the status line once it is on screen (`Ok("")`: nothing).
    Reloaded {
        after: String,
        view: Result<Box<SessionView>, String>,
        note: Result<String, String>,
    },
    /// A line for the status line.
    Said(String),
    /// An error for the status line.
    Failed(String),
}

/// What an effect wrote, for `update` to show.
#[derive(Debug)]
pub enum Saved {
    Decision(ReviewDecision),
    Decisions(Vec<ReviewDecision>),
    /// A chunk of a bulk decision could not be written: the bulk stops.
    DecisionsFailed(String),
    Undone(UndoStep),
    Redone(RedoStep),
    Judgement(Judgement),
    /// A bulk judgement: those saved, and the error that stopped it part-way.
    Judgements {
        saved: Vec<Judgement>,
        error: Option<String>,
    },
    JudgementUndo(JudgementUndo),
    Exported(Result<String, String>),
    /// The editor returned this text for `o_id`.
    Edited {
        o_id: String,
        multi: bool,
        text: String,
    },
    ContextEdit(ContextEdit),
    Handler {
        op_id: String,
        choice: HandlerChoice,
    },
}

/// Applies one message; returns the effects it asks for.
pub fn update(app: &mut App, msg: Msg) -> Vec<Effect> {
    match msg {
        Msg::Key(k) => return update::handle_key(app, k),
        Msg::Mouse(m) => return update::handle_mouse(app, m),
        Msg::Resize => {}
        Msg::Event { seq, event } => {
            if app.tasks.by_seq(seq).is_some() {
                app.view.apply_event(&event);
                app.refresh_lists();
            } else {
                tracing::debug!(seq, "stale pipeline event ignored");
            }
        }
        Msg::Progress { seq, done, total } => match app.tasks.progress(seq, done, total) {
            Some(task) => {
                let task = task.clone();
                progressed(app, &task, done, total);
            }
            None => tracing::debug!(seq, "stale progress ignored"),
        },
        Msg::Done { seq, outcome } => match app.tasks.finish(seq) {
            Some(task) => return finished(app, task, outcome),
            None => tracing::debug!(seq, ?outcome, "stale task end ignored"),
        },
        Msg::Saved(s) => return saved(app, s),
        Msg::Reloaded { after, view, note } => match view {
            Ok(view) => {
                app.view = *view;
                app.refresh_lists();
                match note {
                    Ok(n) if n.is_empty() => {}
                    Ok(n) => app.notify(n),
                    Err(e) => app.error(e),
                }
            }
            Err(e) => app.error(format!("cannot reload the session after {after}: {e}")),
        },
        Msg::Said(text) => app.notify(text),
        Msg::Failed(text) => app.error(text),
    }
    Vec::new()
}

/// What the status line says while task `task` goes. A task kind that reports
/// progress adds its arm here.
fn progressed(app: &mut App, task: &Task, done: usize, total: usize) {
    match task.kind {
        TaskKind::Oracles | TaskKind::Triage => {
            let url = app.jobs.last_api_url.clone().unwrap_or_default();
            app.notify(format!("running oracles against {url}: {done} of {total}…"));
        }
        TaskKind::Mutate => app.notify(format!("mutate: {done}/{total} mutants done")),
        TaskKind::Run | TaskKind::Rerun | TaskKind::Survivors | TaskKind::Plan => {}
    }
}

/// Task `task` ended with `outcome`: what that changes, and the session read again
/// (background work writes to it). A new task kind adds its arm here.
fn finished(app: &mut App, task: Task, outcome: Result<String, String>) -> Vec<Effect> {
    let (after, note) = match task.kind {
        TaskKind::Plan => {
            // A plan changes nothing on disk: the dialog shows it, no reload.
            super::rerun_plan::show(app, outcome);
            return Vec::new();
        }
        TaskKind::Run | TaskKind::Rerun => {
            app.run_end = match &outcome {
                Ok(_) => LiveState::Finished,
                Err(why) => LiveState::Failed(why.clone()),
            };
            // The quit question is moot once nothing runs.
            app.popups.retain(|p| !matches!(p, Popup::ConfirmQuit(_)));
            let note = match (task.kind, outcome) {
                (TaskKind::Run, Ok(_)) => Ok("run finished: session reloaded".to_string()),
                (TaskKind::Run, Err(why)) => Err(format!("run stopped: {why}")),
                (_, Ok(_)) => Ok(format!("{} finished: session reloaded", task.label)),
                (_, Err(why)) => Err(format!("{} failed: {why}", task.label)),
            };
            ("the run", note)
        }
        TaskKind::Oracles => (
            "the oracle run",
            outcome.map_err(|why| format!("oracle run failed: {why}")),
        ),
        TaskKind::Triage => {
            // Triage starts on the failures, each with its isolation label.
            app.filters.verdict = Some(super::filters::VerdictFilter::Failing);
            let note = outcome
                .map(|s| format!("{s}; showing the failures (verdict filter)"))
                .map_err(|why| format!("oracle run failed: {why}"));
            ("the oracle run", note)
        }
        TaskKind::Mutate => (
            "the mutation analysis",
            outcome.map_err(|why| format!("mutate failed: {}", crate::text::escape_controls(&why))),
        ),
        TaskKind::Survivors => {
            let note = match outcome {
                Ok(report) => Ok(crate::text::escape_controls(
                    report.lines().next().unwrap_or("regeneration finished"),
                )
                .into_owned()),
                Err(why) => Err(format!("regeneration failed: {why}")),
            };
            ("the regeneration", note)
        }
    };
    vec![Effect::Reload {
        after: after.to_string(),
        note,
    }]
}

/// Shows what an effect wrote.
fn saved(app: &mut App, s: Saved) -> Vec<Effect> {
    match s {
        Saved::Decision(d) => app.decision_saved(d),
        Saved::Decisions(ds) => app.decisions_saved(ds),
        Saved::DecisionsFailed(e) => {
            app.bulk = None;
            app.error(e);
        }
        Saved::Undone(r) => app.step_undone(r),
        Saved::Redone(r) => app.step_redone(r),
        Saved::Judgement(j) => app.judgement_saved(j),
        Saved::Judgements { saved, error } => {
            app.judgements_saved(saved);
            // The error stays in view: the batch stopped part-way.
            if let Some(e) = error {
                app.error(e);
            }
        }
        Saved::JudgementUndo(u) => app.judgement_undo_saved(u),
        Saved::Exported(outcome) => app.export_done(outcome),
        Saved::Edited { o_id, multi, text } => return app.external_edit_done(o_id, multi, text),
        Saved::ContextEdit(edit) => app.context_edit_saved(edit),
        Saved::Handler { op_id, choice } => {
            app.notify(format!(
                "{op_id} will be served from {}.{} from the next run on",
                choice.handler.file, choice.handler.method
            ));
            app.view.handler_choices.insert(op_id, choice);
        }
    }
    Vec::new()
}

/// Something that runs an external editor on a text and returns the edited text.
pub type Editor<'a> = dyn FnMut(&str) -> Result<String, String> + 'a;

/// Applies `msg` and everything it leads to: effects performed, their outcomes
/// applied, tasks handed to the executor; then whatever the executor has waiting.
pub fn dispatch(
    session: &Session,
    app: &mut App,
    exec: &mut Executor,
    editor: &mut Editor,
    msg: Msg,
) {
    apply(session, app, exec, editor, msg);
    while let Some(msg) = exec.next(std::time::Duration::ZERO) {
        apply(session, app, exec, editor, msg);
    }
}

fn apply(session: &Session, app: &mut App, exec: &mut Executor, editor: &mut Editor, msg: Msg) {
    for effect in update(app, msg) {
        carry_out(session, app, exec, editor, effect);
    }
}

/// Performs one effect (a task goes to the executor) and applies its outcome at once.
pub fn carry_out(
    session: &Session,
    app: &mut App,
    exec: &mut Executor,
    editor: &mut Editor,
    effect: Effect,
) {
    match effect {
        Effect::Start { seq, work } => exec.spawn(seq, work),
        other => {
            let outcome = super::driver::perform(session, &app.view, other, editor);
            apply(session, app, exec, editor, outcome);
        }
    }
}

/// Applies messages until no task is left or `timeout` passes; whether every task
/// ended. For callers without an event loop (scripts, tests).
pub fn wait(
    session: &Session,
    app: &mut App,
    exec: &mut Executor,
    timeout: std::time::Duration,
) -> bool {
    let deadline = std::time::Instant::now() + timeout;
    let mut keep = |t: &str| Ok(t.to_string());
    loop {
        while let Some(msg) = exec.next(std::time::Duration::ZERO) {
            apply(session, app, exec, &mut keep, msg);
        }
        if app.tasks.busy().is_none() {
            return true;
        }
        let left = deadline.saturating_duration_since(std::time::Instant::now());
        match exec.next(left) {
            Some(msg) => apply(session, app, exec, &mut keep, msg),
            None => return false,
        }
    }
}

/// Reads the session again after `what` changed it outside the workbench's own
/// effects (another process's verdicts, `--project`); false (with the error on
/// screen) when it cannot be read.
pub fn reload(session: &Session, app: &mut App, what: &str) -> bool {
    match super::loader::load(session) {
        Ok(view) => {
            app.view = view;
            app.refresh_lists();
            true
        }
        Err(e) => {
            app.error(format!("cannot reload the session after {what}: {e}"));
            false
        }
    }
}

/// Carries out `effect` and applies everything it leads to, background work included,
/// run at once on this thread (no launchers: re-runs and regenerations end with an
/// error saying so). For callers without an event loop: scripts, tests, benches.
pub fn settle(session: &Session, app: &mut App, effect: Effect, editor: &mut Editor) {
    let launchers = super::executor::Launchers::default();
    let mut exec = Executor::inline(session.dir(), launchers);
    carry_out(session, app, &mut exec, editor, effect);
    while let Some(msg) = exec.next(std::time::Duration::ZERO) {
        apply(session, app, &mut exec, editor, msg);
    }
}
