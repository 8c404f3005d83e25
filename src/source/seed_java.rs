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

/// Method-name prefixes of calls that store a record (`|`-separated).
const RECORD_VERBS: &str = "add|put|save|insert|persist|store|register|create";
/// Method-name prefixes of seeding methods a constructor may call.
const SEED_NAMES: &str = "seed|init|load|populate|bootstrap|fill|prime|setup";
const RUNNERS: [&str; 2] = ["CommandLineRunner", "ApplicationRunner"];
/// Words without which a file holds no start-up form this module knows (besides the
/// record verbs): the cheap filter before a parse.
const HINTS: &str = "static {|static{|.of(|asList(|ofEntries(|PostConstruct|Runner|{{";
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
        .filter(|(_, t)| {
            HINTS
                .split('|')
                .chain(RECORD_VERBS.split('|'))
                .any(|h| t.contains(h))
        })
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
    let (cx, mut out) = (Cx { text, path }, Vec::new());
    let root = tree.root_node();
    // Too deep to walk: the scan reports the file as skipped (see `java::depth`).
    if super::java::depth::too_deep(root).is_some() {
        return out;
    }
    let mut c = root.walk();
    for child in root.named_children(&mut c) {
        type_decl(&cx, child, &mut out);
    }
    out.sort_by_key(|s| s.line);
    out.dedup_by_key(|s| s.line);
    out
}

struct Cx<'a> {
    text: &'a str,
    path: &'a str,
}

impl Cx<'_> {
    fn text_of(&self, n: Node) -> &str {
        n.utf8_text(self.text.as_bytes()).unwrap_or_default()
    }

    /// The text of `n`'s child `field` ("" when absent).
    fn field(&self, n: Node, field: &str) -> &str {
        n.child_by_field_name(field)
            .map(|f| self.text_of(f))
            .unwrap_or_default()
    }

    fn seed(&self, n: Node, kind: JavaSeedKind, name: String) -> JavaSeed {
        let (line, end_line) = (n.start_position().row + 1, n.end_position().row + 1);
        let text: Vec<&str> = self.text.lines().take(end_line).skip(line - 1).collect();
        let (file, text) = (self.path.to_string(), text.join("\n"));
        JavaSeed {
            file,
            line,
            end_line,
            kind,
            name,
            text,
        }
    }
}

/// The start-up bodies of a class, enum or record (any other node: none), nested types'
/// included.
fn type_decl(cx: &Cx, decl: Node, out: &mut Vec<JavaSeed>) {
    let kinds = [
        "class_declaration",
        "enum_declaration",
        "record_declaration",
    ];
    let Some(body) = decl
        .child_by_field_name("body")
        .filter(|_| kinds.contains(&decl.kind()))
    else {
        return;
    };
    let class = cx.field(decl, "name");
    let runner = RUNNERS
        .iter()
        .any(|r| cx.field(decl, "interfaces").contains(r));
    let mut members = Vec::new();
    let mut c = body.walk();
    for m in body.named_children(&mut c) {
        if m.kind() == "enum_body_declarations" {
            members.extend(m.named_children(&mut m.walk()));
        } else {
            members.push(m);
        }
    }
    // Methods the constructors call on `this`.
    let mut from_ctor = BTreeSet::new();
    for &m in members
        .iter()
        .filter(|m| m.kind() == "constructor_declaration")
    {
        if let Some(b) = m.child_by_field_name("body") {
            own_calls(cx, b, &mut from_ctor);
        }
        if creates_records(cx, m) {
            out.push(cx.seed(m, JavaSeedKind::Constructor, format!("{class}.{class}")));
        }
    }
    for m in members {
        let name = cx.field(m, "name");
        let kind = match m.kind() {
            "method_declaration" => {
                let ret = cx.field(m, "type");
                let kind = if has_annotation(cx, m, "PostConstruct") {
                    Some(JavaSeedKind::PostConstruct)
                } else if RUNNERS.iter().any(|x| ret.ends_with(x)) {
                    Some(JavaSeedKind::RunnerBean)
                } else if runner && name == "run" {
                    Some(JavaSeedKind::Runner)
                } else if from_ctor.contains(name)
                    && (starts_with_any(name, SEED_NAMES) || creates_records(cx, m))
                {
                    Some(JavaSeedKind::CalledFromConstructor)
                } else {
                    None
                };
                let body = m.child_by_field_name("body");
                kind.filter(|_| body.is_some_and(|b| b.named_child_count() > 0))
                    .map(|k| (k, name.to_string()))
            }
            "static_initializer" => (creates_records(cx, m) || builds_collection(cx, m))
                .then(|| (JavaSeedKind::StaticInitializer, "<static>".to_string())),
            "field_declaration" if modifiers(cx, m).split_whitespace().any(|w| w == "static") => {
                static_field(cx, m).map(|name| (JavaSeedKind::StaticField, name))
            }
            _ => {
                type_decl(cx, m, out);
                None
            }
        };
        if let Some((kind, name)) = kind {
            out.push(cx.seed(m, kind, format!("{class}.{name}")));
        }
    }
}

fn starts_with_any(name: &str, prefixes: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    prefixes.split('|').any(|p| lower.starts_with(p))
}

/// The declaration's modifiers (annotations included) as written.
fn modifiers<'a>(cx: &'a Cx, decl: Node) -> &'a str {
    let mut c = decl.walk();
    let mods = decl.children(&mut c).find(|n| n.kind() == "modifiers");
    mods.map(|m| cx.text_of(m)).unwrap_or_default()
}

/// Whether `@name` (or `@some.pkg.name`) annotates the declaration.
fn has_annotation(cx: &Cx, decl: Node, name: &str) -> bool {
    modifiers(cx, decl)
        .split(|c: char| c.is_whitespace() || c == '(')
        .filter_map(|w| w.strip_prefix('@'))
        .any(|a| a.rsplit('.').next() == Some(name))
}

/// The field's name when a declarator's value builds a collection with data in it.
fn static_field(cx: &Cx, field: Node) -> Option<String> {
    let mut c = field.walk();
    let declarators: Vec<Node> = field.children_by_field_name("declarator", &mut c).collect();
    declarators.into_iter().find_map(|d| {
        let value = d.child_by_field_name("value")?;
        builds_collection(cx, value).then(|| cx.field(d, "name").to_string())
    })
}

/// Whether `node` holds a collection built with data: `Map.of(..)`, `List.of(..)`,
/// `Arrays.asList(..)`, `Stream.of(..)`, or a double-brace `new HashMap<>() {{ put(..) }}`.
fn builds_collection(cx: &Cx, node: Node) -> bool {
    const BUILDERS: &str = "of|ofEntries|asList|copyOf|entry|newArrayList";
    const HOLDERS: [&str; 5] = ["Map", "List", "Set", "Array", "Stream"];
    any_node(node, &mut |n| match n.kind() {
        "method_invocation" => {
            let object = cx.field(n, "object").trim_end_matches('s');
            BUILDERS.split('|').any(|b| b == cx.field(n, "name"))
                && HOLDERS.iter().any(|k| object.ends_with(k))
                && n.child_by_field_name("arguments")
                    .is_some_and(|a| a.named_child_count() > 0)
        }
        "object_creation_expression" => {
            let anon = n
                .named_children(&mut n.walk())
                .find(|x| x.kind() == "class_body");
            anon.is_some_and(|b| any_node(b, &mut |x| x.kind() == "block"))
        }
        _ => false,
    })
}

/// Whether a body stores records: a call like `add`/`put`/`save` on anything, and at least
/// two literals of data, inside `new X(..)` arguments or directly in such calls.
fn creates_records(cx: &Cx, body: Node) -> bool {
    let (mut record_calls, mut literals) = (0, 0);
    walk(body, &mut |n| {
        let args = n.child_by_field_name("arguments");
        let literal =
            |x: &Node| x.kind().ends_with("_literal") || ["true", "false"].contains(&x.kind());
        let direct = args.map_or(0, |a| {
            a.named_children(&mut a.walk()).filter(literal).count()
        });
        match n.kind() {
            "method_invocation" if starts_with_any(cx.field(n, "name"), RECORD_VERBS) => {
                record_calls += 1;
                literals += if direct >= 2 { direct } else { 0 };
            }
            "object_creation_expression" => literals += direct,
            _ => {}
        }
        true
    });
    record_calls > 0 && literals >= 2
}

/// Names of the methods `body` calls on `this` (unqualified or `this.m(..)`).
fn own_calls(cx: &Cx, body: Node, out: &mut BTreeSet<String>) {
    walk(body, &mut |n| {
        if n.kind() == "method_invocation" && matches!(cx.field(n, "object"), "" | "this") {
            out.insert(cx.field(n, "name").to_string());
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
