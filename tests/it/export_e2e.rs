//! End to end: export suites as JUnit 5 and Postman, run them with the real tools (javac +
//! JUnit console launcher, newman) against the live petstore-jdk fixture API, and check
//! that every correct oracle passes and every wrong one fails in both runners.
//!
//! Needs what scripts/setup.sh installs (junit5, libjackson2-databind-java, newman).

use crate::export_common;

use export_common::*;
use mastor::export::{self, ExportInput, ExportReport, Format, Selection};
use mastor::model::SuiteFile;
use regex::Regex;
use std::path::Path;
use std::process::Command;

/// Per o_id from the legacy XML report: the number of failed checks, counted from the
/// lines of the failure message (MastorAssert reports one line per failed check); an error
/// (exception other than a failed check) counts as one.
fn junit_results(report: &ExportReport, xml: &str) -> Results {
    let case = Regex::new(
        r#"(?s)<testcase name="([^"]*)\(\)" classname="([^"]*)"[^>]*?(/>|>(.*?)</testcase>)"#,
    )
    .expect("regex");
    let failure = Regex::new(r#"<failure message="([^"]*)""#).expect("regex");
    let mut results: Results = report
        .items
        .iter()
        .map(|i| (i.o_id.clone(), None))
        .collect();
    for m in case.captures_iter(xml) {
        let location = format!("{}#{}", &m[2], &m[1]);
        let body = m.get(4).map_or("", |b| b.as_str());
        let failed = match failure.captures(body) {
            Some(f) => f[1].matches("&#10;").count() + f[1].matches('\n').count() + 1,
            None => usize::from(body.contains("<error")),
        };
        if let Some(item) = report.items.iter().find(|i| i.location == location) {
            results.insert(item.o_id.clone(), Some(failed));
        }
    }
    results
}

/// Exports the Postman collection and runs newman; returns exit code and per-o_id results.
fn run_newman(input: &ExportInput, dir: &Path, base_url: &str) -> (i32, Results, String) {
    let report = export::export(input, Format::Postman, dir).expect("postman export");
    let (code, parsed, text) = newman_json(&report.files[0], base_url, &dir.join("newman.json"));
    let mut results: Results = report
        .items
        .iter()
        .map(|i| (i.o_id.clone(), None))
        .collect();
    let executions = parsed["run"]["executions"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    for exec in executions {
        let name = exec["item"]["name"].as_str().unwrap_or_default();
        // A sequence step is named `<o_id>#<n>`.
        let o_id = report
            .items
            .iter()
            .map(|i| i.o_id.as_str())
            .find(|o| name == *o || name.strip_prefix(*o).is_some_and(|r| r.starts_with('#')));
        let Some(o_id) = o_id else { continue };
        let assertions = exec["assertions"].as_array().cloned().unwrap_or_default();
        // A request whose script recorded no assertion at all counts as one failure.
        let failed = if assertions.is_empty() {
            1
        } else {
            assertions
                .iter()
                .filter(|a| a.get("error").is_some())
                .count()
        };
        let entry = results.entry(o_id.to_string()).or_insert(None);
        *entry = Some(entry.unwrap_or(0) + failed);
    }
    (code, results, text)
}

fn mark(result: Option<usize>) -> String {
    match result {
        Some(0) => "pass".into(),
        Some(n) => format!("FAIL({n})"),
        None => "-".into(),
    }
}

/// Runs one suite through both runners and checks every o_id has the expected outcome:
/// all checks pass, or (wrong suites) exactly one check fails, the one made wrong.
fn check_suite(name: &str, suite: SuiteFile, expect_pass: bool, api: &FixtureApi, work: &Path) {
    let input = ExportInput::from_suite(suite.clone(), Selection::All);
    let dir = work.join(name);
    let junit_dir = dir.join("junit");
    let report = compile_junit(&input, &junit_dir);
    let (junit_code, xml, junit_text) = launch_junit(&junit_dir, Some(&api.base_url));
    let junit = junit_results(&report, &xml);
    let (newman_code, newman, newman_text) =
        run_newman(&input, &dir.join("postman"), &api.base_url);

    let expected = if expect_pass { 0 } else { 1 };
    println!("\n{name}: expected failed checks per oracle: {expected}");
    println!("{:<60} {:<8} {:<8}", "o_id", "junit", "newman");
    let mut wrong = Vec::new();
    for o_id in o_ids(&suite) {
        let (j, n) = (
            junit.get(&o_id).copied().flatten(),
            newman.get(&o_id).copied().flatten(),
        );
        println!("{o_id:<60} {:<8} {:<8}", mark(j), mark(n));
        if j != Some(expected) || n != Some(expected) {
            wrong.push(o_id);
        }
    }
    assert!(
        wrong.is_empty(),
        "{name}: unexpected outcome for {wrong:?}\n--- launcher:\n{junit_text}\n--- newman:\n{newman_text}"
    );
    assert_eq!(
        junit_code == 0,
        expect_pass,
        "{name}: launcher exit code {junit_code}"
    );
    assert_eq!(
        newman_code == 0,
        expect_pass,
        "{name}: newman exit code {newman_code}"
    );
}

fn load(path: &Path) -> SuiteFile {
    let loaded = mastor::suite::load_file(path).expect("fixture suite loads");
    assert!(loaded.problems.is_empty(), "{:?}", loaded.problems);
    loaded.suite
}

#[test]
fn exported_suites_pass_and_fail_in_junit_and_newman() {
    let work = tempfile::tempdir().expect("tempdir");
    let api = FixtureApi::start(&work.path().join("api"));

    check_suite(
        "small-correct",
        petstore_suite(false),
        true,
        &api,
        work.path(),
    );
    check_suite(
        "small-wrong",
        petstore_suite(true),
        false,
        &api,
        work.path(),
    );

    let suites = repo_root().join("tests/fixtures/petstore-jdk/suites");
    if suites.join("reference.json").is_file() {
        check_suite(
            "reference",
            load(&suites.join("reference.json")),
            true,
            &api,
            work.path(),
        );
        check_suite(
            "reference-wrong",
            load(&suites.join("wrong.json")),
            false,
            &api,
            work.path(),
        );
    } else {
        println!("tests/fixtures/petstore-jdk/suites/reference.json not present: skipped");
    }
}

#[test]
fn junit_without_base_url_fails_clearly() {
    let work = tempfile::tempdir().expect("tempdir");
    let mut suite = petstore_suite(false);
    suite.oracles.truncate(1);
    suite.multi_op.clear();
    let input = ExportInput::from_suite(suite, Selection::Reviewed);
    let dir = work.path().join("junit");
    compile_junit(&input, &dir);
    let (code, xml, text) = launch_junit(&dir, None);
    assert_ne!(code, 0, "must fail without mastor.baseUrl:\n{text}");
    assert!(xml.contains("mastor.baseUrl is not set"), "{xml}");
}

#[test]
fn newman_without_base_url_fails() {
    let work = tempfile::tempdir().expect("tempdir");
    let mut suite = petstore_suite(false);
    suite.oracles.truncate(1);
    suite.multi_op.clear();
    let input = ExportInput::from_suite(suite, Selection::Reviewed);
    let report = export::export(&input, Format::Postman, work.path()).expect("export");
    let (code, text) = run(Command::new(newman()).arg("run").arg(&report.files[0]));
    assert_ne!(code, 0, "newman must fail without baseUrl:\n{text}");
    assert!(text.contains("baseUrl is not set"), "{text}");
}

/// The oracle forms a strong model could not express before: another method (a 405), a
/// raw query string, and an expected value relative to a capture. The same suite passes in
/// `mastor check`, JUnit and newman, and its wrong copy fails exactly where it was made
/// wrong in all three.
fn forms_suite(wrong: bool) -> SuiteFile {
    let plus = if wrong { 2 } else { 1 };
    let not_allowed = if wrong { 404 } else { 405 };
    let limit = if wrong { 200 } else { 400 };
    serde_json::from_value(serde_json::json!({
        "schema_version": 1,
        "oracles": [
            {"test_id": "fi_delete_list", "op_id": "GET /pets", "oracle_strategy": "fi",
             "input": {"method": "DELETE"},
             "assertions": [{"type": "status", "expected": not_allowed},
                            {"type": "field", "field_path": "error", "op": "matches",
                             "expected": "not allowed"}]},
            {"test_id": "bi_limit_text", "op_id": "GET /pets", "oracle_strategy": "bi",
             "input": {"query_raw": "limit=abc"},
             "assertions": [{"type": "status", "expected": limit}]}
        ],
        "multi_op": [
            {"test_id": "total_grows_by_one", "group_id": "stats",
             "steps": [
                {"op_id": "GET /stats", "captures": {"total": "total"},
                 "assertions": [{"type": "status", "expected": 200}]},
                {"op_id": "POST /pets", "input": {"body": {"name": "Forms"}},
                 "assertions": [{"type": "status", "expected": 201}]},
                {"op_id": "GET /stats",
                 "assertions": [{"type": "status", "expected": 200},
                                {"type": "field", "field_path": "total", "op": "equals",
                                 "expected": {"$capture": "total", "plus": plus}}]}]}
        ]
    }))
    .expect("forms suite")
}

#[test]
fn method_query_raw_and_capture_offsets_agree_in_check_junit_and_newman() {
    let work = tempfile::tempdir().expect("tempdir");
    for (wrong, name) in [(false, "forms"), (true, "forms-wrong")] {
        let api = FixtureApi::start(&work.path().join(format!("api-{name}")));
        let suite = forms_suite(wrong);
        let file = work.path().join(format!("{name}.json"));
        std::fs::write(&file, serde_json::to_string(&suite).unwrap()).unwrap();
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_mastor"))
            .args(["check", file.to_str().unwrap(), "--base-url", &api.base_url])
            .args(["--only", "all", "--json"])
            .env("HOME", work.path())
            .output()
            .unwrap();
        let report: serde_json::Value = serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stderr)));
        let s = &report["summary"];
        let (passed, failed) = (s["passed"].as_u64(), s["failed"].as_u64());
        if wrong {
            assert_eq!((passed, failed), (Some(0), Some(3)), "{report}");
        } else {
            assert_eq!((passed, failed), (Some(3), Some(0)), "{report}");
        }
        drop(api);
        // A fresh server for the exports, so the sequence's POST starts from the seed.
        let api = FixtureApi::start(&work.path().join(format!("api-{name}-exports")));
        check_suite(name, suite, !wrong, &api, work.path());
    }
}
