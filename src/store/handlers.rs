//! The handler an operation is served by, where the static scan and the model disagree:
//! recorded conflicts (`conflicts/<op-slug>.json`, one file per operation so concurrent
//! discovery tasks never share a file) and the reviewer's picks (`handler_choices.jsonl`,
//! append-only and fsynced; the latest line per operation wins and is applied before
//! discovery on the next run, so a pick beats both the scan and the model).
//!
//! Unknown keys are errors, as everywhere in the session.

use super::journal::{Journal, read_lines};
use super::{Session, StoreError, op_slug};
use crate::model::EntryRef;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Append-only journal of the reviewer's handler picks.
pub const HANDLER_CHOICES_FILE: &str = "handler_choices.jsonl";
/// Directory of the recorded handler conflicts, one file per operation.
pub const CONFLICTS_DIR: &str = "conflicts";

/// Which answer a conflict settled on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum HandlerSide {
    /// The static route pre-match.
    Static,
    /// The model's discovery answer.
    Discovered,
    /// The reviewer's pick (`handler_choices.jsonl`).
    Picked,
}

/// Both answers for one operation and which one the run used, with the evidence.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HandlerConflict {
    pub op_id: String,
    /// What the scan matched.
    #[serde(rename = "static")]
    pub static_entry: EntryRef,
    /// Why the static match is weak, when it is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub static_weak: Option<String>,
    /// What the model named.
    pub discovered: EntryRef,
    /// The entry file whose bundle discovery read.
    pub entry_file: String,
    pub won: HandlerSide,
    /// The evidence rule's verdict, in words.
    pub why: String,
}

/// The handler a reviewer picked for one operation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HandlerPick {
    pub file: String,
    pub method: String,
    /// 1-based line of the method's name; 0 when the reviewer named only file and method.
    #[serde(default)]
    pub line: usize,
}

/// One line of `handler_choices.jsonl`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HandlerChoice {
    pub op_id: String,
    pub handler: HandlerPick,
    /// RFC 3339 time of the pick.
    pub at: String,
}

/// Relative path of an operation's conflict record.
pub fn conflict_rel(op_id: &str) -> String {
    format!("{CONFLICTS_DIR}/{}.json", op_slug(op_id))
}

impl Session {
    /// Records the reviewer's pick of `op_id`'s handler (journalled, fsynced); the next
    /// run serves the operation from it, before and over discovery.
    pub fn choose_handler(
        &self,
        op_id: &str,
        handler: HandlerPick,
    ) -> Result<HandlerChoice, StoreError> {
        let choice = HandlerChoice {
            op_id: op_id.to_string(),
            handler,
            at: chrono::Utc::now().to_rfc3339(),
        };
        Journal::new(self.dir().join(HANDLER_CHOICES_FILE), true).append(&choice)?;
        Ok(choice)
    }

    /// The latest pick per operation.
    pub fn read_handler_choices(&self) -> Result<BTreeMap<String, HandlerChoice>, StoreError> {
        let path = self.dir().join(HANDLER_CHOICES_FILE);
        if !path.exists() {
            return Ok(BTreeMap::new());
        }
        let lines: Vec<HandlerChoice> = read_lines(&path)?;
        Ok(lines.into_iter().map(|c| (c.op_id.clone(), c)).collect())
    }

    /// Picks one side (`Static` or `Discovered`) of `op_id`'s recorded conflict as its
    /// handler, journalled like [`Session::choose_handler`]: what the workbench calls when
    /// the reviewer chooses on the Context tab. Errors when no conflict is recorded or the
    /// side is `Picked`.
    pub fn pick_conflict_side(
        &self,
        op_id: &str,
        side: HandlerSide,
    ) -> Result<HandlerChoice, String> {
        let conflicts = self.read_conflicts().map_err(|e| e.to_string())?;
        let c = conflicts
            .get(op_id)
            .ok_or_else(|| format!("{op_id}: no handler conflict recorded in this session"))?;
        let e = match side {
            HandlerSide::Static => &c.static_entry,
            HandlerSide::Discovered => &c.discovered,
            HandlerSide::Picked => return Err("pick the static or the discovered side".into()),
        };
        let pick = HandlerPick {
            file: e.file.clone(),
            method: e.method.clone(),
            line: e.line,
        };
        self.choose_handler(op_id, pick).map_err(|e| e.to_string())
    }

    /// Records (or replaces) the conflict of `conflict.op_id`.
    pub fn write_conflict(&self, conflict: &HandlerConflict) -> Result<(), StoreError> {
        self.write_json(&conflict_rel(&conflict.op_id), conflict)
    }

    /// Every recorded conflict, by op_id.
    pub fn read_conflicts(&self) -> Result<BTreeMap<String, HandlerConflict>, StoreError> {
        let mut out = BTreeMap::new();
        for name in self.list(CONFLICTS_DIR)? {
            let rel = format!("{CONFLICTS_DIR}/{name}");
            if let Some(c) = self.read_json::<HandlerConflict>(&rel)? {
                out.insert(c.op_id.clone(), c);
            }
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::Manifest;

    fn entry(method: &str) -> EntryRef {
        EntryRef {
            file: "src/A.java".into(),
            class: "A".into(),
            method: method.into(),
            line: 3,
        }
    }

    #[test]
    fn picks_replay_latest_and_conflicts_round_trip() {
        let dir = tempfile::tempdir().unwrap();
        let s = Session::create(dir.path(), Manifest::new("p", "s")).unwrap();
        assert!(s.read_handler_choices().unwrap().is_empty());
        let pick = |m: &str| HandlerPick {
            file: "src/A.java".into(),
            method: m.into(),
            line: 0,
        };
        s.choose_handler("GET /a", pick("first")).unwrap();
        s.choose_handler("GET /a", pick("second")).unwrap();
        s.choose_handler("GET /b", pick("other")).unwrap();
        let got = s.read_handler_choices().unwrap();
        assert_eq!(got["GET /a"].handler.method, "second");
        assert_eq!(got["GET /b"].handler.method, "other");

        let c = HandlerConflict {
            op_id: "GET /a".into(),
            static_entry: entry("handle"),
            static_weak: Some("dispatch not read".into()),
            discovered: entry("list"),
            entry_file: "src/A.java".into(),
            won: HandlerSide::Discovered,
            why: "because".into(),
        };
        assert!(s.pick_conflict_side("GET /a", HandlerSide::Static).is_err());
        s.write_conflict(&c).unwrap();
        let took = s.pick_conflict_side("GET /a", HandlerSide::Static).unwrap();
        assert_eq!(took.handler.method, "handle");
        assert_eq!(s.read_handler_choices().unwrap()["GET /a"].handler.line, 3);
        let read = s.read_conflicts().unwrap();
        assert_eq!(read["GET /a"], c);
        let raw = std::fs::read_to_string(dir.path().join(conflict_rel("GET /a"))).unwrap();
        assert!(raw.contains("\"static\""), "{raw}");
    }
}
