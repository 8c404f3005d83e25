//! One HTTP exchange with retries: sends the body, reads a plain or streamed answer,
//! classifies failures, waits (Retry-After, else exponential backoff with jitter) and
//! tries again up to the configured number of attempts. Each attempt holds one permit
//! of the client's concurrency limit, and none while waiting.
//!
//! Bounds against a broken or hostile server: an attempt has a wall-clock deadline
//! (checked after every chunk too, since a body that is always ready never lets a timer
//! fire), an answer may not pass `max_response_bytes`, an error body is read up to
//! [`ERROR_BODY_BYTES`] and a `Retry-After` longer than `max_retry_after` fails the call.

use super::Inner;
use crate::llm::CallRequest;
use crate::llm::config::RoleConfig;
use crate::llm::error::LlmError;
use crate::llm::record::{CallRecord, RetryNote, Usage};
use crate::llm::sse::{SseParser, StreamAnswer};
use reqwest::header::{HeaderMap, HeaderValue};
use serde_json::Value;
use std::time::Duration;
use tokio::time::Instant;

/// Bytes of an error body read; the rest is dropped unread (only a short excerpt is
/// kept, and a 2 GB error page must not be buffered).
pub(crate) const ERROR_BODY_BYTES: usize = 8 * 1024;
/// Characters of an error body kept in the error.
const ERROR_BODY_CHARS: usize = 500;

/// A raw answer.
#[derive(Debug, Clone)]
pub(crate) struct Answer {
    pub content: String,
    pub finish_reason: Option<String>,
    pub usage: Usage,
}

struct AttemptError {
    error: LlmError,
    retry_after: Option<Duration>,
}

impl From<LlmError> for AttemptError {
    fn from(error: LlmError) -> Self {
        Self {
            error,
            retry_after: None,
        }
    }
}

/// Sends `body` until an answer with content arrives or attempts run out; usage of
/// every answer received is added to `rec.usage`.
pub(crate) async fn exchange(
    inner: &Inner,
    rc: &RoleConfig,
    req: &CallRequest,
    body: &Value,
    rec: &mut CallRecord,
) -> Result<Answer, LlmError> {
    let cfg = &inner.cfg;
    let url = format!("{}/chat/completions", rc.base_url);
    let max = cfg.max_attempts.max(1);
    let mut attempt = 0;
    loop {
        attempt += 1;
        rec.attempts += 1;
        let result = {
            let _permit = inner
                .limit
                .acquire()
                .await
                .map_err(|e| LlmError::Build(e.to_string()))?;
            let deadline = Instant::now() + cfg.timeout;
            let at = Attempt {
                url: &url,
                deadline,
                timeout: cfg.timeout,
                limit: cfg.max_response_bytes,
            };
            match tokio::time::timeout_at(deadline, send_once(inner, rc, req, &rec.id, &at, body))
                .await
            {
                Ok(r) => r,
                Err(_) => Err(AttemptError::from(LlmError::Timeout {
                    url: url.clone(),
                    secs: cfg.timeout.as_secs_f64(),
                })),
            }
        };
        let result = result.map_err(|e| AttemptError {
            error: inner.redact.error(e.error),
            retry_after: e.retry_after,
        });
        let err = match result {
            Ok(ans) => {
                rec.usage.add(ans.usage);
                rec.finish_reason = ans.finish_reason.clone();
                if ans.content.trim().is_empty() {
                    rec.raw_answer = Some(ans.content);
                    AttemptError::from(LlmError::EmptyContent {
                        finish_reason: ans.finish_reason.unwrap_or_else(|| "none".into()),
                    })
                } else {
                    return Ok(ans);
                }
            }
            Err(e) => e,
        };
        if !err.error.is_retryable() {
            return Err(err.error);
        }
        if attempt >= max {
            return Err(if max == 1 {
                err.error
            } else {
                LlmError::Exhausted {
                    attempts: attempt,
                    last: Box::new(err.error),
                }
            });
        }
        let (wait, from_header) = match err.retry_after {
            Some(d) if d > cfg.max_retry_after => {
                return Err(inner.redact.error(LlmError::RateLimited {
                    url: url.clone(),
                    secs: d.as_secs_f64().ceil() as u64,
                    limit: cfg.max_retry_after.as_secs(),
                }));
            }
            Some(d) => (d, true),
            None => (backoff(cfg.backoff_base, cfg.backoff_max, attempt), false),
        };
        tracing::debug!(agent = %req.agent, attempt, wait_ms = wait.as_millis() as u64, error = %err.error, "retrying model call");
        let note = RetryNote {
            attempt,
            reason: err.error.to_string(),
            wait_ms: wait.as_millis() as u64,
            from_retry_after: from_header,
        };
        if let Some(sink) = &inner.retry_sink {
            sink(&super::RetryWait {
                call_id: rec.id.clone(),
                agent: req.agent.clone(),
                op_id: req.op_id.clone(),
                note: note.clone(),
            });
        }
        rec.retries.push(note);
        tokio::time::sleep(wait).await;
    }
}

/// Exponential backoff with jitter: a random wait in [d/2, d] with
/// d = base * 2^(attempt-1), capped at `max`.
pub(crate) fn backoff(base: Duration, max: Duration, attempt: u32) -> Duration {
    let exp = base.saturating_mul(1u32 << attempt.saturating_sub(1).min(20));
    let d = exp.min(max);
    let half = d / 2;
    let jitter_ms = (d - half).as_millis() as u64;
    half + Duration::from_millis(if jitter_ms == 0 {
        0
    } else {
        rand::random_range(0..=jitter_ms)
    })
}

/// Reads `retry-after-ms` (milliseconds) or `Retry-After` (seconds or an HTTP date).
pub(crate) fn retry_after(
    headers: &HeaderMap,
    now: chrono::DateTime<chrono::Utc>,
) -> Option<Duration> {
    let text = |name: &str| {
        headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::trim)
    };
    if let Some(ms) = text("retry-after-ms").and_then(|v| v.parse::<f64>().ok())
        && ms.is_finite()
        && ms >= 0.0
    {
        return Some(Duration::from_millis(ms as u64));
    }
    let v = text("retry-after")?;
    if let Ok(secs) = v.parse::<f64>() {
        return (secs.is_finite() && secs >= 0.0).then(|| Duration::from_secs_f64(secs));
    }
    let when = chrono::DateTime::parse_from_rfc2822(v).ok()?;
    let delta = when.with_timezone(&chrono::Utc) - now;
    Some(delta.to_std().unwrap_or(Duration::ZERO))
}

/// What bounds one attempt.
struct Attempt<'a> {
    url: &'a str,
    deadline: Instant,
    timeout: Duration,
    /// `max_response_bytes`.
    limit: u64,
}

impl Attempt<'_> {
    fn timed_out(&self) -> AttemptError {
        LlmError::Timeout {
            url: self.url.to_string(),
            secs: self.timeout.as_secs_f64(),
        }
        .into()
    }

    fn too_large(&self) -> AttemptError {
        LlmError::TooLarge {
            url: self.url.to_string(),
            limit: self.limit,
        }
        .into()
    }

    fn transport(&self, e: &reqwest::Error) -> AttemptError {
        // Only connecting has its own timeout here; the attempt's deadline is applied
        // around the whole exchange and after every chunk.
        let prefix = if e.is_timeout() { "timed out: " } else { "" };
        LlmError::Transport {
            url: self.url.to_string(),
            reason: format!("{prefix}{}", error_chain(e)),
        }
        .into()
    }

    fn protocol(&self, reason: String) -> AttemptError {
        LlmError::Protocol {
            url: self.url.to_string(),
            reason,
        }
        .into()
    }

    /// A chunk just read, or an error once the deadline has passed (a body that is
    /// always ready would otherwise never let the outer timer fire).
    fn checked<B>(
        &self,
        read: Result<Option<B>, reqwest::Error>,
    ) -> Result<Option<B>, AttemptError> {
        let next = read.map_err(|e| self.transport(&e))?;
        if Instant::now() >= self.deadline {
            return Err(self.timed_out());
        }
        Ok(next)
    }
}

/// Reads at most `limit` bytes of a body; the bool says whether more was left unread.
async fn read_capped(
    at: &Attempt<'_>,
    resp: &mut reqwest::Response,
    limit: usize,
) -> Result<(Vec<u8>, bool), AttemptError> {
    let mut out = Vec::new();
    while let Some(chunk) = at.checked(resp.chunk().await)? {
        let room = limit - out.len();
        if chunk.len() > room {
            out.extend_from_slice(&chunk[..room]);
            return Ok((out, true));
        }
        out.extend_from_slice(&chunk);
    }
    Ok((out, false))
}

async fn send_once(
    inner: &Inner,
    rc: &RoleConfig,
    req: &CallRequest,
    call_id: &str,
    at: &Attempt<'_>,
    body: &Value,
) -> Result<Answer, AttemptError> {
    let mut rb = inner.http.post(at.url).json(body);
    if let Ok(v) = HeaderValue::from_str(&req.agent) {
        rb = rb.header("X-Mastor-Agent", v);
    }
    if let Some(op) = &req.op_id
        && let Ok(v) = HeaderValue::from_str(op)
    {
        rb = rb.header("X-Mastor-Op", v);
    }
    if let Some(key) = &rc.api_key {
        rb = rb.bearer_auth(key.expose());
    }
    let mut resp = rb.send().await.map_err(|e| at.transport(&e))?;
    let status = resp.status();
    if !status.is_success() {
        let retry_after = retry_after(resp.headers(), chrono::Utc::now());
        // Whatever arrived before a read error is still worth showing.
        let (bytes, cut) = read_capped(at, &mut resp, ERROR_BODY_BYTES)
            .await
            .unwrap_or_default();
        drop(resp);
        let text = String::from_utf8_lossy(&bytes);
        let mut body: String = text.chars().take(ERROR_BODY_CHARS).collect();
        if cut || body.len() < text.len() {
            body.push_str(" …(cut)");
        }
        return Err(AttemptError {
            error: LlmError::Status {
                url: at.url.to_string(),
                status: status.as_u16(),
                body,
            },
            retry_after,
        });
    }
    let limit = usize::try_from(at.limit).unwrap_or(usize::MAX);
    let is_sse = resp
        .headers()
        .get(reqwest::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("text/event-stream"));
    if !is_sse {
        let (bytes, cut) = read_capped(at, &mut resp, limit).await?;
        if cut {
            return Err(at.too_large());
        }
        return parse_completion(at.url, &String::from_utf8_lossy(&bytes))
            .map_err(AttemptError::from);
    }
    let mut parser = SseParser::new(limit);
    let mut acc = StreamAnswer::default();
    let (mut received, mut chars) = (0usize, 0usize);
    while let Some(chunk) = at.checked(resp.chunk().await)? {
        received = received.saturating_add(chunk.len());
        if received > limit {
            return Err(at.too_large());
        }
        let before = acc.content.len();
        for data in parser.push(&chunk).map_err(|_| at.too_large())? {
            acc.apply(&data).map_err(|r| at.protocol(r))?;
        }
        if acc.content.len() > before {
            chars += acc.content[before..].chars().count();
            if let Some(sink) = &inner.progress {
                sink(&super::StreamProgress {
                    call_id: call_id.to_string(),
                    agent: req.agent.clone(),
                    op_id: req.op_id.clone(),
                    streamed_chars: chars,
                    estimated_tokens: chars.div_ceil(4),
                });
            }
        }
        if acc.done {
            break;
        }
    }
    for data in parser.finish() {
        acc.apply(&data).map_err(|r| at.protocol(r))?;
    }
    Ok(Answer {
        content: acc.content,
        finish_reason: acc.finish_reason,
        usage: acc.usage.unwrap_or_default(),
    })
}

/// Reads a non-streamed Chat Completions answer.
pub(crate) fn parse_completion(url: &str, text: &str) -> Result<Answer, LlmError> {
    let protocol = |reason: String| LlmError::Protocol {
        url: url.to_string(),
        reason,
    };
    let v: Value = serde_json::from_str(text).map_err(|e| {
        protocol(format!(
            "not JSON ({e}): {}",
            text.chars().take(200).collect::<String>()
        ))
    })?;
    if let Some(err) = v.get("error") {
        return Err(protocol(format!("error object in a 200 answer: {err}")));
    }
    let choice = v
        .get("choices")
        .and_then(|c| c.get(0))
        .ok_or_else(|| protocol("no `choices[0]` in the answer".into()))?;
    Ok(Answer {
        content: choice
            .pointer("/message/content")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string(),
        finish_reason: choice
            .get("finish_reason")
            .and_then(Value::as_str)
            .map(str::to_string),
        usage: v
            .get("usage")
            .and_then(Usage::from_json)
            .unwrap_or_default(),
    })
}

fn error_chain(e: &(dyn std::error::Error + 'static)) -> String {
    let mut s = e.to_string();
    let mut src = e.source();
    while let Some(c) = src {
        s.push_str(": ");
        s.push_str(&c.to_string());
        src = c.source();
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retry_after_forms() {
        let now = chrono::DateTime::parse_from_rfc3339("2015-10-21T07:27:50Z")
            .unwrap()
            .to_utc();
        let mut h = HeaderMap::new();
        h.insert("retry-after", HeaderValue::from_static("3"));
        assert_eq!(retry_after(&h, now), Some(Duration::from_secs(3)));
        h.insert(
            "retry-after",
            HeaderValue::from_static("Wed, 21 Oct 2015 07:28:00 GMT"),
        );
        assert_eq!(retry_after(&h, now), Some(Duration::from_secs(10)));
        h.insert("retry-after-ms", HeaderValue::from_static("250"));
        assert_eq!(retry_after(&h, now), Some(Duration::from_millis(250)));
        let mut bad = HeaderMap::new();
        bad.insert("retry-after", HeaderValue::from_static("soon"));
        assert_eq!(retry_after(&bad, now), None);
    }

    #[test]
    fn backoff_grows_and_is_capped() {
        let base = Duration::from_millis(100);
        let max = Duration::from_millis(1000);
        for _ in 0..20 {
            let b1 = backoff(base, max, 1);
            assert!(b1 >= Duration::from_millis(50) && b1 <= base, "{b1:?}");
            let b3 = backoff(base, max, 3);
            assert!(b3 >= Duration::from_millis(200) && b3 <= Duration::from_millis(400));
            assert!(backoff(base, max, 30) <= max);
        }
    }

    #[test]
    fn completion_parsing() {
        let a = parse_completion("u", r#"{"choices":[{"message":{"content":"hi"},"finish_reason":"stop"}],"usage":{"prompt_tokens":1,"completion_tokens":2}}"#).unwrap();
        assert_eq!(a.content, "hi");
        assert_eq!(a.usage.completion_tokens, 2);
        assert!(matches!(
            parse_completion("u", "{}"),
            Err(LlmError::Protocol { .. })
        ));
        assert!(matches!(
            parse_completion("u", r#"{"error":{"message":"x"}}"#),
            Err(LlmError::Protocol { .. })
        ));
    }
}
