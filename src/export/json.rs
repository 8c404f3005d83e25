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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::export::Selection;
    use crate::model::{MetamorphicTest, ReviewState};
    use serde_json::json;

    #[test]
    fn metamorphic_tests_round_trip_with_their_review_state() {
        let t: MetamorphicTest = serde_json::from_value(json!({
            "test_id": "t", "scenario": "s", "given": "g", "when": "w", "then": "th",
            "seed": [{"op_id": "POST /pets", "input": {"body": {"n": 1}}, "captures": {"id": "id"}}],
            "follow_up": [{"op_id": "GET /pets/{id}", "input": {"path": {"id": "$captures.id"}}}],
            "relations": [{"left": "follow_up[0].body.n", "op": "equals", "right": "seed[0].request.body.n"}]
        }))
        .expect("test");
        let mut rejected = t.clone();
        rejected.test_id = "gone".into();
        let mut source = SuiteFile {
            schema_version: SCHEMA_VERSION,
            metamorphic: vec![t.clone(), rejected],
            ..SuiteFile::default()
        };
        source.review.insert("mr#t".into(), ReviewState::Edited);
        source
            .review
            .insert("mr#gone".into(), ReviewState::Rejected);
        let input = ExportInput::from_suite(source, Selection::Reviewed);
        let dir = tempfile::tempdir().expect("tempdir");
        let report = export(&input, dir.path()).expect("export");
        assert_eq!(report.items[0].location, "metamorphic[0]");
        assert_eq!(report.items[0].op_id, "POST /pets -> GET /pets/{id}");
        let back = crate::suite::load_file(&report.files[0]).expect("loads");
        assert!(back.problems.is_empty(), "{:?}", back.problems);
        assert_eq!(back.suite.metamorphic, vec![t]);
        assert_eq!(back.suite.review.get("mr#t"), Some(&ReviewState::Edited));
        assert!(!back.suite.review.contains_key("mr#gone"));
    }
}
