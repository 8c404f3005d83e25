//! `manifest.json`: what a session is, which tool wrote it, and how far each phase got.
//!
//! The manifest is what makes a directory a session (its absence is the
//! "not a mastor session" error) and carries the schema version checked on open. It
//! records which models were used but never API keys: [`ConfigSummary::new`] drops any
//! setting whose name looks like a secret.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;

/// Contents of `manifest.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Manifest {
    /// Format version; a newer one than [`crate::model::SCHEMA_VERSION`] refuses to open.
    pub schema_version: u32,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
    /// The analysed project, as given by the user.
    pub project_root: String,
    /// The OpenAPI/Swagger file, as given by the user.
    #[serde(default)]
    pub spec_file: String,
    /// `mastor` version that created the session.
    pub tool_version: String,
    #[serde(default)]
    pub config: ConfigSummary,
    /// Phase name (e.g. `source_analysis`, `single_op`) → state.
    #[serde(default)]
    pub phases: BTreeMap<String, PhaseState>,
}

impl Manifest {
    /// A manifest for a new session, stamped now with this build's versions.
    pub fn new(project_root: impl Into<String>, spec_file: impl Into<String>) -> Self {
        let now = Utc::now();
        Manifest {
            schema_version: crate::model::SCHEMA_VERSION,
            created_at: now,
            updated_at: now,
            project_root: project_root.into(),
            spec_file: spec_file.into(),
            tool_version: env!("CARGO_PKG_VERSION").to_string(),
            config: ConfigSummary::default(),
            phases: BTreeMap::new(),
        }
    }
}

/// The configuration a run used, minus secrets, so results can be traced to models.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ConfigSummary {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub primary_model: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub challenger_model: Option<String>,
    /// Other non-secret settings (concurrency, temperature, base URL host...).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub settings: BTreeMap<String, Value>,
}

impl ConfigSummary {
    /// Builds a summary, dropping every setting whose name mentions a key, token,
    /// secret, password or authorization, so a careless caller cannot leak one.
    pub fn new(
        primary_model: Option<String>,
        challenger_model: Option<String>,
        settings: impl IntoIterator<Item = (String, Value)>,
    ) -> Self {
        ConfigSummary {
            primary_model,
            challenger_model,
            settings: settings
                .into_iter()
                .filter(|(name, _)| !looks_secret(name))
                .collect(),
        }
    }
}

/// True for setting names that may hold credentials.
pub fn looks_secret(name: &str) -> bool {
    let n = name.to_ascii_lowercase();
    [
        "key",
        "token",
        "secret",
        "password",
        "passwd",
        "auth",
        "credential",
    ]
    .iter()
    .any(|w| n.contains(w))
}

/// Progress of one pipeline phase, for resuming and for the TUI.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PhaseState {
    pub status: PhaseStatus,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub started_at: Option<DateTime<Utc>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub finished_at: Option<DateTime<Utc>>,
    /// Why it failed, or a short summary when done.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

/// Where a phase stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PhaseStatus {
    #[default]
    Pending,
    Running,
    Done,
    Failed,
}
