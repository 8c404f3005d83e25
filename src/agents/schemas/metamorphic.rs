//! Schemas of the metamorphic generator and refiner: every step is a spec operation with
//! its path parameters filled, every relation has an operator of the oracle language and
//! operands in the documented syntax, so a candidate is executable as written.

use super::fixed::FIELD_OPS;
use super::oracles::template_params;
use super::{CallSchema, closed_object, enum_of, string};
use crate::model::{ParamLocation, RelationOp, SpecOperation};
use serde_json::{Map, Value, json};
use std::collections::BTreeSet;

/// Most seed and follow-up steps per test; relation operands index within these.
const MAX_SEED: usize = 2;
const MAX_FOLLOW_UP: usize = 3;

/// Relation operators, as `model::RelationOp` serializes them.
fn relation_ops() -> Vec<Value> {
    RelationOp::ALL
        .iter()
        .filter_map(|op| serde_json::to_value(op).ok())
        .collect()
}

/// Property names of the operation's first 2xx response schema (through `items`).
fn success_properties(op: &SpecOperation) -> Vec<String> {
    fn props(schema: &Value) -> Vec<String> {
        if let Some(p) = schema.get("properties").and_then(Value::as_object) {
            return p.keys().cloned().collect();
        }
        schema.get("items").map(props).unwrap_or_default()
    }
    op.responses
        .iter()
        .filter(|(k, _)| k.starts_with('2'))
        .map(|(_, r)| props(&r.schema))
        .find(|p| !p.is_empty())
        .unwrap_or_default()
}

/// The operand pattern (`runner::relations`, "Operand syntax"): a step within the step
/// limits, then `status`, `body`, or a body field (one of `fields` when any is known).
/// Dots are written `[.]`: some grammar converters copy `\.` into the grammar, whose
/// literals do not accept that escape.
fn operand(fields: &[String]) -> Value {
    let name = if fields.is_empty() {
        "[A-Za-z_][A-Za-z0-9_]*".to_string()
    } else {
        format!("({})", fields.join("|"))
    };
    let seed = format!("seed\\[[0-{}]\\]", MAX_SEED - 1);
    let follow = format!("follow_up\\[[0-{}]\\]", MAX_FOLLOW_UP - 1);
    json!({"type": "string", "pattern": format!(
        "^({seed}|{follow})[.](status|body|body[.]{name}|body\\[\\*\\][.]{name}|body\\[0\\][.]{name})$"
    )})
}

/// One step of operation `op`: its path parameters required, its query parameters only,
/// and status preconditions from its documented responses.
fn step(op: &SpecOperation) -> Result<Value, String> {
    let scalar = json!({"type": ["string", "number", "boolean"]});
    let path = template_params(&op.path);
    let query: Vec<String> = op
        .parameters
        .iter()
        .filter(|p| p.location == ParamLocation::Query)
        .map(|p| p.name.clone())
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    enum_of("query parameters", &query)?;
    let mut input = json!({"type": "object", "properties": {
        "path": closed_object(&path, &scalar, true),
        "query": closed_object(&query, &scalar, false),
        "body": {}, "headers": {"type": "object"}}, "additionalProperties": false});
    if !path.is_empty() {
        input["required"] = json!(["path"]);
    }
    let codes: Vec<u16> = op
        .responses
        .keys()
        .filter_map(|k| k.parse::<u16>().ok())
        .filter(|c| (100..=599).contains(c))
        .collect();
    let expected = if codes.is_empty() {
        json!({"type": "integer"})
    } else {
        enum_of("statuses", &codes)?
    };
    let mut props = Map::new();
    props.insert("op_id".into(), json!({"const": op.op_id}));
    props.insert("input".into(), input);
    props.insert(
        "captures".into(),
        json!({"type": "object", "additionalProperties": string()}),
    );
    props.insert(
        "assertions".into(),
        json!({"type": "array", "maxItems": 2, "items": {"type": "object", "properties": {
            "type": {"const": "status"}, "expected": expected},
            "required": ["type", "expected"], "additionalProperties": false}}),
    );
    let required = if path.is_empty() {
        json!(["op_id"])
    } else {
        json!(["op_id", "input"])
    };
    Ok(
        json!({"type": "object", "properties": props, "required": required,
        "additionalProperties": false}),
    )
}

/// `{"tests": [...]}` (plus `dropped` for the refiner) with `step` and `operand` schemas.
fn tests_schema(step: Value, operand: Value, batch: Option<usize>, refiner: bool) -> Value {
    let steps =
        |max: usize| json!({"type": "array", "minItems": 1, "maxItems": max, "items": step});
    let relation = json!({"type": "object", "properties": {"left": operand,
        "op": {"enum": relation_ops()}, "right": operand, "value": {"type": "integer"}},
        "required": ["left", "op", "right"], "additionalProperties": false});
    let test = json!({"type": "object", "properties": {
        "test_id": string(), "scenario": string(), "given": string(), "when": string(),
        "then": string(), "seed": steps(MAX_SEED), "follow_up": steps(MAX_FOLLOW_UP),
        "relations": {"type": "array", "minItems": 1, "maxItems": 3, "items": relation}},
        "required": ["test_id", "scenario", "given", "when", "then", "seed", "follow_up",
            "relations"]});
    let mut tests = json!({"type": "array", "items": test});
    if let Some(n) = batch {
        tests["minItems"] = json!(1);
        tests["maxItems"] = json!(n.max(1));
    }
    let mut root = json!({"type": "object", "properties": {"tests": tests},
        "required": ["tests"]});
    if refiner {
        root["properties"]["dropped"] = json!({"type": "array", "items": {"type": "object",
            "properties": {"test_id": string(), "reason": string()},
            "required": ["test_id", "reason"]}});
    }
    root
}

/// The static shape of a metamorphic answer: any op_id, free operands.
pub fn mr_generator() -> Value {
    let step = json!({"type": "object", "properties": {"op_id": string(),
        "input": {"type": "object", "properties": {"path": {"type": "object"},
            "query": {"type": "object"}, "body": {}, "headers": {"type": "object"}}},
        "captures": {"type": "object"},
        "assertions": {"type": "array", "items": {"type": "object", "properties": {
            "type": {"enum": ["status", "field"]}, "expected": {}, "field_path": string(),
            "op": {"enum": FIELD_OPS}}, "required": ["type", "expected"]}}},
        "required": ["op_id"]});
    tests_schema(step, string(), None, true)
}

/// The generator's (`batch`: `Some(n)` asks for 1 to n tests) or, with `None`, the
/// refiner's schema over the spec's operations (excluded ones left out).
pub fn for_mr_generator(ops: &[SpecOperation], batch: Option<usize>) -> CallSchema {
    let agent = if batch.is_some() {
        "mr_generator"
    } else {
        "mr_refiner"
    };
    let built = (|| {
        let ops: Vec<&SpecOperation> = ops.iter().filter(|o| o.excluded.is_none()).collect();
        if ops.is_empty() {
            return Err("the spec offers no operation".to_string());
        }
        enum_of(
            "operations",
            &ops.iter().map(|o| o.op_id.clone()).collect::<Vec<_>>(),
        )?;
        let steps = ops.iter().map(|o| step(o)).collect::<Result<Vec<_>, _>>()?;
        let fields: BTreeSet<String> = ops
            .iter()
            .flat_map(|o| success_properties(o))
            .filter(|f| {
                f.chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
            })
            .collect();
        let fields: Vec<String> = fields.into_iter().collect();
        enum_of("response fields", &fields)?;
        Ok(tests_schema(
            json!({"anyOf": steps}),
            operand(&fields),
            batch,
            batch.is_none(),
        ))
    })();
    CallSchema::bounded(agent, built, mr_generator)
}
