//! The whole rule-based analysis of one project against one spec's operations.

use super::SourceError;
use super::bundle::{Bundle, build_all};
use super::closure::Closures;
use super::entries::{EntryPatterns, detect, spec_first_match};
use super::index::TypeIndex;
use super::java::{JavaFile, parse_all};
use super::report::{
    BundleSummary, OperationReport, RouteReport, ScanReport, SharedFile, SpecSummary, SyntaxProblem,
};
use super::routes::{OpMatch, Route, compose_routes, match_operations};
use super::scan::{self, scan};
use crate::model::{EntryRef, SpecOperation};
use rayon::prelude::*;

/// Most bytes of seed data offered to an agent (a prompt is not a database dump).
pub const SEED_SCAN_CAP: usize = 6_000;
use crate::spec::{Exclusions, LoadedSpec};
use std::collections::{BTreeMap, HashMap};
use std::path::Path;
use std::sync::Arc;

/// Prefix of the warning that repeats a weak match for the CLI's warning list:
/// `weak match: GET /x: why`. The data is [`OperationReport::weak`].
pub const WEAK_MATCH: &str = "weak match: ";

/// Operations whose handler is a dispatcher the scan could not see through (op id, why):
/// the handler is a fallback, not a resolved branch, and model discovery may overrule it.
pub fn weak_matches(report: &ScanReport) -> Vec<(&str, &str)> {
    report
        .operations
        .iter()
        .filter_map(|o| Some((o.op_id.as_str(), o.weak.as_deref()?)))
        .collect()
}

/// Knobs of the analysis.
#[derive(Debug, Clone, Default)]
pub struct AnalyseOptions {
    /// Entry annotations and interfaces (Spring, JAX-RS, JDK defaults).
    pub patterns: EntryPatterns,
    /// Extra exclusion globs on top of the built-in framework endpoints.
    pub exclude: Vec<String>,
}

/// The report plus what later stages need that does not belong in JSON.
#[derive(Debug, Clone)]
pub struct Analysis {
    pub report: ScanReport,
    /// op_id → bundle, for matched operations; operations sharing an entry file share one.
    pub bundles: BTreeMap<String, Arc<Bundle>>,
    /// entry file → its bundle, for every entry file (also those no operation matched:
    /// model-based discovery looks at each).
    pub entry_bundles: BTreeMap<String, Arc<Bundle>>,
    /// Parsed summaries of every Java file, in path order.
    pub files: Vec<JavaFile>,
    pub routes: Vec<Route>,
    /// Project files each file uses directly, by path: the graph by which a bundle too
    /// large for a model is cut (nearest files kept).
    pub file_deps: BTreeMap<String, Vec<String>>,
    /// Seed data files as a prompt may carry them: allowlisted, redacted, capped (see
    /// `redact::read_seed`); "(none)" when there is none. Start-up code that creates
    /// records is `report.seed_java`, rendered per prompt (`Prepared::seed_data_for`).
    pub seed_data: String,
    /// How the project renders error bodies (see `envelope`): a project-level fact that
    /// every source context carries.
    pub envelopes: Vec<crate::model::ErrorEnvelope>,
}

/// What the analysis needs to know about the spec besides its operations.
#[derive(Debug, Clone, Default)]
pub struct SpecInfo {
    pub file: String,
    pub version: String,
    /// Swagger `basePath` or the OpenAPI server URL's path.
    pub base_path: Option<String>,
}

/// Analyses the project at `root` against a loaded spec: applies the default framework
/// exclusions plus `options.exclude`, then runs [`analyse_operations`]. The spec file is
/// reported relative to `root` when it lies inside it.
pub fn analyse(
    root: &Path,
    spec: &LoadedSpec,
    options: &AnalyseOptions,
) -> Result<Analysis, SourceError> {
    let mut ops = spec.operations.clone();
    let base = spec.base_path.as_deref();
    Exclusions::default().with_base_path(base).apply(&mut ops);
    if !options.exclude.is_empty() {
        Exclusions::from_patterns(options.exclude.clone())
            .with_base_path(base)
            .apply(&mut ops);
    }
    let file = match spec.file.strip_prefix(root) {
        Ok(rel) => scan::relative(Path::new(""), rel),
        Err(_) => spec.file.display().to_string(),
    };
    let info = SpecInfo {
        file,
        version: spec.version.clone(),
        base_path: spec.base_path.clone(),
    };
    analyse_operations(root, &info, &ops, options)
}

/// Analyses the project at `root` against `ops` (exclusions already applied).
pub fn analyse_operations(
    root: &Path,
    spec: &SpecInfo,
    ops: &[SpecOperation],
    options: &AnalyseOptions,
) -> Result<Analysis, SourceError> {
    let t0 = std::time::Instant::now();
    let inventory = scan(root)?;
    tracing::debug!(elapsed = ?t0.elapsed(), "source analysis: scan done");
    let files = parse_all(&inventory.java);
    tracing::debug!(elapsed = ?t0.elapsed(), "source analysis: parse done");
    let mut warnings = inventory.warnings.clone();
    let syntax_errors: Vec<SyntaxProblem> = files
        .iter()
        .filter_map(|f| {
            f.syntax_error_line.map(|line| SyntaxProblem {
                file: f.path.clone(),
                line,
            })
        })
        .collect();
    for s in &syntax_errors {
        warnings.push(format!(
            "{}:{}: Java syntax error; the file is kept in bundles as written",
            s.file, s.line
        ));
    }
    for f in &files {
        if let Some(why) = &f.skipped {
            warnings.push(format!("{}: skipped: {why}", f.path));
        }
    }
    let index = TypeIndex::new(&files);
    let patterns = &options.patterns;
    let entry_files = detect(&index, patterns, ops);
    tracing::debug!(elapsed = ?t0.elapsed(), "source analysis: entries done");
    let closures = Closures::new(&index);
    tracing::debug!(elapsed = ?t0.elapsed(), "source analysis: deps done");
    let (routes, route_warnings) = compose_routes(&index, patterns);
    warnings.extend(route_warnings);

    let live: Vec<usize> = (0..ops.len())
        .filter(|&i| ops[i].excluded.is_none())
        .collect();
    let live_ops: Vec<SpecOperation> = live.iter().map(|&i| ops[i].clone()).collect();
    tracing::debug!(elapsed = ?t0.elapsed(), "source analysis: routes done");
    let matched = match_operations(&live_ops, &routes, spec.base_path.as_deref());
    let mut outcome: Vec<Option<(EntryRef, String)>> = vec![None; ops.len()];
    let mut reasons: Vec<Option<String>> = vec![None; ops.len()];
    let mut used_routes = vec![false; routes.len()];
    let mut weak_warnings = Vec::new();
    let mut weak: Vec<Option<String>> = vec![None; ops.len()];
    for (k, m) in matched.into_iter().enumerate() {
        let i = live[k];
        match m {
            OpMatch::Route(r) => {
                used_routes[r] = true;
                outcome[i] = Some((routes[r].handler.clone(), routes[r].entry_file.clone()));
            }
            OpMatch::Weak(r, reason) => {
                // Never an arbitrary branch: the dispatcher itself, flagged.
                let route = &routes[r];
                let handler = route.dispatcher.clone().unwrap_or(route.handler.clone());
                outcome[i] = Some((handler, route.entry_file.clone()));
                weak_warnings.push(format!("{WEAK_MATCH}{}: {reason}", ops[i].op_id));
                weak[i] = Some(reason);
            }
            OpMatch::Unmatched(reason) => {
                // Spec-first: the operationId names a method of the tagged controller.
                let spec_first = spec_first_match(&index, patterns, &ops[i]);
                match spec_first {
                    Ok(found) => outcome[i] = Some(found),
                    Err(Some(why)) => reasons[i] = Some(format!("{reason}; {why}")),
                    Err(None) => reasons[i] = Some(reason),
                }
            }
        }
    }

    // Bundles: one per distinct entry file of a matched operation.
    let paths: Vec<String> = files.iter().map(|f| f.path.clone()).collect();
    // What reaches a model is scrubbed of secrets first (line numbers kept).
    let scrubbed: Vec<(String, Vec<super::redact::Redaction>)> = inventory
        .java
        .par_iter()
        .zip(&paths)
        .map(|(s, p)| super::redact::redact(p, &s.text, true))
        .collect();
    let texts: Vec<&str> = scrubbed.iter().map(|(t, _)| t.as_str()).collect();
    let envelopes = super::envelope::find(&files, &texts);
    let mut redactions: Vec<super::redact::Redaction> =
        scrubbed.iter().flat_map(|(_, r)| r.clone()).collect();
    let mut entry_order: Vec<usize> = Vec::new();
    let mut slot: HashMap<usize, usize> = HashMap::new();
    for (_, entry_file) in outcome.iter().flatten() {
        if let Some(fi) = index.file_index(entry_file) {
            slot.entry(fi).or_insert_with(|| {
                entry_order.push(fi);
                entry_order.len() - 1
            });
        }
    }
    let closure_lists: Vec<Vec<usize>> =
        entry_order.iter().map(|&fi| closures.closure(fi)).collect();
    tracing::debug!(elapsed = ?t0.elapsed(), "source analysis: matched+closures done");
    let built = build_all(&paths, &texts, &closure_lists);
    let mut entry_bundles: BTreeMap<String, Arc<Bundle>> = entry_order
        .iter()
        .zip(&built)
        .map(|(&fi, b)| (paths[fi].clone(), Arc::clone(b)))
        .collect();
    let unmatched_entries: Vec<usize> = entry_files
        .iter()
        .filter_map(|e| index.file_index(&e.file))
        .filter(|fi| !slot.contains_key(fi))
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .collect();
    let extra: Vec<Vec<usize>> = unmatched_entries
        .iter()
        .map(|&fi| closures.closure(fi))
        .collect();
    for (&fi, b) in unmatched_entries
        .iter()
        .zip(build_all(&paths, &texts, &extra))
    {
        entry_bundles.insert(paths[fi].clone(), b);
    }
    tracing::debug!(elapsed = ?t0.elapsed(), "source analysis: bundles done");
    let mut frequency: BTreeMap<&str, usize> = BTreeMap::new();
    for b in &built {
        for f in &b.files {
            *frequency.entry(f.as_str()).or_default() += 1;
        }
    }
    let mut shared_files: Vec<SharedFile> = frequency
        .into_iter()
        .filter(|(_, n)| *n > 1)
        .map(|(f, n)| SharedFile {
            file: f.to_string(),
            bundles: n,
        })
        .collect();
    shared_files.sort_by(|a, b| b.bundles.cmp(&a.bundles).then_with(|| a.file.cmp(&b.file)));

    let mut bundles = BTreeMap::new();
    let mut operations = Vec::with_capacity(ops.len());
    for (i, op) in ops.iter().enumerate() {
        let bundle = outcome[i]
            .as_ref()
            .and_then(|(_, ef)| index.file_index(ef))
            .and_then(|fi| slot.get(&fi))
            .map(|&s| Arc::clone(&built[s]));
        if let Some(b) = &bundle {
            bundles.insert(op.op_id.clone(), Arc::clone(b));
        }
        let unmatched_reason = match (&op.excluded, &outcome[i]) {
            (Some(why), _) => Some(format!("excluded: {why}")),
            (None, Some(_)) => None,
            (None, None) => reasons[i].clone(),
        };
        operations.push(OperationReport {
            op_id: op.op_id.clone(),
            method: op.method.clone(),
            path: op.path.clone(),
            operation_id: op.operation_id.clone(),
            excluded: op.excluded.clone(),
            entry: outcome[i].as_ref().map(|(e, _)| e.clone()),
            unmatched_reason,
            bundle: bundle.map(|b| BundleSummary {
                files: b.files.clone(),
                lines: b.lines,
                bytes: b.bytes,
                tokens_est: b.tokens_est,
                hash: b.hash.clone(),
            }),
            weak: weak[i].take(),
        });
    }

    let mut closure_map = BTreeMap::new();
    for e in &entry_files {
        if let Some(fi) = index.file_index(&e.file) {
            closure_map.entry(e.file.clone()).or_insert_with(|| {
                closures
                    .closure(fi)
                    .into_iter()
                    .map(|c| paths[c].clone())
                    .collect::<Vec<_>>()
            });
        }
    }
    let routes_without_spec = routes
        .iter()
        .zip(&used_routes)
        .filter(|(_, used)| !**used)
        .map(|(r, _)| RouteReport {
            method: r.method.clone(),
            path: r.path.clone(),
            framework: r.framework.tag().to_string(),
            handler: r.handler.clone(),
        })
        .collect();
    let seed = super::redact::read_seed(root, &inventory.seed_files, SEED_SCAN_CAP);
    redactions.extend(seed.redactions);
    // Records made by start-up code, found in the redacted texts (secrets already out).
    let named: Vec<(&str, &str)> = paths.iter().map(String::as_str).zip(texts).collect();
    let seed_java = super::seed_java::find_all(&named);
    tracing::debug!(elapsed = ?t0.elapsed(), "source analysis: java seeds done");
    let file_deps = (0..files.len())
        .map(|fi| {
            let deps = closures.deps(fi).iter().map(|&d| files[d].path.clone());
            (files[fi].path.clone(), deps.collect())
        })
        .collect();
    warnings.extend(weak_warnings);
    let report = ScanReport {
        spec: SpecSummary {
            file: spec.file.clone(),
            version: spec.version.clone(),
            operations: ops.len(),
        },
        operations,
        entry_files,
        closures: closure_map,
        shared_files,
        routes_without_spec,
        java_files: files.len(),
        source_roots: inventory.source_roots.clone(),
        seed_files: inventory.seed_files.clone(),
        seed_java,
        seed_refused: seed.refused,
        redactions,
        syntax_errors,
        warnings,
    };
    Ok(Analysis {
        report,
        bundles,
        entry_bundles,
        files,
        routes,
        file_deps,
        seed_data: seed.text,
        envelopes,
    })
}
