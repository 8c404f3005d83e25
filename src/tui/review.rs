//! Review decisions: building them, validating edits, and applying what the journal
//! confirmed to the state.
//!
//! Decisions are built here and written by the driver (`Effect::Record`); the state
//! changes only once the journal holds them, so the screen never shows a decision that
//! is not on disk. Edited oracles must still parse as the oracle schema and keep their
//! ids before they are kept.

use super::popups::Editor;
use super::state::{App, ItemRef, Popup, Screen};
use super::update::Effect;
use crate::model::{Decision, MultiOpOracle, Oracle, ReviewDecision};
use ratatui_textarea::TextArea;

pub(crate) fn decision(
    o_id: String,
    d: Decision,
    edited: Option<serde_json::Value>,
    note: Option<String>,
) -> ReviewDecision {
    ReviewDecision {
        o_id,
        decision: d,
        edited,
        note,
        at: chrono::Utc::now().to_rfc3339(),
        step: Some(crate::store::new_step_id()),
    }
}

pub(crate) fn selected_o_id(app: &mut App) -> Option<String> {
    match app.selected_item().and_then(|i| app.o_id(i)) {
        Some(o) => Some(o),
        None => {
            app.notify("open an operation's Oracles tab (or a group) to review one oracle");
            None
        }
    }
}

/// The o_ids a bulk action applies to: what is on screen, without oracles normalization
/// set aside unless the reviewer filtered for them (restoring is a deliberate choice).
pub(crate) fn bulk_targets(app: &App) -> Vec<String> {
    let restoring = app.filters.state == Some(crate::model::ReviewState::Dropped);
    let mut targets = on_screen_targets(app);
    targets.retain(|o| restoring || app.view.review_state(o) != crate::model::ReviewState::Dropped);
    targets
}

/// Every oracle of the filtered operations on the operations list; elsewhere the items
/// of the list review actions apply to.
fn on_screen_targets(app: &App) -> Vec<String> {
    if let Screen::Operations(_) = app.screen {
        let state = app.filters.state;
        return app
            .visible_ops
            .iter()
            .flat_map(|&i| app.view.ops[i].oracles.iter().map(|o| o.o_id()))
            .filter(|o| state.is_none_or(|s| app.view.review_state(o) == s))
            .collect();
    }
    app.screen
        .state()
        .reviewing()
        .map(|l| l.visible.iter().filter_map(|i| app.o_id(*i)).collect())
        .unwrap_or_default()
}

/// The selected item as pretty JSON (edited version if there is one).
pub(crate) fn edit_text(app: &mut App) -> Option<(String, bool, String)> {
    let item = app.selected_item();
    let Some(item) = item else {
        app.notify("open an operation's Oracles tab (or a group) to edit an oracle");
        return None;
    };
    let (o_id, multi, value) = match item {
        ItemRef::Single { op, oracle } => {
            let o = app.view.ops.get(op)?.oracles.get(oracle)?;
            (
                o.o_id(),
                false,
                serde_json::to_string_pretty(&app.view.effective_oracle(o)),
            )
        }
        ItemRef::Multi { group, oracle } => {
            let o = app.view.groups.get(group)?.oracles.get(oracle)?;
            (
                o.o_id(),
                true,
                serde_json::to_string_pretty(&app.view.effective_multi(o)),
            )
        }
        ItemRef::Meta { test } => {
            let t = app.view.metamorphic.get(test)?;
            (
                t.o_id(),
                false,
                serde_json::to_string_pretty(&app.view.effective_mr(t)),
            )
        }
    };
    Some((o_id, multi, value.ok()?))
}

pub(crate) fn open_editor(
    app: &mut App,
    o_id: String,
    multi: bool,
    text: &str,
    error: Option<String>,
) {
    let mut textarea = TextArea::new(text.lines().map(str::to_string).collect());
    textarea.set_line_number_style(app.theme.line_number);
    app.popups.push(Popup::Editor(Editor {
        o_id,
        multi,
        context: false,
        textarea: Box::new(textarea),
        error,
    }));
}

/// Checks edited JSON against the oracle schema and that it still is the same oracle
/// (metamorphic tests, `mr#` ids, against theirs: see `metamorphic::validate_edit`).
pub fn validate_edit(o_id: &str, multi: bool, text: &str) -> Result<serde_json::Value, String> {
    if !multi && super::metamorphic::is_mr_id(o_id) {
        return super::metamorphic::validate_edit(o_id, text);
    }
    let (value, new_id) = if multi {
        let o: MultiOpOracle =
            super::json_lines::parse(text).map_err(|e| format!("not a multi-op oracle: {e}"))?;
        let id = o.o_id();
        (serde_json::to_value(&o), id)
    } else {
        let mut o: Oracle =
            super::json_lines::parse(text).map_err(|e| format!("not an oracle: {e}"))?;
        if o.op_id.is_empty() {
            o.op_id = o_id.split('#').next().unwrap_or("").to_string();
        }
        let id = o.o_id();
        (serde_json::to_value(&o), id)
    };
    if new_id != o_id {
        return Err(format!(
            "test_id / op_id changed ({new_id}); keep them so the decision stays on {o_id}"
        ));
    }
    value.map_err(|e| e.to_string())
}

/// Decisions written per journal append during a bulk action: one write and one fsync
/// each, with the screen redrawn (progress) and keys read (Esc stops) in between.
pub const BULK_CHUNK: usize = 5_000;

/// A bulk decision being written in chunks.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct BulkJob {
    pub rest: std::collections::VecDeque<ReviewDecision>,
    pub total: usize,
    pub saved: usize,
    pub verb: &'static str,
}

fn verb_of(d: &ReviewDecision) -> &'static str {
    match d.decision {
        Decision::Accepted => "accepted",
        Decision::Rejected => "rejected",
        Decision::Edited => "edited",
    }
}

impl App {
    /// Starts writing `decisions`: returns the first chunk's effect; the rest waits in
    /// `self.bulk` for the driver to write between frames.
    /// Every decision gets one step id, so the whole action is one undo.
    pub fn start_bulk(&mut self, mut decisions: Vec<ReviewDecision>) -> Vec<Effect> {
        let step = crate::store::new_step_id();
        for d in &mut decisions {
            d.step = Some(step.clone());
        }
        let Some(first) = decisions.first() else {
            return Vec::new();
        };
        self.bulk = Some(BulkJob {
            verb: verb_of(first),
            total: decisions.len(),
            saved: 0,
            rest: decisions.into(),
        });
        self.next_bulk_chunk()
            .map(Effect::RecordBatch)
            .into_iter()
            .collect()
    }

    /// The next chunk of the bulk action to write, if any.
    pub fn next_bulk_chunk(&mut self) -> Option<Vec<ReviewDecision>> {
        let job = self.bulk.as_mut()?;
        if job.rest.is_empty() {
            return None;
        }
        let n = job.rest.len().min(BULK_CHUNK);
        Some(job.rest.drain(..n).collect())
    }

    /// Stops a bulk action: what was written stays, the rest is left as it was.
    pub fn cancel_bulk(&mut self) {
        if let Some(job) = self.bulk.take() {
            self.notify(format!(
                "stopped: {} of {} {}; the other {} were left as they were",
                job.saved,
                job.total,
                job.verb,
                job.total - job.saved
            ));
        }
    }

    /// The journal now holds `ds` (a chunk of a bulk action, or a single decision).
    pub fn decisions_saved(&mut self, ds: Vec<ReviewDecision>) {
        if ds.len() == 1 && self.bulk.as_ref().is_none_or(|j| j.total == 1) {
            self.bulk = None;
            if let Some(d) = ds.into_iter().next() {
                self.decision_saved(d);
            }
            return;
        }
        let n = ds.len();
        let verb = ds.first().map(verb_of).unwrap_or("saved");
        self.view.record_decisions(ds);
        self.refresh_lists();
        match self.bulk.as_mut() {
            Some(job) => {
                job.saved += n;
                if job.rest.is_empty() {
                    let (saved, verb) = (job.saved, job.verb);
                    self.bulk = None;
                    self.notify(format!("{verb} {saved} oracles"));
                } else {
                    let msg = format!(
                        "{} {} of {} ... (esc stops)",
                        job.verb, job.saved, job.total
                    );
                    self.notify(msg);
                }
            }
            None => self.notify(format!("{verb} {n} oracles")),
        }
    }

    /// The journal now holds `d`: show it (undo finds it in the journal).
    pub fn decision_saved(&mut self, d: ReviewDecision) {
        let verb = match d.decision {
            Decision::Accepted => "accepted",
            Decision::Rejected => "rejected",
            Decision::Edited => "edited",
        };
        let decided = self.selected_item();
        let moves = self.advance
            && d.decision != Decision::Edited
            && decided.and_then(|i| self.o_id(i)).as_deref() == Some(d.o_id.as_str());
        let said = format!("{verb} {}", d.o_id);
        self.notify(said.clone());
        self.view.record_decision(d);
        self.refresh_lists();
        if let (true, Some(item)) = (moves, decided) {
            self.advance_from(item, &said);
        }
    }

    /// After `a` / `r` on `decided`: the next oracle still to review in the list on
    /// show (wrapping), else, on an operation's Oracles tab, in the next operation that
    /// has one; the status line keeps what was decided.
    fn advance_from(&mut self, decided: ItemRef, said: &str) {
        let Some(list) = self.screen.state().reviewing() else {
            return;
        };
        let n = list.visible.len();
        let start = match list.visible.iter().position(|i| *i == decided) {
            Some(at) => at + 1,
            // Filtered out by the decision: the cursor already sits on what followed.
            None => list.cursor,
        };
        let next = (0..n).map(|k| (start + k) % n).find(|&row| {
            self.o_id(list.visible[row])
                .is_some_and(|o| self.view.review_state(&o) == crate::model::ReviewState::Proposed)
        });
        if let Some(row) = next {
            if let Some(list) = self.screen.state_mut().item_list_mut() {
                list.cursor = row;
            }
            if let Some(d) = self.screen.state_mut().detail_mut() {
                *d = Default::default();
            }
            return;
        }
        if matches!(self.screen, Screen::Operation(_)) {
            super::search::jump(self, super::search::Target::ToReview, true);
            let then = self.status.take().map(|s| s.0).unwrap_or_default();
            self.notify(format!("{said} · {then}"));
        } else {
            self.notify(format!("{said} · nothing left to review here"));
        }
    }

    /// `$EDITOR` returned `text` for `o_id`: keep it if valid, else reopen it inline
    /// with the error shown.
    pub fn external_edit_done(&mut self, o_id: String, multi: bool, text: String) -> Vec<Effect> {
        match validate_edit(&o_id, multi, &text) {
            Ok(value) => vec![Effect::Record(decision(
                o_id,
                Decision::Edited,
                Some(value),
                None,
            ))],
            Err(e) => {
                open_editor(self, o_id, multi, &text, Some(e));
                Vec::new()
            }
        }
    }

    /// The export finished (or failed): show the summary in the dialog.
    pub fn export_done(&mut self, outcome: Result<String, String>) {
        if let Some(Popup::Export(export)) = self.popups.last_mut() {
            export.add_result(outcome);
        } else if let Err(e) = outcome {
            self.error(e);
        }
    }
}
