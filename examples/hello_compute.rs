//! hello_compute: the Collatz example of wgpu, on Aqueduct.
//!
//! Uploads a few numbers, runs a WGSL compute shader (precompiled by
//! aqueduct-shaderc) that replaces each with its Collatz step count, copies
//! the result into a mappable buffer and reads it back — the same steps,
//! names and types as the wgpu version; only the crate and the shader
//! source (a precompiled code object) differ.
//!
//! Run: `cargo run --example hello_compute [N ...]`

use aqueduct::util::{BufferInitDescriptor, DeviceExt};
use aqueduct::*;

fn collatz_steps(mut n: u32) -> u32 {
    let mut steps = 0;
    while n > 1 {
        n = if n.is_multiple_of(2) {
            n / 2
        } else {
            match n.checked_mul(3).and_then(|m| m.checked_add(1)) {
                Some(m) => m,
                None => return u32::MAX,
            }
        };
        steps += 1;
    }
    steps
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // Logs to stderr, filtered by RUST_LOG (e.g. `RUST_LOG=aqueduct=trace`
    // shows every submission and dispatch); errors only when it is unset.
    let _ = tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::from_default_env())
        .with_writer(std::io::stderr)
        .try_init();
    let numbers: Vec<u32> = {
        let args: Vec<u32> = std::env::args()
            .skip(1)
            .filter_map(|a| a.parse().ok())
            .collect();
        if args.is_empty() {
            vec![1, 2, 3, 4, 27, 97, 871]
        } else {
            args
        }
    };

    let instance = Instance::default();
    let adapter = block_on(instance.request_adapter(&RequestAdapterOptions::default()))?;
    println!("Running on {}", adapter.get_info().name);
    let (device, queue) = block_on(adapter.request_device(&DeviceDescriptor::default()))?;

    let module = device.create_shader_module(include_shader!("shaders/collatz"));
    let size = (numbers.len() * 4) as u64;
    let storage = device.create_buffer_init(&BufferInitDescriptor {
        label: Some("numbers"),
        contents: bytemuck::cast_slice(&numbers),
        usage: BufferUsages::STORAGE | BufferUsages::COPY_SRC,
    });
    let staging = device.create_buffer(&BufferDescriptor {
        label: Some("staging"),
        size,
        usage: BufferUsages::MAP_READ | BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });

    let pipeline = device.create_compute_pipeline(&ComputePipelineDescriptor {
        label: Some("collatz"),
        layout: None,
        module: &module,
        entry_point: Some("main"),
        compilation_options: Default::default(),
        cache: None,
    });
    let bind_group = device.create_bind_group(&BindGroupDescriptor {
        label: None,
        layout: &pipeline.get_bind_group_layout(0),
        entries: &[BindGroupEntry {
            binding: 0,
            resource: storage.as_entire_binding(),
        }],
    });

    let mut encoder = device.create_command_encoder(&CommandEncoderDescriptor { label: None });
    {
        let mut pass = encoder.begin_compute_pass(&ComputePassDescriptor {
            label: Some("collatz"),
            timestamp_writes: None,
        });
        pass.set_pipeline(&pipeline);
        pass.set_bind_group(0, &bind_group, &[]);
        pass.dispatch_workgroups((numbers.len() as u32).div_ceil(64), 1, 1);
    }
    encoder.copy_buffer_to_buffer(&storage, 0, &staging, 0, size);
    queue.submit([encoder.finish()]);

    let (tx, rx) = std::sync::mpsc::channel();
    staging.slice(..).map_async(MapMode::Read, move |r| {
        let _ = tx.send(r);
    });
    device.poll(PollType::wait_indefinitely())?;
    rx.recv()??;
    let steps: Vec<u32> = bytemuck::cast_slice(&staging.slice(..).get_mapped_range()?).to_vec();
    staging.unmap();

    let disp: Vec<String> = steps
        .iter()
        .map(|&s| {
            if s == u32::MAX {
                "OVERFLOW".to_string()
            } else {
                s.to_string()
            }
        })
        .collect();
    println!("Steps: [{}]", disp.join(", "));
    let expected: Vec<u32> = numbers.iter().map(|&n| collatz_steps(n)).collect();
    if steps != expected {
        eprintln!("FAILED: expected {expected:?}");
        std::process::exit(1);
    }
    println!("PASSED");
    Ok(())
}
