//! `mastor mutate` on the petstore-jdk fixture, with hand-checked cases: a status swap
//! caught by the oracle that asserts that status, a mutant no operation reaches, a
//! mutant whose server hangs (killed by timeout), a mutant that does not compile, an
//! oracle that fails on the original, reuse on a second run, and the same matrix with
//! one worker, two workers and two merged shards.

use crate::runner_support::{mastor, repo_root};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};

const PET_HANDLER: &str = "src/main/java/petstore/handlers/PetHandler.java";

fn project() -> PathBuf {
    repo_root().join("tests/fixtures/petstore-jdk")
}

/// A suite of the reference suite's oracles named by test_id, plus `extra` entries.
fn suite(dir: &Path, ids: &[&str], extra: Vec<Value>) -> PathBuf {
    let path = project().join("suites/reference.json");
    let reference: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let mut oracles: Vec<Value> = reference["oracles"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|o| ids.contains(&o["test_id"].as_str().unwrap()))
        .cloned()
        .collect();
    assert_eq!(
        oracles.len(),
        ids.len(),
        "every id is in the reference suite"
    );
    oracles.extend(extra);
    let file = dir.join("suite.json");
    let suite = json!({"schema_version": 1, "oracles": oracles});
    std::fs::write(&file, serde_json::to_string_pretty(&suite).unwrap()).unwrap();
    file
}

/// A unified diff that touches `line` of `file` (for `--in-diff`).
fn diff_touching(dir: &Path, file: &str, line: usize) -> PathBuf {
    let text = format!("--- a/{file}\n+++ b/{file}\n@@ -{line},1 +{line},1 @@\n-x\n+x\n");
    let path = dir.join("change.diff");
    std::fs::write(&path, text).unwrap();
    path
}

fn mutate(args: &[&str]) -> (i32, String, String) {
    let project = project();
    let mut all = vec!["mutate"];
    all.extend_from_slice(args);
    all.extend(["--project", project.to_str().unwrap()]);
    mastor(&all)
}

/// `mastor mutate SUITE --out OUT ARGS... --project <fixture>`.
fn mutate_into(suite: &Path, out: &Path, args: &[&str]) -> (i32, String, String) {
    let mut all = vec![suite.to_str().unwrap(), "--out", out.to_str().unwrap()];
    all.extend_from_slice(args);
    mutate(&all)
}

fn read(dir: &Path, file: &str) -> Value {
    serde_json::from_str(&std::fs::read_to_string(dir.join(file)).unwrap()).unwrap()
}

#[test]
fn a_status_swap_is_caught_by_its_status_oracle_and_a_wrong_oracle_is_excluded() {
    let tmp = tempfile::tempdir().unwrap();
    let wrong = json!({
        "test_id": "wrong_first_pet", "op_id": "GET /pets/{petId}",
        "oracle_strategy": "fv", "input": {"path": {"petId": 1}},
        "assertions": [{"type": "field", "field_path": "name", "op": "equals", "expected": "Tom"}]
    });
    let suite = suite(tmp.path(), &["fv_create_pet", "fv_get_pet_1"], vec![wrong]);
    // Line 93: `Http.sendJson(exchange, 201, pet.toJson());` in createPet.
    let diff = diff_touching(tmp.path(), PET_HANDLER, 93);
    let out = tmp.path().join("out");
    let args = [
        suite.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--in-diff",
        diff.to_str().unwrap(),
        "--operator",
        "status_swap",
        "--jobs",
        "1",
    ];
    let (code, stdout, stderr) = mutate(&args);
    assert_eq!(
        code, 1,
        "an oracle fails on the original: exit 1\n{stdout}\n{stderr}"
    );
    let summary = read(&out, "summary.json");
    assert_eq!(summary["total"]["caught"], 1, "{summary:#}");
    assert_eq!(summary["total"]["score"], 1.0);
    let matrix = read(&out, "matrix.json");
    let row = &matrix["mutants"][0];
    assert_eq!(row["status"], "caught");
    let killers: Vec<&str> = row["killed_by"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| k["o_id"].as_str().unwrap())
        .collect();
    assert_eq!(killers, vec!["POST /pets#fv_create_pet"], "{row:#}");
    assert!(
        row["killed_by"][0]["assertion"]
            .as_str()
            .unwrap()
            .contains("POST /pets")
    );
    let excluded = &summary["excluded"][0];
    assert_eq!(excluded["o_id"], "GET /pets/{petId}#wrong_first_pet");
    assert_eq!(excluded["reason"], "fails_on_original");
    assert_eq!(excluded["isolation"], "wrong", "it fails alone too");
    assert!(
        stdout
            .contains("excluded: GET /pets/{petId}#wrong_first_pet (fails on the original, wrong)"),
        "{stdout}"
    );
    assert!(
        stdout.contains("status_swap") || stdout.contains("mutation score 100.0%"),
        "{stdout}"
    );

    // The same inputs again: nothing new runs.
    let (code, stdout, _) = mutate(&args);
    assert_eq!(code, 1);
    assert!(
        stdout.contains("ran 0 mutant(s), reused 1 (baseline reused)"),
        "{stdout}"
    );
    assert_eq!(read(&out, "matrix.json"), matrix);
}

#[test]
fn mutants_in_code_no_operation_reaches_are_not_covered() {
    let tmp = tempfile::tempdir().unwrap();
    let suite = suite(tmp.path(), &["fv_get_pet_1"], vec![]);
    let out = tmp.path().join("out");
    let (code, stdout, stderr) = mutate_into(
        &suite,
        &out,
        &["--files", "**/Main.java", "--max-mutants", "3"],
    );
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    let summary = read(&out, "summary.json");
    assert_eq!(summary["total"]["not_covered"], 3, "{summary:#}");
    assert_eq!(summary["total"]["no_coverage"], 3);
    assert_eq!(
        summary["total"]["score"],
        Value::Null,
        "no covered mutant: no score"
    );
}

#[test]
fn a_mutant_whose_server_hangs_is_killed_by_timeout() {
    let tmp = tempfile::tempdir().unwrap();
    let suite = suite(tmp.path(), &["fi_update_pet_missing"], vec![]);
    // Line 49: `updatePet(exchange, id);` removed, so PUT never answers.
    let diff = diff_touching(tmp.path(), PET_HANDLER, 49);
    let out = tmp.path().join("out");
    let (code, stdout, stderr) = mutate_into(
        &suite,
        &out,
        &[
            "--in-diff",
            diff.to_str().unwrap(),
            "--operator",
            "void_call",
            "--timeout",
            "3",
            "--request-timeout",
            "60",
        ],
    );
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    let matrix = read(&out, "matrix.json");
    assert_eq!(matrix["mutants"][0]["status"], "timeout", "{matrix:#}");
    let summary = read(&out, "summary.json");
    assert_eq!(summary["total"]["killed"], 1, "a timeout counts as killed");
}

#[test]
fn a_mutant_that_does_not_compile_is_unviable() {
    use mastor::mutate::build::{BuildOutcome, Workspace};
    use mastor::mutate::{Mutant, Operator};
    let tmp = tempfile::tempdir().unwrap();
    let project = project();
    let text = std::fs::read_to_string(project.join(PET_HANDLER)).unwrap();
    let start = text.find("Http.sendJson(exchange, 201").unwrap();
    let mutant = Mutant {
        id: "mbroken".into(),
        operator: Operator::StatusSwap,
        file: PET_HANDLER.into(),
        line: 93,
        column: 9,
        start,
        end: start + 4,
        before: "Http".into(),
        after: "Htpp".into(),
        ops: vec![],
    };
    let mode = Workspace::default_mode(&project).expect("a JDK-only project");
    let ws = Workspace::new(project, tmp.path().to_path_buf(), mode);
    let rt = tokio::runtime::Runtime::new().unwrap();
    let original = rt
        .block_on(ws.build_original())
        .expect("the original compiles");
    match rt.block_on(ws.build_mutant(&mutant, &original)).unwrap() {
        BuildOutcome::Unviable(why) => assert!(why.contains("Htpp"), "{why}"),
        BuildOutcome::Built(_) => panic!("a misspelt class name compiled"),
    }
    // Asked again, the stored verdict is reused.
    assert!(matches!(
        rt.block_on(ws.build_mutant(&mutant, &original)).unwrap(),
        BuildOutcome::Unviable(_)
    ));
}

#[test]
fn one_worker_two_workers_and_two_merged_shards_give_the_same_matrix() {
    let tmp = tempfile::tempdir().unwrap();
    let suite = suite(
        tmp.path(),
        &[
            "fv_create_pet",
            "fv_get_pet_1",
            "fi_get_pet_missing",
            "bi_list_limit_0",
        ],
        vec![],
    );
    let run = |name: &str, extra: &[&str]| -> PathBuf {
        let out = tmp.path().join(name);
        let mut args = vec![
            suite.to_str().unwrap().to_string(),
            "--out".into(),
            out.to_str().unwrap().to_string(),
            "--files".into(),
            format!("**/{}", "PetHandler.java"),
            "--operator".into(),
            "status_swap,negate_conditionals".into(),
            "--max-mutants".into(),
            "6".into(),
            "--seed".into(),
            "3".into(),
        ];
        args.extend(extra.iter().map(|s| s.to_string()));
        let refs: Vec<&str> = args.iter().map(String::as_str).collect();
        let (code, stdout, stderr) = mutate(&refs);
        assert_eq!(code, 0, "{name}: {stdout}\n{stderr}");
        out
    };
    let one = run("jobs1", &["--jobs", "1"]);
    let two = run("jobs2", &["--jobs", "2"]);
    let s0 = run("shard0", &["--shard", "0/2"]);
    let s1 = run("shard1", &["--shard", "1/2"]);
    let merged = tmp.path().join("merged");
    let (code, _, stderr) = mastor(&[
        "mutate",
        "merge",
        "--out",
        merged.to_str().unwrap(),
        s0.to_str().unwrap(),
        s1.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{stderr}");
    let bytes = |dir: &Path, f: &str| std::fs::read(dir.join(f)).unwrap();
    for f in ["matrix.json", "summary.json", "mutants.jsonl"] {
        assert_eq!(bytes(&one, f), bytes(&two, f), "{f}: jobs 1 vs 2");
        assert_eq!(
            bytes(&one, f),
            bytes(&merged, f),
            "{f}: one run vs merged shards"
        );
    }
    let summary = read(&one, "summary.json");
    assert_eq!(summary["total"]["mutants"], 6);
    let shard0 = read(&s0, "matrix.json");
    assert_eq!(
        shard0["mutants"].as_array().unwrap().len(),
        3,
        "a shard holds its share"
    );
}

#[test]
fn a_session_is_mutated_into_its_own_directory_and_compare_shows_the_score() {
    let tmp = tempfile::tempdir().unwrap();
    let suite = suite(tmp.path(), &["fv_create_pet", "fi_get_pet_missing"], vec![]);
    let session = tmp.path().join("session");
    let spec = project().join("openapi.json");
    let (code, _, stderr) = mastor(&[
        "import",
        suite.to_str().unwrap(),
        "--spec",
        spec.to_str().unwrap(),
        "--out",
        session.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{stderr}");
    // Imported oracles are not accepted yet: the default selection finds nothing.
    let (code, _, stderr) = mutate(&[session.to_str().unwrap()]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("accept oracles"), "{stderr}");
    let diff = diff_touching(tmp.path(), PET_HANDLER, 93);
    let (code, stdout, stderr) = mutate(&[
        session.to_str().unwrap(),
        "--only",
        "all",
        "--in-diff",
        diff.to_str().unwrap(),
        "--operator",
        "status_swap",
    ]);
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    let summary = read(&session.join("mutation"), "summary.json");
    assert_eq!(summary["total"]["score"], 1.0, "{summary:#}");
    let (code, out, err) = mastor(&["compare", session.to_str().unwrap(), "--json"]);
    assert_eq!(code, 0, "{err}");
    let rows: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(rows[0]["mutation_score"], 1.0);
    let (_, text, _) = mastor(&["compare", session.to_str().unwrap()]);
    assert!(text.contains("100.0%"), "{text}");
}

#[test]
fn a_survivor_marked_equivalent_leaves_the_score_and_the_mark_can_be_withdrawn() {
    let tmp = tempfile::tempdir().unwrap();
    let suite = suite(tmp.path(), &["fi_update_pet_missing"], vec![]);
    // Line 103: updatePet's `throw ApiException.notFound(...)`; removed, the same 404 is
    // thrown two lines later, so no oracle can tell: an equivalent mutant.
    let diff = diff_touching(tmp.path(), PET_HANDLER, 103);
    let out = tmp.path().join("out");
    let (code, stdout, stderr) = mutate_into(
        &suite,
        &out,
        &[
            "--in-diff",
            diff.to_str().unwrap(),
            "--operator",
            "remove_throw",
        ],
    );
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    let matrix = read(&out, "matrix.json");
    assert_eq!(matrix["mutants"][0]["status"], "missed", "{matrix:#}");
    let id = matrix["mutants"][0]["id"].as_str().unwrap().to_string();
    let dir = out.to_str().unwrap();

    let (code, _, stderr) = mastor(&["mutate", "equivalent", dir, "mnosuch"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("no mutant `mnosuch`"), "{stderr}");

    let (code, text, stderr) = mastor(&[
        "mutate",
        "equivalent",
        dir,
        &id,
        "--note",
        "the 404 is thrown again below",
    ]);
    assert_eq!(code, 0, "{stderr}");
    assert!(text.contains("equivalent 1"), "{text}");
    let summary = read(&out, "summary.json");
    assert_eq!(summary["total"]["equivalent"], 1);
    assert_eq!(
        summary["total"]["score"],
        Value::Null,
        "nothing left to kill"
    );
    let marks = std::fs::read_to_string(out.join("equivalent.jsonl")).unwrap();
    assert!(marks.contains("thrown again below"), "{marks}");

    let (code, _, _) = mastor(&["mutate", "equivalent", dir, &id, "--undo"]);
    assert_eq!(code, 0);
    let summary = read(&out, "summary.json");
    assert_eq!(summary["total"]["equivalent"], 0);
    assert_eq!(summary["total"]["missed"], 1);
}
