//! Reading a GPU-written buffer back to host memory on lavapipe: the wgpu
//! side of the "1 MiB readback" figure, against a plain host memcpy of the
//! same size measured in the same process.
//!
//! Each sample: a kernel fills a STORAGE buffer with a seed-dependent
//! pattern, then two timings, each checked word for word:
//! - `map`: the GPU copy into the MAP_READ staging buffer has completed
//!   (untimed); timed are map_async + device.poll(wait) + copying the mapped
//!   bytes into a host Vec + unmap;
//! - `full`: after a fresh fill, timed are recording copy_buffer_to_buffer,
//!   submit, map_async + poll + copy out + unmap (the whole idiomatic wgpu
//!   readback of a storage buffer, which WebGPU cannot map directly).

use std::time::{Duration, Instant};

use crate::gpu::Gpu;
use crate::stats::{median, micros};

const FILL_WGSL: &str = r#"
struct Params { seed: u32, words: u32, _pad0: u32, _pad1: u32 }
@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read_write> out: array<u32>;

@compute @workgroup_size(256)
fn fill(@builtin(workgroup_id) wg: vec3<u32>,
        @builtin(num_workgroups) groups: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
    let i = (wg.y * groups.x + wg.x) * 256u + lid;
    if (i < params.words) {
        out[i] = (i * 2654435761u) ^ params.seed;
    }
}
"#;

fn expected_word(i: u32, seed: u32) -> u32 {
    i.wrapping_mul(2_654_435_761) ^ seed
}

fn check(bytes: &[u8], seed: u32) -> Result<(), String> {
    for (i, w) in bytes.chunks_exact(4).enumerate() {
        let got = u32::from_le_bytes([w[0], w[1], w[2], w[3]]);
        let want = expected_word(i as u32, seed);
        if got != want {
            return Err(format!(
                "readback word {i} is {got:#x}, expected {want:#x} (seed {seed})"
            ));
        }
    }
    Ok(())
}

pub fn run(gpu: &Gpu, bytes: u64, samples: usize) -> Result<serde_json::Value, String> {
    if bytes == 0 || !bytes.is_multiple_of(4) || samples == 0 {
        return Err("readback needs --bytes > 0, a multiple of 4, and --samples > 0".into());
    }
    let words = u32::try_from(bytes / 4).map_err(|_| "--bytes too large".to_string())?;
    let storage = gpu.buffer(
        "written by the GPU",
        bytes,
        wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
    );
    let staging = gpu.buffer(
        "staging",
        bytes,
        wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
    );
    let params = gpu.buffer(
        "params",
        16,
        wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
    );
    let pipeline = gpu.pipeline("fill", FILL_WGSL, "fill");
    let bind_group = gpu.device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some("fill"),
        layout: &pipeline.get_bind_group_layout(0),
        entries: &[
            wgpu::BindGroupEntry {
                binding: 0,
                resource: params.as_entire_binding(),
            },
            wgpu::BindGroupEntry {
                binding: 1,
                resource: storage.as_entire_binding(),
            },
        ],
    });
    let groups = words.div_ceil(256);
    let max_dim = gpu.device.limits().max_compute_workgroups_per_dimension;
    let rows = groups.div_ceil(max_dim).max(1);
    let grid = (groups.div_ceil(rows), rows);

    // GPU write of the pattern for `seed`, optionally followed by the copy
    // into the staging buffer; waited for, untimed.
    let fill = |seed: u32, copy: bool| -> Result<(), String> {
        let p = [seed, words, 0, 0];
        gpu.queue.write_buffer(&params, 0, bytemuck::cast_slice(&p));
        let mut encoder = gpu
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor { label: None });
        {
            let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor::default());
            pass.set_pipeline(&pipeline);
            pass.set_bind_group(0, &bind_group, &[]);
            pass.dispatch_workgroups(grid.0, grid.1, 1);
        }
        if copy {
            encoder.copy_buffer_to_buffer(&storage, 0, &staging, 0, bytes);
        }
        gpu.queue.submit([encoder.finish()]);
        gpu.wait()
    };

    let mut host = vec![0u8; bytes as usize];
    let mut map_times: Vec<Duration> = Vec::with_capacity(samples);
    let mut full_times: Vec<Duration> = Vec::with_capacity(samples);
    const WARM_UP: usize = 5;
    for i in 0..samples + WARM_UP {
        let seed = 2 * i as u32 + 1;
        fill(seed, true)?;
        let start = Instant::now();
        gpu.read_mapped(&staging, &mut host)?;
        let map_t = start.elapsed();
        check(&host, seed)?;

        fill(seed + 1, false)?;
        let start = Instant::now();
        let mut encoder = gpu
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor { label: None });
        encoder.copy_buffer_to_buffer(&storage, 0, &staging, 0, bytes);
        gpu.queue.submit([encoder.finish()]);
        gpu.read_mapped(&staging, &mut host)?;
        let full_t = start.elapsed();
        check(&host, seed + 1)?;
        if i >= WARM_UP {
            map_times.push(map_t);
            full_times.push(full_t);
        }
    }

    // Peer: a plain host memcpy of the same size, same process.
    let src: Vec<u8> = (0..bytes).map(|i| i as u8).collect();
    let mut memcpy_times: Vec<Duration> = Vec::with_capacity(samples);
    for i in 0..samples + WARM_UP {
        let start = Instant::now();
        host.copy_from_slice(std::hint::black_box(&src));
        std::hint::black_box(&mut host);
        let t = start.elapsed();
        if i >= WARM_UP {
            memcpy_times.push(t);
        }
    }

    let map = median(&map_times);
    let full = median(&full_times);
    let memcpy = median(&memcpy_times);
    Ok(serde_json::json!({
        "measurement": "readback",
        "bytes": bytes,
        "samples": samples,
        "median_us": micros(map),
        "full_median_us": micros(full),
        "memcpy_median_us": micros(memcpy),
        "ratio_to_memcpy": map.as_secs_f64() / memcpy.as_secs_f64(),
        "full_ratio_to_memcpy": full.as_secs_f64() / memcpy.as_secs_f64(),
        "timed": "median_us: map_async + poll(wait) + copy out + unmap of a staging buffer the GPU already filled; full_median_us: copy_buffer_to_buffer + submit + the same",
        "checked": true,
        "peer": gpu.describe(),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn check_finds_a_wrong_word() {
        let mut bytes: Vec<u8> = (0..64u32)
            .flat_map(|i| expected_word(i, 7).to_le_bytes())
            .collect();
        assert!(check(&bytes, 7).is_ok());
        assert!(check(&bytes, 8).is_err());
        bytes[40] ^= 1;
        assert!(check(&bytes, 7).unwrap_err().contains("word 10"));
    }
}
