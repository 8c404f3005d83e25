//! `mastor mutate`: seeds faults into the project's Java source and measures which the
//! suite catches (the mutation score), per operation, per operator and per oracle.
//!
//! Exit codes follow `check`: 0 the analysis ran and every counted oracle passed on the
//! original; 1 some oracle fails or flips on the original (it is excluded and listed),
//! or the score is under `--fail-under`; 2 usage or input error (a bad `--fail-under`,
//! a shard set `merge` refuses, a damaged journal); 3 some mutants could
//! not be run (each named on stderr; the others are stored); 4 the original program did
//! not build, start or run, so nothing was measured.

use crate::cli::check::OnlyArg;
use crate::cli::{EXIT_FAILURES, EXIT_INPUT, EXIT_NOTHING, EXIT_OK, EXIT_PARTIAL};
use crate::mutate::analysis::{self, Options, Report};
use crate::mutate::mutants::Shard;
use crate::mutate::options as defaults;
use crate::mutate::{Status, results};
use crate::store::SessionLock;
use crate::text::escape_controls;
use clap::{Args, Subcommand};
use color_eyre::eyre::{WrapErr, eyre};
use std::path::PathBuf;
use std::time::Duration;

/// Arguments of `mastor mutate`.
#[derive(Debug, Args)]
#[command(
    args_conflicts_with_subcommands = true,
    after_help = "Examples:\n  \
    mastor mutate .mastor\n  \
    mastor mutate suite.json --project api --out mut --jobs 2 --max-mutants 60\n  \
    mastor mutate suite.json --project api --out shard0 --shard 0/2 && \
mastor mutate merge --out mut shard0 shard1"
)]
pub struct MutateArgs {
    #[command(subcommand)]
    pub command: Option<MutateCommand>,
    #[command(flatten)]
    pub run: MutateRunArgs,
}

/// `mastor mutate merge`.
#[derive(Debug, Subcommand)]
pub enum MutateCommand {
    /// Combine the results of `--shard` runs into one matrix and summary.
    Merge {
        /// Where the merged results go.
        #[arg(long)]
        out: PathBuf,
        /// The shards' result directories.
        #[arg(required = true)]
        shards: Vec<PathBuf>,
        /// Print the summary as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Mark a survivor equivalent (no oracle could tell it from the original): it leaves
    /// the score's denominator. The summary is recomputed without running anything.
    Equivalent {
        /// A session directory (its mutation/) or a results directory.
        dir: PathBuf,
        /// The mutant's id, as `mutate` prints it.
        mutant: String,
        /// Why it is equivalent (kept with the mark).
        #[arg(long, default_value = "")]
        note: String,
        /// Withdraw an earlier mark instead.
        #[arg(long)]
        undo: bool,
    },
}

/// The analysis' own flags.
#[derive(Debug, Args)]
pub struct MutateRunArgs {
    /// A session directory (its accepted oracles) or a suite file (all its oracles).
    pub input: Option<PathBuf>,
    /// The Java project (default: the session's project).
    #[arg(long)]
    pub project: Option<PathBuf>,
    /// The OpenAPI spec, to find a suite file's bundles (default: found in the project).
    #[arg(long)]
    pub spec: Option<PathBuf>,
    /// Which oracles count (default: accepted for a session, all for a suite file).
    #[arg(long, value_enum)]
    pub only: Option<OnlyArg>,
    /// Only oracles of this operation or group; repeatable.
    #[arg(long = "op", value_name = "OP")]
    pub ops: Vec<String>,
    /// Mutate the project files matching this glob (project-relative; repeatable)
    /// instead of the files in the bundles of the suite's operations.
    #[arg(long = "files", value_name = "GLOB")]
    pub files: Vec<String>,
    /// Only these operators (comma-separated names, as `--list` prints them).
    #[arg(long = "operator", value_delimiter = ',', value_name = "NAME")]
    pub operators: Vec<crate::mutate::Operator>,
    /// At most N mutants: a sample spread over operators, the same on every run.
    #[arg(long, value_name = "N")]
    pub max_mutants: Option<usize>,
    /// Seed of that sample.
    #[arg(long, default_value_t = defaults::SEED)]
    pub seed: u64,
    /// Only mutants on lines a unified diff adds or changes (`git diff main > d`).
    #[arg(long, value_name = "FILE")]
    pub in_diff: Option<PathBuf>,
    /// Run only the k-th of n slices of the mutant list (0-based, as cargo-mutants).
    #[arg(long, value_name = "K/N")]
    pub shard: Option<Shard>,
    /// Build command for a copy of the project ({dir}); default for a project without
    /// Maven or Gradle: javac of the changed file against the original classes.
    #[arg(long, value_name = "CMD")]
    pub build: Option<String>,
    /// The project's dependencies for the javac fast path: jars and class directories
    /// joined by `:` (a `dir/*` entry is every jar in dir), or `@FILE` naming a file of
    /// them (`:` or one a line; `mvn dependency:build-classpath` output). Without it,
    /// `classpath.txt` in the project, else its `lib/*.jar` (no Maven or Gradle), is used.
    /// Each mutant compiles its changed file against the original classes plus these;
    /// `{classpath}` in --start carries both.
    #[arg(long, value_name = "CP")]
    pub classpath: Option<String>,
    /// Longest wait for one build, in seconds (the original's or a mutant's); past it
    /// the build's whole process group is killed.
    #[arg(long, default_value_t = defaults::BUILD_TIMEOUT_SECS, value_name = "SECS")]
    pub build_timeout: f64,
    /// The Java sources' encoding: UTF-8 (default) or ISO-8859-1; files that do not
    /// decode are not mutated, and named.
    #[arg(long, default_value = defaults::ENCODING, value_name = "NAME")]
    pub encoding: crate::mutate::encoding::Encoding,
    /// Start command ({dir}, {port}, {classpath}; PORT is set too); default for javac
    /// builds: `java -cp {classpath} <the main class> {port}`. With javac, {classpath} is
    /// the mutant's classes, the original classes, src/main/resources and the
    /// dependencies; with --build, the --classpath entries.
    #[arg(long, value_name = "CMD")]
    pub start: Option<String>,
    /// Path requested until the API answers (any status).
    #[arg(long, default_value = defaults::READY_PATH, value_name = "PATH")]
    pub ready: String,
    /// Longest wait for the API to answer after a start, in seconds.
    #[arg(long, default_value_t = defaults::READY_TIMEOUT_SECS, value_name = "SECS")]
    pub ready_timeout: f64,
    /// Longest suite run on one mutant, in seconds (default: 5x the baseline run, at
    /// least 10 s); a mutant that exceeds it is killed by timeout.
    #[arg(long, value_name = "SECS")]
    pub timeout: Option<f64>,
    /// Per-request timeout in seconds.
    #[arg(long, default_value_t = defaults::REQUEST_TIMEOUT_SECS, value_name = "SECS")]
    pub request_timeout: f64,
    /// Mutants run at once, each on its own server and port.
    #[arg(long, default_value_t = defaults::JOBS as u32, value_parser = clap::value_parser!(u32).range(1..=64))]
    pub jobs: u32,
    /// Results directory (default: the session's mutation/; required for a suite file).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// List the mutants and stop (nothing is built or run).
    #[arg(long)]
    pub list: bool,
    /// Exit 1 when the mutation score (0-100) is under this.
    #[arg(long, value_name = "PERCENT")]
    pub fail_under: Option<f64>,
    /// Print the summary as JSON.
    #[arg(long)]
    pub json: bool,
}

/// Runs `mastor mutate`.
pub fn run(args: MutateArgs) -> color_eyre::Result<i32> {
    if let Some(MutateCommand::Merge { out, shards, json }) = args.command {
        let summary = match crate::mutate::merge::merge(&shards, &out) {
            Ok((_, summary)) => summary,
            Err(e) => {
                eprintln!(
                    "error: mutate merge refused: {}",
                    escape_controls(&e.to_string())
                );
                return Ok(EXIT_INPUT);
            }
        };
        if json {
            println!("{}", serde_json::to_string_pretty(&summary)?);
        } else {
            eprintln!("merged {} shard(s) into {}", shards.len(), out.display());
            print!("{}", render_summary(&summary));
        }
        return Ok(EXIT_OK);
    }
    if let Some(MutateCommand::Equivalent {
        dir,
        mutant,
        note,
        undo,
    }) = args.command
    {
        return mark_equivalent(&dir, &mutant, note, undo);
    }
    let a = args.run;
    let Some(input) = a.input.clone() else {
        eprintln!("error: name a session directory or a suite file (or `mutate merge`)");
        return Ok(EXIT_INPUT);
    };
    for (name, v) in [
        ("--ready-timeout", Some(a.ready_timeout)),
        ("--timeout", a.timeout),
    ]
    .into_iter()
    .chain([
        ("--request-timeout", Some(a.request_timeout)),
        ("--build-timeout", Some(a.build_timeout)),
    ]) {
        if let Some(v) = v
            && !(v.is_finite() && v > 0.0)
        {
            eprintln!("error: {name} must be a positive number of seconds, got {v}");
            return Ok(EXIT_INPUT);
        }
    }
    if let Some(p) = a.fail_under
        && !(p.is_finite() && (0.0..=100.0).contains(&p))
    {
        eprintln!("error: --fail-under must be a percentage from 0 to 100, got {p}");
        return Ok(EXIT_INPUT);
    }
    // Resolved once, to absolute entries: the stored options of a session then replay
    // the same class path from any directory.
    let classpath = match a.classpath.as_deref().map(|v| {
        let cwd = std::env::current_dir().unwrap_or_default();
        crate::mutate::classpath::given(v, &cwd)
    }) {
        None => None,
        Some(Ok(cp)) => Some(cp.joined()),
        Some(Err(e)) => {
            eprintln!("error: {}", escape_controls(&e.to_string()));
            return Ok(EXIT_INPUT);
        }
    };
    let opts = Options {
        project: a.project,
        spec: a.spec,
        only: a.only.map(Into::into),
        ops: a.ops,
        files: a.files,
        operators: a.operators,
        max_mutants: a.max_mutants,
        seed: a.seed,
        in_diff: a.in_diff,
        shard: a.shard,
        build: a.build,
        classpath,
        start: a.start,
        ready: a.ready,
        ready_timeout: Duration::from_secs_f64(a.ready_timeout),
        timeout: a.timeout.map(Duration::from_secs_f64),
        jobs: a.jobs as usize,
        request_timeout: Duration::from_secs_f64(a.request_timeout),
        build_timeout: Duration::from_secs_f64(a.build_timeout),
        encoding: a.encoding,
        out: a.out,
        ..Options::for_session(input)
    };
    let target = match analysis::load_target(&opts) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("error: {}", escape_controls(&e.to_string()));
            return Ok(EXIT_INPUT);
        }
    };
    for w in &target.warnings {
        eprintln!("warning: {}", escape_controls(w));
    }
    let (mutants, skipped) = match analysis::list_mutants(&target, &opts) {
        Ok(m) => m,
        Err(e) => {
            eprintln!("error: {}", escape_controls(&e.to_string()));
            return Ok(EXIT_INPUT);
        }
    };
    for (file, why) in &skipped {
        eprintln!("warning: {file} not mutated: {}", escape_controls(why));
    }
    if a.list {
        for m in &mutants {
            println!(
                "{}\t{}\t{}:{}:{}\t{} -> {}",
                m.id,
                m.operator,
                m.file,
                m.line,
                m.column,
                quoted(&m.before),
                quoted(&m.after)
            );
        }
        return Ok(EXIT_OK);
    }
    // How to build and start is an input question: answered before anything runs.
    if let Err(e) = analysis::setup(&target, &opts) {
        eprintln!("error: {}", escape_controls(&e.to_string()));
        return Ok(EXIT_INPUT);
    }
    let _lock = if opts.input.is_dir() {
        Some(SessionLock::acquire(&opts.input, "mastor mutate")?)
    } else {
        None
    };
    match target.results.journal_notes() {
        Ok(notes) => {
            for n in notes {
                eprintln!("warning: {}", escape_controls(&n));
            }
        }
        Err(e) => {
            eprintln!("error: {e}; move the file away to start afresh");
            return Ok(EXIT_INPUT);
        }
    }
    eprintln!(
        "{} mutant(s) in {} file(s); results in {}",
        mutants.len(),
        mutants
            .iter()
            .map(|m| &m.file)
            .collect::<std::collections::BTreeSet<_>>()
            .len(),
        target.results.dir.display()
    );
    let total = mutants.len();
    let done = std::sync::atomic::AtomicUsize::new(0);
    let progress = |m: &crate::mutate::Mutant, o: &crate::mutate::MutantOutcome| {
        let n = done.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
        eprintln!(
            "[{n}] {} {:<9} {} {}:{}",
            m.id,
            o.status.name(),
            m.operator,
            m.file,
            m.line
        );
    };
    // Ctrl-C, SIGTERM or a closed terminal stop every server and build mastor started;
    // the runs finished so far are in runs.jsonl already, so a rerun resumes.
    if let Err(e) = crate::runner::signals::stop_groups_on_signals(|words| {
        eprintln!("mastor mutate {words}; finished runs are kept and a rerun reuses them");
    }) {
        eprintln!("warning: {e}");
    }
    let rt = tokio::runtime::Runtime::new().wrap_err("cannot start the async runtime")?;
    let result = rt.block_on(analysis::execute(&target, &opts, mutants, &progress));
    // A stop signal killed the servers: what failed after it is not a result.
    crate::runner::signals::park_if_stopping();
    let report = match result {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: {}", escape_controls(&e.to_string()));
            return Ok(EXIT_NOTHING);
        }
    };
    let _ = total;
    if opts.shard.is_none()
        && let Err(e) = crate::mutate::analysis::Settings::of(&opts).write(&target.results.dir)
    {
        eprintln!("warning: {}", escape_controls(&e.to_string()));
    }
    for w in &report.warnings {
        eprintln!("warning: {}", escape_controls(w));
    }
    for e in &report.errors {
        eprintln!("error: {}", escape_controls(e));
    }
    if a.json {
        println!("{}", serde_json::to_string_pretty(&report.summary)?);
    } else {
        print!("{}", render_report(&report));
    }
    let below = match (a.fail_under, report.summary.total.score) {
        (Some(min), Some(score)) => score * 100.0 < min,
        (Some(_), None) => true,
        _ => false,
    };
    Ok(if !report.errors.is_empty() {
        EXIT_PARTIAL
    } else if !report.summary.excluded.is_empty() || below {
        EXIT_FAILURES
    } else {
        EXIT_OK
    })
}

/// `mastor mutate equivalent`: appends the mark and recomputes the summary.
fn mark_equivalent(
    dir: &std::path::Path,
    id: &str,
    note: String,
    undo: bool,
) -> color_eyre::Result<i32> {
    let is_session = dir.join(crate::store::MANIFEST_FILE).exists();
    let results = results::Results::new(if is_session {
        dir.join("mutation")
    } else {
        dir.to_path_buf()
    });
    let _lock = if is_session {
        Some(SessionLock::acquire(dir, "mastor mutate equivalent")?)
    } else {
        None
    };
    match results.journal_notes() {
        Ok(notes) => {
            for n in notes {
                eprintln!("warning: {}", escape_controls(&n));
            }
        }
        Err(e) => {
            eprintln!("error: {}", escape_controls(&e.to_string()));
            return Ok(EXIT_INPUT);
        }
    }
    let mutants = match results.read_mutants() {
        Ok(m) if !m.is_empty() => m,
        Ok(_) => {
            eprintln!(
                "error: {} holds no mutation results; run `mastor mutate` first",
                results.dir.display()
            );
            return Ok(EXIT_INPUT);
        }
        Err(e) => {
            eprintln!("error: {}", escape_controls(&e.to_string()));
            return Ok(EXIT_INPUT);
        }
    };
    let Some(m) = mutants.iter().find(|m| m.id == id) else {
        eprintln!(
            "error: no mutant `{}` in {}",
            escape_controls(id),
            results.dir.display()
        );
        return Ok(EXIT_INPUT);
    };
    let status = results.read_matrix().ok().and_then(|mx| {
        mx.mutants
            .into_iter()
            .find(|r| r.id == id)
            .map(|r| r.status)
    });
    if !undo && !matches!(status, Some(Status::Missed) | Some(Status::Equivalent)) {
        eprintln!(
            "error: {id} is {}, not a survivor: only a survivor can be equivalent",
            status.map_or("not run", Status::name)
        );
        return Ok(EXIT_INPUT);
    }
    results
        .append_mark(&results::EquivalentMark {
            mutant: m.id.clone(),
            note,
            at: chrono::Utc::now().to_rfc3339(),
            undo,
        })
        .map_err(|e| eyre!(e))?;
    let (_, summary) = results.reanalyse().map_err(|e| eyre!(e))?;
    eprintln!(
        "{} {} ({} {}:{})",
        if undo {
            "unmarked"
        } else {
            "marked equivalent:"
        },
        m.id,
        m.operator,
        m.file,
        m.line
    );
    print!("{}", render_summary(&summary));
    Ok(EXIT_OK)
}

fn render_report(r: &Report) -> String {
    let mut out = format!(
        "ran {} mutant(s), reused {} (baseline {}); suite run on the original {} ms, start {} \
         ms; timeout {:.1} s; {:.1} s in all\n",
        r.ran,
        r.reused,
        if r.baseline_reused {
            "reused"
        } else {
            "run twice"
        },
        r.suite_ms,
        r.start_ms,
        r.timeout.as_secs_f64(),
        r.elapsed.as_secs_f64()
    );
    out.push_str(&render_summary(&r.summary));
    let survivors: Vec<_> = r
        .matrix
        .mutants
        .iter()
        .filter(|row| row.status == Status::Missed)
        .filter_map(|row| r.mutants.iter().find(|m| m.id == row.id))
        .collect();
    if !survivors.is_empty() {
        out.push_str(&format!("survivors ({}):\n", survivors.len()));
        for m in survivors {
            out.push_str(&format!(
                "  {} {:<20} {}:{}:{}  {} -> {}\n",
                m.id,
                m.operator.name(),
                m.file,
                m.line,
                m.column,
                quoted(&m.before),
                quoted(&m.after)
            ));
        }
    }
    out
}

/// Source text as a JSON string: one line, control characters escaped.
fn quoted(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_default()
}

/// The summary as text: score, outcomes, per operation, per oracle, exclusions.
pub fn render_summary(s: &crate::mutate::Summary) -> String {
    let t = &s.total;
    let pct = |x: Option<f64>| x.map_or("n/a".to_string(), |v| format!("{:.1}%", v * 100.0));
    let mut out = format!(
        "mutation score {} ({} killed of {} covered viable mutants)\n  caught {} · timeout {} · \
         missed {} · unviable {} · not covered {} · equivalent {} · {} in all\n",
        pct(t.score),
        t.killed,
        t.killed + t.missed,
        t.caught,
        t.timeout,
        t.missed,
        t.unviable,
        t.not_covered,
        t.equivalent,
        t.mutants
    );
    out.push_str("per operation:\n");
    for (op, c) in &s.per_operation {
        out.push_str(&format!(
            "  {:<32} {:>7}  killed {:>3}  missed {:>3}  ({} mutants)\n",
            escape_controls(op),
            pct(c.score),
            c.killed,
            c.missed,
            c.mutants
        ));
    }
    out.push_str("per oracle (kills, unique kills):\n");
    for f in &s.per_oracle {
        let note = match (&f.subsumed_by, f.kills) {
            (_, 0) => "  kills nothing".to_string(),
            (Some(by), _) => format!("  redundant: subsumed by {}", escape_controls(by)),
            _ => String::new(),
        };
        out.push_str(&format!(
            "  {:<48} {:>3} {:>3}{note}\n",
            escape_controls(&f.o_id),
            f.kills,
            f.unique_kills
        ));
    }
    for e in &s.excluded {
        out.push_str(&format!(
            "excluded: {} ({}{}): {}\n",
            escape_controls(&e.o_id),
            match e.reason {
                crate::mutate::matrix::ExcludeReason::FailsOnOriginal => "fails on the original",
                crate::mutate::matrix::ExcludeReason::Unstable => "unstable",
            },
            e.isolation
                .as_deref()
                .map(|i| format!(", {}", i.replace('_', "-")))
                .unwrap_or_default(),
            escape_controls(&e.message)
        ));
    }
    out
}
