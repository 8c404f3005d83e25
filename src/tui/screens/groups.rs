//! The groups list and one group's multi-operation oracles.

use super::{Detail, ItemList, ItemSource, Screen, ScreenState, step};
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

impl ScreenState for GroupsScreen {
    fn sections(&self) -> &'static [&'static str] {
        &["list", "global"]
    }

    fn hints(&self) -> &'static [Action] {
        &[Action::Open, Action::Back, Action::Help, Action::Quit]
    }

    fn shown_by(&self) -> Action {
        Action::ShowGroups
    }

    fn draw(&self, app: &App, area: Rect, buf: &mut Buffer) {
        crate::tui::ui::draw_groups(app, self, area, buf);
    }

    fn move_cursor(&mut self, view: &SessionView, _visible_ops: &[usize], delta: i64) {
        self.cursor = step(self.cursor, view.groups.len(), delta);
    }

    fn open(&self, app: &App) -> Option<Screen> {
        (self.cursor < app.view.groups.len()).then(|| Screen::Group(GroupScreen::new(self.cursor)))
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

    fn shown_by(&self) -> Action {
        Action::ShowGroups
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

    fn detail(&self) -> Detail {
        self.detail
    }

    fn detail_mut(&mut self) -> Option<&mut Detail> {
        Some(&mut self.detail)
    }
}
