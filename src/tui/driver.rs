//! The driver: opens a session, owns the terminal and the event loop, and performs the
//! effects the state asks for (journal appends, export, `$EDITOR`).
//!
//! The terminal is restored on every exit path, including panics (`ratatui::init`
//! installs a restoring panic hook). Redraws happen only when something changed: a key,
//! a pipeline event, or a spinner tick while an agent runs. Logs go to a file.

use super::config::{self, ConfigError};
use super::jobs::Jobs;
use super::live::Live;
use super::loader::{self, LoadError};
use super::state::{App, LiveState};
use super::store::{Session, StoreError};
use super::update::{self, Effect};
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
    let prefs = super::jobs::read_prefs(session.dir());
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

/// Performs one effect against the session and reports the outcome to the state.
/// `editor` runs an external editor on a text and returns the edited text.
pub fn perform(
    session: &Session,
    app: &mut App,
    effect: Effect,
    editor: &mut dyn FnMut(&str) -> Result<String, String>,
) {
    match effect {
        Effect::Record(d) => match session.append_decision(&d) {
            Ok(()) => {
                tracing::info!(o_id = %d.o_id, decision = ?d.decision, "review decision saved");
                app.decision_saved(d);
            }
            Err(e) => app.error(format!("decision NOT saved: {e}")),
        },
        Effect::RecordBatch(ds) => match session.append_decisions(&ds) {
            Ok(()) => {
                tracing::info!(n = ds.len(), "review decisions saved");
                app.decisions_saved(ds);
            }
            Err(e) => {
                app.bulk = None;
                app.error(format!("decisions NOT saved: {e}"));
            }
        },
        Effect::UndoStep(step) => match session.append_undo_step(&step) {
            Ok(record) => app.step_undone(record),
            Err(e) => app.error(format!("undo NOT saved: {e}")),
        },
        Effect::RedoStep(step) => match session.append_redo_step(&step) {
            Ok(record) => app.step_redone(record),
            Err(e) => app.error(format!("redo NOT saved: {e}")),
        },
        Effect::Judge(j) => match session.append_judgement(&j) {
            Ok(()) => {
                tracing::info!(o_id = %j.o_id, judgement = ?j.judgement, "judgement saved");
                app.judgement_saved(j);
            }
            Err(e) => app.error(format!("judgement NOT saved: {e}")),
        },
        Effect::JudgeMany(js) => {
            let mut saved = Vec::new();
            for j in js {
                match session.append_judgement(&j) {
                    Ok(()) => saved.push(j),
                    Err(e) => {
                        app.error(format!("judgement of {} NOT saved: {e}", j.o_id));
                        break;
                    }
                }
            }
            let failed = app.status.as_ref().is_some_and(|s| s.1);
            let status = app.status.clone();
            app.judgements_saved(saved);
            if failed {
                // The error stays in view: the batch stopped part-way.
                app.status = status;
            }
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
                Ok(_) => {
                    if super::jobs::reload(session, app, "the equivalence mark") {
                        app.refresh_mutants();
                        app.notify(if undo {
                            format!("{mutant}: equivalence mark withdrawn")
                        } else {
                            format!("{mutant} marked equivalent: out of the score")
                        });
                    }
                }
                Err(e) => app.error(format!("equivalence mark NOT saved: {e}")),
            }
        }
        Effect::UndoJudgement(o_id) => match session.append_judgement_undo(&o_id) {
            Ok(()) => app.judgement_undo_saved(crate::store::JudgementUndo {
                undo_judgement: o_id,
                at: chrono::Utc::now().to_rfc3339(),
            }),
            Err(e) => app.error(format!("judgement undo NOT saved: {e}")),
        },
        Effect::Export { format, dest } => {
            let formats = super::export::formats();
            let outcome = match formats.get(format) {
                Some(f) => f.export(&app.view, &dest),
                None => Err(format!("no export format #{format}")),
            };
            app.export_done(outcome);
        }
        Effect::ExternalEdit { o_id, multi, text } => match editor(&text) {
            Ok(edited) => {
                for e in app.external_edit_done(o_id, multi, edited) {
                    perform(session, app, e, editor);
                }
            }
            Err(e) => app.error(e),
        },
        // Background work needs the event loop's `Jobs`; see `jobs::Jobs::start`.
        Effect::FromSurvivors { .. } => {
            app.error("regeneration from survivors needs the workbench's event loop");
        }
        Effect::Rerun { op_id, .. } => {
            app.jobs.rerun_op = None;
            app.live = LiveState::Off;
            app.error(format!("cannot re-run {op_id} here"));
        }
        Effect::RunOracles { .. } => {
            app.jobs.oracles_running = false;
            app.error("cannot run oracles here");
        }
        Effect::RunMutate { .. } => {
            app.jobs.mutate = None;
            app.error("cannot run the mutation analysis here");
        }
        Effect::SaveContext(context) => match session.record_context_edit(&context) {
            Ok(edit) => app.context_edit_saved(edit),
            Err(e) => app.error(format!("context edit NOT saved: {e}")),
        },
        Effect::WithdrawContextEdit(op_id) => {
            match session.withdraw_context_edit(&op_id, "dropped in the workbench") {
                Ok(edit) => app.context_edit_saved(edit),
                Err(e) => app.error(format!("context edit NOT dropped: {e}")),
            }
        }
        Effect::PickHandler { op_id, side } => match session.pick_conflict_side(&op_id, side) {
            Ok(choice) => {
                app.notify(format!(
                    "{op_id} will be served from {}.{} from the next run on",
                    choice.handler.file, choice.handler.method
                ));
                app.view.handler_choices.insert(op_id, choice);
            }
            Err(e) => app.error(format!("handler pick NOT saved: {e}")),
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
                app.notify(super::clipboard::copied_words(&what, &text, cut));
            } else {
                app.error(format!(
                    "could not copy the {what}: the terminal refused it"
                ));
            }
        }
    }
}

/// Runs the workbench until the user quits. `live` is the run in progress (none in
/// review mode); quitting before it ends stops it.
pub fn run(session: &Session, app: &mut App, live: Option<Live>) -> Result<(), TuiError> {
    run_with(session, app, live, Jobs::new(None))
}

/// [`run`] with the background work the workbench may start (re-runs, oracle runs).
pub fn run_with(
    session: &Session,
    app: &mut App,
    mut live: Option<Live>,
    mut jobs: Jobs,
) -> Result<(), TuiError> {
    let mut terminal = ratatui::init();
    if app.mouse {
        execute!(std::io::stdout(), EnableMouseCapture)?;
    }
    // Nothing background work or a child prints may reach the screen: into the log.
    let log = config::log_dir().map(|d| d.join("tui.log"));
    let stderr = super::stderr_guard::StderrGuard::redirect(log.as_deref());
    let result = event_loop(&mut terminal, session, app, live.as_mut(), &mut jobs);
    drop(stderr);
    if let Some(live) = live.as_mut()
        && app.live == LiveState::Running
    {
        live.stop(STOP_GRACE);
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
    mut live: Option<&mut Live>,
    jobs: &mut Jobs,
) -> Result<(), TuiError> {
    let mut dirty = true;
    let mut suspend = false;
    let mut verdicts = super::verdict_watch::VerdictWatch::new(session);
    while !app.quit {
        if suspend {
            // The editor ran on the plain terminal; take the screen back.
            *terminal = ratatui::init();
            terminal.clear()?;
            suspend = false;
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
            suspend |= drain_terminal_events(session, app, jobs)?;
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
        if let Some(live) = live.as_deref_mut()
            && live.drain(session, app)
        {
            dirty = true;
        }
        if jobs.drain(session, app) {
            dirty = true;
        }
        if verdicts.poll(session, app) {
            dirty = true;
        }
        if let Some(chunk) = app.next_bulk_chunk() {
            perform(session, app, Effect::RecordBatch(chunk), &mut run_editor);
            dirty = true;
        }
    }
    Ok(())
}

/// Handles every terminal event pending (at least one), performing the effects they
/// produce; true when `$EDITOR` took the terminal, which must then be taken back.
fn drain_terminal_events(
    session: &Session,
    app: &mut App,
    jobs: &mut Jobs,
) -> Result<bool, TuiError> {
    let mut suspend = false;
    loop {
        let effects = match event::read()? {
            TermEvent::Key(k) if k.kind != KeyEventKind::Release => update::handle_key(app, k),
            TermEvent::Mouse(m) => update::handle_mouse(app, m),
            TermEvent::Resize(..) => Vec::new(),
            _ => Vec::new(),
        };
        for e in effects {
            let Some(e) = jobs.start(session, app, e) else {
                continue;
            };
            if matches!(e, Effect::ExternalEdit { .. }) {
                ratatui::restore();
                suspend = true;
            }
            perform(session, app, e, &mut run_editor);
        }
        if app.quit || !event::poll(Duration::ZERO)? {
            break;
        }
    }
    Ok(suspend)
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
