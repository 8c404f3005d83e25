//! Undo and redo of review decisions: one stack of user actions for the whole session.
//!
//! A step is one user action: one accept, reject or edit, or a whole bulk accept or
//! reject (every decision of it carries the same `step` id). Both stacks are replayed
//! from the review journal ([`store::replay_steps`]) rather than kept in memory, so
//! after a relaunch `undo` reverts the last step of the session, whichever operation it
//! was in, and `redo` applies an undone step again. A new decision clears the redo
//! stack. The status line names what was undone and where, because the step may be in
//! an operation the filters hide.
//!
//! True / false positive judgements (`T` / `F`) are not review decisions: they keep
//! their own stack, walked back by `undo_judgement` (`U`), and `undo` never touches them.

use super::state::App;
use super::store::{self, JournalEntry, RedoStep, UndoStep};
use super::update::Effect;
use crate::model::Decision;

/// The `undo` action: reverts the latest step still standing.
pub(crate) fn undo(app: &mut App) -> Vec<Effect> {
    match store::replay_steps(&app.view.journal).undo.pop() {
        Some(step) => vec![Effect::UndoStep(step.id)],
        None => {
            app.notify("nothing to undo");
            Vec::new()
        }
    }
}

/// The `redo` action: applies the latest undone step again.
pub(crate) fn redo(app: &mut App) -> Vec<Effect> {
    match store::replay_steps(&app.view.journal).redo.pop() {
        Some(step) => vec![Effect::RedoStep(step.id)],
        None => {
            app.notify("nothing to redo");
            Vec::new()
        }
    }
}

/// What step `id` did, for the status line: `accept of 4 oracles (GET /pets, POST
/// /pets …)` or `edit of fv_limit_10 in GET /pets`.
pub fn describe(journal: &[JournalEntry], id: &str) -> String {
    let decisions: Vec<_> = journal
        .iter()
        .enumerate()
        .filter_map(|(i, e)| match e {
            JournalEntry::Decision(d) if store::step_id(i, d) == id => Some(d),
            _ => None,
        })
        .collect();
    let Some(first) = decisions.first() else {
        return format!("step {id}");
    };
    let verb = match first.decision {
        Decision::Accepted => "accept",
        Decision::Rejected => "reject",
        Decision::Edited => "edit",
    };
    if let [only] = decisions.as_slice() {
        let (op, test) = split(&only.o_id);
        return format!("{verb} of {test} in {op}");
    }
    let mut ops: Vec<&str> = Vec::new();
    for d in &decisions {
        let op = split(&d.o_id).0;
        if !ops.contains(&op) {
            ops.push(op);
        }
    }
    let more = if ops.len() > 2 { " …" } else { "" };
    ops.truncate(2);
    format!(
        "{verb} of {} oracles ({}{more})",
        decisions.len(),
        ops.join(", ")
    )
}

/// An o_id's operation (or group) and test id; metamorphic tests are named as such.
fn split(o_id: &str) -> (&str, &str) {
    match o_id.split_once('#') {
        Some(("mr", test)) => ("metamorphic tests", test),
        Some((op, test)) => (op, test),
        None => ("", o_id),
    }
}

impl App {
    /// The journal now holds `record`: the step's decisions are reverted.
    pub fn step_undone(&mut self, record: UndoStep) {
        let what = describe(&self.view.journal, &record.undo_step);
        self.push_journal(JournalEntry::UndoStep(record));
        self.notify(format!("undid {what}"));
    }

    /// The journal now holds `record`: the step's decisions stand again.
    pub fn step_redone(&mut self, record: RedoStep) {
        let what = describe(&self.view.journal, &record.redo_step);
        self.push_journal(JournalEntry::RedoStep(record));
        self.notify(format!("redid {what}"));
    }

    fn push_journal(&mut self, entry: JournalEntry) {
        self.view.journal.push(entry);
        self.view.decisions = store::replay(&self.view.journal);
        // An undone or redone edit changes what the oracles' verdicts vouch for.
        self.view.refresh_content_hashes();
        self.refresh_lists();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::ReviewDecision;

    fn d(o_id: &str, decision: Decision, step: Option<&str>) -> JournalEntry {
        JournalEntry::Decision(ReviewDecision {
            o_id: o_id.into(),
            decision,
            edited: None,
            note: None,
            at: "t".into(),
            step: step.map(str::to_string),
        })
    }

    #[test]
    fn names_the_action_its_size_and_operations() {
        let j = vec![
            d("GET /pets#a", Decision::Accepted, Some("s")),
            d("GET /pets#b", Decision::Accepted, Some("s")),
            d("POST /pets#c", Decision::Accepted, Some("s")),
            d("GET /x#d", Decision::Accepted, Some("s")),
            d("GET /pets/{id}#fv", Decision::Edited, None),
            d("mr#subset", Decision::Rejected, Some("m")),
        ];
        assert_eq!(
            describe(&j, "s"),
            "accept of 4 oracles (GET /pets, POST /pets …)"
        );
        assert_eq!(describe(&j, "@4"), "edit of fv in GET /pets/{id}");
        assert_eq!(describe(&j, "m"), "reject of subset in metamorphic tests");
    }
}
