//! What a dispatch shows an observer (gfxsim's sanitizer,
//! `crates/gfxsim/src/sanitizer/`): each memory instruction's per-lane
//! addresses in its segment (FLAT/GLOBAL/SCRATCH, DS, MUBUF/MTBUF, MIMG),
//! each scalar load's address, and each barrier release with where every
//! wave of the workgroup stands. A buffer instruction shows only the bytes
//! that pass its resource's range check: the rest are never accessed
//! (loads read 0, stores are dropped).
//!
//! A dispatch without an observer pays one branch per workgroup and one per
//! memory instruction (`Env::observer` is tested before the pre-resolved
//! memory forms run and at the top of the slow memory paths), never one per
//! lane. With an observer, memory instructions take the slow path, where
//! the lane addresses are at hand, except the pre-resolved SCRATCH dword
//! loads and stores, which show their lanes themselves (scratch-heavy
//! kernels would otherwise spend most of their time on the slow path); the
//! observer only watches: the access then proceeds exactly as it would
//! without it.

use crate::Access;

/// The segment an access's addresses are in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Segment {
    /// Global memory: GPU virtual addresses.
    Global,
    /// The workgroup's LDS: byte offsets into it.
    Lds,
    /// The lane's private memory: byte offsets into its private segment.
    Private,
}

/// One memory instruction's accesses by 32 lanes of a wave (a wave64 shows
/// two, one per half), or a scalar load's one access for the whole wave.
#[derive(Clone, Copy, Debug)]
pub struct LaneAccesses<'a> {
    /// The instruction's address.
    pub pc: u64,
    /// The wave's index in its workgroup.
    pub wave: u32,
    /// The lane number of `addrs[0]` (32 for a wave64's high half).
    pub first_lane: u32,
    pub segment: Segment,
    pub access: Access,
    /// Bytes each lane accesses at its address.
    pub size: u32,
    /// Bit `l` set: lane `first_lane + l` accesses `addrs[l]`.
    pub exec: u32,
    pub addrs: &'a [u64; 32],
    /// A scalar (SMEM) access: the wave's one address is `addrs[0]`, `exec`
    /// is 1 and no lane makes it.
    pub scalar: bool,
    /// The instruction's sc1 cache-policy bit (gfx942 FLAT/GLOBAL and
    /// MUBUF/MTBUF: agent or system scope, coherent across the agent's L2
    /// caches; LLVM AMDGPUUsage, "Memory Model GFX942"). False for every
    /// other access and target.
    pub sc1: bool,
}

/// A cache-control instruction a wave executes (gfx942's `buffer_wbl2` and
/// `buffer_inv`), with its scope bits: sc0 alone is work-group scope, sc1
/// agent scope, both system scope (LLVM AMDGPUUsage, "Memory Model GFX942",
/// the code sequences table).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CacheControl {
    /// The wave's index in its workgroup.
    pub wave: u32,
    /// `buffer_wbl2` (write dirty L2 lines back) or `buffer_inv`
    /// (invalidate).
    pub op: CacheOp,
    pub sc0: bool,
    pub sc1: bool,
}

/// What a [`CacheControl`] instruction does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CacheOp {
    /// `buffer_wbl2`: write back dirty L2 lines.
    WritebackL2,
    /// `buffer_inv`: invalidate cache lines (L1; with sc1, non-local L2).
    Invalidate,
}

/// Where a wave stands when its workgroup's barrier is released.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WaveSync {
    /// Waiting at the `s_barrier` at `pc`.
    AtBarrier { pc: u64 },
    /// Ended at the `s_endpgm` at `pc`.
    Ended { pc: u64 },
}

/// Watches a dispatch: gives each workgroup its own observer.
pub trait DispatchObserver: Send + Sync + std::fmt::Debug {
    /// Workgroup `id`, of `waves` waves and `lds_bytes` bytes of LDS, starts
    /// on the calling thread.
    fn workgroup(
        &self,
        id: [u32; 3],
        waves: u32,
        lds_bytes: u32,
    ) -> Box<dyn WorkgroupObserver + '_>;
}

/// Watches one workgroup, on the thread that runs it.
pub trait WorkgroupObserver {
    /// A memory instruction's lanes access their addresses.
    fn access(&mut self, accesses: &LaneAccesses<'_>);

    /// Every wave that has not ended waits at a barrier, and the barrier is
    /// released (`waves[k]`: wave `k`).
    fn barrier_released(&mut self, waves: &[WaveSync]);

    /// The workgroup is over (every wave ended, or one failed).
    fn finish(&mut self);

    /// A wave executes a cache-control instruction (gfx942's `buffer_wbl2`,
    /// `buffer_inv`). Observers that model no caches ignore it.
    fn cache_control(&mut self, _control: &CacheControl) {}
}
