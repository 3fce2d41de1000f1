//! The translator against the interpreter on the whole kernel corpus (corpus/): every
//! kernel's -O3 build and every assembly kernel, each case dispatched once with every
//! block interpreted (`JitMode::Off`) and once with every block translated before it
//! first runs (`JitMode::Always`), at each wave-loop level the host runs (the level the
//! translations' call-outs and the interpreted blocks use), the translations compiled
//! for that level's generic x86-64 CPU (x86-64, x86-64-v3: what an older or AVX2-only
//! host compiles; `JitTarget`) and, at the host's best level, for the host's own CPU.
//! Each level has its own device, so that no translation made for one runs at
//! another. Every byte of every buffer
//! must agree, and so must the count of wave instructions the dispatch ran (gfxsim's
//! counters count translated blocks' instructions too); each kernel must have run some
//! of its wave instructions translated, so that the test cannot pass by falling back to
//! the interpreter.
//!
//! Translated code follows the interpreter's semantics bit for bit (gfx11/jit/mod.rs in
//! aqueduct-isa: rounding, denormals, NaN propagation, memory order, faults), so a
//! difference is a translator bug; the corpus's own test (crates/hsa/tests/corpus.rs)
//! checks the interpreter against host references. One worker thread: workgroups and
//! waves then run in the same order in both modes, so kernels whose results depend on
//! the order of their atomics agree too.
//!
//! One test function: the modes, levels and targets are process-wide settings
//! (`force_jit`, `force_wave_loop`, `force_jit_target`), which tests running in parallel
//! threads would trample.
//!
//! `AQUEDUCT_SIM_ISA=gfx942` (or `gfx90a`) runs the corpus's builds for that part, whose
//! waves are wave64, on the simulated part.
//!
//! The kernels in [`COSTLY`] run only in soak mode (`AQUEDUCT_SOAK` set, as for the
//! stress tests): `AQUEDUCT_SOAK=1 cargo test --test corpus_translated`.

use aqueduct::hsa;
use aqueduct_gfxsim as gfxsim;
use aqueduct_isa::{
    JitBackend, JitMode, JitTarget, WaveLoop, force_jit, force_jit_target, force_wave_loop,
};

/// corpus/ relative to the root package's manifest (used by the runner).
const CORPUS_FROM_MANIFEST: &str = "corpus";

#[path = "../corpus/cases/mod.rs"]
mod cases;
#[path = "../corpus/runner.rs"]
mod runner;

/// Kernels whose blocks, every one translated, take most of the corpus's compile time:
/// hundreds of short blocks, each its own module compiled in a child process. From an
/// empty translation cache on a 2-core host, private_sort took 124 s, hip_private_bareiss
/// 22 s and private_histogram 11 s of the whole corpus's 193 s; the other 69 builds
/// about 37 s.
const COSTLY: &[&str] = &["private_sort", "hip_private_bareiss", "private_histogram"];

/// Kernels that also run tiered (`JitMode::Eager`, translations made in the background
/// as blocks get hot), at the host's best level, until their translations settle: only
/// there are blocks joined into regions (gfx11/jit/region.rs in aqueduct-isa), whose
/// code switches between a workgroup's waves at barriers. Their workgroups loop round
/// barriers, and some have a last wave with part of its lanes after full ones
/// (asm_barrier_rounds, whose every lane's result shows it, reduce_minmax_i32).
const TIERED: &[&str] = &[
    "asm_barrier_rounds",
    "reduce_minmax_i32",
    "hip_stencil_lds",
    "lds_rotate_rounds",
    "scan_inclusive_lds",
    "bitonic_sort_lds",
];

/// Dispatches of a case, tiered, before the one compared (the first ones make blocks
/// hot and request their translations; the translator settles within a few).
const TIERED_WARM_UP: usize = 6;

/// `case` run tiered until its translations settle (at most [`TIERED_WARM_UP`]
/// dispatches, each after the background compiles of the one before), then once more:
/// that last run.
fn run_tiered(
    device: &runner::Device,
    exe: &hsa::Executable,
    kernel: &cases::Kernel,
    case: &cases::Case,
) -> Result<Run, String> {
    let wait = || {
        let start = std::time::Instant::now();
        while aqueduct_isa::background_translations().1 != 0
            && start.elapsed() < std::time::Duration::from_secs(120)
        {
            std::thread::sleep(std::time::Duration::from_millis(2));
        }
    };
    for _ in 0..TIERED_WARM_UP {
        wait();
        let (requested, _) = aqueduct_isa::background_translations();
        run(device, exe, kernel, case, JitMode::Eager)?;
        if aqueduct_isa::background_translations() == (requested, 0) {
            break;
        }
    }
    wait();
    run(device, exe, kernel, case, JitMode::Eager)
}

/// What a case left in its buffers, the wave instructions it ran, and how
/// many of those ran in translated blocks.
struct Run {
    buffers: Vec<Vec<u8>>,
    wave_instructions: u64,
    translated: u64,
    /// Barriers at which translated code went on with the workgroup's next wave itself.
    barrier_switches: u64,
}

fn run(
    device: &runner::Device,
    exe: &hsa::Executable,
    kernel: &cases::Kernel,
    case: &cases::Case,
    mode: JitMode,
) -> Result<Run, String> {
    force_jit(Some(mode));
    let before = device.sim.stats();
    let out = device.run(exe, kernel, case);
    let after = device.sim.stats();
    force_jit(None);
    let out = out?;
    Ok(Run {
        buffers: out.buffers,
        wave_instructions: out.wave_instructions,
        translated: after.translated_wave_instructions - before.translated_wave_instructions,
        barrier_switches: after.barrier_switches - before.barrier_switches,
    })
}

/// The first byte where `a` and `b` differ, as (buffer, offset).
fn first_difference(a: &[Vec<u8>], b: &[Vec<u8>]) -> Option<(usize, usize)> {
    a.iter().zip(b).enumerate().find_map(|(i, (x, y))| {
        (x != y).then(|| {
            let at = x.iter().zip(y).position(|(p, q)| p != q);
            (i, at.unwrap_or(x.len().min(y.len())))
        })
    })
}

#[test]
fn every_corpus_kernel_runs_the_same_translated() {
    if !JitBackend::Llvm.available() {
        eprintln!("libLLVM-19 not loadable here (or built without llvm-jit): skipped");
        return;
    }
    // Each level with the CPU its translations are compiled for.
    let levels: Vec<(WaveLoop, JitTarget)> = WaveLoop::ALL
        .into_iter()
        .filter(|&l| l <= WaveLoop::host_best())
        .map(|l| {
            let generic = JitTarget::Level(l);
            if l == WaveLoop::host_best() || !generic.runs_here() {
                (l, JitTarget::Host)
            } else {
                (l, generic)
            }
        })
        .collect();
    let soak = std::env::var_os("AQUEDUCT_SOAK").is_some();
    let new_device = || runner::Device::new(1).expect("gfxsim device");
    let mut devices: Vec<runner::Device> = levels.iter().map(|_| new_device()).collect();
    let mut failures = Vec::new();
    let mut kernels = 0;
    for kernel in cases::all() {
        for &variant in kernel.lang.variants() {
            // -O0 builds are left out to bound the test's time (their
            // blocks are compiled too); crates/hsa/tests/corpus.rs runs them.
            if variant == "O0"
                || !devices[0].has(&kernel.file(variant))
                || (COSTLY.contains(&kernel.name) && !soak)
            {
                continue;
            }
            let what = format!(
                "{} {}",
                kernel.name,
                if variant.is_empty() { "asm" } else { variant }
            );
            let loaded: Result<Vec<hsa::Executable>, String> = devices
                .iter()
                .map(|d| d.load(&kernel.file(variant)))
                .collect();
            let exes = match loaded {
                Ok(exes) => exes,
                Err(e) => {
                    failures.push(format!("{what}: {e}"));
                    continue;
                }
            };
            kernels += 1;
            let started = std::time::Instant::now();
            let (mut translated, mut switches) = (0, 0);
            let mut failed = None;
            'cases: for case in (kernel.cases)() {
                for (k, &(level, target)) in levels.iter().enumerate() {
                    force_wave_loop(Some(level));
                    force_jit_target(Some(target));
                    let label = format!(
                        "{what} [{}] at {}, translated for {}",
                        case.label,
                        level.name(),
                        target.name()
                    );
                    let (device, exe) = (&devices[k], &exes[k]);
                    let tiered = TIERED.contains(&kernel.name) && k + 1 == levels.len();
                    let all = run(device, exe, &kernel, &case, JitMode::Off).and_then(|off| {
                        let always = run(device, exe, &kernel, &case, JitMode::Always)?;
                        let tiered = if tiered {
                            Some(run_tiered(device, exe, &kernel, &case)?)
                        } else {
                            None
                        };
                        Ok((off, always, tiered))
                    });
                    force_jit_target(None);
                    force_wave_loop(None);
                    match all {
                        Ok((off, always, tiered)) => {
                            assert_eq!(
                                off.translated, 0,
                                "{label}: translated with the translator off"
                            );
                            if let Some(on) = &tiered {
                                switches += on.barrier_switches;
                            }
                            let tiered = tiered.map(|on| (on, " tiered"));
                            for (on, how) in std::iter::once((always, "")).chain(tiered) {
                                translated += on.translated;
                                if off.wave_instructions != on.wave_instructions {
                                    failures.push(format!(
                                        "{label}{how}: {} wave instructions interpreted, {} \
                                         translated",
                                        off.wave_instructions, on.wave_instructions
                                    ));
                                }
                                if let Some((buffer, offset)) =
                                    first_difference(&off.buffers, &on.buffers)
                                {
                                    failures.push(format!(
                                        "{label}{how}: buffer {buffer} differs first at byte \
                                         {offset}"
                                    ));
                                }
                            }
                        }
                        Err(e) => {
                            failures.push(format!("{label}: {e}"));
                            failed = Some(k);
                            break 'cases;
                        }
                    }
                }
            }
            eprintln!("{what}: {:.1} s", started.elapsed().as_secs_f64());
            if let Some(k) = failed {
                // A failed dispatch leaves the queue in error.
                drop(exes);
                devices[k] = new_device();
            } else if translated == 0 {
                failures.push(format!("{what}: no wave instruction ran translated"));
            } else if TIERED.contains(&kernel.name) && switches == 0 {
                failures.push(format!(
                    "{what}: translated code went on with no other wave at a barrier"
                ));
            }
        }
    }
    let runs: Vec<String> = levels
        .iter()
        .map(|(l, t)| format!("{} translated for {}", l.name(), t.name()))
        .collect();
    eprintln!("{kernels} kernel builds at {}", runs.join(", "));
    assert!(kernels > 0, "no corpus kernel found");
    assert!(
        failures.is_empty(),
        "{} failure(s):\n{}",
        failures.len(),
        failures.join("\n")
    );
}
