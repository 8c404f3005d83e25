//! Export from the review: what the Export dialog writes.
//!
//! Only JSON (`model::SuiteFile`) is built in here; other formats (JUnit, Postman,
//! readable, Gherkin) belong to the export module and plug in through [`Exporter`] by
//! being added to [`formats`]. Only accepted and edited oracles are exported, edited
//! ones in their edited form.

use super::view::SessionView;
use crate::model::{ReviewState, SCHEMA_VERSION, SuiteFile};
use std::path::Path;

/// One export format the dialog can offer.
pub trait Exporter {
    /// Name shown in the dialog.
    fn name(&self) -> &'static str;
    /// Writes the reviewed suite to `dest`; returns a one-line summary.
    fn export(&self, view: &SessionView, dest: &Path) -> Result<String, String>;
}

/// The formats offered, in dialog order.
pub fn formats() -> Vec<Box<dyn Exporter>> {
    vec![Box::new(JsonExporter)]
}

/// Builds the suite of accepted and edited oracles.
pub fn reviewed_suite(view: &SessionView) -> SuiteFile {
    let keep = |s: ReviewState| matches!(s, ReviewState::Accepted | ReviewState::Edited);
    let mut suite = SuiteFile {
        schema_version: SCHEMA_VERSION,
        ..SuiteFile::default()
    };
    for op in &view.ops {
        for o in &op.oracles {
            let state = view.review_state(&o.o_id());
            if keep(state) {
                suite.oracles.push(view.effective_oracle(o));
                suite.review.insert(o.o_id(), state);
            }
        }
    }
    for g in &view.groups {
        for o in &g.oracles {
            let state = view.review_state(&o.o_id());
            if keep(state) {
                suite.multi_op.push(view.effective_multi(o));
                suite.review.insert(o.o_id(), state);
            }
        }
    }
    suite
}

/// `model::SuiteFile` as pretty JSON.
pub struct JsonExporter;

impl Exporter for JsonExporter {
    fn name(&self) -> &'static str {
        "json (suite file)"
    }

    fn export(&self, view: &SessionView, dest: &Path) -> Result<String, String> {
        let suite = reviewed_suite(view);
        let text = serde_json::to_vec_pretty(&suite).map_err(|e| e.to_string())?;
        if let Some(parent) = dest.parent().filter(|p| !p.as_os_str().is_empty()) {
            std::fs::create_dir_all(parent)
                .map_err(|e| format!("cannot create {}: {e}", parent.display()))?;
        }
        let tmp = dest.with_extension("json.tmp");
        std::fs::write(&tmp, text)
            .and_then(|_| std::fs::rename(&tmp, dest))
            .map_err(|e| format!("cannot write {}: {e}", dest.display()))?;
        Ok(format!(
            "wrote {} oracles and {} multi-op oracles to {}",
            suite.oracles.len(),
            suite.multi_op.len(),
            dest.display()
        ))
    }
}
