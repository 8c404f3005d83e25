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

/// Operations read straight from the fixture's spec (interim, until `spec::load` lands).
fn ops_from_spec(dir: &Path, expected: &Value) -> (Vec<SpecOperation>, Option<String>) {
    let rel = expected["spec_found"].as_str().unwrap();
    let text = std::fs::read_to_string(dir.join(rel)).unwrap();
    let doc: Value = serde_yaml_ng::from_str(&text).unwrap();
    let excluded: Vec<&str> = expected["excluded"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    let base = doc["basePath"].as_str().map(str::to_string).or_else(|| {
        doc["servers"][0]["url"].as_str().map(|u| {
            let no_scheme = u.split_once("://").map_or(u, |(_, r)| r);
            match no_scheme.find('/') {
                Some(i) if u.contains("://") => no_scheme[i..].to_string(),
                _ if u.starts_with('/') => u.to_string(),
                _ => String::new(),
            }
        })
    });
    let mut ops = Vec::new();
    for (path, item) in doc["paths"].as_object().unwrap() {
        for (m, o) in item.as_object().unwrap() {
            if !mastor::model::HTTP_METHODS.contains(&m.as_str()) {
                continue;
            }
            let id = op_id(m, path);
            let mut extensions = BTreeMap::new();
            if let Some(x) = o.get("x-swagger-router-controller") {
                extensions.insert("x-swagger-router-controller".to_string(), x.clone());
            }
            ops.push(SpecOperation {
                excluded: excluded
                    .contains(&id.as_str())
                    .then(|| "framework endpoint".to_string()),
                op_id: id,
                method: m.to_uppercase(),
                path: path.clone(),
                operation_id: o["operationId"].as_str().map(str::to_string),
                tags: o["tags"]
                    .as_array()
                    .map(|t| {
                        t.iter()
                            .filter_map(|v| v.as_str().map(str::to_string))
                            .collect()
                    })
                    .unwrap_or_default(),
                summary: None,
                parameters: vec![],
                request_body: None,
                responses: Default::default(),
                extensions,
            });
        }
    }
    (ops, base)
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
        let (ops, base) = ops_from_spec(&dir, &expected);
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
        assert_eq!(
            matches.len(),
            expected_matches.len(),
            "{name}: operation count"
        );

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

        let parse: Vec<&str> = report
            .syntax_errors
            .iter()
            .map(|s| s.file.as_str())
            .collect();
        let expected_parse: Vec<&str> = expected["parse_warnings"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap())
            .collect();
        assert_eq!(parse, expected_parse, "{name}: parse warnings");
    }
}
