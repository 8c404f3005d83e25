//! One operation's screen: a tab bar (Context, Pending, Oracles, Hints, Bundle, Calls)
//! and the state of every tab, built when the operation is opened.

use super::{
    Ctx, Detail, HeaderTab, ItemList, ItemSource, Outcome, ScreenKind, ScreenState, ScreenType,
    step,
};
use crate::model::EvidenceRef;
use crate::tui::action::Action;
use crate::tui::state::{App, InputTarget};
use crate::tui::update::Effect;
use crate::tui::view::SessionView;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;

/// Tabs of the operation screen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tab {
    Context,
    Pending,
    Oracles,
    Hints,
    Bundle,
    Calls,
}

impl Tab {
    /// Every tab, in tab-bar order.
    pub const ALL: [Tab; 6] = [
        Tab::Context,
        Tab::Pending,
        Tab::Oracles,
        Tab::Hints,
        Tab::Bundle,
        Tab::Calls,
    ];

    /// The tab bar's label.
    pub fn title(self) -> &'static str {
        match self {
            Tab::Context => "Context",
            Tab::Pending => "Unverified claims",
            Tab::Oracles => "Oracles",
            Tab::Hints => "Hints",
            Tab::Bundle => "Bundle",
            Tab::Calls => "Calls",
        }
    }
}

/// The operation screen's own state.
#[derive(Debug, Clone, PartialEq)]
pub struct OperationScreen {
    /// Index into `SessionView::ops`.
    pub op: usize,
    /// The tab on show.
    pub tab: Tab,
    /// The Oracles tab's list.
    pub items: ItemList,
    /// Evidence ref and scroll of the source pane (or of a text tab).
    pub detail: Detail,
    /// File of the Bundle tab under the cursor.
    pub bundle_cursor: usize,
    /// Search text of the Bundle tab.
    pub bundle_search: String,
    /// Call of the Calls tab under the cursor.
    pub calls_cursor: usize,
}

impl OperationScreen {
    /// The screen of operation `op`, on the Oracles tab, its list still to be filled
    /// (`App::show` does).
    pub fn new(op: usize) -> OperationScreen {
        OperationScreen {
            op,
            tab: Tab::Oracles,
            items: ItemList::new(ItemSource::Op(op)),
            detail: Detail::default(),
            bundle_cursor: 0,
            bundle_search: String::new(),
            calls_cursor: 0,
        }
    }

    /// Moves to the next (or previous) tab, with the source pane back at its start.
    pub fn cycle_tab(&mut self, forward: bool) {
        let i = Tab::ALL.iter().position(|t| *t == self.tab).unwrap_or(0);
        let n = Tab::ALL.len();
        let next = if forward { i + 1 } else { i + n - 1 };
        self.tab = Tab::ALL[next % n];
        self.detail = Detail::default();
    }
}

impl ScreenType for OperationScreen {
    const TAB: Option<HeaderTab> = None;
    const SECTIONS: &'static [&'static str] = &["context", "operation"];

    fn fresh(_view: &SessionView) -> Self {
        OperationScreen::new(0)
    }
}

impl ScreenState for OperationScreen {
    fn sections(&self) -> &'static [&'static str] {
        if self.tab == Tab::Oracles {
            &["operation", "review", "list", "global"]
        } else if self.tab == Tab::Context {
            &["context", "operation", "list", "global"]
        } else {
            &["operation", "list", "global"]
        }
    }

    fn hints(&self) -> &'static [Action] {
        if self.tab == Tab::Context {
            return &[
                Action::EditContext,
                Action::DropContextEdit,
                Action::ShowModelInput,
                Action::Rerun,
                Action::ScrollDown,
                Action::NextTab,
                Action::Back,
                Action::Help,
            ];
        }
        if self.tab != Tab::Oracles {
            return &[
                Action::Down,
                Action::Up,
                Action::ScrollDown,
                Action::Filter,
                Action::NextTab,
                Action::Back,
                Action::Help,
                Action::Rerun,
                Action::ShowModelInput,
            ];
        }
        &[
            Action::Accept,
            Action::Reject,
            Action::Edit,
            Action::Undo,
            Action::NextRef,
            Action::WholeFile,
            Action::WrapSource,
            Action::ZoomSource,
            Action::NextTab,
            Action::Back,
            Action::Help,
            Action::Rerun,
        ]
    }

    fn shown_by(&self) -> Option<ScreenKind> {
        Some(ScreenKind::Operations)
    }

    fn draw(&self, app: &App, area: Rect, buf: &mut Buffer) {
        crate::tui::ui::draw_operation(app, self, area, buf);
    }

    fn handle(&mut self, action: Action, ctx: &mut Ctx) -> Outcome {
        match action {
            Action::NextTab | Action::PrevTab => self.cycle_tab(action == Action::NextTab),
            Action::NextRef | Action::PrevRef if self.tab == Tab::Bundle => {
                self.next_bundle_match(ctx, action == Action::NextRef)
            }
            Action::ShowModelInput => self.show_model_input(ctx),
            Action::PickStaticHandler | Action::PickDiscoveredHandler
                if self.tab == Tab::Context =>
            {
                return Outcome::Done(self.pick_handler(ctx, action == Action::PickStaticHandler));
            }
            Action::EditContext if self.tab == Tab::Context => {
                crate::tui::context_edit::open(self.op, ctx)
            }
            Action::DropContextEdit if self.tab == Tab::Context => {
                return Outcome::Done(crate::tui::context_edit::drop_edit(self.op, ctx));
            }
            _ => return Outcome::Ignored,
        }
        Outcome::Done(Vec::new())
    }

    fn move_cursor(&mut self, view: &SessionView, _visible_ops: &[usize], delta: i64) {
        let op = view.ops.get(self.op);
        match self.tab {
            Tab::Oracles => self.items.step(delta),
            Tab::Bundle => {
                let n = op.map_or(0, |o| o.bundle.len());
                self.bundle_cursor = step(self.bundle_cursor, n, delta);
            }
            Tab::Calls => {
                let n = op.map_or(0, |o| o.calls.len());
                self.calls_cursor = step(self.calls_cursor, n, delta);
            }
            Tab::Context | Tab::Pending | Tab::Hints => {
                // Text tabs have no rows: the keys scroll the text.
                self.detail.scroll = (self.detail.scroll + delta.clamp(-1000, 1000)).max(0);
                return;
            }
        }
        self.detail = Detail::default();
    }

    fn current_row(&self) -> Option<usize> {
        Some(match self.tab {
            Tab::Bundle => self.bundle_cursor,
            Tab::Calls => self.calls_cursor,
            _ => self.items.cursor,
        })
    }

    fn select_tab(&mut self, tab: Tab) {
        self.tab = tab;
        self.detail = Detail::default();
    }

    fn item_list(&self) -> Option<&ItemList> {
        Some(&self.items)
    }

    fn item_list_mut(&mut self) -> Option<&mut ItemList> {
        Some(&mut self.items)
    }

    fn reviewing(&self) -> Option<&ItemList> {
        (self.tab == Tab::Oracles).then_some(&self.items)
    }

    fn has_oracle_pane(&self) -> bool {
        self.tab == Tab::Oracles
    }

    /// The Bundle tab shows the file under its cursor, at the first line matching the
    /// bundle search.
    fn source_target(&self, view: &SessionView) -> Option<EvidenceRef> {
        if self.tab != Tab::Bundle {
            let item = self.reviewing()?.selected()?;
            return super::evidence_target(view, item, self.detail.ref_idx);
        }
        let file = view.ops.get(self.op)?.bundle.get(self.bundle_cursor)?;
        let line = bundle_match_line(view, file, &self.bundle_search).unwrap_or(1);
        Some(EvidenceRef {
            file: file.clone(),
            start_line: line,
            end_line: line,
        })
    }

    fn detail(&self) -> Detail {
        self.detail
    }

    fn detail_mut(&mut self) -> Option<&mut Detail> {
        Some(&mut self.detail)
    }

    fn filter_target(&self) -> InputTarget {
        if self.tab == Tab::Bundle {
            InputTarget::BundleSearch
        } else {
            InputTarget::ItemFilter
        }
    }

    fn typed(&self, target: InputTarget) -> Option<String> {
        match target {
            InputTarget::ItemFilter => Some(self.items.filter.clone()),
            InputTarget::BundleSearch => Some(self.bundle_search.clone()),
            InputTarget::ListFilter => None,
        }
    }

    fn set_typed(&mut self, target: InputTarget, text: String) {
        match target {
            InputTarget::ItemFilter => self.items.filter = text,
            InputTarget::BundleSearch => self.bundle_search = text,
            InputTarget::ListFilter => {}
        }
    }

    fn clear_filters(&mut self) {
        self.items.filter.clear();
        self.bundle_search.clear();
    }
}

/// The operation screen's own actions.
impl OperationScreen {
    /// `show_model_input`: the Calls tab on the latest extraction call of the
    /// operation, whose prompt carries the bundle as it was sent (files and the lines
    /// kept) and whose raw answer is what the context was read from.
    fn show_model_input(&mut self, ctx: &mut Ctx) {
        let Some(op) = ctx.view.ops.get(self.op) else {
            return;
        };
        let extraction = crate::agents::Agent::Extraction.name();
        let found = op
            .calls
            .iter()
            .rposition(|&c| ctx.view.calls.get(c).is_some_and(|c| c.agent == extraction));
        let Some(row) = found else {
            let why = format!(
                "{}: no extraction call is recorded (an imported suite, or a context from an \
                 older run whose calls/ were removed)",
                op.op_id
            );
            ctx.notify(why);
            return;
        };
        let id = ctx.view.calls[op.calls[row]].id.clone();
        self.tab = Tab::Calls;
        self.calls_cursor = row;
        self.detail = Detail::default();
        ctx.notify(format!(
            "call {id}: the prompt with the bundle as sent, then the raw answer (J / K scroll)"
        ));
    }

    /// In the Bundle tab, moves to the next (or previous) file containing the search
    /// text.
    fn next_bundle_match(&mut self, ctx: &mut Ctx, forward: bool) {
        let Some(op) = ctx.view.ops.get(self.op) else {
            return;
        };
        let (search, cursor) = (&self.bundle_search, self.bundle_cursor);
        let n = op.bundle.len();
        if n == 0 || search.is_empty() {
            ctx.notify("type / to search the bundle first");
            return;
        }
        let found = (1..=n)
            .map(|k| {
                if forward {
                    (cursor + k) % n
                } else {
                    (cursor + n * 2 - k) % n
                }
            })
            .find(|&i| bundle_match_line(ctx.view, &op.bundle[i], search).is_some());
        match found {
            Some(i) => {
                self.bundle_cursor = i;
                self.detail.scroll = 0;
            }
            None => {
                let why = format!("no bundle file contains `{search}`");
                ctx.notify(why);
            }
        }
    }

    /// The `pick_*_handler` actions on the Context tab: which side of the operation's
    /// handler conflict serves it from the next run on.
    fn pick_handler(&self, ctx: &mut Ctx, scan: bool) -> Vec<Effect> {
        let Some(op_id) = ctx.view.ops.get(self.op).map(|o| o.op_id.clone()) else {
            ctx.notify("open an operation's Context tab to pick its handler");
            return Vec::new();
        };
        if !ctx.view.conflicts.contains_key(&op_id) {
            ctx.notify(format!(
                "{op_id}: the scan and the model agree on its handler (no conflict to settle)"
            ));
            return Vec::new();
        }
        let side = if scan {
            crate::store::HandlerSide::Static
        } else {
            crate::store::HandlerSide::Discovered
        };
        vec![Effect::PickHandler { op_id, side }]
    }
}

/// First line of `file` containing `search` (the bundle search), if any.
pub fn bundle_match_line(view: &SessionView, file: &str, search: &str) -> Option<usize> {
    if search.is_empty() {
        return None;
    }
    let needle = search.to_lowercase();
    view.sources
        .get(file)?
        .lines
        .iter()
        .position(|l| l.to_lowercase().contains(&needle))
        .map(|i| i + 1)
}
