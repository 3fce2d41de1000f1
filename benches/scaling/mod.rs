//! Thread scaling (`cargo bench --bench gfxsim -- --scaling [--rounds N]
//! [--max-threads N] [--sqrt-exp-only]`):
//! how gfxsim's speed grows with host worker threads (1, 2, 4, ... up to the
//! host's cores) on the compute-heavy sqrt_exp_loop, against a native host
//! loop of the same arithmetic split over the same number of threads (what
//! this machine's cores give: turbo clocks fall as more cores run, caches
//! and memory are shared). The goal is >= 12x from 1 to 16 threads.
//!
//! The device machines are virtual and shared, and their 1-thread speed
//! swings by up to 1.8x from one minute to the next (clock boost and
//! neighbours; it is not gfxsim: the native loop swings with it). A speedup
//! divides two times taken at different moments, so:
//! - every thread count has its own simulated device, built and warmed up
//!   (one untimed dispatch: worker contexts, decoded blocks, first touch)
//!   before any timing;
//! - the measurements are interleaved: each round times every count, gfxsim
//!   then native, ascending in even rounds and descending in odd ones, so a
//!   slow spell falls on all counts and on both peers alike;
//! - the speedup is reported from the best times (as before) and from the
//!   medians, for gfxsim and native alike, with the spread of the 1-thread
//!   times and a per-round table of the 1-thread and all-core times;
//! - each round starts with a clock estimate on the bench thread (a chain of
//!   dependent or-multiply steps, 4 cycles each on current x86 cores), to
//!   show whether a slow round was a slow clock.
//!
//! saxpy (memory-bound) follows, each thread count against the 1-thread
//! bandwidth, as a second figure.

use std::time::{Duration, Instant};

use super::{ArgRef, PoolKind, SQRT_EXP, Sim, dispatch, host_sqrt_exp, saxpy};
use aqueduct::hsa::{Allocation, Executable};

/// Rounds when `--rounds` is not given.
const DEFAULT_ROUNDS: usize = 5;
/// sqrt_exp_loop's size: 2,048 workgroups of 256, so that 16 workers each
/// run many.
const ELEMENTS: u32 = 1 << 19;
const ITERS: u32 = 32;

/// One simulated device with sqrt_exp_loop loaded and its buffers filled.
struct SqrtExpRig {
    sim: Sim,
    exe: Executable,
    input: Allocation,
    out: Allocation,
}

impl SqrtExpRig {
    fn new(threads: usize) -> SqrtExpRig {
        let sim = Sim::new(threads);
        let exe = sim.load(SQRT_EXP);
        let pool = sim.runtime.pool(sim.agent(), PoolKind::FineSystem).unwrap();
        let mut input = pool.allocate(ELEMENTS as u64 * 4).unwrap();
        let out = pool.allocate(ELEMENTS as u64 * 4).unwrap();
        for (i, v) in bytemuck::cast_slice_mut::<u8, f32>(input.as_mut_slice().unwrap())
            .iter_mut()
            .enumerate()
        {
            *v = (i % 97) as f32 / 97.0;
        }
        let rig = SqrtExpRig {
            sim,
            exe,
            input,
            out,
        };
        rig.run();
        rig
    }

    /// One dispatch over all elements: its time and wave instructions.
    fn run(&self) -> (Duration, u64) {
        dispatch(&self.sim, &self.exe, "sqrt_exp_loop", ELEMENTS, 256, |b| {
            b.set_ptr(ArgRef::Name("in"), self.input.gpu_va()).unwrap();
            b.set_ptr(ArgRef::Name("out"), self.out.gpu_va()).unwrap();
            b.set_u32(ArgRef::Name("iters"), ITERS).unwrap();
            b.set_u32(ArgRef::Name("n"), ELEMENTS).unwrap();
        })
    }

    /// The results of the last dispatch.
    fn out(&self) -> &[f32] {
        bytemuck::cast_slice(self.out.as_slice().unwrap())
    }
}

/// A native peer: the same arithmetic over the same elements, split in
/// equal chunks over `threads` host threads (spawned per run, as gfxsim
/// wakes its workers per dispatch); `body` is the loop each thread runs.
fn native(
    threads: usize,
    input: &[f32],
    out: &mut [f32],
    body: fn(&[f32], &mut [f32], u32),
) -> Duration {
    let chunk = input.len().div_ceil(threads);
    let start = Instant::now();
    std::thread::scope(|scope| {
        for (inp, o) in input.chunks(chunk).zip(out.chunks_mut(chunk)) {
            scope.spawn(move || body(std::hint::black_box(inp), o, ITERS));
        }
    });
    std::hint::black_box(&mut *out);
    start.elapsed()
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
         sqrt_exp_loop over {ELEMENTS} elements x {ITERS} iterations)"
    );

    let rigs: Vec<SqrtExpRig> = counts.iter().map(|&t| SqrtExpRig::new(t)).collect();
    let input: Vec<f32> = (0..ELEMENTS).map(|i| (i % 97) as f32 / 97.0).collect();
    let mut out = vec![0.0f32; ELEMENTS as usize];
    let mut lanes_out = vec![0.0f32; ELEMENTS as usize];
    // Warm-up, and the results checks (a broken kernel or peer cannot post
    // a fast time): the two native loops agree bit for bit; gfxsim's
    // exp/sqrt/rcp follow the hardware's approximations, so it agrees
    // closely, not bit for bit.
    native(cores, &input, &mut out, host_sqrt_exp);
    native(cores, &input, &mut lanes_out, host_sqrt_exp_lanes);
    assert!(
        out.iter()
            .zip(&lanes_out)
            .all(|(a, b)| a.to_bits() == b.to_bits()),
        "lane-parallel native loop against the one-element loop"
    );
    for rig in &rigs {
        let sim_out = rig.out();
        for i in (0..ELEMENTS as usize).step_by(4097) {
            let (got, want) = (sim_out[i], out[i]);
            assert!(
                (got - want).abs() <= 1e-3 * want.abs().max(1.0),
                "sqrt_exp_loop element {i}: gfxsim {got}, native loop {want}"
            );
        }
    }

    let mut sim = Series::new("gfxsim", counts.len());
    let mut nat = Series::new("native", counts.len());
    let mut lanes = Series::new("native lanes", counts.len());
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
            nat.times[i].push(native(counts[i], &input, &mut out, host_sqrt_exp));
            lanes.times[i].push(native(
                counts[i],
                &input,
                &mut lanes_out,
                host_sqrt_exp_lanes,
            ));
        }
    }

    println!(
        "speedups over 1 thread from the best times (median times in brackets); ratio: gfxsim's \
         over each native peer's"
    );
    for (i, &threads) in counts.iter().enumerate() {
        let (s_best, s_med) = sim.speedup(i);
        let (n_best, n_med) = nat.speedup(i);
        let (l_best, l_med) = lanes.speedup(i);
        let sb = best(&sim.times[i]);
        println!(
            "sqrt_exp_loop {threads:2} thread(s): gfxsim best {:7.1} ms ({:6.1} M wave-inst/s) \
             speedup {s_best:5.2}x ({s_med:5.2}x)   native {n_best:5.2}x ({n_med:5.2}x) \
             ratio {:.2} ({:.2})   native lanes {l_best:5.2}x ({l_med:5.2}x) ratio {:.2} ({:.2})",
            ms(sb),
            insts[i] as f64 / sb.as_secs_f64() / 1e6,
            s_best / n_best,
            s_med / n_med,
            s_best / l_best,
            s_med / l_med,
        );
    }
    println!(
        "1-thread spread over the rounds: {}, {}, {}",
        sim.spread(),
        nat.spread(),
        lanes.spread()
    );
    let last = counts.len() - 1;
    let n = counts[last];
    println!(
        "round  clock GHz  gfxsim 1t/{n}t ms = speedup   native 1t/{n}t ms = speedup   \
         native lanes 1t/{n}t ms = speedup"
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
            "{round:5}  {clock:9.2}  {}   {}   {}",
            cell(&sim),
            cell(&nat),
            cell(&lanes)
        );
    }
    drop(rigs);
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
