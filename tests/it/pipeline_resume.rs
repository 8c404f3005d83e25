//! A `mastor run` killed with SIGKILL part way resumes on the same session: no call that
//! completed before the kill is asked again, and the finished session equals the one an
//! uninterrupted run writes (contexts, suites, groups and operation states).

use crate::support;

use mastor::llm::scripted::{ReceivedRequest, Rule, Script, ScriptedServer};
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};
use support::*;

/// Every reply waits this long, so the kill lands between calls.
const DELAY_MS: u64 = 300;

fn root() -> &'static str {
    env!("CARGO_MANIFEST_DIR")
}

/// The petstore script with a delay on every rule, the fallback turned into a last
/// catch-all rule so that it is delayed too.
fn delayed_script(delay_ms: u64) -> Script {
    let mut script = petstore_script();
    let fallback = std::mem::take(&mut script.fallback);
    script.rules.push(Rule {
        replies: fallback,
        ..Rule::default()
    });
    for rule in &mut script.rules {
        rule.delay_ms = delay_ms;
    }
    script
}

fn run_cmd(server: &ScriptedServer, home: &Path, out: &Path) -> std::process::Command {
    let out = out.to_str().unwrap();
    let mut args = vec![
        "run",
        "tests/fixtures/petstore-jdk",
        "--out",
        out,
        "--json",
        "--concurrency",
        "1",
    ];
    for op in [POST, GET, DELETE] {
        args.extend(["--op", op]);
    }
    let mut cmd = mastor_cmd(&server.base_url(), home, &args);
    cmd.current_dir(root())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    cmd
}

fn run_to_end(server: &ScriptedServer, home: &Path, out: &Path) {
    let output = run_cmd(server, home, out).output().unwrap();
    assert!(
        output.status.success(),
        "mastor run failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
}

/// A request's identity: agent, operation and the messages sent.
fn key(r: &ReceivedRequest) -> String {
    format!(
        "{}|{}|{}",
        r.agent.as_deref().unwrap_or(""),
        r.op.as_deref().unwrap_or(""),
        r.body["messages"]
    )
}

fn multiset(reqs: &[ReceivedRequest]) -> BTreeMap<String, usize> {
    let mut m = BTreeMap::new();
    for r in reqs {
        *m.entry(key(r)).or_insert(0) += 1;
    }
    m
}

/// The parts of a session that must not depend on the interruption.
fn snapshot(dir: &Path) -> BTreeMap<String, Value> {
    let mut out = BTreeMap::new();
    for sub in ["contexts", "suites", "groups"] {
        let d = dir.join(sub);
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries {
            let p: PathBuf = e.unwrap().path();
            let name = p.file_name().unwrap().to_string_lossy().to_string();
            if name.starts_with('.') {
                continue;
            }
            out.insert(format!("{sub}/{name}"), read_json(&p));
        }
    }
    let state = read_json(&dir.join("state.json"));
    out.insert(
        "state.json".into(),
        json!({"ops": state["ops"], "groups": state["groups"], "grouping": state["grouping"]}),
    );
    out.insert("groups.json".into(), read_json(&dir.join("groups.json")));
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn killed_run_resumes_without_asking_again() {
    // The reference: one uninterrupted run on a fresh session.
    let reference = ScriptedServer::start(delayed_script(0)).await.unwrap();
    let ref_dir = tempfile::tempdir().unwrap();
    let ref_out = ref_dir.path().join("session");
    tokio::task::block_in_place(|| run_to_end(&reference, ref_dir.path(), &ref_out));
    let expected = reference.requests();
    assert!(expected.len() >= 10, "{} calls", expected.len());

    // The interrupted run: SIGKILL once some calls have completed.
    let first = ScriptedServer::start(delayed_script(DELAY_MS))
        .await
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("session");
    let kill_after = expected.len() / 2;
    let completed_at_kill = tokio::task::block_in_place(|| {
        let mut child = run_cmd(&first, dir.path(), &out).spawn().unwrap();
        let deadline = Instant::now() + Duration::from_secs(60);
        // `calls()` counts arrivals; the one in flight is not completed yet.
        while first.calls() < kill_after + 1 {
            assert!(Instant::now() < deadline, "the run stalled");
            assert!(
                child.try_wait().unwrap().is_none(),
                "the run ended before the kill"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
        child.kill().unwrap(); // SIGKILL on Unix
        child.wait().unwrap();
        first.requests()
    });
    assert!(completed_at_kill.len() < expected.len(), "killed too late");
    let state_before = read_json(&out.join("state.json"));
    let unfinished = state_before["ops"]
        .as_object()
        .unwrap()
        .values()
        .any(|s| s["state"] != "done");
    assert!(unfinished, "the kill left nothing to resume");

    // The resumed run on the same session, against the same endpoint (the base URL is
    // part of the cache key); no delay now.
    first.set_script(delayed_script(0)).unwrap();
    tokio::task::block_in_place(|| run_to_end(&first, dir.path(), &out));
    let resumed = first.requests()[completed_at_kill.len()..].to_vec();

    // No completed call asked twice: at most the one in flight at the kill repeats.
    let before = multiset(&completed_at_kill);
    let after = multiset(&resumed);
    let want = multiset(&expected);
    let mut repeated = 0;
    for (k, n) in &after {
        repeated += before.get(k).copied().unwrap_or(0).min(*n);
    }
    assert!(
        repeated <= 1,
        "{repeated} calls asked again after the resume"
    );
    let mut combined = before.clone();
    for (k, n) in &after {
        *combined.entry(k.clone()).or_insert(0) += n;
    }
    for (k, n) in &want {
        let got = combined.get(k).copied().unwrap_or(0);
        assert!(
            got == *n || (got == n + 1 && repeated == 1),
            "call {k:.120} asked {got} times, an uninterrupted run asks it {n} times"
        );
    }
    let extra: Vec<&String> = combined.keys().filter(|k| !want.contains_key(*k)).collect();
    assert!(
        extra.is_empty(),
        "{} calls an uninterrupted run never makes",
        extra.len()
    );
    assert_eq!(
        completed_at_kill.len() + resumed.len(),
        expected.len() + repeated
    );

    // The session equals the uninterrupted run's.
    let got = snapshot(&out);
    let want_session = snapshot(&ref_out);
    assert_eq!(
        got.keys().collect::<Vec<_>>(),
        want_session.keys().collect::<Vec<_>>()
    );
    for (name, value) in &want_session {
        pretty_assertions::assert_eq!(&got[name], value, "{name} differs after the resume");
    }
}
