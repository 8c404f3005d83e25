//! Metamorphic tests in the workbench: reading them (and the last loop's report) into the
//! [`SessionView`], the outcome each one shows, and the checks an edit must pass.
//!
//! A metamorphic test is reviewed like any oracle, under the review id `mr#<test_id>` in
//! the same journal. Its outcome comes from the latest verdicts (`verdicts/latest.json`)
//! when they hold the test, else from `metamorphic_report.json`. This module neither runs
//! nor generates tests and draws nothing (see `ui::metamorphic`).

use super::store::Session;
use super::view::SessionView;
use crate::metamorphic::iterate::MrReport;
use crate::metamorphic::store::{DIR, REPORT};
use crate::model::{MetamorphicTest, Outcome, Verdict};
use crate::runner::relations::{EXECUTION_FAILED, MrOutcome, RELATIONS_STEP, VIOLATED};

/// Prefix of every metamorphic review id (`MetamorphicTest::o_id`).
pub const O_ID_PREFIX: &str = "mr#";

/// Whether a review id names a metamorphic test. Single-op ids start with an HTTP method
/// and multi-op ids with a group id, so the prefix is unambiguous.
pub fn is_mr_id(o_id: &str) -> bool {
    o_id.starts_with(O_ID_PREFIX)
}

/// Where a metamorphic test stands after the last run that reached it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MrStatus {
    Passed,
    /// The steps went through but a relation did not hold: the test's finding.
    RelationViolated,
    /// Something stopped the relations from being checked (see the reason).
    ExecutionFailed,
    NotRun,
}

impl MrStatus {
    /// Words for the list and the detail pane.
    pub fn label(self) -> &'static str {
        match self {
            MrStatus::Passed => "passed",
            MrStatus::RelationViolated => "relation violated",
            MrStatus::ExecutionFailed => "execution failed",
            MrStatus::NotRun => "not run",
        }
    }
}

/// The outcome shown for one test: status, reason in words, and which file said so.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MrOutcomeView {
    pub status: MrStatus,
    pub reason: String,
    /// Session file the outcome was read from (empty when not run).
    pub source: &'static str,
}

/// The outcome of `test`: the latest verdicts when they hold it, else the loop report.
pub fn outcome(view: &SessionView, test: &MetamorphicTest) -> MrOutcomeView {
    let o_id = test.o_id();
    if let Some(v) = view.verdict_details.get(&o_id) {
        return from_verdict(v);
    }
    if let Some(v) = view.mr_verdicts.get(&o_id) {
        let status = match v.outcome {
            MrOutcome::Passed => MrStatus::Passed,
            MrOutcome::RelationViolated => MrStatus::RelationViolated,
            MrOutcome::ExecutionFailed => MrStatus::ExecutionFailed,
        };
        return MrOutcomeView {
            status,
            reason: v.reason.clone(),
            source: REPORT,
        };
    }
    MrOutcomeView {
        status: MrStatus::NotRun,
        reason: String::new(),
        source: "",
    }
}

/// A runner verdict of the test's sequence. As in `runner::relations`, only a failure
/// with every step through is a violated relation; a failed, errored or skipped step
/// means the relations could not be checked. The runner's closing
/// [`RELATIONS_STEP`] is the relations themselves, not a step of the sequence, and its
/// message (`relation violated: ...`, `execution failed: ...`) is the reason.
fn from_verdict(v: &Verdict) -> MrOutcomeView {
    let status = match crate::positives::mr_outcome(v) {
        MrOutcome::Passed => MrStatus::Passed,
        MrOutcome::RelationViolated => MrStatus::RelationViolated,
        MrOutcome::ExecutionFailed => MrStatus::ExecutionFailed,
    };
    let reason = v
        .steps
        .iter()
        .enumerate()
        .find(|(_, s)| s.outcome != Outcome::Pass)
        .map(|(i, s)| {
            if s.op_id == RELATIONS_STEP {
                let m = s.message.as_str();
                return [VIOLATED, EXECUTION_FAILED]
                    .iter()
                    .find_map(|w| m.strip_prefix(w).and_then(|r| r.strip_prefix(": ")))
                    .unwrap_or(m)
                    .to_string();
            }
            let why = if s.message.is_empty() {
                s.assertions
                    .iter()
                    .find(|a| a.outcome != Outcome::Pass)
                    .map(|a| format!("expected {} got {} {}", a.expected, a.actual, a.message))
                    .unwrap_or_default()
            } else {
                s.message.clone()
            };
            format!("step {} ({}): {}", i + 1, s.op_id, why.trim())
        })
        .unwrap_or_else(|| match status {
            MrStatus::RelationViolated => "a relation did not hold".to_string(),
            _ => String::new(),
        });
    MrOutcomeView {
        status,
        reason,
        source: crate::suite::session::LATEST_VERDICTS,
    }
}

/// Reads the session's metamorphic tests and report into `view`. One unreadable test
/// file is a warning, not a failed load, so the rest can still be reviewed.
pub fn load_into(session: &Session, view: &mut SessionView) {
    let names = match session.list(DIR) {
        Ok(n) => n,
        Err(e) => {
            view.warnings.push(e.to_string());
            Vec::new()
        }
    };
    for name in names.iter().filter(|n| n.ends_with(".json")) {
        let rel = format!("{DIR}/{name}");
        match session.read_json::<MetamorphicTest>(&rel) {
            Ok(Some(t)) => view.metamorphic.push(t),
            Ok(None) => {}
            Err(e) => view.warnings.push(e.to_string()),
        }
    }
    let report = match session.read_json::<MrReport>(REPORT) {
        Ok(r) => r,
        Err(e) => {
            view.warnings.push(e.to_string());
            None
        }
    };
    if let Some(report) = report {
        // A report without test files (an older layout) still lists its tests.
        if view.metamorphic.is_empty() {
            view.metamorphic = report.tests.clone();
        }
        view.mr_report_at = report.finished_at.clone();
        for v in report.verdicts {
            view.mr_verdicts.insert(v.o_id.clone(), v);
        }
        for d in report.iterations.iter().flat_map(|i| &i.duplicates) {
            view.mr_duplicates
                .entry(d.same_as.clone())
                .or_default()
                .push(d.test_id.clone());
        }
    }
    view.metamorphic.sort_by(|a, b| a.test_id.cmp(&b.test_id));
    if !view.metamorphic.is_empty() {
        // Only when there are tests: reading the spec costs a parse.
        view.mr_documented = crate::suite::session::documented(session);
    }
}

/// Checks an edited metamorphic test: it parses, passes the structural checks and keeps
/// its test_id (the decision stays on `o_id`). Returns the JSON to journal.
pub fn validate_edit(o_id: &str, text: &str) -> Result<serde_json::Value, String> {
    let t: MetamorphicTest =
        super::json_lines::parse(text).map_err(|e| format!("not a metamorphic test: {e}"))?;
    if t.o_id() != o_id {
        return Err(format!(
            "test_id changed ({}); keep it so the decision stays on {o_id}",
            t.test_id
        ));
    }
    crate::metamorphic::check::validate_structure(&t)?;
    serde_json::to_value(&t).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn test_json() -> serde_json::Value {
        json!({
            "test_id": "filter_subset", "scenario": "Filtering returns a subset",
            "seed": [{"op_id": "GET /pets", "input": {"query": {"status": "available"}}}],
            "follow_up": [{"op_id": "GET /pets"}],
            "relations": [{"left": "seed[0].body[*].id", "op": "subset", "right": "follow_up[0].body[*].id"}]
        })
    }

    #[test]
    fn a_valid_edit_is_kept_and_a_changed_id_or_bad_relation_is_refused() {
        let ok = validate_edit("mr#filter_subset", &test_json().to_string()).unwrap();
        assert_eq!(ok["test_id"], "filter_subset");
        let e = validate_edit("mr#other", &test_json().to_string()).unwrap_err();
        assert!(e.contains("test_id changed"), "{e}");
        let mut bad = test_json();
        bad["relations"][0]["left"] = json!("sideways[0].body");
        let e = validate_edit("mr#filter_subset", &bad.to_string()).unwrap_err();
        assert!(e.starts_with("relation 1:"), "{e}");
        let mut empty = test_json();
        empty["follow_up"] = json!([]);
        let e = validate_edit("mr#filter_subset", &empty.to_string()).unwrap_err();
        assert!(e.contains("follow_up"), "{e}");
        let e = validate_edit("mr#filter_subset", "{").unwrap_err();
        assert!(e.starts_with("not a metamorphic test"), "{e}");
    }

    #[test]
    fn latest_verdicts_win_over_the_loop_report() {
        let t: MetamorphicTest = serde_json::from_value(test_json()).unwrap();
        let mut view = SessionView::default();
        assert_eq!(outcome(&view, &t).status, MrStatus::NotRun);
        view.mr_verdicts.insert(
            t.o_id(),
            serde_json::from_value(
                json!({"o_id": "mr#filter_subset", "test_id": "filter_subset",
                "outcome": "relation_violated", "reason": "relation 1: not a subset",
                "requests": 2, "steps": [], "relations": []}),
            )
            .unwrap(),
        );
        let o = outcome(&view, &t);
        assert_eq!((o.status, o.source), (MrStatus::RelationViolated, REPORT));
        assert_eq!(o.reason, "relation 1: not a subset");
        view.apply_verdicts([serde_json::from_value(json!({"o_id": "mr#filter_subset",
            "outcome": "error", "at": "t", "base_url": "http://x",
            "steps": [{"op_id": "GET /pets", "outcome": "error", "message": "connection refused"}]}))
        .unwrap()]);
        let o = outcome(&view, &t);
        assert_eq!(o.status, MrStatus::ExecutionFailed);
        assert_eq!(o.reason, "step 1 (GET /pets): connection refused");
        // A failure with every step through is a relation; a failed step is not.
        let verdict = |step: &str| -> Verdict {
            serde_json::from_value(json!({"o_id": "mr#filter_subset", "outcome": "fail",
                "at": "t", "base_url": "http://x",
                "steps": [{"op_id": "GET /pets", "outcome": step, "message": "status 500"}]}))
            .unwrap()
        };
        view.apply_verdicts([verdict("pass")]);
        let o = outcome(&view, &t);
        assert_eq!(
            (o.status, o.reason.as_str()),
            (MrStatus::RelationViolated, "a relation did not hold")
        );
        view.apply_verdicts([verdict("fail")]);
        assert_eq!(outcome(&view, &t).status, MrStatus::ExecutionFailed);

        // What `mastor check` stores: the steps, then the relations as a last step.
        let mut checked = verdict("pass");
        checked.steps.push(
            serde_json::from_value(json!({"op_id": "relations", "outcome": "fail",
                "message": "relation violated: relation 1: [3] is not a subset of [1, 2]"}))
            .unwrap(),
        );
        view.apply_verdicts([checked]);
        let o = outcome(&view, &t);
        assert_eq!(
            (o.status, o.reason.as_str()),
            (
                MrStatus::RelationViolated,
                "relation 1: [3] is not a subset of [1, 2]"
            )
        );
    }
}
