//! `mastor run` against a provider that echoes the API key (in a 401 body and in an
//! answer) and a base URL carrying `user:password@`: neither may reach any file of the
//! session directory (`state.json`, `events.jsonl`, `calls/`, …).

use crate::support;

use mastor::llm::scripted::{Reply, Rule, ScriptedServer};
use support::*;

const KEY: &str = "sk-echoed-SESSIONKEY-0123456789abcdef";
const PASSWORD: &str = "pw-USERINFO-secret";

fn files(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files(&path, out);
        } else {
            out.push(path);
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_echoed_key_never_reaches_the_session_directory() {
    let mut script = petstore_script();
    let echo = format!("invalid api key {KEY} (header was Authorization: Bearer {KEY})");
    script.rules.insert(
        0,
        Rule {
            agent: Some("extraction".into()),
            op: Some(GET.into()),
            replies: vec![Reply::Status {
                status: 401,
                retry_after: None,
                retry_after_ms: None,
                body: Some(echo),
            }],
            ..Rule::default()
        },
    );
    script.rules.insert(
        0,
        Rule {
            agent: Some("single_op".into()),
            op: Some(POST.into()),
            replies: vec![Reply::text(format!("I cannot; your key is {KEY}"))],
            ..Rule::default()
        },
    );
    let server = ScriptedServer::start(script).await.unwrap();
    let base_url = server
        .base_url()
        .replace("http://", &format!("http://someone:{PASSWORD}@"));
    let dir = tempfile::tempdir().unwrap();
    let session = dir.path().join("session");
    let out = session.to_str().unwrap().to_string();
    let mut args = vec![
        "run",
        "tests/fixtures/petstore-jdk",
        "--out",
        &out,
        "--json",
    ];
    for op in [POST, GET, DELETE] {
        args.extend(["--op", op]);
    }
    args.extend(["--max-attempts", "1"]);
    let output = tokio::task::block_in_place(|| {
        mastor_cmd(&base_url, dir.path(), &args)
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .env("MASTOR_API_KEY", KEY)
            .output()
            .unwrap()
    });
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        server.requests().iter().any(|r| r.authorization.is_some()),
        "the key was sent: {stderr}"
    );

    let mut all = Vec::new();
    files(&session, &mut all);
    assert!(
        all.iter().any(|p| p.ends_with("events.jsonl")),
        "{all:?}: {stderr}"
    );
    let mut redacted = 0;
    for path in &all {
        let bytes = std::fs::read(path).unwrap();
        let text = String::from_utf8_lossy(&bytes);
        assert!(
            !text.contains("SESSIONKEY"),
            "the key is in {}",
            path.display()
        );
        assert!(
            !text.contains(PASSWORD),
            "the userinfo is in {}",
            path.display()
        );
        redacted += text.matches("«redacted: api key»").count();
    }
    assert!(redacted > 0, "the echoes were not recorded at all: {all:?}");
    for stream in [&output.stdout, &output.stderr] {
        let text = String::from_utf8_lossy(stream);
        assert!(
            !text.contains("SESSIONKEY") && !text.contains(PASSWORD),
            "{text}"
        );
    }
}
