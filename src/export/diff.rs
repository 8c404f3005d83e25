//! Field-level differences between an oracle as generated and as a reviewer edited it,
//! for the readable export: `assertions[1].expected: 200 → 404` says what a reviewer
//! changed faster than two JSON blocks side by side.

use serde_json::Value;

/// One changed field: its path in the oracle and its value before and after (`None`:
/// absent on that side).
#[derive(Debug, Clone, PartialEq)]
pub struct Change {
    /// Dotted path with `[n]` indices, e.g. `assertions[1].expected`.
    pub path: String,
    pub before: Option<Value>,
    pub after: Option<Value>,
}

/// Every leaf that differs between `before` and `after`, in document order. Objects
/// are compared key by key, arrays index by index (an element added or removed at the
/// end is one change), anything else as a whole.
pub fn changes(before: &Value, after: &Value) -> Vec<Change> {
    let mut out = Vec::new();
    walk("", Some(before), Some(after), &mut out);
    out
}

fn walk(path: &str, before: Option<&Value>, after: Option<&Value>, out: &mut Vec<Change>) {
    match (before, after) {
        (Some(Value::Object(a)), Some(Value::Object(b))) => {
            let mut keys: Vec<&String> = a.keys().collect();
            keys.extend(b.keys().filter(|k| !a.contains_key(*k)));
            for k in keys {
                let p = if path.is_empty() {
                    k.clone()
                } else {
                    format!("{path}.{k}")
                };
                walk(&p, a.get(k), b.get(k), out);
            }
        }
        (Some(Value::Array(a)), Some(Value::Array(b))) => {
            for i in 0..a.len().max(b.len()) {
                walk(&format!("{path}[{i}]"), a.get(i), b.get(i), out);
            }
        }
        (a, b) if a == b => {}
        (a, b) => out.push(Change {
            path: if path.is_empty() {
                "(whole)".into()
            } else {
                path.to_string()
            },
            before: a.cloned(),
            after: b.cloned(),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn leaves_that_differ_with_their_paths() {
        let a = json!({"description": "x", "assertions": [
            {"type": "status", "expected": 200},
            {"type": "field", "field_path": "id", "op": "not_null"}]});
        let b = json!({"description": "x", "assertions": [
            {"type": "status", "expected": 404}], "fresh_state": true});
        let c = changes(&a, &b);
        let paths: Vec<&str> = c.iter().map(|c| c.path.as_str()).collect();
        assert_eq!(
            paths,
            ["assertions[0].expected", "assertions[1]", "fresh_state"]
        );
        assert_eq!(c[0].before, Some(json!(200)));
        assert_eq!(c[0].after, Some(json!(404)));
        assert_eq!(c[1].after, None);
        assert_eq!(c[2].before, None);
        assert!(changes(&a, &a).is_empty());
    }
}
