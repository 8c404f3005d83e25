//! The one format of a numbered source line in everything sent to a model (bundles,
//! slices, the discovery view, cited lines), with its one parser.
//!
//! A line is its number, one space, then the line exactly as in the file (`42 code`; an
//! empty line is the bare number, `42`): the `cat -n` style models know. Measured with a
//! BPE tokenizer (cl100k) on a full petstore-jdk run, right-aligned numbers with a bar
//! (`  42 | code`) cost about three tokens a line more, 8.5% of all prompt tokens. The
//! number always comes first, so a line of code cannot be read as another line's number.
//!
//! Left-out lines are one marker line that never parses as a numbered line: it starts
//! with `...`, not a digit.

/// The marker of lines not shown: a slice's gap says which ([`gap`]); the cited view's
/// skip between two cited ranges is the marker alone.
pub const ELLIPSIS: &str = "...";

/// Line `n` of a file whose text is `text` (without its line break).
pub fn line(n: usize, text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 8);
    push_line(&mut out, n, text);
    out.pop();
    out
}

/// Appends line `n` and a line break to `out` (what [`line`] renders, without allocating).
pub fn push_line(out: &mut String, n: usize, text: &str) {
    use std::fmt::Write as _;
    let _ = write!(out, "{n}");
    if !text.is_empty() {
        out.push(' ');
        out.push_str(text);
    }
    out.push('\n');
}

/// The line number and the code of a rendered line (without its line break): leading
/// ASCII digits (no leading zero, not 0), then the end of the line or one space, the rest
/// being the code exactly. `None` for anything else (a header, a gap marker).
pub fn parse(line: &str) -> Option<(usize, &str)> {
    let digits = line.bytes().take_while(u8::is_ascii_digit).count();
    if digits == 0 || line.starts_with('0') {
        return None;
    }
    let (number, rest) = line.split_at(digits);
    let code = match rest.strip_prefix(' ') {
        Some(code) => code,
        None if rest.is_empty() => "",
        None => return None,
    };
    Some((number.parse().ok()?, code))
}

/// The marker line (with its line break) that stands for left-out lines `a..=b`.
pub fn gap(a: usize, b: usize) -> String {
    if a == b {
        format!("{ELLIPSIS} line {a} left out\n")
    } else {
        format!("{ELLIPSIS} lines {a}-{b} left out\n")
    }
}

/// Whether `line` is a [`gap`] marker.
pub fn is_gap(line: &str) -> bool {
    line.strip_prefix(ELLIPSIS)
        .is_some_and(|rest| rest.starts_with(" line ") || rest.starts_with(" lines "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_the_number_a_space_and_the_line_exactly() {
        assert_eq!(line(42, "code"), "42 code");
        assert_eq!(line(7, ""), "7");
        assert_eq!(line(3, "    return x;"), "3     return x;");
        let mut out = String::new();
        push_line(&mut out, 12, "a");
        push_line(&mut out, 13, "");
        assert_eq!(out, "12 a\n13\n");
    }

    #[test]
    fn every_rendered_line_parses_back_to_its_number_and_text() {
        let texts = [
            "",
            "x",
            "    indented",
            "\tpublic void run() {",
            "    42 is the answer",
            "404 not found",
            "1",
            "   ",
            "a | b",
            "... lines 1-2 left out",
        ];
        for n in [1, 9, 10, 99, 100, 999, 1000, 9999, 10000, 99999] {
            for t in texts {
                let rendered = line(n, t);
                assert_eq!(parse(&rendered), Some((n, t)), "{rendered:?}");
                assert!(!rendered.contains('\n'));
            }
        }
    }

    #[test]
    fn gap_markers_headers_and_stray_text_never_parse_as_lines() {
        for not_a_line in [
            gap(1, 1).trim_end(),
            gap(4, 120).trim_end(),
            ELLIPSIS,
            "// ===== FILE: A.java (3 lines) =====",
            "",
            " 42 code",
            "42| code",
            "42x",
            "0 zero",
            "007 bond",
            "99999999999999999999999 overflow",
        ] {
            assert_eq!(parse(not_a_line), None, "{not_a_line:?}");
        }
        assert_eq!(gap(5, 5), "... line 5 left out\n");
        assert_eq!(gap(2, 9), "... lines 2-9 left out\n");
        assert!(is_gap(gap(5, 5).trim_end()) && is_gap(gap(2, 9).trim_end()));
        assert!(!is_gap(ELLIPSIS) && !is_gap(&line(1, "... line 1 left out")));
    }

    #[test]
    fn a_line_keeps_a_second_space_as_its_code() {
        assert_eq!(parse("5  x"), Some((5, " x")));
        assert_eq!(parse("5 "), Some((5, "")));
    }
}
