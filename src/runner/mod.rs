//! Runs oracles against a live API and produces verdicts (docs/ARCHITECTURE.md sections 2 and 8).
//!
//! `run` checks the plan before any traffic: write methods against a host that is not
//! loopback are refused unless `allow_writes`, and the base URL must accept a TCP
//! connection within a short timeout (so an unreachable URL fails fast, once, with its
//! name). It then executes the plan (`run.rs`), evaluating assertions (`oracle::assert`) on
//! field paths (`oracle::path`), wiring captures (`oracle::binds`) and recording each exchange with
//! a `curl` line (`exec.rs`). Metamorphic tests in the plan run after the sequences, as
//! sequences, and are judged by `relations` into verdicts like every other oracle's. Text
//! and JUnit renderings live in `report.rs`/`junit.rs`.
//!
//! With a reset command, `ResetScope::Each` runs every oracle alone on fresh state;
//! `isolate` re-runs failures alone afterwards and labels them `wrong` or
//! `order_dependent` (for `check --isolate-failures` and `mutate`'s baseline).
//!
//! The runner does not choose which oracles to run (review state, `--op` filters): the
//! caller builds the `Plan`. It never prints; the CLI does.

pub mod exec;
pub mod isolate;
pub mod junit;
/// The oracle language (field paths, assertions, captures) lives in `oracle`; kept here
/// under the old names.
pub use crate::oracle::{assert, binds, path};
pub mod relations;
pub mod report;
mod run;
pub mod shell;
pub mod signals;

pub use run::reset_command;

#[cfg(test)]
mod assert_tests;
#[cfg(test)]
mod relations_tests;

use crate::model::{MetamorphicTest, MultiOpOracle, Oracle, Outcome, Verdict};
use reqwest::Url;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::net::IpAddr;
use std::sync::atomic::AtomicUsize;
use std::time::Duration;

/// What to run: single-op oracles, multi-op sequences and metamorphic tests, already
/// filtered.
#[derive(Debug, Clone, Default)]
pub struct Plan {
    pub oracles: Vec<Oracle>,
    pub multi_op: Vec<MultiOpOracle>,
    /// Run after the sequences, one at a time; each verdict's o_id is `mr#<test_id>`.
    pub metamorphic: Vec<MetamorphicTest>,
    /// Documented statuses per op_id, so a metamorphic step answering a status its
    /// operation does not document is an execution failure (empty: not checked).
    pub documented: relations::Documented,
}

impl Plan {
    /// True when there is nothing at all to run.
    pub fn is_empty(&self) -> bool {
        self.oracles.is_empty() && self.multi_op.is_empty() && self.metamorphic.is_empty()
    }
}

/// How to run it.
#[derive(Debug, Clone)]
pub struct RunConfig {
    /// Base URL, possibly with a path prefix (`http://127.0.0.1:8080/api`).
    pub base_url: String,
    /// Per-request timeout.
    pub timeout: Duration,
    /// Maximum number of requests for the whole run (repeats included); `None`: no limit.
    pub budget: Option<usize>,
    /// Single-op oracles in flight at once; sequences count as one each.
    pub concurrency: usize,
    /// Allow methods other than GET/HEAD/OPTIONS against a non-loopback host.
    pub allow_writes: bool,
    /// Runs per oracle; more than one enables unstable-assertion detection.
    pub repeat: usize,
    /// Timeout of the up-front reachability check.
    pub connect_timeout: Duration,
    /// Largest response body read, in bytes; a larger one is an error verdict and is not
    /// read further, so a hostile or runaway API cannot exhaust memory.
    pub max_body: usize,
    /// Shell command that restores the API's seed state (a reset endpoint, a SQL script,
    /// a restart); run before what `reset_scope` says.
    pub reset: Option<String>,
    /// Which oracles the reset runs before (ignored without `reset`).
    pub reset_scope: ResetScope,
    /// Longest a reset command may take before it is killed and its oracle becomes an
    /// error naming the command: a hung reset must not hang the run.
    pub reset_timeout: Duration,
}

/// Before which oracles `RunConfig::reset` runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ResetScope {
    /// Only before oracles that declare `fresh_state` (cheap: most oracles share state,
    /// ordered readers first).
    #[default]
    Fresh,
    /// Before every single-op oracle, every sequence and every metamorphic test, which
    /// then all run one at a time: no oracle can see another's writes, at the cost of one
    /// reset per oracle.
    Each,
}

/// Default `reset_timeout`: room for a restart of a JVM API, short of hanging a CI job.
pub const DEFAULT_RESET_TIMEOUT: Duration = Duration::from_secs(120);

/// Default `max_body`: 16 MiB, far above any JSON answer an oracle asserts on.
pub const DEFAULT_MAX_BODY: usize = 16 * 1024 * 1024;

impl Default for RunConfig {
    fn default() -> Self {
        Self {
            base_url: String::new(),
            timeout: Duration::from_secs(10),
            budget: None,
            concurrency: 8,
            allow_writes: false,
            repeat: 1,
            connect_timeout: Duration::from_secs(3),
            max_body: DEFAULT_MAX_BODY,
            reset: None,
            reset_scope: ResetScope::Fresh,
            reset_timeout: DEFAULT_RESET_TIMEOUT,
        }
    }
}

/// An assertion that behaved differently across repeated runs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct UnstableAssertion {
    pub o_id: String,
    /// Step index (0 for single-op oracles).
    pub step: usize,
    /// Assertion index within the step.
    pub index: usize,
    /// The assertion's field path, or `status`.
    pub field_path: String,
    /// Actual value per run.
    pub actuals: Vec<Value>,
    /// Outcome per run.
    pub outcomes: Vec<Outcome>,
}

/// Counts per oracle outcome, plus unstable assertions.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    pub passed: usize,
    pub failed: usize,
    pub errors: usize,
    pub skipped: usize,
    #[serde(default)]
    pub unstable: Vec<UnstableAssertion>,
}

impl Summary {
    /// True when nothing failed or errored. A sequence whose capture is missing fails at
    /// the step that declares it, so an unread capture never counts as a pass.
    pub fn all_passed(&self) -> bool {
        self.failed == 0 && self.errors == 0
    }
}

/// Verdicts in plan order, with the summary.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct RunReport {
    pub verdicts: Vec<Verdict>,
    pub summary: Summary,
}

impl RunReport {
    /// Adds a verdict and counts it in the summary.
    pub fn push(&mut self, verdict: Verdict) {
        match verdict.outcome {
            Outcome::Pass => self.summary.passed += 1,
            Outcome::Fail => self.summary.failed += 1,
            Outcome::Error => self.summary.errors += 1,
            Outcome::Skipped => self.summary.skipped += 1,
        }
        self.verdicts.push(verdict);
    }
}

/// An error verdict for an oracle that could not be run at all (e.g. a suite entry that
/// does not parse), so every report shows it instead of leaving it out: a run with an
/// entry nobody could check must not look like a pass.
pub fn unrunnable(o_id: &str, op_id: &str, message: &str, base_url: &str) -> Verdict {
    Verdict {
        o_id: o_id.to_string(),
        outcome: Outcome::Error,
        steps: vec![crate::model::StepVerdict {
            op_id: op_id.to_string(),
            outcome: Outcome::Error,
            assertions: Vec::new(),
            exchange: None,
            message: message.to_string(),
        }],
        at: chrono::Utc::now().to_rfc3339(),
        base_url: base_url.to_string(),
        isolation: None,
        content_hash: None,
    }
}

/// Why a run could not start. Per-oracle problems are verdicts, not errors.
#[derive(Debug, thiserror::Error)]
pub enum RunnerError {
    #[error("bad base URL `{url}`: {reason}")]
    BadBaseUrl { url: String, reason: String },
    #[error("cannot reach base URL {url}: {reason}")]
    Unreachable { url: String, reason: String },
    #[error(
        "refusing to send {ops} to {url}: the host is not loopback; pass --allow-writes to \
         send writes to this API"
    )]
    WritesRefused { url: String, ops: String },
    #[error("cannot create the HTTP client: {0}")]
    Client(String),
}

/// Parses and checks a base URL: http(s) with a host.
pub fn parse_base_url(text: &str) -> Result<Url, RunnerError> {
    let bad = |reason: &str| RunnerError::BadBaseUrl {
        url: text.to_string(),
        reason: reason.to_string(),
    };
    let url = Url::parse(text.trim()).map_err(|e| bad(&e.to_string()))?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(bad("the scheme must be http or https"));
    }
    if url.host_str().is_none_or(str::is_empty) {
        return Err(bad("no host"));
    }
    if url.query().is_some() || url.fragment().is_some() {
        return Err(bad("a base URL carries no query or fragment"));
    }
    Ok(url)
}

/// True for `localhost`, `*.localhost` and loopback addresses.
pub fn is_loopback(url: &Url) -> bool {
    match url.host() {
        Some(url::Host::Domain(d)) => {
            let d = d.to_ascii_lowercase();
            d == "localhost" || d.ends_with(".localhost")
        }
        Some(url::Host::Ipv4(ip)) => IpAddr::V4(ip).is_loopback(),
        Some(url::Host::Ipv6(ip)) => IpAddr::V6(ip).is_loopback(),
        None => false,
    }
}

/// Methods that never change server state, allowed against any host.
pub const SAFE_METHODS: [&str; 3] = ["GET", "HEAD", "OPTIONS"];

/// Refuses write methods against a non-loopback host unless allowed. Runs before any
/// connection is opened.
pub fn check_write_safety(plan: &Plan, base: &Url, allow_writes: bool) -> Result<(), RunnerError> {
    if allow_writes || is_loopback(base) {
        return Ok(());
    }
    let op_ids = plan
        .oracles
        .iter()
        .map(|o| o.op_id.as_str())
        .chain(
            plan.multi_op
                .iter()
                .flat_map(|m| m.steps.iter().map(|s| s.op_id.as_str())),
        )
        .chain(
            plan.metamorphic
                .iter()
                .flat_map(|t| t.seed.iter().chain(&t.follow_up).map(|s| s.op_id.as_str())),
        );
    let mut writes: Vec<&str> = op_ids
        .filter(|op| {
            let method = op.split_whitespace().next().unwrap_or_default();
            !SAFE_METHODS.contains(&method.to_ascii_uppercase().as_str())
        })
        .collect();
    writes.sort_unstable();
    writes.dedup();
    if writes.is_empty() {
        return Ok(());
    }
    let mut ops = writes
        .iter()
        .take(5)
        .copied()
        .collect::<Vec<_>>()
        .join(", ");
    if writes.len() > 5 {
        ops.push_str(&format!(" and {} more", writes.len() - 5));
    }
    Err(RunnerError::WritesRefused {
        url: base.to_string(),
        ops,
    })
}

/// Opens (and closes) one TCP connection to the base URL's host and port.
pub async fn check_reachable(base: &Url, timeout: Duration) -> Result<(), RunnerError> {
    let unreachable = |reason: String| RunnerError::Unreachable {
        url: base.to_string(),
        reason,
    };
    let host = base
        .host_str()
        .ok_or_else(|| unreachable("no host".into()))?
        .trim_start_matches('[')
        .trim_end_matches(']')
        .to_string();
    let port = base
        .port_or_known_default()
        .ok_or_else(|| unreachable("no port".into()))?;
    match tokio::time::timeout(
        timeout,
        tokio::net::TcpStream::connect((host.as_str(), port)),
    )
    .await
    {
        Ok(Ok(_)) => Ok(()),
        Ok(Err(e)) => Err(unreachable(e.to_string())),
        Err(_) => Err(unreachable(format!(
            "no connection within {} s",
            timeout.as_secs_f64()
        ))),
    }
}

/// Checks the plan and the base URL, then runs every oracle.
pub async fn run(plan: &Plan, cfg: &RunConfig) -> Result<RunReport, RunnerError> {
    run_with_progress(plan, cfg, &|_, _| {}).await
}

/// [`run`], calling `progress(done, total)` each time an oracle, sequence or metamorphic
/// test has its verdict, so a screen can show how far a long run is.
pub async fn run_with_progress(
    plan: &Plan,
    cfg: &RunConfig,
    progress: &(dyn Fn(usize, usize) + Sync),
) -> Result<RunReport, RunnerError> {
    let base = parse_base_url(&cfg.base_url)?;
    check_write_safety(plan, &base, cfg.allow_writes)?;
    check_reachable(&base, cfg.connect_timeout).await?;
    let mut builder = reqwest::Client::builder().redirect(reqwest::redirect::Policy::none());
    if is_loopback(&base) {
        // A local API is never reached through a proxy from the environment.
        builder = builder.no_proxy();
    }
    let client = builder
        .build()
        .map_err(|e| RunnerError::Client(e.to_string()))?;
    let mut ctx = run::Ctx {
        client,
        base: &base,
        cfg,
        budget: AtomicUsize::new(cfg.budget.unwrap_or(usize::MAX)),
        progress,
        done: AtomicUsize::new(0),
        total: plan.oracles.len() + plan.multi_op.len() + plan.metamorphic.len(),
        start_failure: None,
    };
    // The execution model: a configured reset also runs once before anything, so a run on
    // a server an earlier run wrote to starts from the seed data (`Each` resets before
    // every unit anyway). When it fails, nothing runs and every verdict says why.
    if let Some(cmd) = &cfg.reset
        && cfg.reset_scope != ResetScope::Each
        && !plan.is_empty()
    {
        ctx.start_failure = run::reset_command(cmd, cfg.reset_timeout).await.err();
    }
    let mut report = run::run_plan(plan, &ctx).await;
    if !plan.metamorphic.is_empty() {
        // Through the same runner (and the same request budget) as the sequences, after
        // them; then judged, and recorded as verdicts like every other oracle.
        let sequences = Plan {
            multi_op: plan
                .metamorphic
                .iter()
                .map(relations::to_multi_op)
                .collect(),
            ..Plan::default()
        };
        let sub = run::run_plan(&sequences, &ctx).await;
        for (t, v) in plan.metamorphic.iter().zip(sub.verdicts) {
            let (at, base_url) = (v.at.clone(), v.base_url.clone());
            let verdict = relations::judge(t, v, &plan.documented).into_verdict(at, base_url);
            match verdict.outcome {
                Outcome::Pass => report.summary.passed += 1,
                Outcome::Fail => report.summary.failed += 1,
                Outcome::Error => report.summary.errors += 1,
                Outcome::Skipped => report.summary.skipped += 1,
            }
            report.verdicts.push(verdict);
        }
        report.summary.unstable.extend(sub.summary.unstable);
    }
    stamp_content_hashes(plan, &mut report);
    Ok(report)
}

/// Stamps each verdict with the content hash of the oracle that ran, so a later edit
/// (or undo) of that oracle shows its verdict as stale instead of vouching for content
/// that never ran.
pub fn stamp_content_hashes(plan: &Plan, report: &mut RunReport) {
    use crate::model::content_hash_of;
    let mut hashes = std::collections::HashMap::new();
    for o in &plan.oracles {
        hashes.insert(o.o_id(), content_hash_of(o));
    }
    for m in &plan.multi_op {
        hashes.insert(m.o_id(), content_hash_of(m));
    }
    for t in &plan.metamorphic {
        hashes.insert(t.o_id(), content_hash_of(t));
    }
    for v in &mut report.verdicts {
        if let Some(h) = hashes.get(&v.o_id) {
            v.content_hash.clone_from(h);
        }
    }
}
