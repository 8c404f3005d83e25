//! What each agent of one operation is sent: the agents that read the bundle (extraction
//! and the generator) get it as the same leading bytes of their first message (a
//! provider's prefix cache then bills it once per operation); the challenger and the
//! revision get the verified context and the lines it and the oracles cite instead of
//! the whole bundle.

use crate::support::*;
use mastor::llm::scripted::{ReceivedRequest, ScriptedServer};

/// The first message's role and content of each request `agent` sent for `op`.
fn first_messages(server: &ScriptedServer, agent: &str, op: &str) -> Vec<(String, String)> {
    server
        .requests()
        .iter()
        .filter(|r: &&ReceivedRequest| {
            r.agent.as_deref() == Some(agent) && r.op.as_deref() == Some(op)
        })
        .map(|r| {
            let m = &r.body["messages"][0];
            (
                m["role"].as_str().unwrap_or_default().to_string(),
                m["content"].as_str().unwrap_or_default().to_string(),
            )
        })
        .collect()
}

/// The text of every message of each request `agent` sent for `op`.
fn whole_prompt(server: &ScriptedServer, agent: &str, op: &str) -> String {
    server
        .requests()
        .iter()
        .filter(|r| r.agent.as_deref() == Some(agent) && r.op.as_deref() == Some(op))
        .flat_map(|r| r.body["messages"].as_array().cloned().unwrap_or_default())
        .map(|m| format!("{}\n", m["content"].as_str().unwrap_or_default()))
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_requests_of_one_operation_share_a_byte_identical_prefix_holding_the_bundle() {
    let server = ScriptedServer::start(petstore_script()).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("session");
    let srv = &server;
    let output = tokio::task::block_in_place(|| {
        let mut cmd = mastor_cmd(
            &srv.base_url(),
            dir.path(),
            &[
                "run",
                "tests/fixtures/petstore-jdk",
                "--out",
                out.to_str().unwrap(),
                "--op",
                GET,
                "--no-discovery",
                "--no-multi-op",
            ],
        );
        cmd.current_dir(env!("CARGO_MANIFEST_DIR"));
        cmd.output().unwrap()
    });
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );

    let extraction = first_messages(&server, "extraction", GET);
    assert_eq!(extraction.len(), 1);
    let (role, first) = &extraction[0];
    assert_eq!(role, "system", "the shared part is the first message");
    // The prefix: everything up to the marker after which each agent's own text starts.
    let marker = "=== YOUR TASK ===";
    let end = first
        .find(marker)
        .expect("the shared prefix ends with its marker")
        + marker.len();
    let prefix = &first[..end];
    let bundle = prefix
        .split_once("SOURCE BUNDLE:\n")
        .and_then(|(_, rest)| rest.split_once("\n\nSEED DATA:\n"))
        .map(|(b, _)| b)
        .expect("the prefix holds the bundle and the seed data");
    assert!(
        bundle.contains(&format!("// ===== FILE: {PET_HANDLER} (")),
        "the bundle holds the handler file"
    );
    assert!(
        bundle.len() > 2_000,
        "the whole bundle: {} bytes",
        bundle.len()
    );
    assert!(
        !prefix[..prefix.find("SOURCE BUNDLE:").unwrap()].contains(GET),
        "nothing operation- or agent-specific before the bundle"
    );

    // Every agent of the operation that reads the bundle starts with the same bytes.
    let mut checked = 0;
    for agent in ["single_op"] {
        let msgs = first_messages(&server, agent, GET);
        assert!(!msgs.is_empty(), "{agent} did not run");
        for (role, content) in msgs {
            assert_eq!(role, "system", "{agent}");
            assert!(
                content.starts_with(prefix),
                "{agent}: the prompt does not start with the shared prefix"
            );
            assert!(
                !content[end..].contains("SOURCE BUNDLE:"),
                "{agent}: the bundle is sent once"
            );
            checked += 1;
        }
    }
    assert_eq!(checked, 1);

    // The challenger reads the context and the cited lines, not the bundle: the
    // suite's fv_get_rex cites PetHandler lines 96-100.
    let review = whole_prompt(&server, "single_op_challenger", GET);
    assert!(!review.is_empty(), "the challenger ran");
    assert!(
        !review.contains("SOURCE BUNDLE:"),
        "no bundle for the challenger"
    );
    assert!(review.contains("CITED LINES"), "{review}");
    assert!(shows_line(&review, 98), "a cited line with its number");
    assert!(!shows_line(&review, 20), "an uncited line is left out");
    assert!(
        review.len() < bundle.len(),
        "the review ({}) is smaller than the bundle ({})",
        review.len(),
        bundle.len()
    );

    // The revision reasons from the verified context and the cited lines too: the
    // flagged fv_get_rex cites PetHandler lines 96-100.
    let revision = whole_prompt(&server, "single_op_regenerate", GET);
    assert!(!revision.is_empty(), "the revision ran");
    assert!(
        !revision.contains("SOURCE BUNDLE:"),
        "no bundle for the revision"
    );
    assert!(revision.contains("VERIFIED SOURCE CONTEXT"), "{revision}");
    assert!(revision.contains("CITED LINES"), "{revision}");
    assert!(shows_line(&revision, 98), "a cited line with its number");
    assert!(!shows_line(&revision, 20), "an uncited line is left out");
    assert!(revision.len() < bundle.len());
}

/// Whether `prompt` has a numbered source line `n` (`source::numbered`).
fn shows_line(prompt: &str, n: usize) -> bool {
    prompt
        .lines()
        .any(|l| mastor::source::numbered::parse(l).is_some_and(|(m, _)| m == n))
}
