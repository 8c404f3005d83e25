//! `mastor mutate` as a hostile user meets it: paths that are shell code, bad
//! `--fail-under` values, shard sets that are incomplete or mixed, links out of the
//! project, sources in Latin-1, and torn journal lines.

use crate::runner_support::{mastor, repo_root};
use mastor::mutate::matrix::{Baseline, MutantOutcome, Status};
use mastor::mutate::merge::Provenance;
use mastor::mutate::results::{BaselineFile, Results};
use mastor::mutate::{Mutant, Operator};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn fixture() -> PathBuf {
    repo_root().join("tests/fixtures/petstore-jdk")
}

/// A copy of the fixture project (sources, spec, suites) under `dir`.
fn copy_fixture(dir: &Path) -> PathBuf {
    let to = dir.join("petstore");
    let status = std::process::Command::new("cp")
        .args(["-r"])
        .arg(fixture())
        .arg(&to)
        .status()
        .unwrap();
    assert!(status.success());
    to
}

#[test]
fn fail_under_rejects_non_finite_and_out_of_range_values() {
    let suite = fixture().join("suites/reference.json");
    for bad in ["NaN", "inf", "-inf", "-1", "100.5"] {
        let flag = format!("--fail-under={bad}");
        let (code, _, err) = mastor(&[
            "mutate",
            suite.to_str().unwrap(),
            "--out",
            "/nonexistent-never-written",
            &flag,
        ]);
        assert_eq!(code, 2, "--fail-under {bad}: {err}");
        assert!(err.contains("--fail-under must be a percentage"), "{err}");
    }
}

fn mutant(id: &str) -> Mutant {
    Mutant {
        id: id.into(),
        operator: Operator::StatusSwap,
        file: "A.java".into(),
        line: 1,
        column: 1,
        start: 0,
        end: 3,
        before: "200".into(),
        after: "201".into(),
        ops: vec!["GET /a".into()],
    }
}

/// A shard's results directory as `mutate --shard k/n` writes it.
fn shard_dir(root: &Path, name: &str, shard: &str, suite: &str) -> PathBuf {
    let dir = root.join(name);
    let r = Results::new(&dir);
    let mutants = vec![mutant("m1"), mutant("m2")];
    let (k, n): (usize, usize) = {
        let (k, n) = shard.split_once('/').unwrap();
        (k.parse().unwrap(), n.parse().unwrap())
    };
    let mut runs = BTreeMap::new();
    for (i, m) in mutants.iter().enumerate() {
        if i % n == k {
            runs.insert(
                m.id.clone(),
                MutantOutcome {
                    mutant: m.id.clone(),
                    key: "k".into(),
                    status: Status::Missed,
                    failed: vec![],
                    detail: String::new(),
                },
            );
        }
    }
    let baseline = BaselineFile {
        key: "b".into(),
        suite_ms: 1,
        start_ms: 1,
        baseline: Baseline {
            included: vec!["GET /a#o".into()],
            excluded: vec![],
        },
    };
    r.write_all(&mutants, &baseline, &runs).unwrap();
    r.write_provenance(&Provenance {
        shard: Some(shard.into()),
        suite: suite.into(),
        sources: "src".into(),
        commands: "cmd".into(),
    })
    .unwrap();
    dir
}

fn merge(out: &Path, shards: &[&Path]) -> (i32, String) {
    let mut args = vec!["mutate", "merge", "--out", out.to_str().unwrap()];
    args.extend(shards.iter().map(|p| p.to_str().unwrap()));
    let (code, _, err) = mastor(&args);
    (code, err)
}

#[test]
fn merge_refuses_incomplete_repeated_and_mixed_shards() {
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path();
    let sh0 = shard_dir(t, "sh0", "0/2", "suite-a");
    let sh1 = shard_dir(t, "sh1", "1/2", "suite-a");
    let other = shard_dir(t, "other1", "1/2", "suite-b");
    let out = t.join("merged");
    let (code, err) = merge(&out, &[&sh0]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("shard(s) 1/2 missing"), "{err}");
    let (code, err) = merge(&out, &[&sh0, &sh0]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("given twice"), "{err}");
    let (code, err) = merge(&out, &[&sh0, &other]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("another suite"), "{err}");
    assert!(
        !out.join("summary.json").exists(),
        "a refused merge writes nothing"
    );
    let (code, err) = merge(&out, &[&sh1, &sh0]);
    assert_eq!(code, 0, "{err}");
    let summary = Results::new(&out).read_summary().unwrap();
    assert_eq!(summary.total.mutants, 2);
    assert_eq!(summary.total.missed, 2);
}

#[test]
fn mutate_skips_links_out_of_the_project_and_undecodable_files_and_takes_an_encoding() {
    let tmp = tempfile::tempdir().unwrap();
    let project = copy_fixture(tmp.path());
    let outside = tmp.path().join("outside");
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(
        outside.join("Evil.java"),
        "package petstore;\nclass Evil { int f(int a) { if (a > 1) { return a + 1; } return 0; } }\n",
    )
    .unwrap();
    let pkg = project.join("src/main/java/petstore");
    std::os::unix::fs::symlink(outside.join("Evil.java"), pkg.join("Evil.java")).unwrap();
    // One Latin-1 byte in a comment of a file with mutants.
    let json = pkg.join("json/Json.java");
    let mut bytes = std::fs::read(&json).unwrap();
    bytes.splice(0..0, b"// caf\xe9\n".iter().copied());
    std::fs::write(&json, bytes).unwrap();
    let suite = project.join("suites/reference.json");
    let list = |extra: &[&str]| {
        let mut args = vec![
            "mutate",
            suite.to_str().unwrap(),
            "--project",
            project.to_str().unwrap(),
            "--out",
            tmp.path().join("out").to_str().unwrap(),
            "--files",
            "**/*.java",
            "--list",
        ]
        .into_iter()
        .map(String::from)
        .collect::<Vec<_>>();
        args.extend(extra.iter().map(|s| s.to_string()));
        let refs: Vec<&str> = args.iter().map(String::as_str).collect();
        mastor(&refs)
    };
    let (code, out, err) = list(&[]);
    assert_eq!(code, 0, "{err}");
    assert!(!out.contains("Evil.java"), "a link out was mutated:\n{out}");
    assert!(
        err.contains("Evil.java not mutated: a symbolic link to")
            && err.contains("outside the project"),
        "{err}"
    );
    assert!(
        err.contains("json/Json.java not mutated: not valid UTF-8"),
        "{err}"
    );
    assert!(!out.contains("json/Json.java"), "{out}");
    assert!(
        out.contains("handlers/PetHandler.java"),
        "the other files are mutated"
    );
    let (code, out, err) = list(&["--encoding", "ISO-8859-1"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("json/Json.java"), "{err}");
    let (code, _, err) = list(&["--encoding", "EBCDIC"]);
    assert_eq!(code, 2, "{err}");
}

#[test]
fn an_out_path_that_is_shell_code_is_never_run() {
    let tmp = tempfile::tempdir().unwrap();
    let pwned = tmp.path().join("PWNED");
    let out = tmp.path().join(format!(
        "inj{{classpath}}{{port}}$(touch {}) 'q' `x`",
        pwned.display()
    ));
    let suite = fixture().join("suites/reference.json");
    let (code, stdout, err) = mastor(&[
        "mutate",
        suite.to_str().unwrap(),
        "--project",
        fixture().to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--op",
        "GET /pets/{petId}",
        "--files",
        "**/PetHandler.java",
        "--operator",
        "status_swap",
        "--max-mutants",
        "1",
        "--jobs",
        "1",
        "--start",
        "echo {dir} >/dev/null; exec java -cp {classpath} petstore.Main {port}",
    ]);
    assert!(!pwned.exists(), "the --out path ran as shell code");
    assert!(code == 0 || code == 1, "{code}: {stdout}\n{err}");
    assert!(stdout.contains("mutation score"), "{stdout}\n{err}");
}

#[test]
fn a_torn_last_mark_is_skipped_reported_and_repaired_before_the_next_mark() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = shard_dir(tmp.path(), "res", "0/1", "s");
    let file = dir.join("equivalent.jsonl");
    std::fs::write(
        &file,
        "{\"mutant\":\"m1\",\"note\":\"same\",\"at\":\"2026-01-01T00:00:00Z\"}\n{\"mutant\":\"m1\",\"no",
    )
    .unwrap();
    let (code, _, err) = mastor(&[
        "mutate",
        "equivalent",
        dir.to_str().unwrap(),
        "m2",
        "--note",
        "also same",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("equivalent.jsonl:2: skipped a torn last line"),
        "{err}"
    );
    let r = Results::new(&dir);
    let marks = r.read_marks().unwrap();
    assert_eq!(marks.len(), 2, "{marks:?}");
    assert_eq!(marks[1].mutant, "m2");
    assert_eq!(r.read_summary().unwrap().total.equivalent, 2);
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(
        !text.contains("\"no{"),
        "the mark was glued onto the fragment: {text}"
    );
    // A line damaged before the last is an input error naming it, not "did not build".
    std::fs::write(&file, "garbage\n{\"mutant\":\"m1\",\"at\":\"x\"}\n").unwrap();
    let (code, _, err) = mastor(&["mutate", "equivalent", dir.to_str().unwrap(), "m2"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("equivalent.jsonl"), "{err}");
}
