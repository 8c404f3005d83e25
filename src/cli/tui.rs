//! `mastor tui`: opens a session in the review workbench, or, with `--run`, starts the
//! pipeline on a project and shows it live.
//!
//! Live mode runs the pipeline on a background thread with its own tokio runtime and
//! forwards its events over a channel; the workbench never waits on it. This module
//! only wires the two together: the pipeline setup is `run::prepare`, the screen side is
//! `tui::live`.

use super::run::{self, PipelineArgs};
use crate::agents::runtime::EventSink;
use crate::pipeline;
use crate::tui::driver::{self, Options};
use crate::tui::live::{self, Live, LiveMsg};
use crate::tui::state::LiveState;
use clap::Args;
use color_eyre::eyre::eyre;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::mpsc;
use std::time::Duration;

/// Arguments of `mastor tui`.
#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  mastor tui                 # the session in ./.mastor\n  mastor tui path/to/project --theme light\n  mastor tui path/to/project/.mastor --mouse\n  mastor tui path/to/project --run --op 'GET /pets/{id}'   # run and watch live"
)]
pub struct TuiArgs {
    /// Session directory, or a project directory whose session is `<dir>/.mastor`
    /// (with --run: the project to analyse).
    #[arg(default_value = ".")]
    pub dir: PathBuf,
    /// Theme: dark, light, a theme name from the config dir, or a TOML file.
    #[arg(long)]
    pub theme: Option<String>,
    /// Keymap TOML file (default: keymap.toml in the config dir, when present).
    #[arg(long)]
    pub keymap: Option<PathBuf>,
    /// Let the mouse wheel scroll lists (disables the terminal's own text selection).
    #[arg(long)]
    pub mouse: bool,
    /// Start the pipeline on the project and watch it live (takes the flags of `mastor run`).
    #[arg(long)]
    pub run: bool,
    #[command(flatten, next_help_heading = "Run options (with --run)")]
    pub pipeline: PipelineArgs,
}

/// Runs the workbench; returns the exit code.
pub fn run(args: TuiArgs) -> color_eyre::Result<i32> {
    let opts = Options {
        theme: args.theme.clone(),
        keymap: args.keymap.clone(),
        mouse: args.mouse,
    };
    // Before opening, so warnings while loading (a torn journal line) reach the log.
    driver::init_logging();
    if args.run {
        return run_live(&args, &opts);
    }
    // Flags that only shape a run would be silently ignored in review mode. The flag
    // structs have no `PartialEq` (provider enums), so their printed form is compared.
    if format!("{:?}", args.pipeline) != format!("{:?}", PipelineArgs::default()) {
        return Err(eyre!(
            "run options (--op, --spec, --out, model flags, ...) need --run; without it \
             `mastor tui` only reviews {}",
            args.dir.display()
        ));
    }
    let (session, mut app) = driver::open_session(&args.dir, &opts)?;
    driver::run(&session, &mut app, None)?;
    Ok(super::EXIT_OK)
}

/// Prepares the run, opens its session on screen, then starts the pipeline.
fn run_live(args: &TuiArgs, opts: &Options) -> color_eyre::Result<i32> {
    let (tx, rx) = mpsc::channel();
    let events = tx.clone();
    let sink: EventSink = Arc::new(move |e| {
        // The workbench may be gone (quit); the event is in events.jsonl anyway.
        let _ = events.send(LiveMsg::Event(e.clone()));
    });
    let prepared = run::prepare(&args.dir, &args.pipeline, sink)?;
    let session = Arc::clone(&prepared.ctx.session);
    // Load before the first event can arrive, so nothing is applied twice.
    let mut app = driver::open_app(&session, opts)?;
    live::mark_queued(&mut app.view, &prepared.selected);
    app.live = LiveState::Running;
    app.refresh_lists();

    let (stop_tx, stop_rx) = tokio::sync::oneshot::channel::<()>();
    let (ctx, options) = (prepared.ctx, prepared.options);
    std::thread::Builder::new()
        .name("mastor-pipeline".into())
        .spawn(move || {
            let outcome = match tokio::runtime::Runtime::new() {
                Ok(rt) => {
                    let outcome = rt.block_on(async move {
                        tokio::select! {
                            _ = pipeline::driver::run(ctx, options) => Ok(()),
                            _ = stop_rx => Err("stopped by the reviewer".to_string()),
                        }
                    });
                    // Dropping the pipeline future aborted its tasks; give them a moment.
                    rt.shutdown_timeout(Duration::from_secs(1));
                    outcome
                }
                Err(e) => Err(format!("cannot start the async runtime: {e}")),
            };
            let _ = tx.send(LiveMsg::Finished(outcome));
        })?;
    let stop = Box::new(move || {
        let _ = stop_tx.send(());
    });
    driver::run(&session, &mut app, Some(Live::new(rx, stop)))?;
    match &app.live {
        LiveState::Finished => print!("{}", pipeline::summary::from_session(&session)?),
        LiveState::Running | LiveState::Failed(_) => {
            eprintln!(
                "mastor: the run did not finish; the same `mastor run` or `mastor tui --run` resumes it"
            )
        }
        LiveState::Off => {}
    }
    eprintln!("session: {}", session.dir().display());
    Ok(super::EXIT_OK)
}
