//! Hardening, round two: the Markdown export writes no raw control character (ESC, BEL,
//! NUL, ...) from test ids or any text field; they are escaped (`\u{1b}`) as the JSON,
//! Postman and JUnit exports escape them. (The workbench's `Y` escapes them too: see the
//! unit tests of `tui::clipboard`.)

use crate::runner_support::mastor;
use serde_json::json;

/// Control characters other than newline and tab (what a terminal would act on).
fn raw_controls(text: &str) -> Vec<char> {
    text.chars()
        .filter(|c| c.is_control() && *c != '\n' && *c != '\t')
        .collect()
}

#[test]
fn markdown_export_escapes_control_characters_in_every_field() {
    let dir = tempfile::tempdir().unwrap();
    let hostile = "\u{1b}]0;pwned\u{7}\u{1b}[2J\u{0}";
    let suite = json!([
        {"op_id": format!("GET /pets/{{id}}{hostile}"), "test_id": format!("rex{hostile}"),
         "description": format!("reads {hostile} back"),
         "evidence": format!("seeded {hostile}"),
         "evidence_refs": [{"file": format!("src/A{hostile}.java"), "start_line": 1, "end_line": 2}],
         "input": {"path": {"id": format!("1{hostile}")}, "headers": {"X-A": hostile},
                   "raw_body": {"content_type": format!("text/plain{hostile}"), "text": format!("a{hostile}b")}},
         "assertions": [{"type": "status", "expected": 200},
                        {"type": "field", "field_path": "name", "op": "equals", "expected": hostile}]},
        {"test_id": format!("seq{hostile}"), "group_id": format!("g{hostile}"),
         "description": format!("steps {hostile}"),
         "steps": [{"op_id": "GET /pets", "captures": {"first": "[0].id"},
                    "assertions": [{"type": "status", "expected": 200}]},
                   {"op_id": "GET /pets/{id}", "input": {"path": {"id": "$captures.first"}},
                    "assertions": [{"type": "status", "expected": 200}]}]}
    ]);
    let file = dir.path().join("suite.json");
    // A bare array holds single-op oracles only: the sequence goes in a suite file.
    let wrapped = json!({"oracles": [suite[0].clone()], "multi_op": [suite[1].clone()]});
    std::fs::write(&file, wrapped.to_string()).unwrap();
    let sess = dir.path().join("sess");
    let (code, out, err) = mastor(&[
        "import",
        file.to_str().unwrap(),
        "--out",
        sess.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{out}\n{err}");
    let export = dir.path().join("export");
    let (code, out, err) = mastor(&[
        "export",
        sess.to_str().unwrap(),
        "--format",
        "readable",
        "--all",
        "--out",
        export.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{out}\n{err}");
    let md_path = std::fs::read_dir(&export)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|e| e == "md"))
        .expect("a Markdown file");
    let md = std::fs::read_to_string(&md_path).unwrap();
    assert_eq!(raw_controls(&md), Vec::<char>::new(), "{md}");
    // The escaped forms are there, so the reader still sees what the id holds.
    assert!(md.contains("rex\\u{1b}]0;pwned\\u{7}"), "{md}");
    assert!(md.contains("steps \\u{1b}"), "{md}");
    assert!(md.contains("a\\u{1b}]0;pwned"), "raw body escaped: {md}");
}
