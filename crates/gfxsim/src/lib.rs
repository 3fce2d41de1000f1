//! aqueduct-gfxsim: a simulated AMD GPU below the KFD boundary.
//!
//! [`SimDevice`] implements `aqueduct_kfd::KfdDevice`: it publishes the
//! topology of a [`SimPart`] (an RX 7900 XTX, gfx1100, unless
//! `AQUEDUCT_SIM_PART` / `AQUEDUCT_SIM_ISA` or `SimConfig::part` pick an
//! MI300X or a gfx90a part, whose GFX9 code it executes too), backs buffer objects with host memory, owns AQL queues
//! with one command-processor thread each, and runs dispatches on a pool of
//! worker threads per GPU through the ISA emulator of `aqueduct_isa`.
//!
//! With `SimConfig::strict_coherence` (or `AQUEDUCT_SIM_STRICT_COHERENCE=1`)
//! each GPU caches coarse-grained memory as hardware does: only system-scope
//! fences move it between the GPU and the memory the host sees; a dispatch
//! launched without an agent-scope acquire may read old per-CU cache lines
//! of what earlier dispatches wrote; stale reads are reported as
//! [`CoherenceReport`]s (`SimDevice::coherence_reports`).
//!
//! With `SimConfig::sanitize` (or `AQUEDUCT_SIM_SANITIZE=all`) every
//! dispatch runs under the sanitizer (`sanitizer/`): out-of-bounds global,
//! LDS and private accesses, LDS races, uninitialised LDS and device-memory
//! reads, barriers not every wave reaches, and (named on its own) races
//! between workgroups on global memory, reported as [`SanitizerReport`]s
//! (`SimDevice::sanitizer_reports`) and on stderr.

mod clock;
mod coherence;
mod coherence_report;
mod config;
mod device;
mod dispatch;
mod dispatch_counters;
mod doorbell;
mod events;
mod fault;
mod gpu;
mod kfd_version;
mod memory;
mod observer_pair;
mod part;
mod queue;
mod sanitizer;
mod sdma;
mod stats;
mod topology;
mod wake;

pub use aqueduct_isa::gfx11::{ClassCounts, InstClass};
pub use coherence_report::{
    AllocationId, CoherenceReport, CoherenceStats, PacketId, StaleRead, XccPair,
    process_coherence_reports, process_coherence_stats,
};
pub use config::{
    DEFAULT_DISPATCH_TIMEOUT, DEFAULT_VRAM_SIZE, DISPATCH_TIMEOUT_ENV, GPUS_ENV, MAX_THREADS,
    MIN_DEFAULT_VRAM_SIZE, MIN_KFD_MINOR_VERSION, STRICT_COHERENCE_ENV, SimConfig, THREADS_ENV,
    VRAM_MB_ENV, default_part,
};
pub use device::SimDevice;
pub use dispatch_counters::{COUNTER_LOG_LIMIT, DispatchCounters, Occupancy, OccupancyLimit};
pub use gpu::{GPUVM_USER_BASE, LDS_APERTURE_BASE, SCRATCH_APERTURE_BASE};
pub use memory::POPULATE_LIMIT;
pub use memory::fresh_vram::{AMDGPU_POISON, FRESH_VRAM_ENV, FreshVram, POISON_LIMIT};
pub use memory::vram_pool::POOL_LIMIT;
pub use part::{CacheLevel, ISA_ENV, PART_ENV, PartProperties, SimPart, SimPartError};
pub use sanitizer::{
    Access, Allocation, Finding, SANITIZE_ENV, SanitizeParseError, SanitizerConfig,
    SanitizerReport, Site, TOOL_NAMES, Tool,
};
pub use sdma::{MAX_SDMA_QUEUES, SDMA_ENGINES, SDMA_QUEUES_PER_ENGINE};
pub use stats::SimStats;
pub use topology::{FIRST_RENDER_MINOR, GFX1100_TARGET_VERSION, gpu_id_of};
