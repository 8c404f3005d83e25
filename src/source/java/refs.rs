//! Referenced names and `createContext` registrations: one cursor walk over a file.

use super::dispatch::{dispatch_of, unqualified_calls};
use super::expr::expr_of;
use super::fields::FieldExt;
use super::parse::{line_of, node_text, type_ref};
use super::{ContextRegistration, HandlerExpr, JavaFile, RouteRegistration};
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
        route_registration(node, name, src, file);
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

const VERBS: [&str; 7] = ["GET", "POST", "PUT", "DELETE", "PATCH", "HEAD", "OPTIONS"];

/// The HTTP method an argument names: `"GET"`, `HandlerType.GET`, `Method.GET`.
fn verb_arg(node: Node, src: &[u8]) -> Option<String> {
    let t = node_text(node, src).trim_matches('"');
    let last = t.rsplit('.').next().unwrap_or(t).to_ascii_uppercase();
    let shaped = matches!(
        node.kind(),
        "string_literal" | "field_access" | "identifier"
    );
    (shaped && VERBS.contains(&last.as_str())).then_some(last)
}

/// Records `x.get("/p", handler)` / `get("/p", handler)` and `x.add("GET", "/p", handler)`
/// where the handler is a method reference or a lambda. The path must later resolve to a
/// string starting with `/` (so `cache.get(key, k -> ..)` is not a route).
fn route_registration(node: Node, name: &str, src: &[u8], file: &mut JavaFile) {
    let Some(args) = node.field("arguments") else {
        return;
    };
    let mut c = args.walk();
    let list: Vec<Node> = args
        .named_children(&mut c)
        .filter(|n| !n.kind().ends_with("comment"))
        .collect();
    let Some(last) = list.last() else {
        return;
    };
    if !matches!(last.kind(), "method_reference" | "lambda_expression") {
        return;
    }
    let upper = name.to_ascii_uppercase();
    let (method, path) = match list.as_slice() {
        [path, _] if VERBS.contains(&upper.as_str()) => (upper, *path),
        [verb, path, _] => match verb_arg(*verb, src) {
            Some(v) => (v, *path),
            None => return,
        },
        _ => return,
    };
    // A literal path, or a constant (`EVENTS`, `Paths.EVENTS`, `BASE + "/x"`).
    let text = node_text(path, src);
    let pathlike = match path.kind() {
        "string_literal" => text.starts_with("\"/"),
        "identifier" => text.chars().all(|c| c.is_ascii_uppercase() || c == '_'),
        "field_access" | "binary_expression" => true,
        _ => false,
    };
    if !pathlike {
        return;
    }
    let mut enclosing = None;
    let mut up = node.parent();
    while let Some(n) = up {
        if matches!(n.kind(), "method_declaration" | "constructor_declaration") {
            enclosing = n.field("name").map(|x| node_text(x, src).to_string());
            break;
        }
        up = n.parent();
    }
    let handler = match handler_expr(*last, src) {
        // `tasks::list` on a local or field: the variable's type is the target.
        HandlerExpr::MethodRef { target, method: m }
            if target.starts_with(|c: char| c.is_ascii_lowercase()) && target != "this" =>
        {
            HandlerExpr::MethodRef {
                target: variable_type(*last, &target, src).unwrap_or(target),
                method: m,
            }
        }
        h => h,
    };
    file.registered.push(RouteRegistration {
        method,
        path: expr_of(path, src),
        handler,
        line: line_of(*last),
        enclosing,
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
