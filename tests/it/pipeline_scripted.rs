//! The whole pipeline through the real binary, against the scripted LLM server, on the
//! petstore fixture: contexts, groups, suites, normalization, the challenger's targeted
//! regeneration, ablations, failure isolation and the summary.

use crate::support;

use mastor::llm::scripted::{Reply, Rule, ScriptedServer};
use mastor::model::{Oracle, SourceContext};
use mastor::store::{Session, SuiteRecord};
use serde_json::Value;
use support::*;

fn run_args<'a>(out: &'a str, extra: &[&'a str]) -> Vec<&'a str> {
    let mut args = vec!["run", "tests/fixtures/petstore-jdk", "--out", out, "--json"];
    for op in [POST, GET, DELETE] {
        args.extend(["--op", op]);
    }
    args.extend_from_slice(extra);
    args
}

fn root() -> &'static str {
    env!("CARGO_MANIFEST_DIR")
}

struct Run {
    summary: Value,
    session: Session,
    _dir: tempfile::TempDir,
}

fn run_pipeline(server: &ScriptedServer, extra: &[&str]) -> Run {
    run_pipeline_exiting(server, extra, 0)
}

/// Runs the pipeline and checks its exit code (3: some operations failed).
fn run_pipeline_exiting(server: &ScriptedServer, extra: &[&str], code: i32) -> Run {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("session");
    let out_s = out.to_str().unwrap().to_string();
    let mut cmd = mastor_cmd(&server.base_url(), dir.path(), &run_args(&out_s, extra));
    cmd.current_dir(root());
    let output = cmd.output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(code), "mastor run: {stderr}");
    let summary: Value = serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|e| panic!("summary is not JSON ({e}): {stderr}"));
    Run {
        summary,
        session: Session::open(&out).unwrap(),
        _dir: dir,
    }
}

fn suite(run: &Run, op: &str) -> SuiteRecord {
    run.session.read_suite(op).unwrap().expect("suite written")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn full_pipeline_on_petstore() {
    let server = ScriptedServer::start(petstore_script()).await.unwrap();
    let srv = &server;
    // Discovery asked although every pet operation is matched exactly (`auto` would skip
    // it): its calls are counted below.
    let run = tokio::task::block_in_place(|| {
        run_pipeline(srv, &["--concurrency", "4", "--discovery", "always"])
    });

    // Source analysis: three contexts, verified part as scripted.
    let ctx: SourceContext = run.session.read_context(GET).unwrap().unwrap();
    assert_eq!(ctx.response_schema.success_status, Some(200));
    assert_eq!(ctx.response_schema.error_cases.len(), 2);
    assert_eq!(ctx.response_schema_pending.len(), 1);

    // Single-op: normalization dropped two, stripped a key, removed a foreign ref.
    let get = suite(&run, GET);
    let ids: Vec<&str> = get.oracles.iter().map(|o| o.test_id.as_str()).collect();
    assert_eq!(ids, vec!["fv_get_rex", "fi_bad_id", "bi_missing"]);
    let first = &get.normalization[0];
    assert_eq!(first.counts["no_status"], 1);
    assert_eq!(first.counts["no_field_fv_bv"], 1);
    assert_eq!(first.dropped.len(), 2);
    assert!(first.dropped.iter().all(|d| !d.reason.is_empty()));
    let bi = get
        .oracles
        .iter()
        .find(|o| o.test_id == "bi_missing")
        .unwrap();
    assert!(
        bi.evidence_refs.is_empty(),
        "ref outside the bundle removed"
    );

    // Challenger: one valid hint (the unknown test id is refused); only the flagged
    // oracle changed, the other keeps its first-pass content byte for byte.
    let hints = &get.review.as_ref().unwrap().hints;
    assert_eq!(hints.len(), 1);
    assert_eq!(get.regenerated, vec!["fv_get_rex"]);
    let rex: Oracle = serde_json::from_value(fv_get_rex("Rex")).unwrap();
    assert_eq!(get.oracles[0].assertions, rex.assertions);
    let fi: Oracle = serde_json::from_value(fi_bad_id()).unwrap();
    assert_eq!(get.oracles[1].input, fi.input, "unflagged oracle untouched");

    let post = suite(&run, POST);
    assert_eq!(post.oracles.len(), 2);
    assert!(post.regenerated.is_empty());

    // Multi-op: one group kept (the one naming an unknown op refused), one oracle kept.
    let group = run.session.read_group("pets_lifecycle").unwrap().unwrap();
    assert_eq!(group.oracles.len(), 1);
    assert_eq!(group.oracles[0].steps.len(), 3);
    assert_eq!(group.normalization[0].counts["undeclared_capture"], 1);

    // Calls per agent: discovery once per entry file, the rest as the flow dictates.
    assert_eq!(agent_calls(&server, "discovery"), 4);
    assert_eq!(agent_calls(&server, "extraction"), 3);
    assert_eq!(agent_calls(&server, "single_op"), 3);
    // DELETE's oracles are challenged too; the quadrant check's FV hint (a success
    // status, no FV oracle) regenerates it once.
    assert_eq!(agent_calls(&server, "single_op_challenger"), 3);
    assert_eq!(agent_calls(&server, "single_op_regenerate"), 2);
    assert_eq!(agent_calls(&server, "semantic"), 1);
    assert_eq!(agent_calls(&server, "multi_op"), 1);
    assert_eq!(agent_calls(&server, "multi_op_challenger"), 1);
    assert_eq!(agent_calls(&server, "multi_op_regenerate"), 0);

    // The summary printed is the session's content.
    let s = &run.summary;
    assert_eq!(s["operations"], 3);
    assert_eq!(s["ok"], 3);
    assert_eq!(s["single_op_oracles"], 7);
    assert_eq!(s["multi_op_oracles"], 1);
    assert_eq!(s["status_assertions"], 7);
    assert_eq!(s["field_assertions"], 2);
    // Table 9 counts entries by primary assertion type: 2 with a field assertion.
    assert_eq!(s["field_oracles"], 2);
    assert_eq!(s["status_oracles"], 5);
    let sizes: u64 = s["multi_op_sizes"]
        .as_object()
        .unwrap()
        .values()
        .map(|v| v.as_u64().unwrap())
        .sum();
    assert_eq!(sizes, 1, "one multi-op oracle in the size distribution");
    assert_eq!(s["groups"], 1);
    assert_eq!(s["ledger"]["total"]["calls"], server.calls() as u64);
    assert!(s["compression"][2].as_f64().unwrap() > 30.0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ablations_change_the_call_counts() {
    let server = ScriptedServer::start(petstore_script()).await.unwrap();
    let srv = &server;
    tokio::task::block_in_place(|| {
        run_pipeline(srv, &["--no-challenger", "--no-multi-op", "--no-discovery"])
    });
    assert_eq!(agent_calls(&server, "discovery"), 0);
    assert_eq!(agent_calls(&server, "semantic"), 0);
    assert_eq!(agent_calls(&server, "multi_op"), 0);
    assert_eq!(agent_calls(&server, "single_op_challenger"), 0);
    assert_eq!(agent_calls(&server, "extraction"), 3);
    assert_eq!(agent_calls(&server, "single_op"), 3);
    assert_eq!(server.calls(), 6);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_failing_operation_leaves_the_others_complete() {
    let mut script = petstore_script();
    script.rules.insert(
        0,
        Rule {
            agent: Some("extraction".into()),
            op: Some(POST.into()),
            replies: vec![Reply::status(500)],
            ..Rule::default()
        },
    );
    let server = ScriptedServer::start(script).await.unwrap();
    let srv = &server;
    let run = tokio::task::block_in_place(|| {
        run_pipeline_exiting(srv, &["--max-attempts", "2", "--no-discovery"], 3)
    });
    let failed = &run.summary["failed"];
    let why = failed[POST].as_str().expect("POST failed with a reason");
    assert!(
        why.starts_with("extraction:") && why.contains("500"),
        "{why}"
    );
    assert_eq!(run.summary["ok"], 2);
    assert_eq!(suite(&run, GET).oracles.len(), 3);
    // the failed operation's prompt and error are kept in the call log
    let calls = run.session.list("calls").unwrap();
    assert!(calls.iter().any(|c| c.starts_with("extraction")));
}

/// Paper §7.3.2: an oracle that references a status the verified context lacks is removed
/// before the next phase (set aside, restorable); `--keep-unreferenced` keeps it flagged.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unreferenced_oracles_are_set_aside_unless_kept() {
    let teapot = serde_json::json!({"oracles": [fv_get_rex("Rex"),
        {"test_id": "fi_teapot", "oracle_strategy": "fi", "input": {"path": {"petId": "abc"}},
         "assertions": [{"type": "status", "expected": 418}]}]});
    let script = || {
        let mut script = petstore_script();
        script.rules.insert(
            0,
            Rule {
                agent: Some("single_op".into()),
                op: Some(GET.into()),
                replies: vec![Reply::json(teapot.clone())],
                ..Rule::default()
            },
        );
        script
    };
    let extra = ["--no-challenger", "--no-multi-op"];
    let server = ScriptedServer::start(script()).await.unwrap();
    let srv = &server;
    let run = tokio::task::block_in_place(|| run_pipeline(srv, &extra));
    let get = suite(&run, GET);
    let ids = |v: &[Oracle]| v.iter().map(|o| o.test_id.clone()).collect::<Vec<_>>();
    assert_eq!(ids(&get.oracles), vec!["fv_get_rex"]);
    assert_eq!(ids(&get.set_aside), vec!["fi_teapot"]);
    let drop = &get.normalization[0].dropped[0];
    assert_eq!(
        (drop.test_id.as_str(), drop.rule.as_str()),
        ("fi_teapot", "unknown_status")
    );
    assert!(drop.reason.contains("418"), "{}", drop.reason);
    let suite_now = mastor::suite::session::read(&run.session).unwrap().suite;
    assert!(!suite_now.oracles.iter().any(|o| o.test_id == "fi_teapot"));

    let server = ScriptedServer::start(script()).await.unwrap();
    let srv = &server;
    let mut with_flag = extra.to_vec();
    with_flag.push("--keep-unreferenced");
    let run = tokio::task::block_in_place(|| run_pipeline(srv, &with_flag));
    let get = suite(&run, GET);
    assert_eq!(ids(&get.oracles), vec!["fv_get_rex", "fi_teapot"]);
    assert!(get.set_aside.is_empty());
    let flag = &get.normalization[0].flags[0];
    assert_eq!(
        (flag.test_id.as_str(), flag.rule.as_str()),
        ("fi_teapot", "unknown_status")
    );
}

/// Paper Table 4: a quadrant the context has material for but the suite lacks gets a
/// hint of our own, counted apart, and it drives the one regeneration even when the
/// challenger found nothing. A `suite` hint that lists an oracle in `affects` puts that
/// oracle in the regeneration request as flagged (one only mentioned in its text is not),
/// and the request lists the ids already taken.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn quadrant_hints_and_suite_hints_shape_the_regeneration_request() {
    let mut script = petstore_script();
    let mut post_ctx = context(
        &["id", "name", "status"],
        201,
        &[(400, "name missing or blank")],
    );
    post_ctx["request_params"] = serde_json::json!([{"name": "name", "location": "body",
        "type": "string", "required": true, "constraints": ["length between 1 and 50"],
        "oas_match": true}]);
    let rule = |agent: &str, op: &str, reply: Value| Rule {
        agent: Some(agent.into()),
        op: Some(op.into()),
        replies: vec![Reply::json(reply)],
        ..Rule::default()
    };
    script.rules.insert(0, rule("extraction", POST, post_ctx));
    script.rules.insert(
        0,
        rule(
            "single_op_challenger",
            POST,
            serde_json::json!({"hints": [{"test_id": "suite", "dimension": "assertion_correctness",
                "text": "like fv_create, bi_blank_name should name the field in its error",
                "affects": ["bi_blank_name"]}]}),
        ),
    );
    let server = ScriptedServer::start(script).await.unwrap();
    let srv = &server;
    let run = tokio::task::block_in_place(|| run_pipeline(srv, &["--no-multi-op"]));
    let post = suite(&run, POST);
    let hints = post.review.expect("reviewed").hints;
    let quadrant: Vec<&str> = hints
        .iter()
        .filter(|h| h.origin == mastor::model::HintOrigin::Quadrant)
        .map(|h| h.text.as_str())
        .collect();
    assert_eq!(quadrant.len(), 1, "{hints:?}");
    assert!(
        quadrant[0].starts_with("no BV oracle") && quadrant[0].contains("length between 1 and 50")
    );
    // POST's BV hint and DELETE's FV hint (a success status, no FV oracle).
    assert_eq!(run.summary["quadrant_hints"], 2, "{}", run.summary);

    let regen: Vec<_> = server
        .requests()
        .into_iter()
        .filter(|r| {
            r.agent.as_deref() == Some("single_op_regenerate") && r.op.as_deref() == Some(POST)
        })
        .collect();
    assert_eq!(regen.len(), 1, "the POST suite is regenerated once");
    let prompt = regen[0].body.to_string();
    let flagged_at = prompt.rfind("FLAGGED ORACLES:").unwrap();
    let existing_at = prompt.rfind("EXISTING TEST IDS").unwrap();
    let flagged = &prompt[flagged_at..existing_at];
    assert!(
        flagged.contains("bi_blank_name"),
        "listed in a suite hint's affects: flagged"
    );
    assert!(
        !flagged.contains("fv_create"),
        "only mentioned in a hint's text: not sent"
    );
    assert!(prompt[existing_at..].contains("fv_create, bi_blank_name"));
    assert!(prompt.contains("no BV oracle"));
}

/// Both challengers keep the hints the check refused, with the reason, for the reviewer
/// (the multi-op path used to drop them silently).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn refused_hints_are_kept_for_groups_too() {
    let mut script = petstore_script();
    script.rules.insert(
        0,
        Rule {
            agent: Some("multi_op_challenger".into()),
            replies: vec![Reply::json(serde_json::json!({"hints": [
                {"test_id": "no_such_sequence", "dimension": "sequence_logic", "text": "x"}]}))],
            ..Rule::default()
        },
    );
    let server = ScriptedServer::start(script).await.unwrap();
    let srv = &server;
    let run = tokio::task::block_in_place(|| run_pipeline(srv, &[]));
    let reviews = run.session.dir().join("reviews");
    let group_file = std::fs::read_dir(&reviews)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| {
            p.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("group-")
        })
        .expect("the group's refused hints are kept");
    let text = std::fs::read_to_string(group_file).unwrap();
    assert!(
        text.contains("no_such_sequence") && text.contains("not in the suite"),
        "{text}"
    );
}
