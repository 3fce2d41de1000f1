//! Compute-bound kernels, Aqueduct against wgpu 30 on Mesa lavapipe: a
//! transcendental loop (1M invocations, 32 rounds of sqrt, exp and
//! multiply-add each), a tiled 512×512 matrix product and an n-body step
//! (4096 bodies) of benches/wgpu-peer/src/compute.rs run unchanged on
//! aqueduct-wgpu (gfxsim) and on lavapipe, in one process, with results
//! checked on the host.
//!
//! Printed per kernel: the median of warm dispatch+wait times on each side
//! (after a warm-up dispatch that compiles shaders and fills gfxsim's
//! translation cache; compilation is not timed), and Aqueduct's speed
//! relative to lavapipe, wgpu ms / aqueduct ms (1.0 or more: Aqueduct is at
//! least as fast); then the geometric mean of those speeds. The peer links aqueduct-wgpu with
//! the translator (`llvm-jit`): `AQUEDUCT_SIM_JIT` unset is tiered
//! translation, `AQUEDUCT_SIM_JIT=0` the interpreter's figure,
//! `AQUEDUCT_SIM_JIT_BACKEND` picks the back end; the engine that ran is
//! printed. Run: `cargo bench --bench compute` (`-- --quick` for smaller
//! problems and fewer runs). The machine is noisy: compare the ratios.

#[path = "peer/mod.rs"]
mod peer;

fn main() {
    let quick = std::env::args().any(|a| a == "--quick");
    let (runs, quick_flag) = if quick { ("3", "1") } else { ("9", "0") };
    println!(
        "compute-bound kernels: aqueduct-wgpu on gfxsim vs wgpu 30 on lavapipe ({} cores here)",
        std::thread::available_parallelism().map_or(1, |c| c.get())
    );
    let v = match peer::run("compute", &["--runs", runs, "--quick", quick_flag]) {
        Ok(v) => v,
        Err(why) => {
            println!("{}", peer::unavailable(&why));
            return;
        }
    };
    println!("peer: {}", peer::adapter(&v));
    println!(
        "aqueduct engine: {}",
        v["aqueduct_engine"].as_str().unwrap_or("?")
    );
    println!(
        "{:<16} {:>12} {:>12} {:>8}  {:<}",
        "kernel", "aqueduct ms", "wgpu ms", "speed", "work"
    );
    let mut ratios = Vec::new();
    for row in v["kernels"].as_array().into_iter().flatten() {
        let name = row["name"].as_str().unwrap_or("?");
        let (Some(aq), Some(wg)) = (row["aqueduct_ms"].as_f64(), row["wgpu_ms"].as_f64()) else {
            println!("{name}: malformed row {row}");
            continue;
        };
        println!(
            "{name:<16} {aq:>12.2} {wg:>12.2} {:>8.3}  {}",
            wg / aq,
            row["work"].as_str().unwrap_or("")
        );
        ratios.push(wg / aq);
    }
    let geo = (ratios.iter().map(|x| x.ln()).sum::<f64>() / ratios.len().max(1) as f64).exp();
    println!(
        "geometric mean of speed (wgpu ms / aqueduct ms; 1.0 or more: aqueduct as fast): {geo:.3} ({} kernels)",
        ratios.len()
    );
}
