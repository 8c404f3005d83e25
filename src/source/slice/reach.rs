//! Which lines of which files one operation's slice keeps: the handler, what it reaches
//! through calls, the declarations of the types it uses and the exception handlers that
//! map its exceptions to statuses.
//!
//! Resolution is deliberately shallow (no data flow): a receiver's type comes from a local
//! or parameter declaration, a field, a type name, a `new`, or the declared return type of
//! a resolved call. A receiver it cannot type is tried against the types in scope (the
//! current class, its fields' types, the types the member names). An interface or abstract
//! method reaches its implementation when the project has exactly one concrete subtype.

use super::facts::{ANY_ARITY, Call, FileFacts, Member, MemberKind, Recv, TypeFacts};
use crate::model::EntryRef;
use crate::source::index::{TypeId, TypeIndex};
use crate::source::java::{JavaFile, TypeKind};
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet, VecDeque};

/// A member: its type and its index in that type's [`TypeFacts::members`].
pub(super) type Key = (TypeId, usize);

/// How many levels of field types a slice declares below a type a reached member names:
/// a response's nested objects, not a whole entity graph.
pub const FIELD_DEPTH: usize = 2;

/// The lines one slice keeps, per file index: sorted, merged, 1-based inclusive ranges.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Ranges(pub BTreeMap<usize, Vec<(usize, usize)>>);

impl Ranges {
    fn add(&mut self, file: usize, range: (usize, usize)) {
        self.0.entry(file).or_default().push(range);
    }

    fn merge(&mut self) {
        for v in self.0.values_mut() {
            v.sort_unstable();
            let mut out: Vec<(usize, usize)> = Vec::with_capacity(v.len());
            for &(a, b) in v.iter() {
                match out.last_mut() {
                    Some(last) if a <= last.1 + 1 => last.1 = last.1.max(b),
                    _ => out.push((a, b)),
                }
            }
            *v = out;
        }
    }
}

/// Everything the slicer reads, built once per project and shared by every operation.
pub struct Slicer<'a> {
    pub index: TypeIndex<'a>,
    pub facts: Vec<FileFacts>,
    /// TypeId → index into its file's `facts.types`.
    by_id: HashMap<TypeId, usize>,
    /// Concrete (non-abstract class, enum, record) project subtypes of each type.
    concrete_subtypes: HashMap<TypeId, Vec<TypeId>>,
    /// Members every slice keeps: the project's error renderers and the framework glue
    /// that decides a status before a handler runs ([`Slicer::keep_renderers`]).
    pub(super) roots: Vec<Key>,
    /// Glue types declared in every slice even without members (`@EnableWebMvc` config).
    pub(super) glue_types: Vec<TypeId>,
}

impl<'a> Slicer<'a> {
    /// `files` are the scan's summaries and `facts` the slicer's facts of the same files,
    /// in the same order.
    pub fn new(files: &'a [JavaFile], facts: Vec<FileFacts>) -> Self {
        let index = TypeIndex::new(files);
        let mut by_id = HashMap::new();
        for id in index.all_types() {
            let nested = &index.decl(id).nested_name;
            if let Some(pos) = facts[id.file]
                .types
                .iter()
                .position(|t| &t.nested_name == nested)
            {
                by_id.insert(id, pos);
            }
        }
        let mut concrete_subtypes: HashMap<TypeId, Vec<TypeId>> = HashMap::new();
        for id in index.all_types() {
            let d = index.decl(id);
            let concrete = !d.is_abstract && !matches!(d.kind, TypeKind::Interface);
            if concrete {
                for s in index.supertypes(id) {
                    concrete_subtypes.entry(s).or_default().push(id);
                }
            }
        }
        let mut slicer = Slicer {
            index,
            facts,
            by_id,
            concrete_subtypes,
            roots: Vec::new(),
            glue_types: Vec::new(),
        };
        slicer.find_glue();
        slicer
    }

    pub(super) fn tf(&self, id: TypeId) -> Option<&TypeFacts> {
        self.by_id.get(&id).map(|&i| &self.facts[id.file].types[i])
    }

    pub(super) fn member(&self, key: Key) -> Option<&Member> {
        self.tf(key.0).and_then(|t| t.members.get(key.1))
    }

    /// The type `class` (nested name) declared in `file`.
    pub(super) fn type_in(&self, file: &str, class: &str) -> Option<TypeId> {
        let fi = self.index.file_index(file)?;
        let types = &self.index.files[fi].types;
        let ty = types
            .iter()
            .position(|t| t.nested_name == class)
            .or_else(|| types.iter().position(|t| t.name == class))?;
        Some(TypeId { file: fi, ty })
    }

    /// The member an entry ref names: by name on the given line, else the first by name.
    pub fn entry_member(&self, entry: &EntryRef) -> Option<Key> {
        let id = self.type_in(&entry.file, &entry.class)?;
        let tf = self.tf(id)?;
        let callable = |m: &Member| {
            matches!(m.kind, MemberKind::Method | MemberKind::Constructor) && m.name == entry.method
        };
        let pos = tf
            .members
            .iter()
            .position(|m| callable(m) && m.name_line == entry.line)
            .or_else(|| tf.members.iter().position(callable))?;
        Some((id, pos))
    }

    /// The slice of one operation: its handler `entry`, the concrete class serving it
    /// (`entry_file`'s first type), the dispatcher the framework calls first (JDK
    /// contexts), and the handlers of the other operations, which are never followed into.
    pub fn slice(
        &self,
        entry: &EntryRef,
        entry_file: Option<&str>,
        dispatcher: Option<&EntryRef>,
        others: &[EntryRef],
    ) -> Ranges {
        let mut w = Walk {
            s: self,
            ranges: Ranges::default(),
            declared: HashMap::new(),
            done: HashSet::new(),
            queue: VecDeque::new(),
            skip: HashSet::new(),
        };
        let Some(start) = self.entry_member(entry) else {
            return w.ranges;
        };
        w.skip = others
            .iter()
            .filter_map(|o| self.entry_member(o))
            .filter(|k| *k != start)
            .collect();
        w.include(start);
        if let Some(fi) = entry_file.and_then(|f| self.index.file_index(f))
            && !self.index.files[fi].types.is_empty()
        {
            w.declare(TypeId { file: fi, ty: 0 }, 0);
        }
        // Who calls the handler: the framework's dispatcher (declared in the class serving
        // the context or a supertype), and every method that calls it, up the chain (a JDK
        // `handle` branching to it, with its argument parsing and catch blocks).
        if let Some(d) = dispatcher.and_then(|d| self.inherited_member(d)) {
            w.skip.remove(&d);
            w.include(d);
        }
        w.callers(start);
        w.run();
        // What decides the response besides the call graph: the state the constructors of
        // reached types set up, the project's error renderers, and the framework glue that
        // answers before the handler runs.
        w.constructors();
        for &k in &self.roots {
            w.include(k);
        }
        for &t in &self.glue_types {
            w.declare(t, 0);
        }
        w.run();
        // Exception handlers, until no new one is reached through another.
        for _ in 0..4 {
            if !w.exception_handlers() {
                break;
            }
            w.run();
        }
        w.ranges.merge();
        w.ranges
    }
}

pub(super) struct Walk<'s, 'a> {
    pub(super) s: &'s Slicer<'a>,
    ranges: Ranges,
    /// Declared types, with the nearest field-type distance from a reached member.
    pub(super) declared: HashMap<TypeId, usize>,
    pub(super) done: HashSet<Key>,
    queue: VecDeque<Key>,
    pub(super) skip: HashSet<Key>,
}

impl Walk<'_, '_> {
    pub(super) fn include(&mut self, key: Key) {
        if self.skip.contains(&key) || !self.done.insert(key) {
            return;
        }
        if let Some(m) = self.s.member(key) {
            self.ranges.add(key.0.file, (m.start, m.end));
        }
        self.declare(key.0, 0);
        self.queue.push_back(key);
    }

    /// A type's declaration: header and closing line, fields, enum constants,
    /// constructors and initializers (the initial state, seed data included); then its
    /// supertypes, its enclosing types and, up to [`FIELD_DEPTH`] levels from a type a
    /// reached member names, the types of its fields.
    pub(super) fn declare(&mut self, id: TypeId, depth: usize) {
        if self.declared.get(&id).is_some_and(|&d| d <= depth) {
            return;
        }
        self.declared.insert(id, depth);
        let s = self.s;
        let Some(tf) = s.tf(id) else { return };
        let file = &s.facts[id.file];
        for &p in &file.preamble {
            self.ranges.add(id.file, p);
        }
        self.ranges.add(id.file, tf.header);
        self.ranges.add(id.file, (tf.close, tf.close));
        let mut next = Vec::new();
        let mut fields = Vec::new();
        for m in &tf.members {
            if matches!(m.kind, MemberKind::Method) {
                continue;
            }
            self.ranges.add(id.file, (m.start, m.end));
            if m.kind == MemberKind::Field && depth < FIELD_DEPTH {
                fields.extend(
                    m.uses
                        .types
                        .iter()
                        .filter_map(|t| s.index.resolve_type(id.file, t)),
                );
            }
        }
        // Constants the header's annotations use: their declaration only.
        let header: Vec<TypeId> = tf
            .header_types
            .iter()
            .filter_map(|t| s.index.resolve_type(id.file, t))
            .collect();
        next.extend(s.index.superclass(id));
        next.extend(s.index.interfaces(id));
        if let Some(o) = s.index.decl(id).outer {
            next.push(TypeId {
                file: id.file,
                ty: o,
            });
        }
        for n in next {
            self.declare(n, depth);
        }
        for f in fields {
            self.declare(f, depth + 1);
        }
        for h in header {
            self.declare(h, FIELD_DEPTH);
        }
    }

    pub(super) fn run(&mut self) {
        while let Some(key) = self.queue.pop_front() {
            let Some(m) = self.s.member(key) else {
                continue;
            };
            for t in &m.uses.types {
                if let Some(id) = self.s.index.resolve_type(key.0.file, t) {
                    self.declare(id, 0);
                }
            }
            for call in &m.uses.calls {
                for target in self.resolve_call(key, m, call) {
                    self.include(target);
                }
            }
        }
    }

    /// The types a receiver expression may have, when they can be told without data
    /// flow: several when locals of different scopes share its name (`catch (A e)` next
    /// to `catch (B e)`), none when unknown.
    pub(super) fn recv_types(&self, key: Key, m: &Member, recv: &Recv) -> Vec<TypeId> {
        if let Recv::Name(x) = recv {
            let mut out: Vec<TypeId> = Vec::new();
            for (_, ty) in m.uses.locals.iter().filter(|(n, _)| n == x) {
                if let Some(t) = self.s.index.resolve_type(key.0.file, ty)
                    && !out.contains(&t)
                {
                    out.push(t);
                }
            }
            if m.uses.locals.iter().any(|(n, _)| n == x) {
                return out;
            }
        }
        self.recv_type(key, m, recv, 0).into_iter().collect()
    }

    /// The type of a receiver expression, when it can be told without data flow.
    fn recv_type(&self, key: Key, m: &Member, recv: &Recv, depth: usize) -> Option<TypeId> {
        let ix = &self.s.index;
        let file = key.0.file;
        if depth > 8 {
            return None;
        }
        match recv {
            Recv::Implicit | Recv::This => Some(key.0),
            Recv::Super => ix.superclass(key.0),
            Recv::Name(x) => {
                if let Some((_, ty)) = m.uses.locals.iter().rev().find(|(n, _)| n == x) {
                    return ix.resolve_type(file, ty);
                }
                if let Some((owner, f)) = ix.find_field(key.0, x) {
                    return ix.resolve_type(owner.file, &f.ty);
                }
                ix.resolve_type(file, x)
            }
            Recv::FieldOf(inner, f) => match self.recv_type(key, m, inner, depth + 1) {
                Some(t) => {
                    let (owner, field) = ix.find_field(t, f)?;
                    ix.resolve_type(owner.file, &field.ty)
                }
                None => match &**inner {
                    Recv::Name(head) => ix.resolve_type(file, &format!("{head}.{f}")),
                    _ => None,
                },
            },
            Recv::Call(c) => {
                let targets = self.resolve_call(key, m, c);
                let (t, mi) = *targets.first()?;
                let rt = self.s.member((t, mi))?.return_type.as_deref()?;
                ix.resolve_type(t.file, rt)
            }
            Recv::New(ty) => ix.resolve_type(file, ty),
            Recv::Other => None,
        }
    }

    pub(super) fn resolve_call(&self, key: Key, m: &Member, call: &Call) -> Vec<Key> {
        let s = self.s;
        let types = self.recv_types(key, m, &call.recv);
        if types.len() > 1 {
            return types
                .into_iter()
                .flat_map(|t| s.methods(t, &call.name, call.argc))
                .collect();
        }
        match types.first().copied() {
            Some(t) => {
                let mut found = s.methods(t, &call.name, call.argc);
                if found.is_empty() && call.recv == Recv::Implicit {
                    // An enclosing class's method, or a static import.
                    let mut outer = s.index.decl(t).outer;
                    while let Some(o) = outer.filter(|_| found.is_empty()) {
                        let oid = TypeId {
                            file: t.file,
                            ty: o,
                        };
                        found = s.methods(oid, &call.name, call.argc);
                        outer = s.index.decl(oid).outer;
                    }
                    if found.is_empty() {
                        found = s.static_import(key.0.file, &call.name, call.argc);
                    }
                }
                found
            }
            None => {
                // Untyped receiver: try the types in scope.
                let mut scope: BTreeSet<TypeId> = BTreeSet::from([key.0]);
                for t in &m.uses.types {
                    scope.extend(s.index.resolve_type(key.0.file, t));
                }
                for f in &s.index.decl(key.0).fields {
                    scope.extend(s.index.resolve_type(key.0.file, &f.ty));
                }
                scope
                    .into_iter()
                    .flat_map(|t| s.methods(t, &call.name, call.argc))
                    .collect()
            }
        }
    }

    /// Includes the exception handlers that map an exception the slice names (or one from
    /// outside the project, such as a framework's validation error) to a response: the
    /// `@ExceptionHandler` methods of advice classes and of the classes in the slice, and
    /// the `toResponse` of JAX-RS `ExceptionMapper`s. Returns whether any was new.
    fn exception_handlers(&mut self) -> bool {
        let s = self.s;
        let ix = &s.index;
        let mut names: HashSet<String> = HashSet::new();
        for &id in self.declared.keys() {
            names.insert(ix.decl(id).name.clone());
            for sup in ix.supertypes(id) {
                names.insert(ix.decl(sup).name.clone());
            }
        }
        for &key in &self.done {
            if let Some(m) = s.member(key) {
                for t in &m.uses.types {
                    names.insert(simple(t).to_string());
                }
            }
        }
        let relevant = |file: usize, name: &str| {
            names.contains(simple(name)) || ix.resolve_type(file, name).is_none()
        };
        let mut found = Vec::new();
        for id in ix.all_types() {
            let d = ix.decl(id);
            let advice = d.annotation("ControllerAdvice").is_some()
                || d.annotation("RestControllerAdvice").is_some();
            let Some(tf) = s.tf(id) else { continue };
            if advice || self.declared.contains_key(&id) {
                for (i, m) in tf.members.iter().enumerate() {
                    let Some(ann) = m
                        .annotations
                        .iter()
                        .find(|a| a.trim_start_matches('@').starts_with("ExceptionHandler"))
                    else {
                        continue;
                    };
                    let mut handled = class_literals(ann);
                    if handled.is_empty() {
                        handled = m.param_types.clone();
                    }
                    if handled.iter().any(|h| relevant(id.file, h)) {
                        found.push((id, i));
                    }
                }
            }
            let mapped = d
                .interfaces
                .iter()
                .find(|i| simple(&i.name) == "ExceptionMapper")
                .and_then(|i| i.args.first());
            if let Some(x) = mapped
                && relevant(id.file, x)
            {
                for (i, m) in tf.members.iter().enumerate() {
                    if m.kind == MemberKind::Method && m.name == "toResponse" {
                        found.push((id, i));
                    }
                }
            }
        }
        let before = self.done.len();
        for k in found {
            self.include(k);
        }
        self.done.len() > before
    }
}

impl Slicer<'_> {
    /// Methods named `name` callable with `argc` arguments on `t`: its own, else the
    /// nearest supertype's; plus the one implementation of an interface or abstract
    /// method, where the project has exactly one concrete subtype.
    fn methods(&self, t: TypeId, name: &str, argc: usize) -> Vec<Key> {
        let mut out = Vec::new();
        let mut chain = vec![t];
        chain.extend(self.index.supertypes(t));
        for ty in chain {
            let own = self.own_methods(ty, name, argc);
            if own.is_empty() {
                continue;
            }
            let abstract_ = matches!(self.index.decl(ty).kind, TypeKind::Interface)
                || own
                    .iter()
                    .any(|&k| self.member(k).is_some_and(|m| m.is_abstract));
            out.extend(own);
            if abstract_ && let Some([only]) = self.concrete_subtypes.get(&ty).map(Vec::as_slice) {
                out.extend(self.own_methods(*only, name, argc));
            }
            break;
        }
        out
    }

    pub(super) fn own_methods(&self, t: TypeId, name: &str, argc: usize) -> Vec<Key> {
        let Some(tf) = self.tf(t) else {
            return Vec::new();
        };
        let named = |m: &&Member| m.kind == MemberKind::Method && m.name == name;
        let fits =
            |m: &Member| argc == ANY_ARITY || m.arity == argc || (m.varargs && argc + 1 >= m.arity);
        let by_arity: Vec<Key> = tf
            .members
            .iter()
            .enumerate()
            .filter(|(_, m)| named(m) && fits(m))
            .map(|(i, _)| (t, i))
            .collect();
        if !by_arity.is_empty() {
            return by_arity;
        }
        tf.members
            .iter()
            .enumerate()
            .filter(|(_, m)| named(m))
            .map(|(i, _)| (t, i))
            .collect()
    }

    /// A statically imported method `name` of `file`.
    fn static_import(&self, file: usize, name: &str, argc: usize) -> Vec<Key> {
        let f = &self.index.files[file];
        for imp in f.imports.iter().filter(|i| i.is_static) {
            let owner = if imp.wildcard {
                imp.path.as_str()
            } else {
                match imp.path.rsplit_once('.') {
                    Some((owner, member)) if member == name => owner,
                    _ => continue,
                }
            };
            if let Some(id) = self.index.by_fqn(owner) {
                let found = self.methods(id, name, argc);
                if !found.is_empty() {
                    return found;
                }
            }
        }
        Vec::new()
    }
}

fn simple(name: &str) -> &str {
    name.rsplit('.').next().unwrap_or(name)
}

/// `X` and `Y` of `@ExceptionHandler({X.class, a.Y.class})`.
fn class_literals(annotation: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = annotation;
    while let Some(pos) = rest.find(".class") {
        let before = &rest[..pos];
        let start = before
            .rfind(|c: char| !(c.is_alphanumeric() || c == '_' || c == '$' || c == '.'))
            .map_or(0, |i| i + 1);
        let name = &before[start..];
        if !name.is_empty() {
            out.push(name.to_string());
        }
        rest = &rest[pos + ".class".len()..];
    }
    out
}

#[cfg(test)]
mod tests {
    use super::class_literals;

    #[test]
    fn class_literals_of_an_annotation() {
        assert_eq!(
            class_literals("@ExceptionHandler({NotFound.class, a.b.Gone.class})"),
            ["NotFound", "a.b.Gone"]
        );
        assert!(class_literals("@ExceptionHandler").is_empty());
    }
}
