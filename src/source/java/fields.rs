//! Field lookups by precomputed id: `child_by_field_name` searches the grammar's field
//! names on every call, which showed up in profiles of large scans.

use std::collections::HashMap;
use std::sync::OnceLock;
use tree_sitter::{Language, Node};

fn field_id(name: &str) -> Option<u16> {
    static IDS: OnceLock<HashMap<String, u16>> = OnceLock::new();
    IDS.get_or_init(|| {
        let lang: Language = tree_sitter_java::LANGUAGE.into();
        (1..=lang.field_count())
            .filter_map(|id| u16::try_from(id).ok())
            .filter_map(|id| lang.field_name_for_id(id).map(|n| (n.to_string(), id)))
            .collect()
    })
    .get(name)
    .copied()
}

/// `node.field("name")`: the child in field `name`, by cached field id.
pub(super) trait FieldExt<'t> {
    fn field(&self, name: &str) -> Option<Node<'t>>;
}

impl<'t> FieldExt<'t> for Node<'t> {
    fn field(&self, name: &str) -> Option<Node<'t>> {
        field_id(name).and_then(|id| self.child_by_field_id(id))
    }
}
