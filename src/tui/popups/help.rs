//! The key reference, generated from the loaded keymap so it cannot drift from it.

use super::{KeyResult, Layer, action, centered};
use crate::tui::action::Action;
use crate::tui::keymap::Key;
use crate::tui::state::App;
use crate::tui::ui::block;
use ratatui::buffer::Buffer;
use ratatui::crossterm::event::{KeyCode, KeyEvent};
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph, Widget};

/// The help overlay; scrolls (j / k, page keys) when the terminal is too small for it.
#[derive(Debug, Default)]
pub struct Help {
    /// First row shown of each column.
    pub scroll: usize,
}

impl Layer for Help {
    fn handle_key(&mut self, app: &mut App, key: KeyEvent) -> KeyResult {
        let global = app.keymap.lookup(&["global"], Key::from_event(&key));
        if matches!(global, Some(Action::Help | Action::Back | Action::Quit))
            || matches!(action(app, &key), Some(Action::Confirm | Action::Cancel))
        {
            return KeyResult::Close(Vec::new());
        }
        let rows = rows(app, HELP_WIDTH as usize / 2).len();
        match key.code {
            KeyCode::Down | KeyCode::Char('j') => self.scroll += 1,
            KeyCode::Up | KeyCode::Char('k') => self.scroll = self.scroll.saturating_sub(1),
            KeyCode::PageDown | KeyCode::Char(' ') => self.scroll += app.page.max(1),
            KeyCode::PageUp => self.scroll = self.scroll.saturating_sub(app.page.max(1)),
            _ => return KeyResult::Ignored,
        }
        self.scroll = self.scroll.min(rows.saturating_sub(1));
        KeyResult::Consumed(Vec::new())
    }

    fn render(&self, app: &App, area: Rect, buf: &mut Buffer) {
        let r = centered(area, HELP_WIDTH, area.height.saturating_sub(2));
        Clear.render(r, buf);
        // Two columns when the terminal is too short for one.
        let inner_h = r.height.saturating_sub(2) as usize;
        let inner_w = r.width.saturating_sub(2) as usize;
        let mut lines = rows(app, inner_w);
        if lines.len() > inner_h {
            lines = rows(app, inner_w / 2);
        }
        let title = format!(
            "Keys ({} or {} to close)",
            app.keymap
                .hint(&["global"], Action::Help)
                .unwrap_or_default(),
            app.keymap
                .hint(&["global"], Action::Back)
                .unwrap_or_default()
        );
        let b = block(app, title, true).style(app.theme.popup);
        let inner = b.inner(r);
        b.render(r, buf);
        if lines.len() > inner_h {
            let [a, c] =
                Layout::horizontal([Constraint::Percentage(50), Constraint::Percentage(50)])
                    .areas(inner);
            let right = lines.split_off(lines.len().div_ceil(2));
            // Still too long for two columns: both scroll together, and say so.
            let overflow = lines.len().saturating_sub(inner_h);
            let y = self.scroll.min(overflow) as u16;
            Paragraph::new(lines).scroll((y, 0)).render(a, buf);
            Paragraph::new(right).scroll((y, 0)).render(c, buf);
            if overflow > 0 {
                let more = Line::styled(
                    format!(" j/k scroll · {} more ", overflow - y as usize),
                    app.theme.accent,
                );
                let w = more.width() as u16;
                more.render(
                    Rect {
                        x: r.x + r.width.saturating_sub(w + 1),
                        y: r.y + r.height.saturating_sub(1),
                        width: w.min(r.width),
                        height: 1,
                    },
                    buf,
                );
            }
        } else {
            Paragraph::new(lines).render(inner, buf);
        }
    }
}

/// Width of the help overlay (less on a narrower terminal).
const HELP_WIDTH: u16 = 72;

/// Columns taken by the key column (indent and keys).
const KEY_W: usize = 13;

/// One line per bound action, under a `[section]` heading per keymap section, for a
/// column `width` wide: a description too long for it goes on under itself rather
/// than being cut.
fn rows(app: &App, width: usize) -> Vec<Line<'static>> {
    let room = width.saturating_sub(KEY_W).max(8);
    let mut lines = Vec::new();
    let mut last = "";
    for (section, keys, desc) in app.keymap.help_rows() {
        if section != last {
            lines.push(Line::from(Span::styled(
                format!("[{section}]"),
                app.theme.title,
            )));
            last = section;
        }
        for (i, part) in wrap_words(desc, room).into_iter().enumerate() {
            let head = if i == 0 {
                format!("  {keys:<11}")
            } else {
                " ".repeat(KEY_W)
            };
            lines.push(Line::from(vec![
                Span::styled(head, app.theme.key),
                Span::raw(part),
            ]));
        }
    }
    lines.push(Line::from(Span::styled(
        format!("theme: {} · keys from keymap.toml", app.theme.name),
        app.theme.muted,
    )));
    lines
}

/// `text` in lines of at most `width` characters, broken between words (a word longer
/// than a line is broken inside).
fn wrap_words(text: &str, width: usize) -> Vec<String> {
    let mut lines = vec![String::new()];
    for word in text.split_whitespace() {
        let mut word: Vec<char> = word.chars().collect();
        loop {
            let cur = lines.last_mut().expect("never empty");
            let used = cur.chars().count();
            let sep = usize::from(used > 0);
            if used + sep + word.len() <= width {
                if sep == 1 {
                    cur.push(' ');
                }
                cur.extend(word.iter());
                break;
            }
            if used > 0 {
                lines.push(String::new());
                continue;
            }
            let rest = word.split_off(width.min(word.len()));
            cur.extend(word.iter());
            lines.push(String::new());
            word = rest;
            if word.is_empty() {
                lines.pop();
                break;
            }
        }
    }
    lines
}
