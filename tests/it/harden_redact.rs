//! Hardening, round two, secrets:
//! - a model answer that echoes the configured key in fields that are parsed and kept
//!   (contexts, oracles, a regeneration) leaves no copy in `suites/`, `regen/`,
//!   `contexts/`, `cache/` or the exported `suite.json` / `suite.md`: answers are
//!   redacted before they are parsed or cached;
//! - `Basic` credentials and the default of a lookup assigned to `DB_PASS` in Java source
//!   and seed files never reach a prompt, and the call record names what was redacted
//!   (kind, file:line), never the value.

use crate::support;

use mastor::llm::scripted::{Reply, Rule, ScriptedServer};
use serde_json::json;
use std::path::{Path, PathBuf};
use support::*;

const KEY: &str = "sk-echoed-ANSWERKEY-0123456789abcdef";
const DB_PASS: &str = "s3cretPASSvalue9";
const BASIC: &str = "dXNlcjpzM2NyZXRQQVNT";
const SEED_BASIC: &str = "YWRtaW46cGFzc3dvcmQxMjM=";

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    if let Ok(rd) = std::fs::read_dir(dir) {
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                walk(&p, out);
            } else {
                out.push(p);
            }
        }
    }
}

/// Files under `dirs` whose text holds `needle`.
fn holding(dirs: &[&Path], needle: &str) -> Vec<PathBuf> {
    let mut all = Vec::new();
    for d in dirs {
        walk(d, &mut all);
    }
    all.into_iter()
        .filter(|p| {
            std::fs::read(p)
                .map(|b| String::from_utf8_lossy(&b).contains(needle))
                .unwrap_or(false)
        })
        .collect()
}

/// The petstore fixture with credentials in the handler's literals and in a seed file.
fn planted_project(dir: &Path) -> PathBuf {
    let root = dir.join("petstore");
    copy_dir(&fixture("petstore-jdk"), &root);
    let handler = root.join(PET_HANDLER);
    let text = std::fs::read_to_string(&handler).unwrap();
    let planted = text.replacen(
        "{",
        &format!(
            "{{ private static final String DB_PASS = System.getenv().getOrDefault(\"DB_PASS\", \"{DB_PASS}\"); \
             private static final String AUTH = \"Authorization: Basic {BASIC}\";"
        ),
        1,
    );
    assert_ne!(planted, text);
    std::fs::write(&handler, planted).unwrap();
    let resources = root.join("src/main/resources");
    std::fs::create_dir_all(&resources).unwrap();
    std::fs::write(
        resources.join("data.sql"),
        format!("INSERT INTO users VALUES (1, 'Basic {SEED_BASIC}');\nINSERT INTO pets VALUES (7, 'Rex');\n"),
    )
    .unwrap();
    root
}

/// The petstore conversation with the key echoed in a context, two oracles and a
/// regeneration.
fn echoing_script() -> mastor::llm::scripted::Script {
    let mut script = petstore_script();
    let rule = |agent: &str, op: &str, value: serde_json::Value| Rule {
        agent: Some(agent.into()),
        op: Some(op.into()),
        replies: vec![Reply::json(value)],
        ..Rule::default()
    };
    let mut delete_ctx = context(&[], 204, &[(404, "no pet with petId")]);
    delete_ctx["response_schema"]["error_cases"][0]["condition"] =
        json!(format!("no pet (the key was {KEY})"));
    script
        .rules
        .insert(0, rule("extraction", DELETE, delete_ctx));
    script.rules.insert(
        0,
        rule(
            "single_op",
            POST,
            json!({"oracles": [
                {"test_id": "fv_create", "oracle_strategy": "fv",
                 "description": format!("create with key {KEY}"),
                 "evidence": format!("sent Authorization: Bearer {KEY}"),
                 "input": {"body": {"name": "Bolt"}, "headers": {"X-Key": KEY}},
                 "assertions": [{"type": "status", "expected": 201},
                                {"type": "field", "field_path": "id", "op": "not_null", "expected": null}]}]}),
        ),
    );
    let mut rex = fv_get_rex("Rex");
    rex["description"] = json!(format!("regenerated with {KEY}"));
    script.rules.insert(
        0,
        rule("single_op_regenerate", GET, json!({"oracles": [rex]})),
    );
    script
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn echoed_keys_and_source_credentials_reach_no_file_and_no_prompt() {
    let server = ScriptedServer::start(echoing_script()).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let project = planted_project(dir.path());
    let session = dir.path().join("session");
    let mut args = vec![
        "run",
        project.to_str().unwrap(),
        "--out",
        session.to_str().unwrap(),
        "--no-multi-op",
    ];
    for op in [POST, GET, DELETE] {
        args.extend(["--op", op]);
    }
    let output = tokio::task::block_in_place(|| {
        mastor_cmd(&server.base_url(), dir.path(), &args)
            .env("MASTOR_API_KEY", KEY)
            .output()
            .unwrap()
    });
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    let export = dir.path().join("export");
    let out = mastor(
        "http://127.0.0.1:9/v1",
        dir.path(),
        &[
            "export",
            session.to_str().unwrap(),
            "--format",
            "json,readable",
            "--all",
            "--out",
            export.to_str().unwrap(),
        ],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );

    // The echoed key: redacted where it was parsed, so no stored or exported copy.
    for sub in ["suites", "regen", "contexts", "cache", "calls"] {
        assert!(session.join(sub).is_dir(), "{sub} was written");
    }
    assert!(
        holding(&[&session, &export], "ANSWERKEY").is_empty(),
        "the echoed key is on disk: {:?}",
        holding(&[&session, &export], "ANSWERKEY")
    );
    let suites = holding(&[&session.join("suites")], "«redacted: api key»");
    assert!(!suites.is_empty(), "the echo was kept, redacted");
    assert!(!holding(&[&session.join("regen")], "«redacted: api key»").is_empty());

    // Credentials in the source and the seed file: never sent, never stored.
    let sent: String = server
        .requests()
        .iter()
        .map(|r| r.body.to_string())
        .collect::<Vec<_>>()
        .join("\n");
    assert!(sent.contains("PetHandler"), "the handler was sent");
    assert!(
        sent.contains("getOrDefault(\\\"DB_PASS\\\""),
        "the lookup stays"
    );
    for secret in [DB_PASS, BASIC, SEED_BASIC] {
        assert!(!sent.contains(secret), "{secret} reached the model");
        assert!(
            holding(&[&session, &export], secret).is_empty(),
            "{secret} is on disk: {:?}",
            holding(&[&session, &export], secret)
        );
    }
    // The call records name what was redacted, by kind and place.
    let noted = holding(
        &[&session.join("calls")],
        "redacted before the prompt was built",
    );
    assert!(!noted.is_empty(), "no call record names the redactions");
    // A call that sent the handler (extraction, the generator) names its redactions; a
    // reviewer that was sent only the seed data names that file's alone.
    let names_handler = noted.iter().any(|p| {
        let record = std::fs::read_to_string(p).unwrap();
        record.contains(&format!("basic credentials ({PET_HANDLER}:"))
            && record.contains(&format!("password ({PET_HANDLER}:"))
    });
    assert!(
        names_handler,
        "no call record names the handler's redactions: {noted:?}"
    );
    let seed_note = "basic credentials (src/main/resources/data.sql:1)";
    assert!(
        !holding(&[&session.join("calls")], seed_note).is_empty(),
        "the seed file's redaction is named"
    );
}
