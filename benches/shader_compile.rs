//! Shader compilation: creating 60 distinct small WGSL compute modules and
//! their pipelines (benches/wgpu-peer/src/compile_sources.rs) from run-time
//! WGSL, aqueduct (gfxsim) against wgpu 30 on Mesa lavapipe in one run,
//! ratios printed.
//!
//! - aqueduct cold: a new device over an empty on-disk shader cache
//!   (`AQUEDUCT_SHADER_CACHE` set to a fresh directory): every module runs
//!   clang-19 and ld.lld-19, and its entry is stored.
//! - aqueduct warm: another new device over the same directory, as a second
//!   run of the program: every module loads from the cache.
//! - wgpu cold / warm: the peer's `pipelines` measurement twice, with
//!   MESA_SHADER_CACHE_DIR a fresh directory (lavapipe's own cache).
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

/// Creates the `count` modules and pipelines on a new gfxsim device; the
/// time, the device's compiles and its disk cache hits.
fn create_pipelines(sources: &[String]) -> (Duration, u64, u64) {
    let instance = Instance::with_device(DeviceChoice::Sim);
    let adapter = instance
        .request_adapter_sync(&RequestAdapterOptions::default())
        .expect("gfxsim adapter");
    let (device, _queue) = adapter
        .request_device_sync(&DeviceDescriptor::default())
        .expect("device");
    device.on_uncaptured_error(std::sync::Arc::new(|e| panic!("uncaptured error: {e}")));
    let start = Instant::now();
    let pipelines: Vec<ComputePipeline> = sources
        .iter()
        .enumerate()
        .map(|(i, text)| {
            let label = format!("module {i}");
            let module = device.create_shader_module(ShaderModuleDescriptor {
                label: Some(&label),
                source: ShaderSource::Wgsl(Cow::Borrowed(text)),
            });
            device.create_compute_pipeline(&ComputePipelineDescriptor {
                label: Some(&label),
                layout: None,
                module: &module,
                entry_point: Some(compile_sources::ENTRY),
                compilation_options: Default::default(),
                cache: None,
            })
        })
        .collect();
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
    let (ours, mesa) = (scratch.join("aqueduct"), scratch.join("mesa"));
    // SAFETY: set before any device (and so any other thread) exists.
    unsafe { std::env::set_var(SHADER_CACHE_ENV, &ours) };
    if !aqueduct_shaderc::Toolchain::available() {
        println!("clang-19/ld.lld-19 not installed: nothing to measure");
        return;
    }
    println!(
        "shader compile: {count} WGSL modules + pipelines, aqueduct on gfxsim vs wgpu 30 on lavapipe ({} cores here)",
        std::thread::available_parallelism().map_or(1, |c| c.get())
    );
    let sources: Vec<String> = (0..count).map(compile_sources::module).collect();

    let (cold, cold_compiles, cold_hits) = create_pipelines(&sources);
    let (warm, warm_compiles, warm_hits) = create_pipelines(&sources);
    assert_eq!(
        (cold_compiles, cold_hits),
        (count as u64, 0),
        "the cold run compiles every module"
    );
    assert_eq!(
        (warm_compiles, warm_hits),
        (count as u64, count as u64),
        "the warm run loads every module from the disk cache"
    );
    let per = |t: Duration| ms(t) / count as f64;
    println!(
        "aqueduct cold (empty disk cache): {:9.1} ms ({:.2} ms per pipeline)",
        ms(cold),
        per(cold)
    );
    println!(
        "aqueduct warm (disk cache hits):  {:9.1} ms ({:.3} ms per pipeline); warm/cold {:.4}",
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
                "wgpu cold (empty Mesa cache):     {peer_cold:9.1} ms ({:.2} ms per pipeline)",
                peer_cold / count as f64
            );
            println!(
                "wgpu warm (Mesa cache):           {peer_warm:9.1} ms ({:.3} ms per pipeline)",
                peer_warm / count as f64
            );
            println!(
                "aqueduct/wgpu: cold {:.2}, warm {:.2}; aqueduct warm / wgpu cold {:.2}",
                ms(cold) / peer_cold,
                ms(warm) / peer_warm,
                ms(warm) / peer_cold
            );
        }
        Err(why) => println!("{}", peer::unavailable(&why)),
    }
    let _ = std::fs::remove_dir_all(&scratch);
}
