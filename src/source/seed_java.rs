//! Seed data that lives in code: the records a service creates in Java at start-up.
//!
//! Many projects ship no `data.sql` or JSON fixtures; their venues, pets or users are made
//! by a repository constructor, a `seed()` method it calls, a `@PostConstruct` method, a
//! `CommandLineRunner`, a static initialiser or a `Map.of(..)` constant. Without those
//! records an agent cannot know which ids exist, so valid inputs turn into 404s. This module
//! finds such start-up bodies with tree-sitter (one parse per candidate file, chosen by a
//! cheap text filter so the analysis does not parse the project twice) and renders them,
//! each headed by `path:line`, for the `{{seed_data}}` of a prompt.
//!
//! The texts given here are the already redacted ones (`redact::redact`), so a snippet
//! carries no secret and its line numbers are the file's.

use rayon::prelude::*;
use serde::Serialize;
use std::collections::BTreeSet;
use tree_sitter::Node;

/// Which start-up form creates the records.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum JavaSeedKind {
    /// A constructor that adds records (a store or repository filled when built).
    Constructor,
    /// A method a constructor calls that seeds (`seed`, `init`, `load*`, ...) or adds records.
    CalledFromConstructor,
    /// A `@PostConstruct` method.
    PostConstruct,
    /// `run(..)` of a class implementing `CommandLineRunner` or `ApplicationRunner`.
    Runner,
    /// A method returning a `CommandLineRunner` or `ApplicationRunner` (a `@Bean` lambda).
    RunnerBean,
    /// A `static { .. }` block.
    StaticInitializer,
    /// A static field built from a collection (`Map.of(..)`, `List.of(..)`, ...).
    StaticField,
}

impl JavaSeedKind {
    /// The form in words, as `mastor scan` and prompts show it.
    pub fn describe(self) -> &'static str {
        match self {
            Self::Constructor => "constructor",
            Self::CalledFromConstructor => "called from a constructor",
            Self::PostConstruct => "@PostConstruct",
            Self::Runner => "start-up runner",
            Self::RunnerBean => "start-up runner bean",
            Self::StaticInitializer => "static initialiser",
            Self::StaticField => "static collection",
        }
    }
}

/// One start-up body that creates records.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct JavaSeed {
    /// Project-relative path, `/`-separated.
    pub file: String,
    /// 1-based first line of the snippet (annotations included).
    pub line: usize,
    pub end_line: usize,
    pub kind: JavaSeedKind,
    /// `Class.member` (`Class.<static>` for a static block).
    pub name: String,
    /// The snippet's lines, redacted; not in the JSON report.
    #[serde(skip)]
    pub text: String,
}

/// Most bytes of start-up code offered as seed data in one prompt (after the seed files).
pub const JAVA_SEED_CAP: usize = 4_000;

/// Method-name prefixes of calls that store a record.
const RECORD_VERBS: [&str; 8] = [
    "add", "put", "save", "insert", "persist", "store", "register", "create",
];
/// Method-name prefixes of seeding methods a constructor may call.
const SEED_NAMES: [&str; 8] = [
    "seed",
    "init",
    "load",
    "populate",
    "bootstrap",
    "fill",
    "prime",
    "setup",
];
const RUNNERS: [&str; 2] = ["CommandLineRunner", "ApplicationRunner"];
/// Words without which a file cannot hold any start-up form this module knows (besides
/// the record verbs): the cheap filter before a parse.
const HINTS: [&str; 8] = [
    "static {",
    "static{",
    ".of(",
    "asList(",
    "ofEntries(",
    "PostConstruct",
    "Runner",
    "{{",
];
/// Most snippets named one by one as left out (the rest are counted).
const LEFT_OUT_NAMED: usize = 10;

/// Finds the start-up bodies of one file (`text` already redacted).
pub fn find(path: &str, text: &str) -> Vec<JavaSeed> {
    let mut parser = super::java::new_parser();
    find_with(&mut parser, path, text)
}

/// Finds the start-up bodies of every `(path, text)` file, in parallel, in input order.
pub fn find_all(files: &[(&str, &str)]) -> Vec<JavaSeed> {
    files
        .par_iter()
        .filter(|(_, t)| HINTS.iter().chain(&RECORD_VERBS).any(|h| t.contains(h)))
        .map_init(super::java::new_parser, |p, (path, text)| {
            find_with(p, path, text)
        })
        .flatten()
        .collect()
}

fn find_with(parser: &mut tree_sitter::Parser, path: &str, text: &str) -> Vec<JavaSeed> {
    let Some(tree) = parser.parse(text, None) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let cx = Cx {
        src: text.as_bytes(),
        text,
        path,
    };
    types_in(&cx, tree.root_node(), &mut out);
    out.sort_by_key(|s| s.line);
    out.dedup_by_key(|s| s.line);
    out
}

struct Cx<'a> {
    src: &'a [u8],
    text: &'a str,
    path: &'a str,
}

impl Cx<'_> {
    fn text_of(&self, n: Node) -> &str {
        n.utf8_text(self.src).unwrap_or_default()
    }

    fn seed(&self, n: Node, kind: JavaSeedKind, name: String) -> JavaSeed {
        let (line, end_line) = (n.start_position().row + 1, n.end_position().row + 1);
        let text: Vec<&str> = self
            .text
            .lines()
            .skip(line - 1)
            .take(end_line + 1 - line)
            .collect();
        JavaSeed {
            file: self.path.to_string(),
            line,
            end_line,
            kind,
            name,
            text: text.join("\n"),
        }
    }
}

/// Every class, enum or record declared under `node`, nested ones included.
fn types_in(cx: &Cx, node: Node, out: &mut Vec<JavaSeed>) {
    let mut c = node.walk();
    for child in node.named_children(&mut c) {
        if matches!(
            child.kind(),
            "class_declaration" | "enum_declaration" | "record_declaration"
        ) {
            type_decl(cx, child, out);
        }
    }
}

fn type_decl(cx: &Cx, decl: Node, out: &mut Vec<JavaSeed>) {
    let class = decl
        .child_by_field_name("name")
        .map(|n| cx.text_of(n))
        .unwrap_or("?");
    let runner = decl
        .child_by_field_name("interfaces")
        .is_some_and(|i| RUNNERS.iter().any(|r| cx.text_of(i).contains(r)));
    let Some(body) = decl.child_by_field_name("body") else {
        return;
    };
    let mut members = Vec::new();
    let mut c = body.walk();
    for m in body.named_children(&mut c) {
        if m.kind() == "enum_body_declarations" {
            let mut c2 = m.walk();
            members.extend(m.named_children(&mut c2));
        } else {
            members.push(m);
        }
    }
    let name_of = |m: Node| {
        m.child_by_field_name("name")
            .map(|n| cx.text_of(n).to_string())
            .unwrap_or_default()
    };
    // Methods the constructors call on `this`.
    let mut from_ctor = BTreeSet::new();
    for m in &members {
        if m.kind() == "constructor_declaration" {
            if let Some(b) = m.child_by_field_name("body") {
                own_calls(cx, b, &mut from_ctor);
            }
            if creates_records(cx, *m) {
                out.push(cx.seed(*m, JavaSeedKind::Constructor, format!("{class}.{class}")));
            }
        }
    }
    for m in members {
        let kind = match m.kind() {
            "method_declaration" => {
                let name = name_of(m);
                let ret = m.child_by_field_name("type").map(|t| cx.text_of(t));
                let body = m.child_by_field_name("body");
                let kind = if has_annotation(cx, m, "PostConstruct") {
                    Some(JavaSeedKind::PostConstruct)
                } else if ret.is_some_and(|r| RUNNERS.iter().any(|x| r.ends_with(x))) {
                    Some(JavaSeedKind::RunnerBean)
                } else if runner && name == "run" {
                    Some(JavaSeedKind::Runner)
                } else if from_ctor.contains(&name)
                    && (starts_with_any(&name, &SEED_NAMES) || creates_records(cx, m))
                {
                    Some(JavaSeedKind::CalledFromConstructor)
                } else {
                    None
                };
                kind.filter(|_| body.is_some_and(|b| b.named_child_count() > 0))
                    .map(|k| (k, name))
            }
            "static_initializer" => (creates_records(cx, m) || builds_collection(cx, m))
                .then(|| (JavaSeedKind::StaticInitializer, "<static>".to_string())),
            "field_declaration" if is_static(cx, m) => {
                static_field(cx, m).map(|name| (JavaSeedKind::StaticField, name))
            }
            "class_declaration" | "enum_declaration" | "record_declaration" => {
                type_decl(cx, m, out);
                None
            }
            _ => None,
        };
        if let Some((kind, name)) = kind {
            out.push(cx.seed(m, kind, format!("{class}.{name}")));
        }
    }
}

fn starts_with_any(name: &str, prefixes: &[&str]) -> bool {
    let lower = name.to_ascii_lowercase();
    prefixes.iter().any(|p| lower.starts_with(p))
}

fn has_annotation(cx: &Cx, decl: Node, name: &str) -> bool {
    let mut c = decl.walk();
    decl.children(&mut c)
        .filter(|n| n.kind() == "modifiers")
        .any(|mods| {
            let mut c2 = mods.walk();
            mods.named_children(&mut c2)
                .filter(|a| matches!(a.kind(), "marker_annotation" | "annotation"))
                .filter_map(|a| a.child_by_field_name("name"))
                .any(|n| cx.text_of(n).rsplit('.').next() == Some(name))
        })
}

fn is_static(cx: &Cx, decl: Node) -> bool {
    let mut c = decl.walk();
    decl.children(&mut c)
        .filter(|n| n.kind() == "modifiers")
        .any(|m| cx.text_of(m).split_whitespace().any(|w| w == "static"))
}

/// The field's name when a declarator's value builds a collection with data in it.
fn static_field(cx: &Cx, field: Node) -> Option<String> {
    let mut c = field.walk();
    let declarators: Vec<Node> = field.children_by_field_name("declarator", &mut c).collect();
    declarators.into_iter().find_map(|d| {
        let value = d.child_by_field_name("value")?;
        builds_collection(cx, value).then(|| {
            d.child_by_field_name("name")
                .map(|n| cx.text_of(n).to_string())
                .unwrap_or_default()
        })
    })
}

/// Whether `node` holds a collection built with data: `Map.of(..)`, `List.of(..)`,
/// `Arrays.asList(..)`, `Stream.of(..)`, or a double-brace `new HashMap<>() {{ put(..) }}`.
fn builds_collection(cx: &Cx, node: Node) -> bool {
    any_node(node, &mut |n| match n.kind() {
        "method_invocation" => {
            let name = n.child_by_field_name("name").map(|x| cx.text_of(x));
            let object = n.child_by_field_name("object").map(|x| cx.text_of(x));
            let builder = matches!(
                name,
                Some("of" | "ofEntries" | "asList" | "copyOf" | "entry" | "newArrayList")
            ) && object.is_some_and(|o| {
                [
                    "Map", "List", "Set", "Arrays", "Stream", "Lists", "Maps", "Sets",
                ]
                .iter()
                .any(|k| o.ends_with(k))
            });
            builder
                && n.child_by_field_name("arguments")
                    .is_some_and(|a| a.named_child_count() > 0)
        }
        "object_creation_expression" => {
            let mut c = n.walk();
            let anon = n.children(&mut c).find(|x| x.kind() == "class_body");
            anon.is_some_and(|b| any_node(b, &mut |x| x.kind() == "block"))
        }
        _ => false,
    })
}

/// Whether a body stores records: a call like `add`/`put`/`save` on anything, and at least
/// two literals of data, inside `new X(..)` arguments or directly in such calls.
fn creates_records(cx: &Cx, body: Node) -> bool {
    let mut record_calls = 0;
    let mut literals = 0;
    walk(body, &mut |n| {
        match n.kind() {
            "method_invocation" => {
                let name = n.child_by_field_name("name").map(|x| cx.text_of(x));
                if name.is_some_and(|x| starts_with_any(x, &RECORD_VERBS)) {
                    record_calls += 1;
                    if let Some(args) = n.child_by_field_name("arguments") {
                        let direct = count_children(args, is_literal);
                        if direct >= 2 {
                            literals += direct;
                        }
                    }
                }
            }
            "object_creation_expression" => {
                if let Some(args) = n.child_by_field_name("arguments") {
                    literals += count_children(args, is_literal);
                }
            }
            _ => {}
        }
        true
    });
    record_calls > 0 && literals >= 2
}

fn is_literal(n: Node) -> bool {
    n.kind().ends_with("_literal") || matches!(n.kind(), "true" | "false")
}

fn count_children(n: Node, pred: fn(Node) -> bool) -> usize {
    let mut c = n.walk();
    n.named_children(&mut c).filter(|x| pred(*x)).count()
}

/// Names of the methods `body` calls on `this` (unqualified or `this.m(..)`).
fn own_calls(cx: &Cx, body: Node, out: &mut BTreeSet<String>) {
    walk(body, &mut |n| {
        if n.kind() == "method_invocation" {
            let object = n.child_by_field_name("object").map(|o| cx.text_of(o));
            if matches!(object, None | Some("this"))
                && let Some(name) = n.child_by_field_name("name")
            {
                out.insert(cx.text_of(name).to_string());
            }
        }
        // Lambdas and anonymous classes run later, not at construction.
        !matches!(n.kind(), "lambda_expression" | "class_body")
    });
}

/// Pre-order walk; `visit` returns whether to descend into the node.
fn walk<'t>(node: Node<'t>, visit: &mut dyn FnMut(Node<'t>) -> bool) {
    if visit(node) {
        let mut c = node.walk();
        for child in node.named_children(&mut c) {
            walk(child, visit);
        }
    }
}

fn any_node<'t>(node: Node<'t>, pred: &mut dyn FnMut(Node<'t>) -> bool) -> bool {
    let mut found = false;
    walk(node, &mut |n| {
        found = found || pred(n);
        !found
    });
    found
}

/// Renders seeds for a prompt, those in `prefer` (the operation's bundle files) first,
/// each headed by `path:line`, at most `cap` bytes; a snippet that does not fit whole is
/// cut at a line and says so, and the ones left out are named.
pub fn render(seeds: &[JavaSeed], prefer: &[String], cap: usize) -> String {
    let (mut first, rest): (Vec<&JavaSeed>, Vec<&JavaSeed>) =
        seeds.iter().partition(|s| prefer.contains(&s.file));
    first.extend(rest);
    let mut out = String::new();
    let mut left_out = Vec::new();
    for s in first {
        let head = format!(
            "// ----- {}:{} ({}: {}) -----\n",
            s.file,
            s.line,
            s.kind.describe(),
            s.name
        );
        let room = cap.saturating_sub(out.len() + head.len());
        if s.text.len() < room {
            out.push_str(&head);
            out.push_str(&s.text);
            out.push('\n');
        } else if room > 200 && left_out.is_empty() {
            out.push_str(&head);
            let mut kept = 0;
            for l in s.text.lines() {
                if out.len() + l.len() + 80 > cap {
                    break;
                }
                out.push_str(l);
                out.push('\n');
                kept += 1;
            }
            out.push_str(&format!(
                "// (cut: lines {}-{} of {} left out, seed data is capped)\n",
                s.line + kept,
                s.end_line,
                s.file
            ));
        } else {
            left_out.push(format!("{}:{}", s.file, s.line));
        }
    }
    if !left_out.is_empty() {
        let more = left_out.len().saturating_sub(LEFT_OUT_NAMED);
        left_out.truncate(LEFT_OUT_NAMED);
        if more > 0 {
            left_out.push(format!("and {more} more"));
        }
        out.push_str(&format!(
            "// (left out, seed data is capped: {})\n",
            left_out.join(", ")
        ));
    }
    out
}

/// A prompt's seed data: the seed files' records (`files_text`, "(none)" when there are
/// none), then the start-up code `render`ed for the prompt; "(none)" when both are empty.
pub fn combine(files_text: &str, java: &str) -> String {
    match (files_text, java.is_empty()) {
        (_, true) => files_text.to_string(),
        ("(none)" | "", false) => java.to_string(),
        (f, false) => format!("{f}{java}"),
    }
}
