//! The pipeline: the orchestrator's state machine and (with the agents) the driver that
//! carries out its tasks. Phase order and failure isolation live here, not in the agents.

pub mod completion;
pub mod context_edits;
pub mod discovery_mode;
pub mod driver;
pub mod keeping;
pub mod kind;
pub mod orchestrator;
pub mod phases;
pub mod plan;
pub mod plan_files;
pub mod plan_text;
/// The prepared project lives below the agents, which read it; kept here under its old
/// name.
pub use crate::project as prepare;
pub mod stages;
pub mod summary;
