//! Thread scaling (`cargo bench --bench gfxsim -- --scaling [--rounds N]
//! [--max-threads N] [--sqrt-exp-only]`):
//! how gfxsim's speed grows with host worker threads (1, 2, 4, ... up to the
//! host's cores) on the compute-heavy sqrt_exp_loop, against a native host
//! loop of the same arithmetic split over the same number of threads (what
//! this machine's cores give: turbo clocks fall as more cores run, caches
//! and memory are shared). The goal is >= 12x from 1 to 16 threads.
//!
//! The device machines are virtual and shared. There, gfxsim's 1-thread
//! time swings by up to 1.9x between dispatches a few seconds apart (also
//! pinned to one vCPU), while a clock estimate and the one-element native
//! loop stay within a few percent: the host's cores are shared with other
//! load (SMT siblings), which slows throughput-bound code such as the
//! interpreter and barely the latency-bound loop. A speedup divides two
//! times taken at different moments, so:
//! - every thread count has its own simulated device, built and warmed up
//!   (one untimed dispatch: worker contexts, decoded blocks, first touch)
//!   before any timing;
//! - two native peers run on host threads started once and reused (as
//!   gfxsim's workers are): the kernel's loop one element at a time (its
//!   sqrt/exp/divide chain waits on latency), and the same arithmetic 32
//!   elements at a time ("native lanes": independent chains,
//!   throughput-bound like the interpreter, and swinging as it does);
//! - the measurements are interleaved: each round times every count
//!   (gfxsim, gfxsim split, native, native lanes), ascending in even rounds and
//!   descending in odd ones, so a slow spell falls on all counts and peers;
//! - the speedup is reported from the best times and from the medians, for
//!   gfxsim and both peers, with the spread of the 1-thread times and a
//!   per-round table of the 1-thread and all-core times, whose own ratios'
//!   median is the figure least moved by slow spells (the best 1-thread
//!   time comes from a quiet moment that all 16 threads never share at
//!   once, so best over best reads low on a shared host);
//! - a fourth series, "gfxsim split", runs N one-thread devices with a
//!   fixed share each (see [`SplitRig`]): no shared pool state, no load
//!   balance;
//! - each round starts with a clock estimate on the bench thread (a chain of
//!   dependent or-multiply steps, 4 cycles each on current x86 cores), to
//!   show whether a slow round was a slow clock.
//!
//! saxpy (memory-bound) follows, each thread count against the 1-thread
//! bandwidth, as a second figure.

use std::sync::{Arc, Barrier, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use super::{ArgRef, PoolKind, SQRT_EXP, Sim, dispatch, host_sqrt_exp, median_ratio, saxpy};
use aqueduct::hsa::{Allocation, Executable};

/// Rounds when `--rounds` is not given.
const DEFAULT_ROUNDS: usize = 15;
/// sqrt_exp_loop's size: 2,048 workgroups of 256, so that 16 workers each
/// run many.
const ELEMENTS: u32 = 1 << 19;
const ITERS: u32 = 32;

/// One simulated device with sqrt_exp_loop loaded and its buffers filled
/// with elements `first..first + elements` of the input.
struct SqrtExpRig {
    sim: Sim,
    exe: Executable,
    elements: u32,
    input: Allocation,
    out: Allocation,
}

impl SqrtExpRig {
    fn new(threads: usize, first: u32, elements: u32) -> SqrtExpRig {
        let sim = Sim::new(threads);
        let exe = sim.load(SQRT_EXP);
        let pool = sim.runtime.pool(sim.agent(), PoolKind::FineSystem).unwrap();
        let mut input = pool.allocate(elements as u64 * 4).unwrap();
        let out = pool.allocate(elements as u64 * 4).unwrap();
        for (v, i) in bytemuck::cast_slice_mut::<u8, f32>(input.as_mut_slice().unwrap())
            .iter_mut()
            .zip(first..)
        {
            *v = input_value(i);
        }
        let rig = SqrtExpRig {
            sim,
            exe,
            elements,
            input,
            out,
        };
        rig.run();
        rig
    }

    /// One dispatch over the rig's elements: its time and wave instructions.
    fn run(&self) -> (Duration, u64) {
        dispatch(
            &self.sim,
            &self.exe,
            "sqrt_exp_loop",
            self.elements,
            256,
            |b| {
                b.set_ptr(ArgRef::Name("in"), self.input.gpu_va()).unwrap();
                b.set_ptr(ArgRef::Name("out"), self.out.gpu_va()).unwrap();
                b.set_u32(ArgRef::Name("iters"), ITERS).unwrap();
                b.set_u32(ArgRef::Name("n"), self.elements).unwrap();
            },
        )
    }

    /// The results of the last dispatch.
    fn out(&self) -> &[f32] {
        bytemuck::cast_slice(self.out.as_slice().unwrap())
    }
}

/// Input element `i`.
fn input_value(i: u32) -> f32 {
    (i % 97) as f32 / 97.0
}

/// The "gfxsim split" peer: `n` simulated devices of one worker thread
/// each, every one with a fixed 1/n of the elements (a static partition,
/// as the native peers use), dispatched at the same moment from `n` host
/// threads. They share no queue, job, claim counter, page table or code
/// cache. Against the n-thread device: if the pool's shared state cost
/// time, the split would be faster; where some host cores run slower than
/// others (busy SMT siblings), the split waits for its slowest device while
/// the pool's workers balance the load, and the pool is faster.
struct SplitRig {
    rigs: Vec<SqrtExpRig>,
}

impl SplitRig {
    fn new(n: usize) -> SplitRig {
        let per = ELEMENTS.div_ceil(n as u32);
        let rigs = (0..ELEMENTS)
            .step_by(per as usize)
            .map(|first| SqrtExpRig::new(1, first, per.min(ELEMENTS - first)))
            .collect();
        SplitRig { rigs }
    }

    /// All devices' dispatches, started together: the longest one's time.
    fn run(&self) -> Duration {
        let start = Barrier::new(self.rigs.len());
        std::thread::scope(|scope| {
            let runs: Vec<_> = self
                .rigs
                .iter()
                .map(|rig| {
                    let start = &start;
                    scope.spawn(move || {
                        start.wait();
                        rig.run().0
                    })
                })
                .collect();
            runs.into_iter()
                .map(|r| r.join().expect("split dispatch"))
                .max()
                .expect("at least one device")
        })
    }

    /// The devices' results, in element order.
    fn out(&self) -> Vec<f32> {
        self.rigs
            .iter()
            .flat_map(|r| r.out().iter().copied())
            .collect()
    }
}

/// Whether gfxsim's `got` agrees with the native loop's `want` (sampled):
/// gfxsim's exp/sqrt/rcp follow the hardware's approximations, so closely,
/// not bit for bit.
fn check_close(what: &str, got: &[f32], want: &[f32]) {
    assert_eq!(got.len(), want.len(), "{what}: element count");
    for i in (0..want.len()).step_by(4097) {
        let (g, w) = (got[i], want[i]);
        assert!(
            (g - w).abs() <= 1e-3 * w.abs().max(1.0),
            "{what} element {i}: gfxsim {g}, native loop {w}"
        );
    }
}

/// The loop a native peer's thread runs over its chunk.
type NativeLoop = fn(&[f32], &mut [f32], u32);

/// One native peer thread's input elements and results.
type NativeChunk = (Vec<f32>, Vec<f32>);

/// Host threads for the native peers, started once and reused, as
/// gfxsim's workers are: each owns an equal chunk of the elements, and a
/// run releases them all through a barrier and waits for them at another,
/// so a run's time holds wake-ups as a dispatch's does, and no thread
/// starts (16 of them would be several percent of the lane peer's time).
struct NativePool {
    start: Arc<Barrier>,
    done: Arc<Barrier>,
    /// The loop of the next run; None tells the threads to end.
    work: Arc<Mutex<Option<NativeLoop>>>,
    chunks: Vec<Arc<Mutex<NativeChunk>>>,
    threads: Vec<JoinHandle<()>>,
}

impl NativePool {
    fn new(threads: usize, input: &[f32]) -> NativePool {
        let start = Arc::new(Barrier::new(threads + 1));
        let done = Arc::new(Barrier::new(threads + 1));
        let work: Arc<Mutex<Option<NativeLoop>>> = Arc::new(Mutex::new(None));
        let chunks: Vec<_> = input
            .chunks(input.len().div_ceil(threads))
            .map(|c| Arc::new(Mutex::new((c.to_vec(), vec![0.0f32; c.len()]))))
            .collect();
        assert_eq!(chunks.len(), threads, "one chunk per thread");
        let threads = chunks
            .iter()
            .map(|chunk| {
                let (start, done, work, chunk) =
                    (start.clone(), done.clone(), work.clone(), chunk.clone());
                std::thread::spawn(move || {
                    loop {
                        start.wait();
                        let Some(body) = *work.lock().unwrap() else {
                            return;
                        };
                        {
                            let mut chunk = chunk.lock().unwrap();
                            let (input, out) = &mut *chunk;
                            body(std::hint::black_box(input), out, ITERS);
                            std::hint::black_box(out);
                        }
                        done.wait();
                    }
                })
            })
            .collect();
        NativePool {
            start,
            done,
            work,
            chunks,
            threads,
        }
    }

    /// One run of `body` over all elements.
    fn run(&self, body: NativeLoop) -> Duration {
        *self.work.lock().unwrap() = Some(body);
        let start = Instant::now();
        self.start.wait();
        self.done.wait();
        start.elapsed()
    }

    /// The last run's results.
    fn output(&self) -> Vec<f32> {
        self.chunks
            .iter()
            .flat_map(|c| c.lock().unwrap().1.clone())
            .collect()
    }
}

impl Drop for NativePool {
    fn drop(&mut self) {
        *self.work.lock().unwrap() = None;
        self.start.wait();
        for t in self.threads.drain(..) {
            t.join().expect("native peer thread");
        }
    }
}

/// Lanes of the lane-parallel native peer (a wave's worth).
const NATIVE_LANES: usize = 32;

/// The kernel's arithmetic over 32 elements at a time, each step applied
/// to all 32 before the next, as a wave runs (the same operations in the
/// same order per element as [`host_sqrt_exp`], so the same results). Its
/// 32 independent chains keep a core's execution units busy, where the
/// one-element loop waits on each sqrt/exp/divide in turn: this peer feels
/// what takes execution resources from a core (a busy SMT sibling on the
/// host) the way the interpreter does, and the latency-bound loop barely.
#[inline(never)]
fn host_sqrt_exp_lanes(input: &[f32], out: &mut [f32], iters: u32) {
    for (inp, o) in input.chunks(NATIVE_LANES).zip(out.chunks_mut(NATIVE_LANES)) {
        let mut x = [0.0f32; NATIVE_LANES];
        let mut acc = [0.0f32; NATIVE_LANES];
        x[..inp.len()].copy_from_slice(inp);
        for k in 0..iters {
            let fk = k as f32;
            for (x, acc) in x.iter_mut().zip(acc.iter_mut()) {
                *acc += (x.abs() + fk).sqrt() * (-*x * 0.01 * fk).exp();
                *x = *x * 0.5 + 1.0 / (1.0 + *acc);
            }
        }
        o.copy_from_slice(&acc[..o.len()]);
    }
}

/// One measured series: per thread count, the time of each round.
struct Series {
    name: &'static str,
    times: Vec<Vec<Duration>>,
}

impl Series {
    fn new(name: &'static str, counts: usize) -> Series {
        Series {
            name,
            times: vec![Vec::new(); counts],
        }
    }

    /// Speedup of count `i` over 1 thread, from the best and the median times.
    fn speedup(&self, i: usize) -> (f64, f64) {
        let ratio = |a: Duration, b: Duration| a.as_secs_f64() / b.as_secs_f64();
        (
            ratio(best(&self.times[0]), best(&self.times[i])),
            ratio(median(&self.times[0]), median(&self.times[i])),
        )
    }

    /// Speedup of count `i` over 1 thread from each round's own pair of
    /// times (taken seconds apart), the median over the rounds: a slow
    /// spell that spans a round cancels out of its ratio.
    fn paired(&self, i: usize) -> f64 {
        median_ratio(
            self.times[0]
                .iter()
                .zip(&self.times[i])
                .map(|(one, n)| one.as_secs_f64() / n.as_secs_f64())
                .collect(),
        )
    }

    /// The 1-thread times' best and worst (ms) and their ratio.
    fn spread(&self) -> String {
        let (lo, hi) = (best(&self.times[0]), worst(&self.times[0]));
        format!(
            "{} {:.1}..{:.1} ms (x{:.2})",
            self.name,
            ms(lo),
            ms(hi),
            hi.as_secs_f64() / lo.as_secs_f64()
        )
    }
}

/// The bench thread's clock in GHz, from a chain of dependent steps
/// `x = x * (x | 1)`: an OR and a 64-bit multiply, 1 + 3 cycles on current
/// x86 cores (not linear in x, so the compiler cannot fold steps together).
fn clock_ghz() -> f64 {
    let steps = std::hint::black_box(20_000_000u64);
    let mut x = std::hint::black_box(3u64);
    let start = Instant::now();
    for _ in 0..steps {
        x = x.wrapping_mul(x | 1);
    }
    std::hint::black_box(x);
    4.0 * steps as f64 / start.elapsed().as_secs_f64() / 1e9
}

fn median(times: &[Duration]) -> Duration {
    let mut sorted = times.to_vec();
    sorted.sort();
    sorted[sorted.len() / 2]
}

fn best(times: &[Duration]) -> Duration {
    *times.iter().min().expect("at least one round")
}

fn worst(times: &[Duration]) -> Duration {
    *times.iter().max().expect("at least one round")
}

fn ms(t: Duration) -> f64 {
    t.as_secs_f64() * 1e3
}

/// What `--scaling` runs: `rounds` (None: the default), up to `max_threads`
/// (None: the host's cores), saxpy too unless `sqrt_exp_only`.
pub struct Options {
    pub rounds: Option<usize>,
    pub max_threads: Option<usize>,
    pub sqrt_exp_only: bool,
}

impl Options {
    /// From the command line: `--rounds N`, `--max-threads N`, `--sqrt-exp-only`.
    pub fn from_args() -> Options {
        let args: Vec<String> = std::env::args().collect();
        let value = |name: &str| {
            args.iter()
                .position(|a| a == name)
                .and_then(|k| args.get(k + 1))
                .and_then(|v| v.parse().ok())
        };
        Options {
            rounds: value("--rounds"),
            max_threads: value("--max-threads"),
            sqrt_exp_only: args.iter().any(|a| a == "--sqrt-exp-only"),
        }
    }
}

pub fn run(options: Options) {
    let rounds = options.rounds.unwrap_or(DEFAULT_ROUNDS).max(1);
    let cores = std::thread::available_parallelism().map_or(1, |c| c.get());
    let cores = options.max_threads.map_or(cores, |m| m.clamp(1, cores));
    let mut counts = vec![1usize];
    while counts.last().unwrap() * 2 <= cores {
        counts.push(counts.last().unwrap() * 2);
    }
    if *counts.last().unwrap() != cores {
        counts.push(cores);
    }
    println!(
        "gfxsim thread scaling (1 to {cores} threads; {rounds} interleaved rounds, \
         sqrt_exp_loop over {ELEMENTS} elements x {ITERS} iterations; wave loop {})",
        aqueduct_isa::wave_loop().name()
    );

    let rigs: Vec<SqrtExpRig> = counts
        .iter()
        .map(|&t| SqrtExpRig::new(t, 0, ELEMENTS))
        .collect();
    let splits: Vec<SplitRig> = counts.iter().map(|&n| SplitRig::new(n)).collect();
    let input: Vec<f32> = (0..ELEMENTS).map(input_value).collect();
    let pools: Vec<NativePool> = counts.iter().map(|&t| NativePool::new(t, &input)).collect();
    // Warm-up, and the results checks (a broken kernel or peer cannot post
    // a fast time): the two native loops agree bit for bit on every thread
    // count, gfxsim closely.
    let last_pool = pools.last().expect("at least one thread count");
    last_pool.run(host_sqrt_exp);
    let out = last_pool.output();
    for pool in &pools {
        pool.run(host_sqrt_exp_lanes);
        assert!(
            out.iter()
                .zip(&pool.output())
                .all(|(a, b)| a.to_bits() == b.to_bits()),
            "lane-parallel native loop against the one-element loop"
        );
    }
    for (rig, split) in rigs.iter().zip(&splits) {
        check_close("sqrt_exp_loop", rig.out(), &out);
        check_close("sqrt_exp_loop split", &split.out(), &out);
    }

    let mut sim = Series::new("gfxsim", counts.len());
    let mut nat = Series::new("native", counts.len());
    let mut lanes = Series::new("native lanes", counts.len());
    let mut split = Series::new("gfxsim split", counts.len());
    let mut insts = vec![0u64; counts.len()];
    let mut clocks = Vec::new();
    for round in 0..rounds {
        clocks.push(clock_ghz());
        let order: Vec<usize> = if round % 2 == 0 {
            (0..counts.len()).collect()
        } else {
            (0..counts.len()).rev().collect()
        };
        for i in order {
            let (t, n) = rigs[i].run();
            sim.times[i].push(t);
            insts[i] = n;
            split.times[i].push(splits[i].run());
            nat.times[i].push(pools[i].run(host_sqrt_exp));
            lanes.times[i].push(pools[i].run(host_sqrt_exp_lanes));
        }
    }

    println!(
        "speedups over 1 thread from the best times (median times in brackets); ratio: gfxsim's \
         over each native peer's; split: N one-thread devices, each with a fixed 1/N of the \
         elements, at once; split/pool: the split's time over the N-thread device's (best, median)"
    );
    for (i, &threads) in counts.iter().enumerate() {
        let (s_best, s_med) = sim.speedup(i);
        let (n_best, n_med) = nat.speedup(i);
        let (l_best, l_med) = lanes.speedup(i);
        let (p_best, p_med) = split.speedup(i);
        let sb = best(&sim.times[i]);
        let over = |a: Duration, b: Duration| a.as_secs_f64() / b.as_secs_f64();
        println!(
            "sqrt_exp_loop {threads:2} thread(s): gfxsim best {:7.1} ms ({:6.1} M wave-inst/s) \
             speedup {s_best:5.2}x ({s_med:5.2}x)   native {n_best:5.2}x ({n_med:5.2}x) \
             ratio {:.2} ({:.2})   native lanes {l_best:5.2}x ({l_med:5.2}x) ratio {:.2} ({:.2})   \
             split {p_best:5.2}x ({p_med:5.2}x) split/pool {:.2} ({:.2})",
            ms(sb),
            insts[i] as f64 / sb.as_secs_f64() / 1e6,
            s_best / n_best,
            s_med / n_med,
            s_best / l_best,
            s_med / l_med,
            over(best(&split.times[i]), sb),
            over(median(&split.times[i]), median(&sim.times[i])),
        );
    }
    println!(
        "1-thread spread over the rounds: {}, {}, {}, {}",
        sim.spread(),
        nat.spread(),
        lanes.spread(),
        split.spread()
    );
    let last = counts.len() - 1;
    let n = counts[last];
    println!(
        "round  clock GHz  gfxsim 1t/{n}t ms = speedup   native 1t/{n}t ms = speedup   \
         native lanes 1t/{n}t ms = speedup   gfxsim split 1t/{n}t ms = speedup"
    );
    for (round, clock) in clocks.iter().enumerate() {
        let cell = |s: &Series| {
            let (one, all) = (s.times[0][round], s.times[last][round]);
            format!(
                "{:7.1} /{:6.1} = {:5.2}x",
                ms(one),
                ms(all),
                one.as_secs_f64() / all.as_secs_f64()
            )
        };
        println!(
            "{round:5}  {clock:9.2}  {}   {}   {}   {}",
            cell(&sim),
            cell(&nat),
            cell(&lanes),
            cell(&split)
        );
    }
    println!(
        "median of the rounds' own 1t/{n}t speedups: gfxsim {:.2}x, native {:.2}x, \
         native lanes {:.2}x, gfxsim split {:.2}x",
        sim.paired(last),
        nat.paired(last),
        lanes.paired(last),
        split.paired(last)
    );
    drop((rigs, splits, pools));
    if options.sqrt_exp_only {
        return;
    }

    let n = 16u32 << 20;
    let mut base = None;
    for &threads in &counts {
        let (gbs, _) = saxpy(threads, n, 2);
        let base_gbs = *base.get_or_insert(gbs);
        println!(
            "saxpy 16M     {threads:2} thread(s): {gbs:8.2} GB/s  speedup {:5.2}x",
            gbs / base_gbs
        );
    }
}
