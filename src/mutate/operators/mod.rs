//! Mutation operators on Java source, found with tree-sitter-java.
//!
//! PITest's defaults (conditionals boundary, negate conditionals, math, increments,
//! return values, void method calls, inline constants) plus the REST-specific operators
//! PITest lacks, which MASTOR's threats to validity name as the gap: HTTP status swaps,
//! removal of a response field's write, removal of a thrown validation exception, and a
//! swap of two same-typed arguments. Each operator yields text edits (a byte range and
//! its replacement); nothing here reads files, builds or runs anything.

mod expressions;
mod rest;
mod statements;

use serde::{Deserialize, Serialize};
use tree_sitter::{Node, Parser, Tree};

/// A mutation operator, serialised by the snake_case names the reports use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Operator {
    ConditionalsBoundary,
    NegateConditionals,
    Math,
    Increments,
    ReturnValues,
    VoidCall,
    InlineConstant,
    StatusSwap,
    RemoveFieldWrite,
    RemoveThrow,
    SwapArguments,
}

impl Operator {
    /// Every operator, in report order.
    pub const ALL: [Operator; 11] = [
        Operator::ConditionalsBoundary,
        Operator::NegateConditionals,
        Operator::Math,
        Operator::Increments,
        Operator::ReturnValues,
        Operator::VoidCall,
        Operator::InlineConstant,
        Operator::StatusSwap,
        Operator::RemoveFieldWrite,
        Operator::RemoveThrow,
        Operator::SwapArguments,
    ];

    /// The name used in reports, flags and files.
    pub fn name(self) -> &'static str {
        match self {
            Operator::ConditionalsBoundary => "conditionals_boundary",
            Operator::NegateConditionals => "negate_conditionals",
            Operator::Math => "math",
            Operator::Increments => "increments",
            Operator::ReturnValues => "return_values",
            Operator::VoidCall => "void_call",
            Operator::InlineConstant => "inline_constant",
            Operator::StatusSwap => "status_swap",
            Operator::RemoveFieldWrite => "remove_field_write",
            Operator::RemoveThrow => "remove_throw",
            Operator::SwapArguments => "swap_arguments",
        }
    }
}

impl std::fmt::Display for Operator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for Operator {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        Operator::ALL
            .into_iter()
            .find(|o| o.name() == s)
            .ok_or_else(|| {
                let names: Vec<&str> = Operator::ALL.iter().map(|o| o.name()).collect();
                format!("unknown operator `{s}`; known: {}", names.join(", "))
            })
    }
}

/// One text edit that makes a mutant: replace `start..end` (bytes) with `replacement`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Site {
    pub operator: Operator,
    pub start: usize,
    pub end: usize,
    /// 1-based line and column (in bytes) of `start`.
    pub line: usize,
    pub column: usize,
    pub replacement: String,
}

/// A Java parser with the bundled grammar.
pub fn java_parser() -> Parser {
    let mut parser = Parser::new();
    parser
        .set_language(&tree_sitter_java::LANGUAGE.into())
        .expect("the bundled tree-sitter-java grammar matches the tree-sitter runtime");
    parser
}

/// Parses `text`; `None` when it does not parse cleanly (a file with syntax errors is
/// not mutated: its mutants could not be told apart from the errors).
pub fn parse(parser: &mut Parser, text: &str) -> Option<Tree> {
    let tree = parser.parse(text, None)?;
    (!tree.root_node().has_error()).then_some(tree)
}

/// Every mutation site in one Java file, in source order, without duplicate edits (the
/// first operator in [`Operator::ALL`] order keeps an edit two operators would make).
/// `Err` names why the file was not mutated.
pub fn sites(text: &str) -> Result<Vec<Site>, String> {
    let mut parser = java_parser();
    let tree = parse(&mut parser, text).ok_or("the file does not parse as Java")?;
    if let Some(why) = crate::source::java::depth::too_deep(tree.root_node()) {
        return Err(why);
    }
    let cx = Cx { src: text };
    let mut out = Vec::new();
    let mut stack = vec![tree.root_node()];
    while let Some(node) = stack.pop() {
        if is_annotation(node) {
            continue;
        }
        visit(&cx, node, &mut out);
        let mut cursor = node.walk();
        let children: Vec<Node> = node.children(&mut cursor).collect();
        stack.extend(children.into_iter().rev());
    }
    out.sort_by_key(|s| (s.start, s.operator, s.end));
    let mut seen = std::collections::BTreeSet::new();
    out.retain(|s| seen.insert((s.start, s.end, s.replacement.clone())));
    Ok(out)
}

/// Applies `site` to `text`.
pub fn apply(text: &str, site: &Site) -> String {
    let mut out = String::with_capacity(text.len() + site.replacement.len());
    out.push_str(&text[..site.start]);
    out.push_str(&site.replacement);
    out.push_str(&text[site.end..]);
    out
}

fn visit(cx: &Cx, node: Node, out: &mut Vec<Site>) {
    match node.kind() {
        "binary_expression" => expressions::binary(cx, node, out),
        "update_expression" => expressions::update(cx, node, out),
        "assignment_expression" => expressions::compound_assignment(cx, node, out),
        "if_statement" | "while_statement" | "ternary_expression" => {
            expressions::condition(cx, node, out)
        }
        "decimal_integer_literal" | "true" | "false" => expressions::constant(cx, node, out),
        "return_statement" => statements::return_value(cx, node, out),
        "expression_statement" => statements::call_statement(cx, node, out),
        "throw_statement" => statements::throw_in_guard(cx, node, out),
        "method_invocation" => {
            statements::builder_step(cx, node, out);
            rest::swap_arguments(cx, node, out);
        }
        "field_access" => rest::status_name(cx, node, out),
        _ => {}
    }
}

fn is_annotation(node: Node) -> bool {
    matches!(node.kind(), "annotation" | "marker_annotation")
}

/// The source a visitor reads.
struct Cx<'a> {
    src: &'a str,
}

impl Cx<'_> {
    fn text(&self, node: Node) -> &str {
        &self.src[node.byte_range()]
    }

    fn site(&self, operator: Operator, node: Node, replacement: impl Into<String>) -> Site {
        self.site_range(operator, node.start_byte(), node.end_byte(), replacement)
    }

    fn site_range(
        &self,
        operator: Operator,
        start: usize,
        end: usize,
        replacement: impl Into<String>,
    ) -> Site {
        let line = self.src[..start].matches('\n').count() + 1;
        let line_start = self.src[..start].rfind('\n').map_or(0, |i| i + 1);
        Site {
            operator,
            start,
            end,
            line,
            column: start - line_start + 1,
            replacement: replacement.into(),
        }
    }
}

#[cfg(test)]
mod tests;
