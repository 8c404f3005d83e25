//! `mastor report SESSION...`: the cost table of paper Tables 12-13, one row per session
//! (calls, input and output tokens in millions, cost, wall-clock time, summed call time,
//! cost per operation), with median and mean rows per kind, as Markdown or CSV.
//!
//! Sessions are told apart by the kind their manifest records (`pipeline::kind`):
//! MASTOR, DP or spec-only. A Direct Prompting session of the same project lying next to
//! a MASTOR session given here (a sibling directory, as `.mastor` and `.mastor-dp` are by
//! default) joins the table in its own row labelled DP, so the paper's MASTOR-vs-DP
//! comparison needs only the MASTOR sessions. Medians and means are computed per kind:
//! mixing a one-call baseline with the pipeline would describe neither.
//!
//! Both times are shown because Table 12 mixes them: wall-clock seconds for MASTOR, the
//! total LLM call duration for Direct Prompting.

use crate::cli::{EXIT_INPUT, EXIT_OK};
use crate::pipeline::kind::SessionKind;
use crate::pipeline::phases;
use crate::store::{MANIFEST_FILE, Session};
use clap::Args;
use serde::Serialize;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// Arguments of `mastor report`.
#[derive(Debug, Args)]
#[command(after_help = "Example:\n  \
    mastor report api1/.mastor api2/.mastor            # adds api1/.mastor-dp etc. when present\n  \
    mastor report api1/.mastor api2/.mastor --csv > cost.csv")]
pub struct ReportArgs {
    /// Session directories, one row each (plus the DP sessions found beside them).
    #[arg(required = true)]
    pub sessions: Vec<PathBuf>,
    /// CSV instead of Markdown.
    #[arg(long)]
    pub csv: bool,
}

/// One row of the table.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ReportRow {
    /// The project's directory name (the API), or "Median"/"Mean".
    pub api: String,
    /// "MASTOR", "DP", "spec-only".
    pub kind: String,
    pub session: String,
    pub operations: f64,
    pub calls: f64,
    pub tokens_in_m: f64,
    pub tokens_out_m: f64,
    pub cost_usd: f64,
    /// Wall-clock seconds of the run.
    pub wall_s: f64,
    /// Summed call durations in seconds.
    pub call_s: f64,
    pub cost_per_operation: f64,
    /// Of `tokens_in_m`, what the provider served from its prefix cache (billed at its
    /// cache-hit price).
    pub tokens_cached_m: f64,
}

/// Runs `mastor report`.
pub fn run(args: ReportArgs) -> color_eyre::Result<i32> {
    let dirs = match with_dp_siblings(&args.sessions) {
        Ok(d) => d,
        Err(e) => {
            eprintln!("mastor report: {}", crate::text::escape_controls(&e));
            return Ok(EXIT_INPUT);
        }
    };
    let mut rows = Vec::new();
    for dir in &dirs {
        match row(dir) {
            Ok(r) => rows.push(r),
            Err(e) => {
                let text = format!("{e:#}");
                eprintln!("mastor report: {}", crate::text::escape_controls(&text));
                return Ok(EXIT_INPUT);
            }
        }
    }
    let table = with_aggregates(rows);
    if args.csv {
        print!("{}", csv(&table));
    } else {
        print!("{}", markdown(&table));
    }
    Ok(EXIT_OK)
}

/// The given sessions in order, each MASTOR session followed by the DP sessions of the
/// same project found in its parent directory (each session once). A directory that is
/// not a session is an error naming it.
pub fn with_dp_siblings(given: &[PathBuf]) -> Result<Vec<PathBuf>, String> {
    let mut out: Vec<PathBuf> = Vec::new();
    let key = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
    let mut seen: Vec<PathBuf> = given.iter().map(|p| key(p)).collect();
    for dir in given {
        if !dir.join(MANIFEST_FILE).is_file() {
            return Err(format!(
                "{} is not a mastor session (no {MANIFEST_FILE})",
                dir.display()
            ));
        }
        out.push(dir.clone());
        let Ok(session) = Session::open(dir) else {
            continue;
        };
        let manifest = session.manifest();
        if SessionKind::of(&manifest) != SessionKind::Mastor {
            continue;
        }
        let project = key(Path::new(&manifest.project_root));
        let parent = match dir.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        };
        let Ok(entries) = std::fs::read_dir(&parent) else {
            continue;
        };
        let mut siblings: Vec<PathBuf> = entries
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| p.join(MANIFEST_FILE).is_file())
            .collect();
        siblings.sort();
        for sib in siblings {
            if seen.contains(&key(&sib)) {
                continue;
            }
            let Ok(other) = Session::open(&sib) else {
                continue;
            };
            let m = other.manifest();
            if SessionKind::of(&m) == SessionKind::DirectPrompting
                && key(Path::new(&m.project_root)) == project
            {
                seen.push(key(&sib));
                out.push(sib);
            }
        }
    }
    Ok(out)
}

/// The operations a session covered: the pipeline's state, else the baseline's record,
/// else the operations with oracles.
fn operations(session: &Session) -> color_eyre::Result<usize> {
    let summary = crate::pipeline::summary::from_session(session)?;
    if summary.operations > 0 {
        return Ok(summary.operations);
    }
    let record: Option<serde_json::Value> =
        session.read_json(crate::agents::baseline::RECORD_FILE)?;
    if let Some(n) = record
        .as_ref()
        .and_then(|r| r.get("operations"))
        .and_then(serde_json::Value::as_u64)
    {
        return Ok(n as usize);
    }
    let suite = crate::suite::session::read(session)?.suite;
    let ops: std::collections::BTreeSet<&str> =
        suite.oracles.iter().map(|o| o.op_id.as_str()).collect();
    Ok(ops.len())
}

/// One session's row.
pub fn row(dir: &Path) -> color_eyre::Result<ReportRow> {
    let session = Session::open(dir)?;
    let manifest = session.manifest();
    let ops = operations(&session)?;
    let costs = phases::from_session(&session, ops)?;
    let api = Path::new(&manifest.project_root).file_name().map_or_else(
        || manifest.project_root.clone(),
        |n| n.to_string_lossy().into_owned(),
    );
    Ok(ReportRow {
        api,
        kind: SessionKind::of(&manifest).label().to_string(),
        session: dir.display().to_string(),
        operations: ops as f64,
        calls: costs.run.calls as f64,
        tokens_in_m: costs.run.tokens_in_m,
        tokens_out_m: costs.run.tokens_out_m,
        cost_usd: costs.run.cost_usd,
        wall_s: costs.run.wall_ms as f64 / 1000.0,
        call_s: costs.run.call_ms as f64 / 1000.0,
        cost_per_operation: costs.cost_per_operation,
        tokens_cached_m: costs.run.tokens_cached as f64 / 1e6,
    })
}

/// The rows, then a Median and a Mean row per kind (in order of first appearance).
pub fn with_aggregates(rows: Vec<ReportRow>) -> Vec<ReportRow> {
    let mut kinds: Vec<String> = Vec::new();
    for r in &rows {
        if !kinds.contains(&r.kind) {
            kinds.push(r.kind.clone());
        }
    }
    let mut out = rows.clone();
    for kind in kinds {
        let group: Vec<&ReportRow> = rows.iter().filter(|r| r.kind == kind).collect();
        out.push(aggregate("Median", &kind, &group, median));
        out.push(aggregate("Mean", &kind, &group, mean));
    }
    out
}

fn aggregate(name: &str, kind: &str, group: &[&ReportRow], f: fn(Vec<f64>) -> f64) -> ReportRow {
    let col = |g: fn(&ReportRow) -> f64| f(group.iter().map(|r| g(r)).collect());
    ReportRow {
        api: name.to_string(),
        kind: kind.to_string(),
        session: String::new(),
        operations: col(|r| r.operations),
        calls: col(|r| r.calls),
        tokens_in_m: col(|r| r.tokens_in_m),
        tokens_out_m: col(|r| r.tokens_out_m),
        cost_usd: col(|r| r.cost_usd),
        wall_s: col(|r| r.wall_s),
        call_s: col(|r| r.call_s),
        cost_per_operation: col(|r| r.cost_per_operation),
        tokens_cached_m: col(|r| r.tokens_cached_m),
    }
}

/// Median of the values (mean of the middle two for an even count; 0 when empty).
pub fn median(mut v: Vec<f64>) -> f64 {
    if v.is_empty() {
        return 0.0;
    }
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

/// Mean of the values (0 when empty).
pub fn mean(v: Vec<f64>) -> f64 {
    if v.is_empty() {
        0.0
    } else {
        v.iter().sum::<f64>() / v.len() as f64
    }
}

/// Whole numbers print without decimals, others with one (counts in aggregate rows).
fn count(x: f64) -> String {
    if x.fract() == 0.0 {
        format!("{x:.0}")
    } else {
        format!("{x:.1}")
    }
}

/// The Markdown table.
pub fn markdown(rows: &[ReportRow]) -> String {
    let mut out = String::from(
        "| API | Kind | Ops | #Calls | Tokens (M, In / Out) | Cached in (M) | Monetary ($) | Wall time (s) | Call time (s) | $ / op |\n\
         |---|---|---:|---:|---:|---:|---:|---:|---:|---:|\n",
    );
    for r in rows {
        let api = if r.session.is_empty() {
            format!("**{}**", r.api)
        } else {
            r.api.replace('|', "\\|")
        };
        let _ = writeln!(
            out,
            "| {api} | {} | {} | {} | {:.3} / {:.3} | {:.3} | {:.4} | {:.0} | {:.0} | {:.4} |",
            r.kind,
            count(r.operations),
            count(r.calls),
            r.tokens_in_m,
            r.tokens_out_m,
            r.tokens_cached_m,
            r.cost_usd,
            r.wall_s,
            r.call_s,
            r.cost_per_operation
        );
    }
    out.push_str(
        "\nWall time: the run's start to end; call time: the sum of its LLM call durations \
         (Table 12 reports the first for MASTOR, the second for Direct Prompting).\n",
    );
    out
}

/// The CSV table (RFC 4180 quoting).
pub fn csv(rows: &[ReportRow]) -> String {
    let quote = |s: &str| {
        if s.contains([',', '"', '\n']) {
            format!("\"{}\"", s.replace('"', "\"\""))
        } else {
            s.to_string()
        }
    };
    let mut out = String::from(
        "api,kind,session,operations,calls,tokens_in_m,tokens_out_m,cost_usd,wall_s,call_s,cost_per_operation,tokens_cached_m\n",
    );
    for r in rows {
        let _ = writeln!(
            out,
            "{},{},{},{},{},{:.6},{:.6},{:.6},{:.3},{:.3},{:.6},{:.6}",
            quote(&r.api),
            quote(&r.kind),
            quote(&r.session),
            count(r.operations),
            count(r.calls),
            r.tokens_in_m,
            r.tokens_out_m,
            r.cost_usd,
            r.wall_s,
            r.call_s,
            r.cost_per_operation,
            r.tokens_cached_m
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(api: &str, kind: &str, cost: f64) -> ReportRow {
        ReportRow {
            api: api.into(),
            kind: kind.into(),
            session: format!("{api}/s"),
            operations: 2.0,
            calls: 3.0,
            tokens_in_m: 0.5,
            tokens_out_m: 0.1,
            cost_usd: cost,
            wall_s: 10.0,
            call_s: 20.0,
            cost_per_operation: cost / 2.0,
            tokens_cached_m: 0.25,
        }
    }

    #[test]
    fn median_and_mean_per_kind() {
        assert_eq!(median(vec![3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(vec![4.0, 1.0, 2.0, 3.0]), 2.5);
        let rows = with_aggregates(vec![
            r("a", "MASTOR", 1.0),
            r("a", "DP", 0.1),
            r("b", "MASTOR", 3.0),
            r("c", "MASTOR", 8.0),
        ]);
        let m = rows
            .iter()
            .find(|x| x.api == "Median" && x.kind == "MASTOR")
            .unwrap();
        assert_eq!(m.cost_usd, 3.0);
        let mean = rows
            .iter()
            .find(|x| x.api == "Mean" && x.kind == "MASTOR")
            .unwrap();
        assert_eq!(mean.cost_usd, 4.0);
        let dp = rows
            .iter()
            .find(|x| x.api == "Mean" && x.kind == "DP")
            .unwrap();
        assert_eq!(dp.cost_usd, 0.1);
        let md = markdown(&rows);
        assert!(md.contains("| **Median** | MASTOR |"), "{md}");
        let c = csv(&rows);
        assert_eq!(c.lines().count(), 1 + 4 + 4);
        // The cached part of the input is its own column in both.
        assert!(
            md.contains("| Cached in (M) |") && md.contains("| 0.500 / 0.100 | 0.250 |"),
            "{md}"
        );
        assert!(
            c.lines().next().unwrap().ends_with(",tokens_cached_m"),
            "{c}"
        );
        assert!(c.lines().nth(1).unwrap().ends_with(",0.250000"), "{c}");
    }
}
