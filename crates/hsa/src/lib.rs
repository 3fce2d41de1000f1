//! aqueduct-hsa: Aqueduct's HSA core over the KfdDevice boundary.
//!
//! Modules: [`runtime`] (init, agents' contexts, the process-wide
//! instance), [`agent`], [`clock`] (the system clock and GPU timestamps in
//! it), [`memory`] (VA aperture, BOs, pools, sub-allocation), [`signal`]
//! (signals and KFD events), [`queue`] (AQL packets, ring protocol,
//! queues), [`executable`] (loaded code objects), [`code_object`] (the
//! loader), [`agent_queue`] (CPU-agent soft queues running host functions
//! through agent-dispatch packets) and [`vmem`] (virtual memory: reserve,
//! map, access, share between processes).

pub mod agent;
pub mod agent_queue;
pub mod clock;
pub mod code_object;
pub mod error;
pub mod executable;
pub mod memory;
mod process;
pub mod queue;
pub mod runtime;
pub mod sdma;
pub mod signal;
pub mod vmem;

pub use agent::{Agent, DeviceType};
pub use clock::{DispatchTime, system_timestamp};
pub use error::{
    AgentError, AgentFunctionError, ExecutableError, FaultAccess, GpuMemoryFault, HsaError,
    HsaResult, HsaStatus, MemoryError, PacketError, ProfilingError, QueueCreationError, QueueError,
    QueueErrorReason, QueueFaultDetail, ReservationError, SignalError,
};
pub use executable::{Executable, Kernel};
pub use memory::{
    AllocOptions, Allocation, MemoryPool, PoolInfo, PoolKind, SubAllocation, SubAllocator,
};
pub use queue::{
    KernelDispatch, PacketFence, Queue, Reservation, ScratchError, ScratchReclaimError,
};
pub use runtime::{Runtime, RuntimeOptions, global, init, shut_down};
pub use sdma::{SdmaError, SdmaQueue};
pub use signal::{MemoryOrder, Signal, WaitCondition, WaitHint};
