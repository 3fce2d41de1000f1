//! Strict coherence mode: what a GPU's cache does to coarse-grained memory.
//!
//! On hardware, coarse-grained memory (VRAM, or system memory allocated
//! without KFD's COHERENT flag: libhsakmt's `fmm_translate_ioc_to_hsa_flags`
//! calls a BO coarse exactly when COHERENT is clear; UNCACHED and
//! EXT_COHERENT memory is never cached either) is cached by the GPU's L2
//! without being kept coherent with the rest of the system. A kernel's
//! writes reach memory only when a release fence at system scope writes the
//! cache back, and memory changed by the host or another GPU reaches a
//! kernel only after an acquire at system scope invalidates the cache. The
//! AQL packet header carries those fences (acquire at launch, release at
//! completion); ROCr's "ownership transfer" of coarse memory is exactly
//! choosing their scopes. Fine-grained memory stays coherent.
//!
//! The model (only with `SimConfig::strict_coherence`; off, nothing here
//! runs and a mapping costs one `None` check per translation):
//! - Each GPU that maps a coarse BO gets its own copy of it (a
//!   [`CoarseCache`]): the GPU's page table points at the copy, while the
//!   host's mmap of the render node and every other GPU see memory (the
//!   BO's backing). The copy is filled from memory at MAP time; this is the
//!   worst case of a cache (every line resident from the start), so a
//!   runtime that forgets a fence always reads stale data, never by luck
//!   the fresh data.
//! - Kernel stores (and atomics) through the GPU's translation mark the
//!   copy's dirty byte range (one lowest..highest range per BO).
//! - Release at SYSTEM scope, when a packet completes (before its
//!   completion signal is decremented): every dirty range of every coarse
//!   copy on that GPU is written back to memory, as an L2 writeback does.
//! - Acquire at SYSTEM scope, when a packet launches (before its
//!   workgroups start): the clean bytes (outside the dirty range) of every
//!   shared copy are reloaded from memory, as an L2 invalidate does; dirty
//!   bytes stay, as dirty lines do.
//! - AGENT and NONE scopes move nothing in the L2 model: every queue of a
//!   GPU shares its copy (one L2 per agent), so a consumer on the same
//!   agent sees the data with agent-scope fences, and a consumer elsewhere
//!   never does. Between AGENT and NONE the difference is the per-CU caches
//!   (GL0, GL1, the scalar cache), which only an agent-or-wider acquire
//!   invalidates: `coherence/cu_cache.rs` models them for every memory type
//!   they hold, coarse- and fine-grained.
//! - UNMAP (and FREE) of a coarse BO writes its dirty range back first.
//! - On an agent of several XCCs (gfx942), each XCC has its own L2, not
//!   coherent with the others: `coherence/xcc_l2.rs` models them inside
//!   the agent, for kernels on different XCCs.
//!
//! Detection. A BO is *shared* when the host mapped it (mmap of the render
//! node) or more than one GPU maps it; only then can anybody else read it.
//! - Host (or other agent) reads stale data: the host cannot be trapped
//!   cheaply, but it learns of finished work only through completion
//!   signals. So when a packet with a completion signal completes with a
//!   release scope below SYSTEM, each shared coarse copy on its GPU whose
//!   dirty range differs from memory is reported
//!   ([`StaleRead::HostReadsUnreleasedKernelWrites`]): whoever waits on that
//!   signal and reads the allocation reads stale bytes. A correct runtime
//!   releases at system scope on every packet whose completion the host
//!   consumes after kernels wrote shared coarse memory.
//! - A kernel reads stale data: when a packet launches with an acquire
//!   scope below SYSTEM, each shared coarse copy is compared with memory
//!   outside its dirty range; the differing range becomes the copy's stale
//!   window, and the first kernel access that reads inside it is reported
//!   ([`StaleRead::KernelReadsUnacquiredHostWrites`]) with that packet. A
//!   system-scope acquire closes the window.
//!
//! Fences and kernels never run at once on a GPU: every `VmView` (a batch
//! of workgroups, a packet's CP work) holds the GPU's fence lock shared,
//! and the command processor takes it exclusively for a fence, so a reload
//! never overwrites a store in flight and a writeback never copies half of
//! one. Limits (documented, not bugs): one dirty range per copy (bytes
//! inside it that no kernel wrote count as written), staleness is found at
//! packet boundaries (a host write while a kernel runs is not seen), and
//! the host's own reads are inferred from completion signals as above.

pub mod cu_cache;
pub mod xcc_l2;

use std::ops::Range;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, RwLock};

use aqueduct_kfd::abi::FenceScope;
use aqueduct_kfd::uapi::alloc_flags;

use crate::coherence_report::{AllocationId, CoherenceLog, CoherenceReport, StaleRead};
use crate::memory::backing::Backing;
use crate::memory::bo::{Bo, MemType};
use crate::memory::vm::Mapping;
use aqueduct_isa::Access;
use cu_cache::PacketLines;
use xcc_l2::XccL2s;

/// Whether a BO of `mem_type` allocated with `flags` is coarse-grained.
pub fn is_coarse(mem_type: MemType, flags: u32) -> bool {
    let coherent = alloc_flags::COHERENT | alloc_flags::UNCACHED | alloc_flags::EXT_COHERENT;
    matches!(mem_type, MemType::Vram | MemType::Gtt | MemType::UserPtr) && flags & coherent == 0
}

/// Who besides one GPU can see a BO (shared by all its copies).
#[derive(Debug, Default)]
pub struct BoSharing {
    host_mapped: AtomicBool,
    gpus_mapped: AtomicU32,
}

impl BoSharing {
    /// The host mapped the BO (mmap of the render node).
    pub fn set_host_mapped(&self) {
        self.host_mapped.store(true, Ordering::Release);
    }

    /// Whether anybody other than a single GPU can read the BO.
    pub fn is_shared(&self) -> bool {
        self.host_mapped.load(Ordering::Acquire) || self.gpus_mapped.load(Ordering::Acquire) > 1
    }
}

/// A byte range `[lo, hi)` grown with atomics; empty when `lo >= hi`.
#[derive(Debug)]
struct AtomicRange {
    lo: AtomicU64,
    hi: AtomicU64,
}

impl AtomicRange {
    fn empty() -> Self {
        Self {
            lo: AtomicU64::new(u64::MAX),
            hi: AtomicU64::new(0),
        }
    }

    #[inline]
    fn grow(&self, start: u64, end: u64) {
        self.lo.fetch_min(start, Ordering::Relaxed);
        self.hi.fetch_max(end, Ordering::Relaxed);
    }

    #[inline]
    fn overlaps(&self, start: u64, end: u64) -> bool {
        self.lo.load(Ordering::Relaxed) < end && start < self.hi.load(Ordering::Relaxed)
    }

    fn get(&self) -> Option<Range<u64>> {
        let (lo, hi) = (
            self.lo.load(Ordering::Relaxed),
            self.hi.load(Ordering::Relaxed),
        );
        (lo < hi).then_some(lo..hi)
    }

    fn set(&self, range: Option<Range<u64>>) {
        let (lo, hi) = range.map_or((u64::MAX, 0), |r| (r.start, r.end));
        self.lo.store(lo, Ordering::Relaxed);
        self.hi.store(hi, Ordering::Relaxed);
    }

    fn take(&self) -> Option<Range<u64>> {
        let lo = self.lo.swap(u64::MAX, Ordering::Relaxed);
        let hi = self.hi.swap(0, Ordering::Relaxed);
        (lo < hi).then_some(lo..hi)
    }
}

/// The packet a fence belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PacketRef {
    pub queue_id: u32,
    pub index: u64,
    /// The acquire scope (at launch) or release scope (at completion).
    pub scope: FenceScope,
}

/// Bytes that differ between two equal-length byte strings.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Difference {
    /// First to last differing byte (offsets).
    range: Range<u64>,
    bytes: u64,
}

/// A stale window opened by a launch without a system-scope acquire.
#[derive(Clone, Debug)]
struct StaleWindow {
    diff: Difference,
    packet: PacketRef,
}

/// One GPU's copy of one coarse BO.
#[derive(Debug)]
pub struct CoarseCache {
    allocation: AllocationId,
    gpu_id: u32,
    /// What the host and other GPUs see.
    memory: Arc<Backing>,
    /// What this GPU's kernels see.
    device: Arc<Backing>,
    sharing: Arc<BoSharing>,
    /// Bytes kernels stored since the last writeback (offsets).
    dirty: AtomicRange,
    /// Mirror of `window`'s range for the translation fast path.
    stale: AtomicRange,
    window: Mutex<Option<StaleWindow>>,
    log: Arc<CoherenceLog>,
}

impl CoarseCache {
    /// GPU `gpu_id`'s copy of `bo`, filled from memory now.
    pub fn new(bo: &Bo, gpu_id: u32, log: Arc<CoherenceLog>) -> std::io::Result<Arc<CoarseCache>> {
        let device = Backing::new_memfd("gfxsim-coarse-copy", bo.size)?;
        let len = bo.size.min(bo.backing.size()) as usize;
        // SAFETY: both mappings are valid for `len` bytes (the BO's size) and
        // distinct; the copy is fresh, so nothing else uses it yet.
        unsafe { std::ptr::copy_nonoverlapping(bo.backing.ptr(), device.ptr(), len) };
        Ok(Arc::new(CoarseCache {
            allocation: AllocationId {
                handle: bo.handle,
                va: bo.va,
                size: bo.size,
            },
            gpu_id,
            memory: bo.backing.clone(),
            device: Arc::new(device),
            sharing: bo.sharing.clone(),
            dirty: AtomicRange::empty(),
            stale: AtomicRange::empty(),
            window: Mutex::new(None),
            log,
        }))
    }

    /// The copy is in the GPU's page table now.
    pub fn attached(&self) {
        self.sharing.gpus_mapped.fetch_add(1, Ordering::AcqRel);
        self.log.count_cached_mapping();
    }

    /// The backing the GPU's page table maps.
    pub fn device_backing(&self) -> Arc<Backing> {
        self.device.clone()
    }

    fn len(&self) -> u64 {
        self.allocation
            .size
            .min(self.memory.size())
            .min(self.device.size())
    }

    /// A kernel (or the CP) accesses `[offset, offset+len)` of the copy.
    #[inline]
    pub fn on_access(&self, offset: u64, len: u64, access: Access) {
        let end = offset.saturating_add(len);
        if matches!(access, Access::Write | Access::Atomic) {
            self.dirty.grow(offset, end);
        }
        if !matches!(access, Access::Write) && self.stale.overlaps(offset, end) {
            self.stale_read(offset, len);
        }
    }

    #[cold]
    fn stale_read(&self, offset: u64, len: u64) {
        let window = self.window.lock().unwrap_or_else(|e| e.into_inner()).take();
        self.stale.set(None);
        let Some(w) = window else {
            return; // another worker reported it first
        };
        let va = self.allocation.va;
        self.log.record(CoherenceReport {
            kind: StaleRead::KernelReadsUnacquiredHostWrites,
            allocation: self.allocation,
            gpu_id: self.gpu_id,
            queue_id: w.packet.queue_id,
            packet_index: w.packet.index,
            scope: w.packet.scope,
            stale: va + w.diff.range.start..va + w.diff.range.end,
            stale_bytes: w.diff.bytes,
            read_at: Some((va + offset, len)),
            writer: None,
            kernel_object: None,
            xccs: None,
        });
    }

    /// Copy the dirty range to memory; returns the bytes copied.
    fn write_back(&self) -> u64 {
        let Some(range) = self.dirty.take() else {
            return 0;
        };
        let end = range.end.min(self.len());
        if range.start >= end {
            return 0;
        }
        let n = (end - range.start) as usize;
        // SAFETY: both backings are valid for len() bytes and distinct;
        // no kernel of this GPU runs (the caller holds the fence lock or the
        // page table's write lock), and coarse memory has one writer at a
        // time by contract.
        unsafe {
            std::ptr::copy_nonoverlapping(
                self.device.ptr().add(range.start as usize),
                self.memory.ptr().add(range.start as usize),
                n,
            )
        };
        n as u64
    }

    /// The clean parts of the copy (outside the dirty range).
    fn clean_parts(&self) -> [Range<u64>; 2] {
        let len = self.len();
        match self.dirty.get() {
            Some(d) => [0..d.start.min(len), d.end.min(len)..len],
            None => [0..len, len..len],
        }
    }

    /// Reload the clean bytes from memory; returns the bytes copied.
    fn reload(&self) -> u64 {
        let mut copied = 0;
        for part in self.clean_parts() {
            if part.is_empty() {
                continue;
            }
            let n = (part.end - part.start) as usize;
            // SAFETY: as in write_back, in the other direction.
            unsafe {
                std::ptr::copy_nonoverlapping(
                    self.memory.ptr().add(part.start as usize),
                    self.device.ptr().add(part.start as usize),
                    n,
                )
            };
            copied += n as u64;
        }
        *self.window.lock().unwrap_or_else(|e| e.into_inner()) = None;
        self.stale.set(None);
        copied
    }

    /// Where copy and memory differ within `range`.
    fn difference(&self, range: Range<u64>) -> Option<Difference> {
        let range = range.start..range.end.min(self.len());
        if range.is_empty() {
            return None;
        }
        // SAFETY: both backings are valid for len() bytes and stay mapped
        // (this cache holds them); no kernel of this GPU runs while the
        // caller holds the fence lock, and the slices live only for this
        // comparison. The host may store into memory meanwhile only by
        // breaking the coarse-grained one-writer rule; the bytes are only
        // compared, never trusted.
        let (device, memory) = unsafe {
            (
                std::slice::from_raw_parts(self.device.ptr(), self.len() as usize),
                std::slice::from_raw_parts(self.memory.ptr(), self.len() as usize),
            )
        };
        let r = range.start as usize..range.end as usize;
        difference(&device[r.clone()], &memory[r]).map(|d| Difference {
            range: range.start + d.range.start..range.start + d.range.end,
            bytes: d.bytes,
        })
    }
}

/// Where `a` and `b` (same length) differ: compared 4 KiB at a time, byte
/// by byte only inside differing blocks.
fn difference(a: &[u8], b: &[u8]) -> Option<Difference> {
    const BLOCK: usize = 4096;
    let mut first = None;
    let mut last = 0;
    let mut bytes = 0u64;
    for (i, (x, y)) in a.chunks(BLOCK).zip(b.chunks(BLOCK)).enumerate() {
        if x == y {
            continue;
        }
        for (j, (p, q)) in x.iter().zip(y).enumerate() {
            if p != q {
                let at = (i * BLOCK + j) as u64;
                first.get_or_insert(at);
                last = at;
                bytes += 1;
            }
        }
    }
    first.map(|first| Difference {
        range: first..last + 1,
        bytes,
    })
}

/// One GPU's strict-coherence state: the fence lock and where reports go.
#[derive(Debug)]
pub struct GpuCoherence {
    gpu_id: u32,
    /// Shared by every page-table view, exclusive for a fence.
    pub fence: RwLock<()>,
    pub(crate) log: Arc<CoherenceLog>,
    /// The per-XCC L2s of an agent of several XCCs.
    xcc_l2s: Option<Arc<XccL2s>>,
}

impl GpuCoherence {
    /// The state of GPU `gpu_id`, whose agent has `xccs` XCCs.
    pub(crate) fn new(gpu_id: u32, xccs: u32, log: Arc<CoherenceLog>) -> Self {
        Self {
            gpu_id,
            fence: RwLock::new(()),
            xcc_l2s: XccL2s::new(gpu_id, xccs, log.clone()),
            log,
        }
    }

    /// The per-XCC L2s (agents of several XCCs only).
    pub fn xcc_l2s(&self) -> Option<&Arc<XccL2s>> {
        self.xcc_l2s.as_ref()
    }

    /// The fence a packet's launch performs (its acquire), over the GPU's
    /// `mappings` (table `version`); the caller holds the fence lock
    /// exclusively. A dispatch gets what it needs for the per-CU caches.
    pub fn launch_fence(
        &self,
        mappings: &[Mapping],
        version: u64,
        packet: PacketRef,
        dispatch: bool,
    ) -> Option<Arc<PacketLines>> {
        self.l2_acquire(mappings, packet);
        if let Some(x) = &self.xcc_l2s {
            x.acquire(packet);
        }
        cu_cache::launch(mappings, version, packet, dispatch)
    }

    /// The L2 side of a launch fence.
    fn l2_acquire(&self, mappings: &[Mapping], packet: PacketRef) {
        let caches = mappings.iter().filter_map(|m| m.coarse.as_deref());
        if packet.scope == FenceScope::System {
            let mut reloaded = 0;
            for c in caches.filter(|c| c.sharing.is_shared()) {
                reloaded += c.reload();
            }
            self.log.count_acquire(reloaded);
            tracing::trace!(
                "gfxsim gpu {:#x}: system acquire of packet {} (queue {}) reloaded {reloaded} bytes",
                self.gpu_id,
                packet.index,
                packet.queue_id
            );
            return;
        }
        for c in caches.filter(|c| c.sharing.is_shared()) {
            let [before, after] = c.clean_parts();
            let diff = match (c.difference(before), c.difference(after)) {
                (Some(a), Some(b)) => Some(Difference {
                    range: a.range.start..b.range.end,
                    bytes: a.bytes + b.bytes,
                }),
                (a, b) => a.or(b),
            };
            let mut window = c.window.lock().unwrap_or_else(|e| e.into_inner());
            match diff {
                Some(diff) => {
                    c.stale.set(Some(diff.range.clone()));
                    *window = Some(StaleWindow { diff, packet });
                }
                None => {
                    // Nothing changed since the copy was last in step; an
                    // older window (if never read) still stands.
                }
            }
        }
    }

    /// The fence a packet's completion performs (its release), over the
    /// GPU's `mappings`; the caller holds the fence lock exclusively.
    /// `signalled`: the packet has a completion signal; `lines`: a
    /// dispatch's per-CU cache side, whose stores join the agent's record.
    pub fn completion_fence(
        &self,
        mappings: &[Mapping],
        packet: PacketRef,
        signalled: bool,
        lines: Option<&PacketLines>,
    ) {
        if let Some(lines) = lines {
            cu_cache::complete(lines);
        }
        if let Some(x) = &self.xcc_l2s {
            x.release(packet);
        }
        let caches = mappings.iter().filter_map(|m| m.coarse.as_deref());
        if packet.scope == FenceScope::System {
            let mut written = 0;
            for c in caches {
                written += c.write_back();
            }
            self.log.count_release(written);
            tracing::trace!(
                "gfxsim gpu {:#x}: system release of packet {} (queue {}) wrote back {written} bytes",
                self.gpu_id,
                packet.index,
                packet.queue_id
            );
            return;
        }
        if !signalled {
            return;
        }
        for c in caches.filter(|c| c.sharing.is_shared()) {
            let Some(dirty) = c.dirty.get() else {
                continue;
            };
            if let Some(diff) = c.difference(dirty) {
                let va = c.allocation.va;
                self.log.record(CoherenceReport {
                    kind: StaleRead::HostReadsUnreleasedKernelWrites,
                    allocation: c.allocation,
                    gpu_id: c.gpu_id,
                    queue_id: packet.queue_id,
                    packet_index: packet.index,
                    scope: packet.scope,
                    stale: va + diff.range.start..va + diff.range.end,
                    stale_bytes: diff.bytes,
                    read_at: None,
                    writer: None,
                    kernel_object: None,
                    xccs: None,
                });
            }
        }
    }

    /// A coarse mapping goes away (UNMAP/FREE): write its dirty bytes back
    /// so they are not lost; the caller holds the page table exclusively.
    pub fn unmapped(&self, cache: &CoarseCache) {
        let written = cache.write_back();
        self.log.count_written_back(written);
        cache.sharing.gpus_mapped.fetch_sub(1, Ordering::AcqRel);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn coarse_rule_follows_the_coherent_flags() {
        use alloc_flags::*;
        assert!(is_coarse(MemType::Vram, VRAM | WRITABLE | NO_SUBSTITUTE));
        assert!(is_coarse(MemType::Vram, VRAM | WRITABLE | PUBLIC));
        assert!(is_coarse(MemType::Gtt, GTT | WRITABLE));
        assert!(!is_coarse(MemType::Gtt, GTT | WRITABLE | COHERENT));
        assert!(!is_coarse(MemType::Gtt, GTT | COHERENT | UNCACHED));
        assert!(!is_coarse(MemType::Vram, VRAM | EXT_COHERENT));
        assert!(!is_coarse(MemType::Doorbell, DOORBELL | WRITABLE));
        assert!(!is_coarse(MemType::MmioRemap, MMIO_REMAP | WRITABLE));
    }

    #[test]
    fn difference_finds_first_last_and_count() {
        let a = vec![0u8; 10_000];
        let mut b = a.clone();
        assert_eq!(difference(&a, &b), None);
        b[5] = 1;
        b[4097] = 2;
        b[9999] = 3;
        assert_eq!(
            difference(&a, &b),
            Some(Difference {
                range: 5..10_000,
                bytes: 3
            })
        );
    }

    #[test]
    fn atomic_range_grows_and_takes() {
        let r = AtomicRange::empty();
        assert_eq!(r.get(), None);
        assert!(!r.overlaps(0, u64::MAX));
        r.grow(100, 104);
        r.grow(40, 48);
        assert_eq!(r.get(), Some(40..104));
        assert!(r.overlaps(103, 200));
        assert!(!r.overlaps(104, 200));
        assert_eq!(r.take(), Some(40..104));
        assert_eq!(r.get(), None);
    }
}
