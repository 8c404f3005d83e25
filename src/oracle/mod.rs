//! The oracle language, below every part that reads, runs or exports oracles: field paths
//! into a JSON body (`path`), assertions and their evaluation on a response (`assert`),
//! captures and `$captures.<name>` binds (`binds`), metamorphic operands and relations
//! (`operand`, `relations`), and
//! the `METHOD /path` form of an operation id (`op`). All of it is pure: no I/O, no HTTP.
//! The runner evaluates with it, suite files are validated with it, the agents build
//! response schemas from it, and none of them depends on another for it.

pub mod assert;
pub mod binds;
pub mod op;
pub mod operand;
pub mod path;
pub mod relations;
pub mod slug;
