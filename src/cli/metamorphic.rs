//! `mastor metamorphic`: ARMeta-style metamorphic testing from the spec alone (or with the
//! contexts and groups of an earlier `mastor run` in the same session), run against a
//! live API, with the loop's stopping criteria as flags. Also prints the report for
//! `mastor run --metamorphic`.

use crate::cli::{EXIT_FAILURES, EXIT_NOTHING, EXIT_OK, EXIT_PARTIAL};
use crate::llm::{LlmArgs, LlmClient, LlmConfig};
use crate::metamorphic::iterate::{LoopConfig, MrReport, StopCriteria, StopReason};
use crate::prompts::Prompts;
use crate::runner::RunConfig;
use crate::runner::relations::MrOutcome;
use crate::store::{Manifest, Session};
use clap::Args;
use color_eyre::eyre::eyre;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

/// Named sets of stopping criteria. `paper` is ARMeta's (plateau 5, a 30-minute time
/// budget, no iteration cap); `quick` is a short session for trying things out (plateau 2,
/// at most 5 iterations, no time budget). Explicit flags override either.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum Preset {
    #[default]
    Paper,
    Quick,
}

/// Stopping criteria and batch size, shared with `mastor run --metamorphic`.
#[derive(Debug, Clone, Args)]
pub struct LoopArgs {
    /// Stopping criteria to start from: `paper` (ARMeta: plateau 5, 30-minute budget, no
    /// iteration cap) or `quick` (plateau 2, 5 iterations).
    #[arg(long, value_enum, default_value_t = Preset::Paper)]
    pub preset: Preset,
    /// Stop after this many iterations [default: none (paper), 5 (quick)].
    #[arg(long, value_name = "N")]
    pub max_iterations: Option<usize>,
    /// Stop when this share of the spec's operations has been exercised (0..1).
    #[arg(long, default_value_t = 1.0, value_name = "SHARE")]
    pub coverage: f64,
    /// Stop after this many iterations in a row without a new test or coverage gain
    /// [default: 5 (paper), 2 (quick)].
    #[arg(long, value_name = "N")]
    pub plateau: Option<usize>,
    /// Request budget against the API for the whole session.
    #[arg(long, default_value_t = 1000, value_name = "N")]
    pub budget: usize,
    /// Time budget of the session in seconds [default: 1800 (paper), none (quick)].
    #[arg(long, value_name = "SECS")]
    pub time_budget: Option<u64>,
    /// Candidates asked for per iteration.
    #[arg(long, default_value_t = 5, value_name = "N")]
    pub batch: usize,
    /// Allow write methods against a host that is not loopback.
    #[arg(long)]
    pub allow_writes: bool,
}

impl LoopArgs {
    /// The loop configuration against `base_url`.
    pub fn config(&self, base_url: &str) -> color_eyre::Result<LoopConfig> {
        if !(0.0..=1.0).contains(&self.coverage) {
            return Err(eyre!(
                "--coverage must be between 0 and 1, got {}",
                self.coverage
            ));
        }
        let (plateau, time_budget, max_iterations) = match self.preset {
            Preset::Paper => (5, Some(1800), None),
            Preset::Quick => (2, None, Some(5)),
        };
        Ok(LoopConfig {
            criteria: StopCriteria {
                coverage: self.coverage,
                plateau: self.plateau.unwrap_or(plateau),
                request_budget: Some(self.budget),
                time_budget: self.time_budget.or(time_budget).map(Duration::from_secs),
                max_iterations: self
                    .max_iterations
                    .or(max_iterations)
                    .map_or(usize::MAX, |n| n.max(1)),
            },
            batch: self.batch.max(1),
            run: RunConfig {
                base_url: base_url.to_string(),
                allow_writes: self.allow_writes,
                ..RunConfig::default()
            },
        })
    }
}

/// Arguments of `mastor metamorphic`.
#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  mastor metamorphic tests/fixtures/petstore-jdk/openapi.json --base-url http://127.0.0.1:8080\n  mastor metamorphic . --base-url http://127.0.0.1:8080 --coverage 0.8 --plateau 2 --budget 300"
)]
pub struct MetamorphicArgs {
    /// A project directory (its spec is found there) or a spec file.
    pub target: PathBuf,
    /// Base URL of the API under test.
    #[arg(long, value_name = "URL")]
    pub base_url: String,
    /// Session directory (default: .mastor next to the spec or in the project).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Directory with prompt overrides (mr_generator.md, mr_refiner.md).
    #[arg(long)]
    pub prompts: Option<PathBuf>,
    /// Print the report as JSON.
    #[arg(long)]
    pub json: bool,
    /// Base URL of the model's OpenAI-compatible API [env: MASTOR_BASE_URL].
    #[arg(long, value_name = "URL")]
    pub llm_base_url: Option<String>,
    /// Model name [env: MASTOR_MODEL].
    #[arg(long, value_name = "NAME")]
    pub model: Option<String>,
    #[command(flatten)]
    pub layers: crate::llm::LayerArgs,
    /// Also export the session's metamorphic tests (rejected ones left out) as a Gherkin
    /// + behave suite into this directory.
    #[arg(long, value_name = "DIR")]
    pub gherkin: Option<PathBuf>,
    #[command(flatten)]
    pub loop_args: LoopArgs,
}

/// Writes the session's metamorphic tests, minus rejected ones (edited ones in their
/// edited form), as a behave suite: the same path as `mastor export --format gherkin
/// --all`, with the documented statuses of the spec this run used.
pub fn export_session_gherkin(
    session: &Session,
    documented: &crate::runner::relations::Documented,
    dir: &Path,
) -> color_eyre::Result<usize> {
    let mut input = crate::export::load_session(session.dir(), crate::export::Selection::All)?;
    for problem in &input.problems {
        eprintln!("mastor: {problem}");
    }
    input.documented = documented.clone();
    let report = crate::export::export(&input, crate::export::Format::Gherkin, dir)?;
    Ok(report.items.len())
}

/// Runs `mastor metamorphic`.
pub fn run(args: MetamorphicArgs) -> color_eyre::Result<i32> {
    let (spec_path, root) = if args.target.is_dir() {
        let found = crate::spec::find_spec(&args.target)?;
        (found.path, args.target.clone())
    } else {
        let parent = args
            .target
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or(Path::new("."))
            .to_path_buf();
        (args.target.clone(), parent)
    };
    let spec = crate::spec::load(&spec_path)?;
    let out = args.out.clone().unwrap_or_else(|| root.join(".mastor"));
    let llm = LlmArgs {
        base_url: args.llm_base_url.clone(),
        model: args.model.clone(),
        layers: args.layers.clone(),
        ..LlmArgs::default()
    };
    let mut config = LlmConfig::resolve(None, &LlmConfig::process_env(), &llm)?;
    if config.cache_dir.is_none() {
        config.cache_dir = Some(out.join("cache"));
    }
    let manifest = Manifest::new(root.display().to_string(), spec_path.display().to_string());
    // One writer per session: held until this command is done with it.
    let (_lock, session) = crate::cli::open_model_session(&out, manifest, "mastor metamorphic")?;
    let prompts = match &args.prompts {
        Some(dir) => Prompts::with_overrides(dir)?,
        None => Prompts::embedded(),
    };
    let cfg = args.loop_args.config(&args.base_url)?;
    let client = LlmClient::new(config).map_err(|e| eyre!("{e}"))?;
    let ledger_client = client.clone();
    let runtime = tokio::runtime::Runtime::new()?;
    let session = Arc::new(session);
    let report = runtime.block_on(crate::metamorphic::session::run(
        client,
        Arc::new(prompts),
        Arc::clone(&session),
        &spec.operations,
        &cfg,
    ))?;
    let cost = crate::cli::metamorphic::phase_cost(&ledger_client);
    print_report(&report, &cost, args.json, &out)?;
    if let Some(dir) = &args.gherkin {
        let documented = crate::metamorphic::check::SpecView::new(&spec.operations).documented();
        let n = export_session_gherkin(&session, &documented, dir)?;
        eprintln!("gherkin: {n} scenarios in {}", dir.display());
    }
    let code = exit_code(&report);
    for problem in problems(&report) {
        eprintln!("mastor: {}", crate::text::escape_controls(&problem));
    }
    if code != EXIT_OK {
        eprintln!("mastor: exit {code}: {}", crate::cli::exit_meaning(code));
    }
    Ok(code)
}

/// Model cost of the metamorphic phase alone (a `run --metamorphic` client also carries
/// the pipeline's calls).
pub fn phase_cost(client: &LlmClient) -> crate::llm::Totals {
    client
        .ledger()
        .by_phase
        .get("metamorphic")
        .cloned()
        .unwrap_or_default()
}

/// The exit code of a metamorphic session: `EXIT_NOTHING` when the generator failed
/// before any test existed (model unreachable, garbage answers), `EXIT_PARTIAL` when it
/// failed later (the tests made so far did run), 1 when a relation was violated or a
/// test could not be executed, else 0.
pub fn exit_code(report: &MrReport) -> i32 {
    if report.stop == StopReason::GeneratorFailed {
        return if report.tests.is_empty() {
            EXIT_NOTHING
        } else {
            EXIT_PARTIAL
        };
    }
    if report.outcomes.relation_violated + report.outcomes.execution_failed > 0 {
        EXIT_FAILURES
    } else {
        EXIT_OK
    }
}

/// Every reason a metamorphic session did not fully succeed, one line each, for stderr
/// (the JSON report holds them too, but a reader of the terminal must not have to look).
pub fn problems(report: &MrReport) -> Vec<String> {
    let mut out = Vec::new();
    for it in &report.iterations {
        if let Some(e) = &it.error {
            out.push(format!(
                "metamorphic iteration {}: generator failed: {e}",
                it.iteration
            ));
        }
    }
    if report.stop == StopReason::GeneratorFailed && report.tests.is_empty() {
        out.push("metamorphic: no test could be generated, so nothing ran".to_string());
    }
    out
}

/// ARMeta's counts: HLMTs (high-level metamorphic tests) the generator wrote, those
/// dropped by the spec checks and the refiner, duplicates of earlier tests dropped
/// before execution, tests kept, and EMTs (executable tests) actually run.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct PaperCounts {
    pub hlmts_generated: usize,
    pub dropped: usize,
    pub duplicates_dropped: usize,
    pub kept: usize,
    pub emts_executed: usize,
}

/// The counts of `report`, comparable with the paper's.
pub fn paper_counts(report: &MrReport) -> PaperCounts {
    PaperCounts {
        hlmts_generated: report.iterations.iter().map(|i| i.candidates).sum(),
        dropped: report.iterations.iter().map(|i| i.dropped.len()).sum(),
        duplicates_dropped: report.iterations.iter().map(|i| i.duplicates.len()).sum(),
        kept: report.tests.len(),
        emts_executed: report.verdicts.len(),
    }
}

/// ARMeta's fault-detection counts of `report`'s failures (relation violated or
/// execution failed) against the judgements in the session at `session_dir`: failed,
/// TPFT, FPFT, unjudged and TPR = TPFT / failed, unjudged failures in the denominator
/// (see `positives`). A judgement counts only for the run it judged, so a fresh loop's
/// failures start unjudged; they are judged in `mastor tui` (T / F).
pub fn report_positives(
    report: &MrReport,
    session_dir: &Path,
) -> color_eyre::Result<crate::positives::PositiveCounts> {
    let judgements = if session_dir.join(crate::store::MANIFEST_FILE).is_file() {
        Session::open(session_dir)?.read_judgements()?
    } else {
        Default::default()
    };
    let failures = crate::positives::report_failures(report);
    Ok(
        crate::positives::count(failures.iter().map(|(o, v)| (o.as_str(), v)), &judgements)
            .metamorphic,
    )
}

/// Prints the session summary: iterations, tests, coverage, outcomes, cost.
pub fn print_report(
    report: &MrReport,
    cost: &crate::llm::Totals,
    json: bool,
    session_dir: &Path,
) -> color_eyre::Result<()> {
    let positives = report_positives(report, session_dir)?;
    if json {
        let mut v = serde_json::to_value(report)?;
        v["positives"] = serde_json::to_value(positives)?;
        v["cost"] = serde_json::to_value(cost)?;
        v["counts"] = serde_json::to_value(paper_counts(report))?;
        v["session"] = serde_json::Value::from(session_dir.display().to_string());
        println!("{}", serde_json::to_string_pretty(&v)?);
        return Ok(());
    }
    let o = &report.outcomes;
    println!(
        "metamorphic: {} iterations (stopped: {}), {} tests, coverage {:.0}% ({}/{} operations), {} requests",
        report.iterations.len(),
        serde_json::to_value(report.stop)?
            .as_str()
            .unwrap_or_default(),
        report.tests.len(),
        report.coverage * 100.0,
        report.covered.len(),
        report.operations,
        report.requests
    );
    println!(
        "outcomes: {} passed, {} relation violated, {} execution failed",
        o.passed, o.relation_violated, o.execution_failed
    );
    let c = paper_counts(report);
    println!(
        "HLMTs: {} generated, {} dropped by the checks, {} duplicates dropped before \
         execution, {} kept; EMTs executed: {}",
        c.hlmts_generated, c.dropped, c.duplicates_dropped, c.kept, c.emts_executed
    );
    println!("{}", positives.line());
    println!(
        "model: {} calls, {} + {} tokens, ${:.4}",
        cost.calls, cost.prompt_tokens, cost.completion_tokens, cost.cost_usd
    );
    for v in &report.verdicts {
        let tag = match v.outcome {
            MrOutcome::Passed => "PASS",
            MrOutcome::RelationViolated => "VIOLATED",
            MrOutcome::ExecutionFailed => "EXEC-FAIL",
        };
        if v.reason.is_empty() {
            println!("  {tag:<9} {}", v.o_id);
        } else {
            println!("  {tag:<9} {}: {}", v.o_id, v.reason);
        }
    }
    println!("session: {}", session_dir.display());
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser)]
    struct Cli {
        #[command(flatten)]
        l: LoopArgs,
    }

    fn criteria(args: &[&str]) -> StopCriteria {
        let cli = Cli::parse_from(std::iter::once("x").chain(args.iter().copied()));
        cli.l.config("http://127.0.0.1:1").unwrap().criteria
    }

    #[test]
    fn defaults_are_armetas_and_quick_is_a_named_preset() {
        let paper = criteria(&[]);
        assert_eq!(paper.plateau, 5);
        assert_eq!(paper.time_budget, Some(Duration::from_secs(1800)));
        assert_eq!(paper.max_iterations, usize::MAX, "no iteration cap");
        let quick = criteria(&["--preset", "quick"]);
        assert_eq!(
            (quick.plateau, quick.time_budget, quick.max_iterations),
            (2, None, 5)
        );
        let mixed = criteria(&["--preset", "quick", "--plateau", "3", "--time-budget", "60"]);
        assert_eq!(mixed.plateau, 3);
        assert_eq!(mixed.time_budget, Some(Duration::from_secs(60)));
        assert_eq!(mixed.max_iterations, 5);
    }
}
