//! Per-host-thread reusable state: wave register files, the LDS buffer,
//! the first scratch wave slot its workgroups use, and a private view of
//! the code cache (no lock per block jump). Private memory is not here: it
//! lives in the queue's scratch backing memory (`crate::ScratchBacking`).
//!
//! The private blocks live in a vector and waves refer to them by index, so
//! a block transition is a lookup in a small direct-mapped table of recent
//! branch targets (one compare on a hit) and never touches a reference
//! count or the hash map; the map is consulted only when that table misses.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use super::code_cache::{Block, CodeCache};
use super::exec::SpanCache;
use super::wave::Wave;

/// Entries of the recent-target table (a power of two). private_sort's 10.5k
/// instructions lie in ~2000 blocks: with 256 entries it went to the hash
/// map 91k times in 565k wave-instructions.
const RECENT: usize = 1024;

/// Reusable storage for running workgroups on one host thread.
pub struct WorkerContext {
    pub(crate) waves: Vec<Wave>,
    pub(crate) lds: Vec<u8>,
    /// Wave `k` of a workgroup this worker runs uses scratch wave slot
    /// `scratch_wave_slot + k`.
    pub(crate) scratch_wave_slot: u32,
    /// Private copies of the blocks this worker used (a refcount or a line
    /// shared by all workers would bounce between host cores on each branch:
    /// saxpy on 16 threads, 1.6 -> 5.9 GB/s).
    blocks: Vec<Block>,
    /// Block start address -> index in `blocks`.
    index: HashMap<u64, u32, BuildHasherDefault<PcHasher>>,
    /// Direct-mapped by the start address's dword index: (start, index in `blocks`).
    recent: Box<[(u64, u32); RECENT]>,
    /// (identity of the CodeCache, its generation) the private blocks came from.
    source: (usize, u64),
    /// Memoised translations, kept while the memory's version holds (None
    /// while a batch of workgroups holds them).
    pub(crate) spans: Option<Box<SpanCache>>,
    /// Per private block: entry counts and translations (jit/tier.rs).
    #[cfg(feature = "llvm-jit")]
    tiers: super::jit::Tiers,
}

impl Default for WorkerContext {
    fn default() -> Self {
        WorkerContext {
            waves: Vec::new(),
            lds: Vec::new(),
            scratch_wave_slot: 0,
            blocks: Vec::new(),
            index: HashMap::default(),
            recent: Box::new([(u64::MAX, 0); RECENT]),
            source: (0, 0),
            spans: None,
            #[cfg(feature = "llvm-jit")]
            tiers: Default::default(),
        }
    }
}

impl WorkerContext {
    pub fn new() -> WorkerContext {
        WorkerContext::default()
    }

    /// Give this worker's workgroups the scratch wave slots from `first` on
    /// (one per wave): the command processor hands each worker its own run
    /// of slots, so no two running waves share one.
    pub fn set_scratch_wave_slot(&mut self, first: u32) {
        self.scratch_wave_slot = first;
    }

    /// Make the private blocks valid for `cache`.
    pub(crate) fn sync(&mut self, cache: &CodeCache) {
        let id = (cache as *const CodeCache as usize, cache.generation());
        if self.source != id {
            self.blocks.clear();
            self.index.clear();
            self.recent.fill((u64::MAX, 0));
            self.source = id;
            #[cfg(feature = "llvm-jit")]
            self.tiers.clear();
        }
        #[cfg(feature = "llvm-jit")]
        self.tiers.configure();
    }

    /// Count a wave32 entry of block `idx` and give its translation (and
    /// the call-out it uses) once it is hot (jit/tier.rs).
    #[cfg(feature = "llvm-jit")]
    #[inline]
    pub(crate) fn translated(
        &mut self,
        idx: u32,
        wave64: bool,
        cache: &CodeCache,
        paused: &super::paused_time::PausedTime,
    ) -> Option<super::jit::Entered> {
        let block = &self.blocks[idx as usize];
        self.tiers
            .enter(idx, wave64, block, cache, self.source.1, paused)
    }

    /// The two-wave translation of block `idx` (wave32), once
    /// [`WorkerContext::translated`] gave its translation.
    #[cfg(feature = "llvm-jit")]
    #[inline]
    pub(crate) fn pair_translated(&self, idx: u32) -> Option<super::jit::PairFn> {
        self.tiers.pair(idx)
    }

    /// Index of the block starting at `pc` (for [`WorkerContext::block_at`]),
    /// decoding it on first use.
    #[inline]
    pub(crate) fn block_index(
        &mut self,
        cache: &CodeCache,
        pc: u64,
        mem: &dyn crate::GpuMemory,
    ) -> u32 {
        let slot = (pc >> 2) as usize & (RECENT - 1);
        let (start, idx) = self.recent[slot];
        if start == pc {
            return idx;
        }
        let idx = self.block_index_slow(cache, pc, mem);
        self.recent[slot] = (pc, idx);
        idx
    }

    #[cold]
    fn block_index_slow(&mut self, cache: &CodeCache, pc: u64, mem: &dyn crate::GpuMemory) -> u32 {
        if let Some(&idx) = self.index.get(&pc) {
            return idx;
        }
        let idx = self.blocks.len() as u32;
        self.blocks.push(Block::clone(&cache.block(pc, mem)));
        #[cfg(feature = "llvm-jit")]
        self.tiers.push();
        self.index.insert(pc, idx);
        idx
    }

    /// The block `block_index` returned `idx` for (valid until the next `sync`).
    #[inline]
    pub(crate) fn block_at(&self, idx: u32) -> &Block {
        &self.blocks[idx as usize]
    }
}

impl std::fmt::Debug for WorkerContext {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WorkerContext")
            .field("waves", &self.waves.len())
            .field("lds", &self.lds.len())
            .field("blocks", &self.blocks.len())
            .finish()
    }
}

/// Hasher for code addresses (already well distributed in their low bits after a multiply).
#[derive(Default)]
struct PcHasher(u64);

impl Hasher for PcHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.0 = (self.0 ^ *b as u64).wrapping_mul(0x100_0000_01b3);
        }
    }
    fn write_u64(&mut self, v: u64) {
        self.0 = (v ^ (v >> 29)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
}
