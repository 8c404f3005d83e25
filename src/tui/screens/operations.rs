//! The operations list: the workbench's home, at the bottom of the screen stack.

use super::operation::{OperationScreen, Tab};
use super::{HeaderTab, Screen, ScreenState, ScreenType, step};
use crate::tui::action::Action;
use crate::tui::state::App;
use crate::tui::view::SessionView;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;

/// The operations list's own state: its cursor (the rows are `App::visible_ops`, which
/// the session-wide filters and sort order decide).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OperationsScreen {
    /// Row of `App::visible_ops` under the cursor.
    pub cursor: usize,
    /// The tab an operation opens on: the one last shown, so going through many
    /// operations' Calls (say) stays on Calls.
    pub open_tab: Tab,
}

impl Default for OperationsScreen {
    fn default() -> Self {
        OperationsScreen {
            cursor: 0,
            open_tab: Tab::Oracles,
        }
    }
}

impl ScreenType for OperationsScreen {
    const TAB: Option<HeaderTab> = Some(HeaderTab {
        title: "Operations",
        action: "show_operations",
        help: "operations",
    });
    const SECTIONS: &'static [&'static str] = &[];

    fn fresh(_view: &SessionView) -> Self {
        OperationsScreen::default()
    }
}

impl ScreenState for OperationsScreen {
    fn sections(&self) -> &'static [&'static str] {
        &["review", "list", "global"]
    }

    fn hints(&self) -> &'static [Action] {
        &[
            Action::Open,
            Action::Filter,
            Action::CycleSort,
            Action::CycleState,
            Action::CycleStatus,
            Action::BulkAccept,
            Action::Export,
            Action::Help,
            Action::Quit,
            Action::RunOracles,
            Action::Rerun,
        ]
    }

    fn draw(&self, app: &App, area: Rect, buf: &mut Buffer) {
        crate::tui::ui::draw_operations(app, self, area, buf);
    }

    fn move_cursor(&mut self, _view: &SessionView, visible_ops: &[usize], delta: i64) {
        self.cursor = step(self.cursor, visible_ops.len(), delta);
    }

    fn current_row(&self) -> Option<usize> {
        Some(self.cursor)
    }

    fn open(&self, _view: &SessionView, visible_ops: &[usize]) -> Option<Screen> {
        let op = visible_ops.get(self.cursor).copied()?;
        let mut screen = OperationScreen::new(op);
        screen.tab = self.open_tab;
        Some(Screen::Operation(screen))
    }
}
