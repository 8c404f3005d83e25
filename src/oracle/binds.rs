//! Captures and binds of multi-operation oracles.
//!
//! A step names response fields to capture (`{"id": "id"}`); later steps refer to them as
//! `"$captures.<name>"` anywhere in their input or expected values. A string that is
//! exactly one reference takes the captured value with its JSON type (so `"$captures.id"`
//! becomes the number `4`); a reference inside a longer string is spliced in as text
//! (strings without quotes, other values as JSON). Names are letters, digits, `_` and `-`.
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

/// Replaces every `$captures.<name>` in `value`. Err names the first capture that is not
/// available, so the caller can skip the step with that reason.
pub fn substitute(value: &Value, captures: &Captures) -> Result<Value, String> {
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
