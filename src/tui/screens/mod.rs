//! The workbench's screens, each owning its own state (cursors, scroll, selection).
//!
//! A screen's state is built when the screen is entered and dropped when it is left, so
//! nothing is reset by hand on a screen change and `App` carries no screen's cursors.
//! Screens sit on a stack (`App::screens`) whose bottom is always the operations list:
//! opening an operation or a group covers the list below, `back` uncovers it with its
//! cursor where it was, and the header's screen keys jump back to the bottom and push
//! the screen asked for.
//!
//! What differs between screens (keymap sections, footer hints, drawing, their own
//! keys, cursor movement, what `open` enters, the source pane's target, which items
//! review actions apply to) is the [`ScreenState`] trait; what is known without a
//! screen (its header entry, the keymap sections it brings) is [`ScreenType`].
//! [`Screen`] is the closed list of screens, written once in `screens!`, which also
//! makes [`ScreenKind`] and the only dispatch ([`Screen::state`] /
//! [`Screen::state_mut`]).
//!
//! How to add a screen: see the `tui` module documentation ("one file, one line in the
//! screen list and its keys").

#[cfg(test)]
mod checklist;
mod costs;
mod groups;
mod metamorphic;
mod mutants;
mod operation;
mod operations;

pub use costs::CostsScreen;
pub use groups::{GroupScreen, GroupsScreen};
pub use metamorphic::MetamorphicScreen;
pub use mutants::MutantsScreen;
pub use operation::{OperationScreen, Tab, bundle_match_line};
pub use operations::OperationsScreen;

use super::action::Action;
use super::popups::Popup;
use super::state::{App, InputTarget, ItemRef, clamp, evidence_refs};
use super::theme::Theme;
use super::update::Effect;
use super::view::SessionView;
use crate::model::EvidenceRef;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;

/// The closed list of screens, one line each: `Variant(Type)`, where `Type` implements
/// [`ScreenState`] and [`ScreenType`]. It makes [`Screen`], [`ScreenKind`] and the only
/// `match`es over screens (the trait dispatch), so a new screen is one line here.
macro_rules! screens {
    ($($(#[$doc:meta])* $variant:ident($ty:ty),)*) => {
        /// One screen and its own state.
        #[derive(Debug, Clone, PartialEq)]
        pub enum Screen {
            $($(#[$doc])* $variant($ty),)*
        }

        /// Which screen, without its state: what header keys show and tests iterate.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum ScreenKind {
            $($(#[$doc])* $variant,)*
        }

        impl ScreenKind {
            /// Every screen, in header order.
            pub const ALL: &'static [ScreenKind] = &[$(ScreenKind::$variant,)*];

            /// Its header entry, if the header lists it.
            pub fn tab(self) -> Option<HeaderTab> {
                match self {
                    $(ScreenKind::$variant => <$ty as ScreenType>::TAB,)*
                }
            }

            /// The keymap sections the screen brings (see [`ScreenType::SECTIONS`]).
            pub fn sections(self) -> &'static [&'static str] {
                match self {
                    $(ScreenKind::$variant => <$ty as ScreenType>::SECTIONS,)*
                }
            }

            /// A fresh screen of this kind over `view`.
            pub fn fresh(self, view: &SessionView) -> Screen {
                match self {
                    $(ScreenKind::$variant => Screen::$variant(<$ty as ScreenType>::fresh(view)),)*
                }
            }
        }

        impl Screen {
            /// Which screen this is.
            pub fn kind(&self) -> ScreenKind {
                match self {
                    $(Screen::$variant(_) => ScreenKind::$variant,)*
                }
            }

            /// The screen's behaviour, whatever the screen.
            pub fn state(&self) -> &dyn ScreenState {
                match self {
                    $(Screen::$variant(s) => s,)*
                }
            }

            /// The screen's behaviour, mutably.
            pub fn state_mut(&mut self) -> &mut dyn ScreenState {
                match self {
                    $(Screen::$variant(s) => s,)*
                }
            }
        }
    };
}

screens! {
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

/// A screen's entry in the header, reached from anywhere by its `[global]` key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HeaderTab {
    /// The header's label.
    pub title: &'static str,
    /// The keymap name of the action that shows it (`show_<screen>`).
    pub action: &'static str,
    /// The action's description in the help overlay.
    pub help: &'static str,
}

/// What is known of a screen without one: its header entry, its keymap sections and
/// how to build it. Kept apart from [`ScreenState`], which is used as a trait object.
pub trait ScreenType: ScreenState + Sized {
    /// The header entry; `None` for a screen entered from another's row (an
    /// operation, a group), which highlights the tab of `ScreenState::shown_by`.
    const TAB: Option<HeaderTab>;

    /// Keymap sections the screen brings (those only it or the screens it opens use),
    /// most specific first; the shared `review`, `list`, `global` and `popup` are the
    /// keymap's own.
    const SECTIONS: &'static [&'static str];

    /// A fresh screen over `view`: what its header key shows (a screen entered from a
    /// row: the first row's).
    fn fresh(view: &SessionView) -> Self;
}

/// What a screen's key handling may read and change beyond the screen itself.
pub struct Ctx<'a> {
    /// The session.
    pub view: &'a SessionView,
    /// The colours (an editor a key opens is styled by them).
    pub theme: &'a Theme,
    /// The footer message (`App::status`).
    pub status: &'a mut Option<(String, bool)>,
    /// The popup layers (`App::popups`).
    pub popups: &'a mut Vec<Popup>,
}

impl Ctx<'_> {
    /// Sets the footer message.
    pub fn notify(&mut self, text: impl Into<String>) {
        *self.status = Some((text.into(), false));
    }
}

/// What a screen did with an action.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    /// Not one of the screen's own actions: the common handling applies.
    Ignored,
    /// Handled, with this work for the driver.
    Done(Vec<Effect>),
}

/// What every screen answers; the defaults suit a screen without a list of its own.
pub trait ScreenState {
    /// Keymap sections active on the screen, most specific first.
    fn sections(&self) -> &'static [&'static str];

    /// Actions the footer offers, in order (those without a key are left out).
    fn hints(&self) -> &'static [Action];

    /// The header tab highlighted while the screen shows, when it is not the screen's
    /// own (an operation belongs to the Operations tab, a group to Groups).
    fn shown_by(&self) -> Option<ScreenKind> {
        None
    }

    /// Draws the screen's body (the header and footer are common).
    fn draw(&self, app: &App, area: Rect, buf: &mut Buffer);

    /// The screen's own actions (tabs, its filters, its marks); `Outcome::Ignored`
    /// leaves the action to the common handling in `update`.
    fn handle(&mut self, _action: Action, _ctx: &mut Ctx) -> Outcome {
        Outcome::Ignored
    }

    /// Moves the cursor by `delta` rows (clamped), or scrolls a text body.
    fn move_cursor(&mut self, _view: &SessionView, _visible_ops: &[usize], _delta: i64) {}

    /// The row under the cursor of the list on show (what a mouse click compares with).
    fn current_row(&self) -> Option<usize> {
        self.item_list().map(|l| l.cursor)
    }

    /// Shows `tab` (a click on an operation's tab bar); other screens have none.
    fn select_tab(&mut self, _tab: Tab) {}

    /// Recomputes what the screen derives from the session (after a reload or a
    /// filter change); item lists are refreshed by `App::refresh_items`.
    fn refresh(&mut self, _view: &SessionView) {}

    /// The screen `open` enters from here, if any (`visible_ops`: the operations
    /// list's rows).
    fn open(&self, _view: &SessionView, _visible_ops: &[usize]) -> Option<Screen> {
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

    /// Whether an oracle pane sits beside the source (`J` / `K` scroll it, and `n` /
    /// `N` follow the search across operations).
    fn has_oracle_pane(&self) -> bool {
        false
    }

    /// The file and line range the source pane shows: by default the selected item's
    /// evidence reference (its operation's entry point when it has none).
    fn source_target(&self, view: &SessionView) -> Option<EvidenceRef> {
        let item = self.reviewing()?.selected()?;
        evidence_target(view, item, self.detail().ref_idx)
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

    /// The screen's text `target` starts from when `/` is typed (`None`: the
    /// session-wide list filter).
    fn typed(&self, target: InputTarget) -> Option<String> {
        (target == InputTarget::ItemFilter).then(|| {
            self.item_list()
                .map(|l| l.filter.clone())
                .unwrap_or_default()
        })
    }

    /// Takes the text typed for `target` (the item filter, by default).
    fn set_typed(&mut self, target: InputTarget, text: String) {
        if target == InputTarget::ItemFilter
            && let Some(list) = self.item_list_mut()
        {
            list.filter = text;
        }
    }

    /// Clears the screen's own filters (the session-wide ones live in `App::filters`).
    fn clear_filters(&mut self) {
        if let Some(list) = self.item_list_mut() {
            list.filter.clear();
        }
    }
}

/// Evidence reference `ref_idx` (kept in range) of `item`, else its operation's entry
/// point.
pub(crate) fn evidence_target(
    view: &SessionView,
    item: ItemRef,
    ref_idx: usize,
) -> Option<EvidenceRef> {
    let refs = evidence_refs(view, item);
    if let Some(r) = refs.get(ref_idx.min(refs.len().saturating_sub(1))) {
        return Some(r.clone());
    }
    match item {
        ItemRef::Single { op, .. } => view.ops.get(op)?.entry.clone(),
        ItemRef::Multi { .. } | ItemRef::Meta { .. } => None,
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

    /// Recomputes what the screen on show derives from the session besides its item
    /// list (the Mutants screen's rows after new results or a filter change).
    pub fn refresh_mutants(&mut self) {
        self.screen.state_mut().refresh(&self.view);
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
        handle_action(&mut app, Action::Show(ScreenKind::Groups));
        handle_action(&mut app, Action::Down);
        handle_action(&mut app, Action::Open);
        assert!(matches!(&app.screen, Screen::Group(g) if g.group == 1));
        assert_eq!(app.behind.len(), 2);
        // Back to the groups list still on the stack, as it was left.
        handle_action(&mut app, Action::Show(ScreenKind::Groups));
        assert!(matches!(&app.screen, Screen::Groups(g) if g.cursor == 1));
        handle_action(&mut app, Action::Show(ScreenKind::Costs));
        assert!(matches!(app.screen, Screen::Costs(_)) && app.behind.len() == 1);
        handle_action(&mut app, Action::Show(ScreenKind::Operations));
        assert!(matches!(app.screen, Screen::Operations(_)) && app.behind.is_empty());
        // Back on the list itself is not a screen change.
        handle_action(&mut app, Action::Back);
        assert!(matches!(app.screen, Screen::Operations(_)));
    }
}
