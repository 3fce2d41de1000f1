//! End to end through aqueduct-hsa on gfxsim: asynchronous scratch
//! reclaim. A queue's scratch goes back to the device pool on request, when
//! the agent's async limit drops below it, and when a device allocation
//! finds no memory; the next dispatch with private memory stops the queue,
//! gets fresh scratch and runs. Reclaims racing with scratch dispatches
//! free nothing a wave still uses (gfxsim's CP reports a dispatch whose
//! scratch was freed under it).

use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::time::{Duration, Instant};

use aqueduct_gfxsim::SimConfig;
use aqueduct_hsa::{Allocation, PoolKind, Queue};
use aqueduct_test_harness::hsa_sim::{Arg, Gpu, Launch, Program, read_u32, wait_zero};

/// corpus/gfx1100/asm_scratch.co: 64 private bytes per work-item (wave32).
fn asm_scratch(gpu: &Gpu) -> Program {
    gpu.load_corpus("asm_scratch")
}

/// An asm_scratch launch over `n` items and what its output must be
/// (out[i] = sum over j < 16 of x[i] ^ j).
struct ScratchRun {
    launch: Launch,
    _input: Allocation,
    out: Allocation,
    n: usize,
    want: Vec<u32>,
}

impl ScratchRun {
    fn new(gpu: &Gpu, program: &Program, n: u32, seed: u32) -> ScratchRun {
        let x: Vec<u32> = (0..n)
            .map(|i| i.wrapping_mul(2_654_435_761) ^ seed)
            .collect();
        let want = x
            .iter()
            .map(|&x| (0..16).fold(0u32, |a, j| a.wrapping_add(x ^ j)))
            .collect();
        let input = gpu.upload_u32(&x);
        let out = gpu.filled_u32(n as usize, 0);
        let launch = gpu.launch(
            &program.kernel,
            &[Arg::Ptr(input.gpu_va()), Arg::Ptr(out.gpu_va())],
            [n, 1, 1],
            [64, 1, 1],
        );
        ScratchRun {
            launch,
            _input: input,
            out,
            n: n as usize,
            want,
        }
    }

    fn run(&self, gpu: &Gpu, queue: &Queue) {
        gpu.run_on(queue, &self.launch).expect("scratch dispatch");
        self.check();
    }

    fn check(&self) {
        assert_eq!(read_u32(&self.out, self.n), self.want);
    }
}

/// Scratch for every slot of gfxsim's device at 64 bytes per wave32 lane.
const SCRATCH: u64 = 64 * 32 * 96 * 32;

fn vram_used(gpu: &Gpu) -> u64 {
    gpu.sim.vram_used(gpu.agent.gpu_id).expect("the GPU's VRAM")
}

/// Wait until the queue holds no scratch (a use-once grant is freed by the
/// handler thread after the dispatch).
fn wait_no_scratch(queue: &Queue) {
    let start = Instant::now();
    while queue.scratch_size() != 0 {
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "{} bytes of scratch still held",
            queue.scratch_size()
        );
        std::thread::sleep(Duration::from_millis(1));
    }
}

/// A reclaim gives the queue's scratch back to the device's VRAM; the next
/// scratch dispatch stops the queue, gets a fresh allocation and runs. The
/// runtime's agent-wide reclaim does the same for every queue.
#[test]
fn a_reclaim_returns_scratch_and_the_next_dispatch_gets_fresh_scratch() {
    let gpu = Gpu::new();
    let program = asm_scratch(&gpu);
    let queue = gpu.queue(64);
    assert_eq!(queue.reclaim_scratch(), Ok(0), "nothing to reclaim yet");
    let r = ScratchRun::new(&gpu, &program, 256, 7);
    r.run(&gpu, &queue);
    assert_eq!(queue.scratch_size(), SCRATCH);
    let held = vram_used(&gpu);
    assert_eq!(queue.reclaim_scratch(), Ok(SCRATCH));
    assert_eq!(queue.scratch_size(), 0);
    assert_eq!(vram_used(&gpu), held - SCRATCH, "the backing BO is freed");

    r.run(&gpu, &queue);
    assert_eq!(queue.scratch_allocations(), 2, "stopped and grew again");
    assert_eq!(vram_used(&gpu), held);

    let other = gpu.queue(64);
    ScratchRun::new(&gpu, &program, 128, 9).run(&gpu, &other);
    assert_eq!(gpu.rt.reclaim_scratch(&gpu.agent).unwrap(), 2 * SCRATCH);
    assert_eq!((queue.scratch_size(), other.scratch_size()), (0, 0));
    r.run(&gpu, &queue);
    assert_eq!(queue.scratch_allocations(), 3);
    assert_eq!((queue.recreations(), other.recreations()), (0, 0));
}

/// Lowering the agent's async limit below what a queue holds reclaims it,
/// and a request above the limit is then given once and freed after its
/// dispatch; raising the limit again lets scratch stay.
#[test]
fn an_async_limit_below_the_held_scratch_reclaims_it() {
    let gpu = Gpu::new();
    let program = asm_scratch(&gpu);
    let queue = gpu.queue(64);
    assert_eq!(gpu.rt.scratch_async_limit(&gpu.agent).unwrap(), 1 << 30);
    let r = ScratchRun::new(&gpu, &program, 256, 3);
    r.run(&gpu, &queue);
    let limit = SCRATCH / 2;
    assert_eq!(
        gpu.rt.set_scratch_async_limit(&gpu.agent, limit).unwrap(),
        SCRATCH
    );
    assert_eq!(queue.scratch_size(), 0);
    r.run(&gpu, &queue);
    assert_eq!(queue.scratch_allocations(), 2);
    wait_no_scratch(&queue);
    assert_eq!(
        gpu.rt.set_scratch_async_limit(&gpu.agent, 1 << 30).unwrap(),
        0
    );
    r.run(&gpu, &queue);
    assert_eq!(queue.scratch_size(), SCRATCH, "within the limit it stays");
}

/// A device allocation that finds no VRAM has the agent's queues give back
/// their scratch and succeeds on its retry; without the scratch it would
/// not fit. The queue's next scratch dispatch grows again once there is
/// room.
#[test]
fn an_allocation_that_finds_no_memory_reclaims_scratch_and_retries() {
    let gpu = Gpu::with_config(SimConfig {
        threads: 2,
        vram_size: 64 << 20,
        ..SimConfig::default()
    });
    let program = asm_scratch(&gpu);
    let queue = gpu.queue(64);
    let r = ScratchRun::new(&gpu, &program, 256, 5);
    r.run(&gpu, &queue);
    assert_eq!(queue.scratch_size(), SCRATCH);
    let free = (64 << 20) - vram_used(&gpu);
    let size = (free + SCRATCH / 2).next_multiple_of(4096);
    let pool = gpu
        .rt
        .pool(&gpu.agent, PoolKind::CoarseDevice)
        .expect("device pool");
    let big = pool
        .allocate(size)
        .expect("fits once the scratch is reclaimed");
    assert_eq!(queue.scratch_size(), 0);
    drop(big);
    r.run(&gpu, &queue);
    assert_eq!(queue.scratch_allocations(), 2);
}

/// Sets its flag when dropped.
struct StopOnDrop<'a>(&'a AtomicBool);

impl Drop for StopOnDrop<'_> {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Release);
    }
}

/// Reclaims in a loop on one thread while another submits runs of scratch
/// dispatches back to back: every dispatch computes the right values, the
/// queue never faults (gfxsim reports a dispatch whose scratch was freed
/// under it as a queue error), and the reclaims did free scratch between
/// them. The dispatches have no barrier bit: each waits only for the
/// previous one's scratch.
#[test]
fn reclaims_racing_scratch_dispatches_never_free_scratch_in_use() {
    let gpu = Gpu::with_threads(2);
    let program = asm_scratch(&gpu);
    let queue = gpu.queue(256);
    let runs: Vec<ScratchRun> = (0..4)
        .map(|k| ScratchRun::new(&gpu, &program, 2048, k))
        .collect();
    let done = AtomicBool::new(false);
    let reclaimed = AtomicU32::new(0);
    std::thread::scope(|s| {
        s.spawn(|| {
            while !done.load(Ordering::Acquire) {
                match queue.reclaim_scratch() {
                    Ok(0) => std::thread::yield_now(),
                    Ok(_) => {
                        reclaimed.fetch_add(1, Ordering::Relaxed);
                    }
                    Err(e) => panic!("reclaim: {e}"),
                }
            }
        });
        // Stops the reclaim thread however this thread leaves (a failed
        // check too: the scope waits for the thread before it panics).
        let _stop = StopOnDrop(&done);
        for round in 0..40 {
            let signals: Vec<_> = runs
                .iter()
                .map(|r| {
                    let signal = gpu.signal(1);
                    let mut d = r.launch.dispatch;
                    d.completion_signal = signal.handle();
                    d.fence.barrier = false;
                    queue
                        .submit_dispatch(&d.to_packet().expect("packet"))
                        .expect("submit");
                    signal
                })
                .collect();
            for signal in &signals {
                wait_zero(signal).unwrap_or_else(|e| panic!("round {round}: {e}"));
            }
            for r in &runs {
                r.check();
            }
        }
    });
    assert!(queue.error().is_none());
    assert_eq!(queue.recreations(), 0);
    let reclaims = reclaimed.load(Ordering::Relaxed);
    assert!(reclaims > 0, "no reclaim freed anything");
    assert!(
        queue.scratch_allocations() >= reclaims,
        "{} allocations for {reclaims} reclaims",
        queue.scratch_allocations()
    );
}
