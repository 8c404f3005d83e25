//! Request-building rules shared by the exporters: path-template substitution, URL
//! encoding, the string form of a JSON value, and `$captures.<name>` references.
//!
//! These are the export-time halves of the runner's semantics; the response-side halves
//! (field paths, comparison operators) live in the generated Java and JavaScript support
//! code, because they run where the exported suite runs. Nothing here performs I/O.

use super::ExportError;
use crate::model::{MultiOpOracle, OracleInput};
use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};
use serde_json::Value;

/// Everything but RFC 3986 unreserved characters is percent-encoded in path and query parts.
const COMPONENT: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~');

/// A capture reference anywhere in a string: the oracle language's one bind grammar.
pub use crate::oracle::binds::REFERENCE as CAPTURE_RE;

/// Percent-encodes one path segment or query component (UTF-8, unreserved kept).
pub fn encode_component(text: &str) -> String {
    utf8_percent_encode(text, COMPONENT).to_string()
}

/// The string form of a value as it travels in a URL, header or text splice: strings as
/// they are, everything else as its JSON text.
pub fn string_form(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// If the whole string is one capture reference (`"$captures.id"`), its name: such a value
/// is replaced by the captured JSON value with its type kept.
pub fn whole_capture(text: &str) -> Option<&str> {
    let name = text.strip_prefix("$captures.")?;
    (!name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-'))
    .then_some(name)
}

/// Names of the `{placeholders}` in a path template, in order.
pub fn template_params(template: &str) -> Vec<&str> {
    let mut names = Vec::new();
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        let after = &rest[open + 1..];
        match after.find('}') {
            Some(close) => {
                names.push(&after[..close]);
                rest = &after[close + 1..];
            }
            None => break,
        }
    }
    names
}

/// Checks that every placeholder of the template has a value in the input, so that no
/// exported request goes out with a literal `{id}` in its URL.
pub fn check_path_params(
    o_id: &str,
    template: &str,
    input: &OracleInput,
) -> Result<(), ExportError> {
    let missing: Vec<&str> = template_params(template)
        .into_iter()
        .filter(|name| !input.path.contains_key(*name) && !input.path_raw.contains_key(*name))
        .collect();
    if missing.is_empty() {
        Ok(())
    } else {
        Err(ExportError::BadOracle {
            o_id: o_id.to_string(),
            reason: format!(
                "path template '{template}' needs {} but the input has no value for it",
                missing.join(", ")
            ),
        })
    }
}

/// Substitutes path values into the template; `render` turns each `path` value into the
/// text that goes into the URL (encoded literal, or a variable reference), `render_raw`
/// each verbatim `path_raw` value (never encoded again, as the runner sends it).
pub fn substitute_path(
    template: &str,
    input: &OracleInput,
    render: impl Fn(&Value) -> String,
    render_raw: impl Fn(&str) -> String,
) -> String {
    let mut out = template.to_string();
    for (name, value) in &input.path {
        out = out.replace(&format!("{{{name}}}"), &render(value));
    }
    for (name, raw) in &input.path_raw {
        out = out.replace(&format!("{{{name}}}"), &render_raw(raw));
    }
    out
}

/// Query pairs in order; an array value repeats its key once per element, a null is left
/// out (as the runner does).
pub fn query_pairs(input: &OracleInput) -> Vec<(&str, &Value)> {
    let mut pairs = Vec::new();
    for (name, value) in &input.query {
        match value {
            Value::Array(items) => pairs.extend(items.iter().map(|v| (name.as_str(), v))),
            Value::Null => {}
            other => pairs.push((name.as_str(), other)),
        }
    }
    pairs
}

/// The o_id of one step of a multi-op oracle (1-based step number).
pub fn step_o_id(multi: &MultiOpOracle, index: usize) -> String {
    format!("{}#{}", multi.o_id(), index + 1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn encodes_reserved_and_unicode() {
        assert_eq!(encode_component("a b/c?d"), "a%20b%2Fc%3Fd");
        assert_eq!(encode_component("é-_.~"), "%C3%A9-_.~");
    }

    #[test]
    fn string_form_keeps_strings_raw() {
        assert_eq!(string_form(&json!("x y")), "x y");
        assert_eq!(string_form(&json!(10)), "10");
        assert_eq!(string_form(&json!({"a": 1})), r#"{"a":1}"#);
    }

    #[test]
    fn whole_capture_only_for_exact_reference() {
        assert_eq!(whole_capture("$captures.pet_id"), Some("pet_id"));
        assert_eq!(whole_capture("/x/$captures.pet_id"), None);
        assert_eq!(whole_capture("$captures."), None);
    }

    #[test]
    fn template_and_substitution() {
        let input = OracleInput {
            path: [("id".to_string(), json!("a b"))].into(),
            ..Default::default()
        };
        assert_eq!(template_params("/p/{id}/q/{x}"), vec!["id", "x"]);
        assert!(check_path_params("o", "/p/{id}/q/{x}", &input).is_err());
        assert!(check_path_params("o", "/p/{id}", &input).is_ok());
        let url = substitute_path(
            "/p/{id}",
            &input,
            |v| encode_component(&string_form(v)),
            str::to_string,
        );
        assert_eq!(url, "/p/a%20b");
        let raw = OracleInput {
            path_raw: [("id".to_string(), "a%2Bb".to_string())].into(),
            ..Default::default()
        };
        assert!(check_path_params("o", "/p/{id}", &raw).is_ok());
        let url = substitute_path("/p/{id}", &raw, |_| unreachable!(), str::to_string);
        assert_eq!(url, "/p/a%2Bb");
    }

    #[test]
    fn query_arrays_repeat_the_key() {
        let input = OracleInput {
            query: [("t".to_string(), json!(["a", "b"]))].into(),
            ..Default::default()
        };
        let pairs = query_pairs(&input);
        assert_eq!(pairs.len(), 2);
        assert_eq!(pairs[1], ("t", &json!("b")));
    }
}
