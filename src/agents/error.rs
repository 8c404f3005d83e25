//! What can stop an agent's task, by cause: the session, the model call, the prompt or a
//! missing input. The text names the operation, group or file and
//! what is wrong, as `store`, `spec` and `llm` errors do; the orchestrator records it as
//! the task's failure.

use crate::llm::LlmError;
use crate::store::StoreError;

/// An agent task's error.
#[derive(Debug, thiserror::Error)]
pub enum AgentError {
    /// Writing or reading a session file.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// A session write on the blocking pool did not complete (it panicked or was
    /// cancelled).
    #[error("session write did not complete: {0}")]
    WriteIncomplete(String),
    /// The model call failed.
    #[error(transparent)]
    Llm(#[from] LlmError),
    /// A model call of `agent` failed (the metamorphic loop's calls, which name the
    /// agent themselves).
    #[error("{agent}: {error}")]
    Call { agent: String, error: LlmError },
    /// The prompt cannot be rendered, or cannot be cut to fit the model's context window
    /// (the text names agent and operation).
    #[error("{0}")]
    Prompt(String),
    /// An input the agent needs is missing (a source context, a bundle, a suite, a
    /// group); the text names which, and for what.
    #[error("{0}")]
    Missing(String),
}

/// The orchestrator and the metamorphic loop record a task's failure as text.
impl From<AgentError> for String {
    fn from(e: AgentError) -> String {
        e.to_string()
    }
}
