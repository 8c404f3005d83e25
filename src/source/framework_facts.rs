//! Statuses the framework itself answers, before or around the handler: facts a model
//! cannot read in the project's code (no line of it returns Spring's 400 for a path
//! variable that is not a number), so without them a correct oracle expecting one was
//! set aside as "a status the code does not return", and a model guessed 404 instead.
//!
//! One table ([`FACTS`]), per framework, each row only where the operation's shape makes
//! it reachable (415 only with a request body, a conversion failure only for a parameter
//! that is not a string, 405 only when the path serves some method but not all), and
//! left out when the project handles the framework's exception itself (an
//! `@ExceptionHandler` or a `ResponseEntityExceptionHandler` for it, an
//! `ExceptionMapper` of it or a supertype): the status is then the project's.
//! The JDK HTTP server answers nothing on its own, so it has no row.
//!
//! Every row was observed on Spring MVC 4.3 (Jetty 9.4) and Jersey 1.19 (JDK HTTP
//! server), and `tests/it/framework_facts.rs` checks each against the running fixtures.
//! The rows are JAX-RS and Spring MVC semantics, not those servers' alone; the body each
//! row claims is only "not the project's error envelope" (a container page, Spring
//! Boot's `/error` JSON or nothing), so no body field is ever asserted from a row.

use super::entries::Framework;
use super::java::{Expr, JavaFile, Method, Param, TypeDecl, TypeKind};
use super::routes::{PathMatcher, Route, Seg};
use crate::model::{EntryRef, ErrorCase};
use std::collections::BTreeSet;
use std::path::Path;

/// What makes a row reachable for an operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reach {
    /// A path parameter of a type that fails to convert from some text.
    PathParamConversion,
    /// A query parameter of such a type.
    QueryParamConversion,
    /// A request body read into an object (not a `String`).
    ObjectBody,
    /// A request body the method takes: an object body, declared `consumes` /
    /// `@Consumes`, or (JAX-RS) an entity parameter.
    Body,
    /// The path is served for some methods, not all.
    OtherMethod,
    /// Spring: the handler answers with a body a converter writes (an object, not `void`,
    /// `ResponseEntity<Void>` or `String`).
    ConvertedAnswer,
    /// JAX-RS: the method or its class declares `@Produces`.
    Produces,
}

/// One row: a status the framework returns, when, and which project exception handlers
/// take it over.
#[derive(Debug, Clone, Copy)]
pub struct Fact {
    /// Stable id (`spring.path_type_mismatch`), for tests and messages.
    pub id: &'static str,
    pub framework: Framework,
    pub status: u16,
    pub reach: Reach,
    /// The condition, with `{what}` replaced by what of the operation makes it reachable.
    pub condition: &'static str,
    /// Exception types (simple names) whose handler in the project answers instead.
    pub handled_as: &'static [&'static str],
}

const SPRING_CONVERSION: &[&str] = &[
    "MethodArgumentTypeMismatchException",
    "TypeMismatchException",
    "PropertyAccessException",
    "NestedRuntimeException",
    "RuntimeException",
    "Exception",
    "Throwable",
];
const SPRING_UNREADABLE: &[&str] = &[
    "HttpMessageNotReadableException",
    "HttpMessageConversionException",
    "NestedRuntimeException",
    "RuntimeException",
    "Exception",
    "Throwable",
];
const SPRING_UNSUPPORTED: &[&str] = &[
    "HttpMediaTypeNotSupportedException",
    "HttpMediaTypeException",
    "ServletException",
    "Exception",
    "Throwable",
];
const SPRING_METHOD: &[&str] = &[
    "HttpRequestMethodNotSupportedException",
    "ServletException",
    "Exception",
    "Throwable",
];
const SPRING_NOT_ACCEPTABLE: &[&str] = &[
    "HttpMediaTypeNotAcceptableException",
    "HttpMediaTypeException",
    "ServletException",
    "Exception",
    "Throwable",
];
const JAXRS_ANY: &[&str] = &[
    "WebApplicationException",
    "ClientErrorException",
    "ParamException",
    "PathParamException",
    "QueryParamException",
    "NotFoundException",
    "NotSupportedException",
    "NotAcceptableException",
    "NotAllowedException",
    "RuntimeException",
    "Exception",
    "Throwable",
];

/// The table. Conditions say what to send, since an oracle has to send it.
pub const FACTS: &[Fact] = &[
    Fact {
        id: "spring.path_type_mismatch",
        framework: Framework::Spring,
        status: 400,
        reach: Reach::PathParamConversion,
        condition: "{what} does not convert to its type (e.g. `abc`): Spring MVC answers 400 \
                    before the handler runs (type mismatch); the body is the framework's, not \
                    the project's error envelope",
        handled_as: SPRING_CONVERSION,
    },
    Fact {
        id: "spring.unreadable_body",
        framework: Framework::Spring,
        status: 400,
        reach: Reach::ObjectBody,
        condition: "the JSON body for {what} is malformed or missing (send it with \
                    `input.raw_body`): Spring MVC answers 400 before the handler runs \
                    (message not readable); the body is the framework's",
        handled_as: SPRING_UNREADABLE,
    },
    Fact {
        id: "spring.unsupported_media_type",
        framework: Framework::Spring,
        status: 415,
        reach: Reach::Body,
        condition: "the body for {what} is sent with a Content-Type no converter reads (e.g. \
                    `input.raw_body` with content_type text/plain): Spring MVC answers 415 \
                    before the handler runs; the body is the framework's",
        handled_as: SPRING_UNSUPPORTED,
    },
    Fact {
        id: "spring.method_not_allowed",
        framework: Framework::Spring,
        status: 405,
        reach: Reach::OtherMethod,
        condition: "the path is requested with a method no handler of it serves ({what}; \
                    send it with `input.method`): Spring MVC answers 405 with an Allow header",
        handled_as: SPRING_METHOD,
    },
    Fact {
        id: "spring.not_acceptable",
        framework: Framework::Spring,
        status: 406,
        reach: Reach::ConvertedAnswer,
        condition: "the Accept header names only media types no converter writes for {what} \
                    (e.g. `Accept: image/png`) on a request the handler answers normally: \
                    Spring MVC answers 406 after the handler ran, with no body",
        handled_as: SPRING_NOT_ACCEPTABLE,
    },
    Fact {
        id: "jaxrs.path_param_conversion",
        framework: Framework::Jaxrs,
        status: 404,
        reach: Reach::PathParamConversion,
        condition: "{what} does not convert to its type (e.g. `abc`): JAX-RS answers 404 \
                    before the resource method runs; the body is the framework's, not the \
                    project's error envelope",
        handled_as: JAXRS_ANY,
    },
    Fact {
        id: "jaxrs.query_param_conversion",
        framework: Framework::Jaxrs,
        status: 404,
        reach: Reach::QueryParamConversion,
        condition: "{what} does not convert to its type (e.g. `abc`): JAX-RS answers 404 \
                    (not 400) before the resource method runs; the body is the framework's",
        handled_as: JAXRS_ANY,
    },
    Fact {
        id: "jaxrs.unsupported_media_type",
        framework: Framework::Jaxrs,
        status: 415,
        reach: Reach::Body,
        condition: "the body for {what} is sent with a Content-Type the method does not \
                    consume (e.g. `input.raw_body` with content_type text/plain): JAX-RS \
                    answers 415 before the resource method runs; the body is the framework's",
        handled_as: JAXRS_ANY,
    },
    Fact {
        id: "jaxrs.method_not_allowed",
        framework: Framework::Jaxrs,
        status: 405,
        reach: Reach::OtherMethod,
        condition: "the path is requested with a method no resource method of it serves \
                    ({what}; send it with `input.method`): JAX-RS answers 405 with an Allow \
                    header",
        handled_as: JAXRS_ANY,
    },
    Fact {
        id: "jaxrs.not_acceptable",
        framework: Framework::Jaxrs,
        status: 406,
        reach: Reach::Produces,
        condition: "the Accept header names none of the media types the method produces \
                    ({what}; e.g. `Accept: image/png`): JAX-RS answers 406 before the \
                    resource method runs",
        handled_as: JAXRS_ANY,
    },
];

/// The framework's name as the evidence of its facts.
pub fn framework_name(f: Framework) -> &'static str {
    match f {
        Framework::Spring => "Spring MVC",
        Framework::Jaxrs => "JAX-RS",
        _ => "",
    }
}

/// A row that applies to an operation, with its error case.
#[derive(Debug, Clone)]
pub struct Found {
    pub fact: &'static Fact,
    pub case: ErrorCase,
}

/// The framework facts of the operation `method` served by `entry`, in table order.
/// `root` is the project (a handler's return type is read from its source line).
pub fn for_operation(
    files: &[JavaFile],
    routes: &[Route],
    root: &Path,
    entry: &EntryRef,
    method: &str,
) -> Vec<Found> {
    let Some(route) = routes
        .iter()
        .filter(|r| same_handler(&r.handler, entry))
        .find(|r| {
            r.method
                .as_deref()
                .is_none_or(|m| m.eq_ignore_ascii_case(method))
        })
    else {
        return Vec::new();
    };
    let framework = route.framework;
    if !matches!(framework, Framework::Spring | Framework::Jaxrs) {
        return Vec::new();
    }
    let Some((ty, m)) = declaring(files, entry) else {
        return Vec::new();
    };
    let shape = Shape::of(files, root, &entry.file, framework, ty, m, routes, route);
    let handled = handled_exceptions(files, framework);
    FACTS
        .iter()
        .filter(|f| f.framework == framework)
        .filter(|f| !f.handled_as.iter().any(|h| handled.contains(*h)))
        .filter_map(|f| {
            let what = shape.reach(f.reach)?;
            Some(Found {
                fact: f,
                case: ErrorCase {
                    status: f.status,
                    condition: f.condition.replace("{what}", &what),
                    framework: Some(framework_name(framework).to_string()),
                    ..Default::default()
                },
            })
        })
        .collect()
}

fn same_handler(a: &EntryRef, b: &EntryRef) -> bool {
    a.file == b.file && a.method == b.method && a.line == b.line
}

/// The declaring type and method of a handler.
fn declaring<'a>(files: &'a [JavaFile], e: &EntryRef) -> Option<(&'a TypeDecl, &'a Method)> {
    let f = files.iter().find(|f| f.path == e.file)?;
    f.types.iter().find_map(|t| {
        t.methods
            .iter()
            .find(|m| m.name == e.method && (m.line == e.line || m.start_line == e.line))
            .map(|m| (t, m))
    })
}

/// What of one operation makes each row reachable, as the text that fills `{what}`.
struct Shape {
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
    fn of(
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

    fn reach(&self, r: Reach) -> Option<String> {
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
    let from = |anns: &[super::java::Annotation]| -> Option<String> {
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
fn handled_exceptions(files: &[JavaFile], fw: Framework) -> BTreeSet<String> {
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
    fn every_row_has_a_unique_id_named_for_its_framework() {
        let mut ids = BTreeSet::new();
        for f in FACTS {
            assert!(ids.insert(f.id), "{} twice", f.id);
            let prefix = match f.framework {
                Framework::Spring => "spring.",
                Framework::Jaxrs => "jaxrs.",
                other => panic!("{}: no facts for {other:?}", f.id),
            };
            assert!(f.id.starts_with(prefix), "{}", f.id);
            assert!(f.condition.contains("{what}"), "{}", f.id);
            assert!(!f.handled_as.is_empty());
        }
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
