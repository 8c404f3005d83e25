//! What decides an operation's response besides the handler's own calls, kept in every
//! slice so that the lines a correct oracle cites are there:
//! - the callers of the handler, up the chain to the framework's callback: the lines that
//!   compute its arguments (`Http.pathId(seg[0])`) and the catch blocks that render its
//!   errors, also when the callback is inherited from a base class;
//! - the constructors and initializers of the types a reached member uses: initial state
//!   and seed data, with the methods they call (`seed()`);
//! - the project's error renderers the scan found statically (`source::envelope`): every
//!   source context carries them, so their lines must be citable in every slice;
//! - framework glue that can answer before the handler runs or shapes every body: JDK and
//!   servlet filters, Spring interceptors and MVC configuration, JAX-RS request filters,
//!   `@InitBinder` methods.

use super::facts::{Member, MemberKind, Recv};
use super::reach::{Key, Slicer, Walk};
use crate::model::{EntryRef, ErrorEnvelope};
use crate::source::index::TypeId;

/// How far up the chain of callers a slice follows (handler ← route ← handle).
const CALLER_DEPTH: usize = 3;

/// How many rounds of constructors are followed (a constructor naming a type whose
/// constructor calls a seeding method).
const CONSTRUCTOR_ROUNDS: usize = 3;

/// Supertypes (simple names) whose subclasses are framework glue, and the methods of
/// theirs a slice keeps (`None`: every method, as in an MVC configuration class).
const GLUE: &[(&str, Option<&[&str]>)] = &[
    // JDK HttpServer and servlet filters.
    ("Filter", Some(&["doFilter"])),
    ("Authenticator", Some(&["authenticate"])),
    ("HttpFilter", Some(&["doFilter"])),
    (
        "OncePerRequestFilter",
        Some(&["doFilterInternal", "shouldNotFilter"]),
    ),
    ("GenericFilterBean", Some(&["doFilter"])),
    // Spring MVC.
    ("HandlerInterceptor", Some(&["preHandle"])),
    ("HandlerInterceptorAdapter", Some(&["preHandle"])),
    ("AsyncHandlerInterceptor", Some(&["preHandle"])),
    ("WebMvcConfigurer", None),
    ("WebMvcConfigurerAdapter", None),
    ("WebMvcConfigurationSupport", None),
    ("RequestBodyAdvice", None),
    ("RequestBodyAdviceAdapter", None),
    // JAX-RS.
    ("ContainerRequestFilter", Some(&["filter"])),
];

fn simple(name: &str) -> &str {
    name.rsplit('.').next().unwrap_or(name)
}

fn callable(m: &Member) -> bool {
    matches!(m.kind, MemberKind::Method | MemberKind::Constructor)
}

impl Slicer<'_> {
    /// The member an entry ref names, looked up in its class and then in the class's
    /// supertypes: a JDK context's `handle` may be inherited from a base handler whose
    /// catch blocks render every error.
    pub fn inherited_member(&self, entry: &EntryRef) -> Option<Key> {
        if let Some(k) = self.entry_member(entry) {
            return Some(k);
        }
        let id = self.type_in(&entry.file, &entry.class)?;
        self.index.supertypes(id).into_iter().find_map(|t| {
            let tf = self.tf(t)?;
            let pos = tf
                .members
                .iter()
                .position(|m| callable(m) && m.name == entry.method && !m.is_abstract)?;
            Some((t, pos))
        })
    }

    /// Finds the glue members and types (see the module doc); called once per project.
    pub(super) fn find_glue(&mut self) {
        let mut roots = Vec::new();
        let mut types = Vec::new();
        for id in self.index.all_types() {
            let d = self.index.decl(id);
            let Some(tf) = self.tf(id) else { continue };
            let supers: Vec<&str> = d
                .superclass
                .iter()
                .chain(&d.interfaces)
                .map(|r| simple(&r.name))
                .collect();
            let glue = GLUE.iter().find(|(name, _)| supers.contains(name));
            if let Some((_, methods)) = glue {
                types.push(id);
                for (i, m) in tf.members.iter().enumerate() {
                    let kept = m.kind == MemberKind::Method
                        && methods.is_none_or(|names| names.contains(&m.name.as_str()));
                    if kept {
                        roots.push((id, i));
                    }
                }
            }
            for (i, m) in tf.members.iter().enumerate() {
                let binder = m
                    .annotations
                    .iter()
                    .any(|a| a.trim_start_matches('@').starts_with("InitBinder"));
                let advice = d.annotation("ControllerAdvice").is_some()
                    || d.annotation("RestControllerAdvice").is_some();
                if binder && advice {
                    roots.push((id, i));
                }
            }
        }
        self.roots.extend(roots);
        self.glue_types.extend(types);
    }

    /// Keeps the methods of the statically found error envelopes in every slice.
    pub fn keep_renderers(&mut self, envelopes: &[ErrorEnvelope]) {
        let mut keys = Vec::new();
        for r in envelopes.iter().flat_map(|e| &e.evidence_refs) {
            let Some(fi) = self.index.file_index(&r.file) else {
                continue;
            };
            let found = self.facts[fi].types.iter().find_map(|tf| {
                let pos = tf.members.iter().position(|m| {
                    m.kind == MemberKind::Method && m.start <= r.start_line && r.start_line <= m.end
                })?;
                Some((self.type_id_of(fi, &tf.nested_name)?, pos))
            });
            keys.extend(found);
        }
        for key in keys {
            if !self.roots.contains(&key) {
                self.roots.push(key);
            }
        }
    }

    fn type_id_of(&self, file: usize, nested: &str) -> Option<TypeId> {
        let ty = self.index.files[file]
            .types
            .iter()
            .position(|t| t.nested_name == nested)?;
        Some(TypeId { file, ty })
    }
}

impl Walk<'_, '_> {
    /// Includes the methods that call `start`, and their callers, up to [`CALLER_DEPTH`]
    /// levels. A call reaches a method when it resolves to it or to a method it
    /// overrides (`handle` calling the abstract `route` a handler implements).
    pub(super) fn callers(&mut self, start: Key) {
        let s = self.s;
        let mut frontier = vec![start];
        for _ in 0..CALLER_DEPTH {
            let mut next = Vec::new();
            for target in frontier {
                let Some(tm) = s.member(target) else { continue };
                let name = tm.name.clone();
                let mut as_called = vec![target];
                for sup in s.index.supertypes(target.0) {
                    as_called.extend(s.own_methods(sup, &name, tm.arity));
                }
                for id in s.index.all_types() {
                    let Some(tf) = s.tf(id) else { continue };
                    for (i, m) in tf.members.iter().enumerate() {
                        let key = (id, i);
                        if !callable(m) || self.done.contains(&key) {
                            continue;
                        }
                        // A caller names its receiver: `this`, a typed local or field, a
                        // project type (`HttpServer.create(..)` is no call of `create`).
                        let calls_it = m.uses.calls.iter().any(|c| {
                            c.name == name
                                && (matches!(c.recv, Recv::Implicit | Recv::This | Recv::Super)
                                    || !self.recv_types(key, m, &c.recv).is_empty())
                                && self
                                    .resolve_call(key, m, c)
                                    .iter()
                                    .any(|k| as_called.contains(k))
                        });
                        if calls_it {
                            self.skip.remove(&key);
                            self.include(key);
                            next.push(key);
                        }
                    }
                }
            }
            if next.is_empty() {
                break;
            }
            frontier = next;
        }
    }

    /// Includes the constructors and initializers of every type a reached member belongs
    /// to or names (depth 0), with what they call, until no new one appears.
    pub(super) fn constructors(&mut self) {
        let s = self.s;
        for _ in 0..CONSTRUCTOR_ROUNDS {
            let before = self.done.len();
            let types: Vec<TypeId> = self
                .declared
                .iter()
                .filter(|(_, d)| **d == 0)
                .map(|(t, _)| *t)
                .collect();
            for id in types {
                let Some(tf) = s.tf(id) else { continue };
                for (i, m) in tf.members.iter().enumerate() {
                    let init = matches!(m.kind, MemberKind::Constructor | MemberKind::Initializer);
                    if init && !m.uses.calls.is_empty() {
                        self.include((id, i));
                    }
                }
            }
            self.run();
            if self.done.len() == before {
                break;
            }
        }
    }
}
