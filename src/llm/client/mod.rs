//! [`LlmClient`]: the one way mastor talks to a model. A call goes: cache lookup →
//! HTTP exchange with retries → JSON extraction and repair → typed decode → (on a bad
//! answer) ONE corrective re-ask quoting the parse error → cache write. Every call,
//! successful or not, yields a [`CallRecord`] that goes to the caller, the observer and
//! the client's [`Ledger`].
//!
//! The client is `Clone` (an `Arc` inside): all clones share one concurrency limit, one
//! ledger and one cache. It does not build prompts and does not persist records.

mod http;
mod window;

pub use window::{window_from_error, window_from_models, window_from_props};

use super::cache::{CacheEntry, ResponseCache};
use super::config::{CacheMode, LlmConfig};
use super::error::{LlmError, LlmFailure};
use super::record::{CallRecord, Ledger, RetryNote, Usage};
use super::redact::Redactor;
use super::repair::extract_json;
use super::request::{build_body, cache_params, prepare_messages};
use super::{CallRequest, Message};
use serde::de::DeserializeOwned;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::sync::Semaphore;

/// Receives every finished call record (success and failure), e.g. to persist it.
pub type Observer = Arc<dyn Fn(&CallRecord) + Send + Sync>;

/// Receives live progress of streamed answers (for live token counts in the TUI).
pub type ProgressSink = Arc<dyn Fn(&StreamProgress) + Send + Sync>;

/// Told when a call starts waiting before a retry, so a wait of many seconds is visible
/// as it happens (the call's [`CallRecord::retries`] only arrive once the call ends).
pub type RetrySink = Arc<dyn Fn(&RetryWait) + Send + Sync>;

/// A retry wait that is starting now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RetryWait {
    /// The [`CallRecord::id`] of the waiting call.
    pub call_id: String,
    pub agent: String,
    pub op_id: Option<String>,
    /// Why the attempt failed and how long the call will now wait (`wait_ms`); the same
    /// note later appears in the record's `retries`.
    pub note: RetryNote,
}

/// How far a streamed answer has come. Token counts are estimates (characters / 4)
/// until the final usage arrives in the [`CallRecord`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StreamProgress {
    /// The [`CallRecord::id`] the answer belongs to.
    pub call_id: String,
    pub agent: String,
    pub op_id: Option<String>,
    pub streamed_chars: usize,
    pub estimated_tokens: usize,
}

/// The model client. Cheap to clone; clones share limits, cache and ledger.
#[derive(Clone)]
pub struct LlmClient {
    inner: Arc<Inner>,
}

#[derive(Clone)]
pub(crate) struct Inner {
    pub(crate) cfg: LlmConfig,
    pub(crate) http: reqwest::Client,
    pub(crate) limit: Arc<Semaphore>,
    cache: Option<ResponseCache>,
    observer: Option<Observer>,
    pub(crate) progress: Option<ProgressSink>,
    pub(crate) retry_sink: Option<RetrySink>,
    /// Scrubs the configured keys out of everything that leaves the client.
    pub(crate) redact: Redactor,
    ledger: Arc<Mutex<Ledger>>,
    /// Context windows asked of the servers, per role (primary, challenger), once.
    windows: Arc<[tokio::sync::OnceCell<Option<u32>>; 2]>,
    /// Windows learned from a server's "context length exceeded" answer, per role; they
    /// win over the probe (llama-cpp-python tells its window only that way).
    learned: Arc<Mutex<[Option<u32>; 4]>>,
}

impl std::fmt::Debug for LlmClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LlmClient")
            .field("cfg", &self.inner.cfg)
            .field("cache", &self.inner.cache)
            .finish_non_exhaustive()
    }
}

/// What a decode step produced.
struct Decoded<T> {
    value: T,
    repairs: Vec<String>,
}

impl LlmClient {
    /// Builds a client. The cache lives in `cfg.cache_dir`, else the user cache dir.
    pub fn new(cfg: LlmConfig) -> Result<Self, LlmError> {
        let http = reqwest::Client::builder()
            .connect_timeout(cfg.timeout.min(Duration::from_secs(30)))
            .user_agent(concat!("mastor/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|e| LlmError::Build(e.to_string()))?;
        let cache = match cfg.cache {
            CacheMode::Off => None,
            CacheMode::Normal | CacheMode::Refresh => cfg
                .cache_dir
                .clone()
                .or_else(ResponseCache::default_dir)
                .map(ResponseCache::new),
        };
        Ok(Self {
            inner: Arc::new(Inner {
                limit: Arc::new(Semaphore::new(cfg.concurrency.max(1))),
                redact: Redactor::from_config(&cfg),
                cfg,
                http,
                cache,
                observer: None,
                progress: None,
                retry_sink: None,
                ledger: Arc::new(Mutex::new(Ledger::default())),
                windows: Arc::default(),
                learned: Arc::default(),
            }),
        })
    }

    /// The same client (sharing limit, cache and ledger) with an observer that gets
    /// every call record.
    pub fn with_observer(&self, observer: Observer) -> Self {
        self.derive(|i| i.observer = Some(observer))
    }

    /// The same client (sharing limit, cache and ledger) reporting the progress of
    /// streamed answers to `sink`.
    pub fn with_progress(&self, sink: ProgressSink) -> Self {
        self.derive(|i| i.progress = Some(sink))
    }

    /// The same client (sharing limit, cache and ledger) telling `sink` about every
    /// retry wait as it starts.
    pub fn with_retry_sink(&self, sink: RetrySink) -> Self {
        self.derive(|i| i.retry_sink = Some(sink))
    }

    fn derive(&self, change: impl FnOnce(&mut Inner)) -> Self {
        let mut inner = (*self.inner).clone();
        change(&mut inner);
        Self {
            inner: Arc::new(inner),
        }
    }

    /// The configuration in force.
    pub fn config(&self) -> &LlmConfig {
        &self.inner.cfg
    }

    /// A snapshot of the roll-ups of every call made through this client and its clones.
    pub fn ledger(&self) -> Ledger {
        self.inner
            .ledger
            .lock()
            .map(|l| l.clone())
            .unwrap_or_default()
    }

    /// Asks for JSON and decodes it into `T` (repairing wrapped or broken JSON, with one
    /// corrective re-ask on failure).
    pub async fn call_json<T: DeserializeOwned>(
        &self,
        req: CallRequest,
    ) -> Result<(T, CallRecord), LlmFailure> {
        self.call(req, true, decode_json::<T>).await
    }

    /// Asks for plain text.
    pub async fn call_text(&self, req: CallRequest) -> Result<(String, CallRecord), LlmFailure> {
        self.call(req, false, |s: &str| {
            Ok(Decoded {
                value: s.to_string(),
                repairs: Vec::new(),
            })
        })
        .await
    }

    async fn call<T>(
        &self,
        req: CallRequest,
        json: bool,
        decode: fn(&str) -> Result<Decoded<T>, String>,
    ) -> Result<(T, CallRecord), LlmFailure> {
        let inner = &*self.inner;
        let started = Instant::now();
        let rc = inner.cfg.role(req.role).clone();
        let messages = prepare_messages(&rc, &req.messages, json);
        let schema = req.json_schema.as_ref();
        let body = build_body(&rc, &messages, json, schema, req.max_tokens);
        let key = ResponseCache::key(&rc.base_url, &rc.model, &cache_params(&body));
        let mut rec = new_record(&req, &rc, messages.clone());

        if inner.cfg.cache == CacheMode::Normal
            && !req.fresh
            && let Some(mut entry) = inner.cache.as_ref().and_then(|c| c.get(&key))
            && let Ok(d) = decode({
                // An entry an older version cached may still hold an echoed key.
                entry.content = inner.redact.redact(&entry.content).into_owned();
                &entry.content
            })
        {
            rec.cache_hit = true;
            rec.raw_answer = Some(entry.content);
            rec.finish_reason = entry.finish_reason;
            rec.repairs = d.repairs;
            return Ok((d.value, self.finish(rec, started)));
        }

        // The configured keys are scrubbed from an answer before anything reads it: what
        // is parsed, cached, stored in suites and exported never holds an echoed key.
        let first = match http::exchange(inner, &rc, &req, &body, &mut rec).await {
            Ok(a) => scrubbed(&inner.redact, a),
            Err(e) => return Err(self.fail(rec, started, e)),
        };
        rec.raw_answer = Some(first.content.clone());
        let (decoded, answer) = match decode(&first.content) {
            Ok(d) => (d, first),
            Err(reason) => {
                // One corrective re-ask: the bad answer and the parse error go back.
                rec.parse_error = Some(reason.clone());
                rec.reasked = true;
                rec.rejected_answers.push(first.content.clone());
                let mut retry_msgs = messages.clone();
                retry_msgs.push(Message::assistant(first.content.clone()));
                retry_msgs.push(Message::user(correction(&reason)));
                let body2 = build_body(&rc, &retry_msgs, json, schema, req.max_tokens);
                rec.messages = retry_msgs;
                let second = match http::exchange(inner, &rc, &req, &body2, &mut rec).await {
                    Ok(a) => scrubbed(&inner.redact, a),
                    Err(e) => return Err(self.fail(rec, started, e)),
                };
                rec.raw_answer = Some(second.content.clone());
                match decode(&second.content) {
                    Ok(d) => {
                        rec.parse_error = None;
                        (d, second)
                    }
                    Err(reason) => {
                        rec.parse_error = Some(reason.clone());
                        return Err(self.fail(rec, started, LlmError::Parse { reason }));
                    }
                }
            }
        };
        rec.repairs = decoded.repairs;
        if inner.cfg.cache != CacheMode::Off
            && let Some(cache) = &inner.cache
        {
            let entry = CacheEntry {
                key,
                model: rc.model.clone(),
                content: answer.content,
                finish_reason: answer.finish_reason,
                usage: rec.usage,
                created_at: chrono::Utc::now().to_rfc3339(),
            };
            if let Err(e) = cache.put(&entry) {
                tracing::warn!(dir = %cache.dir().display(), error = %e, "cannot write the response cache");
            }
        }
        Ok((decoded.value, self.finish(rec, started)))
    }

    fn finish(&self, mut rec: CallRecord, started: Instant) -> CallRecord {
        let inner = &*self.inner;
        inner.redact.record(&mut rec);
        rec.wall_ms = started.elapsed().as_millis() as u64;
        rec.cost_usd = if rec.cache_hit {
            0.0
        } else {
            inner.cfg.prices.cost(rec.provider, &rec.model, &rec.usage)
        };
        if let Ok(mut l) = inner.ledger.lock() {
            l.add(&rec);
        }
        if let Some(obs) = &inner.observer {
            obs(&rec);
        }
        rec
    }

    fn fail(&self, mut rec: CallRecord, started: Instant, error: LlmError) -> LlmFailure {
        let error = self.inner.redact.error(error);
        rec.error = Some(error.to_string());
        let rec = self.finish(rec, started);
        LlmFailure {
            error,
            record: Box::new(rec),
        }
    }
}

fn decode_json<T: DeserializeOwned>(text: &str) -> Result<Decoded<T>, String> {
    let ex = extract_json(text).map_err(|e| format!("invalid JSON: {e}"))?;
    let value = serde_json::from_value::<T>(ex.value)
        .map_err(|e| format!("JSON does not have the expected shape: {e}"))?;
    Ok(Decoded {
        value,
        repairs: ex.repairs,
    })
}

/// The user message of a corrective re-ask.
fn correction(reason: &str) -> String {
    format!(
        "Your previous answer could not be used: {reason}. Reply again with only the \
         corrected JSON, following the requested format exactly, with no other text."
    )
}

fn new_record(req: &CallRequest, rc: &super::RoleConfig, messages: Vec<Message>) -> CallRecord {
    let now = chrono::Utc::now();
    CallRecord {
        id: format!("{:x}-{:08x}", now.timestamp_millis(), rand::random::<u32>()),
        agent: req.agent.clone(),
        phase: req.phase.clone(),
        op_id: req.op_id.clone(),
        role: req.role,
        provider: rc.provider,
        model: rc.model.clone(),
        base_url: super::redact::mask_userinfo(&rc.base_url).into_owned(),
        messages,
        raw_answer: None,
        rejected_answers: Vec::new(),
        finish_reason: None,
        parse_error: None,
        repairs: Vec::new(),
        reasked: false,
        attempts: 0,
        retries: Vec::new(),
        usage: Usage::default(),
        wall_ms: 0,
        cache_hit: false,
        cost_usd: 0.0,
        started_at: now.to_rfc3339(),
        error: None,
        notes: req.notes.clone(),
    }
}

/// `answer` with the configured keys (and bearer / basic tokens) redacted from its
/// content, before it is decoded, cached or re-sent in a corrective re-ask.
fn scrubbed(redact: &Redactor, mut answer: http::Answer) -> http::Answer {
    if let std::borrow::Cow::Owned(clean) = redact.redact(&answer.content) {
        answer.content = clean;
    }
    answer
}
