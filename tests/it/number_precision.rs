//! Numbers stay exactly as the model wrote them (issue: `99999999999999999999` reached
//! the next request as `1e+20`, which changes what the oracle tests). Through the model
//! answer, normalization, the next agent's request, the session and every export.

use crate::support;

use mastor::llm::scripted::{Reply, Rule, ScriptedServer};
use serde_json::Value;
use support::*;

const BIG: &str = "99999999999999999999";
const PRECISE: &str = "0.1000000000000000055511151231257827";

fn oracles() -> Value {
    let text = format!(
        r#"{{"oracles": [{{"test_id": "bi_huge_id", "oracle_strategy": "bi",
            "input": {{"path": {{"petId": {BIG}}}, "query": {{"weight": {PRECISE}}}}},
            "assertions": [{{"type": "status", "expected": 400}}]}},
           {{"test_id": "fv_rex", "oracle_strategy": "fv", "input": {{"path": {{"petId": 1}}}},
            "assertions": [{{"type": "status", "expected": 200}},
                          {{"type": "field", "field_path": "id", "op": "not_equals", "expected": {BIG}}}]}}]}}"#
    );
    serde_json::from_str(&text).unwrap()
}

fn assert_exact(what: &str, text: &str) {
    assert!(text.contains(BIG), "{what} lost {BIG}:\n{text}");
    assert!(text.contains(PRECISE), "{what} lost {PRECISE}:\n{text}");
    assert!(
        !text.contains("1e+20") && !text.contains("1e20"),
        "{what}: {text}"
    );
}

#[test]
fn normalization_keeps_numbers_as_written() {
    let out =
        mastor::agents::normalize::normalize_single(GET, &oracles(), None, &Default::default());
    assert_eq!(out.kept.len(), 2, "{:?}", out.dropped);
    assert_exact(
        "normalized oracles",
        &serde_json::to_string(&out.kept).unwrap(),
    );
    let again = mastor::agents::normalize::normalize_single(
        GET,
        &serde_json::to_value(&out.kept).unwrap(),
        None,
        &Default::default(),
    );
    assert_eq!(again.kept, out.kept);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_pipeline_the_session_and_every_export_keep_numbers_as_written() {
    let mut script = petstore_script();
    script.rules.insert(
        0,
        Rule {
            agent: Some("single_op".into()),
            op: Some(GET.into()),
            replies: vec![Reply::json(oracles())],
            ..Rule::default()
        },
    );
    let server = ScriptedServer::start(script).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("session");
    let out_s = out.to_str().unwrap();
    let args = [
        "run",
        "tests/fixtures/petstore-jdk",
        "--out",
        out_s,
        "--op",
        GET,
        "--no-multi-op",
    ];
    let mut cmd = mastor_cmd(&server.base_url(), dir.path(), &args);
    cmd.current_dir(env!("CARGO_MANIFEST_DIR"));
    let output = tokio::task::block_in_place(|| cmd.output().unwrap());
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );

    // The next agent's request shows the oracle as the model wrote it.
    let review = server
        .requests()
        .into_iter()
        .find(|r| r.agent.as_deref() == Some("single_op_challenger"))
        .expect("the challenger ran");
    assert_exact("the challenger's request", &review.body.to_string());

    // The session file.
    let suite_file = std::fs::read_dir(out.join("suites"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .next()
        .unwrap();
    assert_exact("the session", &std::fs::read_to_string(suite_file).unwrap());

    // Every export format.
    let exports = dir.path().join("exports");
    let mut cmd = mastor_cmd(
        &server.base_url(),
        dir.path(),
        &[
            "export",
            out_s,
            "--all",
            "--format",
            "junit,postman,readable,json",
            "--out",
            exports.to_str().unwrap(),
        ],
    );
    let output = cmd.output().unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let mut formats = 0;
    for entry in walk(&exports) {
        let text = std::fs::read_to_string(&entry).unwrap_or_default();
        if text.contains("bi_huge_id") || text.contains("huge") {
            assert_exact(&entry.display().to_string(), &text);
            formats += 1;
        }
    }
    assert!(
        formats >= 4,
        "one file per format names the oracle, found {formats}"
    );
}

fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else {
            out.push(p);
        }
    }
    out
}
