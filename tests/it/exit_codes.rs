//! Exit codes that tell the truth (README, "Exit codes"): `mastor run`, `baseline` and
//! `metamorphic` exit 0 only when everything selected completed, 3 when some operations
//! failed and the others completed, 4 when nothing completed (model unreachable), and
//! print every reason on stderr.

use crate::support;

use mastor::llm::scripted::{Reply, Rule, ScriptedServer};
use support::*;

const PARTIAL: i32 = 3;
const NOTHING: i32 = 4;

/// A base URL nothing listens on: connections are refused at once.
fn dead_url() -> String {
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = l.local_addr().unwrap().port();
    drop(l);
    format!("http://127.0.0.1:{port}/v1")
}

fn run_ops(base_url: &str, extra: &[&str]) -> (i32, String, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("session");
    let mut args = vec![
        "run",
        "tests/fixtures/petstore-jdk",
        "--out",
        out.to_str().unwrap(),
        "--no-discovery",
        "--max-attempts",
        "1",
        "--op",
        POST,
        "--op",
        GET,
    ];
    args.extend_from_slice(extra);
    let mut cmd = mastor_cmd(base_url, dir.path(), &args);
    cmd.current_dir(env!("CARGO_MANIFEST_DIR"));
    let output = cmd.output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    (output.status.code().unwrap_or(-1), stderr, dir)
}

#[test]
fn run_with_an_unreachable_model_exits_4_naming_every_operation() {
    let (code, stderr, _dir) = run_ops(&dead_url(), &[]);
    assert_eq!(code, NOTHING, "{stderr}");
    for op in [POST, GET] {
        assert!(
            stderr.contains(&format!("mastor: {op} failed: extraction:")),
            "{op} has no reason on stderr: {stderr}"
        );
    }
    assert!(stderr.contains("exit 4: nothing completed"), "{stderr}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn run_with_one_failing_operation_exits_3() {
    let mut script = petstore_script();
    script.rules.insert(
        0,
        Rule {
            agent: Some("extraction".into()),
            op: Some(POST.into()),
            replies: vec![Reply::status(500)],
            ..Rule::default()
        },
    );
    let server = ScriptedServer::start(script).await.unwrap();
    let url = server.base_url();
    let (code, stderr, _dir) = tokio::task::block_in_place(|| run_ops(&url, &["--no-multi-op"]));
    assert_eq!(code, PARTIAL, "{stderr}");
    assert!(
        stderr.contains(&format!("mastor: {POST} failed: extraction:")) && stderr.contains("500"),
        "{stderr}"
    );
    assert!(
        !stderr.contains(&format!("mastor: {GET} failed")),
        "{stderr}"
    );
    assert!(stderr.contains("exit 3: partly failed"), "{stderr}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn run_where_everything_completes_exits_0() {
    let server = ScriptedServer::start(petstore_script()).await.unwrap();
    let url = server.base_url();
    let (code, stderr, _dir) = tokio::task::block_in_place(|| run_ops(&url, &["--no-multi-op"]));
    assert_eq!(code, 0, "{stderr}");
    assert!(!stderr.contains("failed"), "{stderr}");
}

#[test]
fn baseline_with_an_unreachable_model_exits_4() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("dp");
    let fixture = fixture("petstore-jdk");
    let args = [
        "baseline",
        "dp",
        fixture.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--max-attempts",
        "1",
    ];
    let output = mastor(&dead_url(), dir.path(), &args);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(NOTHING), "{stderr}");
    assert!(stderr.contains("the baseline call failed"), "{stderr}");
}

#[test]
fn metamorphic_with_an_unreachable_model_exits_4_with_the_reason_on_stderr() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("mr");
    let spec = fixture("petstore-jdk").join("openapi.json");
    let args = [
        "metamorphic",
        spec.to_str().unwrap(),
        "--base-url",
        "http://127.0.0.1:9",
        "--llm-base-url",
        &dead_url(),
        "--out",
        out.to_str().unwrap(),
    ];
    let output = mastor(&dead_url(), dir.path(), &args);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(NOTHING), "{stderr}");
    assert!(stderr.contains("generator failed"), "{stderr}");
    assert!(stderr.contains("no test could be generated"), "{stderr}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hostile_error_body_reaches_the_terminal_escaped() {
    let mut script = petstore_script();
    script.rules.insert(
        0,
        Rule {
            agent: Some("extraction".into()),
            replies: vec![Reply::Status {
                status: 400,
                retry_after: None,
                retry_after_ms: None,
                body: Some("\u{1b}]0;pwned\u{7}\r\u{1b}[2Jbad request".into()),
            }],
            ..Rule::default()
        },
    );
    let server = ScriptedServer::start(script).await.unwrap();
    let url = server.base_url();
    let (code, stderr, _dir) = tokio::task::block_in_place(|| run_ops(&url, &["--no-multi-op"]));
    assert_eq!(code, NOTHING, "{stderr}");
    assert!(stderr.contains("bad request"), "{stderr}");
    assert!(
        !stderr.contains('\u{1b}') && !stderr.contains('\u{7}') && !stderr.contains('\r'),
        "raw control characters on stderr: {stderr:?}"
    );
}
