//! Builds an [`ExportInput`] from a session directory with the shared reader
//! (`crate::suite::session`): suites and group records, review states replayed from the
//! journal (an edited oracle comes back in its edited form), metamorphic tests, the
//! documented statuses of the session's spec (when it still loads), and the latest
//! verdicts the runner stored (`verdicts/latest.json`).
//!
//! Read-only: the session is opened, never written. Edits that do not parse are listed in
//! [`ExportInput::problems`] (the original is exported), as `mastor check` does.

use super::{ExportError, ExportInput, Selection};
use crate::store::{Session, StoreError};
use crate::suite::session::{LATEST_VERDICTS, VerdictFile, read};
use std::path::Path;

/// Loads the oracles, review states and latest verdicts of the session in `dir`.
pub fn load_session(dir: &Path, selection: Selection) -> Result<ExportInput, ExportError> {
    let store_err = |source: StoreError| ExportError::Session {
        dir: dir.to_path_buf(),
        source,
    };
    let session = Session::open(dir).map_err(store_err)?;
    let loaded = read(&session).map_err(store_err)?;
    let mut input = ExportInput::from_suite(loaded.suite, selection);
    input.problems = loaded.problems;
    input.originals = loaded.originals;
    input.documented = crate::suite::session::documented(&session);
    if let Some(file) = session
        .read_json::<VerdictFile>(LATEST_VERDICTS)
        .map_err(store_err)?
    {
        for verdict in file.report.verdicts {
            input.verdicts.insert(verdict.o_id.clone(), verdict);
        }
    }
    Ok(input)
}
