//! Strict coherence mode: the per-CU caches of one agent (gfx11's vector L0
//! "GL0" per CU, the scalar cache per WGP, the GL1 per shader array), which
//! only an acquire fence at AGENT or SYSTEM scope invalidates.
//!
//! What the public sources say, and what is modelled from it:
//! - LLVM `docs/AMDGPUUsage.rst`, "Memory Model GFX10-GFX11": vector loads
//!   go through the CU's L0, scalar loads through the WGP's scalar L0, both
//!   through the SA's GL1, then the agent's L2. The L0s and the GL1s of
//!   different CUs and SAs are not coherent with each other: an acquire at
//!   agent (and system) scope is `buffer_gl1_inv; buffer_gl0_inv`, and
//!   "the scalar and vector caches are invalidated between kernel
//!   dispatches by CP".
//! - ROCm clr `rocclr/device/rocm/rocvirtual.cpp` (the header comment above
//!   `kDispatchPacketHeaderNoSync`): the AQL header's acquire fence at AGENT
//!   scope is what makes the CP invalidate the I, K (scalar) and L1 caches;
//!   clr's dispatches therefore never acquire below AGENT. The HSA Platform
//!   System Architecture / runtime specifications define
//!   `HSA_FENCE_SCOPE_NONE` as "no fence is applied". So a packet launched
//!   with acquire NONE starts with whatever lines its CUs hold.
//! - Which memory the per-CU caches hold: amdgpu `gmc_v11_0.c`
//!   `gmc_v11_0_get_vm_pte` maps COHERENT, EXT_COHERENT and UNCACHED BOs
//!   (fine-grained memory) as MTYPE_UC and the rest as MTYPE_NC. In the
//!   LLVM GFX10-GFX11 text MTYPE UC is what keeps the *L2* out of the way
//!   ("ranges of virtual addresses can be set up to bypass it"; kernargs
//!   are MTYPE UC "to avoid needing to invalidate the L2 cache", while the
//!   CP still invalidates L0 and L1 for them), and the agent- and
//!   system-scope code sequences bypass or invalidate GL0/GL1 by
//!   instruction bits (GLC, DLC) whatever the memory. No source says that
//!   MTYPE UC keeps a line out of GL0/GL1, so the model takes the strict
//!   reading: the per-CU caches hold every memory type a kernel reaches
//!   (VRAM, GTT, userptr), coarse- and fine-grained alike.
//! - Atomics execute in the L2 (the GFX10-GFX11 sequences give an
//!   agent-scope atomicrmw no cache bit), so only plain loads (vector,
//!   scalar) and instruction fetches can hit a stale line.
//! - Release: the GL0 is write-through and the GL1 read-only for stores;
//!   the agent-scope release sequence is only `s_waitcnt vmcnt(0) &
//!   vscnt(0)` (no writeback). A release at NONE scope therefore moves no
//!   data that an AGENT acquire could miss: at packet granularity, where
//!   every store of a finished packet has completed, it has nothing to
//!   model, and nothing is modelled for it.
//!
//! The model, at packet granularity and in the worst case of a cache (every
//! line that could be resident is resident, with its old contents):
//! - Per agent and per mapped BO ([`CuLines`]), the byte ranges that
//!   changed in the agent's view since the last acquire at AGENT or wider
//!   scope, each with the packet that changed it. A dispatch's kernel
//!   stores and atomics are collected per packet ([`PacketLines`]) and join
//!   that record when the packet completes: a consumer learns of them only
//!   through the completion (its signal, or the barrier bit), and a store
//!   that completed before another packet's invalidation may still be
//!   cached old by a CU that read it since.
//! - An acquire at AGENT or SYSTEM scope (any packet type) invalidates
//!   every per-CU cache of the agent: the record empties. A SYSTEM acquire
//!   also reloads the L2 (`coherence.rs`); since the same fence invalidates
//!   the per-CU caches, a reload never reaches a stale window.
//! - A dispatch launched with acquire NONE gets a snapshot of the record as
//!   its stale windows. The first load of its kernels that reads a byte of
//!   a window which the packet has not written itself is reported
//!   ([`StaleRead::KernelReadsUnacquiredKernelWrites`]), once per packet
//!   and allocation, naming the writer and the reader. The load still
//!   returns the current bytes: the model reports, it does not keep old
//!   lines.
//!
//! Limits (documented, not bugs): communication inside one dispatch
//! (workgroups that exchange data through atomics and in-kernel fences) is
//! not modelled; loads with GLC/DLC set, which bypass GL0/GL1, count as
//! cached (the emulator's accesses do not carry the cache-policy bits);
//! host and command-processor writes do not enter the record (a host write
//! to coarse memory is the L2 model's business; one to fine-grained memory
//! cannot be trapped cheaply); one range per writer packet and BO (bytes
//! inside it that the writer did not store count as written), and past
//! [`MAX_WRITERS`] writers the two oldest ranges merge under the later
//! writer's name.

use std::ops::Range;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use aqueduct_isa::Access;
use aqueduct_kfd::abi::FenceScope;

use super::{AtomicRange, PacketRef};
use crate::coherence_report::{AllocationId, CoherenceLog, CoherenceReport, PacketId, StaleRead};
use crate::memory::bo::{Bo, MemType};
use crate::memory::vm::Mapping;

/// Writer ranges kept per BO between two agent-scope acquires.
pub const MAX_WRITERS: usize = 16;

/// Whether the per-CU caches hold memory of `mem_type` (everything a kernel
/// reaches as memory; doorbells and MMIO registers are not memory).
pub fn is_cu_cached(mem_type: MemType) -> bool {
    matches!(mem_type, MemType::Vram | MemType::Gtt | MemType::UserPtr)
}

/// Bytes one packet's kernels changed in one BO.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Change {
    /// Offsets in the BO.
    range: Range<u64>,
    writer: PacketId,
}

/// One agent's per-CU caches as they concern one mapped BO.
#[derive(Debug)]
pub struct CuLines {
    allocation: AllocationId,
    gpu_id: u32,
    /// What changed in the agent's view since the last agent-or-wider
    /// acquire; touched only by fences (the GPU's fence lock held
    /// exclusively), so the lock is never contended.
    changed: Mutex<Vec<Change>>,
    log: Arc<CoherenceLog>,
}

impl CuLines {
    pub(crate) fn new(bo: &Bo, gpu_id: u32, log: Arc<CoherenceLog>) -> Arc<CuLines> {
        Arc::new(CuLines {
            allocation: AllocationId {
                handle: bo.handle,
                va: bo.va,
                size: bo.size,
            },
            gpu_id,
            changed: Mutex::new(Vec::new()),
            log,
        })
    }

    fn changed(&self) -> std::sync::MutexGuard<'_, Vec<Change>> {
        self.changed.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// An agent-or-wider acquire invalidated every per-CU cache.
    fn invalidate(&self) {
        self.changed().clear();
    }

    /// A completed packet's kernels changed `change.range`.
    fn record(&self, change: Change) {
        let mut changed = self.changed();
        if let Some(c) = changed.iter_mut().find(|c| c.writer == change.writer) {
            c.range = c.range.start.min(change.range.start)..c.range.end.max(change.range.end);
            return;
        }
        changed.push(change);
        if changed.len() > MAX_WRITERS {
            let oldest = changed.remove(0);
            let next = &mut changed[0];
            next.range =
                oldest.range.start.min(next.range.start)..oldest.range.end.max(next.range.end);
        }
    }
}

/// A stale window: what had changed when a packet launched with acquire
/// NONE.
#[derive(Debug)]
struct Window {
    changes: Vec<Change>,
    /// First to last changed byte (offsets), for the quick test.
    span: Range<u64>,
    reported: AtomicBool,
}

/// One mapping of the table a packet launched with.
#[derive(Debug)]
struct Slot {
    lines: Option<Arc<CuLines>>,
    /// Bytes this packet's kernels stored (offsets).
    written: AtomicRange,
    window: Option<Window>,
}

/// What one dispatch packet does to the per-CU caches: its kernels' stores
/// (recorded at completion) and, launched with acquire NONE, its stale
/// windows. Slots follow the GPU's mapping table as it was at launch.
#[derive(Debug)]
pub struct PacketLines {
    /// The packet and its acquire scope.
    packet: PacketRef,
    /// The table version `slots` are indexed by.
    version: u64,
    slots: Box<[Slot]>,
    /// Stores through a table of another version (a MAP or UNMAP while the
    /// packet ran), by BO.
    moved: Mutex<Vec<(Arc<CuLines>, Range<u64>)>>,
    /// Any slot has a window.
    has_windows: bool,
}

impl PacketLines {
    /// The launch of `packet` over `mappings` (table `version`); the caller
    /// holds the fence lock exclusively.
    fn new(mappings: &[Mapping], version: u64, packet: PacketRef) -> PacketLines {
        let mut has_windows = false;
        let slots = mappings
            .iter()
            .map(|m| {
                let window = match (&m.cu, packet.scope) {
                    (Some(lines), FenceScope::None) => window(&lines.changed()),
                    _ => None,
                };
                has_windows |= window.is_some();
                Slot {
                    lines: m.cu.clone(),
                    written: AtomicRange::empty(),
                    window,
                }
            })
            .collect();
        PacketLines {
            packet,
            version,
            slots,
            moved: Mutex::new(Vec::new()),
            has_windows,
        }
    }

    fn id(&self) -> PacketId {
        PacketId {
            queue_id: self.packet.queue_id,
            index: self.packet.index,
        }
    }

    /// A kernel of this packet accesses `[offset, offset+len)` of `lines`,
    /// the mapping at `index` of a table of `version`.
    #[inline]
    pub fn on_access(
        &self,
        version: u64,
        index: usize,
        lines: &Arc<CuLines>,
        offset: u64,
        len: u64,
        access: Access,
    ) {
        let end = offset.saturating_add(len);
        let slot = if version == self.version {
            self.slots.get(index)
        } else {
            None
        };
        match access {
            Access::Write | Access::Atomic => match slot {
                Some(s) => s.written.grow(offset, end),
                None => self.moved_write(lines, offset, end),
            },
            Access::Read | Access::Execute => {
                if self.has_windows {
                    self.on_read(slot, lines, offset, end);
                }
            }
        }
    }

    #[cold]
    fn moved_write(&self, lines: &Arc<CuLines>, start: u64, end: u64) {
        let mut moved = self.moved.lock().unwrap_or_else(|e| e.into_inner());
        match moved.iter_mut().find(|(l, _)| Arc::ptr_eq(l, lines)) {
            Some((_, r)) => *r = r.start.min(start)..r.end.max(end),
            None => moved.push((lines.clone(), start..end)),
        }
    }

    #[inline]
    fn on_read(&self, slot: Option<&Slot>, lines: &Arc<CuLines>, start: u64, end: u64) {
        let slot = match slot {
            Some(s) => s,
            None => match self.slot_of(lines) {
                Some(s) => s,
                None => return,
            },
        };
        let Some(w) = &slot.window else {
            return;
        };
        if w.span.start < end && start < w.span.end && !w.reported.load(Ordering::Relaxed) {
            self.stale_read(slot, w, lines, start..end);
        }
    }

    /// The slot of `lines` in the launch table (a read through a table of
    /// another version).
    #[cold]
    fn slot_of(&self, lines: &Arc<CuLines>) -> Option<&Slot> {
        self.slots
            .iter()
            .find(|s| s.lines.as_ref().is_some_and(|l| Arc::ptr_eq(l, lines)))
    }

    /// Bytes of `lines` this packet stored (one range; empty if none).
    fn own_writes(&self, slot: &Slot, lines: &Arc<CuLines>) -> Range<u64> {
        let mut own = slot.written.get().unwrap_or(0..0);
        let moved = self.moved.lock().unwrap_or_else(|e| e.into_inner());
        for (_, r) in moved.iter().filter(|(l, _)| Arc::ptr_eq(l, lines)) {
            own = if own.is_empty() {
                r.clone()
            } else {
                own.start.min(r.start)..own.end.max(r.end)
            };
        }
        own
    }

    #[cold]
    fn stale_read(&self, slot: &Slot, w: &Window, lines: &Arc<CuLines>, read: Range<u64>) {
        let own = self.own_writes(slot, lines);
        let hit = outside(&read, &own).into_iter().find_map(|part| {
            w.changes
                .iter()
                .find(|c| c.range.start < part.end && part.start < c.range.end)
        });
        let Some(change) = hit else {
            return;
        };
        if w.reported.swap(true, Ordering::Relaxed) {
            return; // another worker reported it first
        }
        let va = lines.allocation.va;
        lines.log.record(CoherenceReport {
            kind: StaleRead::KernelReadsUnacquiredKernelWrites,
            allocation: lines.allocation,
            gpu_id: lines.gpu_id,
            queue_id: self.packet.queue_id,
            packet_index: self.packet.index,
            scope: self.packet.scope,
            stale: va + change.range.start..va + change.range.end,
            stale_bytes: change.range.end - change.range.start,
            read_at: Some((va + read.start, read.end - read.start)),
            writer: Some(change.writer),
            kernel_object: None,
            xccs: None,
        });
    }

    /// The packet completed: its stores join the record of what changed in
    /// the agent's view. The caller holds the fence lock exclusively.
    fn retire(&self) {
        let writer = self.id();
        for slot in self.slots.iter() {
            if let (Some(lines), Some(range)) = (&slot.lines, slot.written.get()) {
                lines.record(Change { range, writer });
            }
        }
        let moved = std::mem::take(&mut *self.moved.lock().unwrap_or_else(|e| e.into_inner()));
        for (lines, range) in moved {
            lines.record(Change { range, writer });
        }
    }
}

/// The window a NONE-acquire launch gets from `changed`, if anything
/// changed.
fn window(changed: &[Change]) -> Option<Window> {
    let start = changed.iter().map(|c| c.range.start).min()?;
    let end = changed.iter().map(|c| c.range.end).max()?;
    Some(Window {
        changes: changed.to_vec(),
        span: start..end,
        reported: AtomicBool::new(false),
    })
}

/// The parts of `read` outside `own` (at most two).
fn outside(read: &Range<u64>, own: &Range<u64>) -> Vec<Range<u64>> {
    if own.is_empty() || own.end <= read.start || read.end <= own.start {
        return vec![read.clone()];
    }
    [read.start..own.start, own.end..read.end]
        .into_iter()
        .filter(|r| r.start < r.end)
        .collect()
}

/// The per-CU cache side of a packet's launch fence over `mappings`
/// (table `version`): an AGENT or SYSTEM acquire invalidates; a dispatch
/// gets its [`PacketLines`]. The caller holds the fence lock exclusively.
pub fn launch(
    mappings: &[Mapping],
    version: u64,
    packet: PacketRef,
    dispatch: bool,
) -> Option<Arc<PacketLines>> {
    if packet.scope != FenceScope::None {
        for lines in mappings.iter().filter_map(|m| m.cu.as_deref()) {
            lines.invalidate();
        }
    }
    dispatch.then(|| Arc::new(PacketLines::new(mappings, version, packet)))
}

/// The per-CU cache side of a dispatch's completion: its stores become
/// what changed in the agent's view. The caller holds the fence lock
/// exclusively.
pub fn complete(lines: &PacketLines) {
    lines.retire();
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::memory::backing::Backing;

    const VA: u64 = 0x10_0000;

    fn lines() -> Arc<CuLines> {
        Arc::new(CuLines {
            allocation: AllocationId {
                handle: 7,
                va: VA,
                size: 4096,
            },
            gpu_id: 1,
            changed: Mutex::new(Vec::new()),
            log: Arc::new(CoherenceLog::default()),
        })
    }

    fn table(lines: &Arc<CuLines>) -> Vec<Mapping> {
        vec![Mapping {
            start: VA,
            end: VA + 4096,
            handle: 7,
            writable: true,
            executable: false,
            backing: Arc::new(Backing::new_memfd("cu-test", 4096).expect("memfd")),
            coarse: None,
            cu: Some(lines.clone()),
        }]
    }

    fn packet(index: u64, scope: FenceScope) -> PacketRef {
        PacketRef {
            queue_id: 3,
            index,
            scope,
        }
    }

    /// Launch packet `index` with `scope`, let `f` run its kernel's
    /// accesses, complete it.
    fn run(
        table: &[Mapping],
        lines: &Arc<CuLines>,
        index: u64,
        scope: FenceScope,
        f: impl FnOnce(&dyn Fn(u64, u64, Access)),
    ) {
        let p = launch(table, 1, packet(index, scope), true).expect("a dispatch");
        f(&|offset, len, access| p.on_access(1, 0, lines, offset, len, access));
        complete(&p);
    }

    fn reports(lines: &CuLines) -> Vec<CoherenceReport> {
        lines.log.reports()
    }

    #[test]
    fn none_acquire_after_a_kernel_write_reports_the_read() {
        let l = lines();
        let t = table(&l);
        run(&t, &l, 0, FenceScope::Agent, |a| a(64, 16, Access::Write));
        run(&t, &l, 1, FenceScope::None, |a| {
            a(0, 4, Access::Read); // unchanged bytes
            a(72, 4, Access::Read);
            a(76, 4, Access::Read); // second hit: one report
        });
        let r = reports(&l);
        assert_eq!(r.len(), 1, "{r:#?}");
        assert_eq!(r[0].kind, StaleRead::KernelReadsUnacquiredKernelWrites);
        assert_eq!(r[0].packet_index, 1);
        assert_eq!(r[0].scope, FenceScope::None);
        assert_eq!(
            r[0].writer,
            Some(PacketId {
                queue_id: 3,
                index: 0
            })
        );
        assert_eq!(r[0].stale, VA + 64..VA + 80);
        assert_eq!(r[0].stale_bytes, 16);
        assert_eq!(r[0].read_at, Some((VA + 72, 4)));
        assert!(r[0].to_string().contains("packet 0 of queue 3"));
    }

    #[test]
    fn agent_and_system_acquires_invalidate() {
        for scope in [FenceScope::Agent, FenceScope::System] {
            let l = lines();
            let t = table(&l);
            run(&t, &l, 0, FenceScope::Agent, |a| a(0, 64, Access::Write));
            run(&t, &l, 1, scope, |a| a(0, 64, Access::Read));
            // Nothing changed since that acquire.
            run(&t, &l, 2, FenceScope::None, |a| a(0, 64, Access::Read));
            assert_eq!(reports(&l), vec![], "{scope:?}");
        }
    }

    #[test]
    fn a_barrier_packets_acquire_invalidates_too() {
        let l = lines();
        let t = table(&l);
        run(&t, &l, 0, FenceScope::Agent, |a| a(0, 64, Access::Write));
        assert!(launch(&t, 1, packet(1, FenceScope::Agent), false).is_none());
        run(&t, &l, 2, FenceScope::None, |a| a(0, 64, Access::Read));
        assert_eq!(reports(&l), vec![]);
    }

    #[test]
    fn own_writes_and_atomics_are_never_stale() {
        let l = lines();
        let t = table(&l);
        run(&t, &l, 0, FenceScope::Agent, |a| a(0, 64, Access::Write));
        run(&t, &l, 1, FenceScope::None, |a| {
            a(0, 32, Access::Write);
            a(0, 32, Access::Read); // its own store
            a(40, 8, Access::Atomic); // performed in the L2
        });
        assert_eq!(reports(&l), vec![]);
        // A read that reaches past its own store into the window is stale.
        run(&t, &l, 2, FenceScope::None, |a| {
            a(0, 32, Access::Write);
            a(16, 32, Access::Read);
        });
        let r = reports(&l);
        assert_eq!(r.len(), 1, "{r:#?}");
        assert_eq!(r[0].packet_index, 2);
    }

    #[test]
    fn writes_join_the_record_only_at_completion() {
        let l = lines();
        let t = table(&l);
        let writer = launch(&t, 1, packet(0, FenceScope::Agent), true).unwrap();
        writer.on_access(1, 0, &l, 0, 8, Access::Write);
        // Launched while the writer still runs: nothing to be stale about.
        run(&t, &l, 1, FenceScope::None, |a| a(0, 8, Access::Read));
        complete(&writer);
        run(&t, &l, 2, FenceScope::None, |a| a(0, 8, Access::Read));
        let r = reports(&l);
        assert_eq!(r.len(), 1, "{r:#?}");
        assert_eq!(r[0].packet_index, 2);
    }

    #[test]
    fn stores_through_a_newer_table_still_count() {
        let l = lines();
        let t = table(&l);
        let p = launch(&t, 1, packet(1, FenceScope::Agent), true).unwrap();
        // Table version 2 (a MAP after the launch): another index.
        p.on_access(2, 5, &l, 100, 4, Access::Write);
        complete(&p);
        run(&t, &l, 2, FenceScope::None, |a| a(100, 4, Access::Read));
        assert_eq!(reports(&l).len(), 1);
    }

    #[test]
    fn the_record_keeps_one_range_per_writer_and_merges_the_oldest() {
        let l = lines();
        for i in 0..MAX_WRITERS as u64 + 2 {
            l.record(Change {
                range: i * 8..i * 8 + 4,
                writer: PacketId {
                    queue_id: 0,
                    index: i,
                },
            });
        }
        l.record(Change {
            range: 500..504,
            writer: PacketId {
                queue_id: 0,
                index: 5,
            },
        });
        let changed = l.changed().clone();
        assert_eq!(changed.len(), MAX_WRITERS);
        assert_eq!(changed[0].range, 0..20, "three oldest merged");
        assert_eq!(changed[0].writer.index, 2);
        assert_eq!(changed[3].range, 40..504, "writer 5 grew");
    }

    #[test]
    fn outside_splits_around_own_writes() {
        assert_eq!(outside(&(0..10), &(0..0)), vec![0..10]);
        assert_eq!(outside(&(0..10), &(2..4)), vec![0..2, 4..10]);
        assert_eq!(outside(&(0..10), &(0..10)), Vec::<Range<u64>>::new());
        assert_eq!(outside(&(5..10), &(0..6)), vec![6..10]);
    }
}
