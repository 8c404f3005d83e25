//! A source pane that can be read: long lines wrap (`w`) instead of being cut, and
//! `z` gives the source the whole width with the evidence lines still marked, at 80
//! and 120 columns.

use crate::tui_curation::with_failures;
use tui_common::bench::open_with;

use crate::tui_common;

/// The tail of PetHandler.java line 79, in the evidence of `GET /pets#fv_limit_10`.
const TAIL: &str = "100\");";
const LINE_79: &str = "throw ApiException.badRequest(\"limit must be between 1 and 100\");";

#[test]
fn long_source_lines_wrap_and_zoom_gives_the_source_the_whole_width() {
    let mut b = open_with(with_failures);
    b.press("<enter>");
    let cut = b.text(120, 40);
    assert!(cut.contains("PetHandler.java:72-80"), "{cut}");
    assert!(!cut.contains(TAIL), "the line is cut at 120 columns\n{cut}");
    // Wrapped: the cut part shows on the next row.
    b.press("w");
    let wrapped = b.text(120, 40);
    assert!(wrapped.contains(TAIL), "{wrapped}");
    assert!(wrapped.contains("wrapped"), "the title says so\n{wrapped}");
    b.press("w");
    // Zoomed: the source over the whole width, the list and oracle pane gone, the
    // evidence lines still marked.
    b.press("z");
    let zoomed = b.text(120, 40);
    assert!(zoomed.contains(LINE_79), "{zoomed}");
    assert!(!zoomed.contains("Oracles ("), "{zoomed}");
    let marked = zoomed.lines().filter(|l| l.contains('▶')).count();
    assert_eq!(marked, 9, "lines 72-80 are marked\n{zoomed}");
    let t = b.render(80, 24);
    insta::assert_snapshot!("source_zoom_80x24", t.backend());
    // z again: back to the panes.
    b.press("z");
    assert!(b.text(80, 24).contains("Oracles ("));
}
