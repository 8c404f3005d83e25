//! Whether a run asks the model for endpoint discovery (`--discovery auto|always|off`).
//!
//! Discovery costs one call per entry file, each carrying that file's bundle, yet its
//! answer can change a run in two ways only: it adds operations the scan found no handler
//! for, and it overrules a static match the evidence rule calls generic
//! (`agents::discovery`, `source::evidence`). When the scan matched every selected
//! operation exactly, or the reviewer picked the handler, the answer cannot change what is
//! extracted, so `auto` (the default) skips it. Every path that starts or plans a run
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
    /// Only when some selected operation has no static handler or a generic one.
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

/// Why `auto` skips discovery: how many operations the scan (or the reviewer) resolved.
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
    let all = match n {
        1 => "the scan matched the operation exactly".to_string(),
        _ => format!("the scan matched all {n} operations exactly"),
    };
    match picked {
        0 => all,
        _ if picked == n => match n {
            1 => "the reviewer picked the operation's handler".to_string(),
            _ => format!("the reviewer picked the handler of all {n} operations"),
        },
        _ => format!(
            "the scan matched {} of {n} operations exactly and the reviewer picked the \
             handler of {picked}",
            n - picked
        ),
    }
}

impl DiscoveryDecision {
    /// One line for a report: `auto, not run: the scan matched ...`. `ran` / `not run`
    /// read as a plan's `runs` / `not planned` through `planned`.
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
        assert_eq!(d.why, "the scan matched all 2 operations exactly");
        assert!(Discovery::Always.resolve(&pets));
        assert!(!Discovery::Off.resolve(&pets));

        // A handler that routes on the request itself is one discovery may overrule.
        let stats = project("petstore-jdk", &["GET /stats"]);
        let why = stats.discovery_needed().expect("generic");
        assert!(why.starts_with("GET /stats: the static handler"), "{why}");
        assert!(Discovery::Auto.resolve(&stats));
        assert!(!Discovery::Off.resolve(&stats));

        let weak = project("jdk-prefix-dispatch", &[]);
        let why = weak.discovery_needed().expect("weak matches");
        assert!(
            why.contains("GET /admin/v1/stats: the static match is weak"),
            "{why}"
        );
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
            why: "the scan matched the operation exactly".into(),
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
