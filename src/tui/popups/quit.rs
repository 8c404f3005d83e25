//! Asks before quitting while a live run is in progress, since quitting stops it.

use super::{KeyResult, Layer, action, dialog, yes_no_line};
use crate::tui::action::Action;
use crate::tui::state::App;
use ratatui::buffer::Buffer;
use ratatui::crossterm::event::KeyEvent;
use ratatui::layout::Rect;
use ratatui::text::Line;

/// Quit confirmation during a live run.
#[derive(Debug, Default)]
pub struct ConfirmQuit;

impl Layer for ConfirmQuit {
    fn handle_key(&mut self, app: &mut App, key: KeyEvent) -> KeyResult {
        match action(app, &key) {
            Some(Action::Yes | Action::Confirm) => {
                app.quit = true;
                KeyResult::Close(Vec::new())
            }
            Some(Action::No | Action::Cancel) => {
                app.notify("the run goes on");
                KeyResult::Close(Vec::new())
            }
            _ => KeyResult::Ignored,
        }
    }

    fn render(&self, app: &App, area: Rect, buf: &mut Buffer) {
        let lines = vec![
            Line::raw("The run is still in progress. Stop it and quit?"),
            Line::styled(
                "(completed calls are cached: `mastor run` resumes it)",
                app.theme.muted,
            ),
            yes_no_line(app, "stop and quit", "keep watching"),
        ];
        dialog(app, "Quit", lines, (area, 60, 7), buf);
    }
}
