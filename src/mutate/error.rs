//! What can go wrong in a mutation analysis, by operation: every variant names the file,
//! the flag or the step (building the original, starting a mutant's server, merging
//! shards) and what is wrong, as `store`, `spec` and `llm` errors do.

use crate::store::StoreError;
use crate::store::settings_file::SettingsWriteError;
use std::path::{Path, PathBuf};

/// A mutation analysis error.
#[derive(Debug, thiserror::Error)]
pub enum MutateError {
    /// Reading, writing, creating or copying a file or directory failed.
    #[error("cannot {action} {}: {source}", path.display())]
    Io {
        action: &'static str,
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// A results file (`matrix.json`, a line of `mutants.jsonl`, ...) does not parse.
    #[error("{}{}: {source}", path.display(), line.map(|n| format!(":{n}")).unwrap_or_default())]
    Parse {
        path: PathBuf,
        /// 1-based line of a JSON-lines file.
        line: Option<usize>,
        #[source]
        source: serde_json::Error,
    },
    /// A value could not be turned into JSON (names what).
    #[error("cannot serialize {what}: {source}")]
    Serialize {
        what: String,
        #[source]
        source: serde_json::Error,
    },
    /// The session, its journals or a verdict file.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// A suite file that cannot be read.
    #[error(transparent)]
    Suite(#[from] crate::suite::SuiteError),
    /// `mutation/options.json`.
    #[error(transparent)]
    Settings(#[from] SettingsWriteError),
    /// The options or the input do not allow an analysis (a flag's value, a missing
    /// `--project`, a suite without oracles, no file to mutate); the text names which.
    #[error("{0}")]
    Input(String),
    /// A Java source that cannot be decoded or written in the chosen encoding.
    #[error("{}: {reason}", path.display())]
    Encoding { path: PathBuf, reason: String },
    /// Building the original program or a mutant (the text names which and why).
    #[error("{0}")]
    Build(String),
    /// Starting an API (the original's or a mutant's) or waiting until it answers.
    #[error("{0}")]
    Start(String),
    /// Running the suite (the text names on what).
    #[error("{0}")]
    Run(String),
    /// Results that are missing or disagree (no baseline yet, shards of different
    /// analyses).
    #[error("{0}")]
    Results(String),
}

impl MutateError {
    /// An I/O error of `action` on `path`.
    pub fn io(action: &'static str, path: impl AsRef<Path>, source: std::io::Error) -> Self {
        MutateError::Io {
            action,
            path: path.as_ref().to_path_buf(),
            source,
        }
    }

    /// A JSON file (or one line of a JSON-lines file) that does not parse.
    pub fn parse(path: impl AsRef<Path>, line: Option<usize>, source: serde_json::Error) -> Self {
        MutateError::Parse {
            path: path.as_ref().to_path_buf(),
            line,
            source,
        }
    }
}

/// The workbench's job bodies report a failure as text in their status line.
impl From<MutateError> for String {
    fn from(e: MutateError) -> String {
        e.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mutate::results::{MATRIX_FILE, MUTANTS_FILE, Results};

    #[test]
    fn a_broken_results_file_is_named_with_its_line() {
        let dir = tempfile::tempdir().unwrap();
        let results = Results::new(dir.path());
        let err = results.read_matrix().unwrap_err();
        assert!(
            matches!(&err, MutateError::Io { action: "read", path, .. } if path.ends_with(MATRIX_FILE)),
            "{err}"
        );
        std::fs::write(dir.path().join(MATRIX_FILE), "{oops").unwrap();
        let err = results.read_matrix().unwrap_err();
        assert!(
            matches!(&err, MutateError::Parse { line: None, .. }),
            "{err}"
        );
        assert!(
            err.to_string()
                .starts_with(&dir.path().join(MATRIX_FILE).display().to_string())
        );
        std::fs::write(dir.path().join(MUTANTS_FILE), "\n{oops\n").unwrap();
        let err = results.read_mutants().unwrap_err();
        assert!(
            matches!(&err, MutateError::Parse { line: Some(2), .. }),
            "{err}"
        );
        assert!(
            err.to_string().contains(&format!("{MUTANTS_FILE}:2: ")),
            "{err}"
        );
    }
}
