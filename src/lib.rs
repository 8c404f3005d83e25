//! mastor: semantic test oracles for Java REST APIs, grounded in the API's own source.
//!
//! Data flows one way (see docs/ARCHITECTURE.md section 2): the project and its spec are read, the
//! agents turn them into contexts and oracles, the store keeps them, the reviewer curates
//! them, the runner runs them and the exporters write them out. The modules are layered
//! in that spirit; a module may use only modules of a lower layer (never its own layer,
//! never a higher one). `tests/it/layering.rs` reads this list and every `crate::` path in
//! `src/`, and fails on any edge it forbids.
//!
//! 1. `text`, `model`: plain data and text, used by everyone.
//! 2. `oracle`: the oracle language (field paths, assertions, binds, relations), pure.
//! 3. `execution`: the execution model (run order, fresh state, resets), which the runner
//!    and every exporter follow and every generator and challenger prompt states.
//! 4. `prompts`, `spec`, `llm`, `store`: the agents' prompts, the OpenAPI model, the model
//!    client, the session directory.
//! 5. `source`: the Java project (scan, entries, closures, bundles, seed data).
//! 6. `project`: a project prepared for the agents (analysis, bundles, seed data).
//! 7. `runner`: runs a plan of oracles over HTTP.
//! 8. `suite`: oracle files and sessions read as suites, selection, validation.
//! 9. `agents`: the model-calling agents and normalization.
//! 10. `pipeline`: the orchestrator and its driver.
//! 11. `metamorphic`: the ARMeta loop.
//! 12. `positives`, `mutate`: true and false positives judged on failed verdicts, and TPR;
//!     mutation analysis (seeded faults, which oracles catch them).
//! 13. `export`: JUnit, Postman, Markdown, JSON, Gherkin.
//! 14. `tui`: the workbench.
//! 15. `cli`: the subcommands.

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
