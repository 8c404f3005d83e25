//! What endpoint discovery reads of an entry file's bundle: the entry file whole, every
//! other file as its declarations.
//!
//! Discovery matches operations to handler methods. The routing it must see is in the
//! entry file, in annotations and signatures (Spring, JAX-RS), and in the few method
//! bodies that branch on the path (a JDK `handle`, a helper that splits the path, a
//! check against a path literal); the other bodies (stores, models, serializers) decide
//! responses, not routes, and made an application's main file carry every file of the
//! project. A member's body is kept whole when it is a `handle` method, names a path
//! literal, registers a context, or is short enough that its signature would save
//! nothing; anything else keeps its annotations and signature. Kept lines keep their
//! numbers, so discovery's answer (a file and a line) reads as before.

use crate::source::numbered;
use crate::source::slice::facts::{FileFacts, MemberKind, file_facts};
use crate::source::slice::render_slice_file;

/// A body this short (lines, signature and closing brace included) is kept whole.
const SHORT_BODY: usize = 6;

const HEADER: &str = "// ===== FILE: ";

/// The discovery view of a rendered closure bundle: the `entry_file` chunk as it is,
/// every other file reduced to its declarations. A file shown only in part (a slice's
/// gap markers) is passed on as it is.
pub fn declarations_view(bundle: &str, entry_file: &str) -> String {
    let mut out = String::with_capacity(bundle.len());
    for chunk in chunks(bundle) {
        let path = chunk
            .lines()
            .next()
            .and_then(|l| l.strip_prefix(HEADER))
            .and_then(|rest| rest.rsplit_once(" ("))
            .map(|(p, _)| p);
        match path.filter(|p| *p != entry_file) {
            Some(path) => match source_of(chunk) {
                Some(text) => {
                    let ranges = kept(&file_facts(&text), &text);
                    out.push_str(&render_slice_file(path, &text, &ranges));
                }
                None => out.push_str(chunk),
            },
            None => out.push_str(chunk),
        }
    }
    out
}

/// The bundle's files, each chunk from its header line to the next.
fn chunks(bundle: &str) -> Vec<&str> {
    let mut starts = Vec::new();
    let mut offset = 0;
    for line in bundle.split_inclusive('\n') {
        if line.starts_with(HEADER) {
            starts.push(offset);
        }
        offset += line.len();
    }
    if starts.first() != Some(&0) {
        starts.insert(0, 0);
    }
    starts
        .iter()
        .enumerate()
        .map(|(i, &a)| &bundle[a..starts.get(i + 1).copied().unwrap_or(bundle.len())])
        .filter(|c| !c.is_empty())
        .collect()
}

/// The file's text from a chunk showing every line (`source::numbered`, numbered from 1
/// without a gap); `None` otherwise.
fn source_of(chunk: &str) -> Option<String> {
    let mut text = String::new();
    for (i, line) in chunk.lines().skip(1).enumerate() {
        let (n, code) = numbered::parse(line)?;
        if n != i + 1 {
            return None;
        }
        text.push_str(code);
        text.push('\n');
    }
    (!text.is_empty()).then_some(text)
}

/// The line ranges the view keeps of one file.
fn kept(facts: &FileFacts, text: &str) -> Vec<(usize, usize)> {
    let lines: Vec<&str> = text.lines().collect();
    let body = |a: usize, b: usize| lines[a.saturating_sub(1)..b.min(lines.len())].join("\n");
    let mut ranges = Vec::new();
    for ty in &facts.types {
        ranges.push(ty.header);
        for m in &ty.members {
            let whole = m.kind != MemberKind::Method && m.kind != MemberKind::Constructor
                || m.name == "handle"
                || m.end + 1 - m.start <= SHORT_BODY
                || routes(&body(m.start, m.end));
            if whole {
                ranges.push((m.start, m.end));
            } else {
                // Annotations and the signature, through the line that opens the body.
                let open = (m.name_line..=m.end)
                    .find(|&n| lines.get(n - 1).is_some_and(|l| l.contains(['{', ';'])))
                    .unwrap_or(m.end);
                ranges.push((m.start, open));
            }
        }
        ranges.push((ty.close, ty.close));
    }
    ranges.sort_unstable();
    let mut merged: Vec<(usize, usize)> = Vec::new();
    for (a, b) in ranges {
        match merged.last_mut() {
            // A one-line gap (a blank line between members) is shown, not marked.
            Some(last) if a <= last.1 + 2 => last.1 = last.1.max(b),
            _ => merged.push((a, b)),
        }
    }
    merged
}

/// Whether a member's text routes requests: it names a path literal or registers a
/// context.
fn routes(text: &str) -> bool {
    text.contains("\"/") || text.contains("createContext")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::bundle::render_file;

    const STORE: &str = "package p;

public class Store {
    private final java.util.Map<Long, String> pets = new java.util.HashMap<>();

    public String get(long id) {
        String p = pets.get(id);
        if (p == null) {
            throw new IllegalStateException();
        }
        return p.trim();
    }
}
";

    const HANDLER: &str = "package p;

public class PetHandler implements HttpHandler {
    @Override
    public void handle(HttpExchange ex) {
        String path = ex.getRequestURI().getPath();
        if (path.equals(\"/pets\")) {
            list(ex);
        }
    }
}
";

    #[test]
    fn the_entry_file_stays_whole_and_other_bodies_become_signatures() {
        let bundle = format!(
            "{}{}{}",
            render_file(
                "Main.java",
                "class Main {\n  void main() {\n    x();\n  }\n}\n"
            ),
            render_file("Store.java", STORE),
            render_file("PetHandler.java", HANDLER),
        );
        let view = declarations_view(&bundle, "Main.java");
        assert!(view.starts_with(&render_file(
            "Main.java",
            "class Main {\n  void main() {\n    x();\n  }\n}\n"
        )));
        // The store: its field and the signature stay, the body is left out.
        assert!(
            view.contains("\n4     private final java.util.Map"),
            "{view}"
        );
        assert!(
            view.contains("\n6     public String get(long id) {\n"),
            "{view}"
        );
        assert!(!view.contains("p.trim()"), "{view}");
        assert!(view.contains("lines 7-12 left out"), "{view}");
        assert!(view.contains("\n13 }\n"), "{view}");
        // A handle method routes: kept whole, with its line numbers.
        assert!(
            view.contains("\n7         if (path.equals(\"/pets\")) {\n"),
            "{view}"
        );
        assert!(view.len() < bundle.len());
    }

    /// Mappings declared on an interface (Spring's inherited mappings) are annotations
    /// and signatures: all of it stays.
    #[test]
    fn an_interfaces_mappings_stay_whole() {
        let api = "package p;

@RequestMapping(\"/api\")
public interface PetApi {
    @GetMapping(\"/pets/{id}\")
    Pet get(@PathVariable long id,
            @RequestParam(required = false) String view);
}
";
        let bundle = format!(
            "{}{}",
            render_file("PetController.java", "class PetController {}\n"),
            render_file("PetApi.java", api)
        );
        let view = declarations_view(&bundle, "PetController.java");
        for n in 3..=8 {
            assert!(
                view.lines()
                    .any(|l| numbered::parse(l).is_some_and(|(m, _)| m == n)),
                "line {n}: {view}"
            );
        }
    }

    #[test]
    fn a_file_shown_in_part_is_passed_on() {
        let part = "// ===== FILE: A.java (30 lines) =====\n1 class A {\n... lines 2-30 left out\n";
        assert_eq!(declarations_view(part, "Main.java"), part);
    }
}
