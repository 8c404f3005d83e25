//! `mastor check`: run a session's (or a suite file's) oracles against a live API.
//!
//! Metamorphic tests run after the sequences; their verdict (o_id `mr#<test_id>`) is a
//! pass, a failure (`relation violated: ...`, the test's finding) or an error
//! (`execution failed: ...`, e.g. a 5xx, an undocumented status or a timeout before any
//! relation could be checked). For a session, documented statuses come from its spec.
//!
//! Input errors (unreadable suite, unknown `--op`, bad or unreachable base URL, writes
//! refused, nothing selected) exit 2 before any oracle runs; oracle failures or errors
//! exit 1. A suite entry that cannot be run (malformed assertion, missing op_id, ...) is
//! an error verdict in every report, naming the entry and what is wrong, so it fails the
//! run; `--lenient` skips such entries with a warning instead. A sequence step whose
//! capture cannot be read from its response fails, and the steps after it are not run.
//!
//! `--isolate-failures` re-runs each failing oracle alone after `--reset` and labels it
//! `wrong` or `order_dependent` (text, JSON `isolation`, JUnit message). The label does
//! not change the outcome: an order-dependent oracle still fails the run (exit 1),
//! because the suite as written does not pass; the label says to fix its state handling
//! (`fresh_state`, a sequence that creates its own record, or `--reset-scope each`)
//! rather than its assertion.

use crate::cli::{EXIT_FAILURES, EXIT_INPUT, EXIT_OK};
use crate::runner::{self, RunConfig, junit, report};
use crate::suite::run::{Event, RunError, RunOptions};
use crate::suite::{self, Only, session};
use crate::text::escape_controls;
use clap::Args;
use color_eyre::eyre::{WrapErr, bail};
use std::path::PathBuf;
use std::time::Duration;

/// Arguments of `mastor check`.
#[derive(Debug, Args)]
#[command(after_help = "Examples:\n  \
    mastor check .mastor --base-url http://127.0.0.1:8080\n  \
    mastor check suite.json --base-url http://localhost:8080/api --op 'GET /pets/{id}' \
--repeat 3 --junit-xml report.xml")]
pub struct CheckArgs {
    /// A session directory (runs accepted and edited oracles) or a suite file (runs all).
    pub input: PathBuf,
    /// Base URL of the running API, optionally with a path prefix.
    #[arg(long, env = "MASTOR_BASE_URL")]
    pub base_url: String,
    /// Which oracles to run (default: `accepted` for a session, `all` for a suite file).
    #[arg(long, value_enum)]
    pub only: Option<OnlyArg>,
    /// Run only oracles of this operation (`GET /pets/{id}`) or group; repeatable.
    #[arg(long = "op", value_name = "OP")]
    pub ops: Vec<String>,
    /// Run only these oracle types: status, field (an oracle's primary assertion type,
    /// as the run summary counts them), multi (sequences), metamorphic.
    #[arg(long, value_delimiter = ',', value_name = "TYPES",
          value_parser = crate::cli::export::parse_type)]
    pub types: Vec<crate::suite::filter::OracleType>,
    /// Run each oracle N times and flag assertions that differ between runs.
    #[arg(long, default_value_t = 1, value_name = "N",
          value_parser = clap::value_parser!(u32).range(1..=100))]
    pub repeat: u32,
    /// Also write a JUnit XML report to FILE.
    #[arg(long, value_name = "FILE")]
    pub junit_xml: Option<PathBuf>,
    /// Print verdicts and summary as JSON instead of text.
    #[arg(long)]
    pub json: bool,
    /// Per-request timeout in seconds.
    #[arg(long, default_value_t = 10.0, value_name = "SECS")]
    pub timeout: f64,
    /// Stop after N requests; the rest become errors ("budget exhausted").
    #[arg(long, value_name = "N")]
    pub budget: Option<usize>,
    /// Read-only single-operation oracles in flight at once (oracles that write run one
    /// at a time, in suite order).
    #[arg(long, default_value_t = 8, value_name = "N",
          value_parser = clap::value_parser!(u32).range(1..=256))]
    pub concurrency: u32,
    /// Shell command that restores the API's seed data (a reset endpoint, a SQL script, a
    /// restart); run before each oracle that declares `fresh_state` (or before every
    /// oracle with `--reset-scope each`). Without it, `fresh_state` oracles run before any
    /// other oracle that writes.
    #[arg(long, value_name = "CMD")]
    pub reset: Option<String>,
    /// Before which oracles `--reset` runs: `fresh` (those declaring `fresh_state`) or
    /// `each` (every oracle, sequence and metamorphic test, which then run one at a time).
    #[arg(long, value_enum, default_value_t = ResetScopeArg::Fresh, value_name = "SCOPE")]
    pub reset_scope: ResetScopeArg,
    /// Longest a `--reset` command may run before it is killed (its oracle is then an
    /// error naming the command).
    #[arg(long, default_value_t = runner::DEFAULT_RESET_TIMEOUT.as_secs_f64(), value_name = "SECS")]
    pub reset_timeout: f64,
    /// After the run, re-run each failing oracle alone right after `--reset` (required)
    /// and label the failure `wrong` (still fails alone) or `order_dependent` (passes
    /// alone: other oracles changed its data). Labels only: the exit code still counts
    /// every failure.
    #[arg(long)]
    pub isolate_failures: bool,
    /// Allow POST/PUT/PATCH/DELETE against a host that is not loopback.
    #[arg(long)]
    pub allow_writes: bool,
    /// Largest response body read, in bytes; a larger one is an error for its oracle.
    #[arg(long, default_value_t = runner::DEFAULT_MAX_BODY, value_name = "BYTES",
          value_parser = positive_bytes)]
    pub max_body: usize,
    /// Skip suite entries that cannot be run (with a warning) instead of reporting each
    /// as an error verdict, and ignore unknown keys in the suite file (with a warning).
    #[arg(long)]
    pub lenient: bool,
}

/// A `--max-body` value: a positive number of bytes.
fn positive_bytes(s: &str) -> Result<usize, String> {
    match s.trim().parse::<usize>() {
        Ok(n) if n > 0 => Ok(n),
        _ => Err(format!("`{s}` is not a positive number of bytes")),
    }
}

/// `--reset-scope` values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ResetScopeArg {
    /// Before oracles that declare `fresh_state`.
    Fresh,
    /// Before every oracle, sequence and metamorphic test.
    Each,
}

impl From<ResetScopeArg> for runner::ResetScope {
    fn from(a: ResetScopeArg) -> Self {
        match a {
            ResetScopeArg::Fresh => runner::ResetScope::Fresh,
            ResetScopeArg::Each => runner::ResetScope::Each,
        }
    }
}

/// Checks the reset options together: `--isolate-failures` and `--reset-scope each` need
/// a `--reset` command (isolation without fresh state would re-run on the state that made
/// the oracle fail), and the reset timeout must be a positive number.
fn check_reset_args(args: &CheckArgs) -> color_eyre::Result<()> {
    if args.reset.as_deref().is_none_or(|c| c.trim().is_empty()) {
        if args.isolate_failures {
            bail!(
                "--isolate-failures needs --reset CMD: each failing oracle is re-run alone \
                 right after that command restores the API's seed data"
            );
        }
        if args.reset_scope == ResetScopeArg::Each {
            bail!("--reset-scope each needs --reset CMD (the command to run before each oracle)");
        }
    }
    if !(args.reset_timeout.is_finite() && args.reset_timeout > 0.0) {
        bail!(
            "--reset-timeout must be a positive number of seconds, got {}",
            args.reset_timeout
        );
    }
    Ok(())
}

/// `--only` values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum OnlyArg {
    /// Accepted and edited oracles (edited ones in their edited form).
    Accepted,
    /// Every oracle, whatever its review state.
    All,
}

impl From<OnlyArg> for Only {
    fn from(a: OnlyArg) -> Self {
        match a {
            OnlyArg::Accepted => Only::Accepted,
            OnlyArg::All => Only::All,
        }
    }
}

/// Runs `mastor check`: the shared session run ([`suite::run`]), printed.
pub fn run(args: CheckArgs) -> color_eyre::Result<i32> {
    if !(args.timeout.is_finite() && args.timeout > 0.0) {
        bail!(
            "--timeout must be a positive number of seconds, got {}",
            args.timeout
        );
    }
    check_reset_args(&args)?;
    let opts = RunOptions {
        config: RunConfig {
            base_url: args.base_url.clone(),
            timeout: Duration::from_secs_f64(args.timeout),
            budget: args.budget,
            concurrency: args.concurrency as usize,
            allow_writes: args.allow_writes,
            repeat: args.repeat as usize,
            max_body: args.max_body,
            reset: args.reset.clone(),
            reset_scope: args.reset_scope.into(),
            reset_timeout: Duration::from_secs_f64(args.reset_timeout),
            ..RunConfig::default()
        },
        only: args.only.map(Only::from),
        ids: Default::default(),
        ops: args.ops.clone(),
        types: args.types.clone(),
        isolate_failures: args.isolate_failures,
        lenient: args.lenient,
    };
    let events = |e: Event| match e {
        Event::Warning(w) => eprintln!("warning: {}", escape_controls(&w)),
        Event::Skipped(p) => eprintln!("skipped: {}", escape_controls(&p)),
        Event::Progress { .. } => {}
        Event::Isolating { failing, command } => eprintln!(
            "isolating {failing} failing oracle(s): each re-run alone after `{}`",
            escape_controls(&command)
        ),
        Event::Inconclusive { o_id, note } => eprintln!(
            "warning: isolation of {} inconclusive: {}",
            escape_controls(&o_id),
            escape_controls(&note)
        ),
    };
    let prepared = match suite::run::prepare(&args.input, &opts, &events) {
        Ok(p) => p,
        Err(e @ RunError::NothingToRun(_)) => {
            eprintln!("error: {e}");
            return Ok(EXIT_INPUT);
        }
        Err(e) => return Err(e.into()),
    };
    let checked = suite::run::execute(prepared, &opts, &events)?;
    let report = &checked.report;
    if args.json {
        println!("{}", serde_json::to_string_pretty(report)?);
    } else {
        print!("{}", report::render(report));
    }
    if let Some(path) = &args.junit_xml {
        let xml = junit::render(&report.verdicts)?;
        std::fs::write(path, xml)
            .wrap_err_with(|| format!("cannot write JUnit XML to {}", path.display()))?;
        eprintln!("JUnit XML written to {}", path.display());
    }
    if let Some(stored) = &checked.stored {
        eprintln!(
            "verdicts stored in {}/{} and {}",
            stored.dir.display(),
            session::LATEST_VERDICTS,
            stored.file
        );
    }
    Ok(if report.summary.all_passed() {
        EXIT_OK
    } else {
        EXIT_FAILURES
    })
}
