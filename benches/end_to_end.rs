//! Whole programs, Aqueduct against wgpu 30 on Mesa lavapipe: the wgpu
//! programs of benches/wgpu-peer/src/programs.rs (wgpu's hello_compute, a
//! 1M-element saxpy with upload and readback, a three-kernel reduction
//! pipeline run eight times with fresh uploads, a tiled 128×128 matrix
//! product, 1024 small dispatches over 256 buffers) run unchanged on
//! aqueduct-wgpu (gfxsim) and on lavapipe, in one process
//! (benches/wgpu-peer/src/end_to_end.rs), with results checked on the host.
//!
//! Printed per program: the cold run (empty shader caches: compilation
//! included) and the warm median (the program run again), each side and the
//! ratio; then the geometric means of the ratios. Opening the device is its
//! own row and is not in the means.
//! Run: `cargo bench --bench end_to_end` (`-- --quick` for fewer runs). The
//! machine is noisy: compare the ratios, not the absolute times.

#[path = "peer/mod.rs"]
mod peer;

fn main() {
    let quick = std::env::args().any(|a| a == "--quick");
    let runs = if quick { "2" } else { "5" };
    println!(
        "whole programs: aqueduct-wgpu on gfxsim vs wgpu 30 on lavapipe ({} cores here)",
        std::thread::available_parallelism().map_or(1, |c| c.get())
    );
    let v = match peer::run("end-to-end", &["--runs", runs]) {
        Ok(v) => v,
        Err(why) => {
            println!("{}", peer::unavailable(&why));
            return;
        }
    };
    println!("peer: {}", peer::adapter(&v));
    println!(
        "{:<18} {:>12} {:>12} {:>8}   {:>12} {:>12} {:>8}",
        "program", "aqueduct ms", "wgpu ms", "ratio", "cold aq ms", "cold wgpu ms", "ratio"
    );
    let (mut warm, mut cold) = (Vec::new(), Vec::new());
    for row in v["programs"].as_array().into_iter().flatten() {
        let name = row["name"].as_str().unwrap_or("?");
        let num = |k: &str| row[k].as_f64();
        let (Some(aq), Some(wg)) = (num("aqueduct_ms"), num("wgpu_ms")) else {
            println!("{name}: malformed row {row}");
            continue;
        };
        match (num("aqueduct_cold_ms"), num("wgpu_cold_ms")) {
            (Some(caq), Some(cwg)) => {
                println!(
                    "{name:<18} {aq:>12.2} {wg:>12.2} {:>8.3}   {caq:>12.2} {cwg:>12.2} {:>8.3}",
                    aq / wg,
                    caq / cwg
                );
                warm.push(aq / wg);
                cold.push(caq / cwg);
            }
            _ => println!("{name:<18} {aq:>12.2} {wg:>12.2} {:>8.3}", aq / wg),
        }
    }
    let geo = |r: &[f64]| (r.iter().map(|x| x.ln()).sum::<f64>() / r.len().max(1) as f64).exp();
    println!(
        "geometric mean aqueduct/wgpu: warm {:.3}, cold {:.3} ({} programs)",
        geo(&warm),
        geo(&cold),
        warm.len()
    );
}
