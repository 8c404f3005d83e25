//! The one single-line text input of the workbench: filters, bundle search, notes, the
//! oracle run URL and the export path all edit a line through it.
//!
//! It is a one-line [`TextArea`] (the crate the JSON editor already uses), so cursor
//! movement, word deletion and the usual emacs keys come for free and behave the same
//! everywhere; `ctrl-u` (kill to the start) and `ctrl-w` (kill the word before the
//! cursor) work as in a shell. Keys that would start a second line are refused; confirming and
//! cancelling are the caller's business (the `[popup]` keymap section).

use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::style::Style;
use ratatui::text::Span;
use ratatui_textarea::{CursorMove, TextArea};

/// A line of text being typed, with a cursor.
#[derive(Debug, Clone, Default)]
pub struct LineEdit {
    area: TextArea<'static>,
}

impl LineEdit {
    /// A line holding `text`, the cursor at its end.
    pub fn new(text: impl Into<String>) -> LineEdit {
        let line: String = text.into().replace(['\n', '\r'], " ");
        let mut area = TextArea::new(vec![line]);
        area.move_cursor(CursorMove::End);
        LineEdit { area }
    }

    /// The text typed so far.
    pub fn text(&self) -> &str {
        self.area.lines().first().map_or("", String::as_str)
    }

    /// Where the cursor is, in characters from the start.
    pub fn cursor(&self) -> usize {
        self.area.cursor().1
    }

    /// Edits the line with `key`; returns whether the text changed. Enter, tab and
    /// other keys that would make a second line do nothing.
    pub fn input(&mut self, key: KeyEvent) -> bool {
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        let newline = matches!(key.code, KeyCode::Enter | KeyCode::Tab)
            || matches!(key.code, KeyCode::Char('\n' | '\r'))
            || (ctrl && matches!(key.code, KeyCode::Char('m' | 'j')));
        if newline {
            return false;
        }
        let before = self.text().to_string();
        match key.code {
            // Shell line editing: ctrl-u kills to the start of the line, ctrl-w the word
            // before the cursor (the text area's own ctrl-u is undo, not what a shell
            // user's fingers expect in a one-line input).
            KeyCode::Char('u') if ctrl => {
                self.area.delete_line_by_head();
            }
            KeyCode::Char('w') if ctrl => {
                self.area.delete_word();
            }
            _ => {
                self.area.input(key);
            }
        }
        if self.area.lines().len() > 1 {
            // A paste of several lines: keep them on one.
            let cursor = self.cursor();
            *self = LineEdit::new(self.area.lines().join(" "));
            self.area.move_cursor(CursorMove::Jump(0, cursor as u16));
        }
        self.text() != before
    }

    /// The text with a cursor mark drawn in `cursor` style where the next character goes.
    pub fn spans(&self, cursor: Style) -> Vec<Span<'static>> {
        let text = self.text();
        let at = text
            .char_indices()
            .nth(self.cursor())
            .map_or(text.len(), |(i, _)| i);
        let mut spans = vec![Span::raw(text[..at].to_string()), Span::styled("▏", cursor)];
        if at < text.len() {
            spans.push(Span::raw(text[at..].to_string()));
        }
        spans
    }
}

impl PartialEq for LineEdit {
    fn eq(&self, other: &LineEdit) -> bool {
        self.text() == other.text() && self.cursor() == other.cursor()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(code: KeyCode) -> KeyEvent {
        KeyEvent::new(code, KeyModifiers::NONE)
    }

    fn typed(edit: &mut LineEdit, text: &str) {
        for c in text.chars() {
            edit.input(key(KeyCode::Char(c)));
        }
    }

    #[test]
    fn types_deletes_and_moves_the_cursor() {
        let mut e = LineEdit::new("pets");
        assert_eq!(e.cursor(), 4);
        assert!(e.input(key(KeyCode::Backspace)));
        typed(&mut e, "s!");
        assert_eq!(e.text(), "pets!");
        assert!(!e.input(key(KeyCode::Left)));
        assert!(!e.input(key(KeyCode::Left)));
        typed(&mut e, "x");
        assert_eq!((e.text(), e.cursor()), ("petxs!", 4));
        let shown: String = e
            .spans(Style::default())
            .iter()
            .map(|s| s.content.as_ref())
            .collect();
        assert_eq!(shown, "petx▏s!");
    }

    #[test]
    fn stays_one_line() {
        let mut e = LineEdit::new("a\nb");
        assert_eq!(e.text(), "a b");
        assert!(!e.input(key(KeyCode::Enter)));
        assert!(!e.input(key(KeyCode::Tab)));
        assert!(!e.input(KeyEvent::new(KeyCode::Char('m'), KeyModifiers::CONTROL)));
        assert_eq!(e.text(), "a b");
    }

    #[test]
    fn ctrl_u_kills_to_the_start_and_ctrl_w_the_word_before() {
        let ctrl = |c| KeyEvent::new(KeyCode::Char(c), KeyModifiers::CONTROL);
        let mut e = LineEdit::new("http://127.0.0.1:8080/v2");
        assert!(e.input(ctrl('w')));
        assert_eq!(e.text(), "http://127.0.0.1:8080/");
        let mut e = LineEdit::new("pets owners");
        e.input(key(KeyCode::Left));
        assert!(e.input(ctrl('u')));
        assert_eq!((e.text(), e.cursor()), ("s", 0));
        assert!(!e.input(ctrl('u')), "nothing before the cursor");
    }

    #[test]
    fn handles_multibyte_text() {
        let mut e = LineEdit::new("né");
        e.input(key(KeyCode::Left));
        let shown: String = e
            .spans(Style::default())
            .iter()
            .map(|s| s.content.as_ref())
            .collect();
        assert_eq!(shown, "n▏é");
        e.input(key(KeyCode::Backspace));
        assert_eq!(e.text(), "é");
    }
}
