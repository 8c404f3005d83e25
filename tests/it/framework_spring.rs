//! The whole loop on a real framework: the Spring MVC 4.3 fixture
//! (tests/fixtures/shop-spring-run, embedded Jetty 9.4) started live. Its hand-checked
//! reference suite passes under `mastor check`, JUnit and newman, and a wrong copy fails
//! in each; a scripted-model `mastor run` whose oracles are checked against the live
//! server (the model's guess at Spring's own status for a bad path variable fails);
//! `mutate` building and starting copies with the fixture's scripts, with hand-checked
//! kills and survivors. Needs the Debian jars of scripts/setup.sh.

use crate::export_common::{compile_junit, launch_junit, newman_json};
use crate::framework_support::*;
use crate::runner_support::mastor;
use crate::support::{mastor_cmd, read_json};
use mastor::export::{ExportInput, Selection};
use mastor::llm::scripted::{Reply, Rule, Script, ScriptedServer};
use serde_json::{Value, json};
use std::path::Path;

const DIR: &str = "shop-spring-run";
const GET: &str = "GET /api/products/{id}";
const PAY: &str = "POST /api/orders/{id}/pay";
const PRODUCT_SERVICE: &str = "src/main/java/shop/service/ProductService.java";
const ADVICE: &str = "src/main/java/shop/web/ApiErrorAdvice.java";

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
fn reference_suite_passes_against_live_spring_and_a_wrong_status_fails() {
    let api = LiveFixture::start("spring");
    let tmp = tempfile::tempdir().unwrap();
    let suite = project(DIR).join("suites/reference.json");
    let (code, verdicts, stderr) = check(&suite, &api.base_url);
    assert_eq!(failing(&verdicts), Vec::<&str>::new(), "{stderr}");
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(verdicts.len(), 48, "45 oracles and 3 sequences ran");

    // Spring itself answers 400 for a @PathVariable long that is not a number; a suite
    // that expects 404 there (a plausible guess from the code alone) must fail.
    let wrong = with_wrong_status(DIR, "fi_get_not_a_number", 404);
    let wrong = write_json(&tmp.path().join("wrong.json"), &wrong);
    let (code, verdicts, stderr) = check(&wrong, &api.base_url);
    assert_eq!(
        failing(&verdicts),
        vec!["GET /api/products/{id}#fi_get_not_a_number"],
        "{stderr}"
    );
    assert_eq!(code, 1);
}

#[test]
fn junit_and_postman_exports_pass_against_live_spring_and_a_wrong_copy_fails() {
    let tmp = tempfile::tempdir().unwrap();
    let wrong_path = write_json(
        &tmp.path().join("wrong.json"),
        &with_wrong_status(DIR, "fi_create_text_plain", 400),
    );
    for (name, path, expect_failures) in [
        ("reference", project(DIR).join("suites/reference.json"), 0),
        ("wrong", wrong_path, 1),
    ] {
        // A fresh server per suite: the exports run in their framework's order.
        let api = LiveFixture::start("spring");
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
            cases, 48,
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
            assert!(failed[0].contains("fi_create_text_plain"), "{failed:?}");
        }
        let requests = parsed["run"]["stats"]["requests"]["total"]
            .as_u64()
            .unwrap_or(0);
        assert!(
            requests >= 48,
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

/// Extraction, generation and review of GET /api/products/{id} and the pay transition.
/// One oracle is the kind of mistake a model makes without the framework's facts: it
/// expects 404 for a non-numeric id, where Spring answers 400 before the handler runs.
fn spring_script() -> Script {
    let rule = |agent: &str, op: &str, reply: Value| Rule {
        agent: Some(agent.into()),
        op: Some(op.into()),
        replies: vec![Reply::json(reply)],
        ..Rule::default()
    };
    let get_oracles = json!({"oracles": [
        {"test_id": "fv_get_dune", "oracle_strategy": "fv", "input": {"path": {"id": "1"}},
         "assertions": [{"type": "status", "expected": 200},
                        {"type": "field", "field_path": "name", "op": "equals", "expected": "Dune"}]},
        {"test_id": "fi_get_abc", "oracle_strategy": "fi", "input": {"path": {"id": "abc"}},
         "assertions": [{"type": "status", "expected": 404}]},
        {"test_id": "bi_get_zero", "oracle_strategy": "bi", "input": {"path": {"id": "0"}},
         "assertions": [{"type": "status", "expected": 404}]}]});
    let pay_oracles = json!({"oracles": [
        {"test_id": "fv_pay_new", "oracle_strategy": "fv", "input": {"path": {"id": "1"}},
         "assertions": [{"type": "status", "expected": 200},
                        {"type": "field", "field_path": "status", "op": "equals", "expected": "PAID"}]},
        {"test_id": "fi_pay_shipped", "oracle_strategy": "fi", "input": {"path": {"id": "3"}},
         "assertions": [{"type": "status", "expected": 409}]},
        {"test_id": "fi_pay_missing", "oracle_strategy": "fi", "input": {"path": {"id": "99"}},
         "assertions": [{"type": "status", "expected": 404}]}]});
    Script {
        rules: vec![
            rule(
                "extraction",
                GET,
                context(
                    &["id", "name", "stock"],
                    200,
                    &[(404, "no product with id")],
                ),
            ),
            rule(
                "extraction",
                PAY,
                context(
                    &["id", "status"],
                    200,
                    &[(404, "no order with id"), (409, "order is not NEW")],
                ),
            ),
            rule("single_op", GET, get_oracles),
            rule("single_op", PAY, pay_oracles),
            rule("single_op_challenger", GET, json!({"hints": []})),
            rule("single_op_challenger", PAY, json!({"hints": []})),
        ],
        fallback: vec![Reply::json(
            json!({"matches": [], "oracles": [], "hints": [], "groups": []}),
        )],
        n_ctx: None,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn scripted_run_on_spring_then_check_against_the_live_server() {
    let server = ScriptedServer::start(spring_script()).await.unwrap();
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
                PAY,
                "--no-multi-op",
                "--out",
                session.to_str().unwrap(),
            ],
        )
        .output()
        .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "mastor run: {stderr}");
        // The scan mapped both operations to their Spring handlers.
        let ops = read_json(&session.join("operations.json"));
        let text = ops.to_string();
        assert!(
            text.contains("ProductController") && text.contains("OrderController"),
            "{text}"
        );

        let api = LiveFixture::start("spring");
        let (code, verdicts, stderr) = check(&session, &api.base_url);
        let mut all: Vec<(String, String)> = verdicts;
        all.sort();
        let expected: Vec<(String, String)> = [
            ("GET /api/products/{id}#bi_get_zero", "pass"),
            ("GET /api/products/{id}#fi_get_abc", "fail"),
            ("GET /api/products/{id}#fv_get_dune", "pass"),
            ("POST /api/orders/{id}/pay#fi_pay_missing", "pass"),
            ("POST /api/orders/{id}/pay#fi_pay_shipped", "pass"),
            ("POST /api/orders/{id}/pay#fv_pay_new", "pass"),
        ]
        .iter()
        .map(|(o, v)| (o.to_string(), v.to_string()))
        .collect();
        assert_eq!(all, expected, "{stderr}");
        assert_eq!(code, 1, "a failing oracle: exit 1");
    });
}

#[test]
fn mutate_builds_and_starts_spring_copies_with_hand_checked_outcomes() {
    let tmp = tempfile::tempdir().unwrap();
    let suite = write_json(
        &tmp.path().join("suite.json"),
        &subset(DIR, &["fv_get_dune", "fi_get_missing", "fi_pay_shipped"]),
    );
    // ProductService.java:50 `throw new NotFoundException(..)` in get(): removed, the
    // controller returns null and Spring answers 200 with no body; fi_get_missing (404)
    // kills it. :60 `messages.add("name must be at most 40 characters")`: no oracle of
    // this suite creates a product, so it survives. ApiErrorAdvice.java:24/:39 (status
    // swaps in the @ControllerAdvice): no bundle's import closure holds the advice
    // (nothing imports it), so they are not covered.
    let diff = diff_touching(
        &tmp.path().join("change.diff"),
        &[
            (PRODUCT_SERVICE, 50),
            (PRODUCT_SERVICE, 60),
            (ADVICE, 24),
            (ADVICE, 39),
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
        "remove_throw,remove_field_write,status_swap",
        "--files",
        "src/main/java/shop/**/*.java",
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
        (format!("{PRODUCT_SERVICE}:50"), "remove_throw", "caught"),
        (
            format!("{PRODUCT_SERVICE}:60"),
            "remove_field_write",
            "missed",
        ),
        (format!("{ADVICE}:24"), "status_swap", "not_covered"),
        (format!("{ADVICE}:39"), "status_swap", "not_covered"),
    ]
    .iter()
    .map(|(f, o, s)| (f.clone(), o.to_string(), s.to_string()))
    .collect();
    expected.sort();
    assert_eq!(rows, expected, "{matrix:#}");
    let caught = matrix["mutants"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["status"] == "caught")
        .unwrap();
    assert_eq!(
        caught["killed_by"][0]["o_id"],
        "GET /api/products/{id}#fi_get_missing"
    );
    let summary = read_json(&out.join("summary.json"));
    assert_eq!(summary["total"]["score"], 0.5, "{summary:#}");
    assert!(stdout.contains("mutation score 50.0%"), "{stdout}");
}
