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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::testutil::parsed;

    fn closure_of(files: &[(&str, &str)], start: &str) -> Vec<String> {
        let parsed = parsed(files);
        let index = TypeIndex::new(&parsed);
        let c = Closures::new(&index);
        let fi = index.file_index(start).unwrap();
        c.closure(fi)
            .into_iter()
            .map(|i| parsed[i].path.clone())
            .collect()
    }

    #[test]
    fn rules_a_to_e() {
        let files = [
            // entry: single import (unused), nested import, static import, wildcard, same package, FQN.
            (
                "web/Entry.java",
                "package web;\nimport dto.Unused;\nimport dto.Holder.Inner;\nimport static consts.Paths.X;\nimport static consts.All.*;\nimport model.*;\nclass Entry { Used u; Helper h; void f() { util.Fqn.call(); Object o = new java.util.ArrayList(); } }\n",
            ),
            ("dto/Unused.java", "package dto; public class Unused {}"),
            (
                "dto/Holder.java",
                "package dto; public class Holder { public static class Inner {} }",
            ),
            (
                "consts/Paths.java",
                "package consts; public class Paths { public static final String X = \"/x\"; }",
            ),
            ("consts/All.java", "package consts; public class All {}"),
            (
                "model/Used.java",
                "package model; public class Used { Chain c; }",
            ),
            (
                "model/Chain.java",
                "package model; public class Chain { web.Entry back; }",
            ),
            (
                "model/NotUsed.java",
                "package model; public class NotUsed {}",
            ),
            ("web/Helper.java", "package web; class Helper {}"),
            ("web/Stranger.java", "package web; class Stranger {}"),
            (
                "util/Fqn.java",
                "package util; public class Fqn { public static void call() {} }",
            ),
        ];
        let got = closure_of(&files, "web/Entry.java");
        let mut expected = vec![
            "consts/All.java",
            "consts/Paths.java",
            "dto/Holder.java",
            "dto/Unused.java",
            "model/Chain.java",
            "model/Used.java",
            "util/Fqn.java",
            "web/Entry.java",
            "web/Helper.java",
        ];
        expected.sort();
        let mut got_sorted = got.clone();
        got_sorted.sort();
        assert_eq!(got_sorted, expected);
    }

    #[test]
    fn references_of_every_kind_count_for_same_package() {
        let entry = "package p;\nclass E extends A implements B {\n @C void m() throws D {\n  Object o = (F) null; boolean b = o instanceof G; Class<?> k = H.class;\n  I.run(); int v = J.CONST; K<L> list = null; new M(); Runnable r = N::go;\n  try {} catch (O e) {}\n }\n}\n";
        let mut files = vec![("p/E.java".to_string(), entry.to_string())];
        for n in [
            "A", "B", "C", "D", "F", "G", "H", "I", "J", "K", "L", "M", "N", "O", "Z",
        ] {
            files.push((format!("p/{n}.java"), format!("package p; class {n} {{}}")));
        }
        let refs: Vec<(&str, &str)> = files
            .iter()
            .map(|(a, b)| (a.as_str(), b.as_str()))
            .collect();
        let got = closure_of(&refs, "p/E.java");
        assert_eq!(got.len(), 15, "{got:?}");
        assert!(!got.contains(&"p/Z.java".to_string()));
    }
}
