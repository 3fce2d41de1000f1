//! A prepared kernel dispatch: validates the kernel descriptor, computes the
//! workgroup grid, and runs one workgroup at a time on the calling thread
//! with the initial wave state AMDGPUUsage "Initial Kernel Execution State"
//! defines (user SGPRs, system SGPRs at USER_SGPR_COUNT, packed work-item
//! ids in v0, EXEC = live lanes). The descriptor's wavefront-size bit picks
//! wave32 or wave64 (64 lanes: ceil(size/64) waves, 64-bit EXEC, lanes 32..63
//! in the wave's high VGPR file; see wave.rs). The waves of a workgroup interleave: each
//! runs until s_barrier or s_endpgm, and the barrier is released once every
//! wave that has not ended has arrived, so any number of barriers works.
//!
//! GFX9 (gfx90a, gfx942) waves start the same way, wave64 only: both
//! targets pack the work-item ids into v0 as gfx11 does (AMDGPUUsage lists
//! packed work-item IDs for GFX90A and GFX942), and gfx90a, which has no
//! architected flat scratch, gets the queue's scratch buffer resource, the
//! scratch base as flat scratch init and each wave's slot offset as its
//! private segment wave offset (`Dispatch::new`, `start_wave`).
//!
//! LDS is not cleared between workgroups (hardware does not clear it either):
//! a fresh worker's LDS is zero, later workgroups see what the previous one
//! on the same worker left.
//!
//! Private memory lives in the queue's scratch backing memory
//! (`DispatchSetup::scratch`): wave `k` of a workgroup uses wave slot
//! `WorkerContext::scratch_wave_slot + k`, as the CP gives each wave its
//! scratch base (architected flat scratch, LLVM AMDGPUUsage "Private
//! Segment"). The workgroup's slots are translated once, when it starts,
//! through the GPU's page table; if that fails (the runtime did not map
//! the backing memory), the first private access faults at its address
//! there, as it would on hardware.
//!
//! On a multi-XCC agent (gfx942) each workgroup runs on the XCC its
//! queue's command processors give it (`with_xcc_spread`, xcc.rs), computed
//! once per workgroup; its waves read it from HW_REG_XCC_ID.
//!
//! Watchdog: a dispatch may carry a time limit (`with_time_limit`), counted
//! from the start of its first workgroup. Every wave checks it once per
//! `WATCHDOG_JUMPS` taken branches of its workgroup (a loop cannot run
//! without branching), so the cost is a counter increment per taken branch
//! and one clock read per 1024; past the limit the wave stops with
//! `TimeLimit` at the branch's PC, and so do the dispatch's other waves.
//! The same check stops the waves of a cancelled dispatch (`cancel`: its
//! queue is being destroyed, or another of its waves failed) with
//! `Cancelled`, as KFD's queue destroy preempts running waves. Time a wave
//! spends waiting for its block's translation is not counted
//! (paused_time.rs).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use super::code_cache::{Block, CodeCache, Tail};
#[cfg(feature = "llvm-jit")]
use super::exec::fast::Fast;
use super::exec::{Env, Flow, SpanCache, slot_bytes};
use super::paused_time::PausedTime;
use super::round::Round;
use super::run_block::{BlockExit, interpret_block};
use super::wave::{EXEC, LANES, Wave, WaveStatus};
use super::worker::WorkerContext;
use crate::gfx9::Target;
use crate::observer::{DispatchObserver, WaveSync, WorkgroupObserver};
use crate::traffic::CountingMemory;
#[cfg(all(target_arch = "x86_64", not(test)))]
use crate::wave_loop::{WaveLoop, wave_loop};
use crate::{
    Access, DispatchSetup, GpuMemory, Isa, WaveError, WaveErrorKind, WorkgroupBatch,
    WorkgroupStats, XccSpread,
};

/// Taken branches of a workgroup between two watchdog clock reads.
const WATCHDOG_JUMPS: u32 = 1024;

/// What a workgroup's waves start from (`Dispatch::start_wave`).
struct WaveStart {
    /// The workgroup's id, which the enabled workgroup-id SGPRs hold.
    workgroup: [u32; 3],
    /// This workgroup's size (partial at the grid edge) and work-items.
    size: [u32; 3],
    items: usize,
    /// Lanes per wave (32 or 64).
    lanes: usize,
    wave64: bool,
    /// The descriptor's ENABLE_VGPR_WORKITEM_ID (which ids v0 packs).
    ids: u32,
    /// gfx90a's private segment wave byte offset: its SGPR, the offset of
    /// the workgroup's first wave slot in the backing memory, and the
    /// bytes between two slots (each wave gets its own slot's offset).
    wave_offset: Option<(usize, u64, u64)>,
    /// The XCC the workgroup runs on (xcc.rs).
    xcc_id: u32,
}

/// A kernel dispatch ready to run its workgroups (Send + Sync).
#[derive(Debug)]
pub struct Dispatch {
    setup: DispatchSetup,
    code: Arc<CodeCache>,
    entry: u64,
    counts: [u32; 3],
    /// Every wave's initial SGPR file before its workgroup's ids: the
    /// enabled user SGPRs from s0, the rest 0 (built once per dispatch).
    /// The system SGPRs other than the ids (workgroup info, architected
    /// flat scratch's private segment offset) are 0, as the template
    /// already holds.
    sgpr_template: Box<[u32; 128]>,
    /// The SGPR of each enabled workgroup id (ENABLE_SGPR_WORKGROUP_ID_X/Y/Z):
    /// the system SGPRs follow USER_SGPR_COUNT in the order AMDGPUUsage
    /// "Initial Kernel Execution State" gives.
    workgroup_id_sgpr: [Option<usize>; 3],
    /// gfx90a's private segment wave offset SGPR, when enabled.
    wave_offset_sgpr: Option<usize>,
    /// A whole workgroup's work-item ids as v0 holds them, by flat item
    /// index (x, y << 10, z << 20 as far as the descriptor enables them),
    /// for workgroups of more than one dimension: a full workgroup's wave
    /// copies its lanes from here instead of stepping x, y and z per lane
    /// (built once per dispatch; empty for one-dimensional workgroups,
    /// whose ids need no table).
    packed_ids: Box<[u32]>,
    /// The watchdog's limit (None: unlimited) and when the first workgroup
    /// started.
    time_limit: Option<Duration>,
    started: OnceLock<Instant>,
    /// Time the waves waited for translations, which the watchdog does not
    /// count (paused_time.rs).
    pub(super) paused: PausedTime,
    /// Set by `cancel`: running waves stop at their next watchdog check.
    cancelled: AtomicBool,
    /// Count wave instructions by class and global-memory traffic
    /// (`with_counters`).
    counting: bool,
    /// Watches every workgroup's memory accesses and barriers
    /// (`with_observer`, observer.rs).
    observer: Option<Arc<dyn DispatchObserver>>,
    /// AGPRs each wave owns (GFX9: the allocation past ACCUM_OFFSET).
    agprs: usize,
    /// Which XCC runs each workgroup (`with_xcc_spread`).
    xcc: XccSpread,
}

fn invalid(msg: impl Into<String>) -> WaveError {
    WaveError {
        kind: WaveErrorKind::InvalidDescriptor(msg.into()),
        pc: 0,
        workgroup: [0; 3],
    }
}

impl Dispatch {
    pub fn new(setup: DispatchSetup, code: Arc<CodeCache>) -> Result<Dispatch, WaveError> {
        let kd = &setup.descriptor;
        if setup.dimensions == 0 || setup.dimensions > 3 {
            return Err(invalid(format!(
                "dispatch dimensions {} not in 1..=3",
                setup.dimensions
            )));
        }
        let wg_items: u64 = setup.workgroup_size.iter().map(|&v| v as u64).product();
        if setup.workgroup_size.contains(&0) || setup.grid_size.contains(&0) {
            return Err(invalid(format!(
                "empty grid {:?} or workgroup {:?}",
                setup.grid_size, setup.workgroup_size
            )));
        }
        if wg_items > 1024 {
            return Err(invalid(format!(
                "workgroup of {wg_items} work-items exceeds 1024"
            )));
        }
        if setup.isa != code.isa() {
            return Err(invalid(format!(
                "a {:?} dispatch on a code cache of {:?} code",
                setup.isa,
                code.isa()
            )));
        }
        // GFX9 runs wave64 only (LLVM AMDGPUUsage, "Kernel Descriptor":
        // ENABLE_WAVEFRONT_SIZE32 is reserved on GFX6-GFX9).
        if matches!(setup.isa, Isa::Gfx9(_)) && kd.enable_wavefront_size32() {
            return Err(invalid("wave32 descriptor on a GFX9 target"));
        }
        // gfx90a has no architected flat scratch: its waves find scratch
        // through the queue's buffer resource and flat-scratch base plus
        // their wave offset (AMDGPUUsage, "Initial Kernel Execution State",
        // "Flat Scratch Init": the base of the queue's scratch backing memory).
        let flat_scratch = setup.isa == Isa::Gfx9(Target::Gfx90a);
        let mut user = Vec::new();
        let push64 = |v: &mut Vec<u32>, x: u64| {
            v.push(x as u32);
            v.push((x >> 32) as u32);
        };
        if kd.enable_sgpr_private_segment_buffer() {
            if flat_scratch {
                user.extend_from_slice(&setup.scratch.resource);
            } else {
                // Architected flat scratch (gfx11, gfx942): no scratch V# exists, the slots read 0.
                user.extend_from_slice(&[0; 4]);
            }
        }
        if kd.enable_sgpr_dispatch_ptr() {
            push64(&mut user, setup.packet_address);
        }
        if kd.enable_sgpr_queue_ptr() {
            push64(&mut user, setup.queue_address);
        }
        if kd.enable_sgpr_kernarg_segment_ptr() {
            push64(&mut user, setup.kernarg_address);
        }
        if kd.enable_sgpr_dispatch_id() {
            push64(&mut user, setup.dispatch_id);
        }
        if kd.enable_sgpr_flat_scratch_init() {
            push64(&mut user, if flat_scratch { setup.scratch.base } else { 0 });
        }
        if kd.enable_sgpr_private_segment_size() {
            user.push(setup.private_segment_size);
        }
        let count = kd.user_sgpr_count();
        // gfx1100/gfx1102 pad USER_SGPR_COUNT beyond the enabled ones (UserSGPRInit16Bug), so
        // the enabled user SGPRs must fit, not match.
        if user.len() as u32 > count {
            return Err(invalid(format!(
                "descriptor enables {} user SGPRs but USER_SGPR_COUNT is {count}",
                user.len()
            )));
        }
        let system = [
            kd.enable_sgpr_workgroup_id_x(),
            kd.enable_sgpr_workgroup_id_y(),
            kd.enable_sgpr_workgroup_id_z(),
            kd.enable_sgpr_workgroup_info(),
            kd.enable_private_segment(),
        ]
        .iter()
        .filter(|b| **b)
        .count() as u32;
        if count + system > 106 {
            return Err(invalid("user + system SGPRs exceed s105"));
        }
        // A wave's private segments (one interleaved block per 32 lanes) must
        // fit the wave slots the CP gives it.
        let halves = if kd.enable_wavefront_size32() { 1 } else { 2 };
        let wave_private = slot_bytes(setup.private_segment_size as usize) as u64 * halves;
        if setup.private_segment_size != 0 && setup.scratch.wave_bytes < wave_private {
            return Err(invalid(format!(
                "scratch wave slots of {} bytes cannot hold a wave's {wave_private} bytes of \
                 private memory",
                setup.scratch.wave_bytes
            )));
        }
        // gfx90a/gfx942: the wave allocates (GRANULATED_WORKITEM_VGPR_COUNT
        // + 1) * 8 registers of the unified file, the AGPRs from
        // ACCUM_OFFSET on (LLVM AMDGPUUsage, "Kernel Descriptor" and
        // "compute_pgm_rsrc3 for GFX90A, GFX942").
        let agprs = if matches!(setup.isa, Isa::Gfx9(_)) {
            let allocated = (kd.granulated_workitem_vgpr_count() + 1) * 8;
            let accum = kd.accum_offset();
            if accum > allocated {
                return Err(invalid(format!(
                    "ACCUM_OFFSET {accum} past the {allocated} registers the wave allocates"
                )));
            }
            (allocated - accum).min(256) as usize
        } else {
            0
        };
        let entry = setup
            .kernel_object
            .wrapping_add(kd.kernel_code_entry_byte_offset as u64);
        let mut counts = [1u32; 3];
        for d in 0..3 {
            counts[d] = setup.grid_size[d].div_ceil(setup.workgroup_size[d]);
        }
        let mut sgpr_template = Box::new([0u32; 128]);
        sgpr_template[..user.len()].copy_from_slice(&user);
        // The system SGPRs in order from USER_SGPR_COUNT: the enabled
        // workgroup ids, workgroup info, the private segment offset.
        let mut next = count as usize;
        let mut workgroup_id_sgpr = [None; 3];
        let ids_enabled = [
            kd.enable_sgpr_workgroup_id_x(),
            kd.enable_sgpr_workgroup_id_y(),
            kd.enable_sgpr_workgroup_id_z(),
        ];
        for (sgpr, enabled) in workgroup_id_sgpr.iter_mut().zip(ids_enabled) {
            if enabled {
                *sgpr = Some(next);
                next += 1;
            }
        }
        if kd.enable_sgpr_workgroup_info() {
            next += 1;
        }
        let wave_offset_sgpr = (kd.enable_private_segment() && flat_scratch).then_some(next);
        let packed_ids = packed_ids(setup.workgroup_size, kd.enable_vgpr_workitem_id());
        Ok(Dispatch {
            entry,
            packed_ids,
            counts,
            sgpr_template,
            workgroup_id_sgpr,
            wave_offset_sgpr,
            setup,
            code,
            time_limit: None,
            started: OnceLock::new(),
            paused: PausedTime::default(),
            cancelled: AtomicBool::new(false),
            counting: false,
            observer: None,
            agprs,
            xcc: XccSpread::ONE,
        })
    }

    /// Count each workgroup's wave instructions by class and its bytes of
    /// global memory read and written (`WorkgroupStats::classes` and
    /// `global_*_bytes`). A wave adds a block's class sums when it leaves
    /// the block (inst_class.rs) and its memory goes through a tallying
    /// wrapper (traffic.rs); without counters neither happens.
    pub fn with_counters(mut self, counting: bool) -> Dispatch {
        self.counting = counting;
        self
    }

    /// Show every workgroup's memory accesses and barrier releases to
    /// `observer` (None: nobody watches, the default). Memory instructions
    /// then take the slow path (observer.rs says what that costs).
    pub fn with_observer(mut self, observer: Option<Arc<dyn DispatchObserver>>) -> Dispatch {
        self.observer = observer;
        self
    }

    /// Limit how long the dispatch may run, from the start of its first
    /// workgroup (None: no limit). Waves still running past it fail with
    /// [`WaveErrorKind::TimeLimit`].
    pub fn with_time_limit(mut self, limit: Option<Duration>) -> Dispatch {
        self.time_limit = limit;
        self
    }

    /// Spread the workgroups over the XCCs of a multi-XCC agent as the
    /// queue's command processors do (xcc.rs); the default is one XCC.
    pub fn with_xcc_spread(mut self, xcc: XccSpread) -> Dispatch {
        self.xcc = xcc;
        self
    }

    /// Stop the running waves at their next watchdog check (within 1024
    /// taken branches of their workgroup); they fail with `Cancelled`.
    pub fn cancel(&self) {
        self.cancelled.store(true, Ordering::Relaxed);
    }

    /// The watchdog check: Err once the dispatch is cancelled or the time
    /// limit has passed.
    #[cold]
    fn check_watchdog(&self) -> Result<(), WaveErrorKind> {
        if self.cancelled.load(Ordering::Relaxed) {
            return Err(WaveErrorKind::Cancelled);
        }
        match self.past_time_limit() {
            Some(limit) => Err(WaveErrorKind::TimeLimit { limit }),
            None => Ok(()),
        }
    }

    /// The time limit, once the dispatch has run past it: the time since
    /// its first workgroup started (or since the first call), less the
    /// time its waves waited for translations (paused_time.rs). The waves
    /// check it every 1024 taken branches; a caller handing out workgroups
    /// checks it between them, so a grid of short workgroups stops too.
    pub fn past_time_limit(&self) -> Option<Duration> {
        self.past_time_limit_at(Instant::now())
    }

    /// [`Dispatch::past_time_limit`] as of `now`, a clock reading the caller
    /// has taken anyway (a read costs about as much as a small workgroup's
    /// set-up on some hosts).
    pub fn past_time_limit_at(&self, now: Instant) -> Option<Duration> {
        let limit = self.time_limit?;
        let elapsed = now.saturating_duration_since(*self.started.get_or_init(|| now));
        // The paused time (a lock) is read only once the wall time is past.
        (elapsed > limit && elapsed.saturating_sub(self.paused.total()) > limit).then_some(limit)
    }

    /// Workgroups per dimension: ceil(grid / workgroup size).
    pub fn workgroup_count(&self) -> [u32; 3] {
        self.counts
    }

    /// Run one workgroup to completion on the calling thread.
    pub fn run_workgroup(
        &self,
        workgroup_id: [u32; 3],
        mem: &dyn GpuMemory,
        ctx: &mut WorkerContext,
    ) -> Result<WorkgroupStats, WaveError> {
        let mut stats = WorkgroupStats::default();
        let batch = self.run_workgroups([workgroup_id], mem, ctx, &mut stats);
        match batch.error {
            Some(e) => Err(*e),
            None => Ok(stats),
        }
    }

    /// Run workgroups one after another on the calling thread, all under
    /// this one borrow of `mem`, adding each one's counters to `totals`,
    /// until `ids` ends or one fails. The workgroups share one set of
    /// memoised translations (exec/span_cache.rs), the worker's: kept from
    /// batch to batch while `mem`'s version holds, so a batch of workgroups
    /// misses once per buffer at most instead of once per buffer and
    /// workgroup (and a small dispatch's batch not at all).
    ///
    /// What every workgroup of the batch shares is set up once: the
    /// environment its instructions see, the worker's LDS and waves, the
    /// scratch slots' translation and the choice of wave loop. A
    /// one-invocation workgroup runs in well under a hundred nanoseconds,
    /// so doing that per workgroup, or handing each one's counters back,
    /// would be a large part of its cost.
    pub fn run_workgroups(
        &self,
        ids: impl IntoIterator<Item = [u32; 3]>,
        mem: &dyn GpuMemory,
        ctx: &mut WorkerContext,
        totals: &mut WorkgroupStats,
    ) -> WorkgroupBatch {
        // The worker's blocks are checked against the code cache once per
        // batch: code rewritten while a dispatch runs is undefined on
        // hardware too, and a batch is a few workgroups of one dispatch.
        ctx.sync(&self.code);
        let mut spans = ctx.spans.take().unwrap_or_default();
        spans.revalidate(mem);
        let batch = self.run_batch(&mut ids.into_iter(), mem, &mut spans, ctx, totals);
        ctx.spans = Some(spans);
        batch
    }

    /// The start of workgroup `workgroup_id`: its id and size, its waves'
    /// lanes, scratch offsets and XCC (an error if it lies outside the grid).
    #[inline(always)]
    fn workgroup_start(
        &self,
        workgroup_id: [u32; 3],
        scratch_wave_slot: u32,
    ) -> Result<WaveStart, Box<WaveError>> {
        let s = &self.setup;
        let kd = &s.descriptor;
        for d in 0..3 {
            if workgroup_id[d] >= self.counts[d] {
                return Err(Box::new(WaveError {
                    kind: WaveErrorKind::InvalidDescriptor(format!(
                        "workgroup id {workgroup_id:?} outside the grid {:?}",
                        self.counts
                    )),
                    pc: 0,
                    workgroup: workgroup_id,
                }));
            }
        }
        // Actual size of this workgroup (partial at the grid edge).
        let mut size = [1u32; 3];
        for d in 0..3 {
            size[d] =
                s.workgroup_size[d].min(s.grid_size[d] - workgroup_id[d] * s.workgroup_size[d]);
        }
        let items = (size[0] * size[1] * size[2]) as usize;
        let wave64 = !kd.enable_wavefront_size32();
        let lanes = if wave64 { 2 * LANES } else { LANES };
        // gfx90a's waves get their slot's offset in the backing memory,
        // which the prologue adds to the flat-scratch base (start_wave).
        let stride = s.scratch.wave_bytes;
        let wave_offset = self
            .wave_offset_sgpr
            .map(|sgpr| (sgpr, u64::from(scratch_wave_slot) * stride, stride));
        Ok(WaveStart {
            workgroup: workgroup_id,
            size,
            items,
            lanes,
            wave64,
            ids: kd.enable_vgpr_workitem_id(),
            wave_offset,
            xcc_id: self.xcc.xcc_of_workgroup(workgroup_id, self.counts),
        })
    }
    /// Set wave `k` of the workgroup to its initial state.
    #[inline(always)]
    fn start_wave(&self, w: &mut Wave, k: usize, start: &WaveStart) {
        let (size, items, lanes, wave64) = (start.size, start.items, start.lanes, start.wave64);
        // In two halves: each is short enough for the compiler to copy inline
        // (8 AVX2 stores); one 512-byte copy would be a memcpy call per wave.
        let (lo, hi) = w.sgpr.split_at_mut(64);
        lo.copy_from_slice(&self.sgpr_template[..64]);
        hi.copy_from_slice(&self.sgpr_template[64..]);
        // The ids one by one: a store each, which the wave's reads forward
        // (an array of them copied in went through memory with a wider
        // load than its stores, a store-forwarding stall per workgroup).
        for (sgpr, id) in self.workgroup_id_sgpr.iter().zip(start.workgroup) {
            if let Some(sgpr) = *sgpr {
                w.sgpr[sgpr] = id;
            }
        }
        w.scc = false;
        w.pc = self.entry;
        w.status = WaveStatus::Running;
        w.index = k as u32;
        w.mode = 0;
        w.xcc_id = start.xcc_id;
        w.wave64 = wave64;
        w.half = 0;
        w.agpr.resize(self.agprs, [0; LANES]);
        w.agpr_hi
            .resize(if wave64 { self.agprs } else { 0 }, [0; LANES]);
        // The wave's work-item ids in v0, from flat item `first` on.
        let first = (k * lanes) as u32;
        let live = (items - k * lanes).min(lanes);
        if size[1] == 1 && size[2] == 1 && live == lanes {
            // A full wave of a one-dimensional workgroup: lane l is work-item first + l
            // (y = z = 0), written in place by a loop that vectorises.
            for (l, slot) in w.vgpr[0].iter_mut().enumerate() {
                *slot = first + l as u32;
            }
            if wave64 {
                for (l, slot) in w.vgpr_hi[0].iter_mut().enumerate() {
                    *slot = first + (LANES + l) as u32;
                }
            }
        } else if !self.packed_ids.is_empty() && size == self.setup.workgroup_size {
            // A full workgroup of more dimensions: its ids from the table.
            let ids = &self.packed_ids[first as usize..first as usize + live];
            let (lo, hi) = ids.split_at(live.min(LANES));
            w.vgpr[0][..lo.len()].copy_from_slice(lo);
            w.vgpr[0][lo.len()..].fill(0);
            if wave64 {
                w.vgpr_hi[0][..hi.len()].copy_from_slice(hi);
                w.vgpr_hi[0][hi.len()..].fill(0);
            }
        } else {
            let mut ids = [0u32; 2 * LANES];
            packed_ids_into(&mut ids[..live], size, first, start.ids);
            // Lanes past the live ones read 0.
            w.vgpr[0].copy_from_slice(&ids[..LANES]);
            if wave64 {
                w.vgpr_hi[0].copy_from_slice(&ids[LANES..]);
            }
        }
        let exec = if live == 64 {
            u64::MAX
        } else {
            (1u64 << live) - 1
        };
        w.sgpr[EXEC] = exec as u32;
        if wave64 {
            w.sgpr[EXEC + 1] = (exec >> 32) as u32;
        }
        if let Some((sgpr, first, stride)) = start.wave_offset {
            w.sgpr[sgpr] = first.wrapping_add(k as u64 * stride) as u32;
        }
    }

    /// Run a batch of workgroups (`run_workgroups`) with `spans` as the
    /// batch's memoised translations.
    ///
    /// On an x86-64 host with AVX2 or AVX-512 this, the wave loop and the
    /// pre-resolved forms it inlines are the same code compiled for that level
    /// (wave_loop.rs: 8 or 16 lanes per vector instruction instead of SSE2's
    /// 4); everything else is unchanged, and integer and IEEE float operations
    /// give the same bits at every level. The choice is made once per
    /// batch, so a workgroup or wave costs no call and no feature test.
    ///
    /// `ids` is a trait object: generic, every caller's iterator type would
    /// compile the whole wave loop again, three times, in its own crate.
    fn run_batch(
        &self,
        ids: &mut dyn Iterator<Item = [u32; 3]>,
        mem: &dyn GpuMemory,
        spans: &mut SpanCache,
        ctx: &mut WorkerContext,
        totals: &mut WorkgroupStats,
    ) -> WorkgroupBatch {
        // wave_loop() gives no level above the build's copies (COMPILED in
        // wave_loop.rs).
        #[cfg(all(target_arch = "x86_64", not(test)))]
        match wave_loop() {
            #[cfg(not(debug_assertions))]
            WaveLoop::Avx512 => {
                // SAFETY: wave_loop() gives Avx512 only where the CPU has x86-64-v4's AVX-512 subsets and FMA.
                return unsafe { self.run_batch_avx512(ids, mem, spans, ctx, totals) };
            }
            #[allow(unreachable_patterns)]
            WaveLoop::Avx2 | WaveLoop::Avx512 => {
                // SAFETY: wave_loop() gives Avx2 or above only where the CPU has AVX2 and FMA.
                return unsafe { self.run_batch_avx2(ids, mem, spans, ctx, totals) };
            }
            WaveLoop::Baseline => {}
        }
        self.run_batch_here(ids, mem, spans, ctx, totals)
    }

    /// [`Dispatch::run_batch`] compiled for AVX2 and FMA (wave_loop.rs says
    /// why FMA; keep the list equal to what it detects).
    #[cfg(all(target_arch = "x86_64", not(test)))]
    #[target_feature(enable = "avx2,fma")]
    fn run_batch_avx2(
        &self,
        ids: &mut dyn Iterator<Item = [u32; 3]>,
        mem: &dyn GpuMemory,
        spans: &mut SpanCache,
        ctx: &mut WorkerContext,
        totals: &mut WorkgroupStats,
    ) -> WorkgroupBatch {
        self.run_batch_here(ids, mem, spans, ctx, totals)
    }

    /// [`Dispatch::run_batch`] compiled for AVX-512: the subsets (and FMA)
    /// wave_loop.rs detects before it gives `WaveLoop::Avx512` (keep the
    /// lists equal).
    #[cfg(all(target_arch = "x86_64", not(debug_assertions), not(test)))]
    #[target_feature(enable = "avx512f,avx512bw,avx512cd,avx512dq,avx512vl,fma")]
    fn run_batch_avx512(
        &self,
        ids: &mut dyn Iterator<Item = [u32; 3]>,
        mem: &dyn GpuMemory,
        spans: &mut SpanCache,
        ctx: &mut WorkerContext,
        totals: &mut WorkgroupStats,
    ) -> WorkgroupBatch {
        self.run_batch_here(ids, mem, spans, ctx, totals)
    }

    /// The body of [`Dispatch::run_batch`]: set up what the batch's
    /// workgroups share, then run each one's waves to the end.
    #[inline(always)]
    fn run_batch_here(
        &self,
        ids: &mut dyn Iterator<Item = [u32; 3]>,
        mem: &dyn GpuMemory,
        spans: &mut SpanCache,
        ctx: &mut WorkerContext,
        totals: &mut WorkgroupStats,
    ) -> WorkgroupBatch {
        let s = &self.setup;
        if self.time_limit.is_some() {
            self.started.get_or_init(Instant::now);
        }
        // The most waves a workgroup of the dispatch has (edge workgroups
        // may have fewer).
        let lanes = if s.descriptor.enable_wavefront_size32() {
            LANES
        } else {
            2 * LANES
        };
        let most_items: u32 = s.workgroup_size.iter().product();
        let most_waves = (most_items as usize).div_ceil(lanes);
        while ctx.waves.len() < most_waves {
            ctx.waves.push(Wave::default());
        }
        let lds_len = s.group_segment_size as usize;
        if ctx.lds.len() < lds_len {
            ctx.lds.resize(lds_len, 0);
        }
        let mut waves = std::mem::take(&mut ctx.waves);
        let mut lds = std::mem::take(&mut ctx.lds);
        // A counting dispatch's waves see memory through the tally (traffic.rs).
        let counted = self.counting.then(|| CountingMemory {
            inner: mem,
            tally: Default::default(),
        });
        let mem: &dyn GpuMemory = match &counted {
            Some(c) => c,
            None => mem,
        };
        let mut env = Env {
            mem,
            lds: &mut lds[..lds_len],
            scratch: &mut [],
            scratch_va: 0,
            scratch_wave_bytes: s.scratch.wave_bytes as usize,
            scratch_wave64: lanes > LANES,
            scratch_per_lane: s.private_segment_size as usize,
            shared_base: s.shared_aperture_base,
            private_base: s.private_aperture_base,
            spans,
            lds_bank_conflicts: self.counting.then_some(0),
            observer: None,
        };
        // The scratch slots are translated for the wave count they were
        // last translated for (usually once per batch).
        let mut scratch_waves = None;
        let mut batch = WorkgroupBatch {
            workgroups: 0,
            error: None,
        };
        for id in ids {
            batch.workgroups += 1;
            let start = match self.workgroup_start(id, ctx.scratch_wave_slot) {
                Ok(start) => start,
                Err(e) => {
                    batch.error = Some(e);
                    break;
                }
            };
            let nwaves = start.items.div_ceil(start.lanes);
            if scratch_waves != Some(nwaves) {
                scratch_waves = Some(nwaves);
                let (ptr, len, va) = self.workgroup_scratch(nwaves, env.mem, ctx);
                env.scratch_va = va;
                env.scratch = if len == 0 {
                    &mut []
                } else {
                    // SAFETY: translate gave `len` bytes of one mapping that stays while `mem` is
                    // borrowed (GpuMemory's contract); the CP gives these wave slots to this
                    // worker's workgroups alone.
                    unsafe { std::slice::from_raw_parts_mut(ptr, len) }
                };
            }
            totals.waves = totals.waves.saturating_add(nwaves as u32);
            let waves = &mut waves[..nwaves];
            // An observed dispatch (the sanitizer) watches each workgroup
            // through its own observer. The workgroup's environment borrows
            // the batch's, with the observer if any: one call site, so the
            // wave loop is inlined once into each AVX level's copy.
            let mut observer = self
                .observer
                .as_ref()
                .map(|o| o.workgroup(id, nwaves as u32, lds_len as u32));
            let mut workgroup_env = Env {
                lds: &mut *env.lds,
                scratch: &mut *env.scratch,
                spans: &mut *env.spans,
                observer: observer
                    .as_deref_mut()
                    .map(|o| o as &mut dyn WorkgroupObserver),
                ..env
            };
            let result =
                self.run_workgroup_waves(waves, &start, id, &mut workgroup_env, ctx, totals);
            env.lds_bank_conflicts = workgroup_env.lds_bank_conflicts;
            if let Some(o) = observer.as_deref_mut() {
                o.finish();
            }
            if let Err(e) = result {
                batch.error = Some(e);
                break;
            }
        }
        if let Some(c) = &counted {
            let (inline_read, inline_written) = env.spans.tally.take();
            let (read, written) = c.tally.take();
            totals.global_read_bytes += inline_read + read;
            totals.global_written_bytes += inline_written + written;
            totals.lds_bank_conflicts += env.lds_bank_conflicts.unwrap_or(0);
        }
        ctx.lds = lds;
        ctx.waves = waves;
        batch
    }

    /// Start a workgroup's waves and run them until all have ended: each
    /// running wave runs until it reaches s_barrier or ends, in turn.
    #[inline(always)]
    fn run_workgroup_waves(
        &self,
        waves: &mut [Wave],
        start: &WaveStart,
        workgroup: [u32; 3],
        env: &mut Env,
        ctx: &mut WorkerContext,
        stats: &mut WorkgroupStats,
    ) -> Result<(), Box<WaveError>> {
        for (k, w) in waves.iter_mut().enumerate() {
            self.start_wave(w, k, start);
        }
        // Taken branches of the workgroup, for the watchdog.
        let mut jumps = 0u32;
        loop {
            let mut i = 0;
            while i < waves.len() {
                if !matches!(waves[i].status, WaveStatus::Running | WaveStatus::SyncAlone) {
                    i += 1;
                    continue;
                }
                // A region's code may go on with the later waves of the
                // round at its barriers, and release a barrier and go on
                // with the next round's first wave (jit/abi.rs
                // `switch_wave`); the rounds go on after the wave it
                // stopped with, in the same order as without it.
                let mut round = Round {
                    waves: waves.as_mut_ptr(),
                    len: waves.len(),
                    current: i,
                    switches: 0,
                    releases: 0,
                };
                let result = self.run_wave_loop(&mut round, env, ctx, stats, &mut jumps);
                stats.barrier_switches += round.switches;
                stats.barrier_releases += round.releases;
                if let Err(kind) = result {
                    return Err(Box::new(WaveError {
                        kind,
                        pc: waves[round.current].pc,
                        workgroup,
                    }));
                }
                i = round.current + 1;
            }
            if waves.iter().any(|w| w.status == WaveStatus::AtSync) {
                if let Err((kind, pc)) = self.run_sync_blocks(waves, env, ctx, stats, &mut jumps) {
                    return Err(Box::new(WaveError {
                        kind,
                        pc,
                        workgroup,
                    }));
                }
                continue;
            }
            if waves.iter().all(|w| w.status == WaveStatus::Ended) {
                return Ok(());
            }
            // Every live wave is at the barrier: release it.
            if let Some(o) = env.observer.as_deref_mut() {
                barrier_released(o, waves);
            }
            for w in waves.iter_mut() {
                if w.status == WaveStatus::AtBarrier {
                    w.status = WaveStatus::Running;
                }
            }
        }
    }
    /// A wave leaves `block` after its instruction `last`: count the
    /// instructions up to it (by class too when the dispatch counts), as
    /// translated ones too when `translated` (the block's translation ran
    /// them).
    #[inline(always)]
    fn count_block(
        &self,
        stats: &mut WorkgroupStats,
        block: &Block,
        last: usize,
        translated: bool,
    ) {
        let n = last as u64 + 1;
        stats.wave_instructions += n;
        stats.translated_wave_instructions += if translated { n } else { 0 };
        if self.counting {
            stats.classes.add_row(&block.classes[last]);
        }
    }

    /// `passes` translated runs of `block` up to its instruction `last`
    /// (a self-loop going round in its translation): one multiply, not a
    /// `count_block` per pass, unless the dispatch counts by class.
    #[cfg(feature = "llvm-jit")]
    #[inline(always)]
    fn count_passes(&self, stats: &mut WorkgroupStats, block: &Block, last: usize, passes: u32) {
        let n = (last as u64 + 1) * u64::from(passes);
        stats.wave_instructions += n;
        stats.translated_wave_instructions += n;
        if self.counting {
            for _ in 0..passes {
                stats.classes.add_row(&block.classes[last]);
            }
        }
    }

    /// The workgroup's `nwaves` scratch wave slots in the backing memory:
    /// their host address and length (0 when the dispatch has no private
    /// memory or the slots do not translate: each private access then
    /// faults, `private_slot` in exec/vmem), and their GPU address.
    #[inline(always)]
    fn workgroup_scratch(
        &self,
        nwaves: usize,
        mem: &dyn GpuMemory,
        ctx: &WorkerContext,
    ) -> (*mut u8, usize, u64) {
        let s = &self.setup;
        let stride = s.scratch.wave_bytes;
        let va = s
            .scratch
            .base
            .wrapping_add(u64::from(ctx.scratch_wave_slot).wrapping_mul(stride));
        if s.private_segment_size == 0 {
            return (std::ptr::null_mut(), 0, va);
        }
        let len = nwaves as u64 * stride;
        match (usize::try_from(len), mem.translate(va, len, Access::Write)) {
            (Ok(n), Ok(p)) => (p, n, va),
            _ => (std::ptr::null_mut(), 0, va),
        }
    }

    /// Run the blocks the waves stopped at (`WaveStatus::AtSync`, blocks
    /// that only compute): two waves at the same block through its
    /// two-wave translation where it has one (jit/llvm/emit/pair.rs), which
    /// leaves each running where its own branch (or the fall-through) led
    /// (a self-loop goes round in it while both waves take the back branch,
    /// within the watchdog's budget); every other wave runs its block
    /// alone, first in its next run (`WaveStatus::SyncAlone`). Such a block
    /// touches no memory, so running it here, or for two waves in one
    /// call, is the same as running it at the start of each wave's next
    /// run.
    // Without a translator every such wave runs its block alone.
    #[cfg_attr(not(feature = "llvm-jit"), allow(unused_variables))]
    fn run_sync_blocks(
        &self,
        waves: &mut [Wave],
        env: &mut Env,
        ctx: &mut WorkerContext,
        stats: &mut WorkgroupStats,
        jumps: &mut u32,
    ) -> Result<(), (WaveErrorKind, u64)> {
        for i in 0..waves.len() {
            if waves[i].status != WaveStatus::AtSync {
                continue;
            }
            #[cfg(feature = "llvm-jit")]
            if env.observer.is_none()
                && let Some(j) = (i + 1..waves.len())
                    .find(|&j| waves[j].status == WaveStatus::AtSync && waves[j].pc == waves[i].pc)
            {
                let (head, tail) = waves.split_at_mut(j);
                let (a, b) = (&mut head[i], &mut tail[0]);
                let idx = ctx.block_index(&self.code, a.pc, env.mem);
                // Both waves enter the block (tiering counts them).
                let single = ctx.translated(idx, false, &self.code, &self.paused);
                let single = single.and(ctx.translated(idx, false, &self.code, &self.paused));
                if let (Some((_, callout, _, _)), Some(pair)) = (single, ctx.pair_translated(idx)) {
                    let block = ctx.block_at(idx);
                    // Both go round a self-loop together: half the taken
                    // branches left before the watchdog's next check each.
                    let budget = (WATCHDOG_JUMPS - 1 - *jumps % WATCHDOG_JUMPS) / 2;
                    stats.block_entries += 1;
                    // SAFETY: `pair` is the two-wave translation of this
                    // block (the worker keeps it alive with the block's
                    // translation); `a` and `b` are wave32 waves at its start.
                    let exit = unsafe {
                        crate::gfx11::jit::run_pair(pair, callout, a, b, env, block, budget)
                    };
                    let last = block.insts.len() - 1;
                    let branch = block.compiled.last().map(|c| (c.fast, c.offset));
                    let before = *jumps;
                    for (k, w) in [a, b].into_iter().enumerate() {
                        // Each pass round the loop ran the whole block, and
                        // so did the last one unless a NaN undid it.
                        let passes = exit.loops[k] + u32::from(exit.ran);
                        self.count_passes(stats, block, last, passes);
                        let taken = exit.ran && exit.taken[k];
                        *jumps = jumps.wrapping_add(exit.loops[k] + u32::from(taken));
                        if !exit.ran {
                            // At the start of the pass that made the NaN.
                            w.status = WaveStatus::SyncAlone;
                            continue;
                        }
                        w.pc = match branch {
                            Some((Fast::Branch { target, .. }, _)) if taken => target,
                            _ => block.end,
                        };
                        // A wave still in a loop on itself (the other left,
                        // or the budget ran out) finishes it alone in its
                        // next turn, before running on: what it would have
                        // done had it not been paired.
                        w.status = if w.pc == block.start {
                            WaveStatus::SyncAlone
                        } else {
                            WaveStatus::Running
                        };
                    }
                    if *jumps / WATCHDOG_JUMPS != before / WATCHDOG_JUMPS
                        && let Err(e) = self.check_watchdog()
                    {
                        let at = branch.map_or(block.start, |(_, off)| block.start + off as u64);
                        return Err((e, at));
                    }
                    continue;
                }
            }
            waves[i].status = WaveStatus::SyncAlone;
        }
        Ok(())
    }

    /// Run one wave until it reaches s_barrier or ends: the per-instruction loop.
    ///
    /// Each instruction runs from its pre-resolved form (`exec::fast`) when it
    /// has one and through `step` otherwise; `w.pc` is kept current for the
    /// instructions that take `step` (they may read it or fail) and at every exit.
    #[inline(always)]
    fn run_wave_loop(
        &self,
        round: &mut Round,
        env: &mut Env,
        ctx: &mut WorkerContext,
        stats: &mut WorkgroupStats,
        jumps: &mut u32,
    ) -> Result<(), WaveErrorKind> {
        // SAFETY: `round.waves` holds `round.len` waves, of which the loop
        // works on the current one alone; the region's code touches the
        // others only during its call, through the same pointer.
        #[cfg_attr(not(feature = "llvm-jit"), allow(unused_mut))]
        let mut w = unsafe { &mut *round.waves.add(round.current) };
        let mut idx = ctx.block_index(&self.code, w.pc, env.mem);
        // A wave resumed at a block it stopped at runs it; a block that
        // loops on itself goes round without stopping again (as its
        // translation does), so a wave runs a loop to its end in one turn.
        let mut sync_alone = w.status == WaveStatus::SyncAlone;
        w.status = WaveStatus::Running;
        loop {
            let resumed = std::mem::take(&mut sync_alone);
            if !w.wave64 && ctx.block_at(idx).sync && !resumed {
                w.status = WaveStatus::AtSync;
                return Ok(());
            }
            stats.block_entries += 1;
            // A hot block runs its translation for the wave's size (jit/),
            // every other block the interpreter's per-entry loop; both end
            // the same way. An observed dispatch (the sanitizer) interprets:
            // every access must reach the observer.
            #[cfg(feature = "llvm-jit")]
            let translated = if env.observer.is_some() {
                None
            } else {
                ctx.translated(idx, w.wave64, &self.code, &self.paused)
            };
            // A region (jit/region.rs) adds no classes for the blocks it
            // runs through: a counting dispatch interprets its head.
            #[cfg(feature = "llvm-jit")]
            let translated = translated
                // SAFETY: the worker holds the translation, and so its
                // members, until it drops its blocks, which it does not do
                // while this wave runs.
                .map(|(func, callout, members, entry)| {
                    (func, callout, unsafe { &*members }, entry as usize)
                })
                .filter(|t| !self.counting || t.2.len() < 2);
            let block = ctx.block_at(idx);
            // Wave32 runs the list with fused pairs, wave64 the one without.
            let list = block.list(w.wave64);
            #[cfg(feature = "llvm-jit")]
            let ran_translated = translated.is_some();
            #[cfg(not(feature = "llvm-jit"))]
            let ran_translated = false;
            // A region's exit is of the member the wave left from: its
            // start when that is not the block the wave entered it at.
            #[cfg(feature = "llvm-jit")]
            let mut left = None;
            #[cfg(feature = "llvm-jit")]
            let exit = match translated {
                Some((func, callout, members, entry)) if members.len() > 1 => {
                    // Its taken branches between members count toward the
                    // next watchdog check, which the wave loop makes.
                    let budget = WATCHDOG_JUMPS - 1 - *jumps % WATCHDOG_JUMPS;
                    // SAFETY: `func` is the translation of the region
                    // `members` for this wave's size (each size's tiers
                    // hold regions of that size), alive while the worker
                    // holds it; `entry` is this block's index among them.
                    let r = unsafe {
                        crate::gfx11::jit::run_region(
                            func,
                            callout,
                            w,
                            env,
                            members,
                            entry,
                            budget,
                            &mut stats.called_out_wave_instructions,
                            round,
                        )
                    };
                    // SAFETY: as at the top: the wave the region's code
                    // stopped with (the same one unless it switched).
                    w = unsafe { &mut *round.waves.add(round.current) };
                    stats.wave_instructions += r.passed;
                    stats.translated_wave_instructions += r.passed;
                    *jumps = jumps.wrapping_add(r.jumps);
                    if r.member != entry {
                        left = Some(members[r.member].start);
                    }
                    r.exit
                }
                Some((func, callout, _, _)) => {
                    // A block looping on itself may take its back branch
                    // inside the translation up to the next watchdog check.
                    let budget = WATCHDOG_JUMPS - 1 - *jumps % WATCHDOG_JUMPS;
                    // SAFETY: `func` is the translation of this block (the
                    // worker keeps translations per private block), alive
                    // while the worker holds it, and it was made for this wave's size.
                    let (exit, loops) = unsafe {
                        crate::gfx11::jit::run_translated(
                            func,
                            callout,
                            w,
                            env,
                            block,
                            budget,
                            &mut stats.called_out_wave_instructions,
                        )
                    };
                    if loops > 0 {
                        // Each pass ran the whole block up to its branch.
                        let last = list.last().map_or(0, |c| c.last as usize);
                        self.count_passes(stats, block, last, loops);
                        *jumps = jumps.wrapping_add(loops);
                    }
                    exit
                }
                None => interpret_block(w, env, block, list),
            };
            #[cfg(not(feature = "llvm-jit"))]
            let exit = interpret_block(w, env, block, list);
            #[cfg(feature = "llvm-jit")]
            let (block, list) = match left {
                Some(pc) => {
                    idx = ctx.block_index(&self.code, pc, env.mem);
                    let member = ctx.block_at(idx);
                    (member, member.list(w.wave64))
                }
                None => (block, list),
            };
            let exit = match exit {
                Ok(exit) => exit,
                Err(failed) => {
                    let (e, done) = *failed;
                    // `done` counts the failed instruction, so it is >= 1.
                    self.count_block(stats, block, done as usize - 1, ran_translated);
                    return Err(e);
                }
            };
            let mut target = None;
            if let BlockExit::Flow { entry, flow } = exit {
                let c = &list[entry];
                // Instructions of the block up to and including this entry's
                // last (the no-ops that have no entry count too).
                let k = c.last as usize;
                match flow {
                    Flow::Next => {}
                    Flow::Jump(t) => {
                        self.count_block(stats, block, k, ran_translated);
                        *jumps = jumps.wrapping_add(1);
                        if jumps.is_multiple_of(WATCHDOG_JUMPS) {
                            w.pc = block.start + c.offset as u64;
                            self.check_watchdog()?;
                        }
                        w.pc = t;
                        target = Some(t);
                    }
                    Flow::Barrier => {
                        self.count_block(stats, block, k, ran_translated);
                        w.pc = block.start + c.offset as u64 + c.len as u64;
                        w.status = WaveStatus::AtBarrier;
                        return Ok(());
                    }
                    Flow::End => {
                        self.count_block(stats, block, k, ran_translated);
                        w.pc = block.start + c.offset as u64;
                        w.status = WaveStatus::Ended;
                        return Ok(());
                    }
                }
            }
            let target = match target {
                Some(t) => t,
                None => {
                    if let Some(last) = block.insts.len().checked_sub(1) {
                        self.count_block(stats, block, last, ran_translated);
                    }
                    w.pc = block.end;
                    match &block.tail {
                        Tail::Continue => block.end,
                        Tail::Illegal(e) => {
                            return Err(WaveErrorKind::IllegalInstruction {
                                words: e.words.clone(),
                                mnemonic: e.mnemonic.clone(),
                            });
                        }
                        Tail::Fault(f) => return Err(WaveErrorKind::MemoryViolation(*f)),
                    }
                }
            };
            // A loop jumping back to its own block start needs no lookup,
            // and does not stop at it.
            if target != block.start {
                idx = ctx.block_index(&self.code, target, env.mem);
            } else {
                sync_alone = true;
            }
        }
    }
}

/// The packed work-item ids (`packed_ids_into`) of every item of a full
/// workgroup of `size`, or none when the workgroup has one dimension.
fn packed_ids(size: [u32; 3], ids: u32) -> Box<[u32]> {
    if size[1] == 1 && size[2] == 1 {
        return Box::new([]);
    }
    let items = size.iter().product::<u32>() as usize;
    let mut table = vec![0u32; items];
    packed_ids_into(&mut table, size, 0, ids);
    table.into_boxed_slice()
}

/// Fill `out` with the packed v0 ids (x, y << 10, z << 20; y and z only
/// where the descriptor's ENABLE_VGPR_WORKITEM_ID enables them) of the
/// items from flat index `first` of a workgroup of `size`.
fn packed_ids_into(out: &mut [u32], size: [u32; 3], first: u32, ids: u32) {
    // The first item's coordinates, then stepped per item (no divisions
    // per lane); item 0 needs none at all.
    let (mut x, mut y, mut z) = if first == 0 {
        (0, 0, 0)
    } else {
        (
            first % size[0],
            (first / size[0]) % size[1],
            first / (size[0] * size[1]),
        )
    };
    for slot in out {
        *slot = x | if ids >= 1 { y << 10 } else { 0 } | if ids >= 2 { z << 20 } else { 0 };
        x += 1;
        if x == size[0] {
            x = 0;
            y += 1;
            if y == size[1] {
                y = 0;
                z += 1;
            }
        }
    }
}

/// Show `observer` where each wave stands as its workgroup's barrier is
/// released: a waiting wave's PC is past its 4-byte `s_barrier`, an ended
/// wave's at its `s_endpgm`.
#[cold]
fn barrier_released(observer: &mut dyn WorkgroupObserver, waves: &[Wave]) {
    let states: Vec<WaveSync> = waves
        .iter()
        .map(|w| match w.status {
            WaveStatus::AtBarrier => WaveSync::AtBarrier {
                pc: w.pc.wrapping_sub(4),
            },
            _ => WaveSync::Ended { pc: w.pc },
        })
        .collect();
    observer.barrier_released(&states);
}
