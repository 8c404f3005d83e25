//! `mastor import --project DIR`: the project root is recorded in the session, so the
//! workbench resolves evidence against it whatever directory it is opened from.

use crate::tui_common::{self, PET_HANDLER};

use mastor::store::Session;
use mastor::tui::driver::{Options, open_session};
use serde_json::json;
use std::path::Path;
use std::process::Command;

/// Runs `mastor` in `cwd`.
fn mastor_in(cwd: &Path, args: &[&str]) -> (i32, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_mastor"))
        .args(args)
        .current_dir(cwd)
        .output()
        .expect("run mastor");
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    (out.status.code().unwrap_or(-1), text)
}

fn oracles_file(dir: &Path) -> std::path::PathBuf {
    let file = dir.join("oracles.json");
    let oracles = json!([{
        "test_id": "fv_limit", "op_id": "GET /pets",
        "input": {"query": {"limit": 10}},
        "assertions": [{"type": "status", "expected": 200}],
        "evidence": "the handler checks the bound",
        "evidence_refs": [{"file": PET_HANDLER, "start_line": 65, "end_line": 70}]
    }]);
    std::fs::write(&file, oracles.to_string()).unwrap();
    file
}

fn opened(session_dir: &Path) -> mastor::tui::state::App {
    let opts = Options {
        theme: Some("dark".into()),
        keymap: Some(session_dir.join("no-keymap.toml")),
        settings: Some(session_dir.join("no-settings.toml")),
        mouse: false,
    };
    open_session(session_dir, &opts).unwrap().1
}

#[test]
fn import_with_project_records_the_root_and_evidence_resolves_from_anywhere() {
    let dir = tempfile::tempdir().unwrap();
    let file = oracles_file(dir.path());
    // Run from a directory beside the project, naming it relatively.
    let work = dir.path().join("work");
    std::fs::create_dir_all(&work).unwrap();
    let project = work.join("petstore");
    copy_dir(&tui_common::petstore_root(), &project);
    let (code, out) = mastor_in(
        &work,
        &[
            "import",
            file.to_str().unwrap(),
            "--project",
            "petstore",
            "--out",
            "../sess",
        ],
    );
    assert_eq!(code, 0, "{out}");
    let sess = dir.path().join("sess");
    let manifest = Session::open(&sess).unwrap().manifest().clone();
    assert_eq!(
        Path::new(&manifest.project_root),
        project.canonicalize().unwrap()
    );
    // The test runs from the crate root, far from both: the evidence file is found.
    let app = opened(&sess);
    assert!(
        app.view.sources.contains_key(PET_HANDLER),
        "{:?}",
        app.view.warnings
    );
    assert_eq!(app.view.project_root, project.canonicalize().unwrap());
}

#[test]
fn import_without_project_cannot_find_the_evidence_and_a_bad_project_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let file = oracles_file(dir.path());
    let sess = dir.path().join("sess");
    let (code, out) = mastor_in(
        dir.path(),
        &["import", file.to_str().unwrap(), "--out", "sess"],
    );
    assert_eq!(code, 0, "{out}");
    let app = opened(&sess);
    assert!(
        !app.view.sources.contains_key(PET_HANDLER),
        "found without a project root?"
    );
    let (code, out) = mastor_in(
        dir.path(),
        &[
            "import",
            file.to_str().unwrap(),
            "--project",
            "nowhere",
            "--out",
            "sess2",
        ],
    );
    assert_eq!(code, 2, "{out}");
    assert!(
        out.contains("--project nowhere is not a directory"),
        "{out}"
    );
    assert!(!dir.path().join("sess2").exists());
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// A session imported without `--project`: `mastor tui --project` records the root
/// later, and the evidence resolves from then on whatever the working directory.
#[test]
fn the_workbench_records_a_project_root_later() {
    let dir = tempfile::tempdir().unwrap();
    let sdir = dir.path().join("s");
    let session = mastor::store::Session::create(
        &sdir,
        mastor::store::Manifest::new(String::new(), "openapi.json"),
    )
    .unwrap();
    let fixture =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/petstore-jdk");
    let root = session.record_project_root(&fixture).unwrap();
    assert_eq!(
        std::path::PathBuf::from(&root),
        fixture.canonicalize().unwrap()
    );
    let reopened = mastor::store::Session::open(sdir.clone()).unwrap();
    assert_eq!(reopened.manifest().project_root, root);
    let view = mastor::tui::loader::load(&reopened).unwrap();
    assert_eq!(view.project_root, fixture.canonicalize().unwrap());
    let err = session
        .record_project_root(&dir.path().join("missing"))
        .unwrap_err();
    assert!(
        err.contains("is not a directory") && err.contains("missing"),
        "{err}"
    );
}
