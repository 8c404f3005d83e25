//! Shared helpers for tests that run the real binary against the scripted LLM server.
#![allow(dead_code)]

use mastor::llm::scripted::{Reply, Rule, Script};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

pub const POST: &str = "POST /pets";
pub const GET: &str = "GET /pets/{petId}";
pub const DELETE: &str = "DELETE /pets/{petId}";
pub const PET_HANDLER: &str = "src/main/java/petstore/handlers/PetHandler.java";

pub fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

/// Runs `mastor <args>` with the model pointed at `base_url`, isolated from any user
/// configuration.
pub fn mastor(base_url: &str, home: &Path, args: &[&str]) -> Output {
    mastor_cmd(base_url, home, args)
        .output()
        .expect("run mastor")
}

pub fn mastor_cmd(base_url: &str, home: &Path, args: &[&str]) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_mastor"));
    cmd.args(args)
        .env("XDG_CONFIG_HOME", home.join("config"))
        .env("XDG_CACHE_HOME", home.join("cache"))
        .env("HOME", home)
        .env_remove("MASTOR_CONFIG")
        .env("MASTOR_BASE_URL", base_url)
        .env("MASTOR_MODEL", "scripted")
        .env("MASTOR_PROVIDER", "custom")
        .env_remove("MASTOR_CHALLENGER_BASE_URL")
        .env_remove("MASTOR_API_KEY");
    cmd
}

/// `mastor run` on the petstore fixture into `home/session`: its POST, GET and DELETE
/// (the whole API when `all`), then `extra`; from the crate's directory, outside the
/// async runtime's worker (the scripted server answers on another).
pub fn run_petstore(base_url: &str, home: &Path, all: bool, extra: &[&str]) -> Output {
    let out = home.join("session");
    let mut args = vec![
        "run",
        "tests/fixtures/petstore-jdk",
        "--out",
        out.to_str().unwrap(),
    ];
    if !all {
        for op in [POST, GET, DELETE] {
            args.extend(["--op", op]);
        }
    }
    args.extend_from_slice(extra);
    let mut cmd = mastor_cmd(base_url, home, &args);
    cmd.current_dir(env!("CARGO_MANIFEST_DIR"));
    tokio::task::block_in_place(|| cmd.output().unwrap())
}

/// One context in the paper's Listing 3 shape.
pub fn context(fields: &[&str], success: u16, errors: &[(u16, &str)]) -> Value {
    json!({
        "request_params": [{"name": "petId", "location": "path", "type": "long", "required": true,
                            "constraints": ["numeric"], "oas_match": true}],
        "response_schema": {
            "success_status": success,
            "fields": fields.iter().map(|f| json!({"name": f, "type": "String", "nullable": false})).collect::<Vec<_>>(),
            "error_cases": errors.iter().map(|(s, c)| json!({"status": s, "condition": c})).collect::<Vec<_>>()
        },
        "request_params_pending": [],
        "response_schema_pending": [{"status": 500, "oas_claim": "Server error", "reason": "no handler code returns it"}]
    })
}

pub fn fv_get_rex(expected_name: &str) -> Value {
    json!({"test_id": "fv_get_rex", "description": "FV: seeded pet 1 is Rex", "oracle_strategy": "fv",
        "input": {"path": {"petId": "1"}},
        "assertions": [{"type": "status", "expected": 200},
                       {"type": "field", "field_path": "name", "op": "equals", "expected": expected_name}],
        "evidence": "PetHandler.getPet returns the stored pet",
        "evidence_refs": [{"file": PET_HANDLER, "start_line": 96, "end_line": 100}]})
}

pub fn fi_bad_id() -> Value {
    json!({"test_id": "fi_bad_id", "description": "FI: non-numeric id", "oracle_strategy": "fi",
        "input": {"path": {"petId": "abc"}},
        "assertions": [{"type": "status", "expected": 400}],
        "evidence": "Http.pathId rejects non-numeric ids"})
}

/// The whole scripted conversation for POST, GET and DELETE of the petstore fixture.
pub fn petstore_script() -> Script {
    let get_oracles = json!({"oracles": [
        fv_get_rex("Rexx"),
        fi_bad_id(),
        // no status assertion → dropped
        {"test_id": "fv_no_status", "oracle_strategy": "fv", "input": {"path": {"petId": "1"}},
         "assertions": [{"type": "field", "field_path": "name", "op": "not_null", "expected": null}]},
        // fv with status only → dropped
        {"test_id": "fv_status_only", "oracle_strategy": "fv", "input": {"path": {"petId": "2"}},
         "assertions": [{"type": "status", "expected": 200}]},
        // hallucinated input key → stripped; evidence outside the bundle → removed
        {"test_id": "bi_missing", "oracle_strategy": "bi", "input": {"path": {"petId": "999"}, "cookies": {"a": "b"}},
         "assertions": [{"type": "status", "expected": 404}],
         "evidence_refs": [{"file": "src/Nowhere.java", "start_line": 1, "end_line": 2}]}
    ]});
    let post_oracles = json!({"oracles": [
        {"test_id": "fv_create", "oracle_strategy": "fv",
         "input": {"body": {"name": "Bolt", "status": "available"}},
         "assertions": [{"type": "status", "expected": 201},
                        {"type": "field", "field_path": "id", "op": "not_null", "expected": null}]},
        {"test_id": "bi_blank_name", "oracle_strategy": "bi", "input": {"body": {"name": ""}},
         "assertions": [{"type": "status", "expected": 400}]}
    ]});
    let group = json!({"groups": [{"group_id": "pets_lifecycle", "pattern": "resource_lifecycle",
        "rationale": "create, read and delete one pet",
        "sequence": [{"op_id": POST, "captures": {"pet_id": "id"}},
                     {"op_id": GET, "binds": {"path.petId": "pet_id"}},
                     {"op_id": DELETE, "binds": {"path.petId": "pet_id"}}]},
        {"group_id": "ghost", "pattern": "identifier_flow",
         "sequence": [{"op_id": POST}, {"op_id": "GET /ghosts"}]}]});
    let multi = json!({"oracles": [
        {"test_id": "create_read_delete", "description": "a created pet reads back, then is gone",
         "steps": [
            {"op_id": POST, "input": {"body": {"name": "Bolt"}}, "captures": {"pet_id": "id"},
             "assertions": [{"type": "status", "expected": 201}]},
            {"op_id": GET, "input": {"path": {"petId": "$captures.pet_id"}},
             "assertions": [{"type": "status", "expected": 200},
                            {"type": "field", "field_path": "name", "op": "equals", "expected": "Bolt"}]},
            {"op_id": DELETE, "input": {"path": {"petId": "$captures.pet_id"}},
             "assertions": [{"type": "status", "expected": 204}]}]},
        {"test_id": "bad_capture", "steps": [
            {"op_id": POST, "input": {"body": {"name": "X"}}, "captures": {"owner": "ownerEmail"},
             "assertions": [{"type": "status", "expected": 201}]},
            {"op_id": GET, "input": {"path": {"petId": "$captures.owner"}},
             "assertions": [{"type": "status", "expected": 200}]}]}
    ]});
    let rule = |agent: &str, op: Option<&str>, reply: Value| Rule {
        agent: Some(agent.into()),
        op: op.map(str::to_string),
        replies: vec![Reply::json(reply)],
        ..Rule::default()
    };
    Script {
        rules: vec![
            Rule {
                agent: Some("discovery".into()),
                contains: Some(
                    "entry file: src/main/java/petstore/handlers/PetHandler.java".into(),
                ),
                replies: vec![Reply::json(json!({"matches": [
                    {"op_id": POST, "class": "PetHandler", "method": "createPet", "file": PET_HANDLER, "line": 89},
                    {"op_id": GET, "class": "PetHandler", "method": "handle", "file": PET_HANDLER, "line": 20},
                    {"op_id": "GET /nowhere", "class": "PetHandler", "method": "x"}]}))],
                ..Rule::default()
            },
            rule(
                "extraction",
                Some(POST),
                context(
                    &["id", "name", "status"],
                    201,
                    &[(400, "name missing or blank")],
                ),
            ),
            rule(
                "extraction",
                Some(GET),
                context(
                    &["id", "name", "status"],
                    200,
                    &[(400, "petId not numeric"), (404, "no pet with petId")],
                ),
            ),
            rule(
                "extraction",
                Some(DELETE),
                context(&[], 204, &[(404, "no pet with petId")]),
            ),
            rule("semantic", None, group),
            rule("single_op", Some(GET), get_oracles),
            rule("single_op", Some(POST), post_oracles),
            // DELETE keeps one oracle: an operation left with none has not completed.
            rule(
                "single_op",
                Some(DELETE),
                json!({"oracles": [
                {"test_id": "fi_delete_missing", "oracle_strategy": "fi",
                 "input": {"path": {"petId": "999"}},
                 "assertions": [{"type": "status", "expected": 404}]},
                {"test_id": "bi_delete_zero", "oracle_strategy": "bi",
                 "input": {"path": {"petId": "0"}},
                 "assertions": [{"type": "status", "expected": 404}]}]}),
            ),
            rule(
                "single_op_challenger",
                Some(GET),
                json!({"hints": [
                {"test_id": "fv_get_rex", "dimension": "assertion_correctness", "text": "seed data names pet 1 Rex, not Rexx"},
                {"test_id": "fv_unknown", "dimension": "coverage_gaps", "text": "refers to an oracle that does not exist"}]}),
            ),
            rule("single_op_challenger", Some(POST), json!({"hints": []})),
            rule(
                "single_op_regenerate",
                Some(GET),
                json!({"oracles": [
                fv_get_rex("Rex"),
                {"test_id": "fi_bad_id", "oracle_strategy": "fi", "input": {"path": {"petId": "zzz"}},
                 "assertions": [{"type": "status", "expected": 400}]}]}),
            ),
            rule("multi_op", None, multi),
            rule("multi_op_challenger", None, json!({"hints": []})),
        ],
        fallback: vec![Reply::json(
            json!({"matches": [], "oracles": [], "hints": [], "groups": []}),
        )],
        n_ctx: None,
    }
}

pub fn read_json(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Requests the scripted server received from `agent`.
pub fn agent_calls(server: &mastor::llm::scripted::ScriptedServer, agent: &str) -> usize {
    server
        .requests()
        .iter()
        .filter(|r| r.agent.as_deref() == Some(agent))
        .count()
}
