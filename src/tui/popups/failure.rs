//! The failure view: the selected oracle's latest run, request and response, over the
//! whole screen. Scrolls; `y` / `Y` copy the curl line / the response body.

use super::{KeyResult, Layer};
use crate::tui::failure::{Row, copy_from, rows};
use crate::tui::state::App;
use crate::tui::ui::block;
use ratatui::buffer::Buffer;
use ratatui::crossterm::event::{KeyCode, KeyEvent};
use ratatui::layout::{Margin, Rect};
use ratatui::text::Line;
use ratatui::widgets::{Clear, Paragraph, Widget, Wrap};

/// The failure view of one oracle.
#[derive(Debug, Clone, PartialEq)]
pub struct FailureView {
    /// Whose latest verdict is shown.
    pub o_id: String,
    /// First line shown.
    pub scroll: usize,
    /// Whole response bodies rather than their first lines.
    pub all: bool,
}

impl FailureView {
    pub fn new(o_id: String) -> FailureView {
        FailureView {
            o_id,
            scroll: 0,
            all: false,
        }
    }

    fn rows(&self, app: &App) -> Vec<Row> {
        app.view
            .verdict_details
            .get(&self.o_id)
            .map(|v| rows(v, self.all))
            .unwrap_or_default()
    }
}

impl Layer for FailureView {
    fn handle_key(&mut self, app: &mut App, key: KeyEvent) -> KeyResult {
        let n = self.rows(app).len();
        let page = app.page.max(1);
        match key.code {
            KeyCode::Esc | KeyCode::Char('q') | KeyCode::Char('f') | KeyCode::Enter => {
                return KeyResult::Close(Vec::new());
            }
            c if super::scroll_by_key(c, &mut self.scroll, n, page) => {}
            KeyCode::Char('a') => self.all = !self.all,
            KeyCode::Char(c @ ('y' | 'Y')) => {
                let Some(v) = app.view.verdict_details.get(&self.o_id).cloned() else {
                    return KeyResult::Consumed(Vec::new());
                };
                return KeyResult::Consumed(copy_from(app, &v, c == 'y'));
            }
            // Modal: nothing typed here reaches the screen underneath.
            _ => {}
        }
        self.scroll = self.scroll.min(n.saturating_sub(1));
        KeyResult::Consumed(Vec::new())
    }

    fn render(&self, app: &App, area: Rect, buf: &mut Buffer) {
        let t = &app.theme;
        let r = area.inner(Margin::new(1, 1));
        Clear.render(r, buf);
        let rows = self.rows(app);
        // The end of the text stays at the bottom: scrolling past it shows the last page.
        let inner_h = r.height.saturating_sub(2) as usize;
        let start = self.scroll.min(rows.len().saturating_sub(inner_h));
        let lines: Vec<Line> = rows
            .into_iter()
            .skip(start)
            .map(|row| match row {
                Row::Heading(s) => Line::styled(s, t.title),
                Row::Failure(s) => Line::styled(s, t.fail),
                Row::Muted(s) => Line::styled(s, t.muted),
                Row::Text(s) => Line::raw(s),
            })
            .collect();
        let title = format!(
            "{} · j/k scroll · a all · y copy curl · Y copy body · esc close",
            crate::text::escape_controls(&self.o_id)
        );
        Paragraph::new(lines)
            .style(t.popup)
            .wrap(Wrap { trim: false })
            .block(block(app, title, true))
            .render(r, buf);
    }
}
