//! Shared by the framework fixture tests (`framework_spring`, `framework_jaxrs`): a live
//! fixture server started with `scripts/fixture-api.sh start <fixture>`, stopped on drop;
//! the fixture's reference suite, whole or in part, with one assertion made wrong; the
//! `mutate` command line that builds and starts a framework fixture from a copy; and the
//! flow both files run, each against its own [`Framework`] description: the reference
//! suite and a wrong copy under `mastor check`, JUnit and newman; a scripted-model `mastor
//! run` checked against the live server; `mutate` with hand-checked outcomes.
#![allow(dead_code)]

use crate::export_common::{compile_junit, launch_junit, newman_json, repo_root, run};
use crate::runner_support::mastor;
use crate::support::{mastor_cmd, read_json};
use mastor::export::{ExportInput, Selection};
use mastor::llm::scripted::{Reply, Rule, Script, ScriptedServer};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::process::Command;

/// A framework fixture server (`spring` or `jaxrs`), stopped when dropped.
pub struct LiveFixture {
    pub base_url: String,
    fixture: &'static str,
    state: tempfile::TempDir,
}

impl LiveFixture {
    pub fn start(fixture: &'static str) -> LiveFixture {
        let state = tempfile::Builder::new()
            .prefix(&format!("mastor-{fixture}-fixture-"))
            .tempdir()
            .expect("create fixture state dir");
        let (code, text) = run(script(fixture, state.path()).args(["start", fixture, "0"]));
        assert_eq!(code, 0, "{fixture} fixture did not start: {text}");
        let base_url = text
            .lines()
            .rev()
            .find(|l| l.starts_with("http://127.0.0.1:"))
            .unwrap_or_else(|| panic!("no base URL in: {text}"))
            .to_string();
        LiveFixture {
            base_url,
            fixture,
            state,
        }
    }
}

impl Drop for LiveFixture {
    fn drop(&mut self) {
        let _ = script(self.fixture, self.state.path())
            .args(["stop", self.fixture])
            .output();
    }
}

fn script(_fixture: &str, state: &Path) -> Command {
    let mut cmd = Command::new("bash");
    cmd.arg(repo_root().join("scripts/fixture-api.sh"))
        .env("FIXTURE_API_STATE", state)
        .env("FIXTURE_API_CLASSES", state.join("classes"));
    cmd
}

/// The fixture project directory under tests/fixtures.
pub fn project(dir: &str) -> PathBuf {
    repo_root().join("tests/fixtures").join(dir)
}

/// The fixture's hand-checked reference suite.
pub fn reference(dir: &str) -> Value {
    let path = project(dir).join("suites/reference.json");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path:?}: {e}"));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{path:?}: {e}"))
}

/// The reference suite's oracles named by test_id (every id must exist), no sequences.
pub fn subset(dir: &str, ids: &[&str]) -> Value {
    let reference = reference(dir);
    let oracles: Vec<Value> = reference["oracles"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|o| ids.contains(&o["test_id"].as_str().unwrap()))
        .cloned()
        .collect();
    assert_eq!(
        oracles.len(),
        ids.len(),
        "every id is in the reference suite"
    );
    json!({"schema_version": 1, "oracles": oracles})
}

/// The reference suite with the status expectation of oracle `test_id` replaced by
/// `status`.
pub fn with_wrong_status(dir: &str, test_id: &str, status: u16) -> Value {
    let mut suite = reference(dir);
    let oracle = suite["oracles"]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .find(|o| o["test_id"] == test_id)
        .unwrap_or_else(|| panic!("{test_id} not in the reference suite"));
    let assertion = oracle["assertions"]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .find(|a| a["type"] == "status")
        .expect("a status assertion");
    assertion["expected"] = json!(status);
    suite
}

pub fn write_json(path: &Path, value: &Value) -> PathBuf {
    std::fs::write(path, serde_json::to_string_pretty(value).unwrap()).unwrap();
    path.to_path_buf()
}

/// A unified diff touching the given lines (for `mutate --in-diff`).
pub fn diff_touching(path: &Path, lines: &[(&str, usize)]) -> PathBuf {
    let text: String = lines
        .iter()
        .map(|(file, line)| {
            format!("--- a/{file}\n+++ b/{file}\n@@ -{line},1 +{line},1 @@\n-x\n+x\n")
        })
        .collect();
    std::fs::write(path, text).unwrap();
    path.to_path_buf()
}

/// `mutate` arguments that build a copy with the fixture's build.sh and start it with
/// its run.sh (the whole-copy path: the fixture needs jars on the class path).
pub fn build_and_start_args() -> [&'static str; 4] {
    [
        "--build",
        "bash {dir}/build.sh {dir}",
        "--start",
        "exec bash {dir}/run.sh {dir} {port}",
    ]
}

/// Per o_id, whether each oracle passed, from `mastor check --json` output.
pub fn verdicts(json_out: &str) -> Vec<(String, String)> {
    let report: Value = serde_json::from_str(json_out)
        .unwrap_or_else(|e| panic!("check --json is not JSON ({e}): {json_out}"));
    report["verdicts"]
        .as_array()
        .unwrap_or_else(|| panic!("no verdicts in {report:#}"))
        .iter()
        .map(|v| {
            (
                v["o_id"].as_str().unwrap_or_default().to_string(),
                v["outcome"].as_str().unwrap_or_default().to_string(),
            )
        })
        .collect()
}

/// `(file:line, operator, status)` of every mutant of a `mutate` run, sorted: the
/// mutant's place from `mutants.jsonl`, its outcome from `matrix.json`.
pub fn outcomes(out: &Path, matrix: &Value) -> Vec<(String, String, String)> {
    let text = std::fs::read_to_string(out.join("mutants.jsonl")).expect("mutants.jsonl");
    let mutants: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).expect("a mutant per line"))
        .collect();
    let mut rows: Vec<(String, String, String)> = matrix["mutants"]
        .as_array()
        .expect("matrix mutants")
        .iter()
        .map(|row| {
            let m = mutants
                .iter()
                .find(|m| m["id"] == row["id"])
                .unwrap_or_else(|| panic!("{} not in mutants.jsonl", row["id"]));
            (
                format!("{}:{}", m["file"].as_str().unwrap(), m["line"]),
                m["operator"].as_str().unwrap().to_string(),
                row["status"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    rows.sort();
    rows
}

/// One framework fixture's facts, for the shared flow below.
pub struct Framework {
    /// The `scripts/fixture-api.sh` name (`spring`, `jaxrs`).
    pub fixture: &'static str,
    /// The project directory under tests/fixtures.
    pub dir: &'static str,
    /// The read operation and the state transition the scripted run covers.
    pub get: &'static str,
    pub transition: &'static str,
    /// Oracles plus sequences of the reference suite, and what that number is made of.
    pub runs: usize,
    pub runs_note: &'static str,
    /// The `mastor check` test: the oracle given a wrong status, and its o_id.
    pub check_wrong: WrongStatus,
    /// The export test (JUnit, newman): the test_id of the oracle given a wrong status,
    /// and that status.
    pub export_wrong: (&'static str, u16),
    /// Names the scan's operations.json must hold (the handlers it mapped).
    pub scan_names: &'static [&'static str],
    /// Every `(o_id, outcome)` of checking the scripted run's session, sorted.
    pub run_verdicts: &'static [(&'static str, &'static str)],
    pub mutate: Mutate,
}

/// An oracle of the reference suite whose status expectation is made wrong.
pub struct WrongStatus {
    pub test_id: &'static str,
    pub status: u16,
    /// The o_id that then fails.
    pub o_id: &'static str,
}

/// A `mutate` run on a subset of the reference suite, with hand-checked outcomes.
pub struct Mutate {
    /// The test_ids of the subset.
    pub suite: &'static [&'static str],
    /// The lines the `--in-diff` touches.
    pub lines: &'static [(&'static str, usize)],
    pub operators: &'static str,
    /// Further `mutate` arguments.
    pub extra_args: &'static [&'static str],
    /// `(file, line, operator, status)` of every mutant.
    pub outcomes: &'static [(&'static str, usize, &'static str, &'static str)],
    /// The o_id that kills every caught mutant.
    pub killer: &'static str,
    pub score: f64,
    pub score_line: &'static str,
}

/// `mastor check --only all --json`: exit code, verdicts, stderr.
pub fn check(suite: &Path, url: &str) -> (i32, Vec<(String, String)>, String) {
    let (code, stdout, stderr) = mastor(&[
        "check",
        suite.to_str().unwrap(),
        "--base-url",
        url,
        "--only",
        "all",
        "--json",
    ]);
    (code, verdicts(&stdout), stderr)
}

/// The o_ids of the verdicts that did not pass.
pub fn failing(verdicts: &[(String, String)]) -> Vec<&str> {
    verdicts
        .iter()
        .filter(|(_, outcome)| outcome != "pass")
        .map(|(o_id, _)| o_id.as_str())
        .collect()
}

/// The reference suite passes under `mastor check` against the live fixture; a copy with
/// `check_wrong` fails in exactly that oracle.
pub fn reference_suite_passes_and_a_wrong_status_fails(fw: &Framework) {
    let api = LiveFixture::start(fw.fixture);
    let tmp = tempfile::tempdir().unwrap();
    let suite = project(fw.dir).join("suites/reference.json");
    let (code, verdicts, stderr) = check(&suite, &api.base_url);
    assert_eq!(failing(&verdicts), Vec::<&str>::new(), "{stderr}");
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(verdicts.len(), fw.runs, "{}", fw.runs_note);

    let wrong = with_wrong_status(fw.dir, fw.check_wrong.test_id, fw.check_wrong.status);
    let wrong = write_json(&tmp.path().join("wrong.json"), &wrong);
    let (code, verdicts, stderr) = check(&wrong, &api.base_url);
    assert_eq!(failing(&verdicts), vec![fw.check_wrong.o_id], "{stderr}");
    assert_eq!(code, 1);
}

/// The reference suite exported to JUnit and Postman passes against the live fixture; a
/// copy with `export_wrong` fails once in each.
pub fn junit_and_postman_exports_pass_and_a_wrong_copy_fails(fw: &Framework) {
    let tmp = tempfile::tempdir().unwrap();
    let wrong_path = write_json(
        &tmp.path().join("wrong.json"),
        &with_wrong_status(fw.dir, fw.export_wrong.0, fw.export_wrong.1),
    );
    for (name, path, expect_failures) in [
        (
            "reference",
            project(fw.dir).join("suites/reference.json"),
            0,
        ),
        ("wrong", wrong_path, 1),
    ] {
        // A fresh server per suite: the exports run in their framework's order.
        let api = LiveFixture::start(fw.fixture);
        let loaded = mastor::suite::load_file(&path).expect("suite loads");
        assert!(loaded.problems.is_empty(), "{:?}", loaded.problems);
        let input = ExportInput::from_suite(loaded.suite, Selection::All);
        let dir = tmp.path().join(name);

        let junit_dir = dir.join("junit");
        compile_junit(&input, &junit_dir);
        let (code, xml, text) = launch_junit(&junit_dir, Some(&api.base_url));
        let cases = xml.matches("<testcase ").count();
        let failures = xml.matches("<failure").count() + xml.matches("<error").count();
        assert_eq!(
            cases, fw.runs,
            "{name}: one JUnit test per oracle and sequence\n{text}"
        );
        assert_eq!(
            failures, expect_failures,
            "{name}: JUnit failures\n{text}\n{xml}"
        );
        assert_eq!(
            code == 0,
            expect_failures == 0,
            "{name}: launcher exit {code}"
        );

        let report = mastor::export::export(
            &input,
            mastor::export::Format::Postman,
            &dir.join("postman"),
        )
        .expect("postman export");
        let (code, parsed, text) =
            newman_json(&report.files[0], &api.base_url, &dir.join("newman.json"));
        let failed: Vec<String> = parsed["run"]["failures"]
            .as_array()
            .cloned()
            .unwrap_or_default()
            .iter()
            .map(|f| f["source"]["name"].as_str().unwrap_or_default().to_string())
            .collect();
        assert_eq!(
            failed.len(),
            expect_failures,
            "{name}: newman failures {failed:?}\n{text}"
        );
        if expect_failures == 1 {
            assert!(failed[0].contains(fw.export_wrong.0), "{failed:?}");
        }
        let requests = parsed["run"]["stats"]["requests"]["total"]
            .as_u64()
            .unwrap_or(0);
        assert!(
            requests >= fw.runs as u64,
            "{name}: newman sent {requests} requests\n{text}"
        );
        assert_eq!(
            code == 0,
            expect_failures == 0,
            "{name}: newman exit {code}"
        );
    }
}

/// An extraction reply: a required long path parameter `id`, the response fields, the
/// success status and the error cases.
pub fn context(fields: &[&str], success: u16, errors: &[(u16, &str)]) -> Value {
    json!({
        "request_params": [{"name": "id", "location": "path", "type": "long", "required": true,
                            "constraints": [], "oas_match": true}],
        "response_schema": {
            "success_status": success,
            "fields": fields.iter().map(|f| json!({"name": f, "type": "String", "nullable": false})).collect::<Vec<_>>(),
            "error_cases": errors.iter().map(|(s, c)| json!({"status": s, "condition": c})).collect::<Vec<_>>()
        },
        "request_params_pending": [],
        "response_schema_pending": []
    })
}

/// The scripted model of the run: for `fw.get` and `fw.transition` its extraction
/// context and its oracles, no challenger hints; an empty reply to anything else.
pub fn model_script(fw: &Framework, get: (Value, Value), transition: (Value, Value)) -> Script {
    let rule = |agent: &str, op: &str, reply: Value| Rule {
        agent: Some(agent.into()),
        op: Some(op.into()),
        replies: vec![Reply::json(reply)],
        ..Rule::default()
    };
    let (get_context, get_oracles) = get;
    let (transition_context, transition_oracles) = transition;
    Script {
        rules: vec![
            rule("extraction", fw.get, get_context),
            rule("extraction", fw.transition, transition_context),
            rule("single_op", fw.get, get_oracles),
            rule("single_op", fw.transition, transition_oracles),
            rule("single_op_challenger", fw.get, json!({"hints": []})),
            rule("single_op_challenger", fw.transition, json!({"hints": []})),
        ],
        fallback: vec![Reply::json(
            json!({"matches": [], "oracles": [], "hints": [], "groups": []}),
        )],
        n_ctx: None,
    }
}

/// `mastor run` of both operations against the scripted model, then the session checked
/// against the live fixture: every verdict as `fw.run_verdicts`, exit 1 for the failing
/// oracle. Call from a multi-thread tokio test.
pub async fn scripted_run_then_check_against_the_live_server(fw: &Framework, script: Script) {
    let server = ScriptedServer::start(script).await.unwrap();
    let url = server.base_url();
    tokio::task::block_in_place(|| {
        let tmp = tempfile::tempdir().unwrap();
        let session = tmp.path().join("session");
        let project = project(fw.dir);
        let out = mastor_cmd(
            &url,
            tmp.path(),
            &[
                "run",
                project.to_str().unwrap(),
                "--op",
                fw.get,
                "--op",
                fw.transition,
                "--no-multi-op",
                "--out",
                session.to_str().unwrap(),
            ],
        )
        .output()
        .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "mastor run: {stderr}");
        // The scan mapped both operations to the framework's handlers.
        let ops = read_json(&session.join("operations.json"));
        let text = ops.to_string();
        assert!(
            fw.scan_names.iter().all(|name| text.contains(name)),
            "{text}"
        );

        let api = LiveFixture::start(fw.fixture);
        let (code, verdicts, stderr) = check(&session, &api.base_url);
        let mut all: Vec<(String, String)> = verdicts;
        all.sort();
        let expected: Vec<(String, String)> = fw
            .run_verdicts
            .iter()
            .map(|(o, v)| (o.to_string(), v.to_string()))
            .collect();
        assert_eq!(all, expected, "{stderr}");
        assert_eq!(code, 1, "a failing oracle: exit 1");
    });
}

/// `mutate` building and starting copies with the fixture's scripts, on the lines of
/// `fw.mutate`: every mutant's outcome as hand-checked, each caught one killed by
/// `killer`, and the score.
pub fn mutate_builds_and_starts_copies_with_hand_checked_outcomes(fw: &Framework) {
    let m = &fw.mutate;
    let tmp = tempfile::tempdir().unwrap();
    let suite = write_json(&tmp.path().join("suite.json"), &subset(fw.dir, m.suite));
    let diff = diff_touching(&tmp.path().join("change.diff"), m.lines);
    let out = tmp.path().join("out");
    let project = project(fw.dir);
    let mut args = vec![
        "mutate",
        suite.to_str().unwrap(),
        "--project",
        project.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--in-diff",
        diff.to_str().unwrap(),
        "--operator",
        m.operators,
    ];
    args.extend(m.extra_args);
    args.extend(["--jobs", "2"]);
    args.extend(build_and_start_args());
    let (code, stdout, stderr) = mastor(&args);
    assert_eq!(
        code, 0,
        "every oracle passes on the original\n{stdout}\n{stderr}"
    );
    let matrix = read_json(&out.join("matrix.json"));
    let rows = outcomes(&out, &matrix);
    let mut expected: Vec<(String, String, String)> = m
        .outcomes
        .iter()
        .map(|(f, l, o, s)| (format!("{f}:{l}"), o.to_string(), s.to_string()))
        .collect();
    expected.sort();
    assert_eq!(rows, expected, "{matrix:#}");
    let caught: Vec<&Value> = matrix["mutants"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|row| row["status"] == "caught")
        .collect();
    assert!(!caught.is_empty(), "a caught mutant\n{matrix:#}");
    for row in caught {
        assert_eq!(row["killed_by"][0]["o_id"], m.killer, "{row:#}");
    }
    let summary = read_json(&out.join("summary.json"));
    assert_eq!(summary["total"]["score"], m.score, "{summary:#}");
    assert!(stdout.contains(m.score_line), "{stdout}");
}
