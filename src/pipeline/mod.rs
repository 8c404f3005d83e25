//! The pipeline: the orchestrator's state machine and (with the agents) the driver that
//! carries out its tasks. Phase order and failure isolation live here, not in the agents.

pub mod driver;
pub mod kind;
pub mod orchestrator;
pub mod phases;
pub mod prepare;
pub mod summary;
