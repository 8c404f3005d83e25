//! Reads a session directory into a [`SessionView`], once, before the first frame.
//!
//! Hard problems (not a session, unreadable manifest, unparsable suite) are typed errors
//! naming the file; soft ones (a missing source file, an odd call record) become
//! warnings shown on screen, so one bad file never hides the rest of a review. This
//! module does not watch the directory and does not write anything.

use super::lenient::{call_from_value, op_from_value, str_at, verdicts_from_value};
use super::store::{GroupRecord, Session, StoreError, SuiteRecord};
use super::view::{GroupView, OpView, SessionView, SourceFile};
use crate::model::SourceContext;
use crate::suite::session::SessionRecords;
use serde_json::Value;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// Source files larger than this are not loaded (they would not be read on screen).
const MAX_SOURCE_BYTES: u64 = 4 * 1024 * 1024;

/// Why a session could not be opened for review.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// The store refused the directory or one of its files.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// A file parsed as JSON but not as what it should hold.
    #[error("{file}: {reason}")]
    Shape { file: String, reason: String },
}

/// Resolves the command-line argument: a session directory, or a project directory
/// whose session is `<dir>/.mastor`.
pub fn resolve_session_dir(arg: &Path) -> PathBuf {
    if arg.join("manifest.json").is_file() {
        arg.to_path_buf()
    } else {
        arg.join(".mastor")
    }
}

/// Loads everything the workbench shows from an open session.
pub fn load(session: &Session) -> Result<SessionView, LoadError> {
    let manifest = session.manifest();
    let dir = session.dir().to_path_buf();
    let mut view = SessionView {
        dir,
        ..SessionView::default()
    };

    // The pipeline writes the scan report (`{"operations": [...], ...}`); a bare list
    // of operations is accepted too.
    load_operations(session, &mut view)?;
    let probe = view.ops.iter().find_map(|o| o.bundle.first().cloned());
    view.project_root = resolve_project_root(&view.dir, &manifest.project_root, probe.as_deref());
    // Suites and groups are read once, by the session reader `check` and `export` use.
    let records = crate::suite::session::read_records(session)?;
    load_records(session, &records, &mut view)?;
    load_calls(session, &mut view)?;
    for e in session.read_events()? {
        view.apply_event(&e);
    }
    view.journal = session.read_review_journal()?;
    view.decisions = super::store::replay(&view.journal);
    // Where the session reader's problems go among the warnings (it needs the
    // metamorphic tests, read below).
    let problems_at = view.warnings.len();
    view.judgement_journal = session.read_judgement_journal()?;
    view.judgements = crate::store::replay_judgements(&view.judgement_journal);
    // `verdicts/latest.json` is the newest run; without it, every run in name (= time)
    // order, so the newest still wins.
    load_verdicts(session, &mut view)?;
    super::metamorphic::load_into(session, &mut view);
    // Edits that cannot be used (an edited oracle that no longer parses) are reported as
    // the session reader reports them to `check` and `export`, not dropped silently.
    let read = crate::suite::session::assemble(records, view.metamorphic.clone(), &view.decisions);
    view.warnings
        .splice(problems_at..problems_at, read.problems);
    let (mutation, warnings) = super::mutation::load(&view.dir, &view.project_root);
    view.mutation = mutation;
    view.warnings.extend(warnings);
    load_sources(&mut view);
    warn_empty_contexts(&mut view);
    load_handler_conflicts(session, &mut view);
    view.refresh_content_hashes();
    Ok(view)
}

/// Handler conflicts and the reviewer's picks; a file that cannot be read is a warning,
/// not a failure to open the session.
fn load_handler_conflicts(session: &Session, view: &mut SessionView) {
    match session.read_conflicts() {
        Ok(c) => view.conflicts = c,
        Err(e) => view
            .warnings
            .push(format!("handler conflicts not shown: {e}")),
    }
    match session.read_handler_choices() {
        Ok(c) => view.handler_choices = c,
        Err(e) => view.warnings.push(format!("handler picks not shown: {e}")),
    }
}

/// Whether a source context says nothing at all: no parameter, field, error case or
/// success status (what junk model answers normalize to).
pub fn context_is_empty(c: &crate::model::SourceContext) -> bool {
    crate::pipeline::completion::context_is_empty(c)
}

/// A session whose every source context is empty has oracles built on nothing: say so
/// on the operations screen rather than let `(none)` pass for a finding.
fn warn_empty_contexts(view: &mut SessionView) {
    let with: Vec<&crate::model::SourceContext> =
        view.ops.iter().filter_map(|o| o.context.as_ref()).collect();
    let empty = with.iter().filter(|c| context_is_empty(c)).count();
    if !with.is_empty() && empty == with.len() {
        view.warnings.push(format!(
            "every source context ({empty}) is empty: the model's answers held nothing \
             usable (see each operation's Calls tab); a stronger model or `ctrl-r` on an \
             operation may do better"
        ));
    }
}

/// The scanned operations (`operations.json`): the scan report or a bare list.
fn load_operations(session: &Session, view: &mut SessionView) -> Result<(), LoadError> {
    let ops_raw: Value = session.read_operations()?.unwrap_or(Value::Null);
    let ops: &[Value] = match &ops_raw {
        Value::Array(a) => a,
        Value::Object(m) => m
            .get("operations")
            .and_then(Value::as_array)
            .map(Vec::as_slice)
            .unwrap_or(&[]),
        _ => &[],
    };
    for (i, raw) in ops.iter().enumerate() {
        let op = op_from_value(raw).ok_or_else(|| LoadError::Shape {
            file: "operations.json".into(),
            reason: format!("entry {i} has no op_id (or method and path)"),
        })?;
        view.op_index.insert(op.op_id.clone(), view.ops.len());
        view.ops.push(op);
    }

    Ok(())
}

/// Contexts, then the suites (with set-aside oracles and regenerations) and groups the
/// session reader read.
fn load_records(
    session: &Session,
    records: &SessionRecords,
    view: &mut SessionView,
) -> Result<(), LoadError> {
    for name in json_files(session, "contexts")? {
        let rel = format!("contexts/{name}");
        if let Some(ctx) = session.read_json::<SourceContext>(&rel)? {
            let idx = op_slot(view, &ctx.op_id);
            view.ops[idx].context = Some(ctx);
        }
    }
    // The reviewer's edits stand in for the extraction's contexts (kept beside them for
    // the diff); one unreadable journal is a warning, not a session that will not open.
    match session.read_context_edits() {
        Ok(edits) => {
            for (op_id, edit) in edits {
                let idx = op_slot(view, &op_id);
                let op = &mut view.ops[idx];
                op.context_edit = Some(super::view::ContextEditView {
                    extracted: op.context.take(),
                    at: edit.at,
                });
                op.context = edit.context;
            }
        }
        Err(e) => view.warnings.push(format!("context edits not shown: {e}")),
    }
    for suite in records.suites.iter().cloned() {
        add_suite(view, suite);
    }
    for op in &mut view.ops {
        load_regeneration(session, op, &mut view.warnings);
    }
    for g in records.groups.iter().cloned() {
        add_group(view, g);
    }
    Ok(())
}

/// One suite record on its operation: its oracles, then the set-aside ones (listed as
/// dropped until restored).
fn add_suite(view: &mut SessionView, suite: SuiteRecord) {
    let idx = op_slot(view, &suite.op_id);
    let op = &mut view.ops[idx];
    op.oracles = suite.oracles;
    for o in suite.set_aside {
        let reason = set_aside_reason(&suite.normalization, &o.test_id);
        view.set_aside.insert(o.o_id(), reason);
        op.oracles.push(o);
    }
    for o in &mut op.oracles {
        if o.op_id.is_empty() {
            o.op_id = suite.op_id.clone();
        }
    }
    op.hints = suite.review.map(|r| r.hints).unwrap_or_default();
    op.regenerated = suite.regenerated;
    op.normalization = suite.normalization;
}

/// One group record as a group of the view, set-aside oracles listed last.
fn add_group(view: &mut SessionView, g: GroupRecord) {
    let mut oracles = g.oracles;
    for o in g.set_aside {
        let reason = set_aside_reason(&g.normalization, &o.test_id);
        view.set_aside.insert(o.o_id(), reason);
        oracles.push(o);
    }
    for o in &mut oracles {
        if o.group_id.is_empty() {
            o.group_id = g.group_id.clone();
        }
    }
    view.groups.push(GroupView {
        group_id: g.group_id,
        group: g.group,
        oracles,
        hints: g.review.map(|r| r.hints).unwrap_or_default(),
        regenerated: g.regenerated,
        agents: Default::default(),
    });
}

/// Call records, attached to their operation.
fn load_calls(session: &Session, view: &mut SessionView) -> Result<(), LoadError> {
    for name in json_files(session, "calls")? {
        let rel = format!("calls/{name}");
        match session.read_json::<Value>(&rel) {
            Ok(Some(v)) => {
                let call = call_from_value(&v, &name);
                if let Some(&idx) = call.op_id.as_ref().and_then(|o| view.op_index.get(o)) {
                    view.ops[idx].calls.push(view.calls.len());
                }
                view.agent_usage.entry(call.agent.clone()).or_default();
                view.calls.push(call);
            }
            Ok(None) => {}
            Err(e) => view.warnings.push(e.to_string()),
        }
    }
    Ok(())
}

/// `verdicts/latest.json`, else every run in name (= time) order, so the newest wins.
fn load_verdicts(session: &Session, view: &mut SessionView) -> Result<(), LoadError> {
    let latest = crate::suite::session::LATEST_VERDICTS;
    let verdict_files = if session.path(latest)?.is_file() {
        vec![latest.trim_start_matches("verdicts/").to_string()]
    } else {
        json_files(session, "verdicts")?
    };
    for name in verdict_files {
        let rel = format!("verdicts/{name}");
        match session.read_json::<Value>(&rel) {
            Ok(Some(v)) => view.apply_verdicts(verdicts_from_value(v)),
            Ok(None) => {}
            Err(e) => view.warnings.push(e.to_string()),
        }
    }
    Ok(())
}

/// Every stored verdict of `o_id`, newest first, from the stamped run files
/// (`verdicts/<timestamp>.json`, one per run; `latest.json` is their merge and is left
/// out). Read on demand, not at load: the history can be long and is shown for one
/// oracle at a time. Unreadable files are skipped.
pub fn verdict_history(session: &Session, o_id: &str) -> Vec<crate::model::Verdict> {
    let mut names = json_files(session, "verdicts").unwrap_or_default();
    names.retain(|n| n != "latest.json");
    names.sort();
    let mut out = Vec::new();
    for name in names.iter().rev() {
        let Ok(Some(v)) = session.read_json::<Value>(&format!("verdicts/{name}")) else {
            continue;
        };
        out.extend(
            verdicts_from_value(v)
                .into_iter()
                .filter(|v| v.o_id == o_id),
        );
    }
    out
}

/// Why normalization set `test_id` aside: the latest drop entry naming it (or the id it
/// had before it was made unique with a `_dropped` suffix).
fn set_aside_reason(
    reports: &[crate::agents::normalize::NormalizeReport],
    test_id: &str,
) -> String {
    let original = test_id.split("_dropped").next().unwrap_or(test_id);
    reports
        .iter()
        .rev()
        .flat_map(|r| r.dropped.iter())
        .find(|d| d.test_id == test_id || d.test_id == original)
        .map(|d| format!("{}: {}", d.rule, d.reason))
        .unwrap_or_else(|| "set aside by normalization".to_string())
}

/// Where the project's sources are. The manifest may hold the path as it was typed
/// (relative to wherever `mastor run` ran), so a relative root is tried against the
/// current directory, then the session's parent (the default `<project>/.mastor`
/// layout), then the session directory itself; the first holding `probe` (a bundle
/// file) wins, else the first that exists.
pub fn resolve_project_root(session_dir: &Path, recorded: &str, probe: Option<&str>) -> PathBuf {
    let root = PathBuf::from(recorded);
    if root.is_absolute() {
        return root;
    }
    let candidates = [
        std::env::current_dir().ok().map(|d| d.join(&root)),
        session_dir.parent().map(Path::to_path_buf),
        Some(session_dir.join(&root)),
    ];
    let candidates: Vec<PathBuf> = candidates.into_iter().flatten().collect();
    probe
        .and_then(|p| candidates.iter().find(|c| c.join(p).is_file()))
        .or_else(|| candidates.iter().find(|c| c.is_dir()))
        .cloned()
        .unwrap_or_else(|| session_dir.join(root))
}

fn json_files(session: &Session, dir: &str) -> Result<Vec<String>, StoreError> {
    Ok(session
        .list(dir)?
        .into_iter()
        .filter(|n| n.ends_with(".json"))
        .collect())
}

/// Index of the operation `op_id`, adding a bare one when `operations.json` lacks it
/// (a suite for an operation the list forgot is still worth reviewing).
fn op_slot(view: &mut SessionView, op_id: &str) -> usize {
    if let Some(&i) = view.op_index.get(op_id) {
        return i;
    }
    let (method, path) = op_id.split_once(' ').unwrap_or(("", op_id));
    view.ops.push(OpView {
        op_id: op_id.to_string(),
        method: method.to_string(),
        path: path.to_string(),
        ..OpView::default()
    });
    view.op_index.insert(op_id.to_string(), view.ops.len() - 1);
    view.ops.len() - 1
}

/// Reads `regen/<op-slug>.json` (the targeted regeneration's merge) for the before and
/// after of each replaced oracle. Missing is normal; unreadable is a warning.
fn load_regeneration(session: &Session, op: &mut OpView, warnings: &mut Vec<String>) {
    let rel = format!("regen/{}.json", crate::store::op_slug(&op.op_id));
    let merge = match session.read_json::<Value>(&rel) {
        Ok(Some(v)) => v.get("merge").cloned().unwrap_or(Value::Null),
        Ok(None) => return,
        Err(e) => {
            warnings.push(e.to_string());
            return;
        }
    };
    for pair in merge
        .get("replaced")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let parsed = pair.as_array().filter(|p| p.len() == 2).and_then(|p| {
            let before = serde_json::from_value(p[0].clone()).ok()?;
            let after = serde_json::from_value(p[1].clone()).ok()?;
            Some((before, after))
        });
        match parsed {
            Some(p) => op.replaced.push(p),
            None => warnings.push(format!(
                "{rel}: a replaced entry is not a (before, after) pair"
            )),
        }
    }
    op.added = merge
        .get("added")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|o| str_at(o, &["/test_id"]).map(str::to_string))
        .collect();
}

/// Loads every file an operation or oracle can point at, so drawing never reads disk.
fn load_sources(view: &mut SessionView) {
    let mut wanted: BTreeSet<String> = BTreeSet::new();
    for op in &view.ops {
        wanted.extend(op.bundle.iter().cloned());
        wanted.extend(op.entry.iter().map(|e| e.file.clone()));
        for o in &op.oracles {
            wanted.extend(o.evidence_refs.iter().map(|r| r.file.clone()));
        }
    }
    for g in &view.groups {
        for o in &g.oracles {
            wanted.extend(o.evidence_refs.iter().map(|r| r.file.clone()));
        }
    }
    wanted.extend(view.mutation.iter().flat_map(|m| m.files()));
    let root = view
        .project_root
        .canonicalize()
        .unwrap_or_else(|_| view.project_root.clone());
    for rel in wanted {
        let path = match super::confine::confined(&root, &rel) {
            Ok(path) => path,
            Err(why) => {
                view.warnings.push(format!("{rel}: {why}; not shown"));
                continue;
            }
        };
        let too_big = std::fs::metadata(&path)
            .map(|m| m.len() > MAX_SOURCE_BYTES)
            .unwrap_or(false);
        if too_big {
            view.warnings
                .push(format!("{rel}: larger than 4 MiB, not shown"));
            continue;
        }
        match std::fs::read(&path) {
            Ok(bytes) => {
                let text = String::from_utf8_lossy(&bytes);
                let lines = text.lines().map(|l| l.replace('\t', "    ")).collect();
                view.sources.insert(rel, SourceFile { lines });
            }
            Err(e) => view
                .warnings
                .push(format!("{}: cannot read source: {e}", path.display())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::Manifest;
    use serde_json::json;

    #[test]
    fn a_ref_outside_the_project_is_not_read_and_says_why() {
        let dir = tempfile::tempdir().unwrap();
        let s = Session::create(dir.path(), Manifest::new(".", "openapi.json")).unwrap();
        s.write_operations(
            &json!([{"op_id": "GET /a", "bundle": {"files": ["../../../../../../etc/passwd"]}}]),
        )
        .unwrap();
        let view = load(&s).unwrap();
        assert!(view.sources.is_empty(), "{:?}", view.sources.keys());
        assert!(
            view.warnings
                .iter()
                .any(|w| w.contains("etc/passwd") && w.contains("outside the project root")),
            "{:?}",
            view.warnings
        );
    }

    #[test]
    fn project_dir_resolves_to_its_session() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(resolve_session_dir(dir.path()), dir.path().join(".mastor"));
        Session::create(dir.path(), Manifest::new(".", "openapi.json")).unwrap();
        assert_eq!(resolve_session_dir(dir.path()), dir.path());
    }

    #[test]
    fn relative_project_root_is_found_beside_the_session() {
        let dir = tempfile::tempdir().unwrap();
        let project = dir.path().join("proj");
        std::fs::create_dir_all(project.join("src")).unwrap();
        std::fs::write(project.join("src/A.java"), "class A {}").unwrap();
        let session_dir = project.join(".mastor");
        let root = resolve_project_root(&session_dir, "some/where/proj", Some("src/A.java"));
        assert_eq!(root, project);
        let abs = resolve_project_root(&session_dir, "/abs/p", Some("src/A.java"));
        assert_eq!(abs, PathBuf::from("/abs/p"));
    }

    #[test]
    fn broken_suite_is_an_error_naming_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let s = Session::create(dir.path(), Manifest::new(".", "openapi.json")).unwrap();
        std::fs::create_dir_all(dir.path().join("suites")).unwrap();
        std::fs::write(dir.path().join("suites/x.json"), "{\"op_id\": 3}").unwrap();
        let err = load(&s).unwrap_err().to_string();
        assert!(err.contains("suites/x.json"), "{err}");
    }

    #[test]
    fn missing_source_file_is_a_warning_not_a_failure() {
        let dir = tempfile::tempdir().unwrap();
        let s = Session::create(dir.path(), Manifest::new(".", "openapi.json")).unwrap();
        s.write_operations(&json!([{"op_id": "GET /a", "bundle": {"files": ["Nope.java"]}}]))
            .unwrap();
        let view = load(&s).unwrap();
        assert_eq!(view.ops.len(), 1);
        assert_eq!(view.ops[0].method, "GET");
        assert!(
            view.warnings.iter().any(|w| w.contains("Nope.java")),
            "{:?}",
            view.warnings
        );
    }

    #[test]
    fn operations_and_calls_are_read_leniently() {
        let op = op_from_value(
            &json!({"spec": {"method": "get", "path": "/x"}, "bundle": [{"path": "A.java"}]}),
        )
        .unwrap();
        assert_eq!(op.op_id, "GET /x");
        assert_eq!(op.bundle, ["A.java"]);
        assert!(op_from_value(&json!({"summary": "no id"})).is_none());
        let c = call_from_value(
            &json!({"agent": "gen", "usage": {"prompt_tokens": 7, "completion_tokens": 3}, "attempts": [{}, {}],
                    "messages": [{"role": "user", "content": "hi"}], "raw_answer": "{}"}),
            "c1.json",
        );
        assert_eq!(
            (c.id.as_str(), c.tokens_in, c.tokens_out, c.attempts),
            ("c1", 7, 3, 2)
        );
        assert!(c.prompt.contains("user") && c.prompt.contains("hi"));
    }
}
