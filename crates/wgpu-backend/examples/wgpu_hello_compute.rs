//! wgpu_hello_compute: wgpu's hello_compute (the Collatz example), written
//! against the `wgpu` crate, on Aqueduct through aqueduct-wgpu.
//!
//! The only Aqueduct line is the one creating the Instance (marked below);
//! it also hands the backend this example's shader, precompiled by
//! aqueduct-shaderc (`cargo run -p aqueduct-shaderc -- build
//! crates/wgpu-backend/examples/shaders`), so no LLVM is needed to run it.
//! Everything else is plain wgpu 30.
//!
//! Run: `cargo run -p aqueduct-wgpu --example wgpu_hello_compute [N ...]`

use std::str::FromStr;

use wgpu::util::DeviceExt;

/// The shader's marker for a value whose 3n + 1 overflows 32 bits.
const OVERFLOW: u32 = 0xffff_ffff;

async fn run() {
    let numbers = if std::env::args().len() <= 1 {
        let default = vec![1, 2, 3, 4];
        println!("No numbers were provided, defaulting to {default:?}");
        default
    } else {
        std::env::args()
            .skip(1)
            .map(|s| u32::from_str(&s).expect("You must pass a list of positive integers!"))
            .collect()
    };

    let steps = execute_gpu(&numbers).await.unwrap();

    let shown: Vec<String> = steps
        .iter()
        .map(|&n| match n {
            OVERFLOW => "OVERFLOW".to_string(),
            _ => n.to_string(),
        })
        .collect();
    println!("Steps: [{}]", shown.join(", "));
}

pub(crate) async fn execute_gpu(numbers: &[u32]) -> Option<Vec<u32>> {
    // ANCHOR: instance
    // The instance: the one line that differs from wgpu's example
    // (there: `wgpu::Instance::default()`).
    let instance =
        aqueduct_wgpu::instance_with(aqueduct_wgpu::InstanceOptions::default().precompiled(
            aqueduct_wgpu::include_precompiled!("shaders", "wgpu_hello_compute"),
        ));
    // ANCHOR_END: instance

    // The adapter is the connection to one GPU.
    let adapter = instance
        .request_adapter(&wgpu::RequestAdapterOptions::default())
        .await
        .ok()?;

    // The device and its queue, with the features and limits we need.
    let (device, queue) = adapter
        .request_device(&wgpu::DeviceDescriptor {
            label: None,
            required_features: wgpu::Features::empty(),
            required_limits: wgpu::Limits::downlevel_defaults(),
            experimental_features: wgpu::ExperimentalFeatures::disabled(),
            memory_hints: wgpu::MemoryHints::MemoryUsage,
            trace: wgpu::Trace::Off,
        })
        .await
        .unwrap();

    execute_gpu_inner(&device, &queue, numbers).await
}

async fn execute_gpu_inner(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    numbers: &[u32],
) -> Option<Vec<u32>> {
    // The compute shader, from WGSL.
    let cs_module =
        device.create_shader_module(wgpu::include_wgsl!("shaders/wgpu_hello_compute.wgsl"));

    // Size of the data in bytes.
    let size = size_of_val(numbers) as wgpu::BufferAddress;

    // A buffer the host can map for reading, the copy's destination.
    let staging_buffer = device.create_buffer(&wgpu::BufferDescriptor {
        label: None,
        size,
        usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });

    // The storage buffer the shader reads and writes, created with the numbers.
    let storage_buffer = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: Some("Storage Buffer"),
        contents: bytemuck::cast_slice(numbers),
        usage: wgpu::BufferUsages::STORAGE
            | wgpu::BufferUsages::COPY_DST
            | wgpu::BufferUsages::COPY_SRC,
    });

    // The pipeline, with its bind group layout derived from the shader.
    let compute_pipeline = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
        label: None,
        layout: None,
        module: &cs_module,
        entry_point: Some("main"),
        compilation_options: Default::default(),
        cache: None,
    });

    // The bind group: the storage buffer at group 0, binding 0.
    let bind_group_layout = compute_pipeline.get_bind_group_layout(0);
    let bind_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: None,
        layout: &bind_group_layout,
        entries: &[wgpu::BindGroupEntry {
            binding: 0,
            resource: storage_buffer.as_entire_binding(),
        }],
    });

    // Record: one workgroup per number, then the copy to the staging buffer.
    let mut encoder =
        device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: None });
    {
        let mut cpass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: None,
            timestamp_writes: None,
        });
        cpass.set_pipeline(&compute_pipeline);
        cpass.set_bind_group(0, &bind_group, &[]);
        cpass.insert_debug_marker("compute collatz iterations");
        cpass.dispatch_workgroups(numbers.len() as u32, 1, 1);
    }
    encoder.copy_buffer_to_buffer(&storage_buffer, 0, &staging_buffer, 0, size);

    // Run it.
    queue.submit(Some(encoder.finish()));

    // Ask for the staging buffer's bytes; the callback says when they are ready.
    let buffer_slice = staging_buffer.slice(..);
    let (sender, receiver) = std::sync::mpsc::channel();
    buffer_slice.map_async(wgpu::MapMode::Read, move |v| sender.send(v).unwrap());

    // Wait for the GPU (this runs the map callback).
    device.poll(wgpu::PollType::wait_indefinitely()).unwrap();

    if let Ok(Ok(())) = receiver.recv() {
        let data = buffer_slice.get_mapped_range().unwrap();
        let result = bytemuck::cast_slice(&data).to_vec();

        // Views must be gone before the buffer is unmapped.
        drop(data);
        staging_buffer.unmap();

        Some(result)
    } else {
        panic!("failed to run compute on gpu!")
    }
}

fn main() {
    pollster::block_on(run());
}
