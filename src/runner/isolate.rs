//! Failure isolation: re-runs each failing oracle alone, on fresh state, to tell an oracle
//! that is wrong from one that only failed because of what other oracles did before it.
//!
//! Oracles of one run share one server: a single-op oracle that deletes a seed record
//! makes every later oracle that reads it fail, although each is right about the code.
//! Measured on a generated 252-oracle suite, most failures on a correct program were of
//! that kind. So after a run, each failing oracle (single-op, sequence or metamorphic
//! test) is re-run on its own right after the caller's "make fresh" hook (`check` runs its
//! `--reset` command; `mutate` restarts the server), and classified:
//! - alone it passes: [`Isolation::OrderDependent`];
//! - alone it fails (or errors again, when it errored in the run): [`Isolation::Wrong`];
//! - the hook failed, or the re-run had no usable answer where the run had one:
//!   [`Isolation::Inconclusive`].
//!
//! The classification is a label: the run's outcome is unchanged, so an order-dependent
//! oracle still fails `check` (the suite as written does not pass), and the reader knows
//! to fix the suite's state handling rather than the assertion.

use crate::model::{Isolation, Outcome, Verdict};
use crate::runner::{Plan, RunConfig, RunReport, RunnerError};
use std::future::Future;

/// The re-run of one failing oracle.
#[derive(Debug, Clone, PartialEq)]
pub struct Isolated {
    pub o_id: String,
    pub isolation: Isolation,
    /// The verdict of the run alone (`None` when the hook failed and nothing was sent).
    pub alone: Option<Verdict>,
    /// Why the result is inconclusive (the hook's error, or the re-run's message); empty
    /// otherwise.
    pub note: String,
}

/// True for a verdict isolation re-runs: a failure or an error.
pub fn is_failing(v: &Verdict) -> bool {
    matches!(v.outcome, Outcome::Fail | Outcome::Error)
}

/// A plan holding only the oracle, sequence or metamorphic test with this o_id (and the
/// plan's documented statuses); `None` when the plan has no such entry (e.g. a suite
/// entry that could not be parsed, which no re-run can fix).
pub fn plan_for(plan: &Plan, o_id: &str) -> Option<Plan> {
    let mut one = Plan {
        documented: plan.documented.clone(),
        ..Plan::default()
    };
    if let Some(o) = plan.oracles.iter().find(|o| o.o_id() == o_id) {
        one.oracles.push(o.clone());
    } else if let Some(m) = plan.multi_op.iter().find(|m| m.o_id() == o_id) {
        one.multi_op.push(m.clone());
    } else if let Some(t) = plan.metamorphic.iter().find(|t| t.o_id() == o_id) {
        one.metamorphic.push(t.clone());
    } else {
        return None;
    }
    Some(one)
}

/// Classifies a failure from the outcome of its run alone.
pub fn classify(in_run: Outcome, alone: Outcome) -> Isolation {
    match (in_run, alone) {
        (_, Outcome::Pass) => Isolation::OrderDependent,
        (_, Outcome::Fail) => Isolation::Wrong,
        (Outcome::Error, Outcome::Error) => Isolation::Wrong,
        _ => Isolation::Inconclusive,
    }
}

/// Re-runs each failing verdict's oracle alone, each right after `make_fresh`, and
/// classifies it. Verdicts that pass, or whose o_id the plan lacks, are left out.
///
/// `cfg` is used as given except that its own reset is dropped (the hook made the state
/// fresh; `check` passes a hook that runs the same command); so a `mutate` baseline can
/// pass a hook that restarts its server and waits until it is ready. Oracles are re-run
/// in the order of `failing`, one at a time. Err only when a re-run cannot start at all
/// (bad base URL, writes refused), as for [`crate::runner::run`]; an unreachable server
/// after the hook is an inconclusive result for that oracle, not an error of the whole.
pub async fn isolate_failures<F, Fut>(
    plan: &Plan,
    cfg: &RunConfig,
    failing: &[Verdict],
    mut make_fresh: F,
) -> Result<Vec<Isolated>, RunnerError>
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Result<(), String>>,
{
    let alone_cfg = RunConfig {
        reset: None,
        ..cfg.clone()
    };
    let mut results = Vec::new();
    for v in failing.iter().filter(|v| is_failing(v)) {
        let Some(one) = plan_for(plan, &v.o_id) else {
            continue;
        };
        let inconclusive = |note: String, alone: Option<Verdict>| Isolated {
            o_id: v.o_id.clone(),
            isolation: Isolation::Inconclusive,
            alone,
            note,
        };
        if let Err(why) = make_fresh().await {
            results.push(inconclusive(format!("no fresh state: {why}"), None));
            continue;
        }
        let report = match crate::runner::run(&one, &alone_cfg).await {
            Ok(r) => r,
            Err(e @ RunnerError::Unreachable { .. }) => {
                results.push(inconclusive(e.to_string(), None));
                continue;
            }
            Err(e) => return Err(e),
        };
        let Some(alone) = report.verdicts.into_iter().next() else {
            continue;
        };
        let isolation = classify(v.outcome, alone.outcome);
        let note = if isolation == Isolation::Inconclusive {
            first_message(&alone)
        } else {
            String::new()
        };
        results.push(Isolated {
            o_id: v.o_id.clone(),
            isolation,
            alone: Some(alone),
            note,
        });
    }
    Ok(results)
}

/// Labels the report's verdicts with their classification (by o_id).
pub fn apply(report: &mut RunReport, results: &[Isolated]) {
    for r in results {
        if let Some(v) = report.verdicts.iter_mut().find(|v| v.o_id == r.o_id) {
            v.isolation = Some(r.isolation);
        }
    }
}

/// A one-line explanation of a classification, for text output and JUnit messages.
pub fn describe(isolation: Isolation) -> &'static str {
    match isolation {
        Isolation::Wrong => "wrong: still fails when run alone on fresh state",
        Isolation::OrderDependent => {
            "order_dependent: passes when run alone on fresh state; it fails only after \
             other oracles changed the data it expects"
        }
        Isolation::Inconclusive => "inconclusive: the run alone could not tell",
    }
}

fn first_message(v: &Verdict) -> String {
    v.steps
        .iter()
        .map(|s| s.message.as_str())
        .find(|m| !m.is_empty())
        .unwrap_or_default()
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{MultiOpOracle, Oracle};
    use serde_json::json;

    #[test]
    fn classification_follows_the_outcome_alone() {
        use Outcome::*;
        assert_eq!(classify(Fail, Pass), Isolation::OrderDependent);
        assert_eq!(classify(Error, Pass), Isolation::OrderDependent);
        assert_eq!(classify(Fail, Fail), Isolation::Wrong);
        assert_eq!(classify(Error, Error), Isolation::Wrong);
        assert_eq!(classify(Fail, Error), Isolation::Inconclusive);
        assert_eq!(classify(Fail, Skipped), Isolation::Inconclusive);
    }

    #[test]
    fn plan_for_picks_the_one_entry() {
        let o: Oracle = serde_json::from_value(json!({"test_id": "a", "op_id": "GET /p",
            "assertions": [{"type": "status", "expected": 200}]}))
        .unwrap();
        let m: MultiOpOracle = serde_json::from_value(json!({"test_id": "s", "group_id": "g",
            "steps": [{"op_id": "GET /p", "assertions": [{"type": "status", "expected": 200}]}]}))
        .unwrap();
        let plan = Plan {
            oracles: vec![o],
            multi_op: vec![m],
            ..Plan::default()
        };
        let one = plan_for(&plan, "g#s").unwrap();
        assert!(one.oracles.is_empty() && one.multi_op.len() == 1);
        let one = plan_for(&plan, "GET /p#a").unwrap();
        assert!(one.oracles.len() == 1 && one.multi_op.is_empty());
        assert!(plan_for(&plan, "nope").is_none());
    }

    #[test]
    fn isolation_is_absent_from_json_unless_set() {
        let mut v = crate::runner::unrunnable("o", "GET /p", "x", "http://h");
        let text = serde_json::to_string(&v).unwrap();
        assert!(!text.contains("isolation"), "{text}");
        v.isolation = Some(Isolation::OrderDependent);
        let text = serde_json::to_value(&v).unwrap();
        assert_eq!(text["isolation"], json!("order_dependent"));
    }
}
