//! Which generator filled a session: the MASTOR pipeline, the Direct Prompting baseline
//! or the spec-only baseline. Comparisons (`mastor compare`, `mastor report`) label rows
//! with it. It is read from the manifest's free-form settings (`baseline`), which the
//! baselines write and the pipeline does not, so sessions of older builds (and of builds
//! that do not know the setting) still open: the manifest's typed fields deny unknown keys.

use crate::agents::baseline::{KIND_DP, KIND_SETTING, KIND_SPEC, NORMALIZED_SETTING};
use crate::store::Manifest;
use serde::{Deserialize, Serialize};
use std::fmt;

/// The generator of a session.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SessionKind {
    /// The multi-agent pipeline (`mastor run`); also imported suites, which name no baseline.
    Mastor,
    /// `mastor baseline dp`.
    DirectPrompting,
    /// `mastor baseline spec`.
    SpecOnly,
    /// A baseline this build does not know, by its recorded name.
    Other(String),
}

impl SessionKind {
    /// The kind a manifest records.
    pub fn of(manifest: &Manifest) -> SessionKind {
        match manifest
            .config
            .settings
            .get(KIND_SETTING)
            .and_then(|v| v.as_str())
        {
            None => SessionKind::Mastor,
            Some(KIND_DP) => SessionKind::DirectPrompting,
            Some(KIND_SPEC) => SessionKind::SpecOnly,
            Some(other) => SessionKind::Other(other.to_string()),
        }
    }

    /// Whether a baseline session's answers were normalized (`None` for the pipeline,
    /// which always normalizes, and for sessions that do not say).
    pub fn normalized(manifest: &Manifest) -> Option<bool> {
        manifest
            .config
            .settings
            .get(NORMALIZED_SETTING)
            .and_then(|v| v.as_bool())
    }

    /// Short label for tables, as the paper names the tools.
    pub fn label(&self) -> &str {
        match self {
            SessionKind::Mastor => "MASTOR",
            SessionKind::DirectPrompting => "DP",
            SessionKind::SpecOnly => "spec-only",
            SessionKind::Other(name) => name,
        }
    }
}

impl fmt::Display for SessionKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.label())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_baseline_setting_names_the_kind() {
        let mut m = Manifest::new("p", "s");
        assert_eq!(SessionKind::of(&m), SessionKind::Mastor);
        m.config
            .settings
            .insert("baseline".into(), json!("direct_prompting"));
        m.config.settings.insert("normalized".into(), json!(false));
        assert_eq!(SessionKind::of(&m).label(), "DP");
        assert_eq!(SessionKind::normalized(&m), Some(false));
        m.config
            .settings
            .insert("baseline".into(), json!("spec_only"));
        assert_eq!(SessionKind::of(&m), SessionKind::SpecOnly);
        m.config.settings.insert("baseline".into(), json!("satori"));
        assert_eq!(SessionKind::of(&m).label(), "satori");
    }
}
