//! The agents of the MASTOR pipeline and the deterministic steps around them.
//!
//! Each agent reads from and writes to the session store; agents never call each other.

pub mod normalize;
