//! Shared by the framework fixture tests (`framework_spring`, `framework_jaxrs`): a live
//! fixture server started with `scripts/fixture-api.sh start <fixture>`, stopped on drop;
//! the fixture's reference suite, whole or in part, with one assertion made wrong; and the
//! `mutate` command line that builds and starts a framework fixture from a copy.
#![allow(dead_code)]

use crate::export_common::{repo_root, run};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::process::Command;

/// A framework fixture server (`spring` or `jaxrs`), stopped when dropped.
pub struct LiveFixture {
    pub base_url: String,
    fixture: &'static str,
    state: tempfile::TempDir,
}

impl LiveFixture {
    pub fn start(fixture: &'static str) -> LiveFixture {
        let state = tempfile::Builder::new()
            .prefix(&format!("mastor-{fixture}-fixture-"))
            .tempdir()
            .expect("create fixture state dir");
        let (code, text) = run(script(fixture, state.path()).args(["start", fixture, "0"]));
        assert_eq!(code, 0, "{fixture} fixture did not start: {text}");
        let base_url = text
            .lines()
            .rev()
            .find(|l| l.starts_with("http://127.0.0.1:"))
            .unwrap_or_else(|| panic!("no base URL in: {text}"))
            .to_string();
        LiveFixture {
            base_url,
            fixture,
            state,
        }
    }
}

impl Drop for LiveFixture {
    fn drop(&mut self) {
        let _ = script(self.fixture, self.state.path())
            .args(["stop", self.fixture])
            .output();
    }
}

fn script(_fixture: &str, state: &Path) -> Command {
    let mut cmd = Command::new("bash");
    cmd.arg(repo_root().join("scripts/fixture-api.sh"))
        .env("FIXTURE_API_STATE", state)
        .env("FIXTURE_API_CLASSES", state.join("classes"));
    cmd
}

/// The fixture project directory under tests/fixtures.
pub fn project(dir: &str) -> PathBuf {
    repo_root().join("tests/fixtures").join(dir)
}

/// The fixture's hand-checked reference suite.
pub fn reference(dir: &str) -> Value {
    let path = project(dir).join("suites/reference.json");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path:?}: {e}"));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{path:?}: {e}"))
}

/// The reference suite's oracles named by test_id (every id must exist), no sequences.
pub fn subset(dir: &str, ids: &[&str]) -> Value {
    let reference = reference(dir);
    let oracles: Vec<Value> = reference["oracles"]
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
    json!({"schema_version": 1, "oracles": oracles})
}

/// The reference suite with the status expectation of oracle `test_id` replaced by
/// `status`.
pub fn with_wrong_status(dir: &str, test_id: &str, status: u16) -> Value {
    let mut suite = reference(dir);
    let oracle = suite["oracles"]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .find(|o| o["test_id"] == test_id)
        .unwrap_or_else(|| panic!("{test_id} not in the reference suite"));
    let assertion = oracle["assertions"]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .find(|a| a["type"] == "status")
        .expect("a status assertion");
    assertion["expected"] = json!(status);
    suite
}

pub fn write_json(path: &Path, value: &Value) -> PathBuf {
    std::fs::write(path, serde_json::to_string_pretty(value).unwrap()).unwrap();
    path.to_path_buf()
}

/// A unified diff touching the given lines (for `mutate --in-diff`).
pub fn diff_touching(path: &Path, lines: &[(&str, usize)]) -> PathBuf {
    let text: String = lines
        .iter()
        .map(|(file, line)| {
            format!("--- a/{file}\n+++ b/{file}\n@@ -{line},1 +{line},1 @@\n-x\n+x\n")
        })
        .collect();
    std::fs::write(path, text).unwrap();
    path.to_path_buf()
}

/// `mutate` arguments that build a copy with the fixture's build.sh and start it with
/// its run.sh (the whole-copy path: the fixture needs jars on the class path).
pub fn build_and_start_args() -> [&'static str; 4] {
    [
        "--build",
        "bash {dir}/build.sh {dir}",
        "--start",
        "exec bash {dir}/run.sh {dir} {port}",
    ]
}

/// Per o_id, whether each oracle passed, from `mastor check --json` output.
pub fn verdicts(json_out: &str) -> Vec<(String, String)> {
    let report: Value = serde_json::from_str(json_out)
        .unwrap_or_else(|e| panic!("check --json is not JSON ({e}): {json_out}"));
    report["verdicts"]
        .as_array()
        .unwrap_or_else(|| panic!("no verdicts in {report:#}"))
        .iter()
        .map(|v| {
            (
                v["o_id"].as_str().unwrap_or_default().to_string(),
                v["outcome"].as_str().unwrap_or_default().to_string(),
            )
        })
        .collect()
}

/// `(file:line, operator, status)` of every mutant of a `mutate` run, sorted: the
/// mutant's place from `mutants.jsonl`, its outcome from `matrix.json`.
pub fn outcomes(out: &Path, matrix: &Value) -> Vec<(String, String, String)> {
    let text = std::fs::read_to_string(out.join("mutants.jsonl")).expect("mutants.jsonl");
    let mutants: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).expect("a mutant per line"))
        .collect();
    let mut rows: Vec<(String, String, String)> = matrix["mutants"]
        .as_array()
        .expect("matrix mutants")
        .iter()
        .map(|row| {
            let m = mutants
                .iter()
                .find(|m| m["id"] == row["id"])
                .unwrap_or_else(|| panic!("{} not in mutants.jsonl", row["id"]));
            (
                format!("{}:{}", m["file"].as_str().unwrap(), m["line"]),
                m["operator"].as_str().unwrap().to_string(),
                row["status"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    rows.sort();
    rows
}
