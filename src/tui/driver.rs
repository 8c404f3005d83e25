//! The driver: opens a session, owns the terminal and the event loop, and performs the
//! effects the state asks for (journal appends, export, `$EDITOR`), returning each
//! outcome as a message (see `msg`).
//!
//! The loop turns terminal events into messages and drains the executor's messages
//! into the same `msg::dispatch`; it applies nothing itself. The terminal is restored
//! on every exit path, including panics (`ratatui::init` installs a restoring panic
//! hook). Redraws happen only when something changed: a key, a task's message, or a
//! spinner tick while an agent runs. Logs go to a file.

use super::config::{self, ConfigError};
use super::executor::Executor;
use super::live::Live;
use super::loader::{self, LoadError};
use super::msg::{self, Editor, Msg, Saved};
use super::state::App;
use super::store::{Session, StoreError};
use super::tasks::TaskKind;
use super::update::Effect;
use super::view::SessionView;
use ratatui::crossterm::event::{
    self, DisableMouseCapture, EnableMouseCapture, Event as TermEvent, KeyEventKind,
};
use ratatui::crossterm::execute;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// How long quitting waits for a stopped run to finish writing.
const STOP_GRACE: Duration = Duration::from_secs(3);

/// Why the workbench could not start or had to stop.
#[derive(Debug, thiserror::Error)]
pub enum TuiError {
    #[error(transparent)]
    Load(#[from] LoadError),
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(transparent)]
    Config(#[from] ConfigError),
    #[error("terminal: {0}")]
    Terminal(#[from] std::io::Error),
}

/// Options of `mastor tui` that shape the workbench.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// `dark`, `light`, a theme name in the config dir, or a path.
    pub theme: Option<String>,
    /// A keymap file to use instead of `<config>/keymap.toml`.
    pub keymap: Option<PathBuf>,
    /// Capture the mouse (clicks select, the wheel scrolls); `mastor tui` turns it on
    /// unless `--no-mouse`.
    pub mouse: bool,
    /// A settings file to use instead of `<config>/settings.toml`.
    pub settings: Option<PathBuf>,
}

/// Opens the session at `arg` (a session dir, or a project dir holding `.mastor`) and
/// builds the workbench state for it.
pub fn open_session(arg: &Path, opts: &Options) -> Result<(Session, App), TuiError> {
    let dir = loader::resolve_session_dir(arg);
    let session = Session::open(&dir)?;
    let app = open_app(&session, opts)?;
    Ok((session, app))
}

/// Builds the workbench state for a session already open (live mode opens the session
/// the run writes to).
pub fn open_app(session: &Session, opts: &Options) -> Result<App, TuiError> {
    let keymap = config::load_keymap(opts.keymap.as_deref())?;
    let theme = config::load_theme(opts.theme.as_deref())?;
    let settings = config::load_settings(opts.settings.as_deref())?;
    let view = loader::load(session)?;
    let mut app = App::new(view, keymap, theme);
    app.mouse = opts.mouse;
    app.advance = settings.review.advance;
    let prefs = super::oracle_run::read_prefs(session.dir());
    app.jobs.last_api_url = prefs.api_url;
    app.jobs.last_reset = prefs.reset;
    Ok(app)
}

/// Sends tracing output to `<state dir>/tui.log` (never the screen); returns the path.
pub fn init_logging() -> Option<PathBuf> {
    let dir = config::log_dir()?;
    std::fs::create_dir_all(&dir).ok()?;
    let path = dir.join("tui.log");
    let file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path)
        .ok()?;
    tracing_subscriber::fmt()
        .with_writer(std::sync::Mutex::new(file))
        .with_ansi(false)
        .try_init()
        .ok()?;
    Some(path)
}

/// Performs one effect against the session (journal appends, export, the editor, the
/// clipboard) and returns its outcome, for `msg::update` to apply. `editor` runs an
/// external editor on a text and returns the edited text. Background work never comes
/// here: `msg::carry_out` hands it to the executor.
pub fn perform(session: &Session, view: &SessionView, effect: Effect, editor: &mut Editor) -> Msg {
    let failed = |what: &str, e: &dyn std::fmt::Display| Msg::Failed(format!("{what}: {e}"));
    match effect {
        Effect::Record(d) => match session.append_decision(&d) {
            Ok(()) => {
                tracing::info!(o_id = %d.o_id, decision = ?d.decision, "review decision saved");
                Msg::Saved(Saved::Decision(d))
            }
            Err(e) => failed("decision NOT saved", &e),
        },
        Effect::RecordBatch(ds) => match session.append_decisions(&ds) {
            Ok(()) => {
                tracing::info!(n = ds.len(), "review decisions saved");
                Msg::Saved(Saved::Decisions(ds))
            }
            Err(e) => Msg::Saved(Saved::DecisionsFailed(format!("decisions NOT saved: {e}"))),
        },
        Effect::UndoStep(step) => match session.append_undo_step(&step) {
            Ok(record) => Msg::Saved(Saved::Undone(record)),
            Err(e) => failed("undo NOT saved", &e),
        },
        Effect::RedoStep(step) => match session.append_redo_step(&step) {
            Ok(record) => Msg::Saved(Saved::Redone(record)),
            Err(e) => failed("redo NOT saved", &e),
        },
        Effect::Judge(j) => match session.append_judgement(&j) {
            Ok(()) => {
                tracing::info!(o_id = %j.o_id, judgement = ?j.judgement, "judgement saved");
                Msg::Saved(Saved::Judgement(j))
            }
            Err(e) => failed("judgement NOT saved", &e),
        },
        Effect::JudgeMany(js) => {
            let mut saved = Vec::new();
            let mut error = None;
            for j in js {
                match session.append_judgement(&j) {
                    Ok(()) => saved.push(j),
                    Err(e) => {
                        error = Some(format!("judgement of {} NOT saved: {e}", j.o_id));
                        break;
                    }
                }
            }
            Msg::Saved(Saved::Judgements { saved, error })
        }
        Effect::MarkEquivalent { mutant, note, undo } => {
            let results = crate::mutate::results::Results::new(session.dir().join("mutation"));
            let mark = crate::mutate::results::EquivalentMark {
                mutant: mutant.clone(),
                note,
                at: chrono::Utc::now().to_rfc3339(),
                undo,
            };
            match results.append_mark(&mark).and_then(|_| results.reanalyse()) {
                Ok(_) => Msg::Reloaded {
                    after: "the equivalence mark".into(),
                    view: loader::load(session)
                        .map(Box::new)
                        .map_err(|e| e.to_string()),
                    note: Ok(if undo {
                        format!("{mutant}: equivalence mark withdrawn")
                    } else {
                        format!("{mutant} marked equivalent: out of the score")
                    }),
                },
                Err(e) => failed("equivalence mark NOT saved", &e),
            }
        }
        Effect::UndoJudgement(o_id) => match session.append_judgement_undo(&o_id) {
            Ok(()) => Msg::Saved(Saved::JudgementUndo(crate::store::JudgementUndo {
                undo_judgement: o_id,
                at: chrono::Utc::now().to_rfc3339(),
            })),
            Err(e) => failed("judgement undo NOT saved", &e),
        },
        Effect::Export { format, dest } => {
            let formats = super::export::formats();
            let outcome = match formats.get(format) {
                Some(f) => f.export(view, &dest),
                None => Err(format!("no export format #{format}")),
            };
            Msg::Saved(Saved::Exported(outcome))
        }
        Effect::ExternalEdit { o_id, multi, text } => match editor(&text) {
            Ok(text) => Msg::Saved(Saved::Edited { o_id, multi, text }),
            Err(e) => Msg::Failed(e),
        },
        Effect::Reload { after, note } => Msg::Reloaded {
            view: loader::load(session)
                .map(Box::new)
                .map_err(|e| e.to_string()),
            after,
            note,
        },
        Effect::Start { work, .. } => Msg::Failed(format!(
            "cannot start {:?} work here: background work needs the executor",
            work.kind()
        )),
        Effect::SaveContext(context) => match session.record_context_edit(&context) {
            Ok(edit) => Msg::Saved(Saved::ContextEdit(edit)),
            Err(e) => failed("context edit NOT saved", &e),
        },
        Effect::WithdrawContextEdit(op_id) => {
            match session.withdraw_context_edit(&op_id, "dropped in the workbench") {
                Ok(edit) => Msg::Saved(Saved::ContextEdit(edit)),
                Err(e) => failed("context edit NOT dropped", &e),
            }
        }
        Effect::PickHandler { op_id, side } => match session.pick_conflict_side(&op_id, side) {
            Ok(choice) => Msg::Saved(Saved::Handler { op_id, choice }),
            Err(e) => failed("handler pick NOT saved", &e),
        },
        Effect::Copy { text, what } => {
            let (seq, cut) = super::clipboard::osc52(&text);
            let written = {
                use std::io::{IsTerminal, Write};
                let mut out = std::io::stdout();
                // Not a terminal (tests, pipes): nothing to set, and nothing to garble.
                !out.is_terminal()
                    || out
                        .write_all(seq.as_bytes())
                        .and_then(|_| out.flush())
                        .is_ok()
            };
            if written {
                Msg::Said(super::clipboard::copied_words(&what, &text, cut))
            } else {
                Msg::Failed(format!(
                    "could not copy the {what}: the terminal refused it"
                ))
            }
        }
    }
}

/// Runs the workbench until the user quits, its background work run by `exec`. `live`
/// stops the run live mode watches (none in review mode); quitting before it ends
/// stops it.
pub fn run(
    session: &Session,
    app: &mut App,
    live: Option<Live>,
    mut exec: Executor,
) -> Result<(), TuiError> {
    let mut terminal = ratatui::init();
    if app.mouse {
        execute!(std::io::stdout(), EnableMouseCapture)?;
    }
    // Nothing background work or a child prints may reach the screen: into the log.
    let log = config::log_dir().map(|d| d.join("tui.log"));
    let stderr = super::stderr_guard::StderrGuard::redirect(log.as_deref());
    let result = event_loop(&mut terminal, session, app, &mut exec);
    drop(stderr);
    if let (Some(live), Some(task)) = (live, app.tasks.get(TaskKind::Run)) {
        live.stop(task.seq, &mut exec, STOP_GRACE);
    }
    if app.mouse {
        let _ = execute!(std::io::stdout(), DisableMouseCapture);
    }
    ratatui::restore();
    result
}

fn event_loop(
    terminal: &mut ratatui::DefaultTerminal,
    session: &Session,
    app: &mut App,
    exec: &mut Executor,
) -> Result<(), TuiError> {
    let mut dirty = true;
    let suspended = std::cell::Cell::new(false);
    // The editor runs on the plain terminal; the screen is taken back after it.
    let mut editor = |text: &str| {
        ratatui::restore();
        suspended.set(true);
        run_editor(text)
    };
    let mut verdicts = super::verdict_watch::VerdictWatch::new(session);
    while !app.quit {
        if suspended.replace(false) {
            *terminal = ratatui::init();
            terminal.clear()?;
        }
        if dirty {
            app.now = chrono::Utc::now();
            app.prepare_frame();
            let h = terminal.size()?.height as usize;
            app.page = h.saturating_sub(12).max(1);
            terminal.draw(|f| f.render_widget(&*app, f.area()))?;
            dirty = false;
        }
        // While a bulk decision is being written, keys are only peeked at between chunks.
        let wait = if app.bulk.is_some() {
            Duration::ZERO
        } else {
            Duration::from_millis(120)
        };
        if event::poll(wait)? {
            // Drain everything pending, then draw once.
            loop {
                let msg = match event::read()? {
                    TermEvent::Key(k) if k.kind != KeyEventKind::Release => Msg::Key(k),
                    TermEvent::Mouse(m) => Msg::Mouse(m),
                    _ => Msg::Resize,
                };
                msg::dispatch(session, app, exec, &mut editor, msg);
                if app.quit || suspended.get() || !event::poll(Duration::ZERO)? {
                    break;
                }
            }
            dirty = true;
        } else {
            app.tick = app.tick.wrapping_add(1);
            if app.view.ops.iter().any(|o| {
                o.agents
                    .values()
                    .any(|a| matches!(a.state, super::view::AgentState::Running { .. }))
            }) {
                dirty = true;
            }
        }
        while let Some(m) = exec.next(Duration::ZERO) {
            msg::dispatch(session, app, exec, &mut editor, m);
            dirty = true;
        }
        if verdicts.poll(session, app) {
            dirty = true;
        }
        if let Some(chunk) = app.next_bulk_chunk() {
            msg::carry_out(session, app, exec, &mut editor, Effect::RecordBatch(chunk));
            dirty = true;
        }
    }
    Ok(())
}

/// Runs `$VISUAL`/`$EDITOR` (default `vi`) on `text` in a temporary file.
fn run_editor(text: &str) -> Result<String, String> {
    let path = std::env::temp_dir().join(format!("mastor-edit-{}.json", std::process::id()));
    std::fs::write(&path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    let editor = std::env::var("VISUAL")
        .or_else(|_| std::env::var("EDITOR"))
        .unwrap_or_else(|_| "vi".into());
    let status = std::process::Command::new("sh")
        .arg("-c")
        .arg(format!("{editor} \"$1\""))
        .arg("sh")
        .arg(&path)
        .status()
        .map_err(|e| format!("cannot run editor `{editor}`: {e}"))?;
    let out = std::fs::read_to_string(&path)
        .map_err(|e| format!("cannot read back {}: {e}", path.display()));
    let _ = std::fs::remove_file(&path);
    if !status.success() {
        return Err(format!(
            "editor `{editor}` exited with {status}; edit discarded"
        ));
    }
    out
}
