//! Spec operation → route matching.
//!
//! Template routes compare segment by segment (a code variable matches anything, a code
//! literal only the same spec literal); among routes serving the method, more literal
//! segments earlier win, then an exact method beats "all methods". JDK routes take the
//! longest matching context and the first satisfied branch. Spec paths are tried with the
//! spec's base path prepended first, then as written.

use super::path::{Seg, segments};
use super::{PathMatcher, Route};
use crate::model::SpecOperation;
use crate::source::java::{Cond, Strip};
use regex::Regex;

/// The outcome for one spec operation.
#[derive(Debug, Clone, PartialEq)]
pub enum OpMatch {
    /// Index into the routes list.
    Route(usize),
    /// The code dispatches in a way the scan cannot resolve: the route whose dispatcher
    /// ([`Route::dispatcher`]) serves as the handler, and why the match is weak.
    Weak(usize, String),
    Unmatched(String),
}

/// Sample values substituted for spec path variables when evaluating JDK conditions.
const SAMPLES: [&str; 3] = ["1", "abc", "a1"];

/// How well a code template fits a spec path: `None` if it does not, else one flag per
/// segment (true = literal matched literal), compared lexicographically.
fn template_fit(code: &[Seg], spec: &[Seg]) -> Option<Vec<bool>> {
    if code.len() != spec.len() {
        return None;
    }
    code.iter()
        .zip(spec)
        .map(|(c, s)| match (c, s) {
            (Seg::Var(_), _) => Some(false),
            (Seg::Lit(a), Seg::Lit(b)) if a == b => Some(true),
            _ => None,
        })
        .collect()
}

/// `path.split("/").length` as Java computes it: trailing empty parts dropped, and a
/// string without any `/` is one part (even the empty string).
fn java_split_len(path: &str) -> i64 {
    if !path.contains('/') {
        return 1;
    }
    let parts: Vec<&str> = path.split('/').collect();
    let trimmed = parts
        .iter()
        .rposition(|p| !p.is_empty())
        .map_or(0, |i| i + 1);
    trimmed as i64
}

/// The request path after the handler's cut; `None` when the cut is not known (a constant
/// that did not resolve) or cannot apply (Java would throw).
fn cut<'a>(strip: &Strip, path: &'a str, context: &str) -> Option<std::borrow::Cow<'a, str>> {
    use std::borrow::Cow;
    match strip {
        Strip::Chars(n) => path.get(*n..).map(Cow::Borrowed),
        Strip::Context => path.get(context.len()..).map(Cow::Borrowed),
        Strip::Remove(lit) => Some(Cow::Owned(path.replacen(lit.as_str(), "", 1))),
        Strip::Len(_) | Strip::Helper(_) => None,
    }
}

/// Whether `cond` holds for `method` and `path` under `context`: `Some(b)` when known,
/// `None` when it depends on something the scan could not read.
fn eval(cond: &Cond, method: &str, path: &str, context: &str) -> Option<bool> {
    eval_in(cond, method, path, context, false)
}

/// [`eval`], with segment conditions read on the non-empty parts when `non_empty`.
fn eval_in(cond: &Cond, method: &str, path: &str, context: &str, non_empty: bool) -> Option<bool> {
    Some(match cond {
        Cond::Method(m) => m == method,
        Cond::PathEquals(p) => p == path,
        Cond::PathMatches(re) => Regex::new(&format!("^(?:{re})$")).is_ok_and(|r| r.is_match(path)),
        Cond::PathStartsWith(p) => path.starts_with(p.as_str()),
        Cond::PathEndsWith(p) => path.ends_with(p.as_str()),
        Cond::SegCount { op, n } => {
            let len = if non_empty {
                path.split('/').filter(|p| !p.is_empty()).count() as i64
            } else {
                java_split_len(path)
            };
            match op.as_str() {
                "==" => len == *n,
                "!=" => len != *n,
                ">" => len > *n,
                ">=" => len >= *n,
                "<" => len < *n,
                "<=" => len <= *n,
                _ => false,
            }
        }
        Cond::SegmentEquals { index, value } if non_empty => path
            .split('/')
            .filter(|p| !p.is_empty())
            .nth(*index)
            .is_some_and(|s| s == value),
        Cond::SegmentEquals { index, value } => {
            path.split('/').nth(*index).is_some_and(|s| s == value)
        }
        Cond::NonEmptyParts(c) => return eval_in(c, method, path, context, true),
        Cond::Not(c) => !eval_in(c, method, path, context, non_empty)?,
        Cond::Or(cs) => {
            return any3(
                cs.iter()
                    .map(|c| eval_in(c, method, path, context, non_empty)),
            );
        }
        Cond::And(cs) => {
            return all3(
                cs.iter()
                    .map(|c| eval_in(c, method, path, context, non_empty)),
            );
        }
        Cond::Stripped { strip, cond } => {
            let rest = cut(strip, path, context)?;
            return eval_in(cond, method, &rest, context, non_empty);
        }
    })
}

/// Three-valued `and`: false wins, then unknown.
fn all3(values: impl Iterator<Item = Option<bool>>) -> Option<bool> {
    let mut out = Some(true);
    for v in values {
        match v {
            Some(false) => return Some(false),
            None => out = None,
            Some(true) => {}
        }
    }
    out
}

/// Three-valued `or`: true wins, then unknown.
fn any3(values: impl Iterator<Item = Option<bool>>) -> Option<bool> {
    let mut out = Some(false);
    for v in values {
        match v {
            Some(true) => return Some(true),
            None => out = None,
            Some(false) => {}
        }
    }
    out
}

/// Concrete request paths for a spec template.
fn samples(spec: &[Seg]) -> Vec<String> {
    SAMPLES
        .iter()
        .map(|v| {
            let mut s: String = spec
                .iter()
                .map(|seg| match seg {
                    Seg::Lit(l) => format!("/{l}"),
                    Seg::Var(_) => format!("/{v}"),
                })
                .collect();
            if s.is_empty() {
                s.push('/');
            }
            s
        })
        .collect()
}

/// The outcome of matching one candidate spec path.
enum Outcome {
    Found(usize),
    /// A JDK handler's branches do not decide which method serves the request: the route
    /// whose dispatcher stands in, and why.
    Weak(usize, String),
    /// Path matched, method did not: the routes whose path matched.
    MethodDiffers(Vec<usize>),
    /// A JDK context was reached but no branch serves the request.
    NoBranch(usize),
    None,
}

fn match_path(routes: &[Route], method: &str, spec_path: &str) -> Outcome {
    let spec = segments(spec_path);
    let mut best: Option<(Vec<bool>, bool, usize)> = None;
    let mut path_only = Vec::new();
    for (i, r) in routes.iter().enumerate() {
        let PathMatcher::Template(code) = &r.matcher else {
            continue;
        };
        let Some(fit) = template_fit(code, &spec) else {
            continue;
        };
        let exact = match r.method.as_deref() {
            Some(m) if m == method => true,
            Some(_) => {
                path_only.push((fit, i));
                continue;
            }
            None => false,
        };
        let better = match &best {
            None => true,
            Some((bf, be, _)) => (&fit, exact) > (bf, *be),
        };
        if better {
            best = Some((fit, exact, i));
        }
    }
    if let Some((_, _, i)) = best {
        return Outcome::Found(i);
    }
    // JDK: longest context that prefixes the request, then the first satisfied branch.
    let concrete = samples(&spec);
    let mut best_ctx: Option<&str> = None;
    for r in routes {
        if let PathMatcher::Jdk { context, .. } = &r.matcher
            && concrete.iter().any(|p| p.starts_with(context.as_str()))
            && best_ctx.is_none_or(|b| context.len() > b.len())
        {
            best_ctx = Some(context);
        }
    }
    if let Some(ctx) = best_ctx {
        return jdk_branch(routes, ctx, method, &concrete);
    }
    // Report only the most specific path matches (`/x` before `/{id}`).
    match path_only.iter().map(|(f, _)| f).max().cloned() {
        None => Outcome::None,
        Some(top) => Outcome::MethodDiffers(
            path_only
                .into_iter()
                .filter(|(f, _)| *f == top)
                .map(|(_, i)| i)
                .collect(),
        ),
    }
}

/// The branch of the handler at context `ctx` that serves `method` on the `concrete`
/// sample paths. When, for one sample, branches calling different methods may all serve it
/// (conditions the scan could not read), the dispatch is unresolved: the outcome is weak
/// and names the candidates rather than picking one.
fn jdk_branch(routes: &[Route], ctx: &str, method: &str, concrete: &[String]) -> Outcome {
    let in_ctx: Vec<usize> = (0..routes.len())
        .filter(
            |&i| matches!(&routes[i].matcher, PathMatcher::Jdk { context, .. } if context == ctx),
        )
        .collect();
    let Some(&first) = in_ctx.first() else {
        return Outcome::None;
    };
    let mut found = None;
    for p in concrete {
        let hits: Vec<(usize, bool)> = in_ctx
            .iter()
            .filter_map(|&i| {
                let PathMatcher::Jdk { conds, .. } = &routes[i].matcher else {
                    return None;
                };
                match all3(conds.iter().map(|c| eval(c, method, p, ctx))) {
                    Some(false) => None,
                    v => Some((i, v.is_some())),
                }
            })
            .collect();
        let mut methods: Vec<(&str, &str, usize)> = hits
            .iter()
            .map(|&(i, _)| {
                let h = &routes[i].handler;
                (h.file.as_str(), h.method.as_str(), h.line)
            })
            .collect();
        methods.sort_unstable();
        methods.dedup();
        let unknown = hits.iter().any(|(_, sure)| !sure);
        if methods.len() > 1 || (unknown && !hits.is_empty()) {
            let names: Vec<String> = hits
                .iter()
                .map(|&(i, _)| format!("{}:{}", routes[i].handler.method, routes[i].handler.line))
                .collect();
            let why = if methods.len() > 1 {
                format!("branches calling {} all may serve it", names.join(", "))
            } else {
                format!(
                    "the branch calling {} depends on a cut that did not resolve",
                    names[0]
                )
            };
            return Outcome::Weak(hits[0].0, why);
        }
        // Otherwise the earliest branch serving any sample, as before.
        if let Some(&(i, _)) = hits.first() {
            found = Some(found.map_or(i, |f: usize| f.min(i)));
        }
    }
    match found {
        Some(i) => Outcome::Found(i),
        None => Outcome::NoBranch(first),
    }
}

/// The route nearest to `spec_path` for an error message (most equal leading segments,
/// then closest length).
fn nearest<'a>(routes: &'a [Route], spec_path: &str) -> Option<&'a Route> {
    let spec = segments(spec_path);
    routes
        .iter()
        .filter_map(|r| {
            let PathMatcher::Template(code) = &r.matcher else {
                return None;
            };
            let common = code
                .iter()
                .zip(&spec)
                .take_while(|(c, s)| match (c, s) {
                    (Seg::Lit(a), Seg::Lit(b)) => a == b,
                    _ => true,
                })
                .count();
            let diff = code.len().abs_diff(spec.len());
            Some((common, std::cmp::Reverse(diff), r))
        })
        .max_by(|a, b| (a.0, a.1).cmp(&(b.0, b.1)))
        .filter(|(common, _, _)| *common > 0)
        .map(|(_, _, r)| r)
}

fn place(r: &Route) -> String {
    let file = r.handler.file.rsplit('/').next().unwrap_or(&r.handler.file);
    format!("{} in {file}:{}", r.display(), r.handler.line)
}

/// Matches every operation; `base_path` is the spec's basePath / server path, if any.
pub fn match_operations(
    ops: &[SpecOperation],
    routes: &[Route],
    base_path: Option<&str>,
) -> Vec<OpMatch> {
    let base = base_path
        .map(|b| b.trim_end_matches('/'))
        .filter(|b| !b.is_empty());
    let mut out: Vec<OpMatch> = ops
        .iter()
        .map(|op| {
            let mut candidates = Vec::new();
            if let Some(b) = base
                && !op.path.starts_with(&format!("{b}/"))
            {
                candidates.push(format!("{b}{}", op.path));
            }
            candidates.push(op.path.clone());
            let mut first_problem: Option<String> = None;
            for cand in &candidates {
                match match_path(routes, &op.method, cand) {
                    Outcome::Found(i) => return OpMatch::Route(i),
                    Outcome::Weak(i, why) => {
                        let d = routes[i].dispatcher.as_ref().unwrap_or(&routes[i].handler);
                        return OpMatch::Weak(
                            i,
                            format!(
                                "dispatch in {}.{} not resolved for {cand} ({why}); the match falls back to it",
                                d.class, d.method
                            ),
                        );
                    }
                    Outcome::MethodDiffers(list) => {
                        let methods: Vec<String> =
                            list.iter().map(|&i| place(&routes[i])).collect();
                        first_problem.get_or_insert(format!(
                            "path matches {} but method differs",
                            methods.join(", ")
                        ));
                    }
                    Outcome::NoBranch(i) => {
                        let r = &routes[i];
                        first_problem.get_or_insert(format!(
                            "{} {} reaches handler {} ({}) but no branch serves it",
                            op.method, cand, r.handler.class, r.entry_file
                        ));
                    }
                    Outcome::None => {}
                }
            }
            if let Some(p) = first_problem {
                return OpMatch::Unmatched(p);
            }
            let near = candidates
                .iter()
                .find_map(|c| nearest(routes, c).map(|r| (c.clone(), r)));
            let shown = &op.path;
            OpMatch::Unmatched(match near {
                Some((cand, r)) => {
                    format!("no route for {} {cand}; nearest: {}", op.method, place(r))
                }
                None if routes.is_empty() => {
                    format!(
                        "no route for {} {shown} (no routes found in the code)",
                        op.method
                    )
                }
                None => format!("no route for {} {shown}", op.method),
            })
        })
        .collect();
    weaken_shared_dispatchers(&mut out, routes);
    out
}

/// A JDK handler whose body the scan read no branches from, serving several operations:
/// the framework callback (`handle`) stands for all of them, which is a guess, not a
/// resolved branch. Such matches are weak; a handler serving one operation is not.
fn weaken_shared_dispatchers(matches: &mut [OpMatch], routes: &[Route]) {
    let unread = |r: &Route| {
        matches!(&r.matcher, PathMatcher::Jdk { conds, .. } if conds.is_empty())
            && r.dispatcher.as_ref() == Some(&r.handler)
    };
    let mut count = vec![0usize; routes.len()];
    for m in matches.iter() {
        if let OpMatch::Route(i) = m {
            count[*i] += 1;
        }
    }
    for m in matches.iter_mut() {
        if let OpMatch::Route(i) = *m
            && count[i] > 1
            && unread(&routes[i])
        {
            let h = &routes[i].handler;
            *m = OpMatch::Weak(
                i,
                format!(
                    "{}.{} serves {} operations and the scan read no dispatch in it; the match falls back to it",
                    h.class, h.method, count[i]
                ),
            );
        }
    }
}
