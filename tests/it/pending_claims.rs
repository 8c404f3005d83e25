//! What the generating and reviewing agents read. Pending claims never reach the oracle
//! generators or the challengers (paper 4.2: "oracle-generation agents read only the
//! source-verified fields"); they stay in the session's context for the reviewer. Every
//! generating agent reads the source bundle and the seed data (paper 7.3.2),
//! regenerations included, so a revised oracle is reasoned from what the original was;
//! the challengers read the seed data and the lines the contexts and the suite cite.

use crate::support;

use mastor::llm::scripted::{Reply, Rule, ScriptedServer};
use mastor::store::Session;
use serde_json::json;
use support::*;

const CLAIM: &str = "PENDING-CLAIM-spec-says-401";
const PARAM: &str = "PENDING-PARAM-spec-says-limit";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_prompt_after_extraction_carries_a_pending_claim() {
    let mut script = petstore_script();
    let mut ctx = context(&["id", "name", "status"], 200, &[(404, "no such pet")]);
    ctx["response_schema_pending"] =
        json!([{"status": 401, "oas_claim": CLAIM, "reason": "no auth check in the code"}]);
    ctx["request_params_pending"] =
        json!([{"name": "limit", "oas_claim": PARAM, "reason": "never read by the handler"}]);
    script.rules.insert(
        0,
        Rule {
            agent: Some("extraction".into()),
            op: Some(GET.into()),
            replies: vec![Reply::json(ctx)],
            ..Rule::default()
        },
    );
    let server = ScriptedServer::start(script).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("session");
    let output = run_petstore(&server.base_url(), dir.path(), false, &[]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");

    let mut agents_seen = std::collections::BTreeSet::new();
    for r in server.requests() {
        let agent = r.agent.clone().unwrap_or_default();
        if agent == "extraction" {
            continue;
        }
        let body = r.body.to_string();
        for needle in [CLAIM, PARAM, "_pending"] {
            assert!(!body.contains(needle), "{agent} was sent {needle}");
        }
        agents_seen.insert(agent);
    }
    for agent in [
        "single_op",
        "single_op_challenger",
        "single_op_regenerate",
        "semantic",
        "multi_op",
        "multi_op_challenger",
    ] {
        assert!(
            agents_seen.contains(agent),
            "{agent} did not run: {agents_seen:?}"
        );
    }
    // Every generating or reviewing agent got the source and the seed data: the
    // single-op generator the bundle, the others the lines the contexts and oracles cite.
    let handler = format!("// ===== FILE: {PET_HANDLER} (");
    for r in server.requests() {
        let agent = r.agent.clone().unwrap_or_default();
        if matches!(agent.as_str(), "discovery" | "extraction" | "semantic") {
            continue;
        }
        let body = r.body.to_string();
        if agent == "single_op" {
            assert!(body.contains(&handler), "{agent} has no source bundle");
        } else {
            assert!(body.contains("CITED LINES"), "{agent} has no cited lines");
            assert!(!body.contains("SOURCE BUNDLE"), "{agent} got the bundle");
        }
        assert!(body.contains("SEED DATA:"), "{agent} has no seed data");
    }
    // The reviewer still sees the pending claims.
    let session = Session::open(&out).unwrap();
    let saved = session.read_context(GET).unwrap().unwrap();
    assert_eq!(saved.response_schema_pending.len(), 1);
    assert_eq!(saved.request_params_pending.len(), 1);
}
