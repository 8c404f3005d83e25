//! Captures and binds of multi-operation oracles.
//!
//! A step names response fields to capture (`{"id": "id"}`); later steps refer to them as
//! `"$captures.<name>"` anywhere in their input or expected values. A string that is
//! exactly one reference takes the captured value with its JSON type (so `"$captures.id"`
//! becomes the number `4`); a reference inside a longer string is spliced in as text
//! (strings without quotes, other values as JSON). Names are letters, digits, `_` and `-`.
//!
//! An expected value may also be relative to a capture: `{"$capture": "<name>", "plus": 3}`
//! is the captured number plus 3 ("ticketsSold after three purchases is the value before
//! plus 3"); `plus` is an integer (negative to subtract) and defaults to 0. Nothing more: no
//! expression language.
//!
//! Capture paths are field paths into the response body (`runner::path`); the prefix
//! `header:` reads a response header instead (`header:Location`), for tokens and created
//! resource URLs. This module does not send requests.

use crate::oracle::assert::string_form;
use crate::oracle::path::FieldPath;
use serde_json::Value;
use std::collections::BTreeMap;
use std::sync::LazyLock;

/// Captured values by name.
pub type Captures = BTreeMap<String, Value>;

/// The one grammar of a bind: `$captures.<name>`, names of letters, digits, `_` and `-`
/// (`$captures.pet.id` names `pet`). Normalization, the runner and the exporters all use
/// this pattern; the JavaScript and Java support files repeat it (tested against it).
pub static REFERENCE: LazyLock<regex::Regex> = LazyLock::new(|| {
    regex::Regex::new(r"\$captures\.([A-Za-z0-9_-]+)").expect("the capture pattern is valid")
});

/// Names bound with `$captures.<name>` anywhere in `value` (strings at any depth,
/// including inside longer strings like `"/pets/$captures.id"`), in order of first
/// appearance, without repeats.
pub fn find_captures(value: &Value) -> Vec<String> {
    let mut all = Vec::new();
    references(value, &mut all);
    let mut out: Vec<String> = Vec::with_capacity(all.len());
    for name in all {
        if !out.contains(&name) {
            out.push(name);
        }
    }
    out
}

/// The key that marks a value relative to a capture.
pub const OFFSET_KEY: &str = "$capture";

/// `{"$capture": "<name>", "plus": <integer>}` read as (name, offset); `None` for any other
/// value. An object with the key but another shape is an error, so a typo is not taken for
/// a literal expected object.
pub fn offset_ref(value: &Value) -> Option<Result<(&str, i64), String>> {
    let map = value.as_object()?;
    let name = map.get(OFFSET_KEY)?;
    let shape =
        || format!("`{value}` is not {{\"{OFFSET_KEY}\": \"<name>\", \"plus\": <integer>}}");
    let Some(name) = name.as_str().filter(|n| {
        !n.is_empty()
            && n.chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
    }) else {
        return Some(Err(shape()));
    };
    if map.keys().any(|k| k != OFFSET_KEY && k != "plus") {
        return Some(Err(shape()));
    }
    match map.get("plus") {
        None => Some(Ok((name, 0))),
        Some(p) => Some(p.as_i64().map(|n| (name, n)).ok_or_else(shape)),
    }
}

/// The captured number `name` plus `plus`; Err says why it is no number.
fn offset_value(name: &str, plus: i64, captures: &Captures) -> Result<Value, String> {
    let v = captures.get(name).ok_or_else(|| name.to_string())?;
    let n = match v {
        Value::Number(n) => n.as_i64().map(|i| i as f64).or_else(|| n.as_f64()),
        Value::String(s) => s.trim().parse::<f64>().ok(),
        _ => None,
    };
    let Some(n) = n else {
        return Err(format!(
            "capture `{name}` holds {v}, which is not a number to add {plus} to"
        ));
    };
    let sum = n + plus as f64;
    Ok(if sum.fract() == 0.0 && sum.abs() < 9.0e15 {
        Value::from(sum as i64)
    } else {
        serde_json::Number::from_f64(sum).map_or(Value::Null, Value::Number)
    })
}

/// Replaces every `$captures.<name>` in `value`, and every capture-relative value. Err
/// names the first capture that is not available, so the caller can skip the step with
/// that reason.
pub fn substitute(value: &Value, captures: &Captures) -> Result<Value, String> {
    if let Some(r) = offset_ref(value) {
        let (name, plus) = r?;
        return offset_value(name, plus, captures);
    }
    Ok(match value {
        Value::String(s) => substitute_str(s, captures)?,
        Value::Array(items) => Value::Array(
            items
                .iter()
                .map(|v| substitute(v, captures))
                .collect::<Result<_, _>>()?,
        ),
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(k, v)| Ok((k.clone(), substitute(v, captures)?)))
                .collect::<Result<_, String>>()?,
        ),
        other => other.clone(),
    })
}

fn substitute_str(s: &str, captures: &Captures) -> Result<Value, String> {
    if !s.contains("$captures.") {
        return Ok(Value::String(s.to_string()));
    }
    if let Some(m) = REFERENCE.captures(s)
        && m.get(0).is_some_and(|whole| whole.as_str() == s)
    {
        let name = &m[1];
        return captures.get(name).cloned().ok_or_else(|| name.to_string());
    }
    let mut out = String::with_capacity(s.len());
    let mut last = 0;
    for m in REFERENCE.captures_iter(s) {
        let (Some(whole), Some(name)) = (m.get(0), m.get(1)) else {
            continue;
        };
        let value = captures
            .get(name.as_str())
            .ok_or_else(|| name.as_str().to_string())?;
        out.push_str(&s[last..whole.start()]);
        out.push_str(&string_form(value));
        last = whole.end();
    }
    out.push_str(&s[last..]);
    Ok(Value::String(out))
}

/// Names of all captures a value refers to (for load-time checks and messages).
pub fn references(value: &Value, out: &mut Vec<String>) {
    if let Some(Ok((name, _))) = offset_ref(value) {
        out.push(name.to_string());
        return;
    }
    match value {
        Value::String(s) => {
            for m in REFERENCE.captures_iter(s) {
                out.push(m[1].to_string());
            }
        }
        Value::Array(items) => items.iter().for_each(|v| references(v, out)),
        Value::Object(map) => map.values().for_each(|v| references(v, out)),
        _ => {}
    }
}

/// Reads one capture from a response. `None` when the field (or header) is absent or the
/// body cannot be read; a `[*]` path captures the array of matches.
pub fn capture(
    path: &str,
    json: Option<&Value>,
    text: &str,
    headers: &BTreeMap<String, String>,
) -> Option<Value> {
    if let Some(name) = path.strip_prefix("header:") {
        let name = name.trim().to_ascii_lowercase();
        return headers.get(&name).map(|v| Value::String(v.clone()));
    }
    let path = FieldPath::parse(path).ok()?;
    let text_body;
    let body = match json {
        Some(v) => v,
        None if path.is_root() && !text.is_empty() => {
            text_body = Value::String(text.to_string());
            &text_body
        }
        None => return None,
    };
    let matches = path.resolve(body).ok()?;
    if path.has_wildcard() {
        Some(Value::Array(
            matches.iter().filter_map(|m| m.value.cloned()).collect(),
        ))
    } else {
        matches.first().and_then(|m| m.value.cloned())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn whole_reference_keeps_type_and_inner_reference_splices_text() {
        let caps: Captures = [("id".to_string(), json!(4)), ("n".to_string(), json!("Bo"))]
            .into_iter()
            .collect();
        assert_eq!(substitute(&json!("$captures.id"), &caps).unwrap(), json!(4));
        assert_eq!(
            substitute(
                &json!({"p": "/pets/$captures.id?n=$captures.n", "k": [1, "$captures.n"]}),
                &caps
            )
            .unwrap(),
            json!({"p": "/pets/4?n=Bo", "k": [1, "Bo"]})
        );
        assert_eq!(
            substitute(&json!("x $captures.gone"), &caps).unwrap_err(),
            "gone"
        );
    }

    #[test]
    fn captures_from_body_wildcards_and_headers() {
        let body = json!({"id": 7, "items": [{"n": 1}, {"n": 2}]});
        let headers: BTreeMap<String, String> = [("location".to_string(), "/pets/7".to_string())]
            .into_iter()
            .collect();
        assert_eq!(capture("id", Some(&body), "", &headers), Some(json!(7)));
        assert_eq!(
            capture("items[*].n", Some(&body), "", &headers),
            Some(json!([1, 2]))
        );
        assert_eq!(
            capture("header:Location", None, "", &headers),
            Some(json!("/pets/7"))
        );
        assert_eq!(capture("missing", Some(&body), "", &headers), None);
        assert_eq!(
            capture("", None, "token-1", &headers),
            Some(json!("token-1"))
        );
    }
}

#[cfg(test)]
mod offset_tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_value_relative_to_a_capture_is_the_captured_number_plus_the_offset() {
        let caps: Captures = [
            ("sold".to_string(), json!(7)),
            ("price".to_string(), json!("2.5")),
            ("name".to_string(), json!("Rex")),
        ]
        .into();
        let sub = |v: Value| substitute(&v, &caps);
        assert_eq!(sub(json!({"$capture": "sold", "plus": 3})), Ok(json!(10)));
        assert_eq!(sub(json!({"$capture": "sold", "plus": -7})), Ok(json!(0)));
        assert_eq!(sub(json!({"$capture": "sold"})), Ok(json!(7)));
        assert_eq!(sub(json!({"$capture": "price", "plus": 1})), Ok(json!(3.5)));
        assert_eq!(
            sub(json!([{"$capture": "sold", "plus": 1}])),
            Ok(json!([8]))
        );
        assert_eq!(
            sub(json!({"$capture": "gone", "plus": 1})),
            Err("gone".into())
        );
        assert!(
            sub(json!({"$capture": "name", "plus": 1}))
                .unwrap_err()
                .contains("not a number")
        );
        // A malformed offset is an error, never a literal object.
        assert!(sub(json!({"$capture": "sold", "plus": 1.5})).is_err());
        assert!(sub(json!({"$capture": "sold", "times": 2})).is_err());
        // Other objects are literal.
        assert_eq!(
            sub(json!({"capture": "sold"})),
            Ok(json!({"capture": "sold"}))
        );
        let mut refs = Vec::new();
        references(&json!({"a": {"$capture": "sold", "plus": 2}}), &mut refs);
        assert_eq!(refs, ["sold"]);
    }
}
