//! Metamorphic tests as suite members, end to end against the live petstore-jdk fixture,
//! with the stale-status bug off and on: the same tests give the same outcome in
//! `mastor check` (text, JSON and `--junit-xml`), in the exported JUnit 5 suite (javac +
//! console launcher) and in the exported Postman collection (newman).
//!
//! Flag off: the two sound tests pass; flag on: the status-change test is a relation
//! violation in all three. A test whose seed reads a pet that does not exist is an
//! execution failure in all three, whatever the flag, and never a relation violation.
//! Variants with one relation made false (every relation op) are violations in all three,
//! and variants whose operand has no usable value are execution failures.
//!
//! The suite goes through `mastor import` (with the spec, so documented statuses come from
//! the session), and both exports are built and (for JUnit) compiled once, then run per
//! flag. Needs what scripts/setup.sh installs (junit5, libjackson2-databind-java, newman).

use crate::export_common;

use export_common::*;
use mastor::export::{self, Format, Selection};
use mastor::model::MetamorphicTest;
use mastor::model::{ReviewState, SCHEMA_VERSION, SuiteFile};
use regex::Regex;
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

/// How a metamorphic test came out, in any of the three runners.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mr {
    Passed,
    Violated,
    ExecutionFailed,
}

const STATUS: &str = "mr#status_change_visible";
const LIMIT: &str = "mr#limit_is_a_prefix";
const MISSING: &str = "mr#missing_pet";

/// Each relation of `limit_is_a_prefix` turned false (one test each, expected violated),
/// and two whose operands have no usable value (expected execution failures): every op is
/// seen both holding and violated by all three runners.
fn negated() -> Vec<(MetamorphicTest, Mr)> {
    let base = petstore_metamorphic()
        .into_iter()
        .find(|t| t.test_id == "limit_is_a_prefix")
        .expect("base test");
    let flips: [(&str, Value); 13] = [
        // seed[0] has one id, follow_up[0] two: the larger is no subset of the smaller.
        (
            "subset",
            json!({"left": "follow_up[0].body[*].id", "op": "subset", "right": "seed[0].body[*].id"}),
        ),
        (
            "subset_full",
            json!({"left": "seed[1].body[*].id", "op": "subset", "right": "follow_up[0].body[*].id"}),
        ),
        (
            "count_diff",
            json!({"left": "seed[0].body", "op": "count_diff", "right": "follow_up[0].body", "value": 2}),
        ),
        (
            "contains",
            json!({"left": "seed[0].body[*].id", "op": "contains", "right": "follow_up[0].body[1].id"}),
        ),
        (
            "less_or_equal",
            json!({"left": "seed[1].body", "op": "less_or_equal", "right": "follow_up[0].body"}),
        ),
        (
            "same_shape",
            json!({"left": "follow_up[0].body[0]", "op": "same_shape", "right": "seed[1].body"}),
        ),
        (
            "equals",
            json!({"left": "seed[0].status", "op": "equals", "value": 201}),
        ),
        (
            "not_contains",
            json!({"left": "seed[1].body[*].name", "op": "not_contains", "value": "Rex"}),
        ),
        (
            "greater",
            json!({"left": "seed[0].body", "op": "greater", "value": "1"}),
        ),
        (
            "less",
            json!({"left": "follow_up[0].body", "op": "less", "value": 2}),
        ),
        (
            "greater_or_equal",
            json!({"left": "seed[0].body", "op": "greater_or_equal", "right": "follow_up[0].body"}),
        ),
        (
            "not_equals",
            json!({"left": "follow_up[0].body[0].id", "op": "not_equals", "right": "seed[0].body[0].id"}),
        ),
        (
            "contains_key",
            json!({"left": "seed[0].body[0]", "op": "contains", "value": {"name": "Tom"}}),
        ),
    ];
    let unresolved: [(&str, Value); 2] = [
        (
            "missing_field",
            json!({"left": "seed[0].body[0].nope", "op": "equals", "value": 1}),
        ),
        (
            "not_a_number",
            json!({"left": "seed[0].body[0]", "op": "greater", "value": 1}),
        ),
    ];
    let make = |name: &str, relation: &Value| {
        let mut t = base.clone();
        t.test_id = format!("neg_{name}");
        t.relations = vec![serde_json::from_value(relation.clone()).expect("relation")];
        t
    };
    flips
        .iter()
        .map(|(n, r)| (make(n, r), Mr::Violated))
        .chain(
            unresolved
                .iter()
                .map(|(n, r)| (make(n, r), Mr::ExecutionFailed)),
        )
        .collect()
}

fn suite() -> SuiteFile {
    let mut suite = SuiteFile {
        schema_version: SCHEMA_VERSION,
        ..SuiteFile::default()
    };
    let all = petstore_metamorphic()
        .into_iter()
        .chain(negated().into_iter().map(|(t, _)| t));
    for t in all {
        mastor::metamorphic::check::validate_structure(&t).expect("structurally valid");
        suite.review.insert(t.o_id(), ReviewState::Accepted);
        suite.metamorphic.push(t);
    }
    suite
}

fn expected(bug: bool) -> BTreeMap<String, Mr> {
    let mut out: BTreeMap<String, Mr> = BTreeMap::from([
        (
            STATUS.to_string(),
            if bug { Mr::Violated } else { Mr::Passed },
        ),
        (LIMIT.to_string(), Mr::Passed),
        (MISSING.to_string(), Mr::ExecutionFailed),
    ]);
    out.extend(negated().into_iter().map(|(t, mr)| (t.o_id(), mr)));
    out
}

fn mastor(args: &[&str], dir: &Path) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_mastor"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("run mastor");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// `mastor check --json --junit-xml`: outcome per mr o_id from the JSON verdicts, checked
/// against the text and XML renderings of the same run.
fn check_outcomes(session: &Path, base_url: &str, work: &Path) -> BTreeMap<String, Mr> {
    let xml_path = work.join("check.xml");
    let s = session.to_str().expect("utf-8 path");
    let x = xml_path.to_str().expect("utf-8 path");
    let (code, stdout, stderr) = mastor(
        &[
            "check",
            s,
            "--base-url",
            base_url,
            "--json",
            "--junit-xml",
            x,
        ],
        work,
    );
    assert!(code == 0 || code == 1, "check exit {code}: {stderr}");
    let report: Value = serde_json::from_str(&stdout).expect("check --json");
    let xml = std::fs::read_to_string(&xml_path).expect("junit xml");
    let mut out = BTreeMap::new();
    for v in report["verdicts"].as_array().expect("verdicts") {
        let o_id = v["o_id"].as_str().expect("o_id").to_string();
        let last = v["steps"].as_array().and_then(|s| s.last()).expect("steps");
        assert_eq!(last["op_id"], "relations", "{v:#}");
        let message = last["message"].as_str().unwrap_or_default();
        if !message.is_empty() {
            println!("check: {o_id}: {message}");
        }
        let mr = match v["outcome"].as_str() {
            Some("pass") => Mr::Passed,
            Some("fail") => {
                assert!(message.starts_with("relation violated: "), "{message}");
                Mr::Violated
            }
            Some("error") => {
                assert!(message.starts_with("execution failed: "), "{message}");
                Mr::ExecutionFailed
            }
            other => panic!("{o_id}: outcome {other:?}"),
        };
        let tag = match mr {
            Mr::Passed => None,
            Mr::Violated => Some("<failure message=\"relation violated: "),
            Mr::ExecutionFailed => Some("<error message=\"execution failed: "),
        };
        let case = xml
            .split("<testcase ")
            .find(|c| c.contains(&format!("name=\"{o_id}\"")))
            .unwrap_or_else(|| panic!("{o_id} not in the check XML:\n{xml}"));
        if let Some(tag) = tag {
            assert!(case.contains(tag), "{o_id}: {case}");
        }
        out.insert(o_id, mr);
    }
    let (code, text, _) = mastor(&["check", s, "--base-url", base_url], work);
    assert!(code == 0 || code == 1);
    for (o_id, mr) in &out {
        let line = text
            .lines()
            .find(|l| l.contains(o_id.as_str()))
            .unwrap_or_else(|| panic!("{o_id} missing from:\n{text}"));
        match mr {
            Mr::Passed => assert!(line.starts_with('✓'), "{line}"),
            Mr::Violated => assert!(line.contains("relation violated"), "{line}"),
            Mr::ExecutionFailed => assert!(line.contains("execution failed"), "{line}"),
        }
    }
    out
}

/// Outcome per o_id from the launcher's XML: a failure is a violation, an error an
/// execution failure (and the messages say so).
fn junit_outcomes(report: &export::ExportReport, xml: &str) -> BTreeMap<String, Mr> {
    let case = Regex::new(
        r#"(?s)<testcase name="([^"]*)\(\)" classname="([^"]*)"[^>]*?(/>|>(.*?)</testcase>)"#,
    )
    .expect("regex");
    let mut out = BTreeMap::new();
    for m in case.captures_iter(xml) {
        let location = format!("{}#{}", &m[2], &m[1]);
        let Some(item) = report.items.iter().find(|i| i.location == location) else {
            continue;
        };
        let body = m.get(4).map_or("", |b| b.as_str());
        let mr = if body.contains("<failure") {
            assert!(body.contains("relation violated: relation"), "{body}");
            Mr::Violated
        } else if body.contains("<error") {
            assert!(body.contains(": execution failed: "), "{body}");
            assert!(body.contains("ExecutionFailed"), "{body}");
            Mr::ExecutionFailed
        } else {
            Mr::Passed
        };
        out.insert(item.o_id.clone(), mr);
    }
    out
}

/// Outcome per o_id from newman's report: the `<o_id> :: relations` test decides.
fn newman_outcomes(report: &Value) -> BTreeMap<String, Mr> {
    let mut out = BTreeMap::new();
    for exec in report["run"]["executions"].as_array().expect("executions") {
        for a in exec["assertions"].as_array().into_iter().flatten() {
            let name = a["assertion"].as_str().unwrap_or_default();
            let Some(o_id) = name.strip_suffix(" :: relations") else {
                continue;
            };
            let message = a["error"]["message"].as_str();
            let mr = match message {
                None => Mr::Passed,
                Some(m) if m.contains(": relation violated: relation") => Mr::Violated,
                Some(m) if m.contains(": execution failed: ") => Mr::ExecutionFailed,
                Some(m) => panic!("{o_id}: unexpected message {m}"),
            };
            out.insert(o_id.to_string(), mr);
        }
    }
    out
}

#[test]
fn metamorphic_outcomes_agree_in_check_junit_and_newman() {
    let work = tempfile::tempdir().expect("tempdir");
    let w = work.path();
    let suite_path = w.join("suite.json");
    std::fs::write(&suite_path, serde_json::to_string(&suite()).expect("json")).expect("write");
    let spec = repo_root().join("tests/fixtures/petstore-jdk/openapi.json");
    let session = w.join("session");
    let (code, stdout, stderr) = mastor(
        &[
            "import",
            suite_path.to_str().expect("utf-8"),
            "--spec",
            spec.to_str().expect("utf-8"),
            "--out",
            session.to_str().expect("utf-8"),
        ],
        w,
    );
    assert_eq!(code, 0, "import: {stdout}{stderr}");
    let n = 3 + negated().len();
    assert!(
        stdout.contains(&format!("{n} metamorphic test(s)")),
        "{stdout}"
    );

    // Exports come from the session: documented statuses from its spec, as check has them.
    let input = export::load_session(&session, Selection::Reviewed).expect("session loads");
    assert!(input.problems.is_empty(), "{:?}", input.problems);
    assert_eq!(input.selected_metamorphic().len(), n);
    assert!(input.documented.contains_key("GET /pets/{petId}"));
    let junit_dir = w.join("junit");
    let junit_report = compile_junit(&input, &junit_dir);
    let postman_dir = w.join("postman");
    let postman = export::export(&input, Format::Postman, &postman_dir).expect("postman");

    for bug in [false, true] {
        let api = FixtureApi::start_with(&w.join(format!("api-{bug}")), Some(bug));
        let want = expected(bug);

        let check = check_outcomes(&session, &api.base_url, w);
        assert_eq!(check, want, "mastor check, stale-status bug {bug}");

        let (code, xml, text) = launch_junit(&junit_dir, Some(&api.base_url));
        let junit = junit_outcomes(&junit_report, &xml);
        assert_eq!(junit, want, "JUnit, stale-status bug {bug}:\n{text}");
        assert_ne!(code, 0, "the missing-pet test always fails the launcher");

        let json_out = w.join(format!("newman-{bug}.json"));
        let (code, report, text) = newman_json(&postman.files[0], &api.base_url, &json_out);
        let newman = newman_outcomes(&report);
        assert_eq!(newman, want, "newman, stale-status bug {bug}:\n{text}");
        assert_ne!(code, 0, "the missing-pet test always fails newman");
    }
}
