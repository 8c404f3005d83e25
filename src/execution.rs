//! The execution model: in which order oracles run against one live server, and what each
//! may assume about the state it sees. Defined once here; the runner's phases come from
//! [`phase_of`], and every generator and challenger prompt states [`PROMPT_TEXT`]
//! (`{{execution_model}}`), so what the models assume and what the runner does cannot
//! drift apart. The exporters (JUnit, Postman, Markdown, behave) take their order from
//! [`ordered`], so a suite that leaves mastor runs the way `check` ran it. A test runs a
//! plan against a recording server and checks the order the text promises.

use crate::model::Oracle;

/// The methods that only read (RFC 9110 safe methods).
pub const SAFE: [&str; 4] = ["GET", "HEAD", "OPTIONS", "TRACE"];

/// Where a single-operation oracle runs in a plan.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Phase {
    /// Only reads (GET, HEAD, OPTIONS): concurrently, before anything writes.
    Reader,
    /// Declares `fresh_state` and writes (or, with a reset, any `fresh_state` oracle): one
    /// at a time in suite order before the other writers, each right after a reset when
    /// one is configured.
    Fresh,
    /// Writes: one at a time in suite order, seeing what every earlier writer left.
    Writer,
}

/// The phase of `oracle`; `with_reset` is true when a reset command is configured.
pub fn phase_of(oracle: &Oracle, with_reset: bool) -> Phase {
    let reads = crate::oracle::op::split(&oracle.op_id)
        .map(|(m, _)| SAFE.contains(&m.to_ascii_uppercase().as_str()))
        .unwrap_or(false);
    if oracle.fresh_state && (with_reset || !reads) {
        Phase::Fresh
    } else if reads {
        Phase::Reader
    } else {
        Phase::Writer
    }
}

/// Where a unit of a plan runs: the three single-operation phases, then sequences.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Stage {
    Reader,
    Fresh,
    Writer,
    /// Multi-operation sequences (and, after them, metamorphic tests), one at a time.
    Sequence,
}

impl Stage {
    /// The stage's name as the exports show it (folder names, tags, headings).
    pub fn label(self) -> &'static str {
        match self {
            Stage::Reader => "read-only",
            Stage::Fresh => "fresh state",
            Stage::Writer => "writers",
            Stage::Sequence => "sequences",
        }
    }
}

impl From<Phase> for Stage {
    fn from(phase: Phase) -> Self {
        match phase {
            Phase::Reader => Stage::Reader,
            Phase::Fresh => Stage::Fresh,
            Phase::Writer => Stage::Writer,
        }
    }
}

/// What one position of a plan runs: an index into the suite's single-operation oracles
/// or into its sequences.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unit {
    Single(usize),
    Sequence(usize),
}

/// One position of a suite's ordered plan.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Planned {
    pub unit: Unit,
    pub stage: Stage,
    /// The oracle declares `fresh_state`: it needs the seed data, so a configured reset
    /// runs right before it (an export tags it so it can run apart without one).
    pub fresh_state: bool,
}

/// The suite's plan in run order: readers, fresh-state writers, the other writers (each
/// in suite order), then the sequences in suite order. `with_reset` moves reading
/// `fresh_state` oracles behind the readers, each after its own reset, as `check --reset`
/// does. Exports order with `with_reset = false` (the reset is the runner's choice, made
/// later) and reset before every `fresh_state` unit when one is configured: a reading one
/// then runs among the readers on a state no writer has touched yet, so it sees what it
/// would see after its own reset. A configured reset also runs once before the first
/// unit, so a run on a server an earlier run wrote to starts from the seed data again.
pub fn ordered<'a>(
    oracles: impl IntoIterator<Item = &'a Oracle>,
    sequences: usize,
    with_reset: bool,
) -> Vec<Planned> {
    let mut plan: Vec<Planned> = oracles
        .into_iter()
        .enumerate()
        .map(|(i, o)| Planned {
            unit: Unit::Single(i),
            stage: phase_of(o, with_reset).into(),
            fresh_state: o.fresh_state,
        })
        .collect();
    // A stable sort keeps suite order within a stage.
    plan.sort_by_key(|p| p.stage);
    plan.extend((0..sequences).map(|i| Planned {
        unit: Unit::Sequence(i),
        stage: Stage::Sequence,
        fresh_state: false,
    }));
    plan
}

/// The model in words, for every generator and challenger prompt.
pub const PROMPT_TEXT: &str = "\
How oracles run (the runner does exactly this; write and review oracles for it):
- One live server keeps its state for the whole run. The oracles of ALL operations run in
  one plan: suites ordered by method, then path; oracles in the order of their suite.
- 1. Every single-operation oracle whose method only reads (GET, HEAD, OPTIONS) runs
  first, concurrently, before anything writes: each sees the seed data as at start-up.
- 2. Then the writing oracles marked \"fresh_state\": true, one at a time in plan order.
  Without a reset command they run before every other writer, but after each other: a
  fresh_state oracle sees what earlier fresh_state oracles changed. With a reset command,
  each fresh_state oracle (a reading one too) runs right after its own reset and sees
  only the seed data.
- 3. Then every other writing oracle (POST, PUT, PATCH, DELETE), one at a time in plan
  order, across all operations: each sees what every earlier writer, of any operation,
  left behind.
- 4. Then the multi-operation sequences, one at a time, each step in order. A sequence
  sees what all single-operation oracles left: create or capture the records it relies
  on instead of assuming seed values a writer may have changed.
- With a reset command, the run also starts with one reset, so a run on a server an
  earlier run wrote to sees the seed data again. Exported JUnit and Postman suites keep
  this order and run the same resets (a reset hook the project configures).
- Revised oracles keep their place in their suite; new oracles go after the existing ones,
  in the order returned.";

#[cfg(test)]
mod tests {
    use super::*;

    fn oracle(op: &str, fresh: bool) -> Oracle {
        serde_json::from_value(serde_json::json!({
            "test_id": "t", "op_id": op, "fresh_state": fresh, "assertions": []}))
        .unwrap()
    }

    #[test]
    fn phases_follow_the_text() {
        assert_eq!(phase_of(&oracle("GET /a", false), false), Phase::Reader);
        assert_eq!(phase_of(&oracle("HEAD /a", false), true), Phase::Reader);
        // A fresh_state reader needs no reset: it runs before any write anyway...
        assert_eq!(phase_of(&oracle("GET /a", true), false), Phase::Reader);
        // ...but with a reset it runs right after its own.
        assert_eq!(phase_of(&oracle("GET /a", true), true), Phase::Fresh);
        assert_eq!(phase_of(&oracle("DELETE /a", true), false), Phase::Fresh);
        assert_eq!(phase_of(&oracle("POST /a", false), true), Phase::Writer);
        assert!(PROMPT_TEXT.contains("(a reading one too) runs right after its own reset"));
        assert!(PROMPT_TEXT.contains("sees what earlier fresh_state oracles changed"));
        assert!(PROMPT_TEXT.contains("the run also starts with one reset"));
    }

    #[test]
    fn ordered_plan_puts_stages_in_model_order_keeping_suite_order() {
        let suite = [
            oracle("DELETE /a", false),
            oracle("GET /a", false),
            oracle("POST /a", true),
            oracle("GET /b", true),
            oracle("PUT /a", false),
        ];
        let plan = ordered(&suite, 2, false);
        let got: Vec<(Unit, Stage, bool)> = plan
            .iter()
            .map(|p| (p.unit, p.stage, p.fresh_state))
            .collect();
        assert_eq!(
            got,
            vec![
                (Unit::Single(1), Stage::Reader, false),
                (Unit::Single(3), Stage::Reader, true),
                (Unit::Single(2), Stage::Fresh, true),
                (Unit::Single(0), Stage::Writer, false),
                (Unit::Single(4), Stage::Writer, false),
                (Unit::Sequence(0), Stage::Sequence, false),
                (Unit::Sequence(1), Stage::Sequence, false),
            ]
        );
        // With a reset the reading fresh_state oracle runs after its own reset.
        let plan = ordered(&suite, 0, true);
        assert_eq!(plan[2].unit, Unit::Single(3));
        assert_eq!(plan[2].stage, Stage::Fresh);
    }
}
