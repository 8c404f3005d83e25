//! Metamorphic tests in the session: one `metamorphic/<test_id>.json` per test (review id
//! `mr#<test_id>`, the same journal as every other oracle) and `metamorphic_report.json`
//! with iterations, verdicts, coverage and the stop reason. Reading back gives the tests
//! for review and export. Nothing here runs or generates tests.

use crate::metamorphic::iterate::MrReport;
use crate::store::{Session, StoreError};

/// Where tests are kept lives in the store; kept here under the old names.
pub use crate::store::mr_files::{DIR, file_rel, load_tests};

/// The session report's file.
pub const REPORT: &str = "metamorphic_report.json";

/// Writes every test and the report (atomic writes, as the rest of the session).
pub fn save(session: &Session, report: &MrReport) -> Result<(), StoreError> {
    for t in &report.tests {
        session.write_json(&file_rel(&t.test_id), t)?;
    }
    session.write_json(REPORT, report)
}

/// The last session report, if any.
pub fn load_report(session: &Session) -> Result<Option<MrReport>, StoreError> {
    session.read_json(REPORT)
}
