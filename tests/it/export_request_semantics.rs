//! How an oracle input becomes a request, case by case (`requests` in
//! `tests/data/semantics.json`: request target, content type and body bytes), the same in
//! mastor's runner, the exported JUnit `MastorAssert`, the behave steps of the Gherkin
//! export and the Postman export. The first three send each case to a local echo server
//! that answers with what it received; the Postman collection is read as written.
//!
//! This pins `path_raw` (verbatim path segments), `query_raw` (a query string as written),
//! `raw_body` (bodies sent byte for byte) and `method` (another method than the
//! operation's) across every runner, next to the ordinary encoded path and JSON body.

use crate::export_common::{jar, repo_root, run};
use mastor::export::{self, ExportInput, Format, Selection};
use mastor::model::{Assertion, Oracle, OracleInput, SuiteFile};
use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::process::Command;

struct Case {
    op_id: String,
    input: Value,
    /// `{"method", "target", "content_type", "body"}` as the server must see them.
    expected: Value,
}

fn cases() -> Vec<Case> {
    let path = repo_root().join("tests/data/semantics.json");
    let doc: Value =
        serde_json::from_str(&std::fs::read_to_string(&path).expect("read")).expect("json");
    doc["requests"]
        .as_array()
        .expect("semantics.json has requests")
        .iter()
        .map(|c| {
            let op_id = c["op_id"].as_str().expect("op_id").to_string();
            let own = op_id.split(' ').next().unwrap_or_default().to_string();
            let method = c["method"].as_str().map_or(own, str::to_string);
            Case {
                op_id,
                input: c["input"].clone(),
                expected: json!({"method": method, "target": c["target"],
                                 "content_type": c["content_type"], "body": c["body"]}),
            }
        })
        .collect()
}

/// An HTTP/1.1 server on a free loopback port that answers every request with a JSON
/// object of its request target, content type (null when none) and body (null when
/// empty). Runs until the test process exits.
fn echo_server() -> String {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let url = format!("http://{}", listener.local_addr().expect("addr"));
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let _ = answer(stream);
        }
    });
    url
}

fn answer(stream: std::net::TcpStream) -> std::io::Result<()> {
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut line = String::new();
    reader.read_line(&mut line)?;
    let method = line
        .split_whitespace()
        .next()
        .unwrap_or_default()
        .to_string();
    let target = line
        .split_whitespace()
        .nth(1)
        .unwrap_or_default()
        .to_string();
    let (mut length, mut content_type) = (0usize, Value::Null);
    loop {
        let mut header = String::new();
        if reader.read_line(&mut header)? == 0 || header.trim().is_empty() {
            break;
        }
        if let Some((name, value)) = header.split_once(':') {
            match name.trim().to_ascii_lowercase().as_str() {
                "content-length" => length = value.trim().parse().unwrap_or(0),
                "content-type" => content_type = json!(value.trim()),
                _ => {}
            }
        }
    }
    let mut body = vec![0; length];
    reader.read_exact(&mut body)?;
    let body = String::from_utf8_lossy(&body).into_owned();
    let text = json!({"method": method, "target": target, "content_type": content_type,
                      "body": if body.is_empty() { Value::Null } else { json!(body) }})
    .to_string();
    let mut stream = stream;
    write!(
        stream,
        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\
         Connection: close\r\n\r\n{text}",
        text.len()
    )?;
    stream.flush()
}

fn runner_results(url: &str, cases: &[Case]) -> Vec<Value> {
    let rt = tokio::runtime::Runtime::new().expect("runtime");
    let client = reqwest::Client::builder()
        .no_proxy()
        .build()
        .expect("client");
    let base = reqwest::Url::parse(url).expect("url");
    cases
        .iter()
        .map(|c| {
            let input: OracleInput = serde_json::from_value(c.input.clone()).expect("input");
            let (_, got) = rt.block_on(mastor::runner::exec::send(
                &client,
                &base,
                &c.op_id,
                &input,
                std::time::Duration::from_secs(10),
                1 << 20,
            ));
            serde_json::from_str(&got.expect("answer").text).expect("echo json")
        })
        .collect()
}

const JAVA_PROBE: &str = r#"package mastor.suite;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;

public class RequestProbe {
    public static void main(String[] args) throws Exception {
        ObjectMapper json = new ObjectMapper();
        JsonNode cases = json.readTree(Files.readString(Path.of(args[0]))).get("requests");
        StringBuilder out = new StringBuilder("[");
        for (JsonNode c : cases) {
            String[] op = c.get("op_id").textValue().split(" ", 2);
            MastorAssert.Response r = new MastorAssert.Checks("probe").send(op[0], op[1], c.get("input").toString());
            out.append(out.length() > 1 ? "," : "").append(r.text);
        }
        System.out.println(out.append("]"));
    }
}
"#;

const PYTHON_PROBE: &str = r#"
import json, sys
sys.path.insert(0, sys.argv[2])
import mastor_steps

class Config:
    userdata = {"base_url": sys.argv[3]}

class Context:
    config = Config()

cases = json.load(open(sys.argv[1], encoding="utf-8"))["requests"]
out = [mastor_steps.send(Context(), {"op_id": c["op_id"], "input": c["input"]}, {})["body"]
       for c in cases]
print(json.dumps(out))
"#;

fn last_json_line(text: &str) -> Vec<Value> {
    let line = text
        .lines()
        .rev()
        .find(|l| l.starts_with('['))
        .unwrap_or("[]");
    serde_json::from_str(line).unwrap_or_else(|e| panic!("bad probe output ({e}): {text}"))
}

fn java_results(url: &str, work: &std::path::Path) -> Vec<Value> {
    let probe = work.join("RequestProbe.java");
    std::fs::write(&probe, JAVA_PROBE).expect("write probe");
    let jars = [
        "jackson-databind.jar",
        "jackson-core.jar",
        "jackson-annotations.jar",
    ]
    .map(|j| jar(j).display().to_string())
    .join(":");
    let classes = work.join("classes");
    let (code, text) = run(Command::new("javac")
        .args(["-encoding", "UTF-8", "-d"])
        .arg(&classes)
        .args(["-cp", &jars])
        .arg(repo_root().join("src/export/assets/java/MastorAssert.java"))
        .arg(repo_root().join("src/export/assets/java/MastorRequest.java"))
        .arg(repo_root().join("src/export/assets/java/MastorJson.java"))
        .arg(&probe));
    assert_eq!(code, 0, "javac: {text}");
    let (code, out) = run(Command::new("java")
        .arg(format!("-Dmastor.baseUrl={url}"))
        .arg("-cp")
        .arg(format!("{}:{jars}", classes.display()))
        .arg("mastor.suite.RequestProbe")
        .arg(repo_root().join("tests/data/semantics.json")));
    assert_eq!(code, 0, "java probe: {out}");
    last_json_line(&out)
}

fn python_results(url: &str, work: &std::path::Path) -> Vec<Value> {
    let steps = work.join("steps");
    std::fs::create_dir_all(&steps).expect("mkdir");
    std::fs::copy(
        repo_root().join("src/export/assets/python/mastor_steps.py"),
        steps.join("mastor_steps.py"),
    )
    .expect("copy steps");
    // behave's decorators, as no-ops: only `send` is probed.
    std::fs::write(
        steps.join("behave.py"),
        "def _d(*a, **k):\n    return lambda f: f\ngiven = when = then = _d\n",
    )
    .expect("stub");
    // The side file the steps load at import (no tests needed to probe `send`).
    std::fs::write(work.join("mastor_tests.json"), r#"{"tests": []}"#).expect("side file");
    let probe = work.join("probe.py");
    std::fs::write(&probe, PYTHON_PROBE).expect("write probe");
    let (code, out) = run(Command::new("python3")
        .arg(&probe)
        .arg(repo_root().join("tests/data/semantics.json"))
        .arg(&steps)
        .arg(url));
    assert_eq!(code, 0, "python probe: {out}");
    last_json_line(&out)
}

/// The Postman export's request of each case: target and body as the collection says
/// them (`{{baseUrl}}` stripped), and the Content-Type header it sets.
fn postman_results(cases: &[Case], work: &std::path::Path) -> Vec<Value> {
    let oracles: Vec<Oracle> = cases
        .iter()
        .enumerate()
        .map(|(i, c)| {
            serde_json::from_value(json!({"test_id": format!("case{i}"), "op_id": c.op_id,
                "input": c.input, "assertions": [{"type": "status", "expected": 200}]}))
            .expect("oracle")
        })
        .collect();
    assert!(
        oracles.iter().all(
            |o| !o.assertions.is_empty() && matches!(o.assertions[0], Assertion::Status { .. })
        )
    );
    let suite = SuiteFile {
        schema_version: 1,
        oracles,
        ..SuiteFile::default()
    };
    let input = ExportInput::from_suite(suite, Selection::All);
    let report = export::export(&input, Format::Postman, &work.join("postman")).expect("export");
    let collection: Value =
        serde_json::from_str(&std::fs::read_to_string(&report.files[0]).expect("read"))
            .expect("collection");
    let mut requests = std::collections::BTreeMap::new();
    collect_requests(&collection, &mut requests);
    (0..cases.len())
        .map(|i| {
            let r = requests
                .iter()
                .find(|(name, _)| name.ends_with(&format!("#case{i}")))
                .map(|(_, r)| r.clone())
                .unwrap_or_else(|| panic!("no request for case{i}: {collection}"));
            let url = r["url"].as_str().unwrap_or_default();
            let content_type = r["header"]
                .as_array()
                .into_iter()
                .flatten()
                .find(|h| {
                    h["key"]
                        .as_str()
                        .is_some_and(|k| k.eq_ignore_ascii_case("content-type"))
                })
                .map_or(Value::Null, |h| h["value"].clone());
            json!({"method": r["method"], "target": url.trim_start_matches("{{baseUrl}}"),
                   "content_type": content_type,
                   "body": r["body"]["raw"].clone()})
        })
        .collect()
}

fn collect_requests(v: &Value, out: &mut std::collections::BTreeMap<String, Value>) {
    if let (Some(name), Some(request)) = (v["name"].as_str(), v.get("request")) {
        out.insert(name.to_string(), request.clone());
    }
    for item in v["item"].as_array().into_iter().flatten() {
        collect_requests(item, out);
    }
}

#[test]
fn export_requests_are_built_alike_by_runner_junit_behave_and_postman() {
    let cases = cases();
    assert!(!cases.is_empty());
    let url = echo_server();
    let work = tempfile::tempdir().expect("tempdir");
    let runs = [
        ("runner", runner_results(&url, &cases)),
        ("junit", java_results(&url, work.path())),
        ("behave", python_results(&url, work.path())),
    ];
    let postman = postman_results(&cases, work.path());
    let mut wrong = Vec::new();
    for (i, c) in cases.iter().enumerate() {
        for (name, results) in &runs {
            if results.get(i) != Some(&c.expected) {
                wrong.push(format!(
                    "{name}: {} {}: expected {}, got {:?}",
                    c.op_id,
                    c.input,
                    c.expected,
                    results.get(i)
                ));
            }
        }
        // Postman pretty-prints a JSON body; only raw bodies are compared byte for byte.
        let mut expected = c.expected.clone();
        if c.input.get("body").is_some() {
            expected["body"] = postman[i]["body"].clone();
        }
        if postman[i] != expected {
            wrong.push(format!(
                "postman: {} {}: expected {expected}, got {}",
                c.op_id, c.input, postman[i]
            ));
        }
    }
    assert!(wrong.is_empty(), "requests differ:\n{}", wrong.join("\n"));
}
