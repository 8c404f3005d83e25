//! The metamorphic screen: every metamorphic test, reviewed like oracles.

use super::{Detail, HeaderTab, ItemList, ItemSource, ScreenState, ScreenType};
use crate::tui::action::Action;
use crate::tui::state::App;
use crate::tui::view::SessionView;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;

/// The metamorphic screen's own state: its test list and the detail pane's scroll.
#[derive(Debug, Clone, PartialEq)]
pub struct MetamorphicScreen {
    /// The tests passing the filters, and the selected one.
    pub items: ItemList,
    /// Scroll of the test's detail pane.
    pub detail: Detail,
}

impl Default for MetamorphicScreen {
    fn default() -> Self {
        MetamorphicScreen {
            items: ItemList::new(ItemSource::Metamorphic),
            detail: Detail::default(),
        }
    }
}

impl ScreenType for MetamorphicScreen {
    const TAB: Option<HeaderTab> = Some(HeaderTab {
        title: "Metamorphic",
        action: "show_metamorphic",
        help: "metamorphic",
    });
    const SECTIONS: &'static [&'static str] = &["metamorphic"];

    fn fresh(_view: &SessionView) -> Self {
        MetamorphicScreen::default()
    }
}

impl ScreenState for MetamorphicScreen {
    fn sections(&self) -> &'static [&'static str] {
        &["metamorphic", "review", "list", "global"]
    }

    fn hints(&self) -> &'static [Action] {
        &[
            Action::Accept,
            Action::Reject,
            Action::Edit,
            Action::Undo,
            Action::Filter,
            Action::CycleState,
            Action::BulkAccept,
            Action::Back,
            Action::Help,
            Action::ScrollDetailDown,
        ]
    }

    fn draw(&self, app: &App, area: Rect, buf: &mut Buffer) {
        crate::tui::ui::draw_metamorphic(app, self, area, buf);
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
