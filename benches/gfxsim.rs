//! gfxsim speed: what a user without an AMD GPU gets.
//!
//! Three figures, each printed with its peer measured in the same run:
//! - saxpy over 16M f32 through the whole stack (HSA queue → gfxsim), with
//!   1 and 2 host worker threads (and all the host's cores where it has
//!   more), in GB/s (12 bytes per element), against the same saxpy as a
//!   native host loop on one core and on all cores (the host's memory
//!   bandwidth), and against the same saxpy in WGSL on wgpu 30 + Mesa
//!   lavapipe (benches/wgpu-peer; the goal is >= 1.0x its GB/s) in
//!   5 interleaved rounds, printed as best over best and as the median of
//!   the rounds' own ratios;
//! - emulated wave-instructions per second (saxpy, and the compute-heavy
//!   sqrt_exp_loop), against the native host loop of the same kernel, and
//!   with the translator of hot blocks (`AQUEDUCT_SIM_JIT`, tiered) against
//!   the interpreter alone (`AQUEDUCT_SIM_JIT=0`), with their ratio;
//! - empty-kernel dispatch round trip (packet written → completion signal
//!   observed) in µs, against a host round trip that wakes another thread
//!   and waits for its reply (the floor for any design where another
//!   thread consumes the packet).
//!
//! Run: `cargo bench --bench gfxsim` (`-- --quick` for a short run;
//! `-- --sqrt-exp-only N ITERS` runs one sqrt_exp_loop on one worker thread
//! in the mode `AQUEDUCT_SIM_JIT` selects, for profiling).
//! `-- --scaling` instead measures how gfxsim scales over host
//! worker threads (1, 2, 4, ... up to the host's cores) on the compute-heavy
//! sqrt_exp_loop and on saxpy, each against its own 1-thread time; the
//! issue's goal is >= 12x from 1 to 16 threads on a 16-core machine
//! (scaling/mod.rs says how it is measured).
//! The machine is noisy: compare the ratios, not the absolute times.
//! `-- --saxpy-only N [R] [--threads T]` runs one saxpy of N elements on one
//! worker thread (or T) and nothing else, for profiling (e.g. under callgrind with
//! `--toggle-collect` on `Dispatch::run_workgroup`); it prints the wave
//! instructions executed, the divisor for host instructions per
//! wave-instruction. With R > 1 it runs R times and also prints the best
//! time per wave of the repeats (the first also decodes and touches pages):
//! a small N that fits the host's caches against a large one shows what
//! memory costs the interpreter.

use std::sync::Arc;
use std::time::{Duration, Instant};

#[path = "peer/mod.rs"]
mod peer;
#[path = "scaling/mod.rs"]
mod scaling;

use aqueduct::gfxsim::{SimConfig, SimDevice};
use aqueduct::hsa::code_object::{ArgRef, DispatchShape, KernargBuilder};
use aqueduct::hsa::{
    Agent, Allocation, Executable, MemoryOrder, PoolKind, Runtime, RuntimeOptions, Signal,
    WaitCondition, WaitHint,
};
use aqueduct_isa::{JitMode, force_jit};

const SAXPY: &[u8] = include_bytes!("../kernels/gfx1100/saxpy.co");
const SQRT_EXP: &[u8] = include_bytes!("../kernels/gfx1100/sqrt_exp_loop.co");
const EMPTY: &[u8] = include_bytes!("../kernels/gfx1100/empty.co");

/// The two ways gfxsim runs wave code, as the comparisons name them.
const MODES: [(&str, JitMode); 2] = [
    ("interpreter", JitMode::Off),
    ("translator ", JitMode::Tiered),
];

struct Sim {
    device: Arc<SimDevice>,
    runtime: Arc<Runtime>,
}

impl Sim {
    fn new(threads: usize) -> Sim {
        Sim::with_aperture(threads, RuntimeOptions::default().aperture_size)
    }
    /// `aperture`: bytes of VA the runtime reserves (valgrind cannot
    /// reserve the default 64 GiB).
    fn with_aperture(threads: usize, aperture: u64) -> Sim {
        let device = SimDevice::new(SimConfig {
            threads,
            ..SimConfig::default()
        })
        .expect("gfxsim");
        let runtime = Runtime::with_options(
            device.clone(),
            RuntimeOptions {
                aperture_size: aperture,
                ..RuntimeOptions::default()
            },
        )
        .expect("runtime");
        Sim { device, runtime }
    }
    fn agent(&self) -> &Agent {
        self.runtime.gpu_agent(0).expect("gpu agent")
    }
    fn load(&self, code: &[u8]) -> Executable {
        self.runtime
            .load_executable(self.agent(), code)
            .expect("load")
    }
}

/// One dispatch, waited for; returns the elapsed time and the wave
/// instructions it executed.
fn dispatch(
    sim: &Sim,
    exe: &Executable,
    name: &str,
    grid: u32,
    wg: u16,
    args: impl Fn(&mut KernargBuilder<'_>),
) -> (Duration, u64) {
    let kernel = exe.kernel(name).expect("kernel");
    let mut builder = KernargBuilder::new(&kernel.info);
    args(&mut builder);
    let bytes = builder
        .finish(&DispatchShape::linear(grid, wg as u32))
        .expect("kernargs");
    let mut kernargs = sim
        .runtime
        .kernargs(sim.agent())
        .unwrap()
        .allocate(bytes.len().max(16) as u64)
        .unwrap();
    kernargs.as_mut_slice()[..bytes.len()].copy_from_slice(&bytes);
    let queue = sim.runtime.create_queue(sim.agent(), 64).unwrap();
    let signal = sim.runtime.create_signal(1).unwrap();
    let mut d = kernel.dispatch(kernargs.gpu_va(), [grid, 1, 1], [wg, 1, 1]);
    d.completion_signal = signal.handle();
    let packet = d.to_packet().unwrap();
    let before = sim.device.stats().wave_instructions;
    let start = Instant::now();
    queue.submit_dispatch(&packet).unwrap();
    signal
        .wait(
            WaitCondition::Eq,
            0,
            Some(Duration::from_secs(600)),
            WaitHint::Blocked,
        )
        .unwrap();
    (
        start.elapsed(),
        sim.device.stats().wave_instructions - before,
    )
}

/// The median of `ratios` (the upper middle for an even count); the
/// figure both paired comparisons (saxpy against lavapipe, scaling) print.
fn median_ratio(mut ratios: Vec<f64>) -> f64 {
    ratios.sort_by(f64::total_cmp);
    ratios[ratios.len() / 2]
}

fn best_of<T>(runs: usize, mut f: impl FnMut() -> (Duration, T)) -> (Duration, T) {
    let mut best = f();
    for _ in 1..runs {
        let r = f();
        if r.0 < best.0 {
            best = r;
        }
    }
    best
}

fn host_saxpy(a: f32, x: &[f32], y: &mut [f32]) {
    for (yi, xi) in y.iter_mut().zip(x) {
        *yi += a * xi;
    }
}

/// saxpy's two buffers on one simulated device, dispatched again and again
/// (y += 2x each time).
struct SaxpyRig {
    threads: usize,
    sim: Sim,
    exe: Executable,
    n: u32,
    x: Allocation,
    y: Allocation,
    /// Dispatches so far: what y's last element must show.
    runs: u32,
}

impl SaxpyRig {
    fn new(threads: usize, n: u32) -> SaxpyRig {
        SaxpyRig::on(Sim::new(threads), threads, n)
    }

    /// The rig on `sim`, a device with `threads` worker threads.
    fn on(sim: Sim, threads: usize, n: u32) -> SaxpyRig {
        let exe = sim.load(SAXPY);
        let pool = sim.runtime.pool(sim.agent(), PoolKind::FineSystem).unwrap();
        let mut x = pool.allocate(n as u64 * 4).unwrap();
        let mut y = pool.allocate(n as u64 * 4).unwrap();
        for (i, v) in bytemuck::cast_slice_mut::<u8, f32>(x.as_mut_slice().unwrap())
            .iter_mut()
            .enumerate()
        {
            *v = (i % 1000) as f32;
        }
        bytemuck::cast_slice_mut::<u8, f32>(y.as_mut_slice().unwrap()).fill(1.0);
        SaxpyRig {
            threads,
            sim,
            exe,
            n,
            x,
            y,
            runs: 0,
        }
    }

    /// One dispatch: its time and wave instructions.
    fn run(&mut self) -> (Duration, u64) {
        let (x, y, n) = (self.x.gpu_va(), self.y.gpu_va(), self.n);
        let r = dispatch(&self.sim, &self.exe, "saxpy", n, 256, |b| {
            b.set_f32(ArgRef::Name("a"), 2.0).unwrap();
            b.set_ptr(ArgRef::Name("x"), x).unwrap();
            b.set_ptr(ArgRef::Name("y"), y).unwrap();
            b.set_u32(ArgRef::Name("n"), n).unwrap();
        });
        self.runs += 1;
        // Spot-check the result so a broken kernel cannot post a fast time
        // (the sums are small integers: exact in f32).
        let last = n as usize - 1;
        let xv: &[f32] = bytemuck::cast_slice(self.x.as_slice().unwrap());
        let yv: &[f32] = bytemuck::cast_slice(self.y.as_slice().unwrap());
        assert_eq!(
            yv[last],
            1.0 + self.runs as f32 * 2.0 * xv[last],
            "saxpy result"
        );
        r
    }

    /// GB/s of a dispatch that took `t` (12 bytes per element).
    fn gbs(&self, t: Duration) -> f64 {
        12.0 * self.n as f64 / t.as_secs_f64() / 1e9
    }
}

/// saxpy's best of `runs` dispatches on a fresh device: GB/s and wave
/// instructions per second.
fn saxpy(threads: usize, n: u32, runs: usize) -> (f64, f64) {
    let mut rig = SaxpyRig::new(threads, n);
    let (t, insts) = best_of(runs, || rig.run());
    (rig.gbs(t), insts as f64 / t.as_secs_f64())
}

fn sqrt_exp(threads: usize, n: u32, iters: u32, runs: usize) -> (Duration, f64) {
    let sim = Sim::new(threads);
    let exe = sim.load(SQRT_EXP);
    let pool = sim.runtime.pool(sim.agent(), PoolKind::FineSystem).unwrap();
    let mut input = pool.allocate(n as u64 * 4).unwrap();
    let out = pool.allocate(n as u64 * 4).unwrap();
    for (i, v) in bytemuck::cast_slice_mut::<u8, f32>(input.as_mut_slice().unwrap())
        .iter_mut()
        .enumerate()
    {
        *v = (i % 97) as f32 / 97.0;
    }
    let (t, insts) = best_of(runs, || {
        dispatch(&sim, &exe, "sqrt_exp_loop", n, 256, |b| {
            b.set_ptr(ArgRef::Name("in"), input.gpu_va()).unwrap();
            b.set_ptr(ArgRef::Name("out"), out.gpu_va()).unwrap();
            b.set_u32(ArgRef::Name("iters"), iters).unwrap();
            b.set_u32(ArgRef::Name("n"), n).unwrap();
        })
    });
    (t, insts as f64 / t.as_secs_f64())
}

/// The sqrt_exp_loop kernel's arithmetic as a native loop (see kernels/src).
#[inline(never)]
fn host_sqrt_exp(input: &[f32], out: &mut [f32], iters: u32) {
    for (o, &x0) in out.iter_mut().zip(input) {
        let mut x = x0;
        let mut acc = 0.0f32;
        for k in 0..iters {
            let fk = k as f32;
            acc += (x.abs() + fk).sqrt() * (-x * 0.01 * fk).exp();
            x = x * 0.5 + 1.0 / (1.0 + acc);
        }
        *o = acc;
    }
}

fn round_trip(samples: usize) -> Duration {
    let sim = Sim::new(1);
    let exe = sim.load(EMPTY);
    let kernel = exe.kernel("empty").unwrap();
    let queue = sim.runtime.create_queue(sim.agent(), 256).unwrap();
    let signal: Signal = sim.runtime.create_signal(1).unwrap();
    let kernargs = sim
        .runtime
        .kernargs(sim.agent())
        .unwrap()
        .allocate(64)
        .unwrap();
    let mut d = kernel.dispatch(kernargs.gpu_va(), [32, 1, 1], [32, 1, 1]);
    d.completion_signal = signal.handle();
    let packet = d.to_packet().unwrap();
    let mut times = Vec::with_capacity(samples);
    for i in 0..samples + 50 {
        signal.store(1, MemoryOrder::Relaxed);
        let start = Instant::now();
        queue.submit_dispatch(&packet).unwrap();
        signal
            .wait(
                WaitCondition::Eq,
                0,
                Some(Duration::from_secs(10)),
                WaitHint::Active,
            )
            .unwrap();
        if i >= 50 {
            times.push(start.elapsed());
        }
    }
    times.sort();
    times[times.len() / 2]
}

/// Peer: wake another (blocked) thread and wait for its reply.
fn host_round_trip(samples: usize) -> Duration {
    let (to_tx, to_rx) = std::sync::mpsc::channel::<u64>();
    let (back_tx, back_rx) = std::sync::mpsc::channel::<u64>();
    let echo = std::thread::spawn(move || {
        while let Ok(v) = to_rx.recv() {
            if back_tx.send(v).is_err() {
                break;
            }
        }
    });
    let mut times = Vec::with_capacity(samples);
    for i in 0..samples + 50 {
        let start = Instant::now();
        to_tx.send(i as u64).unwrap();
        back_rx.recv().unwrap();
        if i >= 50 {
            times.push(start.elapsed());
        }
    }
    drop(to_tx);
    echo.join().unwrap();
    times.sort();
    times[times.len() / 2]
}

fn main() {
    if std::env::args().any(|a| a == "--scaling") {
        scaling::run(scaling::Options::from_args());
        return;
    }
    let args: Vec<String> = std::env::args().collect();
    if let Some(k) = args.iter().position(|a| a == "--saxpy-only") {
        let n: u32 = args
            .get(k + 1)
            .and_then(|v| v.parse().ok())
            .expect("--saxpy-only N");
        let threads: usize = args
            .iter()
            .position(|a| a == "--threads")
            .and_then(|t| args.get(t + 1)?.parse().ok())
            .unwrap_or(1);
        let sim = Sim::with_aperture(
            threads,
            (3 * n as u64 * 4).next_multiple_of(1 << 21) + (64 << 20),
        );
        let mut rig = SaxpyRig::on(sim, threads, n);
        let reps: usize = args.get(k + 2).and_then(|v| v.parse().ok()).unwrap_or(1);
        let mut run = || {
            let (t, insts) = rig.run();
            println!(
                "saxpy-only n = {n}: {insts} wave instructions in {:.3} ms",
                t.as_secs_f64() * 1e3
            );
            (t, ())
        };
        // The first dispatch also decodes the kernel and touches the pages.
        run();
        if reps > 1 {
            let (best, ()) = best_of(reps - 1, run);
            let waves = n.div_ceil(32) as f64;
            println!(
                "saxpy-only n = {n}: best of the {} repeats {:.3} ms, {:.1} ns per wave",
                reps - 1,
                best.as_secs_f64() * 1e3,
                best.as_secs_f64() * 1e9 / waves
            );
        }
        return;
    }
    if let Some(k) = args.iter().position(|a| a == "--sqrt-exp-only") {
        // `--sqrt-exp-only N ITERS`: one device thread, the configured
        // AQUEDUCT_SIM_JIT mode, for profiling.
        let arg = |d: usize, default: u32| {
            args.get(k + d)
                .and_then(|v| v.parse().ok())
                .unwrap_or(default)
        };
        let (t, ips) = sqrt_exp(1, arg(1, 1 << 14), arg(2, 32), 2);
        println!(
            "sqrt_exp_loop-only: {:.1} M wave-inst/s, best {:.3} ms",
            ips / 1e6,
            t.as_secs_f64() * 1e3
        );
        return;
    }
    let quick = args.iter().any(|a| a == "--quick");
    let n: u32 = if quick { 1 << 20 } else { 16 << 20 };
    let runs = if quick { 1 } else { 3 };
    println!(
        "gfxsim benchmarks ({} cores here; n = {n})",
        std::thread::available_parallelism().map_or(1, |c| c.get())
    );

    // Peer: native saxpy.
    let x: Vec<f32> = (0..n).map(|i| (i % 1000) as f32).collect();
    let mut y = vec![1.0f32; n as usize];
    let (host_t, _) = best_of(runs, || {
        let s = Instant::now();
        host_saxpy(2.0, std::hint::black_box(&x), &mut y);
        (s.elapsed(), ())
    });
    let host_gbs = 12.0 * n as f64 / host_t.as_secs_f64() / 1e9;
    println!("saxpy  host native loop (1 core):       {host_gbs:8.2} GB/s");
    // The same loop split over all cores: the memory bandwidth this host
    // gives, which caps any saxpy on it.
    let cores = std::thread::available_parallelism().map_or(1, |c| c.get());
    if cores > 1 {
        let chunk = (n as usize).div_ceil(cores);
        let (all_t, _) = best_of(runs, || {
            let s = Instant::now();
            std::thread::scope(|scope| {
                for (yc, xc) in y.chunks_mut(chunk).zip(x.chunks(chunk)) {
                    scope.spawn(move || host_saxpy(2.0, std::hint::black_box(xc), yc));
                }
            });
            (s.elapsed(), ())
        });
        println!(
            "saxpy  host native loop ({cores} cores):      {:8.2} GB/s",
            12.0 * n as f64 / all_t.as_secs_f64() / 1e9
        );
    }
    // gfxsim and the lavapipe peer in interleaved rounds, the peer first in
    // odd rounds: the peer is another process run seconds apart, and a slow
    // spell on this shared machine then falls on both sides of some rounds'
    // ratios instead of on one side of the only one.
    let rounds = if quick { 1 } else { 5 };
    // 1 and 2 worker threads, and all the host's cores where it has more
    // (lavapipe runs on all of them).
    let mut counts = vec![1, 2];
    if cores > 2 {
        counts.push(cores);
    }
    let mut rigs: Vec<SaxpyRig> = counts.iter().map(|&t| SaxpyRig::new(t, n)).collect();
    let mut sim_runs: Vec<Vec<(Duration, u64)>> = vec![Vec::new(); rigs.len()];
    // The peer on all cores (lavapipe's default) and on one thread (the
    // per-core comparison, with gfxsim's 1-thread device).
    let peer_envs: &[&[(&str, &str)]] = if cores > 1 {
        &[&[], &[("LP_NUM_THREADS", "1")]]
    } else {
        &[&[]]
    };
    let mut peer_gbs: Result<Vec<Vec<f64>>, String> = Ok(vec![Vec::new(); peer_envs.len()]);
    let mut adapter = String::new();
    let (n_arg, runs_arg) = (n.to_string(), runs.to_string());
    let mut peer_round = || {
        for (k, env) in peer_envs.iter().enumerate() {
            let Ok(lists) = &mut peer_gbs else { return };
            // Peer: the same saxpy as WGSL on wgpu 30 + Mesa lavapipe (benches/wgpu-peer).
            match peer::run_with_env("saxpy", &["--n", &n_arg, "--runs", &runs_arg], env)
                .and_then(|v| Ok((peer::number(&v, "gbs")?, peer::adapter(&v))))
            {
                Ok((gbs, name)) => {
                    lists[k].push(gbs);
                    adapter = name;
                }
                Err(why) => peer_gbs = Err(why),
            }
        }
    };
    for round in 0..rounds {
        if round % 2 == 1 {
            peer_round();
        }
        for (rig, times) in rigs.iter_mut().zip(&mut sim_runs) {
            times.push(best_of(runs, || rig.run()));
        }
        if round % 2 == 0 {
            peer_round();
        }
    }
    let sim_gbs: Vec<Vec<f64>> = rigs
        .iter()
        .zip(&sim_runs)
        .map(|(rig, times)| times.iter().map(|&(t, _)| rig.gbs(t)).collect())
        .collect();
    for (rig, times) in rigs.iter().zip(&sim_runs) {
        let &(t, insts) = times.iter().min_by_key(|r| r.0).expect("a round");
        let gbs = rig.gbs(t);
        println!(
            "saxpy  gfxsim, {} thread(s):               {gbs:8.2} GB/s  ({:.1} M wave-inst/s)  ratio to host {:.3}",
            rig.threads,
            insts as f64 / t.as_secs_f64() / 1e6,
            gbs / host_gbs
        );
    }
    match &peer_gbs {
        Ok(peer) => {
            let best = |v: &[f64]| v.iter().copied().fold(0.0, f64::max);
            // One line per comparison: best over best, then each round's own ratio.
            let compare = |what: String, sim: &[f64], peer: &[f64]| {
                let ratios: Vec<f64> = sim.iter().zip(peer).map(|(s, p)| s / p).collect();
                let shown: Vec<String> = ratios.iter().map(|r| format!("{r:.2}")).collect();
                println!(
                    "{what:<44}{:8.3}  (best over best; the {rounds} rounds' own ratios {}: \
                     median {:.3})",
                    best(sim) / best(peer),
                    shown.join(" "),
                    median_ratio(ratios)
                );
            };
            println!(
                "saxpy  wgpu 30 on lavapipe:             {:8.2} GB/s  ({adapter})",
                best(&peer[0])
            );
            if let Some(one) = peer.get(1) {
                println!(
                    "saxpy  wgpu 30 on lavapipe, 1 thread:   {:8.2} GB/s  (LP_NUM_THREADS=1)",
                    best(one)
                );
            }
            for (rig, gbs) in rigs.iter().zip(&sim_gbs) {
                let what = format!("saxpy  gfxsim {} thread(s) / lavapipe:", rig.threads);
                compare(what, gbs, &peer[0]);
            }
            if let Some(one) = peer.get(1) {
                let what = "saxpy  gfxsim 1 thread / lavapipe 1 thread:".to_string();
                compare(what, &sim_gbs[0], one);
            }
        }
        Err(why) => println!("{}", peer::unavailable(why)),
    }
    drop(rigs);

    let (sn, iters) = if quick { (1 << 14, 16) } else { (1 << 17, 32) };
    let input: Vec<f32> = (0..sn).map(|i| (i % 97) as f32 / 97.0).collect();
    let mut out = vec![0.0f32; sn as usize];
    let (host_t, _) = best_of(2, || {
        let s = Instant::now();
        host_sqrt_exp(
            std::hint::black_box(&input),
            &mut out,
            std::hint::black_box(iters),
        );
        // Read the results, or the optimiser drops the loop.
        std::hint::black_box(&mut out);
        (s.elapsed(), ())
    });
    // The translator (AQUEDUCT_SIM_JIT's default, tiered) against the
    // interpreter alone, on the same device settings.
    for threads in [1, 2] {
        let mut ips = [0.0; 2];
        for (k, (name, mode)) in MODES.iter().enumerate() {
            force_jit(Some(*mode));
            let (t, r) = sqrt_exp(threads, sn, iters, 2);
            ips[k] = r;
            println!(
                "sqrt_exp_loop gfxsim, {threads} thread(s), {name}: {:8.1} M wave-inst/s  gfxsim takes {:.2}x the native host loop's time",
                r / 1e6,
                t.as_secs_f64() / host_t.as_secs_f64()
            );
        }
        println!(
            "sqrt_exp_loop translator / interpreter, {threads} thread(s): {:8.2}x",
            ips[1] / ips[0]
        );
    }
    let mut ips = [0.0; 2];
    for (k, (name, mode)) in MODES.iter().enumerate() {
        force_jit(Some(*mode));
        let (gbs, r) = saxpy(1, n, runs);
        ips[k] = r;
        println!(
            "saxpy  gfxsim, 1 thread, {name}:  {gbs:8.2} GB/s  ({:.1} M wave-inst/s)",
            r / 1e6
        );
    }
    force_jit(None);
    println!(
        "saxpy  translator / interpreter, 1 thread:        {:8.2}x",
        ips[1] / ips[0]
    );

    let samples = if quick { 200 } else { 2000 };
    let rt = round_trip(samples);
    let host_rt = host_round_trip(samples);
    println!(
        "empty dispatch round trip (median):   {:8.2} µs   host thread wake+reply {:.2} µs   ratio {:.2}",
        rt.as_secs_f64() * 1e6,
        host_rt.as_secs_f64() * 1e6,
        rt.as_secs_f64() / host_rt.as_secs_f64()
    );
}
