//! mastor: semantic test oracles for Java REST APIs, grounded in the API's own source.
//!
//! Data flows one way (see DESIGN.md section 2):
//! `source` (scan, entries, closure, bundle) and `spec` (load) → `llm` → `agents` →
//! `store` → `review` → `runner` → `export`. Domain modules never import the TUI.

pub mod agents;
pub mod cli;
pub mod export;
pub mod llm;
pub mod metamorphic;
pub mod model;
pub mod oracle;
pub mod pipeline;
pub mod positives;
pub mod prompts;
pub mod runner;
pub mod source;
pub mod spec;
pub mod store;
pub mod suite;
pub mod text;
pub mod tui;
