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
    /// [`content_hash`] of the oracle as it ran (its edited form when edited), so a
    /// verdict stops vouching for an oracle whose content changed since (an edit, an
    /// undo). Absent in verdicts stored before it existed: those are never stale.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content_hash: Option<String>,
}

/// A stable fingerprint of an oracle's content (any oracle kind, as JSON): object keys
/// are sorted first, so the same content always hashes the same whatever order its maps
/// were written in. The runner stamps it on verdicts and the workbench compares it with
/// the oracle's current form to tell a stale verdict; both must call this one function.
pub fn content_hash(value: &Value) -> String {
    use sha2::{Digest, Sha256};
    let mut hasher = Sha256::new();
    feed_canonical(value, &mut hasher);
    let digest = hasher.finalize();
    digest[..12].iter().map(|b| format!("{b:02x}")).collect()
}

/// Writes `value` into the hasher as compact JSON with sorted object keys.
fn feed_canonical(value: &Value, h: &mut sha2::Sha256) {
    use sha2::Digest;
    match value {
        Value::Object(m) => {
            let mut keys: Vec<&String> = m.keys().collect();
            keys.sort();
            h.update(b"{");
            for (i, k) in keys.into_iter().enumerate() {
                if i > 0 {
                    h.update(b",");
                }
                h.update(Value::String(k.clone()).to_string().as_bytes());
                h.update(b":");
                feed_canonical(&m[k], h);
            }
            h.update(b"}");
        }
        Value::Array(a) => {
            h.update(b"[");
            for (i, x) in a.iter().enumerate() {
                if i > 0 {
                    h.update(b",");
                }
                feed_canonical(x, h);
            }
            h.update(b"]");
        }
        other => h.update(other.to_string().as_bytes()),
    }
}

/// [`content_hash`] of any serializable oracle (single-op, multi-op, metamorphic);
/// `None` only if it cannot be turned into JSON.
pub fn content_hash_of<T: Serialize>(oracle: &T) -> Option<String> {
    serde_json::to_value(oracle).ok().map(|v| content_hash(&v))
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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn content_hash_ignores_key_order_and_sees_values() {
        let a = json!({"status": 200, "input": {"path": {"a": 1, "b": 2}}});
        let b = json!({"input": {"path": {"b": 2, "a": 1}}, "status": 200});
        let c = json!({"status": 404, "input": {"path": {"a": 1, "b": 2}}});
        assert_eq!(content_hash(&a), content_hash(&b));
        assert_ne!(content_hash(&a), content_hash(&c));
        assert_eq!(content_hash(&a).len(), 24);
    }

    #[test]
    fn verdicts_without_a_hash_read_and_write_unchanged() {
        let old = json!({"o_id": "x", "outcome": "pass", "steps": [], "at": "t",
            "base_url": "http://h"});
        let v: Verdict = serde_json::from_value(old.clone()).unwrap();
        assert_eq!(v.content_hash, None);
        assert_eq!(serde_json::to_value(&v).unwrap(), old);
    }
}
