//! The copy engine: the device's SDMA queue, when it has one, and the
//! signals that order its commands against the compute queue.
//!
//! Policy (`BlitKernels::use_sdma`): copies and fills of at least
//! [`SDMA_MIN_BYTES`] go to the SDMA engine; smaller ones, and all of them
//! when no SDMA queue could be created or `AQUEDUCT_ENABLE_SDMA=0`, are
//! blit kernels on the compute queue (ROCr's `HSA_ENABLE_SDMA=0` likewise
//! falls back to blit kernels).
//!
//! Ordering (ROCr's `BlitSdma` protocol): an SDMA op is, on the compute
//! queue, a barrier-AND packet with the barrier bit (every earlier packet
//! completes first) and a system-scope release completing the op's gate
//! signal, then a barrier-AND waiting for its done signal; on the SDMA
//! queue, a poll of the gate until it reads 0, the copy or fill, and the
//! decrement of the done signal (the gate starts open when nothing is
//! outstanding before the op). So a copy waits for the dispatch that
//! produced its source, and a dispatch for the copy that produced its
//! input; the submission's completion packet comes after the wait, so its
//! epoch covers the copy.
//!
//! The signals live until the SDMA engine has consumed the whole command
//! ([`SdmaGates`]'s drop opens the gate, in case the compute queue never
//! will after a fault, and waits for the engine's read pointer), so the
//! engine never polls or writes a freed signal.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::time::{Duration, Instant};

use aqueduct_hsa::{Agent, HsaError, MemoryOrder, Runtime, SdmaQueue, Signal};

use crate::command::lower::SdmaWork;

/// The environment variable that turns the SDMA engine off (`0`).
pub const ENABLE_SDMA_ENV: &str = "AQUEDUCT_ENABLE_SDMA";

/// The smallest copy or fill the SDMA engine takes. Measured on gfxsim
/// (2 host cores) with `AQUEDUCT_SDMA_MIN_BYTES=0 cargo bench --bench
/// dispatch -- --only readback --bytes N` (copy_buffer_to_buffer, submit,
/// map and read; median of 200) with and without `AQUEDUCT_ENABLE_SDMA=0`:
/// the SDMA path costs about 60-80 µs at any small size (two barrier
/// packets, engine and command-processor wake-ups), the blit kernel
/// 27-45 µs at 4 KiB, 45-52 µs at 16 KiB, 52-93 µs at 32 KiB (SDMA 64-78),
/// 120-165 µs at 48 KiB (SDMA 75-82): they break even at about 32 KiB.
pub const SDMA_MIN_BYTES: u64 = 32 * 1024;

/// The environment variable that sets another threshold (bytes), to
/// measure where the engine pays off on a machine.
pub const SDMA_MIN_BYTES_ENV: &str = "AQUEDUCT_SDMA_MIN_BYTES";

/// The threshold in effect: [`SDMA_MIN_BYTES_ENV`] when it holds a
/// number, else [`SDMA_MIN_BYTES`].
pub(crate) fn sdma_min_bytes() -> u64 {
    std::env::var(SDMA_MIN_BYTES_ENV)
        .ok()
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(SDMA_MIN_BYTES)
}

/// How long a command's signals wait, when dropped, for the engine to
/// move past the command before they are freed anyway.
const DRAIN_LIMIT: Duration = Duration::from_secs(5);

/// The device's SDMA queue.
#[derive(Debug)]
pub(crate) struct CopyEngine {
    queue: SdmaQueue,
    /// The signals of commands submitted and not yet dropped, to release
    /// the compute queue's waits if the engine faults.
    in_flight: Mutex<Vec<Weak<SdmaGates>>>,
}

impl CopyEngine {
    /// The SDMA queue of `agent`, unless `AQUEDUCT_ENABLE_SDMA=0` or
    /// CREATE_QUEUE refuses one (the process holds every SDMA queue KFD
    /// hands out, or the device has no SDMA engine).
    pub(crate) fn open(runtime: &Runtime, agent: &Agent) -> Option<Arc<CopyEngine>> {
        if std::env::var(ENABLE_SDMA_ENV).is_ok_and(|v| v.trim() == "0") {
            tracing::debug!("{ENABLE_SDMA_ENV}=0: copies and fills use blit kernels");
            return None;
        }
        match runtime.create_sdma_queue(agent) {
            Ok(queue) => Some(Arc::new(CopyEngine {
                queue,
                in_flight: Mutex::new(Vec::new()),
            })),
            Err(e) => {
                tracing::info!("no SDMA queue ({e}): copies and fills use blit kernels");
                None
            }
        }
    }

    /// After an SDMA queue error: set the done signal of every command in
    /// flight (their copies will not happen; the compute queue's waits for
    /// them end) and recreate the queue; the error, if there was one.
    pub(crate) fn recover_from_fault(&self) -> Option<aqueduct_hsa::QueueError> {
        let error = self.queue.error()?;
        let gates: Vec<Arc<SdmaGates>> = self
            .in_flight
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .drain(..)
            .filter_map(|g| g.upgrade())
            .collect();
        for g in &gates {
            g.open();
            g.done.store(0, MemoryOrder::Release);
        }
        if let Err(e) = self.queue.recover() {
            tracing::error!("recreating the SDMA queue after an error: {e}");
        }
        Some(error)
    }

    /// Fresh gate and done signals for one command. With `open`
    /// (nothing is outstanding before the command: no earlier op in its
    /// submission and every earlier submission complete, so visible to the
    /// engine) the gate starts at 0 and the compute queue does not
    /// complete it: the engine starts at once.
    pub(crate) fn gates(
        self: &Arc<Self>,
        runtime: &Runtime,
        open: bool,
    ) -> Result<Arc<SdmaGates>, HsaError> {
        Ok(Arc::new(SdmaGates {
            engine: self.clone(),
            gate: runtime.create_signal(if open { 0 } else { 1 })?,
            open_from_start: open,
            done: runtime.create_signal(1)?,
            end: AtomicU64::new(u64::MAX),
            generation: AtomicU64::new(0),
        }))
    }

    /// Submit `work` behind `gates.gate`, completing `gates.done`. When it
    /// cannot be submitted, both signals are set to 0 so the compute queue
    /// does not wait for it for ever, and the error is returned.
    pub(crate) fn submit(&self, work: &SdmaWork, gates: &Arc<SdmaGates>) -> Result<(), HsaError> {
        let result = match *work {
            SdmaWork::Copy { src, dst, bytes } => {
                self.queue
                    .copy(dst, src, bytes, &[&gates.gate], Some(&gates.done))
            }
            SdmaWork::Fill {
                dst,
                pattern,
                bytes,
            } => self
                .queue
                .fill(dst, pattern, bytes, &[&gates.gate], Some(&gates.done)),
        };
        match result {
            Ok(()) => {
                let mut in_flight = self.in_flight.lock().unwrap_or_else(|p| p.into_inner());
                in_flight.retain(|g| g.strong_count() > 0);
                in_flight.push(Arc::downgrade(gates));
                drop(in_flight);
                gates
                    .generation
                    .store(self.queue.recreations(), Ordering::Relaxed);
                gates
                    .end
                    .store(self.queue.write_pointer(), Ordering::Release);
                Ok(())
            }
            Err(e) => {
                gates.open();
                gates.done.store(0, MemoryOrder::Release);
                Err(e)
            }
        }
    }
}

/// The signals between the compute queue and the SDMA queue for one
/// command (kept alive by its submission).
#[derive(Debug)]
pub(crate) struct SdmaGates {
    engine: Arc<CopyEngine>,
    /// Completed by the compute queue once everything before the command is done.
    pub gate: Signal,
    /// Decremented by the SDMA engine once the command is done.
    pub done: Signal,
    /// The gate starts open: the compute queue's gate packet completes no signal.
    open_from_start: bool,
    /// The SDMA write pointer just past the command (MAX until submitted).
    end: AtomicU64,
    /// The SDMA queue's recreation count when the command was submitted.
    generation: AtomicU64,
}

impl SdmaGates {
    /// The completion signal of the compute queue's gate packet (0: none).
    pub(crate) fn gate_completion(&self) -> u64 {
        if self.open_from_start {
            0
        } else {
            self.gate.handle()
        }
    }

    /// Let the engine past the gate whether or not the compute queue gets there.
    fn open(&self) {
        self.gate.store(0, MemoryOrder::Release);
    }
}

impl Drop for SdmaGates {
    fn drop(&mut self) {
        let end = self.end.load(Ordering::Acquire);
        if end == u64::MAX {
            return;
        }
        self.open();
        let queue = &self.engine.queue;
        let generation = self.generation.load(Ordering::Relaxed);
        let start = Instant::now();
        // The read pointer only grows (bytes) until the queue is recreated.
        while queue.read_pointer() < end
            && queue.recreations() == generation
            && queue.error().is_none()
        {
            if start.elapsed() > DRAIN_LIMIT {
                tracing::error!(
                    read = queue.read_pointer(),
                    end,
                    "the SDMA engine did not move past a command's signals"
                );
                return;
            }
            std::thread::yield_now();
        }
    }
}
