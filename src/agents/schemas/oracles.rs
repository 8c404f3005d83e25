//! Tailored schemas of the oracle agents: statuses, field paths and parameters of the
//! operation, so that every status, field path and input key the model can write is one
//! that normalization keeps without an `unknown_status` or `unknown_field` flag.

use super::fixed::{self, FIELD_OPS};
use super::{CallSchema, closed_object, enum_of, string};
use crate::agents::groups::Group;
use crate::model::{SourceContext, SpecOperation};
use crate::oracle::path::FieldPath;
use serde_json::{Map, Value, json};
use std::collections::{BTreeSet, HashMap};

/// Type names the `type` assertion op accepts (`runner::assert`).
const TYPE_NAMES: [&str; 7] = [
    "string", "number", "integer", "boolean", "object", "array", "null",
];

/// What the oracles of one operation may name; `None` where nothing is known, and that
/// part of the schema stays as static as before.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct OpShape {
    /// Statuses an assertion may expect.
    pub statuses: Option<Vec<u16>>,
    /// Field paths a field assertion (or a capture) may use.
    pub field_paths: Option<Vec<String>>,
    /// Path parameters, all required.
    pub path_params: Option<Vec<String>>,
    pub query: Option<Vec<String>>,
    pub headers: Option<Vec<String>>,
}

impl OpShape {
    /// Reads the shape from the spec operation and the verified part of the context.
    pub fn new(spec: Option<&SpecOperation>, ctx: Option<&SourceContext>) -> Self {
        OpShape {
            statuses: statuses(spec, ctx),
            field_paths: ctx.and_then(|c| field_paths(spec, c)),
            path_params: path_params(spec, ctx),
            query: params(spec, ctx, "query"),
            headers: params(spec, ctx, "header"),
        }
    }

    /// `{path, query, body, headers}` with the known parameters as closed objects.
    fn input(&self) -> Result<Value, String> {
        let scalar = json!({"type": ["string", "number", "boolean"]});
        let part =
            |names: &Option<Vec<String>>, what: &str, required: bool| -> Result<Value, String> {
                match names {
                    Some(names) => {
                        enum_of(what, names)?;
                        Ok(closed_object(names, &scalar, required))
                    }
                    None => Ok(json!({"type": "object"})),
                }
            };
        let mut input = json!({"type": "object", "properties": {
            "path": part(&self.path_params, "path parameters", true)?,
            "query": part(&self.query, "query parameters", false)?,
            "body": {},
            "headers": part(&self.headers, "header parameters", false)?},
            "additionalProperties": false});
        if self.path_params.as_ref().is_some_and(|p| !p.is_empty()) {
            input["required"] = json!(["path"]);
        }
        Ok(input)
    }

    /// The field path schema: an enum of the known paths, else any string.
    pub(crate) fn field_path(&self) -> Result<Value, String> {
        match &self.field_paths {
            Some(paths) => enum_of("field paths", paths),
            None => Ok(string()),
        }
    }

    /// One assertion: a status object, or a field object whose `expected` fits its op.
    fn assertion(&self) -> Result<Value, String> {
        let expected = match &self.statuses {
            Some(s) => enum_of("statuses", s)?,
            None => json!({"type": "integer"}),
        };
        let path = self.field_path()?;
        let general: Vec<&str> = FIELD_OPS
            .iter()
            .copied()
            .filter(|o| !matches!(*o, "type" | "matches"))
            .collect();
        let field = |op: Value, expected: Value| {
            json!({"type": "object", "properties": {"type": {"const": "field"},
                "field_path": path, "op": op, "expected": expected},
                "required": ["type", "field_path", "op", "expected"],
                "additionalProperties": false})
        };
        Ok(json!({"anyOf": [
            {"type": "object", "properties": {"type": {"const": "status"}, "expected": expected},
                "required": ["type", "expected"], "additionalProperties": false},
            field(json!({"enum": general}), json!({})),
            field(json!({"const": "type"}), json!({"enum": TYPE_NAMES})),
            field(json!({"const": "matches"}), string()),
        ]}))
    }

    /// A non-empty list of assertions.
    fn assertions(&self) -> Result<Value, String> {
        Ok(json!({"type": "array", "minItems": 1, "items": self.assertion()?}))
    }
}

/// Statuses of the verified context; where it names none, the spec's numeric response
/// codes. Mirrors `unknown_status`'s exceptions: 400 when the context lists no error case
/// (the framework's own conversion error), the spec's 2xx when it has no success status.
/// The framework's own statuses (`framework_facts`) are always in.
fn statuses(spec: Option<&SpecOperation>, ctx: Option<&SourceContext>) -> Option<Vec<u16>> {
    let spec_codes: Vec<u16> = spec
        .map(|op| {
            op.responses
                .keys()
                .filter_map(|k| k.trim().parse::<u16>().ok())
                .filter(|c| (100..=599).contains(c))
                .collect()
        })
        .unwrap_or_default();
    let mut out = BTreeSet::new();
    match ctx.map(|c| &c.response_schema) {
        Some(r) if r.names_code_status() => {
            out.extend(r.success_status);
            out.extend(r.error_cases.iter().map(|e| e.status));
            if r.code_cases().next().is_none() {
                out.insert(400);
            }
            if r.success_status.is_none() {
                let ok: Vec<u16> = spec_codes
                    .iter()
                    .copied()
                    .filter(|c| (200..300).contains(c))
                    .collect();
                out.extend(if ok.is_empty() { vec![200] } else { ok });
            }
        }
        _ => out.extend(spec_codes),
    }
    if let Some(c) = ctx {
        let framework = c
            .response_schema
            .error_cases
            .iter()
            .filter(|e| e.is_framework());
        out.extend(framework.map(|e| e.status));
    }
    out.retain(|c| (100..=599).contains(c));
    (!out.is_empty()).then(|| out.into_iter().collect())
}

/// Whether the operation's success response body is a JSON array (spec schema).
fn array_body(spec: Option<&SpecOperation>, ctx: &SourceContext) -> bool {
    let Some(op) = spec else { return false };
    let success = ctx.response_schema.success_status.map(|s| s.to_string());
    let response = success
        .as_ref()
        .and_then(|s| op.responses.get(s))
        .or_else(|| {
            op.responses
                .iter()
                .find(|(k, _)| k.starts_with('2'))
                .map(|(_, r)| r)
        });
    response.is_some_and(|r| {
        r.schema.get("type").and_then(Value::as_str) == Some("array")
            || r.schema.get("items").is_some()
    })
}

/// `""` (the whole body) and the context's response fields; for an array body each
/// field as `[*].name` (every element) and `[0].name` (the first). Only paths the field
/// path grammar parses are kept.
fn field_paths(spec: Option<&SpecOperation>, ctx: &SourceContext) -> Option<Vec<String>> {
    let fields = &ctx.response_schema.fields;
    if fields.is_empty() {
        return None;
    }
    let array = array_body(spec, ctx);
    let mut out = vec![String::new()];
    for f in fields {
        let name = f.name.trim();
        let name = name.strip_prefix("$.").unwrap_or(name);
        if name.is_empty() || name == "$" {
            continue;
        }
        if name.starts_with('[') {
            out.push(name.to_string());
        } else if array {
            out.push(format!("[*].{name}"));
            out.push(format!("[0].{name}"));
        } else {
            out.push(name.to_string());
        }
    }
    let mut seen = BTreeSet::new();
    out.retain(|p| FieldPath::parse(p).is_ok() && seen.insert(p.clone()));
    Some(out)
}

/// Placeholders of a path template: `/pets/{petId}` → `petId`.
pub(crate) fn template_params(path: &str) -> Vec<String> {
    path.split('{')
        .skip(1)
        .filter_map(|s| s.split_once('}').map(|(name, _)| name.trim().to_string()))
        .filter(|n| !n.is_empty())
        .collect()
}

/// The path template's parameters; without a spec operation, the context's.
fn path_params(spec: Option<&SpecOperation>, ctx: Option<&SourceContext>) -> Option<Vec<String>> {
    if let Some(op) = spec {
        return Some(template_params(&op.path));
    }
    ctx.filter(|c| !c.request_params.is_empty())
        .map(|c| context_params(c, "path"))
}

fn context_params(ctx: &SourceContext, location: &str) -> Vec<String> {
    let mut names = BTreeSet::new();
    for p in &ctx.request_params {
        let loc = p.location.trim().to_ascii_lowercase();
        if loc.trim_end_matches('s') == location && !p.name.trim().is_empty() {
            names.insert(p.name.trim().to_string());
        }
    }
    names.into_iter().collect()
}

/// Query or header names: the verified context's when it lists any parameter, else the
/// spec's when there is a spec operation, else unknown.
fn params(
    spec: Option<&SpecOperation>,
    ctx: Option<&SourceContext>,
    location: &str,
) -> Option<Vec<String>> {
    if let Some(c) = ctx.filter(|c| !c.request_params.is_empty()) {
        return Some(context_params(c, location));
    }
    let op = spec?;
    let mut names = BTreeSet::new();
    for p in &op.parameters {
        let loc = serde_json::to_value(p.location).unwrap_or_default();
        if loc.as_str() == Some(location) {
            names.insert(p.name.clone());
        }
    }
    Some(names.into_iter().collect())
}

/// The schema of one operation's oracles (generation and regeneration).
pub fn for_single_op(spec: Option<&SpecOperation>, ctx: Option<&SourceContext>) -> CallSchema {
    let shape = OpShape::new(spec, ctx);
    CallSchema::bounded("single_op", single_op(&shape), fixed::oracles)
}

fn single_op(shape: &OpShape) -> Result<Value, String> {
    let refs = json!({"type": "array", "items": {"type": "object", "properties": {
        "file": string(), "start_line": {"type": "integer"}, "end_line": {"type": "integer"}},
        "required": ["file", "start_line", "end_line"]}});
    Ok(
        json!({"type": "object", "properties": {"oracles": {"type": "array", "minItems": 1,
        "items": {"type": "object", "properties": {
            "test_id": string(), "description": string(),
            "oracle_strategy": {"enum": ["fv", "fi", "bv", "bi"]},
            "input": shape.input()?, "assertions": shape.assertions()?,
            "evidence": string(), "evidence_refs": refs, "fresh_state": {"type": "boolean"}},
        "required": ["test_id", "oracle_strategy", "input", "assertions"]}}},
        "required": ["oracles"]}),
    )
}

/// The schema of one group's sequences: each step is one of the group's operations, with
/// that operation's inputs, statuses and field paths (captures name a field path of it).
/// `contexts` are the verified contexts by op_id; `spec` looks an operation up.
pub fn for_multi_op<'a>(
    group: &Group,
    contexts: &HashMap<String, SourceContext>,
    spec: impl Fn(&str) -> Option<&'a SpecOperation>,
) -> CallSchema {
    let mut ops: Vec<(&str, OpShape)> = Vec::new();
    for s in &group.sequence {
        if !ops.iter().any(|(id, _)| *id == s.op_id) {
            let shape = OpShape::new(spec(&s.op_id), contexts.get(&s.op_id));
            ops.push((s.op_id.as_str(), shape));
        }
    }
    CallSchema::bounded("multi_op", multi_op(&ops), fixed::multi_oracles)
}

fn multi_op(ops: &[(&str, OpShape)]) -> Result<Value, String> {
    if ops.is_empty() {
        return Err("the group names no operation".into());
    }
    let mut steps = Vec::new();
    for (op_id, shape) in ops {
        let mut props = Map::new();
        props.insert("op_id".into(), json!({"const": op_id}));
        props.insert("input".into(), shape.input()?);
        props.insert(
            "captures".into(),
            json!({"type": "object", "additionalProperties": shape.field_path()?}),
        );
        props.insert("assertions".into(), shape.assertions()?);
        steps.push(json!({"type": "object", "properties": props,
            "required": ["op_id", "input", "assertions"], "additionalProperties": false}));
    }
    Ok(
        json!({"type": "object", "properties": {"oracles": {"type": "array", "minItems": 1,
        "items": {"type": "object", "properties": {"test_id": string(), "description": string(),
            "steps": {"type": "array", "minItems": 1, "items": {"anyOf": steps}},
            "evidence": string()}, "required": ["test_id", "steps"]}}},
        "required": ["oracles"]}),
    )
}
