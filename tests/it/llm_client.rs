//! The LLM client against the scripted server: every injected fault with its outcome,
//! JSON repair and the corrective re-ask, the concurrency limit, and the call records.

use mastor::llm::scripted::{Reply, Rule, Script, ScriptedServer};
use mastor::llm::{
    CacheMode, CallRecord, CallRequest, LlmClient, LlmConfig, LlmError, Message, Provider,
    StreamProgress,
};
use serde::Deserialize;
use serde_json::json;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

#[derive(Debug, Deserialize, PartialEq)]
struct Answer {
    answer: String,
    confidence: f64,
}

fn good() -> serde_json::Value {
    json!({"answer": "yes", "confidence": 0.9})
}

fn cfg(server: &ScriptedServer, provider: Provider) -> LlmConfig {
    let mut c = LlmConfig::for_base_url(provider, server.base_url(), "test-model");
    c.backoff_base = Duration::from_millis(5);
    c.backoff_max = Duration::from_millis(20);
    c.timeout = Duration::from_secs(5);
    c.max_attempts = 3;
    c.cache = CacheMode::Off;
    c
}

fn req(agent: &str) -> CallRequest {
    CallRequest::new(
        agent,
        "source_analysis",
        vec![Message::system("Answer in JSON."), Message::user("Is it?")],
    )
    .op("GET /a")
}

async fn server(rules: Vec<Rule>) -> ScriptedServer {
    ScriptedServer::start(Script {
        rules,
        fallback: vec![],
        n_ctx: None,
    })
    .await
    .unwrap()
}

#[tokio::test]
async fn succeeds_after_500_and_503_streaming_and_not() {
    for provider in [Provider::Openai, Provider::Llamacpp] {
        let s = server(vec![Rule::agent(
            "a",
            vec![Reply::status(500), Reply::status(503), Reply::json(good())],
        )])
        .await;
        let client = LlmClient::new(cfg(&s, provider)).unwrap();
        let (a, rec): (Answer, CallRecord) = client.call_json(req("a")).await.unwrap();
        assert_eq!(
            a,
            Answer {
                answer: "yes".into(),
                confidence: 0.9
            }
        );
        assert_eq!(s.calls(), 3, "{provider}");
        assert_eq!(rec.attempts, 3);
        assert_eq!(rec.retries.len(), 2);
        assert!(rec.retries[0].reason.contains("500"), "{:?}", rec.retries);
        assert!(rec.retries[1].reason.contains("503"), "{:?}", rec.retries);
        assert!(
            rec.usage.prompt_tokens > 0 && rec.usage.completion_tokens > 0,
            "{provider}: {:?}",
            rec.usage
        );
        assert_eq!(rec.raw_answer.as_deref(), Some(good().to_string().as_str()));
        let streamed = s.requests()[0].body["stream"] == json!(true);
        assert_eq!(streamed, provider == Provider::Openai);
    }
}

#[tokio::test]
async fn fails_clearly_after_max_attempts() {
    let s = server(vec![Rule::agent("a", vec![Reply::status(502)])]).await;
    let client = LlmClient::new(cfg(&s, Provider::Openai)).unwrap();
    let err = client.call_json::<Answer>(req("a")).await.unwrap_err();
    assert_eq!(s.calls(), 3);
    let LlmError::Exhausted { attempts, last } = &err.error else {
        panic!("{err}")
    };
    assert_eq!(*attempts, 3);
    assert!(
        matches!(**last, LlmError::Status { status: 502, .. }),
        "{last}"
    );
    assert!(err.to_string().contains("after 3 attempts"), "{err}");
    assert_eq!(err.record.attempts, 3);
    assert!(err.record.error.as_deref().unwrap().contains("502"));
}

#[tokio::test]
async fn client_errors_are_not_retried() {
    let s = server(vec![Rule::agent(
        "a",
        vec![Reply::status(401), Reply::json(good())],
    )])
    .await;
    let client = LlmClient::new(cfg(&s, Provider::Openai)).unwrap();
    let err = client.call_json::<Answer>(req("a")).await.unwrap_err();
    assert_eq!(s.calls(), 1);
    assert!(
        matches!(err.error, LlmError::Status { status: 401, .. }),
        "{err}"
    );
}

#[tokio::test]
async fn a_hang_never_exceeds_the_timeout() {
    let s = server(vec![Rule::agent("a", vec![Reply::Hang { ms: 30_000 }])]).await;
    let mut c = cfg(&s, Provider::Openai);
    c.timeout = Duration::from_millis(300);
    c.max_attempts = 2;
    let client = LlmClient::new(c).unwrap();
    let t0 = Instant::now();
    let err = client.call_json::<Answer>(req("a")).await.unwrap_err();
    let elapsed = t0.elapsed();
    // Bound only: two attempts of 300 ms, one short backoff, and generous slack.
    assert!(
        elapsed < Duration::from_millis(300 * 2 + 2_000),
        "{elapsed:?}"
    );
    let LlmError::Exhausted { last, .. } = &err.error else {
        panic!("{err}")
    };
    assert!(matches!(**last, LlmError::Timeout { .. }), "{last}");
    assert_eq!(s.calls(), 2);
}

#[tokio::test]
async fn retry_after_is_honoured_and_recorded() {
    let s = server(vec![
        Rule::agent("secs", vec![Reply::rate_limited(1), Reply::json(good())]),
        Rule::agent(
            "ms",
            vec![
                Reply::Status {
                    status: 429,
                    retry_after: Some("5".into()),
                    retry_after_ms: Some(150),
                    body: None,
                },
                Reply::json(good()),
            ],
        ),
    ])
    .await;
    let client = LlmClient::new(cfg(&s, Provider::Openai)).unwrap();
    let t0 = Instant::now();
    let (_, rec) = client.call_json::<Answer>(req("secs")).await.unwrap();
    assert!(t0.elapsed() >= Duration::from_millis(1000));
    assert_eq!(rec.retries.len(), 1);
    assert_eq!(rec.retries[0].wait_ms, 1000);
    assert!(rec.retries[0].from_retry_after);
    assert!(rec.retries[0].reason.contains("429"));

    let (_, rec) = client.call_json::<Answer>(req("ms")).await.unwrap();
    assert_eq!(
        rec.retries[0].wait_ms, 150,
        "retry-after-ms wins over Retry-After"
    );
    assert_eq!(s.rule_calls(0), 2);
    assert_eq!(s.rule_calls(1), 2);
}

#[tokio::test]
async fn truncated_and_prose_wrapped_json_are_repaired() {
    let long = json!({"answer": "yes", "confidence": 0.5, "notes": "a long explanation that the model never finished writing because it ran out of tokens"});
    let s = server(vec![
        Rule::agent("trunc", vec![Reply::TruncatedJson { value: long }]),
        Rule::agent("prose", vec![Reply::ProseWrapped { value: good() }]),
    ])
    .await;
    let client = LlmClient::new(cfg(&s, Provider::Openai)).unwrap();
    let (a, rec) = client.call_json::<Answer>(req("trunc")).await.unwrap();
    assert_eq!(a.confidence, 0.5);
    assert!(
        rec.repairs.iter().any(|r| r == "closed truncated tail"),
        "{:?}",
        rec.repairs
    );
    assert_eq!(rec.finish_reason.as_deref(), Some("length"));
    assert!(!rec.reasked);
    let (a, rec) = client.call_json::<Answer>(req("prose")).await.unwrap();
    assert_eq!(a.answer, "yes");
    assert!(
        rec.repairs.iter().any(|r| r == "code fence"),
        "{:?}",
        rec.repairs
    );
    assert_eq!(s.calls(), 2, "repairs need no extra request");
}

#[tokio::test]
async fn wrong_shape_gets_one_corrective_reask() {
    let s = server(vec![
        Rule::agent(
            "fixes",
            vec![Reply::json(json!({"verdict": "yes"})), Reply::json(good())],
        ),
        Rule::agent("stubborn", vec![Reply::json(json!({"verdict": "yes"}))]),
    ])
    .await;
    let client = LlmClient::new(cfg(&s, Provider::Openai)).unwrap();
    let (a, rec) = client.call_json::<Answer>(req("fixes")).await.unwrap();
    assert_eq!(a.answer, "yes");
    assert!(rec.reasked);
    assert_eq!(rec.parse_error, None);
    assert_eq!(
        rec.rejected_answers,
        vec![json!({"verdict": "yes"}).to_string()]
    );
    assert_eq!(s.rule_calls(0), 2);
    let second = &s.requests()[1].body["messages"];
    let msgs = second.as_array().unwrap();
    let n = msgs.len();
    assert_eq!(msgs[n - 2]["role"], "assistant");
    assert_eq!(
        msgs[n - 2]["content"],
        json!({"verdict": "yes"}).to_string()
    );
    let correction = msgs[n - 1]["content"].as_str().unwrap();
    assert!(
        correction.contains("missing field `answer`"),
        "{correction}"
    );

    let err = client
        .call_json::<Answer>(req("stubborn"))
        .await
        .unwrap_err();
    assert_eq!(s.rule_calls(1), 2, "exactly one re-ask");
    let LlmError::Parse { reason } = &err.error else {
        panic!("{err}")
    };
    assert!(reason.contains("missing field `answer`"), "{reason}");
    assert!(err.record.reasked);
    assert!(err.record.parse_error.is_some());
}

#[tokio::test]
async fn empty_content_is_retried() {
    let s = server(vec![Rule::agent(
        "a",
        vec![Reply::Empty, Reply::json(good())],
    )])
    .await;
    let client = LlmClient::new(cfg(&s, Provider::Deepseek)).unwrap();
    let (_, rec) = client.call_json::<Answer>(req("a")).await.unwrap();
    assert_eq!(s.calls(), 2);
    assert!(
        rec.retries[0].reason.contains("empty content"),
        "{:?}",
        rec.retries
    );
    assert!(!rec.reasked);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrency_limit_is_honoured() {
    let s = server(vec![Rule::agent("a", vec![Reply::json(good())]).delay(100)]).await;
    let mut c = cfg(&s, Provider::Openai);
    c.concurrency = 4;
    let client = LlmClient::new(c).unwrap();
    let tasks: Vec<_> = (0..20)
        .map(|i| {
            let client = client.clone();
            tokio::spawn(async move {
                let mut r = req("a");
                r.messages.push(Message::user(format!("call {i}")));
                client.call_json::<Answer>(r).await
            })
        })
        .collect();
    for t in tasks {
        t.await.unwrap().unwrap();
    }
    assert_eq!(s.calls(), 20);
    assert_eq!(s.peak_in_flight(), 4);
    assert_eq!(client.ledger().total.calls, 20);
}

#[tokio::test]
async fn observer_and_ledger_see_success_and_failure() {
    let s = server(vec![
        Rule::agent("ok", vec![Reply::json(good())]),
        Rule::agent("bad", vec![Reply::status(400)]),
    ])
    .await;
    let seen: Arc<Mutex<Vec<CallRecord>>> = Arc::default();
    let sink = seen.clone();
    let client = LlmClient::new(cfg(&s, Provider::Openai))
        .unwrap()
        .with_observer(Arc::new(move |r: &CallRecord| {
            sink.lock().unwrap().push(r.clone())
        }));
    client.call_json::<Answer>(req("ok")).await.unwrap();
    let mut bad = req("bad");
    bad.phase = "oracle_generation".into();
    client.call_text(bad).await.unwrap_err();
    let seen = seen.lock().unwrap();
    assert_eq!(seen.len(), 2);
    assert_eq!(seen[0].agent, "ok");
    assert!(seen[0].error.is_none());
    assert!(seen[1].error.as_deref().unwrap().contains("400"));
    assert_eq!(seen[1].op_id.as_deref(), Some("GET /a"));
    let ledger = client.ledger();
    assert_eq!(ledger.by_phase["oracle_generation"].failures, 1);
    assert_eq!(ledger.by_agent["ok"].calls, 1);
    let reqs = s.requests();
    assert_eq!(reqs[0].agent.as_deref(), Some("ok"));
    assert_eq!(reqs[0].op.as_deref(), Some("GET /a"));
}

#[tokio::test]
async fn text_calls_and_fallback() {
    let s = ScriptedServer::start(Script {
        rules: vec![],
        fallback: vec![Reply::text("plain words")],
        n_ctx: None,
    })
    .await
    .unwrap();
    let progress: Arc<Mutex<Vec<StreamProgress>>> = Arc::default();
    let sink = progress.clone();
    let client = LlmClient::new(cfg(&s, Provider::Openai))
        .unwrap()
        .with_progress(Arc::new(move |p: &StreamProgress| {
            sink.lock().unwrap().push(p.clone())
        }));
    let (t, rec) = client.call_text(req("x")).await.unwrap();
    assert_eq!(t, "plain words");
    {
        let progress = progress.lock().unwrap();
        assert!(!progress.is_empty(), "streamed chunks are reported");
        let last = progress.last().unwrap();
        assert_eq!(last.streamed_chars, "plain words".len());
        assert_eq!(last.call_id, rec.id);
        assert_eq!(last.agent, "x");
    }
    assert!(
        rec.usage.completion_tokens > 0,
        "usage from the stream's usage chunk"
    );
    assert_eq!(s.fallback_calls(), 1);
    assert!(s.requests()[0].body.get("response_format").is_none());
}

#[tokio::test]
async fn connection_refused_is_retried_then_reported() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    drop(listener);
    let mut c =
        LlmConfig::for_base_url(Provider::Openai, format!("http://127.0.0.1:{port}/v1"), "m");
    c.backoff_base = Duration::from_millis(5);
    c.backoff_max = Duration::from_millis(20);
    c.max_attempts = 2;
    c.cache = CacheMode::Off;
    let err = LlmClient::new(c)
        .unwrap()
        .call_text(req("a"))
        .await
        .unwrap_err();
    let LlmError::Exhausted { attempts, last } = &err.error else {
        panic!("{err}")
    };
    assert_eq!(*attempts, 2);
    assert!(matches!(**last, LlmError::Transport { .. }), "{last}");
    assert!(err.to_string().contains(&port.to_string()), "{err}");
    assert_eq!(err.record.retries.len(), 1);
}
