//! [`QueueError`]: a queue that stopped, why ([`QueueErrorReason`], decoded
//! from the KFD exception bits), and what is known beyond the bits
//! ([`QueueFaultDetail`]).

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

/// What is known about a queue error beyond its exception bits.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum QueueFaultDetail {
    /// The device's own account of the fault (faulting instruction, PC,
    /// decoded mnemonic), as [`aqueduct_kfd::KfdDevice::queue_exception_detail`]
    /// words it: the KFD interface has no structured form for it.
    #[error("{0}")]
    Device(String),
    /// A soft-queue packet whose header has a reserved fence scope.
    #[error("packet {packet}: header {header:#06x} has a reserved fence scope")]
    ReservedFenceScope { packet: u64, header: u16 },
    /// A packet type a CPU agent's queue does not run.
    #[error("packet {packet}: type {packet_type} is not supported by a CPU agent's queue")]
    UnsupportedPacketType { packet: u64, packet_type: u16 },
    /// A host-callback packet whose callback is not queued.
    #[error("packet {packet}: no queued host callback has token {token}")]
    UnknownCallback { packet: u64, token: u64 },
    /// A host callback that panicked.
    #[error("packet {packet}: the host callback panicked")]
    CallbackPanicked { packet: u64 },
    /// An agent dispatch of a function id with no registered function.
    #[error("packet {packet}: agent dispatch of unknown function id {function_id:#06x}")]
    UnknownFunction { packet: u64, function_id: u16 },
    /// A host function that returned an error.
    #[error("packet {packet}: host function {function_id:#06x} failed: {source}")]
    FunctionFailed {
        packet: u64,
        function_id: u16,
        #[source]
        source: crate::agent_queue::HostFunctionError,
    },
    /// A host function that panicked.
    #[error("packet {packet}: host function {function_id:#06x} panicked")]
    FunctionPanicked { packet: u64, function_id: u16 },
    /// A barrier dependency whose producing queue failed, so it never
    /// completes.
    #[error(
        "barrier dependency signal {signal:#x} will never complete: queue {queue_id} failed ({reason})"
    )]
    DependencyFailed {
        signal: u64,
        queue_id: u32,
        reason: QueueErrorReason,
    },
    /// A queue dropped with packets it never ran.
    #[error("agent queue destroyed with {pending} packet(s) not run")]
    QueueDestroyed { pending: u64 },
}

/// A queue error as reported to callers: which queue, why, and what the
/// device could tell beyond the exception bits.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct QueueError {
    pub queue_id: u32,
    pub reason: QueueErrorReason,
    pub detail: Option<QueueFaultDetail>,
}
