//! aqueduct-test-support: the helpers every crate's tests share that need
//! nothing of Aqueduct's (each layer's harness is in aqueduct-test-harness).
//!
//! - [`Rng`]: one small deterministic generator (reproducible failures, no
//!   dependency), with helpers for the kinds of data the tests feed kernels
//!   and decoders (uniform integers and floats, edge-biased words, bytes).
//! - [`bytes`]: typed slices to buffer bytes and back.
//! - [`assert_close`]: float comparison with absolute and relative tolerance.
//! - [`repo`]: paths inside the repository (checked-in kernels and shaders).
//! - [`process`] and [`thread`]: runs bounded in time (a child process, a
//!   test body on its own thread).
//! - [`ScratchDir`]: a temporary directory removed when the test is done.
//!
//! It depends on nothing of Aqueduct's, so any crate may take it as a
//! dev-dependency without a cycle, and its users (isa's unit tests among
//! them) never wait for the layers above them to build.

pub mod bytes;
mod compare;
pub mod process;
pub mod repo;
mod rng;
mod scratch;
pub mod thread;

pub use compare::assert_close;
pub use rng::Rng;
pub use scratch::{KEEP_SCRATCH_ENV, ScratchDir};
