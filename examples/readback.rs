//! readback: the ways to get results back to the host, and where buffers
//! live. A storage buffer sits in device (coarse-grained) memory; results
//! reach the host through a copy into a MAP_READ buffer (fine-grained system
//! memory, mapped without a copy), or, with MAPPABLE_PRIMARY_BUFFERS, by
//! mapping a storage buffer directly. Uses the checked-in vector_copy
//! OpenCL kernel as a raw code-object shader (bindings from its argument
//! metadata, the element count as an immediate).
//!
//! Run: `cargo run --release --example readback`

use std::borrow::Cow;

use aqueduct::util::{BufferInitDescriptor, DeviceExt, read_mapped};
use aqueduct::*;

const N: u32 = 1 << 16;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // Logs to stderr, filtered by RUST_LOG (e.g. `RUST_LOG=aqueduct=trace`
    // shows every submission and dispatch); errors only when it is unset.
    let _ = tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::from_default_env())
        .with_writer(std::io::stderr)
        .try_init();
    let instance = Instance::default();
    let adapter = instance.request_adapter_sync(&RequestAdapterOptions::default())?;
    let (device, queue) = adapter.request_device_sync(&DeviceDescriptor {
        required_features: Features::MAPPABLE_PRIMARY_BUFFERS | Features::IMMEDIATES,
        required_limits: Limits {
            max_immediate_size: 16,
            ..Limits::default()
        },
        ..Default::default()
    })?;
    println!("Running on {}", adapter.get_info().name);

    let module = device.create_shader_module(ShaderModuleDescriptor {
        label: Some("vector_copy"),
        source: ShaderSource::CodeObject {
            code: Cow::Borrowed(include_bytes!("../kernels/bundles/vector_copy.bundle")),
            workgroup_size: Some([256, 1, 1]),
        },
    });
    let pipeline = device.create_compute_pipeline(&ComputePipelineDescriptor {
        label: Some("copy"),
        layout: None,
        module: &module,
        entry_point: Some("vector_copy"),
        compilation_options: Default::default(),
        cache: None,
    });

    let input: Vec<u32> = (0..N).map(|i| i.wrapping_mul(0x9e37_79b9)).collect();
    let src = device.create_buffer_init(&BufferInitDescriptor {
        label: Some("src"),
        contents: bytemuck::cast_slice(&input),
        usage: BufferUsages::STORAGE,
    });
    let on_device = device.create_buffer(&BufferDescriptor {
        label: Some("on_device"),
        size: N as u64 * 4,
        usage: BufferUsages::STORAGE | BufferUsages::COPY_SRC,
        mapped_at_creation: false,
    });
    let host_visible = device.create_buffer(&BufferDescriptor {
        label: Some("host_visible"),
        size: N as u64 * 4,
        usage: BufferUsages::STORAGE | BufferUsages::MAP_READ,
        mapped_at_creation: false,
    });
    let staging = device.create_buffer(&BufferDescriptor {
        label: Some("staging"),
        size: N as u64 * 4,
        usage: BufferUsages::MAP_READ | BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    for b in [&src, &on_device, &host_visible, &staging] {
        println!(
            "  {:>13?} usage -> {:?}",
            b.usage(),
            b.placement().ok_or("invalid buffer")?
        );
    }

    let mut encoder = device.create_command_encoder(&Default::default());
    {
        let mut pass = encoder.begin_compute_pass(&Default::default());
        pass.set_pipeline(&pipeline);
        pass.set_immediates(0, &N.to_le_bytes());
        for dst in [&on_device, &host_visible] {
            let bg = device.create_bind_group(&BindGroupDescriptor {
                label: None,
                layout: &pipeline.get_bind_group_layout(0),
                entries: &[
                    BindGroupEntry {
                        binding: 0,
                        resource: src.as_entire_binding(),
                    },
                    BindGroupEntry {
                        binding: 1,
                        resource: dst.as_entire_binding(),
                    },
                ],
            });
            pass.set_bind_group(0, &bg, &[]);
            pass.dispatch_workgroups(N / 256, 1, 1);
        }
    }
    encoder.copy_buffer_to_buffer(&on_device, 0, &staging, 0, None);
    let commands = encoder.finish();
    println!("AQL packets of the command buffer:");
    for p in commands.debug_packets() {
        println!(
            "  {:<16} barrier={} acquire={:?} release={:?}",
            format!("{:?}", p.role),
            p.barrier as u8,
            p.acquire,
            p.release
        );
    }
    queue.submit([commands]);

    let start = std::time::Instant::now();
    let via_copy = read_mapped(&device, &staging)?;
    let direct = read_mapped(&device, &host_visible)?;
    println!(
        "read back 2 x {} KiB in {:.2} ms",
        N * 4 / 1024,
        start.elapsed().as_secs_f64() * 1e3
    );
    let ok = bytemuck::cast_slice::<u8, u32>(&via_copy) == &input[..]
        && bytemuck::cast_slice::<u8, u32>(&direct) == &input[..];
    if !ok {
        eprintln!("FAILED: readback differs from the input");
        std::process::exit(1);
    }
    println!("PASSED");
    Ok(())
}
