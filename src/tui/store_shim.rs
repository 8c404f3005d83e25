//! Temporary stand-in for `crate::store` until the session store lands on main.
//! Same names and shapes as the store's public API, minus durability guarantees.

use crate::model::{ChallengerReview, MultiOpOracle, Oracle, ReviewDecision, SourceContext};
use chrono::{DateTime, Utc};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("not a mastor session: {}", dir.display())]
    NotASession { dir: PathBuf },
    #[error("{op} {}: {source}", path.display())]
    Io {
        op: &'static str,
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot parse {}: {source}", path.display())]
    Parse {
        path: PathBuf,
        source: serde_json::Error,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EventKind {
    AgentStarted,
    AgentFinished,
    AgentRetry,
    AgentFailed,
    PhaseStarted,
    PhaseFinished,
    Note,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Event {
    pub at: DateTime<Utc>,
    pub kind: EventKind,
    #[serde(default)]
    pub agent: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub op_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub phase: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tokens_in: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tokens_out: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost_usd: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wall_ms: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

impl Event {
    pub fn new(kind: EventKind, agent: impl Into<String>) -> Self {
        Event {
            at: Utc::now(),
            kind,
            agent: agent.into(),
            op_id: None,
            phase: None,
            tokens_in: None,
            tokens_out: None,
            cost_usd: None,
            wall_ms: None,
            message: None,
        }
    }
    pub fn op(mut self, op_id: impl Into<String>) -> Self {
        self.op_id = Some(op_id.into());
        self
    }
    pub fn phase(mut self, phase: impl Into<String>) -> Self {
        self.phase = Some(phase.into());
        self
    }
    pub fn tokens(mut self, tokens_in: u64, tokens_out: u64) -> Self {
        self.tokens_in = Some(tokens_in);
        self.tokens_out = Some(tokens_out);
        self
    }
    pub fn cost(mut self, cost_usd: f64) -> Self {
        self.cost_usd = Some(cost_usd);
        self
    }
    pub fn wall_ms(mut self, wall_ms: u64) -> Self {
        self.wall_ms = Some(wall_ms);
        self
    }
    pub fn message(mut self, message: impl Into<String>) -> Self {
        self.message = Some(message.into());
        self
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SuiteRecord {
    pub op_id: String,
    #[serde(default)]
    pub oracles: Vec<Oracle>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub normalization: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub review: Option<ChallengerReview>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub regenerated: Vec<String>,
}

impl SuiteRecord {
    pub fn new(op_id: impl Into<String>) -> Self {
        SuiteRecord {
            op_id: op_id.into(),
            oracles: Vec::new(),
            normalization: None,
            review: None,
            regenerated: Vec::new(),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GroupRecord {
    pub group_id: String,
    #[serde(default)]
    pub group: Value,
    #[serde(default)]
    pub oracles: Vec<MultiOpOracle>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub normalization: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub review: Option<ChallengerReview>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub regenerated: Vec<String>,
}

impl GroupRecord {
    pub fn new(group_id: impl Into<String>) -> Self {
        GroupRecord {
            group_id: group_id.into(),
            group: Value::Null,
            oracles: Vec::new(),
            normalization: None,
            review: None,
            regenerated: Vec::new(),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Undo {
    pub undo: String,
    pub at: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum JournalEntry {
    Decision(ReviewDecision),
    Undo(Undo),
}

pub fn replay(entries: &[JournalEntry]) -> BTreeMap<String, ReviewDecision> {
    let mut history: BTreeMap<&str, Vec<&ReviewDecision>> = BTreeMap::new();
    for entry in entries {
        match entry {
            JournalEntry::Decision(d) => history.entry(d.o_id.as_str()).or_default().push(d),
            JournalEntry::Undo(u) => {
                history.get_mut(u.undo.as_str()).and_then(Vec::pop);
            }
        }
    }
    history
        .into_iter()
        .filter_map(|(o_id, stack)| stack.last().map(|d| (o_id.to_string(), (*d).clone())))
        .collect()
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Manifest {
    pub schema_version: u32,
    pub project_root: String,
    pub spec_file: String,
}

impl Manifest {
    pub fn new(project_root: impl Into<String>, spec_file: impl Into<String>) -> Self {
        Manifest {
            schema_version: 1,
            project_root: project_root.into(),
            spec_file: spec_file.into(),
        }
    }
}

pub fn op_slug(op_id: &str) -> String {
    let mut s: String = op_id
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c.to_ascii_lowercase() } else { '_' })
        .collect();
    use sha2::Digest;
    let h = sha2::Sha256::digest(op_id.as_bytes());
    s.push('-');
    s.push_str(&hex::encode(&h[..4]));
    s
}

#[derive(Debug)]
pub struct Session {
    dir: PathBuf,
    manifest: Manifest,
}

impl Session {
    pub fn create(dir: impl AsRef<Path>, manifest: Manifest) -> Result<Session, StoreError> {
        let dir = dir.as_ref().to_path_buf();
        std::fs::create_dir_all(&dir).map_err(|source| StoreError::Io {
            op: "create",
            path: dir.clone(),
            source,
        })?;
        let s = Session { dir, manifest };
        s.write_json("manifest.json", &s.manifest)?;
        Ok(s)
    }
    pub fn open(dir: impl AsRef<Path>) -> Result<Session, StoreError> {
        let dir = dir.as_ref().to_path_buf();
        let probe = Session {
            dir: dir.clone(),
            manifest: Manifest::new("", ""),
        };
        let manifest: Manifest = probe
            .read_json("manifest.json")?
            .ok_or(StoreError::NotASession { dir: dir.clone() })?;
        Ok(Session { dir, manifest })
    }
    pub fn dir(&self) -> &Path {
        &self.dir
    }
    pub fn manifest(&self) -> Manifest {
        self.manifest.clone()
    }
    pub fn write_json<T: Serialize + ?Sized>(&self, rel: &str, v: &T) -> Result<(), StoreError> {
        let path = self.dir.join(rel);
        if let Some(p) = path.parent() {
            let _ = std::fs::create_dir_all(p);
        }
        let text = serde_json::to_vec_pretty(v).map_err(|source| StoreError::Parse {
            path: path.clone(),
            source,
        })?;
        std::fs::write(&path, text).map_err(|source| StoreError::Io {
            op: "write",
            path,
            source,
        })
    }
    pub fn read_json<T: DeserializeOwned>(&self, rel: &str) -> Result<Option<T>, StoreError> {
        let path = self.dir.join(rel);
        let bytes = match std::fs::read(&path) {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(source) => return Err(StoreError::Io { op: "read", path, source }),
        };
        serde_json::from_slice(&bytes)
            .map(Some)
            .map_err(|source| StoreError::Parse { path, source })
    }
    pub fn list(&self, rel: &str) -> Result<Vec<String>, StoreError> {
        let Ok(rd) = std::fs::read_dir(self.dir.join(rel)) else {
            return Ok(Vec::new());
        };
        let mut v: Vec<String> = rd
            .filter_map(|e| e.ok())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        Ok(v)
    }
    fn append<T: Serialize>(&self, rel: &str, v: &T) -> Result<(), StoreError> {
        let path = self.dir.join(rel);
        let mut line = serde_json::to_vec(v).map_err(|source| StoreError::Parse {
            path: path.clone(),
            source,
        })?;
        line.push(b'\n');
        let mut f = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)
            .map_err(|source| StoreError::Io { op: "open", path: path.clone(), source })?;
        f.write_all(&line)
            .and_then(|_| f.sync_data())
            .map_err(|source| StoreError::Io { op: "append", path, source })
    }
    fn read_lines<T: DeserializeOwned>(&self, rel: &str) -> Result<Vec<T>, StoreError> {
        let path = self.dir.join(rel);
        let text = std::fs::read_to_string(&path).unwrap_or_default();
        Ok(text
            .lines()
            .filter_map(|l| serde_json::from_str(l).ok())
            .collect())
    }
    pub fn append_event(&self, e: &Event) -> Result<(), StoreError> {
        self.append("events.jsonl", e)
    }
    pub fn read_events(&self) -> Result<Vec<Event>, StoreError> {
        self.read_lines("events.jsonl")
    }
    pub fn append_decision(&self, d: &ReviewDecision) -> Result<(), StoreError> {
        self.append("review.jsonl", d)
    }
    pub fn append_undo(&self, o_id: &str) -> Result<(), StoreError> {
        self.append(
            "review.jsonl",
            &Undo {
                undo: o_id.to_string(),
                at: Utc::now().to_rfc3339(),
            },
        )
    }
    pub fn read_review_journal(&self) -> Result<Vec<JournalEntry>, StoreError> {
        self.read_lines("review.jsonl")
    }
    pub fn write_operations<T: Serialize + ?Sized>(&self, ops: &T) -> Result<(), StoreError> {
        self.write_json("operations.json", ops)
    }
    pub fn read_operations<T: DeserializeOwned>(&self) -> Result<Option<T>, StoreError> {
        self.read_json("operations.json")
    }
    pub fn write_context(&self, ctx: &SourceContext) -> Result<(), StoreError> {
        self.write_json(&format!("contexts/{}.json", op_slug(&ctx.op_id)), ctx)
    }
    pub fn write_suite(&self, s: &SuiteRecord) -> Result<(), StoreError> {
        self.write_json(&format!("suites/{}.json", op_slug(&s.op_id)), s)
    }
    pub fn write_group(&self, g: &GroupRecord) -> Result<(), StoreError> {
        self.write_json(&format!("groups/{}.json", op_slug(&g.group_id)), g)
    }
    pub fn write_call<T: Serialize + ?Sized>(&self, id: &str, c: &T) -> Result<(), StoreError> {
        self.write_json(&format!("calls/{}.json", op_slug(id)), c)
    }
}
