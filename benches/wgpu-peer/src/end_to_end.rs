//! Whole programs on both sides: the engine of `cargo bench --bench
//! end_to_end`. Each program of `programs.rs` runs, unchanged, on Aqueduct
//! (gfxsim, through aqueduct-wgpu) and on wgpu's Vulkan backend over
//! lavapipe, in this one process, alternating sides run by run so that
//! machine noise falls on both.
//!
//! Per program: the first run on each side is "cold" (its shaders were
//! never compiled: both shader caches start empty in a fresh directory);
//! then `runs` more runs, whose median is the "warm" time (what a program
//! run again costs: Aqueduct loads its code objects from its disk cache).
//! Opening the device (instance, adapter, device) is timed apart, as the
//! "device_open" row. Every run checks its result on the host.

use std::time::{Duration, Instant};

use crate::gpu::Gpu;
use crate::programs::PROGRAMS;

/// The Aqueduct side: a wgpu device of aqueduct-wgpu's instance.
fn open_aqueduct() -> Result<(wgpu::Device, wgpu::Queue), String> {
    let instance = aqueduct_wgpu::instance();
    let adapter =
        pollster::block_on(instance.request_adapter(&wgpu::RequestAdapterOptions::default()))
            .map_err(|e| format!("aqueduct-wgpu request_adapter: {e}"))?;
    pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor::default()))
        .map_err(|e| format!("aqueduct-wgpu request_device: {e}"))
}

fn timed(f: impl FnOnce() -> Result<(), String>) -> Result<Duration, String> {
    let start = Instant::now();
    f()?;
    Ok(start.elapsed())
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// Fresh, empty shader-cache directories for both sides, removed on drop.
pub struct FreshCaches(std::path::PathBuf);

impl Drop for FreshCaches {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Points both shader caches at new empty directories, so the first run of
/// each program compiles on both sides.
///
/// # Safety
/// Call before any other thread exists (it sets environment variables).
pub unsafe fn fresh_caches() -> Result<FreshCaches, String> {
    let scratch = std::env::temp_dir().join(format!("aqueduct-e2e-{}", std::process::id()));
    let aq_cache = scratch.join("aqueduct");
    let mesa_cache = scratch.join("mesa");
    std::fs::create_dir_all(&aq_cache).map_err(|e| format!("{}: {e}", aq_cache.display()))?;
    std::fs::create_dir_all(&mesa_cache).map_err(|e| format!("{}: {e}", mesa_cache.display()))?;
    // SAFETY: the caller guarantees this thread is the only one.
    unsafe {
        std::env::set_var("AQUEDUCT_SHADER_CACHE", &aq_cache);
        std::env::set_var("MESA_SHADER_CACHE_DIR", &mesa_cache);
    }
    Ok(FreshCaches(scratch))
}

/// Runs every program, or only the one named `only` (for a profiler).
pub fn run(lavapipe: &Gpu, runs: usize, only: Option<&str>) -> Result<serde_json::Value, String> {
    if runs == 0 {
        return Err("--runs must be > 0".into());
    }
    if let Some(name) = only
        && !PROGRAMS.iter().any(|p| p.name == name)
    {
        let known: Vec<&str> = PROGRAMS.iter().map(|p| p.name).collect();
        return Err(format!("--only {name:?}: no such program (known: {})", known.join(", ")));
    }
    let mut open_aq = Vec::new();
    let mut open_wg = Vec::new();
    for _ in 0..runs.max(3) {
        open_aq.push(timed(|| open_aqueduct().map(drop))?);
        open_wg.push(timed(|| Gpu::open().map(drop))?);
    }
    let (aq_device, aq_queue) = open_aqueduct()?;
    let mut rows = vec![serde_json::json!({
        "name": "device_open",
        "aqueduct_ms": ms(crate::stats::median(&open_aq)),
        "wgpu_ms": ms(crate::stats::median(&open_wg)),
    })];
    for program in PROGRAMS.iter().filter(|p| only.is_none_or(|o| o == p.name)) {
        let on_aq = || {
            (program.run)(&aq_device, &aq_queue)
                .map_err(|e| format!("{} on aqueduct: {e}", program.name))
        };
        let on_wg = || {
            (program.run)(&lavapipe.device, &lavapipe.queue)
                .map_err(|e| format!("{} on wgpu: {e}", program.name))
        };
        let cold_aq = timed(on_aq)?;
        let cold_wg = timed(on_wg)?;
        let (mut aq, mut wg) = (Vec::new(), Vec::new());
        for _ in 0..runs {
            aq.push(timed(on_aq)?);
            wg.push(timed(on_wg)?);
        }
        rows.push(serde_json::json!({
            "name": program.name,
            "aqueduct_cold_ms": ms(cold_aq),
            "wgpu_cold_ms": ms(cold_wg),
            "aqueduct_ms": ms(crate::stats::median(&aq)),
            "wgpu_ms": ms(crate::stats::median(&wg)),
        }));
    }
    Ok(serde_json::json!({
        "measurement": "end-to-end",
        "runs": runs,
        "programs": rows,
        "peer": lavapipe.describe(),
    }))
}
