//! Unit tests of assertion semantics: every op passing and failing, coercions, wildcards.

use crate::model::{Assertion, FieldOp, Outcome};
use crate::runner::assert::{Response, evaluate, validate};
use serde_json::{Value, json};

fn field(path: &str, op: FieldOp, expected: Value) -> Assertion {
    Assertion::Field {
        field_path: path.to_string(),
        op,
        expected,
    }
}

fn outcome(body: &str, a: &Assertion) -> (Outcome, String) {
    let v = evaluate(0, a, &Response::new(200, body.to_string()));
    (v.outcome, v.message)
}

/// (path, op, expected) that must pass, and one that must fail, on the same body.
fn check(body: &str, pass: (&str, FieldOp, Value), fail: (&str, FieldOp, Value)) {
    let (o, m) = outcome(body, &field(pass.0, pass.1, pass.2.clone()));
    assert_eq!(o, Outcome::Pass, "{pass:?} should pass: {m}");
    let (o, m) = outcome(body, &field(fail.0, fail.1, fail.2.clone()));
    assert_eq!(o, Outcome::Fail, "{fail:?} should fail");
    assert!(m.contains(" at "), "message names the path: {m}");
}

const PET: &str = r#"{"id":1,"name":"Rex","age":3,"ratio":2.5,"tags":["a","b"],"owner":null,"meta":{"k":1},"n":"42"}"#;

#[test]
fn equality_ops_with_number_coercions() {
    use FieldOp::*;
    check(
        PET,
        ("name", Equals, json!("Rex")),
        ("name", Equals, json!("Tom")),
    );
    check(PET, ("id", Equals, json!(1.0)), ("id", Equals, json!(2)));
    check(
        PET,
        ("age", Equals, json!("3")),
        ("age", Equals, json!("3x")),
    );
    check(PET, ("n", Equals, json!(42)), ("n", Equals, json!(41)));
    check(
        PET,
        ("tags", Equals, json!(["a", "b"])),
        ("tags", Equals, json!(["b", "a"])),
    );
    check(
        PET,
        ("name", NotEquals, json!("Tom")),
        ("name", NotEquals, json!("Rex")),
    );
    check(
        PET,
        ("id", NotEquals, json!("2")),
        ("id", NotEquals, json!("1")),
    );
    // "true" is not coerced to a boolean.
    check(
        r#"{"b":true}"#,
        ("b", Equals, json!(true)),
        ("b", Equals, json!("true")),
    );
    // The paper's whole-body number written as a string.
    check("10", ("", Equals, json!("10")), ("", Equals, json!("11")));
}

#[test]
fn null_ops_and_missing_fields() {
    use FieldOp::*;
    check(
        PET,
        ("owner", IsNull, Value::Null),
        ("name", IsNull, Value::Null),
    );
    check(
        PET,
        ("missing", IsNull, Value::Null),
        ("missing", NotNull, Value::Null),
    );
    check(
        PET,
        ("name", NotNull, Value::Null),
        ("owner", NotNull, Value::Null),
    );
    let (_, m) = outcome(PET, &field("missing", Equals, json!(1)));
    assert!(m.contains("missing"), "{m}");
}

#[test]
fn ordering_ops_take_numbers_and_numeric_strings() {
    use FieldOp::*;
    check(PET, ("age", Gt, json!(2)), ("age", Gt, json!(3)));
    check(PET, ("age", Gte, json!("3")), ("age", Gte, json!(3.5)));
    check(PET, ("ratio", Lt, json!(3)), ("ratio", Lt, json!(2.5)));
    check(PET, ("n", Lte, json!(42)), ("n", Lte, json!(41)));
    let (o, m) = outcome(PET, &field("name", Gt, json!(1)));
    assert_eq!(o, Outcome::Fail);
    assert!(m.contains("not a number"), "{m}");
}

#[test]
fn matches_type_contains_length() {
    use FieldOp::*;
    check(
        PET,
        ("name", Matches, json!("^R.x$")),
        ("name", Matches, json!("^x")),
    );
    check(
        PET,
        ("id", Matches, json!("^[0-9]+$")),
        ("id", Matches, json!("[a-z]")),
    );
    check(
        PET,
        ("age", Type, json!("integer")),
        ("ratio", Type, json!("integer")),
    );
    check(
        PET,
        ("ratio", Type, json!("number")),
        ("name", Type, json!("number")),
    );
    check(
        PET,
        ("owner", Type, json!("null")),
        ("meta", Type, json!("array")),
    );
    check(
        PET,
        ("meta", Type, json!("object")),
        ("tags", Type, json!("string")),
    );
    check(
        PET,
        ("name", Contains, json!("ex")),
        ("name", Contains, json!("om")),
    );
    check(
        PET,
        ("tags", Contains, json!("b")),
        ("tags", Contains, json!("c")),
    );
    check(
        PET,
        ("meta", Contains, json!("k")),
        ("meta", Contains, json!("j")),
    );
    check(PET, ("name", Length, json!(3)), ("name", Length, json!(4)));
    check(
        PET,
        ("tags", Length, json!({"op": "gte", "value": 1})),
        ("tags", Length, json!({"op": "gt", "value": 2})),
    );
    check(
        PET,
        ("meta", Length, json!(1)),
        ("meta", Length, json!({"op": "lt", "value": 1})),
    );
}

#[test]
fn wildcards_need_every_element_and_a_non_empty_list() {
    use FieldOp::*;
    let list = r#"[{"id":1,"t":"a"},{"id":2,"t":"b"}]"#;
    check(list, ("[*].id", Gt, json!(0)), ("[*].id", Gt, json!(1)));
    check(
        list,
        ("[1].t", Equals, json!("b")),
        ("[0].t", Equals, json!("b")),
    );
    let (o, m) = outcome(list, &field("[*].id", Gt, json!(1)));
    assert_eq!(o, Outcome::Fail);
    assert!(m.contains("[0].id"), "names the failing element: {m}");
    let (o, m) = outcome("[]", &field("[*].id", NotNull, Value::Null));
    assert_eq!(o, Outcome::Fail);
    assert!(m.contains("no elements"), "{m}");
}

#[test]
fn non_json_body_fails_field_assertions_with_the_reason() {
    let (o, m) = outcome(
        "<html>oops</html>",
        &field("id", FieldOp::NotNull, Value::Null),
    );
    assert_eq!(o, Outcome::Fail);
    assert!(m.contains("not JSON"), "{m}");
    let (o, m) = outcome("", &field("id", FieldOp::NotNull, Value::Null));
    assert_eq!(o, Outcome::Fail);
    assert!(m.contains("empty"), "{m}");
    // The whole body of a text response is a string.
    let (o, _) = outcome("pong", &field("", FieldOp::Equals, json!("pong")));
    assert_eq!(o, Outcome::Pass);
}

#[test]
fn status_assertion_message() {
    let v = evaluate(
        0,
        &Assertion::Status { expected: 200 },
        &Response::new(404, String::new()),
    );
    assert_eq!(v.outcome, Outcome::Fail);
    assert_eq!(v.message, "expected 200, got 404 at status");
    assert_eq!((v.expected, v.actual), (json!(200), json!(404)));
}

#[test]
fn validation_rejects_malformed_assertions() {
    use FieldOp::*;
    for bad in [
        field("a..b", Equals, json!(1)),
        field("a", Matches, json!("(")),
        field("a", Matches, json!(1)),
        field("a", Type, json!("str")),
        field("a", Gt, json!("x")),
        field("a", Length, json!({"op": "matches", "value": 1})),
        field("a", Length, json!("long")),
    ] {
        assert!(validate(&bad).is_err(), "{bad:?} should be rejected");
    }
    assert!(validate(&field("a[*].b", Length, json!({"op": "gte", "value": 1}))).is_ok());
}
