//! Hardening, round two: `mastor handler --pick/--file/--method/--line` checks a pick
//! when it is made. An unknown operation, a file outside the project (absolute, `..`, a
//! symlink out), a missing file, a line past the end and a method the file does not
//! declare each exit 2 naming the problem, and nothing is journalled.

use crate::runner_support::mastor;

use mastor::store::{Manifest, Session};
use serde_json::json;
use std::path::Path;

const OP: &str = "GET /admin/v1/stats";

/// A session recording `project` (absolute) with one operation, and the project's file.
fn session_and_project(dir: &Path) -> std::path::PathBuf {
    let project = dir.join("project");
    std::fs::create_dir_all(project.join("src")).unwrap();
    std::fs::write(
        project.join("src/Admin.java"),
        "class Admin {\n  void handle() {}\n  String stats() { return \"\"; }\n}\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("Outside.java"),
        "class Outside { void stats() {} }\n",
    )
    .unwrap();
    std::os::unix::fs::symlink(dir.join("Outside.java"), project.join("src/Link.java")).unwrap();
    let sess = dir.join("session");
    let root = project.canonicalize().unwrap();
    let session = Session::create(&sess, Manifest::new(root.display().to_string(), "")).unwrap();
    session
        .write_operations(&json!([{"op_id": OP, "method": "GET", "path": "/admin/v1/stats"}]))
        .unwrap();
    sess
}

#[test]
fn bad_picks_exit_2_at_pick_time_and_journal_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let sess = session_and_project(dir.path());
    let s = sess.to_str().unwrap();
    let cases: &[(&[&str], &str)] = &[
        (
            &[
                "--op",
                "GET /nope",
                "--file",
                "src/Admin.java",
                "--method",
                "stats",
            ],
            "not an operation of this session",
        ),
        (
            &["--op", "GET /nope", "--pick", "static"],
            "not an operation of this session",
        ),
        (
            &["--op", OP, "--file", "/etc/passwd", "--method", "stats"],
            "relative to the project root",
        ),
        (
            &[
                "--op",
                OP,
                "--file",
                "../../outside/X.java",
                "--method",
                "stats",
            ],
            "without `..`",
        ),
        (
            &["--op", OP, "--file", "src/Link.java", "--method", "stats"],
            "outside the project root",
        ),
        (
            &["--op", OP, "--file", "src/Gone.java", "--method", "stats"],
            "not found",
        ),
        (
            &[
                "--op",
                OP,
                "--file",
                "src/Admin.java",
                "--method",
                "stats",
                "--line",
                "999999",
            ],
            "has 4 line(s)",
        ),
        (
            &[
                "--op",
                OP,
                "--file",
                "src/Admin.java",
                "--method",
                "stats",
                "--line",
                "0",
            ],
            "numbered from 1",
        ),
        (
            &[
                "--op",
                OP,
                "--file",
                "src/Admin.java",
                "--method",
                "nothing",
            ],
            "declares no method",
        ),
        (
            &[
                "--op",
                OP,
                "--file",
                "src/Admin.java",
                "--method",
                "stats",
                "--line",
                "2",
            ],
            "at line 3, not at line 2",
        ),
    ];
    for (args, want) in cases {
        let mut all = vec!["handler", s];
        all.extend_from_slice(args);
        let (code, out, err) = mastor(&all);
        assert_eq!(code, 2, "{args:?}: {out}\n{err}");
        assert!(err.contains(want), "{args:?}: want {want:?} in {err}");
    }
    assert!(
        !sess.join("handler_choices.jsonl").exists(),
        "a refused pick is never journalled"
    );

    // A good pick still goes through, with its line.
    let (code, out, err) = mastor(&[
        "handler",
        s,
        "--op",
        OP,
        "--file",
        "src/Admin.java",
        "--method",
        "stats",
        "--line",
        "3",
    ]);
    assert_eq!(code, 0, "{out}\n{err}");
    let choices = Session::open(&sess)
        .unwrap()
        .read_handler_choices()
        .unwrap();
    assert_eq!(choices[OP].handler.method, "stats");
    assert_eq!(choices[OP].handler.line, 3);
}
