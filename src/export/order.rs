//! The execution model's order (`crate::execution::ordered`) as the exporters lay it out:
//! the selected oracles and sequences in run order, cut into blocks of one stage and one
//! operation (or sequence group). A block is a JUnit class, a Postman folder, a Markdown
//! section; its position in the list is its place in the run. Every exporter reads the
//! order from here, so none re-derives it.

use super::ExportInput;
use crate::execution::{Stage, Unit, ordered};
use crate::model::{MultiOpOracle, Oracle};

/// One oracle or sequence at its place in the run.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Entry<'a> {
    Single(&'a Oracle),
    Sequence(&'a MultiOpOracle),
}

impl Entry<'_> {
    pub(crate) fn o_id(&self) -> String {
        match self {
            Entry::Single(o) => o.o_id(),
            Entry::Sequence(m) => m.o_id(),
        }
    }

    /// Whether it sends a request that may write (a reset scope of "writers" covers it).
    pub(crate) fn writes(&self) -> bool {
        let unsafe_op = |op_id: &str| {
            crate::oracle::op::split(op_id)
                .map(|(m, _)| !crate::execution::SAFE.contains(&m.to_ascii_uppercase().as_str()))
                .unwrap_or(true)
        };
        match self {
            Entry::Single(o) => unsafe_op(&o.op_id),
            Entry::Sequence(m) => m.steps.iter().any(|s| unsafe_op(&s.op_id)),
        }
    }
}

/// An entry with its 1-based position in the whole run.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Placed<'a> {
    pub entry: Entry<'a>,
    pub position: usize,
    pub fresh_state: bool,
}

/// Consecutive entries of one stage and one operation (or group).
#[derive(Debug, Clone)]
pub(crate) struct Block<'a> {
    pub stage: Stage,
    /// The op_id (single-operation oracles) or the group id (sequences).
    pub key: String,
    pub entries: Vec<Placed<'a>>,
}

/// The export's oracles and sequences in run order, in blocks. Exports order without a
/// reset (it is chosen when the suite runs) and reset before each `fresh_state` entry
/// when one is configured; see `execution::ordered`.
pub(crate) fn blocks(input: &ExportInput) -> Vec<Block<'_>> {
    let oracles = input.selected_oracles();
    let sequences = input.selected_multi_op();
    let mut out: Vec<Block<'_>> = Vec::new();
    let plan = ordered(oracles.iter().copied(), sequences.len(), false);
    for (n, planned) in plan.into_iter().enumerate() {
        let (entry, key) = match planned.unit {
            Unit::Single(i) => (Entry::Single(oracles[i]), oracles[i].op_id.as_str()),
            Unit::Sequence(i) => (
                Entry::Sequence(sequences[i]),
                sequences[i].group_id.as_str(),
            ),
        };
        let placed = Placed {
            entry,
            position: n + 1,
            fresh_state: planned.fresh_state,
        };
        match out.last_mut() {
            Some(block) if block.stage == planned.stage && block.key == key => {
                block.entries.push(placed);
            }
            _ => out.push(Block {
                stage: planned.stage,
                key: key.to_string(),
                entries: vec![placed],
            }),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::export::Selection;
    use crate::model::SuiteFile;

    #[test]
    fn blocks_follow_the_execution_model() {
        let suite: SuiteFile = serde_json::from_value(serde_json::json!({
            "schema_version": crate::model::SCHEMA_VERSION,
            "oracles": [
                {"test_id": "d", "op_id": "DELETE /a", "assertions": []},
                {"test_id": "r1", "op_id": "GET /a", "assertions": []},
                {"test_id": "f", "op_id": "POST /a", "fresh_state": true, "assertions": []},
                {"test_id": "r2", "op_id": "GET /a", "assertions": []},
                {"test_id": "p", "op_id": "POST /a", "assertions": []}
            ],
            "multi_op": [{"test_id": "s", "group_id": "g", "steps": [
                {"op_id": "GET /a", "input": {}, "assertions": []}]}]
        }))
        .unwrap();
        let input = ExportInput::from_suite(suite, Selection::All);
        type Row = (Stage, String, Vec<(String, usize)>);
        let got: Vec<Row> = blocks(&input)
            .into_iter()
            .map(|b| {
                let entries = b
                    .entries
                    .iter()
                    .map(|p| (p.entry.o_id(), p.position))
                    .collect();
                (b.stage, b.key, entries)
            })
            .collect();
        let e = |o: &str, n| (o.to_string(), n);
        assert_eq!(
            got,
            vec![
                (
                    Stage::Reader,
                    "GET /a".into(),
                    vec![e("GET /a#r1", 1), e("GET /a#r2", 2)]
                ),
                (Stage::Fresh, "POST /a".into(), vec![e("POST /a#f", 3)]),
                (Stage::Writer, "DELETE /a".into(), vec![e("DELETE /a#d", 4)]),
                (Stage::Writer, "POST /a".into(), vec![e("POST /a#p", 5)]),
                (Stage::Sequence, "g".into(), vec![e("g#s", 6)]),
            ]
        );
    }
}
