//! Asks before quitting while a live run is in progress, since quitting stops it.

use super::{KeyResult, Layer, dialog};
use crate::tui::state::App;
use ratatui::buffer::Buffer;
use ratatui::crossterm::event::{KeyCode, KeyEvent};
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};

/// Quit confirmation during a live run.
#[derive(Debug, Default)]
pub struct ConfirmQuit;

impl Layer for ConfirmQuit {
    fn handle_key(&mut self, app: &mut App, key: KeyEvent) -> KeyResult {
        match key.code {
            KeyCode::Char('y') | KeyCode::Enter => {
                app.quit = true;
                KeyResult::Close(Vec::new())
            }
            KeyCode::Char('n') | KeyCode::Esc => {
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
            Line::from(vec![
                Span::styled("y", app.theme.key),
                Span::raw(" / enter: stop and quit    "),
                Span::styled("n", app.theme.key),
                Span::raw(" / esc: keep watching"),
            ]),
        ];
        dialog(app, "Quit", lines, (area, 60, 7), buf);
    }
}
