//! What the JUnit and Postman exports of a metamorphic test share: its steps labelled by
//! side (`seed[0]`, `follow_up[1]`), its relations with operands already parsed by
//! `metamorphic::operand` (so the Java and JavaScript code never parse operand syntax and
//! cannot read it differently), and the documented statuses of the operations it calls.
//!
//! The generated code mirrors `runner::relations::{judge, evaluate}`; this module only
//! prepares data for it and writes no files.

use super::ExportError;
use crate::metamorphic::check::validate_structure;
use crate::model::{MetamorphicTest, Step};
use crate::runner::relations::{
    Documented, Operand, Side, Source, diff_of, op_text, relation_text, validate_relation,
};
use serde_json::{Value, json};

/// One step of a metamorphic test with where it stands.
pub struct MrStep<'a> {
    /// `seed[0]`, `follow_up[1]`.
    pub label: String,
    /// `seed` or `follow_up`, as operands name the side.
    pub side: &'static str,
    pub step: &'a Step,
}

/// Seed steps, then follow-up steps, labelled.
pub fn steps(t: &MetamorphicTest) -> Vec<MrStep<'_>> {
    t.seed
        .iter()
        .enumerate()
        .map(|(i, s)| MrStep {
            label: format!("seed[{i}]"),
            side: "seed",
            step: s,
        })
        .chain(t.follow_up.iter().enumerate().map(|(i, s)| MrStep {
            label: format!("follow_up[{i}]"),
            side: "follow_up",
            step: s,
        }))
        .collect()
}

/// Refuses a test that is not structurally valid, naming it: an export never writes a
/// test whose relations could not be evaluated as written.
pub fn check(t: &MetamorphicTest) -> Result<(), ExportError> {
    validate_structure(t).map_err(|reason| ExportError::BadOracle {
        o_id: t.o_id(),
        reason,
    })
}

/// The relations as the generated code reads them: `index`, `op`, `text` (the relation in
/// words), parsed `left` / `right` operands (right `null`: `value` is the right operand),
/// `value`, and `diff` for `count_diff`.
pub fn relations_json(t: &MetamorphicTest) -> Result<Value, ExportError> {
    let mut out = Vec::with_capacity(t.relations.len());
    for (index, r) in t.relations.iter().enumerate() {
        let (left, right) = validate_relation(r).map_err(|reason| ExportError::BadOracle {
            o_id: t.o_id(),
            reason: format!("relation {}: {reason}", index + 1),
        })?;
        out.push(json!({
            "index": index,
            "op": op_text(r.op),
            "text": relation_text(r),
            "left": operand_json(&left, &r.left),
            "right": right.as_ref().map(|o| operand_json(o, &r.right)),
            "value": r.value,
            "diff": diff_of(r),
        }));
    }
    Ok(Value::Array(out))
}

fn operand_json(o: &Operand, text: &str) -> Value {
    let side = match o.side {
        Side::Seed => "seed",
        Side::FollowUp => "follow_up",
    };
    let (source, path, name) = match &o.source {
        Source::Status => ("status", None, ""),
        Source::Header(h) => ("header", None, h.as_str()),
        Source::Body(p) => ("body", Some(p), ""),
        Source::RequestBody(p) => ("request_body", Some(p), ""),
    };
    json!({
        "text": text,
        "side": side,
        "step": o.step,
        "source": source,
        "name": name,
        "path": path.map_or("", |p| p.as_str()),
        "root": path.is_some_and(|p| p.is_root()),
        "wildcard": path.is_some_and(|p| p.has_wildcard()),
    })
}

/// The documented statuses of the operations this test calls (others are not checked).
pub fn documented_json(t: &MetamorphicTest, documented: &Documented) -> Value {
    let subset: Documented = t
        .seed
        .iter()
        .chain(&t.follow_up)
        .filter_map(|s| {
            documented
                .get(&s.op_id)
                .map(|keys| (s.op_id.clone(), keys.clone()))
        })
        .collect();
    json!(subset)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Relation, RelationOp};

    fn test() -> MetamorphicTest {
        let step = |op: &str| Step {
            op_id: op.into(),
            input: Default::default(),
            captures: Default::default(),
            assertions: vec![],
        };
        MetamorphicTest {
            test_id: "t".into(),
            scenario: String::new(),
            given: String::new(),
            when: String::new(),
            then: String::new(),
            seed: vec![step("GET /pets")],
            follow_up: vec![step("GET /stats")],
            relations: vec![Relation {
                left: "seed[0].body[*].id".into(),
                op: RelationOp::CountDiff,
                right: "follow_up.0.header.X-Total".into(),
                value: json!(2),
            }],
            slug: String::new(),
        }
    }

    #[test]
    fn relations_carry_parsed_operands() {
        let v = relations_json(&test()).expect("valid");
        let r = &v[0];
        assert_eq!(r["op"], "count_diff");
        assert_eq!(r["diff"], 2);
        assert_eq!(r["left"]["source"], "body");
        assert_eq!(r["left"]["path"], "[*].id");
        assert_eq!(r["left"]["wildcard"], true);
        assert_eq!(r["right"]["side"], "follow_up");
        assert_eq!(r["right"]["source"], "header");
        assert_eq!(r["right"]["name"], "x-total");
        let labels: Vec<String> = steps(&test()).into_iter().map(|s| s.label).collect();
        assert_eq!(labels, ["seed[0]", "follow_up[0]"]);
    }

    #[test]
    fn documented_keeps_only_the_tests_operations() {
        let mut d = Documented::new();
        d.insert("GET /pets".into(), vec!["200".into()]);
        d.insert("DELETE /pets".into(), vec!["204".into()]);
        assert_eq!(documented_json(&test(), &d), json!({"GET /pets": ["200"]}));
    }

    #[test]
    fn invalid_relation_is_refused_by_name() {
        let mut t = test();
        t.relations[0].left = "other[0]".into();
        let err = check(&t).expect_err("invalid");
        assert!(err.to_string().contains("mr#t"), "{err}");
    }
}
