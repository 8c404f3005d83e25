//! The lines a suite and its contexts cite, cut from the bundle: what the challengers
//! read instead of the whole bundle.
//!
//! A challenger reviews oracles against the verified contexts, which extraction built
//! from the bundle so that later agents reason from checked facts; what it must still
//! see of the code is the evidence those facts and the oracles point at. The generators
//! and the regenerations write new evidence, so they keep the bundle (sent as the shared
//! prefix). A challenger often runs on another model, where a prefix cached for the
//! primary would not help, so a short view is what saves there.

use crate::agents::fit::split_bundle;
use crate::model::EvidenceRef;
use crate::source::numbered;
use std::collections::BTreeMap;

/// Lines kept on either side of a cited range, so a cited condition shows its branch.
pub const MARGIN: usize = 2;
/// Most lines shown in all; what is left out is counted, not hidden.
pub const MAX_LINES: usize = 400;

/// The bundle lines `refs` cite (each range widened by [`MARGIN`]), in bundle order under
/// the bundle's own file headers and numbered lines (`source::numbered`), a `...` line
/// where lines are skipped.
/// A reference to a file or line the bundle lacks shows nothing. "(no lines cited)" when
/// nothing is cited.
pub fn cited_lines<'a>(bundle: &str, refs: impl IntoIterator<Item = &'a EvidenceRef>) -> String {
    let mut ranges: BTreeMap<&str, Vec<(usize, usize)>> = BTreeMap::new();
    for r in refs {
        let (a, b) = (r.start_line.min(r.end_line), r.start_line.max(r.end_line));
        ranges
            .entry(r.file.as_str())
            .or_default()
            .push((a.saturating_sub(MARGIN), b.saturating_add(MARGIN)));
    }
    let mut out = String::new();
    let (mut shown, mut left_out) = (0usize, 0usize);
    for chunk in split_bundle(bundle).1 {
        let Some(wanted) = ranges.get(chunk.path) else {
            continue;
        };
        let mut lines = chunk.text.lines();
        let header = lines.next().unwrap_or_default();
        let mut body = String::new();
        let mut last: Option<usize> = None;
        for line in lines {
            let Some((n, _)) = numbered::parse(line) else {
                continue;
            };
            if !wanted.iter().any(|(a, b)| (*a..=*b).contains(&n)) {
                continue;
            }
            if shown >= MAX_LINES {
                left_out += 1;
                continue;
            }
            if last.is_some_and(|l| n > l + 1) {
                body.push_str(numbered::ELLIPSIS);
                body.push('\n');
            }
            body.push_str(line);
            body.push('\n');
            last = Some(n);
            shown += 1;
        }
        if !body.is_empty() {
            out.push_str(header);
            out.push('\n');
            out.push_str(&body);
        }
    }
    if left_out > 0 {
        out.push_str(&format!(
            "({left_out} more cited lines left out: at most {MAX_LINES} are shown)\n"
        ));
    }
    if out.is_empty() {
        return "(no lines cited)".into();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::bundle::render_file;

    fn r(file: &str, a: usize, b: usize) -> EvidenceRef {
        EvidenceRef {
            file: file.into(),
            start_line: a,
            end_line: b,
        }
    }

    #[test]
    fn cited_ranges_are_cut_with_a_margin_under_their_file_header() {
        let a: String = (1..=30).map(|i| format!("line a{i}\n")).collect();
        let b: String = (1..=5).map(|i| format!("line b{i}\n")).collect();
        let bundle = format!("{}{}", render_file("A.java", &a), render_file("B.java", &b));
        let out = cited_lines(&bundle, &[r("A.java", 10, 10), r("A.java", 20, 21)]);
        assert!(
            out.starts_with("// ===== FILE: A.java (30 lines) ====="),
            "{out}"
        );
        for n in [8, 9, 10, 11, 12, 18, 23] {
            assert!(
                out.contains(&format!("\n{n} line a{n}\n")),
                "line {n}: {out}"
            );
        }
        for n in [7, 13, 17, 24] {
            assert!(!out.contains(&format!(" line a{n}\n")), "line {n}: {out}");
        }
        assert_eq!(out.matches("\n...\n").count(), 1, "{out}");
        assert!(
            !out.contains("B.java"),
            "an uncited file is not shown: {out}"
        );
    }

    #[test]
    fn nothing_cited_or_nothing_found_says_so() {
        let bundle = render_file("A.java", "x\ny\n");
        assert_eq!(cited_lines(&bundle, &[]), "(no lines cited)");
        assert_eq!(
            cited_lines(&bundle, &[r("Nowhere.java", 1, 2)]),
            "(no lines cited)"
        );
    }

    #[test]
    fn the_view_is_bounded() {
        let a: String = (1..=1000).map(|i| format!("l{i}\n")).collect();
        let bundle = render_file("A.java", &a);
        let out = cited_lines(&bundle, &[r("A.java", 1, 1000)]);
        assert_eq!(
            out.lines().filter(|l| numbered::parse(l).is_some()).count(),
            MAX_LINES
        );
        assert!(out.contains("(600 more cited lines left out"), "{out}");
    }
}
