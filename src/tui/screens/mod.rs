//! The workbench's screens, each owning its own state (cursors, scroll, selection).
//!
//! A screen's state is built when the screen is entered and dropped when it is left, so
//! nothing is reset by hand on a screen change and `App` carries no screen's cursors.
//! Screens sit on a stack (`App::screens`) whose bottom is always the operations list:
//! opening an operation or a group covers the list below, `back` uncovers it with its
//! cursor where it was, and the header's screen keys jump back to the bottom and push
//! the screen asked for.
//!
//! What differs between screens (keymap sections, footer hints, drawing, cursor
//! movement, what `open` enters, which items review actions apply to) is the
//! [`ScreenState`] trait; [`Screen`] is the closed list of screens and dispatches to it
//! in one place ([`Screen::state`] / [`Screen::state_mut`]).
//!
//! How to add a screen: see the `tui` module documentation ("one file plus one enum
//! variant").

mod costs;
mod groups;
mod metamorphic;
mod mutants;
mod operation;
mod operations;

pub use costs::CostsScreen;
pub use groups::{GroupScreen, GroupsScreen};
pub use metamorphic::MetamorphicScreen;
pub use mutants::{MutantsScreen, cycle_mutant_filter, mark_equivalent};
pub use operation::{OperationScreen, Tab, show_model_input};
pub use operations::OperationsScreen;

use super::action::Action;
use super::state::{App, InputTarget, ItemRef, clamp};
use super::view::SessionView;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;

/// One screen and its own state.
#[derive(Debug, Clone, PartialEq)]
pub enum Screen {
    /// The operations list: the bottom of the screen stack, never left, only covered.
    Operations(OperationsScreen),
    /// One operation's tabs.
    Operation(OperationScreen),
    /// The list of groups.
    Groups(GroupsScreen),
    /// One group's multi-operation oracles.
    Group(GroupScreen),
    /// Tokens, money and time per phase and agent.
    Costs(CostsScreen),
    /// Metamorphic tests: list and detail, reviewed like oracles.
    Metamorphic(MetamorphicScreen),
    /// Mutants of the last mutation analysis, survivors first.
    Mutants(MutantsScreen),
}

impl Screen {
    /// The screen's behaviour, whatever the screen.
    pub fn state(&self) -> &dyn ScreenState {
        match self {
            Screen::Operations(s) => s,
            Screen::Operation(s) => s,
            Screen::Groups(s) => s,
            Screen::Group(s) => s,
            Screen::Costs(s) => s,
            Screen::Metamorphic(s) => s,
            Screen::Mutants(s) => s,
        }
    }

    /// The screen's behaviour, mutably.
    pub fn state_mut(&mut self) -> &mut dyn ScreenState {
        match self {
            Screen::Operations(s) => s,
            Screen::Operation(s) => s,
            Screen::Groups(s) => s,
            Screen::Group(s) => s,
            Screen::Costs(s) => s,
            Screen::Metamorphic(s) => s,
            Screen::Mutants(s) => s,
        }
    }
}

/// What every screen answers; the defaults suit a screen without a list of its own.
pub trait ScreenState {
    /// Keymap sections active on the screen, most specific first.
    fn sections(&self) -> &'static [&'static str];

    /// Actions the footer offers, in order (those without a key are left out).
    fn hints(&self) -> &'static [Action];

    /// The header key whose tab is highlighted while the screen shows (an operation
    /// belongs to the Operations tab, a group to Groups).
    fn shown_by(&self) -> Action;

    /// Draws the screen's body (the header and footer are common).
    fn draw(&self, app: &App, area: Rect, buf: &mut Buffer);

    /// Moves the cursor by `delta` rows (clamped), or scrolls a text body.
    fn move_cursor(&mut self, _view: &SessionView, _visible_ops: &[usize], _delta: i64) {}

    /// The screen `open` enters from here, if any.
    fn open(&self, _app: &App) -> Option<Screen> {
        None
    }

    /// The oracle list the screen shows, whether or not review actions apply now.
    fn item_list(&self) -> Option<&ItemList> {
        None
    }

    /// The oracle list, mutably (filters and refreshes).
    fn item_list_mut(&mut self) -> Option<&mut ItemList> {
        None
    }

    /// The list review actions apply to now (`None` where nothing is reviewable, e.g.
    /// an operation's tabs other than Oracles).
    fn reviewing(&self) -> Option<&ItemList> {
        self.item_list()
    }

    /// Evidence ref and scroll of the detail and source panes.
    fn detail(&self) -> Detail {
        Detail::default()
    }

    /// The detail and source panes' position, mutably (screens without one: `None`).
    fn detail_mut(&mut self) -> Option<&mut Detail> {
        None
    }

    /// What `/` types into on this screen.
    fn filter_target(&self) -> InputTarget {
        if self.item_list().is_some() {
            InputTarget::ItemFilter
        } else {
            InputTarget::ListFilter
        }
    }

    /// Clears the screen's own filters (the session-wide ones live in `App::filters`).
    fn clear_filters(&mut self) {
        if let Some(list) = self.item_list_mut() {
            list.filter.clear();
        }
    }
}

/// Where a list of reviewable items comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ItemSource {
    /// The oracles of operation `usize` (index into `SessionView::ops`).
    Op(usize),
    /// The multi-op oracles of group `usize` (index into `SessionView::groups`).
    Group(usize),
    /// Every metamorphic test.
    Metamorphic,
}

/// A filtered list of reviewable items with its cursor, as the operation, group and
/// metamorphic screens show it.
#[derive(Debug, Clone, PartialEq)]
pub struct ItemList {
    /// Whose items these are.
    pub source: ItemSource,
    /// Text filter typed with `/`.
    pub filter: String,
    /// The items passing the filters (`App::refresh_items`).
    pub visible: Vec<ItemRef>,
    /// Row of `visible` under the cursor.
    pub cursor: usize,
}

impl ItemList {
    /// An empty list over `source`; `App::refresh_items` fills it.
    pub fn new(source: ItemSource) -> ItemList {
        ItemList {
            source,
            filter: String::new(),
            visible: Vec::new(),
            cursor: 0,
        }
    }

    /// The item under the cursor.
    pub fn selected(&self) -> Option<ItemRef> {
        self.visible.get(self.cursor).copied()
    }

    /// Moves the cursor by `delta`, kept inside the list.
    fn step(&mut self, delta: i64) {
        self.cursor = step(self.cursor, self.visible.len(), delta);
    }
}

/// Which evidence ref of the selected item the source pane shows, and how far the
/// source or detail pane is scrolled.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Detail {
    /// Which evidence ref of the selected item the source pane shows.
    pub ref_idx: usize,
    /// Extra scroll, in lines.
    pub scroll: i64,
    /// Scroll of the oracle pane beside the source, in lines (long assertion lists and
    /// failures stay reachable on small terminals).
    pub pane: i64,
}

/// A cursor moved by `delta` and kept inside a list of `len` rows.
pub(crate) fn step(cursor: usize, len: usize, delta: i64) -> usize {
    let n = (cursor as i64).saturating_add(delta).max(0) as usize;
    clamp(n, len)
}

/// The screen stack: entering, leaving and finding screens.
impl App {
    /// Shows `screen` over the one on show (opening an operation or a group), its list
    /// filled.
    pub fn cover(&mut self, screen: Screen) {
        let below = std::mem::replace(&mut self.screen, screen);
        self.behind.push(below);
        self.refresh_items();
    }

    /// Leaves the screen on show for the one it covers, as that was left; false on the
    /// operations list, which covers nothing.
    pub fn back(&mut self) -> bool {
        let Some(below) = self.behind.pop() else {
            return false;
        };
        let left = std::mem::replace(&mut self.screen, below);
        if let (Screen::Operation(op), Screen::Operations(list)) = (&left, &mut self.screen) {
            list.open_tab = op.tab;
        }
        self.refresh_items();
        true
    }

    /// A header jump: back to the operations list, then `screen` over it (the list
    /// itself is the bottom of the stack: showing it just goes back to it).
    pub fn show(&mut self, screen: Screen) {
        while self.back() {}
        if !matches!(screen, Screen::Operations(_)) {
            self.cover(screen);
        }
    }

    /// Back to the first screen on the stack `is` accepts (the one on show counts);
    /// false, leaving the stack as it is, when there is none.
    pub fn back_to(&mut self, is: impl Fn(&Screen) -> bool) -> bool {
        if !is(&self.screen) && !self.behind.iter().any(&is) {
            return false;
        }
        while !is(&self.screen) && self.back() {}
        true
    }

    /// The operations list's state, wherever it is on the stack.
    pub fn operations(&self) -> Option<&OperationsScreen> {
        std::iter::once(&self.screen)
            .chain(&self.behind)
            .find_map(|s| match s {
                Screen::Operations(o) => Some(o),
                _ => None,
            })
    }

    /// The operations list's state, mutably.
    pub fn operations_mut(&mut self) -> Option<&mut OperationsScreen> {
        std::iter::once(&mut self.screen)
            .chain(&mut self.behind)
            .find_map(|s| match s {
                Screen::Operations(o) => Some(o),
                _ => None,
            })
    }

    /// Row of the operations list under its cursor.
    pub fn ops_cursor(&self) -> usize {
        self.operations().map_or(0, |o| o.cursor)
    }
}

/// The operation screen, when it is on show.
impl App {
    /// The operation screen's state, when it is the screen on show.
    pub fn operation(&self) -> Option<&OperationScreen> {
        match &self.screen {
            Screen::Operation(s) => Some(s),
            _ => None,
        }
    }

    /// The operation screen's state, mutably.
    pub fn operation_mut(&mut self) -> Option<&mut OperationScreen> {
        match &mut self.screen {
            Screen::Operation(s) => Some(s),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tui::keymap::Keymap;
    use crate::tui::theme::Theme;
    use crate::tui::update::handle_action;
    use crate::tui::view::{GroupView, OpView};

    fn app() -> App {
        let mut view = SessionView::default();
        for i in 0..3 {
            view.op_index.insert(format!("GET /{i}"), i);
            view.ops.push(OpView {
                op_id: format!("GET /{i}"),
                method: "GET".into(),
                path: format!("/{i}"),
                ..OpView::default()
            });
        }
        for g in ["g1", "g2"] {
            view.groups.push(GroupView {
                group_id: g.into(),
                ..GroupView::default()
            });
        }
        App::new(view, Keymap::default_keymap(), Theme::dark())
    }

    #[test]
    fn back_uncovers_the_list_where_it_was_and_a_new_operation_starts_fresh() {
        let mut app = app();
        handle_action(&mut app, Action::Down);
        handle_action(&mut app, Action::Down);
        handle_action(&mut app, Action::Open);
        assert_eq!(app.current_op(), Some(2));
        handle_action(&mut app, Action::NextTab);
        handle_action(&mut app, Action::ScrollDown);
        assert_eq!(
            app.operation().map(|s| (s.tab, s.detail.scroll)),
            Some((Tab::Hints, 5))
        );
        handle_action(&mut app, Action::Back);
        assert!(matches!(app.screen, Screen::Operations(_)) && app.behind.is_empty());
        assert_eq!(app.ops_cursor(), 2);
        handle_action(&mut app, Action::Up);
        handle_action(&mut app, Action::Open);
        // The tab last shown carries over; the rest of the screen is new.
        let s = app.operation().cloned();
        assert_eq!(
            s.map(|s| (s.op, s.tab, s.detail)),
            Some((1, Tab::Hints, Detail::default()))
        );
    }

    #[test]
    fn header_jumps_keep_the_operations_list_at_the_bottom() {
        let mut app = app();
        handle_action(&mut app, Action::ShowGroups);
        handle_action(&mut app, Action::Down);
        handle_action(&mut app, Action::Open);
        assert!(matches!(&app.screen, Screen::Group(g) if g.group == 1));
        assert_eq!(app.behind.len(), 2);
        // Back to the groups list still on the stack, as it was left.
        handle_action(&mut app, Action::ShowGroups);
        assert!(matches!(&app.screen, Screen::Groups(g) if g.cursor == 1));
        handle_action(&mut app, Action::ShowCosts);
        assert!(matches!(app.screen, Screen::Costs(_)) && app.behind.len() == 1);
        handle_action(&mut app, Action::ShowOperations);
        assert!(matches!(app.screen, Screen::Operations(_)) && app.behind.is_empty());
        // Back on the list itself is not a screen change.
        handle_action(&mut app, Action::Back);
        assert!(matches!(app.screen, Screen::Operations(_)));
    }
}
