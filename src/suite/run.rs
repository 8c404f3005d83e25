//! Running the oracles of a session (or of a suite file) against a live API: the one
//! workflow behind `mastor check` and the workbench's oracle runs, so both select,
//! filter, reset, isolate and store verdicts the same way.
//!
//! [`prepare`] loads the input and builds the plan (review scope, o_id narrowing, `--op`
//! and type filters, documented statuses); suite entries that cannot be run become error
//! verdicts (unless `lenient`), so a run with an entry nobody could check never looks like
//! a pass. [`execute`] runs the plan, re-runs each failure alone after the reset command
//! when asked (labels only, see [`isolate`]), adds the unrunnable verdicts and, for a
//! session, stores the verdict file. Nothing here prints: what a terminal user should
//! hear goes through [`Event`], so the CLI writes it to stderr and the workbench to its
//! status line.

use crate::model::Isolation;
use crate::runner::{self, Plan, RunConfig, RunReport, RunnerError, isolate};
use crate::store::{MANIFEST_FILE, Session, StoreError};
use crate::suite::filter::OracleType;
use crate::suite::{self, LoadOptions, Only, SuiteError, session};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// What to run and how. `config` carries the base URL, timeouts, budget, concurrency and
/// the reset command with its scope, as the runner takes them.
#[derive(Debug, Clone)]
pub struct RunOptions {
    pub config: RunConfig,
    /// Review scope (`None`: accepted and edited for a session, all for a suite file).
    pub only: Option<Only>,
    /// Narrow the run to these o_ids, whatever `only` says of their review state (empty:
    /// no narrowing). The workbench's scopes (failing, to review) arrive this way.
    pub ids: BTreeSet<String>,
    /// Operations or groups (`--op`); empty: all.
    pub ops: Vec<String>,
    /// Oracle types (`--types`); empty: all.
    pub types: Vec<OracleType>,
    /// After the run, re-run each failure alone after `config.reset` and label it.
    /// Ignored without a reset command (isolation without fresh state would re-run on
    /// the state that made the oracle fail); [`RunOptions::check`] refuses that pairing.
    pub isolate_failures: bool,
    /// Skip a suite file's entries that cannot be run, and its unknown keys, with a
    /// warning, instead of an error verdict each.
    pub lenient: bool,
}

impl RunOptions {
    /// Options for `base_url` with the runner's defaults: the input's default scope, no
    /// filters, no reset, no isolation.
    pub fn new(base_url: &str) -> Self {
        RunOptions {
            config: RunConfig {
                base_url: base_url.to_string(),
                ..RunConfig::default()
            },
            only: None,
            ids: BTreeSet::new(),
            ops: Vec::new(),
            types: Vec::new(),
            isolate_failures: false,
            lenient: false,
        }
    }

    /// Refuses options that cannot mean what they say: isolation or `each` resets
    /// without a reset command.
    pub fn check(&self) -> Result<(), RunError> {
        let c = &self.config;
        if c.reset.as_deref().is_none_or(|c| c.trim().is_empty()) {
            if self.isolate_failures {
                return Err(RunError::Options(
                    "--isolate-failures needs --reset CMD: each failing oracle is re-run \
                     alone right after that command restores the API's seed data"
                        .into(),
                ));
            }
            if c.reset_scope == runner::ResetScope::Each {
                return Err(RunError::Options(
                    "--reset-scope each needs --reset CMD (the command to run before each \
                     oracle)"
                        .into(),
                ));
            }
        }
        Ok(())
    }
}

/// What a run has to say while it goes, for the caller to show (the CLI prints each on
/// stderr as it comes; the workbench turns them into progress and its status line).
#[derive(Debug, Clone, PartialEq)]
pub enum Event {
    /// A problem reading the input that does not stop the run (an edit that no longer
    /// parses, an unknown key under `lenient`).
    Warning(String),
    /// A suite entry left out under `lenient`, and why.
    Skipped(String),
    /// `done` of `total` oracles, sequences and metamorphic tests have their verdict.
    Progress { done: usize, total: usize },
    /// Isolation starts: `failing` failures, each re-run alone after `command`.
    Isolating { failing: usize, command: String },
    /// The isolation of one failure could not tell (its note says why).
    Inconclusive { o_id: String, note: String },
}

/// A callback hearing [`Event`]s (from the runner's threads, hence `Sync`).
pub type Events<'a> = &'a (dyn Fn(Event) + Sync);

/// The input, loaded and turned into a plan.
#[derive(Debug)]
pub struct Prepared {
    pub input: PathBuf,
    /// The session, when the input is one (its verdicts are stored there).
    pub session: Option<Session>,
    /// The scope applied (the input's default when the options named none).
    pub only: Only,
    pub plan: Plan,
    /// Error verdicts of entries that could not be run, added to the report.
    pub unrunnable: Vec<crate::model::Verdict>,
}

/// A finished run.
#[derive(Debug, Clone)]
pub struct Checked {
    /// The verdicts (plan order, then unrunnable entries) and their summary, as
    /// `check --json` prints them and the verdict file stores them.
    pub report: RunReport,
    /// Isolation results (empty without isolation or without failures).
    pub isolated: Vec<isolate::Isolated>,
    /// Where the verdicts were stored (`None` for a suite file).
    pub stored: Option<Stored>,
}

/// The verdict files a session run wrote.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stored {
    /// The session directory.
    pub dir: PathBuf,
    /// The stamped verdict file, relative to `dir` (`verdicts/latest.json` is merged
    /// too).
    pub file: String,
}

impl Checked {
    /// `; isolated: N wrong, N order-dependent, N inconclusive` (empty without
    /// isolation results), for a one-line summary.
    pub fn isolation_summary(&self) -> String {
        if self.isolated.is_empty() {
            return String::new();
        }
        let count = |i: Isolation| self.isolated.iter().filter(|r| r.isolation == i).count();
        format!(
            "; isolated: {} wrong, {} order-dependent, {} inconclusive",
            count(Isolation::Wrong),
            count(Isolation::OrderDependent),
            count(Isolation::Inconclusive)
        )
    }
}

/// Why a run could not start or its verdicts could not be stored. Per-oracle problems
/// are verdicts, not errors.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    #[error("{0}")]
    Options(String),
    #[error("{} is a directory but not a mastor session (no {MANIFEST_FILE})", .0.display())]
    NotASession(PathBuf),
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(transparent)]
    Suite(#[from] SuiteError),
    /// `--op` names an operation the suite does not have.
    #[error("{0}")]
    Select(String),
    /// Every o_id the run was narrowed to has left the session.
    #[error("{} is no longer in the session", .0.join(", "))]
    Gone(Vec<String>),
    #[error("{}", nothing_message(.0))]
    NothingToRun(Box<Nothing>),
    #[error("cannot start the async runtime: {0}")]
    Runtime(std::io::Error),
    #[error(transparent)]
    Runner(#[from] RunnerError),
}

/// What an empty selection was made from, for its message.
#[derive(Debug, Clone, PartialEq)]
pub struct Nothing {
    pub input: PathBuf,
    pub only: Only,
    pub types: Vec<OracleType>,
    pub oracles: usize,
    pub sequences: usize,
    pub metamorphic: usize,
}

fn nothing_message(n: &Nothing) -> String {
    format!(
        "nothing to run in {} (only: {:?}{}, {} oracle(s), {} sequence(s) and {} \
         metamorphic test(s) in total){}",
        n.input.display(),
        n.only,
        if n.types.is_empty() {
            String::new()
        } else {
            let t: Vec<String> = n.types.iter().map(ToString::to_string).collect();
            format!(", types: {}", t.join(","))
        },
        n.oracles,
        n.sequences,
        n.metamorphic,
        if n.only == Only::Accepted {
            "; accept oracles in review or pass --only all"
        } else {
            ""
        }
    )
}

/// Loads `input` (a session directory or a suite file) and builds the plan. No session
/// lock: a run only adds a verdict file, whose merge into `verdicts/latest.json` has its
/// own lock, so it runs beside an open workbench.
pub fn prepare(input: &Path, opts: &RunOptions, events: Events<'_>) -> Result<Prepared, RunError> {
    opts.check()?;
    let is_session = input.is_dir();
    let base_url = &opts.config.base_url;
    let mut unrunnable = Vec::new();
    let (suite_file, store) = if is_session {
        if !input.join(MANIFEST_FILE).exists() {
            return Err(RunError::NotASession(input.to_path_buf()));
        }
        let store = Session::open(input)?;
        let loaded = session::read(&store)?;
        for p in &loaded.problems {
            events(Event::Warning(p.clone()));
        }
        (loaded.suite, Some(store))
    } else {
        let loaded = suite::load_file_with(
            input,
            LoadOptions {
                lenient: opts.lenient,
            },
        )?;
        for w in &loaded.warnings {
            events(Event::Warning(w.clone()));
        }
        if opts.lenient {
            for p in &loaded.problems {
                events(Event::Skipped(p.to_string()));
            }
        } else {
            unrunnable = loaded
                .problems
                .iter()
                .filter(|p| p.selected(&opts.ops))
                .filter(|p| opts.ids.is_empty() || opts.ids.contains(&p.o_id()))
                .map(|p| {
                    let op = p.op_id.as_deref().unwrap_or_default();
                    let why = format!("cannot run this entry: {p}");
                    runner::unrunnable(&p.o_id(), op, &why, base_url)
                })
                .collect();
        }
        (loaded.suite, None)
    };
    let only = match (opts.only, opts.ids.is_empty(), is_session) {
        (Some(only), _, _) => only,
        (None, false, _) | (None, true, false) => Only::All,
        (None, true, true) => Only::Accepted,
    };
    let mut plan = suite::select(&suite_file, only, &opts.ops).map_err(RunError::Select)?;
    if !opts.ids.is_empty() {
        let keep = |o_id: String| opts.ids.contains(&o_id);
        plan.oracles.retain(|o| keep(o.o_id()));
        plan.multi_op.retain(|m| keep(m.o_id()));
        plan.metamorphic.retain(|t| keep(t.o_id()));
        if plan.is_empty() && unrunnable.is_empty() {
            return Err(RunError::Gone(opts.ids.iter().cloned().collect()));
        }
    }
    suite::filter::keep_types(
        &mut plan.oracles,
        &mut plan.multi_op,
        &mut plan.metamorphic,
        &opts.types,
    );
    if let Some(store) = &store
        && !plan.metamorphic.is_empty()
    {
        // So an undocumented status counts as an execution failure.
        plan.documented = session::documented(store);
    }
    if plan.is_empty() && unrunnable.is_empty() {
        return Err(RunError::NothingToRun(Box::new(Nothing {
            input: input.to_path_buf(),
            only,
            types: opts.types.clone(),
            oracles: suite_file.oracles.len(),
            sequences: suite_file.multi_op.len(),
            metamorphic: suite_file.metamorphic.len(),
        })));
    }
    Ok(Prepared {
        input: input.to_path_buf(),
        session: store,
        only,
        plan,
        unrunnable,
    })
}

/// Runs a prepared plan (blocking, on its own tokio runtime), isolates failures when
/// asked, adds the unrunnable verdicts and stores the verdicts of a session.
pub fn execute(
    prepared: Prepared,
    opts: &RunOptions,
    events: Events<'_>,
) -> Result<Checked, RunError> {
    let Prepared {
        session,
        plan,
        unrunnable,
        ..
    } = prepared;
    let (mut report, isolated) = if plan.is_empty() {
        (RunReport::default(), Vec::new())
    } else {
        let rt = tokio::runtime::Runtime::new().map_err(RunError::Runtime)?;
        rt.block_on(run_and_isolate(&plan, opts, events))?
    };
    for v in unrunnable {
        report.push(v);
    }
    let stored = match &session {
        Some(s) => Some(Stored {
            dir: s.dir().to_path_buf(),
            file: session::save_verdicts(s, &opts.config.base_url, &report)?,
        }),
        None => None,
    };
    Ok(Checked {
        report,
        isolated,
        stored,
    })
}

/// [`prepare`], then [`execute`].
pub fn run(input: &Path, opts: &RunOptions, events: Events<'_>) -> Result<Checked, RunError> {
    execute(prepare(input, opts, events)?, opts, events)
}

/// Runs the plan, then (when asked, with a reset command) re-runs each failure alone
/// after the reset and labels it; the outcomes and the summary stay as the run found
/// them.
async fn run_and_isolate(
    plan: &Plan,
    opts: &RunOptions,
    events: Events<'_>,
) -> Result<(RunReport, Vec<isolate::Isolated>), RunnerError> {
    let cfg = &opts.config;
    let progress = |done, total| events(Event::Progress { done, total });
    let mut report = runner::run_with_progress(plan, cfg, &progress).await?;
    let command = cfg.reset.as_deref().filter(|c| !c.trim().is_empty());
    let (true, Some(cmd)) = (opts.isolate_failures, command) else {
        return Ok((report, Vec::new()));
    };
    let failing: Vec<_> = report
        .verdicts
        .iter()
        .filter(|v| isolate::is_failing(v))
        .cloned()
        .collect();
    if !failing.is_empty() {
        events(Event::Isolating {
            failing: failing.len(),
            command: cmd.to_string(),
        });
    }
    let limit = cfg.reset_timeout;
    let results =
        isolate::isolate_failures(plan, cfg, &failing, || runner::reset_command(cmd, limit))
            .await?;
    isolate::apply(&mut report, &results);
    for r in results.iter().filter(|r| !r.note.is_empty()) {
        events(Event::Inconclusive {
            o_id: r.o_id.clone(),
            note: r.note.clone(),
        });
    }
    Ok((report, results))
}
