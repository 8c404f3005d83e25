//! One undo / redo stack for review decisions, replayed from the journal: a bulk action
//! is one step, redo restores, a new action clears redo, the stack survives a relaunch,
//! the status line names the operation, and journals written before steps existed
//! replay as they did.

use crate::tui_common;

use mastor::model::ReviewState;
use mastor::store::JournalEntry;
pub(crate) use tui_common::bench::{Bench, key};

pub(crate) const GET_PETS: [&str; 4] = [
    "GET /pets#fv_limit_10",
    "GET /pets#bi_limit_0",
    "GET /pets#fi_limit_abc",
    "GET /pets#bv_limit_100",
];

fn states(b: &Bench) -> Vec<ReviewState> {
    GET_PETS.iter().map(|o| b.state(o)).collect()
}

#[test]
fn a_bulk_accept_of_four_is_one_undo_and_redo_restores_it() {
    let mut b = Bench::new();
    b.press("<enter>");
    b.bulk_accept();
    assert_eq!(states(&b), [ReviewState::Accepted; 4]);
    b.press("u");
    assert_eq!(
        states(&b),
        [ReviewState::Proposed; 4],
        "one undo for all four"
    );
    assert_eq!(b.status(), "undid accept of 4 oracles (GET /pets)");
    b.press("<C-y>");
    assert_eq!(states(&b), [ReviewState::Accepted; 4]);
    assert_eq!(b.status(), "redid accept of 4 oracles (GET /pets)");
    b.press("<C-y>");
    assert_eq!(b.status(), "nothing to redo");
    let journal = b.session.read_review_journal().unwrap();
    assert_eq!(journal.len(), 6, "4 decisions, one undo, one redo");
    assert!(matches!(journal[4], JournalEntry::UndoStep(_)));
    assert!(matches!(journal[5], JournalEntry::RedoStep(_)));
}

#[test]
fn a_new_action_after_undo_clears_redo() {
    let mut b = Bench::new();
    // `a` moves on to the next oracle to review: two presses accept the first two.
    b.press("<enter>aa");
    b.press("u");
    assert_eq!(b.state(GET_PETS[1]), ReviewState::Proposed);
    assert_eq!(b.status(), "undid accept of bi_limit_0 in GET /pets");
    b.press("<down>a");
    b.press("<C-y>");
    assert_eq!(b.status(), "nothing to redo");
    assert_eq!(b.state(GET_PETS[1]), ReviewState::Proposed);
    // Undo walks back the steps still standing, newest first.
    b.press("uu");
    assert_eq!(states(&b), [ReviewState::Proposed; 4]);
    b.press("u");
    assert_eq!(b.status(), "nothing to undo");
}

#[test]
fn the_stack_survives_a_relaunch() {
    let mut b = Bench::new();
    // Accept the first, reject the third with a note, then undo the reject.
    b.press("<enter>a<down>rflaky<enter>");
    b.press("u");
    let mut b = b.relaunch();
    // After a relaunch the cursor is on GET /pets, not on any oracle: `u` still undoes
    // the session's last standing step, and redo still has the undone reject.
    b.press("<C-y>");
    assert_eq!(b.state(GET_PETS[2]), ReviewState::Rejected);
    assert_eq!(b.status(), "redid reject of fi_limit_abc in GET /pets");
    let mut b = b.relaunch();
    b.press("u");
    assert_eq!(b.state(GET_PETS[2]), ReviewState::Proposed);
    b.press("u");
    assert_eq!(b.state(GET_PETS[0]), ReviewState::Proposed);
    assert_eq!(b.status(), "undid accept of fv_limit_10 in GET /pets");
}

#[test]
fn undo_in_a_filtered_away_operation_names_the_operation() {
    let mut b = Bench::new();
    // GET /pets/{id} is the third operation; accept its oracle there.
    b.press("jj<enter>a<esc>");
    let o_id = b
        .app
        .view
        .decisions
        .keys()
        .next()
        .cloned()
        .expect("a decision");
    assert!(o_id.starts_with("GET /pets/{id}#"), "{o_id}");
    // Filter the operations list down to POST: the accepted oracle is out of sight.
    b.press("/POST<enter>");
    assert_eq!(b.app.visible_ops.len(), 1);
    b.press("u");
    let test = o_id.split_once('#').unwrap().1;
    assert_eq!(
        b.status(),
        format!("undid accept of {test} in GET /pets/{{id}}")
    );
    assert_eq!(b.state(&o_id), ReviewState::Proposed);
}

#[test]
fn journals_written_before_steps_replay_unchanged() {
    let b = Bench::new();
    let path = b.session.review_journal_path().to_path_buf();
    let old = [
        r#"{"o_id":"GET /pets#fv_limit_10","decision":"accepted","at":"2026-12-01T10:00:00Z"}"#,
        r#"{"o_id":"GET /pets#bi_limit_0","decision":"rejected","note":"x","at":"2026-12-01T10:00:01Z"}"#,
        r#"{"o_id":"GET /pets#bi_limit_0","decision":"accepted","at":"2026-12-01T10:00:02Z"}"#,
        r#"{"undo":"GET /pets#bi_limit_0","at":"2026-12-01T10:00:03Z"}"#,
        r#"{"o_id":"GET /pets#fi_limit_abc","decision":"accepted","at":"2026-12-01T10:00:04Z"}"#,
        r#"{"undo":"GET /pets#fi_limit_abc","at":"2026-12-01T10:00:05Z"}"#,
    ];
    std::fs::write(&path, old.join("\n") + "\n").unwrap();
    let mut b = b.relaunch();
    use ReviewState::*;
    assert_eq!(states(&b), [Accepted, Rejected, Proposed, Proposed]);
    // Each old decision is a step of its own; the undone ones are gone from the stack.
    b.press("u");
    assert_eq!(states(&b), [Accepted, Proposed, Proposed, Proposed]);
    assert_eq!(b.status(), "undid reject of bi_limit_0 in GET /pets");
    let mut b = b.relaunch();
    assert_eq!(states(&b), [Accepted, Proposed, Proposed, Proposed]);
    b.press("<C-y>");
    assert_eq!(states(&b), [Accepted, Rejected, Proposed, Proposed]);
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(
        text.starts_with(&(old.join("\n") + "\n")),
        "old lines untouched"
    );
}
