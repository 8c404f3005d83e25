//! Reads a spec file into a `serde_json::Value`, JSON or YAML.
//!
//! YAML is read through `serde_yaml_ng::Value` and converted by hand rather than
//! deserialized straight into `serde_json::Value`: YAML mapping keys such as `200:` are
//! integers, and JSON objects need string keys. This module does not look at the content.

use super::SpecError;
use serde_json::{Map, Number, Value};
use std::path::Path;

/// Reads and parses `path`. The parser is chosen by extension (`.json` → JSON,
/// `.yaml`/`.yml` → YAML); for other extensions a leading `{` selects JSON.
pub(crate) fn read_document(path: &Path) -> Result<Value, SpecError> {
    let text = std::fs::read_to_string(path).map_err(|source| SpecError::Io {
        file: path.to_path_buf(),
        source,
    })?;
    parse_text(path, &text)
}

/// Parses already-read text; `path` only chooses the format and names errors.
pub(crate) fn parse_text(path: &Path, text: &str) -> Result<Value, SpecError> {
    // Editors on Windows save UTF-8 with a byte order mark; neither parser accepts it.
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase);
    let json = match ext.as_deref() {
        Some("json") => true,
        Some("yaml" | "yml") => false,
        _ => text.trim_start().starts_with('{'),
    };
    if json {
        serde_json::from_str(text).map_err(|e| SpecError::Parse {
            file: path.to_path_buf(),
            format: "JSON",
            line: e.line(),
            column: e.column(),
            message: without_position(&e.to_string(), e.line(), e.column()),
        })
    } else {
        let yaml: serde_yaml_ng::Value = serde_yaml_ng::from_str(text).map_err(|e| {
            let (line, column) = e
                .location()
                .map(|l| (l.line(), l.column()))
                .unwrap_or((0, 0));
            SpecError::Parse {
                file: path.to_path_buf(),
                format: "YAML",
                line,
                column,
                message: without_position(&e.to_string(), line, column),
            }
        })?;
        Ok(yaml_to_json(yaml))
    }
}

/// The parser's message without its own "at line L column C" (the error shows it once).
fn without_position(message: &str, line: usize, column: usize) -> String {
    message.replace(&format!(" at line {line} column {column}"), "")
}

/// Converts a YAML value to JSON: non-string keys become their text, tags are dropped,
/// non-finite floats become `null` (JSON cannot hold them).
fn yaml_to_json(v: serde_yaml_ng::Value) -> Value {
    use serde_yaml_ng::Value as Y;
    match v {
        Y::Null => Value::Null,
        Y::Bool(b) => Value::Bool(b),
        Y::Number(n) => {
            if let Some(i) = n.as_i64() {
                Value::from(i)
            } else if let Some(u) = n.as_u64() {
                Value::from(u)
            } else {
                n.as_f64()
                    .and_then(Number::from_f64)
                    .map_or(Value::Null, Value::Number)
            }
        }
        Y::String(s) => Value::String(s),
        Y::Sequence(seq) => Value::Array(seq.into_iter().map(yaml_to_json).collect()),
        Y::Mapping(map) => {
            let mut out = Map::with_capacity(map.len());
            for (k, v) in map {
                out.insert(yaml_key(k), yaml_to_json(v));
            }
            Value::Object(out)
        }
        Y::Tagged(t) => yaml_to_json(t.value),
    }
}

/// The text of a mapping key as it would be written in JSON.
fn yaml_key(k: serde_yaml_ng::Value) -> String {
    match yaml_to_json(k) {
        Value::String(s) => s,
        Value::Null => "null".to_string(),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn yaml_integer_keys_become_strings() {
        let v = parse_text(
            Path::new("a.yaml"),
            "responses:\n  200:\n    description: ok\n",
        )
        .unwrap();
        assert_eq!(v["responses"]["200"]["description"], "ok");
    }

    #[test]
    fn unknown_extension_sniffs_json() {
        let v = parse_text(Path::new("a.txt"), "{\"a\": 1}").unwrap();
        assert_eq!(v["a"], 1);
        let v = parse_text(Path::new("a.txt"), "a: 2").unwrap();
        assert_eq!(v["a"], 2);
    }
}
