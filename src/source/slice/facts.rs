//! What the slicer needs to know about one file beyond the scan's summary: the line span
//! of every member (leading comments included) and, per member, the calls it makes, the
//! types it names and the types of its locals. One tree-sitter parse per file; nothing of
//! tree-sitter leaves this module.

use crate::source::java::new_parser;
use tree_sitter::Node;

/// Arity of a method reference (`X::m`): any overload may be meant.
pub const ANY_ARITY: usize = usize::MAX;

/// How a call names its receiver.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Recv {
    /// `m()`: this class, an enclosing one, or a static import.
    Implicit,
    This,
    Super,
    /// `x.m()`: a local, a field or a type.
    Name(String),
    /// `r.f.m()` / `this.f.m()`.
    FieldOf(Box<Recv>, String),
    /// `r.a(..).m()`.
    Call(Box<Call>),
    /// `new T(..).m()`.
    New(String),
    /// Anything else (array access, casts, literals).
    Other,
}

/// One method invocation or method reference.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Call {
    pub recv: Recv,
    pub name: String,
    /// Argument count, or [`ANY_ARITY`] for a method reference.
    pub argc: usize,
}

/// What a member's text refers to.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Uses {
    pub calls: Vec<Call>,
    /// Type names as written (erased: `Map`, `Pet`, `a.b.C`), deduplicated.
    pub types: Vec<String>,
    /// Locals, parameters, loop and catch variables: name → type as written.
    pub locals: Vec<(String, String)>,
}

/// The kind of a type member.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MemberKind {
    Field,
    Method,
    Constructor,
    /// Static or instance initializer block.
    Initializer,
    EnumConstant,
}

/// One member of a type, with the lines it spans.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Member {
    pub kind: MemberKind,
    pub name: String,
    /// Parameter count (methods and constructors); 0 otherwise.
    pub arity: usize,
    pub varargs: bool,
    pub is_abstract: bool,
    /// Line of the member's name.
    pub name_line: usize,
    /// First line (leading comments and annotations included) and last line, 1-based.
    pub start: usize,
    pub end: usize,
    /// Annotations as written (`@ExceptionHandler(X.class)`).
    pub annotations: Vec<String>,
    /// Parameter types as written (erased).
    pub param_types: Vec<String>,
    pub return_type: Option<String>,
    pub uses: Uses,
}

/// A type declaration: its header, its closing line and its members.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TypeFacts {
    /// `Outer.Inner` for nested types, as in the scan's `TypeDecl::nested_name`.
    pub nested_name: String,
    /// First line (leading comments included) through the line of the body's `{`.
    pub header: (usize, usize),
    /// Line of the body's closing `}`.
    pub close: usize,
    /// Type names the declaration's own annotations and supertypes name
    /// (`@RequestMapping(ApiPaths.PRODUCTS)`).
    pub header_types: Vec<String>,
    pub members: Vec<Member>,
}

/// Facts of one file.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FileFacts {
    /// Lines of the package and import declarations.
    pub preamble: Vec<(usize, usize)>,
    pub types: Vec<TypeFacts>,
}

impl FileFacts {
    /// The type with nested name `nested`.
    pub fn ty(&self, nested: &str) -> Option<&TypeFacts> {
        self.types.iter().find(|t| t.nested_name == nested)
    }
}

/// Parses `text` and collects its facts. A file that does not parse yields what the
/// parser recovered.
pub fn file_facts(text: &str) -> FileFacts {
    let mut parser = new_parser();
    let Some(tree) = parser.parse(text, None) else {
        return FileFacts::default();
    };
    let src = text.as_bytes();
    let mut out = FileFacts::default();
    let root = tree.root_node();
    // Too deep to walk: no facts (the scan reports the file as skipped).
    if crate::source::java::depth::too_deep(root).is_some() {
        return out;
    }
    let mut c = root.walk();
    for child in root.named_children(&mut c) {
        match child.kind() {
            "package_declaration" | "import_declaration" => out.preamble.push(span(child)),
            k if is_type_decl(k) => type_facts(child, src, "", &mut out.types),
            _ => {}
        }
    }
    out
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

fn line(n: Node) -> usize {
    n.start_position().row + 1
}

fn span(n: Node) -> (usize, usize) {
    (line(n), n.end_position().row + 1)
}

fn text<'a>(n: Node, src: &'a [u8]) -> &'a str {
    n.utf8_text(src).unwrap_or_default()
}

/// First line of `node` including the comments directly above it.
fn start_with_comments(node: Node) -> usize {
    let mut start = line(node);
    let mut prev = node.prev_sibling();
    while let Some(p) = prev {
        if !matches!(p.kind(), "line_comment" | "block_comment") || p.end_position().row + 2 < start
        {
            break;
        }
        start = line(p);
        prev = p.prev_sibling();
    }
    start
}

fn type_facts(node: Node, src: &[u8], outer: &str, out: &mut Vec<TypeFacts>) {
    let name = node
        .child_by_field_name("name")
        .map_or("", |n| text(n, src));
    let nested = if outer.is_empty() {
        name.to_string()
    } else {
        format!("{outer}.{name}")
    };
    let Some(body) = node.child_by_field_name("body") else {
        return;
    };
    let slot = out.len();
    let mut header_uses = Uses::default();
    let mut c = node.walk();
    for child in node.children(&mut c) {
        if child.kind() == "modifiers" {
            collect_uses(child, src, &mut header_uses);
        }
    }
    finish(&mut header_uses);
    out.push(TypeFacts {
        nested_name: nested.clone(),
        header: (start_with_comments(node), line(body)),
        close: body.end_position().row + 1,
        header_types: header_uses.types,
        members: Vec::new(),
    });
    let mut members = Vec::new();
    // Record components are fields of the record.
    if let Some(params) = node.child_by_field_name("parameters") {
        let mut c = params.walk();
        for p in params.named_children(&mut c) {
            if let Some(n) = p.child_by_field_name("name") {
                members.push(simple_member(MemberKind::Field, text(n, src), p, src));
            }
        }
    }
    body_members(body, src, &nested, &mut members, out);
    out[slot].members = members;
}

fn body_members(
    body: Node,
    src: &[u8],
    nested: &str,
    members: &mut Vec<Member>,
    out: &mut Vec<TypeFacts>,
) {
    let mut c = body.walk();
    for m in body.named_children(&mut c) {
        match m.kind() {
            "field_declaration" | "constant_declaration" => {
                let mut c2 = m.walk();
                let names: Vec<String> = m
                    .children_by_field_name("declarator", &mut c2)
                    .filter_map(|d| d.child_by_field_name("name"))
                    .map(|n| text(n, src).to_string())
                    .collect();
                for n in names {
                    members.push(simple_member(MemberKind::Field, &n, m, src));
                }
            }
            "enum_constant" => {
                let n = m.child_by_field_name("name").map_or("", |n| text(n, src));
                members.push(simple_member(MemberKind::EnumConstant, n, m, src));
            }
            "enum_body_declarations" => body_members(m, src, nested, members, out),
            "method_declaration"
            | "constructor_declaration"
            | "compact_constructor_declaration"
            | "annotation_type_element_declaration" => members.push(method_member(m, src)),
            "static_initializer" | "block" => {
                members.push(simple_member(MemberKind::Initializer, "", m, src))
            }
            k if is_type_decl(k) => type_facts(m, src, nested, out),
            _ => {}
        }
    }
}

fn simple_member(kind: MemberKind, name: &str, node: Node, src: &[u8]) -> Member {
    let mut uses = Uses::default();
    collect_uses(node, src, &mut uses);
    finish(&mut uses);
    Member {
        kind,
        name: name.to_string(),
        arity: 0,
        varargs: false,
        is_abstract: false,
        name_line: node.child_by_field_name("name").map_or(line(node), line),
        start: start_with_comments(node),
        end: node.end_position().row + 1,
        annotations: annotations(node, src),
        param_types: Vec::new(),
        return_type: node
            .child_by_field_name("type")
            .map(|t| erase(text(t, src))),
        uses,
    }
}

fn method_member(node: Node, src: &[u8]) -> Member {
    let kind = if node.kind().starts_with("method") || node.kind().starts_with("annotation") {
        MemberKind::Method
    } else {
        MemberKind::Constructor
    };
    let name = node
        .child_by_field_name("name")
        .map_or("", |n| text(n, src));
    let mut m = simple_member(kind, name, node, src);
    m.return_type = node
        .child_by_field_name("type")
        .map(|t| erase(text(t, src)));
    m.is_abstract = node.child_by_field_name("body").is_none();
    if let Some(params) = node.child_by_field_name("parameters") {
        let mut c = params.walk();
        for p in params.named_children(&mut c) {
            match p.kind() {
                "formal_parameter" => {
                    m.arity += 1;
                    if let Some(t) = p.child_by_field_name("type") {
                        m.param_types.push(erase(text(t, src)));
                    }
                }
                "spread_parameter" => {
                    m.arity += 1;
                    m.varargs = true;
                }
                _ => {}
            }
        }
    }
    m
}

/// Annotations of a declaration's modifiers, as written.
fn annotations(node: Node, src: &[u8]) -> Vec<String> {
    let mut out = Vec::new();
    let mut c = node.walk();
    for child in node.children(&mut c) {
        if child.kind() == "modifiers" {
            let mut c2 = child.walk();
            for a in child.named_children(&mut c2) {
                if matches!(a.kind(), "annotation" | "marker_annotation") {
                    out.push(text(a, src).to_string());
                }
            }
        }
    }
    out
}

/// `Map<String, Pet>` → `Map`, `Pet[]` → `Pet`.
pub fn erase(written: &str) -> String {
    written
        .split('<')
        .next()
        .unwrap_or(written)
        .trim_end_matches("...")
        .trim_end_matches("[]")
        .trim()
        .to_string()
}

fn finish(uses: &mut Uses) {
    uses.types.sort();
    uses.types.dedup();
}

/// Walks `node` (nested type declarations excluded: they are members of their own).
fn collect_uses(node: Node, src: &[u8], uses: &mut Uses) {
    let mut cursor = node.walk();
    'walk: loop {
        let n = cursor.node();
        let nested_type = n.id() != node.id() && is_type_decl(n.kind());
        if !nested_type {
            visit(n, src, uses);
        }
        if !nested_type && cursor.goto_first_child() {
            continue;
        }
        loop {
            if cursor.node().id() == node.id() {
                break 'walk;
            }
            if cursor.goto_next_sibling() {
                continue 'walk;
            }
            if !cursor.goto_parent() {
                break 'walk;
            }
        }
    }
}

fn visit(n: Node, src: &[u8], uses: &mut Uses) {
    match n.kind() {
        "type_identifier" | "scoped_type_identifier" => {
            let parent_scoped = n
                .parent()
                .is_some_and(|p| p.kind() == "scoped_type_identifier");
            if !parent_scoped {
                uses.types.push(text(n, src).to_string());
            }
        }
        // `Paths.ROOT`: a constant of another class (a capitalised qualifier).
        "field_access" => {
            if let Some(o) = n.child_by_field_name("object")
                && o.kind() == "identifier"
                && text(o, src).starts_with(|c: char| c.is_ascii_uppercase())
            {
                uses.types.push(text(o, src).to_string());
            }
        }
        "method_invocation" => {
            if let Some(call) = call_of(n, src) {
                uses.calls.push(call);
            }
        }
        "method_reference" => {
            let mut c = n.walk();
            let kids: Vec<Node> = n.named_children(&mut c).collect();
            if let (Some(first), Some(last)) = (kids.first(), kids.last())
                && kids.len() >= 2
                && last.kind() == "identifier"
            {
                uses.calls.push(Call {
                    recv: recv_of(*first, src),
                    name: text(*last, src).to_string(),
                    argc: ANY_ARITY,
                });
            }
        }
        "local_variable_declaration" | "field_declaration" => {
            if let Some(t) = n.child_by_field_name("type") {
                let ty = erase(text(t, src));
                let mut c = n.walk();
                for d in n.children_by_field_name("declarator", &mut c) {
                    if let Some(name) = d.child_by_field_name("name") {
                        uses.locals.push((text(name, src).to_string(), ty.clone()));
                    }
                }
            }
        }
        "formal_parameter" | "enhanced_for_statement" | "spread_parameter" => {
            let ty = n.child_by_field_name("type").or_else(|| {
                let mut c = n.walk();
                n.named_children(&mut c)
                    .find(|k| k.kind().ends_with("type") || k.kind() == "type_identifier")
            });
            let name = n.child_by_field_name("name").or_else(|| {
                let mut c = n.walk();
                n.named_children(&mut c)
                    .find(|k| k.kind() == "variable_declarator")
                    .and_then(|d| d.child_by_field_name("name"))
            });
            if let (Some(t), Some(name)) = (ty, name) {
                uses.locals
                    .push((text(name, src).to_string(), erase(text(t, src))));
            }
        }
        "catch_formal_parameter" => {
            let mut c = n.walk();
            let ty = n
                .named_children(&mut c)
                .find(|k| k.kind() == "catch_type")
                .and_then(|k| k.named_child(0));
            if let (Some(t), Some(name)) = (ty, n.child_by_field_name("name")) {
                uses.locals
                    .push((text(name, src).to_string(), erase(text(t, src))));
            }
        }
        _ => {}
    }
}

fn call_of(n: Node, src: &[u8]) -> Option<Call> {
    let name = text(n.child_by_field_name("name")?, src).to_string();
    let argc = n.child_by_field_name("arguments").map_or(0, |a| {
        let mut c = a.walk();
        a.named_children(&mut c)
            .filter(|k| !matches!(k.kind(), "line_comment" | "block_comment"))
            .count()
    });
    let recv = match n.child_by_field_name("object") {
        None => Recv::Implicit,
        Some(o) => recv_of(o, src),
    };
    Some(Call { recv, name, argc })
}

fn recv_of(o: Node, src: &[u8]) -> Recv {
    match o.kind() {
        "this" => Recv::This,
        "super" => Recv::Super,
        "identifier" | "type_identifier" => Recv::Name(text(o, src).to_string()),
        "field_access" => match (
            o.child_by_field_name("object"),
            o.child_by_field_name("field"),
        ) {
            (Some(obj), Some(f)) => Recv::FieldOf(Box::new(recv_of(obj, src)), text(f, src).into()),
            _ => Recv::Other,
        },
        "scoped_identifier" | "scoped_type_identifier" => {
            // `a.b.C` (a type) or `x.f` read as a name chain: the last part on the rest.
            let t = text(o, src);
            match t.rsplit_once('.') {
                Some((head, last)) => Recv::FieldOf(Box::new(Recv::Name(head.into())), last.into()),
                None => Recv::Name(t.into()),
            }
        }
        "method_invocation" => call_of(o, src).map_or(Recv::Other, |c| Recv::Call(Box::new(c))),
        "object_creation_expression" => o
            .child_by_field_name("type")
            .map_or(Recv::Other, |t| Recv::New(erase(text(t, src)))),
        "parenthesized_expression" => o.named_child(0).map_or(Recv::Other, |i| recv_of(i, src)),
        "generic_type" => o
            .named_child(0)
            .map_or(Recv::Other, |t| Recv::Name(erase(text(t, src)))),
        _ => Recv::Other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn members_spans_and_calls() {
        let src = "package p;\nimport a.B;\n\n/** doc */\n@Ann\nclass C {\n  private final B b;\n  // says hi\n  C(B b) { this.b = b; }\n  int m(String s) {\n    Pet pet = b.find(s);\n    return this.b.count() + helper(pet::go) + Util.twice(new Q().v());\n  }\n  enum E { X, Y }\n}\n";
        let f = file_facts(src);
        assert_eq!(f.preamble, [(1, 1), (2, 2)]);
        let c = f.ty("C").unwrap();
        assert_eq!(c.header, (4, 6));
        assert_eq!(c.close, 15);
        let kinds: Vec<(MemberKind, &str, usize, usize)> = c
            .members
            .iter()
            .map(|m| (m.kind, m.name.as_str(), m.start, m.end))
            .collect();
        assert_eq!(
            kinds,
            [
                (MemberKind::Field, "b", 7, 7),
                (MemberKind::Constructor, "C", 8, 9),
                (MemberKind::Method, "m", 10, 13),
            ]
        );
        let m = &c.members[2];
        assert_eq!(m.arity, 1);
        assert!(m.uses.locals.contains(&("pet".into(), "Pet".into())));
        assert!(m.uses.locals.contains(&("s".into(), "String".into())));
        let calls: Vec<(&Recv, &str, usize)> = m
            .uses
            .calls
            .iter()
            .map(|c| (&c.recv, c.name.as_str(), c.argc))
            .collect();
        assert!(calls.contains(&(&Recv::Name("b".into()), "find", 1)));
        assert!(calls.contains(&(&Recv::FieldOf(Box::new(Recv::This), "b".into()), "count", 0)));
        assert!(calls.contains(&(&Recv::Implicit, "helper", 1)));
        assert!(calls.contains(&(&Recv::Name("pet".into()), "go", ANY_ARITY)));
        assert!(calls.contains(&(&Recv::Name("Util".into()), "twice", 1)));
        assert!(calls.contains(&(&Recv::New("Q".into()), "v", 0)));
        let e = f.ty("C.E").unwrap();
        assert_eq!(e.members.len(), 2);
        assert_eq!(e.members[0].kind, MemberKind::EnumConstant);
    }
}
