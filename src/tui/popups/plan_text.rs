//! A plan's whole text (what `mastor run --dry-run` prints) over the whole screen,
//! scrolled with the keys of the failure view.

use super::{KeyResult, Layer};
use crate::tui::state::App;
use crate::tui::ui::block;
use ratatui::buffer::Buffer;
use ratatui::crossterm::event::{KeyCode, KeyEvent};
use ratatui::layout::{Margin, Rect};
use ratatui::text::Line;
use ratatui::widgets::{Clear, Paragraph, Widget, Wrap};

/// A titled text, scrolled.
#[derive(Debug, Clone, PartialEq)]
pub struct PlanText {
    pub title: String,
    /// Already escaped by the plan's renderer; escaped again on screen all the same.
    pub text: String,
    /// First line shown.
    pub scroll: usize,
}

impl PlanText {
    pub fn new(title: String, text: String) -> PlanText {
        PlanText {
            title,
            text,
            scroll: 0,
        }
    }
}

impl Layer for PlanText {
    fn handle_key(&mut self, app: &mut App, key: KeyEvent) -> KeyResult {
        let n = self.text.lines().count();
        let page = app.page.max(1);
        if matches!(
            key.code,
            KeyCode::Esc | KeyCode::Char('q') | KeyCode::Char('p') | KeyCode::Enter
        ) {
            return KeyResult::Close(Vec::new());
        }
        // Modal: other keys scroll or do nothing; none reaches the dialog underneath.
        super::scroll_by_key(key.code, &mut self.scroll, n, page);
        KeyResult::Consumed(Vec::new())
    }

    fn render(&self, app: &App, area: Rect, buf: &mut Buffer) {
        let r = area.inner(Margin::new(1, 1));
        Clear.render(r, buf);
        let lines: Vec<Line> = self
            .text
            .lines()
            .skip(self.scroll)
            .map(|l| Line::raw(crate::text::escape_controls(l).into_owned()))
            .collect();
        let title = format!(
            "{} · j/k scroll · esc close",
            crate::text::escape_controls(&self.title)
        );
        Paragraph::new(lines)
            .style(app.theme.popup)
            .wrap(Wrap { trim: false })
            .block(block(app, title, true))
            .render(r, buf);
    }
}
