//! Shared by the export tests: a small petstore-jdk suite (correct and wrong copies), and
//! helpers to find the external tools (javac, JUnit and Jackson jars, newman) and to run
//! the exported suites with them.
#![allow(dead_code)]

mod metamorphic;
pub mod runs;
#[allow(unused_imports)] // not every test crate uses it
pub use metamorphic::petstore_metamorphic;

use mastor::export::{self, ExportInput, ExportReport, Format};
use mastor::model::{
    Assertion, EvidenceRef, FieldOp, MultiOpOracle, Oracle, OracleInput, ReviewState, Step,
    Strategy, SuiteFile,
};
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

pub fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

pub fn status(code: u16) -> Assertion {
    Assertion::Status { expected: code }
}

pub fn field(path: &str, op: FieldOp, expected: Value) -> Assertion {
    Assertion::Field {
        field_path: path.to_string(),
        op,
        expected,
    }
}

fn input(value: Value) -> OracleInput {
    serde_json::from_value(value).expect("test input is valid")
}

/// One oracle plus the one assertion that the wrong copy replaces.
struct Case {
    oracle: Oracle,
    wrong: (usize, Assertion),
}

fn case(
    op_id: &str,
    test_id: &str,
    strategy: Strategy,
    inp: Value,
    assertions: Vec<Assertion>,
    wrong: (usize, Assertion),
) -> Case {
    Case {
        oracle: Oracle {
            test_id: test_id.to_string(),
            op_id: op_id.to_string(),
            // Quotes, comment ends, `\u` and non-ASCII must survive into Java and JSON.
            description: format!("{test_id} on {op_id}: \"quoted\" */ C:\\users\\u00e9 naïve ✓"),
            oracle_strategy: Some(strategy),
            input: input(inp),
            assertions,
            evidence: "handler branch and store behaviour".to_string(),
            evidence_refs: vec![EvidenceRef {
                file: "src/main/java/petstore/handlers/PetHandler.java".to_string(),
                start_line: 30,
                end_line: 60,
            }],
            fresh_state: false,
        },
        wrong,
    }
}

fn cases() -> Vec<Case> {
    use FieldOp::*;
    use Strategy::*;
    vec![
        case(
            "GET /pets",
            "fv_list",
            Fv,
            json!({}),
            vec![
                status(200),
                field("[*].id", NotNull, Value::Null),
                field("[*].name", Type, json!("string")),
                field("[0].name", Equals, json!("Rex")),
                field("[1].age", Gt, json!(10)),
                field("[*].ageCategory", Matches, json!("^(young|adult|senior)$")),
                field("", Type, json!("array")),
                // A missing index is null-or-missing.
                field("[99].name", IsNull, Value::Null),
            ],
            (3, field("[0].name", Equals, json!("Tom"))),
        ),
        case(
            "GET /pets",
            "fi_bad_limit",
            Fi,
            json!({"query": {"limit": "abc"}}),
            vec![status(400), field("error", Contains, json!("limit"))],
            (0, status(200)),
        ),
        case(
            "GET /pets",
            "fv_sold",
            Fv,
            json!({"query": {"status": "sold"}}),
            vec![
                status(200),
                field("", Length, json!(1)),
                field("[0].name", Equals, json!("Nemo")),
                field("[0].ownerId", IsNull, Value::Null),
                field("[0].noSuchField", IsNull, Value::Null),
            ],
            (3, field("[0].ownerId", NotNull, Value::Null)),
        ),
        case(
            "GET /pets",
            "bv_limit_1",
            Bv,
            json!({"query": {"limit": 1}}),
            vec![status(200), field("", Length, json!(1))],
            (1, field("", Length, json!(2))),
        ),
        case(
            "GET /pets",
            "fv_tag_unknown",
            Fv,
            json!({"query": {"tag": "unicorn"}}),
            vec![status(200), field("", Length, json!(0))],
            // `[*]` over an empty array never holds, whatever the operator.
            (1, field("[*].id", IsNull, Value::Null)),
        ),
        case(
            "POST /pets",
            "fi_missing_name",
            Fi,
            json!({"body": {"tag": "dog"}}),
            vec![
                status(400),
                field("status", Equals, json!(400)),
                field("error", Type, json!("string")),
            ],
            (0, status(201)),
        ),
        case(
            "GET /pets/{petId}",
            "fv_rex",
            Fv,
            json!({"path": {"petId": 1}}),
            vec![
                status(200),
                field("id", Equals, json!("1")),
                field("age", Gte, json!(3)),
                field("age", Lte, json!("3")),
                field("nameLength", Equals, json!(3.0)),
                field("tag", NotEquals, json!("cat")),
                field("createdAt", Matches, json!("^\\d{4}-\\d{2}-\\d{2}T")),
                field("name", Length, json!(3)),
            ],
            (2, field("age", Lt, json!(3))),
        ),
        case(
            "GET /pets/{petId}",
            "fi_unknown",
            Fi,
            json!({"path": {"petId": "99"}}),
            vec![
                status(404),
                field("error", Equals, json!("pet 99 not found")),
            ],
            (1, field("error", Equals, json!("pet 98 not found"))),
        ),
        case(
            "GET /pets/{petId}",
            "fi_not_numeric",
            Fi,
            json!({"path": {"petId": "a b"}}),
            vec![status(400)],
            (0, status(404)),
        ),
        case(
            "PUT /pets/{petId}",
            "fi_unknown",
            Fi,
            json!({"path": {"petId": 999}, "body": {"name": "X", "status": "available"}}),
            vec![status(404)],
            (0, status(200)),
        ),
        case(
            "DELETE /pets/{petId}",
            "fi_unknown",
            Fi,
            json!({"path": {"petId": 999}}),
            vec![status(404)],
            (0, status(204)),
        ),
        case(
            "POST /pets/{petId}/status",
            "fv_same_status",
            Fv,
            json!({"path": {"petId": 1}, "body": {"status": "available"}}),
            vec![
                status(200),
                field("status", Equals, json!("available")),
                field("name", Equals, json!("Rex")),
            ],
            (1, field("status", Equals, json!("sold"))),
        ),
        case(
            "GET /owners",
            "fv_all",
            Fv,
            json!({}),
            vec![
                status(200),
                field("[*].email", Contains, json!("@")),
                field("[0]", Contains, json!("email")),
                field("[1].name", Equals, json!("Bob")),
                // Array element, compared as JSON with numbers numerically (1.0 == 1).
                field(
                    "",
                    Contains,
                    json!({"id": 2, "name": "Bob", "email": "bob@example.com", "petCount": 1.0}),
                ),
            ],
            (1, field("[*].email", Contains, json!("#"))),
        ),
        case(
            "GET /owners/{ownerId}",
            "fv_alice",
            Fv,
            json!({"path": {"ownerId": 1}}),
            vec![
                status(200),
                field("", Type, json!("object")),
                field("name", Equals, json!("Alice")),
                field("petCount", Type, json!("integer")),
            ],
            (3, field("petCount", Type, json!("string"))),
        ),
        case(
            "GET /owners/{ownerId}/pets",
            "fv_bob",
            Fv,
            json!({"path": {"ownerId": 2}}),
            vec![
                status(200),
                field("[*].ownerId", Equals, json!(2)),
                field("[0].name", Equals, json!("Tom")),
            ],
            (1, field("[*].ownerId", Equals, json!(1))),
        ),
        case(
            "GET /stats",
            "fv_counts",
            Fv,
            json!({"headers": {"Accept": "application/json"}}),
            vec![
                status(200),
                field("total", Gte, json!(3)),
                field("sold", Equals, json!(1)),
                field("", Contains, json!("pending")),
            ],
            (2, field("sold", Equals, json!(2))),
        ),
    ]
}

fn step(op_id: &str, inp: Value, assertions: Vec<Assertion>, captures: &[(&str, &str)]) -> Step {
    Step {
        op_id: op_id.to_string(),
        input: input(inp),
        captures: captures
            .iter()
            .map(|(n, p)| (n.to_string(), p.to_string()))
            .collect(),
        assertions,
    }
}

fn sequences() -> Vec<(MultiOpOracle, (usize, usize, Assertion))> {
    use FieldOp::*;
    let lifecycle = MultiOpOracle {
        test_id: "create_read_delete".into(),
        group_id: "pet-lifecycle".into(),
        description: "a created pet can be read, deleted, and is gone afterwards".into(),
        steps: vec![
            step(
                "POST /pets",
                json!({"body": {"name": "Bo", "tag": "dog", "age": 5}}),
                vec![
                    status(201),
                    field("name", Equals, json!("Bo")),
                    field("ageCategory", Equals, json!("adult")),
                ],
                &[("pet_id", "id")],
            ),
            step(
                "GET /pets/{petId}",
                json!({"path": {"petId": "$captures.pet_id"}}),
                vec![
                    status(200),
                    field("id", Equals, json!("$captures.pet_id")),
                    field("name", Equals, json!("Bo")),
                ],
                &[],
            ),
            step(
                "DELETE /pets/{petId}",
                json!({"path": {"petId": "$captures.pet_id"}}),
                vec![status(204)],
                &[],
            ),
            step(
                "GET /pets/{petId}",
                json!({"path": {"petId": "$captures.pet_id"}}),
                vec![
                    status(404),
                    field("error", Equals, json!("pet $captures.pet_id not found")),
                ],
                &[],
            ),
        ],
        evidence: "PetStore create/get/delete".into(),
        evidence_refs: vec![],
    };
    let owner = MultiOpOracle {
        test_id: "create_for_owner".into(),
        group_id: "owner-pets".into(),
        description: "a pet created with a captured (numeric) owner id belongs to that owner"
            .into(),
        steps: vec![
            step(
                "GET /owners/{ownerId}",
                json!({"path": {"ownerId": 1}}),
                vec![status(200)],
                &[("owner_id", "id")],
            ),
            step(
                "POST /pets",
                json!({"body": {"name": "Kit", "ownerId": "$captures.owner_id"}}),
                vec![
                    status(201),
                    field("ownerId", Equals, json!("$captures.owner_id")),
                    field("ownerId", Type, json!("integer")),
                ],
                &[("kit_id", "id"), ("kit_url", "header:Location")],
            ),
            step(
                "DELETE /pets/{petId}",
                json!({"path": {"petId": "$captures.kit_id"}}),
                vec![status(204)],
                &[],
            ),
            // A header capture: missing, it would fail the binding below.
            step(
                "GET /pets/{petId}",
                json!({"path": {"petId": "$captures.kit_id"}}),
                vec![
                    status(404),
                    field("error", Equals, json!("pet $captures.kit_id not found")),
                    field("error", NotEquals, json!("$captures.kit_url")),
                ],
                &[],
            ),
        ],
        evidence: "PetRequest validates ownerId as an existing owner".into(),
        evidence_refs: vec![],
    };
    vec![
        (lifecycle, (3, 0, status(200))),
        (owner, (1, 2, field("ownerId", Type, json!("string")))),
    ]
}

/// The small petstore suite: every oracle accepted; `wrong` has one bad expectation each.
pub fn petstore_suite(wrong: bool) -> SuiteFile {
    let mut suite = SuiteFile {
        schema_version: mastor::model::SCHEMA_VERSION,
        ..Default::default()
    };
    for mut c in cases() {
        if wrong {
            c.oracle.assertions[c.wrong.0] = c.wrong.1;
        }
        suite.review.insert(c.oracle.o_id(), ReviewState::Accepted);
        suite.oracles.push(c.oracle);
    }
    for (mut m, (s, a, bad)) in sequences() {
        if wrong {
            m.steps[s].assertions[a] = bad;
        }
        suite.review.insert(m.o_id(), ReviewState::Accepted);
        suite.multi_op.push(m);
    }
    suite
}

/// Every o_id of a suite.
pub fn o_ids(suite: &SuiteFile) -> Vec<String> {
    suite
        .oracles
        .iter()
        .map(Oracle::o_id)
        .chain(suite.multi_op.iter().map(MultiOpOracle::o_id))
        .collect()
}

/// Runs a command, returning (exit code, stdout + stderr).
pub fn run(cmd: &mut Command) -> (i32, String) {
    let out = cmd
        .output()
        .unwrap_or_else(|e| panic!("cannot run {cmd:?}: {e}"));
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.code().unwrap_or(-1), text)
}

/// A jar under /usr/share/java (installed by scripts/setup.sh).
pub fn jar(name: &str) -> PathBuf {
    let path = Path::new("/usr/share/java").join(name);
    assert!(
        path.is_file(),
        "{} missing: run scripts/setup.sh",
        path.display()
    );
    path
}

/// newman: $MASTOR_NEWMAN, the local install of scripts/setup.sh, or PATH.
pub fn newman() -> PathBuf {
    if let Some(path) = std::env::var_os("MASTOR_NEWMAN") {
        return PathBuf::from(path);
    }
    let local = repo_root().join("target/npm/node_modules/.bin/newman");
    if local.is_file() {
        return local;
    }
    let found = std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|p| p.join("newman"))
            .find(|p| p.is_file())
    });
    found.unwrap_or_else(|| panic!("newman not found: run scripts/setup.sh"))
}

/// The fixture API, stopped on drop.
pub struct FixtureApi {
    pub base_url: String,
    state: PathBuf,
}

impl FixtureApi {
    pub fn start(state: &Path) -> FixtureApi {
        Self::start_with(state, None)
    }

    /// Starts the API with the stale-status bug on or off (`None`: as the environment says).
    pub fn start_with(state: &Path, stale_status_bug: Option<bool>) -> FixtureApi {
        let script = repo_root().join("scripts/fixture-api.sh");
        let mut cmd = Command::new("bash");
        cmd.arg(&script)
            .args(["start", "0"])
            .env("FIXTURE_API_STATE", state)
            .env("FIXTURE_API_CLASSES", state.join("classes"));
        match stale_status_bug {
            Some(true) => {
                cmd.env("PETSTORE_BUG_STALE_STATUS", "1");
            }
            Some(false) => {
                cmd.env_remove("PETSTORE_BUG_STALE_STATUS");
            }
            None => {}
        }
        let (code, text) = run(&mut cmd);
        assert_eq!(code, 0, "fixture API did not start: {text}");
        let base_url = text
            .lines()
            .rev()
            .find(|l| l.starts_with("http://"))
            .unwrap_or_else(|| panic!("no base URL in: {text}"))
            .to_string();
        FixtureApi {
            base_url,
            state: state.to_path_buf(),
        }
    }
}

impl Drop for FixtureApi {
    fn drop(&mut self) {
        let script = repo_root().join("scripts/fixture-api.sh");
        let _ = Command::new("bash")
            .arg(&script)
            .arg("stop")
            .env("FIXTURE_API_STATE", &self.state)
            .output();
    }
}

// JUnit and newman runs, shared by the export end-to-end tests.

pub const COMPILE_JARS: [&str; 5] = [
    "junit-jupiter-api.jar",
    "apiguardian-api.jar",
    "jackson-databind.jar",
    "jackson-core.jar",
    "jackson-annotations.jar",
];
pub const RUN_JARS: [&str; 3] = [
    "jackson-databind.jar",
    "jackson-core.jar",
    "jackson-annotations.jar",
];

pub fn class_path(dir: Option<&Path>, jars: &[&str]) -> String {
    let mut parts: Vec<String> = dir.iter().map(|d| d.display().to_string()).collect();
    parts.extend(jars.iter().map(|j| jar(j).display().to_string()));
    parts.join(":")
}

/// Exports JUnit sources into `dir/src` and compiles them into `dir/classes`.
pub fn compile_junit(input: &ExportInput, dir: &Path) -> ExportReport {
    let src = dir.join("src");
    let report = export::export(input, Format::Junit, &src).expect("junit export");
    let classes = dir.join("classes");
    std::fs::create_dir_all(&classes).expect("classes dir");
    let sources: Vec<&PathBuf> = report
        .files
        .iter()
        .filter(|f| f.extension().is_some_and(|e| e == "java"))
        .collect();
    let (code, text) = run(Command::new("javac")
        .args(["-encoding", "UTF-8", "-Xlint:none", "-d"])
        .arg(&classes)
        .arg("-cp")
        .arg(class_path(None, &COMPILE_JARS))
        .args(&sources));
    assert_eq!(code, 0, "javac failed:\n{text}");
    // As Maven and Gradle copy src/test/resources: the class order JUnit is told to use.
    let props = src.join("junit-platform.properties");
    if props.is_file() {
        std::fs::copy(&props, classes.join("junit-platform.properties")).expect("copy properties");
    }
    report
}

/// Runs the compiled classes with the console launcher; returns exit code, the legacy XML
/// report and the launcher output.
pub fn launch_junit(dir: &Path, base_url: Option<&str>) -> (i32, String, String) {
    let reports = dir.join(if base_url.is_some() {
        "reports"
    } else {
        "reports-unset"
    });
    let mut cmd = Command::new("java");
    if let Some(url) = base_url {
        cmd.arg(format!("-Dmastor.baseUrl={url}"));
    }
    cmd.arg("-jar")
        .arg(jar("junit-platform-console-standalone.jar"))
        .args(["--disable-banner", "--details=none", "--class-path"])
        .arg(class_path(Some(&dir.join("classes")), &RUN_JARS))
        .args(["--select-package", "mastor.suite", "--reports-dir"])
        .arg(&reports);
    let (code, text) = run(&mut cmd);
    let xml = std::fs::read_to_string(reports.join("TEST-junit-jupiter.xml"))
        .unwrap_or_else(|e| panic!("no JUnit XML report ({e}); launcher said:\n{text}"));
    (code, xml, text)
}

/// Runs newman on a collection with the JSON reporter; returns the exit code, the parsed
/// report and newman's output.
pub fn newman_json(collection: &Path, base_url: &str, json_out: &Path) -> (i32, Value, String) {
    let (code, text) = run(Command::new(newman())
        .arg("run")
        .arg(collection)
        .args(["--env-var", &format!("baseUrl={base_url}")])
        .args(["--reporters", "json", "--reporter-json-export"])
        .arg(json_out));
    let raw = std::fs::read_to_string(json_out)
        .unwrap_or_else(|e| panic!("no newman report ({e}); newman said:\n{text}"));
    let parsed: Value = serde_json::from_str(&raw).expect("newman JSON report");
    (code, parsed, text)
}

/// Per o_id: how many checks failed, 0 when it passed (`None`: the runner reported nothing).
pub type Results = BTreeMap<String, Option<usize>>;
