//! Hardening, round two: one machine-written Java file (a 4,000-term `1 + 1 + …`, a
//! 1,500-branch `else if` chain) must not take `scan`, `run` or `mutate --list` down
//! with a stack overflow. The file is skipped, named with the reason; the rest of the
//! project is analysed. A file nested just under the bound is still analysed.

use crate::support;

use std::path::{Path, PathBuf};
use std::process::Command;

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

/// petstore-jdk with the two deep methods in its pet handler, and a helper class nested
/// just under the bound.
fn deep_project(dir: &Path) -> PathBuf {
    let root = dir.join("petstore");
    copy_dir(&support::fixture("petstore-jdk"), &root);
    let handler = root.join(support::PET_HANDLER);
    let text = std::fs::read_to_string(&handler).unwrap();
    let terms = vec!["1"; 4000].join(" + ");
    let mut chain = String::from("if (x == 0) { y = 0; }");
    for i in 1..1500 {
        chain.push_str(&format!(" else if (x == {i}) {{ y = {i}; }}"));
    }
    let at = text[text.find("public class").unwrap()..]
        .find('{')
        .unwrap()
        + text.find("public class").unwrap();
    let planted = format!(
        "{} int sum() {{ return {terms}; }} int chain(int x) {{ int y = -1; {chain} return y; }}{}",
        &text[..=at],
        &text[at + 1..]
    );
    std::fs::write(&handler, planted).unwrap();
    // Just under the bound, in a JDK handler (so the dispatch walks run over it too).
    let near = vec!["1"; 380].join(" + ");
    std::fs::write(
        root.join("src/main/java/petstore/Near.java"),
        format!(
            "package petstore;\n\nimport com.sun.net.httpserver.HttpExchange;\n\n\
             public class Near {{\n    int handle(HttpExchange ex) {{ return {near}; }}\n}}\n"
        ),
    )
    .unwrap();
    root
}

fn mastor(dir: &Path, args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_mastor"))
        .args(args)
        .env("XDG_CONFIG_HOME", dir.join("config"))
        .env("XDG_CACHE_HOME", dir.join("cache"))
        .env("HOME", dir)
        .env_remove("MASTOR_CONFIG")
        .env_remove("MASTOR_API_KEY")
        .output()
        .expect("run mastor");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn deeply_nested_files_are_skipped_not_fatal() {
    let dir = tempfile::tempdir().unwrap();
    let project = deep_project(dir.path());
    let p = project.to_str().unwrap();
    let skipped = format!(
        "{}: skipped: syntax nested deeper than",
        support::PET_HANDLER
    );

    let (code, out, err) = mastor(dir.path(), &["scan", p]);
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(
        out.contains(&skipped) || err.contains(&skipped),
        "{out}\n{err}"
    );
    assert!(
        !format!("{out}{err}").contains("Near.java: skipped"),
        "{out}\n{err}"
    );
    // The rest of the project is still analysed: the owner handler keeps its match.
    assert!(out.contains("OwnerHandler.listOwners"), "{out}");

    let (code, out, err) = mastor(dir.path(), &["scan", p, "--bundle", "slice", "--json"]);
    assert_eq!(code, 0, "{out}\n{err}");

    let suite = support::fixture("petstore-jdk").join("suites/reference.json");
    let out_dir = dir.path().join("mutation");
    let (code, out, err) = mastor(
        dir.path(),
        &[
            "mutate",
            suite.to_str().unwrap(),
            "--project",
            p,
            "--out",
            out_dir.to_str().unwrap(),
            "--list",
            "--files",
            "**/*.java",
        ],
    );
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(
        err.contains("PetHandler.java") && err.contains("deeper than"),
        "the skipped file is named: {err}"
    );
    assert!(
        out.contains("Near.java"),
        "the near-bound file is mutated: {out}"
    );

    // `run` reads the project the same way; with no model it fails cleanly (4), not 134.
    let dead = crate::runner_support::closed_port_url();
    let session = dir.path().join("session");
    let (code, out, err) = mastor(
        dir.path(),
        &[
            "run",
            p,
            "--out",
            session.to_str().unwrap(),
            "--base-url",
            &format!("{dead}/v1"),
            "--model",
            "m",
            "--provider",
            "custom",
            "--max-attempts",
            "1",
            "--no-discovery",
            "--op",
            "GET /owners",
        ],
    );
    assert_eq!(code, 4, "{out}\n{err}");
}
