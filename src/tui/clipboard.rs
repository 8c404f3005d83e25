//! Copying to the clipboard of the terminal the user sits at, through OSC 52.
//!
//! OSC 52 asks the terminal itself to set its clipboard, so a copy works over ssh and
//! inside tmux (with `set-clipboard on`), where a system clipboard library would set
//! the clipboard of the wrong machine or none at all. Terminals cap the sequence, so
//! the text is cut at [`MAX_COPY`] bytes and the status line says so.

use base64::Engine;

/// Most bytes copied at once (before base64); larger texts are cut at a char boundary.
pub const MAX_COPY: usize = 64 * 1024;

/// The OSC 52 sequence that puts `text` on the clipboard, and whether `text` was cut.
/// Control characters (ESC, BEL, NUL, `\r`, ...) are escaped first (`\u{1b}`): a
/// response body's escape sequences would otherwise run in whatever terminal it is
/// pasted into, and a BEL would end the OSC 52 sequence itself early.
pub fn osc52(text: &str) -> (String, bool) {
    let text = crate::text::escape_controls(text);
    let mut end = text.len().min(MAX_COPY);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let encoded = base64::engine::general_purpose::STANDARD.encode(&text.as_bytes()[..end]);
    (format!("\x1b]52;c;{encoded}\x07"), end < text.len())
}

/// What the status line says after a copy.
pub fn copied_words(what: &str, text: &str, cut: bool) -> String {
    if cut {
        format!(
            "copied the {what} (first {} KB of {} KB: terminals cap a copy)",
            MAX_COPY / 1024,
            text.len().div_ceil(1024)
        )
    } else {
        format!("copied the {what} ({} bytes) to the clipboard", text.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sequence_carries_the_text_base64_encoded() {
        let (seq, cut) = osc52("curl -X GET 'http://x/pets'");
        assert!(!cut);
        assert_eq!(seq, "\u{1b}]52;c;Y3VybCAtWCBHRVQgJ2h0dHA6Ly94L3BldHMn\u{7}");
    }

    #[test]
    fn control_characters_are_escaped_before_they_reach_the_clipboard() {
        let body = "{\"name\": \"\u{1b}]0;pwned\u{7}\u{1b}[2J\u{0}\"}\n\tend";
        let (seq, _) = osc52(body);
        let inner = seq
            .strip_prefix("\u{1b}]52;c;")
            .and_then(|s| s.strip_suffix('\u{7}'))
            .expect("one OSC 52 sequence");
        assert!(!inner.contains(['\u{1b}', '\u{7}']), "{seq:?}");
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(inner)
            .unwrap();
        let copied = String::from_utf8(bytes).unwrap();
        assert!(
            !copied
                .chars()
                .any(|c| c.is_control() && c != '\n' && c != '\t'),
            "{copied:?}"
        );
        assert_eq!(
            copied,
            "{\"name\": \"\\u{1b}]0;pwned\\u{7}\\u{1b}[2J\\u{0}\"}\n\tend"
        );
    }

    #[test]
    fn a_long_text_is_cut_on_a_char_boundary_and_says_so() {
        let text = "é".repeat(MAX_COPY);
        let (seq, cut) = osc52(&text);
        assert!(cut);
        let body = seq
            .trim_start_matches("\u{1b}]52;c;")
            .trim_end_matches('\u{7}');
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(body)
            .unwrap();
        assert_eq!(bytes.len(), MAX_COPY);
        assert!(String::from_utf8(bytes).is_ok());
        assert!(copied_words("response body", &text, true).contains("first 64 KB"));
    }
}
