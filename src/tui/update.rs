//! Turns keys into actions and actions into state changes plus effects.
//!
//! Nothing here touches the disk or the terminal: writing a decision, exporting or
//! running `$EDITOR` come back as [`Effect`]s that the driver performs, its outcome
//! coming back as a message to `msg::update`. That keeps every key sequence testable in
//! process, with a real session underneath only where the test wants one.

use super::action::Action;
use super::keymap::Key;
use super::line_edit::LineEdit;
use super::popups::{ConfirmQuit, Export, Help, Note};
use super::review::{bulk_targets, decision, edit_text, open_editor, selected_o_id};
use super::screens::{Ctx, Outcome, ScreenKind};
use super::search::{Target, jump};
use super::state::{App, InputTarget, LineInput, LiveState, Popup, StatusFilter};
use super::tasks::TaskKind;
use crate::model::{Decision, ReviewDecision, ReviewState};
use ratatui::crossterm::event::{KeyCode, KeyEvent, MouseEvent};
use std::path::PathBuf;

/// Work the driver must do on behalf of the state.
#[derive(Debug, Clone, PartialEq)]
pub enum Effect {
    /// Append the decision to the review journal (fsynced), then `App::decision_saved`.
    Record(ReviewDecision),
    /// Append decisions with one write and one fsync, then `App::decisions_saved` (a
    /// chunk of a bulk action; the rest waits in `App::bulk`).
    RecordBatch(Vec<ReviewDecision>),
    /// Append an undo of every decision of this step, then `App::step_undone`.
    UndoStep(String),
    /// Append a redo of this undone step, then `App::step_redone`.
    RedoStep(String),
    /// Append an equivalent-mutant mark (or its withdrawal) to `mutation/` and recompute
    /// the summary, then reload the session.
    MarkEquivalent {
        mutant: String,
        note: String,
        undo: bool,
    },
    /// Append a true / false positive judgement (fsynced), then `App::judgement_saved`.
    Judge(crate::store::Judgement),
    /// Append these judgements (a bulk judgement: one undo step).
    JudgeMany(Vec<crate::store::Judgement>),
    /// Append an undo of the latest judgement of this o_id, then
    /// `App::judgement_undo_saved`.
    UndoJudgement(String),
    /// Write the accepted and edited oracles in export format `format` to `dest`.
    Export { format: usize, dest: PathBuf },
    /// Open `text` in `$EDITOR`; the edited text goes to `App::external_edit_done`.
    ExternalEdit {
        o_id: String,
        multi: bool,
        text: String,
    },
    /// Run task `seq` (registered in `App::tasks`) doing `work`, in the background:
    /// the executor takes it, and its messages come back to `msg::update`.
    Start { seq: u64, work: super::tasks::Work },
    /// Read the session again after `after` changed it; then `note` on the status line
    /// (`Err`: as an error; `Ok("")`: nothing).
    Reload {
        after: String,
        note: Result<String, String>,
    },
    /// Journal the reviewer's edit of an operation's source context, then
    /// `App::context_edit_saved`.
    SaveContext(crate::model::SourceContext),
    /// Journal the withdrawal of this operation's context edit.
    WithdrawContextEdit(String),
    /// Journal the reviewer's pick of one side of `op_id`'s handler conflict.
    PickHandler {
        op_id: String,
        side: crate::store::HandlerSide,
    },
    /// Put `text` on the terminal's clipboard (OSC 52, which tmux and ssh pass on);
    /// `what` names it in the status line.
    Copy { text: String, what: String },
}

/// Handles one key press. In a read-only workbench nothing that would write to the
/// session leaves here, whatever key or popup produced it.
pub fn handle_key(app: &mut App, key: KeyEvent) -> Vec<Effect> {
    let mut effects = key_effects(app, key);
    if let Some(message) = app.read_only_message() {
        let before = effects.len();
        effects.retain(|e| match e {
            Effect::Export { .. } | Effect::Copy { .. } => true,
            // A task refused here never runs: out of the registry.
            Effect::Start { seq, .. } => {
                app.tasks.finish(*seq);
                false
            }
            _ => false,
        });
        if effects.len() != before {
            app.error(message);
        }
    }
    effects
}

/// Actions that write to the session (journal, records or verdicts).
fn writes_session(action: Action) -> bool {
    matches!(
        action,
        Action::Accept
            | Action::Reject
            | Action::Edit
            | Action::EditExternal
            | Action::Undo
            | Action::Redo
            | Action::TruePositive
            | Action::FalsePositive
            | Action::UndoJudgement
            | Action::BulkTruePositive
            | Action::BulkFalsePositive
            | Action::BulkAccept
            | Action::BulkReject
            | Action::Rerun
            | Action::RunOracles
            | Action::RunOne
            | Action::RunFailing
            | Action::PickStaticHandler
            | Action::PickDiscoveredHandler
            | Action::EditContext
            | Action::DropContextEdit
            | Action::RunMutate
            | Action::MarkEquivalent
            | Action::RegenerateSurvivor
            | Action::RegenerateSurvivors
    )
}

fn key_effects(app: &mut App, key: KeyEvent) -> Vec<Effect> {
    if app.bulk.is_some() {
        // A bulk decision is being written: Esc stops it, other keys wait.
        if key.code == KeyCode::Esc {
            app.cancel_bulk();
        }
        return Vec::new();
    }
    if let Some(effects) = super::popups::handle_key(app, key) {
        return effects;
    }
    if app.input.is_some() {
        line_input_key(app, key);
        return Vec::new();
    }
    let k = Key::from_event(&key);
    match app.keymap.lookup(app.active_sections(), k) {
        Some(action) => handle_action(app, action),
        None => Vec::new(),
    }
}

/// Handles a mouse event (only delivered when mouse support was asked for).
pub fn handle_mouse(app: &mut App, ev: MouseEvent) -> Vec<Effect> {
    super::mouse::handle(app, ev)
}

fn line_input_key(app: &mut App, key: KeyEvent) {
    let Some(input) = app.input.as_mut() else {
        return;
    };
    match app.keymap.lookup(&["popup"], Key::from_event(&key)) {
        Some(Action::Confirm) => app.input = None,
        Some(Action::Cancel) => {
            let target = input.target;
            app.input = None;
            apply_input(app, target, String::new());
        }
        _ => {
            if input.edit.input(key) {
                let (t, s) = (input.target, input.edit.text().to_string());
                apply_input(app, t, s);
            }
        }
    }
}

fn apply_input(app: &mut App, target: InputTarget, text: String) {
    match target {
        InputTarget::ListFilter => {
            app.search = text.clone();
            app.filters.text = text;
            app.refresh_lists();
        }
        InputTarget::ItemFilter => {
            app.search = text.clone();
            app.screen.state_mut().set_typed(target, text);
            app.refresh_items();
        }
        InputTarget::BundleSearch => app.screen.state_mut().set_typed(target, text),
    }
}

/// The text `/` starts from: what `target` filters or searches by now.
fn input_text(app: &App, target: InputTarget) -> String {
    app.screen
        .state()
        .typed(target)
        .unwrap_or_else(|| app.filters.text.clone())
}

/// Applies one action: review actions may return effects; filters and navigation change
/// the view only.
pub fn handle_action(app: &mut App, action: Action) -> Vec<Effect> {
    app.status = None;
    if writes_session(action)
        && let Some(message) = app.read_only_message()
    {
        app.error(message);
        return Vec::new();
    }
    if let Some(effects) = screen_action(app, action) {
        return effects;
    }
    if let Some(effects) = review_action(app, action) {
        return effects;
    }
    if !filter_action(app, action) {
        navigate(app, action);
    }
    Vec::new()
}

/// The screen on show's own actions (`ScreenState::handle`), given the screen's state
/// and what it reads of the rest; `None` when the screen leaves the action to the
/// common handling.
fn screen_action(app: &mut App, action: Action) -> Option<Vec<Effect>> {
    let App {
        screen,
        view,
        theme,
        status,
        popups,
        ..
    } = app;
    let mut ctx = Ctx {
        view,
        theme,
        status,
        popups,
    };
    match screen.state_mut().handle(action, &mut ctx) {
        Outcome::Done(effects) => Some(effects),
        Outcome::Ignored => None,
    }
}

/// Decisions, judgements, bulk actions, export and runs; `None` for other actions.
fn review_action(app: &mut App, action: Action) -> Option<Vec<Effect>> {
    match action {
        // The screens that have these handle them; elsewhere they say where to go.
        Action::MarkEquivalent => app.notify("no mutant selected"),
        Action::PickStaticHandler | Action::PickDiscoveredHandler => {
            app.notify("open an operation's Context tab to pick its handler")
        }
        Action::RegenerateSurvivor => return Some(super::survivors_job::request(app, false)),
        Action::RegenerateSurvivors => return Some(super::survivors_job::request(app, true)),
        Action::Accept => {
            if let Some(o_id) = selected_o_id(app) {
                return Some(vec![Effect::Record(decision(
                    o_id,
                    Decision::Accepted,
                    None,
                    None,
                ))]);
            }
        }
        Action::Reject => {
            if let Some(o_id) = selected_o_id(app) {
                app.popups.push(Popup::Note(Note::new(vec![o_id])));
            }
        }
        Action::Edit | Action::EditExternal => {
            if let Some((o_id, multi, text)) = edit_text(app) {
                if action == Action::EditExternal {
                    return Some(vec![Effect::ExternalEdit { o_id, multi, text }]);
                }
                open_editor(app, o_id, multi, &text, None);
            }
        }
        Action::Undo => return Some(super::undo::undo(app)),
        Action::Redo => return Some(super::undo::redo(app)),
        Action::TruePositive => return Some(super::judge::mark(app, crate::store::Positive::Tp)),
        Action::FalsePositive => return Some(super::judge::mark(app, crate::store::Positive::Fp)),
        Action::UndoJudgement => return Some(super::judge::undo(app)),
        Action::BulkTruePositive => {
            let targets = bulk_targets(app);
            super::judge::mark_all(app, targets, crate::store::Positive::Tp);
        }
        Action::BulkFalsePositive => {
            let targets = bulk_targets(app);
            super::judge::mark_all(app, targets, crate::store::Positive::Fp);
        }
        Action::CycleJudged => super::judge::cycle_filter(app),
        Action::BulkAccept | Action::BulkReject => {
            let o_ids = bulk_targets(app);
            if o_ids.is_empty() {
                app.notify("no oracles in the filtered list");
            } else {
                let accept = action == Action::BulkAccept;
                app.popups.push(Popup::Note(Note::bulk(accept, o_ids)));
            }
        }
        Action::Export => {
            let dest = app.view.dir.join("export");
            let dest = dest.display().to_string();
            app.popups.push(Popup::Export(Export::new(dest)));
        }
        Action::Rerun => return Some(super::jobs::open_rerun_popup(app)),
        Action::RunOracles => super::jobs::open_run_popup(app),
        Action::RunMutate => super::popups::open_mutate_popup(app),
        Action::CycleMutation => super::filters::cycle_mutation(app),
        Action::CycleVerdict => super::filters::cycle_verdict(app),
        Action::EditContext => {
            app.notify("open an operation's Context tab to edit its source context")
        }
        Action::DropContextEdit => {
            app.notify("open an operation's Context tab to drop its context edit")
        }
        Action::ShowFailure => super::failure::open(app),
        Action::CopyCurl | Action::CopyBody => {
            return Some(super::failure::copy(app, action == Action::CopyCurl));
        }
        Action::RunOne => return Some(super::jobs::run_again(app, false)),
        Action::RunFailing => return Some(super::jobs::run_again(app, true)),
        _ => return None,
    }
    Some(Vec::new())
}

/// The list filters and sort order; false for other actions.
fn filter_action(app: &mut App, action: Action) -> bool {
    match action {
        Action::Filter => {
            let target = app.screen.state().filter_target();
            let text = input_text(app, target);
            app.input = Some(LineInput {
                target,
                edit: LineEdit::new(text),
            });
        }
        Action::ClearFilter => {
            app.filters = Default::default();
            app.search.clear();
            app.screen.state_mut().clear_filters();
            app.refresh_lists();
            app.notify("filters cleared");
        }
        Action::CycleSort => {
            app.sort = app.sort.next();
            app.refresh_lists();
            app.notify(format!("sorted by {}", app.sort.label()));
        }
        Action::CycleMethod => {
            let mut methods: Vec<String> = app.view.ops.iter().map(|o| o.method.clone()).collect();
            methods.sort();
            methods.dedup();
            app.filters.method = cycle(&methods, app.filters.method.as_ref());
            app.refresh_lists();
        }
        Action::CycleStatus => {
            let all = [
                StatusFilter::Running,
                StatusFilter::Failed,
                StatusFilter::Done,
                StatusFilter::Queued,
            ];
            app.filters.status = cycle(&all, app.filters.status.as_ref());
            app.refresh_lists();
        }
        Action::CycleState => {
            let all = [
                ReviewState::Proposed,
                ReviewState::Accepted,
                ReviewState::Edited,
                ReviewState::Rejected,
                ReviewState::Dropped,
            ];
            app.filters.state = cycle(&all, app.filters.state.as_ref());
            app.refresh_lists();
        }
        _ => return false,
    }
    true
}

/// Moving between screens, tabs, items, evidence refs and scroll positions.
fn navigate(app: &mut App, action: Action) {
    match action {
        Action::Quit if app.live() == LiveState::Running => {
            app.popups.push(Popup::ConfirmQuit(ConfirmQuit))
        }
        // The analysis's API servers run in their own process groups and are stopped
        // by the run itself: leaving now would leave them running.
        Action::Quit if app.tasks.get(TaskKind::Mutate).is_some() => app.error(
            "a mutation analysis is running: wait for it to end (its API servers stop with it)",
        ),
        Action::Quit => app.quit = true,
        Action::Help => app.popups.push(Popup::Help(Help::default())),
        Action::Back => back(app),
        Action::Open => open(app),
        Action::Up => move_cursor(app, -1),
        Action::Down => move_cursor(app, 1),
        Action::PageUp => move_cursor(app, -(app.page as i64)),
        Action::PageDown => move_cursor(app, app.page as i64),
        Action::Top => move_cursor(app, i64::MIN / 2),
        Action::Bottom => move_cursor(app, i64::MAX / 2),
        Action::Show(kind) => show_screen(app, kind),
        Action::NextRef | Action::PrevRef
            if !app.search.is_empty() && app.screen.state().has_oracle_pane() =>
        {
            jump(app, Target::Match, action == Action::NextRef)
        }
        Action::NextRef | Action::PrevRef => next_ref(app, action == Action::NextRef),
        Action::NextMatch | Action::PrevMatch => {
            jump(app, Target::Match, action == Action::NextMatch)
        }
        Action::NextToReview | Action::PrevToReview => {
            jump(app, Target::ToReview, action == Action::NextToReview)
        }
        Action::NextFailing | Action::PrevFailing => {
            jump(app, Target::Failing, action == Action::NextFailing)
        }
        Action::ShowModelInput => app.notify("open an operation to see what the model saw for it"),
        Action::WholeFile => {
            app.whole_file = !app.whole_file;
            scroll_detail(app, None);
        }
        Action::WrapSource => {
            app.source_wrap = !app.source_wrap;
            app.notify(if app.source_wrap {
                "source lines wrap"
            } else {
                "source lines are cut at the pane's edge"
            });
        }
        Action::ZoomSource => {
            app.source_zoom = !app.source_zoom;
            if app.source_zoom && app.source_target().is_none() {
                app.source_zoom = false;
                app.notify("no source to zoom: the oracle has no evidence reference");
            }
        }
        Action::ScrollDown => scroll_detail(app, Some(5)),
        Action::ScrollUp => scroll_detail(app, Some(-5)),
        Action::ScrollDetailDown => scroll_pane(app, 5),
        Action::ScrollDetailUp => scroll_pane(app, -5),
        // Popup keys: the popup layers handle them, a screen has no use for them.
        Action::Yes
        | Action::No
        | Action::Confirm
        | Action::Cancel
        | Action::Save
        | Action::NextFormat => {}

        _ => {}
    }
}

/// A header key: back to its screen as it was left when it is still on the stack (the
/// operations list always is, the groups list under a group), else a fresh one.
fn show_screen(app: &mut App, kind: ScreenKind) {
    if !app.back_to(|s| s.kind() == kind) {
        let screen = kind.fresh(&app.view);
        app.show(screen);
    }
    app.refresh_lists();
}

/// Scrolls the detail or source pane by `by` lines (`None`: back to its start).
fn scroll_detail(app: &mut App, by: Option<i64>) {
    if let Some(d) = app.screen.state_mut().detail_mut() {
        d.scroll = by.map_or(0, |n| d.scroll + n);
    }
}

/// Scrolls the oracle pane where there is one, else the screen's text body.
fn scroll_pane(app: &mut App, by: i64) {
    let pane = app.screen.state().has_oracle_pane();
    if let Some(d) = app.screen.state_mut().detail_mut() {
        if pane {
            d.pane = (d.pane + by).max(0);
        } else {
            d.scroll += by;
        }
    }
}

/// The next (or previous) evidence ref of the selected item (the Bundle tab's next
/// search match is the operation screen's own).
fn next_ref(app: &mut App, forward: bool) {
    let Some(item) = app.selected_item() else {
        return;
    };
    let n = app.evidence_refs(item).len();
    if let Some(d) = app.screen.state_mut().detail_mut()
        && n > 0
    {
        d.ref_idx = if forward {
            (d.ref_idx + 1) % n
        } else {
            (d.ref_idx + n - 1) % n
        };
        d.scroll = 0;
    }
}

fn cycle<T: Clone + PartialEq>(all: &[T], current: Option<&T>) -> Option<T> {
    match current.and_then(|c| all.iter().position(|x| x == c)) {
        None => all.first().cloned(),
        Some(i) => all.get(i + 1).cloned(),
    }
}

/// Back to the screen below; on the operations list, clears its filters.
fn back(app: &mut App) {
    if !app.back() && !app.filters.is_empty() {
        app.filters = Default::default();
        app.refresh_lists();
        app.notify("filters cleared");
    }
}

/// Enters what the cursor is on (an operation, a group).
fn open(app: &mut App) {
    if let Some(screen) = app.screen.state().open(&app.view, &app.visible_ops) {
        app.cover(screen);
    }
}

fn move_cursor(app: &mut App, delta: i64) {
    let App {
        screen,
        view,
        visible_ops,
        ..
    } = app;
    screen.state_mut().move_cursor(view, visible_ops, delta);
}
