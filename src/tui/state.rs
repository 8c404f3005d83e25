//! The workbench's UI state: the screen on show and those it covers (each holding its
//! own cursors and scroll, see `screens`), the session-wide filters and sort order, and
//! which popups are open. Plain data plus pure queries over it (visible rows, selection).
//!
//! Key handling lives in `update`, drawing in `ui`; this module changes nothing by
//! itself except through the small helpers that keep selections in range.

pub use super::filters::{Filters, SortKey, StatusFilter, op_has_status};
use super::highlight::Highlighter;
use super::keymap::Keymap;
pub use super::popups::Popup;
pub use super::screens::{
    CostsScreen, Detail, GroupScreen, GroupsScreen, ItemList, ItemSource, MetamorphicScreen,
    OperationScreen, OperationsScreen, Screen, ScreenKind, ScreenState, Tab,
};
use super::theme::Theme;
use super::view::{OpView, SessionView};
use crate::model::{EvidenceRef, ReviewState};
use crate::store::LockHolder;
use chrono::{DateTime, Utc};

/// What a text being typed will become.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InputTarget {
    /// Operations (or groups) list filter.
    ListFilter,
    /// Oracle list text filter on the operation / group screen.
    ItemFilter,
    /// Search in the Bundle tab.
    BundleSearch,
}

/// A single-line text being typed (filters, search).
#[derive(Debug, Clone, PartialEq)]
pub struct LineInput {
    /// What the text filters or searches.
    pub target: InputTarget,
    /// The text and its cursor.
    pub edit: super::line_edit::LineEdit,
}

/// One reviewable item of the current list.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ItemRef {
    /// Oracle `oracle` of operation `op`.
    Single { op: usize, oracle: usize },
    /// Multi-op oracle `oracle` of group `group`.
    Multi { group: usize, oracle: usize },
    /// Metamorphic test `test` (index into `SessionView::metamorphic`).
    Meta { test: usize },
}

/// Review and verdict counts of one operation (or of the whole session), cached so
/// a frame never walks every oracle.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct OpCounts {
    /// Proposed, accepted, edited, rejected.
    pub states: [usize; 5],
    pub pass: usize,
    pub fail: usize,
    pub error: usize,
}

/// Position of a review state in `OpCounts::states`.
pub fn state_index(s: ReviewState) -> usize {
    match s {
        ReviewState::Proposed => 0,
        ReviewState::Accepted => 1,
        ReviewState::Edited => 2,
        ReviewState::Rejected => 3,
        ReviewState::Dropped => 4,
    }
}

fn count_op(view: &SessionView, op: &OpView) -> OpCounts {
    let mut c = OpCounts::default();
    for o in &op.oracles {
        let id = o.o_id();
        c.states[state_index(view.review_state(&id))] += 1;
        // A stale verdict counts nowhere: it no longer says anything of the oracle.
        use super::verdict_mark::VerdictMark;
        match view.verdict_mark(&id) {
            Some(VerdictMark::Pass) => c.pass += 1,
            Some(VerdictMark::Fail) => c.fail += 1,
            Some(VerdictMark::Error) => c.error += 1,
            _ => {}
        }
    }
    c
}

/// The whole UI state.
pub struct App {
    pub view: SessionView,
    pub keymap: Keymap,
    pub theme: Theme,
    /// The screen on show, with its own state.
    pub screen: Screen,
    /// Screens it covers, bottom first: the operations list, then (under a group) the
    /// groups list. `back` uncovers the top one as it was left.
    pub behind: Vec<Screen>,
    pub filters: Filters,
    pub sort: SortKey,
    /// Indices into `view.ops`, filtered and sorted.
    pub visible_ops: Vec<usize>,
    /// Per operation (same index as `view.ops`) review and verdict counts.
    pub counts: Vec<OpCounts>,
    /// Session-wide counts.
    pub total_counts: OpCounts,
    /// Source pane shows the whole file rather than an excerpt: a display preference
    /// that holds on every screen until toggled.
    pub whole_file: bool,
    /// The source pane wraps long lines (else it cuts them).
    pub source_wrap: bool,
    /// The source pane takes the whole width of the Oracles tab / group screen.
    pub source_zoom: bool,
    pub input: Option<LineInput>,
    /// The session-wide search: the last text typed with `/` (oracle content, not only
    /// method and path), which `n` / `N` jump between across operations.
    pub search: String,
    pub popups: Vec<Popup>,
    // Review undo / redo has no field: both stacks are replayed from the journal
    // (`view.journal`, see `store::replay_steps`), so they survive a relaunch.
    /// o_ids judged true / false positive in this run, most recent last: judgements
    /// keep their own stack (`undo_judgement`), apart from the review undo / redo.
    pub judge_undo_stack: Vec<Vec<String>>,
    /// A bulk decision still being written in chunks (progress in the footer; Esc stops).
    pub bulk: Option<super::review::BulkJob>,
    /// One-line message for the footer; `true` marks an error.
    pub status: Option<(String, bool)>,
    pub tick: u64,
    /// "Now" for elapsed times; the driver advances it, tests pin it.
    pub now: DateTime<Utc>,
    pub highlighter: Highlighter,
    /// Last known body height of list panes (for page up / down).
    pub page: usize,
    pub mouse: bool,
    /// `a` / `r` move on to the next oracle still to review (`[review] advance`).
    pub advance: bool,
    /// Where the last frame drew what a click can hit.
    pub hits: super::mouse::HitMap,
    pub quit: bool,
    /// How the last pipeline run (live mode's, or a re-run) ended (`Off`: none
    /// ended); whether one runs is the registry's business, see [`App::live`].
    pub run_end: LiveState,
    /// The background tasks in flight (`tasks`): the only record of what runs.
    pub tasks: super::tasks::Tasks,
    /// Remembered settings of background work (base URL, reset command).
    pub jobs: JobState,
    /// Set when another process holds the session's writer lock: the workbench shows
    /// the session but refuses every action that would write to it.
    pub read_only: Option<LockHolder>,
}

/// What background work remembers between runs (what runs is in `App::tasks`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct JobState {
    /// Base URL given on the command line (`--api-url`, else `MASTOR_API_URL`).
    pub api_url: Option<String>,
    /// Base URL of the last oracle run started here.
    pub last_api_url: Option<String>,
    /// Reset command of the last oracle run started here (remembered in `tui.json`).
    pub last_reset: Option<String>,
}

/// The run a live workbench watches, as far as the screen needs to know.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum LiveState {
    /// Review mode: no run attached.
    #[default]
    Off,
    /// A pipeline run is registered (`TaskKind::Run` or `Rerun`); quitting asks first.
    Running,
    /// The run ended and the session was reloaded from disk.
    Finished,
    /// The run ended with an error (the reason), the session reloaded as it stands.
    Failed(String),
}

impl App {
    /// A fresh workbench on `view`.
    pub fn new(view: SessionView, keymap: Keymap, theme: Theme) -> App {
        let highlighter = Highlighter::new(&theme.syntax);
        let mut app = App {
            view,
            keymap,
            theme,
            screen: Screen::Operations(OperationsScreen::default()),
            behind: Vec::new(),
            filters: Filters::default(),
            sort: SortKey::Session,
            visible_ops: Vec::new(),
            counts: Vec::new(),
            total_counts: OpCounts::default(),
            whole_file: false,
            source_wrap: false,
            source_zoom: false,
            input: None,
            search: String::new(),
            popups: Vec::new(),
            judge_undo_stack: Vec::new(),
            bulk: None,
            status: None,
            tick: 0,
            now: Utc::now(),
            highlighter,
            page: 10,
            mouse: false,
            advance: true,
            hits: Default::default(),
            quit: false,
            run_end: LiveState::Off,
            tasks: Default::default(),
            jobs: JobState::default(),
            read_only: None,
        };
        // A metamorphic-only session (`mastor metamorphic`) has nothing else to review.
        if app.view.ops.is_empty() && !app.view.metamorphic.is_empty() {
            app.cover(Screen::Metamorphic(MetamorphicScreen::default()));
        }
        app.refresh_lists();
        app
    }

    /// Where the pipeline run on screen stands: running while the registry holds a run
    /// or a re-run, else how the last one ended.
    pub fn live(&self) -> LiveState {
        if self.tasks.any(super::tasks::TaskKind::is_pipeline) {
            LiveState::Running
        } else {
            self.run_end.clone()
        }
    }

    /// Recomputes the visible rows after a filter, sort or data change, keeping the
    /// cursors in range.
    pub fn refresh_lists(&mut self) {
        let view = &self.view;
        self.counts = view.ops.iter().map(|op| count_op(view, op)).collect();
        let mut total = OpCounts::default();
        for c in &self.counts {
            for (t, n) in total.states.iter_mut().zip(c.states) {
                *t += n;
            }
            total.pass += c.pass;
            total.fail += c.fail;
            total.error += c.error;
        }
        self.total_counts = total;
        let counts = &self.counts;
        let f = &self.filters;
        let text = f.text.to_lowercase();
        let mut ops: Vec<usize> = (0..view.ops.len())
            .filter(|&i| {
                let op = &view.ops[i];
                (text.is_empty()
                    || op.op_id.to_lowercase().contains(&text)
                    || op
                        .summary
                        .as_ref()
                        .is_some_and(|s| s.to_lowercase().contains(&text))
                    || super::search::op_has_match(view, i, &text))
                    && f.method.as_ref().is_none_or(|m| &op.method == m)
                    && f.status.is_none_or(|s| op_has_status(op, s))
                    && f.state.is_none_or(|s| counts[i].states[state_index(s)] > 0)
                    && f.verdict
                        .is_none_or(|v| op.oracles.iter().any(|o| v.keeps(view, &o.o_id())))
            })
            .collect();
        match self.sort {
            SortKey::Session => {}
            SortKey::Path => ops.sort_by(|a, b| {
                (&view.ops[*a].path, &view.ops[*a].method)
                    .cmp(&(&view.ops[*b].path, &view.ops[*b].method))
            }),
            SortKey::Method => ops.sort_by(|a, b| {
                (&view.ops[*a].method, &view.ops[*a].path)
                    .cmp(&(&view.ops[*b].method, &view.ops[*b].path))
            }),
            SortKey::Pending => ops.sort_by_key(|i| std::cmp::Reverse(counts[*i].states[0])),
            SortKey::Failing => {
                ops.sort_by_key(|i| std::cmp::Reverse(counts[*i].fail + counts[*i].error))
            }
            SortKey::Cost => ops.sort_by(|a, b| {
                view.ops[*b]
                    .usage
                    .cost_usd
                    .total_cmp(&view.ops[*a].usage.cost_usd)
            }),
        }
        self.visible_ops = ops;
        let n = self.visible_ops.len();
        if let Some(list) = self.operations_mut() {
            list.cursor = clamp(list.cursor, n);
        }
        self.refresh_items();
    }

    /// Recomputes the oracle list of the screen on show (if it has one), keeping its
    /// cursor in range.
    pub fn refresh_items(&mut self) {
        self.refresh_mutants();
        let Some(list) = self.screen.state().item_list() else {
            return;
        };
        let visible = visible_items(&self.view, &self.filters, list.source, &list.filter);
        if let Some(list) = self.screen.state_mut().item_list_mut() {
            list.visible = visible;
            list.cursor = clamp(list.cursor, list.visible.len());
        }
    }

    /// The oracles of operation `op` its Oracles tab would list now: the session-wide
    /// filters and the search.
    pub fn op_items(&self, op: usize) -> Vec<ItemRef> {
        visible_items(&self.view, &self.filters, ItemSource::Op(op), &self.search)
    }

    /// The operation under the cursor of the operations list.
    pub fn selected_op(&self) -> Option<usize> {
        let cursor = self.operations()?.cursor;
        self.visible_ops.get(cursor).copied()
    }

    /// The reviewable item under the cursor, on the screens that have one.
    pub fn selected_item(&self) -> Option<ItemRef> {
        self.screen.state().reviewing()?.selected()
    }

    /// The items of the list on show (empty on screens without one).
    pub fn visible_items(&self) -> &[ItemRef] {
        self.screen
            .state()
            .item_list()
            .map_or(&[], |l| l.visible.as_slice())
    }

    /// The operation the screen on show is about (the operation screen's).
    pub fn current_op(&self) -> Option<usize> {
        self.operation().map(|s| s.op)
    }

    /// Review id of an item.
    pub fn o_id(&self, item: ItemRef) -> Option<String> {
        match item {
            ItemRef::Single { op, oracle } => {
                Some(self.view.ops.get(op)?.oracles.get(oracle)?.o_id())
            }
            ItemRef::Multi { group, oracle } => {
                Some(self.view.groups.get(group)?.oracles.get(oracle)?.o_id())
            }
            ItemRef::Meta { test } => Some(self.view.metamorphic.get(test)?.o_id()),
        }
    }

    /// Evidence refs of an item as the reviewer left it (edited version if any).
    pub fn evidence_refs(&self, item: ItemRef) -> Vec<EvidenceRef> {
        evidence_refs(&self.view, item)
    }

    /// The file and line range the source pane shows for the current selection (the
    /// screen on show decides: `ScreenState::source_target`).
    pub fn source_target(&self) -> Option<EvidenceRef> {
        self.screen.state().source_target(&self.view)
    }

    /// First line of `file` containing `search` (the bundle search), if any.
    pub fn bundle_match_line(&self, file: &str, search: &str) -> Option<usize> {
        super::screens::bundle_match_line(&self.view, file, search)
    }

    /// Keymap sections active on the current screen, most specific first.
    pub fn active_sections(&self) -> &'static [&'static str] {
        self.screen.state().sections()
    }

    /// Prepares what the next frame needs that costs work (syntax highlighting), so
    /// drawing stays free of parsing. Latest selection wins: only the shown file is done.
    pub fn prepare_frame(&mut self) {
        if let Some(target) = self.source_target()
            && let Some(src) = self.view.sources.get(&target.file)
        {
            self.highlighter.ensure(&target.file, &src.lines);
        }
    }

    /// Sets the footer message.
    pub fn notify(&mut self, text: impl Into<String>) {
        self.status = Some((text.into(), false));
    }

    /// The message review actions get in a read-only workbench, `None` when writable.
    pub fn read_only_message(&self) -> Option<String> {
        self.read_only.as_ref().map(|h| {
            format!(
                "read-only: session locked by pid {} ({}); close it to review here",
                h.pid, h.command
            )
        })
    }

    /// Sets the footer error message.
    pub fn error(&mut self, text: impl Into<String>) {
        self.status = Some((text.into(), true));
    }
}

/// Evidence refs of an item as the reviewer left it (edited version if any).
pub fn evidence_refs(view: &SessionView, item: ItemRef) -> Vec<EvidenceRef> {
    match item {
        ItemRef::Single { op, oracle } => view
            .ops
            .get(op)
            .and_then(|o| o.oracles.get(oracle))
            .map(|o| view.effective_oracle(o).evidence_refs)
            .unwrap_or_default(),
        ItemRef::Multi { group, oracle } => view
            .groups
            .get(group)
            .and_then(|g| g.oracles.get(oracle))
            .map(|o| view.effective_multi(o).evidence_refs)
            .unwrap_or_default(),
        ItemRef::Meta { .. } => Vec::new(),
    }
}

/// The items of `source` passing the session-wide state and judgement filters and the
/// list's own text filter.
fn visible_items(
    view: &SessionView,
    filters: &Filters,
    source: ItemSource,
    text: &str,
) -> Vec<ItemRef> {
    let text = text.to_lowercase();
    let keep = |o_id: &str, item: ItemRef| {
        filters.state.is_none_or(|s| view.review_state(o_id) == s)
            && filters.judged.is_none_or(|f| view.judged_as(o_id, f))
            && filters
                .mutation
                .is_none_or(|f| view.mutation.as_ref().is_some_and(|m| f.keeps(m, o_id)))
            && filters.verdict.is_none_or(|f| f.keeps(view, o_id))
            && super::search::item_matches(view, item, &text)
    };
    match source {
        ItemSource::Group(group) => view.groups.get(group).map_or_else(Vec::new, |g| {
            g.oracles
                .iter()
                .enumerate()
                .filter(|(oracle, o)| {
                    keep(
                        &o.o_id(),
                        ItemRef::Multi {
                            group,
                            oracle: *oracle,
                        },
                    )
                })
                .map(|(oracle, _)| ItemRef::Multi { group, oracle })
                .collect()
        }),
        ItemSource::Metamorphic => view
            .metamorphic
            .iter()
            .enumerate()
            .filter(|(test, t)| keep(&t.o_id(), ItemRef::Meta { test: *test }))
            .map(|(test, _)| ItemRef::Meta { test })
            .collect(),
        ItemSource::Op(op) => view.ops.get(op).map_or_else(Vec::new, |o| {
            o.oracles
                .iter()
                .enumerate()
                .filter(|(oracle, o)| {
                    keep(
                        &o.o_id(),
                        ItemRef::Single {
                            op,
                            oracle: *oracle,
                        },
                    )
                })
                .map(|(oracle, _)| ItemRef::Single { op, oracle })
                .collect()
        }),
    }
}

/// Keeps a cursor inside a list of `len` rows.
pub fn clamp(cursor: usize, len: usize) -> usize {
    cursor.min(len.saturating_sub(1))
}
