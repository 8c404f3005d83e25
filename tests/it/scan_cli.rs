//! `mastor scan` as a user runs it: the built binary on fixtures and on bad inputs.
//! Input errors exit with code 2 and a message naming the file; nothing panics.

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

fn mastor(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_mastor"))
        .args(args)
        .output()
        .expect("the mastor binary runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn write(root: &Path, rel: &str, content: &str) {
    let p = root.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, content).unwrap();
}

const CONTROLLER: &str = "package a;\n@RestController\nclass Hello {\n  @GetMapping(\"/hello\") String hello() { return \"hi\"; }\n}\n";
const SPEC: &str = "openapi: 3.0.0\ninfo: {title: t, version: '1'}\npaths:\n  /hello:\n    get:\n      responses:\n        '200': {description: ok}\n";

fn assert_input_error(out: &Output, needles: &[&str]) {
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "stderr: {stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    for n in needles {
        assert!(stderr.contains(n), "expected {n:?} in: {stderr}");
    }
}

#[test]
fn human_output_on_jaxrs_fixture() {
    let dir = fixture("countries-jaxrs");
    let out = mastor(&["scan", dir.to_str().unwrap()]);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(stdout.contains("using spec "), "{stdout}");
    assert!(stdout.contains("swagger.json"), "{stdout}");
    assert!(
        stdout.contains("CountryRestV1.getByAlpha (src/main/java/com/example/countries/rest/v1/CountryRestV1.java:"),
        "{stdout}"
    );
    assert!(
        stdout.contains("- no route for GET /rest/v2/callingcode/{callingcode}"),
        "{stdout}"
    );
    assert!(stdout.contains("excluded: framework endpoint"), "{stdout}");
    assert!(stdout.contains("entry files:\n  jaxrs:\n"), "{stdout}");
    assert!(stdout.contains("files shared across bundles:"), "{stdout}");
    assert!(
        stdout.contains(
            "src/main/java/com/example/countries/legacy/Broken.java:11: Java syntax error"
        ),
        "{stdout}"
    );
}

#[test]
fn json_output_is_one_object_with_the_documented_keys() {
    let dir = fixture("shop-spring");
    let out = mastor(&[
        "scan",
        dir.to_str().unwrap(),
        "--json",
        "--exclude",
        "/internal/**",
        "--bundle",
        "closure",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let v: Value = serde_json::from_slice(&out.stdout).expect("stdout is one JSON object");
    assert_eq!(v["spec"]["file"], "src/main/resources/openapi.yaml");
    assert_eq!(v["spec"]["version"], "3.0.3");
    assert_eq!(v["spec"]["operations"], 36);
    let ops = v["operations"].as_array().unwrap();
    assert_eq!(ops.len(), 36);
    let count = ops
        .iter()
        .find(|o| o["op_id"] == "GET /persons/count")
        .unwrap();
    assert_eq!(count["method"], "GET");
    assert_eq!(count["path"], "/persons/count");
    assert_eq!(count["entry"]["class"], "PersonController");
    assert_eq!(count["entry"]["method"], "count");
    assert!(count["entry"]["line"].as_u64().unwrap() > 0);
    assert!(count["unmatched_reason"].is_null());
    let bundle = &count["bundle"];
    assert_eq!(bundle["files"].as_array().unwrap().len(), 3);
    let bytes = bundle["bytes"].as_u64().unwrap();
    assert_eq!(bundle["tokens_est"].as_u64().unwrap(), bytes.div_ceil(4));
    assert!(bundle["lines"].as_u64().unwrap() > 0);
    // --exclude adds to the built-in exclusions.
    let stale = ops
        .iter()
        .find(|o| o["op_id"] == "GET /internal/stale")
        .unwrap();
    assert!(
        stale["excluded"].as_str().unwrap().contains("/internal/**"),
        "{stale}"
    );
    assert!(stale["entry"].is_null() && stale["bundle"].is_null());
    let health = ops
        .iter()
        .find(|o| o["op_id"] == "GET /actuator/health")
        .unwrap();
    assert!(health["excluded"].is_string());
    let invoice = ops
        .iter()
        .find(|o| o["op_id"] == "GET /orders/{orderId}/invoice")
        .unwrap();
    assert!(
        invoice["unmatched_reason"]
            .as_str()
            .unwrap()
            .starts_with("no route for GET")
    );
    assert_eq!(v["entry_files"].as_array().unwrap().len(), 9);
    assert_eq!(v["entry_files"][0]["framework"], "spring");
    assert!(v["shared_files"][0]["bundles"].as_u64().unwrap() >= 2);
    assert!(
        v["routes_without_spec"]
            .as_array()
            .unwrap()
            .iter()
            .any(|r| r["path"] == "/suppliers")
    );
    assert!(v["warnings"].is_array());
    // Which spec was found goes to stderr, keeping stdout pure JSON.
    assert!(text(&out.stderr).contains("using spec"));
}

#[test]
fn missing_dir_is_an_input_error() {
    let out = mastor(&["scan", "/definitely/not/here"]);
    assert_input_error(&out, &["/definitely/not/here", "does not exist"]);
}

#[test]
fn dir_without_java_is_an_input_error() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "openapi.yaml", SPEC);
    let out = mastor(&["scan", dir.path().to_str().unwrap()]);
    assert_input_error(
        &out,
        &["no Java source files", dir.path().to_str().unwrap()],
    );
}

#[test]
fn no_spec_found_is_an_input_error() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "src/main/java/a/Hello.java", CONTROLLER);
    let out = mastor(&["scan", dir.path().to_str().unwrap()]);
    assert_input_error(&out, &[dir.path().to_str().unwrap()]);
    assert!(text(&out.stderr).to_lowercase().contains("spec"));
}

#[test]
fn spec_that_is_not_json_or_yaml_names_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "src/main/java/a/Hello.java", CONTROLLER);
    write(
        dir.path(),
        "bad.yaml",
        "openapi: 3.0.0\npaths:\n  /x: [unclosed\n  y: {\n",
    );
    let spec = dir.path().join("bad.yaml");
    let out = mastor(&[
        "scan",
        dir.path().to_str().unwrap(),
        "--spec",
        spec.to_str().unwrap(),
    ]);
    assert_input_error(&out, &["bad.yaml:"]);
    let stderr = text(&out.stderr);
    let after = stderr.split("bad.yaml:").nth(1).unwrap_or_default();
    assert!(
        after.chars().next().is_some_and(|c| c.is_ascii_digit()),
        "no line number: {stderr}"
    );
}

#[test]
fn unresolved_ref_is_an_input_error() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "src/main/java/a/Hello.java", CONTROLLER);
    write(
        dir.path(),
        "openapi.yaml",
        "openapi: 3.0.0\ninfo: {title: t, version: '1'}\npaths:\n  /hello:\n    get:\n      parameters:\n        - $ref: '#/components/parameters/Missing'\n      responses:\n        '200': {description: ok}\n",
    );
    let out = mastor(&["scan", dir.path().to_str().unwrap()]);
    assert_input_error(&out, &["openapi.yaml", "#/components/parameters/Missing"]);
}

#[test]
fn java_syntax_error_is_bundled_with_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    let broken = "package a;\n@RestController\nclass Hello {\n  @GetMapping(\"/hello\") String hello() { return \"hi\" }\n}\n";
    write(dir.path(), "src/main/java/a/Hello.java", broken);
    write(dir.path(), "openapi.yaml", SPEC);
    let out = mastor(&["scan", dir.path().to_str().unwrap(), "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let op = &v["operations"][0];
    assert_eq!(op["entry"]["method"], "hello", "{v}");
    assert_eq!(op["bundle"]["files"][0], "src/main/java/a/Hello.java");
    let warnings = v["warnings"].as_array().unwrap();
    assert!(
        warnings.iter().any(|w| w
            .as_str()
            .unwrap()
            .starts_with("src/main/java/a/Hello.java:4: Java syntax error")),
        "{warnings:?}"
    );
}
