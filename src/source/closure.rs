//! Import closures: the project files an entry file depends on, transitively.
//!
//! Direct dependencies are computed once per file (rules a-e of the shared rules: single
//! imports, static imports, referenced wildcard-imported and same-package types, and
//! fully-qualified names); a closure is then a breadth-first search over them, and closures
//! are memoised per entry file. Types outside the project are ignored. This module does
//! not decide which files are entries.

use super::index::TypeIndex;
use rayon::prelude::*;
use std::collections::{BTreeSet, HashMap, VecDeque};
use std::sync::Mutex;

/// Direct dependencies of every file (file indices, sorted, without the file itself).
pub fn direct_deps(index: &TypeIndex) -> Vec<Vec<usize>> {
    (0..index.files.len())
        .into_par_iter()
        .map(|fi| deps_of(index, fi))
        .collect()
}

fn deps_of(index: &TypeIndex, fi: usize) -> Vec<usize> {
    let file = &index.files[fi];
    let mut out = BTreeSet::new();
    let mut wildcard_pkgs = Vec::new();
    for imp in &file.imports {
        match (imp.is_static, imp.wildcard) {
            // (a) single-type import, nested types included.
            (false, false) => {
                if let Some(id) = index.by_fqn(&imp.path) {
                    out.insert(id.file);
                }
            }
            // (c) wildcard import: resolved against references below.
            (false, true) => wildcard_pkgs.push(imp.path.as_str()),
            // (b) static import of a member or of all members: the owning type's file.
            (true, false) => {
                if let Some((owner, _)) = imp.path.rsplit_once('.')
                    && let Some(id) = index.fqn_prefix(owner).or_else(|| index.by_fqn(owner))
                {
                    out.insert(id.file);
                }
            }
            (true, true) => {
                if let Some(id) = index.fqn_prefix(&imp.path) {
                    out.insert(id.file);
                }
            }
        }
    }
    let pkg = file.package.as_deref().unwrap_or("");
    for name in &file.simple_refs {
        // (d) same package, no import needed.
        out.extend(index.files_in_package(pkg, name).iter().copied());
        // (c) wildcard-imported packages (and nested types of an on-demand type import).
        for wp in &wildcard_pkgs {
            out.extend(index.files_in_package(wp, name).iter().copied());
            if let Some(id) = index.by_fqn(&format!("{wp}.{name}")) {
                out.insert(id.file);
            }
        }
    }
    // (e) fully-qualified names in code.
    for q in &file.qualified_refs {
        if let Some(id) = index.fqn_prefix(q) {
            out.insert(id.file);
        }
    }
    out.remove(&fi);
    out.into_iter().collect()
}

/// Closures over precomputed direct dependencies, memoised per start file.
#[derive(Debug)]
pub struct Closures {
    deps: Vec<Vec<usize>>,
    memo: Mutex<HashMap<usize, Vec<usize>>>,
}

impl Closures {
    /// Computes the direct dependencies of every file of `index`.
    pub fn new(index: &TypeIndex) -> Self {
        Closures {
            deps: direct_deps(index),
            memo: Mutex::new(HashMap::new()),
        }
    }

    /// Direct dependencies of file `fi`.
    pub fn deps(&self, fi: usize) -> &[usize] {
        self.deps.get(fi).map_or(&[], Vec::as_slice)
    }

    /// The closure of file `fi` (itself included), as sorted file indices.
    pub fn closure(&self, fi: usize) -> Vec<usize> {
        if let Some(hit) = self.memo.lock().ok().and_then(|m| m.get(&fi).cloned()) {
            return hit;
        }
        let mut seen = vec![false; self.deps.len()];
        let mut queue = VecDeque::from([fi]);
        let mut out = Vec::new();
        if let Some(s) = seen.get_mut(fi) {
            *s = true;
        }
        while let Some(cur) = queue.pop_front() {
            out.push(cur);
            for &d in self.deps(cur) {
                if !seen[d] {
                    seen[d] = true;
                    queue.push_back(d);
                }
            }
        }
        out.sort_unstable();
        if let Ok(mut m) = self.memo.lock() {
            m.insert(fi, out.clone());
        }
        out
    }
}
