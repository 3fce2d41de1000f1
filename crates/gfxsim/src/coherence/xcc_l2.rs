//! Strict coherence mode: one L2 per XCC on agents of several XCCs
//! (gfx942, MI300X), which are not coherent with each other.
//!
//! What the public sources say, and what is modelled from it:
//! - LLVM `docs/AMDGPUUsage.rst`, "Memory Model GFX942": an agent may have
//!   "groups of CUs ... each sharing separate L2 caches". To make local
//!   memory writes of CUs with different L1s in the same agent coherent a
//!   `buffer_wbl2` is needed ("will writeback dirty L2 cache lines if
//!   configured to have multiple L2 caches"), and for reads a `buffer_inv
//!   sc1` ("will invalidate non-local L2 cache lines"). Its code sequences
//!   table: an agent-scope release is `buffer_wbl2 sc1`, an agent-scope
//!   acquire `buffer_inv sc1` (system scope adds sc0); work-group scope has
//!   neither. clang-19 emits exactly these for OpenCL's
//!   `memory_scope_device` and nothing for `memory_scope_work_group`.
//! - The same table: agent- and system-scope atomic loads and stores carry
//!   sc1 (the flag of a release/acquire handoff), so an sc1 load or store
//!   does not stop in the XCC's L2: a load with sc1 misses this XCC's old
//!   line, a store with sc1 writes through. The same section: "Atomic
//!   read-modify-write instructions implicitly bypass the L1 cache ... They
//!   do use sc1 to indicate system or agent scope coherence", and an
//!   agent-scope atomicrmw carries no cache bit yet must be coherent across
//!   the agent: atomics are performed where every XCC sees them. The nt
//!   bit is a temporal hint and changes nothing here.
//! - Packets: on GC 9.4.3 every XCC of the partition runs the queue's
//!   packets from its own MQD (Linux `kfd_mqd_manager_v9.c`,
//!   `init_mqd_v9_4_3`; `crates/isa/src/xcc.rs`), so a packet's acquire and
//!   release fences act on every XCC's caches. An AGENT- or SYSTEM-scope
//!   fence must make memory coherent across the agent (HSA runtime
//!   specification, packet fence scopes; LLVM's "scalar and vector caches
//!   are invalidated between kernel dispatches by CP"): a release writes
//!   back every XCC's L2, an acquire invalidates every XCC's L2. NONE does
//!   neither.
//! - Which memory: fine-grained memory is mapped MTYPE UC or CC (amdgpu
//!   `gmc_v9_0.c`, `gmc_v9_0_get_coherence_flags`), kept coherent by
//!   hardware; only coarse-grained BOs (the ones `coherence.rs` caches) are
//!   modelled.
//!
//! The model, in the worst case of a cache (every XCC's L2 holds every
//! line, old): a logical clock orders events. Each byte a kernel stores
//! remembers its XCC, when, and whether the store went through (sc1 or an
//! atomic). Per XCC the model keeps when its L2 was written back
//! (`buffer_wbl2 sc1` by any wave on it, or a release fence) and last
//! invalidated (`buffer_inv sc1`, or an acquire fence). A read on XCC B of
//! a byte last stored on XCC A != B at time S is fresh only if A's data
//! reached memory (through, or a writeback of A after S: time W) before the
//! read, and, unless the read bypasses B's L2 (sc1, atomics), B invalidated
//! after W. Otherwise the first such read of a packet is reported
//! ([`StaleRead::KernelReadsOtherXccWrites`]) with the reading kernel, the
//! address and both XCCs. The read still returns the current bytes: the
//! model reports, it does not keep old lines.
//!
//! Only with strict coherence on an agent of several XCCs: a dispatch then
//! runs observed (the executor's slow memory path, as under the sanitizer)
//! and pays a hash lookup per global byte it accesses. Limits (documented,
//! not bugs): at most [`MAX_TRACKED_BYTES`] unpublished bytes are
//! recorded per agent (an agent-scope acquire forgets what every XCC then
//! reads fresh); scalar loads count as plain loads; `global_load_lds` counts
//! as a plain load; lines are bytes (no false sharing of 128-byte lines);
//! MTYPE RW memory local to an L2, whose lines hardware invalidates on a
//! remote write, is treated like non-local memory (the model asks for the
//! `buffer_inv sc1` LLVM's sequences always emit); host and SDMA writes
//! are `coherence.rs`'s business; mappings are those the dispatch launched
//! with.

use std::collections::HashMap;
use std::ops::Range;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use aqueduct_isa::observer::{
    CacheControl, CacheOp, DispatchObserver, LaneAccesses, Segment, WaveSync, WorkgroupObserver,
};
use aqueduct_isa::{Access, XccSpread};
use aqueduct_kfd::abi::FenceScope;

use super::PacketRef;
use crate::coherence_report::{
    AllocationId, CoherenceLog, CoherenceReport, PacketId, StaleRead, XccPair,
};
use crate::memory::vm::Mapping;

/// Shards of the store record (by 64-byte block), so workers on different
/// data rarely meet on one lock.
const SHARDS: usize = 16;

/// Bytes of unpublished stores an agent's record holds at most (an entry
/// is a few dozen bytes of host memory). Past it, stores to bytes not yet
/// in the record are not recorded, so reads of them are not checked: the
/// model misses reports there, it never makes one up.
pub const MAX_TRACKED_BYTES: usize = 1 << 22;

/// The last kernel store to one byte.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Store {
    xcc: u32,
    at: u64,
    /// It went past the L2 (sc1 or an atomic): in memory from `at` on.
    through: bool,
    writer: PacketId,
}

/// One agent's per-XCC L2s.
#[derive(Debug)]
pub struct XccL2s {
    gpu_id: u32,
    clock: AtomicU64,
    /// Per XCC: the times its L2 was written back, ascending.
    writebacks: Box<[Mutex<Vec<u64>>]>,
    /// Per XCC: when its L2 was last invalidated.
    invalidated: Box<[AtomicU64]>,
    /// The last store to each byte (GPU VA), sharded.
    stores: Box<[Mutex<HashMap<u64, Store>>]>,
    /// Entries in `stores`.
    tracked: AtomicUsize,
    /// The record was full once (warned).
    overflowed: AtomicBool,
    log: Arc<CoherenceLog>,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

fn shard(addr: u64) -> usize {
    (addr >> 6) as usize % SHARDS
}

impl XccL2s {
    /// The L2s of an agent of `xccs` XCCs (None for one XCC: one L2, which
    /// `coherence.rs` models).
    pub(crate) fn new(gpu_id: u32, xccs: u32, log: Arc<CoherenceLog>) -> Option<Arc<XccL2s>> {
        (xccs > 1).then(|| {
            Arc::new(XccL2s {
                gpu_id,
                clock: AtomicU64::new(1),
                writebacks: (0..xccs).map(|_| Mutex::new(Vec::new())).collect(),
                invalidated: (0..xccs).map(|_| AtomicU64::new(0)).collect(),
                stores: (0..SHARDS).map(|_| Mutex::new(HashMap::new())).collect(),
                tracked: AtomicUsize::new(0),
                overflowed: AtomicBool::new(false),
                log,
            })
        })
    }

    fn tick(&self) -> u64 {
        self.clock.fetch_add(1, Ordering::AcqRel)
    }

    fn xccs(&self) -> usize {
        self.invalidated.len()
    }

    /// XCC `xcc`'s L2 is written back now.
    fn write_back(&self, xcc: usize) {
        let t = self.tick();
        lock(&self.writebacks[xcc]).push(t);
        self.log.count_l2_writeback();
    }

    /// XCC `xcc`'s L2 is invalidated now.
    fn invalidate(&self, xcc: usize) {
        let t = self.tick();
        self.invalidated[xcc].fetch_max(t, Ordering::AcqRel);
        self.log.count_l2_invalidate();
    }

    /// When `s` reached memory, if it did.
    fn in_memory_at(&self, s: &Store) -> Option<u64> {
        if s.through {
            return Some(s.at);
        }
        let w = lock(&self.writebacks[s.xcc as usize]);
        let i = w.partition_point(|&t| t <= s.at);
        w.get(i).copied()
    }

    /// Whether a read on `xcc` at time `now` of a byte last stored as `s`
    /// reads what `s` stored.
    fn fresh(&self, s: &Store, xcc: u32, now: u64, bypass: bool) -> bool {
        if s.xcc == xcc {
            return true;
        }
        match self.in_memory_at(s) {
            Some(w) if w < now => {
                bypass || self.invalidated[xcc as usize].load(Ordering::Acquire) > w
            }
            _ => false,
        }
    }

    /// A packet's launch fence: an AGENT or SYSTEM acquire invalidates
    /// every XCC's L2. Bytes every XCC now reads fresh leave the record.
    /// The caller holds the fence lock exclusively.
    pub(crate) fn acquire(&self, packet: PacketRef) {
        if packet.scope == FenceScope::None {
            return;
        }
        for x in 0..self.xccs() {
            self.invalidate(x);
        }
        let now = self.tick();
        for shard in self.stores.iter() {
            let mut shard = lock(shard);
            let before = shard.len();
            shard.retain(|_, s| self.in_memory_at(s).is_none_or(|w| w >= now));
            self.tracked
                .fetch_sub(before - shard.len(), Ordering::Relaxed);
        }
        // What stays was never written back: older writeback times no
        // longer decide anything.
        for w in self.writebacks.iter() {
            lock(w).clear();
        }
    }

    /// Record `store` for the bytes `[start, end)`, one lock per 64-byte
    /// block.
    fn record(&self, start: u64, end: u64, store: Store) {
        let mut a = start;
        while a < end {
            let block_end = ((a | 63) + 1).min(end);
            let mut shard = lock(&self.stores[shard(a)]);
            for b in a..block_end {
                if let Some(s) = shard.get_mut(&b) {
                    *s = store;
                } else if self.tracked.load(Ordering::Relaxed) < MAX_TRACKED_BYTES {
                    shard.insert(b, store);
                    self.tracked.fetch_add(1, Ordering::Relaxed);
                } else if !self.overflowed.swap(true, Ordering::Relaxed) {
                    tracing::warn!(
                        "gfxsim gpu {:#x}: the per-XCC L2 model tracks at most \
                         {MAX_TRACKED_BYTES} unpublished bytes; later stores go unchecked",
                        self.gpu_id
                    );
                }
            }
            a = block_end;
        }
    }

    /// The last stores to `[start, end)` (None: no store recorded), one
    /// lock per 64-byte block.
    fn stores_of(&self, start: u64, end: u64, mut f: impl FnMut(u64, Store)) {
        let mut a = start;
        while a < end {
            let block_end = ((a | 63) + 1).min(end);
            let found: Vec<(u64, Store)> = {
                let shard = lock(&self.stores[shard(a)]);
                (a..block_end)
                    .filter_map(|b| shard.get(&b).map(|s| (b, *s)))
                    .collect()
            };
            for (b, s) in found {
                f(b, s);
            }
            a = block_end;
        }
    }

    /// A packet's completion fence: an AGENT or SYSTEM release writes back
    /// every XCC's L2. The caller holds the fence lock exclusively.
    pub(crate) fn release(&self, packet: PacketRef) {
        if packet.scope == FenceScope::None {
            return;
        }
        for x in 0..self.xccs() {
            self.write_back(x);
        }
    }

    /// The watcher of one dispatch: `packet` (with its acquire scope) of
    /// the kernel at `kernel_object`, whose workgroups (`counts` per
    /// dimension) spread over the XCCs as `spread` says, over the GPU's
    /// `mappings` at launch.
    pub(crate) fn dispatch(
        self: &Arc<Self>,
        mappings: &[Mapping],
        packet: PacketRef,
        kernel_object: u64,
        spread: XccSpread,
        counts: [u32; 3],
    ) -> Arc<XccDispatch> {
        let coarse = mappings
            .iter()
            .filter_map(|m| m.coarse.as_ref().map(|c| (m.start..m.end, c.allocation)))
            .collect();
        Arc::new(XccDispatch {
            l2s: self.clone(),
            packet,
            kernel_object,
            spread,
            counts,
            coarse,
            reported: AtomicBool::new(false),
        })
    }
}

/// One dispatch's view of the per-XCC L2s: an observer of its workgroups.
#[derive(Debug)]
pub struct XccDispatch {
    l2s: Arc<XccL2s>,
    packet: PacketRef,
    kernel_object: u64,
    spread: XccSpread,
    counts: [u32; 3],
    /// Coarse-grained mappings at launch, by GPU VA.
    coarse: Vec<(Range<u64>, AllocationId)>,
    reported: AtomicBool,
}

impl XccDispatch {
    /// The coarse allocation holding `addr`, if any.
    fn coarse(&self, addr: u64) -> Option<&(Range<u64>, AllocationId)> {
        let i = self.coarse.partition_point(|(r, _)| r.end <= addr);
        self.coarse.get(i).filter(|(r, _)| r.contains(&addr))
    }

    /// Workgroup-side accesses of `len` bytes at `addr` on `xcc`.
    fn access(&self, xcc: u32, addr: u64, len: u64, access: Access, sc1: bool) {
        let Some((range, allocation)) = self.coarse(addr) else {
            return;
        };
        let end = addr.saturating_add(len).min(range.end);
        let l2s = &self.l2s;
        let now = l2s.tick();
        let writer = PacketId {
            queue_id: self.packet.queue_id,
            index: self.packet.index,
        };
        let bypass = sc1 || access == Access::Atomic;
        if matches!(access, Access::Read | Access::Atomic) {
            let mut stale: Option<(Range<u64>, u64, Store)> = None;
            l2s.stores_of(addr, end, |a, s| {
                if l2s.fresh(&s, xcc, now, bypass) {
                    return;
                }
                match &mut stale {
                    Some((r, n, _)) => {
                        r.end = a + 1;
                        *n += 1;
                    }
                    None => stale = Some((a..a + 1, 1, s)),
                }
            });
            if let Some((r, n, s)) = stale {
                self.report(*allocation, xcc, addr..end, r, n, s);
            }
        }
        if matches!(access, Access::Write | Access::Atomic) {
            let store = Store {
                xcc,
                at: now,
                through: bypass,
                writer,
            };
            l2s.record(addr, end, store);
        }
    }

    #[cold]
    fn report(
        &self,
        allocation: AllocationId,
        reader: u32,
        read: Range<u64>,
        stale: Range<u64>,
        bytes: u64,
        s: Store,
    ) {
        if self.reported.swap(true, Ordering::AcqRel) {
            return; // one report per packet
        }
        self.l2s.log.record(CoherenceReport {
            kind: StaleRead::KernelReadsOtherXccWrites,
            allocation,
            gpu_id: self.l2s.gpu_id,
            queue_id: self.packet.queue_id,
            packet_index: self.packet.index,
            scope: self.packet.scope,
            stale,
            stale_bytes: bytes,
            read_at: Some((read.start, read.end - read.start)),
            writer: Some(s.writer),
            kernel_object: Some(self.kernel_object),
            xccs: Some(XccPair {
                writer: s.xcc,
                reader,
            }),
        });
    }
}

impl DispatchObserver for XccDispatch {
    fn workgroup(&self, id: [u32; 3], _waves: u32, _lds: u32) -> Box<dyn WorkgroupObserver + '_> {
        Box::new(XccWorkgroup {
            dispatch: self,
            xcc: self.spread.xcc_of_workgroup(id, self.counts),
        })
    }
}

/// One workgroup on its XCC.
struct XccWorkgroup<'a> {
    dispatch: &'a XccDispatch,
    xcc: u32,
}

impl WorkgroupObserver for XccWorkgroup<'_> {
    fn access(&mut self, a: &LaneAccesses<'_>) {
        if a.segment != Segment::Global || a.access == Access::Execute {
            return;
        }
        let mut exec = a.exec;
        while exec != 0 {
            let l = exec.trailing_zeros() as usize;
            exec &= exec - 1;
            let (addr, len) = (a.addrs[l], u64::from(a.size));
            self.dispatch.access(self.xcc, addr, len, a.access, a.sc1);
        }
    }

    fn barrier_released(&mut self, _waves: &[WaveSync]) {}

    fn finish(&mut self) {}

    fn cache_control(&mut self, c: &CacheControl) {
        // Work-group scope (sc0 alone) stays inside the CU's L1.
        if !c.sc1 {
            return;
        }
        let l2s = &self.dispatch.l2s;
        match c.op {
            CacheOp::WritebackL2 => l2s.write_back(self.xcc as usize),
            CacheOp::Invalidate => l2s.invalidate(self.xcc as usize),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const VA: u64 = 0x10_0000;

    fn l2s() -> Arc<XccL2s> {
        XccL2s::new(1, 8, Arc::new(CoherenceLog::default())).expect("8 XCCs")
    }

    fn packet(index: u64, scope: FenceScope) -> PacketRef {
        PacketRef {
            queue_id: 2,
            index,
            scope,
        }
    }

    /// A dispatch over one coarse 4 KiB allocation at VA.
    fn dispatch(l2s: &Arc<XccL2s>, index: u64) -> Arc<XccDispatch> {
        Arc::new(XccDispatch {
            l2s: l2s.clone(),
            packet: packet(index, FenceScope::Agent),
            kernel_object: 0x4000,
            spread: XccSpread::new(8, 1, 0),
            counts: [8, 1, 1],
            coarse: vec![(
                VA..VA + 4096,
                AllocationId {
                    handle: 9,
                    va: VA,
                    size: 4096,
                },
            )],
            reported: AtomicBool::new(false),
        })
    }

    fn control(op: CacheOp, sc1: bool) -> CacheControl {
        CacheControl {
            wave: 0,
            op,
            sc0: false,
            sc1,
        }
    }

    #[test]
    fn one_xcc_has_no_model() {
        assert!(XccL2s::new(1, 1, Arc::new(CoherenceLog::default())).is_none());
    }

    #[test]
    fn a_plain_read_on_another_xcc_needs_writeback_and_invalidate() {
        for (wb, inv, stale) in [
            (false, false, true),
            (true, false, true),
            (false, true, true),
            (true, true, false),
        ] {
            let l = l2s();
            let d = dispatch(&l, 0);
            d.access(0, VA + 8, 4, Access::Write, false);
            if wb {
                l.write_back(0);
            }
            if inv {
                l.invalidate(3);
            }
            d.access(3, VA + 8, 4, Access::Read, false);
            // The same XCC always reads its own stores.
            d.access(0, VA + 8, 4, Access::Read, false);
            let r = l.log.reports();
            assert_eq!(r.len(), usize::from(stale), "wb {wb} inv {inv}: {r:#?}");
            if stale {
                assert_eq!(r[0].kind, StaleRead::KernelReadsOtherXccWrites);
                assert_eq!(
                    r[0].xccs,
                    Some(XccPair {
                        writer: 0,
                        reader: 3
                    })
                );
                assert_eq!(r[0].kernel_object, Some(0x4000));
                assert_eq!(r[0].read_at, Some((VA + 8, 4)));
                assert_eq!(r[0].stale, VA + 8..VA + 12);
            }
        }
    }

    #[test]
    fn an_invalidate_before_the_writeback_does_not_count() {
        let l = l2s();
        let d = dispatch(&l, 0);
        d.access(1, VA, 4, Access::Write, false);
        l.invalidate(2);
        l.write_back(1);
        d.access(2, VA, 4, Access::Read, false);
        assert_eq!(l.log.reports().len(), 1);
    }

    #[test]
    fn sc1_stores_write_through_and_sc1_loads_bypass() {
        let l = l2s();
        let d = dispatch(&l, 0);
        d.access(1, VA, 4, Access::Write, true);
        d.access(2, VA, 4, Access::Read, true);
        d.access(3, VA, 4, Access::Atomic, false);
        assert_eq!(l.log.reports(), vec![]);
        // A bypassing read still misses another XCC's dirty line.
        d.access(1, VA + 64, 4, Access::Write, false);
        d.access(2, VA + 64, 4, Access::Read, true);
        assert_eq!(l.log.reports().len(), 1);
    }

    #[test]
    fn work_group_scope_controls_do_nothing() {
        let l = l2s();
        let d = dispatch(&l, 0);
        d.access(0, VA, 4, Access::Write, false);
        let mut w0 = d.workgroup([0, 0, 0], 1, 0);
        let mut w1 = d.workgroup([1, 0, 0], 1, 0);
        w0.cache_control(&control(CacheOp::WritebackL2, false));
        w1.cache_control(&control(CacheOp::Invalidate, false));
        d.access(1, VA, 4, Access::Read, false);
        assert_eq!(l.log.reports().len(), 1);
        // Agent scope: workgroup 0 is on XCC 0, workgroup 1 on XCC 1.
        let l = l2s();
        let d = dispatch(&l, 0);
        d.access(0, VA, 4, Access::Write, false);
        let mut w0 = d.workgroup([0, 0, 0], 1, 0);
        let mut w1 = d.workgroup([1, 0, 0], 1, 0);
        w0.cache_control(&control(CacheOp::WritebackL2, true));
        w1.cache_control(&control(CacheOp::Invalidate, true));
        d.access(1, VA, 4, Access::Read, false);
        assert_eq!(l.log.reports(), vec![]);
    }

    #[test]
    fn packet_fences_act_on_every_xcc() {
        let l = l2s();
        dispatch(&l, 0).access(4, VA, 16, Access::Write, false);
        l.release(packet(0, FenceScope::Agent));
        l.acquire(packet(1, FenceScope::Agent));
        dispatch(&l, 1).access(5, VA, 16, Access::Read, false);
        assert_eq!(l.log.reports(), vec![]);
        // NONE on either side leaves the bytes stale elsewhere.
        for (release, acquire) in [
            (FenceScope::None, FenceScope::Agent),
            (FenceScope::Agent, FenceScope::None),
        ] {
            let l = l2s();
            dispatch(&l, 0).access(4, VA, 16, Access::Write, false);
            l.release(packet(0, release));
            l.acquire(packet(1, acquire));
            dispatch(&l, 1).access(5, VA, 16, Access::Read, false);
            let r = l.log.reports();
            assert_eq!(r.len(), 1, "{release:?} {acquire:?}");
            assert_eq!(r[0].packet_index, 1);
            assert_eq!(r[0].writer.map(|w| w.index), Some(0));
        }
    }

    #[test]
    fn acquires_forget_what_everybody_reads_fresh() {
        let l = l2s();
        let d = dispatch(&l, 0);
        d.access(0, VA, 8, Access::Write, false);
        l.release(packet(0, FenceScope::Agent));
        d.access(1, VA + 100, 4, Access::Write, false);
        l.acquire(packet(1, FenceScope::Agent));
        let kept: usize = l.stores.iter().map(|s| lock(s).len()).sum();
        assert_eq!(kept, 4, "only the store after the release stays");
    }

    #[test]
    fn a_full_record_stops_growing_but_keeps_updating() {
        let l = l2s();
        let d = dispatch(&l, 0);
        d.access(0, VA, 4, Access::Write, false);
        l.tracked.store(MAX_TRACKED_BYTES, Ordering::Relaxed);
        // Bytes already recorded still change hands; new ones go unrecorded.
        d.access(1, VA, 4, Access::Write, false);
        d.access(1, VA + 8, 4, Access::Write, false);
        d.access(2, VA, 4, Access::Read, false);
        d.access(2, VA + 8, 4, Access::Read, false);
        let r = l.log.reports();
        assert_eq!(r.len(), 1, "{r:#?}");
        assert_eq!(r[0].xccs.map(|x| x.writer), Some(1));
        assert_eq!(r[0].stale, VA..VA + 4);
    }

    #[test]
    fn stores_across_blocks_are_recorded_byte_by_byte() {
        let l = l2s();
        let d = dispatch(&l, 0);
        d.access(0, VA + 60, 8, Access::Write, false);
        d.access(3, VA + 56, 16, Access::Read, false);
        let r = l.log.reports();
        assert_eq!(r.len(), 1, "{r:#?}");
        assert_eq!(
            (r[0].stale.clone(), r[0].stale_bytes),
            (VA + 60..VA + 68, 8)
        );
        assert_eq!(r[0].read_at, Some((VA + 56, 16)));
    }

    #[test]
    fn reads_outside_coarse_memory_are_not_watched() {
        let l = l2s();
        let d = dispatch(&l, 0);
        d.access(0, VA + 4096, 4, Access::Write, false);
        d.access(1, VA + 4096, 4, Access::Read, false);
        assert_eq!(l.log.reports(), vec![]);
    }
}
