//! Making text from outside (API responses, suite files, error messages) safe to print.
//!
//! A response body can carry terminal escape sequences: `ESC ] 0 ; title BEL` renames the
//! terminal window, `ESC [ 2 J` clears it, a bare `CR` overwrites the line before it (a
//! failure can be made to look like a pass). Everything mastor prints from outside goes
//! through [`escape_controls`] first.

use std::borrow::Cow;
use std::fmt::Write;

/// True for characters that are escaped: control characters other than `\n` and `\t`
/// (which are layout), and the bidirectional overrides that reorder what is shown.
fn is_escaped(c: char) -> bool {
    (c.is_control() && c != '\n' && c != '\t')
        || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// Renders control characters visibly (`\r`, `\u{1b}`), so text from outside cannot move
/// the cursor, retitle or clear the terminal. Borrows when there is nothing to escape.
pub fn escape_controls(s: &str) -> Cow<'_, str> {
    if !s.chars().any(is_escaped) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 16);
    for c in s.chars() {
        match c {
            '\r' => out.push_str("\\r"),
            c if is_escaped(c) => {
                let _ = write!(out, "\\u{{{:x}}}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_terminal_controls_but_keeps_layout() {
        assert!(matches!(escape_controls("a\tb\nc ✓"), Cow::Borrowed(_)));
        assert_eq!(
            escape_controls("\x1b]0;pwned\x07\r ok\u{7f}\u{202e}"),
            r"\u{1b}]0;pwned\u{7}\r ok\u{7f}\u{202e}"
        );
    }
}
