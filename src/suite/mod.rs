//! Loading oracle suites from disk, whatever their shape, with every problem reported.
//!
//! Three shapes load (detected from the top-level JSON):
//! - our `SuiteFile` (`{"schema_version", "oracles", "multi_op", "metamorphic", "review"}`;
//!   a metamorphic test must pass `metamorphic::check::validate_structure`);
//! - the MASTOR paper's per-operation output
//!   (`{"operations": [{"op_id", "path_oracles": [...]}]}`, `oracles` also accepted for
//!   `path_oracles`), where an oracle without `op_id` takes its operation's;
//! - a bare array of oracles (entries with `steps` are multi-op sequences).
//!
//! Keys outside each object's accepted list are errors naming the key and the accepted
//! ones (a top-level one fails the whole file); `LoadOptions::lenient` makes them warnings.
//!
//! Entries are parsed one by one: a malformed oracle (unknown assertion op, bad field path
//! or regex, missing op_id, a path parameter without value, a bind to an undeclared
//! capture, a duplicate o_id) becomes a `LoadProblem` naming its position, test_id and
//! what is wrong, and is skipped; the rest still load. A missing `test_id` is generated
//! as `t<n>` (n = 1-based position in the file). Null `query`/`body`/`headers` (the
//! paper's prompt asks for them) mean "none"; flat input keys that name a path parameter
//! of the operation move into `input.path`.
//!
//! This module reads files only; it does not write sessions (see `cli::import`).

pub mod filter;
pub mod mr_check;
mod parse;
pub mod run;
pub mod session;

use crate::model::{
    MetamorphicTest, MultiOpOracle, Oracle, ReviewState, SCHEMA_VERSION, SuiteFile,
};
use crate::runner::Plan;
use serde_json::Value;
use std::collections::HashSet;
use std::fmt;
use std::path::{Path, PathBuf};

/// Which shape a suite file had.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SuiteFormat {
    Suite,
    Paper,
    Array,
}

/// One entry that could not be loaded, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoadProblem {
    /// 0-based position among all entries in the file.
    pub index: usize,
    /// Where in the file, e.g. `operations[1].path_oracles[2]`.
    pub location: String,
    pub test_id: Option<String>,
    pub op_id: Option<String>,
    pub message: String,
}

impl fmt::Display for LoadProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "oracle {} at {}", self.index, self.location)?;
        match (&self.op_id, &self.test_id) {
            (Some(op), Some(t)) => write!(f, " ({op}#{t})")?,
            (None, Some(t)) => write!(f, " (test_id {t})")?,
            (Some(op), None) => write!(f, " ({op})")?,
            (None, None) => {}
        }
        write!(f, ": {}", self.message)
    }
}

impl LoadProblem {
    /// The review id of the entry when its operation (or group) and test id are known,
    /// else `entry <location>`, so a report can name it.
    pub fn o_id(&self) -> String {
        match (&self.op_id, &self.test_id) {
            (Some(op), Some(t)) => format!("{op}#{t}"),
            _ => format!("entry {}", self.location),
        }
    }

    /// True when `--op` filters (as given to `select`) keep this entry: no filter, an
    /// entry whose operation is unknown, or one whose operation or group is named.
    pub fn selected(&self, ops: &[String]) -> bool {
        match &self.op_id {
            Some(op) if !ops.is_empty() => ops.iter().any(|o| normalize_op(o) == *op || o == op),
            _ => true,
        }
    }
}

/// A loaded suite and the entries that were skipped.
#[derive(Debug, Clone, PartialEq)]
pub struct LoadedSuite {
    pub suite: SuiteFile,
    pub format: SuiteFormat,
    pub problems: Vec<LoadProblem>,
    /// Unknown keys ignored under `LoadOptions::lenient`, one line each with its place.
    pub warnings: Vec<String>,
}

/// How forgiving loading is.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LoadOptions {
    /// Unknown keys become warnings instead of errors (a top-level one fails the whole
    /// file, one inside an entry makes that entry a problem). Strict by default, so a
    /// misspelt or unsupported key (`sequences`) never drops tests silently.
    pub lenient: bool,
}

/// Why a whole file could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum SuiteError {
    #[error("cannot read suite {path}: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("suite {path} is not valid JSON: {source}")]
    Json {
        path: PathBuf,
        source: serde_json::Error,
    },
    #[error("suite {path}: {reason}")]
    Shape { path: PathBuf, reason: String },
}

/// Reads and parses a suite file, strictly (unknown keys are errors).
pub fn load_file(path: &Path) -> Result<LoadedSuite, SuiteError> {
    load_file_with(path, LoadOptions::default())
}

/// Reads and parses a suite file with the given options.
pub fn load_file_with(path: &Path, opts: LoadOptions) -> Result<LoadedSuite, SuiteError> {
    let text = std::fs::read_to_string(path).map_err(|source| SuiteError::Read {
        path: path.to_path_buf(),
        source,
    })?;
    let value: Value = serde_json::from_str(&text).map_err(|source| SuiteError::Json {
        path: path.to_path_buf(),
        source,
    })?;
    from_value_with(value, path, opts)
}

/// Parses an already-read JSON document strictly; `path` is used in messages only.
pub fn from_value(value: Value, path: &Path) -> Result<LoadedSuite, SuiteError> {
    from_value_with(value, path, LoadOptions::default())
}

/// Parses an already-read JSON document with the given options.
pub fn from_value_with(
    value: Value,
    path: &Path,
    opts: LoadOptions,
) -> Result<LoadedSuite, SuiteError> {
    let shape = |reason: String| SuiteError::Shape {
        path: path.to_path_buf(),
        reason,
    };
    let mut p = parse::Parser::default();
    p.keys.lenient = opts.lenient;
    p.keys.location = path.display().to_string();
    let mut top = |map: &serde_json::Map<String, Value>, accepted: &[&str]| {
        p.keys.check(map, accepted, "top level").map_err(&shape)
    };
    let format = match &value {
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                p.entry(item, &format!("[{i}]"), None);
            }
            SuiteFormat::Array
        }
        Value::Object(map) if map.contains_key("operations") => {
            top(map, parse::PAPER_KEYS)?;
            let ops = map
                .get("operations")
                .and_then(Value::as_array)
                .ok_or_else(|| shape("`operations` must be an array".into()))?;
            for (i, op) in ops.iter().enumerate() {
                p.operation(op, i);
            }
            p.multi_list(map.get("multi_op"), "multi_op");
            p.metamorphic_list(map.get("metamorphic"));
            SuiteFormat::Paper
        }
        Value::Object(map)
            if map.contains_key("schema_version")
                || map.contains_key("oracles")
                || map.contains_key("multi_op")
                || map.contains_key("metamorphic") =>
        {
            top(map, parse::SUITE_KEYS)?;
            let version = map
                .get("schema_version")
                .and_then(Value::as_u64)
                .unwrap_or(1);
            if version > u64::from(SCHEMA_VERSION) {
                return Err(shape(format!(
                    "schema_version {version} is newer than this mastor reads ({SCHEMA_VERSION})"
                )));
            }
            p.single_list(map.get("oracles"), "oracles");
            p.multi_list(map.get("multi_op"), "multi_op");
            p.metamorphic_list(map.get("metamorphic"));
            p.review(map.get("review"));
            SuiteFormat::Suite
        }
        _ => {
            return Err(shape(
                "expected a suite (`schema_version`/`oracles`), the paper's `operations` \
                 format, or an array of oracles"
                    .into(),
            ));
        }
    };
    Ok(p.finish(format))
}

/// Which oracles `check` runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Only {
    /// Accepted and edited oracles (edited ones in their edited form).
    Accepted,
    /// Every oracle, whatever its review state.
    All,
}

/// Builds a run plan from a suite: keeps oracles in the given review states (or all) and
/// on the given operations (empty: every operation; a sequence matches when any of its
/// steps or its group id matches, a metamorphic test when any seed or follow-up step does).
/// The plan's documented statuses are left empty for the caller to fill from a spec. Unknown `ops` are an error naming them.
pub fn select(suite: &SuiteFile, only: Only, ops: &[String]) -> Result<Plan, String> {
    let known: HashSet<&str> = suite
        .oracles
        .iter()
        .map(|o| o.op_id.as_str())
        .chain(
            suite
                .multi_op
                .iter()
                .flat_map(|m| m.steps.iter().map(|s| s.op_id.as_str())),
        )
        .chain(suite.multi_op.iter().map(|m| m.group_id.as_str()))
        .chain(
            suite
                .metamorphic
                .iter()
                .flat_map(|t| mr_steps(t).map(|s| s.op_id.as_str())),
        )
        .collect();
    let unknown: Vec<&str> = ops
        .iter()
        .map(String::as_str)
        .filter(|op| !known.contains(normalize_op(op).as_str()) && !known.contains(op))
        .collect();
    if !unknown.is_empty() {
        let mut all: Vec<&str> = known.into_iter().collect();
        all.sort_unstable();
        return Err(format!(
            "unknown operation(s) {}; the suite has: {}",
            unknown.join(", "),
            all.join(", ")
        ));
    }
    let wanted: HashSet<String> = ops.iter().map(|o| normalize_op(o)).collect();
    let op_ok = |op: &str| wanted.is_empty() || wanted.contains(op);
    let state_ok = |o_id: &str| {
        only == Only::All
            || matches!(
                suite.review.get(o_id),
                Some(ReviewState::Accepted | ReviewState::Edited)
            )
    };
    let oracles: Vec<Oracle> = suite
        .oracles
        .iter()
        .filter(|o| op_ok(&o.op_id) && state_ok(&o.o_id()))
        .cloned()
        .collect();
    let multi_op: Vec<MultiOpOracle> = suite
        .multi_op
        .iter()
        .filter(|m| {
            (op_ok(&m.group_id) || m.steps.iter().any(|s| op_ok(&s.op_id))) && state_ok(&m.o_id())
        })
        .cloned()
        .collect();
    let metamorphic: Vec<MetamorphicTest> = suite
        .metamorphic
        .iter()
        .filter(|t| mr_steps(t).any(|s| op_ok(&s.op_id)) && state_ok(&t.o_id()))
        .cloned()
        .collect();
    Ok(Plan {
        oracles,
        multi_op,
        metamorphic,
        ..Plan::default()
    })
}

/// Seed then follow-up steps of a metamorphic test.
fn mr_steps(t: &MetamorphicTest) -> impl Iterator<Item = &crate::model::Step> {
    t.seed.iter().chain(&t.follow_up)
}

/// `get /pets` → `GET /pets`, so `--op` is forgiving about the method's case.
fn normalize_op(op: &str) -> String {
    match op.trim().split_once(char::is_whitespace) {
        Some((m, p)) if p.trim().starts_with('/') => crate::model::op_id(m, p.trim()),
        _ => op.trim().to_string(),
    }
}

#[cfg(test)]
mod tests;

#[cfg(test)]
mod mr_tests;
