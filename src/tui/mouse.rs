//! Mouse clicks: drawing records where the clickable things landed (header screens,
//! list rows, operation tabs) and a click acts on the one under the pointer.
//!
//! The map is rebuilt on every frame, so a click always means what the user saw; the
//! wheel moves the selection as before.

use super::action::Action;
use super::screens::Tab;
use super::state::App;
use super::update::{Effect, handle_action};
use ratatui::crossterm::event::{MouseButton, MouseEvent, MouseEventKind};
use ratatui::layout::{Position, Rect};

/// What a clickable region does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Hit {
    /// A header entry: the screen its key shows.
    Screen(Action),
    /// Row `usize` of the list on show (operations, groups, oracles, ...).
    Row(usize),
    /// A tab of the operation screen.
    Tab(Tab),
}

/// Clickable regions of the last frame, most recent last (a popup drawn over a list
/// wins because it is looked up from the end).
#[derive(Debug, Default)]
pub struct HitMap(std::cell::RefCell<Vec<(Rect, Hit)>>);

impl HitMap {
    /// Forgets the previous frame's regions.
    pub fn clear(&self) {
        self.0.borrow_mut().clear();
    }

    /// Records that `area` does `hit`.
    pub fn add(&self, area: Rect, hit: Hit) {
        self.0.borrow_mut().push((area, hit));
    }

    /// Records one region per visible row of a list drawn from `first` (the row index
    /// of the first visible row) in `area`, one terminal line each.
    pub fn rows(&self, area: Rect, first: usize, count: usize) {
        for i in 0..count.min(area.height as usize) {
            let r = Rect {
                x: area.x,
                y: area.y + i as u16,
                width: area.width,
                height: 1,
            };
            self.add(r, Hit::Row(first + i));
        }
    }

    /// The region under (`column`, `row`), topmost first.
    pub fn at(&self, column: u16, row: u16) -> Option<Hit> {
        let p = Position { x: column, y: row };
        self.0
            .borrow()
            .iter()
            .rev()
            .find(|(r, _)| r.contains(p))
            .map(|(_, h)| *h)
    }
}

/// Handles a mouse event: the wheel moves the selection, a left click selects the row
/// or tab under it (a click on the selected row opens it), a header click shows the
/// screen. Clicks land nowhere while a popup is open: popups are keyboard dialogs.
pub fn handle(app: &mut App, ev: MouseEvent) -> Vec<Effect> {
    match ev.kind {
        MouseEventKind::ScrollDown => handle_action(app, Action::Down),
        MouseEventKind::ScrollUp => handle_action(app, Action::Up),
        MouseEventKind::Down(MouseButton::Left) if app.popups.is_empty() => {
            match app.hits.at(ev.column, ev.row) {
                Some(Hit::Screen(action)) => handle_action(app, action),
                Some(Hit::Tab(tab)) => {
                    app.screen.state_mut().select_tab(tab);
                    app.refresh_items();
                    Vec::new()
                }
                Some(Hit::Row(row)) => click_row(app, row),
                None => Vec::new(),
            }
        }
        _ => Vec::new(),
    }
}

/// Selects `row` of the list on show; a click on the row already selected opens it.
fn click_row(app: &mut App, row: usize) -> Vec<Effect> {
    let current = app.screen.state().current_row();
    if current == Some(row) {
        return handle_action(app, Action::Open);
    }
    let delta = row as i64 - current.unwrap_or(0) as i64;
    let App {
        screen,
        view,
        visible_ops,
        ..
    } = app;
    screen.state_mut().move_cursor(view, visible_ops, delta);
    Vec::new()
}
