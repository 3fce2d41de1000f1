//! Pipeline creation on lavapipe: the wgpu side of the shader-compile
//! benchmark. Creates `count` shader modules (compile_sources.rs) and a
//! compute pipeline for each (layout derived from the shader), timed from
//! the first create_shader_module to the last create_compute_pipeline's
//! return. Mesa's own shader cache applies: the bench points
//! MESA_SHADER_CACHE_DIR at an empty directory for a cold run and runs
//! again for a warm one.

use std::time::Instant;

use crate::compile_sources;
use crate::gpu::Gpu;

pub fn run(gpu: &Gpu, count: usize) -> Result<serde_json::Value, String> {
    if count == 0 {
        return Err("pipelines needs --count > 0".into());
    }
    let sources: Vec<String> = (0..count).map(compile_sources::module).collect();
    let start = Instant::now();
    let pipelines: Vec<wgpu::ComputePipeline> = sources
        .iter()
        .enumerate()
        .map(|(i, text)| gpu.pipeline(&format!("module {i}"), text, compile_sources::ENTRY))
        .collect();
    let elapsed = start.elapsed();
    drop(pipelines);
    Ok(serde_json::json!({
        "measurement": "pipelines",
        "count": count,
        "total_ms": elapsed.as_secs_f64() * 1e3,
        "per_pipeline_ms": elapsed.as_secs_f64() * 1e3 / count as f64,
        "timed": "create_shader_module + create_compute_pipeline (auto layout) per module",
        "mesa_shader_cache_dir": std::env::var("MESA_SHADER_CACHE_DIR").ok(),
        "peer": gpu.describe(),
    }))
}
