//! Queue errors and GPU VM faults, reported the way KFD reports them.
//!
//! These are the only ways a fault reaches the runtime; what gfxsim knows
//! beyond them (PC, instruction, exact address) is kept for
//! `SimDevice::wave_error` and never crosses the `KfdDevice` boundary.
//!
//! - A queue error ORs `exception_mask(code)` into the u64 the queue's
//!   context-save header points at (`error_reason`, if nonzero) and sets
//!   the header's `error_event_id`; the queue then halts (UAPI
//!   `kfd_ioctl.h` `struct kfd_context_save_area_header`; ROCr
//!   `AqlQueue::DynamicQueueEventsHandler` and `ExceptionHandler` read the
//!   word). Which agent writes the word (CP firmware, trap handler) is not
//!   public source; only hardware can confirm the bits per fault.
//! - A memory fault is also a VM fault: every MEMORY event of the process
//!   gets `memory_exception_data` (failure flags, the faulting page's
//!   address, the gpu_id) and fires, before the queue error is raised
//!   (Linux `kfd_events.c` `kfd_signal_vm_fault_event`, called from
//!   `event_interrupt_wq_v11` for a UTCL2 fault).
//! - HW_EXCEPTION events fire only on a GPU reset (Linux `kfd_events.c`
//!   `kfd_signal_reset_event`, from `amdgpu_amdkfd_pre_reset`). amdkfd has
//!   no time limit on a compute queue: a kernel that never ends runs until
//!   a preemption fails, and only then does the driver reset the GPU
//!   (`kfd_device_queue_manager.c` `unmap_queues_cpsch` → `kfd_hws_hang`).
//!   gfxsim's dispatch watchdog is a simulator aid with no driver
//!   counterpart; it stops the waves the way a wave abort does
//!   (`EC_QUEUE_WAVE_ABORT`) and sends no reset event, since gfxsim never
//!   resets a GPU.

use std::sync::atomic::Ordering;

use aqueduct_kfd::uapi::exception_code::{self, exception_mask};
use aqueduct_kfd::uapi::{MemoryExceptionData, MemoryExceptionFailure, UserContextSaveAreaHeader};

use crate::config::DISPATCH_TIMEOUT_ENV;
use crate::events::Events;
use crate::memory::PAGE_SIZE;
use crate::memory::vm::{FaultKind, GpuVm};
use aqueduct_isa::{Access, MemoryFault, WaveError, WaveErrorKind};

/// What went wrong on a queue: an exception code, a human-readable detail,
/// and the memory fault behind it, if any.
#[derive(Clone, Debug)]
pub struct QueueError {
    pub code: u32,
    pub detail: String,
    pub fault: Option<MemoryFault>,
}

impl QueueError {
    pub fn packet(code: u32, detail: impl Into<String>) -> Self {
        Self {
            code,
            detail: detail.into(),
            fault: None,
        }
    }

    /// A fault of the command processor itself (reading a packet, writing a
    /// signal).
    pub fn cp_fault(fault: MemoryFault, what: &str) -> Self {
        Self {
            code: exception_code::EC_QUEUE_WAVE_MEMORY_VIOLATION,
            detail: format!(
                "command processor fault {what}: {:?} at address {:#x}",
                fault.access, fault.address
            ),
            fault: Some(fault),
        }
    }

    /// The queue error a failed wave raises.
    pub fn from_wave(error: &WaveError) -> Self {
        let (code, fault) = match &error.kind {
            WaveErrorKind::MemoryViolation(fault) => {
                (exception_code::EC_QUEUE_WAVE_MEMORY_VIOLATION, Some(*fault))
            }
            WaveErrorKind::IllegalInstruction { .. } => {
                (exception_code::EC_QUEUE_WAVE_ILLEGAL_INSTRUCTION, None)
            }
            WaveErrorKind::Trap { .. } | WaveErrorKind::Halt => {
                (exception_code::EC_QUEUE_WAVE_TRAP, None)
            }
            WaveErrorKind::InvalidDescriptor(_) => {
                (exception_code::EC_QUEUE_PACKET_DISPATCH_CODE_INVALID, None)
            }
            // The watchdog killed the waves, as a debugger's or the
            // driver's wave abort would.
            WaveErrorKind::TimeLimit { .. } | WaveErrorKind::Cancelled => {
                (exception_code::EC_QUEUE_WAVE_ABORT, None)
            }
        };
        let detail = match &error.kind {
            // Say which knob sets the limit: a long kernel is not always a hung one.
            WaveErrorKind::TimeLimit { .. } => format!(
                "{error}; gfxsim's dispatch time limit is {DISPATCH_TIMEOUT_ENV} \
                 (milliseconds, 0 = none)"
            ),
            _ => error.to_string(),
        };
        Self {
            code,
            detail,
            fault,
        }
    }
}

/// Deliver a VM fault at `fault` on GPU `gpu_id` to the MEMORY events.
pub fn deliver_memory_fault(events: &Events, vm: &GpuVm, gpu_id: u32, fault: MemoryFault) {
    let kind = {
        let view = vm.view();
        view.check(fault.address, 1, fault.access)
            .unwrap_or(FaultKind::NotPresent)
    };
    let failure = MemoryExceptionFailure {
        not_present: (kind == FaultKind::NotPresent) as u32,
        read_only: (kind == FaultKind::ReadOnly) as u32,
        no_execute: (kind == FaultKind::NoExecute
            || fault.access == Access::Execute && kind == FaultKind::NotPresent)
            as u32,
        imprecise: 0,
    };
    let data = MemoryExceptionData {
        failure,
        va: fault.address & !(PAGE_SIZE - 1),
        gpu_id,
        error_type: 0,
    };
    tracing::debug!(
        "gfxsim: GPU {gpu_id:#x} VM fault: {kind:?} {:?} at {:#x}",
        fault.access,
        fault.address
    );
    events.memory_fault(data);
}

/// Report `error` through the queue's context-save header.
pub fn report_queue_error(
    events: &Events,
    vm: &GpuVm,
    gpu_id: u32,
    ctx_save_restore: u64,
    error: &QueueError,
) {
    if let Some(fault) = error.fault {
        deliver_memory_fault(events, vm, gpu_id, fault);
    }
    let header = {
        let view = vm.view();
        match view.read::<UserContextSaveAreaHeader>(ctx_save_restore) {
            Ok(header) => {
                if header.error_reason != 0 {
                    match view.atomic_u64(header.error_reason, Access::Atomic) {
                        Ok(word) => {
                            word.fetch_or(exception_mask(error.code), Ordering::AcqRel);
                        }
                        Err(f) => tracing::warn!(
                            "gfxsim: queue error_reason {:#x} is not writable ({f:?})",
                            header.error_reason
                        ),
                    }
                }
                Some(header)
            }
            Err(f) => {
                tracing::warn!(
                    "gfxsim: context-save header at {ctx_save_restore:#x} unreadable ({f:?})"
                );
                None
            }
        }
    };
    tracing::debug!("gfxsim: queue error {} ({})", error.code, error.detail);
    if let Some(header) = header
        && (header.error_reason != 0 || header.error_event_id != 0)
    {
        events.device_set(header.error_event_id);
    }
}
