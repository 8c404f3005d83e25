//! The execution model: in which order oracles run against one live server, and what each
//! may assume about the state it sees. Defined once here; the runner's phases come from
//! [`phase_of`], and every generator and challenger prompt states [`PROMPT_TEXT`]
//! (`{{execution_model}}`), so what the models assume and what the runner does cannot
//! drift apart. A test runs a plan against a recording server and checks the order the
//! text promises.

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
    }
}
