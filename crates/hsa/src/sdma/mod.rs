//! SDMA queues: the GPU's system DMA engines as the runtime drives them
//! for copies and fills (ROCr `src/core/runtime/amd_blit_sdma.cpp`).
//!
//! - `packet.rs`: the SDMA 6.0 (gfx11) packet encoders;
//! - `queue.rs`: an SDMA queue over KFD (ring, read/write pointers,
//!   doorbell) and its commands, ordered against other queues by signals;
//! - `error.rs`: what a command refuses.

pub mod error;
pub mod packet;
pub mod queue;

pub use error::SdmaError;
pub use queue::{SDMA_RING_BYTES, SdmaQueue};
