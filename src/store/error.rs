//! Typed errors of the session store. Every variant names the file or directory it is
//! about, so a message alone tells the user where to look.

use std::path::PathBuf;

/// What can go wrong reading or writing a session directory.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The directory has no `manifest.json`: it was never created by `mastor`.
    #[error("not a mastor session: {dir} (no manifest.json)")]
    NotASession { dir: PathBuf },

    /// `Session::create` refuses to overwrite an existing session.
    #[error("a mastor session already exists in {dir}")]
    AlreadyExists { dir: PathBuf },

    /// The session was written by a newer, incompatible version of the tool.
    #[error(
        "session {dir} has schema version {found}, this mastor understands up to {supported}; \
         upgrade mastor or choose another --out directory"
    )]
    NewerSchema {
        dir: PathBuf,
        found: u32,
        supported: u32,
    },

    /// A relative path given to the store would escape the session directory.
    #[error("invalid session path {path:?}: {reason}")]
    BadPath { path: String, reason: &'static str },

    /// Reading, writing, syncing or renaming a file failed.
    #[error("{action} {path}: {source}")]
    Io {
        action: &'static str,
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },

    /// A JSON file exists but does not hold what the caller asked for.
    #[error("cannot parse {path}: {source}")]
    Parse {
        path: PathBuf,
        #[source]
        source: serde_json::Error,
    },

    /// A value could not be serialized (a non-string map key, a NaN float...).
    #[error("cannot serialize data for {path}: {source}")]
    Serialize {
        path: PathBuf,
        #[source]
        source: serde_json::Error,
    },

    /// A journal line other than the last one is damaged; the last one may be torn by
    /// a killed process and is skipped instead.
    #[error("{path} line {line} is damaged: {reason}")]
    CorruptJournal {
        path: PathBuf,
        line: usize,
        reason: String,
    },
}

impl StoreError {
    pub(crate) fn io(
        action: &'static str,
        path: impl Into<PathBuf>,
        source: std::io::Error,
    ) -> Self {
        StoreError::Io {
            action,
            path: path.into(),
            source,
        }
    }
}
