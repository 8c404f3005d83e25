//! Parameter conversion: Swagger 2.0 `in: body`/`formData` and inline type keywords, and
//! OpenAPI 3.x `schema`/`content` parameters, into `SpecParameter`/`SpecBody`.

use super::SpecError;
use super::resolve::{Pos, Resolver};
use crate::model::{ParamLocation, SpecBody, SpecParameter};
use serde_json::{Map, Value};

/// Swagger 2.0 keywords that describe a non-body parameter's value; they become its
/// schema.
const V2_SCHEMA_KEYS: [&str; 17] = [
    "type",
    "format",
    "items",
    "collectionFormat",
    "default",
    "maximum",
    "exclusiveMaximum",
    "minimum",
    "exclusiveMinimum",
    "maxLength",
    "minLength",
    "pattern",
    "maxItems",
    "minItems",
    "uniqueItems",
    "enum",
    "multipleOf",
];

/// What a parameter is converted in the context of.
pub(crate) struct ParamCtx<'a> {
    pub op_id: &'a str,
    pub swagger2: bool,
    /// Effective `consumes` (operation, else global); Swagger 2.0 only.
    pub consumes: &'a [String],
}

/// A converted parameter: an ordinary one, a 2.0 body, or nothing (warned).
pub(crate) enum Converted {
    Param(SpecParameter),
    Body(SpecBody),
    Skipped,
}

pub(crate) fn convert_param(
    res: &mut Resolver,
    c: &ParamCtx<'_>,
    p: &Value,
    pos: &Pos,
    warnings: &mut Vec<String>,
) -> Result<Converted, SpecError> {
    let Some(name) = p.get("name").and_then(Value::as_str) else {
        warnings.push(format!(
            "{}: parameter at {} has no name, skipped",
            c.op_id, pos.ptr
        ));
        return Ok(Converted::Skipped);
    };
    let Some(location) = p.get("in").and_then(Value::as_str) else {
        warnings.push(format!(
            "{}: parameter {name} has no `in`, skipped",
            c.op_id
        ));
        return Ok(Converted::Skipped);
    };
    let required = p.get("required").and_then(Value::as_bool).unwrap_or(false);
    let description = p
        .get("description")
        .and_then(Value::as_str)
        .map(str::to_string);
    let location = match location {
        "path" => ParamLocation::Path,
        "query" => ParamLocation::Query,
        "header" => ParamLocation::Header,
        "cookie" => ParamLocation::Cookie,
        "formData" => ParamLocation::Form,
        "body" if c.swagger2 => {
            let schema = match p.get("schema") {
                Some(s) => res.inline(s, &pos.child("schema"))?,
                None => Value::Null,
            };
            let media_type = pick_media(c.consumes.iter().map(String::as_str))
                .unwrap_or_else(|| "application/json".to_string());
            return Ok(Converted::Body(SpecBody {
                media_type,
                required,
                schema,
            }));
        }
        other => {
            warnings.push(format!(
                "{}: parameter {name} has unknown location `{other}`, skipped",
                c.op_id
            ));
            return Ok(Converted::Skipped);
        }
    };
    let schema = if let Some(s) = p.get("schema") {
        res.inline(s, &pos.child("schema"))?
    } else if let Some(content) = p.get("content").and_then(Value::as_object) {
        match pick_media(content.keys().map(String::as_str)).and_then(|m| {
            content
                .get(&m)
                .and_then(|mt| mt.get("schema"))
                .map(|s| (m, s))
        }) {
            Some((m, s)) => res.inline(s, &pos.child("content").child(&m).child("schema"))?,
            None => Value::Null,
        }
    } else {
        let mut schema = Map::new();
        for key in V2_SCHEMA_KEYS {
            if let Some(v) = p.get(key) {
                schema.insert(key.to_string(), v.clone());
            }
        }
        if schema.is_empty() {
            Value::Null
        } else {
            res.inline(&Value::Object(schema), pos)?
        }
    };
    Ok(Converted::Param(SpecParameter {
        name: name.to_string(),
        location,
        // A path parameter is always required, whatever the spec forgot to say.
        required: required || location == ParamLocation::Path,
        schema,
        description,
    }))
}

/// The request body Swagger 2.0 `formData` parameters make: an object schema with one
/// property per field; multipart when a field is a file or `consumes` says so.
pub(crate) fn body_from_form(c: &ParamCtx<'_>, params: &[SpecParameter]) -> Option<SpecBody> {
    let fields: Vec<&SpecParameter> = params
        .iter()
        .filter(|p| p.location == ParamLocation::Form)
        .collect();
    if fields.is_empty() {
        return None;
    }
    let has_file = fields
        .iter()
        .any(|p| p.schema.get("type").and_then(Value::as_str) == Some("file"));
    let multipart = has_file
        || c.consumes
            .iter()
            .any(|m| m.starts_with("multipart/form-data"));
    let media_type = if multipart {
        "multipart/form-data"
    } else {
        "application/x-www-form-urlencoded"
    };
    let mut properties = Map::new();
    let mut required = Vec::new();
    for f in &fields {
        properties.insert(f.name.clone(), f.schema.clone());
        if f.required {
            required.push(Value::from(f.name.clone()));
        }
    }
    let mut schema = Map::new();
    schema.insert("type".into(), Value::from("object"));
    schema.insert("properties".into(), Value::Object(properties));
    if !required.is_empty() {
        schema.insert("required".into(), Value::Array(required));
    }
    Some(SpecBody {
        media_type: media_type.to_string(),
        required: fields.iter().any(|f| f.required),
        schema: Value::Object(schema),
    })
}

/// Chooses the media type to describe: `application/json` first, then a JSON variant
/// (`application/json;charset=UTF-8`, `application/problem+json`), then the first listed.
pub(crate) fn pick_media<'a>(types: impl Iterator<Item = &'a str>) -> Option<String> {
    let all: Vec<&str> = types.collect();
    let lower = |t: &&str| t.to_ascii_lowercase();
    all.iter()
        .find(|t| lower(t) == "application/json")
        .or_else(|| {
            all.iter()
                .find(|t| lower(t).starts_with("application/json"))
        })
        .or_else(|| all.iter().find(|t| lower(t).contains("json")))
        .or_else(|| all.first())
        .map(|t| t.to_string())
}
