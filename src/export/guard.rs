//! Exports never clobber files they did not write.
//!
//! An output directory may hold hand-written tests next to exported ones. Every export
//! records what it wrote in [`MANIFEST`] (each file's path and SHA-256) and, the next
//! time, replaces only files listed there and unchanged since. Anything else it would
//! overwrite (a file it never wrote, or one of its own edited by hand) stops the export
//! before a single byte is written, naming the files, unless the caller forces it.
//!
//! Exporters write into a private staging directory first; [`commit`] then checks the
//! whole set against the output directory and copies it in. Files a format wrote last
//! time and no longer produces are removed if unchanged, left alone if edited.

use super::ExportError;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::collections::{BTreeMap, BTreeSet};
use std::io::Write;
use std::path::{Path, PathBuf};

/// The manifest's file name inside the output directory.
pub const MANIFEST: &str = ".mastor-export.json";

/// What an output directory's manifest holds: path (relative, `/`-separated) → entry.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
struct Manifest {
    files: BTreeMap<String, Entry>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
struct Entry {
    sha256: String,
    /// The format (or writer) that produced the file.
    format: String,
}

/// One file an export wants to write.
#[derive(Debug, Clone)]
pub struct Planned {
    /// Path relative to the output directory, `/`-separated.
    pub rel: String,
    pub bytes: Vec<u8>,
    /// The format that produced it (`junit`, `postman`...).
    pub format: String,
}

fn sha(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> ExportError + '_ {
    move |source| ExportError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// Every regular file under `dir`, as `/`-separated paths relative to it, sorted.
pub(crate) fn files_under(dir: &Path) -> Result<Vec<String>, ExportError> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).map_err(io(&d))? {
            let path = entry.map_err(io(&d))?.path();
            if path.is_dir() {
                stack.push(path);
            } else if let Ok(rel) = path.strip_prefix(dir) {
                let parts: Vec<_> = rel.iter().map(|p| p.to_string_lossy()).collect();
                out.push(parts.join("/"));
            }
        }
    }
    out.sort();
    Ok(out)
}

/// Writes `files` into `out_dir` unless that would overwrite a file this tool did not
/// write there (or one edited since); with `force`, overwrites anyway. Files listed for
/// one of `formats` by an earlier export and not written now are removed when unchanged.
/// Returns the paths written. On refusal nothing is written.
pub fn commit(
    out_dir: &Path,
    files: &[Planned],
    formats: &[&str],
    force: bool,
) -> Result<Vec<PathBuf>, ExportError> {
    let manifest_path = out_dir.join(MANIFEST);
    let mut manifest: Manifest = std::fs::read(&manifest_path)
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok())
        .unwrap_or_default();
    let mut refused = Vec::new();
    for f in files {
        let dest = out_dir.join(&f.rel);
        if dest.is_dir() {
            refused.push(dest);
            continue;
        }
        let Ok(current) = std::fs::read(&dest) else {
            continue;
        };
        let ours = manifest
            .files
            .get(&f.rel)
            .is_some_and(|e| e.sha256 == sha(&current));
        if !ours && current != f.bytes {
            refused.push(dest);
        }
    }
    if !refused.is_empty() && !force {
        return Err(ExportError::WouldOverwrite { files: refused });
    }
    std::fs::create_dir_all(out_dir).map_err(io(out_dir))?;
    let mut written = Vec::new();
    for f in files {
        let dest = out_dir.join(&f.rel);
        write_atomic(&dest, &f.bytes)?;
        manifest.files.insert(
            f.rel.clone(),
            Entry {
                sha256: sha(&f.bytes),
                format: f.format.clone(),
            },
        );
        written.push(dest);
    }
    let now: BTreeSet<&str> = files.iter().map(|f| f.rel.as_str()).collect();
    let stale: Vec<String> = manifest
        .files
        .iter()
        .filter(|(rel, e)| formats.contains(&e.format.as_str()) && !now.contains(rel.as_str()))
        .map(|(rel, _)| rel.clone())
        .collect();
    for rel in stale {
        let entry = manifest.files.remove(&rel).expect("listed above");
        let path = out_dir.join(&rel);
        if std::fs::read(&path).is_ok_and(|b| sha(&b) == entry.sha256) {
            std::fs::remove_file(&path).map_err(io(&path))?;
        }
    }
    let text = serde_json::to_vec_pretty(&manifest).map_err(|e| ExportError::BadSuite {
        path: manifest_path.clone(),
        reason: e.to_string(),
    })?;
    write_atomic(&manifest_path, &text)?;
    Ok(written)
}

/// Files an earlier export of one of `formats` wrote into `out_dir` that are still
/// there: what an export of those formats would replace. The workbench asks before it
/// replaces them; files no export wrote are refused by [`commit`] anyway.
pub fn exported_files(out_dir: &Path, formats: &[&str]) -> Vec<PathBuf> {
    let manifest: Manifest = std::fs::read(out_dir.join(MANIFEST))
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok())
        .unwrap_or_default();
    manifest
        .files
        .iter()
        .filter(|(_, e)| formats.contains(&e.format.as_str()))
        .map(|(rel, _)| out_dir.join(rel))
        .filter(|p| p.is_file())
        .collect()
}

/// Temporary file in the same directory, then rename: a reader never sees half a file.
fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), ExportError> {
    let parent = path.parent().unwrap_or_else(|| Path::new("."));
    std::fs::create_dir_all(parent).map_err(io(parent))?;
    let mut tmp = tempfile::Builder::new()
        .prefix(".mastor-export.")
        .tempfile_in(parent)
        .map_err(io(parent))?;
    tmp.write_all(bytes).map_err(io(path))?;
    tmp.persist(path).map_err(|e| ExportError::Io {
        path: path.to_path_buf(),
        source: e.error,
    })?;
    Ok(())
}
