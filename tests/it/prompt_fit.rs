//! Prompts fit the model's context window: the window comes from the server's `/props`
//! (as llama.cpp reports it) or `--context-window`; a bundle too large is cut by whole
//! files, the handler's file first, with a note in the prompt and in the call record; a
//! prompt that cannot fit is never sent; a server that still says the context was
//! exceeded gets a smaller prompt.

use crate::support;

use mastor::llm::CallRecord;
use mastor::llm::scripted::{Reply, Rule, ScriptedServer};
use mastor::store::Session;
use serde_json::Value;
use support::*;

const STORE: &str = "src/main/java/petstore/store/PetStore.java";
const JSON_HELPER: &str = "src/main/java/petstore/json/Json.java";
/// Too small for the GET operation's whole extraction prompt (about 13,000 tokens by
/// the estimate), large enough for its handler's file.
const WINDOW: u32 = 6144;

fn run_get(server: &ScriptedServer, extra: &[&str]) -> (i32, String, Session, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("session");
    let mut args = vec![
        "run",
        "tests/fixtures/petstore-jdk",
        "--out",
        out.to_str().unwrap(),
        "--no-discovery",
        "--no-multi-op",
        "--no-challenger",
        "--max-attempts",
        "1",
        "--max-tokens",
        "512",
        "--op",
        GET,
    ];
    args.extend_from_slice(extra);
    let mut cmd = mastor_cmd(&server.base_url(), dir.path(), &args);
    cmd.current_dir(env!("CARGO_MANIFEST_DIR"));
    let output = cmd.output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    let session = Session::open(&out).unwrap();
    (output.status.code().unwrap_or(-1), stderr, session, dir)
}

/// A 400 answer with `message` as an OpenAI-style context overflow error.
fn overflow(message: &str) -> Reply {
    Reply::Status {
        status: 400,
        retry_after: None,
        retry_after_ms: None,
        body: Some(format!(
            r#"{{"error":{{"message":"{message}","code":"context_length_exceeded"}}}}"#
        )),
    }
}

/// The petstore script with the extraction answering `first`, then a context.
fn extraction_after(first: Reply) -> mastor::llm::scripted::Script {
    let mut script = petstore_script();
    let context = context(&["id", "name", "status"], 200, &[(404, "no such pet")]);
    script.rules.insert(
        0,
        Rule {
            agent: Some("extraction".into()),
            replies: vec![first, Reply::json(context)],
            ..Rule::default()
        },
    );
    script
}

fn prompt_text(body: &Value) -> String {
    body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|m| m["content"].as_str())
        .collect::<Vec<_>>()
        .join("\n")
}

fn extraction_prompts(server: &ScriptedServer) -> Vec<String> {
    server
        .requests()
        .iter()
        .filter(|r| r.agent.as_deref() == Some("extraction"))
        .map(|r| prompt_text(&r.body))
        .collect()
}

fn header(path: &str) -> String {
    format!("// ===== FILE: {path} (")
}

fn extraction_record(session: &Session) -> CallRecord {
    let name = session
        .list("calls")
        .unwrap()
        .into_iter()
        .find(|c| c.starts_with("extraction"))
        .expect("an extraction call record");
    session
        .read_json(&format!("calls/{name}"))
        .unwrap()
        .expect("record")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bundle_too_large_for_the_servers_window_is_cut_handler_first() {
    let mut script = petstore_script();
    script.n_ctx = Some(WINDOW);
    let server = ScriptedServer::start(script).await.unwrap();
    let (code, stderr, session, _dir) = tokio::task::block_in_place(|| run_get(&server, &[]));
    assert_eq!(code, 0, "{stderr}");
    let prompts = extraction_prompts(&server);
    assert_eq!(prompts.len(), 1);
    let prompt = &prompts[0];
    // The whole prompt is within the window with the answer's room kept.
    let estimate = mastor::agents::fit::estimate_tokens(prompt);
    assert!(
        estimate <= WINDOW as usize - 512,
        "about {estimate} tokens sent"
    );
    assert!(
        prompt.contains(&header(PET_HANDLER)),
        "the handler's file is kept"
    );
    let record = extraction_record(&session);
    assert_eq!(record.notes.len(), 1, "{:?}", record.notes);
    let note = &record.notes[0];
    assert!(
        note.starts_with(&format!("context window {WINDOW} tokens")),
        "{note}"
    );
    // Every file the note names is absent from the prompt, and the prompt says so.
    let dropped: Vec<&str> = note.rsplit_once("files: ").unwrap().1.split(", ").collect();
    assert!(
        !dropped.is_empty() && !dropped.contains(&PET_HANDLER),
        "{note}"
    );
    for f in &dropped {
        assert!(!prompt.contains(&header(f)), "{f} was dropped but sent");
    }
    let said = format!(
        "left out to fit the model's context window: {}",
        dropped.join(", ")
    );
    assert!(prompt.contains(&said), "{note}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_window_that_holds_the_whole_prompt_changes_nothing() {
    let mut script = petstore_script();
    script.n_ctx = Some(65_536);
    let server = ScriptedServer::start(script).await.unwrap();
    let (code, stderr, session, _dir) = tokio::task::block_in_place(|| run_get(&server, &[]));
    assert_eq!(code, 0, "{stderr}");
    let prompt = &extraction_prompts(&server)[0];
    for f in [PET_HANDLER, STORE, JSON_HELPER] {
        assert!(prompt.contains(&header(f)), "{f} missing");
    }
    assert!(!prompt.contains("left out to fit"));
    assert!(extraction_record(&session).notes.is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_prompt_that_cannot_fit_is_never_sent() {
    let server = ScriptedServer::start(petstore_script()).await.unwrap();
    let (code, stderr, _session, _dir) =
        tokio::task::block_in_place(|| run_get(&server, &["--context-window", "1024"]));
    assert_eq!(code, 4, "{stderr}");
    assert!(extraction_prompts(&server).is_empty(), "nothing sent");
    assert!(
        stderr.contains("context window is 1024 tokens") && stderr.contains("alone does not fit"),
        "{stderr}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_that_says_the_context_was_exceeded_gets_a_smaller_prompt() {
    let script = extraction_after(overflow(
        "Requested tokens (9000) exceed context window of 8192",
    ));
    let server = ScriptedServer::start(script).await.unwrap();
    let (code, stderr, _session, _dir) =
        tokio::task::block_in_place(|| run_get(&server, &["--context-window", "8192"]));
    assert_eq!(code, 0, "{stderr}");
    let prompts = extraction_prompts(&server);
    assert_eq!(prompts.len(), 2, "asked again after the overflow");
    assert!(prompts[1].len() < prompts[0].len());
    assert!(prompts[1].contains("left out to fit the model's context window"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_window_named_only_in_the_servers_overflow_error_is_learned() {
    let script = extraction_after(overflow(&format!(
        "This model's maximum context length is {WINDOW} tokens. However, you requested \
         13000 tokens (12488 in the messages, 512 in the completion)."
    )));
    let server = ScriptedServer::start(script).await.unwrap();
    let (code, stderr, _session, _dir) = tokio::task::block_in_place(|| run_get(&server, &[]));
    assert_eq!(code, 0, "{stderr}");
    let prompts = extraction_prompts(&server);
    assert_eq!(prompts.len(), 2, "asked again once the window was known");
    assert!(!prompts[0].contains("left out to fit"));
    assert!(prompts[1].contains("left out to fit the model's context window"));
    // Later calls use the learned window from the start.
    let single: Vec<String> = server
        .requests()
        .iter()
        .filter(|r| r.agent.as_deref() == Some("single_op"))
        .map(|r| prompt_text(&r.body))
        .collect();
    assert_eq!(single.len(), 1, "no overflow on the next agent");
    let estimate = mastor::agents::fit::estimate_tokens(&single[0]);
    assert!(estimate <= WINDOW as usize - 512, "about {estimate} tokens");
}
