//! The error type of the HSA core: [`HsaError`], an umbrella with one
//! variant per concern, each wrapping that concern's enum (agents, memory,
//! signals, queue creation, slot reservation, packets, profiling, host
//! functions, code objects, executables), plus the cases that stand alone (not
//! initialised, a queue in error, a timed-out wait, the driver).
//!
//! [`HsaError::status`] gives the `hsa_status_t` a call would have
//! returned, for callers that only want that. Queue errors carry the
//! decoded exception reason so callers can tell a memory fault from an
//! illegal instruction.

mod agent;
mod agent_function;
mod executable;
mod memory;
mod packet;
mod profiling;
mod queue_creation;
mod queue_fault;
mod reservation;
mod signal;
mod status;

pub use agent::AgentError;
pub use agent_function::AgentFunctionError;
pub use executable::ExecutableError;
pub use memory::MemoryError;
pub use packet::PacketError;
pub use profiling::ProfilingError;
pub use queue_creation::QueueCreationError;
pub use queue_fault::{
    FaultAccess, GpuMemoryFault, QueueError, QueueErrorReason, QueueFaultDetail,
};
pub use reservation::ReservationError;
pub use signal::SignalError;
pub use status::HsaStatus;

use crate::code_object::CodeObjectError;
use aqueduct_kfd::KfdError;

pub type HsaResult<T> = Result<T, HsaError>;

/// An error of the HSA core: one variant per concern, each wrapping that
/// concern's enum; [`HsaError::status`] maps any case to its HSA status.
/// Messages open with the status they map to ("invalid allocation: ...",
/// "out of resources: ...").
#[derive(Debug, thiserror::Error)]
pub enum HsaError {
    #[error("HSA runtime is not initialised (call aqueduct_hsa::init first)")]
    NotInitialized,
    #[error("invalid agent: {0}")]
    Agent(#[from] AgentError),
    #[error("{prefix}: {0}", prefix = status_prefix(.0.status()))]
    Memory(#[from] MemoryError),
    #[error("{prefix}: {0}", prefix = status_prefix(.0.status()))]
    Signal(#[from] SignalError),
    #[error("queue creation failed: {0}")]
    QueueCreation(#[from] QueueCreationError),
    #[error("{prefix}: {0}", prefix = status_prefix(.0.status()))]
    Reservation(#[from] ReservationError),
    #[error("invalid packet: {0}")]
    Packet(#[from] PacketError),
    #[error("invalid SDMA command: {0}")]
    Sdma(#[from] crate::sdma::SdmaError),
    #[error("{prefix}: {0}", prefix = status_prefix(.0.status()))]
    Profiling(#[from] ProfilingError),
    #[error("scratch reclaim: {0}")]
    ScratchReclaim(#[from] crate::queue::ScratchReclaimError),
    #[error("{prefix}: {0}", prefix = status_prefix(.0.status()))]
    AgentFunction(#[from] AgentFunctionError),
    #[error("invalid code object: {0}")]
    CodeObject(#[from] CodeObjectError),
    #[error("{0}")]
    Executable(#[from] ExecutableError),
    #[error("queue {queue_id} is in error: {reason}{}", detail.as_ref().map(|d| format!(" ({d})")).unwrap_or_default())]
    QueueError {
        queue_id: u32,
        reason: QueueErrorReason,
        detail: Option<QueueFaultDetail>,
    },
    #[error("wait timed out before the signal condition held")]
    Timeout,
    #[error("the system has no visible GPU agent (check ROCR_VISIBLE_DEVICES and the topology)")]
    NoGpuAgent,
    #[error(
        "unsupported KFD interface version {major}.{minor}: this runtime needs 1.{oldest_minor} \
         or newer with major version 1 (upgrade the kernel or the amdgpu driver)"
    )]
    UnsupportedKfdVersion {
        major: u32,
        minor: u32,
        oldest_minor: u32,
    },
    #[error(transparent)]
    Kfd(#[from] KfdError),
}

/// The message prefix of the HSA status a case maps to.
fn status_prefix(status: HsaStatus) -> &'static str {
    match status {
        HsaStatus::InvalidArgument => "invalid argument",
        HsaStatus::InvalidAllocation => "invalid allocation",
        HsaStatus::InvalidSignal => "invalid signal",
        HsaStatus::OutOfResources => "out of resources",
        _ => "error",
    }
}

impl HsaError {
    /// The `hsa_status_t` ROCr returns for this case.
    pub fn status(&self) -> HsaStatus {
        match self {
            HsaError::NotInitialized => HsaStatus::NotInitialized,
            HsaError::Agent(_) | HsaError::NoGpuAgent => HsaStatus::InvalidAgent,
            HsaError::Memory(e) => e.status(),
            HsaError::Signal(e) => e.status(),
            HsaError::QueueCreation(e) => e.status(),
            HsaError::Reservation(e) => e.status(),
            HsaError::Packet(_) => HsaStatus::InvalidPacketFormat,
            HsaError::Sdma(_) => HsaStatus::InvalidArgument,
            HsaError::Profiling(e) => e.status(),
            HsaError::ScratchReclaim(_) => HsaStatus::Error,
            HsaError::AgentFunction(e) => e.status(),
            HsaError::CodeObject(_) => HsaStatus::InvalidCodeObject,
            HsaError::Executable(ExecutableError::InvalidIsaName { .. }) => HsaStatus::InvalidIsa,
            HsaError::Executable(ExecutableError::KernelNotFound { .. }) => {
                HsaStatus::InvalidSymbolName
            }
            HsaError::QueueError { .. } => HsaStatus::Exception,
            HsaError::Timeout | HsaError::UnsupportedKfdVersion { .. } | HsaError::Kfd(_) => {
                HsaStatus::Error
            }
        }
    }
}

impl From<QueueError> for HsaError {
    fn from(e: QueueError) -> Self {
        HsaError::QueueError {
            queue_id: e.queue_id,
            reason: e.reason,
            detail: e.detail,
        }
    }
}
