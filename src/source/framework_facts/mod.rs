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

mod shape;

use super::entries::Framework;
use super::java::{JavaFile, Method, TypeDecl};
use super::routes::Route;
use crate::model::{EntryRef, ErrorCase};
use shape::{Shape, handled_exceptions};
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

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
}
