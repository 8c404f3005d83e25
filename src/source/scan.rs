//! File inventory: which Java files make up the project, and which seed-data files exist.
//!
//! Walks the project with the `ignore` crate so `.gitignore` is respected even without a
//! git repository, and skips build output and test sources (shared rules, "Scanning").
//! It reads files but does not parse them.

use super::SourceError;
use super::java::SourceText;
use ignore::WalkBuilder;
use rayon::prelude::*;
use std::path::{Path, PathBuf};

/// Files larger than this are truncated to it (with a warning) before parsing.
pub const MAX_FILE_BYTES: usize = 1024 * 1024;

/// Directory names never descended into.
const SKIP_DIRS: [&str; 6] = ["target", "build", "out", "node_modules", ".git", ".mastor"];

/// What a scan found.
#[derive(Debug, Clone, Default)]
pub struct Inventory {
    /// Java sources, sorted by relative path.
    pub java: Vec<SourceText>,
    /// Source roots (`.../src/main/java`), relative, sorted; more than one in multi-module
    /// projects.
    pub source_roots: Vec<String>,
    /// Seed-data files (`data.sql`, `schema.sql`, Flyway `db/migration/*.sql`, `*.json`
    /// under `src/main/resources`), relative, sorted.
    pub seed_files: Vec<String>,
    /// Non-fatal problems (undecodable bytes, truncated files).
    pub warnings: Vec<String>,
}

/// `path` relative to `root`, `/`-separated.
pub fn relative(root: &Path, path: &Path) -> String {
    let rel = path.strip_prefix(root).unwrap_or(path);
    rel.components()
        .map(|c| c.as_os_str().to_string_lossy())
        .collect::<Vec<_>>()
        .join("/")
}

/// What a path met while walking a project is, for the one rule on symbolic links that
/// every reader shares (`scan`, `mutate`, the copy a `mutate --build` works on): a link is
/// never followed to read a file. A link inside the project names a file or directory
/// that is read (or copied) at its own path; a link that leads out of the project is
/// skipped and named, so nothing outside the project reaches a prompt or a mutant.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LinkKind {
    /// Not a symbolic link.
    NotALink,
    /// A link whose target (resolved) is inside the project root.
    Inside(PathBuf),
    /// A link whose target is outside the project root, or does not resolve.
    Outside(String),
}

/// Classifies `path` (under `root`) by the rule of [`LinkKind`].
pub fn link_kind(root: &Path, path: &Path) -> LinkKind {
    let is_link = std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink());
    if !is_link {
        return LinkKind::NotALink;
    }
    let root = root.canonicalize().unwrap_or_else(|_| root.to_path_buf());
    match path.canonicalize() {
        Ok(target) if target.starts_with(&root) => LinkKind::Inside(target),
        Ok(target) => LinkKind::Outside(format!(
            "a symbolic link to {}, outside the project: skipped",
            target.display()
        )),
        Err(e) => LinkKind::Outside(format!(
            "a symbolic link that does not resolve ({e}): skipped"
        )),
    }
}

fn is_seed_file(rel: &str) -> bool {
    let name = rel.rsplit('/').next().unwrap_or(rel);
    name == "data.sql"
        || name == "schema.sql"
        || (rel.contains("db/migration/") && name.ends_with(".sql"))
        || (rel.contains("src/main/resources/") && name.ends_with(".json"))
}

/// Walks `root` and reads every Java source file.
pub fn scan(root: &Path) -> Result<Inventory, SourceError> {
    if !root.is_dir() {
        return Err(SourceError::MissingDir(root.to_path_buf()));
    }
    let mut java_paths: Vec<(String, PathBuf)> = Vec::new();
    let mut seed_files = Vec::new();
    let mut warnings = Vec::new();
    let walker = WalkBuilder::new(root)
        .require_git(false)
        .hidden(false)
        .filter_entry(|e| {
            if e.depth() == 0 || !e.file_type().is_some_and(|t| t.is_dir()) {
                return true;
            }
            let name = e.file_name().to_string_lossy();
            if SKIP_DIRS.contains(&name.as_ref()) {
                return false;
            }
            // Test sources: any `src/test` directory.
            !(name == "test"
                && e.path()
                    .parent()
                    .and_then(|p| p.file_name())
                    .is_some_and(|p| p == "src"))
        })
        .build();
    for entry in walker {
        let entry = match entry {
            Ok(e) => e,
            Err(err) => {
                warnings.push(format!("skipped an unreadable entry: {err}"));
                continue;
            }
        };
        if entry.path_is_symlink() {
            if let LinkKind::Outside(why) = link_kind(root, entry.path()) {
                warnings.push(format!("{}: {why}", relative(root, entry.path())));
            }
            continue;
        }
        if !entry.file_type().is_some_and(|t| t.is_file()) {
            continue;
        }
        let rel = relative(root, entry.path());
        if rel.ends_with(".java") {
            java_paths.push((rel, entry.into_path()));
        } else if is_seed_file(&rel) {
            seed_files.push(rel);
        }
    }
    java_paths.sort();
    seed_files.sort();
    let read: Vec<(SourceText, Vec<String>)> = java_paths
        .par_iter()
        .map(|(rel, path)| read_source(rel, path))
        .collect();
    let mut java = Vec::with_capacity(read.len());
    for (text, w) in read {
        warnings.extend(w);
        java.push(text);
    }
    if java.is_empty() {
        return Err(SourceError::NoJavaFiles(root.to_path_buf()));
    }
    let mut source_roots: Vec<String> = java
        .iter()
        .filter_map(|f| {
            f.path
                .find("src/main/java/")
                .map(|i| f.path[..i + "src/main/java".len()].to_string())
        })
        .collect();
    source_roots.sort();
    source_roots.dedup();
    Ok(Inventory {
        java,
        source_roots,
        seed_files,
        warnings,
    })
}

/// Reads one file: lossy UTF-8 and a size cap, each with a warning.
fn read_source(rel: &str, path: &Path) -> (SourceText, Vec<String>) {
    let mut warnings = Vec::new();
    let mut bytes = match std::fs::read(path) {
        Ok(b) => b,
        Err(err) => {
            warnings.push(format!(
                "{rel}: could not be read ({err}); treated as empty"
            ));
            Vec::new()
        }
    };
    if bytes.len() > MAX_FILE_BYTES {
        warnings.push(format!(
            "{rel}: {} bytes, truncated to the first {MAX_FILE_BYTES} bytes",
            bytes.len()
        ));
        let cut = bytes[..MAX_FILE_BYTES]
            .iter()
            .rposition(|b| *b == b'\n')
            .map_or(MAX_FILE_BYTES, |i| i + 1);
        bytes.truncate(cut);
    }
    let text = match String::from_utf8(bytes) {
        Ok(t) => t,
        Err(err) => {
            warnings.push(format!(
                "{rel}: not valid UTF-8 (first bad byte at offset {}); read lossily",
                err.utf8_error().valid_up_to()
            ));
            String::from_utf8_lossy(err.as_bytes()).into_owned()
        }
    };
    (
        SourceText {
            path: rel.to_string(),
            text,
        },
        warnings,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    fn write(root: &Path, rel: &str, text: &[u8]) {
        let p = root.join(rel);
        fs::create_dir_all(p.parent().unwrap()).unwrap();
        fs::write(p, text).unwrap();
    }

    #[test]
    fn skips_build_dirs_tests_and_gitignored() {
        let dir = tempfile::tempdir().unwrap();
        let r = dir.path();
        write(r, "a/src/main/java/p/A.java", b"class A {}");
        write(r, "b/src/main/java/p/B.java", b"class B {}");
        write(r, "target/X.java", b"class X {}");
        write(r, "src/test/java/T.java", b"class T {}");
        write(r, "generated/G.java", b"class G {}");
        write(r, ".gitignore", b"generated/\n");
        write(r, "a/src/main/resources/data.sql", b"insert");
        write(
            r,
            "a/src/main/resources/db/migration/V1__init.sql",
            b"create",
        );
        write(r, "a/src/main/resources/seed.json", b"{}");
        let inv = scan(r).unwrap();
        let paths: Vec<&str> = inv.java.iter().map(|f| f.path.as_str()).collect();
        assert_eq!(
            paths,
            ["a/src/main/java/p/A.java", "b/src/main/java/p/B.java"]
        );
        assert_eq!(inv.source_roots, ["a/src/main/java", "b/src/main/java"]);
        assert_eq!(
            inv.seed_files,
            [
                "a/src/main/resources/data.sql",
                "a/src/main/resources/db/migration/V1__init.sql",
                "a/src/main/resources/seed.json"
            ]
        );
    }

    #[test]
    fn lossy_and_truncated_files_warn() {
        let dir = tempfile::tempdir().unwrap();
        let r = dir.path();
        write(r, "Bad.java", b"class Bad { String s = \"\xff\"; }");
        let mut big = b"class Big {\n".to_vec();
        while big.len() <= MAX_FILE_BYTES {
            big.extend_from_slice(b"  int x;\n");
        }
        write(r, "Big.java", &big);
        let inv = scan(r).unwrap();
        assert!(
            inv.warnings
                .iter()
                .any(|w| w.starts_with("Bad.java: not valid UTF-8"))
        );
        assert!(
            inv.warnings
                .iter()
                .any(|w| w.starts_with("Big.java:") && w.contains("truncated"))
        );
        let bigf = inv.java.iter().find(|f| f.path == "Big.java").unwrap();
        assert!(bigf.text.len() <= MAX_FILE_BYTES);
    }

    #[test]
    fn missing_dir_and_no_java_are_errors() {
        let dir = tempfile::tempdir().unwrap();
        assert!(matches!(
            scan(&dir.path().join("nope")),
            Err(SourceError::MissingDir(_))
        ));
        assert!(matches!(scan(dir.path()), Err(SourceError::NoJavaFiles(_))));
    }

    #[test]
    fn links_are_never_followed_and_links_out_are_named() {
        let dir = tempfile::tempdir().unwrap();
        let r = dir.path().join("p");
        write(&r, "src/A.java", b"class A {}");
        write(dir.path(), "outside/Secret.java", b"class Secret {}");
        std::os::unix::fs::symlink(dir.path().join("outside/Secret.java"), r.join("src/S.java"))
            .unwrap();
        std::os::unix::fs::symlink(dir.path().join("outside"), r.join("src/out")).unwrap();
        std::os::unix::fs::symlink("A.java", r.join("src/Alias.java")).unwrap();
        let inv = scan(&r).unwrap();
        let paths: Vec<&str> = inv.java.iter().map(|f| f.path.as_str()).collect();
        assert_eq!(paths, ["src/A.java"]);
        let w = inv.warnings.join("\n");
        assert!(w.contains("src/S.java: a symbolic link to"), "{w}");
        assert!(w.contains("src/out: a symbolic link to"), "{w}");
        assert!(!w.contains("Alias"), "a link inside is silent: {w}");
        assert_eq!(link_kind(&r, &r.join("src/A.java")), LinkKind::NotALink);
        assert!(matches!(
            link_kind(&r, &r.join("src/Alias.java")),
            LinkKind::Inside(_)
        ));
    }
}
