//! Running metamorphic tests: the relations themselves (operands, evaluation, judging)
//! are the oracle language's, re-exported here under their old path.

pub use crate::oracle::relations::*;

use crate::model::MetamorphicTest;
use crate::runner::{Plan, RunConfig, RunnerError};

/// Runs metamorphic tests one after another through the multi-op runner and judges them.
/// `cfg.budget` bounds the requests of this call.
pub async fn run_metamorphic(
    tests: &[MetamorphicTest],
    cfg: &RunConfig,
    documented: &Documented,
) -> Result<Vec<MrVerdict>, RunnerError> {
    let plan = Plan {
        multi_op: tests.iter().map(to_multi_op).collect(),
        ..Plan::default()
    };
    let report = crate::runner::run(&plan, cfg).await?;
    Ok(tests
        .iter()
        .zip(report.verdicts)
        .map(|(t, v)| judge(t, v, documented))
        .collect())
}
