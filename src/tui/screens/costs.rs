//! The costs screen: totals per phase and agent, nothing to select.

use super::{HeaderTab, ScreenState, ScreenType};
use crate::tui::action::Action;
use crate::tui::state::App;
use crate::tui::view::SessionView;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;

/// The costs screen keeps no state: it is a table of the session's totals.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CostsScreen;

impl ScreenType for CostsScreen {
    const TAB: Option<HeaderTab> = Some(HeaderTab {
        title: "Costs",
        action: "show_costs",
        help: "costs",
    });
    const SECTIONS: &'static [&'static str] = &[];

    fn fresh(_view: &SessionView) -> Self {
        CostsScreen
    }
}

impl ScreenState for CostsScreen {
    fn sections(&self) -> &'static [&'static str] {
        &["list", "global"]
    }

    fn hints(&self) -> &'static [Action] {
        &[Action::Open, Action::Back, Action::Help, Action::Quit]
    }

    fn draw(&self, app: &App, area: Rect, buf: &mut Buffer) {
        crate::tui::ui::draw_costs(app, area, buf);
    }
}
