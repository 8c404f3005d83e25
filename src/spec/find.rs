//! Finds the spec file of a Java project.
//!
//! Looks for the usual names (`openapi.yaml`, `swagger.json`, `api-docs.json`, `api.yaml`,
//! `*_openapi.yaml`, anything in an `openapi/` folder...) at the root, in any module's
//! `src/main/resources`, and under `docs/`, `api/`, `spec/`, `specs/`; build output and
//! dependencies (`target/`, `build/`, `node_modules/`, hidden folders) are skipped. A
//! candidate must mention a `swagger`/`openapi` key near its top, so Swagger UI config
//! files do not win. It does not load or validate the spec.

use super::SpecError;
use std::path::{Component, Path, PathBuf};

/// Folders never searched: build output, dependencies, VCS.
const SKIP_DIRS: [&str; 6] = ["target", "build", "node_modules", "out", "bin", "dist"];
/// Top-level folders searched besides the root and `src/main/resources`.
const DOC_DIRS: [&str; 6] = ["docs", "doc", "api", "spec", "specs", "openapi"];
/// How deep below the root to look (multi-module projects nest a few levels).
const MAX_DEPTH: usize = 8;
/// How much of a candidate to read when checking it is a spec.
const SNIFF_BYTES: usize = 64 * 1024;

/// The spec file chosen, and every other candidate seen (so the CLI can say
/// "using X (also found: Y)").
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SpecLocation {
    pub path: PathBuf,
    /// The other candidates, best first; `path` is not among them.
    pub candidates: Vec<PathBuf>,
}

/// Finds the spec under `project_root`: root first, then the shallowest, then by name.
pub fn find_spec(project_root: &Path) -> Result<SpecLocation, SpecError> {
    if !project_root.is_dir() {
        return Err(SpecError::Io {
            file: project_root.to_path_buf(),
            source: std::io::Error::new(std::io::ErrorKind::NotFound, "not a directory"),
        });
    }
    let mut found = Vec::new();
    let mut unreadable = Vec::new();
    walk(project_root, project_root, 0, &mut found, &mut unreadable);
    found.sort_by_key(|p| {
        let rel = p.strip_prefix(project_root).unwrap_or(p);
        let depth = rel.components().count();
        (depth != 1, depth, rel.to_path_buf())
    });
    let mut iter = found.into_iter();
    match iter.next() {
        Some(path) => Ok(SpecLocation {
            path,
            candidates: iter.collect(),
        }),
        // A spec that is there but cannot be opened is not "no spec": name it and why.
        None if !unreadable.is_empty() => {
            let (file, e) = unreadable.remove(0);
            Err(SpecError::Io {
                file,
                source: std::io::Error::new(
                    e.kind(),
                    format!("found as the project's spec, but it cannot be opened: {e}"),
                ),
            })
        }
        None => Err(SpecError::NotFound {
            root: project_root.to_path_buf(),
            searched: searched_places(),
        }),
    }
}

/// Human-readable list of the places looked at, for the "not found" message.
fn searched_places() -> Vec<String> {
    let mut v = vec![
        "./{openapi,swagger,api-docs,api}.{json,yaml,yml}".to_string(),
        "**/src/main/resources/** (any module)".to_string(),
    ];
    v.extend(DOC_DIRS.iter().map(|d| format!("{d}/**")));
    v
}

/// Spec candidates by name and place that could not be opened, with the reason.
type Unreadable = Vec<(PathBuf, std::io::Error)>;

fn walk(
    root: &Path,
    dir: &Path,
    depth: usize,
    found: &mut Vec<PathBuf>,
    unreadable: &mut Unreadable,
) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<_> = entries.filter_map(Result::ok).collect();
    entries.sort_by_key(|e| e.file_name());
    for entry in entries {
        let path = entry.path();
        let name = entry.file_name().to_string_lossy().to_string();
        let Ok(ft) = entry.file_type() else { continue };
        if ft.is_dir() {
            if depth < MAX_DEPTH && !name.starts_with('.') && !SKIP_DIRS.contains(&name.as_str()) {
                walk(root, &path, depth + 1, found, unreadable);
            }
        } else if (ft.is_file() || (ft.is_symlink() && !path.is_dir()))
            && in_searched_place(root, &path)
            && spec_like_name(&path)
        {
            match sniff(&path) {
                Ok(true) => found.push(path),
                Ok(false) => {}
                Err(e) => unreadable.push((path, e)),
            }
        }
    }
}

/// Root files, files under any `src/main/resources`, and files under a docs-like folder.
fn in_searched_place(root: &Path, file: &Path) -> bool {
    let Ok(rel) = file.strip_prefix(root) else {
        return false;
    };
    let dirs: Vec<String> = rel
        .parent()
        .map(|p| {
            p.components()
                .filter_map(|c| match c {
                    Component::Normal(s) => Some(s.to_string_lossy().to_string()),
                    _ => None,
                })
                .collect()
        })
        .unwrap_or_default();
    if dirs.is_empty() {
        return true;
    }
    let in_resources = dirs
        .windows(3)
        .any(|w| w[0] == "src" && w[1] == "main" && w[2] == "resources");
    in_resources || DOC_DIRS.contains(&dirs[0].as_str()) || dirs.iter().any(|d| d == "openapi")
}

/// A JSON/YAML file whose name says it is an API description.
fn spec_like_name(path: &Path) -> bool {
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase);
    if !matches!(ext.as_deref(), Some("json" | "yaml" | "yml")) {
        return false;
    }
    let in_openapi_dir = path
        .parent()
        .and_then(Path::file_name)
        .is_some_and(|d| d == "openapi");
    let stem = path
        .file_stem()
        .map(|s| s.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    in_openapi_dir
        || matches!(stem.as_str(), "api" | "api-docs" | "apidocs" | "api_docs")
        || stem.contains("openapi")
        || stem.contains("swagger")
}

/// Whether the start of the file has a `swagger:`/`openapi:` key (JSON or YAML); Err
/// when the file cannot be opened or read (permissions, a dangling link).
fn sniff(path: &Path) -> std::io::Result<bool> {
    use std::io::Read;
    let file = std::fs::File::open(path)?;
    let mut buf = Vec::with_capacity(SNIFF_BYTES);
    file.take(SNIFF_BYTES as u64).read_to_end(&mut buf)?;
    let text = String::from_utf8_lossy(&buf);
    Ok([
        "\"swagger\"",
        "\"openapi\"",
        "swagger:",
        "openapi:",
        "'swagger'",
        "'openapi'",
    ]
    .iter()
    .any(|k| text.contains(k)))
}
