//! One mutation analysis from start to end, for the CLI and the workbench alike: read the
//! suite and what its operations reach, list the mutants, run the baseline and the
//! mutants (reusing what an earlier run with the same inputs already did), and write the
//! results.

use super::build::{self, BuildMode, Workspace};
use super::execute::{self, Setup};
use super::leftovers::Leftovers;
use super::matrix::{Matrix, MutantOutcome, Status, Summary};
use super::merge::Provenance;
use super::mutants::{self, Mutant, SourceFile};
use super::results::{BaselineFile, Results};
use super::server::StartSpec;
use crate::mutate::error::MutateError;
use crate::project::Prepared;
use crate::runner::{Plan, RunConfig};
use crate::source::scan::{LinkKind, link_kind};
use crate::spec::Exclusions;
use crate::store::{MANIFEST_FILE, Session};
use crate::suite::{self, Only, session};
use serde_json::Value;
use sha2::{Digest, Sha256};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

pub use super::options::Options;
pub use super::settings::{SETTINGS_FILE, Settings};

/// The suite and what it reaches.
pub struct Target {
    pub plan: Plan,
    pub project: PathBuf,
    pub results: Results,
    /// Project-relative file → operations whose bundle contains it.
    pub file_ops: BTreeMap<String, Vec<String>>,
    /// Operations some selected oracle calls.
    pub covered_ops: BTreeSet<String>,
    /// Warnings met while reading (edits that no longer parse, ...).
    pub warnings: Vec<String>,
    pub suite_hash: String,
}

/// What a run did.
pub struct Report {
    pub matrix: Matrix,
    pub summary: Summary,
    pub mutants: Vec<Mutant>,
    /// Mutants run now, and reused from an earlier run.
    pub ran: usize,
    pub reused: usize,
    pub baseline_reused: bool,
    /// Mutants that could not be run at all (not a build failure: an I/O error, ...).
    pub errors: Vec<String>,
    /// What the run left out or cleaned up (links out of the project not copied,
    /// servers an earlier killed run left behind), each once.
    pub warnings: Vec<String>,
    pub suite_ms: u64,
    pub start_ms: u64,
    pub timeout: Duration,
    pub elapsed: Duration,
}

/// Reads the suite (selected as `check` selects it) and the bundles of its operations.
pub fn load_target(opts: &Options) -> Result<Target, MutateError> {
    let is_session = opts.input.join(MANIFEST_FILE).exists();
    let mut warnings = Vec::new();
    let (suite_file, project, file_ops, results) = if is_session {
        let store = Session::open(&opts.input)?;
        let loaded = session::read(&store)?;
        warnings.extend(loaded.problems);
        let project = match &opts.project {
            Some(p) => p.clone(),
            None => PathBuf::from(store.manifest().project_root),
        };
        let ops: Option<Value> = store.read_operations()?;
        // An imported session has no scan: its project is analysed afresh, with the
        // session's spec unless --spec names another.
        let spec = opts.spec.clone().or_else(|| {
            let s = PathBuf::from(store.manifest().spec_file);
            s.is_file().then_some(s)
        });
        let file_ops = match ops.map(|v| session_bundles(&v)).filter(|m| !m.is_empty()) {
            Some(m) => m,
            None => project_bundles(&project, spec.as_deref())?,
        };
        let out = opts.out.clone().unwrap_or(opts.input.join("mutation"));
        (loaded.suite, project, file_ops, Results::new(out))
    } else {
        if opts.input.is_dir() {
            return Err(MutateError::Input(format!(
                "{} is a directory but not a mastor session (no {MANIFEST_FILE})",
                opts.input.display()
            )));
        }
        let loaded = suite::load_file_with(&opts.input, suite::LoadOptions::default())?;
        if let Some(p) = loaded.problems.first() {
            return Err(MutateError::Input(format!(
                "{}: {} entr(ies) cannot be run, first: {p}",
                opts.input.display(),
                loaded.problems.len()
            )));
        }
        let project = opts.project.clone().ok_or_else(|| {
            MutateError::Input("--project DIR is required with a suite file".to_string())
        })?;
        let out = opts.out.clone().ok_or_else(|| {
            MutateError::Input(
                "--out DIR is required with a suite file (a session keeps its own)".to_string(),
            )
        })?;
        let file_ops = project_bundles(&project, opts.spec.as_deref())?;
        (loaded.suite, project, file_ops, Results::new(out))
    };
    if !project.is_dir() {
        return Err(MutateError::Input(format!(
            "project {} is not a directory",
            project.display()
        )));
    }
    let only = opts.only.unwrap_or(if is_session {
        Only::Accepted
    } else {
        Only::All
    });
    let mut plan = suite::select(&suite_file, only, &opts.ops).map_err(MutateError::Input)?;
    if !opts.extra_oracles.is_empty() && only != Only::All {
        let extra = suite::select(&suite_file, Only::All, &opts.ops).map_err(MutateError::Input)?;
        let have: BTreeSet<String> = plan.oracles.iter().map(|o| o.o_id()).collect();
        plan.oracles.extend(
            extra
                .oracles
                .into_iter()
                .filter(|o| opts.extra_oracles.contains(&o.o_id()) && !have.contains(&o.o_id())),
        );
    }
    if plan.is_empty() {
        return Err(MutateError::Input(format!(
            "nothing to run in {} (only: {only:?}); accept oracles in review or pass --only all",
            opts.input.display()
        )));
    }
    let covered_ops = plan_ops(&plan);
    let suite_hash = hash_plan(&plan);
    Ok(Target {
        plan,
        project,
        results,
        file_ops,
        covered_ops,
        warnings,
        suite_hash,
    })
}

/// `operations.json`'s bundles: file → op_ids.
fn session_bundles(ops: &Value) -> BTreeMap<String, Vec<String>> {
    let mut out: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let list = ops.get("operations").unwrap_or(ops);
    for op in list.as_array().into_iter().flatten() {
        let Some(op_id) = op.get("op_id").and_then(Value::as_str) else {
            continue;
        };
        let files = op.pointer("/bundle/files").and_then(Value::as_array);
        for f in files.into_iter().flatten().filter_map(Value::as_str) {
            out.entry(f.to_string())
                .or_default()
                .push(op_id.to_string());
        }
    }
    out
}

/// `operations.json`'s handler files: op_id → the file of its entry (the one reader of
/// that file's entries for mutation, beside [`session_bundles`]).
pub fn session_entry_files(ops: &Value) -> BTreeMap<String, String> {
    let list = ops.get("operations").unwrap_or(ops);
    list.as_array()
        .into_iter()
        .flatten()
        .filter_map(|op| {
            Some((
                op.get("op_id")?.as_str()?.to_string(),
                op.pointer("/entry/file")?.as_str()?.to_string(),
            ))
        })
        .collect()
}

/// The bundles from analysing the project afresh (a suite file has no scan stored).
fn project_bundles(
    project: &Path,
    spec: Option<&Path>,
) -> Result<BTreeMap<String, Vec<String>>, MutateError> {
    let prepared = Prepared::load(project, spec, &Exclusions::default(), &[])
        .map_err(|e| MutateError::Input(format!("cannot analyse {}: {e}", project.display())))?;
    let mut out: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for op in &prepared.selected {
        if let Some(bundle) = prepared.bundle_for(op, None) {
            for f in &bundle.files {
                out.entry(f.clone()).or_default().push(op.clone());
            }
        }
    }
    Ok(out)
}

fn plan_ops(plan: &Plan) -> BTreeSet<String> {
    let mut out: BTreeSet<String> = plan.oracles.iter().map(|o| o.op_id.clone()).collect();
    for m in &plan.multi_op {
        out.extend(m.steps.iter().map(|s| s.op_id.clone()));
    }
    for t in &plan.metamorphic {
        out.extend(t.seed.iter().chain(&t.follow_up).map(|s| s.op_id.clone()));
    }
    out
}

fn hash_plan(plan: &Plan) -> String {
    let mut h = Sha256::new();
    for o in &plan.oracles {
        h.update(serde_json::to_string(o).unwrap_or_default());
    }
    for m in &plan.multi_op {
        h.update(serde_json::to_string(m).unwrap_or_default());
    }
    for t in &plan.metamorphic {
        h.update(serde_json::to_string(t).unwrap_or_default());
    }
    hex::encode(h.finalize())
}

/// A file that was not mutated, and why.
pub type Unmutated = (String, String);

/// The full mutant list (before `--shard`), and files that were not mutated with why.
pub fn list_mutants(
    target: &Target,
    opts: &Options,
) -> Result<(Vec<Mutant>, Vec<Unmutated>), MutateError> {
    let mut skipped: Vec<Unmutated> = Vec::new();
    let paths: Vec<String> = if opts.files.is_empty() {
        target
            .file_ops
            .iter()
            .filter(|(_, ops)| ops.iter().any(|o| target.covered_ops.contains(o)))
            .map(|(f, _)| f.clone())
            .collect()
    } else {
        let mut set = globset::GlobSetBuilder::new();
        for g in &opts.files {
            let glob = globset::Glob::new(g)
                .map_err(|e| MutateError::Input(format!("--files `{g}`: {e}")))?;
            set.add(glob);
        }
        let set = set
            .build()
            .map_err(|e| MutateError::Input(format!("--files: {e}")))?;
        let (files, links) = build::java_files_checked(&target.project);
        skipped.extend(links.into_iter().filter(|(rel, _)| set.is_match(rel)));
        files
            .iter()
            .filter_map(|p| p.strip_prefix(&target.project).ok())
            .map(|p| p.to_string_lossy().replace('\\', "/"))
            .filter(|rel| set.is_match(rel))
            .collect()
    };
    if paths.is_empty() {
        return Err(MutateError::Input(format!(
            "no Java file to mutate in {} (the suite's operations have no bundle, or --files \
             matched nothing)",
            target.project.display()
        )));
    }
    let mut files = Vec::new();
    for rel in paths {
        let path = target.project.join(&rel);
        if let LinkKind::Outside(why) = link_kind(&target.project, &path) {
            skipped.push((rel, why));
            continue;
        }
        let text = match std::fs::read(&path) {
            Ok(bytes) => match opts.encoding.decode(bytes) {
                Ok(t) => t,
                Err(why) => {
                    skipped.push((rel, why));
                    continue;
                }
            },
            Err(e) => return Err(MutateError::Input(format!("cannot read {rel}: {e}"))),
        };
        let ops = target.file_ops.get(&rel).cloned().unwrap_or_default();
        files.push(SourceFile {
            path: rel,
            text,
            ops,
        });
    }
    if files.is_empty() {
        let why = skipped
            .iter()
            .map(|(f, w)| format!("{f}: {w}"))
            .collect::<Vec<_>>()
            .join("; ");
        return Err(MutateError::Input(format!(
            "no Java file could be mutated: {why}"
        )));
    }
    let (mut list, generated_skips) = mutants::generate(&files);
    skipped.extend(generated_skips);
    if !opts.operators.is_empty() {
        list.retain(|m| opts.operators.contains(&m.operator));
    }
    if let Some(diff) = &opts.in_diff {
        let text = std::fs::read_to_string(diff)
            .map_err(|e| MutateError::io("read --in-diff", diff, e))?;
        let changed = super::diff::changed_lines(&text)
            .map_err(|e| MutateError::Input(format!("--in-diff {}: {e}", diff.display())))?;
        mutants::keep_in_diff(&mut list, &changed);
    }
    if let Some(max) = opts.max_mutants {
        list = mutants::sample(list, max, opts.seed);
    }
    Ok((list, skipped))
}

/// The build and start settings for the project.
///
/// The `javac` fast path serves a project without Maven or Gradle, and any project whose
/// dependencies are named (`--classpath`, `classpath.txt`, or for a project without
/// Maven or Gradle `lib/`); `--build` copies the project per mutant, and then only an
/// explicit `--classpath` fills `{classpath}`.
pub fn setup(target: &Target, opts: &Options) -> Result<Setup, MutateError> {
    let cwd = std::env::current_dir().unwrap_or_default();
    let given = opts
        .classpath
        .as_deref()
        .map(|v| super::classpath::given(v, &cwd))
        .transpose()?;
    let managed = Workspace::is_managed(&target.project);
    let (mode, classpath) = match &opts.build {
        Some(cmd) => (
            BuildMode::Command {
                template: cmd.clone(),
            },
            given,
        ),
        None => {
            let named = match given {
                Some(cp) => Some(cp),
                None => super::classpath::of_project(&target.project, !managed)?,
            };
            if managed && named.is_none() {
                return Err(MutateError::Input(format!(
                    "{} is built with Maven or Gradle: pass --classpath with its dependencies \
                     (or name them in {}), or --build 'CMD {{dir}}' (and --start)",
                    target.project.display(),
                    super::classpath::CLASSPATH_FILE
                )));
            }
            (Workspace::javac_mode(&target.project), named)
        }
    };
    let start = match (&opts.start, &mode) {
        (Some(s), _) => s.clone(),
        (None, BuildMode::Javac { src_root }) => {
            let main = build::main_class(&target.project.join(src_root)).ok_or_else(|| {
                MutateError::Input(
                    "no single class with a main method: pass --start 'CMD {dir} {port}'"
                        .to_string(),
                )
            })?;
            format!("exec java -cp {{classpath}} {main} {{port}}")
        }
        (None, BuildMode::Command { .. }) => {
            return Err(MutateError::Input(
                "--build needs --start 'CMD {dir} {port}'".to_string(),
            ));
        }
    };
    Ok(Setup {
        workspace: Workspace {
            project: target.project.clone(),
            work: target.results.work_dir(),
            mode,
            build_timeout: opts.build_timeout,
            encoding: opts.encoding,
            notes: Default::default(),
            classpath: classpath.map(|c| c.entries).unwrap_or_default(),
        },
        start: StartSpec {
            template: start,
            ready_path: opts.ready.clone(),
            ready_timeout: opts.ready_timeout,
            leftovers: Some(Leftovers::for_work_dir(&target.results.work_dir())),
        },
        plan: target.plan.clone(),
        run: RunConfig {
            timeout: opts.request_timeout,
            ..RunConfig::default()
        },
        timeout: opts.timeout,
        jobs: opts.jobs,
    })
}

/// Runs the analysis of `mutants` (the full list; `--shard` picks this machine's share)
/// and writes the results. `progress` hears of each mutant as it finishes.
pub async fn execute(
    target: &Target,
    opts: &Options,
    mutants: Vec<Mutant>,
    progress: &(dyn Fn(&Mutant, &MutantOutcome) + Sync),
) -> Result<Report, MutateError> {
    let t0 = Instant::now();
    let setup = setup(target, opts)?;
    let mut warnings: Vec<String> = setup
        .start
        .leftovers
        .as_ref()
        .map(Leftovers::stop_all)
        .unwrap_or_default()
        .into_iter()
        .map(|s| format!("stopped {s}"))
        .collect();
    let sources = sources_hash(&target.project);
    let base_key = hex::encode(Sha256::digest(format!(
        "{}\n{}\n{:?}\n{}\n{}{}",
        target.suite_hash,
        sources,
        setup.workspace.mode,
        setup.start.template,
        setup.start.ready_path,
        super::classpath::key(&setup.workspace.classpath)
    )));
    let stored = target.results.read_baseline().ok().flatten();
    let (baseline, original, baseline_reused) = match stored.filter(|b| b.key == base_key) {
        Some(b) => (b, setup.workspace.build_original().await?, true),
        None => {
            let run = execute::baseline(&setup).await?;
            let file = BaselineFile {
                key: base_key.clone(),
                suite_ms: run.suite_time.as_millis() as u64,
                start_ms: run.start_time.as_millis() as u64,
                baseline: run.baseline,
            };
            (file, run.original, false)
        }
    };
    let timeout = opts
        .timeout
        .unwrap_or_else(|| execute::auto_timeout(Duration::from_millis(baseline.suite_ms)));
    let mut runs = target.results.read_runs().unwrap_or_default();
    let mut todo = Vec::new();
    let mut reused = 0;
    for (i, m) in mutants.iter().enumerate() {
        if opts.shard.is_some_and(|s| !s.contains(i)) {
            runs.remove(&m.id);
            continue;
        }
        if opts
            .only_mutants
            .as_ref()
            .is_some_and(|only| !only.contains(&m.id))
        {
            continue;
        }
        let key = hex::encode(Sha256::digest(format!("{base_key}\n{}\n{}", m.id, m.after)));
        if !m.ops.iter().any(|o| target.covered_ops.contains(o)) {
            let run = MutantOutcome {
                mutant: m.id.clone(),
                key,
                status: Status::NotCovered,
                failed: vec![],
                detail: String::new(),
            };
            runs.insert(m.id.clone(), run);
            continue;
        }
        if runs.get(&m.id).is_some_and(|r| r.key == key) {
            reused += 1;
            continue;
        }
        todo.push((m, key));
    }
    let ran = todo.len();
    // Progress tells the outcome as the matrix will count it: failures of oracles the
    // baseline excluded do not kill.
    let included: BTreeSet<&str> = baseline
        .baseline
        .included
        .iter()
        .map(String::as_str)
        .collect();
    let append_errors = std::sync::Mutex::new(Vec::new());
    let counted = |m: &Mutant, o: &MutantOutcome| {
        // A run ended by a stop signal (its server was killed) is not an outcome.
        if crate::runner::signals::stopping() {
            return;
        }
        // Stored as it lands: an analysis stopped half-way resumes from here.
        if let Err(e) = target.results.append_run(o) {
            append_errors
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .push(e.to_string());
        }
        let mut shown = o.clone();
        shown.status = o.counted_status(&included);
        progress(m, &shown)
    };
    let outcomes = execute::run_all(&setup, &original, todo, timeout, &counted).await;
    // Stopped by a signal: the handler exits the process; nothing more is written.
    crate::runner::signals::park_if_stopping();
    let mut errors = append_errors
        .into_inner()
        .unwrap_or_else(|p| p.into_inner());
    for o in outcomes {
        match o {
            Ok(run) => {
                runs.insert(run.mutant.clone(), run);
            }
            Err(e) => errors.push(e.to_string()),
        }
    }
    warnings.extend(
        setup
            .workspace
            .notes
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .iter()
            .map(|n| format!("not copied for the build: {n}")),
    );
    let (matrix, summary) = target.results.write_all(&mutants, &baseline, &runs)?;
    let commands = format!(
        "{:?}\n{}\n{}{}",
        setup.workspace.mode,
        setup.start.template,
        setup.start.ready_path,
        super::classpath::key(&setup.workspace.classpath)
    );
    target.results.write_provenance(&Provenance {
        shard: opts.shard.map(|s| format!("{}/{}", s.k, s.n)),
        suite: target.suite_hash.clone(),
        sources: sources.clone(),
        commands: hex::encode(Sha256::digest(commands)),
    })?;
    Ok(Report {
        matrix,
        summary,
        mutants,
        ran,
        reused,
        baseline_reused,
        errors,
        warnings,
        suite_ms: baseline.suite_ms,
        start_ms: baseline.start_ms,
        timeout,
        elapsed: t0.elapsed(),
    })
}

/// A hash of every Java file of the project, so a changed source invalidates the
/// baseline and every stored run.
fn sources_hash(project: &Path) -> String {
    let mut h = Sha256::new();
    for f in build::java_files(project) {
        h.update(f.display().to_string());
        h.update(std::fs::read(&f).unwrap_or_default());
    }
    hex::encode(h.finalize())
}
