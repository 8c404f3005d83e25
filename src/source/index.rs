//! The project-wide type index: simple name, fully-qualified name and package lookups,
//! type-name resolution as Java sees it from one file, and constant-string resolution.
//!
//! Built once from the parsed summaries; every later stage resolves names through it, so
//! no stage loops over all files per lookup. It knows only project types: anything else
//! (JDK, frameworks) resolves to `None` on purpose.

use super::java::{Expr, Field, JavaFile, TypeDecl};
use std::collections::HashMap;

/// A type in the project: file index and index into that file's `types`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TypeId {
    pub file: usize,
    pub ty: usize,
}

/// Lookups over all parsed files.
#[derive(Debug)]
pub struct TypeIndex<'a> {
    pub files: &'a [JavaFile],
    by_fqn: HashMap<String, TypeId>,
    /// package → top-level simple name → files declaring it.
    by_pkg_name: HashMap<String, HashMap<String, Vec<usize>>>,
    by_path: HashMap<&'a str, usize>,
    /// Simple name (nested included) → types.
    by_simple: HashMap<&'a str, Vec<TypeId>>,
}

/// Nesting limit for constant and supertype resolution (guards against cycles).
const MAX_DEPTH: usize = 16;

impl<'a> TypeIndex<'a> {
    /// Indexes `files`.
    pub fn new(files: &'a [JavaFile]) -> Self {
        let mut by_fqn = HashMap::new();
        let mut by_pkg_name: HashMap<String, HashMap<String, Vec<usize>>> = HashMap::new();
        let mut by_path = HashMap::new();
        let mut by_simple: HashMap<&'a str, Vec<TypeId>> = HashMap::new();
        for (fi, file) in files.iter().enumerate() {
            by_path.insert(file.path.as_str(), fi);
            let pkg = file.package.clone().unwrap_or_default();
            for (ti, ty) in file.types.iter().enumerate() {
                let fqn = if pkg.is_empty() {
                    ty.nested_name.clone()
                } else {
                    format!("{pkg}.{}", ty.nested_name)
                };
                by_fqn.entry(fqn).or_insert(TypeId { file: fi, ty: ti });
                by_simple
                    .entry(ty.name.as_str())
                    .or_default()
                    .push(TypeId { file: fi, ty: ti });
                if ty.outer.is_none() {
                    by_pkg_name
                        .entry(pkg.clone())
                        .or_default()
                        .entry(ty.name.clone())
                        .or_default()
                        .push(fi);
                }
            }
        }
        TypeIndex {
            files,
            by_fqn,
            by_pkg_name,
            by_path,
            by_simple,
        }
    }

    /// Every project type with simple name `name`, in file order.
    pub fn types_named(&self, name: &str) -> &[TypeId] {
        self.by_simple.get(name).map_or(&[], Vec::as_slice)
    }

    /// All types of the project, in file order.
    pub fn all_types(&self) -> impl Iterator<Item = TypeId> + '_ {
        self.files
            .iter()
            .enumerate()
            .flat_map(|(file, f)| (0..f.types.len()).map(move |ty| TypeId { file, ty }))
    }

    /// The declaration behind `id`.
    pub fn decl(&self, id: TypeId) -> &'a TypeDecl {
        &self.files[id.file].types[id.ty]
    }

    /// The file at `path` (relative), if parsed.
    pub fn file_index(&self, path: &str) -> Option<usize> {
        self.by_path.get(path).copied()
    }

    /// The type with fully-qualified name `fqn` (nested types as `a.b.Outer.Inner`).
    pub fn by_fqn(&self, fqn: &str) -> Option<TypeId> {
        self.by_fqn.get(fqn).copied()
    }

    /// The type named by the longest prefix of the dotted name `dotted` (at least two
    /// components), e.g. `a.b.C.CONST` → `a.b.C`.
    pub fn fqn_prefix(&self, dotted: &str) -> Option<TypeId> {
        let mut end = dotted.len();
        loop {
            let candidate = &dotted[..end];
            if !candidate.contains('.') {
                return None;
            }
            if let Some(id) = self.by_fqn(candidate) {
                return Some(id);
            }
            end = candidate.rfind('.')?;
        }
    }

    /// Files of `package` declaring a top-level type named `name`.
    pub fn files_in_package(&self, package: &str, name: &str) -> &[usize] {
        self.by_pkg_name
            .get(package)
            .and_then(|names| names.get(name))
            .map_or(&[], Vec::as_slice)
    }

    /// The first type of `file` named `name` (simple) whose top-level type is `name`.
    fn top_level(&self, file: usize, name: &str) -> Option<TypeId> {
        self.files[file]
            .types
            .iter()
            .position(|t| t.outer.is_none() && t.name == name)
            .map(|ty| TypeId { file, ty })
    }

    /// Resolves a simple type name as Java would from `file`: declared in the file, a
    /// single-type import, the same package, a wildcard import.
    pub fn resolve_simple(&self, file: usize, name: &str) -> Option<TypeId> {
        let f = &self.files[file];
        if let Some(ty) = f.types.iter().position(|t| t.name == name) {
            return Some(TypeId { file, ty });
        }
        for imp in &f.imports {
            if !imp.wildcard
                && !imp.is_static
                && imp.path.rsplit('.').next() == Some(name)
                && let Some(id) = self.by_fqn(&imp.path)
            {
                return Some(id);
            }
        }
        let pkg = f.package.as_deref().unwrap_or("");
        if let Some(&fi) = self.files_in_package(pkg, name).first() {
            return self.top_level(fi, name);
        }
        for imp in &f.imports {
            if imp.wildcard && !imp.is_static {
                if let Some(&fi) = self.files_in_package(&imp.path, name).first() {
                    return self.top_level(fi, name);
                }
                if let Some(id) = self.by_fqn(&format!("{}.{name}", imp.path)) {
                    return Some(id);
                }
            }
        }
        None
    }

    /// Resolves a type name as written in `file` (`X`, `Outer.Inner`, `a.b.C`, generics
    /// and array suffixes ignored).
    pub fn resolve_type(&self, file: usize, written: &str) -> Option<TypeId> {
        let erased = written
            .split('<')
            .next()
            .unwrap_or(written)
            .trim_end_matches("[]")
            .trim_end_matches("...")
            .trim();
        if !erased.contains('.') {
            return self.resolve_simple(file, erased);
        }
        if let Some(id) = self.by_fqn(erased) {
            return Some(id);
        }
        let (first, rest) = erased.split_once('.')?;
        let outer = self.resolve_simple(file, first)?;
        let f = &self.files[outer.file];
        let target = format!("{}.{rest}", f.types[outer.ty].nested_name);
        f.types
            .iter()
            .position(|t| t.nested_name == target)
            .map(|ty| TypeId {
                file: outer.file,
                ty,
            })
    }

    /// The project superclass of `id`, if any.
    pub fn superclass(&self, id: TypeId) -> Option<TypeId> {
        let sc = self.decl(id).superclass.as_ref()?;
        self.resolve_type(id.file, &sc.name)
    }

    /// The project interfaces `id` implements (or extends, for an interface).
    pub fn interfaces(&self, id: TypeId) -> Vec<TypeId> {
        self.decl(id)
            .interfaces
            .iter()
            .filter_map(|i| self.resolve_type(id.file, &i.name))
            .collect()
    }

    /// Supertypes of `id` (project types only), nearest first, without repeats.
    pub fn supertypes(&self, id: TypeId) -> Vec<TypeId> {
        let mut out = Vec::new();
        let mut queue = vec![id];
        let mut i = 0;
        while i < queue.len() && out.len() < MAX_DEPTH * 4 {
            let cur = queue[i];
            i += 1;
            let mut next: Vec<TypeId> = self.superclass(cur).into_iter().collect();
            next.extend(self.interfaces(cur));
            for n in next {
                if n != id && !out.contains(&n) {
                    out.push(n);
                    queue.push(n);
                }
            }
        }
        out
    }

    /// A field named `name` in `id`, its supertypes, or its enclosing types, in that
    /// order (supertypes are computed only when `id` itself does not declare it).
    pub fn find_field(&self, id: TypeId, name: &str) -> Option<(TypeId, &'a Field)> {
        let own = |t: TypeId| {
            self.decl(t)
                .fields
                .iter()
                .find(|f| f.name == name)
                .map(|f| (t, f))
        };
        if let Some(hit) = own(id) {
            return Some(hit);
        }
        // Inherited members come before enclosing classes, as in Java.
        if let Some(hit) = self.supertypes(id).into_iter().find_map(own) {
            return Some(hit);
        }
        let mut outer = self.decl(id).outer;
        while let Some(o) = outer {
            let oid = TypeId {
                file: id.file,
                ty: o,
            };
            if let Some(hit) = own(oid) {
                return Some(hit);
            }
            outer = self.decl(oid).outer;
        }
        None
    }

    /// The string value of a constant expression seen from type `ctx`: literals, `+`,
    /// constants of the same class, of another class (`Other.X`, `a.b.Other.X`) or of a
    /// static import. `None` when it is not a compile-time string.
    pub fn resolve_string(&self, ctx: TypeId, expr: &Expr) -> Option<String> {
        self.resolve_depth(ctx, expr, 0)
    }

    fn resolve_depth(&self, ctx: TypeId, expr: &Expr, depth: usize) -> Option<String> {
        if depth > MAX_DEPTH {
            return None;
        }
        match expr {
            Expr::Str(s) => Some(s.clone()),
            Expr::Concat(parts) => parts
                .iter()
                .map(|p| self.resolve_depth(ctx, p, depth + 1))
                .collect(),
            Expr::Other(raw) if raw.chars().all(|c| c.is_ascii_digit()) && !raw.is_empty() => {
                Some(raw.clone())
            }
            Expr::Name(name) => {
                let (owner, field) = self.constant(ctx, name)?;
                let value = field.value.as_ref()?;
                self.resolve_depth(owner, value, depth + 1)
            }
            Expr::Array(_) | Expr::Other(_) => None,
        }
    }

    /// The field a constant name refers to from `ctx`.
    pub fn constant(&self, ctx: TypeId, name: &str) -> Option<(TypeId, &'a Field)> {
        let file = &self.files[ctx.file];
        match name.rsplit_once('.') {
            None => self.find_field(ctx, name).or_else(|| {
                file.imports.iter().filter(|i| i.is_static).find_map(|imp| {
                    let owner = if imp.wildcard {
                        imp.path.as_str()
                    } else {
                        let (owner, member) = imp.path.rsplit_once('.')?;
                        if member != name {
                            return None;
                        }
                        owner
                    };
                    let id = self.by_fqn(owner)?;
                    self.find_field(id, name)
                })
            }),
            Some((qualifier, member)) => {
                let owner = self
                    .resolve_type(ctx.file, qualifier)
                    .or_else(|| self.by_fqn(qualifier))?;
                self.find_field(owner, member)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::testutil::parsed;

    #[test]
    fn resolves_constants_across_classes_and_static_imports() {
        let files = parsed(&[
            (
                "a/Paths.java",
                "package a; public class Paths { public static final String ROOT = \"/api\", V1 = ROOT + \"/v1\"; }",
            ),
            (
                "b/More.java",
                "package b; public interface More { String ALL = \"/all\"; }",
            ),
            (
                "c/User.java",
                "package c;\nimport a.Paths;\nimport static b.More.*;\nclass User { static final String MINE = Paths.V1 + ALL + \"/\" + 2; static final String LOOP = LOOP2; static final String LOOP2 = LOOP; }",
            ),
        ]);
        let index = TypeIndex::new(&files);
        let user = index.by_fqn("c.User").unwrap();
        assert_eq!(
            index
                .resolve_string(user, &Expr::Name("MINE".into()))
                .as_deref(),
            Some("/api/v1/all/2")
        );
        assert_eq!(
            index
                .resolve_string(user, &Expr::Name("a.Paths.ROOT".into()))
                .as_deref(),
            Some("/api")
        );
        assert_eq!(index.resolve_string(user, &Expr::Name("LOOP".into())), None);
        assert_eq!(index.resolve_string(user, &Expr::Name("NOPE".into())), None);
    }
}
