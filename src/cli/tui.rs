//! `mastor tui`: opens a session in the review workbench, or, with `--run`, starts the
//! pipeline on a project and shows it live.
//!
//! Live mode runs the pipeline on a background thread with its own tokio runtime and
//! reports like any workbench task (a `TaskKind::Run` in the registry, its events and
//! end on the executor's stream); the workbench never waits on it. This module only
//! wires the two together: the pipeline setup is `run::prepare`, the screen side is
//! `tui::msg`; re-runs of one operation and regenerations from survivors started from
//! the workbench are the launchers handed to its executor (they own the model
//! settings).

use super::run::{self, PipelineArgs};
use crate::agents::runtime::EventSink;
use crate::llm::Role;
use crate::llm::config::{LlmArgs, LlmConfig, RoleConfig};
use crate::pipeline;
use crate::store::{LockError, SessionLock};
use crate::tui::driver::{self, Options};
use crate::tui::executor::{
    Executor, Launchers, PlanLauncher, Reporter, RerunLauncher, SurvivorLauncher,
};
use crate::tui::jobs;
use crate::tui::live::{self, Live};
use crate::tui::rerun_plan::RerunPlan;
use crate::tui::state::LiveState;
use crate::tui::tasks::TaskKind;
use clap::Args;
use color_eyre::eyre::eyre;
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

/// Arguments of `mastor tui`.
#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  mastor tui                 # the session in ./.mastor\n  mastor tui path/to/project --theme light\n  mastor tui path/to/project/.mastor --no-mouse\n  mastor tui path/to/project --run --op 'GET /pets/{id}'   # run and watch live"
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
    /// Leave the mouse to the terminal (its own text selection) instead of clicks
    /// selecting rows, tabs and screens and the wheel scrolling lists. Most terminals
    /// still select text with shift held while the workbench has the mouse.
    #[arg(long)]
    pub no_mouse: bool,
    /// The mouse is on by default; kept so older scripts keep working.
    #[arg(long, hide = true, conflicts_with = "no_mouse")]
    pub mouse: bool,
    /// Start the pipeline on the project and watch it live (takes the flags of `mastor run`).
    #[arg(long)]
    pub run: bool,
    /// The Java project of the session, recorded in it (absolute) so its evidence is
    /// found whatever directory the workbench starts from: for a suite imported without
    /// `--project`, or a project that moved.
    #[arg(long, value_name = "DIR")]
    pub project: Option<PathBuf>,
    /// Base URL that the "run oracles" popup starts with (else $MASTOR_API_URL).
    #[arg(long, value_name = "URL")]
    pub api_url: Option<String>,
    #[command(flatten, next_help_heading = "Run options (with --run)")]
    pub pipeline: PipelineArgs,
}

/// Runs the workbench; returns the exit code.
pub fn run(args: TuiArgs) -> color_eyre::Result<i32> {
    let opts = Options {
        theme: args.theme.clone(),
        keymap: args.keymap.clone(),
        mouse: !args.no_mouse,
        settings: None,
    };
    // Before opening, so warnings while loading (a torn journal line) reach the log.
    driver::init_logging();
    if args.run {
        return run_live(&args, &opts);
    }
    // Flags that only shape a run would be silently ignored in review mode; the budget
    // is the re-run dialog's. The flag structs have no `PartialEq` (provider enums), so
    // their printed form is compared.
    let budget = super::dry_run::PlanArgs {
        dry_run: false,
        ..args.pipeline.plan.clone()
    };
    let shaping = PipelineArgs {
        plan: super::dry_run::PlanArgs {
            dry_run: args.pipeline.plan.dry_run,
            ..Default::default()
        },
        ..args.pipeline.clone()
    };
    if format!("{shaping:?}") != format!("{:?}", PipelineArgs::default()) {
        return Err(eyre!(
            "run options (--op, --spec, --out, --dry-run, model flags, ...) need --run; \
             without it `mastor tui` only reviews {} (--max-cost and --max-tokens-total \
             are the re-run dialog's budget)",
            args.dir.display()
        ));
    }
    let (session, mut app) = driver::open_session(&args.dir, &opts)?;
    require_terminal()?;
    // A second workbench on a session another process writes opens read-only.
    let _lock = match SessionLock::acquire(session.dir(), "mastor tui") {
        Ok(lock) => Some(lock),
        Err(LockError::Held { holder, .. }) => {
            app.read_only = Some(holder);
            None
        }
        Err(e) => return Err(e.into()),
    };
    if let Some(dir) = &args.project {
        if app.read_only.is_some() {
            return Err(eyre!(
                "cannot record --project: another process holds the session's lock"
            ));
        }
        let root = session.record_project_root(dir).map_err(|e| eyre!(e))?;
        if crate::tui::msg::reload(&session, &mut app, "recording the project") {
            app.notify(format!("project root recorded: {root}"));
        }
    }
    app.jobs.api_url = api_url(&args);
    // A re-run works on the project the session was made from, with model settings from
    // the environment and config as `mastor run` resolves them.
    let (project, mut base) = review_rerun_args(&session);
    base.plan = budget;
    let launchers = Launchers {
        rerun: Some(rerun_launcher(project.clone(), base.clone())),
        plan: Some(rerun_planner(project.clone(), base.clone())),
        survivors: Some(survivor_launcher(project, base)),
    };
    driver::run(
        &session,
        &mut app,
        None,
        Executor::threads(session.dir(), launchers),
    )?;
    Ok(super::EXIT_OK)
}

/// Project and flags for re-runs from review mode. The manifest keeps the project as
/// given to `mastor run` (maybe relative to where it ran) and the spec relative to the
/// project; when the project is not found from here, the session's parent directory
/// (the default `<project>/.mastor` layout) is used.
fn review_rerun_args(session: &crate::store::Session) -> (PathBuf, PipelineArgs) {
    let manifest = session.manifest();
    let recorded = PathBuf::from(&manifest.project_root);
    let project = match session.dir().parent() {
        Some(parent) if !recorded.is_dir() => parent.to_path_buf(),
        _ => recorded,
    };
    let spec = Some(project.join(&manifest.spec_file))
        .filter(|p| !manifest.spec_file.is_empty() && p.is_file());
    let args = PipelineArgs {
        spec,
        out: Some(session.dir().to_path_buf()),
        ..PipelineArgs::default()
    };
    (project, args)
}

/// `--api-url`, else `$MASTOR_API_URL`.
fn api_url(args: &TuiArgs) -> Option<String> {
    args.api_url
        .clone()
        .or_else(|| std::env::var(jobs::API_URL_ENV).ok())
        .filter(|u| !u.trim().is_empty())
}

/// Starts re-runs of one operation with `base` flags (`--op` replaced) on `project`: with
/// `--refresh` so the model is really asked again, or `--refresh-from AGENT` so agents
/// before the chosen one replay their cached answers.
pub fn rerun_launcher(project: PathBuf, base: PipelineArgs) -> RerunLauncher {
    launcher_with_env(project, base, LlmConfig::process_env)
}

/// [`rerun_launcher`] reading the environment through `env` (tests pass their own).
fn launcher_with_env(
    project: PathBuf,
    base: PipelineArgs,
    env: fn() -> HashMap<String, String>,
) -> RerunLauncher {
    Arc::new(move |op_id: &str, from: Option<&str>, r: &Reporter| {
        // Checked before anything is sent: a hosted model without a key would only be
        // refused, retried, and end as a bare failure mark on the operation.
        if let Some(why) = missing_model(&env(), &base.llm) {
            return Err(why);
        }
        let args = rerun_args(&base, op_id, from);
        let sink: EventSink = Arc::new(r.sink());
        let prepared = run::prepare(&project, &args, sink).map_err(|e| format!("{e:#}"))?;
        run_pipeline(prepared, None)
    })
}

/// The flags of the re-run of `op_id` from agent `from` (`None`: every agent): `base`
/// for that one operation, with `--refresh` so the model is really asked again, or
/// `--refresh-from AGENT` so agents before the chosen one replay their cached answers.
pub fn rerun_args(base: &PipelineArgs, op_id: &str, from: Option<&str>) -> PipelineArgs {
    let mut args = base.clone();
    args.ops = vec![op_id.to_string()];
    args.llm.refresh = from.is_none();
    args.refresh_from = from.map(str::to_string);
    args.llm.no_cache = false;
    // A re-run keeps the reviewer's context edits; dropping one is a choice made on
    // the Context tab.
    args.drop_context_edits = false;
    args
}

/// Plans re-runs of one operation as [`rerun_launcher`] would start them, with the same
/// flags ([`rerun_args`]) and the plan code of `mastor run --dry-run`; sends nothing.
/// The budget is `base`'s `--max-cost` / `--max-tokens-total`.
pub fn rerun_planner(project: PathBuf, base: PipelineArgs) -> PlanLauncher {
    Arc::new(move |op_id: &str, from: Option<&str>| {
        let args = rerun_args(&base, op_id, from);
        let (plan, over) =
            super::dry_run::plan_for(&project, &args).map_err(|e| format!("{e:#}"))?;
        Ok(RerunPlan::of(&plan, over))
    })
}

/// Why no model can be reached with these settings, if so: the primary or challenger
/// model is a hosted one (neither a local preset nor a loopback URL) and has no API key.
/// The message names the config file and the environment variables that set one.
pub fn missing_model(env: &HashMap<String, String>, args: &LlmArgs) -> Option<String> {
    let cfg = match LlmConfig::resolve(None, env, args) {
        Ok(cfg) => cfg,
        Err(e) => return Some(format!("model configuration: {e}")),
    };
    let needs_key = |r: &RoleConfig| {
        let local = r.provider.is_local()
            || url::Url::parse(&r.base_url).is_ok_and(|u| crate::runner::is_loopback(&u));
        !local && r.api_key.is_none()
    };
    let role = [
        (Role::Primary, &cfg.primary),
        (Role::Challenger, &cfg.challenger),
    ]
    .into_iter()
    .find(|(_, r)| needs_key(r))?;
    let file = crate::llm::config::locate(env)
        .map(|(p, _)| p.display().to_string())
        .unwrap_or_else(|| "the config file (`mastor config path`)".into());
    Some(format!(
        "no model configured: the {} model ({} at {}) has no API key. Set [llm] in {file} \
         (`mastor config init` writes one), or MASTOR_BASE_URL, MASTOR_MODEL and \
         MASTOR_API_KEY (a local server needs no key)",
        role.0.as_str(),
        role.1.provider,
        crate::text::escape_controls(&role.1.base_url),
    ))
}

/// Starts regenerations from survivors (one round of `run --from-survivors`) with `base`
/// flags on `project`, on their own thread; the round's report (or the error) is sent
/// back when it ends.
pub fn survivor_launcher(project: PathBuf, base: PipelineArgs) -> SurvivorLauncher {
    Arc::new(move |ops, mutants| {
        let mut args = base.clone();
        if !ops.is_empty() {
            args.ops = ops;
        }
        let only: std::collections::BTreeSet<String> = mutants.into_iter().collect();
        match super::survivors::rounds(&project, &args, 1, &only) {
            Ok((_, reports)) if reports.is_empty() => {
                Err("no survivor to target (see `mastor run --from-survivors`)".into())
            }
            Ok((_, reports)) => Ok(reports
                .iter()
                .map(super::survivors::render)
                .collect::<String>()),
            Err(e) => Err(format!("{e:#}")),
        }
    })
}

/// Runs a prepared pipeline on its own tokio runtime (blocking); `stop` ends it early.
/// The session lock it holds is released when it ends.
fn run_pipeline(
    prepared: run::PreparedRun,
    stop: Option<tokio::sync::oneshot::Receiver<()>>,
) -> Result<(), String> {
    let (ctx, options, lock) = (prepared.ctx, prepared.options, prepared.lock);
    let discovery = Some(prepared.discovery);
    let outcome = match tokio::runtime::Runtime::new() {
        Ok(rt) => {
            let outcome = rt.block_on(async move {
                let stopped = async {
                    match stop {
                        Some(rx) => {
                            let _ = rx.await;
                        }
                        None => std::future::pending::<()>().await,
                    }
                };
                tokio::select! {
                    _ = pipeline::driver::run(ctx, options, discovery) => Ok(()),
                    _ = stopped => Err("stopped by the reviewer".to_string()),
                }
            });
            // Dropping the pipeline future aborted its tasks; give them a moment.
            rt.shutdown_timeout(Duration::from_secs(1));
            outcome
        }
        Err(e) => Err(format!("cannot start the async runtime: {e}")),
    };
    drop(lock);
    outcome
}

/// Prepares the run, opens its session on screen, then starts the pipeline.
/// The workbench draws on stdout and reads keys from the terminal: without one, a clear
/// error (exit 2) instead of a panic from deep inside the terminal setup.
fn require_terminal() -> color_eyre::Result<()> {
    use std::io::IsTerminal;
    let keys = std::io::stdin().is_terminal()
        || std::fs::OpenOptions::new()
            .read(true)
            .open("/dev/tty")
            .is_ok();
    if std::io::stdout().is_terminal() && keys {
        Ok(())
    } else {
        Err(eyre!(
            "`mastor tui` needs a terminal (stdout and the keyboard); use `mastor check` or \
             `mastor export` in scripts"
        ))
    }
}

fn run_live(args: &TuiArgs, opts: &Options) -> color_eyre::Result<i32> {
    // The plan and the budget before anything is sent, while the terminal is still a
    // plain one (a question can be asked on it), and before the workbench asks for a
    // terminal: a run over its budget is refused with `mastor run`'s exit code (4,
    // nothing sent) whether or not a workbench could have opened.
    let loaded = run::load(&args.dir, &args.pipeline)?;
    if let Some(code) = crate::cli::dry_run::before_run(&args.pipeline, false, &loaded)? {
        return Ok(code);
    }
    require_terminal()?;
    let rerun_base = PipelineArgs {
        out: Some(loaded.out.clone()),
        ..args.pipeline.clone()
    };
    let launchers = Launchers {
        rerun: Some(rerun_launcher(args.dir.clone(), rerun_base.clone())),
        plan: Some(rerun_planner(args.dir.clone(), rerun_base.clone())),
        survivors: Some(survivor_launcher(args.dir.clone(), rerun_base)),
    };
    let exec = Executor::threads(&loaded.out, launchers);
    // The run is the workbench's first task; its events go to the executor's stream
    // (the workbench may be gone after a quit: they are in events.jsonl anyway).
    let mut tasks = crate::tui::tasks::Tasks::default();
    let seq = tasks.start(TaskKind::Run, "run");
    let reporter = exec.reporter(seq);
    let sink: EventSink = Arc::new(reporter.sink());
    let prepared = run::prepare_loaded(loaded, &args.pipeline, sink)?;
    let session = Arc::clone(&prepared.ctx.session);
    // Held by the workbench too, so reviewing after the run ends stays the only writer.
    let _lock = prepared.lock.clone();
    // Load before the first event can arrive, so nothing is applied twice.
    let mut app = driver::open_app(&session, opts)?;
    live::mark_queued(&mut app.view, &prepared.selected);
    app.tasks = tasks;
    app.refresh_lists();
    app.jobs.api_url = api_url(args);
    // Discovery is no operation's agent, so the lists never show it: the status line
    // says whether this run asks for it (escaped by `line`).
    app.notify(format!("discovery: {}", prepared.discovery.line(true)));
    let (stop_tx, stop_rx) = tokio::sync::oneshot::channel::<()>();
    std::thread::Builder::new()
        .name("mastor-pipeline".into())
        .spawn(move || {
            let outcome = run_pipeline(prepared, Some(stop_rx));
            reporter.done(outcome.map(|()| String::new()));
        })?;
    let stop = Box::new(move || {
        let _ = stop_tx.send(());
    });
    driver::run(&session, &mut app, Some(Live::new(stop)), exec)?;
    match &app.live() {
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

#[cfg(test)]
mod tests {
    use super::*;

    fn env(pairs: &[(&str, &str)]) -> HashMap<String, String> {
        let dir = std::env::temp_dir().join("mastor-no-config-here");
        let mut e: HashMap<String, String> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        e.insert("XDG_CONFIG_HOME".into(), dir.to_string_lossy().into_owned());
        e
    }

    #[test]
    fn a_hosted_model_without_a_key_is_named_before_any_call() {
        let why = missing_model(&env(&[]), &LlmArgs::default()).expect("no key anywhere");
        assert!(why.starts_with("no model configured"), "{why}");
        assert!(
            why.contains("mastor-no-config-here/mastor/config.toml"),
            "{why}"
        );
        assert!(why.contains("MASTOR_API_KEY"), "{why}");
        // The launcher refuses before starting anything.
        fn empty() -> HashMap<String, String> {
            env(&[])
        }
        let launch = launcher_with_env(PathBuf::from("."), PipelineArgs::default(), empty);
        let exec = Executor::inline(std::path::Path::new("."), Launchers::default());
        let err = launch("GET /pets", None, &exec.reporter(1)).expect_err("refused");
        assert!(err.starts_with("no model configured"), "{err}");
    }

    #[test]
    fn a_key_or_a_local_server_is_a_configured_model() {
        let key = env(&[("MASTOR_API_KEY", "sk-test-0000000000")]);
        assert_eq!(missing_model(&key, &LlmArgs::default()), None);
        let local = env(&[
            ("MASTOR_PROVIDER", "custom"),
            ("MASTOR_BASE_URL", "http://127.0.0.1:9/v1"),
        ]);
        assert_eq!(missing_model(&local, &LlmArgs::default()), None);
        let ollama = env(&[("MASTOR_PROVIDER", "ollama")]);
        assert_eq!(missing_model(&ollama, &LlmArgs::default()), None);
    }
}
