//! The background compiler: one thread, started at the first request, that
//! writes, compiles and links block modules in order and fills each block's
//! slot, so a worker that finds a block hot never waits for LLVM, nor
//! writes the block's IR (it keeps interpreting the block until the slot is
//! filled). One thread, because a compile takes a host core for
//! milliseconds (0.15-0.2 s for the large vector blocks of a transcendental
//! loop) and the workers need theirs.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, Sender, channel};
use std::sync::{Arc, Mutex, OnceLock};

use super::super::shared::Slot;
use super::super::translation::{pays, run_entries};
use super::{label, load, module, region_module};
use crate::gfx11::code_cache::Block;
use crate::gfx11::jit::target::{JitTarget, jit_target};

/// One block to translate.
struct Job {
    block: Arc<Block>,
    /// The region headed by `block` (jit/region.rs; `block` first), or
    /// empty: the block alone.
    members: Vec<Arc<Block>>,
    /// Translate the wave64 list (else the wave32 one).
    wave64: bool,
    /// The CPU to compile for: the process's when the job was made.
    target: JitTarget,
    slot: Arc<Slot>,
    /// Leave the block to the interpreter where its translation would not
    /// pay ([`pays`]).
    only_if_it_pays: bool,
}

/// The largest block module compiled: past it the block stays
/// interpreted. A module's size grows with its exits times the registers
/// each must store, and libLLVM-19's time faster than the size: a wave64
/// block of the corpus's private_sort on gfx942 (244 call-outs, 2.4 MB of
/// IR, mostly the stores of its exit paths) took longer than the corpus
/// runner's two-minute wait. The largest modules that pay (the compute
/// bench's vector loops) are a tenth of this.
pub(super) const MAX_MODULE_BYTES: usize = 1 << 20;

/// Translate `job`'s block and fill its slot (None where it would not pay,
/// is too large to compile or fails, logged).
fn run(job: Job) {
    if job.members.len() > 1 {
        let members: Vec<&Block> = job.members.iter().map(|b| &**b).collect();
        let (ir, inlined) = region_module(&members, job.wave64, job.target);
        let entries = members
            .iter()
            .map(|b| run_entries(b.list(job.wave64)))
            .sum();
        if job.only_if_it_pays && !pays(inlined, entries) {
            return job.slot.fill(None);
        }
        // A region too large to compile leaves its head to a translation
        // of its own.
        if ir.len() <= MAX_MODULE_BYTES {
            let labels = [label(&job.block, &job.members, job.wave64)];
            let t = match load(&ir, &[inlined], &[false], &[entries], &labels, job.target) {
                Ok(mut t) => t.pop().map(|t| Arc::new(t.with_members(job.members))),
                Err(e) => {
                    tracing::debug!("region stays interpreted: {e}");
                    None
                }
            };
            return job.slot.fill(t);
        }
    }
    let (ir, inlined, pairs) = module(&[&job.block], job.wave64, job.target);
    let entries = run_entries(job.block.list(job.wave64));
    if job.only_if_it_pays && !pays(inlined[0], entries) {
        return job.slot.fill(None);
    }
    if ir.len() > MAX_MODULE_BYTES {
        tracing::debug!(
            "the block at {:#x} stays interpreted: {} bytes of IR",
            job.block.start,
            ir.len()
        );
        return job.slot.fill(None);
    }
    let labels = [label(&job.block, &[], job.wave64)];
    let t = match load(&ir, &inlined, &pairs, &[entries], &labels, job.target) {
        Ok(mut t) => t.pop().map(Arc::new),
        Err(e) => {
            tracing::debug!("block stays interpreted: {e}");
            None
        }
    };
    job.slot.fill(t);
}

/// Blocks handed to the background thread so far, and those it finished.
static QUEUED: AtomicU64 = AtomicU64::new(0);
static FINISHED: AtomicU64 = AtomicU64::new(0);

/// Background compiles requested so far in this process, and how many of
/// them are not finished yet.
pub(crate) fn progress() -> (u64, u64) {
    let finished = FINISHED.load(Ordering::Acquire);
    let queued = QUEUED.load(Ordering::Acquire);
    (queued, queued.saturating_sub(finished))
}

fn worker(rx: Receiver<Job>) {
    while let Ok(job) = rx.recv() {
        run(job);
        FINISHED.fetch_add(1, Ordering::AcqRel);
    }
}

/// Translate `block` in the background and fill `slot` with it (None when
/// `only_if_it_pays` and it would not); when `wait`, on this thread instead
/// (the mode that translates every block before running it).
pub(crate) fn submit(
    block: Arc<Block>,
    members: Vec<Arc<Block>>,
    wave64: bool,
    slot: Arc<Slot>,
    wait: bool,
    only_if_it_pays: bool,
) {
    let job = Job {
        block,
        members,
        wave64,
        target: jit_target(),
        slot,
        only_if_it_pays,
    };
    // libLLVM's first compile and link happen here, not on the background
    // thread, so the process does not exit in the middle of them
    // (warm_up.rs says why that matters).
    super::warm_up::warm_up();
    if wait {
        return run(job);
    }
    static QUEUE: OnceLock<Option<Mutex<Sender<Job>>>> = OnceLock::new();
    let queue = QUEUE.get_or_init(|| {
        let (tx, rx) = channel();
        std::thread::Builder::new()
            .name("aqueduct-jit".to_owned())
            .spawn(move || worker(rx))
            .map_err(|e| tracing::warn!("no background compiler: {e}"))
            .ok()?;
        Some(Mutex::new(tx))
    });
    QUEUED.fetch_add(1, Ordering::AcqRel);
    let sent = match queue {
        Some(tx) => tx
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .send(job)
            .map_err(|e| e.0),
        None => Err(job),
    };
    if let Err(job) = sent {
        job.slot.fill(None);
        FINISHED.fetch_add(1, Ordering::AcqRel);
    }
}
