//! Comparing sessions: `export`/`check` narrowed by `--op` and `--types`, `mastor compare`
//! (counts by type, last verdicts, mutation n/a), the run summary's paper phases
//! (Ph-A, Ph-B-SO, Ph-B-MO, Ph-B-R) and `mastor report` (Tables 12-13 rows, a DP session
//! beside a MASTOR one in its own row, median and mean).

use crate::support;

use mastor::llm::scripted::{Reply, Rule, ScriptedServer};
use mastor::model::{MultiOpOracle, Oracle};
use mastor::store::{GroupRecord, Manifest, Session, SuiteRecord};
use serde_json::{Value, json};
use std::path::Path;
use support::*;

/// Never contacted: commands that fail on their arguments first.
const NOWHERE: &str = "http://127.0.0.1:9";

/// A tiny API answering every request with 200 and `{"name": "Rex"}`.
fn api() -> String {
    use std::io::{Read, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let mut buf = [0u8; 8192];
            let _ = stream.read(&mut buf);
            let body = r#"{"name": "Rex"}"#;
            let _ = write!(
                stream,
                "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            );
        }
    });
    format!("http://{addr}")
}

fn oracle(op: &str, id: &str, field: bool) -> Oracle {
    let mut assertions = vec![json!({"type": "status", "expected": 200})];
    if field {
        assertions.push(
            json!({"type": "field", "field_path": "name", "op": "not_null", "expected": null}),
        );
    }
    serde_json::from_value(json!({"test_id": id, "op_id": op,
        "input": {"path": {"petId": "1"}}, "assertions": assertions}))
    .unwrap()
}

/// A session with GET: one status and one field oracle; POST: one status oracle; one
/// multi-op sequence.
fn session(dir: &Path) -> std::path::PathBuf {
    let out = dir.join("s");
    let s = Session::create(&out, Manifest::new("proj", "openapi.json")).unwrap();
    let mut get = SuiteRecord::new(GET);
    get.oracles = vec![oracle(GET, "st", false), oracle(GET, "fd", true)];
    s.write_suite(&get).unwrap();
    let mut post = SuiteRecord::new(POST);
    post.oracles = vec![
        serde_json::from_value(json!({"test_id": "p", "op_id": POST,
        "input": {"body": {"name": "x"}}, "assertions": [{"type": "status", "expected": 201}]}))
        .unwrap(),
    ];
    s.write_suite(&post).unwrap();
    let mut g = GroupRecord::new("g1");
    let m: MultiOpOracle = serde_json::from_value(json!({"test_id": "seq", "group_id": "g1",
        "steps": [{"op_id": POST, "input": {"body": {"name": "x"}},
                   "assertions": [{"type": "status", "expected": 201}]}]}))
    .unwrap();
    g.oracles = vec![m];
    s.write_group(&g).unwrap();
    out
}

fn run(home: &Path, args: &[&str]) -> (Option<i32>, String, String) {
    let o = mastor(NOWHERE, home, args);
    (
        o.status.code(),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

#[test]
fn export_keeps_only_the_named_operations_and_types() {
    let dir = tempfile::tempdir().unwrap();
    let s = session(dir.path());
    let out = dir.path().join("x");
    let (code, _, err) = run(
        dir.path(),
        &[
            "export",
            s.to_str().unwrap(),
            "--format",
            "json",
            "--all",
            "--op",
            "get /pets/{petId}",
            "--types",
            "status",
            "--out",
            out.to_str().unwrap(),
        ],
    );
    assert_eq!(code, Some(0), "{err}");
    let suite = read_json(&out.join("suite.json"));
    let ids: Vec<&str> = suite["oracles"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["test_id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["st"]);
    assert_eq!(suite["multi_op"], json!([]));

    // Sequences are the `multi` type.
    let out2 = dir.path().join("y");
    let (code, _, err) = run(
        dir.path(),
        &[
            "export",
            s.to_str().unwrap(),
            "--format",
            "json",
            "--all",
            "--types",
            "field,multi",
            "--out",
            out2.to_str().unwrap(),
        ],
    );
    assert_eq!(code, Some(0), "{err}");
    let suite = read_json(&out2.join("suite.json"));
    assert_eq!(suite["oracles"].as_array().unwrap().len(), 1);
    assert_eq!(suite["oracles"][0]["test_id"], "fd");
    assert_eq!(suite["multi_op"].as_array().unwrap().len(), 1);
}

#[test]
fn unknown_operations_and_types_exit_2_naming_them() {
    let dir = tempfile::tempdir().unwrap();
    let s = session(dir.path());
    let out = dir.path().join("x");
    let s = s.to_str().unwrap();
    let o = out.to_str().unwrap();
    let (code, _, err) = run(
        dir.path(),
        &[
            "export",
            s,
            "--format",
            "json",
            "--all",
            "--op",
            "GET /nowhere",
            "--out",
            o,
        ],
    );
    assert_eq!(code, Some(2));
    assert!(err.contains("GET /nowhere"), "{err}");
    let (code, _, err) = run(
        dir.path(),
        &[
            "export",
            s,
            "--format",
            "json",
            "--types",
            "status,bogus",
            "--out",
            o,
        ],
    );
    assert_eq!(code, Some(2));
    assert!(err.contains("bogus"), "{err}");
    let (code, _, err) = run(
        dir.path(),
        &[
            "check",
            s,
            "--base-url",
            NOWHERE,
            "--only",
            "all",
            "--types",
            "states",
        ],
    );
    assert_eq!(code, Some(2));
    assert!(err.contains("states"), "{err}");
    let (code, _, err) = run(
        dir.path(),
        &[
            "check",
            s,
            "--base-url",
            NOWHERE,
            "--only",
            "all",
            "--op",
            "GET /nowhere",
        ],
    );
    assert_eq!(code, Some(2));
    assert!(err.contains("GET /nowhere"), "{err}");
}

#[test]
fn check_runs_only_the_named_types_and_compare_shows_its_verdicts() {
    let dir = tempfile::tempdir().unwrap();
    let s = session(dir.path());
    let s = s.to_str().unwrap();

    // Never checked: counts, no verdicts, mutation n/a.
    let (code, text, err) = run(dir.path(), &["compare", s]);
    assert_eq!(code, Some(0), "{err}");
    assert!(text.contains("MASTOR"), "{text}");
    assert!(text.contains("n/a"), "{text}");
    assert!(text.contains("never checked"), "{text}");

    let url = api();
    let (code, out, err) = run(
        dir.path(),
        &[
            "check",
            s,
            "--base-url",
            &url,
            "--only",
            "all",
            "--types",
            "field",
            "--json",
        ],
    );
    assert_eq!(code, Some(0), "{err}");
    let report: Value = serde_json::from_str(&out).unwrap();
    let ran: Vec<&str> = report["verdicts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["o_id"].as_str().unwrap())
        .collect();
    assert_eq!(ran, [format!("{GET}#fd")]);

    let (code, out, err) = run(dir.path(), &["compare", s, "--json"]);
    assert_eq!(code, Some(0), "{err}");
    let rows: Value = serde_json::from_str(&out).unwrap();
    let row = &rows[0];
    assert_eq!(row["label"], "MASTOR");
    assert_eq!(row["operations"], 2);
    assert_eq!(
        row["counts"],
        json!({"status": 2, "field": 1, "multi": 1, "metamorphic": 0})
    );
    assert_eq!(row["check"]["passed"], 1);
    assert_eq!(row["check"]["failed"], 0);
    let (_, text, _) = run(dir.path(), &["compare", s]);
    assert!(!text.contains("never checked"), "{text}");
    assert_eq!(row["mutation_score"], Value::Null);

    let (code, _, err) = run(dir.path(), &["compare", s, "/no/such/session"]);
    assert_eq!(code, Some(2));
    assert!(err.contains("/no/such/session"), "{err}");
}

fn script_with_dp() -> mastor::llm::scripted::Script {
    let mut script = petstore_script();
    script.rules.push(Rule {
        agent: Some("baseline_dp".into()),
        replies: vec![Reply::json(json!({"operations": [
            {"op_id": GET, "path_oracles": [{"input": {"path": {"petId": "1"}},
                "assertions": [{"type": "status", "expected": 200}]}]}]}))],
        ..Rule::default()
    });
    script
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn run_summary_has_the_papers_phases_and_report_adds_the_dp_row() {
    let server = ScriptedServer::start(script_with_dp()).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let mastor_dir = dir.path().join(".mastor");
    let dp_dir = dir.path().join(".mastor-dp");
    let root = env!("CARGO_MANIFEST_DIR");
    let project = "tests/fixtures/petstore-jdk";
    let m = mastor_dir.to_str().unwrap().to_string();
    let d = dp_dir.to_str().unwrap().to_string();
    let (summary, output) = tokio::task::block_in_place(|| {
        // Discovery asked (`auto` would skip it here) so Ph-A counts its calls too.
        let mut args = vec![
            "run",
            project,
            "--out",
            &m,
            "--json",
            "--discovery",
            "always",
        ];
        for op in [POST, GET, DELETE] {
            args.extend(["--op", op]);
        }
        let mut cmd = mastor_cmd(&server.base_url(), dir.path(), &args);
        let run = cmd.current_dir(root).output().unwrap();
        let stderr = String::from_utf8_lossy(&run.stderr).into_owned();
        assert_eq!(run.status.code(), Some(0), "{stderr}");
        let summary: Value = serde_json::from_slice(&run.stdout).unwrap();
        let mut cmd = mastor_cmd(
            &server.base_url(),
            dir.path(),
            &["baseline", "dp", project, "--out", &d],
        );
        let dp = cmd.current_dir(root).output().unwrap();
        assert!(
            dp.status.success(),
            "{}",
            String::from_utf8_lossy(&dp.stderr)
        );
        let mut cmd = mastor_cmd(&server.base_url(), dir.path(), &["report", &m]);
        (summary, cmd.current_dir(root).output().unwrap())
    });

    // Phases as the paper draws them, each agent's calls in one phase.
    let phases = summary["phases"]["phases"].as_array().unwrap();
    let phase = |name: &str| phases.iter().find(|p| p["phase"] == name).unwrap().clone();
    let calls = |agent: &str| agent_calls(&server, agent) as u64;
    assert_eq!(
        phase("Ph-A")["calls"].as_u64().unwrap(),
        calls("discovery") + calls("extraction")
    );
    assert!(calls("discovery") > 0);
    assert_eq!(
        phase("Ph-B-SO")["calls"].as_u64().unwrap(),
        calls("single_op") + calls("single_op_regenerate")
    );
    assert_eq!(
        phase("Ph-B-MO")["calls"].as_u64().unwrap(),
        calls("semantic") + calls("multi_op") + calls("multi_op_regenerate")
    );
    assert_eq!(
        phase("Ph-B-R")["calls"].as_u64().unwrap(),
        calls("single_op_challenger") + calls("multi_op_challenger")
    );
    assert!(calls("semantic") > 0 && calls("single_op_challenger") > 0);
    let run = &summary["phases"]["run"];
    assert!(run["tokens_in"].as_u64().unwrap() > 0);
    assert!(run["tokens_in_m"].as_f64().unwrap() > 0.0);
    assert!(run["started_at"].is_string() && run["finished_at"].is_string());
    assert!(run["call_ms"].is_u64() && run["wall_ms"].is_u64());
    assert_eq!(summary["phases"]["operations"], 3);
    assert!(summary["phases"]["cost_per_operation"].is_f64());

    // The session remembers the run's start and end.
    let s = Session::open(&mastor_dir).unwrap();
    assert!(s.manifest().phases["pipeline"].finished_at.is_some());

    // The report: MASTOR, the DP session beside it, then median and mean per kind.
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    let md = String::from_utf8_lossy(&output.stdout);
    assert!(md.contains("| petstore-jdk | MASTOR | 3 |"), "{md}");
    assert!(md.contains("| petstore-jdk | DP | 10 | 1 |"), "{md}");
    assert!(md.contains("| **Median** | MASTOR |"), "{md}");
    assert!(md.contains("| **Mean** | DP |"), "{md}");
    assert!(md.contains("Tokens (M, In / Out)"), "{md}");

    let csv = tokio::task::block_in_place(|| {
        let mut cmd = mastor_cmd(&server.base_url(), dir.path(), &["report", &m, &d, "--csv"]);
        cmd.current_dir(root).output().unwrap()
    });
    let text = String::from_utf8_lossy(&csv.stdout);
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines[0].starts_with("api,kind,session,operations,calls,tokens_in_m"));
    assert_eq!(lines.len(), 1 + 2 + 4, "DP listed once: {text}");
    assert!(lines[2].starts_with("petstore-jdk,DP,"), "{text}");
}
