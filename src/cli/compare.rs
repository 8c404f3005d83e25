//! `mastor compare SESSION...`: one row per session (MASTOR, DP or spec-only) with its
//! oracle counts by type, the verdicts of its last `mastor check`, and a mutation-score
//! column, so the paper's RQ2 comparison can be read off one table.
//!
//! Counts cover every oracle the session holds, whatever its review state (baseline
//! oracles are never reviewed), by the primary assertion type of `suite::filter`. The
//! verdicts are those `check` stored in `verdicts/latest.json`, so a comparison restricted
//! to some operations and types is made by checking each session with the same `--op` and
//! `--types`. The mutation score is the one `mastor mutate` stored in the session's
//! `mutation/summary.json` ("n/a" when the session was never mutated), so sessions are
//! compared on the same mutants only when each was mutated with the same options.
//!
//! The tp / fp / TPR columns are ARMeta's fault-detection metrics over the reviewer's
//! judgements (`positives`): single-op, multi-op and metamorphic failures together in
//! the text table, oracles and metamorphic tests apart in `--json` (`positives`). TPR
//! counts unjudged failures in the denominator. Below the table, the semantically unique
//! metamorphic tests across the given sessions (`metamorphic::unique`, by title slug).

use crate::cli::{EXIT_INPUT, EXIT_OK};
use crate::pipeline::kind::SessionKind;
use crate::store::{MANIFEST_FILE, Session};
use crate::suite::filter::TypeCounts;
use crate::suite::session::{LATEST_VERDICTS, VerdictFile};
use clap::Args;
use serde::Serialize;
use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// Arguments of `mastor compare`.
#[derive(Debug, Args)]
#[command(
    after_help = "The mutation column is the score of the session's last `mastor mutate` \
(n/a: never mutated).\n\nExample:\n  \
    mastor check .mastor-dp --base-url http://127.0.0.1:8080 --only all --types status,field\n  \
    mastor compare .mastor .mastor-dp .mastor-spec"
)]
pub struct CompareArgs {
    /// Session directories to compare, one row each, in this order.
    #[arg(required = true)]
    pub sessions: Vec<PathBuf>,
    /// Print the rows as JSON.
    #[arg(long)]
    pub json: bool,
}

/// Verdict counts of a session's last check.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CheckCounts {
    /// When the check finished (RFC 3339).
    pub at: String,
    pub passed: usize,
    pub failed: usize,
    pub errors: usize,
    pub skipped: usize,
}

/// One session's row.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CompareRow {
    pub session: String,
    pub kind: SessionKind,
    /// "MASTOR", "DP", "spec-only".
    pub label: String,
    /// For baselines: whether their answers were normalized.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub normalized: Option<bool>,
    /// Operations with at least one single-op oracle.
    pub operations: usize,
    pub counts: TypeCounts,
    /// `None` when the session was never checked.
    pub check: Option<CheckCounts>,
    /// The last `mastor mutate`'s score (killed / covered viable); `None`: never mutated
    /// or no covered viable mutant.
    pub mutation_score: Option<f64>,
    /// Failed tests and their true / false positive judgements.
    pub positives: crate::positives::Positives,
}

/// Reads one session's row.
pub fn row(dir: &Path) -> color_eyre::Result<CompareRow> {
    if !dir.join(MANIFEST_FILE).is_file() {
        color_eyre::eyre::bail!(
            "{} is not a mastor session (no {MANIFEST_FILE})",
            dir.display()
        );
    }
    let session = Session::open(dir)?;
    let manifest = session.manifest();
    let loaded = crate::suite::session::read(&session)?;
    let operations: BTreeSet<&str> = loaded
        .suite
        .oracles
        .iter()
        .map(|o| o.op_id.as_str())
        .collect();
    let check = session
        .read_json::<VerdictFile>(LATEST_VERDICTS)?
        .map(|v| CheckCounts {
            at: v.at,
            passed: v.report.summary.passed,
            failed: v.report.summary.failed,
            errors: v.report.summary.errors,
            skipped: v.report.summary.skipped,
        });
    let kind = SessionKind::of(&manifest);
    Ok(CompareRow {
        session: dir.display().to_string(),
        label: kind.label().to_string(),
        normalized: SessionKind::normalized(&manifest),
        kind,
        operations: operations.len(),
        counts: TypeCounts::of(&loaded.suite),
        check,
        mutation_score: mutation_score(dir)?,
        positives: crate::positives::of_session(&session)?,
    })
}

/// The score in `DIR/mutation/summary.json`, if the session was mutated.
fn mutation_score(dir: &Path) -> color_eyre::Result<Option<f64>> {
    let results = crate::mutate::results::Results::new(dir.join("mutation"));
    if !results
        .dir
        .join(crate::mutate::results::SUMMARY_FILE)
        .exists()
    {
        return Ok(None);
    }
    let summary = results
        .read_summary()
        .map_err(|e| color_eyre::eyre::eyre!(e))?;
    Ok(summary.total.score)
}

/// Runs `mastor compare`.
pub fn run(args: CompareArgs) -> color_eyre::Result<i32> {
    let mut rows = Vec::new();
    for dir in &args.sessions {
        match row(dir) {
            Ok(r) => rows.push(r),
            Err(e) => {
                let text = format!("{e:#}");
                eprintln!("mastor compare: {}", crate::text::escape_controls(&text));
                return Ok(EXIT_INPUT);
            }
        }
    }
    if args.json {
        println!("{}", serde_json::to_string_pretty(&rows)?);
    } else {
        print!("{}", render(&rows));
        match crate::cli::unique::of_dirs(&args.sessions) {
            Ok(u) => println!("{}", crate::cli::unique::line(&u)),
            Err(e) => eprintln!("mastor compare: unique metamorphic tests: {e:#}"),
        }
    }
    Ok(EXIT_OK)
}

/// The text table.
pub fn render(rows: &[CompareRow]) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{:<10} {:>4} {:>7} {:>6} {:>6} {:>6}  {:>5} {:>5} {:>5} {:>7}  {:>3} {:>3} {:>6}  {:>8}  session",
        "kind",
        "ops",
        "#status",
        "#field",
        "#multi",
        "total",
        "pass",
        "fail",
        "error",
        "skipped",
        "tp",
        "fp",
        "TPR",
        "mutation"
    );
    for r in rows {
        let total = r.counts.status + r.counts.field + r.counts.multi;
        let kind = match r.normalized {
            Some(false) => r.label.clone(),
            Some(true) => format!("{}+norm", r.label),
            None => r.label.clone(),
        };
        let verdicts = match &r.check {
            Some(c) => format!(
                "{:>5} {:>5} {:>5} {:>7}",
                c.passed, c.failed, c.errors, c.skipped
            ),
            None => format!("{:>5} {:>5} {:>5} {:>7}", "-", "-", "-", "-"),
        };
        let p = &r.positives.total;
        let _ = writeln!(
            out,
            "{:<10} {:>4} {:>7} {:>6} {:>6} {:>6}  {verdicts}  {:>3} {:>3} {:>6}  {:>8}  {}",
            kind,
            r.operations,
            r.counts.status,
            r.counts.field,
            r.counts.multi,
            total,
            p.tpft,
            p.fpft,
            p.tpr_text(),
            r.mutation_score
                .map_or("n/a".to_string(), |s| format!("{:.1}%", s * 100.0)),
            crate::text::escape_controls(&r.session)
        );
    }
    if rows.iter().any(|r| r.check.is_none()) {
        out.push_str("(-: never checked; run `mastor check` on the session)\n");
    }
    out.push_str(
        "tp/fp/TPR: judged failures of oracles and metamorphic tests together; TPR = tp / \
         failed, unjudged failures included (--json splits them)\n",
    );
    out.push_str("mutation: score of the session's last `mastor mutate` (n/a: never mutated)\n");
    out
}
