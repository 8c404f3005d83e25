//! `mastor run`: the whole pipeline, headless, into a session directory, then the
//! summary. A second run on the same session resumes: every call already answered comes
//! from the session's response cache, so nothing is asked twice.

use crate::agents::runtime::{AgentCtx, Board, EventSink};
use crate::cli::{EXIT_OK, EXIT_PARTIAL, completion_code};
use crate::llm::{LlmArgs, LlmClient, LlmConfig};
use crate::pipeline::discovery_mode::{Discovery, DiscoveryDecision};
use crate::pipeline::orchestrator::PipelineOptions;
use crate::pipeline::{driver, summary};
use crate::project::Prepared;
use crate::prompts::Prompts;
use crate::source::bundle::BundleMode;
use crate::spec::Exclusions;
use crate::store::EventKind;
use crate::store::{Manifest, SessionLock};
use clap::Args;
use color_eyre::eyre::eyre;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// Arguments of `mastor run`.
#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  mastor run tests/fixtures/petstore-jdk --base-url http://127.0.0.1:8080/v1 --model smollm2\n  mastor run . --op 'GET /pets/{id}' --no-multi-op      # debug one endpoint\n  mastor run . --provider deepseek --challenger-provider qwen"
)]
pub struct RunArgs {
    /// The Java project to analyse.
    pub project: PathBuf,
    /// Print the summary as JSON.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub pipeline: PipelineArgs,
    /// After the pipeline, generate and run metamorphic tests against --api-url, grounded
    /// in the session's contexts and groups.
    #[arg(long, requires = "api_url", conflicts_with = "dry_run")]
    pub metamorphic: bool,
    /// Base URL of the API under test (for --metamorphic).
    #[arg(long, value_name = "URL")]
    pub api_url: Option<String>,
    #[command(flatten)]
    pub metamorphic_loop: crate::cli::metamorphic::LoopArgs,
    /// Instead of the pipeline: ask for new oracles that kill the survivors of the
    /// session's last `mastor mutate` (one hint per survivor, with its diff), then run
    /// the mutation analysis again on those mutants (after the original).
    #[arg(long, conflicts_with_all = ["metamorphic", "dry_run"])]
    pub from_survivors: bool,
    /// Regeneration rounds for --from-survivors.
    #[arg(long, default_value_t = 1, requires = "from_survivors",
          value_parser = clap::value_parser!(u32).range(1..=10))]
    pub rounds: u32,
    /// Only this survivor (repeatable), for --from-survivors.
    #[arg(long = "mutant", value_name = "ID", requires = "from_survivors")]
    pub mutants: Vec<String>,
}

/// The pipeline flags shared by `mastor run` and `mastor tui --run`, so both start the
/// same run from the same command line.
#[derive(Debug, Clone, Default, Args)]
pub struct PipelineArgs {
    /// The OpenAPI/Swagger file (found in the project when omitted).
    #[arg(long)]
    pub spec: Option<PathBuf>,
    /// Run only this operation (repeatable), e.g. --op 'GET /pets/{id}'.
    #[arg(long = "op", value_name = "OP_ID")]
    pub ops: Vec<String>,
    /// Skip the semantic grouping and multi-op oracles (ablation).
    #[arg(long)]
    pub no_multi_op: bool,
    /// Skip the challengers and their regeneration (ablation).
    #[arg(long)]
    pub no_challenger: bool,
    /// When to ask the model which spec operations each entry file implements (one call
    /// per entry file, each with its bundle). `auto` (the default): only when some
    /// selected operation has no static handler, or a generic one (weak, or routing on
    /// the request) that a method of the project could replace and the reviewer has not
    /// picked: the only cases its answer can change;
    /// `always`: also to cross-check exact matches; `off`: never.
    #[arg(long, value_enum, value_name = "MODE", conflicts_with = "no_discovery")]
    pub discovery: Option<Discovery>,
    /// Same as `--discovery off` (kept for scripts).
    #[arg(long)]
    pub no_discovery: bool,
    /// Session directory (default: <project>/.mastor).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Give the single-op challenger the session's last mutation analysis for its
    /// operation (oracles that kill nothing, redundant ones, survivors as diffs).
    /// Experimental: not measured yet, so off by default.
    #[arg(long)]
    pub challenger_mutation: bool,
    /// Directory with prompt overrides (<agent>.md).
    #[arg(long)]
    pub prompts: Option<PathBuf>,
    /// Extra path patterns to exclude (framework endpoints are excluded by default).
    #[arg(long = "exclude", value_name = "PATTERN")]
    pub exclude: Vec<String>,
    /// Send no seed data (SQL INSERTs, JSON record arrays) to the model at all.
    #[arg(long)]
    pub no_seed_data: bool,
    /// Keep oracles that reference a status or field the verified source context lacks
    /// (flagged), instead of setting them aside for the reviewer to restore.
    #[arg(long)]
    pub keep_unreferenced: bool,
    /// Most tokens per model answer (useful with small local models).
    #[arg(long, value_name = "N")]
    pub max_tokens: Option<u32>,
    /// Ask the model again from this agent on (and for every agent fed by it); earlier
    /// agents replay their answers from the response cache. E.g. `--op 'GET /pets'
    /// --refresh-from single_op_challenger` re-reviews one suite without re-extracting.
    #[arg(long, value_name = "AGENT")]
    pub refresh_from: Option<String>,
    /// Withdraw the reviewer's edited source contexts of the selected operations and
    /// extract them again. Without it, an edited context is used as it stands and never
    /// overwritten, whatever --refresh / --refresh-from say.
    #[arg(long)]
    pub drop_context_edits: bool,
    /// What the model reads per operation: `slice` (the default), the handler, its
    /// callers, the methods it reaches, the types they use, the exception handlers and
    /// error renderers, with original line numbers, or `closure`, the handler file's whole
    /// import closure. A resumed session keeps the mode it started with unless this is
    /// given.
    #[arg(long, value_enum, value_name = "MODE")]
    pub bundle: Option<BundleMode>,
    #[command(flatten)]
    pub llm: LlmArgs,
    #[command(flatten)]
    pub plan: crate::cli::dry_run::PlanArgs,
}

/// A run ready to start: everything `pipeline::driver::run` needs, with the session
/// created and the scanned operations written, so a viewer can open it first.
pub struct PreparedRun {
    pub ctx: AgentCtx,
    pub options: PipelineOptions,
    /// Whether discovery runs, and why (`options.discovery` is the same `ran`).
    pub discovery: DiscoveryDecision,
    /// Operations the run will work on, in scan order.
    pub selected: Vec<String>,
    /// How many of them a static pre-match already tied to a handler.
    pub static_matched: usize,
    /// The session's writer lock, held for as long as the run writes.
    pub lock: SessionLock,
}

/// What a run reads before it opens its session, and all a plan of it needs: the
/// project in the bundle mode in force (with the reviewer's handler picks), the model
/// configuration, the prompts and the options. Nothing is written and nothing is sent.
pub struct Loaded {
    pub project: Prepared,
    pub config: LlmConfig,
    pub prompts: Prompts,
    pub options: PipelineOptions,
    /// Whether discovery runs, and why (`options.discovery` is the same `ran`).
    pub discovery: DiscoveryDecision,
    /// The session directory.
    pub out: PathBuf,
    pub mode: BundleMode,
    /// Operations whose reviewer-edited context the run will use (none when
    /// `--drop-context-edits` withdraws them): no extraction call is planned for them.
    pub edited_contexts: std::collections::BTreeSet<String>,
}

/// Loads what a run of `project_dir` with `args` reads (see [`Loaded`]).
pub fn load(project_dir: &Path, args: &PipelineArgs) -> color_eyre::Result<Loaded> {
    let mut exclusions = Exclusions::default();
    if !args.exclude.is_empty() {
        let mut patterns: Vec<String> = crate::spec::DEFAULT_EXCLUSIONS
            .iter()
            .map(|p| p.to_string())
            .collect();
        patterns.extend(args.exclude.iter().cloned());
        exclusions = Exclusions::from_patterns(patterns);
    }
    let mut project = Prepared::load(project_dir, args.spec.as_deref(), &exclusions, &args.ops)?;
    if args.no_seed_data {
        project.drop_seed_data();
    }
    let out = args
        .out
        .clone()
        .unwrap_or_else(|| project_dir.join(".mastor"));
    let mut config = LlmConfig::resolve(None, &LlmConfig::process_env(), &args.llm)?;
    if config.cache_dir.is_none() {
        config.cache_dir = Some(out.join("cache"));
    }
    // A session already there decides the bundle mode (unless the flag does) and brings
    // the reviewer's handler picks, which apply before discovery: they win over scan and
    // model. Read only; the run takes the writer lock after.
    let existing = if out.join(crate::store::MANIFEST_FILE).is_file() {
        Some(crate::store::Session::open(&out)?)
    } else {
        None
    };
    let stored = match &existing {
        Some(s) => stored_bundle_mode(s)?,
        None => None,
    };
    // A session with operations but no recorded mode ran before the setting existed: it
    // read closures, and keeps them. A new session takes the default (`slice`).
    let earlier_run = match &existing {
        Some(s) if stored.is_none() => s
            .read_operations::<serde_json::Value>()
            .map_err(|e| eyre!("{}: {e}", s.dir().display()))?
            .is_some(),
        _ => false,
    };
    let unrecorded = if earlier_run {
        BundleMode::Closure
    } else {
        BundleMode::default()
    };
    let mode = args.bundle.or(stored).unwrap_or(unrecorded);
    project.use_bundle_mode(mode);
    if let Some(s) = &existing {
        for problem in project.apply_handler_choices(s.read_handler_choices()?.values()) {
            eprintln!("warning: {}", crate::text::escape_controls(&problem));
        }
    }
    let edited_contexts = match &existing {
        Some(s) if !args.drop_context_edits => s.read_context_edits()?.into_keys().collect(),
        _ => Default::default(),
    };
    let prompts = match &args.prompts {
        Some(dir) => Prompts::with_overrides(dir)?,
        None => Prompts::embedded(),
    };
    // Decided after the handler picks apply: a picked operation is resolved.
    let discovery = args.discovery_mode().decide(&project);
    let options = PipelineOptions {
        discovery: discovery.ran,
        multi_op: !args.no_multi_op,
        challenger: !args.no_challenger,
    };
    Ok(Loaded {
        project,
        config,
        prompts,
        options,
        discovery,
        out,
        mode,
        edited_contexts,
    })
}

impl PipelineArgs {
    /// The `--discovery` mode in force (`--no-discovery` is `off`).
    pub fn discovery_mode(&self) -> Discovery {
        match (self.discovery, self.no_discovery) {
            (Some(mode), _) => mode,
            (None, true) => Discovery::Off,
            (None, false) => Discovery::default(),
        }
    }
}

/// Loads the project, opens (or creates) its session and builds the agent context with
/// `sink` receiving every pipeline event. Shared by `mastor run` and `mastor tui --run`.
pub fn prepare(
    project_dir: &Path,
    args: &PipelineArgs,
    sink: EventSink,
) -> color_eyre::Result<PreparedRun> {
    prepare_loaded(load(project_dir, args)?, args, sink)
}

/// [`prepare`] from a project already loaded (a run that planned first).
pub fn prepare_loaded(
    loaded: Loaded,
    args: &PipelineArgs,
    sink: EventSink,
) -> color_eyre::Result<PreparedRun> {
    let fresh_agents = match &args.refresh_from {
        Some(agent) => crate::pipeline::orchestrator::downstream_of(agent)
            .map_err(|e| eyre!("--refresh-from: {e}"))?,
        None => Default::default(),
    };
    let Loaded {
        project,
        config,
        prompts,
        options,
        discovery,
        out,
        mode,
        ..
    } = loaded;
    let manifest = Manifest::new(
        project.root.display().to_string(),
        project.spec.file.display().to_string(),
    );
    // One writer per session: held until this command is done with it.
    let (lock, session) = crate::cli::open_model_session(&out, manifest, "mastor run")?;
    record_bundle_mode(&session, mode)?;
    if args.drop_context_edits {
        for op in crate::pipeline::context_edits::drop_edits(&session, &project.selected)? {
            eprintln!(
                "mastor: {}: the edited source context is withdrawn; it is extracted again",
                crate::text::escape_controls(&op)
            );
        }
    }
    session.write_operations(&project.analysis.report)?;
    let selected = project.selected.clone();
    let static_matched = project.static_matched().len();
    let session = Arc::new(session);
    let client = LlmClient::new(config)
        .map_err(|e| eyre!("{e}"))?
        .with_retry_sink(crate::agents::runtime::retry_events(
            Arc::clone(&session),
            Some(Arc::clone(&sink)),
        ));
    let mutation_notes = if args.challenger_mutation {
        mutation_notes(&out, &project.root)?
    } else {
        Default::default()
    };
    let ctx = AgentCtx {
        mutation_notes: Arc::new(mutation_notes),
        client,
        prompts: Arc::new(prompts),
        session,
        project: Arc::new(project),
        board: Arc::new(Mutex::new(Board::default())),
        sink: Some(sink),
        max_tokens: args.max_tokens,
        fresh_agents: Arc::new(fresh_agents),
        normalize: crate::agents::normalize::NormalizeOptions {
            keep_unreferenced: args.keep_unreferenced,
        },
    };
    Ok(PreparedRun {
        ctx,
        options,
        discovery,
        selected,
        static_matched,
        lock,
    })
}

/// Session setting naming the bundle mode (absent in sessions that read closures).
pub const BUNDLE_SETTING: &str = "bundle";

/// The bundle mode a session was started with, if it says.
fn stored_bundle_mode(session: &crate::store::Session) -> color_eyre::Result<Option<BundleMode>> {
    session
        .manifest()
        .config
        .settings
        .get(BUNDLE_SETTING)
        .and_then(|v| v.as_str())
        .map(|s| {
            BundleMode::parse(s).ok_or_else(|| {
                eyre!("session setting {BUNDLE_SETTING} = {s:?}: expected closure or slice")
            })
        })
        .transpose()
}

/// Writes the run's bundle mode to the manifest when it is not `closure` or it changed,
/// so the next resume reads the same text.
fn record_bundle_mode(session: &crate::store::Session, mode: BundleMode) -> color_eyre::Result<()> {
    let stored = stored_bundle_mode(session)?;
    if stored != Some(mode) && (stored.is_some() || mode != BundleMode::Closure) {
        session.update_manifest(|m| {
            m.config.settings.insert(
                BUNDLE_SETTING.to_string(),
                serde_json::Value::String(mode.as_str().to_string()),
            );
        })?;
    }
    Ok(())
}

/// The challenger's mutation notes from `SESSION/mutation/` (an error when there are no
/// results: the flag asks for them).
fn mutation_notes(
    session: &Path,
    project: &Path,
) -> color_eyre::Result<std::collections::BTreeMap<String, String>> {
    let results = crate::mutate::results::Results::new(session.join("mutation"));
    let (mutants, matrix, summary) = (
        results.read_mutants().map_err(|e| eyre!(e))?,
        results.read_matrix(),
        results.read_summary(),
    );
    let (Ok(matrix), Ok(summary)) = (matrix, summary) else {
        return Err(eyre!(
            "--challenger-mutation: {} has no mutation results; run `mastor mutate` first",
            session.display()
        ));
    };
    let read = |f: &str| std::fs::read_to_string(project.join(f)).unwrap_or_default();
    Ok(crate::mutate::survivors::challenger_notes(
        &mutants, &matrix, &summary, &read,
    ))
}

/// Runs `mastor run`.
pub fn run(args: RunArgs) -> color_eyre::Result<i32> {
    if args.from_survivors {
        return crate::cli::survivors::run(&args);
    }
    let quiet = args.json || !std::io::stderr().is_terminal();
    let loaded = load(&args.project, &args.pipeline)?;
    if let Some(code) = crate::cli::dry_run::before_run(&args.pipeline, args.json, &loaded)? {
        return Ok(code);
    }
    let run = prepare_loaded(loaded, &args.pipeline, progress_sink(quiet))?;
    let session = Arc::clone(&run.ctx.session);
    eprintln!(
        "mastor: {} operations selected ({} with a static handler), session {}",
        run.selected.len(),
        run.static_matched,
        session.dir().display()
    );
    let (mr_client, mr_prompts, mr_project) = (
        run.ctx.client.clone(),
        Arc::clone(&run.ctx.prompts),
        Arc::clone(&run.ctx.project),
    );
    let selected = run.selected.len();
    let runtime = tokio::runtime::Runtime::new()?;
    runtime.block_on(driver::run(run.ctx, run.options, Some(run.discovery)));
    let summary = summary::from_session(&session)?;
    let mut code = run_exit_code(&summary, selected);
    if args.json && !args.metamorphic {
        println!("{}", serde_json::to_string_pretty(&summary)?);
    } else if !args.json {
        print!("{summary}");
        println!("session: {}", session.dir().display());
    }
    if let (true, Some(url)) = (args.metamorphic, args.api_url.as_deref()) {
        let cfg = args.metamorphic_loop.config(url)?;
        let report = runtime.block_on(crate::metamorphic::session::run(
            mr_client.clone(),
            mr_prompts,
            Arc::clone(&session),
            &mr_project.spec.operations,
            &cfg,
        ))?;
        let cost = crate::cli::metamorphic::phase_cost(&mr_client);
        if args.json {
            let mut v = serde_json::to_value(&summary)?;
            v["metamorphic"] = serde_json::to_value(&report)?;
            v["metamorphic"]["counts"] =
                serde_json::to_value(crate::cli::metamorphic::paper_counts(&report))?;
            println!("{}", serde_json::to_string_pretty(&v)?);
        } else {
            crate::cli::metamorphic::print_report(&report, &cost, false, session.dir())?;
        }
        code = code.max(crate::cli::metamorphic::exit_code(&report));
        for problem in crate::cli::metamorphic::problems(&report) {
            eprintln!("mastor: {}", crate::text::escape_controls(&problem));
        }
    }
    for problem in summary.problems() {
        eprintln!("mastor: {}", crate::text::escape_controls(&problem));
    }
    if code != EXIT_OK {
        eprintln!("mastor: exit {code}: {}", crate::cli::exit_meaning(code));
    }
    Ok(code)
}

/// 0 when every selected operation completed and no group failed; `EXIT_NOTHING` when
/// none completed; `EXIT_PARTIAL` otherwise.
pub fn run_exit_code(summary: &summary::Summary, selected: usize) -> i32 {
    let code = completion_code(selected.max(summary.operations), summary.ok);
    if code == EXIT_OK && !summary.failed_groups.is_empty() {
        EXIT_PARTIAL
    } else {
        code
    }
}

/// A progress bar over agent tasks on a terminal; silent otherwise.
fn progress_sink(quiet: bool) -> EventSink {
    let bar = ProgressBar::new(0);
    if quiet {
        bar.set_draw_target(ProgressDrawTarget::hidden());
    }
    bar.set_style(
        ProgressStyle::with_template("{spinner} [{elapsed_precise}] {pos}/{len} agent tasks {msg}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    Arc::new(move |event| match event.kind {
        EventKind::AgentStarted => {
            bar.inc_length(1);
            bar.set_message(format!(
                "{} {}",
                event.agent,
                event.op_id.as_deref().unwrap_or("")
            ));
        }
        EventKind::AgentRetry => {
            bar.println(format!(
                "retry: {} {}: {}",
                event.agent,
                event.op_id.as_deref().unwrap_or(""),
                crate::text::escape_controls(event.message.as_deref().unwrap_or(""))
            ));
        }
        EventKind::AgentFinished | EventKind::AgentFailed => {
            bar.inc(1);
            if event.kind == EventKind::AgentFailed {
                bar.println(format!(
                    "failed: {} {}: {}",
                    event.agent,
                    event.op_id.as_deref().unwrap_or(""),
                    crate::text::escape_controls(event.message.as_deref().unwrap_or(""))
                ));
            }
        }
        _ => {}
    })
}
