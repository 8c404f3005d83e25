//! Regenerating from an edited source context: a reviewer's edit of an operation's
//! context (`context_edits.jsonl`) is what `run --refresh-from single_op` generates
//! from, with no extraction call and the edit kept; only `--drop-context-edits`
//! withdraws it and extracts again.

use crate::support;

use mastor::llm::scripted::ScriptedServer;
use mastor::model::ErrorCase;
use mastor::store::Session;
use std::path::Path;
use support::{agent_calls, fixture, mastor, petstore_script};

const OP: &str = "GET /pets/{petId}";
const MARK: &str = "edited by the reviewer: a petId over 9999 is refused";

fn run(server: &ScriptedServer, home: &Path, out: &Path, extra: &[&str]) -> String {
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
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    assert!(o.status.success(), "{err}");
    err
}

/// Whether a request of `agent` carried the edit's marker.
fn saw_edit(server: &ScriptedServer, agent: &str) -> bool {
    server
        .requests()
        .iter()
        .filter(|r| r.agent.as_deref() == Some(agent))
        .any(|r| r.body.to_string().contains(MARK))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn single_op_regenerates_from_the_edit_without_extracting_and_keeps_it() {
    let server = ScriptedServer::start(petstore_script()).await.unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let (home, out) = (tmp.path().join("home"), tmp.path().join("session"));
    run(&server, &home, &out, &[]);
    let extractions = agent_calls(&server, "extraction");
    let generations = agent_calls(&server, "single_op");
    assert!(extractions > 0 && generations > 0);
    assert!(!saw_edit(&server, "single_op"));

    // The reviewer edits the context: one more error case.
    let session = Session::open(&out).unwrap();
    let extracted = session.read_extracted_context(OP).unwrap().unwrap();
    let mut edited = extracted.clone();
    edited.response_schema.error_cases.push(ErrorCase {
        status: 422,
        condition: MARK.into(),
        ..Default::default()
    });
    session.record_context_edit(&edited).unwrap();
    drop(session);
    let on_disk = std::fs::read(out.join(mastor::store::context_rel(OP))).unwrap();

    // The plan (and so --max-cost) counts no extraction for the edited operation, and
    // one again when the edit is to be dropped.
    let planned = |extra: &[&str]| -> usize {
        let project = fixture("petstore-jdk");
        let mut args = vec![
            "run",
            project.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "--op",
            OP,
            "--dry-run",
            "--json",
        ];
        args.extend_from_slice(extra);
        let o = mastor(&server.base_url(), &home, &args);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let plan: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        plan["calls"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|c| c["agent"] == "extraction" && c["target"] == OP)
            .count()
    };
    assert_eq!(planned(&[]), 0);
    assert_eq!(planned(&["--drop-context-edits"]), 1);

    let err = run(&server, &home, &out, &["--refresh-from", "single_op"]);
    // No extraction call, not even replayed over the edit; generation asked again and
    // was given the edit.
    assert_eq!(agent_calls(&server, "extraction"), extractions, "{err}");
    assert_eq!(agent_calls(&server, "single_op"), 2 * generations);
    assert!(saw_edit(&server, "single_op"), "the generator saw the edit");
    let session = Session::open(&out).unwrap();
    assert_eq!(session.read_context(OP).unwrap(), Some(edited.clone()));
    assert_eq!(
        std::fs::read(out.join(mastor::store::context_rel(OP))).unwrap(),
        on_disk,
        "the extraction's context is left as it was"
    );
    drop(session);

    // Even a full refresh keeps the edit: dropping it is asked for by name.
    run(&server, &home, &out, &["--refresh"]);
    assert_eq!(agent_calls(&server, "extraction"), extractions);
    let session = Session::open(&out).unwrap();
    assert_eq!(session.read_context(OP).unwrap(), Some(edited));
    drop(session);

    let err = run(&server, &home, &out, &["--drop-context-edits"]);
    assert!(err.contains("edited source context is withdrawn"), "{err}");
    let session = Session::open(&out).unwrap();
    assert!(session.read_context_edits().unwrap().is_empty());
    assert_eq!(session.read_context(OP).unwrap(), Some(extracted));
    let journal = std::fs::read_to_string(out.join(mastor::store::CONTEXT_EDITS_FILE)).unwrap();
    assert!(journal.contains(MARK), "the journal keeps the dropped edit");
}
