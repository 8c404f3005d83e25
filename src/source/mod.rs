//! Rule-based source analysis of a Java REST project (docs/ARCHITECTURE.md section 2, paper 4.3.1).
//!
//! `scan` → `java` (one parallel tree-sitter parse per file into plain summaries) →
//! `index` → `entries` → `closure` → `bundle`, plus `routes`, the static route pre-match
//! between spec operations and handler methods, and `seed_java`, the records start-up code
//! creates (seed data besides SQL and JSON files). [`analyse`] runs all of it and returns a
//! [`report::ScanReport`] together with the per-operation [`bundle::Bundle`]s.
//!
//! Deliberately not here: anything that needs an LLM (the paper's OAS matching and source
//! extraction live in `agents`), spec parsing (`spec`), and printing (`cli`).

pub mod bundle;
pub mod closure;
pub mod declarations;
pub mod entries;
pub mod envelope;
pub mod evidence;
pub mod framework_facts;
pub mod index;
pub mod java;
pub mod numbered;
pub mod redact;
pub mod report;
pub mod routes;
pub mod scan;
pub mod seed_java;
pub mod slice;

mod analyse;
#[cfg(test)]
mod seed_java_tests;
#[cfg(test)]
mod testutil;

pub use analyse::{
    AnalyseOptions, Analysis, SEED_SCAN_CAP, SpecInfo, WEAK_MATCH, analyse, analyse_operations,
    weak_matches,
};

use std::path::PathBuf;

/// Why the source side of a project cannot be analysed.
#[derive(Debug, thiserror::Error)]
pub enum SourceError {
    #[error("project directory {0} does not exist or is not a directory")]
    MissingDir(PathBuf),
    #[error("no Java source files found under {0} (test sources and build output are skipped)")]
    NoJavaFiles(PathBuf),
}
