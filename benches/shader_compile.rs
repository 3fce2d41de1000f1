//! Shader compilation: creating 60 distinct small WGSL compute modules and
//! their pipelines (benches/wgpu-peer/src/compile_sources.rs) from run-time
//! WGSL, aqueduct (gfxsim) against wgpu 30 on Mesa lavapipe in one run,
//! ratios printed.
//!
//! - aqueduct cold, modules first: a new device over an empty on-disk
//!   shader cache (`AQUEDUCT_SHADER_CACHE` set to a fresh directory), every
//!   module created, then every pipeline: the modules wait after creation
//!   and the first pipeline compiles them all in one clang-19 and one
//!   ld.lld-19 run; each module's entry is stored.
//! - aqueduct cold, interleaved: each module's pipeline right after the
//!   module (the peer's order), over another empty directory: every
//!   pipeline compiles a batch of one module.
//! - aqueduct warm: a new device over the first directory, as a second run
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
use aqueduct::*;

/// The order a run creates modules and pipelines in.
#[derive(Clone, Copy, PartialEq)]
enum Order {
    /// Every module, then every pipeline.
    ModulesFirst,
    /// Each module's pipeline right after the module.
    Interleaved,
}

/// Creates the `count` modules and pipelines on a new gfxsim device whose
/// on-disk shader cache is `cache`; the time, the device's compiles and
/// its disk cache hits.
fn create_pipelines(sources: &[String], order: Order, cache: &Path) -> (Duration, u64, u64) {
    // SAFETY: set while no device (and so no thread but this one) exists:
    // the previous run's device is dropped.
    unsafe { std::env::set_var(SHADER_CACHE_ENV, cache) };
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
        device.wgsl_compiles(),
        device.wgsl_disk_cache_hits(),
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

    let (cold, cold_compiles, cold_hits) = create_pipelines(&sources, Order::ModulesFirst, &ours);
    let (interleaved, interleaved_compiles, interleaved_hits) =
        create_pipelines(&sources, Order::Interleaved, &interleaved_cache);
    let (warm, warm_compiles, warm_hits) = create_pipelines(&sources, Order::ModulesFirst, &ours);
    for (what, compiles, hits) in [
        ("cold run", cold_compiles, cold_hits),
        (
            "interleaved cold run",
            interleaved_compiles,
            interleaved_hits,
        ),
    ] {
        assert_eq!(
            (compiles, hits),
            (count as u64, 0),
            "the {what} compiles every module"
        );
    }
    assert_eq!(
        (warm_compiles, warm_hits),
        (count as u64, count as u64),
        "the warm run loads every module from the disk cache"
    );
    let per = |t: Duration| ms(t) / count as f64;
    println!(
        "aqueduct cold, modules first (one batch):      {:9.1} ms ({:.2} ms per pipeline)",
        ms(cold),
        per(cold)
    );
    println!(
        "aqueduct cold, interleaved (batches of one):   {:9.1} ms ({:.2} ms per pipeline)",
        ms(interleaved),
        per(interleaved)
    );
    println!(
        "aqueduct warm (disk cache hits):               {:9.1} ms ({:.3} ms per pipeline); warm/cold {:.4}",
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
                "aqueduct/wgpu: cold {:.2} (interleaved {:.2}), warm {:.2}; aqueduct warm / wgpu cold {:.2}",
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
