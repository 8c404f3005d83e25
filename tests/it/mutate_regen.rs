//! Mutation-guided regeneration with the scripted model on petstore-jdk: a weak suite
//! leaves a status swap alive; `run --from-survivors` asks for oracles with the
//! mutant's diff; the scripted answer holds one known-good oracle (it kills the mutant)
//! and one false claim (it fails on the original). The score rises by exactly the
//! mutant the good oracle kills, the false claim is reported and kills nothing, and the
//! existing oracle stays byte for byte.

use crate::support::*;
use mastor::llm::scripted::{Reply, Rule, Script, ScriptedServer};
use serde_json::{Value, json};
use std::path::Path;

fn script() -> Script {
    let rule = |agent: &str, reply: Value| Rule {
        agent: Some(agent.into()),
        op: Some(POST.into()),
        replies: vec![Reply::json(reply)],
        ..Rule::default()
    };
    let weak = json!({"oracles": [
        {"test_id": "bi_blank_name", "oracle_strategy": "bi", "input": {"body": {"name": ""}},
         "assertions": [{"type": "status", "expected": 400}]}]});
    let answer = json!({"oracles": [
        {"test_id": "fv_create_201", "oracle_strategy": "fv",
         "description": "a valid pet is created with 201",
         "input": {"body": {"name": "Bolt", "status": "available"}},
         "assertions": [{"type": "status", "expected": 201},
                        {"type": "field", "field_path": "name", "op": "equals", "expected": "Bolt"}]},
        {"test_id": "fv_create_says_rex", "oracle_strategy": "fv",
         "description": "a false claim: the created pet is named Rex",
         "input": {"body": {"name": "Bolt", "status": "available"}},
         "assertions": [{"type": "status", "expected": 201},
                        {"type": "field", "field_path": "name", "op": "equals", "expected": "Rex"}]}]});
    Script {
        rules: vec![
            rule(
                "extraction",
                context(
                    &["id", "name", "status"],
                    201,
                    &[(400, "name missing or blank")],
                ),
            ),
            rule("single_op", weak),
            rule("single_op_regenerate", answer),
        ],
        fallback: vec![Reply::json(json!({"oracles": [], "hints": []}))],
        n_ctx: None,
    }
}

fn mastor_in(server: &ScriptedServer, home: &Path, args: &[&str]) -> (i32, String, String) {
    let out = mastor_cmd(&server.base_url(), home, args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// `mastor mutate SESSION` on the one status swap of line 93 of PetHandler
/// (`Http.sendJson(exchange, 201, pet.toJson());` in createPet).
fn mutate_the_status_swap(
    server: &ScriptedServer,
    home: &Path,
    session: &str,
) -> (i32, String, String) {
    let diff = home.join("d.diff");
    std::fs::write(
        &diff,
        format!("+++ b/{PET_HANDLER}\n@@ -93,1 +93,1 @@\n-x\n+x\n"),
    )
    .unwrap();
    let args = [
        "mutate",
        session,
        "--only",
        "all",
        "--in-diff",
        diff.to_str().unwrap(),
        "--operator",
        "status_swap",
    ];
    mastor_in(server, home, &args)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn survivors_become_hints_and_the_score_rises_by_the_mutants_the_new_oracles_kill() {
    let server = ScriptedServer::start(script()).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let session = dir.path().join("session");
    let s = session.to_str().unwrap();
    let project = "tests/fixtures/petstore-jdk";
    let pipeline = [
        "--out",
        s,
        "--op",
        POST,
        "--no-multi-op",
        "--no-challenger",
        "--no-discovery",
    ];
    let mut args = vec!["run", project];
    args.extend(pipeline);
    let (code, _, stderr) = mastor_in(&server, dir.path(), &args);
    assert_eq!(code, 0, "pipeline: {stderr}");
    let before_suite = std::fs::read_to_string(
        session.join(format!("suites/{}.json", mastor::store::op_slug(POST))),
    )
    .unwrap();

    let (code, stdout, stderr) = mutate_the_status_swap(&server, dir.path(), s);
    assert_eq!(code, 0, "mutate: {stdout}\n{stderr}");
    assert!(stdout.contains("mutation score 0.0%"), "{stdout}");

    let mut args = vec!["run", project, "--from-survivors"];
    args.extend(pipeline);
    // A --mutant filter naming no survivor targets nothing.
    let mut none = args.clone();
    none.extend(["--mutant", "mnosuch"]);
    let (code, _, stderr) = mastor_in(&server, dir.path(), &none);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("no survivor to target"), "{stderr}");
    let (code, stdout, stderr) = mastor_in(&server, dir.path(), &args);
    assert_eq!(code, 1, "a false claim exits 1\n{stdout}\n{stderr}");
    assert!(
        stdout.contains(
            "round 1: 1 survivor(s) targeted, 2 new oracle(s), 1 survivor(s) killed, 1 new \
             oracle(s) fail on the original; score 0.0% -> 100.0%"
        ),
        "{stdout}"
    );
    assert!(
        stdout.contains("new: POST /pets#fv_create_says_rex  fails on the original"),
        "{stdout}"
    );

    // The hint carried the mutant's diff and the existing oracle.
    let request = server
        .requests()
        .into_iter()
        .find(|r| r.agent.as_deref() == Some("single_op_regenerate"))
        .expect("a regeneration request");
    let body = request.body.to_string();
    assert!(body.contains("PetHandler.java:93"), "{body}");
    assert!(
        body.contains("Http.sendJson(exchange, 200, pet.toJson());"),
        "{body}"
    );
    assert!(
        body.contains("Keep these existing oracles unchanged: bi_blank_name"),
        "{body}"
    );

    // Existing oracles stay byte for byte; the new ones arrive (proposed).
    let record: Value =
        read_json(&session.join(format!("suites/{}.json", mastor::store::op_slug(POST))));
    let before: Value = serde_json::from_str(&before_suite).unwrap();
    assert_eq!(record["oracles"][0], before["oracles"][0]);
    let ids: Vec<&str> = record["oracles"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["test_id"].as_str().unwrap())
        .collect();
    assert_eq!(
        ids,
        ["bi_blank_name", "fv_create_201", "fv_create_says_rex"]
    );
    let regen = read_json(&session.join(format!(
        "regen/{}.survivors-1.json",
        mastor::store::op_slug(POST)
    )));
    assert_eq!(regen["for"]["mutants"].as_array().unwrap().len(), 1);
    let rounds = std::fs::read_to_string(session.join("mutation/rounds.jsonl")).unwrap();
    assert_eq!(rounds.lines().count(), 1);
    let summary = read_json(&session.join("mutation/summary.json"));
    assert_eq!(summary["total"]["score"], 1.0);
    assert_eq!(
        summary["excluded"][0]["o_id"], "POST /pets#fv_create_says_rex",
        "{summary:#}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_challenger_sees_the_matrix_only_when_asked() {
    // No regeneration answer: the quadrant check's regeneration adds nothing, so the
    // weak suite keeps its survivor.
    let mut weak_only = script();
    weak_only
        .rules
        .retain(|r| r.agent.as_deref() != Some("single_op_regenerate"));
    let server = ScriptedServer::start(weak_only).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let session = dir.path().join("session");
    let s = session.to_str().unwrap();
    let project = "tests/fixtures/petstore-jdk";
    let run = [
        "run",
        project,
        "--out",
        s,
        "--op",
        POST,
        "--no-multi-op",
        "--no-discovery",
    ];
    let (code, _, stderr) = mastor_in(&server, dir.path(), &run);
    assert_eq!(code, 0, "pipeline: {stderr}");
    let (code, _, stderr) = mutate_the_status_swap(&server, dir.path(), s);
    assert_eq!(code, 0, "mutate: {stderr}");
    let mut with_flag = run.to_vec();
    with_flag.push("--challenger-mutation");
    let (code, _, stderr) = mastor_in(&server, dir.path(), &with_flag);
    assert_eq!(code, 0, "pipeline with the flag: {stderr}");
    let bodies: Vec<String> = server
        .requests()
        .into_iter()
        .filter(|r| r.agent.as_deref() == Some("single_op_challenger"))
        .map(|r| r.body.to_string())
        .collect();
    assert_eq!(
        bodies.len(),
        2,
        "the flag changes the prompt, so the cache misses"
    );
    assert!(!bodies[0].contains("MUTATION ANALYSIS"));
    assert!(bodies[1].contains("MUTATION ANALYSIS"), "{}", bodies[1]);
    assert!(
        bodies[1].contains("PetHandler.java:93 status_swap"),
        "{}",
        bodies[1]
    );
    assert!(
        bodies[1].contains("oracles that kill no mutant: bi_blank_name"),
        "{}",
        bodies[1]
    );
}
