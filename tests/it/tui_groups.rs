//! The Groups screen: a verdict column like the oracle list's, names as long as there
//! is room for, and a failed sequence that shows the step that failed first and the
//! steps it left unrun once, not once per assertion.

use crate::tui_common;

use mastor::store::{GroupRecord, Session};
use serde_json::json;
use std::path::Path;
use tui_common::bench::open_with;

const LONG: &str = "pet-lifecycle-create-read-update-and-delete-again";

/// The petstore session, a second group with a long name, and a run in which the
/// first step of `pet-lifecycle` failed and left the second unrun.
fn with_failed_sequence(dir: &Path) {
    let session: Session = tui_common::petstore_session(dir);
    let first = session.read_group("pet-lifecycle").unwrap().unwrap();
    let mut long = GroupRecord::new(LONG);
    long.group = first.group.clone();
    long.oracles = first.oracles.clone();
    for o in &mut long.oracles {
        o.group_id = LONG.into();
    }
    session.write_group(&long).unwrap();
    let not_run = "not run: step 1 could not capture `id` (at `id`)";
    session
        .write_json(
            "verdicts/latest.json",
            &json!({"at": "2026-12-02T12:30:00Z", "base_url": "http://127.0.0.1:8080",
                "summary": {"passed": 0, "failed": 1, "errors": 0, "skipped": 0},
                "verdicts": [
                {"o_id": "pet-lifecycle#create_then_get", "outcome": "fail",
                 "at": "2026-12-02T12:30:00Z", "base_url": "http://127.0.0.1:8080", "steps": [
                    {"op_id": "POST /pets", "outcome": "fail",
                     "message": "expected 201, got 409 at status; capture `id` (at `id`) not found in the response (body: {\"error\":\"pet 8 is CANCELLED\"})",
                     "assertions": [{"index": 0, "outcome": "fail", "expected": 201, "actual": 409,
                                     "message": "expected 201, got 409 at status"}],
                     "exchange": {"method": "POST", "url": "http://127.0.0.1:8080/pets",
                        "status": 409, "response_headers": {}, "response_body": "{\"error\":\"pet 8 is CANCELLED\"}",
                        "elapsed_ms": 2, "curl": "curl -X POST http://127.0.0.1:8080/pets"}},
                    {"op_id": "GET /pets/{id}", "outcome": "skipped", "message": not_run,
                     "assertions": [
                        {"index": 0, "outcome": "skipped", "expected": 200, "actual": null, "message": not_run},
                        {"index": 1, "outcome": "skipped", "expected": "rex", "actual": null, "message": not_run}]}
                ]}
            ]}),
        )
        .unwrap();
}

#[test]
fn the_groups_list_has_a_verdict_column_and_uncut_names() {
    let mut b = open_with(with_failed_sequence);
    b.press("2");
    let t = b.text(120, 40);
    assert!(t.contains("Verdict"), "{t}");
    let row = t
        .lines()
        .find(|l| l.contains("pet-lifecycle ") && !l.contains(LONG))
        .unwrap_or_default();
    assert!(row.contains("✓0 ✗1"), "the failed sequence counts\n{t}");
    let long = t
        .lines()
        .find(|l| l.contains("pet-lifecycle-"))
        .unwrap_or_default();
    assert!(long.contains(LONG), "the whole name at 120 columns\n{t}");
    assert!(long.contains(" - "), "never run: `-`\n{t}");
    let narrow = b.text(80, 24);
    assert!(narrow.contains("Verdict"), "{narrow}");
    assert!(narrow.contains("✓0 ✗1"), "{narrow}");
}

#[test]
fn a_failed_sequence_shows_the_failing_step_first_and_its_unrun_steps_once() {
    let mut b = open_with(with_failed_sequence);
    b.press("2<enter>");
    let t = b.text(250, 60);
    let at = |needle: &str| {
        t.lines()
            .position(|l| l.contains(needle))
            .unwrap_or_else(|| panic!("`{needle}` not shown\n{t}"))
    };
    assert_eq!(
        t.matches("could not capture").count(),
        1,
        "the unrun step's reason once\n{t}"
    );
    assert!(
        t.contains("✗ step 2 GET /pets/{id}: not run: step 1 could not capture"),
        "{t}"
    );
    assert!(at("pet 8 is CANCELLED") < at("could not capture"), "{t}");
    assert!(at("step 1 POST /pets: #1 expected 201, got 409") < at("could not capture"));
}
