//! Referenced names and `createContext` registrations: one cursor walk over a file.

use super::dispatch::{dispatch_of, unqualified_calls};
use super::expr::expr_of;
use super::fields::FieldExt;
use super::parse::{line_of, node_text, type_ref};
use super::{ContextRegistration, HandlerExpr, JavaFile};
use std::collections::BTreeSet;
use tree_sitter::Node;

/// Whether `text` is a plain dotted name (`a.b.C`).
fn is_dotted(text: &str) -> bool {
    !text.is_empty()
        && text
            .chars()
            .all(|c| c.is_alphanumeric() || c == '_' || c == '$' || c == '.')
}

/// One walk over the whole tree (imports and package excluded) collecting referenced names
/// and `createContext` registrations.
pub(super) fn collect_refs(root: Node, src: &[u8], file: &mut JavaFile) {
    let mut simple = BTreeSet::new();
    let mut qualified = BTreeSet::new();
    let mut cursor = root.walk();
    'walk: loop {
        let node = cursor.node();
        let kind = node.kind();
        // Imports and the package are not references; literals and comments hold none.
        let skip = matches!(
            kind,
            "package_declaration"
                | "import_declaration"
                | "string_literal"
                | "line_comment"
                | "block_comment"
        );
        if !skip {
            visit_ref(node, kind, src, &mut simple, &mut qualified, file);
        }
        if !skip && cursor.goto_first_child() {
            continue;
        }
        loop {
            if cursor.goto_next_sibling() {
                continue 'walk;
            }
            if !cursor.goto_parent() {
                break 'walk;
            }
        }
    }
    file.simple_refs = simple.into_iter().map(str::to_string).collect();
    file.qualified_refs = qualified.into_iter().map(str::to_string).collect();
}

/// Records what one node contributes to the reference sets.
fn visit_ref<'a>(
    node: Node,
    kind: &str,
    src: &'a [u8],
    simple: &mut BTreeSet<&'a str>,
    qualified: &mut BTreeSet<&'a str>,
    file: &mut JavaFile,
) {
    match kind {
        "type_identifier" => {
            simple.insert(node_text(node, src));
        }
        "scoped_type_identifier" | "scoped_identifier" => {
            let t = node_text(node, src);
            if is_dotted(t) {
                qualified.insert(t);
            }
            if let Some(first) = t.split('.').next() {
                simple.insert(first.trim());
            }
        }
        "marker_annotation" | "annotation" => {
            if let Some(n) = node.field("name")
                && n.kind() == "identifier"
            {
                simple.insert(node_text(n, src));
            }
        }
        "method_invocation" | "field_access" => {
            if let Some(obj) = node.field("object")
                && obj.kind() == "identifier"
            {
                simple.insert(node_text(obj, src));
            }
            let t = node_text(node, src);
            if kind == "field_access" && is_dotted(t) {
                qualified.insert(t);
            }
            if kind == "method_invocation" {
                registration(node, src, file);
            }
        }
        "method_reference" => {
            if let Some(first) = node.named_child(0)
                && first.kind() == "identifier"
            {
                simple.insert(node_text(first, src));
            }
        }
        _ => {}
    }
}

/// Records `HttpServer.create(..)` and `createContext(path, handler)` calls.
fn registration(node: Node, src: &[u8], file: &mut JavaFile) {
    let name = node
        .field("name")
        .map(|n| node_text(n, src))
        .unwrap_or_default();
    let object = node
        .field("object")
        .map(|n| node_text(n, src))
        .unwrap_or_default();
    if name == "create" && object.ends_with("HttpServer") {
        file.creates_http_server = true;
    }
    if name != "createContext" {
        return;
    }
    let Some(args) = node.field("arguments") else {
        return;
    };
    let mut c = args.walk();
    let list: Vec<Node> = args
        .named_children(&mut c)
        .filter(|n| n.kind() != "comment")
        .collect();
    let Some(path) = list.first() else {
        return;
    };
    let handler = match list.get(1) {
        Some(h) => handler_expr(*h, src),
        None => HandlerExpr::Other(String::new()),
    };
    file.contexts.push(ContextRegistration {
        path: expr_of(*path, src),
        handler,
        line: line_of(node),
    });
}

fn handler_expr(node: Node, src: &[u8]) -> HandlerExpr {
    match node.kind() {
        "object_creation_expression" => match node.field("type") {
            Some(t) => HandlerExpr::Type(type_ref(t, src).name),
            None => HandlerExpr::Other(node_text(node, src).to_string()),
        },
        "identifier" => {
            let name = node_text(node, src);
            match variable_type(node, name, src) {
                Some(t) => HandlerExpr::Type(t),
                None => HandlerExpr::Other(name.to_string()),
            }
        }
        "method_reference" => {
            let text = node_text(node, src);
            match text.split_once("::") {
                Some((target, method)) => HandlerExpr::MethodRef {
                    target: target.trim().to_string(),
                    method: method.trim().to_string(),
                },
                None => HandlerExpr::Other(text.to_string()),
            }
        }
        "lambda_expression" => match node.field("body") {
            Some(b) => HandlerExpr::Lambda {
                leaves: dispatch_of(b, src),
                calls: unqualified_calls(b, src),
            },
            None => HandlerExpr::Lambda {
                leaves: Vec::new(),
                calls: Vec::new(),
            },
        },
        "parenthesized_expression" | "cast_expression" => match node.field("value") {
            Some(v) => handler_expr(v, src),
            None => match node.named_child(0) {
                Some(v) => handler_expr(v, src),
                None => HandlerExpr::Other(node_text(node, src).to_string()),
            },
        },
        _ => HandlerExpr::Other(node_text(node, src).to_string()),
    }
}

/// The type of variable `name` as seen from `at`: the `new X()` it is initialised with, or
/// its declared type. Looks at enclosing blocks' locals, then fields of enclosing classes.
fn variable_type(at: Node, name: &str, src: &[u8]) -> Option<String> {
    let mut scope = at.parent();
    while let Some(s) = scope {
        let mut c = s.walk();
        for child in s.named_children(&mut c) {
            if !matches!(
                child.kind(),
                "local_variable_declaration" | "field_declaration"
            ) {
                continue;
            }
            let mut c2 = child.walk();
            for d in child.children_by_field_name("declarator", &mut c2) {
                let matches_name = d.field("name").is_some_and(|n| node_text(n, src) == name);
                if !matches_name {
                    continue;
                }
                if let Some(v) = d.field("value")
                    && v.kind() == "object_creation_expression"
                    && let Some(t) = v.field("type")
                {
                    return Some(type_ref(t, src).name);
                }
                return child
                    .field("type")
                    .map(|t| type_ref(t, src).name)
                    .filter(|t| t != "var");
            }
        }
        scope = s.parent();
    }
    None
}
