//! Java source summaries: one plain, serialisable record per file, produced by a single
//! tree-sitter parse.
//!
//! Later stages (entries, closures, routes) read only these summaries, so a file is parsed
//! exactly once and no tree-sitter type leaks out of this module. The summary keeps what the
//! rules in docs/ARCHITECTURE.md section 2 need (declarations, annotations with their argument
//! expressions, referenced names, JDK dispatch branches); it deliberately does not keep
//! statement-level semantics beyond that.

pub mod depth;
mod dispatch;
mod expr;
mod fields;
mod helper;
mod parse;
mod refs;

use rayon::prelude::*;
use serde::Serialize;

pub use expr::{Expr, decode_string_literal};
pub(crate) use parse::new_parser;

/// What kind of type declaration a [`TypeDecl`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum TypeKind {
    Class,
    Interface,
    Enum,
    Record,
    Annotation,
}

/// One import declaration.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Import {
    /// Dotted name as written, without `.*` (`a.b.C`, `a.b` for `a.b.*`).
    pub path: String,
    pub is_static: bool,
    pub wildcard: bool,
}

/// An annotation and its arguments; an unnamed single argument is stored as `value`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Annotation {
    /// Name as written (`GetMapping` or `org.x.GetMapping`).
    pub name: String,
    pub args: Vec<(String, Expr)>,
}

impl Annotation {
    /// The simple name, so `@org.x.Path` and `@Path` compare alike.
    pub fn simple_name(&self) -> &str {
        self.name.rsplit('.').next().unwrap_or(&self.name)
    }

    /// The argument named `key`, if present.
    pub fn arg(&self, key: &str) -> Option<&Expr> {
        self.args.iter().find(|(k, _)| k == key).map(|(_, v)| v)
    }
}

/// A type as written in a declaration, with generics split off.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TypeRef {
    /// Erased name as written (`BaseController`, `a.b.Base`, `Outer.Inner`).
    pub name: String,
    /// Generic arguments as written (erased), e.g. `["Product"]`.
    pub args: Vec<String>,
}

/// A field declarator (one per variable in `static final String A = "/a", B = A + "/b";`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Field {
    pub name: String,
    pub ty: String,
    pub is_static: bool,
    pub is_final: bool,
    pub value: Option<Expr>,
    pub annotations: Vec<Annotation>,
    pub line: usize,
}

/// A method or constructor parameter.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Param {
    pub name: String,
    pub ty: String,
    pub annotations: Vec<Annotation>,
}

/// One condition in a JDK `HttpHandler` dispatch chain.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Cond {
    /// `"GET".equals(method)` and friends (upper-cased).
    Method(String),
    /// `path.equals("/x")`.
    PathEquals(String),
    /// `path.matches("regex")` (Java regex, whole-string match).
    PathMatches(String),
    PathStartsWith(String),
    PathEndsWith(String),
    /// `parts.length OP n` where `parts = path.split("/")`.
    SegCount {
        op: String,
        n: i64,
    },
    /// `parts[index].equals("value")`.
    SegmentEquals {
        index: usize,
        value: String,
    },
    Not(Box<Cond>),
    Or(Vec<Cond>),
    And(Vec<Cond>),
    /// `cond` read on the request path after a prefix was cut off (`path.substring(..)`,
    /// `path.replace("/v2", "")`): handlers that route on the rest after their context.
    Stripped {
        strip: Strip,
        cond: Box<Cond>,
    },
    /// The segment conditions inside (`SegCount`, `SegmentEquals`) read on the path's
    /// non-empty parts, as a helper that drops them returns (`seg[0]` is the first
    /// segment after the cut, `seg.length == 0` the bare context).
    NonEmptyParts(Box<Cond>),
}

/// How a handler cut the front off the request path before routing on the rest.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Strip {
    /// `substring(n)` or `substring("/lit".length())`: the first `n` characters.
    Chars(usize),
    /// `substring(NAME.length())`: the length of a string constant, resolved by the routes
    /// stage (constants may live in other files).
    Len(Expr),
    /// `substring(exchange.getHttpContext().getPath().length())`: the handler's context.
    Context,
    /// `replace(lit, "")` / `replaceFirst(lit, "")`: the first occurrence of `lit` removed.
    Remove(String),
    /// What a project helper returns (`String[] seg = Http.segments(exchange)`), the call
    /// as written: the routes stage replaces it with the helper's [`PathView`], else the
    /// conditions on it stay unknown.
    Helper(String),
}

/// What a project helper method returns about the request path, read from its body: the
/// path (after a cut, if any) or its `/`-separated parts. Only one level deep: a helper
/// calling another helper has no view.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum PathView {
    Path(Option<Strip>),
    /// `split("/")` of the (cut) path; `non_empty` when empty parts are dropped
    /// (`filter(s -> !s.isEmpty())`, a loop skipping them).
    Parts {
        strip: Option<Strip>,
        non_empty: bool,
    },
}

/// A branch of a dispatch chain that contains no further dispatch: the conditions that
/// lead to it and the unqualified method calls made inside it, in source order.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DispatchLeaf {
    pub conds: Vec<Cond>,
    pub calls: Vec<String>,
    pub line: usize,
}

/// How a `createContext` call names its handler.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum HandlerExpr {
    /// `new PetHandler(..)` or a variable/field whose type is known.
    Type(String),
    /// `this::handlePets` / `Main::handle`: target as written and the method name.
    MethodRef { target: String, method: String },
    /// A lambda: its dispatch leaves (empty when it does not branch) and its unqualified
    /// calls.
    Lambda {
        leaves: Vec<DispatchLeaf>,
        calls: Vec<String>,
    },
    /// Anything else, as written.
    Other(String),
}

/// One `createContext(path, handler)` call.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ContextRegistration {
    pub path: Expr,
    pub handler: HandlerExpr,
    pub line: usize,
}

/// A route registered in code rather than by annotation or context: a hand-written
/// router's `router.add("GET", "/x/{id}", this::get)` or Javalin/Spark-style
/// `app.get("/x", ctx -> ..)` / `get("/x", Handlers::list)`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RouteRegistration {
    /// Upper-case HTTP method.
    pub method: String,
    pub path: Expr,
    /// A method reference or a lambda.
    pub handler: HandlerExpr,
    pub line: usize,
    /// The method (or constructor) whose body registers the route: a lambda's handler.
    pub enclosing: Option<String>,
}

/// A method or constructor.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Method {
    pub name: String,
    pub annotations: Vec<Annotation>,
    pub params: Vec<Param>,
    /// Erased return type; `None` for constructors.
    pub return_type: Option<String>,
    pub is_constructor: bool,
    pub is_abstract: bool,
    /// 1-based line of the method's name (where a reader looks for the signature).
    pub line: usize,
    /// 1-based line of the declaration's first token (annotations included).
    pub start_line: usize,
    pub end_line: usize,
    /// JDK dispatch leaves found in the body (empty when the body does not branch on the
    /// request method or path).
    pub dispatch: Vec<DispatchLeaf>,
    /// Unqualified (or `this.`) calls in the body, in order: for handler bodies without
    /// branches.
    pub calls: Vec<String>,
    /// What the method returns about the request path, when it is such a helper.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path_view: Option<PathView>,
}

impl Method {
    /// The annotation with simple name `name`, if present.
    pub fn annotation(&self, name: &str) -> Option<&Annotation> {
        self.annotations.iter().find(|a| a.simple_name() == name)
    }
}

/// A class, interface, enum, record or annotation type; nested types are separate entries
/// pointing at their outer type.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TypeDecl {
    pub name: String,
    /// Dotted name inside the file, `Outer.Inner` for nested types.
    pub nested_name: String,
    pub kind: TypeKind,
    /// Index of the enclosing type in [`JavaFile::types`].
    pub outer: Option<usize>,
    pub is_abstract: bool,
    pub annotations: Vec<Annotation>,
    pub type_params: Vec<String>,
    pub superclass: Option<TypeRef>,
    /// `implements` of a class, or `extends` of an interface.
    pub interfaces: Vec<TypeRef>,
    pub fields: Vec<Field>,
    pub methods: Vec<Method>,
    pub line: usize,
}

impl TypeDecl {
    /// The annotation with simple name `name`, if present.
    pub fn annotation(&self, name: &str) -> Option<&Annotation> {
        self.annotations.iter().find(|a| a.simple_name() == name)
    }
}

/// Everything later stages need to know about one Java file.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct JavaFile {
    /// Path relative to the project root, `/`-separated.
    pub path: String,
    pub package: Option<String>,
    pub imports: Vec<Import>,
    pub types: Vec<TypeDecl>,
    /// Simple names that may denote types (type identifiers, annotation names, the
    /// qualifier of `X.y`/`X.y()`/`X::y`), sorted and deduplicated; imports excluded.
    pub simple_refs: Vec<String>,
    /// Dotted names used in code (`a.b.C`, `a.b.C.CONST`), sorted and deduplicated.
    pub qualified_refs: Vec<String>,
    /// `createContext` registrations anywhere in the file.
    pub contexts: Vec<ContextRegistration>,
    /// Routes registered by method reference or lambda (`router.add`, `app.get`).
    pub registered: Vec<RouteRegistration>,
    /// Whether the file calls `HttpServer.create(..)`.
    pub creates_http_server: bool,
    pub line_count: usize,
    /// 1-based line of the first syntax error, if the file does not parse cleanly.
    pub syntax_error_line: Option<usize>,
    /// Why the file was not analysed (its tree nests too deep to walk: see
    /// [`depth`]); it is then empty apart from its path and line count.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub skipped: Option<String>,
}

impl JavaFile {
    /// Whether the file references `name` by simple name.
    pub fn refers_to(&self, name: &str) -> bool {
        self.simple_refs
            .binary_search_by(|r| r.as_str().cmp(name))
            .is_ok()
    }
}

/// A file to parse: its relative path and text.
#[derive(Debug, Clone)]
pub struct SourceText {
    pub path: String,
    pub text: String,
}

/// Parses one file. Never fails: syntax errors are recorded in the summary.
pub fn parse_file(path: &str, text: &str) -> JavaFile {
    let mut parser = parse::new_parser();
    parse::summarise(&mut parser, path, text)
}

/// Parses all files in parallel (one tree-sitter parser per worker thread), keeping the
/// input order. Exposed on its own so benchmarks can time parse-only.
pub fn parse_all(files: &[SourceText]) -> Vec<JavaFile> {
    files
        .par_iter()
        .map_init(parse::new_parser, |parser, f| {
            parse::summarise(parser, &f.path, &f.text)
        })
        .collect()
}

#[cfg(test)]
mod tests;
