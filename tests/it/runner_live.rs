//! The runner against the live petstore-jdk fixture (and a small in-process axum server
//! for non-JSON bodies, path prefixes and timeouts).

use crate::runner_support;

use mastor::model::{Outcome, Verdict};
use mastor::runner::{self, Plan, RunConfig, RunReport, RunnerError};
use mastor::suite;
use runner_support::{closed_port_url, fixture_url};
use serde_json::{Value, json};
use std::path::Path;
use std::time::{Duration, Instant};

fn plan(v: Value) -> Plan {
    let loaded = suite::from_value(v, Path::new("test.json")).expect("suite loads");
    assert!(loaded.problems.is_empty(), "{:?}", loaded.problems);
    suite::select(&loaded.suite, suite::Only::All, &[]).expect("select")
}

fn cfg(base: &str) -> RunConfig {
    RunConfig {
        base_url: base.to_string(),
        ..RunConfig::default()
    }
}

async fn run(p: &Plan, c: &RunConfig) -> RunReport {
    runner::run(p, c).await.expect("run starts")
}

fn by_test<'a>(r: &'a RunReport, test_id: &str) -> &'a Verdict {
    r.verdicts
        .iter()
        .find(|v| v.o_id.ends_with(&format!("#{test_id}")))
        .unwrap_or_else(|| panic!("no verdict for {test_id}"))
}

fn field(path: &str, op: &str, expected: Value) -> Value {
    json!({"type": "field", "field_path": path, "op": op, "expected": expected})
}

#[tokio::test]
async fn every_op_passes_and_fails_against_the_live_api() {
    // (op, path, passing expected, failing expected) on GET /pets/1 (Rex, age 3).
    let cases = [
        ("equals", "name", json!("Rex"), json!("Tom")),
        ("equals", "age", json!("3"), json!(4)),
        ("not_equals", "name", json!("Tom"), json!("Rex")),
        ("not_null", "tag", Value::Null, Value::Null),
        ("is_null", "nothingHere", Value::Null, Value::Null),
        ("gt", "age", json!(2), json!(3)),
        ("gte", "age", json!(3), json!(4)),
        ("lt", "age", json!(4), json!(3)),
        ("lte", "age", json!(3), json!(2)),
        (
            "matches",
            "createdAt",
            json!("^\\d{4}-\\d{2}-\\d{2}T"),
            json!("^1999"),
        ),
        ("type", "ownerId", json!("integer"), json!("string")),
        ("contains", "name", json!("ex"), json!("om")),
        ("length", "name", json!(3), json!({"op": "gt", "value": 3})),
    ];
    let mut oracles = Vec::new();
    for (i, (op, path, pass, fail)) in cases.iter().enumerate() {
        // not_null/is_null fail on a different field than they pass on.
        let fail_path = match *op {
            "not_null" => "nothingHere",
            "is_null" => "name",
            _ => path,
        };
        oracles.push(
            json!({"op_id": "GET /pets/{id}", "test_id": format!("pass{i}_{op}"),
            "input": {"path": {"id": 1}}, "assertions": [field(path, op, pass.clone())]}),
        );
        oracles.push(
            json!({"op_id": "GET /pets/{id}", "test_id": format!("fail{i}_{op}"),
            "input": {"path": {"id": 1}}, "assertions": [field(fail_path, op, fail.clone())]}),
        );
    }
    let report = run(&plan(Value::Array(oracles)), &cfg(fixture_url())).await;
    assert_eq!(report.verdicts.len(), cases.len() * 2);
    for v in &report.verdicts {
        let want = if v.o_id.contains("#pass") {
            Outcome::Pass
        } else {
            Outcome::Fail
        };
        assert_eq!(v.outcome, want, "{}: {:?}", v.o_id, v.steps[0].assertions);
        if want == Outcome::Fail {
            let msg = &v.steps[0].assertions[0].message;
            assert!(msg.contains(" at "), "{}: {msg}", v.o_id);
        }
    }
    assert_eq!(report.summary.passed, cases.len());
    assert_eq!(report.summary.failed, cases.len());
}

#[tokio::test]
async fn index_and_every_element_paths() {
    let p = plan(json!([
        {"op_id": "GET /pets", "test_id": "idx", "assertions": [
            field("[0].name", "equals", json!("Rex")), field("[2].tag", "equals", json!("fish"))]},
        {"op_id": "GET /pets", "test_id": "all", "assertions": [
            field("[*].id", "gte", json!(1)), field("[*].createdAt", "type", json!("string"))]},
        {"op_id": "GET /pets", "test_id": "notall", "assertions": [
            field("[*].ageCategory", "equals", json!("adult"))]},
        {"op_id": "GET /pets", "test_id": "filtered_empty", "input": {"query": {"tag": "unicorn"}},
         "assertions": [field("[*].id", "not_null", Value::Null)]}
    ]));
    let report = run(&p, &cfg(fixture_url())).await;
    assert_eq!(by_test(&report, "idx").outcome, Outcome::Pass);
    assert_eq!(by_test(&report, "all").outcome, Outcome::Pass);
    let notall = by_test(&report, "notall");
    assert_eq!(notall.outcome, Outcome::Fail);
    let a = &notall.steps[0].assertions[0];
    assert!(a.message.contains("[1].ageCategory"), "{}", a.message);
    assert_eq!(a.actual[0], json!("adult"));
    let empty = by_test(&report, "filtered_empty");
    assert_eq!(
        empty.outcome,
        Outcome::Fail,
        "an empty list fails a [*] assertion"
    );
    assert!(
        empty.steps[0]
            .exchange
            .as_ref()
            .unwrap()
            .url
            .ends_with("/pets?tag=unicorn")
    );
}

#[tokio::test]
async fn multi_op_crud_with_captures_and_binds() {
    let p = plan(json!({"schema_version": 1, "multi_op": [{
    "test_id": "crud", "group_id": "pets",
    "steps": [
        {"op_id": "POST /pets", "input": {"body": {"name": "Crud O'Pet", "tag": "cat", "age": 4}},
         "captures": {"id": "id", "name": "name"},
         "assertions": [{"type": "status", "expected": 201}, field("id", "type", json!("integer"))]},
        {"op_id": "GET /pets/{id}", "input": {"path": {"id": "$captures.id"}},
         "assertions": [{"type": "status", "expected": 200},
                        field("id", "equals", json!("$captures.id")),
                        field("name", "equals", json!("$captures.name"))]},
        {"op_id": "PUT /pets/{id}", "input": {"path": {"id": "$captures.id"},
            "body": {"name": "Renamed $captures.id", "status": "sold", "age": 5}},
         "assertions": [{"type": "status", "expected": 200}, field("status", "equals", json!("sold"))]},
        {"op_id": "GET /pets/{id}", "input": {"path": {"id": "$captures.id"}},
         "assertions": [field("name", "equals", json!("Renamed $captures.id")),
                        field("age", "equals", json!(5))]},
        {"op_id": "DELETE /pets/{id}", "input": {"path": {"id": "$captures.id"}},
         "assertions": [{"type": "status", "expected": 204}]},
        {"op_id": "GET /pets/{id}", "input": {"path": {"id": "$captures.id"}},
         "assertions": [{"type": "status", "expected": 404}]}
    ]}]}));
    // Its own fixture API: the sequence writes.
    let fixture = runner_support::private_fixture();
    let report = run(&p, &cfg(fixture.url())).await;
    let v = &report.verdicts[0];
    assert_eq!(v.o_id, "pets#crud");
    for (n, s) in v.steps.iter().enumerate() {
        assert_eq!(s.outcome, Outcome::Pass, "step {}: {:?}", n + 1, s);
    }
    assert_eq!(v.outcome, Outcome::Pass);
    let created = &v.steps[0].exchange.as_ref().unwrap().response_body;
    let id = serde_json::from_str::<Value>(created).unwrap()["id"].clone();
    let read = v.steps[1].exchange.as_ref().unwrap();
    assert!(read.url.ends_with(&format!("/pets/{id}")), "{}", read.url);
    let put = v.steps[2].exchange.as_ref().unwrap();
    assert_eq!(
        put.request_body.as_ref().unwrap()["name"],
        json!(format!("Renamed {id}"))
    );
    assert!(
        put.curl.contains("-X PUT") && put.curl.contains(&format!("/pets/{id}'")),
        "{}",
        put.curl
    );
    // The curl line quotes the created pet's apostrophe safely.
    assert!(
        v.steps[0]
            .exchange
            .as_ref()
            .unwrap()
            .curl
            .contains(r"O'\''Pet")
    );
}

#[tokio::test]
async fn missing_capture_fails_its_step_and_the_rest_do_not_run() {
    let p = plan(json!([{"test_id": "gone", "group_id": "pets", "steps": [
        {"op_id": "GET /pets/{id}", "input": {"path": {"id": 1}}, "captures": {"owner": "owner.id"},
         "assertions": [{"type": "status", "expected": 200}]},
        {"op_id": "GET /owners/{id}", "input": {"path": {"id": "$captures.owner"}},
         "assertions": [{"type": "status", "expected": 200}]},
        {"op_id": "GET /stats", "assertions": [{"type": "status", "expected": 200}]}
    ]}]));
    let report = run(&p, &cfg(fixture_url())).await;
    let v = &report.verdicts[0];
    assert_eq!(v.steps[0].outcome, Outcome::Fail);
    assert!(
        v.steps[0].message.contains("`owner`") && v.steps[0].message.contains("owner.id"),
        "{}",
        v.steps[0].message
    );
    assert_eq!(v.steps[1].outcome, Outcome::Skipped);
    assert!(
        v.steps[1].message.contains("not run") && v.steps[1].message.contains("`owner`"),
        "{}",
        v.steps[1].message
    );
    assert!(
        v.steps[1].exchange.is_none(),
        "no request for a step that did not run"
    );
    assert_eq!(v.steps[2].outcome, Outcome::Skipped);
    assert_eq!(v.outcome, Outcome::Fail);
    assert_eq!(report.summary.failed, 1);
}

#[tokio::test]
async fn repeat_flags_created_at_but_not_name() {
    let p = plan(
        json!([{"op_id": "GET /pets/{id}", "test_id": "rex", "input": {"path": {"id": 1}},
        "assertions": [{"type": "status", "expected": 200},
                       field("name", "equals", json!("Rex")),
                       field("createdAt", "equals", json!("2026-01-01T00:00:00Z")),
                       field("createdAt", "not_null", Value::Null)]}]),
    );
    let c = RunConfig {
        repeat: 3,
        ..cfg(fixture_url())
    };
    let report = run(&p, &c).await;
    let unstable: Vec<(usize, &str)> = report
        .summary
        .unstable
        .iter()
        .map(|u| (u.index, u.field_path.as_str()))
        .collect();
    assert_eq!(unstable, vec![(2, "createdAt")]);
    assert_eq!(report.summary.unstable[0].actuals.len(), 3);
    let flags: Vec<bool> = report.verdicts[0].steps[0]
        .assertions
        .iter()
        .map(|a| a.unstable)
        .collect();
    assert_eq!(flags, [false, false, true, false]);
    // The oracle's outcome is the first run's.
    assert_eq!(report.verdicts[0].outcome, Outcome::Fail);
    let text = runner::report::render(&report);
    assert!(
        text.contains("unstable") && text.contains("`createdAt`"),
        "{text}"
    );
}

/// A tiny server for shapes the fixture never produces: HTML, slow answers, a prefix.
async fn odd_server() -> String {
    use axum::routing::get;
    let app = axum::Router::new()
        .route(
            "/api/page",
            get(|| async { axum::response::Html("<html>hi</html>") }),
        )
        .route(
            "/api/slow",
            get(|| async {
                tokio::time::sleep(Duration::from_secs(5)).await;
                "late"
            }),
        )
        .route("/api/items", get(|| async { axum::Json(json!([1, 2])) }));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await });
    format!("http://{addr}/api")
}

#[tokio::test]
async fn non_json_body_fails_with_the_reason_and_prefix_is_kept() {
    let base = odd_server().await;
    let p = plan(json!([
        {"op_id": "GET /page", "test_id": "html", "assertions": [
            {"type": "status", "expected": 200}, field("title", "not_null", Value::Null)]},
        {"op_id": "GET /page", "test_id": "text", "assertions": [field("", "contains", json!("<html>"))]},
        {"op_id": "GET /items", "test_id": "items", "assertions": [field("", "length", json!(2))]}
    ]));
    let report = run(&p, &cfg(&base)).await;
    let html = by_test(&report, "html");
    assert_eq!(html.outcome, Outcome::Fail);
    assert_eq!(html.steps[0].assertions[0].outcome, Outcome::Pass);
    let msg = &html.steps[0].assertions[1].message;
    assert!(msg.contains("not JSON") && msg.contains("title"), "{msg}");
    assert_eq!(by_test(&report, "text").outcome, Outcome::Pass);
    assert_eq!(by_test(&report, "items").outcome, Outcome::Pass);
    assert!(
        html.steps[0]
            .exchange
            .as_ref()
            .unwrap()
            .url
            .ends_with("/api/page")
    );
}

#[tokio::test]
async fn timeout_and_budget_become_errors() {
    let base = odd_server().await;
    let p = plan(json!([
        {"op_id": "GET /slow", "test_id": "slow", "assertions": [{"type": "status", "expected": 200}]},
        {"op_id": "GET /items", "test_id": "a", "assertions": [{"type": "status", "expected": 200}]},
        {"op_id": "GET /items", "test_id": "b", "assertions": [{"type": "status", "expected": 200}]}
    ]));
    let c = RunConfig {
        timeout: Duration::from_millis(300),
        budget: Some(2),
        concurrency: 1,
        ..cfg(&base)
    };
    let started = Instant::now();
    let report = run(&p, &c).await;
    assert!(started.elapsed() < Duration::from_secs(3));
    let slow = by_test(&report, "slow");
    assert_eq!(slow.outcome, Outcome::Error);
    assert!(
        slow.steps[0].message.contains("timed out"),
        "{}",
        slow.steps[0].message
    );
    assert_eq!(by_test(&report, "a").outcome, Outcome::Pass);
    let b = by_test(&report, "b");
    assert_eq!(b.outcome, Outcome::Error);
    assert_eq!(b.steps[0].message, "budget exhausted");
    assert_eq!(report.summary.errors, 2);
}

#[tokio::test]
async fn writes_to_a_non_loopback_host_are_refused_before_connecting() {
    let p = plan(
        json!([{"op_id": "DELETE /pets/{id}", "test_id": "d", "input": {"path": {"id": 1}},
        "assertions": [{"type": "status", "expected": 204}]}]),
    );
    // 192.0.2.1 is a documentation address: the refusal must come before any connection.
    let c = RunConfig {
        connect_timeout: Duration::from_secs(30),
        ..cfg("http://192.0.2.1")
    };
    let started = Instant::now();
    let err = runner::run(&p, &c).await.unwrap_err();
    assert!(started.elapsed() < Duration::from_secs(1));
    assert!(matches!(err, RunnerError::WritesRefused { .. }), "{err}");
    let msg = err.to_string();
    assert!(
        msg.contains("DELETE /pets/{id}") && msg.contains("--allow-writes"),
        "{msg}"
    );
}

#[tokio::test]
async fn unreachable_base_url_fails_fast_naming_the_url() {
    let p = plan(
        json!([{"op_id": "GET /pets", "test_id": "l", "assertions": [{"type": "status", "expected": 200}]}]),
    );
    let url = closed_port_url();
    let started = Instant::now();
    let err = runner::run(&p, &cfg(&url)).await.unwrap_err();
    assert!(started.elapsed() < Duration::from_secs(4));
    assert!(matches!(err, RunnerError::Unreachable { .. }), "{err}");
    assert!(err.to_string().contains(&url), "{err}");
}
