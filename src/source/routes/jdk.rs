//! JDK `com.sun.net.httpserver` routes: `createContext(path, handler)` registrations and
//! the dispatch branches inside the handler.

use super::path::normalize;
use super::{PathMatcher, Route};
use crate::model::EntryRef;
use crate::source::entries::Framework;
use crate::source::index::{TypeId, TypeIndex};
use crate::source::java::{Cond, DispatchLeaf, HandlerExpr, Method, PathView, Strip};

/// Whether `cond` constrains positively rather than by negation.
fn is_positive(cond: &Cond) -> bool {
    !matches!(cond, Cond::Not(_))
}

/// Whether `cond` mentions the request method.
fn has_method(cond: &Cond) -> bool {
    match cond {
        Cond::Method(_) => true,
        Cond::Not(c) => has_method(c),
        Cond::Or(cs) | Cond::And(cs) => cs.iter().any(has_method),
        _ => false,
    }
}

/// Whether `cond` is about the request method alone (no path test inside).
fn only_method(cond: &Cond) -> bool {
    match cond {
        Cond::Method(_) => true,
        Cond::Not(c) => only_method(c),
        Cond::Or(cs) | Cond::And(cs) => cs.iter().all(only_method),
        _ => false,
    }
}

/// A branch that only runs when the method is none of the handled ones (a 405 answer).
/// An earlier branch negated as a whole (`!(path.equals("words") && GET)`) tests the path
/// too, so it does not make the branch a method fallback.
fn is_method_fallback(conds: &[Cond]) -> bool {
    let positive_method = conds.iter().any(|c| is_positive(c) && has_method(c));
    let negated_method = conds.iter().any(|c| !is_positive(c) && only_method(c));
    negated_method && !positive_method
}

/// The type of the registering code at `line` of file `fi` (innermost declaration).
pub(super) fn type_at(index: &TypeIndex, fi: usize, line: usize) -> Option<TypeId> {
    index.files[fi]
        .types
        .iter()
        .enumerate()
        .filter(|(_, t)| t.line <= line)
        .max_by_key(|(_, t)| t.line)
        .map(|(ty, _)| TypeId { file: fi, ty })
}

/// A method named `name` on `id` or its supertypes.
pub(super) fn find_method<'a>(
    index: &TypeIndex<'a>,
    id: TypeId,
    name: &str,
) -> Option<(TypeId, &'a Method)> {
    std::iter::once(id)
        .chain(index.supertypes(id))
        .find_map(|t| {
            index
                .decl(t)
                .methods
                .iter()
                .find(|m| m.name == name && !m.is_abstract)
                .map(|m| (t, m))
        })
}

/// The dispatch leaves of `method`, following one delegation (`handle` calling `route`).
fn leaves_of<'a>(index: &TypeIndex<'a>, id: TypeId, method: &'a Method) -> &'a [DispatchLeaf] {
    if !method.dispatch.is_empty() {
        return &method.dispatch;
    }
    method
        .calls
        .iter()
        .filter(|c| **c != method.name)
        .find_map(|c| {
            find_method(index, id, c)
                .map(|(_, m)| m.dispatch.as_slice())
                .filter(|d| !d.is_empty())
        })
        .unwrap_or(&[])
}

/// `cond` with `substring(NAME.length())` cuts resolved to a number of characters where
/// `NAME` is a string constant seen from `ctx`, and helper results (`Http.segments(ex)`)
/// replaced by what the helper returns; unresolved ones stay (matching treats them as
/// unknown).
fn resolve_cuts(index: &TypeIndex, ctx: TypeId, cond: &Cond) -> Cond {
    let each = |cs: &[Cond]| cs.iter().map(|c| resolve_cuts(index, ctx, c)).collect();
    match cond {
        Cond::Stripped {
            strip: Strip::Len(expr),
            cond,
        } => Cond::Stripped {
            strip: match index.resolve_string(ctx, expr) {
                Some(s) => Strip::Chars(s.chars().count()),
                None => Strip::Len(expr.clone()),
            },
            cond: cond.clone(),
        },
        Cond::Stripped {
            strip: Strip::Helper(call),
            cond: inner,
        } => match helper_view(index, ctx, call) {
            Some(view) => match on_view(view, (**inner).clone()) {
                Some(c) => resolve_cuts(index, ctx, &c),
                None => cond.clone(),
            },
            None => cond.clone(),
        },
        Cond::Not(c) => Cond::Not(Box::new(resolve_cuts(index, ctx, c))),
        Cond::NonEmptyParts(c) => Cond::NonEmptyParts(Box::new(resolve_cuts(index, ctx, c))),
        Cond::Or(cs) => Cond::Or(each(cs)),
        Cond::And(cs) => Cond::And(each(cs)),
        other => other.clone(),
    }
}

/// What the project helper `call` (`Http.segments`, or `segments` on the handler's class
/// or a supertype) returns about the request path, read from its body.
fn helper_view<'a>(index: &TypeIndex<'a>, ctx: TypeId, call: &str) -> Option<&'a PathView> {
    let (owner, name) = match call.rsplit_once('.') {
        Some((owner, name)) => (index.resolve_type(ctx.file, owner)?, name),
        None => (ctx, call),
    };
    find_method(index, owner, name)?.1.path_view.as_ref()
}

/// `cond`, read on a helper's result, as a condition on the request path: `None` when
/// the helper's view does not fit how the handler uses it (a path compared as parts).
fn on_view(view: &PathView, cond: Cond) -> Option<Cond> {
    match view {
        // A path helper: the handler compares it, or splits it itself (Java's `split`).
        PathView::Path(strip) => Some(stripped(strip.clone(), cond)),
        PathView::Parts { strip, non_empty } if on_parts_only(&cond) => {
            let cond = if *non_empty {
                Cond::NonEmptyParts(Box::new(cond))
            } else {
                cond
            };
            Some(stripped(strip.clone(), cond))
        }
        PathView::Parts { .. } => None,
    }
}

/// Whether `c` is about split parts only (counts and segment values).
fn on_parts_only(c: &Cond) -> bool {
    match c {
        Cond::SegCount { .. } | Cond::SegmentEquals { .. } => true,
        Cond::Not(c) => on_parts_only(c),
        Cond::Or(cs) | Cond::And(cs) => cs.iter().all(on_parts_only),
        _ => false,
    }
}

fn stripped(strip: Option<Strip>, cond: Cond) -> Cond {
    match strip {
        None => cond,
        Some(strip) => Cond::Stripped {
            strip,
            cond: Box::new(cond),
        },
    }
}

fn display_path(context: &str, conds: &[Cond]) -> String {
    for c in conds {
        match c {
            Cond::PathEquals(p) => return normalize(p),
            Cond::PathMatches(re) => return format!("~{re}"),
            Cond::PathStartsWith(p) => return format!("{p}*"),
            Cond::Stripped { .. } => {
                return format!("{}/…", normalize(context).trim_end_matches('/'));
            }
            _ => {}
        }
    }
    format!("{}*", normalize(context).trim_end_matches('/'))
}

fn method_of(conds: &[Cond]) -> Option<String> {
    conds.iter().find_map(|c| match c {
        Cond::Method(m) => Some(m.clone()),
        Cond::And(inner) => method_of(inner),
        _ => None,
    })
}

/// All JDK routes of the project, in registration and branch order.
pub(super) fn routes(index: &TypeIndex, warnings: &mut Vec<String>) -> Vec<Route> {
    let mut out = Vec::new();
    for (fi, file) in index.files.iter().enumerate() {
        for reg in &file.contexts {
            let Some(ctx_type) = type_at(index, fi, reg.line) else {
                continue;
            };
            let Some(context) = index.resolve_string(ctx_type, &reg.path) else {
                warnings.push(format!(
                    "{}:{}: createContext path could not be resolved to a string",
                    file.path, reg.line
                ));
                continue;
            };
            // (class serving, default method, leaves, entry file)
            let (class_id, default, leaves, lambda_calls): (
                TypeId,
                Option<&Method>,
                &[DispatchLeaf],
                &[String],
            ) = match &reg.handler {
                HandlerExpr::Type(name) => {
                    let Some(h) = index.resolve_type(fi, name) else {
                        warnings.push(format!(
                                "{}:{}: handler type {name} for context {context} is not a project class",
                                file.path, reg.line
                            ));
                        continue;
                    };
                    match find_method(index, h, "handle") {
                        Some((_, m)) => (h, Some(m), leaves_of(index, h, m), &[]),
                        None => (h, None, &[], &[]),
                    }
                }
                HandlerExpr::MethodRef { target, method } => {
                    let owner = if target == "this" {
                        Some(ctx_type)
                    } else {
                        index.resolve_type(fi, target)
                    };
                    let Some((owner, m)) = owner.and_then(|o| find_method(index, o, method)) else {
                        warnings.push(format!(
                            "{}:{}: handler {target}::{method} for context {context} not found",
                            file.path, reg.line
                        ));
                        continue;
                    };
                    (owner, Some(m), leaves_of(index, owner, m), &[])
                }
                HandlerExpr::Lambda { leaves, calls } => (ctx_type, None, leaves, calls),
                HandlerExpr::Other(text) => {
                    warnings.push(format!(
                        "{}:{}: handler `{text}` for context {context} is not understood",
                        file.path, reg.line
                    ));
                    continue;
                }
            };
            let entry_file = match &reg.handler {
                HandlerExpr::Type(_) => index.files[class_id.file].path.clone(),
                _ => file.path.clone(),
            };
            let class = index.decl(class_id).nested_name.clone();
            let handler_for = |calls: &[String]| -> EntryRef {
                let called = calls.iter().find_map(|c| {
                    find_method(index, class_id, c)
                        .filter(|(_, m)| Some(m.name.as_str()) != default.map(|d| d.name.as_str()))
                });
                let (t, name, line) = match (called, default) {
                    (Some((t, m)), _) => (t, m.name.clone(), m.line),
                    (None, Some(d)) => (class_id, d.name.clone(), d.line),
                    (None, None) => (class_id, "handle".to_string(), reg.line),
                };
                EntryRef {
                    file: index.files[t.file].path.clone(),
                    class: class.clone(),
                    method: name,
                    line,
                }
            };
            if leaves.is_empty() {
                out.push(Route {
                    method: None,
                    path: display_path(&context, &[]),
                    matcher: PathMatcher::Jdk {
                        context: context.clone(),
                        conds: Vec::new(),
                    },
                    handler: handler_for(lambda_calls),
                    entry_file: entry_file.clone(),
                    framework: Framework::Jdk,
                    dispatcher: Some(handler_for(&[])),
                });
                continue;
            }
            for leaf in leaves {
                // Final `else` branches (own condition negated) answer 404/405: not routes.
                let own_negated = leaf.conds.last().is_some_and(|c| !is_positive(c));
                if own_negated || is_method_fallback(&leaf.conds) {
                    continue;
                }
                out.push(Route {
                    method: method_of(&leaf.conds),
                    path: display_path(&context, &leaf.conds),
                    matcher: PathMatcher::Jdk {
                        context: context.clone(),
                        conds: leaf
                            .conds
                            .iter()
                            .map(|c| resolve_cuts(index, class_id, c))
                            .collect(),
                    },
                    handler: handler_for(&leaf.calls),
                    entry_file: entry_file.clone(),
                    framework: Framework::Jdk,
                    dispatcher: Some(handler_for(&[])),
                });
            }
        }
    }
    out
}
