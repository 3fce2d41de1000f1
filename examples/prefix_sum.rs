//! prefix_sum: a multi-dispatch pipeline. An inclusive scan of N u32 in
//! three dispatches — scan each 256-element block in workgroup memory,
//! scan the block totals, add each block's offset — recorded in one
//! compute pass. The facade sees the read-after-write chain between the
//! dispatches and sets the AQL barrier bit exactly there (printed below).
//!
//! Run: `cargo run --release --example prefix_sum [N]` (N <= 65536)

use aqueduct::util::{BufferInitDescriptor, DeviceExt, read_mapped};
use aqueduct::*;

fn pipeline(device: &Device, desc: ShaderModuleDescriptor<'_>) -> ComputePipeline {
    let module = device.create_shader_module(desc);
    device.create_compute_pipeline(&ComputePipelineDescriptor {
        label: None,
        layout: None,
        module: &module,
        entry_point: Some("main"),
        compilation_options: Default::default(),
        cache: None,
    })
}

fn bind(device: &Device, p: &ComputePipeline, a: &Buffer, b: &Buffer) -> BindGroup {
    device.create_bind_group(&BindGroupDescriptor {
        label: None,
        layout: &p.get_bind_group_layout(0),
        entries: &[
            BindGroupEntry {
                binding: 0,
                resource: a.as_entire_binding(),
            },
            BindGroupEntry {
                binding: 1,
                resource: b.as_entire_binding(),
            },
        ],
    })
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // Logs to stderr, filtered by RUST_LOG (e.g. `RUST_LOG=aqueduct=trace`
    // shows every submission and dispatch); errors only when it is unset.
    let _ = tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::from_default_env())
        .with_writer(std::io::stderr)
        .try_init();
    let n: u32 = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(40_000);
    if n == 0 || n > 256 * 256 {
        return Err("N must be in 1..=65536 (two levels of 256-element blocks)".into());
    }
    let blocks = n.div_ceil(256);

    let instance = Instance::default();
    let adapter = instance.request_adapter_sync(&RequestAdapterOptions::default())?;
    let (device, queue) = adapter.request_device_sync(&DeviceDescriptor::default())?;
    println!("Running on {}", adapter.get_info().name);

    let scan = pipeline(&device, include_shader!("shaders/scan_blocks"));
    let add = pipeline(&device, include_shader!("shaders/add_block_offsets"));

    let input: Vec<u32> = (0..n).map(|i| (i * 7 + 3) % 11).collect();
    let usage = BufferUsages::STORAGE | BufferUsages::COPY_SRC;
    let values = device.create_buffer_init(&BufferInitDescriptor {
        label: Some("values"),
        contents: bytemuck::cast_slice(&input),
        usage,
    });
    let sums = device.create_buffer(&BufferDescriptor {
        label: Some("block sums"),
        size: blocks as u64 * 4,
        usage,
        mapped_at_creation: false,
    });
    let total = device.create_buffer(&BufferDescriptor {
        label: Some("total"),
        size: 4,
        usage,
        mapped_at_creation: false,
    });
    let readback = device.create_buffer(&BufferDescriptor {
        label: Some("readback"),
        size: n as u64 * 4,
        usage: BufferUsages::MAP_READ | BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });

    let mut encoder = device.create_command_encoder(&Default::default());
    {
        let mut pass = encoder.begin_compute_pass(&ComputePassDescriptor {
            label: Some("scan"),
            timestamp_writes: None,
        });
        pass.set_pipeline(&scan);
        pass.set_bind_group(0, &bind(&device, &scan, &values, &sums), &[]);
        pass.dispatch_workgroups(blocks, 1, 1);
        pass.set_bind_group(0, &bind(&device, &scan, &sums, &total), &[]);
        pass.dispatch_workgroups(1, 1, 1);
        pass.set_pipeline(&add);
        pass.set_bind_group(0, &bind(&device, &add, &values, &sums), &[]);
        pass.dispatch_workgroups(blocks, 1, 1);
    }
    encoder.copy_buffer_to_buffer(&values, 0, &readback, 0, None);
    let commands = encoder.finish();
    for p in commands.debug_packets() {
        println!(
            "  {:<10} barrier={} release={:?}",
            format!("{:?}", p.role),
            p.barrier as u8,
            p.release
        );
    }
    let start = std::time::Instant::now();
    queue.submit([commands]);
    let bytes = read_mapped(&device, &readback)?;
    println!(
        "scanned {n} u32 in {:.2} ms",
        start.elapsed().as_secs_f64() * 1e3
    );

    let got: &[u32] = bytemuck::cast_slice(&bytes);
    let mut acc = 0u32;
    for (i, (&x, &g)) in input.iter().zip(got).enumerate() {
        acc = acc.wrapping_add(x);
        if g != acc {
            eprintln!("FAILED: prefix[{i}] = {g}, expected {acc}");
            std::process::exit(1);
        }
    }
    println!("last prefix = {acc}");
    println!("PASSED");
    Ok(())
}
