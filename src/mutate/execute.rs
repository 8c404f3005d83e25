//! Runs the analysis: the baseline on the unmutated program, then each mutant on a fresh
//! server of its own, with the suite run by the same runner as `mastor check`.
//!
//! Workers run in parallel on distinct ports (`jobs`). The baseline runs twice; an
//! oracle that fails on either run is left out of the matrix, and re-run alone on a
//! fresh server to tell the reviewer whether it is wrong or only order-dependent.

use super::build::{BuildOutcome, Built, Workspace};
use super::matrix::{Baseline, ExcludeReason, Excluded, Kill, MutantOutcome, Status};
use super::mutants::Mutant;
use super::server::{Server, StartSpec, free_port};
use crate::model::{Outcome, Verdict};
use crate::mutate::error::MutateError;
use crate::runner::{self, Plan, RunConfig, RunReport, isolate};
use futures_util::StreamExt;
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::Mutex;

/// Everything a run needs besides the mutants.
pub struct Setup {
    pub workspace: Workspace,
    pub start: StartSpec,
    pub plan: Plan,
    /// The runner's settings; `base_url` is replaced by each server's.
    pub run: RunConfig,
    /// Longest suite run on one mutant; `None`: derived from the baseline.
    pub timeout: Option<Duration>,
    pub jobs: usize,
}

/// What the baseline found, with the figures the per-mutant timeout is derived from.
pub struct BaselineRun {
    pub baseline: Baseline,
    pub original: Built,
    /// The slower of the two suite runs on the original.
    pub suite_time: Duration,
    /// One server start on the original.
    pub start_time: Duration,
}

/// The per-mutant timeout when none is given: five times the baseline's suite run, and
/// at least ten seconds (cargo-mutants derives its timeout the same way).
pub fn auto_timeout(suite_time: Duration) -> Duration {
    (suite_time * 5).max(Duration::from_secs(10))
}

/// Builds the original and runs the suite on it twice (a fresh server each time).
pub async fn baseline(setup: &Setup) -> Result<BaselineRun, MutateError> {
    let original = setup.workspace.build_original().await?;
    let mut reports = Vec::new();
    let mut suite_time = Duration::ZERO;
    let mut start_time = Duration::ZERO;
    for i in 0..2 {
        let t0 = Instant::now();
        let log = setup
            .workspace
            .work
            .join(format!("original/server-{i}.log"));
        let mut server = setup.start.start(&original, log).await.map_err(|why| {
            MutateError::Start(format!("the original program did not start: {why}"))
        })?;
        start_time = start_time.max(t0.elapsed());
        let t1 = Instant::now();
        let report = run_suite(&setup.plan, &setup.run, &server.base_url).await;
        suite_time = suite_time.max(t1.elapsed());
        server.stop().await;
        reports.push(report.map_err(|e| {
            MutateError::Run(format!("the suite could not run on the original: {e}"))
        })?);
    }
    let mut baseline = classify(&reports[0], &reports[1]);
    let failing: Vec<Verdict> = reports
        .iter()
        .flat_map(|r| &r.verdicts)
        .filter(|v| baseline.excluded.iter().any(|e| e.o_id == v.o_id))
        .filter(|v| isolate::is_failing(v))
        .fold(Vec::new(), |mut acc: Vec<Verdict>, v| {
            if !acc.iter().any(|a| a.o_id == v.o_id) {
                acc.push(v.clone());
            }
            acc
        });
    let labels = isolate(setup, &original, &failing).await?;
    for ex in &mut baseline.excluded {
        ex.isolation = labels.get(&ex.o_id).cloned();
    }
    Ok(BaselineRun {
        baseline,
        original,
        suite_time,
        start_time,
    })
}

/// Included oracles pass on both runs; the others are excluded with the reason.
pub fn classify(first: &RunReport, second: &RunReport) -> Baseline {
    let second: BTreeMap<&str, &Verdict> = second
        .verdicts
        .iter()
        .map(|v| (v.o_id.as_str(), v))
        .collect();
    let mut out = Baseline::default();
    for v in &first.verdicts {
        let other = second.get(v.o_id.as_str());
        let passed = [Some(v), other.copied()]
            .iter()
            .filter(|x| x.is_some_and(|x| x.outcome == Outcome::Pass))
            .count();
        match passed {
            2 => out.included.push(v.o_id.clone()),
            1 => out.excluded.push(Excluded {
                o_id: v.o_id.clone(),
                reason: ExcludeReason::Unstable,
                isolation: None,
                message: first_failure(if v.outcome == Outcome::Pass {
                    other.copied().unwrap_or(v)
                } else {
                    v
                }),
            }),
            _ => out.excluded.push(Excluded {
                o_id: v.o_id.clone(),
                reason: ExcludeReason::FailsOnOriginal,
                isolation: None,
                message: first_failure(v),
            }),
        }
    }
    out.included.sort();
    out.excluded.sort_by(|a, b| a.o_id.cmp(&b.o_id));
    out
}

/// Re-runs each oracle that failed on the original alone, each on a freshly restarted
/// original server (the runner's isolation, with a restart as the fresh-state hook), and
/// labels it `wrong`, `order_dependent` or `inconclusive`.
async fn isolate(
    setup: &Setup,
    original: &Built,
    failing: &[Verdict],
) -> Result<BTreeMap<String, String>, MutateError> {
    if failing.is_empty() {
        return Ok(BTreeMap::new());
    }
    let port = free_port()?;
    let cfg = RunConfig {
        base_url: format!("http://127.0.0.1:{port}"),
        ..setup.run.clone()
    };
    let slot: Arc<Mutex<Option<Server>>> = Arc::new(Mutex::new(None));
    let log = setup.workspace.work.join("original/isolate.log");
    let restart = || {
        let (slot, spec, built, log) = (
            slot.clone(),
            setup.start.clone(),
            original.clone(),
            log.clone(),
        );
        async move {
            let mut server = slot.lock().await;
            if let Some(s) = server.as_mut() {
                s.stop().await;
            }
            *server = Some(spec.start_on(&built, log, port).await?);
            Ok(())
        }
    };
    let results = isolate::isolate_failures(&setup.plan, &cfg, failing, restart)
        .await
        .map_err(|e| MutateError::Run(format!("the isolation of failures on the original: {e}")))?;
    if let Some(s) = slot.lock().await.as_mut() {
        s.stop().await;
    }
    Ok(results
        .into_iter()
        .map(|r| (r.o_id, r.isolation.label().to_string()))
        .collect())
}

async fn run_suite(plan: &Plan, cfg: &RunConfig, base_url: &str) -> Result<RunReport, MutateError> {
    let cfg = RunConfig {
        base_url: base_url.to_string(),
        ..cfg.clone()
    };
    runner::run(plan, &cfg)
        .await
        .map_err(|e| MutateError::Run(e.to_string()))
}

/// The first failing assertion or step message of a verdict, on one line.
pub fn first_failure(v: &Verdict) -> String {
    for step in &v.steps {
        if step.outcome == Outcome::Pass {
            continue;
        }
        if let Some(a) = step.assertions.iter().find(|a| a.outcome != Outcome::Pass) {
            let text = if a.message.is_empty() {
                format!("expected {} got {}", a.expected, a.actual)
            } else {
                a.message.clone()
            };
            return format!("{} assertion {}: {text}", step.op_id, a.index);
        }
        if !step.message.is_empty() {
            return format!("{}: {}", step.op_id, step.message);
        }
    }
    format!("{:?}", v.outcome).to_lowercase()
}

/// Runs one mutant: build, start, suite (bounded by `timeout`), stop.
pub async fn run_mutant(
    setup: &Setup,
    original: &Built,
    mutant: &Mutant,
    key: String,
    timeout: Duration,
) -> Result<MutantOutcome, MutateError> {
    let outcome = |status, failed, detail: String| MutantOutcome {
        mutant: mutant.id.clone(),
        key: key.clone(),
        status,
        failed,
        detail,
    };
    let built = match setup.workspace.build_mutant(mutant, original).await? {
        BuildOutcome::Unviable(why) => return Ok(outcome(Status::Unviable, vec![], why)),
        BuildOutcome::Built(b) => b,
    };
    let log = built.dir.join("server.log");
    let mut server = match setup.start.start(&built, log).await {
        Ok(s) => s,
        Err(why) => {
            let detail = format!("the mutant's server did not start: {why}");
            return Ok(outcome(Status::Caught, vec![], detail));
        }
    };
    let run = tokio::time::timeout(
        timeout,
        run_suite(&setup.plan, &setup.run, &server.base_url),
    );
    let result = run.await;
    server.stop().await;
    Ok(match result {
        Err(_) => outcome(
            Status::Timeout,
            vec![],
            format!("the suite ran longer than {timeout:?}"),
        ),
        Ok(Err(e)) => {
            return Err(MutateError::Run(format!(
                "mutant {}: the suite could not run: {e}",
                mutant.id
            )));
        }
        Ok(Ok(report)) => {
            let mut failed: Vec<Kill> = report
                .verdicts
                .iter()
                .filter(|v| v.outcome != Outcome::Pass)
                .map(|v| Kill {
                    o_id: v.o_id.clone(),
                    assertion: first_failure(v),
                })
                .collect();
            failed.sort_by(|a, b| a.o_id.cmp(&b.o_id));
            let status = if failed.is_empty() {
                Status::Missed
            } else {
                Status::Caught
            };
            outcome(status, failed, String::new())
        }
    })
}

/// Runs `todo` (mutant, reuse key) on `setup.jobs` workers; `done` is told of each result
/// as it lands (progress). Results come back in `todo` order; a mutant that could not be
/// run at all (an I/O error, not a build failure) is an `Err` naming it, and the others
/// still run.
pub async fn run_all(
    setup: &Setup,
    original: &Built,
    todo: Vec<(&Mutant, String)>,
    timeout: Duration,
    done: &(dyn Fn(&Mutant, &MutantOutcome) + Sync),
) -> Vec<Result<MutantOutcome, MutateError>> {
    let jobs = setup.jobs.max(1);
    let mut results: Vec<(usize, Result<MutantOutcome, MutateError>)> =
        futures_util::stream::iter(todo.into_iter().enumerate())
            .map(|(i, (m, key))| async move {
                let out = run_mutant(setup, original, m, key, timeout).await;
                if let Ok(o) = &out {
                    done(m, o);
                }
                (i, out)
            })
            .buffer_unordered(jobs)
            .collect()
            .await;
    results.sort_by_key(|(i, _)| *i);
    results.into_iter().map(|(_, o)| o).collect()
}
