//! encode+submit with a distinct buffer and bind group per dispatch: the wgpu
//! side of `cargo bench --bench dispatch`'s "each binding its own buffer".
//!
//! Pattern (the aqueduct side mirrors it): `dispatches` 4-byte STORAGE
//! buffers, a bind group each, created untimed; one command encoder, one
//! compute pass, set_pipeline once, then per dispatch that buffer's
//! set_bind_group + dispatch_workgroups(1, 1, 1), finish, one queue.submit.
//! Timed from create_command_encoder to submit's return (host time only);
//! best of runs. Every buffer's counter is read back: each must equal the
//! number of times it was dispatched.

use std::time::{Duration, Instant};

use crate::gpu::Gpu;

const COUNTER_WGSL: &str = include_str!("../../shaders/bump.wgsl");

pub fn run(gpu: &Gpu, dispatches: u32, runs: usize) -> Result<serde_json::Value, String> {
    if dispatches == 0 || runs == 0 {
        return Err("distinct needs --dispatches > 0 and --runs > 0".into());
    }
    let pipeline = gpu.pipeline("counter", COUNTER_WGSL, "bump");
    let layout = pipeline.get_bind_group_layout(0);
    let buffers: Vec<wgpu::Buffer> = (0..dispatches)
        .map(|_| {
            gpu.buffer(
                "counter",
                4,
                wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
            )
        })
        .collect();
    let groups: Vec<wgpu::BindGroup> = buffers
        .iter()
        .map(|b| {
            gpu.device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: None,
                layout: &layout,
                entries: &[wgpu::BindGroupEntry {
                    binding: 0,
                    resource: b.as_entire_binding(),
                }],
            })
        })
        .collect();
    gpu.queue.submit([]);
    gpu.wait()?;
    let (mut best, mut best_encode) = (Duration::MAX, Duration::MAX);
    for _ in 0..runs {
        let start = Instant::now();
        let mut encoder = gpu
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor { label: None });
        {
            let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor::default());
            pass.set_pipeline(&pipeline);
            for g in &groups {
                pass.set_bind_group(0, g, &[]);
                pass.dispatch_workgroups(1, 1, 1);
            }
        }
        let commands = encoder.finish();
        best_encode = best_encode.min(start.elapsed());
        gpu.queue.submit([commands]);
        best = best.min(start.elapsed());
        gpu.wait()?;
    }
    // Every counter must read `runs`: gather them into one buffer and map it.
    let bytes = u64::from(dispatches) * 4;
    let staging = gpu.buffer(
        "counters readback",
        bytes,
        wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
    );
    let mut encoder = gpu
        .device
        .create_command_encoder(&wgpu::CommandEncoderDescriptor { label: None });
    for (i, b) in buffers.iter().enumerate() {
        encoder.copy_buffer_to_buffer(b, 0, &staging, i as u64 * 4, 4);
    }
    gpu.queue.submit([encoder.finish()]);
    let mut out = vec![0u8; bytes as usize];
    gpu.read_mapped(&staging, &mut out)?;
    if let Some((i, c)) = out
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .enumerate()
        .find(|&(_, c)| c != runs as u32)
    {
        return Err(format!(
            "counter {i} is {c} after {runs} runs: a dispatch did not run"
        ));
    }
    let per = |t: Duration| t.as_secs_f64() * 1e9 / f64::from(dispatches);
    Ok(serde_json::json!({
        "measurement": "distinct",
        "dispatches": dispatches,
        "runs": runs,
        "ns_per_dispatch": per(best),
        "encode_ns_per_dispatch": per(best_encode),
        "checked": true,
        "peer": gpu.describe(),
    }))
}
