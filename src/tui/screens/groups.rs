//! The groups list and one group's multi-operation oracles.

use super::{
    Detail, HeaderTab, ItemList, ItemSource, Screen, ScreenKind, ScreenState, ScreenType, step,
};
use crate::tui::action::Action;
use crate::tui::state::App;
use crate::tui::view::SessionView;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;

/// The groups list's own state.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GroupsScreen {
    /// Index into `SessionView::groups` under the cursor.
    pub cursor: usize,
}

impl ScreenType for GroupsScreen {
    const TAB: Option<HeaderTab> = Some(HeaderTab {
        title: "Groups",
        action: "show_groups",
        help: "groups",
    });
    const SECTIONS: &'static [&'static str] = &[];

    fn fresh(_view: &SessionView) -> Self {
        GroupsScreen::default()
    }
}

impl ScreenState for GroupsScreen {
    fn sections(&self) -> &'static [&'static str] {
        &["list", "global"]
    }

    fn hints(&self) -> &'static [Action] {
        &[Action::Open, Action::Back, Action::Help, Action::Quit]
    }

    fn draw(&self, app: &App, area: Rect, buf: &mut Buffer) {
        crate::tui::ui::draw_groups(app, self, area, buf);
    }

    fn move_cursor(&mut self, view: &SessionView, _visible_ops: &[usize], delta: i64) {
        self.cursor = step(self.cursor, view.groups.len(), delta);
    }

    fn current_row(&self) -> Option<usize> {
        Some(self.cursor)
    }

    fn open(&self, view: &SessionView, _visible_ops: &[usize]) -> Option<Screen> {
        (self.cursor < view.groups.len()).then(|| Screen::Group(GroupScreen::new(self.cursor)))
    }
}

/// One group's screen: its oracle list and the detail and source panes.
#[derive(Debug, Clone, PartialEq)]
pub struct GroupScreen {
    /// Index into `SessionView::groups`.
    pub group: usize,
    /// The group's oracles passing the filters, and the selected one.
    pub items: ItemList,
    /// Evidence ref and scroll of the detail and source panes.
    pub detail: Detail,
}

impl GroupScreen {
    /// The screen of group `group`, its list still to be filled (`App::show` does).
    pub fn new(group: usize) -> GroupScreen {
        GroupScreen {
            group,
            items: ItemList::new(ItemSource::Group(group)),
            detail: Detail::default(),
        }
    }
}

impl ScreenType for GroupScreen {
    const TAB: Option<HeaderTab> = None;
    const SECTIONS: &'static [&'static str] = &[];

    fn fresh(_view: &SessionView) -> Self {
        GroupScreen::new(0)
    }
}

impl ScreenState for GroupScreen {
    fn sections(&self) -> &'static [&'static str] {
        &["operation", "review", "list", "global"]
    }

    fn hints(&self) -> &'static [Action] {
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
        ]
    }

    fn shown_by(&self) -> Option<ScreenKind> {
        Some(ScreenKind::Groups)
    }

    fn draw(&self, app: &App, area: Rect, buf: &mut Buffer) {
        crate::tui::ui::draw_group(app, self, area, buf);
    }

    fn move_cursor(&mut self, _view: &SessionView, _visible_ops: &[usize], delta: i64) {
        self.items.step(delta);
        self.detail = Detail::default();
    }

    fn item_list(&self) -> Option<&ItemList> {
        Some(&self.items)
    }

    fn item_list_mut(&mut self) -> Option<&mut ItemList> {
        Some(&mut self.items)
    }

    fn has_oracle_pane(&self) -> bool {
        true
    }

    fn detail(&self) -> Detail {
        self.detail
    }

    fn detail_mut(&mut self) -> Option<&mut Detail> {
        Some(&mut self.detail)
    }
}
