//! A scripted OpenAI-compatible server for tests and demos: a real axum HTTP server on
//! 127.0.0.1 that speaks `/v1/chat/completions` (plain and SSE streaming) and
//! `/v1/models`, answering from a [`Script`] the test controls. It counts calls (total
//! and per rule), records every request it received, and tracks the peak number of
//! requests in flight.
//!
//! It is not a model: it never looks at the meaning of a prompt beyond the rule
//! conditions, and its token counts are estimates from text lengths.

mod script;

pub use script::{Reply, Rule, Script};

use crate::llm::Secret;
use axum::Router;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use script::{Compiled, Probe};
use serde::Serialize;
use serde_json::{Value, json};
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Why the server could not start.
#[derive(Debug, thiserror::Error)]
pub enum ScriptError {
    #[error("cannot listen on {addr}: {reason}")]
    Bind { addr: SocketAddr, reason: String },
    #[error("rule {index} has an invalid regex: {reason}")]
    Regex { index: usize, reason: String },
}

/// A request the server received.
#[derive(Debug, Clone, Serialize)]
pub struct ReceivedRequest {
    pub path: String,
    pub agent: Option<String>,
    pub op: Option<String>,
    /// The bearer key sent, masked in Debug and Serialize.
    pub authorization: Option<Secret>,
    pub body: Value,
    /// Index of the rule that answered; `None` for the fallback.
    pub rule: Option<usize>,
}

struct Shared {
    rules: Mutex<Vec<Compiled>>,
    fallback: Mutex<Vec<Reply>>,
    rule_calls: Mutex<Vec<usize>>,
    fallback_calls: AtomicUsize,
    total: AtomicUsize,
    in_flight: AtomicUsize,
    peak: AtomicUsize,
    requests: Mutex<Vec<ReceivedRequest>>,
    n_ctx: Mutex<Option<u32>>,
    /// Bytes of `Flood` / `Huge` bodies handed to the connection so far.
    streamed: Arc<AtomicU64>,
}

/// A running scripted server; stops when dropped.
pub struct ScriptedServer {
    addr: SocketAddr,
    shared: Arc<Shared>,
    task: tokio::task::JoinHandle<()>,
}

impl ScriptedServer {
    /// Starts on 127.0.0.1 with a free port, on the current tokio runtime.
    pub async fn start(script: Script) -> Result<Self, ScriptError> {
        Self::start_on(script, SocketAddr::from(([127, 0, 0, 1], 0))).await
    }

    /// Starts on a given address.
    pub async fn start_on(script: Script, addr: SocketAddr) -> Result<Self, ScriptError> {
        let shared = Arc::new(Shared {
            rules: Mutex::new(Vec::new()),
            fallback: Mutex::new(Vec::new()),
            rule_calls: Mutex::new(Vec::new()),
            fallback_calls: AtomicUsize::new(0),
            total: AtomicUsize::new(0),
            in_flight: AtomicUsize::new(0),
            peak: AtomicUsize::new(0),
            requests: Mutex::new(Vec::new()),
            n_ctx: Mutex::new(None),
            streamed: Arc::new(AtomicU64::new(0)),
        });
        install(&shared, script)?;
        let listener =
            tokio::net::TcpListener::bind(addr)
                .await
                .map_err(|e| ScriptError::Bind {
                    addr,
                    reason: e.to_string(),
                })?;
        let addr = listener.local_addr().map_err(|e| ScriptError::Bind {
            addr,
            reason: e.to_string(),
        })?;
        let app = Router::new()
            .route("/v1/chat/completions", post(chat))
            .route("/chat/completions", post(chat))
            .route("/v1/models", get(models))
            .route("/models", get(models))
            .route("/props", get(props))
            .with_state(shared.clone());
        let task = tokio::spawn(async move {
            if let Err(e) = axum::serve(listener, app).await {
                tracing::warn!(error = %e, "scripted server stopped");
            }
        });
        Ok(Self { addr, shared, task })
    }

    /// Replaces the script and resets the per-rule counters (totals are kept).
    pub fn set_script(&self, script: Script) -> Result<(), ScriptError> {
        install(&self.shared, script)
    }

    /// The socket address.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The base URL to configure a client with (`http://127.0.0.1:P/v1`).
    pub fn base_url(&self) -> String {
        format!("http://{}/v1", self.addr)
    }

    /// Chat completion requests received.
    pub fn calls(&self) -> usize {
        self.shared.total.load(Ordering::SeqCst)
    }

    /// Requests answered by rule `index`.
    pub fn rule_calls(&self, index: usize) -> usize {
        lock(&self.shared.rule_calls)
            .get(index)
            .copied()
            .unwrap_or(0)
    }

    /// Requests answered by the rule named `name` (0 if none has that name).
    pub fn calls_named(&self, name: &str) -> usize {
        let idx = lock(&self.shared.rules)
            .iter()
            .position(|c| c.rule.name.as_deref() == Some(name));
        idx.map(|i| self.rule_calls(i)).unwrap_or(0)
    }

    /// Requests answered by the fallback.
    pub fn fallback_calls(&self) -> usize {
        self.shared.fallback_calls.load(Ordering::SeqCst)
    }

    /// The highest number of chat requests in flight at once.
    pub fn peak_in_flight(&self) -> usize {
        self.shared.peak.load(Ordering::SeqCst)
    }

    /// Bytes of `Flood` and `Huge` bodies produced so far: a client that stops reading
    /// early leaves this far below what the script offered (socket buffers aside).
    pub fn streamed_bytes(&self) -> u64 {
        self.shared.streamed.load(Ordering::SeqCst)
    }

    /// Every chat request received, in arrival order.
    pub fn requests(&self) -> Vec<ReceivedRequest> {
        lock(&self.shared.requests).clone()
    }

    /// Waits until the server stops (for a command that serves a script file).
    pub async fn wait(mut self) {
        let task = std::mem::replace(&mut self.task, tokio::spawn(async {}));
        let _ = task.await;
    }
}

impl Drop for ScriptedServer {
    fn drop(&mut self) {
        self.task.abort();
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

fn install(shared: &Shared, script: Script) -> Result<(), ScriptError> {
    let mut compiled = Vec::with_capacity(script.rules.len());
    for (index, rule) in script.rules.into_iter().enumerate() {
        compiled.push(Compiled::new(rule).map_err(|e| ScriptError::Regex {
            index,
            reason: e.to_string(),
        })?);
    }
    *lock(&shared.rule_calls) = vec![0; compiled.len()];
    *lock(&shared.rules) = compiled;
    *lock(&shared.fallback) = script.fallback;
    *lock(&shared.n_ctx) = script.n_ctx;
    shared.fallback_calls.store(0, Ordering::SeqCst);
    Ok(())
}

/// Counts a request in flight for as long as it lives (also when the client hangs up).
struct InFlight(Arc<Shared>);

impl InFlight {
    fn new(s: Arc<Shared>) -> Self {
        let now = s.in_flight.fetch_add(1, Ordering::SeqCst) + 1;
        s.peak.fetch_max(now, Ordering::SeqCst);
        Self(s)
    }
}

impl Drop for InFlight {
    fn drop(&mut self) {
        self.0.in_flight.fetch_sub(1, Ordering::SeqCst);
    }
}

async fn models() -> impl IntoResponse {
    axum::Json(
        json!({"object": "list", "data": [{"id": "scripted", "object": "model", "owned_by": "mastor"}]}),
    )
}

async fn props(State(s): State<Arc<Shared>>) -> Response {
    match *lock(&s.n_ctx) {
        Some(n) => axum::Json(json!({"default_generation_settings": {"n_ctx": n}})).into_response(),
        None => (axum::http::StatusCode::NOT_FOUND, "no /props").into_response(),
    }
}

async fn chat(
    State(s): State<Arc<Shared>>,
    headers: HeaderMap,
    uri: axum::http::Uri,
    body: String,
) -> Response {
    let _guard = InFlight::new(s.clone());
    s.total.fetch_add(1, Ordering::SeqCst);
    let body: Value = match serde_json::from_str(&body) {
        Ok(v) => v,
        Err(e) => {
            return error(
                StatusCode::BAD_REQUEST,
                &format!("request body is not JSON: {e}"),
            );
        }
    };
    let h = |name: &str| {
        headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::to_string)
    };
    let agent = h("x-mastor-agent");
    let op = h("x-mastor-op");
    let contents: Vec<String> = body["messages"]
        .as_array()
        .map(|ms| {
            ms.iter()
                .filter_map(|m| m["content"].as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default();
    let text = contents.join("\n");

    let (rule, reply, delay) = {
        let rules = lock(&s.rules);
        let probe = Probe {
            agent: agent.as_deref(),
            op: op.as_deref(),
            text: &text,
            contents: &contents,
        };
        match rules.iter().position(|c| c.matches(&probe)) {
            Some(i) => {
                let mut counts = lock(&s.rule_calls);
                let n = counts[i];
                counts[i] += 1;
                let replies = &rules[i].rule.replies;
                (
                    Some(i),
                    replies.get(n.min(replies.len().saturating_sub(1))).cloned(),
                    rules[i].rule.delay_ms,
                )
            }
            None => {
                let n = s.fallback_calls.fetch_add(1, Ordering::SeqCst);
                let fb = lock(&s.fallback);
                (None, fb.get(n.min(fb.len().saturating_sub(1))).cloned(), 0)
            }
        }
    };
    lock(&s.requests).push(ReceivedRequest {
        path: uri.path().to_string(),
        agent,
        op,
        authorization: h("authorization")
            .map(|a| Secret::new(a.trim_start_matches("Bearer ").to_string())),
        body: body.clone(),
        rule,
    });
    if delay > 0 {
        tokio::time::sleep(Duration::from_millis(delay)).await;
    }
    let Some(reply) = reply else {
        return error(
            StatusCode::BAD_REQUEST,
            "scripted server: no rule matches this request",
        );
    };
    match &reply {
        Reply::Status {
            status,
            retry_after,
            retry_after_ms,
            body: text,
        } => {
            let code = StatusCode::from_u16(*status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
            let mut resp = error(code, text.as_deref().unwrap_or("scripted fault"));
            if let Some(ra) = retry_after.as_deref().and_then(|v| v.parse().ok()) {
                resp.headers_mut().insert(header::RETRY_AFTER, ra);
            }
            if let Some(ms) = retry_after_ms.and_then(|v| v.to_string().parse().ok()) {
                resp.headers_mut().insert("retry-after-ms", ms);
            }
            resp
        }
        Reply::Hang { ms } => {
            tokio::time::sleep(Duration::from_millis(*ms)).await;
            error(StatusCode::GATEWAY_TIMEOUT, "scripted hang ended")
        }
        Reply::Flood {
            newlines,
            total_bytes,
            pace_ms,
        } => {
            let piece = if *newlines {
                flood_events()
            } else {
                axum::body::Bytes::from(vec![b'x'; PIECE])
            };
            let body = endless(s.streamed.clone(), piece, *total_bytes, *pace_ms);
            ([(header::CONTENT_TYPE, "text/event-stream")], body).into_response()
        }
        Reply::Huge { status, bytes } => {
            let code = StatusCode::from_u16(*status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
            let piece = axum::body::Bytes::from(vec![b'E'; PIECE]);
            let body = endless(s.streamed.clone(), piece, (*bytes).max(1), 0);
            (code, [(header::CONTENT_TYPE, "text/plain")], body).into_response()
        }
        other => {
            let (content, finish) = other.content().unwrap_or_default();
            answer(&body, &text, &content, finish)
        }
    }
}

/// Size of one piece of a `Flood` / `Huge` body.
const PIECE: usize = 16 * 1024;

/// About [`PIECE`] bytes of complete SSE content events.
fn flood_events() -> axum::body::Bytes {
    let event = format!(
        "data: {}\n\n",
        json!({"choices": [{"index": 0, "delta": {"content": "y".repeat(1000)}, "finish_reason": null}]})
    );
    axum::body::Bytes::from(event.repeat(PIECE.div_ceil(event.len())))
}

/// A body repeating `piece` until `total` bytes (0: forever), counting what it hands
/// over in `counter`; it stops when the client hangs up (the stream is dropped).
fn endless(
    counter: Arc<AtomicU64>,
    piece: axum::body::Bytes,
    total: u64,
    pace_ms: u64,
) -> axum::body::Body {
    let stream = futures_util::stream::unfold(0u64, move |sent| {
        let (counter, piece) = (counter.clone(), piece.clone());
        async move {
            if total > 0 && sent >= total {
                return None;
            }
            if pace_ms > 0 {
                tokio::time::sleep(Duration::from_millis(pace_ms)).await;
            }
            let n = if total > 0 {
                (piece.len() as u64).min(total - sent) as usize
            } else {
                piece.len()
            };
            counter.fetch_add(n as u64, Ordering::SeqCst);
            Some((
                Ok::<_, std::convert::Infallible>(piece.slice(..n)),
                sent + n as u64,
            ))
        }
    });
    axum::body::Body::from_stream(stream)
}

fn error(code: StatusCode, message: &str) -> Response {
    (
        code,
        axum::Json(
            json!({"error": {"message": message, "type": "scripted", "code": code.as_u16()}}),
        ),
    )
        .into_response()
}

fn estimate_tokens(text: &str) -> u64 {
    (text.chars().count() as u64).div_ceil(4).max(1)
}

fn answer(req: &Value, prompt: &str, content: &str, finish: &str) -> Response {
    let model = req["model"].as_str().unwrap_or("scripted").to_string();
    let usage = json!({
        "prompt_tokens": estimate_tokens(prompt),
        "completion_tokens": if content.is_empty() { 0 } else { estimate_tokens(content) },
        "total_tokens": estimate_tokens(prompt) + if content.is_empty() { 0 } else { estimate_tokens(content) },
    });
    let id = "chatcmpl-scripted";
    if req["stream"].as_bool() != Some(true) {
        return axum::Json(json!({
            "id": id, "object": "chat.completion", "created": 0, "model": model,
            "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": finish}],
            "usage": usage,
        }))
        .into_response();
    }
    let chunk = |delta: Value, finish: Value| {
        json!({"id": id, "object": "chat.completion.chunk", "created": 0, "model": model,
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})
    };
    let mut sse = String::from(": keep-alive\n\n");
    let mut push = |v: &Value| {
        sse.push_str("data: ");
        sse.push_str(&v.to_string());
        sse.push_str("\n\n");
    };
    push(&chunk(
        json!({"role": "assistant", "content": ""}),
        Value::Null,
    ));
    let chars: Vec<char> = content.chars().collect();
    for piece in chars.chunks(chars.len().div_ceil(3).max(1)) {
        push(&chunk(
            json!({"content": piece.iter().collect::<String>()}),
            Value::Null,
        ));
    }
    push(&chunk(json!({}), json!(finish)));
    if req["stream_options"]["include_usage"].as_bool() == Some(true) {
        push(
            &json!({"id": id, "object": "chat.completion.chunk", "created": 0, "model": model, "choices": [], "usage": usage}),
        );
    }
    sse.push_str("data: [DONE]\n\n");
    ([(header::CONTENT_TYPE, "text/event-stream")], sse).into_response()
}
