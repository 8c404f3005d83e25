//! Verdicts: what a run of an oracle against a live API found, per assertion and step.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;

/// Outcome of one assertion or one whole oracle against a live API.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Outcome {
    Pass,
    /// The API answered but an expectation did not hold.
    Fail,
    /// No usable answer: connection refused, timeout, budget exhausted.
    Error,
    /// Not run, e.g. a step whose capture is missing.
    Skipped,
}

/// One assertion's verdict, with what was expected and what came back.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AssertionVerdict {
    /// Index of the assertion in its oracle (or step).
    pub index: usize,
    pub outcome: Outcome,
    #[serde(default)]
    pub expected: Value,
    #[serde(default)]
    pub actual: Value,
    /// Why it failed, errored or was skipped, in words.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub message: String,
    /// Set by repeated runs when the outcome changed between runs (timestamps, ids).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub unstable: bool,
}

/// The request as sent and the response as received, kept for display.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Exchange {
    pub method: String,
    pub url: String,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub request_headers: BTreeMap<String, String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_body: Option<Value>,
    /// A verbatim body (`OracleInput::raw_body`) as sent; `request_body` is then empty,
    /// so a malformed body is never shown as if it were JSON.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_raw_body: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<u16>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub response_headers: BTreeMap<String, String>,
    /// The body as text (parsed JSON is derived from it when needed).
    #[serde(default)]
    pub response_body: String,
    #[serde(default)]
    pub elapsed_ms: u64,
    /// The same request as a `curl` command line, to reproduce a failure by hand.
    #[serde(default)]
    pub curl: String,
}

/// Verdict of one step (single-op oracles have exactly one step).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StepVerdict {
    pub op_id: String,
    pub outcome: Outcome,
    #[serde(default)]
    pub assertions: Vec<AssertionVerdict>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exchange: Option<Exchange>,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub message: String,
}

/// Verdict of one oracle (single-op, multi-op or metamorphic) against a live API.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Verdict {
    pub o_id: String,
    pub outcome: Outcome,
    pub steps: Vec<StepVerdict>,
    /// RFC 3339 time of the run.
    pub at: String,
    pub base_url: String,
    /// Set by `check --isolate-failures` on a failing oracle re-run alone after a reset:
    /// whether it fails on its own or only after other oracles. Absent otherwise, so
    /// verdicts stored before it existed read and write unchanged.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub isolation: Option<Isolation>,
}

/// How a failing oracle behaved when re-run alone on fresh state.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Isolation {
    /// It still fails alone: the oracle (or the API) is wrong, whatever ran before it.
    Wrong,
    /// It passes alone: it failed only because of state other oracles left behind.
    OrderDependent,
    /// The re-run could not tell: the fresh state could not be made, or the re-run
    /// errored (no usable answer).
    Inconclusive,
}

impl Isolation {
    /// The label used in text output, JSON and JUnit messages.
    pub fn label(self) -> &'static str {
        match self {
            Isolation::Wrong => "wrong",
            Isolation::OrderDependent => "order_dependent",
            Isolation::Inconclusive => "inconclusive",
        }
    }
}
