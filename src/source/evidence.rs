//! The evidence rule by which a model's handler claim may overrule a static match.
//!
//! A static match wins unless it is generic and the model names something more specific
//! that the code shows serving the operation. Concretely, the claim wins when all hold:
//! 1. the static handler is generic: the match is weak (the scan fell back to a
//!    dispatcher), or the handler's body routes on the request path or method, or it is
//!    the framework callback `handle` serving several operations;
//! 2. the claimed method exists: a non-abstract method of that name in a file of the
//!    bundle the model read (in the class it names, when it names one);
//! 3. it is specific: it does not itself route on the path or method, and it is not the
//!    static handler;
//! 4. it serves the operation's requests: the static handler reaches it by calls (two
//!    levels deep, by name among the bundle's files), or a route registration in the
//!    bundle names it by method reference.
//!
//! Anything less keeps the static match; either way both answers are recorded.

use super::java::{HandlerExpr, JavaFile, Method};
use crate::model::EntryRef;
use std::collections::BTreeSet;

/// How deep calls from the static handler are followed.
const CALL_DEPTH: usize = 2;

/// The static side of a conflict.
pub struct StaticSide<'a> {
    pub entry: &'a EntryRef,
    /// Why the scan marked the match weak, if it did.
    pub weak: Option<&'a str>,
    /// How many operations the static handler serves.
    pub shared_by: usize,
}

/// What the model claimed.
pub struct ClaimSide<'a> {
    /// Empty when the model named no file.
    pub file: &'a str,
    /// Empty when the model named no class.
    pub class: &'a str,
    pub method: &'a str,
}

fn last(s: &str) -> &str {
    s.rsplit('.').next().unwrap_or(s)
}

/// Methods named `method` in `files`, with their file and class.
fn methods_named<'a>(
    files: &'a [JavaFile],
    in_files: &dyn Fn(&str) -> bool,
    class: Option<&str>,
    method: &str,
) -> Vec<(&'a JavaFile, &'a str, &'a Method)> {
    let mut out = Vec::new();
    for f in files.iter().filter(|f| in_files(&f.path)) {
        for t in &f.types {
            if class.is_some_and(|c| last(c) != t.name && c != t.nested_name) {
                continue;
            }
            for m in &t.methods {
                if m.name == method && !m.is_abstract && !m.is_constructor {
                    out.push((f, t.nested_name.as_str(), m));
                }
            }
        }
    }
    out
}

/// The method `method` declared in `file` (in `class` when given; at `line` when given,
/// else the first of that name), as an entry.
pub fn find_method(
    files: &[JavaFile],
    file: &str,
    class: Option<&str>,
    method: &str,
    line: Option<usize>,
) -> Option<EntryRef> {
    methods_named(files, &|p| p == file, class, method)
        .into_iter()
        .find(|(_, _, m)| line.is_none_or(|l| m.line == l))
        .map(|(f, c, m)| EntryRef {
            file: f.path.clone(),
            class: c.to_string(),
            method: m.name.clone(),
            line: m.line,
        })
}

/// Whether a method's body routes on the request path or method.
fn routes_requests(m: &Method) -> bool {
    !m.dispatch.is_empty()
}

/// Method names the static handler reaches by calls, `CALL_DEPTH` levels deep.
fn reached(files: &[JavaFile], bundle: &dyn Fn(&str) -> bool, start: &Method) -> BTreeSet<String> {
    let calls_of = |m: &Method| -> Vec<String> {
        let mut c = m.calls.clone();
        c.extend(m.dispatch.iter().flat_map(|l| l.calls.iter().cloned()));
        c
    };
    let mut seen: BTreeSet<String> = calls_of(start).into_iter().collect();
    let mut frontier: Vec<String> = seen.iter().cloned().collect();
    for _ in 1..CALL_DEPTH {
        let mut next = Vec::new();
        for name in &frontier {
            for (_, _, m) in methods_named(files, bundle, None, name) {
                for c in calls_of(m) {
                    if seen.insert(c.clone()) {
                        next.push(c);
                    }
                }
            }
        }
        frontier = next;
    }
    seen
}

/// Whether a route registration in the bundle names `method` by method reference.
fn registered(files: &[JavaFile], bundle: &dyn Fn(&str) -> bool, method: &str) -> bool {
    let names =
        |h: &HandlerExpr| matches!(h, HandlerExpr::MethodRef { method: m, .. } if m == method);
    files.iter().filter(|f| bundle(&f.path)).any(|f| {
        f.registered.iter().any(|r| names(&r.handler))
            || f.contexts.iter().any(|c| names(&c.handler))
    })
}

/// The static handler's method summary.
fn static_method<'a>(files: &'a [JavaFile], s: &StaticSide) -> Option<&'a Method> {
    let e = s.entry;
    methods_named(files, &|p| p == e.file, Some(&e.class), &e.method)
        .into_iter()
        .find(|(_, _, m)| m.line == e.line)
        .map(|(_, _, m)| m)
}

/// Whether the static handler is generic (rule 1); `Err` says why it is not.
fn generic_why(files: &[JavaFile], s: &StaticSide) -> Result<String, String> {
    if let Some(w) = s.weak {
        return Ok(format!("the static match is weak ({w})"));
    }
    if static_method(files, s).is_some_and(routes_requests) {
        return Ok(format!(
            "the static handler {}.{} routes on the request path or method",
            s.entry.class, s.entry.method
        ));
    }
    if s.entry.method == "handle" && s.shared_by > 1 {
        return Ok(format!(
            "the static handler {}.handle is a framework callback serving {} operations",
            s.entry.class, s.shared_by
        ));
    }
    Err(format!(
        "the static handler {}.{} is specific (not weak, no routing in its body)",
        s.entry.class, s.entry.method
    ))
}

/// Whether any claim could overrule the static match `s`, so that asking the model can
/// change the handler (`Prepared::discovery_needed`): `Some(why the match is generic)`
/// when the match is generic (rule 1) and some method of the project could pass rules 2-4,
/// `None` when no answer can. An upper bound of [`overrule`] over every bundle and claim:
/// calls and registrations are followed through all of `files`, which sees at least what
/// any one bundle shows. Keep it in step with `overrule`.
pub fn overrulable(files: &[JavaFile], s: &StaticSide) -> Option<String> {
    let generic = generic_why(files, s).ok()?;
    let all = |_: &str| true;
    let mut serving = static_method(files, s)
        .map(|m| reached(files, &all, m))
        .unwrap_or_default();
    for f in files {
        let refs = f.registered.iter().map(|r| &r.handler);
        for h in refs.chain(f.contexts.iter().map(|c| &c.handler)) {
            if let HandlerExpr::MethodRef { method, .. } = h {
                serving.insert(method.clone());
            }
        }
    }
    // As `overrule` names a claimed method, to tell the static handler itself apart.
    let is_static = |f: &JavaFile, class: &str, m: &Method| {
        *s.entry
            == EntryRef {
                file: f.path.clone(),
                class: class.to_string(),
                method: m.name.clone(),
                line: m.line,
            }
    };
    let specific = files.iter().any(|f| {
        f.types.iter().any(|t| {
            t.methods.iter().any(|m| {
                serving.contains(&m.name)
                    && !m.is_abstract
                    && !m.is_constructor
                    && !routes_requests(m)
                    && !is_static(f, &t.nested_name, m)
            })
        })
    });
    specific.then_some(generic)
}

/// Applies the evidence rule: `Ok((claimed entry, why it wins))` when the model's claim
/// overrules the static match, `Err(why the static match stays)` otherwise.
pub fn overrule(
    files: &[JavaFile],
    bundle_files: &[String],
    s: &StaticSide,
    claim: &ClaimSide,
) -> Result<(EntryRef, String), String> {
    let generic = generic_why(files, s)?;
    let in_bundle = |p: &str| bundle_files.iter().any(|f| f == p);
    let in_claimed = |p: &str| in_bundle(p) && (claim.file.is_empty() || p == claim.file);
    let class = (!claim.class.is_empty()).then_some(claim.class);
    let found = methods_named(files, &in_claimed, class, claim.method);
    let Some((file, class, method)) = found.first().copied() else {
        return Err(format!(
            "the model's {}.{} is not a method of the bundle it read",
            claim.class, claim.method
        ));
    };
    let entry = EntryRef {
        file: file.path.clone(),
        class: class.to_string(),
        method: method.name.clone(),
        line: method.line,
    };
    if entry == *s.entry {
        return Err("the model names the static handler itself".into());
    }
    if routes_requests(method) {
        return Err(format!(
            "the model's {}.{} routes on the request itself: no more specific",
            entry.class, entry.method
        ));
    }
    let start = static_method(files, s);
    let called = start.is_some_and(|m| reached(files, &in_bundle, m).contains(&entry.method));
    let serves = if called {
        format!("{}.{} calls it", s.entry.class, s.entry.method)
    } else if registered(files, &in_bundle, &entry.method) {
        "a route registration names it".to_string()
    } else {
        return Err(format!(
            "nothing in the bundle shows {}.{} serving requests (not called from {}.{}, not registered)",
            entry.class, entry.method, s.entry.class, s.entry.method
        ));
    };
    Ok((
        entry.clone(),
        format!(
            "{generic}; the model's {}.{} exists, does not route, and {serves}",
            entry.class, entry.method
        ),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::java::parse_file;

    const ADMIN: &str = "class Admin implements HttpHandler {
    public void handle(HttpExchange ex) {
        String rest = trim(ex.getRequestURI().getPath());
        if (rest.equals(\"stats\")) { stats(ex); } else { other(ex); }
    }
    void stats(HttpExchange ex) {}
    void other(HttpExchange ex) { if (ex.getRequestMethod().equals(\"GET\")) { stats(ex); } }
    void unused(HttpExchange ex) {}
}";

    fn verdict(weak: Option<&str>, shared_by: usize, method: &str) -> Result<String, String> {
        let files = vec![parse_file("A.java", ADMIN)];
        let handle = find_method(&files, "A.java", None, "handle", None).unwrap();
        let s = StaticSide {
            entry: &handle,
            weak,
            shared_by,
        };
        let claim = ClaimSide {
            file: "",
            class: "Admin",
            method,
        };
        overrule(&files, &["A.java".to_string()], &s, &claim).map(|(e, _)| e.method)
    }

    #[test]
    fn a_weak_match_yields_only_to_an_existing_specific_method_it_calls() {
        let weak = Some("dispatch not read");
        assert_eq!(verdict(weak, 2, "stats"), Ok("stats".into()));
        // Shared framework callback: generic even when not flagged weak.
        assert_eq!(verdict(None, 2, "stats"), Ok("stats".into()));
        // A handle serving one operation, not weak: the static match stays.
        assert!(verdict(None, 1, "stats").unwrap_err().contains("specific"));
        // Not in the project, routes itself, or not reached from the dispatcher.
        assert!(
            verdict(weak, 2, "missing")
                .unwrap_err()
                .contains("not a method")
        );
        assert!(
            verdict(weak, 2, "other")
                .unwrap_err()
                .contains("routes on the request")
        );
        assert!(
            verdict(weak, 2, "unused")
                .unwrap_err()
                .contains("nothing in the bundle")
        );
        assert!(
            verdict(weak, 2, "handle")
                .unwrap_err()
                .contains("static handler itself")
        );
    }
}
