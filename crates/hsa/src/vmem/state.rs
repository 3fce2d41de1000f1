//! The vmem manager's tables: reserved VA ranges, physical handles and the
//! mappings of handles into reserved ranges, with the use and reference
//! counts that decide when each may go (as ROCr keeps them: a reserved
//! range counts its mappings; a handle counts its mappings and its
//! create/import/retain references, and its memory is freed when both
//! reach zero).

use std::collections::{BTreeMap, HashMap};
use std::os::fd::OwnedFd;

use crate::memory::MemoryPool;

use super::access::Access;
use super::handle::MemoryType;

/// A range from `reserve`.
#[derive(Debug)]
pub(crate) struct Reserved {
    pub size: u64,
    /// Mappings inside the range.
    pub mappings: u32,
}

/// Memory behind an [`super::AllocHandle`].
#[derive(Debug)]
pub(crate) struct Physical {
    pub pool: MemoryPool,
    pub size: u64,
    pub memory_type: MemoryType,
    /// The memory-only BO (ALLOC_MEMORY_OF_GPU or IMPORT_DMABUF at VA 0)
    /// that holds the memory for this process.
    pub bo: u64,
    /// The GPU the BO belongs to.
    pub gpu_id: u32,
    /// A dma-buf of the memory: what each mapping imports at its VA, and
    /// what host access maps.
    pub dmabuf: OwnedFd,
    /// (st_dev, st_ino) of the dma-buf: the same memory imported twice is
    /// one handle.
    pub identity: (u64, u64),
    /// create/import/retain references not yet released.
    pub refs: u32,
    /// Mappings of this handle.
    pub mappings: u32,
}

/// A handle mapped at a VA inside a reserved range.
#[derive(Debug)]
pub(crate) struct Mapped {
    pub size: u64,
    pub handle: u64,
    /// The reserved range it lies in (its start).
    pub reserved: u64,
    /// The BO IMPORT_DMABUF placed at the mapping's VA.
    pub bo: u64,
    /// Access set per GPU (gpu_id); GPUs with access other than None
    /// have the BO mapped.
    pub gpus: BTreeMap<u32, Access>,
    /// Host (CPU agent) access; the VA is PROT_NONE on the host unless set.
    pub cpu: Option<Access>,
}

#[derive(Debug, Default)]
pub(crate) struct State {
    pub reserved: BTreeMap<u64, Reserved>,
    pub handles: HashMap<u64, Physical>,
    pub mapped: BTreeMap<u64, Mapped>,
    pub next_handle: u64,
}

impl State {
    /// The reserved range holding all of `[va, va+size)`, by its start.
    pub fn reserved_containing(&self, va: u64, size: u64) -> Option<u64> {
        let end = va.checked_add(size)?;
        let (&start, r) = self.reserved.range(..=va).next_back()?;
        (end <= start + r.size).then_some(start)
    }

    /// The mapping containing `va`, by its start.
    pub fn mapping_containing(&self, va: u64) -> Option<u64> {
        let (&start, m) = self.mapped.range(..=va).next_back()?;
        (va < start + m.size).then_some(start)
    }

    /// Whether `[va, va+size)` overlaps any mapping.
    pub fn overlaps_mapping(&self, va: u64, size: u64) -> bool {
        let end = va.saturating_add(size);
        if self.mapping_containing(va).is_some() {
            return true;
        }
        self.mapped.range(va..end).next().is_some()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reserved(size: u64) -> Reserved {
        Reserved { size, mappings: 0 }
    }

    #[test]
    fn lookups_respect_range_ends() {
        let mut s = State::default();
        s.reserved.insert(0x10_000, reserved(0x4000));
        assert_eq!(s.reserved_containing(0x10_000, 0x4000), Some(0x10_000));
        assert_eq!(s.reserved_containing(0x11_000, 0x3000), Some(0x10_000));
        assert_eq!(s.reserved_containing(0x11_000, 0x3001), None);
        assert_eq!(s.reserved_containing(0xf_000, 0x1000), None);
        assert_eq!(s.reserved_containing(u64::MAX - 1, 2), None);
    }
}
