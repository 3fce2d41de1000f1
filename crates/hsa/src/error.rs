//! The error type of the HSA core.
//!
//! Variants mirror the HSA status codes where one applies
//! (`HSA_STATUS_ERROR_INVALID_ARGUMENT`, `..._OUT_OF_RESOURCES`, ...); each
//! message says what was wrong. Queue errors carry the decoded exception
//! reason so callers can tell a memory fault from an illegal instruction.

use crate::code_object::CodeObjectError;
use aqueduct_kfd::KfdError;

pub type HsaResult<T> = Result<T, HsaError>;

/// Why a queue stopped (decoded from the KFD exception bits KFD ORs into
/// the context-save header's `error_reason` word).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum QueueErrorReason {
    /// A wave touched memory not mapped for the agent (or an aperture
    /// violation). `address` is the faulting GPU VA when the device
    /// reported one through its MEMORY event.
    MemoryViolation { address: Option<u64> },
    /// A wave executed an instruction the hardware could not decode.
    IllegalInstruction,
    /// A wave executed `s_trap` (or aborted) with no handler to resume it.
    Trap,
    /// The packet processor rejected a packet (bad dimensions, sizes,
    /// kernel object, or an unsupported packet type).
    PacketInvalid,
    /// Any other exception bits (the raw `error_reason` word).
    Other(u64),
}

impl std::fmt::Display for QueueErrorReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            QueueErrorReason::MemoryViolation { address: Some(a) } => {
                write!(f, "memory violation at GPU address {a:#x}")
            }
            QueueErrorReason::MemoryViolation { address: None } => f.write_str("memory violation"),
            QueueErrorReason::IllegalInstruction => f.write_str("illegal instruction"),
            QueueErrorReason::Trap => f.write_str("wave trap or abort"),
            QueueErrorReason::PacketInvalid => f.write_str("invalid AQL packet"),
            QueueErrorReason::Other(bits) => write!(f, "queue exception bits {bits:#x}"),
        }
    }
}

/// A queue error as reported to callers: which queue, why, and what the
/// device could tell beyond the exception bits.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct QueueError {
    pub queue_id: u32,
    pub reason: QueueErrorReason,
    pub detail: Option<String>,
}

#[derive(Debug, thiserror::Error)]
pub enum HsaError {
    #[error("HSA runtime is not initialised (call aqueduct_hsa::init first)")]
    NotInitialized,
    #[error("invalid argument: {0}")]
    InvalidArgument(String),
    #[error("invalid agent: {0}")]
    InvalidAgent(String),
    #[error("out of resources: {0}")]
    OutOfResources(String),
    #[error("invalid allocation: {0}")]
    InvalidAllocation(String),
    #[error("invalid ISA: {0}")]
    InvalidIsa(String),
    #[error("invalid code object: {0}")]
    InvalidCodeObject(#[from] CodeObjectError),
    #[error("kernel `{name}` not found in the executable; it has: {available}")]
    KernelNotFound { name: String, available: String },
    #[error("invalid signal: {0}")]
    InvalidSignal(String),
    #[error("queue creation failed: {0}")]
    InvalidQueueCreation(String),
    #[error("invalid packet: {0}")]
    InvalidPacket(String),
    #[error("queue {queue_id} is in error: {reason}{}", detail.as_deref().map(|d| format!(" ({d})")).unwrap_or_default())]
    QueueError {
        queue_id: u32,
        reason: QueueErrorReason,
        detail: Option<String>,
    },
    #[error("wait timed out before the signal condition held")]
    Timeout,
    #[error("the system has no visible GPU agent (check ROCR_VISIBLE_DEVICES and the topology)")]
    NoGpuAgent,
    #[error(
        "unsupported KFD interface version {major}.{minor}: this runtime drives major version 1"
    )]
    UnsupportedKfdVersion { major: u32, minor: u32 },
    #[error(transparent)]
    Kfd(#[from] KfdError),
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
