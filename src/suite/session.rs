//! Oracle suites inside a session directory: reading every suite and group record and the
//! metamorphic tests with the review journal's states, writing an imported suite, the
//! documented statuses of the session's spec, and storing verdicts.
//!
//! Oracles normalization set aside (`set_aside` of a suite or group record) join the
//! suite only once a reviewer restored them (accepted or edited).
//!
//! Edited oracles come back in their edited form (the `edited` value of the latest
//! decision); an edited metamorphic test also has to pass
//! `metamorphic::check::validate_structure`, else the original stays and a problem line
//! names it. This module does not decide which states run; `suite::select` does.

use crate::model::{
    Decision, MetamorphicTest, MultiOpOracle, Oracle, ReviewDecision, ReviewState, SuiteFile,
};
use crate::runner::RunReport;
use crate::store::{GroupRecord, Session, StoreError, SuiteRecord};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Latest verdicts of a session, relative to its directory.
pub const LATEST_VERDICTS: &str = "verdicts/latest.json";

/// A session's oracles as one suite, plus edits that could not be applied.
#[derive(Debug, Clone, PartialEq)]
pub struct SessionSuite {
    pub suite: SuiteFile,
    /// E.g. an edited oracle that no longer parses: the original is kept and this says so.
    pub problems: Vec<String>,
    /// o_id → the oracle as generated (JSON), for every oracle whose edit applied, so a
    /// reader can show what the reviewer changed.
    pub originals: BTreeMap<String, serde_json::Value>,
}

/// Reads `suites/*.json`, `groups/*.json`, `metamorphic/*.json` and the review journal.
/// An edited metamorphic test must also pass `metamorphic::check::validate_structure`.
pub fn read(session: &Session) -> Result<SessionSuite, StoreError> {
    let decisions = session.read_decisions()?;
    let records = read_records(session)?;
    let tests = crate::store::mr_files::load_tests(session)?;
    Ok(assemble(records, tests, &decisions))
}

/// The suite and group records of a session as stored: every oracle, set-aside ones
/// included, with the review hints, regenerations and normalization reports beside
/// them. The workbench shows all of that, so it reads the records here once and builds
/// its suite with [`assemble`] rather than reading the suites a second time.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SessionRecords {
    /// `suites/*.json`, in file name order.
    pub suites: Vec<SuiteRecord>,
    /// `groups/*.json`, in file name order.
    pub groups: Vec<GroupRecord>,
}

/// Reads every suite and group record; a record that does not parse is an error naming
/// its file.
pub fn read_records(session: &Session) -> Result<SessionRecords, StoreError> {
    let mut records = SessionRecords::default();
    for name in session.list("suites")? {
        if !name.ends_with(".json") {
            continue;
        }
        if let Some(rec) = session.read_json::<SuiteRecord>(&format!("suites/{name}"))? {
            records.suites.push(rec);
        }
    }
    for name in session.list("groups")? {
        if !name.ends_with(".json") {
            continue;
        }
        if let Some(rec) = session.read_json::<GroupRecord>(&format!("groups/{name}"))? {
            records.groups.push(rec);
        }
    }
    Ok(records)
}

/// The session's suite from records and metamorphic tests already read, under the
/// journal's current `decisions`: restored set-aside oracles join, edits apply (or are
/// reported in `problems` when unusable), and every decision becomes a review state.
pub fn assemble(
    records: SessionRecords,
    tests: Vec<MetamorphicTest>,
    decisions: &BTreeMap<String, ReviewDecision>,
) -> SessionSuite {
    let mut suite = SuiteFile {
        schema_version: crate::model::SCHEMA_VERSION,
        ..SuiteFile::default()
    };
    let mut problems = Vec::new();
    let mut originals = BTreeMap::new();
    for rec in records.suites {
        let restored = rec
            .set_aside
            .into_iter()
            .filter(|o| is_restored(&o.o_id(), decisions));
        for o in rec.oracles.into_iter().chain(restored) {
            let o = edited(
                o,
                decisions,
                &mut problems,
                &mut originals,
                Oracle::o_id,
                no_check,
            );
            suite.oracles.push(o);
        }
    }
    for rec in records.groups {
        let restored = rec
            .set_aside
            .into_iter()
            .filter(|m| is_restored(&m.o_id(), decisions));
        for m in rec.oracles.into_iter().chain(restored) {
            let m = edited(
                m,
                decisions,
                &mut problems,
                &mut originals,
                MultiOpOracle::o_id,
                no_check,
            );
            suite.multi_op.push(m);
        }
    }
    for t in tests {
        let t = edited(
            t,
            decisions,
            &mut problems,
            &mut originals,
            MetamorphicTest::o_id,
            crate::suite::mr_check::validate_structure,
        );
        suite.metamorphic.push(t);
    }
    for (o_id, d) in decisions {
        let state = match d.decision {
            Decision::Accepted => ReviewState::Accepted,
            Decision::Edited => ReviewState::Edited,
            Decision::Rejected => ReviewState::Rejected,
        };
        suite.review.insert(o_id.clone(), state);
    }
    SessionSuite {
        suite,
        problems,
        originals,
    }
}

/// Whether a reviewer restored an oracle normalization set aside: its latest decision
/// accepts or edits it. Until then it is not part of the suite, so it neither runs nor
/// exports, whatever the selection.
fn is_restored(o_id: &str, decisions: &BTreeMap<String, ReviewDecision>) -> bool {
    decisions
        .get(o_id)
        .is_some_and(|d| matches!(d.decision, Decision::Accepted | Decision::Edited))
}

/// Oracles and sequences need no check beyond parsing here (the runner reports the rest).
fn no_check<T>(_: &T) -> Result<(), String> {
    Ok(())
}

/// The edited form of an oracle when its latest decision is `edited` with a value that
/// parses and passes `check`; otherwise the oracle itself, with a problem line saying why.
fn edited<T: serde::de::DeserializeOwned + Serialize>(
    original: T,
    decisions: &BTreeMap<String, ReviewDecision>,
    problems: &mut Vec<String>,
    originals: &mut BTreeMap<String, serde_json::Value>,
    o_id: impl Fn(&T) -> String,
    check: impl Fn(&T) -> Result<(), String>,
) -> T {
    let id = o_id(&original);
    let Some(d) = decisions.get(&id) else {
        return original;
    };
    match (&d.decision, &d.edited) {
        (Decision::Edited, Some(value)) => match serde_json::from_value::<T>(value.clone()) {
            Ok(e) => match check(&e) {
                Ok(()) => {
                    if let Ok(v) = serde_json::to_value(&original) {
                        originals.insert(id, v);
                    }
                    e
                }
                Err(why) => {
                    problems.push(format!(
                        "{id}: the edited version is not valid ({why}); running the original"
                    ));
                    original
                }
            },
            Err(err) => {
                problems.push(format!(
                    "{id}: the edited version does not parse ({err}); running the original"
                ));
                original
            }
        },
        _ => original,
    }
}

/// Writes a suite into a fresh session: one suite record per operation, one group record
/// per group, and the suite's review states as journal decisions.
pub fn write(session: &Session, suite: &SuiteFile) -> Result<(), StoreError> {
    let mut by_op: BTreeMap<&str, SuiteRecord> = BTreeMap::new();
    for o in &suite.oracles {
        by_op
            .entry(o.op_id.as_str())
            .or_insert_with(|| SuiteRecord::new(o.op_id.clone()))
            .oracles
            .push(o.clone());
    }
    for rec in by_op.values() {
        session.write_suite(rec)?;
    }
    let mut by_group: BTreeMap<&str, GroupRecord> = BTreeMap::new();
    for m in &suite.multi_op {
        by_group
            .entry(m.group_id.as_str())
            .or_insert_with(|| GroupRecord::new(m.group_id.clone()))
            .oracles
            .push(m.clone());
    }
    for rec in by_group.values() {
        session.write_group(rec)?;
    }
    for t in &suite.metamorphic {
        session.write_json(&crate::store::mr_files::file_rel(&t.test_id), t)?;
    }
    let now = chrono::Utc::now().to_rfc3339();
    for (o_id, state) in &suite.review {
        let decision = match state {
            ReviewState::Proposed | ReviewState::Dropped => continue,
            ReviewState::Accepted => Decision::Accepted,
            ReviewState::Edited => Decision::Edited,
            ReviewState::Rejected => Decision::Rejected,
        };
        let edited = (decision == Decision::Edited)
            .then(|| {
                suite
                    .oracles
                    .iter()
                    .find(|o| &o.o_id() == o_id)
                    .and_then(|o| serde_json::to_value(o).ok())
                    .or_else(|| {
                        suite
                            .multi_op
                            .iter()
                            .find(|m| &m.o_id() == o_id)
                            .and_then(|m| serde_json::to_value(m).ok())
                    })
                    .or_else(|| {
                        suite
                            .metamorphic
                            .iter()
                            .find(|t| &t.o_id() == o_id)
                            .and_then(|t| serde_json::to_value(t).ok())
                    })
            })
            .flatten();
        session.append_decision(&ReviewDecision {
            o_id: o_id.clone(),
            decision,
            edited,
            note: Some("imported".to_string()),
            at: now.clone(),
            step: None,
        })?;
    }
    Ok(())
}

/// Documented response statuses per operation from the spec the session was made from
/// (the manifest's `spec_file`, as written or relative to `project_root`), so metamorphic
/// tests treat an undocumented status as an execution failure. Empty when the spec is
/// gone or does not load: the contract check is then skipped, not the run; the reason is
/// logged at debug level.
pub fn documented(session: &Session) -> crate::runner::relations::Documented {
    let m = session.manifest();
    if m.spec_file.trim().is_empty() {
        return Default::default();
    }
    let given = std::path::PathBuf::from(&m.spec_file);
    let path = if given.is_file() {
        given
    } else {
        std::path::Path::new(&m.project_root).join(&given)
    };
    match crate::spec::load(&path) {
        Ok(spec) => crate::suite::mr_check::SpecView::new(&spec.operations).documented(),
        Err(e) => {
            tracing::debug!("no documented statuses from {}: {e}", path.display());
            Default::default()
        }
    }
}

/// What `verdicts/*.json` holds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct VerdictFile {
    /// RFC 3339 time the run finished.
    pub at: String,
    pub base_url: String,
    #[serde(flatten)]
    pub report: RunReport,
}

/// How long storing a run waits for another run being stored (a merge takes
/// milliseconds; a longer wait means a stuck writer, and the run says so).
const VERDICTS_LOCK_WAIT: std::time::Duration = std::time::Duration::from_secs(30);

/// Stores a run: `verdicts/<timestamp>.json` holds this run alone (the history), and
/// `verdicts/latest.json` the latest verdict per oracle. A partial run (`check --op X`)
/// replaces the verdicts of the oracles it ran and keeps every other oracle's own verdict,
/// with its own time and base URL, so known failures elsewhere stay in sight. The merged
/// file's summary counts the merged verdicts; its `at`/`base_url` are this run's. Returns
/// the timestamped path (relative to the session).
pub fn save_verdicts(
    session: &Session,
    base_url: &str,
    report: &RunReport,
) -> Result<String, StoreError> {
    // `check` and the workbench may store runs at the same time: the read-merge-write
    // of the latest file is one at a time, or one run's verdicts would be lost.
    let _merging = crate::store::FileLock::acquire(
        &session.dir().join(crate::store::VERDICTS_LOCK_FILE),
        VERDICTS_LOCK_WAIT,
    )?;
    let now = chrono::Utc::now();
    let file = VerdictFile {
        at: now.to_rfc3339(),
        base_url: base_url.to_string(),
        report: report.clone(),
    };
    // Two runs stored in one millisecond keep a file each.
    let stem = format!("verdicts/{}", now.format("%Y%m%dT%H%M%S%.3fZ"));
    let stamped = (0..)
        .map(|n| match n {
            0 => format!("{stem}.json"),
            n => format!("{stem}_{n}.json"),
        })
        .find(|name| !session.dir().join(name).exists())
        .unwrap_or_else(|| format!("{stem}.json"));
    session.write_json(&stamped, &file)?;
    // An unreadable latest file is replaced by this run rather than blocking it: the
    // stamped files still hold every earlier run.
    let previous = session
        .read_json::<VerdictFile>(LATEST_VERDICTS)
        .ok()
        .flatten();
    let latest = match previous {
        Some(prev) => merge_latest(prev, file),
        None => file,
    };
    session.write_json(LATEST_VERDICTS, &latest)?;
    Ok(stamped)
}

/// `run` over `previous`: this run's verdicts replace earlier ones of the same o_id (in
/// place, so the order stays stable), verdicts of oracles it did not run are kept, new
/// ones are appended; the summary is recounted over the result. Unstable assertions
/// of oracles this run re-ran are replaced by its own findings.
pub fn merge_latest(previous: VerdictFile, run: VerdictFile) -> VerdictFile {
    let ran: std::collections::HashSet<&str> = run
        .report
        .verdicts
        .iter()
        .map(|v| v.o_id.as_str())
        .collect();
    let mut fresh: BTreeMap<&str, &crate::model::Verdict> = run
        .report
        .verdicts
        .iter()
        .map(|v| (v.o_id.as_str(), v))
        .collect();
    let mut merged = RunReport::default();
    for v in previous.report.verdicts {
        match fresh.remove(v.o_id.as_str()) {
            Some(new) => merged.push(new.clone()),
            None => merged.push(v),
        }
    }
    for v in &run.report.verdicts {
        if fresh.remove(v.o_id.as_str()).is_some() {
            merged.push(v.clone());
        }
    }
    merged.summary.unstable = previous
        .report
        .summary
        .unstable
        .into_iter()
        .filter(|u| !ran.contains(u.o_id.as_str()))
        .chain(run.report.summary.unstable.iter().cloned())
        .collect();
    VerdictFile {
        at: run.at,
        base_url: run.base_url,
        report: merged,
    }
}
