//! Running a plan of oracles: concurrency, request budget, multi-step sequences and
//! repeated runs.
//!
//! The execution model (defined in [`crate::execution`], whose text every generator and
//! challenger prompt states, so oracles are written for it):
//! 1. single-op oracles that only read (GET, HEAD, OPTIONS) run first, concurrently
//!    (bounded by `concurrency`): nothing has been written yet, so they see the seed data;
//! 2. oracles that declare `fresh_state` and write, one at a time in suite order — with
//!    `reset`, every `fresh_state` oracle runs here instead, each right after the reset;
//! 3. the other writing oracles, one at a time in suite order, each seeing the state the
//!    earlier ones left;
//! 4. the multi-op sequences, one at a time, each step in order.
//!
//! A configured reset also runs once before all of it (see `runner::run_with_progress`).
//!
//! With a reset and `ResetScope::Each`, every single-op oracle and every sequence (and so
//! every metamorphic test) runs one at a time, each right after the reset (each repeated
//! run too), in the order above: no oracle sees another's writes.
//!
//! Verdicts come back in plan order (single-op oracles first, then sequences), whatever
//! order they ran in.
//!
//! Repeat: each unit runs `repeat` times in a row; the verdict kept is the first run's, and
//! an assertion is marked `unstable` when its outcome differs between runs, or when it
//! fails with a different actual value in different runs (a timestamp pinned by `equals`
//! fails every time, but never the same way).

use crate::model::{
    Assertion, AssertionVerdict, MultiOpOracle, Oracle, OracleInput, Outcome, StepVerdict, Verdict,
};
use crate::runner::assert::{self, Response};
use crate::runner::binds::{self, Captures};
use crate::runner::exec;
use crate::runner::{Plan, ResetScope, RunConfig, RunReport, Summary, UnstableAssertion};
use futures_util::StreamExt;
use reqwest::{Client, Url};
use serde_json::Value;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Shared state of one run.
pub(crate) struct Ctx<'a> {
    pub client: Client,
    pub base: &'a Url,
    pub cfg: &'a RunConfig,
    /// Requests left; `usize::MAX` without a budget.
    pub budget: AtomicUsize,
    /// Told `(done, total)` after each unit's verdict.
    pub progress: &'a (dyn Fn(usize, usize) + Sync),
    /// Units with a verdict so far, of `total`.
    pub done: AtomicUsize,
    pub total: usize,
    /// Why the reset at the start of the run failed: then no unit runs.
    pub start_failure: Option<String>,
}

impl Ctx<'_> {
    fn take_request(&self) -> bool {
        self.budget
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1))
            .is_ok()
    }
}

enum Unit<'a> {
    Single(&'a Oracle),
    Multi(&'a MultiOpOracle),
}

impl Unit<'_> {
    fn o_id(&self) -> String {
        match self {
            Unit::Single(o) => o.o_id(),
            Unit::Multi(m) => m.o_id(),
        }
    }

    /// Assertions per step, to name unstable ones in the summary.
    fn step_assertions(&self) -> Vec<&[Assertion]> {
        match self {
            Unit::Single(o) => vec![o.assertions.as_slice()],
            Unit::Multi(m) => m.steps.iter().map(|s| s.assertions.as_slice()).collect(),
        }
    }
}

/// Runs every unit of the plan and returns verdicts plus the summary.
pub(crate) async fn run_plan<'a>(plan: &'a Plan, ctx: &'a Ctx<'a>) -> RunReport {
    let repeat = ctx.cfg.repeat.max(1);
    let each = ctx.cfg.reset.is_some() && ctx.cfg.reset_scope == ResetScope::Each;
    let run_repeated = |unit: Unit<'a>| async move {
        let first = run_unit_after_reset(&unit, ctx, each).await;
        let mut rest = Vec::with_capacity(repeat - 1);
        for _ in 1..repeat {
            rest.push(run_unit_after_reset(&unit, ctx, each).await);
        }
        let merged = merge_runs(&unit, first, &rest);
        let done = ctx.done.fetch_add(1, Ordering::Relaxed) + 1;
        (ctx.progress)(done, ctx.total);
        merged
    };
    let mut phases = phases(&plan.oracles, ctx.cfg.reset.is_some());
    if each {
        // One at a time, each after its own reset (in `run_repeated`).
        let mut all = std::mem::take(&mut phases.readers);
        all.append(&mut phases.fresh);
        all.append(&mut phases.writers);
        phases.writers = all;
    }
    let mut by_index: Vec<Option<(Verdict, Vec<UnstableAssertion>)>> =
        vec![None; plan.oracles.len()];
    let readers: Vec<(usize, (Verdict, Vec<UnstableAssertion>))> =
        futures_util::stream::iter(phases.readers)
            .map(|i| async move { (i, run_repeated(Unit::Single(&plan.oracles[i])).await) })
            .buffered(ctx.cfg.concurrency.max(1))
            .collect()
            .await;
    for (i, r) in readers {
        by_index[i] = Some(r);
    }
    for i in phases.fresh {
        let o = &plan.oracles[i];
        by_index[i] = Some(match reset(ctx).await {
            Ok(()) => run_repeated(Unit::Single(o)).await,
            Err(why) => {
                let done = ctx.done.fetch_add(1, Ordering::Relaxed) + 1;
                (ctx.progress)(done, ctx.total);
                (not_run_unit(&Unit::Single(o), ctx, &why), Vec::new())
            }
        });
    }
    for i in phases.writers {
        by_index[i] = Some(run_repeated(Unit::Single(&plan.oracles[i])).await);
    }
    let mut results: Vec<(Verdict, Vec<UnstableAssertion>)> =
        by_index.into_iter().flatten().collect();
    // Sequences reason about server state (counts, existence), which concurrent writes
    // would disturb: they run one at a time, after the single-op oracles.
    for m in &plan.multi_op {
        results.push(run_repeated(Unit::Multi(m)).await);
    }
    let mut summary = Summary::default();
    let mut verdicts = Vec::with_capacity(results.len());
    for (verdict, unstable) in results {
        match verdict.outcome {
            Outcome::Pass => summary.passed += 1,
            Outcome::Fail => summary.failed += 1,
            Outcome::Error => summary.errors += 1,
            Outcome::Skipped => summary.skipped += 1,
        }
        summary.unstable.extend(unstable);
        verdicts.push(verdict);
    }
    RunReport { verdicts, summary }
}

/// Indices of the plan's single-op oracles by phase of the execution model.
#[derive(Debug, Default, PartialEq)]
struct Phases {
    readers: Vec<usize>,
    fresh: Vec<usize>,
    writers: Vec<usize>,
}

fn phases(oracles: &[Oracle], with_reset: bool) -> Phases {
    use crate::execution::{Stage, Unit, ordered};
    let mut p = Phases::default();
    for planned in ordered(oracles, 0, with_reset) {
        let Unit::Single(i) = planned.unit else {
            continue;
        };
        match planned.stage {
            Stage::Fresh => p.fresh.push(i),
            Stage::Reader => p.readers.push(i),
            Stage::Writer | Stage::Sequence => p.writers.push(i),
        }
    }
    p
}

/// Runs the configured reset command (when there is one); its failure is the reason the
/// next oracle did not run.
async fn reset(ctx: &Ctx<'_>) -> Result<(), String> {
    if let Some(why) = &ctx.start_failure {
        return Err(why.clone());
    }
    match &ctx.cfg.reset {
        Some(cmd) => reset_command(cmd, ctx.cfg.reset_timeout).await,
        None => Ok(()),
    }
}

/// Characters of a failing reset command's stderr quoted in the error.
const RESET_STDERR: usize = 300;

/// Bytes of a reset command's stderr kept; the rest is read and discarded, so a
/// chatty script never dies of a closed pipe.
pub const RESET_STDERR_CAP: usize = 64 * 1024;

/// Runs a reset command with `sh -c` in a process group of its own, bounded by `limit`
/// (past it the whole group is killed), and says why it failed, naming the command: exit
/// status and the start of its stderr (escaped), or the time limit. Only the command's
/// own exit is awaited, and what it started in the background keeps running, so a reset
/// that restarts a server does not hang the run. Public so that callers with their own
/// notion of fresh state (`isolate`) run the same command the same way.
pub async fn reset_command(cmd: &str, limit: std::time::Duration) -> Result<(), String> {
    use super::shell::{self, Failure};
    let shown = crate::text::escape_controls(cmd);
    let done = match shell::run(shell::sh(cmd), limit, RESET_STDERR_CAP, true).await {
        Ok(done) => done,
        Err(Failure::Timeout { .. }) => {
            return Err(format!(
                "reset command `{shown}` did not finish within {} s (killed with its process \
                 group)",
                limit.as_secs_f64()
            ));
        }
        Err(Failure::Spawn(e)) => {
            return Err(format!("reset command `{shown}` could not start: {e}"));
        }
        Err(Failure::Wait(e)) => return Err(format!("reset command `{shown}` could not run: {e}")),
    };
    if done.status.success() {
        return Ok(());
    }
    let tail: String = String::from_utf8_lossy(&done.stderr)
        .chars()
        .take(RESET_STDERR)
        .collect();
    Err(format!(
        "reset command `{shown}` failed ({}): {}",
        done.status,
        crate::text::escape_controls(tail.trim())
    ))
}

/// Runs one unit, after a reset when `reset_first`; a failed reset is the unit's error
/// verdict and nothing is sent.
async fn run_unit_after_reset(unit: &Unit<'_>, ctx: &Ctx<'_>, reset_first: bool) -> Verdict {
    if (reset_first || ctx.start_failure.is_some())
        && let Err(why) = reset(ctx).await
    {
        return not_run_unit(unit, ctx, &why);
    }
    run_unit(unit, ctx).await
}

/// The verdict of a unit that could not run (its reset failed): an error naming why.
fn not_run_unit(unit: &Unit<'_>, ctx: &Ctx<'_>, why: &str) -> Verdict {
    let why = format!("not run: {why}");
    let steps = match unit {
        Unit::Single(o) => vec![not_run(&o.op_id, Outcome::Error, why, &o.assertions)],
        Unit::Multi(m) => m
            .steps
            .iter()
            .map(|s| not_run(&s.op_id, Outcome::Error, why.clone(), &s.assertions))
            .collect(),
    };
    Verdict {
        o_id: unit.o_id(),
        outcome: Outcome::Error,
        steps,
        at: chrono::Utc::now().to_rfc3339(),
        base_url: ctx.base.to_string(),
        isolation: None,
        content_hash: None,
    }
}

async fn run_unit(unit: &Unit<'_>, ctx: &Ctx<'_>) -> Verdict {
    let steps = match unit {
        Unit::Single(o) => vec![
            run_step(ctx, &o.op_id, &o.input, &o.assertions, None)
                .await
                .0,
        ],
        Unit::Multi(m) => run_sequence(m, ctx).await,
    };
    Verdict {
        o_id: unit.o_id(),
        outcome: overall(steps.iter().map(|s| s.outcome)),
        steps,
        at: chrono::Utc::now().to_rfc3339(),
        base_url: ctx.base.to_string(),
        isolation: None,
        content_hash: None,
    }
}

/// The worst outcome wins: error, then fail, then skipped, then pass.
pub(crate) fn overall(outcomes: impl IntoIterator<Item = Outcome>) -> Outcome {
    let mut result = Outcome::Pass;
    for o in outcomes {
        let rank = |o: Outcome| match o {
            Outcome::Pass => 0,
            Outcome::Skipped => 1,
            Outcome::Fail => 2,
            Outcome::Error => 3,
        };
        if rank(o) > rank(result) {
            result = o;
        }
    }
    result
}

async fn run_sequence(m: &MultiOpOracle, ctx: &Ctx<'_>) -> Vec<StepVerdict> {
    let mut captures = Captures::new();
    let mut verdicts = Vec::with_capacity(m.steps.len());
    let mut stop: Option<(Outcome, String)> = None;
    for (n, step) in m.steps.iter().enumerate() {
        if let Some((outcome, why)) = &stop {
            verdicts.push(not_run(
                &step.op_id,
                *outcome,
                why.clone(),
                &step.assertions,
            ));
            continue;
        }
        let bound = bind_step(&step.input, &step.assertions, &captures);
        let (input, assertions) = match bound {
            Ok(x) => x,
            Err(name) => {
                // Load-time checks make this unreachable for suites read by `suite`; a
                // plan built by hand can still bind a name no step declares.
                let why = if name.starts_with("capture ") {
                    name
                } else {
                    format!("capture `{name}` is not declared by an earlier step")
                };
                verdicts.push(not_run(&step.op_id, Outcome::Error, why, &step.assertions));
                stop = Some((
                    Outcome::Skipped,
                    format!("not run: step {} could not bind its captures", n + 1),
                ));
                continue;
            }
        };
        let (mut verdict, response) =
            run_step(ctx, &step.op_id, &input, &assertions, Some(&step.captures)).await;
        if let Some((resp, headers)) = response {
            let json = resp.json.as_ref().ok();
            let mut missing = Vec::new();
            for (name, path) in &step.captures {
                match binds::capture(path, json, &resp.text, &headers) {
                    Some(v) => {
                        captures.insert(name.clone(), v);
                    }
                    None => missing.push(format!("`{name}` (at `{path}`)")),
                }
            }
            if !missing.is_empty() {
                // The later steps depend on this value: the step that should have
                // produced it fails, so a sequence never passes without its data.
                let note = format!(
                    "capture {} not found in the response (body: {})",
                    missing.join(", "),
                    excerpt(&resp.text, CAPTURE_EXCERPT)
                );
                verdict.message = join_msg(&verdict.message, &note);
                if verdict.outcome != Outcome::Error {
                    verdict.outcome = Outcome::Fail;
                }
                stop = Some((
                    Outcome::Skipped,
                    format!(
                        "not run: step {} could not capture {}",
                        n + 1,
                        missing.join(", ")
                    ),
                ));
            }
        }
        if verdict.outcome == Outcome::Error {
            let why = if verdict.message.contains("budget exhausted") {
                "budget exhausted".to_string()
            } else {
                format!("an earlier step (step {}) had no usable answer", n + 1)
            };
            stop = Some((Outcome::Error, why));
        }
        verdicts.push(verdict);
    }
    verdicts
}

/// Characters of a response body quoted when a capture cannot be read from it.
const CAPTURE_EXCERPT: usize = 300;

/// The first `max` characters of `text`, with `…` when cut; `(empty)` for no text.
fn excerpt(text: &str, max: usize) -> String {
    if text.is_empty() {
        return "(empty)".to_string();
    }
    let mut out: String = text.chars().take(max).collect();
    if out.len() < text.len() {
        out.push('…');
    }
    out
}

fn join_msg(a: &str, b: &str) -> String {
    if a.is_empty() {
        b.to_string()
    } else {
        format!("{a}; {b}")
    }
}

type Bound = (OracleInput, Vec<Assertion>);

fn bind_step(
    input: &OracleInput,
    assertions: &[Assertion],
    caps: &Captures,
) -> Result<Bound, String> {
    let map = |m: &std::collections::BTreeMap<String, Value>| {
        m.iter()
            .map(|(k, v)| Ok((k.clone(), binds::substitute(v, caps)?)))
            .collect::<Result<_, String>>()
    };
    let text = |s: &str| -> Result<String, String> {
        Ok(crate::oracle::assert::string_form(&binds::substitute(
            &Value::String(s.to_string()),
            caps,
        )?))
    };
    let input = OracleInput {
        path: map(&input.path)?,
        path_raw: input
            .path_raw
            .iter()
            .map(|(k, v)| Ok((k.clone(), text(v)?)))
            .collect::<Result<_, String>>()?,
        query: map(&input.query)?,
        body: input
            .body
            .as_ref()
            .map(|b| binds::substitute(b, caps))
            .transpose()?,
        raw_body: input
            .raw_body
            .as_ref()
            .map(|r| {
                Ok::<_, String>(crate::model::RawBody {
                    content_type: r.content_type.clone(),
                    text: text(&r.text)?,
                })
            })
            .transpose()?,
        headers: map(&input.headers)?,
        method: input.method.clone(),
        query_raw: input.query_raw.as_deref().map(text).transpose()?,
    };
    let assertions = assertions
        .iter()
        .map(|a| match a {
            Assertion::Field {
                field_path,
                op,
                expected,
            } => Ok(Assertion::Field {
                field_path: field_path.clone(),
                op: *op,
                expected: binds::substitute(expected, caps)?,
            }),
            other => Ok(other.clone()),
        })
        .collect::<Result<_, String>>()?;
    Ok((input, assertions))
}

fn not_run(op_id: &str, outcome: Outcome, why: String, assertions: &[Assertion]) -> StepVerdict {
    StepVerdict {
        op_id: op_id.to_string(),
        outcome,
        assertions: assertions
            .iter()
            .enumerate()
            .map(|(index, a)| AssertionVerdict {
                index,
                outcome,
                expected: expected_of(a),
                actual: Value::Null,
                message: why.clone(),
                unstable: false,
            })
            .collect(),
        exchange: None,
        message: why,
    }
}

fn expected_of(a: &Assertion) -> Value {
    match a {
        Assertion::Status { expected } => Value::from(*expected),
        Assertion::Field { expected, .. } => expected.clone(),
    }
}

type StepResponse = Option<(Response, std::collections::BTreeMap<String, String>)>;

/// Sends one request and evaluates its assertions. Returns the response too when the
/// caller has captures to read.
async fn run_step(
    ctx: &Ctx<'_>,
    op_id: &str,
    input: &OracleInput,
    assertions: &[Assertion],
    captures: Option<&std::collections::BTreeMap<String, String>>,
) -> (StepVerdict, StepResponse) {
    if !ctx.take_request() {
        let why = "budget exhausted".to_string();
        return (not_run(op_id, Outcome::Error, why, assertions), None);
    }
    let (exchange, received) = exec::send(
        &ctx.client,
        ctx.base,
        op_id,
        input,
        ctx.cfg.timeout,
        ctx.cfg.max_body,
    )
    .await;
    match received {
        Err(why) => {
            let mut v = not_run(op_id, Outcome::Error, why, assertions);
            v.exchange = Some(exchange);
            (v, None)
        }
        Ok(received) => {
            let resp = Response::new(received.status, received.text);
            let verdicts: Vec<AssertionVerdict> = assertions
                .iter()
                .enumerate()
                .map(|(i, a)| assert::evaluate(i, a, &resp))
                .collect();
            let outcome = overall(verdicts.iter().map(|v| v.outcome));
            let message = verdicts
                .iter()
                .find(|v| v.outcome != Outcome::Pass)
                .map(|v| v.message.clone())
                .unwrap_or_default();
            let step = StepVerdict {
                op_id: op_id.to_string(),
                outcome,
                assertions: verdicts,
                exchange: Some(exchange),
                message,
            };
            let keep = captures.is_some_and(|c| !c.is_empty());
            (step, keep.then_some((resp, received.headers)))
        }
    }
}

/// Keeps the first run and flags assertions that behaved differently across runs.
fn merge_runs(
    unit: &Unit<'_>,
    mut first: Verdict,
    rest: &[Verdict],
) -> (Verdict, Vec<UnstableAssertion>) {
    let step_assertions = unit.step_assertions();
    let mut unstable = Vec::new();
    for (s, step) in first.steps.iter_mut().enumerate() {
        for a in step.assertions.iter_mut() {
            let others: Vec<&AssertionVerdict> = rest
                .iter()
                .filter_map(|r| r.steps.get(s).and_then(|st| st.assertions.get(a.index)))
                .collect();
            let outcome_differs = others.iter().any(|o| o.outcome != a.outcome);
            let failing_differently = (a.outcome == Outcome::Fail
                || others.iter().any(|o| o.outcome == Outcome::Fail))
                && others.iter().any(|o| o.actual != a.actual);
            if outcome_differs || failing_differently {
                a.unstable = true;
                let field_path = match step_assertions.get(s).and_then(|l| l.get(a.index)) {
                    Some(Assertion::Field { field_path, .. }) => field_path.clone(),
                    _ => "status".to_string(),
                };
                unstable.push(UnstableAssertion {
                    o_id: first.o_id.clone(),
                    step: s,
                    index: a.index,
                    field_path,
                    actuals: std::iter::once(a.actual.clone())
                        .chain(others.iter().map(|o| o.actual.clone()))
                        .collect(),
                    outcomes: std::iter::once(a.outcome)
                        .chain(others.iter().map(|o| o.outcome))
                        .collect(),
                });
            }
        }
    }
    (first, unstable)
}
