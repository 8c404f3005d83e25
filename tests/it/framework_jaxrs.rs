//! The whole loop on JAX-RS: the Jersey 1.19 fixture (tests/fixtures/library-jersey, JDK
//! HTTP server container) started live. Its hand-checked reference suite passes under
//! `mastor check`, JUnit and newman, and a wrong copy fails in each; a scripted-model
//! `mastor run` whose oracles are checked against the live server (the model's guess of
//! 400 for a non-integer @PathParam fails: JAX-RS answers 404); `mutate` building and
//! starting copies with the fixture's scripts, with hand-checked kills and survivors.
//! Needs the Debian jars of scripts/setup.sh.

use crate::export_common::{compile_junit, launch_junit, newman_json};
use crate::framework_support::*;
use crate::runner_support::mastor;
use crate::support::{mastor_cmd, read_json};
use mastor::export::{ExportInput, Selection};
use mastor::llm::scripted::{Reply, Rule, Script, ScriptedServer};
use serde_json::{Value, json};
use std::path::Path;

const DIR: &str = "library-jersey";
const GET: &str = "GET /api/books/{id}";
const RETURN: &str = "POST /api/books/{id}/return";
const LOAN_SERVICE: &str = "src/main/java/library/service/LoanService.java";
const API_EXCEPTION: &str = "src/main/java/library/error/ApiException.java";

fn check(suite: &Path, url: &str) -> (i32, Vec<(String, String)>, String) {
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

fn failing(verdicts: &[(String, String)]) -> Vec<&str> {
    verdicts
        .iter()
        .filter(|(_, outcome)| outcome != "pass")
        .map(|(o_id, _)| o_id.as_str())
        .collect()
}

#[test]
fn reference_suite_passes_against_live_jersey_and_a_wrong_status_fails() {
    let api = LiveFixture::start("jaxrs");
    let tmp = tempfile::tempdir().unwrap();
    let suite = project(DIR).join("suites/reference.json");
    let (code, verdicts, stderr) = check(&suite, &api.base_url);
    assert_eq!(failing(&verdicts), Vec::<&str>::new(), "{stderr}");
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(verdicts.len(), 37, "35 oracles and 2 sequences ran");

    // JAX-RS answers 404 for a @PathParam int that does not convert; a suite that
    // expects 400 there (what Spring would answer) must fail.
    let wrong = with_wrong_status(DIR, "fi_get_not_an_int", 400);
    let wrong = write_json(&tmp.path().join("wrong.json"), &wrong);
    let (code, verdicts, stderr) = check(&wrong, &api.base_url);
    assert_eq!(
        failing(&verdicts),
        vec!["GET /api/books/{id}#fi_get_not_an_int"],
        "{stderr}"
    );
    assert_eq!(code, 1);
}

#[test]
fn junit_and_postman_exports_pass_against_live_jersey_and_a_wrong_copy_fails() {
    let tmp = tempfile::tempdir().unwrap();
    let wrong_path = write_json(
        &tmp.path().join("wrong.json"),
        &with_wrong_status(DIR, "fi_add_text_plain", 400),
    );
    for (name, path, expect_failures) in [
        ("reference", project(DIR).join("suites/reference.json"), 0),
        ("wrong", wrong_path, 1),
    ] {
        // A fresh server per suite: the exports run in their framework's order.
        let api = LiveFixture::start("jaxrs");
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
            cases, 37,
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
            assert!(failed[0].contains("fi_add_text_plain"), "{failed:?}");
        }
        let requests = parsed["run"]["stats"]["requests"]["total"]
            .as_u64()
            .unwrap_or(0);
        assert!(
            requests >= 37,
            "{name}: newman sent {requests} requests\n{text}"
        );
        assert_eq!(
            code == 0,
            expect_failures == 0,
            "{name}: newman exit {code}"
        );
    }
}

fn context(fields: &[&str], success: u16, errors: &[(u16, &str)]) -> Value {
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

/// Extraction, generation and review of GET /api/books/{id} and the return transition.
/// One oracle is the kind of mistake a model makes without the framework's facts: it
/// expects 400 for a non-integer id, where JAX-RS answers 404 before the method runs.
fn jersey_script() -> Script {
    let rule = |agent: &str, op: &str, reply: Value| Rule {
        agent: Some(agent.into()),
        op: Some(op.into()),
        replies: vec![Reply::json(reply)],
        ..Rule::default()
    };
    let get_oracles = json!({"oracles": [
        {"test_id": "fv_get_dune", "oracle_strategy": "fv", "input": {"path": {"id": "1"}},
         "assertions": [{"type": "status", "expected": 200},
                        {"type": "field", "field_path": "title", "op": "equals", "expected": "Dune"}]},
        {"test_id": "fi_get_abc", "oracle_strategy": "fi", "input": {"path": {"id": "abc"}},
         "assertions": [{"type": "status", "expected": 400}]},
        {"test_id": "fi_get_missing", "oracle_strategy": "fi", "input": {"path": {"id": "99"}},
         "assertions": [{"type": "status", "expected": 404}]}]});
    let return_oracles = json!({"oracles": [
        {"test_id": "fi_return_on_shelf", "oracle_strategy": "fi", "input": {"path": {"id": "1"}},
         "assertions": [{"type": "status", "expected": 409}]},
        {"test_id": "fi_return_missing", "oracle_strategy": "fi", "input": {"path": {"id": "99"}},
         "assertions": [{"type": "status", "expected": 404}]}]});
    Script {
        rules: vec![
            rule(
                "extraction",
                GET,
                context(
                    &["id", "title", "onLoan"],
                    200,
                    &[(404, "no book with id"), (400, "id is not an integer")],
                ),
            ),
            rule(
                "extraction",
                RETURN,
                context(
                    &["id", "onLoan"],
                    200,
                    &[(404, "no book with id"), (409, "book is not on loan")],
                ),
            ),
            rule("single_op", GET, get_oracles),
            rule("single_op", RETURN, return_oracles),
            rule("single_op_challenger", GET, json!({"hints": []})),
            rule("single_op_challenger", RETURN, json!({"hints": []})),
        ],
        fallback: vec![Reply::json(
            json!({"matches": [], "oracles": [], "hints": [], "groups": []}),
        )],
        n_ctx: None,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn scripted_run_on_jersey_then_check_against_the_live_server() {
    let server = ScriptedServer::start(jersey_script()).await.unwrap();
    let url = server.base_url();
    tokio::task::block_in_place(|| {
        let tmp = tempfile::tempdir().unwrap();
        let session = tmp.path().join("session");
        let project = project(DIR);
        let out = mastor_cmd(
            &url,
            tmp.path(),
            &[
                "run",
                project.to_str().unwrap(),
                "--op",
                GET,
                "--op",
                RETURN,
                "--no-multi-op",
                "--out",
                session.to_str().unwrap(),
            ],
        )
        .output()
        .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "mastor run: {stderr}");
        // The scan mapped both operations to their JAX-RS resource methods.
        let ops = read_json(&session.join("operations.json"));
        let text = ops.to_string();
        assert!(
            text.contains("BookResource") && text.contains("giveBack"),
            "{text}"
        );

        let api = LiveFixture::start("jaxrs");
        let (code, verdicts, stderr) = check(&session, &api.base_url);
        let mut all: Vec<(String, String)> = verdicts;
        all.sort();
        let expected: Vec<(String, String)> = [
            ("GET /api/books/{id}#fi_get_abc", "fail"),
            ("GET /api/books/{id}#fi_get_missing", "pass"),
            ("GET /api/books/{id}#fv_get_dune", "pass"),
            ("POST /api/books/{id}/return#fi_return_missing", "pass"),
            ("POST /api/books/{id}/return#fi_return_on_shelf", "pass"),
        ]
        .iter()
        .map(|(o, v)| (o.to_string(), v.to_string()))
        .collect();
        assert_eq!(all, expected, "{stderr}");
        assert_eq!(code, 1, "a failing oracle: exit 1");
    });
}

#[test]
fn mutate_builds_and_starts_jersey_copies_with_hand_checked_outcomes() {
    let tmp = tempfile::tempdir().unwrap();
    let suite = write_json(
        &tmp.path().join("suite.json"),
        &subset(
            DIR,
            &["fv_get_dune", "fi_get_missing", "fi_return_not_lent"],
        ),
    );
    // LoanService.java:43 `throw ApiException.notFound(..)` in get(): removed, the
    // resource returns null and Jersey answers 204; fi_get_missing (404) kills it. :56
    // the year-range throw: no oracle of this suite adds a book, so it survives.
    // ApiException.java:19 `new ApiException(404, ..)` swapped to 400: fi_get_missing
    // kills it; :23 `new ApiException(400, ..)` swapped to 404: no oracle of this suite
    // sends invalid input, so it survives.
    let diff = diff_touching(
        &tmp.path().join("change.diff"),
        &[
            (LOAN_SERVICE, 43),
            (LOAN_SERVICE, 56),
            (API_EXCEPTION, 19),
            (API_EXCEPTION, 23),
        ],
    );
    let out = tmp.path().join("out");
    let project = project(DIR);
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
        "remove_throw,status_swap",
        "--jobs",
        "2",
    ];
    args.extend(build_and_start_args());
    let (code, stdout, stderr) = mastor(&args);
    assert_eq!(
        code, 0,
        "every oracle passes on the original\n{stdout}\n{stderr}"
    );
    let matrix = read_json(&out.join("matrix.json"));
    let rows = outcomes(&out, &matrix);
    let mut expected: Vec<(String, String, String)> = [
        (format!("{LOAN_SERVICE}:43"), "remove_throw", "caught"),
        (format!("{LOAN_SERVICE}:56"), "remove_throw", "missed"),
        (format!("{API_EXCEPTION}:19"), "status_swap", "caught"),
        (format!("{API_EXCEPTION}:23"), "status_swap", "missed"),
    ]
    .iter()
    .map(|(f, o, s)| (f.clone(), o.to_string(), s.to_string()))
    .collect();
    expected.sort();
    assert_eq!(rows, expected, "{matrix:#}");
    for row in matrix["mutants"].as_array().unwrap() {
        if row["status"] == "caught" {
            assert_eq!(
                row["killed_by"][0]["o_id"], "GET /api/books/{id}#fi_get_missing",
                "{row:#}"
            );
        }
    }
    let summary = read_json(&out.join("summary.json"));
    assert_eq!(summary["total"]["score"], 0.5, "{summary:#}");
    assert!(stdout.contains("mutation score 50.0%"), "{stdout}");
}

#[test]
fn fixture_api_script_stops_the_server_it_started_and_names_an_unknown_fixture() {
    let state = tempfile::tempdir().unwrap();
    let script = crate::export_common::repo_root().join("scripts/fixture-api.sh");
    let cmd = |args: &[&str]| {
        let mut c = std::process::Command::new("bash");
        c.arg(&script)
            .args(args)
            .env("FIXTURE_API_STATE", state.path())
            .env("FIXTURE_API_CLASSES", state.path().join("classes"));
        crate::export_common::run(&mut c)
    };
    let (code, text) = cmd(&["start", "jaxrs", "0"]);
    assert_eq!(code, 0, "{text}");
    let url = text
        .lines()
        .rev()
        .find(|l| l.starts_with("http://127.0.0.1:"))
        .unwrap_or_else(|| panic!("no base URL in {text}"))
        .to_string();
    let port: u16 = url.rsplit(':').next().unwrap().parse().unwrap();
    let addr = std::net::SocketAddr::from(([127, 0, 0, 1], port));
    assert!(std::net::TcpStream::connect(addr).is_ok(), "{url} answers");
    let (code, text) = cmd(&["start", "jaxrs", "0"]);
    assert_eq!(code, 1, "a second start is refused: {text}");
    assert!(text.contains("already running"), "{text}");
    let (code, text) = cmd(&["stop", "jaxrs"]);
    assert_eq!(code, 0, "{text}");
    assert!(text.contains("stopped pid"), "{text}");
    assert!(
        std::net::TcpStream::connect(addr).is_err(),
        "nothing listens on {url} after stop"
    );
    assert!(!state.path().join("server.pid").exists());

    let (code, text) = cmd(&["start", "struts", "0"]);
    assert_eq!(code, 1, "{text}");
    assert!(
        text.contains("unknown fixture 'struts' (petstore, spring or jaxrs)"),
        "{text}"
    );
}
