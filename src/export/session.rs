//! Builds an [`ExportInput`] from a session directory: the single-op suites and group
//! records, the review journal replayed into states (an edited oracle replaces the
//! generated one), and any verdicts the runner left under `verdicts/`.
//!
//! Read-only: the session is opened, never written. Runner files whose shape is not a
//! [`Verdict`] (or a list of them) are skipped with a warning, since verdicts are extra
//! information for the readable export, not part of the suite.

use super::{ExportError, ExportInput, Selection};
use crate::model::{Decision, MultiOpOracle, Oracle, ReviewDecision, ReviewState, Verdict};
use crate::store::{GroupRecord, Session, StoreError, SuiteRecord};
use serde::de::DeserializeOwned;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::Path;

/// Loads the oracles, review states and verdicts of the session in `dir`.
pub fn load_session(dir: &Path, selection: Selection) -> Result<ExportInput, ExportError> {
    let store_err = |source: StoreError| ExportError::Session {
        dir: dir.to_path_buf(),
        source,
    };
    let session = Session::open(dir).map_err(store_err)?;
    let decisions = session.read_decisions().map_err(store_err)?;

    let mut input = ExportInput {
        selection,
        ..Default::default()
    };
    for name in json_files(&session, "suites").map_err(store_err)? {
        let Some(record) = session
            .read_json::<SuiteRecord>(&format!("suites/{name}"))
            .map_err(store_err)?
        else {
            continue;
        };
        for mut oracle in record.oracles {
            if oracle.op_id.is_empty() {
                oracle.op_id.clone_from(&record.op_id);
            }
            let o_id = oracle.o_id();
            let oracle = apply_decision(oracle, decisions.get(&o_id), &mut input.review)?;
            input.oracles.push(oracle);
        }
    }
    for name in json_files(&session, "groups").map_err(store_err)? {
        let Some(record) = session
            .read_json::<GroupRecord>(&format!("groups/{name}"))
            .map_err(store_err)?
        else {
            continue;
        };
        for mut multi in record.oracles {
            if multi.group_id.is_empty() {
                multi.group_id.clone_from(&record.group_id);
            }
            let o_id = multi.o_id();
            let multi = apply_decision(multi, decisions.get(&o_id), &mut input.review)?;
            input.multi_op.push(multi);
        }
    }
    for name in json_files(&session, "verdicts").map_err(store_err)? {
        let rel = format!("verdicts/{name}");
        let Some(raw) = session.read_json::<Value>(&rel).map_err(store_err)? else {
            continue;
        };
        let verdicts: Vec<Verdict> = match raw {
            Value::Array(_) => serde_json::from_value(raw).unwrap_or_default(),
            other => serde_json::from_value(other)
                .map(|v| vec![v])
                .unwrap_or_default(),
        };
        if verdicts.is_empty() {
            tracing::warn!(file = %rel, "no verdicts in this file; left out of the export");
        }
        for verdict in verdicts {
            // Keep the latest run per oracle (RFC 3339 strings sort by time).
            let newer = input
                .verdicts
                .get(&verdict.o_id)
                .is_none_or(|old| old.at <= verdict.at);
            if newer {
                input.verdicts.insert(verdict.o_id.clone(), verdict);
            }
        }
    }
    Ok(input)
}

fn json_files(session: &Session, rel_dir: &str) -> Result<Vec<String>, StoreError> {
    Ok(session
        .list(rel_dir)?
        .into_iter()
        .filter(|n| n.ends_with(".json"))
        .collect())
}

/// Records the review state of one oracle and returns the oracle to export: the edited
/// version when the reviewer edited it.
fn apply_decision<T: DeserializeOwned + Identified>(
    original: T,
    decision: Option<&ReviewDecision>,
    review: &mut BTreeMap<String, ReviewState>,
) -> Result<T, ExportError> {
    let o_id = original.o_id();
    let Some(decision) = decision else {
        return Ok(original);
    };
    let state = match decision.decision {
        Decision::Accepted => ReviewState::Accepted,
        Decision::Rejected => ReviewState::Rejected,
        Decision::Edited => ReviewState::Edited,
    };
    review.insert(o_id.clone(), state);
    match (&decision.decision, &decision.edited) {
        (Decision::Edited, Some(edited)) => {
            let mut oracle: T =
                serde_json::from_value(edited.clone()).map_err(|e| ExportError::BadOracle {
                    o_id: o_id.clone(),
                    reason: format!("the edited version in the review journal is invalid: {e}"),
                })?;
            oracle.keep_identity(&original);
            if oracle.o_id() != o_id {
                // The review is keyed by the original o_id; keep the state reachable.
                review.insert(oracle.o_id(), state);
            }
            Ok(oracle)
        }
        _ => Ok(original),
    }
}

/// What [`apply_decision`] needs to know about an oracle type.
trait Identified {
    fn o_id(&self) -> String;
    /// Fills identity fields an edit left empty from the original.
    fn keep_identity(&mut self, original: &Self);
}

impl Identified for Oracle {
    fn o_id(&self) -> String {
        Oracle::o_id(self)
    }
    fn keep_identity(&mut self, original: &Self) {
        if self.op_id.is_empty() {
            self.op_id.clone_from(&original.op_id);
        }
    }
}

impl Identified for MultiOpOracle {
    fn o_id(&self) -> String {
        MultiOpOracle::o_id(self)
    }
    fn keep_identity(&mut self, original: &Self) {
        if self.group_id.is_empty() {
            self.group_id.clone_from(&original.group_id);
        }
    }
}
