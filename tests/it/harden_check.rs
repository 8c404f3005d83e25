//! `mastor check` never gives a false pass: malformed entries, unreadable captures,
//! oversized and hostile response bodies, all against a small local server whose answers
//! each test chooses.

use crate::runner_support::mastor;
use mastor::model::Outcome;
use mastor::runner::RunReport;
use serde_json::{Value, json};
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};

/// What the local server answers on one path: status, content type and body bytes.
type Route = (&'static str, u16, &'static str, Vec<u8>);

/// Starts a server on 127.0.0.1 that answers each request by its path (404 otherwise) and
/// closes the connection; it lives as long as the test process. Returns its base URL.
fn serve(routes: Vec<Route>) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let url = format!("http://{}", listener.local_addr().expect("addr"));
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let routes = routes.clone();
            std::thread::spawn(move || answer(stream, &routes));
        }
    });
    url
}

fn answer(mut stream: TcpStream, routes: &[Route]) {
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") {
        match stream.read(&mut byte) {
            Ok(1) => head.push(byte[0]),
            _ => return,
        }
    }
    let head = String::from_utf8_lossy(&head).into_owned();
    let path = head.split_whitespace().nth(1).unwrap_or("/").to_string();
    let path = path.split('?').next().unwrap_or_default();
    let (status, ctype, body) = routes
        .iter()
        .find(|r| r.0 == path)
        .map(|r| (r.1, r.2, r.3.as_slice()))
        .unwrap_or((404, "text/plain", b"not found".as_slice()));
    let header = format!(
        "HTTP/1.1 {status} X\r\nContent-Type: {ctype}\r\nContent-Length: {}\r\n\
         Connection: close\r\n\r\n",
        body.len()
    );
    if stream.write_all(header.as_bytes()).is_err() {
        return;
    }
    // A client that stops reading early closes the socket: the write error ends us.
    for chunk in body.chunks(64 * 1024) {
        if stream.write_all(chunk).is_err() {
            return;
        }
    }
}

fn ok_server() -> String {
    serve(vec![(
        "/ok",
        200,
        "application/json",
        br#"{"name":"x"}"#.to_vec(),
    )])
}

fn write(dir: &Path, name: &str, v: &Value) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, serde_json::to_string_pretty(v).unwrap()).unwrap();
    path
}

fn status_ok(test_id: &str) -> Value {
    json!({"op_id": "GET /ok", "test_id": test_id,
           "assertions": [{"type": "status", "expected": 200}]})
}

#[test]
fn malformed_oracle_is_an_error_verdict_in_every_report() {
    let url = ok_server();
    let dir = tempfile::tempdir().unwrap();
    let bad = json!({"op_id": "GET /ok", "test_id": "bad",
        "assertions": [{"type": "field", "field_path": "name", "op": "equal", "expected": "x"}]});
    let suite = write(dir.path(), "s.json", &json!([status_ok("good"), bad]));
    let s = suite.to_str().unwrap();

    let (code, out, err) = mastor(&["check", s, "--base-url", &url]);
    assert_eq!(code, 1, "{out}\n{err}");
    assert!(out.contains("✓ GET /ok#good"), "{out}");
    let line = out
        .lines()
        .find(|l| l.starts_with("! GET /ok#bad"))
        .unwrap_or_else(|| panic!("an error line for the bad entry: {out}"));
    assert!(line.contains("equal") && line.contains("[1]"), "{line}");
    assert!(out.contains("1 passed, 0 failed, 1 errors"), "{out}");

    let xml_path = dir.path().join("r.xml");
    let (code, out, err) = mastor(&[
        "check",
        s,
        "--base-url",
        &url,
        "--json",
        "--junit-xml",
        xml_path.to_str().unwrap(),
    ]);
    assert_eq!(code, 1, "{err}");
    let report: RunReport = serde_json::from_str(&out).unwrap();
    let v = report
        .verdicts
        .iter()
        .find(|v| v.o_id == "GET /ok#bad")
        .expect("the bad entry is in the JSON");
    assert_eq!(v.outcome, Outcome::Error);
    assert_eq!(report.summary.errors, 1);
    let xml = std::fs::read_to_string(&xml_path).unwrap();
    assert!(
        xml.contains(r#"name="GET /ok#bad""#) && xml.contains("<error"),
        "{xml}"
    );
    assert!(xml.contains("equal"), "{xml}");

    // --lenient: today's behaviour, a warning and a passing run.
    let (code, out, err) = mastor(&["check", s, "--base-url", &url, "--lenient"]);
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(!out.contains("GET /ok#bad"), "{out}");
    assert!(
        err.contains("GET /ok#bad") && err.contains("equal"),
        "{err}"
    );
}

#[test]
fn a_suite_with_only_malformed_entries_fails() {
    let url = ok_server();
    let dir = tempfile::tempdir().unwrap();
    let bad = json!({"op_id": "GET /ok", "test_id": "bad", "assertions": []});
    let suite = write(dir.path(), "s.json", &json!([bad]));
    let (code, out, err) = mastor(&["check", suite.to_str().unwrap(), "--base-url", &url]);
    assert_eq!(code, 1, "{out}\n{err}");
    assert!(out.contains("! GET /ok#bad"), "{out}");
}

#[test]
fn missing_capture_fails_its_step_and_the_rest_do_not_run() {
    let url = ok_server();
    let dir = tempfile::tempdir().unwrap();
    let seq = json!({"test_id": "seq", "group_id": "g", "steps": [
        {"op_id": "GET /ok", "captures": {"owner": "owner.id"},
         "assertions": [{"type": "status", "expected": 200}]},
        {"op_id": "GET /ok", "input": {"query": {"o": "$captures.owner"}},
         "assertions": [{"type": "field", "field_path": "name", "op": "equals",
                         "expected": "wrong"}]}
    ]});
    let suite = write(dir.path(), "s.json", &json!([seq]));
    let s = suite.to_str().unwrap();
    let (code, out, err) = mastor(&["check", s, "--base-url", &url, "--json"]);
    assert_eq!(code, 1, "{out}\n{err}");
    let report: RunReport = serde_json::from_str(&out).unwrap();
    let v = &report.verdicts[0];
    assert_eq!(v.outcome, Outcome::Fail, "{v:?}");
    assert_eq!(v.steps[0].outcome, Outcome::Fail);
    let msg = &v.steps[0].message;
    assert!(
        msg.contains("`owner`") && msg.contains("owner.id") && msg.contains(r#"{"name":"x"}"#),
        "{msg}"
    );
    assert!(!msg.contains("no earlier step"), "{msg}");
    assert!(
        v.steps[1].message.contains("not run"),
        "{}",
        v.steps[1].message
    );
    assert!(v.steps[1].exchange.is_none());
    assert_eq!(report.summary.failed, 1);
    assert_eq!(report.summary.skipped, 0);

    let (code, out, _) = mastor(&["check", s, "--base-url", &url]);
    assert_eq!(code, 1);
    assert!(out.contains("✗ g#seq  step 1 (GET /ok)"), "{out}");
    assert!(out.contains("owner.id"), "{out}");
}

#[test]
fn capture_excerpt_is_bounded() {
    let body = format!(r#"{{"pad":"{}"}}"#, "a".repeat(5000));
    let url = serve(vec![("/ok", 200, "application/json", body.into_bytes())]);
    let dir = tempfile::tempdir().unwrap();
    let seq = json!({"test_id": "seq", "group_id": "g", "steps": [
        {"op_id": "GET /ok", "captures": {"id": "id"},
         "assertions": [{"type": "status", "expected": 200}]}]});
    let suite = write(dir.path(), "s.json", &json!([seq]));
    let (code, out, _) = mastor(&[
        "check",
        suite.to_str().unwrap(),
        "--base-url",
        &url,
        "--json",
    ]);
    assert_eq!(code, 1);
    let report: RunReport = serde_json::from_str(&out).unwrap();
    let msg = &report.verdicts[0].steps[0].message;
    assert!(msg.len() < 600, "{}", msg.len());
}

#[test]
fn oversized_body_is_an_error_and_is_not_read_whole() {
    let big = vec![b'a'; 4 * 1024 * 1024];
    let url = serve(vec![
        ("/big", 200, "text/plain", big),
        ("/ok", 200, "application/json", br#"{"name":"x"}"#.to_vec()),
    ]);
    let dir = tempfile::tempdir().unwrap();
    let big = json!({"op_id": "GET /big", "test_id": "big",
                     "assertions": [{"type": "status", "expected": 200}]});
    let suite = write(dir.path(), "s.json", &json!([big, status_ok("small")]));
    let s = suite.to_str().unwrap();
    let (code, out, err) = mastor(&["check", s, "--base-url", &url, "--max-body", "1000"]);
    assert_eq!(code, 1, "{out}\n{err}");
    let line = out
        .lines()
        .find(|l| l.starts_with("! GET /big#big"))
        .unwrap_or_else(|| panic!("{out}"));
    assert!(
        line.contains("response body larger than 1000 bytes"),
        "{line}"
    );
    assert!(out.contains("✓ GET /ok#small"), "{out}");
    // The default limit (16 MiB) lets a 4 MiB body through.
    let (code, out, err) = mastor(&["check", s, "--base-url", &url]);
    assert_eq!(code, 0, "{out}\n{err}");
}

#[test]
fn control_characters_from_the_api_never_reach_the_terminal() {
    let hostile = b"\x1b]0;pwned\x07\r evil \x1b[2J".to_vec();
    let url = serve(vec![("/evil", 500, "text/plain", hostile)]);
    let dir = tempfile::tempdir().unwrap();
    let o = json!({"op_id": "GET /evil", "test_id": "e",
        "assertions": [{"type": "status", "expected": 200},
                       {"type": "field", "field_path": "", "op": "equals", "expected": "x"}]});
    let suite = write(dir.path(), "s.json", &json!([o]));
    let xml_path = dir.path().join("r.xml");
    let (code, out, err) = mastor(&[
        "check",
        suite.to_str().unwrap(),
        "--base-url",
        &url,
        "--junit-xml",
        xml_path.to_str().unwrap(),
    ]);
    assert_eq!(code, 1, "{out}\n{err}");
    for text in [&out, &err] {
        assert!(
            !text.contains(['\x1b', '\x07', '\r']),
            "raw control characters printed: {text:?}"
        );
    }
    assert!(out.contains(r"\u{1b}]0;pwned\u{7}\r evil"), "{out}");
    let xml = std::fs::read_to_string(&xml_path).unwrap();
    assert!(!xml.contains(['\x1b', '\x07', '\r']), "{xml:?}");
}
