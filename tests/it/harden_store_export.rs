//! `mastor export` never clobbers files it did not write: a hand-written file in the
//! output directory stops the export (untouched, nothing written), a re-export over its
//! own files works, and `--force` overwrites.

use mastor::model::{Assertion, Oracle, ReviewState, SCHEMA_VERSION, SuiteFile};
use std::path::Path;
use std::process::Command;

fn suite_file(dir: &Path, test_id: &str) -> std::path::PathBuf {
    let oracle = Oracle {
        test_id: test_id.into(),
        op_id: "GET /pets".into(),
        description: "lists pets".into(),
        oracle_strategy: None,
        input: Default::default(),
        assertions: vec![Assertion::Status { expected: 200 }],
        evidence: String::new(),
        evidence_refs: Vec::new(),
        fresh_state: false,
    };
    let mut suite = SuiteFile {
        schema_version: SCHEMA_VERSION,
        ..Default::default()
    };
    suite.review.insert(oracle.o_id(), ReviewState::Accepted);
    suite.oracles.push(oracle);
    let path = dir.join("suite.json");
    std::fs::write(&path, serde_json::to_string(&suite).unwrap()).unwrap();
    path
}

fn export(source: &Path, out: &Path, extra: &[&str]) -> (i32, String) {
    let output = Command::new(env!("CARGO_BIN_EXE_mastor"))
        .args(["export", source.to_str().unwrap()])
        .args(["--format", "junit,readable", "--out", out.to_str().unwrap()])
        .args(extra)
        .env("HOME", out.parent().unwrap())
        .output()
        .expect("run mastor");
    (
        output.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

fn snapshot(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.push((p.display().to_string(), std::fs::read(&p).unwrap()));
            }
        }
    }
    out.sort();
    out
}

#[test]
fn a_hand_written_file_in_the_way_is_refused_and_left_byte_for_byte() {
    let dir = tempfile::tempdir().unwrap();
    let source = suite_file(dir.path(), "lists");
    let out = dir.path().join("out");
    let class = out.join("mastor/suite/GetPetsTest.java");
    std::fs::create_dir_all(class.parent().unwrap()).unwrap();
    let mine = "// my own test, written by hand\nclass GetPetsTest {}\n";
    std::fs::write(&class, mine).unwrap();
    let before = snapshot(&out);
    let (code, stderr) = export(&source, &out, &[]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("GetPetsTest.java"), "{stderr}");
    assert!(stderr.contains("--force"), "{stderr}");
    assert_eq!(std::fs::read_to_string(&class).unwrap(), mine);
    assert_eq!(snapshot(&out), before, "nothing else written either");
}

#[test]
fn a_re_export_replaces_its_own_files_and_force_overwrites_edits() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let source = suite_file(dir.path(), "lists");
    let (code, stderr) = export(&source, &out, &[]);
    assert_eq!(code, 0, "{stderr}");
    assert!(out.join(".mastor-export.json").is_file());
    let class = out.join("mastor/suite/GetPetsTest.java");
    assert!(
        std::fs::read_to_string(&class)
            .unwrap()
            .contains("test_lists")
    );

    // Its own, unchanged files are replaced.
    let source = suite_file(dir.path(), "lists_again");
    let (code, stderr) = export(&source, &out, &[]);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        std::fs::read_to_string(&class)
            .unwrap()
            .contains("test_lists_again")
    );

    // One of them edited by hand: refused, then overwritten with --force.
    std::fs::write(&class, "// edited\n").unwrap();
    let source = suite_file(dir.path(), "third");
    let (code, stderr) = export(&source, &out, &[]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("GetPetsTest.java"), "{stderr}");
    assert_eq!(std::fs::read_to_string(&class).unwrap(), "// edited\n");
    let (code, stderr) = export(&source, &out, &["--force"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        std::fs::read_to_string(&class)
            .unwrap()
            .contains("test_third")
    );
    // And the next export is a plain re-export again.
    let (code, stderr) = export(&source, &out, &[]);
    assert_eq!(code, 0, "{stderr}");
}

#[test]
fn the_library_export_refuses_too() {
    use mastor::export::{self, ExportError, ExportInput, Format, Selection};
    let dir = tempfile::tempdir().unwrap();
    let source = suite_file(dir.path(), "lists");
    let out = dir.path().join("out");
    std::fs::create_dir_all(&out).unwrap();
    std::fs::write(out.join("suite.md"), "notes").unwrap();
    let input = ExportInput::from_suite_file(&source, Selection::Reviewed).unwrap();
    let err = export::export(&input, Format::Readable, &out).unwrap_err();
    assert!(matches!(err, ExportError::WouldOverwrite { .. }), "{err}");
    assert_eq!(
        std::fs::read_to_string(out.join("suite.md")).unwrap(),
        "notes"
    );
}
