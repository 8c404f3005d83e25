//! Metamorphic relations: operands and their evaluation over recorded exchanges, and how
//! a metamorphic test's verdict is judged (running one is the runner's job).
//!
//! A metamorphic test runs as one multi-op sequence (seed steps, then follow-up steps, so
//! follow-up steps can bind seed captures) through the same runner as multi-op oracles;
//! its relations are then evaluated over the recorded exchanges.
//!
//! ## Operand syntax
//!
//! `<side>[<n>]<rest>` where side is `seed` or `follow_up` and `n` the 0-based step index
//! within that side (`seed.0` is accepted as a synonym of `seed[0]`). `rest`:
//! - nothing or `.body`: the whole response body (JSON, else the text);
//! - `.body.<field_path>` or `.body[0]...`: a field of the body (`runner::path` syntax,
//!   `[*]` collects every match into an array);
//! - `.status`: the HTTP status code;
//! - `.header.<Name>` (or `.headers.<Name>`): a response header, case-insensitive;
//! - `.request.body` / `.request.body.<field_path>`: the request body as sent (after binds);
//! - any other `.<field_path>`: shorthand for `.body.<field_path>` (so a body field named
//!   `status` must be written `.body.status`).
//!
//! When `right` is empty, the relation's `value` is the right operand; for `count_diff`
//! `value` is the expected difference `count(right) - count(left)` (default 1).
//!
//! ## Outcomes
//!
//! A test **passes** when every step answered, no step answered 5xx or a status its
//! operation does not document, every step assertion held, and every relation held. It is
//! **relation_violated** when the steps went through but a relation did not hold: the
//! oracle's finding. Anything that stops the relation from being checked (transport error,
//! timeout, 5xx, undocumented status, failed step assertion, missing capture or operand) is
//! an **execution_failed**, reported apart as ARMeta does.
//!
//! This module does not choose what to run nor generate tests.

use crate::model::{Exchange, MetamorphicTest, MultiOpOracle, Outcome, Relation, RelationOp};
use crate::model::{StepVerdict, Verdict};
use crate::oracle::assert::loose_eq;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;

pub use crate::oracle::operand::{Operand, Side, Source};

/// Checks a relation's operands and value before any traffic.
pub fn validate_relation(r: &Relation) -> Result<(Operand, Option<Operand>), String> {
    let left = Operand::parse(&r.left)?;
    let right = if r.right.trim().is_empty() {
        if r.value.is_null() && r.op != RelationOp::CountDiff {
            return Err(format!(
                "relation on `{}` has neither `right` nor `value`",
                r.left
            ));
        }
        None
    } else {
        Some(Operand::parse(&r.right)?)
    };
    if r.op == RelationOp::CountDiff && !(r.value.is_null() || r.value.is_i64()) {
        return Err(format!(
            "count_diff `value` must be an integer, got {}",
            r.value
        ));
    }
    Ok((left, right))
}

/// How one relation came out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RelationOutcome {
    Holds,
    Violated,
    /// An operand had no value, so the relation could not be checked.
    Unresolved,
}

/// One relation's verdict with both operand values.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RelationVerdict {
    pub index: usize,
    pub outcome: RelationOutcome,
    #[serde(default)]
    pub left: Value,
    #[serde(default)]
    pub right: Value,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub message: String,
}

/// Evaluates one relation over the exchanges of the seed and follow-up steps.
pub fn evaluate(
    index: usize,
    r: &Relation,
    seed: &[Option<&Exchange>],
    follow: &[Option<&Exchange>],
) -> RelationVerdict {
    let unresolved = |message: String| RelationVerdict {
        index,
        outcome: RelationOutcome::Unresolved,
        left: Value::Null,
        right: Value::Null,
        message,
    };
    let (left_op, right_op) = match validate_relation(r) {
        Ok(x) => x,
        Err(e) => return unresolved(e),
    };
    let left = match left_op.read(seed, follow) {
        Ok(v) => v,
        Err(e) => return unresolved(e),
    };
    let right = match &right_op {
        Some(o) => match o.read(seed, follow) {
            Ok(v) => v,
            Err(e) => return unresolved(e),
        },
        None if r.op == RelationOp::CountDiff => Value::Null,
        None => r.value.clone(),
    };
    let (holds, message) = match holds(r, &left, &right) {
        Ok(true) => (true, String::new()),
        Ok(false) => (false, format!("{} does not hold", relation_text(r))),
        Err(e) => {
            return RelationVerdict {
                left,
                right,
                ..unresolved(e)
            };
        }
    };
    RelationVerdict {
        index,
        outcome: if holds {
            RelationOutcome::Holds
        } else {
            RelationOutcome::Violated
        },
        left,
        right,
        message,
    }
}

/// A relation in words as reports show it: `seed[0].body.id equals follow_up[0].body.id`
/// (`count_diff` adds ` by <n>`, a constant right operand shows as JSON).
pub fn relation_text(r: &Relation) -> String {
    format!("{} {} {}", r.left, op_text(r.op), operand_text(r))
}

fn operand_text(r: &Relation) -> String {
    if r.right.is_empty() {
        r.value.to_string()
    } else if r.op == RelationOp::CountDiff {
        format!("{} by {}", r.right, diff_of(r))
    } else {
        r.right.clone()
    }
}

/// The op's name as written in test files.
pub fn op_text(op: RelationOp) -> String {
    serde_json::to_value(op)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default()
}

/// The expected difference of a `count_diff` relation (`value`, default 1).
pub fn diff_of(r: &Relation) -> i64 {
    r.value.as_i64().unwrap_or(1)
}

/// Array length, object size, string length in characters, or the number itself.
pub fn count(v: &Value) -> Option<f64> {
    match v {
        Value::Array(a) => Some(a.len() as f64),
        Value::Object(o) => Some(o.len() as f64),
        Value::Number(n) => n.as_f64(),
        Value::String(s) => s.trim().parse::<f64>().ok(),
        _ => None,
    }
}

fn number(v: &Value) -> Option<f64> {
    match v {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => s.trim().parse::<f64>().ok(),
        Value::Array(a) => Some(a.len() as f64),
        _ => None,
    }
}

fn contains(hay: &Value, needle: &Value) -> Result<bool, String> {
    match hay {
        Value::Array(items) => Ok(items.iter().any(|i| loose_eq(i, needle))),
        Value::String(s) => Ok(s.contains(&crate::oracle::assert::string_form(needle))),
        Value::Object(map) => match needle {
            Value::Object(sub) => Ok(sub
                .iter()
                .all(|(k, v)| map.get(k).is_some_and(|w| loose_eq(v, w)))),
            Value::String(k) => Ok(map.contains_key(k)),
            other => Err(format!("an object cannot contain {other}")),
        },
        other => Err(format!(
            "{other} is neither an array, a string nor an object"
        )),
    }
}

fn shape(v: &Value) -> Value {
    match v {
        Value::Object(m) => Value::Object(m.iter().map(|(k, v)| (k.clone(), shape(v))).collect()),
        Value::Array(a) => Value::Array(a.first().map(shape).into_iter().collect()),
        Value::Number(_) => Value::from("number"),
        Value::String(_) => Value::from("string"),
        Value::Bool(_) => Value::from("boolean"),
        Value::Null => Value::from("null"),
    }
}

fn holds(r: &Relation, left: &Value, right: &Value) -> Result<bool, String> {
    let nums = || -> Result<(f64, f64), String> {
        let l = number(left).ok_or_else(|| format!("{left} is not a number"))?;
        let rr = number(right).ok_or_else(|| format!("{right} is not a number"))?;
        Ok((l, rr))
    };
    Ok(match r.op {
        RelationOp::Equals => loose_eq(left, right),
        RelationOp::NotEquals => !loose_eq(left, right),
        RelationOp::Contains => contains(left, right)?,
        RelationOp::NotContains => !contains(left, right)?,
        RelationOp::Subset => {
            let (Value::Array(l), Value::Array(rr)) = (left, right) else {
                return Err("subset needs two arrays".into());
            };
            l.iter().all(|x| rr.iter().any(|y| loose_eq(x, y)))
        }
        RelationOp::CountDiff => {
            let l = count(left).ok_or_else(|| format!("cannot count {left}"))?;
            let rr = count(right).ok_or_else(|| format!("cannot count {right}"))?;
            (rr - l - diff_of(r) as f64).abs() < f64::EPSILON
        }
        RelationOp::Greater => {
            let (l, rr) = nums()?;
            l > rr
        }
        RelationOp::GreaterOrEqual => {
            let (l, rr) = nums()?;
            l >= rr
        }
        RelationOp::Less => {
            let (l, rr) = nums()?;
            l < rr
        }
        RelationOp::LessOrEqual => {
            let (l, rr) = nums()?;
            l <= rr
        }
        RelationOp::SameShape => shape(left) == shape(right),
    })
}

/// The three outcomes of a metamorphic test (see the module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MrOutcome {
    Passed,
    RelationViolated,
    ExecutionFailed,
}

/// The verdict of one metamorphic test.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MrVerdict {
    pub o_id: String,
    pub test_id: String,
    pub outcome: MrOutcome,
    /// Why it did not pass, in words.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub reason: String,
    /// Requests actually sent.
    pub requests: usize,
    pub steps: Vec<StepVerdict>,
    pub relations: Vec<RelationVerdict>,
}

/// The op_id of the extra step a metamorphic verdict carries after its real steps: one
/// assertion verdict per relation (actual: left operand, expected: right operand) and,
/// when the test did not pass, a message saying whether the relation was violated or
/// the execution failed. Text, JUnit XML and the TUI show it like any step.
pub const RELATIONS_STEP: &str = "relations";

/// Message prefix of a relation violation (the oracle's finding).
pub const VIOLATED: &str = "relation violated";
/// Message prefix of an execution failure (nothing was checked, or could not be).
pub const EXECUTION_FAILED: &str = "execution failed";

impl MrOutcome {
    /// As a verdict outcome: passed → pass, relation violated → fail, execution
    /// failed → error (so CI tells a finding from a broken run).
    pub fn outcome(self) -> Outcome {
        match self {
            MrOutcome::Passed => Outcome::Pass,
            MrOutcome::RelationViolated => Outcome::Fail,
            MrOutcome::ExecutionFailed => Outcome::Error,
        }
    }

    /// The words reports use: `passed`, `relation violated`, `execution failed`.
    pub fn words(self) -> &'static str {
        match self {
            MrOutcome::Passed => "passed",
            MrOutcome::RelationViolated => VIOLATED,
            MrOutcome::ExecutionFailed => EXECUTION_FAILED,
        }
    }
}

impl MrVerdict {
    /// The verdict stored and reported for this test (o_id `mr#<test_id>`): the steps
    /// as run, then the [`RELATIONS_STEP`].
    pub fn into_verdict(self, at: String, base_url: String) -> Verdict {
        let outcome = self.outcome.outcome();
        let assertions = self
            .relations
            .iter()
            .map(|r| crate::model::AssertionVerdict {
                index: r.index,
                outcome: match r.outcome {
                    RelationOutcome::Holds => Outcome::Pass,
                    RelationOutcome::Violated => Outcome::Fail,
                    RelationOutcome::Unresolved => Outcome::Error,
                },
                expected: r.right.clone(),
                actual: r.left.clone(),
                message: r.message.clone(),
                unstable: false,
            })
            .collect();
        let message = if self.outcome == MrOutcome::Passed {
            String::new()
        } else {
            format!("{}: {}", self.outcome.words(), self.reason)
        };
        let mut steps = self.steps;
        steps.push(StepVerdict {
            op_id: RELATIONS_STEP.to_string(),
            outcome,
            assertions,
            exchange: None,
            message,
        });
        Verdict {
            o_id: self.o_id,
            outcome,
            steps,
            at,
            base_url,
            isolation: None,
            content_hash: None,
        }
    }
}

/// Documented response statuses per op_id (`200`, `2XX`, `default`), to tell an
/// undocumented status apart. An op absent from the map is not checked.
pub type Documented = BTreeMap<String, Vec<String>>;

/// True when `status` matches one of the documented keys.
pub fn is_documented(status: u16, keys: &[String]) -> bool {
    let s = status.to_string();
    keys.iter().any(|k| {
        let k = k.trim();
        k.eq_ignore_ascii_case("default")
            || k == s
            || (k.len() == 3
                && k[1..].eq_ignore_ascii_case("xx")
                && k.as_bytes()[0] == s.as_bytes()[0])
    })
}

/// The sequence the runner executes for a metamorphic test: seed steps, then follow-up.
pub fn to_multi_op(t: &MetamorphicTest) -> MultiOpOracle {
    MultiOpOracle {
        test_id: t.test_id.clone(),
        group_id: "mr".to_string(),
        description: t.scenario.clone(),
        steps: t.seed.iter().chain(&t.follow_up).cloned().collect(),
        evidence: t.then.clone(),
        evidence_refs: Vec::new(),
    }
}

/// Classifies one runner verdict and evaluates the relations.
pub fn judge(t: &MetamorphicTest, v: Verdict, documented: &Documented) -> MrVerdict {
    let requests = v.steps.iter().filter(|s| s.exchange.is_some()).count();
    let mut reason = String::new();
    for (n, s) in v.steps.iter().enumerate() {
        let label = step_label(t, n);
        let status = s.exchange.as_ref().and_then(|e| e.status);
        let why = match (s.outcome, status) {
            (Outcome::Error | Outcome::Skipped, _) => Some(s.message.clone()),
            (_, Some(code)) if code >= 500 => Some(format!("server error {code}")),
            (_, Some(code))
                if documented
                    .get(&s.op_id)
                    .is_some_and(|keys| !is_documented(code, keys)) =>
            {
                Some(format!("status {code} is not documented for {}", s.op_id))
            }
            (Outcome::Fail, _) => Some(format!("step assertion failed: {}", s.message)),
            _ => None,
        };
        if let Some(why) = why {
            reason = format!("{label} ({}): {why}", s.op_id);
            break;
        }
    }
    let split = t.seed.len().min(v.steps.len());
    let exchanges: Vec<Option<&Exchange>> = v.steps.iter().map(|s| s.exchange.as_ref()).collect();
    let (seed, follow) = exchanges.split_at(split);
    let relations: Vec<RelationVerdict> = if reason.is_empty() {
        t.relations
            .iter()
            .enumerate()
            .map(|(i, r)| evaluate(i, r, seed, follow))
            .collect()
    } else {
        Vec::new()
    };
    let outcome = if !reason.is_empty() {
        MrOutcome::ExecutionFailed
    } else if let Some(u) = relations
        .iter()
        .find(|r| r.outcome == RelationOutcome::Unresolved)
    {
        reason = format!("relation {}: {}", u.index + 1, u.message);
        MrOutcome::ExecutionFailed
    } else if let Some(f) = relations
        .iter()
        .find(|r| r.outcome == RelationOutcome::Violated)
    {
        reason = format!(
            "relation {}: {} (left {}, right {})",
            f.index + 1,
            f.message,
            crate::oracle::assert::short(&f.left),
            crate::oracle::assert::short(&f.right)
        );
        MrOutcome::RelationViolated
    } else {
        MrOutcome::Passed
    };
    MrVerdict {
        o_id: t.o_id(),
        test_id: t.test_id.clone(),
        outcome,
        reason,
        requests,
        steps: v.steps,
        relations,
    }
}

fn step_label(t: &MetamorphicTest, n: usize) -> String {
    if n < t.seed.len() {
        format!("seed[{n}]")
    } else {
        format!("follow_up[{}]", n - t.seed.len())
    }
}
