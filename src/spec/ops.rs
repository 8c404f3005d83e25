//! Walks the `paths` of a parsed spec into `SpecOperation`s, one walker for Swagger 2.0
//! and OpenAPI 3.0/3.1 (the differences are parameters, bodies and response content).
//!
//! Malformed pieces that do not stop the rest from being useful (a parameter without a
//! name, an operation that is not an object) become warnings, not errors. This module
//! does not judge whether the spec matches the code.

use super::SpecError;
use super::params::{ParamCtx, body_from_form, convert_param, pick_media};
use super::resolve::{Pos, Resolver};
use crate::model::{HTTP_METHODS, SpecBody, SpecOperation, SpecResponse, op_id};
use serde_json::Value;
use std::collections::BTreeMap;

/// Lists every operation of the spec in document order.
pub(crate) fn walk_operations(
    res: &mut Resolver,
    swagger2: bool,
    warnings: &mut Vec<String>,
) -> Result<Vec<SpecOperation>, SpecError> {
    let root = res.root();
    let mut ops = Vec::new();
    let Some(paths) = root.get("paths").and_then(Value::as_object) else {
        return Ok(ops);
    };
    let global_consumes = strings(root.get("consumes"));
    let global_produces = strings(root.get("produces"));
    let paths_pos = Pos {
        doc: 0,
        ptr: "/paths".into(),
    };
    for (path, raw_item) in paths {
        if path.starts_with("x-") {
            continue;
        }
        let (item, item_pos) = res.deref(raw_item, &paths_pos.child(path))?;
        if let Some(Value::String(r)) = item.get("$ref") {
            // `deref` stops at a cycle and hands back the unresolved reference.
            warnings.push(format!(
                "path {path}: path item $ref \"{r}\" leads back to itself; no operations read"
            ));
            continue;
        }
        let Some(item_map) = item.as_object() else {
            warnings.push(format!("path {path}: path item is not an object, skipped"));
            continue;
        };
        let path_params =
            collect_params(res, item.get("parameters"), &item_pos.child("parameters"))?;
        for (method, op) in item_map {
            let lower = method.to_ascii_lowercase();
            if !HTTP_METHODS.contains(&lower.as_str()) {
                continue;
            }
            let op_pos = item_pos.child(method);
            if !op.is_object() {
                warnings.push(format!(
                    "{}: operation is not an object, skipped",
                    op_id(&lower, path)
                ));
                continue;
            }
            let ctx = OpCtx {
                path,
                method: &lower,
                item: &item,
                op,
                pos: &op_pos,
                consumes: strings(op.get("consumes")).or_else(|| global_consumes.clone()),
                produces: strings(op.get("produces")).or_else(|| global_produces.clone()),
            };
            let built = build_operation(res, &ctx, &path_params, swagger2, warnings)?;
            ops.push(built);
        }
    }
    Ok(ops)
}

/// What one operation is built from.
struct OpCtx<'a> {
    path: &'a str,
    method: &'a str,
    item: &'a Value,
    op: &'a Value,
    pos: &'a Pos,
    consumes: Option<Vec<String>>,
    produces: Option<Vec<String>>,
}

fn build_operation(
    res: &mut Resolver,
    c: &OpCtx<'_>,
    path_params: &[(Value, Pos)],
    swagger2: bool,
    warnings: &mut Vec<String>,
) -> Result<SpecOperation, SpecError> {
    let id = op_id(c.method, c.path);
    // Path-level first, operation-level replaces on (name, in).
    let mut raw = path_params.to_vec();
    for (p, pos) in collect_params(res, c.op.get("parameters"), &c.pos.child("parameters"))? {
        let key = param_key(&p);
        match raw.iter_mut().find(|(q, _)| param_key(q) == key) {
            Some(slot) => *slot = (p, pos),
            None => raw.push((p, pos)),
        }
    }
    let pctx = ParamCtx {
        op_id: &id,
        swagger2,
        consumes: c.consumes.as_deref().unwrap_or(&[]),
    };
    let mut parameters = Vec::new();
    let mut request_body = None;
    for (p, pos) in &raw {
        match convert_param(res, &pctx, p, pos, warnings)? {
            super::params::Converted::Param(sp) => parameters.push(sp),
            super::params::Converted::Body(b) => request_body = Some(b),
            super::params::Converted::Skipped => {}
        }
    }
    if request_body.is_none() {
        request_body = body_from_form(&pctx, &parameters);
    }
    if !swagger2 && let Some(rb) = c.op.get("requestBody") {
        request_body = request_body_3x(res, rb, &c.pos.child("requestBody"))?;
    }
    let responses = responses(res, c, swagger2)?;
    Ok(SpecOperation {
        op_id: id,
        method: c.method.to_ascii_uppercase(),
        path: c.path.to_string(),
        operation_id: str_field(c.op, "operationId"),
        tags: strings(c.op.get("tags")).unwrap_or_default(),
        summary: str_field(c.op, "summary"),
        parameters,
        request_body,
        responses,
        extensions: extensions(c.item, c.op),
        excluded: None,
    })
}

/// Dereferences each entry of a `parameters` list.
fn collect_params(
    res: &mut Resolver,
    list: Option<&Value>,
    at: &Pos,
) -> Result<Vec<(Value, Pos)>, SpecError> {
    let mut out = Vec::new();
    if let Some(Value::Array(items)) = list {
        for (i, p) in items.iter().enumerate() {
            out.push(res.deref(p, &at.child(&i.to_string()))?);
        }
    }
    Ok(out)
}

fn param_key(p: &Value) -> (Option<&str>, Option<&str>) {
    (
        p.get("name").and_then(Value::as_str),
        p.get("in").and_then(Value::as_str),
    )
}

fn request_body_3x(
    res: &mut Resolver,
    rb: &Value,
    at: &Pos,
) -> Result<Option<SpecBody>, SpecError> {
    let (rb, pos) = res.deref(rb, at)?;
    let required = rb.get("required").and_then(Value::as_bool).unwrap_or(false);
    let Some(content) = rb.get("content").and_then(Value::as_object) else {
        return Ok(None);
    };
    let Some(media) = pick_media(content.keys().map(String::as_str)) else {
        return Ok(None);
    };
    let schema = match content.get(&media).and_then(|m| m.get("schema")) {
        Some(s) => res.inline(s, &pos.child("content").child(&media).child("schema"))?,
        None => Value::Null,
    };
    Ok(Some(SpecBody {
        media_type: media,
        required,
        schema,
    }))
}

fn responses(
    res: &mut Resolver,
    c: &OpCtx<'_>,
    swagger2: bool,
) -> Result<BTreeMap<String, SpecResponse>, SpecError> {
    let mut out = BTreeMap::new();
    let Some(map) = c.op.get("responses").and_then(Value::as_object) else {
        return Ok(out);
    };
    let at = c.pos.child("responses");
    for (status, raw) in map {
        if status.starts_with("x-") {
            continue;
        }
        let (resp, pos) = res.deref(raw, &at.child(status))?;
        let description = str_field(&resp, "description").unwrap_or_default();
        let (media_type, schema) = if swagger2 {
            match resp.get("schema") {
                Some(s) => {
                    let produces = c.produces.as_deref().unwrap_or(&[]);
                    let media = pick_media(produces.iter().map(String::as_str))
                        .unwrap_or_else(|| "application/json".to_string());
                    (Some(media), res.inline(s, &pos.child("schema"))?)
                }
                None => (None, Value::Null),
            }
        } else {
            match resp.get("content").and_then(Value::as_object) {
                Some(content) => match pick_media(content.keys().map(String::as_str)) {
                    Some(media) => {
                        let schema = match content.get(&media).and_then(|m| m.get("schema")) {
                            Some(s) => {
                                res.inline(s, &pos.child("content").child(&media).child("schema"))?
                            }
                            None => Value::Null,
                        };
                        (Some(media), schema)
                    }
                    None => (None, Value::Null),
                },
                None => (None, Value::Null),
            }
        };
        out.insert(
            status.clone(),
            SpecResponse {
                description,
                media_type,
                schema,
            },
        );
    }
    Ok(out)
}

/// `x-*` keys of the operation, plus those of the path item it does not override
/// (`x-swagger-router-controller` often sits on the path item).
fn extensions(item: &Value, op: &Value) -> BTreeMap<String, Value> {
    let mut out = BTreeMap::new();
    for src in [item, op] {
        if let Some(map) = src.as_object() {
            for (k, v) in map.iter().filter(|(k, _)| k.starts_with("x-")) {
                out.insert(k.clone(), v.clone());
            }
        }
    }
    out
}

pub(crate) fn str_field(v: &Value, key: &str) -> Option<String> {
    v.get(key).and_then(Value::as_str).map(str::to_string)
}

/// A list of strings (`tags`, `consumes`); non-strings are dropped.
pub(crate) fn strings(v: Option<&Value>) -> Option<Vec<String>> {
    v.and_then(Value::as_array).map(|a| {
        a.iter()
            .filter_map(Value::as_str)
            .map(str::to_string)
            .collect()
    })
}
