//! ARMeta's fault-detection metrics: failed tests, true positive failing tests (TPFT),
//! false positive failing tests (FPFT) and the true positive rate (TPR), from the
//! session's latest verdicts and the reviewer's judgements (`judgements.jsonl`).
//!
//! Kept apart from review and from the runner because it joins the two: which verdict
//! is a test's latest failure is decided here once, for the workbench (what may be
//! judged, what the lists show) and for the reports (`mastor metamorphic`, `mastor
//! compare`), so the two never disagree.
//!
//! A failed test is, as in ARMeta, one whose latest run failed on an assertion or on an
//! HTTP / runtime error: an oracle whose verdict is `fail` or `error`, a metamorphic test
//! whose relation was violated or whose execution failed. A judgement counts only while
//! it judges that very verdict (same outcome, same run time): after a new run the
//! failure is unjudged again, and the old judgement stays in the journal.
//!
//! TPR is TPFT / failed with unjudged failures in the denominator, so it is a lower
//! bound until every failure is judged and never rises by leaving failures unjudged
//! (ARMeta judges every failure, where both readings agree).

use crate::metamorphic::iterate::MrReport;
use crate::model::{Outcome, Verdict};
use crate::runner::relations::{MrOutcome, MrVerdict, RELATIONS_STEP};
use crate::store::{JudgedVerdict, Judgement, Positive, Session, StoreError};
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};

/// Prefix of metamorphic review ids (`MetamorphicTest::o_id`).
const MR_PREFIX: &str = "mr#";

/// How a runner verdict of a metamorphic test's sequence reads: a failure with every
/// step through is a violated relation; a failed, errored or skipped step means the
/// relations could not be checked. The closing relations step is not a step.
pub fn mr_outcome(v: &Verdict) -> MrOutcome {
    let step_failed = v
        .steps
        .iter()
        .any(|s| s.op_id != RELATIONS_STEP && s.outcome != Outcome::Pass);
    match v.outcome {
        Outcome::Pass => MrOutcome::Passed,
        Outcome::Fail if !step_failed => MrOutcome::RelationViolated,
        Outcome::Fail | Outcome::Error | Outcome::Skipped => MrOutcome::ExecutionFailed,
    }
}

fn mr_failure(o: MrOutcome, run_at: Option<&str>) -> Option<JudgedVerdict> {
    let outcome = match o {
        MrOutcome::Passed => return None,
        MrOutcome::RelationViolated => "relation_violated",
        MrOutcome::ExecutionFailed => "execution_failed",
    };
    Some(JudgedVerdict {
        outcome: outcome.to_string(),
        run_at: run_at.map(str::to_string),
    })
}

/// The latest failure of a single-op or multi-op oracle (`None`: passed, skipped or
/// never run).
pub fn failed_oracle(latest: Option<&Verdict>) -> Option<JudgedVerdict> {
    let v = latest?;
    let outcome = match v.outcome {
        Outcome::Fail => "fail",
        Outcome::Error => "error",
        Outcome::Pass | Outcome::Skipped => return None,
    };
    Some(JudgedVerdict {
        outcome: outcome.to_string(),
        run_at: Some(v.at.clone()),
    })
}

/// The latest failure of a metamorphic test: from the latest verdicts when they hold
/// it, else from the loop report (run at `report_at`).
pub fn failed_mr(
    latest: Option<&Verdict>,
    report: Option<&MrVerdict>,
    report_at: Option<&str>,
) -> Option<JudgedVerdict> {
    match (latest, report) {
        (Some(v), _) => mr_failure(mr_outcome(v), Some(&v.at)),
        (None, Some(r)) => mr_failure(r.outcome, report_at),
        (None, None) => None,
    }
}

/// The judgement that counts for `current`: the latest one, if it judged this verdict.
pub fn applying<'a>(
    judgements: &'a BTreeMap<String, Judgement>,
    o_id: &str,
    current: &JudgedVerdict,
) -> Option<&'a Judgement> {
    judgements.get(o_id).filter(|j| &j.verdict == current)
}

/// Failed tests and how they were judged.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct PositiveCounts {
    pub failed: usize,
    pub tpft: usize,
    pub fpft: usize,
    pub unjudged: usize,
    /// TPFT / failed (unjudged failures in the denominator); `None` without failures.
    pub tpr: Option<f64>,
}

impl PositiveCounts {
    /// Counts one failed test with its judgement, if any.
    pub fn add(&mut self, judged: Option<Positive>) {
        self.failed += 1;
        match judged {
            Some(Positive::Tp) => self.tpft += 1,
            Some(Positive::Fp) => self.fpft += 1,
            None => self.unjudged += 1,
        }
        self.tpr = Some(self.tpft as f64 / self.failed as f64);
    }

    /// Both sets of counts together.
    pub fn plus(&self, other: &PositiveCounts) -> PositiveCounts {
        let failed = self.failed + other.failed;
        let tpft = self.tpft + other.tpft;
        PositiveCounts {
            failed,
            tpft,
            fpft: self.fpft + other.fpft,
            unjudged: self.unjudged + other.unjudged,
            tpr: (failed > 0).then(|| tpft as f64 / failed as f64),
        }
    }

    /// `TPR 66.7%`, or `TPR n/a` without failures.
    pub fn tpr_text(&self) -> String {
        match self.tpr {
            Some(r) => format!("{:.1}%", r * 100.0),
            None => "n/a".to_string(),
        }
    }

    /// One line for text reports.
    pub fn line(&self) -> String {
        format!(
            "failed tests {}: TPFT {}, FPFT {}, unjudged {}; TPR {} (TPFT / failed, \
             unjudged failures in the denominator)",
            self.failed,
            self.tpft,
            self.fpft,
            self.unjudged,
            self.tpr_text()
        )
    }
}

/// A session's counts: single-op and multi-op oracles together, metamorphic tests apart,
/// and both summed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct Positives {
    pub oracles: PositiveCounts,
    pub metamorphic: PositiveCounts,
    pub total: PositiveCounts,
}

/// Counts `failures` (o_id and latest failed verdict) against `judgements`.
pub fn count<'a>(
    failures: impl IntoIterator<Item = (&'a str, &'a JudgedVerdict)>,
    judgements: &BTreeMap<String, Judgement>,
) -> Positives {
    let mut p = Positives::default();
    for (o_id, v) in failures {
        let judged = applying(judgements, o_id, v).map(|j| j.judgement);
        if o_id.starts_with(MR_PREFIX) {
            p.metamorphic.add(judged);
        } else {
            p.oracles.add(judged);
        }
    }
    p.total = p.oracles.plus(&p.metamorphic);
    p
}

/// The failures of a loop report alone (what `mastor metamorphic` just ran).
pub fn report_failures(report: &MrReport) -> Vec<(String, JudgedVerdict)> {
    report
        .verdicts
        .iter()
        .filter_map(|v| {
            failed_mr(None, Some(v), report.finished_at.as_deref()).map(|f| (v.o_id.clone(), f))
        })
        .collect()
}

/// Every latest failure of the session: oracles from `verdicts/latest.json`,
/// metamorphic tests from there or from `metamorphic_report.json`.
pub fn session_failures(session: &Session) -> Result<Vec<(String, JudgedVerdict)>, StoreError> {
    let latest: BTreeMap<String, Verdict> = session
        .read_json::<crate::suite::session::VerdictFile>(crate::suite::session::LATEST_VERDICTS)?
        .map(|f| {
            f.report
                .verdicts
                .into_iter()
                .map(|v| (v.o_id.clone(), v))
                .collect()
        })
        .unwrap_or_default();
    let report = crate::metamorphic::store::load_report(session)?;
    let mut tests = crate::metamorphic::store::load_tests(session)?;
    if tests.is_empty()
        && let Some(r) = &report
    {
        tests = r.tests.clone();
    }
    let from_report: BTreeMap<&str, &MrVerdict> = report
        .iter()
        .flat_map(|r| r.verdicts.iter().map(|v| (v.o_id.as_str(), v)))
        .collect();
    let report_at = report.as_ref().and_then(|r| r.finished_at.as_deref());
    let mut out = Vec::new();
    for (o_id, v) in &latest {
        if !o_id.starts_with(MR_PREFIX)
            && let Some(f) = failed_oracle(Some(v))
        {
            out.push((o_id.clone(), f));
        }
    }
    let mr_ids: BTreeSet<String> = tests.iter().map(|t| t.o_id()).collect();
    for o_id in mr_ids {
        let f = failed_mr(
            latest.get(&o_id),
            from_report.get(o_id.as_str()).copied(),
            report_at,
        );
        if let Some(f) = f {
            out.push((o_id, f));
        }
    }
    Ok(out)
}

/// The session's counts (see the module docs).
pub fn of_session(session: &Session) -> Result<Positives, StoreError> {
    let failures = session_failures(session)?;
    let judgements = session.read_judgements()?;
    Ok(count(
        failures.iter().map(|(o, v)| (o.as_str(), v)),
        &judgements,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn judged(o_id: &str, p: Positive, outcome: &str, run_at: &str) -> Judgement {
        Judgement {
            o_id: o_id.into(),
            judgement: p,
            note: None,
            at: "t".into(),
            verdict: JudgedVerdict {
                outcome: outcome.into(),
                run_at: Some(run_at.into()),
            },
        }
    }

    #[test]
    fn tpr_counts_unjudged_failures_and_stale_judgements_do_not_count() {
        let v = |o: &str, at: &str| JudgedVerdict {
            outcome: o.into(),
            run_at: Some(at.into()),
        };
        let failures = [
            ("mr#a".to_string(), v("relation_violated", "r1")),
            ("mr#b".to_string(), v("execution_failed", "r1")),
            ("mr#c".to_string(), v("relation_violated", "r2")),
            ("GET /x#o".to_string(), v("fail", "c1")),
        ];
        let judgements: BTreeMap<String, Judgement> = [
            judged("mr#a", Positive::Tp, "relation_violated", "r1"),
            judged("mr#b", Positive::Fp, "execution_failed", "r1"),
            // Judged an earlier run: the failure is unjudged again.
            judged("mr#c", Positive::Tp, "relation_violated", "r1"),
            judged("GET /x#o", Positive::Tp, "fail", "c1"),
        ]
        .into_iter()
        .map(|j| (j.o_id.clone(), j))
        .collect();
        let p = count(failures.iter().map(|(o, v)| (o.as_str(), v)), &judgements);
        assert_eq!(
            (
                p.metamorphic.failed,
                p.metamorphic.tpft,
                p.metamorphic.fpft,
                p.metamorphic.unjudged
            ),
            (3, 1, 1, 1)
        );
        assert_eq!(p.metamorphic.tpr, Some(1.0 / 3.0));
        assert_eq!((p.oracles.failed, p.oracles.tpft), (1, 1));
        assert_eq!((p.total.failed, p.total.tpft), (4, 2));
        assert_eq!(p.total.tpr_text(), "50.0%");
        assert_eq!(PositiveCounts::default().tpr_text(), "n/a");
    }
}
