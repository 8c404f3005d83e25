//! Hardening, round two: a bulk accept of many imported oracles on few operations stays
//! linear. Each decision used to look its oracle up by scanning its operation's list and
//! each chunk replayed the whole journal, so 100,000 oracles on 4 operations took minutes
//! (46 s in release). Here 20,000 oracles on one operation go through the keys a reviewer
//! types, with every decision journalled and the state the journal replays to. The speed
//! itself is measured by `cargo bench --bench tui_render -- accept-only`, not asserted
//! here (a timing bound in a test fails on a slow machine, not on slow code).

use crate::tui_common::{bench, synthetic_session};

use mastor::model::ReviewState;

#[test]
fn bulk_accept_of_many_oracles_on_one_operation_is_fast_and_exact() {
    let n = 20_000;
    let mut b = bench::open_with(|dir| {
        synthetic_session(dir, 1, n);
    });
    let ids: Vec<String> = b.app.view.ops[0].oracles.iter().map(|o| o.o_id()).collect();
    assert_eq!(ids.len(), n);
    b.bulk_accept();
    assert_eq!(b.session.read_decisions().unwrap().len(), n);
    assert!(
        ids.iter().all(|id| b.state(id) == ReviewState::Accepted),
        "every oracle accepted: {}",
        b.status()
    );
    // What the workbench holds is what the journal replays to, also after an undo.
    let replayed = |b: &bench::Bench| mastor::store::replay(&b.app.view.journal);
    assert_eq!(b.app.view.decisions, replayed(&b));
    b.press("u");
    assert!(
        ids.iter().all(|id| b.state(id) == ReviewState::Proposed),
        "{}",
        b.status()
    );
    assert_eq!(b.app.view.decisions, replayed(&b));
}
