//! The runner's execution model, which the generator prompts state: read-only oracles run
//! before any write, writers one at a time in suite order, and an oracle that declares
//! `fresh_state` runs before the other writers, or right after `--reset` when one is
//! given. The test starts its own fixture API, because its oracles delete records.

use crate::runner_support;

use mastor::runner::RunReport;
use runner_support::{mastor, private_fixture};
use serde_json::json;

fn run(url: &str, dir: &std::path::Path, suite: serde_json::Value, extra: &[&str]) -> RunReport {
    let path = dir.join("suite.json");
    std::fs::write(&path, serde_json::to_string_pretty(&suite).unwrap()).unwrap();
    let mut args = vec![
        "check",
        path.to_str().unwrap(),
        "--base-url",
        url,
        "--json",
        "--concurrency",
        "1",
    ];
    args.extend_from_slice(extra);
    let (_, out, err) = mastor(&args);
    serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}\n{err}"))
}

fn outcomes(r: &RunReport) -> Vec<(String, String)> {
    r.verdicts
        .iter()
        .map(|v| (v.o_id.clone(), format!("{:?}", v.outcome)))
        .collect()
}

#[test]
fn readers_run_before_writers_and_fresh_state_oracles_before_other_writes() {
    let fixture = private_fixture();
    let url = fixture.url();
    let dir = tempfile::tempdir().unwrap();
    // Listed delete-first: in list order the read of Tom would find him gone.
    let suite = json!([
        {"op_id": "DELETE /pets/{id}", "test_id": "delete_tom", "input": {"path": {"id": 2}},
         "assertions": [{"type": "status", "expected": 204}]},
        {"op_id": "GET /pets/{id}", "test_id": "read_tom", "input": {"path": {"id": 2}},
         "assertions": [{"type": "status", "expected": 200},
                        {"type": "field", "field_path": "name", "op": "equals", "expected": "Tom"}]},
        {"op_id": "DELETE /pets/{id}", "test_id": "delete_nemo", "input": {"path": {"id": 3}},
         "assertions": [{"type": "status", "expected": 204}]},
        // Needs Nemo as seeded: it runs before the writer listed above it.
        {"op_id": "PUT /pets/{id}", "test_id": "rename_nemo", "fresh_state": true,
         "input": {"path": {"id": 3}, "body": {"name": "Dory", "status": "sold"}},
         "assertions": [{"type": "status", "expected": 200}]}
    ]);
    let r = run(url, dir.path(), suite, &[]);
    assert_eq!(
        outcomes(&r),
        vec![
            ("DELETE /pets/{id}#delete_tom".into(), "Pass".into()),
            ("GET /pets/{id}#read_tom".into(), "Pass".into()),
            ("DELETE /pets/{id}#delete_nemo".into(), "Pass".into()),
            ("PUT /pets/{id}#rename_nemo".into(), "Pass".into()),
        ],
        "verdicts in suite order, all passing: {r:?}"
    );

    // With a reset: it runs once at the start and before each fresh_state oracle; a
    // failing reset means nothing runs, and every verdict says why.
    let log = dir.path().join("resets.log");
    let reset = format!("echo reset >> '{}'", log.display());
    let suite = json!([
        {"op_id": "GET /pets/{id}", "test_id": "read_rex", "fresh_state": true,
         "input": {"path": {"id": 1}}, "assertions": [{"type": "status", "expected": 200}]},
        {"op_id": "GET /stats", "test_id": "stats", "fresh_state": true,
         "assertions": [{"type": "status", "expected": 200}]},
        {"op_id": "GET /stats", "test_id": "stats_plain",
         "assertions": [{"type": "status", "expected": 200}]}
    ]);
    let r = run(url, dir.path(), suite.clone(), &["--reset", &reset]);
    assert!(
        r.verdicts
            .iter()
            .all(|v| format!("{:?}", v.outcome) == "Pass"),
        "{r:?}"
    );
    let resets = std::fs::read_to_string(&log).unwrap();
    assert_eq!(
        resets.lines().count(),
        3,
        "one reset at the start, then one per fresh_state oracle"
    );

    let r = run(
        url,
        dir.path(),
        suite,
        &["--reset", "echo no database here >&2; exit 3"],
    );
    let failed = &r.verdicts[0];
    assert_eq!(format!("{:?}", failed.outcome), "Error");
    let message = &failed.steps[0].assertions[0].message;
    assert!(
        message.contains("not run: reset command") && message.contains("no database here"),
        "{message}"
    );
    // The reset at the start failed: nothing ran, and every verdict says why.
    assert!(
        r.verdicts
            .iter()
            .all(|v| format!("{:?}", v.outcome) == "Error"
                && v.steps[0].assertions[0]
                    .message
                    .contains("no database here")),
        "{r:?}"
    );
}
