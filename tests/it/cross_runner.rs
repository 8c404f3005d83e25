//! Cross-runner agreement: the fixture's reference suite and its wrong twin are run by
//! `mastor check`, by the exported JUnit 5 classes (javac + console launcher) and by newman
//! on the exported Postman collection, each against its own freshly started petstore-jdk
//! (the suites create pets, so state must not leak between runners). A per-oracle table is
//! printed and written to `target/cross-runner.md`; the test asserts that the reference
//! suite passes everywhere, the wrong suite fails everywhere, and the runners agree on
//! every oracle.
//!
//! It does not compare how many checks failed per oracle (each runner counts differently;
//! `export_e2e` and `check_reference` cover that per runner), only pass/fail.
//!
//! Needs what scripts/setup.sh installs (junit5, libjackson2-databind-java, newman).

use crate::export_common;

use export_common::{FixtureApi, compile_junit, launch_junit, newman_json, o_ids, repo_root};
use mastor::export::{self, ExportInput, ExportReport, Format, Selection};
use mastor::model::{Outcome, SuiteFile};
use mastor::runner::RunReport;
use regex::Regex;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

/// How one runner judged one oracle. A failed expectation and a broken exchange
/// (connection refused, exception, missing capture) are kept apart so that a wrong suite
/// cannot "fail" for the wrong reason.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mark {
    Pass,
    Fail,
    Error,
}

/// Per o_id; absent: the runner reported nothing for it.
pub(crate) type Verdicts = BTreeMap<String, Mark>;

pub(crate) fn suite_path(name: &str) -> PathBuf {
    repo_root()
        .join("tests/fixtures/petstore-jdk/suites")
        .join(format!("{name}.json"))
}

pub(crate) fn load(path: &Path) -> SuiteFile {
    let loaded = mastor::suite::load_file(path).expect("fixture suite loads");
    assert!(loaded.problems.is_empty(), "{:?}", loaded.problems);
    loaded.suite
}

/// `mastor check SUITE --only all --json` against `base_url`.
fn run_mastor(suite: &Path, base_url: &str) -> (i32, Verdicts, String) {
    let (code, out, err) = {
        let out = Command::new(env!("CARGO_BIN_EXE_mastor"))
            .arg("check")
            .arg(suite)
            .args(["--only", "all", "--json", "--base-url", base_url])
            .output()
            .expect("run mastor");
        (
            out.status.code().unwrap_or(-1),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let report: RunReport =
        serde_json::from_str(&out).unwrap_or_else(|e| panic!("mastor --json: {e}\n{err}"));
    let verdicts = report
        .verdicts
        .iter()
        .map(|v| {
            let mark = match v.outcome {
                Outcome::Pass => Mark::Pass,
                Outcome::Fail => Mark::Fail,
                Outcome::Error | Outcome::Skipped => Mark::Error,
            };
            (v.o_id.clone(), mark)
        })
        .collect();
    (code, verdicts, err)
}

/// Exports the JUnit classes into `dir`, compiles and runs them with the console launcher.
fn run_junit(input: &ExportInput, dir: &Path, base_url: &str) -> (i32, Verdicts, String) {
    let report = compile_junit(input, dir);
    let (code, xml, text) = launch_junit(dir, Some(base_url));
    (code, junit_verdicts(&report, &xml), text)
}

/// Per o_id from the legacy XML report: a `<failure>` (a failed check) is a fail, an
/// `<error>` (any other exception) an error, neither a pass.
pub(crate) fn junit_verdicts(report: &ExportReport, xml: &str) -> Verdicts {
    let case = Regex::new(
        r#"(?s)<testcase name="([^"]*)\(\)" classname="([^"]*)"[^>]*?(/>|>(.*?)</testcase>)"#,
    )
    .expect("regex");
    let mut verdicts = Verdicts::new();
    for m in case.captures_iter(xml) {
        let location = format!("{}#{}", &m[2], &m[1]);
        let body = m.get(4).map_or("", |b| b.as_str());
        let mark = if body.contains("<error") {
            Mark::Error
        } else if body.contains("<failure") {
            Mark::Fail
        } else {
            Mark::Pass
        };
        if let Some(item) = report.items.iter().find(|i| i.location == location) {
            verdicts.insert(item.o_id.clone(), mark);
        }
    }
    verdicts
}

/// Exports the Postman collection into `dir` and runs it with newman.
fn run_newman(input: &ExportInput, dir: &Path, base_url: &str) -> (i32, Verdicts, String) {
    let report = export::export(input, Format::Postman, dir).expect("postman export");
    let (code, parsed, text) = newman_json(&report.files[0], base_url, &dir.join("newman.json"));
    (code, newman_verdicts(&report, &parsed), text)
}

/// Per o_id from newman's JSON report, over every request of the oracle (one, or one per
/// sequence step named `<o_id>#<n>`): an error when a request failed at the transport
/// level or recorded no assertion at all, else a fail when an assertion failed.
pub(crate) fn newman_verdicts(report: &ExportReport, parsed: &serde_json::Value) -> Verdicts {
    let mut verdicts = Verdicts::new();
    let executions = parsed["run"]["executions"].as_array();
    for exec in executions.into_iter().flatten() {
        let name = exec["item"]["name"].as_str().unwrap_or_default();
        let o_id = report
            .items
            .iter()
            .map(|i| i.o_id.as_str())
            .find(|o| name == *o || name.strip_prefix(*o).is_some_and(|r| r.starts_with('#')));
        let Some(o_id) = o_id else { continue };
        let assertions = exec["assertions"].as_array().map_or(&[][..], Vec::as_slice);
        let mark = if exec.get("requestError").is_some() || assertions.is_empty() {
            Mark::Error
        } else if assertions.iter().any(|a| a.get("error").is_some()) {
            Mark::Fail
        } else {
            Mark::Pass
        };
        let entry = verdicts.entry(o_id.to_string()).or_insert(Mark::Pass);
        // The worst step decides: error over fail over pass.
        *entry = match (*entry, mark) {
            (Mark::Error, _) | (_, Mark::Error) => Mark::Error,
            (Mark::Fail, _) | (_, Mark::Fail) => Mark::Fail,
            _ => Mark::Pass,
        };
    }
    verdicts
}

pub(crate) fn mark(v: Option<&Mark>) -> &'static str {
    match v {
        Some(Mark::Pass) => "pass",
        Some(Mark::Fail) => "fail",
        Some(Mark::Error) => "error",
        None => "-",
    }
}

/// One suite through all three runners, each against a fresh fixture API (run side by
/// side). Returns the Markdown table and the o_ids whose row is not as expected.
fn cross_check(name: &str, expect_pass: bool, work: &Path) -> (String, Vec<String>) {
    let path = suite_path(name);
    let suite = load(&path);
    let input = ExportInput::from_suite(suite.clone(), Selection::All);
    let dir = work.join(name);
    let start = |runner: &str| FixtureApi::start(&dir.join(format!("api-{runner}")));

    let (mastor, junit, newman) = std::thread::scope(|s| {
        let m = s.spawn(|| {
            let api = start("mastor");
            run_mastor(&path, &api.base_url)
        });
        let j = s.spawn(|| {
            let api = start("junit");
            run_junit(&input, &dir.join("junit"), &api.base_url)
        });
        let n = s.spawn(|| {
            let api = start("newman");
            run_newman(&input, &dir.join("postman"), &api.base_url)
        });
        (
            m.join().expect("mastor thread"),
            j.join().expect("junit thread"),
            n.join().expect("newman thread"),
        )
    });

    let ids = o_ids(&suite);
    let width = ids.iter().map(String::len).max().unwrap_or(4).max(4);
    let mut table = format!(
        "## {name} (expected: every oracle {})\n\n| {:<width$} | mastor | junit | newman |\n|{}|--------|-------|--------|\n",
        if expect_pass { "passes" } else { "fails" },
        "o_id",
        "-".repeat(width + 2),
    );
    let mut wrong = Vec::new();
    for o_id in &ids {
        let row = [mastor.1.get(o_id), junit.1.get(o_id), newman.1.get(o_id)];
        let _ = writeln!(
            table,
            "| {o_id:<width$} | {:<6} | {:<5} | {:<6} |",
            mark(row[0]),
            mark(row[1]),
            mark(row[2])
        );
        let expected = if expect_pass { Mark::Pass } else { Mark::Fail };
        if row.iter().any(|v| *v != Some(&expected)) {
            wrong.push(o_id.clone());
        }
    }
    let codes = [
        ("mastor", mastor.0),
        ("junit", junit.0),
        ("newman", newman.0),
    ];
    let _ = writeln!(table, "\nexit codes: {codes:?}\n");
    if !wrong.is_empty() {
        let _ = writeln!(
            table,
            "--- mastor stderr:\n{}\n--- launcher:\n{}\n--- newman:\n{}",
            mastor.2, junit.2, newman.2
        );
    }
    for (runner, code) in codes {
        if (code == 0) != expect_pass {
            wrong.push(format!("{runner} exit code {code}"));
        }
    }
    (table, wrong)
}

#[test]
fn mastor_junit_and_newman_agree_on_every_oracle() {
    let work = tempfile::tempdir().expect("tempdir");
    let (reference, bad_reference) = cross_check("reference", true, work.path());
    let (wrong, bad_wrong) = cross_check("wrong", false, work.path());

    let report = format!("# Cross-runner agreement\n\n{reference}\n{wrong}");
    eprintln!("{report}");
    let out = repo_root().join("target/cross-runner.md");
    if let Some(parent) = out.parent() {
        std::fs::create_dir_all(parent).expect("target dir");
    }
    std::fs::write(&out, &report).expect("write target/cross-runner.md");

    assert!(
        reference.matches("| pass ").count() >= 3 * 30,
        "the reference table must hold at least 30 oracles passing in 3 runners:\n{reference}"
    );
    assert!(
        wrong.matches("| fail ").count() >= 3 * 30,
        "the wrong table must hold at least 30 oracles failing in 3 runners:\n{wrong}"
    );
    assert!(
        bad_reference.is_empty(),
        "reference: not passing in every runner: {bad_reference:?}"
    );
    assert!(
        bad_wrong.is_empty(),
        "wrong: not failing in every runner: {bad_wrong:?}"
    );
}
