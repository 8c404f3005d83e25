//! How a verdict reads on screen: the fixed-width verdict column of the oracle lists,
//! and one clean line per failed assertion (what was expected, what came back).
//!
//! The column is always drawn right after the review mark, before anything of variable
//! width, so a failing oracle is recognisable at any terminal width; a failing row is
//! red as a whole.

use crate::model::{AssertionVerdict, Outcome, StepVerdict, Verdict};
use crate::oracle::assert::short;
use crate::tui::state::App;
use crate::tui::verdict_mark::VerdictMark;
use ratatui::style::Style;
use ratatui::text::Span;

/// The verdict of `o_id` as the column shows it, with its style: `-` never run,
/// `stale` when the oracle changed since its last run (its old outcome vouches for
/// nothing until it runs again).
pub(crate) fn cell(app: &App, o_id: &str) -> (&'static str, Style) {
    let t = &app.theme;
    match app.view.verdict_mark(o_id) {
        Some(VerdictMark::Pass) => ("pass ", t.pass),
        Some(VerdictMark::Fail) => ("FAIL ", t.fail),
        Some(VerdictMark::Error) => ("ERROR", t.error),
        Some(VerdictMark::Skipped) => ("skip ", t.muted),
        Some(VerdictMark::Stale(_)) => ("stale", t.warning),
        None => ("  -  ", t.muted),
    }
}

/// The verdict column of a list row; a failure that was re-run alone after a reset
/// (`--isolate-failures`, or `ctrl-t` with a reset command) adds its label
/// (`order_dependent`, `wrong`, `inconclusive`), so failures read by cause in the list.
pub(crate) fn column<'a>(app: &App, o_id: &str) -> Span<'a> {
    let (text, style) = cell(app, o_id);
    match isolation(app, o_id) {
        Some(i) => Span::styled(format!("{} {} ", text.trim_end(), i.label()), style),
        None => Span::styled(format!("{text} "), style),
    }
}

/// The isolation label of `o_id`'s latest verdict while it is a current failure.
pub(crate) fn isolation(app: &App, o_id: &str) -> Option<crate::model::Isolation> {
    failing(app, o_id)
        .then(|| app.view.verdict_details.get(o_id)?.isolation)
        .flatten()
}

/// Whether the latest run of `o_id` failed or errored (the row is drawn red).
pub(crate) fn failing(app: &App, o_id: &str) -> bool {
    matches!(
        app.view.verdict_mark(o_id),
        Some(VerdictMark::Fail | VerdictMark::Error)
    )
}

/// One line per assertion or step that did not pass: `✗ status: expected 200, got
/// 404`. The runner's message already says expected and actual; where it is empty the
/// values are written out. Steps are named only for multi-step verdicts. A step that
/// was never sent (an earlier step failed, a capture or the reset did not work) is one
/// line, not one per assertion repeating its reason; steps left out for the same
/// reason share it, after the step that failed, so the cause reads first.
pub(crate) fn failure_lines(v: &Verdict) -> Vec<String> {
    let multi = v.steps.len() > 1;
    let mut out = Vec::new();
    // (reason, steps left unrun for it), in step order.
    let mut unrun: Vec<(&str, Vec<String>)> = Vec::new();
    for (n, s) in v.steps.iter().enumerate() {
        if s.outcome == Outcome::Pass {
            continue;
        }
        let at = if multi {
            format!("step {} {}: ", n + 1, s.op_id)
        } else {
            String::new()
        };
        if never_sent(s) {
            let name = format!("{} {}", n + 1, s.op_id);
            match unrun.iter_mut().find(|(why, _)| *why == s.message) {
                Some((_, steps)) => steps.push(name),
                None => unrun.push((&s.message, vec![name])),
            }
            continue;
        }
        let failed: Vec<&AssertionVerdict> = s
            .assertions
            .iter()
            .filter(|a| a.outcome != Outcome::Pass)
            .collect();
        if failed.is_empty() || step_message_is_extra(s) {
            out.push(format!("✗ {at}{}", s.message));
        }
        for a in failed {
            out.push(format!("✗ {at}#{} {}", a.index + 1, assertion_words(a)));
        }
    }
    for (why, steps) in unrun {
        let at = match steps.as_slice() {
            _ if !multi => String::new(),
            [one] => format!("step {one}: "),
            many => format!("steps {}: ", many.join(", ")),
        };
        out.push(format!("✗ {at}{why}"));
    }
    out
}

/// A step the runner never sent: no exchange, and every assertion carries the step's
/// own reason.
fn never_sent(s: &StepVerdict) -> bool {
    s.exchange.is_none()
        && !s.message.is_empty()
        && !s.assertions.is_empty()
        && s.assertions.iter().all(|a| a.message == s.message)
}

/// A step message that is not just one of its assertions' messages (a connection
/// error, a missing capture).
fn step_message_is_extra(s: &StepVerdict) -> bool {
    !s.message.is_empty() && s.assertions.iter().all(|a| a.message != s.message)
}

fn assertion_words(a: &AssertionVerdict) -> String {
    let unstable = if a.unstable {
        " (unstable between runs)"
    } else {
        ""
    };
    if a.message.is_empty() {
        format!(
            "expected {}, got {}{unstable}",
            short(&a.expected),
            short(&a.actual)
        )
    } else {
        format!("{}{unstable}", a.message)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn verdict(steps: Vec<StepVerdict>) -> Verdict {
        Verdict {
            o_id: "o".into(),
            outcome: Outcome::Fail,
            steps,
            at: "t".into(),
            base_url: "http://x".into(),
            isolation: None,
            content_hash: None,
        }
    }

    fn step(op: &str, message: &str, assertions: Vec<AssertionVerdict>) -> StepVerdict {
        StepVerdict {
            op_id: op.into(),
            outcome: Outcome::Fail,
            assertions,
            exchange: None,
            message: message.into(),
        }
    }

    fn failed(index: usize, message: &str) -> AssertionVerdict {
        AssertionVerdict {
            index,
            outcome: Outcome::Fail,
            expected: json!(-1),
            actual: json!(2),
            message: message.into(),
            unstable: false,
        }
    }

    #[test]
    fn each_failed_assertion_is_one_line_saying_expected_and_actual_once() {
        let v = verdict(vec![step(
            "GET /x",
            "",
            vec![
                failed(0, "expected -1, got 2 at count"),
                failed(2, ""),
                AssertionVerdict {
                    outcome: Outcome::Pass,
                    ..failed(1, "")
                },
            ],
        )]);
        assert_eq!(
            failure_lines(&v),
            [
                "✗ #1 expected -1, got 2 at count",
                "✗ #3 expected -1, got 2"
            ]
        );
    }

    #[test]
    fn multi_step_lines_name_the_step_and_keep_a_step_level_reason() {
        let v = verdict(vec![
            StepVerdict {
                outcome: Outcome::Pass,
                ..step("POST /a", "", vec![])
            },
            step("GET /a/{id}", "capture `id` missing", vec![]),
        ]);
        assert_eq!(
            failure_lines(&v),
            ["✗ step 2 GET /a/{id}: capture `id` missing"]
        );
    }
}
