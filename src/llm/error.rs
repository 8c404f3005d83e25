//! Errors of the LLM layer. Every failed call comes back as an [`LlmFailure`] that
//! carries the [`CallRecord`] too, so the prompt and any raw answer are never lost.

use super::record::CallRecord;

/// Why a model call failed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum LlmError {
    #[error("cannot build the HTTP client: {0}")]
    Build(String),
    #[error("{url} answered HTTP {status}: {body}")]
    Status {
        url: String,
        status: u16,
        body: String,
    },
    #[error("cannot reach {url}: {reason}")]
    Transport { url: String, reason: String },
    #[error("no answer from {url} within {secs:.1}s")]
    Timeout { url: String, secs: f64 },
    #[error("the model answered with empty content (finish_reason {finish_reason})")]
    EmptyContent { finish_reason: String },
    #[error("unexpected response from {url}: {reason}")]
    Protocol { url: String, reason: String },
    /// The answer (a plain body or a whole stream) passed `max_response_bytes`; the
    /// rest was not read. Not retried: the same server would most likely do it again.
    #[error(
        "answer larger than {limit} bytes from {url} (max_response_bytes); the rest was not read"
    )]
    TooLarge { url: String, limit: u64 },
    /// The server asked to wait longer than `max_retry_after_secs`; failing the call is
    /// better than stalling the whole run silently.
    #[error(
        "{url} rate limited for {secs} s (longer than the {limit} s limit, max_retry_after_secs)"
    )]
    RateLimited { url: String, secs: u64, limit: u64 },
    #[error("gave up after {attempts} attempts; last error: {last}")]
    Exhausted { attempts: u32, last: Box<LlmError> },
    #[error("the answer is not the requested JSON (after one corrective re-ask): {reason}")]
    Parse { reason: String },
}

impl LlmError {
    /// Whether another attempt may succeed (408/409/429/5xx, transport errors,
    /// timeouts, empty content).
    pub fn is_retryable(&self) -> bool {
        match self {
            LlmError::Status { status, .. } => {
                matches!(status, 408 | 409 | 429) || (500..600).contains(status)
            }
            LlmError::Transport { .. } | LlmError::Timeout { .. } => true,
            LlmError::EmptyContent { .. } => true,
            _ => false,
        }
    }
}

/// A failed call: the error and the record of everything that was sent and received.
#[derive(Debug, Clone, thiserror::Error)]
#[error("{agent} call failed: {error}", agent = record.agent)]
pub struct LlmFailure {
    pub error: LlmError,
    pub record: Box<CallRecord>,
}
