//! `mastor run --refresh-from AGENT`: agents before the chosen one replay their cached
//! answers (no model call), the chosen agent and every agent fed by it ask the model
//! again. A bad agent name fails before any session is made, naming the valid ones.

use crate::support;

use mastor::llm::scripted::ScriptedServer;
use std::path::Path;
use support::{agent_calls, fixture, mastor, petstore_script};

const OP: &str = "GET /pets/{petId}";

fn run(server: &ScriptedServer, home: &Path, out: &Path, extra: &[&str]) {
    let project = fixture("petstore-jdk");
    let mut args = vec![
        "run",
        project.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--op",
        OP,
    ];
    args.extend_from_slice(extra);
    let o = mastor(&server.base_url(), home, &args);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn only_the_chosen_agent_and_its_dependents_ask_again() {
    let server = ScriptedServer::start(petstore_script()).await.unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let (home, out) = (tmp.path().join("home"), tmp.path().join("session"));
    // Discovery asked although the operation's match is exact, to see it replay.
    let always = ["--discovery", "always"];
    run(&server, &home, &out, &always);
    let calls = |a: &str| agent_calls(&server, a);
    let first = [
        "discovery",
        "extraction",
        "single_op",
        "single_op_challenger",
        "single_op_regenerate",
    ]
    .map(calls);
    assert!(
        first[0] > 0 && first[1] > 0 && first[2] > 0 && first[3] > 0,
        "{first:?}"
    );

    // A plain second run is all cache hits.
    run(&server, &home, &out, &always);
    assert_eq!(
        calls("extraction") + calls("single_op"),
        first[1] + first[2]
    );

    // From single_op on: discovery and extraction replay, generation and review ask again.
    run(
        &server,
        &home,
        &out,
        &["--refresh-from", "single_op", "--discovery", "always"],
    );
    assert_eq!(calls("discovery"), first[0]);
    assert_eq!(calls("extraction"), first[1]);
    assert_eq!(calls("single_op"), 2 * first[2]);
    assert_eq!(calls("single_op_challenger"), 2 * first[3]);
    assert_eq!(calls("single_op_regenerate"), 2 * first[4]);

    // The session still holds the operation's context and suite.
    assert!(out.join("contexts").read_dir().unwrap().count() > 0);
    assert!(out.join("suites").read_dir().unwrap().count() > 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unknown_agent_is_refused_before_anything_is_written() {
    let server = ScriptedServer::start(petstore_script()).await.unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("session");
    let project = fixture("petstore-jdk");
    let o = mastor(
        &server.base_url(),
        &tmp.path().join("home"),
        &[
            "run",
            project.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "--refresh-from",
            "challenger",
        ],
    );
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("--refresh-from")
            && err.contains("`challenger`")
            && err.contains("single_op_challenger"),
        "{err}"
    );
    assert!(!out.exists());
    assert!(server.requests().is_empty());
}
