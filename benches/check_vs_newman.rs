//! Throughput of `mastor check` against newman on the same 1,000-oracle suite.
//!
//! The suite is built from the petstore-jdk reference suite's single-operation GET oracles
//! (status and field assertions), each varied in its inputs (limits, unknown ids, bogus
//! filters) or repeated; every oracle is read-only, so both runners see the same fixture
//! state and every oracle should pass. One fixture API serves all runs; an untimed
//! `mastor check` pass warms its JVM first (its time is printed too), so neither timed run
//! pays for the fixture's JIT warm-up. `mastor check` runs the suite file (its default
//! concurrency, 8); newman runs the exported Postman collection (sequential, as newman
//! does). Wall time includes process start-up for both.
//!
//! Prints wall time, oracles/s, the ratio and pass/fail counts per runner; exits non-zero
//! when the runners disagree on any oracle. It does not judge the 5x throughput target:
//! the figure depends on the machine's load, so it is printed, not asserted.
//!
//! Run: `cargo bench --bench check_vs_newman` (bench profile) or add `--profile dev`;
//! needs what scripts/setup.sh installs (newman).

#[path = "../tests/it/export_common/mod.rs"]
mod export_common;

use export_common::{FixtureApi, newman, repo_root};
use mastor::export::{self, ExportInput, Format, Selection};
use mastor::model::{Oracle, OracleInput, Outcome, SuiteFile};
use mastor::runner::RunReport;
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::process::{Command, ExitCode};
use std::time::{Duration, Instant};

const ORACLES: usize = 1000;

/// Per o_id: passed or not.
type Verdicts = BTreeMap<String, bool>;

fn set_input(oracle: &mut Oracle, input: Value) {
    oracle.input = serde_json::from_value::<OracleInput>(input).expect("bench input is valid");
}

/// Replaces the `error` equality expectation (the message names the id).
fn set_error(oracle: &mut Oracle, message: String) {
    for a in &mut oracle.assertions {
        if let mastor::model::Assertion::Field {
            field_path,
            expected,
            ..
        } = a
            && field_path == "error"
        {
            *expected = Value::String(message.clone());
        }
    }
}

/// Variant `n` of a reference GET oracle: its inputs varied where the expected outcome is
/// known for every value, otherwise the oracle as is under a new test id.
fn vary(template: &Oracle, n: usize) -> Oracle {
    let mut o = template.clone();
    o.test_id = format!("{}_v{n}", template.test_id);
    match template.test_id.as_str() {
        "bv_list_limit_100" => set_input(
            &mut o,
            json!({"query": {"limit": (3 + n % 98).to_string()}}),
        ),
        "bi_list_limit_101" => {
            set_input(&mut o, json!({"query": {"limit": (101 + n).to_string()}}))
        }
        "fi_list_limit_nan" => set_input(&mut o, json!({"query": {"limit": format!("abc{n}")}})),
        "fi_list_status_bogus" => {
            set_input(&mut o, json!({"query": {"status": format!("lost{n}")}}))
        }
        "fv_list_tag_unknown" => {
            set_input(&mut o, json!({"query": {"tag": format!("unicorn{n}")}}))
        }
        "fi_get_pet_nan" => set_input(&mut o, json!({"path": {"petId": format!("abc{n}")}})),
        "fi_get_owner_nan" => set_input(&mut o, json!({"path": {"ownerId": format!("x{n}")}})),
        "fi_get_pet_missing" => {
            let id = 1000 + n;
            set_input(&mut o, json!({"path": {"petId": id.to_string()}}));
            set_error(&mut o, format!("pet {id} not found"));
        }
        "fi_get_owner_missing" | "fi_owner_pets_missing" => {
            let id = 1000 + n;
            set_input(&mut o, json!({"path": {"ownerId": id.to_string()}}));
            set_error(&mut o, format!("owner {id} not found"));
        }
        _ => {}
    }
    o
}

fn build_suite() -> SuiteFile {
    let path = repo_root().join("tests/fixtures/petstore-jdk/suites/reference.json");
    let loaded = mastor::suite::load_file(&path).expect("reference suite loads");
    let templates: Vec<Oracle> = loaded
        .suite
        .oracles
        .into_iter()
        .filter(|o| o.op_id.starts_with("GET "))
        .collect();
    assert!(
        !templates.is_empty(),
        "no GET oracles in {}",
        path.display()
    );
    let oracles = (0..ORACLES)
        .map(|i| vary(&templates[i % templates.len()], i / templates.len()))
        .collect();
    SuiteFile {
        schema_version: mastor::model::SCHEMA_VERSION,
        oracles,
        ..Default::default()
    }
}

fn run_mastor(suite: &std::path::Path, base_url: &str) -> (Duration, Verdicts) {
    let start = Instant::now();
    let out = Command::new(env!("CARGO_BIN_EXE_mastor"))
        .arg("check")
        .arg(suite)
        .args(["--only", "all", "--json", "--base-url", base_url])
        .output()
        .expect("run mastor");
    let wall = start.elapsed();
    let report: RunReport = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "mastor --json: {e}\n{}",
            String::from_utf8_lossy(&out.stderr)
        )
    });
    let verdicts = report
        .verdicts
        .into_iter()
        .map(|v| (v.o_id, v.outcome == Outcome::Pass))
        .collect();
    (wall, verdicts)
}

fn run_newman(collection: &std::path::Path, base_url: &str) -> (Duration, Verdicts) {
    let json_out = collection.with_file_name("newman.json");
    let start = Instant::now();
    let out = Command::new(newman())
        .arg("run")
        .arg(collection)
        .args(["--env-var", &format!("baseUrl={base_url}")])
        .args(["--reporters", "json", "--reporter-json-export"])
        .arg(&json_out)
        .output()
        .expect("run newman");
    let wall = start.elapsed();
    let raw = std::fs::read_to_string(&json_out).unwrap_or_else(|e| {
        panic!(
            "no newman report ({e}): {}",
            String::from_utf8_lossy(&out.stderr)
        )
    });
    let parsed: Value = serde_json::from_str(&raw).expect("newman JSON report");
    let mut verdicts = Verdicts::new();
    let executions = parsed["run"]["executions"].as_array();
    for exec in executions.into_iter().flatten() {
        let name = exec["item"]["name"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        let assertions = exec["assertions"].as_array().map_or(&[][..], Vec::as_slice);
        let passed = !assertions.is_empty() && assertions.iter().all(|a| a.get("error").is_none());
        *verdicts.entry(name).or_insert(true) &= passed;
    }
    (wall, verdicts)
}

fn counts(v: &Verdicts) -> (usize, usize) {
    let passed = v.values().filter(|p| **p).count();
    (passed, v.len() - passed)
}

fn main() -> ExitCode {
    let work = tempfile::tempdir().expect("tempdir");
    let suite = build_suite();
    let suite_path = work.path().join("bench-suite.json");
    let text = serde_json::to_string(&suite).expect("serialize suite");
    std::fs::write(&suite_path, text).expect("write suite");
    let input = ExportInput::from_suite(suite.clone(), Selection::All);
    let postman = work.path().join("postman");
    let exported = export::export(&input, Format::Postman, &postman).expect("postman export");
    let api = FixtureApi::start(&work.path().join("api"));

    let (warm_wall, _) = run_mastor(&suite_path, &api.base_url);
    let (m_wall, mastor) = run_mastor(&suite_path, &api.base_url);
    let (n_wall, newman) = run_newman(&exported.files[0], &api.base_url);

    let profile = if cfg!(debug_assertions) {
        "dev"
    } else {
        "release (bench)"
    };
    let rate = |d: Duration| ORACLES as f64 / d.as_secs_f64();
    let (m_pass, m_fail) = counts(&mastor);
    let (n_pass, n_fail) = counts(&newman);
    println!(
        "check_vs_newman: {ORACLES} read-only GET oracles, one petstore-jdk fixture API, mastor binary built with the {profile} profile"
    );
    println!(
        "{:<8} {:>10} {:>12} {:>7} {:>7}",
        "runner", "wall (s)", "oracles/s", "pass", "fail"
    );
    println!(
        "{:<8} {:>10.2} {:>12.1} {:>7} {:>7}",
        "mastor",
        m_wall.as_secs_f64(),
        rate(m_wall),
        m_pass,
        m_fail
    );
    println!(
        "{:<8} {:>10.2} {:>12.1} {:>7} {:>7}",
        "newman",
        n_wall.as_secs_f64(),
        rate(n_wall),
        n_pass,
        n_fail
    );
    println!(
        "(warm-up mastor pass against the cold fixture JVM: {:.2} s, {:.1} oracles/s)",
        warm_wall.as_secs_f64(),
        rate(warm_wall)
    );
    let ratio = rate(m_wall) / rate(n_wall);
    println!(
        "throughput ratio mastor/newman: {ratio:.1}x (target >= 5x: {})",
        if ratio >= 5.0 { "met" } else { "NOT met" }
    );

    let disagree: Vec<&String> = mastor
        .keys()
        .chain(newman.keys())
        .filter(|o| mastor.get(*o) != newman.get(*o))
        .collect();
    if mastor.len() != ORACLES || !disagree.is_empty() {
        eprintln!(
            "runners disagree: mastor reported {} oracle(s), newman {}; differing: {:?}",
            mastor.len(),
            newman.len(),
            disagree.iter().take(20).collect::<Vec<_>>()
        );
        return ExitCode::FAILURE;
    }
    ExitCode::SUCCESS
}
