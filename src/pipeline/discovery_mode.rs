//! Whether a run asks the model for endpoint discovery (`--discovery auto|always|off`).
//!
//! Discovery costs one call per entry file, each carrying that file's bundle, yet its
//! answer can change a run in two ways only: it adds operations the scan found no handler
//! for, and it overrules a static match the evidence rule calls generic when a method of
//! the project could take its place (`agents::discovery`, `source::evidence`). When every
//! selected operation is matched and no answer could replace a match, or the reviewer
//! picked the handler, the answer cannot change what is extracted, so `auto` (the default)
//! skips it. Every path that starts or plans a run
//! (`mastor run`, its dry run, `mastor tui --run`, the workbench's re-runs and their
//! plans) decides here, through `cli::run::load`.

use crate::project::Prepared;
use serde::{Deserialize, Serialize};

/// The `--discovery` setting.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize, clap::ValueEnum,
)]
#[serde(rename_all = "snake_case")]
pub enum Discovery {
    /// Only when some selected operation has no static handler, or a generic one an
    /// answer could replace (`Prepared::discovery_needed`).
    #[default]
    Auto,
    /// Every run: the model cross-checks the static pre-match.
    Always,
    /// Never: the static pre-match alone.
    Off,
}

/// What was decided for one run, and why: reported by the run summary, its JSON and the
/// dry-run plan.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DiscoveryDecision {
    pub mode: Discovery,
    /// Whether discovery runs (in a plan: would run).
    pub ran: bool,
    pub why: String,
}

impl Discovery {
    /// The name used on the command line.
    pub fn as_str(self) -> &'static str {
        match self {
            Discovery::Auto => "auto",
            Discovery::Always => "always",
            Discovery::Off => "off",
        }
    }

    /// Whether discovery runs for `project` (its selected operations, with the reviewer's
    /// handler picks applied).
    pub fn resolve(self, project: &Prepared) -> bool {
        self.decide(project).ran
    }

    /// [`Discovery::resolve`], with the reason.
    pub fn decide(self, project: &Prepared) -> DiscoveryDecision {
        let (ran, why) = match self {
            Discovery::Off => (false, "turned off (--discovery off)".to_string()),
            Discovery::Always => (
                true,
                "--discovery always: the model cross-checks the static pre-match".to_string(),
            ),
            Discovery::Auto => match project.discovery_needed() {
                Some(why) => (true, why),
                None => (false, all_exact(project)),
            },
        };
        DiscoveryDecision {
            mode: self,
            ran,
            why,
        }
    }
}

/// Why `auto` skips discovery: every operation matched, by the scan (with no answer able
/// to replace the match) or by the reviewer's pick.
fn all_exact(project: &Prepared) -> String {
    let n = project.selected.len();
    if n == 0 {
        return "no operation is selected".into();
    }
    let picked = project
        .selected
        .iter()
        .filter(|op| project.picked(op))
        .count();
    match (n, picked) {
        (1, 0) => "the scan matched the operation and no answer could change the match".into(),
        (_, 0) => format!("the scan matched all {n} operations and no answer could change a match"),
        (1, 1) => "the reviewer picked the operation's handler".into(),
        _ if picked == n => format!("the reviewer picked the handler of all {n} operations"),
        _ => format!(
            "the reviewer picked the handler of {picked} of {n} operations and no answer \
             could change the scan's match of the others"
        ),
    }
}

impl DiscoveryDecision {
    /// One line for a report, the reason escaped: `not run (auto): the scan matched ...`
    /// after a run, `not planned (auto): ...` in a plan (`planned`).
    pub fn line(&self, planned: bool) -> String {
        let verb = match (self.ran, planned) {
            (true, false) => "ran",
            (false, false) => "not run",
            (true, true) => "planned, one call per entry file",
            (false, true) => "not planned",
        };
        format!(
            "{} ({}): {}",
            verb,
            self.mode.as_str(),
            crate::text::escape_controls(&self.why)
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::Exclusions;
    use std::path::Path;

    fn project(fixture: &str, ops: &[&str]) -> Prepared {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures")
            .join(fixture);
        let ops: Vec<String> = ops.iter().map(|s| s.to_string()).collect();
        Prepared::load(&root, None, &Exclusions::default(), &ops).expect("fixture loads")
    }

    #[test]
    fn auto_runs_only_where_an_answer_can_change_the_run() {
        let pets = project("petstore-jdk", &["GET /pets", "POST /pets"]);
        assert_eq!(pets.discovery_needed(), None);
        let d = Discovery::Auto.decide(&pets);
        assert!(!d.ran);
        assert_eq!(
            d.why,
            "the scan matched all 2 operations and no answer could change a match"
        );
        assert!(Discovery::Always.resolve(&pets));
        assert!(!Discovery::Off.resolve(&pets));

        // `StatsHandler.handle` routes on the request itself (generic), but it calls no
        // method of the project and no registration names one: no answer can replace it.
        let all = project("petstore-jdk", &[]);
        assert_eq!(all.discovery_needed(), None);
        assert!(!Discovery::Auto.resolve(&all));

        let weak = project("jdk-prefix-dispatch", &[]);
        let why = weak.discovery_needed().expect("weak matches");
        assert!(
            why.contains("GET /admin/v1/stats: the static match is weak"),
            "{why}"
        );
    }

    /// `auto` skips where `overrulable` says no answer can replace a match: checked
    /// against the rule itself, with every method of each fixture claimed through a
    /// bundle of all its files (what any real bundle shows is less).
    #[test]
    fn where_no_answer_can_replace_a_match_no_claim_does() {
        use crate::source::evidence::{ClaimSide, StaticSide, overrulable, overrule};
        let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
        let mut dirs: Vec<_> = std::fs::read_dir(&fixtures)
            .unwrap()
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| p.join("expected.json").is_file())
            .collect();
        dirs.sort();
        // `generic`: claims about a generic match (the interesting ones: the rest fail
        // at rule 1 already).
        let (mut claims, mut generic, mut replaceable) = (0, 0, 0);
        for dir in &dirs {
            let expected: serde_json::Value =
                serde_json::from_str(&std::fs::read_to_string(dir.join("expected.json")).unwrap())
                    .unwrap();
            let spec = expected["spec"].as_str().map(|s| dir.join(s));
            let p = Prepared::load(dir, spec.as_deref(), &Exclusions::default(), &[])
                .unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
            let files = &p.analysis.files;
            let all: Vec<String> = files.iter().map(|f| f.path.clone()).collect();
            for op in &p.selected {
                let Some(entry) = p.scanned_entry(op) else {
                    continue;
                };
                let side = StaticSide {
                    entry,
                    weak: p.weak_reason(op),
                    shared_by: p.shared_by(entry),
                };
                if overrulable(files, &side).is_some() {
                    replaceable += 1;
                    continue;
                }
                for f in files {
                    for t in &f.types {
                        for m in &t.methods {
                            let claim = ClaimSide {
                                file: &f.path,
                                class: &t.nested_name,
                                method: &m.name,
                            };
                            let won = overrule(files, &all, &side, &claim);
                            let Err(why) = won else {
                                panic!("{}: {op}: {won:?}", dir.display());
                            };
                            claims += 1;
                            if !why.contains("is specific") {
                                generic += 1;
                            }
                        }
                    }
                }
            }
        }
        assert!(claims > 1_000, "{claims} claims checked");
        assert!(
            generic >= 50,
            "{generic} claims about generic matches checked"
        );
        assert!(replaceable > 0, "no fixture has a replaceable match");
    }

    #[test]
    fn operations_without_a_static_handler_are_counted() {
        let shop = project("shop-spring", &[]);
        let missing = shop
            .selected
            .iter()
            .filter(|op| shop.scanned_entry(op).is_none())
            .count();
        assert!(missing > 0);
        let why = shop.discovery_needed().expect("unmatched operations");
        assert!(
            why.starts_with(&format!("{missing} operation"))
                && why.contains("without a static handler"),
            "{why}"
        );
    }

    #[test]
    fn state_files_without_the_decision_still_load() {
        use crate::pipeline::orchestrator::{Orchestrator, PipelineOptions};
        let mut o = Orchestrator::new(
            PipelineOptions::default(),
            ["GET /a".to_string()],
            ["GET /a".to_string()],
            ["A.java".to_string()],
        );
        // What a session written before the setting holds: no `discovery` key.
        let old = serde_json::to_value(&o).unwrap();
        assert!(old.get("discovery").is_none(), "{old}");
        let back: Orchestrator = serde_json::from_value(old).unwrap();
        assert_eq!(back.discovery, None);
        o.discovery = Some(DiscoveryDecision {
            mode: Discovery::Auto,
            ran: false,
            why: "the scan matched the operation and no answer could change the match".into(),
        });
        let text = serde_json::to_string(&o).unwrap();
        assert!(
            text.contains(r#""discovery":{"mode":"auto","ran":false"#),
            "{text}"
        );
        assert_eq!(serde_json::from_str::<Orchestrator>(&text).unwrap(), o);
    }

    #[test]
    fn the_reason_is_escaped_in_a_report_line() {
        let d = DiscoveryDecision {
            mode: Discovery::Auto,
            ran: true,
            why: "GET /x\u{1b}[2J: weak".into(),
        };
        let line = d.line(false);
        assert!(!line.contains('\u{1b}'), "{line}");
        assert!(line.starts_with("ran (auto): GET /x"), "{line}");
        assert!(
            d.line(true)
                .starts_with("planned, one call per entry file (auto)")
        );
    }
}
