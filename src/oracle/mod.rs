//! The oracle language, below every part that reads or runs oracles: field paths into a
//! JSON body, parsed and resolved in one place. The runner evaluates with it, the agents
//! build response schemas from it, and neither depends on the other for it.

pub mod path;
