//! Running a session's oracles against a live API from the workbench (`ctrl-t`): which
//! oracles (the run scope), the settings remembered in `SESSION/tui.json` (base URL,
//! reset command), and the blocking job body.
//!
//! With a reset command the run makes fresh state as `mastor check --reset CMD` does
//! (before the oracles that declare `fresh_state`), then re-runs each failure alone
//! right after the command and labels it, as `--isolate-failures` does; both steps are
//! the runner's own functions ([`runner::isolate`]). Nothing here prints: the job runs
//! under the workbench's screen, so every word goes into the returned summary.

use super::store::Session;
use super::view::SessionView;
use crate::model::{Outcome, ReviewState};
use crate::runner::{self, RunConfig, isolate};
use crate::suite::{self, Only};
use std::path::{Path, PathBuf};

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

/// Remembers `prefs` for the next launch (atomically: temp file, then rename).
pub fn write_prefs(session_dir: &Path, prefs: &TuiPrefs) -> Result<(), String> {
    let path = session_dir.join(PREFS_FILE);
    let text = serde_json::to_string_pretty(prefs).map_err(|e| e.to_string())?;
    let tmp = session_dir.join(format!(".{PREFS_FILE}.tmp"));
    std::fs::write(&tmp, text)
        .and_then(|_| std::fs::rename(&tmp, &path))
        .map_err(|e| format!("cannot write {}: {e}", path.display()))
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
/// runner's threads).
pub fn run_oracles_with(
    dir: &Path,
    base_url: &str,
    only: &[String],
    reset: Option<&str>,
    progress: &(dyn Fn(usize, usize) + Sync),
) -> Result<String, String> {
    let session = Session::open(PathBuf::from(dir)).map_err(|e| e.to_string())?;
    let read = suite::session::read(&session).map_err(|e| e.to_string())?;
    let scope = if only.is_empty() {
        Only::Accepted
    } else {
        Only::All
    };
    let mut plan = suite::select(&read.suite, scope, &[])?;
    if !only.is_empty() {
        let keep: std::collections::HashSet<&str> = only.iter().map(String::as_str).collect();
        plan.oracles.retain(|o| keep.contains(o.o_id().as_str()));
        plan.multi_op.retain(|m| keep.contains(m.o_id().as_str()));
        plan.metamorphic
            .retain(|t| keep.contains(t.o_id().as_str()));
        if plan.is_empty() {
            return Err(format!("{} is no longer in the session", only.join(", ")));
        }
    }
    if plan.is_empty() {
        return Err("no accepted or edited oracles to run: accept some first".into());
    }
    // So an undocumented status counts as an execution failure, as in `mastor check`.
    plan.documented = suite::session::documented(&session);
    let reset = reset.map(str::trim).filter(|c| !c.is_empty());
    let cfg = RunConfig {
        base_url: base_url.to_string(),
        reset: reset.map(str::to_string),
        ..RunConfig::default()
    };
    let rt = tokio::runtime::Runtime::new()
        .map_err(|e| format!("cannot start the async runtime: {e}"))?;
    let mut report = rt
        .block_on(runner::run_with_progress(&plan, &cfg, progress))
        .map_err(|e| e.to_string())?;
    let mut isolated = String::new();
    if let Some(cmd) = reset {
        let failing: Vec<_> = report
            .verdicts
            .iter()
            .filter(|v| isolate::is_failing(v))
            .cloned()
            .collect();
        let limit = cfg.reset_timeout;
        let results = rt
            .block_on(isolate::isolate_failures(&plan, &cfg, &failing, || {
                runner::reset_command(cmd, limit)
            }))
            .map_err(|e| e.to_string())?;
        isolate::apply(&mut report, &results);
        isolated = isolation_summary(&results);
    }
    let saved =
        suite::session::save_verdicts(&session, base_url, &report).map_err(|e| e.to_string())?;
    let s = &report.summary;
    Ok(format!(
        "oracles run: {} pass, {} fail, {} error{isolated}; verdicts saved to {saved}",
        s.passed, s.failed, s.errors
    ))
}

/// `; isolated: N wrong, N order-dependent, N inconclusive` (empty without failures).
fn isolation_summary(results: &[isolate::Isolated]) -> String {
    use crate::model::Isolation;
    if results.is_empty() {
        return String::new();
    }
    let count = |i: Isolation| results.iter().filter(|r| r.isolation == i).count();
    format!(
        "; isolated: {} wrong, {} order-dependent, {} inconclusive",
        count(Isolation::Wrong),
        count(Isolation::OrderDependent),
        count(Isolation::Inconclusive)
    )
}
