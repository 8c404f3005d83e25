//! The analyser against the hand-checked fixture projects: entry files, closures,
//! op → handler matches, weak matches, exclusions, parse warnings and spec discovery must equal each
//! fixture's `expected.json` exactly.

use mastor::source::{AnalyseOptions, analyse, weak_matches};
use mastor::spec;
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

#[test]
fn fixtures_match_expected_json() {
    let dirs = fixtures();
    assert!(dirs.len() >= 3, "fixtures missing: {dirs:?}");
    for dir in dirs {
        let name = dir.file_name().unwrap().to_string_lossy().to_string();
        let expected: Value =
            serde_json::from_str(&std::fs::read_to_string(dir.join("expected.json")).unwrap())
                .unwrap();
        // Spec discovery: what find_spec picks, and the explicit file when one is named.
        let found = spec::find_spec(&dir).unwrap();
        let found_rel = found
            .path
            .strip_prefix(&dir)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        assert_eq!(
            found_rel,
            expected["spec_found"].as_str().unwrap(),
            "{name}: spec_found"
        );
        let spec_path = match expected["spec"].as_str() {
            Some(rel) => dir.join(rel),
            None => found.path.clone(),
        };
        let loaded = spec::load(&spec_path).unwrap();
        let analysis = analyse(&dir, &loaded, &AnalyseOptions::default()).unwrap();
        let report = &analysis.report;

        let entries = serde_json::to_value(&report.entry_files).unwrap();
        assert_eq!(entries, expected["entry_files"], "{name}: entry_files");

        let closures: BTreeMap<String, Vec<String>> = report.closures.clone();
        let expected_closures: BTreeMap<String, Vec<String>> =
            serde_json::from_value(expected["closures"].clone()).unwrap();
        assert_eq!(closures, expected_closures, "{name}: closures");

        let expected_matches = expected["matches"].as_object().unwrap().clone();
        let mut matches = serde_json::Map::new();
        for op in &report.operations {
            // `line` only where the fixture names it (overloads share a method name).
            let with_line = expected_matches
                .get(&op.op_id)
                .is_some_and(|m| m.get("line").is_some());
            let v = match &op.entry {
                Some(e) if with_line => {
                    json!({"file": e.file, "class": e.class, "method": e.method, "line": e.line})
                }
                Some(e) => json!({"file": e.file, "class": e.class, "method": e.method}),
                None => Value::Null,
            };
            matches.insert(op.op_id.clone(), v);
        }
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

        // Bundles, where the fixture lists them: op → files of the bundle.
        if let Some(bundles) = expected["bundles"].as_object() {
            for (op_id, files) in bundles {
                let op = report.operations.iter().find(|o| &o.op_id == op_id);
                let got = op.and_then(|o| o.bundle.as_ref()).map(|b| json!(b.files));
                assert_eq!(got.as_ref(), Some(files), "{name}: bundle of {op_id}");
            }
        }

        // Error envelopes, where the fixture lists them: renderer → the fields it writes.
        let envelopes: serde_json::Map<String, Value> = analysis
            .envelopes
            .iter()
            .map(|e| {
                (
                    e.name.clone(),
                    json!(e.fields.iter().map(|f| &f.name).collect::<Vec<_>>()),
                )
            })
            .collect();
        if let Some(want) = expected.get("envelopes") {
            assert_eq!(&Value::Object(envelopes), want, "{name}: error envelopes");
        }

        // Weak matches: handlers that are an unresolved dispatcher (absent = none).
        let weak: Vec<&str> = weak_matches(report).iter().map(|(op, _)| *op).collect();
        let expected_weak: Vec<&str> = expected["weak"]
            .as_array()
            .map(|a| a.iter().map(|v| v.as_str().unwrap()).collect())
            .unwrap_or_default();
        assert_eq!(weak, expected_weak, "{name}: weak matches");

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
