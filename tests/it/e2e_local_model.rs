//! End-to-end: a real JSON-schema-constrained call through the client to a real local
//! model (SmolLM2-135M-Instruct behind llama.cpp's OpenAI-compatible server).
//!
//! Run with: `MASTOR_E2E_BASE_URL=$(scripts/local-llm.sh start | tail -n1)
//! cargo test --test e2e_local_model -- --ignored`

use mastor::llm::{CacheMode, CallRequest, LlmClient, LlmConfig, Message, Provider};
use serde::Deserialize;
use serde_json::json;
use std::time::Duration;

#[derive(Debug, Deserialize)]
struct Answer {
    answer: String,
    confidence: f64,
}

#[tokio::test]
#[ignore = "needs the local model: scripts/local-llm.sh start"]
async fn real_model_answers_schema_constrained_json() {
    let base_url = std::env::var("MASTOR_E2E_BASE_URL")
        .expect("set MASTOR_E2E_BASE_URL to the base URL printed by scripts/local-llm.sh start");
    let mut cfg = LlmConfig::for_base_url(Provider::Llamacpp, base_url.trim(), "smollm2");
    cfg.cache = CacheMode::Off;
    cfg.timeout = Duration::from_secs(300);
    cfg.max_attempts = 2;
    let client = LlmClient::new(cfg).expect("client");
    let schema = json!({
        "type": "object",
        "properties": {
            "answer": {"type": "string", "maxLength": 80},
            "confidence": {"type": "number"}
        },
        "required": ["answer", "confidence"]
    });
    let mut req = CallRequest::new(
        "e2e",
        "smoke",
        vec![
            Message::system(
                "You are a helpful assistant. Reply in JSON with the keys answer and confidence.",
            ),
            Message::user("What is the capital of France?"),
        ],
    )
    .schema(schema);
    req.max_tokens = Some(96);
    let (a, rec) = client
        .call_json::<Answer>(req)
        .await
        .unwrap_or_else(|f| panic!("{f}\nrecord: {:#?}", f.record));
    eprintln!(
        "answer: {a:?}\nusage: {:?}\nraw: {:?}",
        rec.usage, rec.raw_answer
    );
    assert!(!a.answer.trim().is_empty(), "{a:?}");
    assert!(a.confidence.is_finite());
    assert!(rec.usage.prompt_tokens > 0, "{:?}", rec.usage);
    assert!(rec.usage.completion_tokens > 0, "{:?}", rec.usage);
    assert!(!rec.cache_hit);
    assert_eq!(rec.cost_usd, 0.0, "a local model costs nothing");
}
