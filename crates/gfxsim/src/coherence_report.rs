//! What strict coherence mode reports: one typed record per stale read it
//! finds, naming the allocation, the side that reads stale data and the
//! packet whose fences were missing; plus counters of the data movement the
//! fences caused, so a test can tell the mode really ran.
//!
//! Records go to the device that found them (`SimDevice::coherence_reports`)
//! and to a process-wide list (`process_coherence_reports`) for code that
//! reaches gfxsim only through a `dyn KfdDevice` (the facade's tests).

use std::fmt;
use std::ops::Range;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use aqueduct_kfd::abi::FenceScope;

/// Which direction of the coarse-grained contract was broken.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum StaleRead {
    /// The host (or another agent) reads stale bytes: a packet completed
    /// with a completion signal while kernel writes to an allocation that
    /// is shared outside the agent were not released at system scope.
    HostReadsUnreleasedKernelWrites,
    /// A kernel read stale bytes: memory changed (host or another agent
    /// wrote it) after this GPU's last system-scope acquire, and the
    /// packet that read it was launched without one.
    KernelReadsUnacquiredHostWrites,
    /// A kernel read bytes that an earlier packet's kernels on the same
    /// agent wrote, and the packet that read them was launched with acquire
    /// scope NONE after that write completed: without the agent-scope
    /// acquire the CP does not invalidate the per-CU caches (vector L0,
    /// GL1, scalar cache), so the read may hit an old line there.
    KernelReadsUnacquiredKernelWrites,
    /// A kernel on one XCC of a multi-XCC agent (gfx942) read bytes a
    /// kernel stored on another XCC, without that XCC's L2 writing them
    /// back (`buffer_wbl2 sc1`, an agent-scope release) and, unless the
    /// read bypassed its L2 (sc1, atomics), without the reader's XCC
    /// invalidating its L2 after the writeback (`buffer_inv sc1`, an
    /// agent-scope acquire): the reader may see an old L2 line
    /// (`coherence/xcc_l2.rs`).
    KernelReadsOtherXccWrites,
}

/// The two XCCs of a [`StaleRead::KernelReadsOtherXccWrites`] report.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct XccPair {
    /// The XCC whose kernel stored the bytes.
    pub writer: u32,
    /// The XCC whose kernel read them.
    pub reader: u32,
}

/// A packet of one queue (its dispatch id).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PacketId {
    pub queue_id: u32,
    pub index: u64,
}

/// The allocation (buffer object) a report is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct AllocationId {
    /// The KFD handle ALLOC_MEMORY_OF_GPU returned.
    pub handle: u64,
    /// Its GPU virtual address (the host address too: CPU VA == GPU VA).
    pub va: u64,
    /// Its size in bytes.
    pub size: u64,
}

/// One stale read strict coherence mode found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CoherenceReport {
    pub kind: StaleRead,
    pub allocation: AllocationId,
    /// The GPU whose cache holds (or missed) the data.
    pub gpu_id: u32,
    /// The queue and packet index (its dispatch id) whose fence was missing:
    /// the completing packet for `HostReadsUnreleasedKernelWrites`, the
    /// launched packet that read for the `KernelReads*` kinds.
    pub queue_id: u32,
    pub packet_index: u64,
    /// That packet's fence scope on the side that mattered: its release
    /// scope, or its acquire scope.
    pub scope: FenceScope,
    /// GPU VA range from the first to the last byte that differs between
    /// the GPU's copy and memory; for `KernelReadsUnacquiredKernelWrites`,
    /// the range `writer` changed.
    pub stale: Range<u64>,
    /// How many bytes in `stale` differ (for
    /// `KernelReadsUnacquiredKernelWrites`: the range's length).
    pub stale_bytes: u64,
    /// For the `KernelReads*` kinds: the first access that read a stale
    /// byte (address, length).
    pub read_at: Option<(u64, u64)>,
    /// For `KernelReadsUnacquiredKernelWrites` and
    /// `KernelReadsOtherXccWrites`: the packet whose kernels wrote the
    /// stale bytes.
    pub writer: Option<PacketId>,
    /// For `KernelReadsOtherXccWrites`: the reading kernel (its kernel
    /// descriptor's address, the packet's `kernel_object`).
    pub kernel_object: Option<u64>,
    /// For `KernelReadsOtherXccWrites`: the writing and the reading XCC.
    pub xccs: Option<XccPair>,
}

impl fmt::Display for CoherenceReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let a = &self.allocation;
        match self.kind {
            StaleRead::HostReadsUnreleasedKernelWrites => write!(
                f,
                "stale host read: allocation {:#x} (va {:#x}, {} bytes): packet {} of queue {} on gpu {:#x} \
                 completed with release scope {:?}, so {} byte(s) its kernels wrote in {:#x}..{:#x} \
                 are still only in the GPU's cache (a system-scope release is needed)",
                a.handle,
                a.va,
                a.size,
                self.packet_index,
                self.queue_id,
                self.gpu_id,
                self.scope,
                self.stale_bytes,
                self.stale.start,
                self.stale.end
            ),
            StaleRead::KernelReadsUnacquiredHostWrites => {
                write!(
                    f,
                    "stale kernel read: allocation {:#x} (va {:#x}, {} bytes): packet {} of queue {} on gpu {:#x} \
                     was launched with acquire scope {:?} after {} byte(s) in {:#x}..{:#x} changed in memory, \
                     so its kernel read the GPU's old copy (a system-scope acquire is needed)",
                    a.handle,
                    a.va,
                    a.size,
                    self.packet_index,
                    self.queue_id,
                    self.gpu_id,
                    self.scope,
                    self.stale_bytes,
                    self.stale.start,
                    self.stale.end
                )?;
                if let Some((addr, len)) = self.read_at {
                    write!(f, "; first stale read: {len} byte(s) at {addr:#x}")?;
                }
                Ok(())
            }
            StaleRead::KernelReadsUnacquiredKernelWrites => {
                write!(
                    f,
                    "stale kernel read: allocation {:#x} (va {:#x}, {} bytes): packet {} of queue {} on gpu {:#x} \
                     was launched with acquire scope {:?} after ",
                    a.handle,
                    a.va,
                    a.size,
                    self.packet_index,
                    self.queue_id,
                    self.gpu_id,
                    self.scope,
                )?;
                match self.writer {
                    Some(w) => write!(f, "packet {} of queue {}", w.index, w.queue_id)?,
                    None => write!(f, "an earlier packet")?,
                }
                write!(
                    f,
                    " wrote {:#x}..{:#x} on the same agent, so its kernel may read old lines \
                     from a per-CU cache (an agent-scope acquire is needed)",
                    self.stale.start, self.stale.end
                )?;
                if let Some((addr, len)) = self.read_at {
                    write!(f, "; first stale read: {len} byte(s) at {addr:#x}")?;
                }
                Ok(())
            }
            StaleRead::KernelReadsOtherXccWrites => {
                write!(
                    f,
                    "stale kernel read: allocation {:#x} (va {:#x}, {} bytes): kernel {:#x} of packet {} \
                     of queue {} on gpu {:#x}",
                    a.handle,
                    a.va,
                    a.size,
                    self.kernel_object.unwrap_or(0),
                    self.packet_index,
                    self.queue_id,
                    self.gpu_id,
                )?;
                if let Some(x) = self.xccs {
                    write!(f, " on XCC {} read bytes XCC {} stored", x.reader, x.writer)?;
                }
                if let Some(w) = self.writer {
                    write!(f, " (packet {} of queue {})", w.index, w.queue_id)?;
                }
                write!(
                    f,
                    " in {:#x}..{:#x} ({} byte(s)) that the writer's L2 did not write back \
                     or the reader's L2 did not invalidate after (agent-scope release and \
                     acquire are needed: buffer_wbl2 sc1, buffer_inv sc1)",
                    self.stale.start, self.stale.end, self.stale_bytes
                )?;
                if let Some((addr, len)) = self.read_at {
                    write!(f, "; first stale read: {len} byte(s) at {addr:#x}")?;
                }
                Ok(())
            }
        }
    }
}

/// Data the fences of strict mode moved (cumulative).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CoherenceStats {
    /// System-scope releases performed (each writes back every dirty
    /// coarse range of its GPU).
    pub releases: u64,
    /// Bytes copied from a GPU's copy to memory by releases and unmaps.
    pub written_back: u64,
    /// System-scope acquires performed.
    pub acquires: u64,
    /// Bytes copied from memory to a GPU's copy by acquires.
    pub reloaded: u64,
    /// Coarse allocations mapped with a GPU copy.
    pub cached_mappings: u64,
    /// Writebacks of one XCC's L2 on multi-XCC agents (an agent-scope
    /// `buffer_wbl2` a wave ran, or one per XCC for a packet's release).
    pub l2_writebacks: u64,
    /// Invalidates of one XCC's L2 on multi-XCC agents (an agent-scope
    /// `buffer_inv` a wave ran, or one per XCC for a packet's acquire).
    pub l2_invalidates: u64,
}

/// Where one device's reports and counters go.
#[derive(Debug, Default)]
pub(crate) struct CoherenceLog {
    reports: Mutex<Vec<CoherenceReport>>,
    /// The device's counters, indexed as `PROCESS_STATS`.
    stats: Counters,
}

/// The counters of `CoherenceStats`, indexed by the constants below.
type Counters = [AtomicU64; 7];

/// Every report of every device of this process.
static PROCESS_REPORTS: Mutex<Vec<CoherenceReport>> = Mutex::new(Vec::new());
static PROCESS_STATS: Counters = [const { AtomicU64::new(0) }; 7];

const RELEASES: usize = 0;
const WRITTEN_BACK: usize = 1;
const ACQUIRES: usize = 2;
const RELOADED: usize = 3;
const CACHED_MAPPINGS: usize = 4;
const L2_WRITEBACKS: usize = 5;
const L2_INVALIDATES: usize = 6;

/// A snapshot of a set of counters.
fn snapshot(counters: &Counters) -> CoherenceStats {
    let get = |i: usize| counters[i].load(Ordering::Relaxed);
    CoherenceStats {
        releases: get(RELEASES),
        written_back: get(WRITTEN_BACK),
        acquires: get(ACQUIRES),
        reloaded: get(RELOADED),
        cached_mappings: get(CACHED_MAPPINGS),
        l2_writebacks: get(L2_WRITEBACKS),
        l2_invalidates: get(L2_INVALIDATES),
    }
}

impl CoherenceLog {
    pub(crate) fn record(&self, report: CoherenceReport) {
        tracing::warn!("gfxsim strict coherence: {report}");
        PROCESS_REPORTS
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(report.clone());
        self.reports
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(report);
    }

    pub(crate) fn reports(&self) -> Vec<CoherenceReport> {
        self.reports
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    fn add(&self, index: usize, n: u64) {
        self.stats[index].fetch_add(n, Ordering::Relaxed);
        PROCESS_STATS[index].fetch_add(n, Ordering::Relaxed);
    }

    pub(crate) fn count_release(&self, bytes: u64) {
        self.add(RELEASES, 1);
        self.count_written_back(bytes);
    }

    pub(crate) fn count_written_back(&self, bytes: u64) {
        self.add(WRITTEN_BACK, bytes);
    }

    pub(crate) fn count_acquire(&self, bytes: u64) {
        self.add(ACQUIRES, 1);
        self.add(RELOADED, bytes);
    }

    pub(crate) fn count_l2_writeback(&self) {
        self.add(L2_WRITEBACKS, 1);
    }

    pub(crate) fn count_l2_invalidate(&self) {
        self.add(L2_INVALIDATES, 1);
    }

    pub(crate) fn count_cached_mapping(&self) {
        self.add(CACHED_MAPPINGS, 1);
    }

    pub(crate) fn stats(&self) -> CoherenceStats {
        snapshot(&self.stats)
    }
}

/// Every strict-coherence report of every `SimDevice` of this process, in
/// the order they were found.
pub fn process_coherence_reports() -> Vec<CoherenceReport> {
    PROCESS_REPORTS
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .clone()
}

/// The strict-coherence counters summed over every `SimDevice` of this
/// process (all zero when no device ran in strict mode).
pub fn process_coherence_stats() -> CoherenceStats {
    snapshot(&PROCESS_STATS)
}
