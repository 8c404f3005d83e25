//! Narrowing a suite by operation and by oracle type, for comparisons in the paper's
//! style (RQ2 keeps 50 operations and the status and field types only): `export`,
//! `check` and `compare` share one definition of both, so the same oracles are counted,
//! run and exported.
//!
//! An oracle's type is its primary assertion type, counted as the run summary counts
//! paper Table 9 (`Summary::status_oracles` / `field_oracles`): `field` when it has a
//! field assertion, `status` otherwise. Multi-op sequences are `multi`; metamorphic tests
//! are `metamorphic` (not one of the paper's types, accepted so `--types` can keep them).

use crate::model::{Assertion, MetamorphicTest, MultiOpOracle, Oracle, SuiteFile};
use std::collections::BTreeSet;
use std::fmt;
use std::str::FromStr;

/// The oracle types of `--types`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum OracleType {
    Status,
    Field,
    Multi,
    Metamorphic,
}

impl OracleType {
    /// Every type with its command-line name.
    pub const ALL: [(OracleType, &'static str); 4] = [
        (OracleType::Status, "status"),
        (OracleType::Field, "field"),
        (OracleType::Multi, "multi"),
        (OracleType::Metamorphic, "metamorphic"),
    ];

    /// The primary assertion type of a single-op oracle (see the module doc).
    pub fn of(oracle: &Oracle) -> OracleType {
        if oracle
            .assertions
            .iter()
            .any(|a| matches!(a, Assertion::Field { .. }))
        {
            OracleType::Field
        } else {
            OracleType::Status
        }
    }
}

impl fmt::Display for OracleType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = OracleType::ALL
            .iter()
            .find(|(t, _)| t == self)
            .map_or("?", |(_, n)| n);
        f.write_str(name)
    }
}

impl FromStr for OracleType {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        OracleType::ALL
            .iter()
            .find(|(_, n)| n.eq_ignore_ascii_case(s.trim()))
            .map(|(t, _)| *t)
            .ok_or_else(|| format!("unknown oracle type '{s}' (status, field, multi, metamorphic)"))
    }
}

/// Keeps the entries whose type is in `types` (all when `types` is empty).
pub fn keep_types(
    oracles: &mut Vec<Oracle>,
    multi_op: &mut Vec<MultiOpOracle>,
    metamorphic: &mut Vec<MetamorphicTest>,
    types: &[OracleType],
) {
    if types.is_empty() {
        return;
    }
    let wanted: BTreeSet<OracleType> = types.iter().copied().collect();
    oracles.retain(|o| wanted.contains(&OracleType::of(o)));
    if !wanted.contains(&OracleType::Multi) {
        multi_op.clear();
    }
    if !wanted.contains(&OracleType::Metamorphic) {
        metamorphic.clear();
    }
}

/// Keeps the entries on the operations `ops` name (all when empty), with the semantics
/// of `check --op` ([`super::select`]): a sequence is kept when its group id or any step
/// matches, a metamorphic test when any step does. An operation the suite does not have
/// is an error naming it.
pub fn keep_ops(
    oracles: &mut Vec<Oracle>,
    multi_op: &mut Vec<MultiOpOracle>,
    metamorphic: &mut Vec<MetamorphicTest>,
    ops: &[String],
) -> Result<(), String> {
    if ops.is_empty() {
        return Ok(());
    }
    let suite = SuiteFile {
        oracles: std::mem::take(oracles),
        multi_op: std::mem::take(multi_op),
        metamorphic: std::mem::take(metamorphic),
        ..SuiteFile::default()
    };
    let kept = super::select(&suite, super::Only::All, ops);
    let (o, m, t) = (suite.oracles, suite.multi_op, suite.metamorphic);
    match kept {
        Ok(plan) => {
            // `select` clones what it keeps; keep the originals' order and values.
            let ids = |v: Vec<String>| v.into_iter().collect::<BTreeSet<String>>();
            let keep_o = ids(plan.oracles.iter().map(Oracle::o_id).collect());
            let keep_m = ids(plan.multi_op.iter().map(MultiOpOracle::o_id).collect());
            let keep_t = ids(plan.metamorphic.iter().map(MetamorphicTest::o_id).collect());
            *oracles = o
                .into_iter()
                .filter(|x| keep_o.contains(&x.o_id()))
                .collect();
            *multi_op = m
                .into_iter()
                .filter(|x| keep_m.contains(&x.o_id()))
                .collect();
            *metamorphic = t
                .into_iter()
                .filter(|x| keep_t.contains(&x.o_id()))
                .collect();
            Ok(())
        }
        Err(e) => {
            *oracles = o;
            *multi_op = m;
            *metamorphic = t;
            Err(e)
        }
    }
}

/// Oracle counts by type.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct TypeCounts {
    pub status: usize,
    pub field: usize,
    pub multi: usize,
    pub metamorphic: usize,
}

impl TypeCounts {
    /// Counts a suite's entries by type.
    pub fn of(suite: &SuiteFile) -> TypeCounts {
        let mut c = TypeCounts {
            multi: suite.multi_op.len(),
            metamorphic: suite.metamorphic.len(),
            ..TypeCounts::default()
        };
        for o in &suite.oracles {
            match OracleType::of(o) {
                OracleType::Field => c.field += 1,
                _ => c.status += 1,
            }
        }
        c
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn oracle(op: &str, id: &str, field: bool) -> Oracle {
        let mut assertions = vec![json!({"type": "status", "expected": 200})];
        if field {
            assertions.push(
                json!({"type": "field", "field_path": "a", "op": "not_null", "expected": null}),
            );
        }
        serde_json::from_value(json!({"test_id": id, "op_id": op, "input": {},
            "assertions": assertions}))
        .unwrap()
    }

    #[test]
    fn types_parse_and_name_the_unknown_one() {
        assert_eq!("Field".parse::<OracleType>(), Ok(OracleType::Field));
        let err = "state".parse::<OracleType>().unwrap_err();
        assert!(err.contains("'state'"), "{err}");
    }

    #[test]
    fn a_field_assertion_anywhere_makes_a_field_oracle() {
        let mut oracles = vec![oracle("GET /a", "s", false), oracle("GET /a", "f", true)];
        let (mut m, mut t) = (Vec::new(), Vec::new());
        keep_types(&mut oracles, &mut m, &mut t, &[OracleType::Field]);
        assert_eq!(oracles.len(), 1);
        assert_eq!(oracles[0].test_id, "f");
    }

    #[test]
    fn ops_keep_order_and_unknown_ones_are_named() {
        let mut oracles = vec![
            oracle("GET /b", "1", false),
            oracle("GET /a", "2", false),
            oracle("GET /b", "3", true),
        ];
        let (mut m, mut t) = (Vec::new(), Vec::new());
        keep_ops(&mut oracles, &mut m, &mut t, &["get /b".into()]).unwrap();
        let ids: Vec<&str> = oracles.iter().map(|o| o.test_id.as_str()).collect();
        assert_eq!(ids, ["1", "3"]);
        let err = keep_ops(&mut oracles, &mut m, &mut t, &["GET /zz".into()]).unwrap_err();
        assert!(err.contains("GET /zz"), "{err}");
        assert_eq!(oracles.len(), 2, "left as it was");
    }
}
