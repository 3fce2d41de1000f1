//! [`QueueError`]: a queue that stopped, why ([`QueueErrorReason`], decoded
//! from the KFD exception bits), and what is known beyond the bits
//! ([`QueueFaultDetail`]): for a GPU queue, only what KFD reports
//! ([`GpuMemoryFault`], from a MEMORY event's data).

use aqueduct_kfd::uapi::MemoryExceptionData;

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

/// Which access rule a GPU VM fault broke, from the failure flags of
/// `kfd_hsa_memory_exception_data` (ROCr `runtime.cpp`
/// `Runtime::VMFaultHandler` reads the same flags). When several are set,
/// the first of not-present, read-only, no-execute wins, in ROCr's order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FaultAccess {
    /// The page is not mapped for the GPU.
    NotPresent,
    /// A write to a page mapped read-only.
    WriteToReadOnly,
    /// An instruction fetch from a page mapped no-execute.
    ExecuteNoExecute,
    /// KFD set none of the flags above.
    Unspecified,
}

impl std::fmt::Display for FaultAccess {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            FaultAccess::NotPresent => "page not present",
            FaultAccess::WriteToReadOnly => "write to a read-only page",
            FaultAccess::ExecuteNoExecute => "execute from a no-execute page",
            FaultAccess::Unspecified => "access fault",
        })
    }
}

/// A GPU VM fault as KFD delivers it through WAIT_EVENTS on a MEMORY event
/// (`kfd_hsa_memory_exception_data`, filled by Linux `kfd_events.c`
/// `kfd_signal_vm_fault_event`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GpuMemoryFault {
    /// The GPU whose VM faulted.
    pub gpu_id: u32,
    /// The faulting page's GPU virtual address.
    pub address: u64,
    pub access: FaultAccess,
    /// KFD marked the address imprecise (it may not be the first fault).
    pub imprecise: bool,
}

impl From<MemoryExceptionData> for GpuMemoryFault {
    fn from(data: MemoryExceptionData) -> Self {
        let f = data.failure;
        let access = if f.not_present != 0 {
            FaultAccess::NotPresent
        } else if f.read_only != 0 {
            FaultAccess::WriteToReadOnly
        } else if f.no_execute != 0 {
            FaultAccess::ExecuteNoExecute
        } else {
            FaultAccess::Unspecified
        };
        Self {
            gpu_id: data.gpu_id,
            address: data.va,
            access,
            imprecise: f.imprecise != 0,
        }
    }
}

impl std::fmt::Display for GpuMemoryFault {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "GPU {:#x} VM fault: {} at page {:#x}",
            self.gpu_id, self.access, self.address
        )?;
        if self.imprecise {
            f.write_str(" (imprecise)")?;
        }
        Ok(())
    }
}

/// What is known about a queue error beyond its exception bits.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum QueueFaultDetail {
    /// The VM fault KFD reported for the queue's GPU.
    #[error("{0}")]
    MemoryFault(GpuMemoryFault),
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

#[cfg(test)]
mod tests {
    use aqueduct_kfd::uapi::{MemoryExceptionData, MemoryExceptionFailure};

    use super::{FaultAccess, GpuMemoryFault};

    fn fault(not_present: u32, read_only: u32, no_execute: u32) -> GpuMemoryFault {
        GpuMemoryFault::from(MemoryExceptionData {
            failure: MemoryExceptionFailure {
                not_present,
                read_only,
                no_execute,
                imprecise: 1,
            },
            va: 0x7000,
            gpu_id: 0x1002,
            error_type: 0,
        })
    }

    #[test]
    fn the_access_kind_follows_the_failure_flags_in_rocr_order() {
        assert_eq!(fault(1, 0, 1).access, FaultAccess::NotPresent);
        assert_eq!(fault(0, 1, 1).access, FaultAccess::WriteToReadOnly);
        assert_eq!(fault(0, 0, 1).access, FaultAccess::ExecuteNoExecute);
        assert_eq!(fault(0, 0, 0).access, FaultAccess::Unspecified);
        let f = fault(0, 1, 0);
        assert_eq!((f.gpu_id, f.address, f.imprecise), (0x1002, 0x7000, true));
        assert_eq!(
            f.to_string(),
            "GPU 0x1002 VM fault: write to a read-only page at page 0x7000 (imprecise)"
        );
    }
}
