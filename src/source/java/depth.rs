//! A bound on how deep the syntax trees we walk may be. The walkers over tree-sitter
//! nodes (types, dispatch chains, references, slices, seed snippets, mutation sites)
//! recurse once per nesting level; a machine-written file with a 4,000-term `1 + 1 + …`
//! or a 1,500-branch `else if` chain nests thousands of levels and would overflow the
//! stack and abort the whole command. Such a file is measured first, without recursion,
//! and skipped with the reason instead; hand-written Java stays far below the bound.

use tree_sitter::Node;

/// The deepest tree any walker is given (levels of nested syntax nodes). Far above
/// hand-written code (petstore's deepest file nests about 30), far below what overflows
/// a 2 MiB worker stack in a debug build.
pub const MAX_TREE_DEPTH: usize = 400;

/// The depth of the tree under `root` (a lone node is 1), counted up to `cap + 1` at
/// most, walking with a cursor (no recursion).
pub fn depth_up_to(root: Node, cap: usize) -> usize {
    let mut cursor = root.walk();
    let (mut depth, mut deepest) = (1usize, 1usize);
    loop {
        if depth <= cap && cursor.goto_first_child() {
            depth += 1;
            deepest = deepest.max(depth);
            continue;
        }
        loop {
            if cursor.goto_next_sibling() {
                break;
            }
            if !cursor.goto_parent() {
                return deepest;
            }
            depth -= 1;
        }
    }
}

/// Why a file whose tree is `root` is not analysed, or `None` when it is within bounds.
pub fn too_deep(root: Node) -> Option<String> {
    (depth_up_to(root, MAX_TREE_DEPTH) > MAX_TREE_DEPTH).then(|| {
        format!(
            "syntax nested deeper than {MAX_TREE_DEPTH} levels (a very long expression or \
             else-if chain); not analysed"
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tree(text: &str) -> tree_sitter::Tree {
        super::super::parse::new_parser()
            .parse(text, None)
            .expect("parses")
    }

    #[test]
    fn depth_is_measured_without_recursion_and_capped() {
        let small = tree("class A { int f() { return 1 + 2; } }");
        let d = depth_up_to(small.root_node(), MAX_TREE_DEPTH);
        assert!((5..40).contains(&d), "{d}");
        assert_eq!(too_deep(small.root_node()), None);
        let terms = vec!["1"; 4000].join(" + ");
        let deep = tree(&format!("class A {{ int f() {{ return {terms}; }} }}"));
        assert_eq!(
            depth_up_to(deep.root_node(), MAX_TREE_DEPTH),
            MAX_TREE_DEPTH + 1
        );
        assert!(
            too_deep(deep.root_node())
                .unwrap()
                .contains("deeper than 400")
        );
    }
}
