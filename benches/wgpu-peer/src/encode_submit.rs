//! Host cost of recording and submitting many small dispatches: the wgpu side
//! of `cargo bench --bench dispatch`'s "encode+submit ns per dispatch".
//!
//! Pattern (the aqueduct side mirrors it): one command encoder, one compute
//! pass, set_pipeline once, then per dispatch set_bind_group +
//! dispatch_workgroups(1, 1, 1), finish, one queue.submit. Timed from
//! create_command_encoder to submit's return (host time only); the GPU work
//! is waited for untimed. The kernel bumps an atomic counter once per
//! workgroup, so the final count proves every dispatch ran.

use std::time::{Duration, Instant};

use crate::gpu::Gpu;

const COUNTER_WGSL: &str = r#"
@group(0) @binding(0) var<storage, read_write> counter: array<atomic<u32>>;

@compute @workgroup_size(64)
fn bump(@builtin(local_invocation_index) lid: u32) {
    if (lid == 0u) {
        atomicAdd(&counter[0], 1u);
    }
}
"#;

pub fn run(gpu: &Gpu, dispatches: u32, runs: usize) -> Result<serde_json::Value, String> {
    if dispatches == 0 || runs == 0 {
        return Err("encode-submit needs --dispatches > 0 and --runs > 0".into());
    }
    let counter = gpu.buffer(
        "counter",
        4,
        wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC | wgpu::BufferUsages::COPY_DST,
    );
    let staging = gpu.buffer(
        "counter readback",
        4,
        wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
    );
    gpu.queue.write_buffer(&counter, 0, &0u32.to_le_bytes());
    let pipeline = gpu.pipeline("counter", COUNTER_WGSL, "bump");
    let bind_group = gpu.device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some("counter"),
        layout: &pipeline.get_bind_group_layout(0),
        entries: &[wgpu::BindGroupEntry {
            binding: 0,
            resource: counter.as_entire_binding(),
        }],
    });

    // One untimed warm-up run (first-use allocations, lazy shader compile).
    let mut totals = Vec::with_capacity(runs);
    let mut encodes = Vec::with_capacity(runs);
    for run in 0..=runs {
        let start = Instant::now();
        let mut encoder = gpu
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor { label: None });
        {
            let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor::default());
            pass.set_pipeline(&pipeline);
            for _ in 0..dispatches {
                pass.set_bind_group(0, &bind_group, &[]);
                pass.dispatch_workgroups(1, 1, 1);
            }
        }
        let commands = encoder.finish();
        let encoded = start.elapsed();
        gpu.queue.submit([commands]);
        let total = start.elapsed();
        gpu.wait()?;
        if run > 0 {
            totals.push(total);
            encodes.push(encoded);
        }
    }

    let mut encoder = gpu
        .device
        .create_command_encoder(&wgpu::CommandEncoderDescriptor { label: None });
    encoder.copy_buffer_to_buffer(&counter, 0, &staging, 0, 4);
    gpu.queue.submit([encoder.finish()]);
    let mut out = [0u8; 4];
    gpu.read_mapped(&staging, &mut out)?;
    let count = u32::from_le_bytes(out);
    let expected = dispatches * (runs as u32 + 1);
    if count != expected {
        return Err(format!(
            "counter is {count} after {expected} dispatches: some did not run"
        ));
    }

    let per = |t: Duration| t.as_secs_f64() * 1e9 / dispatches as f64;
    let best = (0..runs).min_by_key(|&i| totals[i]).unwrap_or(0);
    Ok(serde_json::json!({
        "measurement": "encode-submit",
        "dispatches": dispatches,
        "runs": runs,
        "pattern": "one encoder, one compute pass, set_pipeline once; per dispatch set_bind_group + dispatch_workgroups(1,1,1); finish; one submit",
        "ns_per_dispatch": per(totals[best]),
        "median_ns_per_dispatch": per(crate::stats::median(&totals)),
        "encode_ns_per_dispatch": per(encodes[best]),
        "submit_ns_per_dispatch": per(totals[best] - encodes[best]),
        "checked": true,
        "peer": gpu.describe(),
    }))
}
