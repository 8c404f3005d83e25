use super::*;
use serde_json::json;

fn ok(text: &str) -> Extracted {
    extract_json(text).unwrap_or_else(|e| panic!("{text:?}: {e}"))
}

#[test]
fn clean_json_needs_no_repair() {
    let e = ok(r#"{"a": 1, "b": [true, null]}"#);
    assert_eq!(e.value, json!({"a": 1, "b": [true, null]}));
    assert!(e.repairs.is_empty());
}

#[test]
fn code_fence_with_language() {
    let e = ok("Here you go:\n```json\n{\"a\": 1}\n```\nThanks!");
    assert_eq!(e.value, json!({"a": 1}));
    assert_eq!(e.repairs, vec!["code fence"]);
}

#[test]
fn code_fence_without_language_and_unclosed() {
    assert_eq!(ok("```\n[1, 2]\n```").value, json!([1, 2]));
    assert_eq!(ok("```json\n{\"a\": [1, 2").value, json!({"a": [1, 2]}));
}

#[test]
fn leading_and_trailing_prose() {
    let e = ok("Sure! The result is {\"x\": \"y\"} and that is all.");
    assert_eq!(e.value, json!({"x": "y"}));
    assert!(e.repairs.contains(&"leading prose".to_string()));
    assert!(e.repairs.contains(&"trailing prose".to_string()));
}

#[test]
fn bracket_in_prose_is_skipped() {
    let e = ok("Result [see below]: {\"ok\": true}");
    assert_eq!(e.value, json!({"ok": true}));
}

#[test]
fn trailing_commas() {
    let e = ok(r#"{"a": [1, 2, ], "b": {"c": 1,},}"#);
    assert_eq!(e.value, json!({"a": [1, 2], "b": {"c": 1}}));
    assert!(e.repairs.contains(&"trailing comma".to_string()));
}

#[test]
fn single_quotes() {
    let e = ok(r#"{'name': 'alpha', 'n': 2}"#);
    assert_eq!(e.value, json!({"name": "alpha", "n": 2}));
    assert!(e.repairs.contains(&"single quotes".to_string()));
}

#[test]
fn double_quote_inside_single_quoted_string_is_escaped() {
    assert_eq!(ok(r#"{'q': 'say "hi"'}"#).value, json!({"q": "say \"hi\""}));
}

#[test]
fn apostrophe_inside_double_quotes_is_kept() {
    assert_eq!(ok(r#"x {"q": "don't", }"#).value, json!({"q": "don't"}));
}

#[test]
fn python_literals() {
    let e = ok("{\"a\": True, \"b\": False, \"c\": None,}");
    assert_eq!(e.value, json!({"a": true, "b": false, "c": null}));
}

#[test]
fn truncated_in_string() {
    let e = ok(r#"{"items": [{"id": 1, "name": "fir"#);
    assert_eq!(e.value, json!({"items": [{"id": 1, "name": "fir"}]}));
    assert!(e.repairs.contains(&"closed truncated tail".to_string()));
}

#[test]
fn truncated_after_comma_and_colon() {
    assert_eq!(
        ok(r#"{"a": 1, "b": [1, 2,"#).value,
        json!({"a": 1, "b": [1, 2]})
    );
    assert_eq!(ok(r#"{"a": 1, "b":"#).value, json!({"a": 1, "b": null}));
    assert_eq!(ok(r#"{"a": 1, "b""#).value, json!({"a": 1, "b": null}));
    assert_eq!(ok(r#"{"a": 1,"#).value, json!({"a": 1}));
}

#[test]
fn truncated_inside_literal() {
    assert_eq!(ok(r#"{"a": tru"#).value, json!({"a": null}));
    assert_eq!(ok(r#"{"a": 12"#).value, json!({"a": 12}));
    assert_eq!(ok(r#"[1, 2.5, 3."#).value, json!([1, 2.5, null]));
}

#[test]
fn truncated_after_escape() {
    assert_eq!(ok(r#"{"a": "x\"#).value, json!({"a": "x"}));
}

#[test]
fn raw_newline_in_string() {
    let e = ok("{\"a\": \"line1\nline2\"}");
    assert_eq!(e.value, json!({"a": "line1\nline2"}));
}

#[test]
fn think_block_removed() {
    let e = ok("<think>maybe {\"no\": 1}</think>\n{\"yes\": 2}");
    assert_eq!(e.value, json!({"yes": 2}));
}

#[test]
fn unquoted_keys() {
    assert_eq!(ok("{a: 1, b_c: \"x\"}").value, json!({"a": 1, "b_c": "x"}));
}

#[test]
fn comments_dropped() {
    assert_eq!(
        ok("{\n\"a\": 1, // one\n\"b\": 2\n}").value,
        json!({"a": 1, "b": 2})
    );
}

#[test]
fn top_level_array() {
    assert_eq!(
        ok("Oracles:\n[{\"t\": 1}, {\"t\": 2}]").value,
        json!([{"t": 1}, {"t": 2}])
    );
}

#[test]
fn empty_and_prose_only_fail_clearly() {
    assert!(extract_json("   ").unwrap_err().reason.contains("empty"));
    let e = extract_json("I cannot help with that.").unwrap_err();
    assert!(e.reason.contains("no JSON"), "{}", e.reason);
}

#[test]
fn hopeless_text_quotes_parser_error() {
    let e = extract_json("{\"a\" 1 2 3}").unwrap_err();
    assert!(e.reason.contains("expected"), "{}", e.reason);
}

#[test]
fn nested_truncation_closes_in_order() {
    let e = ok(r#"{"a": {"b": [{"c": "d"}, {"e": ["#);
    assert_eq!(e.value, json!({"a": {"b": [{"c": "d"}, {"e": []}]}}));
}

#[test]
fn brackets_inside_strings_do_not_count() {
    let e = ok(r#"text {"re": "^[a-z]{3}$", "n": "}"} tail"#);
    assert_eq!(e.value, json!({"re": "^[a-z]{3}$", "n": "}"}));
}
