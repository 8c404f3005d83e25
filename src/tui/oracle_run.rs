//! Running a session's oracles against a live API from the workbench (`ctrl-t`): which
//! oracles (the run scope), the settings remembered in `SESSION/tui.json` (base URL,
//! reset command), and the blocking job body.
//!
//! With a reset command the run makes fresh state as `mastor check --reset CMD` does
//! (before the oracles that declare `fresh_state`), then re-runs each failure alone
//! right after the command and labels it, as `--isolate-failures` does: the run is
//! `mastor check`'s own ([`crate::suite::run`]), so selection, type filters, error
//! verdicts for what cannot run and the stored verdict file are the same. Nothing here
//! prints: the job runs under the workbench's screen, so every word goes into the
//! returned summary.

use super::view::SessionView;
use crate::model::{Outcome, ReviewState};
use crate::suite::Only;
use crate::suite::run::{Event, RunError, RunOptions};
use std::path::Path;

/// Environment variable that prefills the base URL of the oracle run popup.
pub const API_URL_ENV: &str = "MASTOR_API_URL";

/// Which oracles `ctrl-t` runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RunScope {
    /// The accepted and edited oracles (what `mastor check` runs by default).
    Accepted,
    /// Every oracle whatever its review state, dropped ones excepted.
    All,
    /// The oracles whose latest verdict is a failure or an error.
    Failing,
    /// The oracles still to review (proposed).
    ToReview,
}

impl RunScope {
    /// The scopes in the order the popup cycles through them.
    pub const ALL: [RunScope; 4] = [
        RunScope::Accepted,
        RunScope::All,
        RunScope::Failing,
        RunScope::ToReview,
    ];

    /// How the popup and the status line name the scope.
    pub fn label(self) -> &'static str {
        match self {
            RunScope::Accepted => "accepted and edited",
            RunScope::All => "all",
            RunScope::Failing => "failing",
            RunScope::ToReview => "to review",
        }
    }

    /// The scope after this one (wrapping).
    pub fn next(self) -> RunScope {
        let i = RunScope::ALL.iter().position(|s| *s == self).unwrap_or(0);
        RunScope::ALL[(i + 1) % RunScope::ALL.len()]
    }

    /// The o_ids the scope selects in `view`, sorted; empty for `Accepted`, which the
    /// job selects itself from the session on disk (as `mastor check` does).
    pub fn ids(self, view: &SessionView) -> Vec<String> {
        if self == RunScope::Accepted {
            return Vec::new();
        }
        let mut ids: Vec<String> = all_ids(view)
            .into_iter()
            .filter(|o| {
                let state = view.review_state(o);
                match self {
                    RunScope::Accepted => false,
                    RunScope::All => state != ReviewState::Dropped,
                    RunScope::Failing => {
                        matches!(view.verdicts.get(o), Some(Outcome::Fail | Outcome::Error))
                    }
                    RunScope::ToReview => state == ReviewState::Proposed,
                }
            })
            .collect();
        ids.sort();
        ids.dedup();
        ids
    }
}

/// Every o_id of the session: single-operation oracles, sequences, metamorphic tests.
fn all_ids(view: &SessionView) -> Vec<String> {
    let ops = view
        .ops
        .iter()
        .flat_map(|o| o.oracles.iter().map(|x| x.o_id()));
    let groups = view
        .groups
        .iter()
        .flat_map(|g| g.oracles.iter().map(|x| x.o_id()));
    let mrs = view.metamorphic.iter().map(|t| t.o_id());
    ops.chain(groups).chain(mrs).collect()
}

/// The workbench's remembered settings of a session, in `SESSION/tui.json`.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TuiPrefs {
    /// Base URL of the last oracle run started from the workbench.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api_url: Option<String>,
    /// Reset command of the last oracle run started from the workbench (none: the run
    /// had no fresh state and no isolation of failures).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reset: Option<String>,
}

/// Where a session's workbench settings live.
pub const PREFS_FILE: &str = "tui.json";

/// The remembered settings (defaults when there are none or they cannot be read: a
/// prefill is a convenience, never a reason to refuse opening the session).
pub fn read_prefs(session_dir: &Path) -> TuiPrefs {
    let path = session_dir.join(PREFS_FILE);
    let Ok(text) = std::fs::read_to_string(&path) else {
        return TuiPrefs::default();
    };
    serde_json::from_str(&text).unwrap_or_else(|e| {
        tracing::warn!(path = %path.display(), error = %e, "workbench settings ignored");
        TuiPrefs::default()
    })
}

/// Remembers `prefs` for the next launch (with the one settings writer: atomic, and the
/// old file kept when the write fails).
pub fn write_prefs(session_dir: &Path, prefs: &TuiPrefs) -> Result<(), String> {
    crate::store::settings_file::write_json(&session_dir.join(PREFS_FILE), prefs)
        .map_err(|e| e.to_string())
}

/// Runs the accepted and edited oracles of the session in `dir` against `base_url`
/// (blocking) and saves the verdicts; see [`run_oracles_with`].
pub fn run_oracles(
    dir: &Path,
    base_url: &str,
    only: &[String],
    progress: &(dyn Fn(usize, usize) + Sync),
) -> Result<String, String> {
    run_oracles_with(dir, base_url, only, None, progress)
}

/// Runs oracles of the session in `dir` against `base_url` (blocking, on its own tokio
/// runtime) and saves the verdicts; returns a one-line summary. `only` narrows the run
/// to those o_ids whatever their review state (empty: the accepted and edited oracles).
/// With `reset`, fresh state and isolation of failures as `mastor check --reset CMD
/// --isolate-failures`. `progress(done, total)` hears of each verdict (from the
/// runner's threads). [`run_oracles_opts`] takes every option `mastor check` has.
pub fn run_oracles_with(
    dir: &Path,
    base_url: &str,
    only: &[String],
    reset: Option<&str>,
    progress: &(dyn Fn(usize, usize) + Sync),
) -> Result<String, String> {
    let reset = reset.map(str::trim).filter(|c| !c.is_empty());
    let mut opts = RunOptions::new(base_url);
    opts.ids = only.iter().cloned().collect();
    opts.config.reset = reset.map(str::to_string);
    opts.isolate_failures = reset.is_some();
    run_oracles_opts(dir, &opts, progress)
}

/// Runs oracles of the session in `dir` as `mastor check` does with the same options
/// (it is the same function, [`crate::suite::run`]): review scope or o_ids, `--op` and
/// type filters, reset command and scope, isolation of failures, timeouts, error
/// verdicts for what cannot run; the verdicts are stored the same way. Returns a
/// one-line summary; warnings (an edit that no longer parses, an inconclusive
/// isolation) are counted in it, since nothing may print under the workbench's screen.
pub fn run_oracles_opts(
    dir: &Path,
    opts: &RunOptions,
    progress: &(dyn Fn(usize, usize) + Sync),
) -> Result<String, String> {
    let warnings = std::sync::atomic::AtomicUsize::new(0);
    let events = |e: Event| match e {
        Event::Progress { done, total } => progress(done, total),
        Event::Warning(_) | Event::Skipped(_) | Event::Inconclusive { .. } => {
            warnings.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        }
        Event::Isolating { .. } => {}
    };
    let checked = match crate::suite::run::run(dir, opts, &events) {
        Ok(c) => c,
        Err(RunError::NothingToRun(n))
            if n.only == Only::Accepted && opts.types.is_empty() && opts.ops.is_empty() =>
        {
            return Err("no accepted or edited oracles to run: accept some first".into());
        }
        Err(e) => return Err(e.to_string()),
    };
    let s = &checked.report.summary;
    let mut line = format!(
        "oracles run: {} pass, {} fail, {} error{}",
        s.passed,
        s.failed,
        s.errors,
        checked.isolation_summary()
    );
    let warned = warnings.into_inner();
    if warned > 0 {
        line.push_str(&format!(
            "; {warned} warning(s): run `mastor check` to read them"
        ));
    }
    if let Some(stored) = &checked.stored {
        line.push_str(&format!("; verdicts saved to {}", stored.file));
    }
    Ok(line)
}
