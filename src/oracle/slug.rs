//! Semantic grouping of metamorphic tests (ARMeta's `semantic_group_slug`, made
//! structural).
//!
//! ARMeta normalizes scenario titles, which still splits one intent worded two ways. The
//! slug here is built from what the test does: the seed operations, the follow-up
//! operations and the relations with canonical operands (`seed.0` and `seed[0]` read the
//! same; the operands of symmetric ops are sorted), lower-cased with non-alphanumeric runs
//! collapsed to `_`. Two candidates with equal slugs count once. Titles are not part of it.

use crate::model::{MetamorphicTest, RelationOp};
use crate::oracle::relations::{Operand, Side, Source, op_text};

/// ARMeta's title normalization: lower case, `MR 12` markers removed, non-alphanumeric
/// runs to `_`, trimmed.
pub fn title_slug(title: &str) -> String {
    let lower = title.to_lowercase();
    let words: Vec<&str> = lower.split_whitespace().collect();
    let mut kept = Vec::with_capacity(words.len());
    let mut i = 0;
    while i < words.len() {
        let w = words[i];
        let mr_marker = w.trim_matches(|c: char| !c.is_alphanumeric()) == "mr"
            && words.get(i + 1).is_some_and(|n| {
                n.trim_matches(|c: char| !c.is_alphanumeric())
                    .chars()
                    .all(|c| c.is_ascii_digit())
            });
        if mr_marker {
            i += 2;
            continue;
        }
        kept.push(w);
        i += 1;
    }
    normalize(&kept.join(" "))
}

fn normalize(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.to_lowercase().chars() {
        if c.is_alphanumeric() {
            out.push(c);
        } else if !out.ends_with('_') {
            out.push('_');
        }
    }
    out.trim_matches('_').to_string()
}

fn canonical_operand(text: &str) -> String {
    match Operand::parse(text) {
        Ok(o) => {
            let side = match o.side {
                Side::Seed => "seed",
                Side::FollowUp => "follow",
            };
            let src = match &o.source {
                Source::Status => "status".to_string(),
                Source::Body(p) => format!("body {}", p.as_str()),
                Source::Header(h) => format!("header {h}"),
                Source::RequestBody(p) => format!("request {}", p.as_str()),
            };
            format!("{side} {} {src}", o.step)
        }
        Err(_) => text.to_string(),
    }
}

/// The structural slug of a test (see the module docs).
pub fn semantic_slug(t: &MetamorphicTest) -> String {
    let ops = |steps: &[crate::model::Step]| {
        steps
            .iter()
            .map(|s| s.op_id.as_str())
            .collect::<Vec<_>>()
            .join(" ")
    };
    let mut relations: Vec<String> = t
        .relations
        .iter()
        .map(|r| {
            let left = canonical_operand(&r.left);
            let right = if r.right.trim().is_empty() {
                format!("value {}", r.value)
            } else {
                canonical_operand(&r.right)
            };
            let symmetric = matches!(
                r.op,
                RelationOp::Equals | RelationOp::NotEquals | RelationOp::SameShape
            );
            let (a, b) = if symmetric && right < left {
                (right, left)
            } else {
                (left, right)
            };
            format!("{} {a} {b}", op_text(r.op))
        })
        .collect();
    relations.sort();
    relations.dedup();
    normalize(&format!(
        "{} then {} check {}",
        ops(&t.seed),
        ops(&t.follow_up),
        relations.join(" and ")
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn title_slug_drops_mr_markers_and_punctuation() {
        assert_eq!(
            title_slug("MR 12: Updating a pet's status should be observable!"),
            "updating_a_pet_s_status_should_be_observable"
        );
    }
}
