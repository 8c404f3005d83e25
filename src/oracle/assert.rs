//! Assertion semantics: what it means for a status or field assertion to hold.
//!
//! Coercions, chosen so that the paper's oracles (which write `"expected": "10"` for a
//! body of `10`) mean what their authors meant:
//! - numbers compare by value (`200 == 200.0`);
//! - a number and a string that parses as a JSON number compare as numbers, in either
//!   direction and at any depth of arrays and objects; no other type is coerced
//!   (`"true"` is not `true`);
//! - `gt`/`gte`/`lt`/`lte` take numbers or numeric strings on both sides;
//! - `matches` searches (unanchored; write `^…$` to anchor) the string form: a string as
//!   is, anything else as its JSON text;
//! - `type`: `integer` is a number without a fractional part; `number` is any number;
//! - `contains`: substring for strings, element (same equality as `equals`) for arrays,
//!   key for objects;
//! - `length` of a string (characters), array or object; the expected value is a number
//!   (equality) or `{"op": "gte", "value": 1}` with op one of equals, not_equals, gt, gte,
//!   lt, lte.
//!
//! A missing field counts as null for `is_null` and fails every other op, naming the path.
//! A `[*]` path holds only if the op holds for every element and there is at least one
//! element (an empty list fails: "every item has an id" on an empty listing usually hides
//! a broken setup, and the reviewer can drop the assertion).
//! A field assertion on a body that is not JSON fails with the parse error; for the
//! whole-body path `""` a non-JSON body is taken as a string, and an empty body as missing.
//!
//! This module does no I/O; `runner::exec` supplies the response.

use crate::model::{Assertion, AssertionVerdict, FieldOp, Outcome};
use crate::oracle::path::{FieldPath, kind};
use serde_json::Value;

/// The response as the assertions see it.
#[derive(Debug, Clone)]
pub struct Response {
    pub status: u16,
    /// The body parsed as JSON, or why it is not JSON.
    pub json: Result<Value, String>,
    /// The raw body text.
    pub text: String,
}

impl Response {
    /// Parses the body once for all assertions of a step.
    pub fn new(status: u16, text: String) -> Self {
        let json = if text.trim().is_empty() {
            Err("the response body is empty".to_string())
        } else {
            serde_json::from_str::<Value>(&text)
                .map_err(|e| format!("the response body is not JSON ({e}): {}", preview(&text)))
        };
        Self { status, json, text }
    }
}

fn preview(text: &str) -> String {
    let t: String = text.chars().take(60).collect();
    if t.len() < text.len() {
        format!("{t:?}…")
    } else {
        format!("{t:?}")
    }
}

/// Checks that an assertion can be evaluated at all (parseable path, valid regex, known
/// type name, numeric bound, length spec). Called when a suite is loaded so that a
/// malformed oracle is reported up front rather than failing at run time. An expected
/// value that refers to a capture (`"$captures.total"`) is checked after binding instead.
pub fn validate(assertion: &Assertion) -> Result<(), String> {
    let Assertion::Field {
        field_path,
        op,
        expected,
    } = assertion
    else {
        return Ok(());
    };
    FieldPath::parse(field_path).map_err(|e| e.to_string())?;
    if expected.as_str().is_some_and(|s| s.contains("$captures.")) {
        // Bound from an earlier step at run time; its value is checked then.
        return Ok(());
    }
    match op {
        FieldOp::Matches => {
            let pattern = expected
                .as_str()
                .ok_or_else(|| format!("`matches` needs a regex string, got {expected}"))?;
            regex::Regex::new(pattern).map_err(|e| format!("invalid regex {pattern:?}: {e}"))?;
        }
        FieldOp::Type => {
            let name = expected.as_str().unwrap_or_default();
            if !TYPE_NAMES.contains(&name) {
                return Err(format!(
                    "`type` expects one of {}, got {expected}",
                    TYPE_NAMES.join("|")
                ));
            }
        }
        FieldOp::Gt | FieldOp::Gte | FieldOp::Lt | FieldOp::Lte
            if as_number(expected).is_none() =>
        {
            return Err(format!("`{}` needs a number, got {expected}", op_name(*op)));
        }
        FieldOp::Length => {
            length_spec(expected)?;
        }
        _ => {}
    }
    Ok(())
}

const TYPE_NAMES: [&str; 7] = [
    "string", "number", "integer", "boolean", "object", "array", "null",
];

/// Evaluates one assertion; `index` is its position in the oracle or step.
pub fn evaluate(index: usize, assertion: &Assertion, resp: &Response) -> AssertionVerdict {
    match assertion {
        Assertion::Status { expected } => {
            let ok = resp.status == *expected;
            AssertionVerdict {
                index,
                outcome: if ok { Outcome::Pass } else { Outcome::Fail },
                expected: Value::from(*expected),
                actual: Value::from(resp.status),
                message: if ok {
                    String::new()
                } else {
                    format!("expected {expected}, got {} at status", resp.status)
                },
                unstable: false,
            }
        }
        Assertion::Field {
            field_path,
            op,
            expected,
        } => {
            let (outcome, actual, message) = match field(field_path, *op, expected, resp) {
                Ok(actual) => (Outcome::Pass, actual, String::new()),
                Err((actual, msg)) => (Outcome::Fail, actual, msg),
            };
            AssertionVerdict {
                index,
                outcome,
                expected: expected.clone(),
                actual,
                message,
                unstable: false,
            }
        }
    }
}

type FieldResult = Result<Value, (Value, String)>;

fn field(path_text: &str, op: FieldOp, expected: &Value, resp: &Response) -> FieldResult {
    let path = FieldPath::parse(path_text).map_err(|e| (Value::Null, e.to_string()))?;
    let text_body;
    let body = match &resp.json {
        Ok(v) => Some(v),
        Err(_) if path.is_root() && resp.text.trim().is_empty() => None,
        Err(_) if path.is_root() => {
            text_body = Value::String(resp.text.clone());
            Some(&text_body)
        }
        Err(why) => return Err((Value::Null, format!("{why}; cannot read `{path}`"))),
    };
    let Some(body) = body else {
        return check_one(op, expected, None, "body");
    };
    let matches = path.resolve(body).map_err(|e| (Value::Null, e))?;
    if !path.has_wildcard() {
        let m = &matches[0];
        let at = if m.at.is_empty() {
            "body"
        } else {
            m.at.as_str()
        };
        return check_one(op, expected, m.value, at);
    }
    if matches.is_empty() {
        return Err((
            Value::Array(vec![]),
            format!("`{path}` matched no elements (an empty list fails a `[*]` assertion)"),
        ));
    }
    let actual = Value::Array(
        matches
            .iter()
            .map(|m| m.value.cloned().unwrap_or(Value::Null))
            .collect(),
    );
    for m in &matches {
        if let Err((_, msg)) = check_one(op, expected, m.value, &m.at) {
            return Err((actual, msg));
        }
    }
    Ok(actual)
}

fn check_one(op: FieldOp, expected: &Value, actual: Option<&Value>, at: &str) -> FieldResult {
    let shown = actual.cloned().unwrap_or(Value::Null);
    let fail = |detail: String| Err((shown.clone(), format!("{detail} at {at}")));
    let want = describe(op, expected);
    let Some(value) = actual else {
        return if op == FieldOp::IsNull {
            Ok(Value::Null)
        } else {
            fail(format!("expected {want}, but the field is missing"))
        };
    };
    let got = || format!("expected {want}, got {}", short(value));
    match op {
        FieldOp::IsNull => {
            if value.is_null() {
                Ok(shown)
            } else {
                fail(got())
            }
        }
        FieldOp::NotNull => {
            if value.is_null() {
                fail(got())
            } else {
                Ok(shown)
            }
        }
        FieldOp::Equals | FieldOp::NotEquals => {
            if loose_eq(value, expected) == (op == FieldOp::Equals) {
                Ok(shown)
            } else {
                fail(got())
            }
        }
        FieldOp::Gt | FieldOp::Gte | FieldOp::Lt | FieldOp::Lte => {
            let (Some(a), Some(b)) = (as_number(value), as_number(expected)) else {
                return fail(format!("{}, which is not a number", got()));
            };
            if compare(op, a, b) {
                Ok(shown)
            } else {
                fail(got())
            }
        }
        FieldOp::Matches => {
            let Some(pattern) = expected.as_str() else {
                return fail(format!("`matches` needs a regex string, got {expected}"));
            };
            let re = match regex::Regex::new(pattern) {
                Ok(re) => re,
                Err(e) => return fail(format!("invalid regex {pattern:?}: {e}")),
            };
            if re.is_match(&string_form(value)) {
                Ok(shown)
            } else {
                fail(got())
            }
        }
        FieldOp::Type => {
            let name = expected.as_str().unwrap_or_default();
            if type_matches(name, value) {
                Ok(shown)
            } else {
                fail(format!("expected type {name}, got {}", kind(value)))
            }
        }
        FieldOp::Contains => {
            let ok = match value {
                Value::String(s) => s.contains(&string_form(expected)),
                Value::Array(items) => items.iter().any(|i| loose_eq(i, expected)),
                Value::Object(map) => map.contains_key(&string_form(expected)),
                _ => {
                    return fail(format!(
                        "{}, which is {} (cannot contain)",
                        got(),
                        kind(value)
                    ));
                }
            };
            if ok { Ok(shown) } else { fail(got()) }
        }
        FieldOp::Length => {
            let len = match value {
                Value::String(s) => s.chars().count(),
                Value::Array(a) => a.len(),
                Value::Object(o) => o.len(),
                _ => return fail(format!("expected {want}, got {} (no length)", kind(value))),
            };
            let (cmp, bound) = match length_spec(expected) {
                Ok(spec) => spec,
                Err(e) => return fail(e),
            };
            let ok = match cmp {
                FieldOp::Equals => len as f64 == bound,
                FieldOp::NotEquals => len as f64 != bound,
                other => compare(other, len as f64, bound),
            };
            if ok {
                Ok(shown)
            } else {
                fail(format!("expected {want}, got length {len}"))
            }
        }
    }
}

/// JSON equality with the documented number coercions, recursively.
pub fn loose_eq(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => num_eq(x, y),
        (Value::Number(x), Value::String(s)) | (Value::String(s), Value::Number(x)) => {
            match serde_json::from_str::<Value>(s.trim()) {
                Ok(Value::Number(y)) if !s.trim().is_empty() => num_eq(x, &y),
                _ => false,
            }
        }
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| loose_eq(p, q))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| loose_eq(v, w)))
        }
        _ => a == b,
    }
}

/// Numbers are kept exactly as written (serde_json's `arbitrary_precision`), so `1` and
/// `1.0` are different texts with one value: equal texts are equal, then integers compare
/// exactly, then anything else as f64.
fn num_eq(x: &serde_json::Number, y: &serde_json::Number) -> bool {
    if x.to_string() == y.to_string() {
        return true;
    }
    match (x.as_i64(), y.as_i64(), x.as_u64(), y.as_u64()) {
        (Some(a), Some(b), _, _) => a == b,
        (_, _, Some(a), Some(b)) => a == b,
        _ => x.as_f64() == y.as_f64(),
    }
}

fn as_number(v: &Value) -> Option<f64> {
    match v {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => match serde_json::from_str::<Value>(s.trim()) {
            Ok(Value::Number(n)) => n.as_f64(),
            _ => None,
        },
        _ => None,
    }
}

fn compare(op: FieldOp, a: f64, b: f64) -> bool {
    match op {
        FieldOp::Gt => a > b,
        FieldOp::Gte => a >= b,
        FieldOp::Lt => a < b,
        FieldOp::Lte => a <= b,
        FieldOp::Equals => a == b,
        FieldOp::NotEquals => a != b,
        _ => false,
    }
}

fn type_matches(name: &str, v: &Value) -> bool {
    match name {
        "string" => v.is_string(),
        "number" => v.is_number(),
        "integer" => v.is_i64() || v.is_u64() || v.as_f64().is_some_and(|f| f.fract() == 0.0),
        "boolean" => v.is_boolean(),
        "object" => v.is_object(),
        "array" => v.is_array(),
        "null" => v.is_null(),
        _ => false,
    }
}

/// Parses a `length` expectation: a number, or `{"op": ..., "value": n}`.
fn length_spec(expected: &Value) -> Result<(FieldOp, f64), String> {
    if let Some(n) = as_number(expected) {
        return Ok((FieldOp::Equals, n));
    }
    let bad = || {
        format!(
            "`length` expects a number or {{\"op\": \"gte\", \"value\": 1}} \
             (op: equals|not_equals|gt|gte|lt|lte), got {expected}"
        )
    };
    let obj = expected.as_object().ok_or_else(bad)?;
    let op: FieldOp = obj
        .get("op")
        .cloned()
        .and_then(|o| serde_json::from_value(o).ok())
        .ok_or_else(bad)?;
    if !matches!(
        op,
        FieldOp::Equals
            | FieldOp::NotEquals
            | FieldOp::Gt
            | FieldOp::Gte
            | FieldOp::Lt
            | FieldOp::Lte
    ) {
        return Err(bad());
    }
    let value = obj.get("value").and_then(as_number).ok_or_else(bad)?;
    Ok((op, value))
}

/// The string form used by `matches` and `contains`: strings as is, the rest as JSON.
pub fn string_form(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// The op's name as written in oracle files.
pub fn op_name(op: FieldOp) -> String {
    serde_json::to_value(op)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default()
}

fn describe(op: FieldOp, expected: &Value) -> String {
    match op {
        FieldOp::Equals => short(expected),
        FieldOp::NotEquals => format!("not {}", short(expected)),
        FieldOp::NotNull => "a non-null value".to_string(),
        FieldOp::IsNull => "null".to_string(),
        FieldOp::Gt => format!("> {}", short(expected)),
        FieldOp::Gte => format!(">= {}", short(expected)),
        FieldOp::Lt => format!("< {}", short(expected)),
        FieldOp::Lte => format!("<= {}", short(expected)),
        FieldOp::Matches => format!("a match for /{}/", string_form(expected)),
        FieldOp::Type => format!("type {}", string_form(expected)),
        FieldOp::Contains => format!("something containing {}", short(expected)),
        FieldOp::Length => match length_spec(expected) {
            Ok((FieldOp::Equals, n)) => format!("length {n}"),
            Ok((o, n)) => format!("length {} {n}", op_name(o)),
            Err(_) => format!("length {expected}"),
        },
    }
}

/// A value for a one-line message: JSON text, cut at 80 characters.
pub fn short(v: &Value) -> String {
    let s = v.to_string();
    if s.chars().count() > 80 {
        let cut: String = s.chars().take(77).collect();
        format!("{cut}...")
    } else {
        s
    }
}
