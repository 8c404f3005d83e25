//! Metamorphic tests in the manner of ARMeta: a seed execution, a transformed follow-up,
//! and relations between the two outputs, generated iteratively from the spec.
//!
//! Unlike ARMeta, a test is never generated code: it is a structured `MetamorphicTest`
//! (seed steps, follow-up steps, relations) checked by the multi-op suite loader plus the
//! spec alignment checks (`check`) and run by the multi-op runner
//! (`runner::relations`), so there are no syntax or type errors to repair. `slug` groups
//! equivalent scenarios; `iterate` holds the generation loop and its stopping criteria;
//! `store` keeps tests and verdicts in the session; `unique` counts semantically unique
//! tests across sessions by title, as the paper does. The model calls live in
//! `agents::metamorphic`.

/// Structural checks of a metamorphic test, as suite files need them.
pub use crate::suite::mr_check as check;
pub mod iterate;
/// Operands: part of the oracle language.
pub use crate::oracle::operand;
pub mod session;
/// Semantic slugs: part of the oracle language.
pub use crate::oracle::slug;
pub mod store;
pub mod unique;
