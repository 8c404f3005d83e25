//! Every numbered line we send is written by `source::numbered` and read back by its one
//! parser: a closure bundle, a slice, discovery's declarations view and a challenger's
//! cited lines, rendered from a real fixture, hold no line in another format.

use crate::support::*;
use mastor::agents::cited::cited_lines;
use mastor::model::EvidenceRef;
use mastor::source::declarations::declarations_view;
use mastor::source::numbered;
use mastor::source::slice::ProjectSlicer;
use mastor::source::{AnalyseOptions, analyse};

const HEADER: &str = "// ===== FILE: ";

/// Checks that every line of `text` other than a file header, a gap marker, the cited
/// view's skip and its closing count is a numbered line of the file under the last
/// header, reproduced exactly; returns how many numbered lines there were.
fn check(what: &str, text: &str, file_text: &dyn Fn(&str) -> String) -> usize {
    let mut current: Option<Vec<String>> = None;
    let mut count = 0;
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix(HEADER) {
            let (path, _) = rest.rsplit_once(" (").expect("a header names its file");
            current = Some(file_text(path).lines().map(str::to_string).collect());
            continue;
        }
        if numbered::is_gap(line)
            || line == numbered::ELLIPSIS
            || line.starts_with('(') && line.contains("more cited lines left out")
        {
            assert!(numbered::parse(line).is_none(), "{what}: {line:?}");
            continue;
        }
        let (n, code) = numbered::parse(line)
            .unwrap_or_else(|| panic!("{what}: a line in another format: {line:?}"));
        assert_eq!(numbered::line(n, code), line, "{what}: round trip");
        let lines = current.as_ref().expect("a numbered line under a header");
        assert_eq!(
            lines.get(n - 1).map(String::as_str),
            Some(code),
            "{what}: line {n}"
        );
        count += 1;
    }
    count
}

#[test]
fn bundles_slices_declarations_and_cited_lines_share_one_format() {
    let root = fixture("petstore-jdk");
    let loaded = mastor::spec::load(&root.join("openapi.json")).unwrap();
    let analysis = analyse(&root, &loaded, &AnalyseOptions::default()).unwrap();
    let slicer = ProjectSlicer::new(&root, &analysis);
    let file_text = |p: &str| slicer.text(p).unwrap_or_default().to_string();

    let closure = &analysis.bundles[GET];
    let closure_lines = check("closure", &closure.text, &file_text);
    assert_eq!(closure_lines, closure.lines);

    let slice = slicer.bundle(&slicer.slice(GET).unwrap());
    assert!(
        slice.text.lines().any(numbered::is_gap),
        "the slice leaves lines out"
    );
    assert!(check("slice", &slice.text, &file_text) > 50);

    let (entry, bundle) = analysis
        .entry_bundles
        .iter()
        .find(|(e, _)| e.as_str() == PET_HANDLER)
        .expect("the handler's entry bundle");
    let view = declarations_view(&bundle.text, entry);
    assert!(view.lines().any(numbered::is_gap), "bodies are left out");
    assert!(check("declarations", &view, &file_text) > 50);

    let refs = [
        EvidenceRef {
            file: PET_HANDLER.into(),
            start_line: 96,
            end_line: 98,
        },
        EvidenceRef {
            file: PET_HANDLER.into(),
            start_line: 110,
            end_line: 112,
        },
    ];
    let cited = cited_lines(&closure.text, &refs);
    assert!(cited.lines().any(|l| l == numbered::ELLIPSIS), "{cited}");
    assert_eq!(check("cited", &cited, &file_text), 14, "{cited}");
}
