//! What of one operation makes each framework fact reachable (its parameters, body,
//! media types, answer type, the methods its path serves), and which framework
//! exceptions the project's own handlers take over.

use super::{FACTS, Reach};
use crate::source::entries::Framework;
use crate::source::java::{Expr, JavaFile, Method, Param, TypeDecl, TypeKind};
use crate::source::routes::{PathMatcher, Route, Seg};
use std::collections::BTreeSet;
use std::path::Path;

/// What of one operation makes each row reachable, as the text that fills `{what}`.
pub(super) struct Shape {
    path_params: Vec<String>,
    query_params: Vec<String>,
    object_body: Option<String>,
    body: Option<String>,
    other_method: Option<String>,
    converted_answer: Option<String>,
    produces: Option<String>,
}

impl Shape {
    #[allow(clippy::too_many_arguments)]
    pub(super) fn of(
        files: &[JavaFile],
        root: &Path,
        file: &str,
        fw: Framework,
        ty: &TypeDecl,
        m: &Method,
        routes: &[Route],
        route: &Route,
    ) -> Shape {
        let enums: BTreeSet<&str> = files
            .iter()
            .flat_map(|f| &f.types)
            .filter(|t| t.kind == TypeKind::Enum)
            .map(|t| t.name.as_str())
            .collect();
        let convertible = |p: &Param| fails_conversion(&p.ty, fw, &enums);
        let (path_ann, query_ann) = match fw {
            Framework::Spring => ("PathVariable", "RequestParam"),
            _ => ("PathParam", "QueryParam"),
        };
        let mappings = mapping_texts(m, ty);
        let params = |ann: &str, kind: &str| -> Vec<String> {
            m.params
                .iter()
                .filter(|p| convertible(p))
                .filter_map(|p| {
                    let a = p.annotations.iter().find(|a| a.simple_name() == ann)?;
                    let name = ["value", "name"]
                        .iter()
                        .find_map(|k| match a.arg(k) {
                            Some(Expr::Str(s)) => Some(s.clone()),
                            _ => None,
                        })
                        .unwrap_or_else(|| p.name.clone());
                    // `{id:\d+}`: Spring matches no handler for `abc` (404), it converts
                    // nothing; JAX-RS answers 404 either way.
                    if fw == Framework::Spring && regex_var(&mappings, &name) {
                        return None;
                    }
                    Some(format!("the {kind} `{name}` ({})", p.ty))
                })
                .collect()
        };
        let body_param = match fw {
            Framework::Spring => m.params.iter().find(|p| {
                p.annotations
                    .iter()
                    .any(|a| a.simple_name() == "RequestBody")
            }),
            _ => m.params.iter().find(|p| {
                !p.annotations
                    .iter()
                    .any(|a| JAXRS_PARAM_ANNOTATIONS.contains(&a.simple_name()))
            }),
        };
        let object_body = body_param
            .filter(|p| !is_text(&p.ty))
            .map(|p| format!("`{}`", p.ty));
        let consumes = media_types(m, ty, fw, "consumes", "Consumes");
        let body = match (&object_body, body_param, &consumes) {
            (Some(b), _, _) => Some(b.clone()),
            (None, Some(p), _) if fw == Framework::Jaxrs => Some(format!("`{}`", p.ty)),
            (None, _, Some(c)) => Some(format!("a method consuming {c}")),
            _ => None,
        };
        let converted_answer = (fw == Framework::Spring)
            .then(|| answer_type(root, file, m))
            .flatten()
            .filter(|t| !is_text(t) && !matches!(t.as_str(), "void" | "Void" | "byte[]"))
            .map(|t| format!("`{t}`"));
        let produces = (fw == Framework::Jaxrs)
            .then(|| media_types(m, ty, fw, "produces", "Produces"))
            .flatten();
        Shape {
            path_params: params(path_ann, "path parameter"),
            query_params: if fw == Framework::Jaxrs {
                params(query_ann, "query parameter")
            } else {
                Vec::new()
            },
            object_body,
            body,
            other_method: other_method(routes, route),
            converted_answer,
            produces,
        }
    }

    pub(super) fn reach(&self, r: Reach) -> Option<String> {
        let list = |v: &[String]| (!v.is_empty()).then(|| v.join(", "));
        match r {
            Reach::PathParamConversion => list(&self.path_params),
            Reach::QueryParamConversion => list(&self.query_params),
            Reach::ObjectBody => self.object_body.clone(),
            Reach::Body => self.body.clone(),
            Reach::OtherMethod => self.other_method.clone(),
            Reach::ConvertedAnswer => self.converted_answer.clone(),
            Reach::Produces => self.produces.clone(),
        }
    }
}

/// JAX-RS annotations that make a parameter something other than the entity.
const JAXRS_PARAM_ANNOTATIONS: &[&str] = &[
    "PathParam",
    "QueryParam",
    "HeaderParam",
    "CookieParam",
    "FormParam",
    "MatrixParam",
    "BeanParam",
    "Context",
    "Suspended",
];

fn simple(ty: &str) -> &str {
    let erased = ty.split('<').next().unwrap_or(ty).trim();
    erased.rsplit('.').next().unwrap_or(erased)
}

fn is_text(ty: &str) -> bool {
    matches!(simple(ty), "String" | "CharSequence" | "Object")
}

/// Whether a parameter of type `ty` fails to convert from some text (`abc`): numbers,
/// dates, UUIDs, the project's enums; `boolean` only in Spring (JAX-RS reads any text
/// as false).
fn fails_conversion(ty: &str, fw: Framework, enums: &BTreeSet<&str>) -> bool {
    let t = simple(ty);
    let numeric = matches!(
        t,
        "int"
            | "long"
            | "short"
            | "byte"
            | "double"
            | "float"
            | "Integer"
            | "Long"
            | "Short"
            | "Byte"
            | "Double"
            | "Float"
            | "BigDecimal"
            | "BigInteger"
            | "UUID"
            | "LocalDate"
            | "LocalDateTime"
            | "Instant"
    );
    let boolean = matches!(t, "boolean" | "Boolean") && fw == Framework::Spring;
    numeric || boolean || enums.contains(t)
}

/// The media types a method declares (its own, else its class's): Spring's
/// `consumes`/`produces` attribute of the mapping annotation, JAX-RS's `@Consumes` /
/// `@Produces`; shown as written.
fn media_types(
    m: &Method,
    ty: &TypeDecl,
    fw: Framework,
    attr: &str,
    jaxrs: &str,
) -> Option<String> {
    let from = |anns: &[crate::source::java::Annotation]| -> Option<String> {
        let values: Vec<String> = match fw {
            Framework::Spring => anns
                .iter()
                .filter(|a| a.simple_name().ends_with("Mapping"))
                .filter_map(|a| a.arg(attr))
                .flat_map(|e| e.elements().into_iter().map(expr_text))
                .collect(),
            _ => anns
                .iter()
                .filter(|a| a.simple_name() == jaxrs)
                .filter_map(|a| a.arg("value"))
                .flat_map(|e| e.elements().into_iter().map(expr_text))
                .collect(),
        };
        (!values.is_empty()).then(|| values.join(", "))
    };
    from(&m.annotations).or_else(|| from(&ty.annotations))
}

/// The texts of the method's and its class's mapping annotations (`@GetMapping(..)`,
/// `@RequestMapping(..)`, `@Path(..)`).
fn mapping_texts(m: &Method, ty: &TypeDecl) -> Vec<String> {
    m.annotations
        .iter()
        .chain(&ty.annotations)
        .filter(|a| a.simple_name().ends_with("Mapping") || a.simple_name() == "Path")
        .flat_map(|a| a.args.iter().map(|(_, e)| expr_text(e)))
        .collect()
}

/// Whether a mapping declares `{name:regex}`.
fn regex_var(mappings: &[String], name: &str) -> bool {
    let open = format!("{{{name}");
    mappings.iter().any(|t| {
        t.match_indices(&open)
            .any(|(i, _)| t[i + open.len()..].trim_start().starts_with(':'))
    })
}

fn expr_text(e: &Expr) -> String {
    match e {
        Expr::Str(s) => s.clone(),
        Expr::Name(s) | Expr::Other(s) => s.clone(),
        Expr::Concat(parts) => parts.iter().map(expr_text).collect(),
        Expr::Array(items) => items.iter().map(expr_text).collect::<Vec<_>>().join(", "),
    }
}

/// The type a Spring handler answers with: its return type, or for `ResponseEntity<T>` /
/// `HttpEntity<T>` the `T` read from its declaration line (the summary keeps erased
/// types); `None` when it cannot be told.
fn answer_type(root: &Path, file: &str, m: &Method) -> Option<String> {
    let ret = m.return_type.as_deref()?;
    if !matches!(simple(ret), "ResponseEntity" | "HttpEntity") {
        return Some(ret.to_string());
    }
    let text = std::fs::read_to_string(root.join(file)).ok()?;
    let lines: Vec<&str> = text.lines().collect();
    let decl = lines
        .get(m.start_line.saturating_sub(1)..m.line.min(lines.len()))?
        .join(" ");
    let at = decl.find(simple(ret))? + simple(ret).len();
    let rest = decl[at..].trim_start().strip_prefix('<')?;
    let inner = rest.split(['>', ',']).next()?.trim();
    (!inner.is_empty() && inner != "?").then(|| inner.to_string())
}

/// The methods no route of this path serves, as `e.g. PUT; it serves GET, DELETE`;
/// `None` when a route of it serves every method.
fn other_method(routes: &[Route], route: &Route) -> Option<String> {
    let PathMatcher::Template(segs) = &route.matcher else {
        return None;
    };
    let same = |r: &&Route| {
        r.framework == route.framework
            && matches!(&r.matcher, PathMatcher::Template(s) if same_template(s, segs))
    };
    let mut served = BTreeSet::new();
    for r in routes.iter().filter(same) {
        served.insert(r.method.clone()?.to_ascii_uppercase());
    }
    let example = ["PUT", "PATCH", "DELETE", "POST", "GET"]
        .into_iter()
        .find(|m| !served.contains(*m))?;
    let served: Vec<String> = served.into_iter().collect();
    Some(format!("e.g. {example}; it serves {}", served.join(", ")))
}

fn same_template(a: &[Seg], b: &[Seg]) -> bool {
    a.len() == b.len()
        && a.iter().zip(b).all(|(x, y)| match (x, y) {
            (Seg::Var(_), Seg::Var(_)) => true,
            (Seg::Lit(p), Seg::Lit(q)) => p == q,
            _ => false,
        })
}

/// Simple names of the exception types the project's own handlers take: Spring's
/// `@ExceptionHandler` methods (their annotation's classes, else their exception
/// parameters; every Spring exception for a `ResponseEntityExceptionHandler`), JAX-RS's
/// `ExceptionMapper<T>` implementations.
pub(super) fn handled_exceptions(files: &[JavaFile], fw: Framework) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for t in files.iter().flat_map(|f| &f.types) {
        match fw {
            Framework::Spring => {
                if t.superclass
                    .as_ref()
                    .is_some_and(|s| simple(&s.name) == "ResponseEntityExceptionHandler")
                {
                    for f in FACTS.iter().filter(|f| f.framework == Framework::Spring) {
                        out.insert(f.handled_as[0].to_string());
                    }
                }
                for m in &t.methods {
                    let Some(a) = m.annotation("ExceptionHandler") else {
                        continue;
                    };
                    let named: Vec<String> = a
                        .arg("value")
                        .map(|e| e.elements().into_iter().map(class_name).collect())
                        .unwrap_or_default();
                    if named.is_empty() {
                        out.extend(
                            m.params
                                .iter()
                                .map(|p| simple(&p.ty).to_string())
                                .filter(|n| n.ends_with("Exception") || n == "Throwable"),
                        );
                    }
                    out.extend(named);
                }
            }
            _ => {
                for i in &t.interfaces {
                    if simple(&i.name) == "ExceptionMapper"
                        && let Some(arg) = i.args.first()
                    {
                        out.insert(simple(arg).to_string());
                    }
                }
            }
        }
    }
    out
}

/// `Foo.class` / `a.b.Foo.class` → `Foo`.
fn class_name(e: &Expr) -> String {
    let text = expr_text(e);
    let t = text.trim().trim_end_matches(".class");
    t.rsplit('.').next().unwrap_or(t).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_path_variable_with_a_regex_is_told_apart() {
        let m = ["/api".to_string(), "/{id:\\d+}/items/{item}".to_string()];
        assert!(regex_var(&m, "id"));
        assert!(!regex_var(&m, "item"));
        assert!(!regex_var(&m, "i"), "a prefix of another name");
        assert!(regex_var(&["{code : [A-Z]+}".to_string()], "code"));
    }

    #[test]
    fn conversion_fails_for_numbers_dates_and_enums_not_for_text() {
        let enums: BTreeSet<&str> = ["Color"].into_iter().collect();
        for t in ["long", "Integer", "java.util.UUID", "Color", "LocalDate"] {
            assert!(fails_conversion(t, Framework::Jaxrs, &enums), "{t}");
        }
        for t in ["String", "PathSegment", "List<String>"] {
            assert!(!fails_conversion(t, Framework::Spring, &enums), "{t}");
        }
        assert!(fails_conversion("boolean", Framework::Spring, &enums));
        assert!(
            !fails_conversion("boolean", Framework::Jaxrs, &enums),
            "JAX-RS reads any text as false"
        );
    }
}
