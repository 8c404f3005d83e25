//! Spring MVC routes: class `@RequestMapping` × method `@GetMapping`/... or
//! `@RequestMapping(method = ...)`, with inherited and interface-declared mappings.

use super::path::join;
use super::{PathMatcher, Route, segments};
use crate::model::EntryRef;
use crate::source::entries::{EntryPatterns, Framework};
use crate::source::index::{TypeId, TypeIndex};
use crate::source::java::{Annotation, Expr, Method, TypeKind};

const VERB_MAPPINGS: [(&str, &str); 5] = [
    ("GetMapping", "GET"),
    ("PostMapping", "POST"),
    ("PutMapping", "PUT"),
    ("DeleteMapping", "DELETE"),
    ("PatchMapping", "PATCH"),
];

/// A mapped method as seen on a concrete class.
pub(super) struct Served<'a> {
    /// The type whose method carries the mapping annotations.
    pub declared_in: TypeId,
    pub mapping: &'a Method,
    /// Where the serving method body is declared (nearest non-abstract override).
    pub implemented_in: TypeId,
    pub implementation: &'a Method,
}

fn simple(t: &str) -> &str {
    t.rsplit('.').next().unwrap_or(t)
}

/// The parameter types of `m` declared in `t`, as seen from the concrete class whose
/// supertype chain is `chain`: class type variables bound through `extends Base<Team>`;
/// `None` for a type variable left unbound (or a method's own, by its `T`/`ID` shape),
/// which matches any type.
fn signature(index: &TypeIndex, chain: &[TypeId], t: TypeId, m: &Method) -> Vec<Option<String>> {
    let decl = index.decl(t);
    let bound: Vec<(String, String)> = chain
        .iter()
        .flat_map(|&c| {
            let d = index.decl(c);
            d.superclass.iter().chain(&d.interfaces).collect::<Vec<_>>()
        })
        .find(|r| simple(&r.name) == decl.name && r.args.len() == decl.type_params.len())
        .map(|r| {
            decl.type_params
                .iter()
                .cloned()
                .zip(r.args.clone())
                .collect()
        })
        .unwrap_or_default();
    m.params
        .iter()
        .map(|p| {
            let ty = simple(&p.ty);
            if let Some((_, arg)) = bound.iter().find(|(v, _)| v == ty) {
                return Some(simple(arg).to_string());
            }
            let var = decl.type_params.iter().any(|v| v == ty)
                || (ty.len() <= 2 && ty.chars().all(|c| c.is_ascii_uppercase()));
            (!var).then(|| ty.to_string())
        })
        .collect()
}

/// Whether two methods have the same name and signature: overloads (`putPerson(Person)`
/// and `putPerson(List<Person>)`) differ, while an override of a generic base method
/// (`create(T)` in `Base<Team>` vs `create(Team)`) is the same method.
fn same_signature(a: (&Method, &[Option<String>]), b: (&Method, &[Option<String>])) -> bool {
    a.0.name == b.0.name
        && a.1.len() == b.1.len()
        && a.1.iter().zip(b.1).all(|(x, y)| match (x, y) {
            (Some(x), Some(y)) => x == y,
            _ => true,
        })
}

/// Mapped methods visible on `id`, nearest declaration first, overridden ones dropped;
/// overloads are told apart by their parameter types.
pub(super) fn served_methods<'a>(
    index: &TypeIndex<'a>,
    id: TypeId,
    is_mapped: impl Fn(&Method) -> bool,
) -> Vec<Served<'a>> {
    let mut chain = vec![id];
    chain.extend(index.supertypes(id));
    let mut seen: Vec<(&Method, Vec<Option<String>>)> = Vec::new();
    let mut out = Vec::new();
    for &t in &chain {
        for m in &index.decl(t).methods {
            if m.is_constructor || !is_mapped(m) {
                continue;
            }
            let sig = signature(index, &chain, t, m);
            if seen
                .iter()
                .any(|(sm, ss)| same_signature((sm, ss), (m, &sig)))
            {
                continue;
            }
            let implementation = chain.iter().find_map(|&c| {
                index
                    .decl(c)
                    .methods
                    .iter()
                    .find(|x| {
                        !x.is_abstract
                            && same_signature((x, &signature(index, &chain, c, x)), (m, &sig))
                    })
                    .map(|x| (c, x))
            });
            seen.push((m, sig));
            let (implemented_in, implementation) = implementation.unwrap_or((t, m));
            out.push(Served {
                declared_in: t,
                mapping: m,
                implemented_in,
                implementation,
            });
        }
    }
    out
}

/// The string values of an annotation's `value`/`path` (or `names`), resolved from `ctx`;
/// `[""]` when absent. Unresolvable values are reported in `warnings` and skipped.
pub(super) fn annotation_paths(
    index: &TypeIndex,
    ctx: TypeId,
    ann: &Annotation,
    keys: &[&str],
    warnings: &mut Vec<String>,
) -> Vec<String> {
    let Some(expr) = keys.iter().find_map(|k| ann.arg(k)) else {
        return vec![String::new()];
    };
    let mut out = Vec::new();
    for e in expr.elements() {
        match index.resolve_string(ctx, e) {
            Some(s) => out.push(s),
            None => warnings.push(format!(
                "{}: @{} value {} on {} could not be resolved to a string",
                index.files[ctx.file].path,
                ann.simple_name(),
                expr_text(e),
                index.decl(ctx).nested_name
            )),
        }
    }
    out
}

fn expr_text(e: &Expr) -> String {
    match e {
        Expr::Str(s) => format!("{s:?}"),
        Expr::Name(n) | Expr::Other(n) => n.clone(),
        Expr::Concat(parts) => parts.iter().map(expr_text).collect::<Vec<_>>().join(" + "),
        Expr::Array(items) => format!(
            "{{{}}}",
            items.iter().map(expr_text).collect::<Vec<_>>().join(", ")
        ),
    }
}

/// HTTP methods of a mapping annotation: `Some(vec)` for specific ones, `None` for all.
fn verbs(ann: &Annotation) -> Option<Option<Vec<String>>> {
    let name = ann.simple_name();
    if let Some((_, v)) = VERB_MAPPINGS.iter().find(|(a, _)| *a == name) {
        return Some(Some(vec![v.to_string()]));
    }
    if name != "RequestMapping" {
        return None;
    }
    let Some(method) = ann.arg("method") else {
        return Some(None);
    };
    let list: Vec<String> = method
        .elements()
        .into_iter()
        .filter_map(|e| match e {
            Expr::Name(n) => n.rsplit('.').next().map(|s| s.to_ascii_uppercase()),
            _ => None,
        })
        .collect();
    Some(if list.is_empty() { None } else { Some(list) })
}

fn is_mapping(m: &Method) -> bool {
    m.annotations.iter().any(|a| verbs(a).is_some())
}

/// All Spring routes of the project.
pub(super) fn routes(
    index: &TypeIndex,
    patterns: &EntryPatterns,
    warnings: &mut Vec<String>,
) -> Vec<Route> {
    let mut out = Vec::new();
    for id in index.all_types() {
        let decl = index.decl(id);
        if decl.kind != TypeKind::Class
            || decl.is_abstract
            || !patterns.is_spring_controller(index, id)
        {
            continue;
        }
        let class_paths = std::iter::once(id)
            .chain(index.supertypes(id))
            .find_map(|t| {
                index
                    .decl(t)
                    .annotation("RequestMapping")
                    .map(|a| annotation_paths(index, t, a, &["value", "path"], warnings))
            })
            .unwrap_or_else(|| vec![String::new()]);
        // A plain @Controller serves REST only from methods marked @ResponseBody.
        let body_everywhere = patterns
            .spring_rest_controller
            .iter()
            .chain(&patterns.spring_response_body)
            .any(|n| decl.annotation(n).is_some());
        for served in served_methods(index, id, is_mapping) {
            let has_body = |m: &Method| {
                crate::source::entries::returns_response(m)
                    || patterns
                        .spring_response_body
                        .iter()
                        .any(|n| m.annotation(n).is_some())
            };
            if !body_everywhere && !has_body(served.mapping) && !has_body(served.implementation) {
                continue;
            }
            for ann in &served.mapping.annotations {
                let Some(methods) = verbs(ann) else { continue };
                let method_paths =
                    annotation_paths(index, served.declared_in, ann, &["value", "path"], warnings);
                let handler = EntryRef {
                    file: index.files[served.implemented_in.file].path.clone(),
                    class: decl.nested_name.clone(),
                    method: served.implementation.name.clone(),
                    line: served.implementation.line,
                };
                for cp in &class_paths {
                    for mp in &method_paths {
                        let path = join(&[cp, mp]);
                        let verbs: Vec<Option<String>> = match &methods {
                            Some(list) => list.iter().cloned().map(Some).collect(),
                            None => vec![None],
                        };
                        for verb in verbs {
                            out.push(Route {
                                method: verb,
                                matcher: PathMatcher::Template(segments(&path)),
                                path: path.clone(),
                                handler: handler.clone(),
                                entry_file: index.files[id.file].path.clone(),
                                framework: Framework::Spring,
                                dispatcher: None,
                            });
                        }
                    }
                }
            }
        }
    }
    out
}
