//! The static schemas: each agent's answer shape with nothing specific to the call. They
//! are the fallback of the tailored schemas (no context yet, nothing to enumerate, or a
//! tailored schema over the size limits), and the extraction agent's schema as it is.

use serde_json::{Value, json};

use super::string;

fn input() -> Value {
    json!({"type": "object", "properties": {
        "path": {"type": "object"}, "query": {"type": "object"},
        "body": {}, "headers": {"type": "object"}}})
}

/// Assertion ops of the oracle language (`model::FieldOp`).
pub const FIELD_OPS: [&str; 12] = [
    "equals",
    "not_equals",
    "not_null",
    "is_null",
    "gt",
    "gte",
    "lt",
    "lte",
    "matches",
    "type",
    "contains",
    "length",
];

fn assertions() -> Value {
    json!({"type": "array", "items": {"type": "object",
        "properties": {"type": {"enum": ["status", "field"]}, "expected": {},
            "field_path": string(), "op": {"enum": FIELD_OPS}},
        "required": ["type", "expected"]}})
}

/// `{"matches": [{op_id, class, method, file, line}]}`.
pub fn discovery() -> Value {
    json!({"type": "object", "properties": {"matches": {"type": "array", "items": {
        "type": "object", "properties": {"op_id": string(), "class": string(),
        "method": string(), "file": string(), "line": {"type": "integer"}},
        "required": ["op_id", "class", "method"]}}}, "required": ["matches"]})
}

/// The SourceContext shape (paper Listing 3).
pub fn context() -> Value {
    let error_fields = json!({"type": "array", "items": {"type": "object", "properties": {
        "name": string(), "type": string(), "value": {}, "template": string()},
        "required": ["name"]}});
    let refs = json!({"type": "array", "items": {"type": "object", "properties": {
        "file": string(), "start_line": {"type": "integer"}, "end_line": {"type": "integer"}},
        "required": ["file", "start_line", "end_line"]}});
    let pending = json!({"type": "array", "items": {"type": "object", "properties": {
        "name": string(), "status": {"type": "integer"}, "oas_claim": {}, "reason": string()}}});
    json!({"type": "object", "properties": {
        "op_id": string(),
        "request_params": {"type": "array", "items": {"type": "object", "properties": {
            "name": string(), "location": {"enum": ["path", "query", "header", "body", "cookie"]},
            "type": string(), "required": {"type": "boolean"},
            "constraints": {"type": "array", "items": string()}, "oas_match": {"type": "boolean"}},
            "required": ["name", "location"]}},
        "response_schema": {"type": "object", "properties": {
            "success_status": {"type": "integer"},
            "fields": {"type": "array", "items": {"type": "object", "properties": {
                "name": string(), "type": string(), "nullable": {"type": "boolean"}},
                "required": ["name"]}},
            "error_cases": {"type": "array", "items": {"type": "object", "properties": {
                "status": {"type": "integer"}, "condition": string(), "envelope": string(),
                "body": error_fields.clone(), "evidence_refs": refs.clone()},
                "required": ["status"]}}}},
        "error_envelopes": {"type": "array", "items": {"type": "object", "properties": {
            "name": string(), "kind": string(), "fields": error_fields, "evidence_refs": refs},
            "required": ["name", "fields"]}},
        "request_params_pending": pending.clone(),
        "response_schema_pending": pending},
        "required": ["request_params", "response_schema"]})
}

/// `{"groups": [...]}` for the semantic agent.
pub fn groups() -> Value {
    json!({"type": "object", "properties": {"groups": {"type": "array", "items": {
        "type": "object", "properties": {"group_id": string(),
        "pattern": {"enum": ["resource_lifecycle", "identifier_flow", "field_data_passing",
            "nested_resource", "state_propagation"]},
        "rationale": string(),
        "sequence": {"type": "array", "items": {"type": "object", "properties": {
            "op_id": string(), "captures": {"type": "object"}, "binds": {"type": "object"}},
            "required": ["op_id"]}}},
        "required": ["group_id", "pattern", "sequence"]}}}, "required": ["groups"]})
}

/// `{"oracles": [...]}` of single-op oracles.
pub fn oracles() -> Value {
    json!({"type": "object", "properties": {"oracles": {"type": "array", "items": {
        "type": "object", "properties": {"test_id": string(), "description": string(),
        "oracle_strategy": {"enum": ["fv", "fi", "bv", "bi"]}, "input": input(),
        "assertions": assertions(), "evidence": string(),
        "evidence_refs": {"type": "array", "items": {"type": "object", "properties": {
            "file": string(), "start_line": {"type": "integer"}, "end_line": {"type": "integer"}}}}},
        "required": ["test_id", "oracle_strategy", "input", "assertions"]}}},
        "required": ["oracles"]})
}

/// `{"oracles": [...]}` of multi-op oracles.
pub fn multi_oracles() -> Value {
    json!({"type": "object", "properties": {"oracles": {"type": "array", "items": {
        "type": "object", "properties": {"test_id": string(), "description": string(),
        "steps": {"type": "array", "items": {"type": "object", "properties": {
            "op_id": string(), "input": input(), "captures": {"type": "object"},
            "assertions": assertions()}, "required": ["op_id", "assertions"]}},
        "evidence": string()}, "required": ["test_id", "steps"]}}}, "required": ["oracles"]})
}

/// `{"hints": [...]}` for both challengers.
pub fn hints() -> Value {
    json!({"type": "object", "properties": {"hints": {"type": "array", "items": {
        "type": "object", "properties": {"test_id": string(),
        "dimension": {"enum": ["structural_completeness", "coverage_gaps",
            "assertion_correctness", "sequence_logic"]}, "text": string(),
        "affects": {"type": "array", "items": string()}},
        "required": ["test_id", "dimension", "text"]}}}, "required": ["hints"]})
}
