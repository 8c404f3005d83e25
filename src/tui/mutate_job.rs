//! Running `mastor mutate` from the workbench: the settings asked for (start and build
//! commands, a mutant limit), remembered per session in `SESSION/mutation/tui.json`,
//! and the task body, which reports progress like every task (`executor::Reporter`).
//!
//! The analysis is `mutate::analysis` exactly as the CLI runs it (same defaults: two
//! jobs, ready on `/` within 30 s, 5 s per request); the workbench only reloads the
//! results when it ends. It runs the accepted and edited oracles, or every oracle when
//! the review has accepted none yet (so kills can guide a first review).

use super::executor::Reporter;
use super::state::App;
use super::tasks::Work;
use super::update::Effect;
use crate::mutate::analysis::{self, Options};
use crate::suite::Only;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// The settings file, inside the session's `mutation/`.
pub const SETTINGS_FILE: &str = "tui.json";

/// The mutant limit a first run gets, so it ends in minutes.
pub const DEFAULT_MAX_MUTANTS: usize = 20;

/// What the run popup asks for, remembered per session.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MutateSettings {
    /// Start command template (`{dir}`, `{port}`, `{classpath}`); empty: the default.
    #[serde(default)]
    pub start: String,
    /// Build command template (`{dir}`); empty: javac of the one changed file.
    #[serde(default)]
    pub build: String,
    /// At most this many mutants (a seeded sample); `None`: every mutant.
    #[serde(default = "default_max")]
    pub max_mutants: Option<usize>,
}

fn default_max() -> Option<usize> {
    Some(DEFAULT_MAX_MUTANTS)
}

impl Default for MutateSettings {
    fn default() -> Self {
        MutateSettings {
            start: String::new(),
            build: String::new(),
            max_mutants: default_max(),
        }
    }
}

/// Where a session's settings live.
pub fn settings_path(session_dir: &Path) -> PathBuf {
    session_dir
        .join(super::mutation::MUTATION_DIR)
        .join(SETTINGS_FILE)
}

/// The remembered settings (defaults when there are none); `Err` names a broken file,
/// whose settings are then the defaults.
pub fn read_settings(session_dir: &Path) -> Result<MutateSettings, String> {
    let path = settings_path(session_dir);
    if !path.is_file() {
        return Ok(MutateSettings::default());
    }
    let text = std::fs::read_to_string(&path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))
}

/// Remembers `s` for the next run of this session (atomically, with the one settings
/// writer).
pub fn write_settings(session_dir: &Path, s: &MutateSettings) -> Result<(), String> {
    crate::store::settings_file::write_json(&settings_path(session_dir), s)
        .map_err(|e| e.to_string())
}

/// The analysis options for a session: the CLI's defaults, plus the settings. The
/// project is the one the workbench shows sources from (an imported session records
/// none).
pub fn options(session_dir: &Path, project: &Path, s: &MutateSettings, only: Only) -> Options {
    Options::for_workbench(
        session_dir,
        project,
        &s.start,
        &s.build,
        s.max_mutants,
        only,
    )
}

/// Runs the analysis of the session in `dir` (blocking, on its own tokio runtime),
/// reporting progress to `r`; returns a one-line summary.
pub fn run(
    dir: &Path,
    project: &Path,
    s: &MutateSettings,
    only: Only,
    r: &Reporter,
) -> Result<String, String> {
    let opts = options(dir, project, s, only);
    let target = analysis::load_target(&opts)?;
    let (mutants, _skipped) = analysis::list_mutants(&target, &opts)?;
    let total = mutants.len();
    r.progress(0, total);
    let done = std::sync::atomic::AtomicUsize::new(0);
    let progress = |_: &crate::mutate::Mutant, _: &crate::mutate::MutantOutcome| {
        let n = done.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
        r.progress(n, total);
    };
    // A closed terminal (SIGHUP) or SIGTERM while mutants run stops their servers too.
    let _ = crate::runner::signals::stop_groups_on_signals(|words| {
        ratatui::restore();
        eprintln!("mastor tui: mutation analysis {words}");
    });
    let rt = tokio::runtime::Runtime::new()
        .map_err(|e| format!("cannot start the async runtime: {e}"))?;
    let result = rt.block_on(analysis::execute(&target, &opts, mutants, &progress));
    crate::runner::signals::park_if_stopping();
    let report = result?;
    // What `mastor mutate` records too: a regeneration from survivors (`g` / `G` on
    // the Mutants screen) re-runs the mutants with these options and refuses without.
    if let Err(e) = analysis::Settings::of(&opts).write(&target.results.dir) {
        tracing::warn!(error = %e, "mutation options not recorded");
    }
    let c = &report.summary.total;
    let mut line = format!(
        "mutate: score {} ({} caught, {} missed, {} timeout, {} unviable, {} not covered; ran {}, \
         reused {})",
        super::mutation::percent(c.score),
        c.caught,
        c.missed,
        c.timeout,
        c.unviable,
        c.not_covered,
        report.ran,
        report.reused
    );
    if only == Only::All {
        line.push_str("; no accepted oracles, so every oracle ran");
    }
    if let Some(e) = report.errors.first() {
        line.push_str(&format!("; {} error(s), first: {e}", report.errors.len()));
    }
    Ok(crate::text::escape_controls(&line).into_owned())
}

/// The run popup was accepted: remembers the settings, then asks for the run on the
/// accepted oracles (every oracle when none is accepted yet), unless something runs.
pub fn start(app: &mut App, settings: MutateSettings) -> Vec<Effect> {
    if let Some(why) = super::jobs::busy(app) {
        app.error(format!("cannot run mutate now: {why}"));
        return Vec::new();
    }
    if let Err(e) = write_settings(&app.view.dir, &settings) {
        app.error(format!("settings not remembered: {e}"));
    }
    // Any accepted or edited item (oracle, sequence, metamorphic test) makes a suite.
    let accepted = app.view.decisions.values().any(|d| {
        matches!(
            d.decision,
            crate::model::Decision::Accepted | crate::model::Decision::Edited
        )
    });
    let only = if accepted { Only::Accepted } else { Only::All };
    app.notify(match only {
        Only::Accepted => "mutate: listing mutants of the accepted oracles' files…",
        Only::All => "mutate: no accepted oracles yet, running every oracle…",
    });
    let project = app.view.project_root.clone();
    let work = Work::Mutate {
        settings,
        only,
        project,
    };
    super::jobs::start(app, work, "mutation analysis")
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn settings_round_trip_and_refuse_unknown_keys() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(read_settings(dir.path()), Ok(MutateSettings::default()));
        let s = MutateSettings {
            start: "java -jar app.jar {port}".into(),
            build: String::new(),
            max_mutants: None,
        };
        write_settings(dir.path(), &s).unwrap();
        assert_eq!(read_settings(dir.path()), Ok(s));
        std::fs::write(settings_path(dir.path()), r#"{"start": "", "jobs": 4}"#).unwrap();
        let err = read_settings(dir.path()).unwrap_err();
        assert!(err.contains("tui.json") && err.contains("jobs"), "{err}");
    }

    #[test]
    fn empty_commands_mean_the_defaults() {
        let o = options(
            Path::new("/s"),
            Path::new("/p"),
            &MutateSettings::default(),
            Only::Accepted,
        );
        assert_eq!(o.project.as_deref(), Some(Path::new("/p")));
        assert_eq!((o.build, o.start, o.max_mutants), (None, None, Some(20)));
        assert_eq!((o.jobs, o.ready.as_str()), (2, "/"));
        assert_eq!(o.request_timeout, Duration::from_secs(5));
        assert_eq!(o.ready_timeout, Duration::from_secs(30));
    }
}
