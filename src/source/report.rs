//! The scan report: what `mastor scan --json` prints and what the pipeline starts from.
//!
//! Plain serde data only; building it is `analyse`, printing it is the CLI.

use super::entries::EntryFile;
use crate::model::EntryRef;
use serde::Serialize;
use std::collections::BTreeMap;

/// Which spec was analysed.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SpecSummary {
    pub file: String,
    pub version: String,
    /// Number of operations in the spec.
    pub operations: usize,
}

/// Size of one operation's bundle.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BundleSummary {
    pub files: Vec<String>,
    pub lines: usize,
    pub bytes: usize,
    pub tokens_est: usize,
    pub hash: String,
}

/// One spec operation and what the code analysis found for it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct OperationReport {
    pub op_id: String,
    pub method: String,
    pub path: String,
    pub operation_id: Option<String>,
    /// Why the operation is excluded (framework endpoint), if it is.
    pub excluded: Option<String>,
    pub entry: Option<EntryRef>,
    /// Set when `entry` is null: why no handler was found.
    pub unmatched_reason: Option<String>,
    pub bundle: Option<BundleSummary>,
    /// Set when `entry` is a dispatcher the scan could not see through (the framework
    /// callback or a router method standing in for a branch it could not resolve): why.
    /// Model discovery may overrule such a match (`agents::discovery`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub weak: Option<String>,
}

/// A file that appears in more than one distinct bundle.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SharedFile {
    pub file: String,
    pub bundles: usize,
}

/// A route in the code that no spec operation maps to.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RouteReport {
    pub method: Option<String>,
    pub path: String,
    pub framework: String,
    pub handler: EntryRef,
}

/// A Java file that did not parse cleanly (it is still bundled).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SyntaxProblem {
    pub file: String,
    /// 1-based line of the first error.
    pub line: usize,
}

/// Everything `mastor scan` reports.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ScanReport {
    pub spec: SpecSummary,
    pub operations: Vec<OperationReport>,
    pub entry_files: Vec<EntryFile>,
    /// Entry file → every file of its closure (itself included), sorted.
    pub closures: BTreeMap<String, Vec<String>>,
    pub shared_files: Vec<SharedFile>,
    pub routes_without_spec: Vec<RouteReport>,
    pub java_files: usize,
    pub source_roots: Vec<String>,
    pub seed_files: Vec<String>,
    /// Start-up code that creates records (seed data in Java), by file and line.
    pub seed_java: Vec<super::seed_java::JavaSeed>,
    /// Seed files never sent to a model, with the reason.
    pub seed_refused: Vec<super::redact::RefusedSeed>,
    /// Secrets replaced before anything reaches a model (bundles and seed data).
    pub redactions: Vec<super::redact::Redaction>,
    pub syntax_errors: Vec<SyntaxProblem>,
    pub warnings: Vec<String>,
}
