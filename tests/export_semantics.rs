//! The assertion semantics of the generated support code, case by case: the same table of
//! (response body, field path, operator, expected value) runs through mastor's own runner
//! (`runner::assert`), the exported Java `MastorAssert` (javac + java, Jackson) and the
//! Postman script library (node), and all three must give the outcome the rules say. This
//! pins the exports to the runner, without a live API.
//!
//! Needs what scripts/setup.sh installs (Jackson jars; node comes with npm).

mod export_common;

use export_common::*;
use mastor::export::{self, ExportInput, Format, Selection};
use mastor::model::{Assertion, FieldOp, Outcome};
use mastor::runner::assert::{Response, evaluate};
use serde_json::{Value, json};
use std::process::Command;

/// (body text, field path, op, expected, holds?)
fn cases() -> Vec<(&'static str, &'static str, &'static str, Value, bool)> {
    vec![
        // equals: numbers numerically, numeric-string expectation by the number's text.
        (r#"{"a":10}"#, "a", "equals", json!(10.0), true),
        (r#"{"a":10}"#, "a", "equals", json!("10"), true),
        (r#"{"a":10}"#, "a", "equals", json!("10.0"), true),
        (r#"{"a":"10"}"#, "a", "equals", json!(10), true),
        (r#"{"a":"ten"}"#, "a", "equals", json!(10), false),
        (r#"{"a":true}"#, "a", "equals", json!("true"), false),
        ("[1,2]", "", "contains", json!("2"), true),
        (
            r#"{"a":{"x":1,"y":[1,2]}}"#,
            "a",
            "equals",
            json!({"y": [1.0, 2], "x": 1}),
            true,
        ),
        (r#"{"a":[1,2]}"#, "a", "equals", json!([1, 2, 3]), false),
        (r#"{"a":"abc"}"#, "a", "not_equals", json!("abd"), true),
        (r#"{}"#, "a", "not_equals", json!(1), false),
        ("plain text", "", "equals", json!("plain text"), true),
        // null and missing.
        (r#"{}"#, "a", "is_null", Value::Null, true),
        (r#"{"a":1}"#, "b.c", "is_null", Value::Null, true),
        (r#"{"a":null}"#, "a", "is_null", Value::Null, true),
        (r#"{}"#, "a", "not_null", Value::Null, false),
        ("", "", "is_null", Value::Null, true),
        ("  ", "$", "is_null", Value::Null, true),
        ("", "", "not_null", Value::Null, false),
        // Only the whole body can be read from an empty or non-JSON body.
        ("", "a", "is_null", Value::Null, false),
        ("not json", "a", "is_null", Value::Null, false),
        // Path spellings: `$.`, `$`, quoted keys.
        (r#"{"a":1}"#, "$.a", "equals", json!(1), true),
        (r#"{"a":1}"#, "$", "type", json!("object"), true),
        (
            r#"{"a.b":{"c":1}}"#,
            r#"["a.b"].c"#,
            "equals",
            json!(1),
            true,
        ),
        // paths: [n], [*], nesting.
        (
            r#"{"a":{"b":[{"c":1},{"c":2}]}}"#,
            "a.b[1].c",
            "equals",
            json!(2),
            true,
        ),
        (
            r#"{"a":{"b":[{"c":1},{"c":2}]}}"#,
            "a.b[*].c",
            "lte",
            json!("2"),
            true,
        ),
        (
            r#"{"a":{"b":[{"c":1},{"c":2}]}}"#,
            "a.b[5].c",
            "is_null",
            Value::Null,
            true,
        ),
        (r#"{"a":[1,2]}"#, "a[*]", "gt", json!(0), true),
        (r#"{"a":[1,2]}"#, "a[*]", "gt", json!(1), false),
        (r#"{"a":[]}"#, "a[*]", "is_null", Value::Null, false),
        (r#"{"a":[]}"#, "a[*]", "not_null", Value::Null, false),
        (
            r#"{"a":[{"x":1},{"y":2}]}"#,
            "a[*].x",
            "not_null",
            Value::Null,
            false,
        ),
        (r#"{"a":1}"#, "a[*]", "not_null", Value::Null, false),
        // comparisons, numeric strings allowed on both sides.
        (r#"{"a":"5"}"#, "a", "gt", json!(4), true),
        (r#"{"a":"1e2"}"#, "a", "gte", json!(100), true),
        (r#"{"a":"x"}"#, "a", "gt", json!(4), false),
        (r#"{"a":3}"#, "a", "lt", json!("3"), false),
        // matches: regex search on the string form.
        (r#"{"s":"abc"}"#, "s", "matches", json!("b"), true),
        (r#"{"s":"abc"}"#, "s", "matches", json!("^b"), false),
        (r#"{"n":5}"#, "n", "matches", json!("^5$"), true),
        (r#"{"n":5}"#, "n", "matches", json!(5), false),
        // type.
        (r#"{"n":5.0}"#, "n", "type", json!("integer"), true),
        (r#"{"n":5.5}"#, "n", "type", json!("integer"), false),
        (r#"{"n":5}"#, "n", "type", json!("number"), true),
        (r#"{"a":true}"#, "a", "type", json!("boolean"), true),
        (r#"{"a":[1]}"#, "a", "type", json!("array"), true),
        (r#"{"a":null}"#, "a", "type", json!("null"), true),
        (r#"{"a":"1"}"#, "a", "type", json!("number"), false),
        // contains: substring, array element, object key.
        (r#"{"o":{"k":1}}"#, "o", "contains", json!("k"), true),
        (r#"{"o":{"k":1}}"#, "o", "contains", json!("z"), false),
        (r#"{"o":{"1":true}}"#, "o", "contains", json!(1), true),
        ("[1,2,3]", "", "contains", json!(2.0), true),
        (r#""abc""#, "", "contains", json!("bc"), true),
        (r#"{"a":5}"#, "a", "contains", json!(5), false),
        // length: characters, elements, keys.
        (r#"{"s":"héllo"}"#, "s", "length", json!(5), true),
        ("[1,2,3]", "", "length", json!(3), true),
        (r#"{"o":{"k":1,"l":2}}"#, "o", "length", json!(2), true),
        (r#"{"a":5}"#, "a", "length", json!(1), false),
        (
            r#"{"a":[1,2]}"#,
            "a",
            "length",
            json!({"op": "gte", "value": 2}),
            true,
        ),
        (
            r#"{"a":[1,2]}"#,
            "a",
            "length",
            json!({"op": "gt", "value": 2}),
            false,
        ),
    ]
}

const JAVA_PROBE: &str = r#"package mastor.suite;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.MissingNode;
import com.fasterxml.jackson.databind.node.TextNode;
import java.nio.file.Files;
import java.nio.file.Path;

public class SemanticsProbe {
    public static void main(String[] args) throws Exception {
        ObjectMapper json = new ObjectMapper();
        JsonNode cases = json.readTree(Files.readString(Path.of(args[0])));
        StringBuilder out = new StringBuilder("[");
        for (JsonNode c : cases) {
            String text = c.get("text").textValue();
            JsonNode body;
            if (text.isEmpty()) {
                body = MissingNode.getInstance();
            } else {
                try { body = json.readTree(text); } catch (Exception e) { body = TextNode.valueOf(text); }
            }
            MastorAssert.Response r = new MastorAssert.Response(200, text, body, "probe");
            MastorAssert.Checks checks = new MastorAssert.Checks("probe");
            checks.field(r, c.get("path").textValue(), c.get("op").textValue(), c.get("expected").toString());
            boolean holds = true;
            try { checks.done(); } catch (AssertionError e) { holds = false; }
            out.append(out.length() > 1 ? "," : "").append(holds);
        }
        System.out.println(out.append("]"));
    }
}
"#;

const NODE_PROBE: &str = r#"
const fs = require('fs');
const cases = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
const lib = fs.readFileSync(process.argv[3], 'utf8');
const out = cases.map(function (c) {
  const results = [];
  const pm = {
    request: { method: 'GET', url: { toString: function () { return 'probe'; } } },
    response: { code: 200, text: function () { return c.text; } },
    test: function (name, fn) {
      try { fn(); results.push(true); } catch (e) { results.push(false); }
    },
    expect: function () { throw new Error('not used for field assertions'); },
    collectionVariables: { get: function () {}, set: function () {}, unset: function () {} },
  };
  const spec = { o_id: 'probe', bind: false, captures: {},
    assertions: [{ type: 'field', field_path: c.path, op: c.op, expected: c.expected }] };
  new Function('pm', lib + '\nmastorRun(' + JSON.stringify(spec) + ');')(pm);
  return results.length === 1 && results[0];
});
console.log(JSON.stringify(out));
"#;

fn outcomes(stdout: &str) -> Vec<bool> {
    let line = stdout
        .lines()
        .rev()
        .find(|l| l.starts_with('['))
        .unwrap_or("[]");
    serde_json::from_str(line).unwrap_or_else(|e| panic!("bad probe output ({e}): {stdout}"))
}

#[test]
fn runner_java_and_javascript_apply_the_same_rules() {
    let work = tempfile::tempdir().expect("tempdir");
    let table: Vec<Value> = cases()
        .iter()
        .map(|(text, path, op, expected, _)| {
            json!({"text": text, "path": path, "op": op, "expected": expected})
        })
        .collect();
    let cases_file = work.path().join("cases.json");
    std::fs::write(&cases_file, Value::Array(table).to_string()).expect("write cases");

    // The support sources exactly as an export writes them.
    let input = ExportInput::from_suite(petstore_suite(false), Selection::Reviewed);
    let junit = work.path().join("junit");
    export::export(&input, Format::Junit, &junit).expect("junit export");
    let postman = work.path().join("postman");
    let report = export::export(&input, Format::Postman, &postman).expect("postman export");
    let collection: Value =
        serde_json::from_str(&std::fs::read_to_string(&report.files[0]).expect("read"))
            .expect("collection");
    let exec = collection["item"][0]["item"][0]["event"][0]["script"]["exec"]
        .as_array()
        .expect("test script");
    let lib: Vec<&str> = exec
        .iter()
        .filter_map(Value::as_str)
        .filter(|l| !l.starts_with("mastorRun("))
        .collect();
    let lib_file = work.path().join("lib.js");
    std::fs::write(&lib_file, lib.join("\n")).expect("write lib");

    // Java.
    let probe = junit.join("mastor/suite/SemanticsProbe.java");
    std::fs::write(&probe, JAVA_PROBE).expect("write probe");
    let jars = [
        "jackson-databind.jar",
        "jackson-core.jar",
        "jackson-annotations.jar",
    ]
    .map(|j| jar(j).display().to_string())
    .join(":");
    let classes = work.path().join("classes");
    let (code, text) = run(Command::new("javac")
        .args(["-encoding", "UTF-8", "-d"])
        .arg(&classes)
        .args(["-cp", &jars])
        .arg(junit.join("mastor/suite/MastorAssert.java"))
        .arg(&probe));
    assert_eq!(code, 0, "javac: {text}");
    let (code, java_out) = run(Command::new("java")
        .arg("-cp")
        .arg(format!("{}:{jars}", classes.display()))
        .arg("mastor.suite.SemanticsProbe")
        .arg(&cases_file));
    assert_eq!(code, 0, "java probe: {java_out}");
    let java = outcomes(&java_out);

    // JavaScript.
    let node_probe = work.path().join("probe.js");
    std::fs::write(&node_probe, NODE_PROBE).expect("write probe");
    let (code, node_out) = run(Command::new("node")
        .arg(&node_probe)
        .arg(&cases_file)
        .arg(&lib_file));
    assert_eq!(code, 0, "node probe: {node_out}");
    let js = outcomes(&node_out);

    let cases = cases();
    let rust: Vec<bool> = cases
        .iter()
        .map(|(text, path, op, expected, _)| {
            let op: FieldOp = serde_json::from_value(json!(op)).expect("op");
            let assertion = Assertion::Field {
                field_path: path.to_string(),
                op,
                expected: expected.clone(),
            };
            evaluate(0, &assertion, &Response::new(200, text.to_string())).outcome == Outcome::Pass
        })
        .collect();
    assert_eq!(java.len(), cases.len(), "java: {java_out}");
    assert_eq!(js.len(), cases.len(), "node: {node_out}");
    let mut wrong = Vec::new();
    println!(
        "{:<34} {:<10} {:<16} {:<6} {:<6} {:<6} {:<6}",
        "body", "path", "op expected", "rule", "runner", "java", "js"
    );
    for (i, (text, path, op, expected, holds)) in cases.iter().enumerate() {
        println!(
            "{:<34} {:<10} {:<16} {:<6} {:<6} {:<6} {:<6}",
            text,
            path,
            format!("{op} {expected}"),
            holds,
            rust[i],
            java[i],
            js[i]
        );
        if rust[i] != *holds || java[i] != *holds || js[i] != *holds {
            wrong.push(format!(
                "{text} `{path}` {op} {expected}: rule {holds}, runner {}, java {}, js {}",
                rust[i], java[i], js[i]
            ));
        }
    }
    assert!(wrong.is_empty(), "semantics differ:\n{}", wrong.join("\n"));
}
