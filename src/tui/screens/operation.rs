//! One operation's screen: a tab bar (Context, Pending, Oracles, Hints, Bundle, Calls)
//! and the state of every tab, built when the operation is opened.

use super::{Detail, ItemList, ItemSource, ScreenState, step};
use crate::tui::action::Action;
use crate::tui::state::{App, InputTarget};
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

    fn shown_by(&self) -> Action {
        Action::ShowOperations
    }

    fn draw(&self, app: &App, area: Rect, buf: &mut Buffer) {
        crate::tui::ui::draw_operation(app, self, area, buf);
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

    fn item_list(&self) -> Option<&ItemList> {
        Some(&self.items)
    }

    fn item_list_mut(&mut self) -> Option<&mut ItemList> {
        Some(&mut self.items)
    }

    fn reviewing(&self) -> Option<&ItemList> {
        (self.tab == Tab::Oracles).then_some(&self.items)
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

    fn clear_filters(&mut self) {
        self.items.filter.clear();
        self.bundle_search.clear();
    }
}

/// `show_model_input` on an operation's screen: the Calls tab on the latest extraction
/// call of the operation, whose prompt carries the bundle as it was sent (files and the
/// lines kept) and whose raw answer is what the context was read from.
pub fn show_model_input(app: &mut App) {
    let Some(s) = app.operation() else {
        app.notify("open an operation to see what the model saw for it");
        return;
    };
    let Some(op) = app.view.ops.get(s.op) else {
        return;
    };
    let extraction = crate::agents::Agent::Extraction.name();
    let found = op
        .calls
        .iter()
        .rposition(|&c| app.view.calls.get(c).is_some_and(|c| c.agent == extraction));
    let Some(row) = found else {
        let why = format!(
            "{}: no extraction call is recorded (an imported suite, or a context from an \
             older run whose calls/ were removed)",
            op.op_id
        );
        app.notify(why);
        return;
    };
    let id = app.view.calls[op.calls[row]].id.clone();
    if let Some(s) = app.operation_mut() {
        s.tab = Tab::Calls;
        s.calls_cursor = row;
        s.detail = Detail::default();
    }
    app.notify(format!(
        "call {id}: the prompt with the bundle as sent, then the raw answer (J / K scroll)"
    ));
}
