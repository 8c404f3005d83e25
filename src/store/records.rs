//! Typed files the pipeline keeps per operation and per group.
//!
//! These bundle an agent's output with what happened to it (normalization report,
//! challenger review, regenerated oracles) so the TUI can explain every oracle from one
//! file. Operations and LLM call records are stored generically (their types belong to
//! the spec and llm modules).

use crate::agents::normalize::NormalizeReport;
use crate::model::{ChallengerReview, MultiOpOracle, Oracle};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// `suites/<op-slug>.json`: the single-operation suite of one operation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SuiteRecord {
    pub op_id: String,
    /// Oracles after the last normalization pass.
    #[serde(default)]
    pub oracles: Vec<Oracle>,
    /// One report per normalization pass, in order (after generation, then after the
    /// targeted regeneration), so an oracle dropped by either pass can be explained.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub normalization: Vec<NormalizeReport>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub review: Option<ChallengerReview>,
    /// `test_id`s revised by the targeted regeneration pass.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub regenerated: Vec<String>,
}

impl SuiteRecord {
    /// An empty suite for `op_id`, to be filled as the pipeline proceeds.
    pub fn new(op_id: impl Into<String>) -> Self {
        SuiteRecord {
            op_id: op_id.into(),
            oracles: Vec::new(),
            normalization: Vec::new(),
            review: None,
            regenerated: Vec::new(),
        }
    }
}

/// `groups/<group-slug>.json`: one operation group and its multi-operation oracles.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GroupRecord {
    pub group_id: String,
    /// The group as the semantic agent described it (sequences, captures, binds).
    #[serde(default)]
    pub group: Value,
    #[serde(default)]
    pub oracles: Vec<MultiOpOracle>,
    /// One report per normalization pass, in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub normalization: Vec<NormalizeReport>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub review: Option<ChallengerReview>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub regenerated: Vec<String>,
}

impl GroupRecord {
    /// An empty record for `group_id`.
    pub fn new(group_id: impl Into<String>) -> Self {
        GroupRecord {
            group_id: group_id.into(),
            group: Value::Null,
            oracles: Vec::new(),
            normalization: Vec::new(),
            review: None,
            regenerated: Vec::new(),
        }
    }
}
