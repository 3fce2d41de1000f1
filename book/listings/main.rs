//! The book's listings (book/src/*.md include them by anchor), run as tests on gfxsim so
//! that every snippet the book shows compiles and does what the text says. Each test is one
//! chapter's listing; the ANCHOR lines mark what the book shows.

use std::borrow::Cow;

use aqueduct::util::{BufferInitDescriptor, DeviceExt, read_mapped};
use aqueduct::*;

fn open() -> (Device, Queue) {
    // ANCHOR: open
    // AQUEDUCT_DEVICE=sim|kfd|auto picks the device; auto (the default) uses a real
    // AMD GPU when /dev/kfd lists one, else gfxsim.
    let instance = Instance::with_device(DeviceChoice::Sim);
    let adapter = instance
        .request_adapter_sync(&RequestAdapterOptions::default())
        .expect("an adapter");
    println!(
        "{}: {}",
        adapter.get_info().name,
        adapter.get_info().driver_info
    );
    let (device, queue) = adapter
        .request_device_sync(&DeviceDescriptor {
            required_features: Features::IMMEDIATES,
            required_limits: Limits {
                max_immediate_size: 16,
                ..Limits::default()
            },
            ..Default::default()
        })
        .expect("a device");
    // ANCHOR_END: open
    device.on_uncaptured_error(std::sync::Arc::new(|e| panic!("uncaptured error: {e}")));
    (device, queue)
}

#[test]
fn buffers_mapping_and_readback() {
    let (device, queue) = open();
    // ANCHOR: buffers
    // A storage buffer with initial contents (device memory: coarse-grained pool).
    let data: Vec<u32> = (0..1024).collect();
    let storage = device.create_buffer_init(&BufferInitDescriptor {
        label: Some("data"),
        contents: bytemuck::cast_slice(&data),
        usage: BufferUsages::STORAGE | BufferUsages::COPY_SRC | BufferUsages::COPY_DST,
    });
    // Overwrite a part of it from the host, ordered before later submissions.
    queue.write_buffer(&storage, 16, bytemuck::cast_slice(&[7u32, 8, 9, 10]));
    // A mappable buffer (fine-grained system memory, mapped without a copy).
    let readback = device.create_buffer(&BufferDescriptor {
        label: Some("readback"),
        size: storage.size(),
        usage: BufferUsages::MAP_READ | BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    let mut encoder = device.create_command_encoder(&CommandEncoderDescriptor::default());
    encoder.copy_buffer_to_buffer(&storage, 0, &readback, 0, storage.size());
    queue.submit([encoder.finish()]);
    // map_async + poll(wait) + get_mapped_range, spelled out:
    let (tx, rx) = std::sync::mpsc::channel();
    readback.map_async(MapMode::Read, .., move |result| {
        let _ = tx.send(result);
    });
    device.poll(PollType::wait_indefinitely()).expect("poll");
    rx.recv().expect("callback ran").expect("mapped");
    let words: Vec<u32> = bytemuck::cast_slice(&readback.get_mapped_range(..).unwrap()).to_vec();
    readback.unmap();
    assert_eq!(&words[..8], &[0, 1, 2, 3, 7, 8, 9, 10]);
    assert_eq!(words[1023], 1023);
    // ANCHOR_END: buffers
}

#[test]
fn explicit_layouts_and_bind_groups() {
    let (device, queue) = open();
    // ANCHOR: bind_groups
    // The precompiled collatz shader (examples/shaders/collatz.wgsl):
    // @group(0) @binding(0) var<storage, read_write> numbers: array<u32>;
    let module = device.create_shader_module(include_shader!("../../examples/shaders/collatz"));
    let layout = device.create_bind_group_layout(&BindGroupLayoutDescriptor {
        label: Some("numbers"),
        entries: &[BindGroupLayoutEntry {
            binding: 0,
            visibility: ShaderStages::COMPUTE,
            ty: BindingType::Buffer {
                ty: BufferBindingType::Storage { read_only: false },
                has_dynamic_offset: false,
                min_binding_size: None,
            },
            count: None,
        }],
    });
    let pipeline_layout = device.create_pipeline_layout(&PipelineLayoutDescriptor {
        label: None,
        bind_group_layouts: &[Some(&layout)],
        immediate_size: 0,
    });
    let pipeline = device.create_compute_pipeline(&ComputePipelineDescriptor {
        label: Some("collatz"),
        layout: Some(&pipeline_layout),
        module: &module,
        entry_point: Some("main"),
        compilation_options: Default::default(),
        cache: None,
    });
    let numbers = device.create_buffer_init(&BufferInitDescriptor {
        label: Some("numbers"),
        contents: bytemuck::cast_slice(&[1u32, 2, 3, 27]),
        usage: BufferUsages::STORAGE | BufferUsages::COPY_SRC,
    });
    let bind_group = device.create_bind_group(&BindGroupDescriptor {
        label: None,
        layout: &layout,
        entries: &[BindGroupEntry {
            binding: 0,
            resource: numbers.as_entire_binding(),
        }],
    });
    let mut encoder = device.create_command_encoder(&CommandEncoderDescriptor::default());
    {
        let mut pass = encoder.begin_compute_pass(&ComputePassDescriptor::default());
        pass.set_pipeline(&pipeline);
        pass.set_bind_group(0, &bind_group, &[]);
        pass.dispatch_workgroups(1, 1, 1);
    }
    // ANCHOR_END: bind_groups
    let readback = device.create_buffer(&BufferDescriptor {
        label: None,
        size: numbers.size(),
        usage: BufferUsages::MAP_READ | BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    encoder.copy_buffer_to_buffer(&numbers, 0, &readback, 0, numbers.size());
    queue.submit([encoder.finish()]);
    let bytes = read_mapped(&device, &readback).unwrap();
    assert_eq!(bytemuck::cast_slice::<u8, u32>(&bytes), &[0, 1, 7, 111]);
}

#[test]
fn ordering_of_dispatches() {
    let (device, queue) = open();
    let module = device.create_shader_module(include_shader!("../../examples/shaders/collatz"));
    let pipeline = device.create_compute_pipeline(&ComputePipelineDescriptor {
        label: Some("collatz"),
        layout: None,
        module: &module,
        entry_point: Some("main"),
        compilation_options: Default::default(),
        cache: None,
    });
    let buffer = |values: &[u32]| {
        device.create_buffer_init(&BufferInitDescriptor {
            label: None,
            contents: bytemuck::cast_slice(values),
            usage: BufferUsages::STORAGE | BufferUsages::COPY_SRC,
        })
    };
    let group = |b: &Buffer| {
        device.create_bind_group(&BindGroupDescriptor {
            label: None,
            layout: &pipeline.get_bind_group_layout(0),
            entries: &[BindGroupEntry {
                binding: 0,
                resource: b.as_entire_binding(),
            }],
        })
    };
    let (a, b) = (buffer(&[27, 97]), buffer(&[6, 7]));
    let (group_a, group_b) = (group(&a), group(&b));
    // ANCHOR: ordering
    let mut encoder = device.create_command_encoder(&CommandEncoderDescriptor::default());
    {
        let mut pass = encoder.begin_compute_pass(&ComputePassDescriptor::default());
        pass.set_pipeline(&pipeline);
        // Independent: different buffers, so no barrier between them.
        pass.set_bind_group(0, &group_a, &[]);
        pass.dispatch_workgroups(1, 1, 1);
        pass.set_bind_group(0, &group_b, &[]);
        pass.dispatch_workgroups(1, 1, 1);
        // Reads what the first dispatch wrote: ordered after it (barrier bit).
        pass.set_bind_group(0, &group_a, &[]);
        pass.dispatch_workgroups(1, 1, 1);
    }
    let commands = encoder.finish();
    // The AQL packets this command buffer lowers to, with their barrier bits and fences.
    let packets = commands.debug_packets();
    for packet in &packets {
        println!("{packet:?}");
    }
    let index = queue.submit([commands]);
    device
        .poll(PollType::Wait {
            submission_index: Some(index),
            timeout: None,
        })
        .expect("poll");
    // ANCHOR_END: ordering
    let barriers: Vec<bool> = packets
        .iter()
        .filter(|p| p.role == PacketRole::Dispatch)
        .map(|p| p.barrier)
        .collect();
    assert_eq!(barriers.len(), 3);
    assert_eq!(&barriers[1..], &[false, true], "{packets:?}");
    let read = |buf: &Buffer| {
        let rb = device.create_buffer(&BufferDescriptor {
            label: None,
            size: buf.size(),
            usage: BufferUsages::MAP_READ | BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let mut enc = device.create_command_encoder(&CommandEncoderDescriptor::default());
        enc.copy_buffer_to_buffer(buf, 0, &rb, 0, buf.size());
        queue.submit([enc.finish()]);
        bytemuck::cast_slice::<u8, u32>(&read_mapped(&device, &rb).unwrap()).to_vec()
    };
    // 27 -> 111 steps -> 111 -> 69 steps; 97 -> 118 -> 33; 6 -> 8; 7 -> 16.
    assert_eq!(read(&a), [69, 33]);
    assert_eq!(read(&b), [8, 16]);
}

#[test]
fn errors_are_caught_by_scopes() {
    let (device, _queue) = open();
    // ANCHOR: error_scope
    // Errors go to the innermost error scope, else to the uncaptured-error handler; with
    // no handler installed the call panics with the message, as in wgpu.
    let scope = device.push_error_scope(ErrorFilter::Validation);
    let _bad = device.create_buffer(&BufferDescriptor {
        label: Some("unaligned"),
        size: 6,
        usage: BufferUsages::MAP_READ | BufferUsages::STORAGE,
        mapped_at_creation: true,
    });
    let error = scope.pop_now().expect("a validation error");
    println!("{error}");
    // The source is the typed error: match its variant and fields, not its text.
    use aqueduct::error::BufferError;
    let source = std::error::Error::source(&error).and_then(|s| s.downcast_ref());
    match source {
        Some(ValidationError::Buffer(BufferError::UnalignedMappedAtCreation { size, .. })) => {
            println!("mapped at creation with {size} bytes: round up to a multiple of 4")
        }
        other => panic!("another error: {other:?}"),
    }
    // ANCHOR_END: error_scope
    assert_eq!(error.filter(), ErrorFilter::Validation);
}

#[test]
fn a_hip_code_object_as_a_shader() {
    let (device, queue) = open();
    // ANCHOR: code_object
    // Any AMDGPU code object (hipcc, clang -x hip/cl, aqueduct-shaderc): explicit pointer
    // arguments become bindings 0, 1, ... of group 0; by-value arguments are immediates.
    // saxpy(float a, const float* x, float* y, uint n): kernels/src/saxpy.cl, the same
    // kernel as benches/hip/saxpy.hip. An offload bundle (what clang writes for several
    // --offload-arch) holds one object per GPU; the loader takes this GPU's.
    let code = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/kernels/bundles/saxpy.bundle"
    ))
    .expect("the checked-in bundle");
    let module = device.create_shader_module(ShaderModuleDescriptor {
        label: Some("saxpy"),
        source: ShaderSource::CodeObject {
            code: Cow::Owned(code),
            workgroup_size: Some([256, 1, 1]), // the HIP blockDim
        },
    });
    let pipeline = device.create_compute_pipeline(&ComputePipelineDescriptor {
        label: Some("saxpy"),
        layout: None,
        module: &module,
        entry_point: Some("saxpy"),
        compilation_options: Default::default(),
        cache: None,
    });
    let n = 1000u32;
    let x: Vec<f32> = (0..n).map(|i| i as f32).collect();
    let init = |v: &[f32]| {
        device.create_buffer_init(&BufferInitDescriptor {
            label: None,
            contents: bytemuck::cast_slice(v),
            usage: BufferUsages::STORAGE | BufferUsages::COPY_SRC,
        })
    };
    let (x_buf, y_buf) = (init(&x), init(&vec![1.0; n as usize]));
    let bind_group = device.create_bind_group(&BindGroupDescriptor {
        label: None,
        layout: &pipeline.get_bind_group_layout(0),
        entries: &[
            BindGroupEntry {
                binding: 0,
                resource: x_buf.as_entire_binding(),
            },
            BindGroupEntry {
                binding: 1,
                resource: y_buf.as_entire_binding(),
            },
        ],
    });
    let mut immediates = 2.0f32.to_le_bytes().to_vec(); // a, at offset 0
    immediates.extend_from_slice(&n.to_le_bytes()); // n, at offset 4
    let mut encoder = device.create_command_encoder(&CommandEncoderDescriptor::default());
    {
        let mut pass = encoder.begin_compute_pass(&ComputePassDescriptor::default());
        pass.set_pipeline(&pipeline);
        pass.set_bind_group(0, &bind_group, &[]);
        pass.set_immediates(0, &immediates);
        pass.dispatch_workgroups(n.div_ceil(256), 1, 1); // the HIP gridDim
    }
    // ANCHOR_END: code_object
    let rb = device.create_buffer(&BufferDescriptor {
        label: None,
        size: y_buf.size(),
        usage: BufferUsages::MAP_READ | BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    encoder.copy_buffer_to_buffer(&y_buf, 0, &rb, 0, y_buf.size());
    queue.submit([encoder.finish()]);
    let y: Vec<f32> = bytemuck::cast_slice(&read_mapped(&device, &rb).unwrap()).to_vec();
    let want: Vec<f32> = x.iter().map(|x| 2.0 * x + 1.0).collect();
    assert_eq!(y, want);
}
