//! Typed files the pipeline keeps per operation and per group.
//!
//! These bundle an agent's output with what happened to it (normalization report,
//! challenger review, regenerated oracles) so the TUI can explain every oracle from one
//! file. Operations and LLM call records are stored generically (their types belong to
//! the spec and llm modules).

use crate::model::NormalizeReport;
use crate::model::{ChallengerReview, MultiOpOracle, Oracle};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeSet;

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
    /// Oracles normalization set aside for referencing a status or field the verified
    /// context lacks (reasons in `normalization`); they run and export only once a
    /// reviewer restores them (accepts or edits them).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub set_aside: Vec<Oracle>,
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
            set_aside: Vec::new(),
        }
    }

    /// Adds oracles a normalization pass set aside, renaming any whose id is already
    /// taken by a kept or set-aside oracle.
    pub fn add_set_aside(&mut self, items: Vec<Oracle>) {
        add_unique(&self.oracles, &mut self.set_aside, items);
    }
}

/// Appends `items` to `set_aside`, renaming each whose id a kept or set-aside item has.
fn add_unique<T: TestId>(kept: &[T], set_aside: &mut Vec<T>, items: Vec<T>) {
    let mut taken: BTreeSet<String> = kept
        .iter()
        .chain(set_aside.iter())
        .map(|o| o.test_id().to_string())
        .collect();
    for mut o in items {
        let id = unique_id(o.test_id(), &mut taken);
        o.set_test_id(id);
        set_aside.push(o);
    }
}

/// What [`add_unique`] needs of an oracle.
trait TestId {
    fn test_id(&self) -> &str;
    fn set_test_id(&mut self, id: String);
}

impl TestId for Oracle {
    fn test_id(&self) -> &str {
        &self.test_id
    }
    fn set_test_id(&mut self, id: String) {
        self.test_id = id;
    }
}

impl TestId for MultiOpOracle {
    fn test_id(&self) -> &str {
        &self.test_id
    }
    fn set_test_id(&mut self, id: String) {
        self.test_id = id;
    }
}

/// `id`, or `id_dropped`, `id_dropped_2`... whichever is not in `taken` (then taken).
fn unique_id(id: &str, taken: &mut BTreeSet<String>) -> String {
    let mut candidate = id.to_string();
    let mut n = 1;
    while taken.contains(&candidate) {
        candidate = match n {
            1 => format!("{id}_dropped"),
            _ => format!("{id}_dropped_{n}"),
        };
        n += 1;
    }
    taken.insert(candidate.clone());
    candidate
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
    /// Sequences set aside by normalization, as in [`SuiteRecord::set_aside`].
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub set_aside: Vec<MultiOpOracle>,
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
            set_aside: Vec::new(),
        }
    }

    /// Adds sequences a normalization pass set aside, as [`SuiteRecord::add_set_aside`].
    pub fn add_set_aside(&mut self, items: Vec<MultiOpOracle>) {
        add_unique(&self.oracles, &mut self.set_aside, items);
    }
}
