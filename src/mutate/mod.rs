//! Mutation analysis: faults seeded into the API's Java source, and which oracles notice
//! them (MASTOR's measure of oracle quality, the mutation score).
//!
//! The data flows in one direction:
//! `operators` (tree-sitter edits on one file) → `mutants` (the deterministic mutant list
//! of a project: files, `--in-diff`, sampling, sharding) → `build` (a scratch overlay per
//! mutant: `javac` of the one changed file against the original classes, or the user's
//! build command) → `server` (start on a free port, wait until ready, stop by process
//! group) → `execute` (the baseline on the original program, then one fresh server per
//! mutant, the suite run by the same runner as `mastor check`) → `matrix` (outcomes,
//! score, kills and unique kills per oracle, redundant oracles) → `results` (the
//! `mutation/` files, incremental reuse and the merge of shards).
//!
//! Outcome names follow cargo-mutants (caught, missed, timeout, unviable); the summary
//! keeps the paper's killed/survived/no coverage beside them.

pub mod analysis;
pub mod build;
pub mod classpath;
pub mod diff;
pub mod encoding;
pub mod error;
pub mod execute;
pub mod leftovers;
pub mod matrix;
pub mod merge;
pub mod mutants;
pub mod operators;
pub mod options;
pub mod results;
pub mod server;
pub mod settings;
pub mod survivors;

pub use error::MutateError;
pub use matrix::{Matrix, MutantOutcome, Status, Summary};
pub use mutants::Mutant;
pub use operators::Operator;
pub use options::Options;
