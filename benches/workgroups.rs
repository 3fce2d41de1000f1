//! Per-workgroup cost: aqueduct (on gfxsim) against wgpu 30 on Mesa
//! lavapipe, the same work through both in one run, printed with the ratio.
//!
//! - tiny: one dispatch of N one-invocation workgroups, each writing its
//!   flat index + 1 (benches/shaders/tiny_groups.wgsl): what a workgroup
//!   costs the device when it does almost nothing.
//! - zero-init: the workload of wgpu's zero-initialised workgroup memory
//!   test (benches/shaders/zero_init.wgsl): N one-invocation workgroups
//!   dirty 2 KiB of workgroup memory, then N more check that theirs reads as
//!   zero. The device's cost per workgroup plus a scalar loop of ~1800 wave
//!   instructions in each.
//!
//! Timed: encode + submit + wait of the dispatches, median of runs, after an
//! untimed warm-up; every output word is checked on the host. The wgpu side
//! is benches/wgpu-peer/src/workgroups.rs with the same WGSL; aqueduct runs
//! it precompiled (benches/shaders/build.sh).
//! Run: `cargo bench --bench workgroups` (`-- --quick`; `-- --groups N`
//! with N ≤ 65535 or a multiple of it; `-- --only tiny|zero-init` runs one
//! aqueduct part alone, for a profiler). The machine is noisy: compare the
//! ratios, not the absolute times.

use std::time::{Duration, Instant};

#[path = "peer/mod.rs"]
mod peer;

use aqueduct::*;

fn grid(groups: u32) -> [u32; 3] {
    let x = groups.clamp(1, 65535);
    assert!(
        groups.is_multiple_of(x),
        "--groups {groups}: above 65535 it must be a multiple of 65535"
    );
    [x, groups / x, 1]
}

/// Runs `passes` dispatches of `g` in one encoder, submits and waits.
fn timed(
    device: &Device,
    queue: &Queue,
    passes: &[(&ComputePipeline, Option<&BindGroup>)],
    g: [u32; 3],
) -> Duration {
    let start = Instant::now();
    let mut encoder = device.create_command_encoder(&CommandEncoderDescriptor { label: None });
    {
        let mut pass = encoder.begin_compute_pass(&ComputePassDescriptor::default());
        for (p, bg) in passes {
            pass.set_pipeline(p);
            if let Some(bg) = bg {
                pass.set_bind_group(0, *bg, &[]);
            }
            pass.dispatch_workgroups(g[0], g[1], g[2]);
        }
    }
    queue.submit([encoder.finish()]);
    device
        .poll(PollType::wait_indefinitely())
        .expect("poll(wait)");
    start.elapsed()
}

fn read_words(device: &Device, queue: &Queue, buffer: &Buffer, words: u32) -> Vec<u32> {
    let bytes = u64::from(words) * 4;
    let staging = device.create_buffer(&BufferDescriptor {
        label: Some("readback"),
        size: bytes,
        usage: BufferUsages::MAP_READ | BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    let mut encoder = device.create_command_encoder(&CommandEncoderDescriptor { label: None });
    encoder.copy_buffer_to_buffer(buffer, 0, &staging, 0, bytes);
    queue.submit([encoder.finish()]);
    staging.map_async(MapMode::Read, .., |r| r.expect("map"));
    device
        .poll(PollType::wait_indefinitely())
        .expect("poll(wait)");
    let words = staging
        .get_mapped_range(..)
        .expect("mapped range")
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    staging.unmap();
    words
}

/// The median seconds per run of `kernel` ("tiny" or "zero-init") over
/// `groups` workgroups, its output checked.
fn measure(kernel: &str, groups: u32, runs: usize) -> f64 {
    let instance = Instance::with_device(DeviceChoice::Sim);
    let adapter = instance
        .request_adapter_sync(&RequestAdapterOptions::default())
        .expect("gfxsim adapter");
    let (device, queue) = adapter
        .request_device_sync(&DeviceDescriptor::default())
        .expect("device");
    device.on_uncaptured_error(std::sync::Arc::new(|e| panic!("uncaptured error: {e}")));
    let g = grid(groups);
    let out = device.create_buffer(&BufferDescriptor {
        label: Some("out"),
        size: u64::from(groups) * 4,
        usage: BufferUsages::STORAGE | BufferUsages::COPY_SRC,
        mapped_at_creation: false,
    });
    let pipeline = |module: &ShaderModule, entry: &str| {
        device.create_compute_pipeline(&ComputePipelineDescriptor {
            label: Some(entry),
            layout: None,
            module,
            entry_point: Some(entry),
            compilation_options: Default::default(),
            cache: None,
        })
    };
    let bind = |p: &ComputePipeline| {
        device.create_bind_group(&BindGroupDescriptor {
            label: None,
            layout: &p.get_bind_group_layout(0),
            entries: &[BindGroupEntry {
                binding: 0,
                resource: out.as_entire_binding(),
            }],
        })
    };
    let mut times = Vec::with_capacity(runs);
    match kernel {
        "tiny" => {
            let module =
                device.create_shader_module(include_shader!("shaders/gfx1100/tiny_groups"));
            let p = pipeline(&module, "tiny");
            let bg = bind(&p);
            let passes = [(&p, Some(&bg))];
            timed(&device, &queue, &passes, g);
            for _ in 0..runs {
                times.push(timed(&device, &queue, &passes, g));
            }
            let words = read_words(&device, &queue, &out, groups);
            for (i, &w) in words.iter().enumerate() {
                assert_eq!(w, i as u32 + 1, "tiny: word {i}");
            }
        }
        "zero-init" => {
            let module = device.create_shader_module(include_shader!("shaders/gfx1100/zero_init"));
            let write = pipeline(&module, "write");
            let read = pipeline(&module, "read");
            let bg = bind(&read);
            let passes = [(&write, None), (&read, Some(&bg))];
            timed(&device, &queue, &passes, g);
            for _ in 0..runs {
                times.push(timed(&device, &queue, &passes, g));
            }
            let words = read_words(&device, &queue, &out, groups);
            if let Some(i) = words.iter().position(|&w| w != 0) {
                panic!("zero-init: workgroup {i} saw non-zero workgroup memory");
            }
        }
        other => panic!("--only {other}: expected tiny or zero-init"),
    }
    times.sort();
    times[times.len() / 2].as_secs_f64()
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let value = |name: &str| {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1).cloned())
    };
    let quick = args.iter().any(|a| a == "--quick");
    let runs: usize = value("--runs")
        .and_then(|v| v.parse().ok())
        .unwrap_or(if quick { 2 } else { 3 });
    let kernels: Vec<String> = match value("--only") {
        Some(k) => vec![k],
        None => vec!["tiny".into(), "zero-init".into()],
    };
    let alone = value("--only").is_some();
    println!(
        "workgroup benchmarks: aqueduct on gfxsim vs wgpu 30 on lavapipe ({} cores here)",
        std::thread::available_parallelism().map_or(1, |c| c.get())
    );
    let mut ratios = Vec::new();
    for kernel in &kernels {
        let groups: u32 = value("--groups").and_then(|v| v.parse().ok()).unwrap_or(
            match (kernel.as_str(), quick) {
                ("tiny", false) => 16 * 65535,
                ("tiny", true) => 65535,
                (_, false) => 65535,
                (_, true) => 8192,
            },
        );
        let dispatched = if kernel == "tiny" { groups } else { 2 * groups };
        let s = measure(kernel, groups, runs);
        let ns = s * 1e9 / f64::from(dispatched);
        println!(
            "{kernel:>9}, {groups} workgroups: aqueduct {:9.2} ms, {ns:8.1} ns/workgroup",
            s * 1e3
        );
        if alone {
            continue;
        }
        let (g_arg, r_arg) = (groups.to_string(), runs.to_string());
        match peer::run(
            "workgroups",
            &["--kernel", kernel, "--groups", &g_arg, "--runs", &r_arg],
        )
        .and_then(|v| Ok((peer::number(&v, "median_s")?, peer::adapter(&v))))
        {
            Ok((peer_s, adapter)) => {
                println!(
                    "{kernel:>9}, {groups} workgroups: wgpu     {:9.2} ms, {:8.1} ns/workgroup ({adapter})\n  aqueduct/wgpu {:.3}",
                    peer_s * 1e3,
                    peer_s * 1e9 / f64::from(dispatched),
                    s / peer_s
                );
                ratios.push(s / peer_s);
            }
            Err(why) => println!("{}", peer::unavailable(&why)),
        }
    }
    if ratios.len() > 1 {
        let geo = ratios.iter().map(|r| r.ln()).sum::<f64>() / ratios.len() as f64;
        println!("geometric mean aqueduct/wgpu {:.3}", geo.exp());
    }
}
