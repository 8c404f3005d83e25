//! The whole pipeline on a real (tiny) model: SmolLM2-135M served by llama.cpp.
//!
//! Its oracles are weak; this test checks that the pipeline runs end to end on a real
//! model, writes a valid session, and that everything the model returned was validated:
//! kept oracles are structurally sound, and every dropped oracle carries a rule and a
//! reason. Oracle logic itself is tested against the scripted server.

use mastor::model::Assertion;
use mastor::pipeline::orchestrator::{OpState, Orchestrator};
use mastor::store::Session;
use std::process::Command;

const OPS: [&str; 3] = ["GET /users/{userId}", "POST /users", "GET /status"];

#[test]
#[ignore = "needs the local model: scripts/local-llm.sh start, then MASTOR_E2E_BASE_URL"]
fn pipeline_runs_on_a_real_model_and_validates_everything() {
    let base_url = std::env::var("MASTOR_E2E_BASE_URL")
        .expect("MASTOR_E2E_BASE_URL must name the local model's base URL");
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("session");
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_mastor"));
    cmd.current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(["run", "tests/fixtures/users-inflector", "--json", "--out"])
        .arg(&out)
        .args(["--provider", "llamacpp", "--model", "smollm2"])
        .args(["--base-url", &base_url])
        .args(["--max-tokens", "384", "--timeout", "600", "--no-discovery"])
        .env("XDG_CONFIG_HOME", dir.path())
        .env("XDG_CACHE_HOME", dir.path());
    for op in OPS {
        cmd.args(["--op", op]);
    }
    let output = cmd.output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    let summary: serde_json::Value = serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|e| panic!("no JSON summary ({e}): {stderr}"));

    let session = Session::open(&out).expect("a valid session");
    let state: Orchestrator = session.read_json("state.json").unwrap().expect("state");
    assert!(state.is_finished());
    assert_eq!(state.ops.len(), OPS.len());
    for (op, st) in &state.ops {
        match st {
            OpState::Done => {}
            OpState::Failed { agent, reason } => {
                assert!(
                    !agent.is_empty() && !reason.is_empty(),
                    "{op} failed without a reason"
                )
            }
            other => panic!("{op} ended in {other:?}"),
        }
    }
    // The exit code tells the truth: a tiny model often leaves an operation without a
    // kept oracle, which fails it (with its reason, above); 3 when some completed, 4 when
    // none did, 0 only when all did.
    let failed = state
        .ops
        .values()
        .filter(|s| matches!(s, OpState::Failed { .. }))
        .count();
    let expected = match failed {
        0 => 0,
        n if n == OPS.len() => 4,
        _ => 3,
    };
    assert_eq!(
        output.status.code(),
        Some(expected),
        "{failed} of {} operations failed: {stderr}",
        OPS.len()
    );
    let mut seen_suites = 0;
    for op in OPS {
        let Some(suite) = session.read_suite(op).unwrap() else {
            continue;
        };
        seen_suites += 1;
        for o in &suite.oracles {
            assert!(
                o.assertions
                    .iter()
                    .any(|a| matches!(a, Assertion::Status { .. })),
                "{op}: kept oracle {} has no status assertion",
                o.test_id
            );
        }
        for pass in &suite.normalization {
            for d in &pass.dropped {
                assert!(!d.rule.is_empty() && !d.reason.is_empty(), "{op}: {d:?}");
            }
        }
    }
    // The model was really called, and the summary reports it.
    let calls = summary["ledger"]["total"]["calls"].as_u64().unwrap();
    let tokens = summary["ledger"]["total"]["prompt_tokens"]
        .as_u64()
        .unwrap();
    assert!(calls >= 3, "{summary}");
    assert!(tokens > 0, "{summary}");
    eprintln!(
        "real model: {calls} calls, {seen_suites} suites, {} single-op oracles kept, {} dropped",
        summary["single_op_oracles"], summary["dropped"]
    );
}
