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

use crate::cli::{EXIT_FAILURES, EXIT_INPUT, EXIT_OK};
use crate::runner::{self, RunConfig, junit, report};
use crate::store::{MANIFEST_FILE, Session, SessionLock};
use crate::suite::{self, Only, session};
use crate::text::escape_controls;
use clap::Args;
use color_eyre::eyre::{WrapErr, bail, eyre};
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
    /// restart); run before each oracle that declares `fresh_state`. Without it, those
    /// oracles run before any other oracle that writes.
    #[arg(long, value_name = "CMD")]
    pub reset: Option<String>,
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

/// Runs `mastor check`.
pub fn run(args: CheckArgs) -> color_eyre::Result<i32> {
    if !(args.timeout.is_finite() && args.timeout > 0.0) {
        bail!(
            "--timeout must be a positive number of seconds, got {}",
            args.timeout
        );
    }
    let is_session = args.input.is_dir();
    let mut unrunnable = Vec::new();
    let (suite_file, store, _lock) = if is_session {
        if !args.input.join(MANIFEST_FILE).exists() {
            bail!(
                "{} is a directory but not a mastor session (no {MANIFEST_FILE})",
                args.input.display()
            );
        }
        // One writer per session: held until the verdicts are stored.
        let lock = SessionLock::acquire(&args.input, "mastor check")?;
        let store = Session::open(&args.input)?;
        let loaded = session::read(&store)?;
        for p in &loaded.problems {
            eprintln!("warning: {}", escape_controls(p));
        }
        (loaded.suite, Some(store), Some(lock))
    } else {
        let opts = suite::LoadOptions {
            lenient: args.lenient,
        };
        let loaded = suite::load_file_with(&args.input, opts)?;
        for w in &loaded.warnings {
            eprintln!("warning: {}", escape_controls(w));
        }
        if args.lenient {
            for p in &loaded.problems {
                eprintln!("skipped: {}", escape_controls(&p.to_string()));
            }
        } else {
            unrunnable = loaded
                .problems
                .iter()
                .filter(|p| p.selected(&args.ops))
                .map(|p| {
                    let op = p.op_id.as_deref().unwrap_or_default();
                    let why = format!("cannot run this entry: {p}");
                    runner::unrunnable(&p.o_id(), op, &why, &args.base_url)
                })
                .collect();
        }
        (loaded.suite, None, None)
    };
    let only = args.only.map(Only::from).unwrap_or(if is_session {
        Only::Accepted
    } else {
        Only::All
    });
    let mut plan = suite::select(&suite_file, only, &args.ops).map_err(|e| eyre!(e))?;
    suite::filter::keep_types(
        &mut plan.oracles,
        &mut plan.multi_op,
        &mut plan.metamorphic,
        &args.types,
    );
    if let Some(store) = &store
        && !plan.metamorphic.is_empty()
    {
        plan.documented = session::documented(store);
    }
    if plan.is_empty() && unrunnable.is_empty() {
        eprintln!(
            "error: nothing to run in {} (only: {only:?}{}, {} oracle(s), {} sequence(s) and {} \
             metamorphic test(s) in total){}",
            args.input.display(),
            if args.types.is_empty() {
                String::new()
            } else {
                let t: Vec<String> = args.types.iter().map(ToString::to_string).collect();
                format!(", types: {}", t.join(","))
            },
            suite_file.oracles.len(),
            suite_file.multi_op.len(),
            suite_file.metamorphic.len(),
            if only == Only::Accepted {
                "; accept oracles in review or pass --only all"
            } else {
                ""
            }
        );
        return Ok(EXIT_INPUT);
    }
    let cfg = RunConfig {
        base_url: args.base_url.clone(),
        timeout: Duration::from_secs_f64(args.timeout),
        budget: args.budget,
        concurrency: args.concurrency as usize,
        allow_writes: args.allow_writes,
        repeat: args.repeat as usize,
        max_body: args.max_body,
        reset: args.reset.clone(),
        ..RunConfig::default()
    };
    let mut report = if plan.is_empty() {
        runner::RunReport::default()
    } else {
        let rt = tokio::runtime::Runtime::new().wrap_err("cannot start the async runtime")?;
        rt.block_on(runner::run(&plan, &cfg))?
    };
    for v in unrunnable {
        report.push(v);
    }
    if args.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        print!("{}", report::render(&report));
    }
    if let Some(path) = &args.junit_xml {
        let xml = junit::render(&report.verdicts)?;
        std::fs::write(path, xml)
            .wrap_err_with(|| format!("cannot write JUnit XML to {}", path.display()))?;
        eprintln!("JUnit XML written to {}", path.display());
    }
    if let Some(store) = &store {
        let stamped = session::save_verdicts(store, &args.base_url, &report)?;
        eprintln!(
            "verdicts stored in {}/{} and {}",
            store.dir().display(),
            session::LATEST_VERDICTS,
            stamped
        );
    }
    Ok(if report.summary.all_passed() {
        EXIT_OK
    } else {
        EXIT_FAILURES
    })
}
