//! Errors of the device underneath (HSA runtime, GPU queue faults,
//! gfxsim's sanitizer findings), the sources of `Error::Internal` and
//! `Error::OutOfMemory`.

use std::sync::Arc;

use aqueduct_hsa::HsaError;

use super::ident::{BufferIdent, label_suffix};
use super::lower::LowerError;
use crate::placement::Placement;

/// An error of the device underneath.
#[derive(Debug, thiserror::Error)]
pub enum InternalError {
    /// The memory pool could not allocate a buffer's memory.
    #[error(
        "create_buffer{}: {size} bytes in the {placement:?} pool: {source}",
        label_suffix(label)
    )]
    BufferAllocation {
        /// The buffer's label, if it has one.
        label: Option<String>,
        /// The requested size in bytes.
        size: u64,
        /// The pool the buffer was placed in.
        placement: Placement,
        /// The HSA runtime's error.
        #[source]
        source: HsaError,
    },
    /// `Queue::write_buffer` could not stage its data for the GPU.
    #[error("write_buffer: {source}")]
    Staging {
        /// Why the staging failed.
        #[source]
        source: QueueWriteError,
    },
    /// The blit that clears a device-memory buffer at creation could not be
    /// built, so the buffer's contents are not zero.
    #[error(
        "create_buffer: zero-initialising {buffer} failed: {source}; its contents are undefined"
    )]
    ZeroInit {
        /// The buffer.
        buffer: BufferIdent,
        /// Why the blit could not be built.
        #[source]
        source: LowerError,
    },
    /// The blit that moves a mapped-at-creation buffer's bytes to its
    /// device memory at `unmap` could not be built, so those bytes are lost.
    #[error("unmap: uploading the bytes written to {buffer} at creation failed: {source}")]
    CreationUpload {
        /// The buffer.
        buffer: BufferIdent,
        /// Why the blit could not be built.
        #[source]
        source: LowerError,
    },
    /// `Queue::submit` could not write the submission's packets to the GPU queue.
    #[error("submit: writing AQL packets failed: {source}")]
    WritePackets {
        /// Why the write failed.
        #[source]
        source: QueueWriteError,
    },
    /// `Queue::submit_host_callback` could not write its packets to the GPU queue.
    #[error("submit_host_callback: {source}")]
    HostCallback {
        /// Why the write failed.
        #[source]
        source: QueueWriteError,
    },
    /// The GPU queue faulted; `kernel` and `submission` say where, as far
    /// as the host can tell.
    #[error("{source}")]
    QueueFault {
        /// The submission counter of the faulting work, when the host can tell.
        submission: Option<u64>,
        /// The name of the kernel whose dispatch faulted, when the host can tell.
        kernel: Option<Arc<str>>,
        /// The fault as the HSA runtime reports it.
        #[source]
        source: HsaError,
    },
    /// gfxsim's sanitizer found a kernel-side error (a memory access past
    /// an allocation or a bound range, a race, an uninitialised read, a
    /// divergent barrier) in a dispatch of a completed submission.
    #[cfg(feature = "sim")]
    #[error(transparent)]
    Sanitizer(#[from] super::sanitizer::SanitizerError),
}

/// Why packets, a staging upload or a kernarg block could not be written
/// to the device's queue and rings.
#[derive(Debug, thiserror::Error)]
pub enum QueueWriteError {
    /// The HSA runtime refused a call.
    #[error(transparent)]
    Hsa(#[from] HsaError),
    /// A command could not be lowered to packets.
    #[error(transparent)]
    Lower(#[from] LowerError),
    /// The GPU queue faulted again right after its recovery, before the write.
    #[error("the GPU queue faulted again with nothing on it")]
    FaultedAgain,
    /// The system exposes no CPU agent to run host callbacks on.
    #[error("the system has no CPU agent for host callbacks")]
    NoCpuAgent,
    /// The staging pool's memory has no host address to write through.
    #[error("staging memory is not host mapped")]
    StagingNotHostMapped,
    /// The kernarg pool's memory has no host address to write through.
    #[error("kernarg memory is not host mapped")]
    KernargNotHostMapped,
    /// A uniform placed into a kernel argument block falls outside the block.
    #[error("a kernarg uniform lies outside its block")]
    UniformOutsideBlock,
    /// One submission's kernel arguments do not fit the kernarg ring even when it is empty.
    #[error("one submission needs more kernarg space than the kernarg ring holds; split it")]
    KernargRingTooSmall,
    /// An indirect dispatch's patch packet has no dispatch packet to patch.
    #[error("an indirect patch without its dispatch")]
    PatchWithoutDispatch,
    /// An indirect dispatch's patch packet has no kernarg block to patch.
    #[error("an indirect patch without its kernarg block")]
    PatchWithoutBlock,
    /// An SDMA op on a device without an SDMA queue, or without its signals.
    #[error("an SDMA copy or fill on a device without an SDMA queue, or without its signals")]
    SdmaWithoutEngine,
    /// An indirect dispatch's patched kernel arguments outgrow their block.
    #[error("an indirect patch's kernargs outgrew their block")]
    PatchKernargOverflow,
    /// A traced submission holds fewer signals than its traced packets.
    #[error("a traced submission has fewer trace signals than traced packets")]
    TraceSignalsShort,
    /// The submission wrote more packets than it reserved queue slots for.
    #[error("more packets written than the submission counted")]
    TooManyPackets,
    /// A packet was written before queue slots were reserved for it.
    #[error("no reservation")]
    NoReservation,
}
