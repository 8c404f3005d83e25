//! The rule-based preparation before any model call: load the spec, apply exclusions,
//! analyse the Java project (entries, closures, static pre-match, bundles) and collect the
//! seed data the code ships. Everything the agents read about the project comes from here.

use crate::model::BundleIndex;
use crate::model::{EntryRef, SpecOperation};
use crate::source::bundle::Bundle;
use crate::source::numbered;
use crate::source::{AnalyseOptions, Analysis, SpecInfo, analyse_operations};
use crate::spec::{Exclusions, LoadedSpec};
use crate::store::{HandlerChoice, HandlerSide};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

/// Why preparation failed; each names the file or operation.
#[derive(Debug, thiserror::Error)]
pub enum PrepareError {
    #[error("project directory {0} does not exist or is not a directory")]
    NoProject(PathBuf),
    #[error(transparent)]
    Spec(#[from] crate::spec::SpecError),
    #[error(transparent)]
    Source(#[from] crate::source::SourceError),
    #[error("--op {op}: no such operation in {spec}; known operations include: {known}")]
    UnknownOp {
        op: String,
        spec: String,
        known: String,
    },
}

/// The project as the agents see it.
pub struct Prepared {
    pub root: PathBuf,
    pub spec: LoadedSpec,
    pub analysis: Analysis,
    /// Seed data files concatenated (capped), or "(none)". Prompts take
    /// [`Prepared::seed_data_for`], which adds the start-up code that creates records.
    pub seed_data: String,
    /// Whether start-up code that creates records is offered as seed data too
    /// (`--no-seed-data` turns it off, see [`Prepared::drop_seed_data`]).
    pub java_seed: bool,
    /// op_ids this run covers: not excluded, and within `--op` when given.
    pub selected: Vec<String>,
    /// Per spec operation, the handler that replaces the static match: the reviewer's pick
    /// (set at load) or discovery's overrule (set during discovery). Set at most once, so
    /// a pick is never overruled and readers may hold references.
    overrides: BTreeMap<String, OnceLock<Override>>,
}

/// A handler that replaced the static match, with the bundle that follows it.
#[derive(Debug, Clone)]
pub struct Override {
    pub entry: EntryRef,
    pub bundle: Arc<Bundle>,
    /// The entry file whose bundle this is.
    pub entry_file: String,
    pub side: HandlerSide,
}

impl Prepared {
    /// Loads and analyses `root` with the spec at `spec` (found in the project if `None`).
    pub fn load(
        root: &Path,
        spec: Option<&Path>,
        exclusions: &Exclusions,
        only: &[String],
    ) -> Result<Self, PrepareError> {
        if !root.is_dir() {
            return Err(PrepareError::NoProject(root.to_path_buf()));
        }
        let spec_path = match spec {
            Some(p) => p.to_path_buf(),
            None => crate::spec::find_spec(root)?.path,
        };
        let mut spec = crate::spec::load(&spec_path)?;
        spec.apply_exclusions(exclusions);
        let info = SpecInfo {
            file: relative(root, &spec_path),
            version: spec.version.clone(),
            base_path: spec.base_path.clone(),
        };
        let analysis =
            analyse_operations(root, &info, &spec.operations, &AnalyseOptions::default())?;
        for op in only {
            if !spec.operations.iter().any(|o| &o.op_id == op) {
                let known: Vec<&str> = spec
                    .operations
                    .iter()
                    .take(8)
                    .map(|o| o.op_id.as_str())
                    .collect();
                return Err(PrepareError::UnknownOp {
                    op: op.clone(),
                    spec: spec_path.display().to_string(),
                    known: known.join(", "),
                });
            }
        }
        let selected = spec
            .operations
            .iter()
            .filter(|o| o.excluded.is_none())
            .filter(|o| only.is_empty() || only.contains(&o.op_id))
            .map(|o| o.op_id.clone())
            .collect();
        let seed_data = analysis.seed_data.clone();
        let overrides = empty_overrides(&spec);
        Ok(Self {
            root: root.to_path_buf(),
            spec,
            analysis,
            seed_data,
            java_seed: true,
            selected,
            overrides,
        })
    }

    /// The spec alone, for the spec-only baseline: no Java source is read (the baseline
    /// must not see any), so the analysis is empty and every operation is listed as
    /// unmatched with that reason; `root` is where the session's paths are relative to.
    pub fn from_spec(
        root: &Path,
        spec_path: &Path,
        exclusions: &Exclusions,
    ) -> Result<Self, PrepareError> {
        use crate::source::report::{OperationReport, ScanReport, SpecSummary};
        let mut spec = crate::spec::load(spec_path)?;
        spec.apply_exclusions(exclusions);
        let operations = spec
            .operations
            .iter()
            .map(|o| OperationReport {
                op_id: o.op_id.clone(),
                method: o.method.clone(),
                path: o.path.clone(),
                operation_id: o.operation_id.clone(),
                excluded: o.excluded.clone(),
                entry: None,
                unmatched_reason: Some("spec-only: no source analysed".into()),
                bundle: None,
                weak: None,
            })
            .collect();
        let report = ScanReport {
            spec: SpecSummary {
                file: relative(root, spec_path),
                version: spec.version.clone(),
                operations: spec.operations.len(),
            },
            operations,
            entry_files: Vec::new(),
            closures: BTreeMap::new(),
            shared_files: Vec::new(),
            routes_without_spec: Vec::new(),
            java_files: 0,
            source_roots: Vec::new(),
            seed_files: Vec::new(),
            seed_refused: Vec::new(),
            seed_java: Vec::new(),
            redactions: Vec::new(),
            syntax_errors: Vec::new(),
            warnings: spec.warnings.clone(),
        };
        let analysis = Analysis {
            report,
            bundles: BTreeMap::new(),
            entry_bundles: BTreeMap::new(),
            files: Vec::new(),
            routes: Vec::new(),
            file_deps: BTreeMap::new(),
            seed_data: "(none)".into(),
            envelopes: Vec::new(),
        };
        let selected = spec
            .operations
            .iter()
            .filter(|o| o.excluded.is_none())
            .map(|o| o.op_id.clone())
            .collect();
        let overrides = empty_overrides(&spec);
        Ok(Self {
            root: root.to_path_buf(),
            spec,
            analysis,
            seed_data: "(none)".into(),
            java_seed: false,
            selected,
            overrides,
        })
    }

    /// The project files each file uses directly (imports and referenced types), by path:
    /// the graph by which a bundle too large for the model is cut, nearest files kept.
    pub fn file_deps(&self) -> &BTreeMap<String, Vec<String>> {
        &self.analysis.file_deps
    }

    /// The seed data for a prompt about code in `files` (its bundle's files): the seed
    /// files' records, then the start-up code that creates records, that in `files`
    /// first (capped); "(none)" when there is none or seed data is off.
    pub fn seed_data_for(&self, files: &[String]) -> String {
        if !self.java_seed {
            return self.seed_data.clone();
        }
        let java = crate::source::seed_java::render(
            &self.analysis.report.seed_java,
            files,
            crate::source::seed_java::JAVA_SEED_CAP,
        );
        match (self.seed_data.as_str(), java.is_empty()) {
            (_, true) => self.seed_data.clone(),
            ("(none)", false) => java,
            (files, false) => format!("{files}{java}"),
        }
    }

    /// Sends no seed data at all: neither seed files nor start-up code.
    pub fn drop_seed_data(&mut self) {
        self.seed_data = "(none)".into();
        self.java_seed = false;
    }

    /// The handler file of `op_id`: the static match's, else the entry file in whose
    /// bundle discovery found it.
    pub fn handler_file(&self, op_id: &str, discovered_in: Option<&str>) -> Option<String> {
        self.static_entry(op_id)
            .map(|e| e.file.clone())
            .or_else(|| discovered_in.map(str::to_string))
    }

    /// The spec operation `op_id`.
    pub fn op(&self, op_id: &str) -> Option<&SpecOperation> {
        self.spec.operations.iter().find(|o| o.op_id == op_id)
    }

    /// The handler the agents read for `op_id`: the reviewer's pick or discovery's
    /// overrule when there is one, else the static match.
    pub fn static_entry(&self, op_id: &str) -> Option<&EntryRef> {
        match self.override_of(op_id) {
            Some(o) => Some(&o.entry),
            None => self.scanned_entry(op_id),
        }
    }

    /// The static match of `op_id` as the scan found it, whatever replaced it since.
    pub fn scanned_entry(&self, op_id: &str) -> Option<&EntryRef> {
        self.scanned(op_id).and_then(|o| o.entry.as_ref())
    }

    /// Why the static match of `op_id` is weak, if it is.
    pub fn weak_reason(&self, op_id: &str) -> Option<&str> {
        self.scanned(op_id).and_then(|o| o.weak.as_deref())
    }

    fn scanned(&self, op_id: &str) -> Option<&crate::source::report::OperationReport> {
        self.analysis
            .report
            .operations
            .iter()
            .find(|o| o.op_id == op_id)
    }

    /// How many operations the scan matched to `entry`.
    pub fn shared_by(&self, entry: &EntryRef) -> usize {
        let ops = &self.analysis.report.operations;
        ops.iter()
            .filter(|o| o.entry.as_ref() == Some(entry))
            .count()
    }

    /// What replaced the static match of `op_id`, if anything did.
    pub fn override_of(&self, op_id: &str) -> Option<&Override> {
        self.overrides.get(op_id).and_then(OnceLock::get)
    }

    /// Serves `op_id` from `o` from now on. False when the operation is unknown or was
    /// already replaced (a pick, or an earlier overrule): the first replacement stays.
    pub fn set_override(&self, op_id: &str, o: Override) -> bool {
        self.overrides
            .get(op_id)
            .is_some_and(|cell| cell.set(o).is_ok())
    }

    /// Applies the reviewer's handler picks (before discovery: a pick wins over both the
    /// scan and the model). Returns, per pick that cannot apply, why (the method is not in
    /// the project any more, or no bundle holds its file).
    pub fn apply_handler_choices<'a>(
        &self,
        choices: impl IntoIterator<Item = &'a HandlerChoice>,
    ) -> Vec<String> {
        let mut problems = Vec::new();
        for c in choices {
            let h = &c.handler;
            let found = crate::source::evidence::find_method(
                &self.analysis.files,
                &h.file,
                None,
                &h.method,
                (h.line > 0).then_some(h.line),
            );
            let Some(entry) = found else {
                problems.push(format!(
                    "{}: picked handler {}.{} not found in the project",
                    c.op_id, h.file, h.method
                ));
                continue;
            };
            let Some((entry_file, bundle)) = self.bundle_holding(&entry.file) else {
                problems.push(format!("{}: no bundle holds {}", c.op_id, entry.file));
                continue;
            };
            let o = Override {
                entry,
                bundle,
                entry_file,
                side: HandlerSide::Picked,
            };
            if !self.set_override(&c.op_id, o) {
                problems.push(format!("{}: not an operation of this spec", c.op_id));
            }
        }
        problems
    }

    /// The bundle an agent reads for code in `file`: the file's own entry bundle when it
    /// is an entry file, else the smallest entry bundle that holds it.
    pub fn bundle_holding(&self, file: &str) -> Option<(String, Arc<Bundle>)> {
        if let Some(b) = self.entry_bundles().get(file) {
            return Some((file.to_string(), Arc::clone(b)));
        }
        self.entry_bundles()
            .iter()
            .filter(|(_, b)| b.files.iter().any(|f| f == file))
            .min_by_key(|(_, b)| b.bytes)
            .map(|(f, b)| (f.clone(), Arc::clone(b)))
    }

    /// Whether the reviewer picked the handler of `op_id` (a pick is final: discovery
    /// never overrules it).
    pub fn picked(&self, op_id: &str) -> bool {
        self.override_of(op_id)
            .is_some_and(|o| o.side == HandlerSide::Picked)
    }

    /// Why model discovery could change what this run extracts, if it could: a selected
    /// operation without a static handler (only discovery can find one), or a static
    /// match the evidence rule calls generic (weak, routing on the request itself, or a
    /// `handle` shared by several operations) with a method in the project that a
    /// discovery answer could put in its place (`source::evidence::overrulable`). A
    /// reviewer's pick counts as resolved. `None`: the answer could neither add an
    /// operation nor replace a handler, so asking for it only costs.
    pub fn discovery_needed(&self) -> Option<String> {
        let mut missing = 0;
        let mut generic = Vec::new();
        for op in &self.selected {
            if self.picked(op) {
                continue;
            }
            let Some(entry) = self.scanned_entry(op) else {
                missing += 1;
                continue;
            };
            let side = crate::source::evidence::StaticSide {
                entry,
                weak: self.weak_reason(op),
                shared_by: self.shared_by(entry),
            };
            if let Some(why) = crate::source::evidence::overrulable(&self.analysis.files, &side) {
                generic.push(format!("{op}: {why}"));
            }
        }
        let mut parts = Vec::new();
        match missing {
            0 => {}
            1 => parts.push("1 operation without a static handler".to_string()),
            n => parts.push(format!("{n} operations without a static handler")),
        }
        const SHOWN: usize = 3;
        let more = generic.len().saturating_sub(SHOWN);
        parts.extend(generic.into_iter().take(SHOWN));
        if more > 0 {
            parts.push(format!("{more} more generic static matches"));
        }
        (!parts.is_empty()).then(|| parts.join("; "))
    }

    /// The selected operations that have a statically matched handler.
    pub fn static_matched(&self) -> Vec<String> {
        self.selected
            .iter()
            .filter(|op| self.static_entry(op).is_some())
            .cloned()
            .collect()
    }

    /// Bundles of every entry file (discovery looks at each).
    pub fn entry_bundles(&self) -> &BTreeMap<String, Arc<Bundle>> {
        &self.analysis.entry_bundles
    }

    /// The bundle the agents read for `op_id`: the replacing handler's, else the static
    /// match's, else the bundle in which discovery found it.
    pub fn bundle_for(&self, op_id: &str, discovered_in: Option<&str>) -> Option<Arc<Bundle>> {
        if let Some(o) = self.override_of(op_id) {
            return Some(Arc::clone(&o.bundle));
        }
        self.analysis
            .bundles
            .get(op_id)
            .cloned()
            .or_else(|| discovered_in.and_then(|f| self.entry_bundles().get(f).cloned()))
    }

    /// Makes the agents read `mode`'s text per operation. `Slice` replaces the bundle of
    /// every statically matched operation (and its figures in the scan report) with the
    /// operation's slice; operations found only by discovery keep their entry file's
    /// closure, since discovery names a file, not a method. `Closure` changes nothing.
    pub fn use_bundle_mode(&mut self, mode: crate::source::bundle::BundleMode) {
        if mode != crate::source::bundle::BundleMode::Slice {
            return;
        }
        let slices = crate::source::slice::slice_bundles(&self.root, &self.analysis);
        crate::source::slice::replace_summaries(&mut self.analysis.report, &slices);
        self.analysis.bundles.extend(slices);
    }

    /// The statuses the framework itself answers for `op_id` (`source::framework_facts`),
    /// as error cases naming the framework; none for a JDK server or an unknown handler.
    pub fn framework_facts(&self, op_id: &str) -> Vec<crate::model::ErrorCase> {
        let (Some(entry), Some(op)) = (self.static_entry(op_id), self.op(op_id)) else {
            return Vec::new();
        };
        crate::source::framework_facts::for_operation(
            &self.analysis.files,
            &self.analysis.routes,
            &self.root,
            entry,
            &op.method,
        )
        .into_iter()
        .map(|f| f.case)
        .collect()
    }

    /// The spec's parameters, request body and responses of `op_id`, as prompt JSON.
    pub fn spec_fragment(&self, op_id: &str) -> String {
        let Some(op) = self.op(op_id) else {
            return "{}".into();
        };
        let fragment = serde_json::json!({
            "operationId": op.operation_id,
            "parameters": op.parameters,
            "requestBody": op.request_body,
            "responses": op.responses,
        });
        crate::prompts::prompt_json(&fragment)
    }

    /// The numbered list of selected operations, for discovery and the DP baseline.
    pub fn operation_list(&self) -> String {
        self.selected
            .iter()
            .enumerate()
            .map(|(i, op)| format!("{}. {op}", i + 1))
            .collect::<Vec<_>>()
            .join("\n")
    }
}

/// Files and line counts of a bundle, for checking evidence refs; for a file of a slice
/// (one with `... lines A-B left out` markers), also the lines that were shown.
pub fn bundle_index(bundle: &Bundle) -> BundleIndex {
    text_index(&bundle.text)
}

/// [`bundle_index`] of rendered bundle text (several bundles' files joined, each once).
pub fn text_index(text: &str) -> BundleIndex {
    /// The file being read: its path, the lines shown, whether a line was left out.
    struct Reading {
        path: String,
        ranges: Vec<(usize, usize)>,
        partial: bool,
    }
    let mut files = Vec::new();
    let mut shown = std::collections::BTreeMap::new();
    let mut close = |cur: Option<Reading>| {
        if let Some(r) = cur.filter(|r| r.partial) {
            shown.insert(r.path, r.ranges);
        }
    };
    let mut current: Option<Reading> = None;
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("// ===== FILE: ")
            && let Some((path, tail)) = rest.rsplit_once(" (")
            && let Some(n) = tail.split_whitespace().next()
        {
            files.push((path.to_string(), n.parse().unwrap_or(0)));
            close(current.take());
            current = Some(Reading {
                path: path.to_string(),
                ranges: Vec::new(),
                partial: false,
            });
            continue;
        }
        let Some(r) = current.as_mut() else {
            continue;
        };
        if numbered::is_gap(line) {
            r.partial = true;
        } else if let Some((n, _)) = numbered::parse(line) {
            match r.ranges.last_mut() {
                Some(last) if last.1 + 1 == n => last.1 = n,
                _ => r.ranges.push((n, n)),
            }
        }
    }
    close(current);
    let mut index = BundleIndex::from_files(files);
    index.shown = shown;
    index
}

/// One unset replacement slot per spec operation.
fn empty_overrides(spec: &LoadedSpec) -> BTreeMap<String, OnceLock<Override>> {
    spec.operations
        .iter()
        .map(|o| (o.op_id.clone(), OnceLock::new()))
        .collect()
}

fn relative(root: &Path, path: &Path) -> String {
    path.strip_prefix(root)
        .unwrap_or(path)
        .to_string_lossy()
        .replace('\\', "/")
}
