//! What an error response holds: the project's error envelope(s) and each error case's
//! own body.
//!
//! Most projects render every error through one place (an exception plus a renderer, a
//! Spring `@ControllerAdvice`, a JAX-RS `ExceptionMapper`, a servlet error handler), so the
//! body of a 400 or a 404 is a project-level fact: the *envelope*. A context that knows
//! only `{status, condition}` cannot tell a correct `error == "VALIDATION"` assertion from
//! an invented one, and normalization used to set every such oracle aside. With the
//! envelope and the case's fixed values in the context, an error-case field assertion is
//! checked like a success-field one, and kept when nothing is known (flagged instead).

use super::EvidenceRef;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// One field of an error body.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ErrorField {
    /// Dotted path in the body (`error`, `details[*].field`).
    #[serde(default)]
    pub name: String,
    /// JSON type as far as the code shows it (`string`, `integer`...); empty when unknown.
    #[serde(rename = "type", default, skip_serializing_if = "String::is_empty")]
    pub ty: String,
    /// The value the code fixes for it (an error code such as `"NOT_FOUND"`, the status).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<Value>,
    /// A message template: its literal parts with `{}` where the code inserts a value
    /// (`pet {} not found`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub template: Option<String>,
}

/// Where an envelope fact came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EnvelopeOrigin {
    /// Read from the code by the scan (the renderer's field list is complete: a field it
    /// does not write is provably absent).
    #[default]
    Static,
    /// Added by the extraction model (a claim, not proof: fields it lacks are unknown).
    Extraction,
}

/// One way the project renders errors.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ErrorEnvelope {
    /// The renderer, `Class.method` (`Http.sendError`, `ApiAdvice.handle`); error cases
    /// name it in [`super::ErrorCase::envelope`].
    #[serde(default)]
    pub name: String,
    /// What kind of renderer: `renderer`, `exception_handler`, `exception_mapper`.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub kind: String,
    #[serde(default)]
    pub fields: Vec<ErrorField>,
    #[serde(default)]
    pub origin: EnvelopeOrigin,
    /// The renderer's lines.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub evidence_refs: Vec<EvidenceRef>,
}

impl ErrorEnvelope {
    /// True when a field the envelope lacks is provably not in the body.
    pub fn complete(&self) -> bool {
        self.origin == EnvelopeOrigin::Static && !self.fields.is_empty()
    }
}
