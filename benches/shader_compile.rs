//! Shader compilation: creating 60 distinct small WGSL compute modules and
//! their pipelines (benches/wgpu-peer/src/compile_sources.rs) from run-time
//! WGSL, aqueduct (gfxsim) against wgpu 30 on Mesa lavapipe in one run,
//! ratios printed.
//!
//! - aqueduct baseline, modules first and interleaved: the default; the
//!   baseline compiler (no LLVM) compiles each module at
//!   create_shader_module (every module here is one it covers).
//! - aqueduct LLVM (`AQUEDUCT_SHADER_BASELINE=off`) cold, modules first:
//!   a new device over an empty on-disk
//!   shader cache (`AQUEDUCT_SHADER_CACHE` set to a fresh directory), every
//!   module created, then every pipeline: the modules wait after creation
//!   and the first pipeline compiles them all in one clang-19 and one
//!   ld.lld-19 run; each module's entry is stored.
//! - aqueduct LLVM cold, interleaved: each module's pipeline right after the
//!   module (the peer's order), over another empty directory: every
//!   pipeline compiles a batch of one module.
//! - aqueduct LLVM warm: a new device over the first directory, as a second run
//!   of the program (modules first): every module loads from the cache.
//! - wgpu cold / warm: the peer's `pipelines` measurement (interleaved)
//!   twice, with MESA_SHADER_CACHE_DIR a fresh directory (lavapipe's own
//!   cache). Lavapipe compiles at pipeline creation, one pipeline at a
//!   time, so its time does not depend on the order.
//!
//! Timed from the first create_shader_module to the last
//! create_compute_pipeline's return; device creation is not timed.
//! Run: `cargo bench --bench shader_compile` (`-- --count N` modules).

use std::borrow::Cow;
use std::path::Path;
use std::time::{Duration, Instant};

#[path = "wgpu-peer/src/compile_sources.rs"]
mod compile_sources;
#[path = "peer/mod.rs"]
mod peer;

use aqueduct::shader_disk_cache::SHADER_CACHE_ENV;
use aqueduct::wgsl::SHADER_BASELINE_ENV;
use aqueduct::*;

/// The order a run creates modules and pipelines in.
#[derive(Clone, Copy, PartialEq)]
enum Order {
    /// Every module, then every pipeline.
    ModulesFirst,
    /// Each module's pipeline right after the module.
    Interleaved,
}

/// The counters of one run.
struct Counts {
    compiles: u64,
    disk_hits: u64,
    baseline: u64,
}

/// Creates the `count` modules and pipelines on a new gfxsim device whose
/// on-disk shader cache is `cache`, with the baseline compiler on or off;
/// the time and the device's counters.
fn create_pipelines(
    sources: &[String],
    order: Order,
    cache: &Path,
    baseline: bool,
) -> (Duration, Counts) {
    // SAFETY: set while no device (and so no thread but this one) exists:
    // the previous run's device is dropped.
    unsafe {
        std::env::set_var(SHADER_CACHE_ENV, cache);
        std::env::set_var(SHADER_BASELINE_ENV, if baseline { "on" } else { "off" });
    }
    let instance = Instance::with_device(DeviceChoice::Sim);
    let adapter = instance
        .request_adapter_sync(&RequestAdapterOptions::default())
        .expect("gfxsim adapter");
    let (device, _queue) = adapter
        .request_device_sync(&DeviceDescriptor::default())
        .expect("device");
    device.on_uncaptured_error(std::sync::Arc::new(|e| panic!("uncaptured error: {e}")));
    let labels: Vec<String> = (0..sources.len()).map(|i| format!("module {i}")).collect();
    let module = |i: usize| {
        device.create_shader_module(ShaderModuleDescriptor {
            label: Some(&labels[i]),
            source: ShaderSource::Wgsl(Cow::Borrowed(&sources[i])),
        })
    };
    let pipeline = |i: usize, module: &ShaderModule| {
        device.create_compute_pipeline(&ComputePipelineDescriptor {
            label: Some(&labels[i]),
            layout: None,
            module,
            entry_point: Some(compile_sources::ENTRY),
            compilation_options: Default::default(),
            cache: None,
        })
    };
    let start = Instant::now();
    let pipelines: Vec<ComputePipeline> = match order {
        Order::ModulesFirst => {
            let modules: Vec<ShaderModule> = (0..sources.len()).map(module).collect();
            modules
                .iter()
                .enumerate()
                .map(|(i, m)| pipeline(i, m))
                .collect()
        }
        Order::Interleaved => (0..sources.len())
            .map(|i| pipeline(i, &module(i)))
            .collect(),
    };
    let elapsed = start.elapsed();
    drop(pipelines);
    (
        elapsed,
        Counts {
            compiles: device.wgsl_compiles(),
            disk_hits: device.wgsl_disk_cache_hits(),
            baseline: device.wgsl_baseline_compiles(),
        },
    )
}

fn ms(t: Duration) -> f64 {
    t.as_secs_f64() * 1e3
}

/// The peer's `pipelines` time in ms, with Mesa's cache in `mesa_cache`.
fn peer_pipelines(count: usize, mesa_cache: &Path) -> Result<(f64, String), String> {
    let cache = mesa_cache.to_string_lossy().into_owned();
    let v = peer::run_with_env(
        "pipelines",
        &["--count", &count.to_string()],
        &[("MESA_SHADER_CACHE_DIR", cache.as_str())],
    )?;
    Ok((peer::number(&v, "total_ms")?, peer::adapter(&v)))
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let count: usize = args
        .iter()
        .position(|a| a == "--count")
        .and_then(|i| args.get(i + 1)?.parse().ok())
        .unwrap_or(60);
    let scratch = std::env::temp_dir().join(format!(
        "aqueduct-bench-shader-compile-{}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&scratch);
    let (ours, interleaved_cache, mesa) = (
        scratch.join("aqueduct"),
        scratch.join("aqueduct-interleaved"),
        scratch.join("mesa"),
    );
    if !aqueduct_shaderc::Toolchain::available() {
        println!("clang-19/ld.lld-19 not installed: nothing to measure");
        return;
    }
    println!(
        "shader compile: {count} WGSL modules + pipelines, aqueduct on gfxsim vs wgpu 30 on lavapipe ({} cores here)",
        std::thread::available_parallelism().map_or(1, |c| c.get())
    );
    let sources: Vec<String> = (0..count).map(compile_sources::module).collect();

    let (base_first, base_first_n) = create_pipelines(
        &sources,
        Order::ModulesFirst,
        &scratch.join("baseline"),
        true,
    );
    let (base_inter, base_inter_n) = create_pipelines(
        &sources,
        Order::Interleaved,
        &scratch.join("baseline"),
        true,
    );
    for n in [&base_first_n, &base_inter_n] {
        assert_eq!(
            (n.compiles, n.baseline, n.disk_hits),
            (count as u64, count as u64, 0),
            "the baseline compiler compiles every module"
        );
    }
    let (cold, cold_n) = create_pipelines(&sources, Order::ModulesFirst, &ours, false);
    let (interleaved, interleaved_n) =
        create_pipelines(&sources, Order::Interleaved, &interleaved_cache, false);
    let (warm, warm_n) = create_pipelines(&sources, Order::ModulesFirst, &ours, false);
    for (what, n) in [
        ("cold run", &cold_n),
        ("interleaved cold run", &interleaved_n),
    ] {
        assert_eq!(
            (n.compiles, n.disk_hits, n.baseline),
            (count as u64, 0, 0),
            "the LLVM {what} compiles every module"
        );
    }
    assert_eq!(
        (warm_n.compiles, warm_n.disk_hits),
        (count as u64, count as u64),
        "the warm run loads every module from the disk cache"
    );
    let per = |t: Duration| ms(t) / count as f64;
    println!(
        "aqueduct baseline, modules first:              {:9.1} ms ({:.3} ms per pipeline)",
        ms(base_first),
        per(base_first)
    );
    println!(
        "aqueduct baseline, interleaved:                {:9.1} ms ({:.3} ms per pipeline)",
        ms(base_inter),
        per(base_inter)
    );
    println!(
        "aqueduct LLVM cold, modules first (one batch): {:9.1} ms ({:.2} ms per pipeline)",
        ms(cold),
        per(cold)
    );
    println!(
        "aqueduct LLVM cold, interleaved (batches of 1):{:9.1} ms ({:.2} ms per pipeline)",
        ms(interleaved),
        per(interleaved)
    );
    println!(
        "aqueduct LLVM warm (disk cache hits):          {:9.1} ms ({:.3} ms per pipeline); warm/cold {:.4}",
        ms(warm),
        per(warm),
        ms(warm) / ms(cold)
    );

    let peer_runs = peer_pipelines(count, &mesa).and_then(|(cold_ms, adapter)| {
        let (warm_ms, _) = peer_pipelines(count, &mesa)?;
        Ok((cold_ms, warm_ms, adapter))
    });
    match peer_runs {
        Ok((peer_cold, peer_warm, adapter)) => {
            println!("wgpu peer: {adapter}");
            println!(
                "wgpu cold (empty Mesa cache):                  {peer_cold:9.1} ms ({:.2} ms per pipeline)",
                peer_cold / count as f64
            );
            println!(
                "wgpu warm (Mesa cache):                        {peer_warm:9.1} ms ({:.3} ms per pipeline)",
                peer_warm / count as f64
            );
            println!(
                "aqueduct/wgpu: baseline {:.2} (interleaved {:.2}); LLVM cold {:.2} (interleaved {:.2}), warm {:.2}; aqueduct LLVM warm / wgpu cold {:.2}",
                ms(base_first) / peer_cold,
                ms(base_inter) / peer_cold,
                ms(cold) / peer_cold,
                ms(interleaved) / peer_cold,
                ms(warm) / peer_warm,
                ms(warm) / peer_cold
            );
        }
        Err(why) => println!("{}", peer::unavailable(&why)),
    }
    let _ = std::fs::remove_dir_all(&scratch);
}
