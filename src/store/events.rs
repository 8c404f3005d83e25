//! Records of `events.jsonl`: what each agent did, when, and what it cost.
//!
//! These feed the cost tables (paper Tables 12-13) and the live status in the TUI. They
//! are telemetry, not state: nothing is recomputed from them.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

/// What happened.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EventKind {
    AgentStarted,
    AgentFinished,
    AgentRetry,
    AgentFailed,
    PhaseStarted,
    PhaseFinished,
    Note,
}

/// One line of `events.jsonl`. Optional fields are omitted when unknown so the file
/// stays small and readable with `jq`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Event {
    pub at: DateTime<Utc>,
    pub kind: EventKind,
    /// Agent name, e.g. `source_extraction`; empty for phase events.
    #[serde(default)]
    pub agent: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub op_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub phase: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tokens_in: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tokens_out: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost_usd: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wall_ms: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

impl Event {
    /// An event stamped now with every optional field empty; set the rest with the
    /// builder methods so call sites only name what they know.
    pub fn new(kind: EventKind, agent: impl Into<String>) -> Self {
        Event {
            at: Utc::now(),
            kind,
            agent: agent.into(),
            op_id: None,
            phase: None,
            tokens_in: None,
            tokens_out: None,
            cost_usd: None,
            wall_ms: None,
            message: None,
        }
    }

    pub fn op(mut self, op_id: impl Into<String>) -> Self {
        self.op_id = Some(op_id.into());
        self
    }

    pub fn phase(mut self, phase: impl Into<String>) -> Self {
        self.phase = Some(phase.into());
        self
    }

    pub fn tokens(mut self, tokens_in: u64, tokens_out: u64) -> Self {
        self.tokens_in = Some(tokens_in);
        self.tokens_out = Some(tokens_out);
        self
    }

    pub fn cost(mut self, cost_usd: f64) -> Self {
        self.cost_usd = Some(cost_usd);
        self
    }

    pub fn wall_ms(mut self, wall_ms: u64) -> Self {
        self.wall_ms = Some(wall_ms);
        self
    }

    pub fn message(mut self, message: impl Into<String>) -> Self {
        self.message = Some(message.into());
        self
    }
}
