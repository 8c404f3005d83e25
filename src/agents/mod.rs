//! The LLM agents of the pipeline and the deterministic steps between them.
//!
//! Each agent reads from and writes to the session store; none calls another. The
//! rule-based halves (normalization, compression, validation, targeted merge) live beside
//! the agents so they can be tested without a model.

pub mod agent;
pub mod baseline;
pub mod baseline_spec;
pub mod challenge;
pub mod cited;
pub mod compress;
pub mod discovery;
pub mod error;
pub mod extraction;
pub mod fit;
pub mod generation;
pub mod groups;
pub mod metamorphic;
pub mod multi_op;
pub mod normalize;
pub mod oracle_view;
pub mod quadrants;
pub mod runtime;
pub mod schemas;
pub mod semantic;
pub mod single_op;

pub use agent::Agent;
pub use error::AgentError;
