//! The assertion semantics of the generated support code, case by case: one table
//! (`tests/data/semantics.json`: response body, field path, operator, expected value)
//! runs through mastor's own runner (`runner::assert`), the exported Java `MastorAssert`
//! (javac + java, Jackson) and the Postman script library (node), which all read that
//! file, and all three must give the outcome the rules say. This pins the exports to the
//! runner, without a live API.
//!
//! Needs what scripts/setup.sh installs (Jackson jars; node comes with npm).

use crate::export_common;

use export_common::*;
use mastor::export::{self, ExportInput, Format, Selection};
use mastor::model::{Assertion, FieldOp, Outcome};
use mastor::runner::assert::{Response, evaluate};
use serde_json::{Value, json};
use std::process::Command;

/// One case of `tests/data/semantics.json`: response body text, field path, operator,
/// expected value, and whether the assertion holds.
struct Case {
    body: String,
    path: String,
    op: String,
    expected: Value,
    holds: bool,
}

fn cases_file() -> std::path::PathBuf {
    repo_root().join("tests/data/semantics.json")
}

fn cases() -> Vec<Case> {
    let path = cases_file();
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let doc: Value = serde_json::from_str(&text).expect("semantics.json is JSON");
    let text_of = |c: &Value, key: &str| -> String {
        c[key]
            .as_str()
            .unwrap_or_else(|| panic!("case without {key}: {c}"))
            .to_string()
    };
    doc["cases"]
        .as_array()
        .expect("semantics.json has cases")
        .iter()
        .map(|c| Case {
            body: text_of(c, "body"),
            path: text_of(c, "path"),
            op: text_of(c, "op"),
            expected: c["expected"].clone(),
            holds: c["holds"]
                .as_bool()
                .unwrap_or_else(|| panic!("case without holds: {c}")),
        })
        .collect()
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
        JsonNode cases = json.readTree(Files.readString(Path.of(args[0]))).get("cases");
        StringBuilder out = new StringBuilder("[");
        for (JsonNode c : cases) {
            String text = c.get("body").textValue();
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
const cases = JSON.parse(fs.readFileSync(process.argv[2], 'utf8')).cases;
const lib = fs.readFileSync(process.argv[3], 'utf8');
const out = cases.map(function (c) {
  const results = [];
  const pm = {
    request: { method: 'GET', url: { toString: function () { return 'probe'; } } },
    response: { code: 200, text: function () { return c.body; } },
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
    // The probes read the same table as the runner below.
    let cases_file = cases_file();

    // The support sources exactly as an export writes them.
    let input = ExportInput::from_suite(petstore_suite(false), Selection::Reviewed);
    let junit = work.path().join("junit");
    export::export(&input, Format::Junit, &junit).expect("junit export");
    let postman = work.path().join("postman");
    let report = export::export(&input, Format::Postman, &postman).expect("postman export");
    let collection: Value =
        serde_json::from_str(&std::fs::read_to_string(&report.files[0]).expect("read"))
            .expect("collection");
    // The library is defined once, by the collection's test script.
    let exec = collection["event"]
        .as_array()
        .expect("collection events")
        .iter()
        .find(|e| e["listen"] == "test")
        .and_then(|e| e["script"]["exec"].as_array())
        .expect("collection test script");
    let mut lib: Vec<&str> = exec.iter().filter_map(Value::as_str).collect();
    // The probe calls `mastorRun(spec)` with its own `pm`, as a request's script does.
    lib.push("mastorRun = function (spec) { return mastorLib(pm).run(spec); };");
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
        .arg(junit.join("mastor/suite/MastorRequest.java"))
        .arg(junit.join("mastor/suite/MastorJson.java"))
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
        .map(|c| {
            let op: FieldOp = serde_json::from_value(json!(c.op)).expect("op");
            let assertion = Assertion::Field {
                field_path: c.path.clone(),
                op,
                expected: c.expected.clone(),
            };
            evaluate(0, &assertion, &Response::new(200, c.body.clone())).outcome == Outcome::Pass
        })
        .collect();
    assert_eq!(java.len(), cases.len(), "java: {java_out}");
    assert_eq!(js.len(), cases.len(), "node: {node_out}");
    let mut wrong = Vec::new();
    println!(
        "{:<34} {:<10} {:<16} {:<6} {:<6} {:<6} {:<6}",
        "body", "path", "op expected", "rule", "runner", "java", "js"
    );
    for (i, c) in cases.iter().enumerate() {
        let (text, path, op, expected, holds) = (&c.body, &c.path, &c.op, &c.expected, &c.holds);
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
