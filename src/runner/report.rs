//! Human-readable rendering of a run: one line per oracle, failure details with the
//! request as `curl`, and a summary. Returns strings; printing is the CLI's job.
//!
//! Every rendered string has its control characters escaped (`text::escape_controls`):
//! bodies, headers, messages and ids come from outside and must not drive the terminal.

use crate::model::{Outcome, Verdict};
use crate::runner::assert::short;
use crate::runner::{RunReport, Summary};
use crate::text::escape_controls;
use std::fmt::Write;

/// The one-character mark of an outcome: ✓ pass, ✗ fail, ! error, - skipped.
pub fn mark(outcome: Outcome) -> &'static str {
    match outcome {
        Outcome::Pass => "✓",
        Outcome::Fail => "✗",
        Outcome::Error => "!",
        Outcome::Skipped => "-",
    }
}

/// The first reason a verdict did not pass, e.g. `expected 200, got 404 at status`.
pub fn first_failure(v: &Verdict) -> Option<String> {
    // A metamorphic verdict says why in its relations step (violated vs execution failed).
    if let Some(s) = v
        .steps
        .iter()
        .find(|s| s.op_id == crate::runner::relations::RELATIONS_STEP)
        && s.outcome != Outcome::Pass
        && !s.message.is_empty()
    {
        return Some(s.message.clone());
    }
    let multi = v.steps.len() > 1;
    v.steps.iter().enumerate().find_map(|(n, s)| {
        if s.outcome == Outcome::Pass {
            return None;
        }
        let msg = s
            .assertions
            .iter()
            .find(|a| a.outcome != Outcome::Pass)
            .map(|a| a.message.clone())
            .filter(|m| !m.is_empty())
            .unwrap_or_else(|| s.message.clone());
        Some(if multi {
            format!("step {} ({}): {msg}", n + 1, s.op_id)
        } else {
            msg
        })
    })
}

/// One line per oracle; a failure isolated by `--isolate-failures` carries its label
/// (`[order_dependent]`, `[wrong]`), so the reader knows which failures to fix in the
/// suite's state handling rather than in the assertion.
pub fn oracle_line(v: &Verdict) -> String {
    let label = v
        .isolation
        .map(|i| format!(" [{}]", i.label()))
        .unwrap_or_default();
    let line = match first_failure(v) {
        Some(why) if v.outcome != Outcome::Pass => {
            format!("{} {}{label}  {why}", mark(v.outcome), v.o_id)
        }
        _ => format!("{} {}{label}", mark(v.outcome), v.o_id),
    };
    escape_controls(&line).into_owned()
}

/// The JUnit message of a verdict: its first failure, prefixed with its isolation label.
pub fn failure_message(v: &Verdict) -> String {
    let why = first_failure(v).unwrap_or_default();
    match v.isolation {
        Some(i) => format!("[{}] {why}", i.label()),
        None => why,
    }
}

/// `isolation: 1 wrong, 2 order_dependent` over the report, or `None` when no verdict
/// was isolated.
pub fn isolation_summary(report: &RunReport) -> Option<String> {
    use crate::model::Isolation;
    let count = |i: Isolation| {
        report
            .verdicts
            .iter()
            .filter(|v| v.isolation == Some(i))
            .count()
    };
    let parts: Vec<String> = [
        Isolation::Wrong,
        Isolation::OrderDependent,
        Isolation::Inconclusive,
    ]
    .into_iter()
    .filter(|i| count(*i) > 0)
    .map(|i| format!("{} {}", count(i), i.label()))
    .collect();
    (!parts.is_empty()).then(|| {
        format!(
            "isolation (each failure re-run alone after the reset): {}",
            parts.join(", ")
        )
    })
}

/// Details of a failed or errored verdict: per step the curl line and every assertion
/// that did not pass, expected vs actual.
pub fn failure_details(v: &Verdict) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{} {}", mark(v.outcome), v.o_id);
    if let Some(i) = v.isolation {
        let _ = writeln!(out, "  isolation: {}", crate::runner::isolate::describe(i));
    }
    for (n, s) in v.steps.iter().enumerate() {
        let _ = writeln!(out, "  step {} {} → {:?}", n + 1, s.op_id, s.outcome);
        if let Some(ex) = &s.exchange {
            if !ex.curl.is_empty() {
                let _ = writeln!(out, "    {}", ex.curl);
            }
            if let Some(status) = ex.status {
                let body: String = ex.response_body.chars().take(300).collect();
                let _ = writeln!(out, "    ← {status} {body}");
            }
        }
        if s.outcome == Outcome::Pass {
            continue;
        }
        if !s.message.is_empty() && s.assertions.iter().all(|a| a.message != s.message) {
            let _ = writeln!(out, "    {}", s.message);
        }
        for a in s.assertions.iter().filter(|a| a.outcome != Outcome::Pass) {
            let _ = writeln!(
                out,
                "    [{}] {}  expected: {}  actual: {}{}",
                a.index,
                a.message,
                short(&a.expected),
                short(&a.actual),
                if a.unstable { "  (unstable)" } else { "" }
            );
        }
    }
    escape_controls(&out).into_owned()
}

/// The summary block: counts, then unstable assertions if any.
pub fn summary(s: &Summary) -> String {
    let mut out = format!(
        "{} passed, {} failed, {} errors, {} skipped",
        s.passed, s.failed, s.errors, s.skipped
    );
    if !s.unstable.is_empty() {
        let _ = write!(
            out,
            "\n{} unstable assertion(s) (differ between runs; drop or loosen them):",
            s.unstable.len()
        );
        for u in &s.unstable {
            let values: Vec<String> = u.actuals.iter().map(short).collect();
            let _ = write!(
                out,
                "\n  {} step {} assertion {} `{}`: {}",
                u.o_id,
                u.step + 1,
                u.index,
                u.field_path,
                values.join(" | ")
            );
        }
    }
    escape_controls(&out).into_owned()
}

/// The full text report: lines, failure details, summary.
pub fn render(report: &RunReport) -> String {
    let mut out = String::new();
    for v in &report.verdicts {
        let _ = writeln!(out, "{}", oracle_line(v));
    }
    let failing: Vec<&Verdict> = report
        .verdicts
        .iter()
        .filter(|v| matches!(v.outcome, Outcome::Fail | Outcome::Error))
        .collect();
    if !failing.is_empty() {
        let _ = writeln!(out, "\nFailures:");
        for v in failing {
            let _ = writeln!(out, "{}", failure_details(v));
        }
    }
    let _ = writeln!(out, "{}", summary(&report.summary));
    if let Some(line) = isolation_summary(report) {
        let _ = writeln!(out, "{line}");
    }
    out
}
