//! Lenient readers from raw model JSON to model types, shared by both paths, and the
//! report recorder. Each reader returns what it could use and says what it could not.

use super::{BundleIndex, Dropped, Flag, rule};
use crate::model::{Assertion, EvidenceRef, FieldOp, OracleInput, Strategy};
use serde_json::{Map, Value};
use std::collections::BTreeMap;

/// Collects drops, flags and counts while a pass runs.
pub(super) struct Recorder {
    pub dropped: Vec<Dropped>,
    pub flags: Vec<Flag>,
    pub counts: BTreeMap<String, usize>,
}

impl Recorder {
    pub fn new(rules: &[&str]) -> Self {
        Recorder {
            dropped: Vec::new(),
            flags: Vec::new(),
            counts: rules.iter().map(|r| (r.to_string(), 0)).collect(),
        }
    }

    pub fn count(&mut self, rule: &str) {
        *self.counts.entry(rule.to_string()).or_insert(0) += 1;
    }

    pub fn flag(&mut self, test_id: &str, rule: &str, detail: impl Into<String>) {
        self.count(rule);
        self.flags.push(Flag {
            test_id: test_id.to_string(),
            rule: rule.to_string(),
            detail: detail.into(),
        });
    }

    /// Records an oracle set aside for referencing what the context lacks: one drop entry
    /// (counted once, under the first problem's rule, like every drop) lists every
    /// problem.
    pub fn set_aside(&mut self, test_id: &str, problems: &[(&'static str, String)], raw: &Value) {
        let Some((first_rule, _)) = problems.first() else {
            return;
        };
        let reason = problems
            .iter()
            .map(|(_, d)| d.as_str())
            .collect::<Vec<_>>()
            .join("; ");
        self.drop(test_id, first_rule, reason, raw);
    }

    pub fn drop(&mut self, test_id: &str, rule: &str, reason: impl Into<String>, raw: &Value) {
        self.count(rule);
        self.dropped.push(Dropped {
            test_id: test_id.to_string(),
            rule: rule.to_string(),
            reason: reason.into(),
            raw: raw.clone(),
        });
    }
}

/// A JSON type name for messages.
pub(super) fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// The list of entries in a model answer: an array, an object holding one under one of
/// `list_keys`, or a single entry object (recognised by `entry_key`).
pub(super) fn entries<'a>(
    raw: &'a Value,
    list_keys: &[&str],
    entry_key: &str,
) -> Result<Vec<&'a Value>, String> {
    match raw {
        Value::Array(items) => Ok(items.iter().collect()),
        Value::Object(map) => {
            for key in list_keys {
                if let Some(Value::Array(items)) = map.get(*key) {
                    return Ok(items.iter().collect());
                }
            }
            if map.contains_key(entry_key) {
                return Ok(vec![raw]);
            }
            Err(format!(
                "answer is an object without a list under {}",
                list_keys
                    .iter()
                    .map(|k| format!("`{k}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ))
        }
        other => Err(format!("answer is {}, not a list of oracles", kind(other))),
    }
}

/// The object of entry `index` and its test id. A non-object is dropped as malformed; a
/// missing id is made from `prefix` (given the object) and the entry's position, and
/// flagged, so every kept oracle can be reviewed by id.
pub(super) fn object_and_id<'v>(
    index: usize,
    entry: &'v Value,
    rec: &mut Recorder,
    prefix: impl FnOnce(&Map<String, Value>) -> String,
) -> Option<(&'v Map<String, Value>, String)> {
    let Value::Object(obj) = entry else {
        rec.drop(
            "",
            rule::MALFORMED,
            format!("oracle #{} is {}, not an object", index + 1, kind(entry)),
            entry,
        );
        return None;
    };
    let test_id = id_field(obj, "test_id").unwrap_or_else(|| {
        let id = format!("{}_{}", prefix(obj), index + 1);
        rec.flag(
            &id,
            rule::MISSING_TEST_ID,
            format!("oracle #{} had no test_id", index + 1),
        );
        id
    });
    Some((obj, test_id))
}

/// A non-empty id from a string or number field.
pub(super) fn id_field(obj: &Map<String, Value>, key: &str) -> Option<String> {
    match obj.get(key) {
        Some(Value::String(s)) if !s.trim().is_empty() => Some(s.trim().to_string()),
        Some(Value::Number(n)) => Some(n.to_string()),
        _ => None,
    }
}

/// Free text from a string, or a list of strings joined; other values as compact JSON.
pub(super) fn text_field(obj: &Map<String, Value>, key: &str) -> String {
    match obj.get(key) {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(items)) if items.iter().all(Value::is_string) => items
            .iter()
            .filter_map(Value::as_str)
            .collect::<Vec<_>>()
            .join("; "),
        Some(other) => other.to_string(),
    }
}

/// A strategy from its code or long name, any case (`FV`, `forward-valid`...).
pub(super) fn parse_strategy(v: &Value) -> Option<Strategy> {
    let s: String = v
        .as_str()?
        .chars()
        .filter(|c| c.is_ascii_alphanumeric())
        .collect::<String>()
        .to_ascii_lowercase();
    match s.as_str() {
        "fv" | "forwardvalid" => Some(Strategy::Fv),
        "fi" | "forwardinvalid" => Some(Strategy::Fi),
        "bv" | "backwardvalid" => Some(Strategy::Bv),
        "bi" | "backwardinvalid" => Some(Strategy::Bi),
        _ => None,
    }
}

/// Reads one assertion, or says why it cannot be used.
pub(super) fn parse_assertion(v: &Value) -> Result<Assertion, String> {
    let expanded;
    let v = match v {
        Value::Array(items) => {
            expanded = expand_short_assertion(items)?;
            &expanded
        }
        v => v,
    };
    let Value::Object(obj) = v else {
        return Err(format!("is {}, not an object", kind(v)));
    };
    let ty = match obj.get("type") {
        Some(Value::String(t)) => t.trim().to_ascii_lowercase(),
        Some(other) => return Err(format!("`type` is {}", kind(other))),
        None if obj.contains_key("field_path") || obj.contains_key("op") => "field".into(),
        None => return Err("has no `type`".into()),
    };
    match ty.as_str() {
        "status" | "status_code" => {
            let expected = obj.get("expected").unwrap_or(&Value::Null);
            let code = match expected {
                Value::Number(n) => n.as_u64(),
                Value::String(s) => s.trim().parse::<u64>().ok(),
                _ => None,
            };
            match code.and_then(|c| u16::try_from(c).ok()) {
                Some(c) if (100..=599).contains(&c) => Ok(Assertion::Status { expected: c }),
                _ => Err(format!(
                    "status `expected` must be an HTTP status 100-599, got {expected}"
                )),
            }
        }
        "field" => {
            let field_path = match obj.get("field_path") {
                Some(Value::String(p)) => p.trim().to_string(),
                Some(other) => return Err(format!("`field_path` is {}", kind(other))),
                None => return Err("field assertion without `field_path`".into()),
            };
            let op_name = match obj.get("op") {
                Some(Value::String(o)) => o.trim().to_ascii_lowercase(),
                Some(other) => return Err(format!("`op` is {}", kind(other))),
                None => return Err("field assertion without `op`".into()),
            };
            let op: FieldOp = serde_json::from_value(Value::String(op_name.clone()))
                .map_err(|_| format!("unknown op `{op_name}`"))?;
            let expected = obj.get("expected").cloned().unwrap_or(Value::Null);
            if op == FieldOp::Matches {
                let Some(pattern) = expected.as_str() else {
                    return Err(format!(
                        "`matches` needs a regex string, got {}",
                        kind(&expected)
                    ));
                };
                if let Err(e) = regex::Regex::new(pattern) {
                    return Err(format!("`matches` pattern does not compile: {e}"));
                }
            }
            Ok(Assertion::Field {
                field_path,
                op,
                expected,
            })
        }
        other => Err(format!("unknown assertion type `{other}`")),
    }
}

/// The object an assertion written in the reviewers' short form stands for
/// (`["status", 404]`, `[field_path, op]`, `[field_path, op, expected]`; see
/// `agents::oracle_view`). A revision reads its oracles in that form, so an answer that
/// keeps it is read as the full form it abbreviates.
fn expand_short_assertion(items: &[Value]) -> Result<Value, String> {
    match items {
        [Value::String(t), expected] if t == "status" => {
            Ok(serde_json::json!({"type": "status", "expected": expected}))
        }
        [Value::String(path), Value::String(op)] => {
            Ok(serde_json::json!({"type": "field", "field_path": path, "op": op, "expected": null}))
        }
        [Value::String(path), Value::String(op), expected] => Ok(
            serde_json::json!({"type": "field", "field_path": path, "op": op, "expected": expected}),
        ),
        _ => Err(format!(
            "is an array of {} items, not [\"status\", code] or [field_path, op, expected]",
            items.len()
        )),
    }
}

/// Reads a list of assertions, flagging (rule `malformed`) the ones it cannot use.
/// `None` when there is no list at all.
pub(super) fn parse_assertions(
    v: Option<&Value>,
    test_id: &str,
    prefix: &str,
    rec: &mut Recorder,
) -> Option<Vec<Assertion>> {
    let Some(Value::Array(items)) = v else {
        return None;
    };
    let mut out = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        match parse_assertion(item) {
            Ok(a) => out.push(a),
            Err(why) => rec.flag(
                test_id,
                rule::MALFORMED,
                format!("{prefix}assertion #{} removed: {why}", i + 1),
            ),
        }
    }
    Some(out)
}

/// Canonical input key for a key the model wrote, if it is one we read.
fn input_key(key: &str) -> Option<&'static str> {
    match key {
        "path" => Some("path"),
        "query" => Some("query"),
        "body" => Some("body"),
        "headers" => Some("headers"),
        "path_raw" => Some("path_raw"),
        "raw_body" => Some("raw_body"),
        "method" => Some("method"),
        "query_raw" => Some("query_raw"),
        "path_params" | "pathParams" | "path_parameters" | "pathParameters" => Some("path"),
        "query_params" | "queryParams" | "query_parameters" | "queryParameters" => Some("query"),
        "header" | "request_headers" | "requestHeaders" => Some("headers"),
        "request_body" | "requestBody" => Some("body"),
        _ => None,
    }
}

/// Reads an oracle's (or step's) input from `obj`, stripping unknown keys.
pub(super) fn parse_input(
    obj: &Map<String, Value>,
    test_id: &str,
    prefix: &str,
    rec: &mut Recorder,
) -> OracleInput {
    let mut input = OracleInput::default();
    let owned;
    let source: &Map<String, Value> = match obj.get("input") {
        Some(Value::Object(m)) => m,
        Some(Value::Null) => return input,
        Some(other) => {
            rec.flag(
                test_id,
                rule::STRIP_INPUT_KEYS,
                format!("{prefix}input is {}, removed", kind(other)),
            );
            return input;
        }
        None => {
            // Only object-valued path/query/headers: a step may say `"path": "/pets/{id}"`
            // beside `"method"`, which names the operation, not an input.
            let flat: Map<String, Value> = ["path", "query", "body", "headers"]
                .iter()
                .filter_map(|k| obj.get(*k).map(|v| (*k, v)))
                .filter(|(k, v)| *k == "body" || v.is_object())
                .map(|(k, v)| (k.to_string(), v.clone()))
                .collect();
            if flat.is_empty() {
                return input;
            }
            rec.flag(
                test_id,
                rule::INPUT_ALIAS,
                format!("{prefix}input read from top-level path/query/body/headers"),
            );
            owned = flat;
            &owned
        }
    };
    for (key, value) in source {
        let Some(canon) = input_key(key) else {
            rec.flag(
                test_id,
                rule::STRIP_INPUT_KEYS,
                format!("{prefix}input key `{key}` stripped"),
            );
            continue;
        };
        if canon != key {
            rec.flag(
                test_id,
                rule::INPUT_ALIAS,
                format!("{prefix}input key `{key}` read as `{canon}`"),
            );
        }
        let target = match canon {
            "body" => {
                if !value.is_null() {
                    input.body = Some(value.clone());
                }
                continue;
            }
            "method" | "query_raw" => {
                let text = value.as_str().map(str::trim).filter(|t| !t.is_empty());
                let ok = match (canon, text) {
                    ("method", Some(m)) if m.bytes().all(|b| b.is_ascii_alphabetic()) => {
                        input.method = Some(m.to_ascii_uppercase());
                        true
                    }
                    ("query_raw", Some(q)) => {
                        input.query_raw = Some(q.trim_start_matches('?').to_string());
                        true
                    }
                    _ => value.is_null(),
                };
                if !ok {
                    rec.flag(
                        test_id,
                        rule::STRIP_INPUT_KEYS,
                        format!("{prefix}input key `{key}` is malformed; stripped"),
                    );
                }
                continue;
            }
            "path_raw" | "raw_body" => {
                // The verbatim forms (see `OracleInput`): kept when well-formed, else
                // stripped with a flag like any other unusable key.
                let kept = match canon {
                    "path_raw" => serde_json::from_value(value.clone())
                        .map(|m| input.path_raw = m)
                        .is_ok(),
                    _ => serde_json::from_value(value.clone())
                        .map(|r| input.raw_body = Some(r))
                        .is_ok(),
                };
                if !kept && !value.is_null() {
                    rec.flag(
                        test_id,
                        rule::STRIP_INPUT_KEYS,
                        format!("{prefix}input key `{key}` is malformed; stripped"),
                    );
                }
                continue;
            }
            "path" => &mut input.path,
            "query" => &mut input.query,
            _ => &mut input.headers,
        };
        match value {
            Value::Object(m) => target.extend(m.iter().map(|(k, v)| (k.clone(), v.clone()))),
            Value::Null => {}
            other => rec.flag(
                test_id,
                rule::STRIP_INPUT_KEYS,
                format!(
                    "{prefix}input key `{key}` is {}, not an object; stripped",
                    kind(other)
                ),
            ),
        }
    }
    input
}

/// Reads evidence refs and keeps those inside the bundle (rule `evidence_out_of_bundle`):
/// a file that was sent, lines within its length and, for a slice, lines it showed.
pub(super) fn parse_refs(
    v: Option<&Value>,
    bundle: &BundleIndex,
    test_id: &str,
    rec: &mut Recorder,
) -> Vec<EvidenceRef> {
    let items = match v {
        None | Some(Value::Null) => return Vec::new(),
        Some(Value::Array(items)) => items,
        Some(other) => {
            rec.flag(
                test_id,
                rule::EVIDENCE_OUT_OF_BUNDLE,
                format!("evidence_refs is {}, removed", kind(other)),
            );
            return Vec::new();
        }
    };
    let mut out = Vec::new();
    for item in items {
        let parsed = match item {
            Value::String(short) => short_ref(short, bundle),
            _ => serde_json::from_value::<EvidenceRef>(item.clone()).ok(),
        };
        let Some(mut r) = parsed else {
            rec.flag(
                test_id,
                rule::EVIDENCE_OUT_OF_BUNDLE,
                format!(
                    "evidence ref {item} removed: not {{file, start_line, end_line}} or file:start-end"
                ),
            );
            continue;
        };
        let file = r.file.replace('\\', "/");
        r.file = file.strip_prefix("./").unwrap_or(&file).to_string();
        if bundle.files.is_empty() {
            out.push(r);
            continue;
        }
        match bundle.files.get(&r.file) {
            None => rec.flag(
                test_id,
                rule::EVIDENCE_OUT_OF_BUNDLE,
                format!(
                    "evidence ref to `{}` removed: file not in the bundle",
                    r.file
                ),
            ),
            Some(&lines)
                if r.start_line == 0 || r.start_line > r.end_line || r.end_line > lines =>
            {
                rec.flag(
                    test_id,
                    rule::EVIDENCE_OUT_OF_BUNDLE,
                    format!(
                        "evidence ref `{}` lines {}-{} removed: the file has {lines} lines",
                        r.file, r.start_line, r.end_line
                    ),
                )
            }
            Some(_) => match bundle.left_out(&r.file, r.start_line, r.end_line) {
                Some(line) => rec.flag(
                    test_id,
                    rule::EVIDENCE_OUT_OF_BUNDLE,
                    format!(
                        "evidence ref `{}` lines {}-{} removed: line {line} was left out of the slice sent",
                        r.file, r.start_line, r.end_line
                    ),
                ),
                None => out.push(r),
            },
        }
    }
    out
}

/// A reference in the reviewers' short form, `file:start-end` or `file:line`, the file by
/// its path or, where one sent file has that name, by its name alone.
fn short_ref(text: &str, bundle: &BundleIndex) -> Option<EvidenceRef> {
    let (file, lines) = text.trim().rsplit_once(':')?;
    let (a, b) = lines.split_once('-').unwrap_or((lines, lines));
    let (start_line, end_line) = (a.trim().parse().ok()?, b.trim().parse().ok()?);
    let file = file.trim();
    let named: Vec<&String> = bundle
        .files
        .keys()
        .filter(|p| p.rsplit('/').next() == Some(file))
        .collect();
    let file = match named.as_slice() {
        [one] if !bundle.files.contains_key(file) => (*one).clone(),
        _ => file.to_string(),
    };
    Some(EvidenceRef {
        file,
        start_line,
        end_line,
    })
}

/// First name segment of a field path (`items[0].name` → `items`, `[*].id` → `id`,
/// `$.a.b` → `a`); `None` for paths that address the whole body.
pub(super) fn first_name_segment(path: &str) -> Option<&str> {
    let mut rest = path.trim().strip_prefix('$').unwrap_or(path.trim());
    loop {
        rest = rest.trim_start_matches('.');
        if let Some(after) = rest.strip_prefix('[') {
            rest = after.split_once(']').map(|(_, r)| r).unwrap_or("");
            continue;
        }
        break;
    }
    let end = rest.find(['.', '[']).unwrap_or(rest.len());
    let seg = rest[..end].trim();
    (!seg.is_empty()).then_some(seg)
}

/// JSON text with object keys sorted at every depth, so equal content compares equal
/// whatever order the model wrote keys in.
pub(super) fn canonical(v: &Value) -> String {
    fn sorted(v: &Value) -> Value {
        match v {
            Value::Object(m) => {
                let mut keys: Vec<&String> = m.keys().collect();
                keys.sort();
                Value::Object(
                    keys.into_iter()
                        .map(|k| (k.clone(), sorted(&m[k])))
                        .collect(),
                )
            }
            Value::Array(items) => Value::Array(items.iter().map(sorted).collect()),
            other => other.clone(),
        }
    }
    sorted(v).to_string()
}

/// Canonical texts of assertions, sorted: the order-insensitive identity of a list.
pub(super) fn assertion_set(assertions: &[Assertion]) -> Vec<String> {
    let mut keys: Vec<String> = assertions
        .iter()
        .map(|a| canonical(&serde_json::to_value(a).unwrap_or(Value::Null)))
        .collect();
    keys.sort();
    keys
}
