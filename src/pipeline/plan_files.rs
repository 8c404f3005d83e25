//! Which files and lines a planned prompt carries, read from the rendered prompt itself
//! (so what is listed is what would be sent, redaction included), and which project files
//! no planned prompt carries, with the reason.

use crate::pipeline::plan::{NotSent, PlannedCall, SentFile};
use crate::project::Prepared;
use crate::source::numbered;
use std::collections::{BTreeMap, BTreeSet};

const HEADER: &str = "// ===== FILE: ";

/// The files and line ranges `prompt` shows: bundle files (under their headers, by their
/// numbered lines), seed data files and start-up code that creates records.
pub fn sent_files(project: &Prepared, prompt: &str) -> Vec<SentFile> {
    let mut lines: BTreeMap<String, BTreeSet<usize>> = BTreeMap::new();
    let mut current: Option<String> = None;
    for line in prompt.lines() {
        if let Some(rest) = line.strip_prefix(HEADER) {
            current = rest.rsplit_once(" (").map(|(path, _)| path.to_string());
            continue;
        }
        let Some(file) = &current else {
            continue;
        };
        match numbered::parse(line) {
            Some((n, _)) => {
                lines.entry(file.clone()).or_default().insert(n);
            }
            // A slice's elision marks or a cited view's gaps stay in the file.
            None if line.starts_with(numbered::ELLIPSIS) => {}
            None => current = None,
        }
    }
    let report = &project.analysis.report;
    for s in &report.seed_java {
        if prompt.contains(&format!("// ----- {}:{} (", s.file, s.line)) {
            lines
                .entry(s.file.clone())
                .or_default()
                .extend(s.line..=s.end_line);
        }
    }
    let mut out: Vec<SentFile> = lines
        .into_iter()
        .map(|(file, numbers)| {
            let redactions = report
                .redactions
                .iter()
                .filter(|r| r.file == file && numbers.contains(&r.line))
                .count();
            SentFile {
                lines: ranges(&numbers),
                file,
                redactions,
            }
        })
        .collect();
    for f in &report.seed_files {
        if prompt.contains(&format!("-- {f}\n")) {
            let redactions = report.redactions.iter().filter(|r| &r.file == f).count();
            out.push(SentFile {
                file: f.clone(),
                lines: "seed records".into(),
                redactions,
            });
        }
    }
    out
}

/// `1-4, 7, 9-10`.
fn ranges(numbers: &BTreeSet<usize>) -> String {
    let mut out: Vec<String> = Vec::new();
    let mut run: Option<(usize, usize)> = None;
    let show = |(a, b): (usize, usize)| {
        if a == b {
            a.to_string()
        } else {
            format!("{a}-{b}")
        }
    };
    for &n in numbers {
        run = match run {
            Some((a, b)) if n == b + 1 => Some((a, n)),
            Some(r) => {
                out.push(show(r));
                Some((n, n))
            }
            None => Some((n, n)),
        };
    }
    if let Some(r) = run {
        out.push(show(r));
    }
    out.join(", ")
}

/// The project's Java and seed files that no call in `calls` carries, each with why.
pub fn never_sent(project: &Prepared, calls: &[PlannedCall], mode: &str) -> Vec<NotSent> {
    let sent: BTreeSet<&str> = calls
        .iter()
        .flat_map(|c| c.sends.iter().map(|s| s.file.as_str()))
        .collect();
    let report = &project.analysis.report;
    let mut out = Vec::new();
    for f in &project.analysis.files {
        if sent.contains(f.path.as_str()) {
            continue;
        }
        let in_closure = report.closures.values().any(|c| c.contains(&f.path));
        let reason = if in_closure && mode == "slice" {
            "no selected operation's slice reaches it"
        } else if in_closure {
            "only in the bundles of operations this run does not cover"
        } else {
            "no entry file's import closure reaches it"
        };
        out.push(NotSent {
            file: f.path.clone(),
            reason: reason.into(),
        });
    }
    for r in &report.seed_refused {
        out.push(NotSent {
            file: r.file.clone(),
            reason: format!("seed file refused: {}", r.reason),
        });
    }
    for f in &report.seed_files {
        let refused = report.seed_refused.iter().any(|r| &r.file == f);
        if !refused && !sent.contains(f.as_str()) {
            out.push(NotSent {
                file: f.clone(),
                reason: "seed data is off (--no-seed-data) or capped before it".into(),
            });
        }
    }
    out
}

/// The resource an operation belongs to: its path's first segment.
pub fn resource_of(op_id: &str) -> String {
    let path = op_id.split_once(' ').map_or(op_id, |(_, p)| p);
    let first = path
        .trim_start_matches('/')
        .split('/')
        .next()
        .unwrap_or_default();
    format!("/{first}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_join_runs() {
        let n: BTreeSet<usize> = [1, 2, 3, 4, 7, 9, 10].into_iter().collect();
        assert_eq!(ranges(&n), "1-4, 7, 9-10");
        assert_eq!(ranges(&BTreeSet::new()), "");
    }

    #[test]
    fn resources_are_first_segments() {
        assert_eq!(resource_of("GET /pets/{id}"), "/pets");
        assert_eq!(resource_of("POST /pets"), "/pets");
        assert_eq!(resource_of("GET /"), "/");
    }
}
