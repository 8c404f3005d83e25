//! Error responses in the source context: the petstore fixture renders every error through
//! `Http.sendError` (`{"error", "status"}`), which the scan finds and every context carries.
//! Error-case oracles asserting those fields survive normalization; a 204 fv oracle gets the
//! no-body assertion; an oracle naming a success field the code never sets, or an error
//! field the renderer provably never writes, is set aside with its reason.

use crate::support;

use mastor::llm::scripted::{Reply, Rule, ScriptedServer};
use mastor::model::{EnvelopeOrigin, SourceContext};
use mastor::store::Session;
use serde_json::{Value, json};
use support::*;

fn oracle(id: &str, strategy: &str, path_id: &str, assertions: Value) -> Value {
    json!({"test_id": id, "oracle_strategy": strategy, "input": {"path": {"petId": path_id}},
           "assertions": assertions})
}

fn script() -> mastor::llm::scripted::Script {
    let get = json!({"oracles": [
        fv_get_rex("Rex"),
        oracle("bi_missing_body", "bi", "999", json!([
            {"type": "status", "expected": 404},
            {"type": "field", "field_path": "error", "op": "equals", "expected": "pet 999 not found"},
            {"type": "field", "field_path": "status", "op": "equals", "expected": 404}])),
        oracle("fi_bad_id_body", "fi", "abc", json!([
            {"type": "status", "expected": 400},
            {"type": "field", "field_path": "error", "op": "matches", "expected": "must be a number"}])),
        // The renderer writes `error` and `status` only: `message` provably is not there.
        oracle("bi_missing_message", "bi", "998", json!([
            {"type": "status", "expected": 404},
            {"type": "field", "field_path": "message", "op": "not_null", "expected": null}])),
        // A success field the code never sets.
        oracle("fv_owner_email", "fv", "1", json!([
            {"type": "status", "expected": 200},
            {"type": "field", "field_path": "ownerEmail", "op": "not_null", "expected": null}]))
    ]});
    let delete = json!({"oracles": [
        oracle("fv_delete_tom", "fv", "2", json!([{"type": "status", "expected": 204}]))
    ]});
    let mut s = petstore_script();
    for (op, reply) in [(GET, get), (DELETE, delete)] {
        s.rules.insert(
            0,
            Rule {
                agent: Some("single_op".into()),
                op: Some(op.into()),
                replies: vec![Reply::json(reply)],
                ..Rule::default()
            },
        );
    }
    s
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn error_body_oracles_survive_and_contradictions_are_set_aside() {
    let server = ScriptedServer::start(script()).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("session");
    let out_s = out.to_str().unwrap();
    let args = [
        "run",
        "tests/fixtures/petstore-jdk",
        "--out",
        out_s,
        "--json",
        "--op",
        GET,
        "--op",
        DELETE,
        "--no-challenger",
        "--no-multi-op",
    ];
    let srv = &server;
    let output = tokio::task::block_in_place(|| {
        let mut cmd = mastor_cmd(&srv.base_url(), dir.path(), &args);
        cmd.current_dir(env!("CARGO_MANIFEST_DIR"));
        cmd.output().unwrap()
    });
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "mastor run: {stderr}");
    let session = Session::open(&out).unwrap();

    // The envelope is a project fact, in every context, with its evidence.
    let ctx: SourceContext = session.read_context(GET).unwrap().unwrap();
    assert_eq!(ctx.error_envelopes.len(), 1, "{:?}", ctx.error_envelopes);
    let env = &ctx.error_envelopes[0];
    assert_eq!(env.name, "Http.sendError");
    assert_eq!(env.origin, EnvelopeOrigin::Static);
    let fields: Vec<&str> = env.fields.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(fields, ["error", "status"]);
    assert_eq!(
        env.evidence_refs[0].file,
        "src/main/java/petstore/http/Http.java"
    );
    let del: SourceContext = session.read_context(DELETE).unwrap().unwrap();
    assert_eq!(del.error_envelopes, ctx.error_envelopes);

    let get = session.read_suite(GET).unwrap().expect("suite");
    let ids: Vec<&str> = get.oracles.iter().map(|o| o.test_id.as_str()).collect();
    assert_eq!(ids, ["fv_get_rex", "bi_missing_body", "fi_bad_id_body"]);
    let aside: Vec<(&str, &str, &str)> = get.normalization[0]
        .dropped
        .iter()
        .map(|d| (d.test_id.as_str(), d.rule.as_str(), d.reason.as_str()))
        .collect();
    assert_eq!(aside.len(), 2, "{aside:?}");
    assert_eq!(aside[0].0, "bi_missing_message");
    assert!(
        aside[0]
            .2
            .contains("`message` is not in the error body of status 404")
            && aside[0].2.contains("Http.sendError"),
        "{}",
        aside[0].2
    );
    assert_eq!(
        (aside[1].0, aside[1].1),
        ("fv_owner_email", "unknown_field")
    );
    assert!(aside[1].2.contains("ownerEmail"), "{}", aside[1].2);

    // The 204 fv oracle is kept with the one no-body form.
    let delete = session.read_suite(DELETE).unwrap().expect("suite");
    assert_eq!(delete.oracles.len(), 1);
    let a = serde_json::to_value(&delete.oracles[0].assertions).unwrap();
    assert_eq!(
        a,
        json!([{"type": "status", "expected": 204},
               {"type": "field", "field_path": "", "op": "is_null", "expected": null}])
    );
    assert_eq!(delete.normalization[0].counts["no_body_added"], 1);
}

/// Contexts written before error bodies were modelled still load, with no envelope and no
/// body; a context written now round-trips its error bodies.
#[test]
fn old_contexts_load_and_new_ones_round_trip() {
    let old: SourceContext = serde_json::from_value(json!({
        "op_id": "GET /pets/{petId}",
        "request_params": [],
        "response_schema": {"success_status": 200, "fields": [],
            "error_cases": [{"status": 404, "condition": "no pet"}]},
        "request_params_pending": [], "response_schema_pending": []}))
    .expect("an old context loads");
    assert!(old.error_envelopes.is_empty());
    assert!(old.response_schema.error_cases[0].body.is_empty());
    assert_eq!(old.response_schema.error_cases[0].envelope, None);
    let text = serde_json::to_value(&old).unwrap();
    assert!(
        text.get("error_envelopes").is_none(),
        "nothing new is written for it: {text}"
    );

    let new: SourceContext = serde_json::from_value(json!({
        "op_id": "GET /pets/{petId}",
        "response_schema": {"success_status": 200,
            "error_cases": [{"status": 404, "condition": "no pet", "envelope": "Http.sendError",
                "body": [{"name": "error", "type": "string", "template": "pet {} not found"}],
                "evidence_refs": [{"file": "A.java", "start_line": 3, "end_line": 4}]}]},
        "error_envelopes": [{"name": "Http.sendError", "fields": [{"name": "error"}],
            "origin": "extraction"}]}))
    .unwrap();
    let again: SourceContext = serde_json::from_value(serde_json::to_value(&new).unwrap()).unwrap();
    assert_eq!(again, new);
    assert_eq!(new.error_envelopes[0].origin, EnvelopeOrigin::Extraction);
    assert!(
        !new.error_envelopes[0].complete(),
        "a model's envelope proves nothing absent"
    );
}
