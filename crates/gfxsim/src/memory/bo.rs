//! Buffer objects: what ALLOC_MEMORY_OF_GPU creates, and the table that
//! finds them by handle (MAP/UNMAP/FREE) and by mmap offset (mmap of the
//! render node).

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use aqueduct_kfd::uapi::alloc_flags;

use super::backing::Backing;
use crate::coherence::{BoSharing, is_coarse};

/// The memory type of a BO (exactly one `alloc_flags` type bit).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MemType {
    Vram,
    Gtt,
    UserPtr,
    Doorbell,
    MmioRemap,
}

impl MemType {
    /// The type named by `flags`, if exactly one type bit is set.
    pub fn from_flags(flags: u32) -> Option<MemType> {
        let bits = flags & alloc_flags::TYPE_MASK;
        match bits {
            alloc_flags::VRAM => Some(MemType::Vram),
            alloc_flags::GTT => Some(MemType::Gtt),
            alloc_flags::USERPTR => Some(MemType::UserPtr),
            alloc_flags::DOORBELL => Some(MemType::Doorbell),
            alloc_flags::MMIO_REMAP => Some(MemType::MmioRemap),
            _ => None,
        }
    }
}

#[derive(Clone, Debug)]
pub struct Bo {
    pub handle: u64,
    /// The GPU it was allocated on.
    pub gpu_id: u32,
    pub va: u64,
    pub size: u64,
    pub flags: u32,
    pub mem_type: MemType,
    /// Out value of ALLOC (DRM-style fake offset for VRAM/GTT, the KFD
    /// doorbell/MMIO offset, the CPU address for USERPTR).
    pub mmap_offset: u64,
    pub backing: Arc<Backing>,
    /// gpu_ids whose page tables map this BO.
    pub mapped_on: Vec<u32>,
    /// Who can see the BO besides one GPU (strict coherence mode).
    pub sharing: Arc<BoSharing>,
    /// Made by IMPORT_DMABUF: its memory is charged to the exporter, not
    /// to this BO's GPU.
    pub imported: bool,
}

impl Bo {
    pub fn writable(&self) -> bool {
        self.flags & alloc_flags::WRITABLE != 0
    }
    pub fn executable(&self) -> bool {
        self.flags & alloc_flags::EXECUTABLE != 0
    }
    /// Coarse-grained: cached by a GPU without coherence (see coherence.rs).
    pub fn coarse(&self) -> bool {
        is_coarse(self.mem_type, self.flags)
    }
}

/// First fake mmap offset for render-node BOs (DRM starts its offset space
/// at 4 GiB as well).
const FIRST_RENDER_OFFSET: u64 = 1 << 32;

#[derive(Debug)]
pub struct BoTable {
    by_handle: HashMap<u64, Bo>,
    /// Render-node mmap offset -> handle.
    by_offset: BTreeMap<u64, u64>,
    next_id: u32,
    next_offset: u64,
}

impl Default for BoTable {
    fn default() -> Self {
        Self {
            by_handle: HashMap::new(),
            by_offset: BTreeMap::new(),
            next_id: 1,
            next_offset: FIRST_RENDER_OFFSET,
        }
    }
}

impl BoTable {
    /// The handle for a new BO of `gpu_id`: (gpu_id << 32) | id, as KFD's
    /// MAKE_HANDLE does.
    pub fn next_handle(&mut self, gpu_id: u32) -> u64 {
        let id = self.next_id;
        self.next_id = self.next_id.wrapping_add(1).max(1);
        ((gpu_id as u64) << 32) | id as u64
    }

    /// A fresh page-aligned render-node mmap offset for `size` bytes.
    pub fn next_render_offset(&mut self, size: u64) -> u64 {
        let offset = self.next_offset;
        // One guard page between BOs so offsets never abut.
        self.next_offset += size.next_multiple_of(4096) + 4096;
        offset
    }

    pub fn insert(&mut self, bo: Bo, render_offset: bool) {
        if render_offset {
            self.by_offset.insert(bo.mmap_offset, bo.handle);
        }
        self.by_handle.insert(bo.handle, bo);
    }

    pub fn get(&self, handle: u64) -> Option<&Bo> {
        self.by_handle.get(&handle)
    }

    pub fn get_mut(&mut self, handle: u64) -> Option<&mut Bo> {
        self.by_handle.get_mut(&handle)
    }

    pub fn remove(&mut self, handle: u64) -> Option<Bo> {
        let bo = self.by_handle.remove(&handle)?;
        if self.by_offset.get(&bo.mmap_offset) == Some(&handle) {
            self.by_offset.remove(&bo.mmap_offset);
        }
        Some(bo)
    }

    /// The BO whose render-node offset range contains `offset`.
    pub fn by_render_offset(&self, offset: u64) -> Option<&Bo> {
        let (_, handle) = self.by_offset.range(..=offset).next_back()?;
        let bo = self.by_handle.get(handle)?;
        (offset < bo.mmap_offset + bo.size).then_some(bo)
    }
}
