//! The background compiler: one thread, started at the first request, that
//! compiles block modules in order and fills each block's slot, so a worker
//! that finds a block hot never waits for LLVM (it keeps interpreting the
//! block until the slot is filled). One thread, because a compile takes a
//! host core for milliseconds and the workers need theirs.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, Sender, channel};
use std::sync::{Arc, Mutex, OnceLock};

use super::super::shared::Slot;
use super::load;

/// One block's module to compile.
struct Job {
    ir: String,
    inlined: usize,
    entries: usize,
    slot: Arc<Slot>,
}

/// Compile `job` and fill its slot (None on failure, logged).
fn run(job: Job) {
    let t = match load(&job.ir, &[job.inlined], &[job.entries]) {
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

/// Compile a block's module `ir` (one function, `b0`) in the background and
/// fill `slot` with its translation, of `inlined` inline entries out of
/// `entries`; when `wait`, compile it on this thread instead (the mode
/// that translates every block before running it).
pub(crate) fn submit(ir: String, inlined: usize, entries: usize, slot: Arc<Slot>, wait: bool) {
    let job = Job {
        ir,
        inlined,
        entries,
        slot,
    };
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
