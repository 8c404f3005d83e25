//! The analyser against the hand-checked fixture projects: entry files, closures,
//! op → handler matches, exclusions, parse warnings and spec discovery must equal each
//! fixture's `expected.json` exactly.

use mastor::model::{SpecOperation, op_id};
use mastor::source::{AnalyseOptions, SpecInfo, analyse_operations};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn fixtures() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&root)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("expected.json").is_file())
        .collect();
    dirs.sort();
    dirs
}

/// Operations from expected.json's `matches` keys (until the spec loader is used).
fn ops_from_expected(expected: &Value) -> Vec<SpecOperation> {
    let excluded: Vec<&str> = expected["excluded"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    expected["matches"]
        .as_object()
        .unwrap()
        .keys()
        .map(|k| {
            let (m, p) = k.split_once(' ').unwrap();
            SpecOperation {
                op_id: op_id(m, p),
                method: m.to_string(),
                path: p.to_string(),
                operation_id: None,
                tags: vec![],
                summary: None,
                parameters: vec![],
                request_body: None,
                responses: Default::default(),
                extensions: Default::default(),
                excluded: excluded.contains(&k.as_str()).then(|| "framework endpoint".to_string()),
            }
        })
        .collect()
}

#[test]
fn fixtures_match_expected_json() {
    let dirs = fixtures();
    assert!(dirs.len() >= 3, "fixtures missing: {dirs:?}");
    for dir in dirs {
        let name = dir.file_name().unwrap().to_string_lossy().to_string();
        let expected: Value =
            serde_json::from_str(&std::fs::read_to_string(dir.join("expected.json")).unwrap())
                .unwrap();
        let ops = ops_from_expected(&expected);
        let base = match name.as_str() {
            "countries-jaxrs" => Some("/rest".to_string()),
            "shop-spring" => Some("/api".to_string()),
            _ => None,
        };
        let info = SpecInfo {
            file: String::new(),
            version: String::new(),
            base_path: base,
        };
        let analysis = analyse_operations(&dir, &info, &ops, &AnalyseOptions::default()).unwrap();
        let report = &analysis.report;

        let entries = serde_json::to_value(&report.entry_files).unwrap();
        assert_eq!(entries, expected["entry_files"], "{name}: entry_files");

        let closures: BTreeMap<String, Vec<String>> = report.closures.clone();
        let expected_closures: BTreeMap<String, Vec<String>> =
            serde_json::from_value(expected["closures"].clone()).unwrap();
        assert_eq!(closures, expected_closures, "{name}: closures");

        let mut matches = serde_json::Map::new();
        for op in &report.operations {
            let v = match &op.entry {
                Some(e) => json!({"file": e.file, "class": e.class, "method": e.method}),
                None => Value::Null,
            };
            matches.insert(op.op_id.clone(), v);
        }
        let expected_matches = expected["matches"].as_object().unwrap().clone();
        for (k, v) in &expected_matches {
            assert_eq!(
                matches.get(k),
                Some(v),
                "{name}: match of {k}; reason: {:?}",
                report
                    .operations
                    .iter()
                    .find(|o| &o.op_id == k)
                    .and_then(|o| o.unmatched_reason.clone())
            );
        }
        assert_eq!(matches.len(), expected_matches.len(), "{name}: operation count");

        let excluded: Vec<&str> = report
            .operations
            .iter()
            .filter(|o| o.excluded.is_some())
            .map(|o| o.op_id.as_str())
            .collect();
        let expected_excluded: Vec<&str> = expected["excluded"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap())
            .collect();
        assert_eq!(excluded, expected_excluded, "{name}: excluded");

        let parse: Vec<&str> = report.syntax_errors.iter().map(|s| s.file.as_str()).collect();
        let expected_parse: Vec<&str> = expected["parse_warnings"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap())
            .collect();
        assert_eq!(parse, expected_parse, "{name}: parse warnings");
    }
}
