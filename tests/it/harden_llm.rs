//! The model client against hostile endpoints on 127.0.0.1: answers and error bodies far
//! larger than any real answer, streams that never end or never end a line, absurd
//! `Retry-After` values, and providers that echo the API key back.
//!
//! Memory limits are checked through what the client reports (the cap in the error) and
//! through how many bytes the server managed to hand over before the client hung up.

use mastor::llm::scripted::{Reply, Rule, Script, ScriptedServer};
use mastor::llm::{
    CacheMode, CallRequest, LlmClient, LlmConfig, LlmError, Message, Provider, RetryWait,
};
use std::time::Duration;

const MIB: u64 = 1024 * 1024;
/// What each hostile reply offers; the client must stop far below it.
const OFFERED: u64 = 64 * MIB;
/// Generous room for socket buffers between the server and the client.
const SLACK: u64 = 24 * MIB;

fn cfg(server: &ScriptedServer, stream: bool) -> LlmConfig {
    let mut c = LlmConfig::for_base_url(Provider::Custom, server.base_url(), "test-model");
    c.backoff_base = Duration::from_millis(5);
    c.backoff_max = Duration::from_millis(20);
    c.timeout = Duration::from_secs(20);
    c.max_attempts = 3;
    c.cache = CacheMode::Off;
    c.primary.stream = stream;
    c.challenger.stream = stream;
    c
}

fn req() -> CallRequest {
    CallRequest::new(
        "a",
        "source_analysis",
        vec![Message::system("Answer in JSON."), Message::user("Is it?")],
    )
}

async fn server(replies: Vec<Reply>) -> ScriptedServer {
    ScriptedServer::start(Script {
        rules: vec![Rule::agent("a", replies)],
        fallback: vec![],
        n_ctx: None,
    })
    .await
    .unwrap()
}

/// Runs one text call on its own thread and runtime, so that a client that never
/// yields cannot hold up the test: after `guard` the test fails instead of hanging.
/// The runtime has two workers, as `mastor run` does: the connection task then feeds
/// the body on one worker while the call reads it on the other.
fn call_guarded(c: LlmConfig, guard: Duration) -> Result<(), LlmError> {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        let client = LlmClient::new(c).unwrap();
        let out = rt.block_on(client.call_text(req()));
        let _ = tx.send(out.map(|_| ()).map_err(|f| f.error));
    });
    rx.recv_timeout(guard)
        .unwrap_or_else(|_| panic!("the call was still running after {guard:?}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_huge_error_body_is_read_only_in_part() {
    let s = server(vec![Reply::Huge {
        status: 500,
        bytes: OFFERED,
    }])
    .await;
    let mut c = cfg(&s, false);
    c.max_attempts = 1;
    let err = call_guarded(c, Duration::from_secs(60)).unwrap_err();
    let LlmError::Status { status, body, .. } = &err else {
        panic!("{err}")
    };
    assert_eq!(*status, 500);
    assert!(body.chars().count() <= 600, "{}", body.len());
    assert!(
        s.streamed_bytes() < SLACK,
        "the client read on: {} bytes handed over",
        s.streamed_bytes()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_huge_plain_answer_hits_the_cap_and_is_not_retried() {
    let s = server(vec![Reply::Huge {
        status: 200,
        bytes: OFFERED,
    }])
    .await;
    let err = call_guarded(cfg(&s, false), Duration::from_secs(60)).unwrap_err();
    let text = err.to_string();
    assert!(
        text.contains(&format!("answer larger than {} bytes", 4 * MIB)),
        "{text}"
    );
    assert!(!err.is_retryable());
    assert_eq!(s.calls(), 1);
    assert!(
        s.streamed_bytes() < 4 * MIB + SLACK,
        "{}",
        s.streamed_bytes()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_endless_stream_hits_the_cap() {
    let s = server(vec![Reply::Flood {
        newlines: true,
        total_bytes: OFFERED,
        pace_ms: 0,
    }])
    .await;
    let err = call_guarded(cfg(&s, true), Duration::from_secs(60)).unwrap_err();
    let text = err.to_string();
    assert!(
        text.contains(&format!("answer larger than {} bytes", 4 * MIB)),
        "{text}"
    );
    assert_eq!(s.calls(), 1);
    assert!(
        s.streamed_bytes() < 4 * MIB + SLACK,
        "{}",
        s.streamed_bytes()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stream_without_newlines_hits_the_cap() {
    let s = server(vec![Reply::Flood {
        newlines: false,
        total_bytes: OFFERED,
        pace_ms: 0,
    }])
    .await;
    let err = call_guarded(cfg(&s, true), Duration::from_secs(60)).unwrap_err();
    let text = err.to_string();
    assert!(
        text.contains(&format!("answer larger than {} bytes", 4 * MIB)),
        "{text}"
    );
    assert_eq!(s.calls(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_timeout_ends_a_stream_that_never_ends_a_line() {
    // Never ends, never sends a newline, and stays under the size cap for longer than
    // the timeout: only the deadline can stop it.
    let s = server(vec![Reply::Flood {
        newlines: false,
        total_bytes: 0,
        pace_ms: 1,
    }])
    .await;
    let mut c = cfg(&s, true);
    c.timeout = Duration::from_secs(2);
    c.max_attempts = 1;
    c.max_response_bytes = 256 * MIB;
    let err = call_guarded(c, Duration::from_secs(60)).unwrap_err();
    assert!(matches!(err, LlmError::Timeout { .. }), "{err}");
}

#[tokio::test]
async fn a_long_retry_after_fails_at_once_instead_of_sleeping() {
    let s = server(vec![Reply::rate_limited(999_999), Reply::text("late")]).await;
    let client = LlmClient::new(cfg(&s, false)).unwrap();
    let out = tokio::time::timeout(Duration::from_secs(30), client.call_text(req()))
        .await
        .expect("the client slept on a 999999 s Retry-After");
    let failure = out.unwrap_err();
    let text = failure.error.to_string();
    assert!(
        text.contains("rate limited for 999999 s (longer than the 60 s limit"),
        "{text}"
    );
    assert_eq!(s.calls(), 1);
    assert!(failure.record.retries.is_empty());
}

#[tokio::test]
async fn an_echoed_key_never_reaches_the_record() {
    let key = "sk-hostile-ECHOED-0123456789abcdef";
    let s = server(vec![Reply::Status {
        status: 401,
        retry_after: None,
        retry_after_ms: None,
        body: Some(format!(
            "invalid key {key}; you sent Authorization: Bearer {key}"
        )),
    }])
    .await;
    let mut c = cfg(&s, false);
    let with_userinfo = s
        .base_url()
        .replace("http://", "http://someone:pw-SECRET-userinfo@");
    for role in [&mut c.primary, &mut c.challenger] {
        role.api_key = Some(mastor::llm::Secret::new(key));
        role.base_url = with_userinfo.clone();
    }
    let client = LlmClient::new(c).unwrap();
    let failure = client.call_text(req()).await.unwrap_err();
    let rec = serde_json::to_string(&failure.record).unwrap();
    let err = failure.error.to_string();
    for text in [&rec, &err, &failure.to_string()] {
        assert!(!text.contains("ECHOED"), "{text}");
        assert!(!text.contains("pw-SECRET-userinfo"), "{text}");
    }
    assert!(err.contains("«redacted: api key»"), "{err}");
    assert_eq!(s.calls(), 1, "401 is not retried");
}

#[tokio::test]
async fn an_echoed_key_in_answers_is_redacted() {
    let key = "sk-hostile-ANSWER-0123456789abcdef";
    let s = server(vec![Reply::text(format!("not json, but the key: {key}"))]).await;
    let mut c = cfg(&s, false);
    c.primary.api_key = Some(mastor::llm::Secret::new(key));
    let client = LlmClient::new(c).unwrap();
    let failure = client
        .call_json::<serde_json::Value>(req())
        .await
        .unwrap_err();
    let rec = &failure.record;
    assert!(rec.reasked);
    let text = serde_json::to_string(rec).unwrap();
    assert!(!text.contains("ANSWER-0123"), "{text}");
    assert!(
        rec.raw_answer
            .as_deref()
            .is_some_and(|a| a.contains("«redacted: api key»"))
    );
}

#[tokio::test]
async fn retry_waits_are_reported_as_they_start() {
    let s = std::sync::Arc::new(server(vec![Reply::rate_limited(1), Reply::text("fine")]).await);
    let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let (sink_seen, sink_server) = (seen.clone(), s.clone());
    let client = LlmClient::new(cfg(&s, false))
        .unwrap()
        .with_retry_sink(std::sync::Arc::new(move |w: &RetryWait| {
            // Told before the wait, so before the second request reaches the server.
            sink_seen
                .lock()
                .unwrap()
                .push((w.clone(), sink_server.calls()));
        }));
    let (text, rec) = client.call_text(req()).await.unwrap();
    assert_eq!(text, "fine");
    let seen = seen.lock().unwrap();
    assert_eq!(seen.len(), 1);
    let (wait, calls_then) = &seen[0];
    assert_eq!(*calls_then, 1);
    assert_eq!(wait.call_id, rec.id);
    assert_eq!(wait.agent, "a");
    assert_eq!(wait.note.wait_ms, 1000);
    assert!(wait.note.from_retry_after);
    assert_eq!(rec.retries, vec![wait.note.clone()]);
}

#[tokio::test]
async fn a_retry_after_within_the_configured_limit_is_honoured() {
    let s = server(vec![Reply::rate_limited(1), Reply::text("fine")]).await;
    let mut c = cfg(&s, false);
    c.max_retry_after = Duration::from_secs(1);
    let client = LlmClient::new(c).unwrap();
    let (_, rec) = client.call_text(req()).await.unwrap();
    assert_eq!(rec.retries.len(), 1);
    assert_eq!(s.calls(), 2);

    let s = server(vec![Reply::rate_limited(2), Reply::text("fine")]).await;
    let mut c = cfg(&s, false);
    c.max_retry_after = Duration::from_secs(1);
    let err = LlmClient::new(c)
        .unwrap()
        .call_text(req())
        .await
        .unwrap_err();
    assert!(
        matches!(
            err.error,
            LlmError::RateLimited {
                secs: 2,
                limit: 1,
                ..
            }
        ),
        "{}",
        err.error
    );
    assert!(!err.error.is_retryable());
}
