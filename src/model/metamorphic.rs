//! Metamorphic tests (ARMeta): a seed call, a follow-up call, and relations between them.

use super::Step;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Relation operators of a metamorphic test, over a seed operand and a follow-up operand.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, PartialOrd, Ord)]
#[serde(rename_all = "snake_case")]
pub enum RelationOp {
    /// Equality (JSON, numbers loosely: `4` equals `"4"`).
    Equals,
    NotEquals,
    /// Inclusion: left (array, string or object) contains right.
    Contains,
    /// Exclusion: left does not contain right.
    NotContains,
    /// Every element of left (an array) is in right.
    Subset,
    /// `count(right) - count(left) == value` (count: array length, object size, number).
    CountDiff,
    Greater,
    GreaterOrEqual,
    Less,
    LessOrEqual,
    /// Same JSON shape: same keys and value types, recursively (values may differ).
    SameShape,
}

impl RelationOp {
    /// Every operator, in declaration order (for schemas and help texts).
    pub const ALL: [RelationOp; 11] = [
        RelationOp::Equals,
        RelationOp::NotEquals,
        RelationOp::Contains,
        RelationOp::NotContains,
        RelationOp::Subset,
        RelationOp::CountDiff,
        RelationOp::Greater,
        RelationOp::GreaterOrEqual,
        RelationOp::Less,
        RelationOp::LessOrEqual,
        RelationOp::SameShape,
    ];
}

/// One relation `left op right` over the outputs of a metamorphic test. Operands are
/// documented in `runner::relations` (`seed[0].body.id`, `follow_up[1].status`); when
/// `right` is empty, `value` is the right operand (and for `count_diff` the difference).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Relation {
    pub left: String,
    pub op: RelationOp,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub right: String,
    #[serde(default, skip_serializing_if = "Value::is_null")]
    pub value: Value,
}

/// A metamorphic test (ARMeta): a Gherkin scenario plus its executable structured form.
/// Seed and follow-up steps run as one sequence (follow-up steps may bind seed captures);
/// the relations then compare the two outputs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MetamorphicTest {
    pub test_id: String,
    #[serde(default)]
    pub scenario: String,
    #[serde(default)]
    pub given: String,
    #[serde(default)]
    pub when: String,
    #[serde(default)]
    pub then: String,
    pub seed: Vec<Step>,
    pub follow_up: Vec<Step>,
    pub relations: Vec<Relation>,
    /// Normalized semantic group (`metamorphic::slug`); equal slugs count once.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub slug: String,
}

impl MetamorphicTest {
    /// Stable review id: `mr#<test_id>`.
    pub fn o_id(&self) -> String {
        format!("mr#{}", self.test_id)
    }
}
