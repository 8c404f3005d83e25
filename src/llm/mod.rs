//! The LLM layer: one client for the OpenAI-compatible Chat Completions API, shared by
//! every agent (docs/ARCHITECTURE.md section 4).
//!
//! What lives here:
//! - [`config`]: provider presets and their quirks, the primary/challenger roles, the
//!   TOML config file, environment variables and the `--base-url`-style flags;
//! - [`client`]: the [`LlmClient`] with retries, backoff, timeouts, a global concurrency
//!   limit, JSON extraction with one corrective re-ask, and a response cache;
//! - [`repair`]: extraction and repair of JSON that a model wrapped or broke;
//! - [`record`]: the per-call [`CallRecord`], prices and the [`Ledger`] roll-ups;
//! - `scripted` (feature `test-support`, for tests and benches): a real HTTP server that
//!   answers from a test-controlled script.
//!
//! What it deliberately does not do: build prompts (agents do, from `prompts/`), decide
//! what a call means for the pipeline, or persist records in a session (the caller gets
//! every [`CallRecord`], on success and on failure, and stores it).

pub mod cache;
pub mod client;
pub mod config;
mod error;
pub mod record;
pub mod redact;
pub mod repair;
mod request;
#[cfg(feature = "test-support")]
pub mod scripted;
mod secret;
mod sse;

pub use client::{LlmClient, Observer, ProgressSink, RetrySink, RetryWait, StreamProgress};
pub use config::{
    CacheMode, ConfigError, JsonMode, LayerArgs, LlmArgs, LlmConfig, Provider, RoleConfig,
};
pub use error::{LlmError, LlmFailure};
pub use record::{CallRecord, Ledger, Price, PriceTable, RetryNote, Totals, Usage};
pub use secret::Secret;

use serde::{Deserialize, Serialize};

/// Which configured model a call goes to. MASTOR generates with one model and reviews
/// with another (primary, challenger); ARMeta gives each of its layers its own model
/// (generator, refiner), which default to the primary and the challenger.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    #[default]
    Primary,
    Challenger,
    /// ARMeta's HLMT generator layer.
    Generator,
    /// ARMeta's refiner layer (HLMT → executable test).
    Refiner,
}

impl Role {
    /// Every role, in config order.
    pub const ALL: [Role; 4] = [
        Role::Primary,
        Role::Challenger,
        Role::Generator,
        Role::Refiner,
    ];

    /// Lower-case name, as used in records and config sections.
    pub fn as_str(self) -> &'static str {
        match self {
            Role::Primary => "primary",
            Role::Challenger => "challenger",
            Role::Generator => "generator",
            Role::Refiner => "refiner",
        }
    }
}

/// One chat message. `role` is `system`, `user` or `assistant`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Message {
    pub role: String,
    pub content: String,
}

impl Message {
    /// A system message.
    pub fn system(content: impl Into<String>) -> Self {
        Self {
            role: "system".into(),
            content: content.into(),
        }
    }
    /// A user message.
    pub fn user(content: impl Into<String>) -> Self {
        Self {
            role: "user".into(),
            content: content.into(),
        }
    }
    /// An assistant message (used to quote a bad answer back in a corrective re-ask).
    pub fn assistant(content: impl Into<String>) -> Self {
        Self {
            role: "assistant".into(),
            content: content.into(),
        }
    }
}

/// One call as an agent asks for it. `agent`, `phase` and `op_id` only label the call
/// (records, ledger roll-ups, `X-Mastor-*` headers); they never change the answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct CallRequest {
    pub agent: String,
    pub phase: String,
    pub op_id: Option<String>,
    pub role: Role,
    pub messages: Vec<Message>,
    /// JSON schema of the expected answer; sent where the provider accepts one.
    pub json_schema: Option<serde_json::Value>,
    pub max_tokens: Option<u32>,
    /// Ask the model even when the response cache has an answer (the answer is still
    /// cached). Lets a re-run refresh some agents while earlier ones replay.
    #[serde(default)]
    pub fresh: bool,
    /// What the caller changed before sending (kept in the call record, not in the
    /// cache key).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

impl CallRequest {
    /// A request for `agent` in `phase` with the given messages; other fields default.
    pub fn new(agent: impl Into<String>, phase: impl Into<String>, messages: Vec<Message>) -> Self {
        Self {
            agent: agent.into(),
            phase: phase.into(),
            messages,
            ..Self::default()
        }
    }
    /// Sets the operation id label.
    pub fn op(mut self, op_id: impl Into<String>) -> Self {
        self.op_id = Some(op_id.into());
        self
    }
    /// Sets the role.
    pub fn role(mut self, role: Role) -> Self {
        self.role = role;
        self
    }
    /// Bypasses the cache lookup for this call (see [`CallRequest::fresh`]).
    pub fn fresh(mut self, fresh: bool) -> Self {
        self.fresh = fresh;
        self
    }
    /// Sets the JSON schema of the expected answer.
    pub fn schema(mut self, schema: serde_json::Value) -> Self {
        self.json_schema = Some(schema);
        self
    }
}
