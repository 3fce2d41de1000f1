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
}
