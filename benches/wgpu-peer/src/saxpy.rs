//! saxpy (y = a·x + y) over n f32 on lavapipe: the peer of gfxsim's saxpy
//! (benches/gfxsim.rs, kernels/src). Same data (x[i] = i mod 1000, y = 1,
//! a = 2), workgroups of 256, and the same figure: GB/s at 12 bytes per
//! element (read x, read y, write y), best of `runs` timed dispatches,
//! each timed from submit to completion observed by `device.poll`, uploads
//! excluded. One untimed warm-up dispatch first (lavapipe compiles the
//! shader lazily). Every element of y is read back and checked exactly.

use std::time::{Duration, Instant};

use crate::gpu::Gpu;

/// 16M elements need 65536 workgroups of 256, one more than the per-dimension
/// limit, so the grid is 2D and the shader flattens it.
const SAXPY_WGSL: &str = r#"
struct Params { a: f32, n: u32, _pad0: u32, _pad1: u32 }
@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> x: array<f32>;
@group(0) @binding(2) var<storage, read_write> y: array<f32>;

@compute @workgroup_size(256)
fn saxpy(@builtin(workgroup_id) wg: vec3<u32>,
         @builtin(num_workgroups) groups: vec3<u32>,
         @builtin(local_invocation_index) lid: u32) {
    let i = (wg.y * groups.x + wg.x) * 256u + lid;
    if (i < params.n) {
        y[i] = params.a * x[i] + y[i];
    }
}
"#;

const A: f32 = 2.0;

/// Workgroup grid (x, y) covering `groups` with x ≤ `max_dim`, no idle rows.
fn grid(groups: u32, max_dim: u32) -> (u32, u32) {
    let rows = groups.div_ceil(max_dim).max(1);
    (groups.div_ceil(rows), rows)
}

pub fn run(gpu: &Gpu, n: u32, runs: usize) -> Result<serde_json::Value, String> {
    if n == 0 || runs == 0 {
        return Err("saxpy needs --n > 0 and --runs > 0".into());
    }
    let bytes = n as u64 * 4;
    let x_host: Vec<f32> = (0..n).map(|i| (i % 1000) as f32).collect();
    let y_host = vec![1.0f32; n as usize];
    let storage = wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST;
    let x = gpu.buffer("x", bytes, storage);
    let y = gpu.buffer("y", bytes, storage | wgpu::BufferUsages::COPY_SRC);
    let params = gpu.buffer(
        "params",
        16,
        wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
    );
    let staging = gpu.buffer(
        "y readback",
        bytes,
        wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
    );
    gpu.queue.write_buffer(&x, 0, bytemuck::cast_slice(&x_host));
    gpu.queue.write_buffer(&y, 0, bytemuck::cast_slice(&y_host));
    let p: [u32; 4] = [A.to_bits(), n, 0, 0];
    gpu.queue.write_buffer(&params, 0, bytemuck::cast_slice(&p));
    gpu.queue.submit([]);
    gpu.wait()?;

    let pipeline = gpu.pipeline("saxpy", SAXPY_WGSL, "saxpy");
    let bind_group = gpu.device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some("saxpy"),
        layout: &pipeline.get_bind_group_layout(0),
        entries: &[
            wgpu::BindGroupEntry {
                binding: 0,
                resource: params.as_entire_binding(),
            },
            wgpu::BindGroupEntry {
                binding: 1,
                resource: x.as_entire_binding(),
            },
            wgpu::BindGroupEntry {
                binding: 2,
                resource: y.as_entire_binding(),
            },
        ],
    });
    let max_dim = gpu.device.limits().max_compute_workgroups_per_dimension;
    let (gx, gy) = grid(n.div_ceil(256), max_dim);

    let mut times: Vec<Duration> = Vec::with_capacity(runs);
    for run in 0..=runs {
        let mut encoder = gpu
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor { label: None });
        {
            let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor::default());
            pass.set_pipeline(&pipeline);
            pass.set_bind_group(0, &bind_group, &[]);
            pass.dispatch_workgroups(gx, gy, 1);
        }
        let commands = encoder.finish();
        let start = Instant::now();
        gpu.queue.submit([commands]);
        gpu.wait()?;
        let elapsed = start.elapsed();
        if run > 0 {
            times.push(elapsed);
        }
    }

    // Check every element: y = 1 + (runs + 1 warm-up) · a · x, exact in f32
    // for these small integers whichever way the driver rounds or fuses.
    let mut encoder = gpu
        .device
        .create_command_encoder(&wgpu::CommandEncoderDescriptor { label: None });
    encoder.copy_buffer_to_buffer(&y, 0, &staging, 0, bytes);
    gpu.queue.submit([encoder.finish()]);
    let mut out = vec![0u8; bytes as usize];
    gpu.read_mapped(&staging, &mut out)?;
    let out: &[f32] = bytemuck::cast_slice(&out);
    let dispatches = (runs + 1) as f32;
    if let Some((i, (&got, &xi))) = out
        .iter()
        .zip(&x_host)
        .enumerate()
        .find(|(_, (got, xi))| **got != 1.0 + dispatches * A * **xi)
    {
        return Err(format!(
            "saxpy result wrong at {i}: got {got}, expected {}",
            1.0 + dispatches * A * xi
        ));
    }

    let best = times.iter().min().copied().unwrap_or_default();
    let gbs = |t: Duration| 12.0 * n as f64 / t.as_secs_f64() / 1e9;
    Ok(serde_json::json!({
        "measurement": "saxpy",
        "n": n,
        "runs": runs,
        "workgroup_size": 256,
        "grid": [gx, gy, 1],
        "bytes_per_element": 12,
        "gbs": gbs(best),
        "best_s": best.as_secs_f64(),
        "all_s": times.iter().map(Duration::as_secs_f64).collect::<Vec<_>>(),
        "checked": true,
        "peer": gpu.describe(),
    }))
}

#[cfg(test)]
mod tests {
    use super::grid;

    #[test]
    fn grid_covers_without_idle_rows() {
        assert_eq!(grid(65536, 65535), (32768, 2));
        assert_eq!(grid(4096, 65535), (4096, 1));
        assert_eq!(grid(1, 65535), (1, 1));
        let (x, y) = grid(200_001, 65535);
        assert!(x <= 65535 && x as u64 * y as u64 >= 200_001);
        assert!((x as u64) * (y as u64 - 1) < 200_001);
    }
}
