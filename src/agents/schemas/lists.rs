//! Tailored schemas of the agents that name things from a known list: discovery (spec
//! operations offered), grouping (operations with a context) and the challengers (the
//! suite's test ids). An answer outside the list is refused downstream anyway; the enum
//! keeps a small model from spending its answer on such names.

use super::fixed;
use super::{CallSchema, enum_of, string};
use crate::agents::challenge::SUITE;
use serde_json::{Value, json};

/// Discovery: `op_id` is one of the operations offered.
pub fn for_discovery(op_ids: &[String]) -> CallSchema {
    let built = (|| {
        if op_ids.is_empty() {
            return Err("no operation offered".to_string());
        }
        let op_id = enum_of("operations", op_ids)?;
        Ok(
            json!({"type": "object", "properties": {"matches": {"type": "array", "items": {
            "type": "object", "properties": {"op_id": op_id, "class": string(),
            "method": string(), "file": string(), "line": {"type": "integer"}},
            "required": ["op_id", "class", "method"]}}}, "required": ["matches"]}),
        )
    })();
    CallSchema::bounded("discovery", built, fixed::discovery)
}

/// Grouping: every step's `op_id` is an operation with a verified context; captures and
/// binds are name → string maps.
pub fn for_groups<S: AsRef<str>>(known: &[S]) -> CallSchema {
    let names: Vec<&str> = known.iter().map(AsRef::as_ref).collect();
    let built = (|| {
        if names.is_empty() {
            return Err("no operation has a context".to_string());
        }
        let op_id = enum_of("operations", &names)?;
        let map = json!({"type": "object", "additionalProperties": string()});
        Ok(
            json!({"type": "object", "properties": {"groups": {"type": "array", "items": {
            "type": "object", "properties": {"group_id": string(),
            "pattern": {"enum": ["resource_lifecycle", "identifier_flow", "field_data_passing",
                "nested_resource", "state_propagation"]},
            "rationale": string(),
            "sequence": {"type": "array", "minItems": 1, "items": {"type": "object",
                "properties": {"op_id": op_id, "captures": map, "binds": map},
                "required": ["op_id"], "additionalProperties": false}}},
            "required": ["group_id", "pattern", "sequence"]}}}, "required": ["groups"]}),
        )
    })();
    CallSchema::bounded("semantic", built, fixed::groups)
}

/// Challengers: `test_id` is one of the suite's ids or `suite`; `sequence_logic` only
/// for multi-op suites (the single-op challenger's is refused downstream).
pub fn for_hints<S: AsRef<str>>(test_ids: &[S], multi: bool) -> CallSchema {
    let mut ids: Vec<&str> = test_ids.iter().map(AsRef::as_ref).collect();
    ids.push(SUITE);
    let mut dims = vec![
        "structural_completeness",
        "coverage_gaps",
        "assertion_correctness",
    ];
    if multi {
        dims.push("sequence_logic");
    }
    let built = enum_of("test ids", &ids).map(|test_id: Value| {
        json!({"type": "object", "properties": {"hints": {"type": "array", "items": {
            "type": "object", "properties": {"test_id": test_id, "dimension": {"enum": dims},
            "text": {"type": "string", "minLength": 1},
            "affects": {"type": "array", "items": test_id}}, "required": ["test_id", "dimension", "text"],
            "additionalProperties": false}}}, "required": ["hints"]})
    });
    let agent = if multi {
        crate::agents::Agent::MultiOpChallenger
    } else {
        crate::agents::Agent::SingleOpChallenger
    }
    .name();
    CallSchema::bounded(agent, built, fixed::hints)
}
