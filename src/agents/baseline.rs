//! The Direct Prompting baseline (paper §6.2, appendix Listing A.1): one zero-shot call
//! with the spec's operation list and the project's source concatenated, asking for every
//! operation's oracles at once. The prompt is Listing A.1 word for word, with its two
//! placeholders (`{{oas_ops}}`, `{{source_code}}`).
//!
//! The paper's DP has no Oracle Normalization (§6.2: "without ... Oracle Normalization"),
//! so by default its answer is only parsed into oracles (entries that cannot be
//! represented at all are listed in `unparsed`, not repaired); `normalize: true` runs the
//! pipeline's single-op normalization instead, for an ablation. Either way the oracles
//! are written as the same per-operation suites, so `mastor check`, `export`, the TUI and
//! `mastor compare` work on either session, and the manifest says which it was.
//!
//! It deliberately has no discovery, extraction, challenger or regeneration: it is the
//! yardstick the pipeline is measured against, not a lighter pipeline.

use crate::agents::normalize::{BundleIndex, NormalizeReport, normalize_single};
use crate::agents::runtime::AgentCtx;
use crate::model::{Assertion, Oracle};
use crate::project::{Prepared, bundle_index};
use crate::source::bundle::Bundle;
use crate::store::{PhaseState, PhaseStatus, StoreError, SuiteRecord};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use std::collections::{BTreeMap, BTreeSet};

/// Agent (and prompt) name of the baseline call.
pub const AGENT: crate::agents::Agent = crate::agents::Agent::BaselineDp;
/// File in the session with the baseline's record.
pub const RECORD_FILE: &str = "baseline.json";
/// Manifest setting (`config.settings`) naming the baseline a session holds; absent in
/// a pipeline session. Kept in the free-form settings so older builds still open it.
pub const KIND_SETTING: &str = "baseline";
/// [`KIND_SETTING`] value of a Direct Prompting session.
pub const KIND_DP: &str = "direct_prompting";
/// [`KIND_SETTING`] value of a spec-only session.
pub const KIND_SPEC: &str = "spec_only";
/// Manifest setting saying whether a baseline's answers were normalized.
pub const NORMALIZED_SETTING: &str = "normalized";
/// Default cap on the concatenated source, in characters (about 100k tokens): larger
/// projects exceed what most models accept in one prompt anyway.
pub const DEFAULT_SOURCE_CAP: usize = 400_000;

/// Why the baseline failed; each names what it was working on.
#[derive(Debug, thiserror::Error)]
pub enum BaselineError {
    #[error("the baseline call failed: {0}")]
    Call(String),
    #[error("the model's answer has no `operations` list: {0}")]
    Shape(String),
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// The source sent to the model: every bundle's files, each once.
#[derive(Debug, Clone, PartialEq)]
pub struct DpSource {
    /// Numbered file texts, then a note when files were left out.
    pub text: String,
    /// Distinct files across all bundles.
    pub files: usize,
    /// Paths of the files left out by the cap, in order.
    pub omitted: Vec<String>,
}

/// Concatenates the files of every bundle (entry bundles and per-operation bundles),
/// de-duplicated, in bundle order, keeping whole files until `cap` characters; files
/// that do not fit are named in a closing note so the model (and the reader of the
/// call log) knows the source is incomplete.
pub fn dp_source(project: &Prepared, cap: usize) -> DpSource {
    let bundles = project
        .entry_bundles()
        .values()
        .chain(project.analysis.bundles.values());
    let mut seen = BTreeSet::new();
    let mut sections: Vec<(String, String)> = Vec::new();
    for bundle in bundles {
        for (path, section) in split_files(bundle) {
            if seen.insert(path.clone()) {
                sections.push((path, section));
            }
        }
    }
    let files = sections.len();
    let mut text = String::new();
    let mut omitted = Vec::new();
    for (path, section) in sections {
        if omitted.is_empty() && text.len() + section.len() <= cap {
            text.push_str(&section);
        } else {
            omitted.push(path);
        }
    }
    if !omitted.is_empty() {
        text.push_str(&format!(
            "// ===== NOTE: source truncated at {cap} characters: {} of {files} files left out: {} =====\n",
            omitted.len(),
            omitted.join(", ")
        ));
    }
    DpSource {
        text,
        files,
        omitted,
    }
}

/// The rendered files of a bundle, as (path, numbered text) in bundle order.
fn split_files(bundle: &Bundle) -> Vec<(String, String)> {
    const HEADER: &str = "// ===== FILE: ";
    let mut out: Vec<(String, String)> = Vec::new();
    for line in bundle.text.split_inclusive('\n') {
        if let Some(rest) = line.strip_prefix(HEADER)
            && let Some((path, _)) = rest.rsplit_once(" (")
        {
            out.push((path.to_string(), String::new()));
        }
        if let Some((_, section)) = out.last_mut() {
            section.push_str(line);
        }
    }
    out
}

/// `baseline.json`: what the one call asked, what came back and what was kept.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct DpRecord {
    /// Whether the answer went through the pipeline's normalization (`--normalize`);
    /// false for the paper's DP, whose answers are used as they come.
    #[serde(default)]
    pub normalized: bool,
    /// Operations listed in the prompt.
    pub operations: usize,
    /// Operations with at least one oracle kept.
    pub answered: Vec<String>,
    /// Listed operations the answer left without oracles.
    pub missing: Vec<String>,
    /// op_ids in the answer that are not in the list (their oracles are refused).
    pub unknown_ops: Vec<String>,
    /// What was kept, dropped or unreadable, over all operations.
    #[serde(flatten)]
    pub tally: Tally,
    pub source_files: usize,
    pub source_omitted: Vec<String>,
    pub source_chars: usize,
    pub tokens_in: u64,
    pub tokens_out: u64,
    pub cache_hit: bool,
}

/// One operation's answer turned into oracles.
#[derive(Debug, Clone, Default)]
pub struct Converted {
    pub kept: Vec<Oracle>,
    /// The normalization report, when normalized.
    pub report: Option<NormalizeReport>,
    /// Entries that could not be parsed, when not normalized.
    pub unparsed: Vec<String>,
}

/// Turns one operation's raw oracle list into oracles: through the pipeline's single-op
/// normalization (no source context) when `normalize`, else through the suite loader
/// only, which reads what it can and names what it cannot (shared by both baselines so
/// that they differ from the pipeline in the model's work only).
pub fn convert(op_id: &str, raw: Vec<Value>, normalize: bool, index: &BundleIndex) -> Converted {
    let answer = json!({"path_oracles": raw});
    if normalize {
        let outcome = normalize_single(op_id, &answer, None, index);
        let report = outcome.report();
        return Converted {
            kept: outcome.kept,
            report: Some(report),
            unparsed: Vec::new(),
        };
    }
    let doc = json!({"operations": [{"op_id": op_id, "path_oracles": answer["path_oracles"]}]});
    let opts = crate::suite::LoadOptions { lenient: true };
    match crate::suite::from_value_with(doc, std::path::Path::new("answer"), opts) {
        Ok(loaded) => Converted {
            kept: loaded.suite.oracles,
            report: None,
            unparsed: loaded
                .problems
                .iter()
                .map(|p| format!("{op_id}: {p}"))
                .collect(),
        },
        Err(e) => Converted {
            unparsed: vec![format!("{op_id}: {e}")],
            ..Converted::default()
        },
    }
}

/// The counts both baselines keep of their answers (serialised flat into their records).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Tally {
    pub oracles: usize,
    /// Oracles whose primary assertion type is status (no field assertion; Table 9).
    #[serde(default)]
    pub status_oracles: usize,
    /// Oracles with at least one field assertion (Table 9 #Field).
    #[serde(default)]
    pub field_oracles: usize,
    /// Status assertions over all kept oracles.
    pub status_assertions: usize,
    /// Field assertions over all kept oracles.
    pub field_assertions: usize,
    /// Oracles normalization dropped (0 when not normalized).
    pub dropped: usize,
    /// Entries that could not be read as oracles at all when not normalized (no
    /// assertions list, an unknown assertion op, ...), one line each naming why.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unparsed: Vec<String>,
    /// Rule id → how often it fired, over all operations (empty when not normalized).
    pub normalization: BTreeMap<String, usize>,
}

impl Tally {
    /// Adds one operation's converted answer.
    pub fn add(&mut self, converted: &Converted) {
        if let Some(report) = &converted.report {
            self.dropped += report.dropped.len();
            for (rule, n) in &report.counts {
                *self.normalization.entry(rule.clone()).or_default() += n;
            }
        }
        self.unparsed.extend(converted.unparsed.iter().cloned());
        self.oracles += converted.kept.len();
        for o in &converted.kept {
            let mut has_field = false;
            for a in &o.assertions {
                match a {
                    Assertion::Status { .. } => self.status_assertions += 1,
                    Assertion::Field { .. } => {
                        self.field_assertions += 1;
                        has_field = true;
                    }
                }
            }
            if has_field {
                self.field_oracles += 1;
            } else {
                self.status_oracles += 1;
            }
        }
    }
}

/// Runs the baseline on `ctx.project` and writes its suites, record and manifest entry;
/// `normalize` opts into the pipeline's normalization (the paper's DP has none).
pub async fn run(
    ctx: &AgentCtx,
    source_cap: usize,
    normalize: bool,
) -> Result<DpRecord, BaselineError> {
    let started = chrono::Utc::now();
    let project = &ctx.project;
    let source = dp_source(project, source_cap);
    let operations = project.operation_list();
    let answer = ctx
        .call::<Value>(
            AGENT,
            None,
            &[("oas_ops", &operations), ("source_code", &source.text)],
            Some(schema()),
        )
        .await
        .map_err(|e| BaselineError::Call(e.to_string()))?;
    let per_op = split_answer(&answer.value)?;
    let selected: BTreeSet<&str> = project.selected.iter().map(String::as_str).collect();
    let index = bundle_index(&Bundle {
        files: Vec::new(),
        text: source.text.clone(),
        lines: 0,
        bytes: 0,
        tokens_est: 0,
        hash: String::new(),
    });
    let mut rec = DpRecord {
        normalized: normalize,
        operations: project.selected.len(),
        source_files: source.files,
        source_omitted: source.omitted.clone(),
        source_chars: source.text.len(),
        tokens_in: answer.record.usage.prompt_tokens,
        tokens_out: answer.record.usage.completion_tokens,
        cache_hit: answer.record.cache_hit,
        ..DpRecord::default()
    };
    for (op_id, oracles) in per_op {
        if !selected.contains(op_id.as_str()) {
            rec.unknown_ops.push(op_id);
            continue;
        }
        let converted = convert(&op_id, oracles, normalize, &index);
        rec.tally.add(&converted);
        if !converted.kept.is_empty() {
            rec.answered.push(op_id.clone());
        }
        let mut suite = SuiteRecord::new(op_id);
        suite.normalization.extend(converted.report);
        suite.oracles = converted.kept;
        ctx.session.write_suite(&suite)?;
    }
    rec.missing = project
        .selected
        .iter()
        .filter(|op| !rec.answered.contains(op))
        .cloned()
        .collect();
    ctx.session.write_json(RECORD_FILE, &rec)?;
    let message = format!(
        "direct prompting: {} oracles for {} of {} operations ({})",
        rec.tally.oracles,
        rec.answered.len(),
        rec.operations,
        if normalize {
            "normalized"
        } else {
            "not normalized"
        }
    );
    ctx.session.update_manifest(|m| {
        m.config
            .settings
            .insert(KIND_SETTING.into(), json!(KIND_DP));
        m.config
            .settings
            .insert(NORMALIZED_SETTING.into(), json!(normalize));
        m.phases.insert(
            AGENT.name().into(),
            PhaseState {
                status: PhaseStatus::Done,
                started_at: Some(started),
                finished_at: Some(chrono::Utc::now()),
                message: Some(message),
            },
        );
    })?;
    Ok(rec)
}

/// The answer's oracle lists by op_id, in answer order; entries for the same operation
/// are joined. Accepts `{"operations": [...]}` or a bare list of operations.
fn split_answer(raw: &Value) -> Result<BTreeMap<String, Vec<Value>>, BaselineError> {
    let list = match raw {
        Value::Array(items) => items,
        Value::Object(map) => match map.get("operations") {
            Some(Value::Array(items)) => items,
            _ => return Err(BaselineError::Shape(compact(raw))),
        },
        other => return Err(BaselineError::Shape(compact(other))),
    };
    let mut out: BTreeMap<String, Vec<Value>> = BTreeMap::new();
    for entry in list {
        let Some(op_id) = entry.get("op_id").and_then(Value::as_str) else {
            continue;
        };
        let oracles = entry
            .get("path_oracles")
            .or_else(|| entry.get("oracles"))
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        out.entry(op_id.trim().to_string())
            .or_default()
            .extend(oracles);
    }
    Ok(out)
}

/// At most 200 characters of `v`, for error messages.
fn compact(v: &Value) -> String {
    let s = v.to_string();
    match s.char_indices().nth(200) {
        Some((i, _)) => format!("{}...", &s[..i]),
        None => s,
    }
}

/// The answer shape, for providers that accept a JSON schema.
fn schema() -> Value {
    json!({"type": "object", "properties": {"operations": {"type": "array", "items": {
        "type": "object", "properties": {"op_id": {"type": "string"},
        "path_oracles": {"type": "array", "items": {"type": "object", "properties": {
            "description": {"type": "string"},
            "input": {"type": "object"},
            "assertions": {"type": "array", "items": {"type": "object"}}},
            "required": ["input", "assertions"]}}},
        "required": ["op_id", "path_oracles"]}}}, "required": ["operations"]})
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answer_entries_for_one_operation_are_joined() {
        let raw = json!({"operations": [
            {"op_id": "GET /a", "path_oracles": [{"x": 1}]},
            {"op_id": " GET /a ", "path_oracles": [{"x": 2}]},
            {"path_oracles": [{"x": 3}]},
            {"op_id": "GET /b", "oracles": [{"x": 4}]}]});
        let m = split_answer(&raw).unwrap();
        assert_eq!(m["GET /a"].len(), 2);
        assert_eq!(m["GET /b"].len(), 1);
        assert_eq!(m.len(), 2);
        assert!(matches!(
            split_answer(&json!({"ops": []})),
            Err(BaselineError::Shape(_))
        ));
    }

    #[test]
    fn files_split_at_headers() {
        let text = "// ===== FILE: a/A.java (2 lines) =====\n1 x\n2 y\n// ===== FILE: B.java (1 lines) =====\n1 z\n";
        let b = Bundle {
            files: vec![],
            text: text.into(),
            lines: 3,
            bytes: text.len(),
            tokens_est: 0,
            hash: String::new(),
        };
        let f = split_files(&b);
        assert_eq!(f.len(), 2);
        assert_eq!(f[0].0, "a/A.java");
        assert!(f[0].1.ends_with("\n2 y\n"));
        assert_eq!(f[1].1.lines().count(), 2);
    }
}
