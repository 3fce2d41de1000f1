//! Emulation speed on the kernel corpus: wave-instructions per second
//! per host core, against the goal of 50 M/s.
//!
//! Every corpus kernel (its -O3 build and the assembly ones; `--all` adds the -O0 builds)
//! runs on gfxsim with one worker thread (SimConfig threads = 1), so the rate is per host
//! core. Each case is dispatched once and its result checked (no rate is reported for a
//! wrong answer), then timed as a batch of back-to-back dispatches of the same packet (as
//! many as bring it to about TARGET_WAVE_INSTRUCTIONS, at most one queue-full), so the
//! figure is the emulator's throughput rather than the host's wake-up latency per
//! dispatch. Wave instructions come from SimDevice::stats(); the time is the first packet's
//! submission to the batch's completion signal reaching 0 (the packets keep their barrier
//! bit and only the last completes the signal: corpus/runner.rs `submit`, one completion
//! interrupt per batch). The peer is the host reference
//! computation (corpus/cases) of the same cases, times the same batch size, timed in the
//! same run: the ratio says how much slower the simulated GPU is than plain Rust doing the
//! same work on one core.
//!
//! Run: `cargo bench --bench corpus` (`-- --all` for -O0 too, `-- NAME` to filter by a
//! part of the kernel's name, `-- --only NAME` for exactly that kernel). With
//! `AQUEDUCT_SIM_ISA=gfx942` (or `gfx90a`) it runs the corpus's builds for that ISA on the
//! simulated part, skipping the gfx11-only kernels.
//!
//! Where the instructions ran: the `jit %` column is the share of a kernel's timed wave
//! instructions that translated blocks ran (SimStats::translated_wave_instructions), and
//! `inline %` the share they ran inline rather than through call-outs to the interpreter
//! (the rest of `jit %`). A kernel with a low `inline %` is where the translator's coverage
//! would next pay. `per entry` is its timed wave instructions per block the wave loops
//! entered (SimStats::block_entries): how long a wave stays in translated code between
//! two returns to the wave loop, each of which costs a lookup, a frame and a call.
//!
//! Translated speed: `-- --settle` runs each case's batch until gfxsim's background
//! translations settle (a batch that made no block newly hot, with none still compiling;
//! at most 20; blocks hot at their second entry, `JitMode::Eager`: the state a kernel run
//! many times reaches), then checks one more dispatch, before its timed batch. Without it the batch includes
//! the translator's warm-up: blocks run interpreted until they are hot and their
//! translations are built on a background thread, which is what a short program sees.
//! With `--settle` the peer of the translator is the interpreter too: each case's batch is
//! timed twice with translation on and twice with it off (`force_jit`), alternately, in the
//! same run, and the faster of each pair counts; `vs interp` is the interpreter's time over
//! the translator's (the translator's goal is 5x on the aggregate), and `in loop` the same
//! ratio of the time workers spent running workgroups (SimStats::workgroup_nanos), which
//! leaves out the command processor's and the memory manager's work per dispatch.
//!
//! Sanitizer cost: `-- --sanitize` also times each batch on a second device with every
//! sanitizer tool on (SimConfig::sanitize, gfxsim's sanitizer/), after the same checked
//! dispatch, and prints the ratio of the two times per kernel and in total, and any finding
//! (a clean corpus has none). The sanitizer-off figures are the ones without the flag.
//!
//! Steadier figures: `-- --batches N` times each batch N times and counts the fastest
//! (default 1). With a large N the timed batches dominate the run, which is what a profiler
//! should see: `AQUEDUCT_SIM_JIT=always perf record <bench binary> --only NAME --batches 200`
//! samples translated code (every block compiled before it first runs) rather than the
//! set-up and the compiles; `AQUEDUCT_SIM_JIT_PERF_MAP=1` names that code in `perf report`
//! by the block it translates. (`--settle` with a large N profiles the tiered state, which is
//! what the timed figures measure: `always` forms no regions.)
//!
//! Profiling: `-- --once` runs each case's checked dispatch only (no timed batch, no host
//! reference) and prints its wave instructions; `-- --aperture-mib N` makes the runtime
//! reserve N MiB of VA instead of its default 64 GiB, which valgrind cannot reserve. So
//! `valgrind --tool=callgrind --toggle-collect='*Dispatch::run_workgroup*' <bench binary>
//! --once --aperture-mib 512 [--all] [--only NAME]` counts host instructions inside the
//! emulator for one dispatch of every case.

use std::time::{Duration, Instant};

use aqueduct::hsa;
use aqueduct_gfxsim as gfxsim;
use aqueduct_isa::{JitMode, force_jit};

/// corpus/ relative to the root package's manifest (used by the runner).
const CORPUS_FROM_MANIFEST: &str = "corpus";

#[path = "../corpus/cases/mod.rs"]
mod cases;
#[path = "../corpus/runner.rs"]
mod runner;

const GOAL_PER_CORE: f64 = 50e6;

/// Wave instructions each case's timed batch aims at.
const TARGET_WAVE_INSTRUCTIONS: u64 = 400_000;

#[derive(Default)]
struct Tally {
    wave_instructions: u64,
    /// Of the timed batches' wave instructions, those run by translated
    /// blocks, and of those, the ones run through call-outs (SimStats).
    translated: u64,
    called_out: u64,
    sim: Duration,
    reference: Duration,
    /// The same batches with every sanitizer tool on (`--sanitize`).
    sanitized: Duration,
    /// The same batches interpreted, translation off (`--settle`).
    interpreted: Duration,
    /// Of `sim` and `interpreted` (`--settle`), the time workers spent
    /// running workgroups (SimStats::workgroup_nanos): the batches without
    /// the command processor's and the memory manager's work per dispatch.
    sim_loop: Duration,
    interpreted_loop: Duration,
    /// Blocks the wave loops entered in the timed batches (SimStats).
    block_entries: u64,
}

fn main() {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| a != "--bench")
        .collect();
    let all_variants = args.iter().any(|a| a == "--all");
    let once = args.iter().any(|a| a == "--once");
    let sanitize = args.iter().any(|a| a == "--sanitize");
    let settle = args.iter().any(|a| a == "--settle");
    let value_of = |flag: &str| {
        args.iter().position(|a| a == flag).map(|k| {
            args.get(k + 1)
                .unwrap_or_else(|| panic!("{flag} needs a value"))
        })
    };
    let only = value_of("--only");
    let batches = value_of("--batches").map_or(1, |n| {
        n.parse::<u32>()
            .ok()
            .filter(|&n| n > 0)
            .unwrap_or_else(|| panic!("--batches {n:?}: not a positive count"))
    });
    let aperture = value_of("--aperture-mib").map(|mib| {
        mib.parse::<u64>()
            .unwrap_or_else(|_| panic!("--aperture-mib {mib:?}: not a number of MiB"))
            << 20
    });
    // Positional arguments (not flags, nor a flag's value) filter by part of the name.
    let filter: Vec<&String> = args
        .iter()
        .enumerate()
        .filter(|&(k, a)| {
            !a.starts_with("--")
                && (k == 0
                    || !matches!(
                        args[k - 1].as_str(),
                        "--only" | "--aperture-mib" | "--batches"
                    ))
        })
        .map(|(_, a)| a)
        .collect();
    let new_device = || runner::Device::with_aperture(1, aperture).expect("gfxsim device");
    let mut device = new_device();
    let new_sanitizing = || {
        let config = gfxsim::SimConfig {
            threads: 1,
            sanitize: gfxsim::SanitizerConfig::all(),
            ..gfxsim::SimConfig::default()
        };
        runner::Device::with_config(config, aperture).expect("sanitizing gfxsim device")
    };
    let mut sanitizing = sanitize.then(new_sanitizing);

    // jit %: the share of the wave instructions that translated blocks ran;
    // inline %: the share they ran inline, not through call-outs; per
    // entry: wave instructions per block the wave loops entered.
    println!(
        "{:<28} {:>3} {:>11} {:>10} {:>9} {:>10} {:>8} {:>6} {:>8} {:>9}{}{}",
        "kernel",
        "opt",
        "wave-insts",
        "sim ms",
        "M/s/core",
        "host ms",
        "sim/host",
        "jit %",
        "inline %",
        "per entry",
        if settle { " vs interp  in loop" } else { "" },
        if sanitize { "  san/off" } else { "" }
    );
    let mut total = Tally::default();
    let mut log_ratio_sum = 0f64;
    let mut log_speedup_sum = 0f64;
    let mut measured = 0u32;
    let mut failures = Vec::new();
    let mut findings = 0u32;
    for kernel in cases::all() {
        if !filter.is_empty() && !filter.iter().any(|f| kernel.name.contains(f.as_str())) {
            continue;
        }
        if only.is_some_and(|name| kernel.name != name.as_str()) {
            continue;
        }
        for &variant in kernel.lang.variants() {
            if variant == "O0" && !all_variants {
                continue;
            }
            // A GFX9 part (AQUEDUCT_SIM_ISA=gfx942|gfx90a) has no build of the gfx11-only kernels.
            if device.sim.config().part.isa() != "gfx1100" && !device.has(&kernel.file(variant)) {
                continue;
            }
            let exe = match device.load(&kernel.file(variant)) {
                Ok(exe) => exe,
                Err(e) => {
                    failures.push(format!("{} {variant}: {e}", kernel.name));
                    continue;
                }
            };
            let san_exe = match &sanitizing {
                Some(d) => match d.load(&kernel.file(variant)) {
                    Ok(exe) => Some(exe),
                    Err(e) => {
                        failures.push(format!("{} {variant} (sanitized): {e}", kernel.name));
                        continue;
                    }
                },
                None => None,
            };
            let mut tally = Tally::default();
            let mut failed = None;
            for case in (kernel.cases)() {
                let checked = device.run(&exe, &kernel, &case).and_then(|out| {
                    let views: Vec<&[u8]> = out.buffers.iter().map(Vec::as_slice).collect();
                    case.check(&views)?;
                    Ok(out.wave_instructions)
                });
                let single = match checked {
                    Ok(n) => n,
                    Err(e) => {
                        failed = Some(format!("[{}] {e}", case.label));
                        break;
                    }
                };
                if once {
                    tally.wave_instructions += single;
                    continue;
                }
                let repeats = (TARGET_WAVE_INSTRUCTIONS / single.max(1))
                    .clamp(1, runner::MAX_BATCH as u64) as u32;
                if settle
                    && let Err(e) = settle_translations(&device, &exe, &kernel, &case, repeats)
                {
                    failed = Some(format!("[{}] settling: {e}", case.label));
                    break;
                }
                let before = device.sim.stats();
                let elapsed = match best_of(batches, || {
                    device.run_repeated(&exe, &kernel, &case, repeats)
                }) {
                    Ok((elapsed, wave_instructions)) => {
                        let after = device.sim.stats();
                        tally.wave_instructions += wave_instructions;
                        // The shares over all `batches` runs, each the same work.
                        tally.translated += (after.translated_wave_instructions
                            - before.translated_wave_instructions)
                            / u64::from(batches);
                        tally.called_out += (after.called_out_wave_instructions
                            - before.called_out_wave_instructions)
                            / u64::from(batches);
                        tally.block_entries +=
                            (after.block_entries - before.block_entries) / u64::from(batches);
                        elapsed
                    }
                    Err(e) => {
                        failed = Some(format!("[{}] timed batch: {e}", case.label));
                        break;
                    }
                };
                if !settle {
                    tally.sim += elapsed;
                } else {
                    let mut pairs = (0..batches)
                        .map(|_| against_interpreter(&device, &exe, &kernel, &case, repeats));
                    let best = pairs.try_fold([Timed::MAX; 2], |best, pair| {
                        pair.map(|(t, i)| [best[0].min(t), best[1].min(i)])
                    });
                    match best {
                        Ok([translated, interpreted]) => {
                            tally.sim += elapsed.min(translated.batch);
                            tally.interpreted += interpreted.batch;
                            tally.sim_loop += translated.workgroups;
                            tally.interpreted_loop += interpreted.workgroups;
                        }
                        Err(e) => {
                            failed = Some(format!("[{}] interpreted batch: {e}", case.label));
                            break;
                        }
                    }
                }
                if let (Some(d), Some(exe)) = (&sanitizing, &san_exe) {
                    // The same checked dispatch first as on the other device, so that
                    // both timed batches start with the kernel's blocks decoded and its
                    // scratch granted: the ratio is then the sanitizer's own cost.
                    let checked = d.run(exe, &kernel, &case).and_then(|out| {
                        let views: Vec<&[u8]> = out.buffers.iter().map(Vec::as_slice).collect();
                        case.check(&views)
                    });
                    if let Err(e) = checked {
                        failed = Some(format!("[{}] sanitized: {e}", case.label));
                        break;
                    }
                    match best_of(batches, || d.run_repeated(exe, &kernel, &case, repeats)) {
                        Ok((elapsed, _)) => tally.sanitized += elapsed,
                        Err(e) => {
                            failed = Some(format!("[{}] sanitized batch: {e}", case.label));
                            break;
                        }
                    }
                }
                let start = Instant::now();
                for _ in 0..repeats {
                    std::hint::black_box(case.reference());
                }
                tally.reference += start.elapsed();
            }
            let opt = if variant.is_empty() { "asm" } else { variant };
            if let Some(e) = failed {
                // A failed dispatch leaves the queue in error: go on with a fresh device.
                drop(exe);
                drop(san_exe);
                device = new_device();
                if sanitize {
                    sanitizing = Some(new_sanitizing());
                }
                println!("{:<28} {opt:>3} failed (not counted): {e}", kernel.name);
                failures.push(format!("{} {opt}: {e}", kernel.name));
                continue;
            }
            if once {
                println!(
                    "{:<28} {opt:>3} {:>11}",
                    kernel.name, tally.wave_instructions
                );
                total.wave_instructions += tally.wave_instructions;
                measured += 1;
                continue;
            }
            print_row(kernel.name, opt, &tally);
            if let Some(d) = &sanitizing {
                for report in d.sim.take_sanitizer_reports() {
                    println!("  finding: {report}");
                    findings += 1;
                }
            }
            log_ratio_sum +=
                (tally.sim.as_secs_f64() / tally.reference.as_secs_f64().max(1e-9)).ln();
            if settle {
                log_speedup_sum +=
                    (tally.interpreted.as_secs_f64() / tally.sim.as_secs_f64().max(1e-9)).ln();
            }
            measured += 1;
            total.wave_instructions += tally.wave_instructions;
            total.translated += tally.translated;
            total.called_out += tally.called_out;
            total.block_entries += tally.block_entries;
            total.sim += tally.sim;
            total.reference += tally.reference;
            total.sanitized += tally.sanitized;
            total.interpreted += tally.interpreted;
            total.sim_loop += tally.sim_loop;
            total.interpreted_loop += tally.interpreted_loop;
        }
    }
    println!();
    if once {
        println!(
            "once: {} wave instructions over {measured} kernel builds (one checked dispatch \
             per case, not timed)",
            total.wave_instructions
        );
        report_failures(&failures);
        return;
    }
    print_row("ALL (aggregate)", "", &total);
    let rate = total.wave_instructions as f64 / total.sim.as_secs_f64().max(1e-9);
    println!(
        "aggregate: {:.1} M wave-instructions/s per host core (goal {:.0} M/s: {:.2}x of goal) \
         over {measured} kernel builds",
        rate / 1e6,
        GOAL_PER_CORE / 1e6,
        rate / GOAL_PER_CORE,
    );
    println!(
        "wave loop compiled for {} (the default for this CPU unless {} picks another); \
         translations compiled for {} ({})",
        aqueduct_isa::wave_loop().name(),
        aqueduct_isa::WAVE_LOOP_ENV,
        aqueduct_isa::jit_target().name(),
        aqueduct_isa::JIT_TARGET_ENV
    );
    println!(
        "peer (host reference, same work): simulated time / host time = {:.0}x in total, \
         {:.0}x geometric mean over kernels",
        total.sim.as_secs_f64() / total.reference.as_secs_f64().max(1e-9),
        (log_ratio_sum / measured.max(1) as f64).exp()
    );
    if settle {
        println!(
            "translator vs interpreter (same batches, same run): {:.2}x the interpreter's \
             speed in total (goal 5x), {:.2}x geometric mean over kernels",
            total.interpreted.as_secs_f64() / total.sim.as_secs_f64().max(1e-9),
            (log_speedup_sum / measured.max(1) as f64).exp()
        );
        println!(
            "of which running workgroups (SimStats::workgroup_nanos; the command processor's \
             and memory manager's work per dispatch left out): translator {:.1} ms of {:.1} ms, \
             interpreter {:.1} ms of {:.1} ms: {:.2}x the interpreter's speed there",
            total.sim_loop.as_secs_f64() * 1e3,
            total.sim.as_secs_f64() * 1e3,
            total.interpreted_loop.as_secs_f64() * 1e3,
            total.interpreted.as_secs_f64() * 1e3,
            total.interpreted_loop.as_secs_f64() / total.sim_loop.as_secs_f64().max(1e-9),
        );
    }
    if sanitize {
        println!(
            "sanitizer (all tools) on / off: {:.2}x the time in total, {findings} finding(s)",
            total.sanitized.as_secs_f64() / total.sim.as_secs_f64().max(1e-9)
        );
    }
    report_failures(&failures);
}

/// The fastest of `n` runs of `timed` (each returning its times first),
/// or the first error.
fn best_of<T: PartialOrd, E>(n: u32, mut timed: impl FnMut() -> Result<T, E>) -> Result<T, E> {
    let mut best = timed()?;
    for _ in 1..n {
        let next = timed()?;
        if next < best {
            best = next;
        }
    }
    Ok(best)
}

/// Run `case`'s timed batch (`repeats` dispatches) until gfxsim's
/// background translations settle: a batch that made no block newly hot,
/// with none still compiling, at most 20 batches; then dispatch it once
/// more and check the result. The batches run in `JitMode::Eager`, where
/// a block is hot at its second entry: the state the timed batches
/// measure is the one a kernel reaches once it has run often enough for
/// every block it enters to be hot. With the default threshold a block
/// that a batch enters a few times (private_sort's ~1,200 unrolled blocks,
/// a few entries per dispatch each) would need many batches, and one
/// batch making none newly hot would end the settling with them still
/// interpreted.
fn settle_translations(
    device: &runner::Device,
    exe: &hsa::Executable,
    kernel: &cases::Kernel,
    case: &cases::Case,
    repeats: u32,
) -> Result<(), String> {
    let wait = || {
        let start = Instant::now();
        while aqueduct_isa::background_translations().1 != 0
            && start.elapsed() < Duration::from_secs(60)
        {
            std::thread::sleep(Duration::from_millis(2));
        }
    };
    force_jit(Some(JitMode::Eager));
    let mut settled = Ok(());
    for _ in 0..20 {
        wait();
        let (requested, _) = aqueduct_isa::background_translations();
        settled = device.run_repeated(exe, kernel, case, repeats).map(drop);
        if settled.is_err() || aqueduct_isa::background_translations() == (requested, 0) {
            break;
        }
    }
    force_jit(None);
    settled?;
    wait();
    let out = device.run(exe, kernel, case)?;
    let views: Vec<&[u8]> = out.buffers.iter().map(Vec::as_slice).collect();
    case.check(&views)
}

/// A timed batch: its time, and of that the time workers ran workgroups.
#[derive(Clone, Copy, PartialEq, PartialOrd)]
struct Timed {
    batch: Duration,
    workgroups: Duration,
}

impl Timed {
    const MAX: Timed = Timed {
        batch: Duration::MAX,
        workgroups: Duration::MAX,
    };

    /// The faster batch.
    fn min(self, other: Timed) -> Timed {
        if other.batch < self.batch {
            other
        } else {
            self
        }
    }
}

/// The batch of `repeats` dispatches of `case` interpreted (translation
/// off), translated, and interpreted again; returns the translated batch
/// and the faster interpreted one. Alternating spreads a noisy moment of
/// the host over both ways.
fn against_interpreter(
    device: &runner::Device,
    exe: &hsa::Executable,
    kernel: &cases::Kernel,
    case: &cases::Case,
    repeats: u32,
) -> Result<(Timed, Timed), String> {
    let timed = |mode: Option<JitMode>| {
        force_jit(mode);
        let before = device.sim.stats().workgroup_nanos;
        let r = device.run_repeated(exe, kernel, case, repeats);
        let after = device.sim.stats().workgroup_nanos;
        force_jit(None);
        r.map(|(batch, _)| Timed {
            batch,
            workgroups: Duration::from_nanos(after - before),
        })
    };
    let interpreted = timed(Some(JitMode::Off))?;
    let translated = timed(None)?;
    let again = timed(Some(JitMode::Off))?;
    Ok((translated, interpreted.min(again)))
}

fn report_failures(failures: &[String]) {
    if !failures.is_empty() {
        println!("{} variant(s) failed and are not counted:", failures.len());
        for f in failures {
            println!("  {f}");
        }
    }
}

fn print_row(name: &str, opt: &str, t: &Tally) {
    let rate = t.wave_instructions as f64 / t.sim.as_secs_f64().max(1e-9);
    let sanitized = if t.sanitized.is_zero() {
        String::new()
    } else {
        format!(
            " {:>8.2}",
            t.sanitized.as_secs_f64() / t.sim.as_secs_f64().max(1e-9)
        )
    };
    let share = |n: u64| 100.0 * n as f64 / t.wave_instructions.max(1) as f64;
    let vs_interpreter = if t.interpreted.is_zero() {
        String::new()
    } else {
        format!(
            " {:>8.2}x {:>7.2}x",
            t.interpreted.as_secs_f64() / t.sim.as_secs_f64().max(1e-9),
            t.interpreted_loop.as_secs_f64() / t.sim_loop.as_secs_f64().max(1e-9)
        )
    };
    println!(
        "{name:<28} {opt:>3} {:>11} {:>10.2} {:>9.1} {:>10.3} {:>8.0} {:>6.1} {:>8.1} {:>9.1}{vs_interpreter}{sanitized}",
        t.wave_instructions,
        t.sim.as_secs_f64() * 1e3,
        rate / 1e6,
        t.reference.as_secs_f64() * 1e3,
        t.sim.as_secs_f64() / t.reference.as_secs_f64().max(1e-9),
        share(t.translated),
        share(t.translated - t.called_out),
        // No timed batch (`--once`): none counted.
        if t.block_entries == 0 {
            0.0
        } else {
            t.wave_instructions as f64 / t.block_entries as f64
        },
    );
}
