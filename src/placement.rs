//! Where a buffer's memory lives, decided once from its usage:
//! - buffers the host maps (MAP_READ / MAP_WRITE) live in the fine-grained
//!   system pool, so a mapping is the memory itself (zero copy) and the
//!   device reaches it coherently;
//! - everything else (storage, uniform, copy, indirect) lives in the agent's
//!   coarse-grained pool (VRAM on hardware), which the host never touches:
//!   uploads go through the staging ring, readbacks through a copy into a
//!   mappable buffer.
//!
//! Coarse memory is not promised to be zero, so a new coarse buffer gets a
//! clear queued before its first use (fine memory comes zeroed from the OS,
//! or zeroed by memory_reuse.rs when it is a dropped buffer's).

use std::ops::Range;

use std::sync::Arc;

use aqueduct_hsa::{HsaError, PoolKind, Runtime};

use crate::memory_reuse::{MemoryReuse, ReusableAllocation};
use wgpu_types::BufferUsages;

/// The memory pool a buffer was placed in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Placement {
    /// Fine-grained system memory, host mapped.
    FineSystem,
    /// The agent's coarse-grained memory, device only.
    CoarseDevice,
}

impl Placement {
    /// The pool for a buffer of `usage`: fine-grained system memory when the host maps it, the
    /// agent's coarse-grained memory otherwise.
    pub fn for_usage(usage: BufferUsages) -> Placement {
        if usage.intersects(BufferUsages::MAP_READ | BufferUsages::MAP_WRITE) {
            Placement::FineSystem
        } else {
            Placement::CoarseDevice
        }
    }

    /// Whether the host reads or writes this memory directly (so device
    /// accesses to it need system-scope fences).
    pub fn host_visible(self) -> bool {
        self == Placement::FineSystem
    }
}

/// A buffer's memory; shared (Arc) by the buffer and every in-flight
/// submission that uses it, so it outlives `destroy` and drop until the
/// device is done with it.
#[derive(Debug)]
pub(crate) struct BufferMemory {
    pub alloc: ReusableAllocation,
    pub placement: Placement,
}

impl BufferMemory {
    pub(crate) fn allocate(
        runtime: &Runtime,
        reuse: &Arc<MemoryReuse>,
        agent: &aqueduct_hsa::Agent,
        size: u64,
        placement: Placement,
    ) -> Result<BufferMemory, HsaError> {
        let kind = match placement {
            Placement::FineSystem => PoolKind::FineSystem,
            Placement::CoarseDevice => PoolKind::CoarseDevice,
        };
        let pool = runtime.pool(agent, kind)?;
        // Zero-sized buffers still get a page so every binding has an address.
        let alloc = reuse.allocate(pool, kind, size.max(4))?;
        Ok(BufferMemory { alloc, placement })
    }

    pub(crate) fn va(&self) -> u64 {
        self.alloc.gpu_va()
    }

    /// The device address range of `range` (buffer-relative).
    pub(crate) fn va_range(&self, range: Range<u64>) -> Range<u64> {
        self.va() + range.start..self.va() + range.end
    }

    pub(crate) fn host_ptr(&self) -> Option<*mut u8> {
        self.alloc.host_ptr().map(|p| p.as_ptr())
    }
}
