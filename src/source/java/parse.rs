//! The tree-sitter walk that turns one Java file into a [`JavaFile`] summary.

use super::dispatch::{dispatch_of, unqualified_calls};
use super::expr::expr_of;
use super::fields::FieldExt;
use super::refs::collect_refs;
use super::{Annotation, Field, Import, JavaFile, Method, Param, TypeDecl, TypeKind, TypeRef};
use tree_sitter::{Node, Parser};

/// A parser set up for Java.
pub(crate) fn new_parser() -> Parser {
    let mut parser = Parser::new();
    parser
        .set_language(&tree_sitter_java::LANGUAGE.into())
        .expect("the bundled tree-sitter-java grammar matches the tree-sitter runtime");
    parser
}

/// Parses `text` and summarises it; a file that fails to parse at all yields an empty
/// summary with a syntax error on line 1.
pub(super) fn summarise(parser: &mut Parser, path: &str, text: &str) -> JavaFile {
    let line_count = text.lines().count();
    let mut file = JavaFile {
        path: path.to_string(),
        package: None,
        imports: Vec::new(),
        types: Vec::new(),
        simple_refs: Vec::new(),
        qualified_refs: Vec::new(),
        contexts: Vec::new(),
        registered: Vec::new(),
        creates_http_server: false,
        line_count,
        syntax_error_line: None,
        skipped: None,
    };
    let Some(tree) = parser.parse(text, None) else {
        file.syntax_error_line = Some(1);
        return file;
    };
    let root = tree.root_node();
    if let Some(why) = super::depth::too_deep(root) {
        file.skipped = Some(why);
        return file;
    }
    let src = text.as_bytes();
    if root.has_error() {
        file.syntax_error_line = Some(first_error_line(root));
    }
    // Dispatch chains and call lists only matter for JDK handlers: skip the extra walks
    // elsewhere.
    let jdk = ["HttpExchange", "createContext", "httpserver"]
        .iter()
        .any(|k| text.contains(k));
    let mut cursor = root.walk();
    for child in root.named_children(&mut cursor) {
        match child.kind() {
            "package_declaration" => {
                let mut c = child.walk();
                file.package = child
                    .named_children(&mut c)
                    .find(|n| matches!(n.kind(), "identifier" | "scoped_identifier"))
                    .map(|n| node_text(n, src).to_string());
            }
            "import_declaration" => {
                let mut c = child.walk();
                let mut import = Import {
                    path: String::new(),
                    is_static: false,
                    wildcard: false,
                };
                for part in child.children(&mut c) {
                    match part.kind() {
                        "static" => import.is_static = true,
                        "asterisk" => import.wildcard = true,
                        "identifier" | "scoped_identifier" => {
                            import.path = node_text(part, src).to_string()
                        }
                        _ => {}
                    }
                }
                if !import.path.is_empty() {
                    file.imports.push(import);
                }
            }
            k if is_type_decl(k) => type_decl(child, src, jdk, None, "", &mut file.types),
            _ => {}
        }
    }
    collect_refs(root, src, &mut file);
    file
}

pub(super) fn node_text<'a>(node: Node, src: &'a [u8]) -> &'a str {
    node.utf8_text(src).unwrap_or_default()
}

pub(super) fn line_of(node: Node) -> usize {
    node.start_position().row + 1
}

fn first_error_line(node: Node) -> usize {
    if node.is_error() || node.is_missing() {
        return line_of(node);
    }
    let mut cursor = node.walk();
    for child in node.children(&mut cursor) {
        if child.is_error() || child.is_missing() || child.has_error() {
            return first_error_line(child);
        }
    }
    line_of(node)
}

fn is_type_decl(kind: &str) -> bool {
    matches!(
        kind,
        "class_declaration"
            | "interface_declaration"
            | "enum_declaration"
            | "record_declaration"
            | "annotation_type_declaration"
    )
}

/// Annotations and keyword modifiers of a declaration.
struct Modifiers {
    annotations: Vec<Annotation>,
    keywords: Vec<String>,
}

fn modifiers_of(decl: Node, src: &[u8]) -> Modifiers {
    let mut out = Modifiers {
        annotations: Vec::new(),
        keywords: Vec::new(),
    };
    let mut cursor = decl.walk();
    for child in decl.children(&mut cursor) {
        if child.kind() != "modifiers" {
            continue;
        }
        let mut c = child.walk();
        for m in child.children(&mut c) {
            match m.kind() {
                "marker_annotation" | "annotation" => out.annotations.push(annotation_of(m, src)),
                _ => out.keywords.push(node_text(m, src).to_string()),
            }
        }
    }
    out
}

fn annotation_of(node: Node, src: &[u8]) -> Annotation {
    let name = node
        .field("name")
        .map(|n| node_text(n, src).to_string())
        .unwrap_or_default();
    let mut args = Vec::new();
    if let Some(list) = node.field("arguments") {
        let mut c = list.walk();
        for arg in list.named_children(&mut c) {
            match arg.kind() {
                "element_value_pair" => {
                    let key = arg.field("key").map(|k| node_text(k, src));
                    if let (Some(key), Some(value)) = (key, arg.field("value")) {
                        args.push((key.to_string(), expr_of(value, src)));
                    }
                }
                "comment" => {}
                _ => args.push(("value".to_string(), expr_of(arg, src))),
            }
        }
    }
    Annotation { name, args }
}

/// Erased type name and generic arguments of a type node.
pub(super) fn type_ref(node: Node, src: &[u8]) -> TypeRef {
    match node.kind() {
        "generic_type" => {
            let mut c = node.walk();
            let mut name = String::new();
            let mut args = Vec::new();
            for child in node.named_children(&mut c) {
                match child.kind() {
                    "type_arguments" => {
                        let mut c2 = child.walk();
                        args = child
                            .named_children(&mut c2)
                            .map(|a| type_ref(a, src).name)
                            .collect();
                    }
                    _ => name = type_ref(child, src).name,
                }
            }
            TypeRef { name, args }
        }
        "array_type" => match node.field("element") {
            Some(e) => {
                let inner = type_ref(e, src);
                TypeRef {
                    name: format!("{}[]", inner.name),
                    args: inner.args,
                }
            }
            None => plain_type(node, src),
        },
        "scoped_type_identifier" => {
            let text = node_text(node, src);
            if text.contains('<') || text.contains('@') {
                let parts: Vec<String> = {
                    let mut c = node.walk();
                    node.named_children(&mut c)
                        .map(|n| type_ref(n, src).name)
                        .collect()
                };
                TypeRef {
                    name: parts.join("."),
                    args: Vec::new(),
                }
            } else {
                plain_type(node, src)
            }
        }
        _ => plain_type(node, src),
    }
}

fn plain_type(node: Node, src: &[u8]) -> TypeRef {
    TypeRef {
        name: node_text(node, src).split_whitespace().collect(),
        args: Vec::new(),
    }
}

fn type_list(node: Node, src: &[u8]) -> Vec<TypeRef> {
    let mut out = Vec::new();
    let mut c = node.walk();
    for child in node.named_children(&mut c) {
        if child.kind() == "type_list" {
            let mut c2 = child.walk();
            out.extend(child.named_children(&mut c2).map(|t| type_ref(t, src)));
        }
    }
    out
}

fn type_decl(
    node: Node,
    src: &[u8],
    jdk: bool,
    outer: Option<usize>,
    prefix: &str,
    out: &mut Vec<TypeDecl>,
) {
    let kind = match node.kind() {
        "interface_declaration" => TypeKind::Interface,
        "enum_declaration" => TypeKind::Enum,
        "record_declaration" => TypeKind::Record,
        "annotation_type_declaration" => TypeKind::Annotation,
        _ => TypeKind::Class,
    };
    let name = node
        .field("name")
        .map(|n| node_text(n, src).to_string())
        .unwrap_or_default();
    let nested_name = if prefix.is_empty() {
        name.clone()
    } else {
        format!("{prefix}.{name}")
    };
    let mods = modifiers_of(node, src);
    let type_params = node
        .field("type_parameters")
        .map(|tp| {
            let mut c = tp.walk();
            tp.named_children(&mut c)
                .filter_map(|p| {
                    let mut c2 = p.walk();
                    p.named_children(&mut c2)
                        .find(|n| matches!(n.kind(), "type_identifier" | "identifier"))
                        .map(|n| node_text(n, src).to_string())
                })
                .collect()
        })
        .unwrap_or_default();
    let superclass = node.field("superclass").and_then(|s| {
        let mut c = s.walk();
        s.named_children(&mut c).next().map(|t| type_ref(t, src))
    });
    let mut interfaces = node
        .field("interfaces")
        .map(|i| type_list(i, src))
        .unwrap_or_default();
    {
        let mut c = node.walk();
        for child in node.named_children(&mut c) {
            if child.kind() == "extends_interfaces" {
                interfaces.extend(type_list(child, src));
            }
        }
    }
    let index = out.len();
    out.push(TypeDecl {
        name,
        nested_name: nested_name.clone(),
        kind,
        outer,
        is_abstract: mods.keywords.iter().any(|k| k == "abstract") || kind == TypeKind::Interface,
        annotations: mods.annotations,
        type_params,
        superclass,
        interfaces,
        fields: Vec::new(),
        methods: Vec::new(),
        line: line_of(node),
    });
    let Some(body) = node.field("body") else {
        return;
    };
    let in_interface = matches!(kind, TypeKind::Interface | TypeKind::Annotation);
    let mut members = Vec::new();
    {
        let mut c = body.walk();
        for child in body.named_children(&mut c) {
            if child.kind() == "enum_body_declarations" {
                let mut c2 = child.walk();
                members.extend(child.named_children(&mut c2));
            } else {
                members.push(child);
            }
        }
    }
    for member in members {
        match member.kind() {
            "field_declaration" | "constant_declaration" => {
                let fields = fields_of(member, src, in_interface);
                out[index].fields.extend(fields);
            }
            "method_declaration"
            | "constructor_declaration"
            | "compact_constructor_declaration"
            | "annotation_type_element_declaration" => {
                let m = method_of(member, src, in_interface, jdk);
                out[index].methods.push(m);
            }
            k if is_type_decl(k) => type_decl(member, src, jdk, Some(index), &nested_name, out),
            _ => {}
        }
    }
}

fn fields_of(node: Node, src: &[u8], in_interface: bool) -> Vec<Field> {
    let mods = modifiers_of(node, src);
    let ty = node
        .field("type")
        .map(|t| type_ref(t, src).name)
        .unwrap_or_default();
    let is_static = in_interface || mods.keywords.iter().any(|k| k == "static");
    let is_final = in_interface || mods.keywords.iter().any(|k| k == "final");
    let mut c = node.walk();
    node.children_by_field_name("declarator", &mut c)
        .filter_map(|d| {
            let name = d.field("name")?;
            Some(Field {
                name: node_text(name, src).to_string(),
                ty: ty.clone(),
                is_static,
                is_final,
                value: d.field("value").map(|v| expr_of(v, src)),
                annotations: mods.annotations.clone(),
                line: line_of(d),
            })
        })
        .collect()
}

fn method_of(node: Node, src: &[u8], in_interface: bool, jdk: bool) -> Method {
    let mods = modifiers_of(node, src);
    let is_constructor = node.kind().contains("constructor");
    let name = node
        .field("name")
        .map(|n| node_text(n, src).to_string())
        .unwrap_or_default();
    let line = node
        .field("name")
        .map(line_of)
        .unwrap_or_else(|| line_of(node));
    let mut params = Vec::new();
    if let Some(list) = node.field("parameters") {
        let mut c = list.walk();
        for p in list.named_children(&mut c) {
            match p.kind() {
                "formal_parameter" | "receiver_parameter" => {
                    params.push(Param {
                        name: p
                            .field("name")
                            .map(|n| node_text(n, src).to_string())
                            .unwrap_or_default(),
                        ty: p
                            .field("type")
                            .map(|t| type_ref(t, src).name)
                            .unwrap_or_default(),
                        annotations: modifiers_of(p, src).annotations,
                    });
                }
                "spread_parameter" => {
                    let mut c2 = p.walk();
                    let mut ty = String::new();
                    let mut pname = String::new();
                    for part in p.named_children(&mut c2) {
                        match part.kind() {
                            "variable_declarator" => {
                                pname = part
                                    .field("name")
                                    .map(|n| node_text(n, src).to_string())
                                    .unwrap_or_default()
                            }
                            "modifiers" => {}
                            _ => ty = format!("{}...", type_ref(part, src).name),
                        }
                    }
                    params.push(Param {
                        name: pname,
                        ty,
                        annotations: modifiers_of(p, src).annotations,
                    });
                }
                _ => {}
            }
        }
    }
    let body = node.field("body");
    let (dispatch, calls, path_view) = match body {
        Some(b) if jdk => (
            dispatch_of(b, src),
            unqualified_calls(b, src),
            super::helper::path_view_of(b, src),
        ),
        _ => (Vec::new(), Vec::new(), None),
    };
    Method {
        name,
        annotations: mods.annotations,
        params,
        return_type: if is_constructor {
            None
        } else {
            node.field("type").map(|t| type_ref(t, src).name)
        },
        is_constructor,
        is_abstract: body.is_none()
            && (in_interface || mods.keywords.iter().any(|k| k == "abstract")),
        line,
        start_line: line_of(node),
        end_line: node.end_position().row + 1,
        dispatch,
        calls,
        path_view,
    }
}
