//! Checks a reviewer's handler pick before it is journalled: the operation must be one of
//! the session's, and a named handler must be a method that exists, in a file inside the
//! project root, at a line the file has. A pick that only the next `mastor run` would
//! refuse is refused now, naming what is wrong.

use crate::store::{HandlerPick, Session};
use serde_json::Value;
use std::path::{Component, Path, PathBuf};

/// The largest source file read to check a pick (the scan's own cap).
const MAX_PICK_FILE_BYTES: u64 = crate::source::scan::MAX_FILE_BYTES as u64;

/// The operations the session knows (`operations.json`: the scan report or a bare list).
pub fn session_ops(session: &Session) -> Result<Vec<String>, String> {
    let raw: Value = session
        .read_operations()
        .map_err(|e| format!("cannot read operations.json: {e}"))?
        .unwrap_or(Value::Null);
    let list: &[Value] = match &raw {
        Value::Array(a) => a,
        Value::Object(m) => m
            .get("operations")
            .and_then(Value::as_array)
            .map_or(&[], Vec::as_slice),
        _ => &[],
    };
    Ok(list
        .iter()
        .filter_map(crate::tui::lenient::op_from_value)
        .map(|o| o.op_id)
        .collect())
}

/// An error unless `op` is one of the session's operations.
pub fn check_op(session: &Session, op: &str) -> Result<(), String> {
    let ops = session_ops(session)?;
    if ops.iter().any(|o| o == op) {
        return Ok(());
    }
    if ops.is_empty() {
        return Err(format!(
            "--op {op}: the session lists no operations (no operations.json in {})",
            session.dir().display()
        ));
    }
    let known: Vec<&str> = ops.iter().take(8).map(String::as_str).collect();
    let more = if ops.len() > known.len() { ", ..." } else { "" };
    Err(format!(
        "--op {op}: not an operation of this session; known operations: {}{more}",
        known.join(", ")
    ))
}

/// The project root the session records, resolved as the workbench resolves it; an
/// error when none is recorded or it is not a directory.
pub fn project_root(session: &Session, probe: &str) -> Result<PathBuf, String> {
    let recorded = session.manifest().project_root;
    if recorded.is_empty() {
        return Err(format!(
            "the session {} records no project root; record it with \
             `mastor tui SESSION --project DIR`",
            session.dir().display()
        ));
    }
    let root = crate::tui::loader::resolve_project_root(session.dir(), &recorded, Some(probe));
    root.canonicalize()
        .ok()
        .filter(|r| r.is_dir())
        .ok_or_else(|| format!("the project root {} is not a directory", root.display()))
}

/// Checks a named handler against the project at `root`: `pick.file` relative, inside
/// the root (symlinks resolved), an existing file; `pick.line` (when not 0) within it;
/// `pick.method` declared in it (at that line when given).
pub fn check_pick(root: &Path, pick: &HandlerPick) -> Result<(), String> {
    let file = &pick.file;
    let rel = Path::new(file);
    if file.is_empty() {
        return Err("--file: empty path".to_string());
    }
    if rel.is_absolute() || rel.components().any(|c| !matches!(c, Component::Normal(_))) {
        return Err(format!(
            "--file {file}: give a path relative to the project root {}, without `..`",
            root.display()
        ));
    }
    let path = root.join(rel);
    let real = path
        .canonicalize()
        .map_err(|e| format!("--file {file}: not found under {}: {e}", root.display()))?;
    if !real.starts_with(root) {
        return Err(format!(
            "--file {file}: leads outside the project root {} (to {})",
            root.display(),
            real.display()
        ));
    }
    let meta = std::fs::metadata(&real).map_err(|e| format!("--file {file}: {e}"))?;
    if !meta.is_file() {
        return Err(format!("--file {file}: not a file"));
    }
    if meta.len() > MAX_PICK_FILE_BYTES {
        return Err(format!(
            "--file {file}: {} bytes, more than the {MAX_PICK_FILE_BYTES} a source file may have",
            meta.len()
        ));
    }
    let bytes = std::fs::read(&real).map_err(|e| format!("--file {file}: cannot read: {e}"))?;
    let text = String::from_utf8_lossy(&bytes);
    let lines = text.lines().count();
    if pick.line > lines {
        return Err(format!("--line {}: {file} has {lines} line(s)", pick.line));
    }
    let rel_str = file.replace('\\', "/");
    let parsed = crate::source::java::parse_file(&rel_str, &text);
    let files = std::slice::from_ref(&parsed);
    let line = (pick.line > 0).then_some(pick.line);
    if crate::source::evidence::find_method(files, &rel_str, None, &pick.method, line).is_some() {
        return Ok(());
    }
    match crate::source::evidence::find_method(files, &rel_str, None, &pick.method, None) {
        Some(found) => Err(format!(
            "--method {} --line {}: {file} declares {} at line {}, not at line {}",
            pick.method, pick.line, pick.method, found.line, pick.line
        )),
        None => Err(format!(
            "--method {}: {file} declares no method of that name",
            pick.method
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pick(file: &str, method: &str, line: usize) -> HandlerPick {
        HandlerPick {
            file: file.into(),
            method: method.into(),
            line,
        }
    }

    #[test]
    fn picks_outside_the_project_or_the_file_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("p");
        std::fs::create_dir_all(root.join("src")).unwrap();
        std::fs::write(
            root.join("src/A.java"),
            "class A {\n  void list() {}\n  void list(int x) {}\n}\n",
        )
        .unwrap();
        std::fs::write(
            dir.path().join("Out.java"),
            "class Out { void list() {} }\n",
        )
        .unwrap();
        #[cfg(unix)]
        std::os::unix::fs::symlink(dir.path().join("Out.java"), root.join("src/L.java")).unwrap();
        let root = root.canonicalize().unwrap();
        assert_eq!(check_pick(&root, &pick("src/A.java", "list", 0)), Ok(()));
        assert_eq!(check_pick(&root, &pick("src/A.java", "list", 3)), Ok(()));
        let err = |p: HandlerPick| check_pick(&root, &p).unwrap_err();
        assert!(err(pick("/etc/passwd", "x", 0)).contains("relative"));
        assert!(err(pick("../Out.java", "list", 0)).contains("without `..`"));
        assert!(err(pick("src/B.java", "list", 0)).contains("not found"));
        assert!(err(pick("src/A.java", "list", 999_999)).contains("has 4 line(s)"));
        assert!(err(pick("src/A.java", "gone", 0)).contains("no method"));
        assert!(err(pick("src/A.java", "list", 1)).contains("at line 2, not at line 1"));
        #[cfg(unix)]
        assert!(err(pick("src/L.java", "list", 0)).contains("outside the project root"));
    }
}
