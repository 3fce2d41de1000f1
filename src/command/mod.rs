//! Command recording and lowering: encoders, compute passes, the hazard
//! tracker and the lowering of commands to AQL packets.

pub(crate) mod arena;
pub(crate) mod blit;
pub(crate) mod buffer_set;
pub mod encoder;
pub(crate) mod hazard;
pub mod lower;
pub mod pass;
pub(crate) mod pool;
mod texture_copy;
