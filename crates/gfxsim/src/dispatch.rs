//! Workgroup scheduling: each GPU has a pool of host worker threads that
//! run the workgroups of the dispatches its command processors launch.
//!
//! A dispatch becomes a [`Job`] on the pool's FIFO. Workers take the front
//! job and claim workgroup indices from its atomic counter (x fastest, then
//! y, then z), so a dispatch's workgroups spread over all workers and
//! dispatches that overlap run back to back without a barrier between
//! them. Workers claim a few consecutive workgroups per atomic op (a batch,
//! 1 for small grids, up to 16 for large ones). Each worker owns an
//! `aqueduct_isa::gfx11::WorkerContext` (LDS, scratch) and holds a read view
//! of the GPU's page table while it runs a batch (whose workgroups share the
//! translations they memoise under that view: `Dispatch::run_workgroups`).
//!
//! When a workgroup fails, the job stops handing out workgroups (those not
//! yet claimed are counted as done without running), cancels the running
//! ones (they stop at their next watchdog check, `Dispatch::run_workgroups` in aqueduct-isa), and
//! keeps the first error. The worker that finishes the last
//! workgroup marks the job done and wakes the queue's command processor.
//!
//! The dispatch's time limit (`SimConfig::dispatch_timeout`) holds for any
//! shape of grid: the waves check it inside a workgroup (isa/dispatch.rs,
//! every 1024 taken branches), and the job checks it before each batch of
//! workgroups it starts, so a grid of many short workgroups stops at the limit too and
//! fails with the same `TimeLimit` error.
//!
//! A dispatch with private memory has a limited number of scratch wave
//! slots (the queue's COMPUTE_TMPRING_SIZE.WAVES, queue/scratch.rs). Its
//! job splits them into runs of one workgroup's waves ([`ScratchSlots`]); a
//! worker takes a run before it claims workgroups, its workgroups' waves use
//! those slots (`WorkerContext::set_scratch_wave_slot`), and it gives the run
//! back when the job has no workgroups left. A worker that finds no free run
//! waits for one, as waves beyond the available slots wait on hardware, so
//! no more waves hold scratch at once than the slots allow.
//!
//! A job of fewer workgroups than workers wakes only that many workers;
//! a command processor may run a one-workgroup job itself
//! ([`Job::run_here`], queue/command_processor.rs says when).
//!
//! An idle worker polls a submission counter briefly ([`idle_spin`]) before
//! it sleeps on the condition variable: back-to-back small dispatches (each
//! waiting for the previous one, the AQL barrier bit) then start without a
//! futex wake-up, which costs tens of microseconds per dispatch. Polling
//! only pays where the host has cores to spare: by default it is on with 4
//! or more host cores and off below; `AQUEDUCT_SIM_SPIN_US` sets it (0: off).

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, OnceLock};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crate::coherence::cu_cache::PacketLines;
use crate::coherence::xcc_l2::XccDispatch;
use crate::dispatch_counters::{DispatchCounters, Occupancy};
use crate::memory::vm::GpuVm;
use crate::observer_pair::ObserverPair;
use crate::sanitizer::DispatchSanitizer;
use crate::stats::StatsCounters;
use crate::wake::Wake;
use aqueduct_isa::gfx11::{ClassCounts, Dispatch, WorkerContext};
use aqueduct_isa::{WaveError, WaveErrorKind, WorkgroupStats};

/// A dispatch's scratch wave slots, in runs of one workgroup's waves.
#[derive(Debug)]
pub struct ScratchSlots {
    /// Indices of the free runs (run `r` is wave slots from `r * waves_per_group`).
    free: Mutex<Vec<u32>>,
    returned: Condvar,
    waves_per_group: u32,
}

impl ScratchSlots {
    /// `wave_slots` slots for workgroups of `waves_per_group` waves (at least
    /// one run: the command processor checked the slots hold a workgroup).
    pub fn new(wave_slots: u64, waves_per_group: u32) -> ScratchSlots {
        let runs = (wave_slots / u64::from(waves_per_group.max(1))).clamp(1, u64::from(u32::MAX));
        ScratchSlots {
            free: Mutex::new((0..runs as u32).rev().collect()),
            returned: Condvar::new(),
            waves_per_group,
        }
    }

    /// A free run, waiting for one while `job` has workgroups left to claim;
    /// None once it has none.
    fn take(&self, job: &Job) -> Option<u32> {
        let mut free = self.free.lock().unwrap_or_else(|e| e.into_inner());
        loop {
            if job.exhausted() {
                return None;
            }
            if let Some(run) = free.pop() {
                return Some(run);
            }
            // Claims that drain the job take no lock: look again now and then.
            free = self
                .returned
                .wait_timeout(free, Duration::from_millis(1))
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
    }

    fn give_back(&self, run: u32) {
        self.free
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(run);
        self.returned.notify_one();
    }
}

/// What a counting dispatch knows of itself and sums over its batches.
#[derive(Debug)]
pub struct JobCounters {
    pub dispatch_id: u64,
    pub kernel_object: u64,
    pub grid: [u32; 3],
    pub workgroup: [u32; 3],
    pub occupancy: Occupancy,
    sums: Mutex<Sums>,
}

#[derive(Debug, Default)]
struct Sums {
    classes: ClassCounts,
    read: u64,
    written: u64,
    lds_bank_conflicts: u64,
}

impl Sums {
    fn add(&mut self, s: &WorkgroupStats) {
        self.classes.add(&s.classes);
        self.read += s.global_read_bytes;
        self.written += s.global_written_bytes;
        self.lds_bank_conflicts += s.lds_bank_conflicts;
    }
}

impl JobCounters {
    pub fn new(
        dispatch_id: u64,
        kernel_object: u64,
        grid: [u32; 3],
        workgroup: [u32; 3],
        occupancy: Occupancy,
    ) -> JobCounters {
        JobCounters {
            dispatch_id,
            kernel_object,
            grid,
            workgroup,
            occupancy,
            sums: Mutex::default(),
        }
    }
}

/// One kernel dispatch being executed.
pub struct Job {
    dispatch: Dispatch,
    counts: [u32; 3],
    total: u64,
    /// Next workgroup index to hand out (never exceeds `total`).
    next: AtomicU64,
    /// Workgroups run or skipped.
    finished: AtomicU64,
    done: AtomicBool,
    /// A workgroup failed: claimed workgroups not yet started are skipped.
    failed: AtomicBool,
    /// Stopped by `abort` before every workgroup had run.
    cancelled: AtomicBool,
    error: Mutex<Option<WaveError>>,
    wave_instructions: AtomicU64,
    /// The command processor to wake when the job is done.
    wake: Arc<Wake>,
    /// The scratch wave slots of a dispatch with private memory.
    scratch: Option<ScratchSlots>,
    /// The packet's per-CU cache side (strict coherence mode only).
    lines: Option<Arc<PacketLines>>,
    /// The dispatch counts (dispatch_counters.rs).
    counters: Option<JobCounters>,
    /// The dispatch's sanitizer (the observer its `Dispatch` carries).
    sanitizer: Option<Arc<DispatchSanitizer>>,
}

/// What strict coherence mode watches of one dispatch (nothing when the
/// mode is off).
#[derive(Debug, Default)]
pub struct StrictSides {
    /// The packet's per-CU cache side, fed by its workgroups' accesses.
    pub lines: Option<Arc<PacketLines>>,
    /// The per-XCC L2s' observer of its workgroups (multi-XCC agents).
    pub xcc: Option<Arc<XccDispatch>>,
}

impl std::fmt::Debug for Job {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Job")
            .field("counts", &self.counts)
            .field("next", &self.next)
            .field("finished", &self.finished)
            .field("done", &self.done)
            .finish_non_exhaustive()
    }
}

impl Job {
    /// A job of `dispatch`'s workgroups that fails with
    /// [`WaveErrorKind::TimeLimit`] once it has run past the dispatch's
    /// time limit (`Dispatch::with_time_limit`).
    /// `scratch`: the wave slots its waves' private memory lives in (None
    /// for a dispatch without private memory). `strict`: what strict
    /// coherence mode watches of it. `sanitizer`: the dispatch's sanitizer,
    /// which watches its waves.
    pub fn new(
        dispatch: Dispatch,
        wake: Arc<Wake>,
        scratch: Option<ScratchSlots>,
        strict: StrictSides,
        counters: Option<JobCounters>,
        sanitizer: Option<Arc<DispatchSanitizer>>,
    ) -> Arc<Job> {
        let dispatch = dispatch.with_observer(ObserverPair::of(
            sanitizer
                .clone()
                .map(|s| s as Arc<dyn aqueduct_isa::observer::DispatchObserver>),
            strict
                .xcc
                .map(|x| x as Arc<dyn aqueduct_isa::observer::DispatchObserver>),
        ));
        let lines = strict.lines;
        let counts = dispatch.workgroup_count();
        let total = counts.iter().map(|&c| c as u64).product();
        Arc::new(Job {
            dispatch,
            counts,
            total,
            next: AtomicU64::new(0),
            finished: AtomicU64::new(0),
            done: AtomicBool::new(total == 0),
            failed: AtomicBool::new(false),
            cancelled: AtomicBool::new(false),
            error: Mutex::new(None),
            wave_instructions: AtomicU64::new(0),
            wake,
            scratch,
            lines,
            counters,
            sanitizer,
        })
    }

    /// Add the sanitizer's findings to the device's record (and print the
    /// new ones): the command processor calls it as the dispatch ends.
    pub fn report_sanitizer(&self) {
        if let Some(s) = &self.sanitizer {
            s.report();
        }
    }

    /// The record of a counting dispatch (None when it does not count).
    pub fn counters(&self) -> Option<DispatchCounters> {
        let c = self.counters.as_ref()?;
        let sums = c.sums.lock().unwrap_or_else(|e| e.into_inner());
        Some(DispatchCounters {
            dispatch_id: c.dispatch_id,
            kernel_object: c.kernel_object,
            grid: c.grid,
            workgroup: c.workgroup,
            workgroups: self.total,
            classes: sums.classes,
            global_read_bytes: sums.read,
            global_written_bytes: sums.written,
            lds_bank_conflicts: sums.lds_bank_conflicts,
            occupancy: c.occupancy,
        })
    }

    /// The packet's per-CU cache side (strict coherence mode only).
    pub fn packet_lines(&self) -> Option<&PacketLines> {
        self.lines.as_deref()
    }

    pub fn is_done(&self) -> bool {
        self.done.load(Ordering::Acquire)
    }

    pub fn workgroups(&self) -> u64 {
        self.total
    }

    pub fn wave_instructions(&self) -> u64 {
        self.wave_instructions.load(Ordering::Relaxed)
    }

    /// The first wave error, if a workgroup failed.
    pub fn error(&self) -> Option<WaveError> {
        self.error.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// Claim the next run of consecutive workgroup indices (one atomic op
    /// for the run, so workers do not fight over the counter's cache line
    /// per workgroup). Runs shrink as the grid drains ("guided" scheduling):
    /// a quarter of each worker's fair share of what is left, at most 16 and
    /// at least 1, so the last workgroups spread over all workers instead of
    /// leaving one worker with a long final batch.
    fn claim(&self, workers: u64) -> Option<std::ops::Range<u64>> {
        let run = |n: u64| ((self.total - n) / (4 * workers)).clamp(1, 16);
        self.next
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| {
                (n < self.total).then(|| n + run(n))
            })
            .ok()
            .map(|n| n..n + run(n))
    }

    /// The watchdog's error for the workgroup `id` about to start, once the
    /// job has run past its time limit (the dispatch's clock, which starts
    /// when the first workgroup is claimed).
    fn past_time_limit(&self, id: [u32; 3], now: Instant) -> Option<WaveError> {
        let limit = self.dispatch.past_time_limit_at(now)?;
        Some(WaveError {
            kind: WaveErrorKind::TimeLimit { limit },
            pc: 0,
            workgroup: id,
        })
    }

    /// Keep the first error of the job and stop it.
    fn fail(&self, error: WaveError) {
        self.error
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get_or_insert(error);
        self.failed.store(true, Ordering::Release);
        self.abort();
    }

    fn exhausted(&self) -> bool {
        self.next.load(Ordering::Acquire) >= self.total
    }

    /// Whether `abort` stopped the job before all its workgroups had run
    /// (whether or not one failed first).
    pub fn was_cancelled(&self) -> bool {
        self.cancelled.load(Ordering::Acquire)
    }

    /// Stop handing out workgroups (the unclaimed ones count as finished)
    /// and cancel the running ones.
    pub fn abort(&self) {
        if !self.is_done() {
            self.cancelled.store(true, Ordering::Release);
        }
        // Running waves stop too (at their next watchdog check).
        self.dispatch.cancel();
        let claimed = self.next.swap(self.total, Ordering::AcqRel).min(self.total);
        self.finish(self.total - claimed);
    }

    fn finish(&self, count: u64) {
        if count == 0 {
            return;
        }
        let before = self.finished.fetch_add(count, Ordering::AcqRel);
        if before + count == self.total {
            self.done.store(true, Ordering::Release);
            self.wake.notify();
        }
    }

    /// Claim and run workgroups until none are left to claim (`workers`
    /// sizes the claimed runs).
    fn run_claims(&self, workers: u64, vm: &GpuVm, ctx: &mut WorkerContext, stats: &StatsCounters) {
        let Some(slots) = &self.scratch else {
            self.run_claimed(workers, vm, ctx, stats);
            return;
        };
        let Some(run) = slots.take(self) else {
            return;
        };
        ctx.set_scratch_wave_slot(run * slots.waves_per_group);
        self.run_claimed(workers, vm, ctx, stats);
        slots.give_back(run);
    }

    /// [`Job::run_claims`] once the worker holds its scratch wave slots.
    fn run_claimed(
        &self,
        workers: u64,
        vm: &GpuVm,
        ctx: &mut WorkerContext,
        stats: &StatsCounters,
    ) {
        // One clock read per batch of up to 16 workgroups: a batch's end
        // is the next one's start (SimStats::workgroup_nanos then counts the
        // claim between them too) and the watchdog's reading. A read costs
        // tens of nanoseconds, on some virtual machines a tenth of a
        // one-invocation workgroup.
        let mut started = Instant::now();
        while let Some(range) = self.claim(workers) {
            let count = range.end - range.start;
            let mut totals = WorkgroupStats::default();
            let batch = {
                // One page-table read view for the batch: mappings cannot change while
                // any of its workgroups runs (MAP/UNMAP wait, as for one workgroup).
                // The batch runs under this view, sharing its memoised translations.
                let view = vm.view_in(self.lines.as_deref());
                // The watchdog between workgroups: no batch starts past the
                // limit. Checked per batch, not per workgroup; within the
                // batch each workgroup's waves check it every 1024 taken
                // branches, so a batch of at most 16 workgroups overruns by
                // no more than their loop-free instructions.
                let first = self.workgroup_id(range.start);
                let ids = match self.past_time_limit(first, started) {
                    Some(error) => {
                        self.fail(error);
                        range.start..range.start
                    }
                    None => range,
                }
                .take_while(|_| !self.failed.load(Ordering::Acquire))
                .map(|index| self.workgroup_id(index));
                self.dispatch.run_workgroups(ids, &view, ctx, &mut totals)
            };
            let ended = Instant::now();
            let nanos = u64::try_from(ended.saturating_duration_since(started).as_nanos())
                .unwrap_or(u64::MAX);
            started = ended;
            stats.workgroup_nanos.fetch_add(nanos, Ordering::Relaxed);
            if let Some(error) = batch.error {
                tracing::debug!("gfxsim: workgroup {:?} failed: {error}", error.workgroup);
                self.fail(*error);
            }
            if let Some(c) = &self.counters {
                let mut sums = c.sums.lock().unwrap_or_else(|e| e.into_inner());
                sums.add(&totals);
            }
            let insts = totals.wave_instructions;
            let ran = batch.workgroups;
            self.wave_instructions.fetch_add(insts, Ordering::Relaxed);
            stats.wave_instructions.fetch_add(insts, Ordering::Relaxed);
            stats
                .block_entries
                .fetch_add(totals.block_entries, Ordering::Relaxed);
            // Shared counters: untouched by the batches the translator had no part in.
            if totals.translated_wave_instructions > 0 {
                let (translated, called_out) = (
                    &stats.translated_wave_instructions,
                    &stats.called_out_wave_instructions,
                );
                translated.fetch_add(totals.translated_wave_instructions, Ordering::Relaxed);
                called_out.fetch_add(totals.called_out_wave_instructions, Ordering::Relaxed);
                let switches = &stats.barrier_switches;
                switches.fetch_add(totals.barrier_switches, Ordering::Relaxed);
            }
            stats.workgroups.fetch_add(ran, Ordering::Relaxed);
            // The batch's workgroups, run or skipped after a failure, are all finished.
            self.finish(count);
        }
    }

    /// Run every workgroup on the calling thread (a command processor
    /// running a small dispatch itself instead of waking a worker); the job
    /// is done when this returns.
    pub fn run_here(&self, vm: &GpuVm, ctx: &mut WorkerContext, stats: &StatsCounters) {
        self.run_claims(1, vm, ctx, stats);
    }

    fn workgroup_id(&self, index: u64) -> [u32; 3] {
        let x = self.counts[0] as u64;
        let y = self.counts[1] as u64;
        [
            (index % x) as u32,
            ((index / x) % y) as u32,
            (index / (x * y)) as u32,
        ]
    }
}

/// Environment variable: microseconds an idle worker or command processor
/// polls before it sleeps (0: never poll).
pub const SPIN_ENV: &str = "AQUEDUCT_SIM_SPIN_US";
/// The default poll time on hosts with at least `SPIN_MIN_CORES` cores.
const DEFAULT_SPIN: Duration = Duration::from_micros(50);
const SPIN_MIN_CORES: usize = 4;

/// How long idle gfxsim threads poll for work before they sleep (read once).
pub(crate) fn idle_spin() -> Duration {
    static SPIN: OnceLock<Duration> = OnceLock::new();
    *SPIN.get_or_init(|| {
        if let Some(us) = std::env::var(SPIN_ENV)
            .ok()
            .and_then(|v| v.trim().parse::<u64>().ok())
        {
            return Duration::from_micros(us);
        }
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        if cores >= SPIN_MIN_CORES {
            DEFAULT_SPIN
        } else {
            Duration::ZERO
        }
    })
}

/// Poll `ready` until it holds or `limit` has passed; whether it held.
/// The poller yields its core between rounds, so on a busy host the
/// thread it waits for can run.
pub(crate) fn spin_until(limit: Duration, mut ready: impl FnMut() -> bool) -> bool {
    if limit.is_zero() {
        return false;
    }
    let start = Instant::now();
    loop {
        for _ in 0..32 {
            if ready() {
                return true;
            }
            std::hint::spin_loop();
        }
        if start.elapsed() >= limit {
            return ready();
        }
        std::thread::yield_now();
    }
}

#[derive(Debug)]
struct PoolShared {
    jobs: Mutex<VecDeque<Arc<Job>>>,
    cv: Condvar,
    /// Jobs ever submitted: what spinning idle workers poll.
    submitted: AtomicU64,
    stop: AtomicBool,
    vm: Arc<GpuVm>,
    stats: Arc<StatsCounters>,
    /// Worker threads in the pool (sizes the claimed runs).
    workers: u64,
}

impl PoolShared {
    fn jobs(&self) -> MutexGuard<'_, VecDeque<Arc<Job>>> {
        self.jobs.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The job to work on next, blocking while there is none; None on stop.
    /// Before blocking, poll for up to [`idle_spin`] without the lock.
    fn next_job(&self) -> Option<Arc<Job>> {
        let mut spun = false;
        let mut jobs = self.jobs();
        loop {
            if self.stop.load(Ordering::Acquire) {
                return None;
            }
            while jobs.front().is_some_and(|j| j.exhausted()) {
                jobs.pop_front();
            }
            if let Some(job) = jobs.front() {
                return Some(job.clone());
            }
            if !spun && !idle_spin().is_zero() {
                spun = true;
                let seen = self.submitted.load(Ordering::Acquire);
                drop(jobs);
                spin_until(idle_spin(), || {
                    self.submitted.load(Ordering::Acquire) != seen
                        || self.stop.load(Ordering::Acquire)
                });
                // Re-check under the lock: a submission pushes under it before
                // notifying, so nothing is missed between here and the wait.
                jobs = self.jobs();
                continue;
            }
            jobs = self.cv.wait(jobs).unwrap_or_else(|e| e.into_inner());
        }
    }

    fn run_worker(&self) {
        let mut ctx = WorkerContext::new();
        while let Some(job) = self.next_job() {
            job.run_claims(self.workers, &self.vm, &mut ctx, &self.stats);
        }
    }
}

/// The worker threads of one GPU.
#[derive(Debug)]
pub struct WorkerPool {
    shared: Arc<PoolShared>,
    threads: Mutex<Vec<JoinHandle<()>>>,
}

impl WorkerPool {
    pub fn new(
        gpu_id: u32,
        threads: usize,
        vm: Arc<GpuVm>,
        stats: Arc<StatsCounters>,
    ) -> std::io::Result<WorkerPool> {
        let shared = Arc::new(PoolShared {
            jobs: Mutex::new(VecDeque::new()),
            cv: Condvar::new(),
            submitted: AtomicU64::new(0),
            stop: AtomicBool::new(false),
            vm,
            stats,
            workers: threads.max(1) as u64,
        });
        let pool = WorkerPool {
            shared,
            threads: Mutex::new(Vec::new()),
        };
        for i in 0..threads.max(1) {
            let shared = pool.shared.clone();
            let handle = std::thread::Builder::new()
                .name(format!("gfxsim-{gpu_id:x}-w{i}"))
                .spawn(move || shared.run_worker())?;
            pool.threads
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .push(handle);
        }
        Ok(pool)
    }

    /// Worker threads in the pool.
    pub fn workers(&self) -> u64 {
        self.shared.workers
    }

    /// Queue a job; workers start on it as soon as earlier jobs run out of
    /// workgroups.
    pub fn submit(&self, job: Arc<Job>) {
        if job.is_done() {
            job.wake.notify();
            return;
        }
        let wanted = job.total;
        self.shared.jobs().push_back(job);
        self.shared.submitted.fetch_add(1, Ordering::Release);
        // A job of fewer workgroups than workers needs only that many awake
        // (on a small host, each extra wake-up takes a core from the thread
        // that runs the work).
        if wanted < self.shared.workers {
            for _ in 0..wanted {
                self.shared.cv.notify_one();
            }
        } else {
            self.shared.cv.notify_all();
        }
    }

    /// Stop the workers (after their current workgroup) and join them.
    pub fn shutdown(&self) {
        self.shared.stop.store(true, Ordering::Release);
        {
            let _jobs = self.shared.jobs();
            self.shared.cv.notify_all();
        }
        let threads = std::mem::take(&mut *self.threads.lock().unwrap_or_else(|e| e.into_inner()));
        for t in threads {
            if t.join().is_err() {
                tracing::error!("gfxsim: a worker thread panicked");
            }
        }
    }
}

impl Drop for WorkerPool {
    fn drop(&mut self) {
        self.shutdown();
    }
}
