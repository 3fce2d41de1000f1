//! The Aqueduct side of the HIP comparison (`cargo bench --bench hip`): the six workloads
//! of benches/hip/*.hip with the same kernels (the code objects clang-19 built from those
//! files), timed the way the HIP programs time them, on the device `AQUEDUCT_DEVICE`
//! chooses (a real GPU where /dev/kfd has one, else gfxsim). Every result is checked.
//!
//! Output: one `RESULT metric value unit` line per workload, the format the HIP programs
//! print, so benches/hip/run.sh joins both sides into one table. `-- --quick` for fewer
//! samples and smaller sizes. `AQUEDUCT_HIP_OBJECTS=DIR` loads the code objects from DIR
//! (run.sh builds them there for the machine's GPU); default: benches/hip/<the GPU's ISA>,
//! checked in for gfx1100, gfx942 and gfx90a.

mod workloads;

use std::path::PathBuf;
use std::time::Duration;

use aqueduct::DeviceChoice;
use workloads::*;

fn median(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times[times.len() / 2]
}

fn report(metric: &str, value: f64, unit: &str) {
    println!("RESULT {metric} {value:.3} {unit}");
}

fn samples<F: FnMut() -> Result<Duration, String>>(
    count: usize,
    mut f: F,
) -> Result<Duration, String> {
    f()?; // warm-up
    let times = (0..count).map(|_| f()).collect::<Result<Vec<_>, _>>()?;
    Ok(median(times))
}

fn main() -> Result<(), String> {
    let quick = std::env::args().any(|a| a == "--quick");
    let choice = DeviceChoice::from_env().map_err(|e| e.to_string())?;
    let gpu = Gpu::open(choice)?;
    let dir = std::env::var_os("AQUEDUCT_HIP_OBJECTS")
        .map(PathBuf::from)
        .unwrap_or_else(|| gpu.objects());
    eprintln!("aqueduct on {} ({})", gpu.info.name, gpu.info.driver_info);
    eprintln!("code objects from {}", dir.display());
    let (big, runs, many) = if quick {
        (1u32 << 18, 3, 20)
    } else {
        (16u32 << 20, 10, 200)
    };

    let empty = Empty::new(&gpu, &dir)?;
    let t = samples(many * 5, || empty.run(&gpu))?;
    report("empty_round_trip_us", t.as_secs_f64() * 1e6, "us");

    let bump = Bump::new(&gpu, &dir, DISPATCHES)?;
    let t = samples(runs, || {
        let t = bump.run(&gpu)?;
        bump.check(&gpu)?;
        Ok(t)
    })?;
    report(
        "dispatch_10k_us_per_dispatch",
        t.as_secs_f64() / f64::from(DISPATCHES) * 1e6,
        "us",
    );

    let saxpy = Saxpy::new(&gpu, &dir, big)?;
    let t = samples(runs, || saxpy.run(&gpu))?;
    saxpy.check(&gpu)?;
    report(
        "saxpy_gb_per_s",
        saxpy.bytes() as f64 / t.as_secs_f64() / 1e9,
        "GB/s",
    );

    let reduce = Reduce::new(&gpu, &dir, big)?;
    let t = samples(runs, || reduce.run(&gpu))?;
    reduce.check(&gpu)?;
    report(
        "reduce_gb_per_s",
        reduce.bytes() as f64 / t.as_secs_f64() / 1e9,
        "GB/s",
    );

    let mut readback = Readback::new(&gpu, &dir, 1 << 20)?;
    let mut seed = 0u32;
    let t = samples(many, || {
        seed = seed.wrapping_add(0x9e37_79b9);
        let t = readback.run(&gpu, seed)?;
        readback.check(seed)?;
        Ok(t)
    })?;
    report("readback_1mib_us", t.as_secs_f64() * 1e6, "us");

    let matmul = Matmul::new(&gpu, &dir, 256, 256, 256)?;
    let t = samples(if quick { 1 } else { runs }, || matmul.run(&gpu))?;
    matmul.check(&gpu)?;
    report(
        "matmul_gflop_per_s",
        matmul.flops() as f64 / t.as_secs_f64() / 1e9,
        "GFLOP/s",
    );
    Ok(())
}
