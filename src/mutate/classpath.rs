//! The project's dependencies for the `javac` fast path: where a Spring or JAX-RS
//! project's jars come from, so each mutant is still one `javac` of the changed file
//! (against the original classes plus these jars) instead of a whole copy built by
//! `--build`.
//!
//! Three sources, the first found wins:
//! 1. `--classpath CP`: entries separated by `:` (relative to the current directory), or
//!    `--classpath @FILE`: a file of entries;
//! 2. `classpath.txt` in the project root: a file of entries, relative to the project;
//! 3. `lib/` in the project root holding `*.jar` files: those jars, in name order (only
//!    for a project without Maven or Gradle, whose `lib/` is its whole dependency set).
//!
//! A file of entries takes them separated by `:` or by lines, `#` starting a comment line:
//! the output of `mvn dependency:build-classpath -Dmdep.outputFile=classpath.txt` reads as
//! it is. An entry may end in `/*` (every jar of that directory, as `java` reads it).
//! Every entry must exist: a missing jar would show up as every mutant unviable, far
//! from its cause.

use crate::mutate::error::MutateError;
use std::path::{Path, PathBuf};

/// The project's own class path file (see the module doc).
pub const CLASSPATH_FILE: &str = "classpath.txt";
/// The project's own jar directory (see the module doc).
pub const LIB_DIR: &str = "lib";

/// Largest class path file read, and most entries taken from any source.
const FILE_CAP: u64 = 1024 * 1024;
const MAX_ENTRIES: usize = 10_000;

/// The dependencies found, and where they came from (for messages).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Classpath {
    /// Absolute entries, in class path order.
    pub entries: Vec<PathBuf>,
    /// `--classpath`, `classpath.txt` or `lib/`.
    pub origin: String,
}

impl Classpath {
    /// The entries joined for `-cp`.
    pub fn joined(&self) -> String {
        join(&self.entries)
    }
}

/// Joins class path entries with `:`.
pub fn join(entries: &[PathBuf]) -> String {
    entries
        .iter()
        .map(|p| p.display().to_string())
        .collect::<Vec<_>>()
        .join(":")
}

/// The dependencies as part of a reuse key: nothing without any, so results stored
/// before `--classpath` existed stay valid.
pub fn key(entries: &[PathBuf]) -> String {
    if entries.is_empty() {
        String::new()
    } else {
        format!("\nclasspath {}", join(entries))
    }
}

/// The class path given (`--classpath`, relative entries against `cwd`).
pub fn given(value: &str, cwd: &Path) -> Result<Classpath, MutateError> {
    let origin = "--classpath".to_string();
    let entries = match value.strip_prefix('@') {
        Some(file) => {
            let path = cwd.join(file);
            let base = path.parent().unwrap_or(cwd).to_path_buf();
            from_file(&path, &base, &format!("--classpath @{file}"))?
        }
        None => checked(
            value.split(':').map(str::trim).filter(|e| !e.is_empty()),
            cwd,
            &origin,
        )?,
    };
    if entries.is_empty() {
        return Err(MutateError::Input("--classpath names no entry".to_string()));
    }
    Ok(Classpath { entries, origin })
}

/// The class path the project names itself (`classpath.txt`, else `lib/*.jar` when
/// `lib_allowed`); `None` when it names none.
pub fn of_project(project: &Path, lib_allowed: bool) -> Result<Option<Classpath>, MutateError> {
    let file = project.join(CLASSPATH_FILE);
    if file.is_file() {
        let entries = from_file(&file, project, &file.display().to_string())?;
        if entries.is_empty() {
            return Err(MutateError::Input(format!(
                "{} names no class path entry",
                file.display()
            )));
        }
        return Ok(Some(Classpath {
            entries,
            origin: CLASSPATH_FILE.into(),
        }));
    }
    let lib = project.join(LIB_DIR);
    if !lib_allowed || !lib.is_dir() {
        return Ok(None);
    }
    let read = std::fs::read_dir(&lib).map_err(|e| MutateError::io("read", &lib, e))?;
    let mut jars: Vec<PathBuf> = read
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "jar") && p.is_file())
        .collect();
    jars.sort();
    if jars.len() > MAX_ENTRIES {
        return Err(MutateError::Input(format!(
            "{} holds more than {MAX_ENTRIES} jars",
            lib.display()
        )));
    }
    Ok((!jars.is_empty()).then(|| Classpath {
        entries: jars,
        origin: format!("{LIB_DIR}/"),
    }))
}

/// The entries of a class path file, relative ones against `base`.
fn from_file(path: &Path, base: &Path, what: &str) -> Result<Vec<PathBuf>, MutateError> {
    let meta = std::fs::metadata(path)
        .map_err(|e| MutateError::Input(format!("cannot read {what}: {e}")))?;
    if meta.len() > FILE_CAP {
        return Err(MutateError::Input(format!(
            "{what} is {} bytes, more than the {FILE_CAP} a class path file may hold",
            meta.len()
        )));
    }
    let text = std::fs::read_to_string(path)
        .map_err(|e| MutateError::Input(format!("cannot read {what}: {e}")))?;
    let entries = text
        .lines()
        .filter(|l| !l.trim_start().starts_with('#'))
        .flat_map(|l| l.split(':'))
        .map(str::trim)
        .filter(|e| !e.is_empty());
    checked(entries, base, what)
}

/// Absolute entries, each checked to exist (a `dir/*` entry: its directory).
fn checked<'a>(
    entries: impl Iterator<Item = &'a str>,
    base: &Path,
    what: &str,
) -> Result<Vec<PathBuf>, MutateError> {
    let mut out = Vec::new();
    for e in entries {
        if out.len() == MAX_ENTRIES {
            return Err(MutateError::Input(format!(
                "{what}: more than {MAX_ENTRIES} entries"
            )));
        }
        let path = base.join(e);
        let must_exist = match e.strip_suffix("/*") {
            Some(dir) => base.join(dir),
            None => path.clone(),
        };
        if !must_exist.exists() {
            return Err(MutateError::Input(format!(
                "{what}: class path entry {} does not exist",
                crate::text::escape_controls(&must_exist.display().to_string())
            )));
        }
        out.push(path);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn given_entries_are_absolute_and_must_exist() {
        let tmp = tempfile::tempdir().unwrap();
        std::fs::write(tmp.path().join("a.jar"), "").unwrap();
        std::fs::create_dir(tmp.path().join("libs")).unwrap();
        let cp = given("a.jar::libs/*", tmp.path()).unwrap();
        assert_eq!(
            cp.entries,
            vec![tmp.path().join("a.jar"), tmp.path().join("libs/*")]
        );
        let err = given("a.jar:missing.jar", tmp.path())
            .unwrap_err()
            .to_string();
        assert!(err.contains("missing.jar does not exist"), "{err}");
        let err = given(" : ", tmp.path()).unwrap_err();
        assert!(matches!(err, MutateError::Input(_)), "{err}");
        assert!(err.to_string().contains("no entry"));
    }

    #[test]
    fn a_file_takes_colons_lines_and_comments_relative_to_itself() {
        let tmp = tempfile::tempdir().unwrap();
        std::fs::create_dir(tmp.path().join("d")).unwrap();
        std::fs::write(tmp.path().join("d/x.jar"), "").unwrap();
        std::fs::write(tmp.path().join("d/y.jar"), "").unwrap();
        std::fs::write(tmp.path().join("d/cp"), "# deps\nx.jar:y.jar\n\n").unwrap();
        let cp = given("@d/cp", tmp.path()).unwrap();
        assert_eq!(
            cp.entries,
            vec![tmp.path().join("d/x.jar"), tmp.path().join("d/y.jar")]
        );
        assert_eq!(
            cp.joined(),
            format!("{0}/d/x.jar:{0}/d/y.jar", tmp.path().display())
        );
    }

    #[test]
    fn the_project_names_its_class_path_file_before_its_lib_dir() {
        let tmp = tempfile::tempdir().unwrap();
        let p = tmp.path();
        assert_eq!(of_project(p, true).unwrap(), None);
        std::fs::create_dir(p.join("lib")).unwrap();
        std::fs::write(p.join("lib/b.jar"), "").unwrap();
        std::fs::write(p.join("lib/a.jar"), "").unwrap();
        std::fs::write(p.join("lib/notes.txt"), "").unwrap();
        let cp = of_project(p, true).unwrap().unwrap();
        assert_eq!(cp.entries, vec![p.join("lib/a.jar"), p.join("lib/b.jar")]);
        assert_eq!(cp.origin, "lib/");
        assert_eq!(
            of_project(p, false).unwrap(),
            None,
            "lib/ only when allowed"
        );
        std::fs::write(p.join(CLASSPATH_FILE), "lib/b.jar\n").unwrap();
        let cp = of_project(p, true).unwrap().unwrap();
        assert_eq!(cp.entries, vec![p.join("lib/b.jar")]);
        std::fs::write(p.join(CLASSPATH_FILE), "# nothing\n").unwrap();
        assert!(
            of_project(p, true)
                .unwrap_err()
                .to_string()
                .contains("names no class path entry")
        );
    }
}
