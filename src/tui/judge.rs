//! True / false positive judgements in the workbench: marking the selected item's latest
//! failure (`T` / `F`, with a note typed as for a rejection), undoing the latest
//! judgement (`U`), and applying what the journal confirmed.
//!
//! Kept out of `update` (key handling for review) because a judgement is about a
//! verdict, not about the oracle: only an item whose latest verdict failed can be
//! judged, and a judgement stops counting once a new run replaces that verdict (see
//! `positives`). Like review decisions, judgements come back as [`Effect`]s and change
//! the state only once `judgements.jsonl` holds them. Nothing here draws.

use super::filters::JudgedFilter;
use super::popups;
use super::state::{App, Popup};
use super::update::Effect;
use super::view::SessionView;
use crate::model::Outcome;
use crate::positives::{Positives, applying, failed_mr, failed_oracle};
use crate::store::{JudgedVerdict, Judgement, JudgementEntry, JudgementUndo, Positive};

impl SessionView {
    /// The latest failed verdict of `o_id`, `None` when it passed, was skipped or never
    /// ran (metamorphic tests: latest verdicts, else the loop report).
    pub fn failure(&self, o_id: &str) -> Option<JudgedVerdict> {
        if super::metamorphic::is_mr_id(o_id) {
            failed_mr(
                self.verdict_details.get(o_id),
                self.mr_verdicts.get(o_id),
                self.mr_report_at.as_deref(),
            )
        } else {
            failed_oracle(self.verdict_details.get(o_id))
        }
    }

    /// The judgement of `o_id`'s latest failure, if it has one that still applies.
    pub fn judged(&self, o_id: &str) -> Option<&Judgement> {
        let current = self.failure(o_id)?;
        applying(&self.judgements, o_id, &current)
    }

    /// Failed, TPFT, FPFT and unjudged counts over every reviewable item.
    pub fn positives(&self) -> Positives {
        let mut ids: Vec<String> = self
            .ops
            .iter()
            .flat_map(|op| op.oracles.iter().map(|o| o.o_id()))
            .collect();
        ids.extend(
            self.groups
                .iter()
                .flat_map(|g| g.oracles.iter().map(|o| o.o_id())),
        );
        ids.extend(self.metamorphic.iter().map(|t| t.o_id()));
        self.count_positives(ids)
    }

    /// The counts over the metamorphic tests alone (cheap enough for every frame).
    pub fn metamorphic_positives(&self) -> Positives {
        self.count_positives(self.metamorphic.iter().map(|t| t.o_id()).collect())
    }

    fn count_positives(&self, ids: Vec<String>) -> Positives {
        let failures: Vec<(String, JudgedVerdict)> = ids
            .into_iter()
            .filter_map(|o| self.failure(&o).map(|f| (o, f)))
            .collect();
        crate::positives::count(
            failures.iter().map(|(o, v)| (o.as_str(), v)),
            &self.judgements,
        )
    }

    /// Whether `o_id` passes the judgement filter `f`.
    pub fn judged_as(&self, o_id: &str, f: JudgedFilter) -> bool {
        let Some(current) = self.failure(o_id) else {
            return false;
        };
        let j = applying(&self.judgements, o_id, &current).map(|j| j.judgement);
        match f {
            JudgedFilter::Unjudged => j.is_none(),
            JudgedFilter::Tp => j == Some(Positive::Tp),
            JudgedFilter::Fp => j == Some(Positive::Fp),
        }
    }

    /// Records a judgement the journal now holds.
    pub fn record_judgement(&mut self, j: Judgement) {
        self.judgement_journal.push(JudgementEntry::Judged(j));
        self.judgements = crate::store::replay_judgements(&self.judgement_journal);
    }

    /// Records a judgement undo the journal now holds.
    pub fn record_judgement_undo(&mut self, u: JudgementUndo) {
        self.judgement_journal.push(JudgementEntry::Undo(u));
        self.judgements = crate::store::replay_judgements(&self.judgement_journal);
    }

    /// Why `o_id` cannot be judged (it has no failed latest verdict), in words.
    fn not_failed_reason(&self, o_id: &str) -> String {
        if super::metamorphic::is_mr_id(o_id) {
            let status = self
                .metamorphic
                .iter()
                .find(|t| t.o_id() == o_id)
                .map(|t| super::metamorphic::outcome(self, t).status.label())
                .unwrap_or("not run");
            return format!("its latest outcome is {status}");
        }
        match self.verdict_details.get(o_id).map(|v| v.outcome) {
            Some(Outcome::Pass) => "its latest verdict is pass".into(),
            Some(Outcome::Skipped) => "its latest run skipped it".into(),
            _ => "it has not been run (ctrl-t runs the accepted oracles)".into(),
        }
    }
}

/// `T` / `F`: asks for a note before judging the selected item's latest failure.
pub(crate) fn mark(app: &mut App, judgement: Positive) -> Vec<Effect> {
    let Some(o_id) = app.selected_item().and_then(|i| app.o_id(i)) else {
        app.notify("select an oracle or a metamorphic test to judge its failure");
        return Vec::new();
    };
    match app.view.failure(&o_id) {
        Some(verdict) => app.popups.push(Popup::Judge(popups::Judge {
            o_id,
            judgement,
            verdict,
            more: Vec::new(),
            text: Default::default(),
        })),
        None => {
            let why = app.view.not_failed_reason(&o_id);
            app.notify(format!("only a failed test can be judged: {why} ({o_id})"));
        }
    }
    Vec::new()
}

/// `alt-t` / `alt-f`: asks for one note before judging every failure among `o_ids`
/// (the filtered list) the same way; the batch is one undo step.
pub(crate) fn mark_all(app: &mut App, o_ids: Vec<String>, judgement: Positive) {
    let mut failures: Vec<(String, JudgedVerdict)> = o_ids
        .into_iter()
        .filter_map(|o| app.view.failure(&o).map(|f| (o, f)))
        .collect();
    if failures.is_empty() {
        app.notify("no failed test in the filtered list to judge");
        return;
    }
    let (o_id, verdict) = failures.remove(0);
    app.popups.push(Popup::Judge(popups::Judge {
        o_id,
        judgement,
        verdict,
        more: failures,
        text: Default::default(),
    }));
}

/// `p`: cycles the judgement filter of item lists (unjudged failures, TP, FP, off).
pub(crate) fn cycle_filter(app: &mut App) {
    let all = JudgedFilter::ALL;
    app.filters.judged = match app
        .filters
        .judged
        .and_then(|f| all.iter().position(|x| *x == f))
    {
        None => Some(all[0]),
        Some(i) => all.get(i + 1).copied(),
    };
    app.refresh_items();
    match app.filters.judged {
        Some(f) => app.notify(format!("showing {}", f.label())),
        None => app.notify("judgement filter off"),
    }
}

/// `U`: undoes the latest judgement made here, else the selected item's.
pub(crate) fn undo(app: &mut App) -> Vec<Effect> {
    let selected = app
        .selected_item()
        .and_then(|i| app.o_id(i))
        .filter(|o| app.view.judgements.contains_key(o));
    match app
        .judge_undo_stack
        .last()
        .cloned()
        .or(selected.map(|o| vec![o]))
    {
        // A bulk judgement is undone as a whole.
        Some(o_ids) if !o_ids.is_empty() => o_ids.into_iter().map(Effect::UndoJudgement).collect(),
        _ => {
            app.notify("no judgement to undo");
            Vec::new()
        }
    }
}

impl App {
    /// `judgements.jsonl` now holds `j`: show it and remember it for undo.
    pub fn judgement_saved(&mut self, j: Judgement) {
        self.notify(format!("judged {} a {}", j.o_id, j.judgement.words()));
        self.judge_undo_stack.push(vec![j.o_id.clone()]);
        self.view.record_judgement(j);
        self.refresh_items();
    }

    /// `judgements.jsonl` now holds the batch `js`: one undo step for all of them.
    pub fn judgements_saved(&mut self, js: Vec<Judgement>) {
        let Some(first) = js.first() else {
            return;
        };
        self.notify(format!(
            "judged {} failure(s): {} (U undoes them together)",
            js.len(),
            first.judgement.words()
        ));
        self.judge_undo_stack
            .push(js.iter().map(|j| j.o_id.clone()).collect());
        for j in js {
            self.view.record_judgement(j);
        }
        self.refresh_items();
    }

    /// `judgements.jsonl` now holds an undo for `u.undo_judgement`.
    pub fn judgement_undo_saved(&mut self, u: JudgementUndo) {
        if let Some(pos) = self
            .judge_undo_stack
            .iter()
            .rposition(|group| group.contains(&u.undo_judgement))
        {
            let group = &mut self.judge_undo_stack[pos];
            group.retain(|o| *o != u.undo_judgement);
            if group.is_empty() {
                self.judge_undo_stack.remove(pos);
            }
        }
        let o_id = u.undo_judgement.clone();
        self.view.record_judgement_undo(u);
        let now = match self.view.judged(&o_id) {
            Some(j) => format!("a {} again", j.judgement.words()),
            None => "unjudged".to_string(),
        };
        self.notify(format!("judgement undone: {o_id} is {now}"));
        self.refresh_items();
    }
}
