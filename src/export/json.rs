//! JSON export: the selected oracles as a schema-versioned [`SuiteFile`], loadable again
//! with [`ExportInput::from_suite_file`] (and by `mastor export`, `check` and `import`).
//!
//! Only the review states of exported oracles are kept; verdicts are not part of a suite.

use super::{ExportError, ExportInput, ExportReport, ExportedItem, write_file};
use crate::model::{SCHEMA_VERSION, SuiteFile};
use std::path::Path;

/// File name of the suite inside the output directory.
pub const FILE_NAME: &str = "suite.json";

/// The suite file an export writes, without writing it.
pub fn suite(input: &ExportInput) -> SuiteFile {
    let oracles: Vec<_> = input.selected_oracles().into_iter().cloned().collect();
    let multi_op: Vec<_> = input.selected_multi_op().into_iter().cloned().collect();
    let metamorphic: Vec<_> = input.selected_metamorphic().into_iter().cloned().collect();
    let review = oracles
        .iter()
        .map(|o| o.o_id())
        .chain(multi_op.iter().map(|m| m.o_id()))
        .chain(metamorphic.iter().map(|t| t.o_id()))
        .filter_map(|o_id| input.review.get(&o_id).map(|s| (o_id, *s)))
        .collect();
    SuiteFile {
        schema_version: SCHEMA_VERSION,
        oracles,
        multi_op,
        metamorphic,
        review,
    }
}

/// Writes `suite.json`.
pub fn export(input: &ExportInput, out_dir: &Path) -> Result<ExportReport, ExportError> {
    let suite = suite(input);
    let path = out_dir.join(FILE_NAME);
    let text = serde_json::to_string_pretty(&suite).map_err(|e| ExportError::BadSuite {
        path: path.clone(),
        reason: e.to_string(),
    })?;
    write_file(&path, &text)?;
    let mut report = ExportReport {
        files: vec![path],
        ..Default::default()
    };
    for (i, o) in suite.oracles.iter().enumerate() {
        report.items.push(ExportedItem {
            o_id: o.o_id(),
            op_id: o.op_id.clone(),
            location: format!("oracles[{i}]"),
        });
    }
    for (i, m) in suite.multi_op.iter().enumerate() {
        let op_ids: Vec<&str> = m.steps.iter().map(|s| s.op_id.as_str()).collect();
        report.items.push(ExportedItem {
            o_id: m.o_id(),
            op_id: op_ids.join(" -> "),
            location: format!("multi_op[{i}]"),
        });
    }
    for (i, t) in suite.metamorphic.iter().enumerate() {
        report.items.push(ExportedItem {
            o_id: t.o_id(),
            op_id: super::mr_op_ids(t),
            location: format!("metamorphic[{i}]"),
        });
    }
    Ok(report)
}
