//! mastor: semantic test oracles for Java REST APIs, grounded in the API's own source.
//!
//! Data flows one way (see DESIGN.md section 2): the project and its spec are read, the
//! agents turn them into contexts and oracles, the store keeps them, the reviewer curates
//! them, the runner runs them and the exporters write them out. The modules are layered
//! in that spirit; a module may use only modules of a lower layer (never its own layer,
//! never a higher one). `tests/it/layering.rs` reads this list and every `crate::` path in
//! `src/`, and fails on any edge it forbids.
//!
//! 1. `text`, `model`, `prompts`: plain data and text, used by everyone.
//! 2. `oracle`: the oracle language (field paths, assertions, binds, relations), pure.
//! 3. `spec`, `llm`, `store`: the OpenAPI model, the model client, the session directory.
//! 4. `source`: the Java project (scan, entries, closures, bundles, seed data).
//! 5. `project`: a project prepared for the agents (analysis, bundles, seed data).
//! 6. `runner`: runs a plan of oracles over HTTP.
//! 7. `suite`: oracle files and sessions read as suites, selection, validation.
//! 8. `agents`: the model-calling agents and normalization.
//! 9. `pipeline`: the orchestrator and its driver.
//! 10. `metamorphic`: the ARMeta loop.
//! 11. `positives`, `mutate`: true and false positives judged on failed verdicts, and TPR;
//!     mutation analysis (seeded faults, which oracles catch them).
//! 12. `export`: JUnit, Postman, Markdown, JSON, Gherkin.
//! 13. `tui`: the workbench.
//! 14. `cli`: the subcommands.

pub mod agents;
pub mod cli;
pub mod execution;
pub mod export;
pub mod llm;
pub mod metamorphic;
pub mod model;
pub mod mutate;
pub mod oracle;
pub mod pipeline;
pub mod positives;
pub mod project;
pub mod prompts;
pub mod runner;
pub mod source;
pub mod spec;
pub mod store;
pub mod suite;
pub mod text;
pub mod tui;
