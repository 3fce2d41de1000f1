//! Memory pools of a GPU agent, as ROCr exposes them:
//!
//! - `CoarseDevice`: the agent's VRAM. Not host visible unless an
//!   allocation asks for it (then PUBLIC + CPU mmap, i.e. large BAR).
//!   Flags: VRAM|WRITABLE|NO_SUBSTITUTE [+PUBLIC] [+EXECUTABLE].
//! - `FineSystem`: system memory (GTT), coherent and host mapped.
//!   Flags: GTT|WRITABLE|COHERENT [+EXECUTABLE].
//! - `Kernarg`: like `FineSystem`, marked KERNARG_INIT; kernel arguments
//!   and small runtime structures live here.
//!
//! Every allocation is a whole BO (4 KiB granule); small blocks come from
//! the slab sub-allocator in `suballoc`. A device pool that finds no memory
//! for a BO has its agent's queues give back their scratch and tries once
//! more (`queue/scratch_reclaim.rs`).

use std::sync::Arc;

use aqueduct_kfd::uapi::alloc_flags;

use super::allocation::{Allocation, HostMapping};
use super::context::{BoRequest, MemoryContext};
use super::vmem::PAGE_SIZE;
use crate::error::{HsaError, HsaResult, MemoryError};
use crate::queue::scratch_reclaim::AgentScratch;

/// Allocations of at least this size are aligned to it (a GPU huge page).
pub const LARGE_ALLOC_ALIGN: u64 = 2 << 20;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PoolKind {
    CoarseDevice,
    FineSystem,
    Kernarg,
}

/// `hsa_amd_segment_t`: all pools here are in the global segment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Segment {
    Global,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PoolInfo {
    pub kind: PoolKind,
    pub segment: Segment,
    /// Bytes of memory behind the pool (from the node's memory banks).
    pub size: u64,
    /// Sizes are rounded up to this.
    pub alloc_granule: u64,
    /// Allocations start at a multiple of this.
    pub alloc_alignment: u64,
    /// `HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_KERNARG_INIT`.
    pub kernarg: bool,
    /// Fine-grained (coherent while kernels run) vs coarse-grained.
    pub fine_grained: bool,
    /// Host-mapped by default (fine pools); the coarse pool maps to the
    /// host only when an allocation asks for it.
    pub host_accessible: bool,
}

/// Per-allocation options.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AllocOptions {
    /// Make a coarse (VRAM) allocation host visible (PUBLIC + mmap).
    /// Fine pools are always host visible.
    pub host_access: bool,
    /// Allow the GPU to execute code from it (EXECUTABLE).
    pub executable: bool,
    /// Minimum alignment (power of two; 0 = the pool's).
    pub alignment: u64,
}

#[derive(Clone, Debug)]
pub struct MemoryPool {
    ctx: Arc<MemoryContext>,
    gpu_id: u32,
    info: PoolInfo,
    /// The agent's queues' scratch, reclaimed when a BO finds no memory.
    scratch: Option<Arc<AgentScratch>>,
}

impl MemoryPool {
    pub(crate) fn new(ctx: Arc<MemoryContext>, gpu_id: u32, kind: PoolKind, size: u64) -> Self {
        let fine = kind != PoolKind::CoarseDevice;
        let info = PoolInfo {
            kind,
            segment: Segment::Global,
            size,
            alloc_granule: PAGE_SIZE,
            alloc_alignment: PAGE_SIZE,
            kernarg: kind == PoolKind::Kernarg,
            fine_grained: fine,
            host_accessible: fine,
        };
        Self {
            ctx,
            gpu_id,
            info,
            scratch: None,
        }
    }

    /// Reclaim `scratch` and retry once when a BO finds no memory.
    pub(crate) fn with_scratch_reclaim(mut self, scratch: Arc<AgentScratch>) -> Self {
        self.scratch = Some(scratch);
        self
    }

    pub fn info(&self) -> &PoolInfo {
        &self.info
    }
    pub fn kind(&self) -> PoolKind {
        self.info.kind
    }
    /// The memory context allocations of this pool are made through (the
    /// vmem API places its BOs with it).
    pub(crate) fn context(&self) -> &Arc<MemoryContext> {
        &self.ctx
    }
    /// The gpu_id of the agent this pool belongs to.
    pub fn gpu_id(&self) -> u32 {
        self.gpu_id
    }

    /// `size` bytes with default options, mapped on the pool's agent.
    pub fn allocate(&self, size: u64) -> HsaResult<Allocation> {
        self.allocate_with(size, &AllocOptions::default())
    }

    pub fn allocate_with(&self, size: u64, options: &AllocOptions) -> HsaResult<Allocation> {
        self.allocate_mapped(size, options, &[self.gpu_id])
    }

    /// As [`MemoryPool::allocate_with`], mapped on `map_gpus` (which
    /// should include the pool's own GPU).
    pub fn allocate_mapped(
        &self,
        size: u64,
        options: &AllocOptions,
        map_gpus: &[u32],
    ) -> HsaResult<Allocation> {
        if size == 0 {
            return Err(MemoryError::ZeroSize {
                pool: self.info.kind,
            }
            .into());
        }
        if self.info.size != 0 && size > self.info.size {
            return Err(MemoryError::ExceedsPool {
                size,
                pool: self.info.kind,
                pool_size: self.info.size,
            }
            .into());
        }
        if options.alignment != 0 && !options.alignment.is_power_of_two() {
            return Err(MemoryError::Alignment {
                alignment: options.alignment,
            }
            .into());
        }
        let mut align = options.alignment.max(self.info.alloc_alignment);
        if size >= LARGE_ALLOC_ALIGN {
            align = align.max(LARGE_ALLOC_ALIGN);
        }
        let exec = if options.executable {
            alloc_flags::EXECUTABLE
        } else {
            0
        };
        let (flags, host_mapping) = match self.info.kind {
            PoolKind::CoarseDevice => {
                let base =
                    alloc_flags::VRAM | alloc_flags::WRITABLE | alloc_flags::NO_SUBSTITUTE | exec;
                if options.host_access {
                    (base | alloc_flags::PUBLIC, HostMapping::RenderNode)
                } else {
                    (base, HostMapping::None)
                }
            }
            PoolKind::FineSystem | PoolKind::Kernarg => (
                alloc_flags::GTT | alloc_flags::WRITABLE | alloc_flags::COHERENT | exec,
                HostMapping::RenderNode,
            ),
        };
        let request = BoRequest {
            size,
            align,
            flags,
            owner_gpu: self.gpu_id,
            host_mapping,
            map_gpus,
        };
        match self.ctx.allocate_bo(&request) {
            Err(e @ HsaError::Memory(MemoryError::DeviceMemoryExhausted { .. })) => {
                let freed = self
                    .scratch
                    .as_ref()
                    .map_or(0, |s| s.reclaim_for_allocation());
                if freed == 0 {
                    return Err(e);
                }
                tracing::debug!(
                    size,
                    freed,
                    "retrying an allocation after a scratch reclaim"
                );
                self.ctx.allocate_bo(&request)
            }
            result => result,
        }
    }
}
