//! Per-workgroup cost: the wgpu side of `cargo bench --bench workgroups`.
//!
//! - tiny: one dispatch of `groups` one-invocation workgroups, each writing
//!   its flat index + 1 (benches/shaders/tiny_groups.wgsl); every word is
//!   checked.
//! - zero-init: the workload of wgpu's zero-initialised workgroup memory
//!   test (benches/shaders/zero_init.wgsl): `groups` one-invocation
//!   workgroups of a kernel that dirties 2 KiB of workgroup memory, then the
//!   same count of a kernel that flags any non-zero word of it; every flag
//!   must be 0.
//!
//! Timed: encode + submit + wait of the dispatches (median of `runs`); the
//! pipelines are created and warmed up untimed.

use std::time::Instant;

use crate::gpu::Gpu;

const TINY_WGSL: &str = include_str!("../../shaders/tiny_groups.wgsl");
const ZERO_INIT_WGSL: &str = include_str!("../../shaders/zero_init.wgsl");

/// A grid of `groups` workgroups: x up to 65535, then y.
pub fn grid(groups: u32) -> Result<[u32; 3], String> {
    if groups == 0 {
        return Err("--groups must be > 0".into());
    }
    let x = groups.min(65535);
    if !groups.is_multiple_of(x) {
        return Err(format!(
            "--groups {groups}: above 65535 it must be a multiple of 65535"
        ));
    }
    Ok([x, groups / x, 1])
}

fn bind(gpu: &Gpu, pipeline: &wgpu::ComputePipeline, buffer: &wgpu::Buffer) -> wgpu::BindGroup {
    gpu.device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: None,
        layout: &pipeline.get_bind_group_layout(0),
        entries: &[wgpu::BindGroupEntry {
            binding: 0,
            resource: buffer.as_entire_binding(),
        }],
    })
}

/// Runs `passes` (pipeline, bind group 0 if any) dispatches of `grid` in one encoder,
/// submits and waits; returns the seconds it took.
fn timed(
    gpu: &Gpu,
    passes: &[(&wgpu::ComputePipeline, Option<&wgpu::BindGroup>)],
    g: [u32; 3],
) -> Result<f64, String> {
    let start = Instant::now();
    let mut encoder = gpu
        .device
        .create_command_encoder(&wgpu::CommandEncoderDescriptor { label: None });
    {
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor::default());
        for (p, bg) in passes {
            pass.set_pipeline(p);
            if let Some(bg) = bg {
                pass.set_bind_group(0, *bg, &[]);
            }
            pass.dispatch_workgroups(g[0], g[1], g[2]);
        }
    }
    gpu.queue.submit([encoder.finish()]);
    gpu.wait()?;
    Ok(start.elapsed().as_secs_f64())
}

fn read_words(gpu: &Gpu, buffer: &wgpu::Buffer, words: u32) -> Result<Vec<u32>, String> {
    let bytes = u64::from(words) * 4;
    let staging = gpu.buffer(
        "readback",
        bytes,
        wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
    );
    let mut encoder = gpu
        .device
        .create_command_encoder(&wgpu::CommandEncoderDescriptor { label: None });
    encoder.copy_buffer_to_buffer(buffer, 0, &staging, 0, bytes);
    gpu.queue.submit([encoder.finish()]);
    let mut out = vec![0u8; bytes as usize];
    gpu.read_mapped(&staging, &mut out)?;
    Ok(out
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect())
}

pub fn run(gpu: &Gpu, kernel: &str, groups: u32, runs: usize) -> Result<serde_json::Value, String> {
    if runs == 0 {
        return Err("--runs must be > 0".into());
    }
    let g = grid(groups)?;
    let out = gpu.buffer(
        "out",
        u64::from(groups) * 4,
        wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
    );
    let mut times = Vec::with_capacity(runs);
    match kernel {
        "tiny" => {
            let p = gpu.pipeline("tiny", TINY_WGSL, "tiny");
            let bg = bind(gpu, &p, &out);
            let passes = [(&p, Some(&bg))];
            timed(gpu, &passes, g)?;
            for _ in 0..runs {
                times.push(timed(gpu, &passes, g)?);
            }
            let words = read_words(gpu, &out, groups)?;
            if let Some(i) = (0..groups).find(|&i| words[i as usize] != i + 1) {
                return Err(format!(
                    "tiny: word {i} is {} (expected {})",
                    words[i as usize],
                    i + 1
                ));
            }
        }
        "zero-init" => {
            let write = gpu.pipeline("zero-init write", ZERO_INIT_WGSL, "write");
            let read = gpu.pipeline("zero-init read", ZERO_INIT_WGSL, "read");
            // The write kernel binds nothing.
            let bg = bind(gpu, &read, &out);
            let passes = [(&write, None), (&read, Some(&bg))];
            timed(gpu, &passes, g)?;
            for _ in 0..runs {
                times.push(timed(gpu, &passes, g)?);
            }
            let words = read_words(gpu, &out, groups)?;
            if let Some(i) = words.iter().position(|&w| w != 0) {
                return Err(format!(
                    "zero-init: workgroup {i} saw non-zero workgroup memory"
                ));
            }
        }
        other => return Err(format!("--kernel {other:?}: expected tiny or zero-init")),
    }
    let times: Vec<std::time::Duration> = times
        .into_iter()
        .map(std::time::Duration::from_secs_f64)
        .collect();
    let median = crate::stats::median(&times).as_secs_f64();
    let dispatched = if kernel == "tiny" { groups } else { 2 * groups };
    Ok(serde_json::json!({
        "measurement": "workgroups",
        "kernel": kernel,
        "groups": groups,
        "runs": runs,
        "median_s": median,
        "ns_per_workgroup": median * 1e9 / f64::from(dispatched),
        "checked": true,
        "peer": gpu.describe(),
    }))
}
