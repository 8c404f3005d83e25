//! Typed files the pipeline keeps per operation and per group.
//!
//! These bundle an agent's output with what happened to it (normalization report,
//! challenger review, regenerated oracles) so the TUI can explain every oracle from one
//! file. Suites and groups are one generic [`Record`], so the generation path that fills
//! them is written once; [`SuiteRecord`] and [`GroupRecord`] name its two kinds.
//! Operations and LLM call records are stored generically (their types belong to the spec
//! and llm modules).

use crate::model::NormalizeReport;
use crate::model::{ChallengerReview, MultiOpOracle, Oracle};
use serde::de::{self, DeserializeOwned, Deserializer, Visitor};
use serde::{Deserialize, Serialize, Serializer};
use serde_json::Value;
use std::collections::BTreeSet;
use std::fmt;

/// `suites/<op-slug>.json`: the single-operation suite of one operation.
pub type SuiteRecord = Record<SuiteKind>;

/// `groups/<group-slug>.json`: one operation group and its multi-operation oracles.
pub type GroupRecord = Record<GroupKind>;

/// What sets one kind of record apart: its oracle type and which naming fields it has.
/// The naming fields a kind lacks are [`Absent`], so each file keeps exactly the fields,
/// order and skip rules it had when suites and groups were two types.
/// Kinds and their fields are `Send + Sync + 'static` so a record can be written on
/// the blocking pool from generic code.
pub trait RecordKind: Clone + fmt::Debug + PartialEq + Send + Sync + 'static {
    /// The oracles the record holds.
    type Oracle: Clone
        + fmt::Debug
        + PartialEq
        + Serialize
        + DeserializeOwned
        + TestId
        + Send
        + Sync
        + 'static;
    /// `op_id`: a `String` for suites.
    type OpId: KeyField;
    /// `group_id`: a `String` for groups.
    type GroupId: KeyField;
    /// `group`: the group as the semantic agent described it, for groups.
    type Group: KeyField;
}

/// The kind of [`SuiteRecord`]: single-operation oracles, named by `op_id`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct SuiteKind;

impl RecordKind for SuiteKind {
    type Oracle = Oracle;
    type OpId = String;
    type GroupId = Absent;
    type Group = Absent;
}

/// The kind of [`GroupRecord`]: multi-operation sequences, named by `group_id`, with
/// the group itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct GroupKind;

impl RecordKind for GroupKind {
    type Oracle = MultiOpOracle;
    type OpId = Absent;
    type GroupId = String;
    type Group = Value;
}

/// One record: a target's oracles and what the pipeline did to them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, bound(serialize = "", deserialize = ""))]
pub struct Record<K: RecordKind> {
    /// The operation of a suite (absent from groups).
    #[serde(skip_serializing_if = "absent")]
    pub op_id: K::OpId,
    /// The id of a group (absent from suites).
    #[serde(skip_serializing_if = "absent")]
    pub group_id: K::GroupId,
    /// The group as the semantic agent described it (sequences, captures, binds); absent
    /// from suites.
    #[serde(default, skip_serializing_if = "absent")]
    pub group: K::Group,
    /// Oracles after the last normalization pass.
    #[serde(default)]
    pub oracles: Vec<K::Oracle>,
    /// One report per normalization pass, in order (after generation, then after the
    /// targeted regeneration), so an oracle dropped by either pass can be explained.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub normalization: Vec<NormalizeReport>,
    /// The challenger's review: the hints kept, which drive the one regeneration.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub review: Option<ChallengerReview>,
    /// `test_id`s revised by the targeted regeneration pass.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub regenerated: Vec<String>,
    /// Oracles normalization set aside for referencing a status or field the verified
    /// context lacks (reasons in `normalization`); they run and export only once a
    /// reviewer restores them (accepts or edits them).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub set_aside: Vec<K::Oracle>,
}

impl<K: RecordKind> Record<K> {
    /// An empty record with the given naming fields.
    fn empty(op_id: K::OpId, group_id: K::GroupId) -> Self {
        Record {
            op_id,
            group_id,
            group: K::Group::default(),
            oracles: Vec::new(),
            normalization: Vec::new(),
            review: None,
            regenerated: Vec::new(),
            set_aside: Vec::new(),
        }
    }

    /// Adds oracles a normalization pass set aside, renaming any whose id is already
    /// taken by a kept or set-aside oracle.
    pub fn add_set_aside(&mut self, items: Vec<K::Oracle>) {
        add_unique(&self.oracles, &mut self.set_aside, items);
    }
}

impl SuiteRecord {
    /// An empty suite for `op_id`, to be filled as the pipeline proceeds.
    pub fn new(op_id: impl Into<String>) -> Self {
        Record::empty(op_id.into(), Absent)
    }
}

impl GroupRecord {
    /// An empty record for `group_id` (its `group` null until the semantic agent's).
    pub fn new(group_id: impl Into<String>) -> Self {
        Record::empty(Absent, group_id.into())
    }
}

/// A naming field of a [`Record`]: present (`String`, `Value`) or [`Absent`].
pub trait KeyField:
    Clone + fmt::Debug + Default + PartialEq + Serialize + DeserializeOwned + Send + Sync + 'static
{
    /// Whether this kind lacks the field (then it is never written).
    fn is_absent(&self) -> bool {
        false
    }
}

impl KeyField for String {}
impl KeyField for Value {}

/// A field this kind of record does not have: never written, and refused when a file
/// has it (as an unknown field was when suites and groups were two types).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Absent;

impl KeyField for Absent {
    fn is_absent(&self) -> bool {
        true
    }
}

impl Serialize for Absent {
    /// Unreachable in practice: every `Absent` field is skipped when written.
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_none()
    }
}

impl<'de> Deserialize<'de> for Absent {
    /// Accepts only a missing field (serde reads that as `none`).
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_option(AbsentVisitor)
    }
}

struct AbsentVisitor;

impl<'de> Visitor<'de> for AbsentVisitor {
    type Value = Absent;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("no such field in this kind of record")
    }

    fn visit_none<E: de::Error>(self) -> Result<Absent, E> {
        Ok(Absent)
    }

    fn visit_unit<E: de::Error>(self) -> Result<Absent, E> {
        Ok(Absent)
    }

    fn visit_some<D: Deserializer<'de>>(self, _: D) -> Result<Absent, D::Error> {
        Err(de::Error::custom("unknown field for this kind of record"))
    }
}

/// `skip_serializing_if` for the naming fields.
fn absent<T: KeyField>(field: &T) -> bool {
    field.is_absent()
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

/// What a record needs of its oracles: their id, and renaming one set aside whose id is
/// taken.
pub trait TestId {
    /// The oracle's id, unique within its record.
    fn test_id(&self) -> &str;
    /// Renames the oracle (a set-aside one whose id was taken).
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_kind_writes_only_its_own_naming_fields_in_the_old_order() {
        let mut suite = SuiteRecord::new("GET /a");
        suite.regenerated = vec!["x".into()];
        let text = serde_json::to_string(&suite).unwrap();
        assert_eq!(
            text,
            r#"{"op_id":"GET /a","oracles":[],"regenerated":["x"]}"#
        );
        assert_eq!(serde_json::from_str::<SuiteRecord>(&text).unwrap(), suite);
        let group = GroupRecord::new("g1");
        let text = serde_json::to_string(&group).unwrap();
        assert_eq!(text, r#"{"group_id":"g1","group":null,"oracles":[]}"#);
        assert_eq!(serde_json::from_str::<GroupRecord>(&text).unwrap(), group);
    }

    #[test]
    fn a_field_of_the_other_kind_or_a_missing_name_is_refused() {
        let bad = [
            r#"{"op_id":"GET /a","group":{}}"#,
            r#"{"op_id":"GET /a","group_id":"g"}"#,
            r#"{"op_id":"GET /a","extra":1}"#,
            r#"{"oracles":[]}"#,
        ];
        for text in bad {
            assert!(serde_json::from_str::<SuiteRecord>(text).is_err(), "{text}");
        }
        assert!(serde_json::from_str::<GroupRecord>(r#"{"group_id":"g","op_id":"x"}"#).is_err());
        let g: GroupRecord = serde_json::from_str(r#"{"group_id":"g"}"#).unwrap();
        assert_eq!(g, GroupRecord::new("g"));
    }
}
