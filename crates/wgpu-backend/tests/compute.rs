//! The wgpu API on gfxsim through aqueduct-wgpu: the hello_compute example
//! against host-computed answers, buffers created with data, mapping for
//! reading and writing (whole and partial ranges, `write_buffer_with`),
//! copies, clears, direct and indirect dispatch (explicit and automatic
//! layouts), timestamp queries, the work-done and device-lost callbacks,
//! and that the precompiled objects match the example's WGSL.

use aqueduct_test_harness::wgpu_api::{COLLATZ_WGSL, collatz_steps, device, read, read_back, u32s};
use wgpu::util::DeviceExt;

#[allow(dead_code)]
#[path = "../examples/wgpu_hello_compute.rs"]
mod example;

#[test]
fn hello_compute_example_matches_host() {
    for numbers in [
        vec![1, 2, 3, 4],
        vec![5, 23, 10, 9],
        vec![77031, 837799, 8400511, 63728127],
    ] {
        let steps = pollster::block_on(example::execute_gpu(&numbers)).expect("ran");
        let expected: Vec<u32> = numbers.iter().map(|&n| collatz_steps(n)).collect();
        assert_eq!(steps, expected, "inputs {numbers:?}");
    }
    // The known answers of wgpu's own test of this example.
    assert_eq!(
        [77031, 837799, 8400511, 63728127].map(collatz_steps),
        [350, 524, u32::MAX, u32::MAX]
    );
}

#[test]
fn buffers_map_for_reading_and_writing() {
    let (device, queue) = device();
    let data: Vec<u8> = (0..256u32).map(|i| (i * 7 + 3) as u8).collect();
    // mapped_at_creation through DeviceExt.
    let source = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: Some("source"),
        contents: &data,
        usage: wgpu::BufferUsages::COPY_SRC | wgpu::BufferUsages::COPY_DST,
    });
    assert_eq!(read_back(&device, &queue, &source), data);

    // A MAP_WRITE buffer written through two disjoint mutable views.
    let upload = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("upload"),
        size: 256,
        usage: wgpu::BufferUsages::MAP_WRITE | wgpu::BufferUsages::COPY_SRC,
        mapped_at_creation: false,
    });
    let (tx, rx) = std::sync::mpsc::channel();
    upload
        .slice(..)
        .map_async(wgpu::MapMode::Write, move |r| tx.send(r).unwrap());
    device.poll(wgpu::PollType::wait_indefinitely()).unwrap();
    rx.recv().unwrap().unwrap();
    {
        let mut low = upload.slice(..128).get_mapped_range_mut().unwrap();
        let mut high = upload.slice(128..).get_mapped_range_mut().unwrap();
        low.copy_from_slice(&[0xab; 128]);
        high.copy_from_slice(&data[..128]);
    }
    upload.unmap();
    let mut expected = vec![0xab; 128];
    expected.extend_from_slice(&data[..128]);
    assert_eq!(read_back(&device, &queue, &upload), expected);

    // A partial read mapping, with two overlapping read views of it.
    let readable = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("readable"),
        size: 256,
        usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    queue.write_buffer(&readable, 0, &data);
    let (tx, rx) = std::sync::mpsc::channel();
    readable
        .slice(64..192)
        .map_async(wgpu::MapMode::Read, move |r| tx.send(r).unwrap());
    device.poll(wgpu::PollType::wait_indefinitely()).unwrap();
    rx.recv().unwrap().unwrap();
    {
        let a = readable.slice(64..192).get_mapped_range().unwrap();
        let b = readable.slice(128..136).get_mapped_range().unwrap();
        assert_eq!(&a[..], &data[64..192]);
        assert_eq!(&b[..], &data[128..136]);
    }
    readable.unmap();

    // write_buffer_with: wgpu's staging-buffer form of write_buffer.
    {
        let mut view = queue
            .write_buffer_with(&source, 16, wgpu::BufferSize::new(8).unwrap())
            .expect("valid write");
        view.copy_from_slice(&[9, 8, 7, 6, 5, 4, 3, 2]);
    }
    let mut expected = data.clone();
    expected[16..24].copy_from_slice(&[9, 8, 7, 6, 5, 4, 3, 2]);
    assert_eq!(read_back(&device, &queue, &source), expected);
}

#[test]
fn copies_and_clears_touch_exactly_their_ranges() {
    let (device, queue) = device();
    let usage = wgpu::BufferUsages::COPY_SRC | wgpu::BufferUsages::COPY_DST;
    let a_bytes: Vec<u8> = (0..512u32).map(|i| (i % 251) as u8).collect();
    let a = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: Some("a"),
        contents: &a_bytes,
        usage,
    });
    let b = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: Some("b"),
        contents: &[0x5a; 512],
        usage,
    });
    let mut encoder = device.create_command_encoder(&Default::default());
    encoder.copy_buffer_to_buffer(&a, 100, &b, 36, 200);
    encoder.clear_buffer(&a, 8, Some(16));
    encoder.clear_buffer(&b, 400, None);
    queue.submit([encoder.finish()]);

    let mut expected_a = a_bytes.clone();
    expected_a[8..24].fill(0);
    let mut expected_b = vec![0x5a; 512];
    expected_b[36..236].copy_from_slice(&a_bytes[100..300]);
    expected_b[400..].fill(0);
    assert_eq!(read_back(&device, &queue, &a), expected_a);
    assert_eq!(read_back(&device, &queue, &b), expected_b);
}

/// A storage buffer with `numbers`, a pipeline with an explicit layout and
/// its bind group.
fn collatz_setup(
    device: &wgpu::Device,
    numbers: &[u32],
) -> (wgpu::Buffer, wgpu::ComputePipeline, wgpu::BindGroup) {
    let storage = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: Some("numbers"),
        contents: bytemuck::cast_slice(numbers),
        usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
    });
    let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: Some("collatz"),
        source: wgpu::ShaderSource::Wgsl(COLLATZ_WGSL.into()),
    });
    let group_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
        label: Some("collatz group"),
        entries: &[wgpu::BindGroupLayoutEntry {
            binding: 0,
            visibility: wgpu::ShaderStages::COMPUTE,
            ty: wgpu::BindingType::Buffer {
                ty: wgpu::BufferBindingType::Storage { read_only: false },
                has_dynamic_offset: false,
                min_binding_size: None,
            },
            count: None,
        }],
    });
    let layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
        label: Some("collatz layout"),
        bind_group_layouts: &[Some(&group_layout)],
        immediate_size: 0,
    });
    let pipeline = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
        label: Some("collatz"),
        layout: Some(&layout),
        module: &module,
        entry_point: Some("main"),
        compilation_options: Default::default(),
        cache: None,
    });
    let group = device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some("collatz group"),
        layout: &group_layout,
        entries: &[wgpu::BindGroupEntry {
            binding: 0,
            resource: storage.as_entire_binding(),
        }],
    });
    (storage, pipeline, group)
}

#[test]
fn direct_and_indirect_dispatch_cover_exactly_their_workgroups() {
    let (device, queue) = device();
    let numbers: Vec<u32> = (1..=24).map(|i| i * 13 + 1).collect();
    let (storage, pipeline, group) = collatz_setup(&device, &numbers);
    // Indirect arguments at an unaligned-to-16 offset: (6, 1, 1) after one word.
    let indirect = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: Some("indirect"),
        contents: bytemuck::cast_slice(&[0xdead_u32, 6, 1, 1]),
        usage: wgpu::BufferUsages::INDIRECT,
    });
    let mut encoder = device.create_command_encoder(&Default::default());
    {
        let mut pass = encoder.begin_compute_pass(&Default::default());
        pass.set_pipeline(&pipeline);
        pass.set_bind_group(0, &group, &[]);
        // Elements 0..10 directly, then 0..6 again indirectly.
        pass.dispatch_workgroups(10, 1, 1);
        pass.dispatch_workgroups_indirect(&indirect, 4);
    }
    queue.submit([encoder.finish()]);
    // The WGSL resolved to the registered precompiled object: no LLVM ran.
    let facade = aqueduct_wgpu::aqueduct_device(&device).expect("an Aqueduct device");
    assert_eq!(facade.wgsl_compiles(), 0);
    let got = u32s(&read_back(&device, &queue, &storage));
    let expected: Vec<u32> = numbers
        .iter()
        .enumerate()
        .map(|(i, &n)| match i {
            0..6 => collatz_steps(collatz_steps(n)),
            6..10 => collatz_steps(n),
            _ => n,
        })
        .collect();
    assert_eq!(got, expected);
}

#[test]
fn timestamps_resolve_in_order() {
    let (device, queue) = device();
    assert!(device.features().contains(wgpu::Features::TIMESTAMP_QUERY));
    let queries = device.create_query_set(&wgpu::QuerySetDescriptor {
        label: Some("times"),
        ty: wgpu::QueryType::Timestamp,
        count: 2,
    });
    let resolved = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("resolved"),
        size: 16,
        usage: wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC,
        mapped_at_creation: false,
    });
    let (_storage, pipeline, group) = collatz_setup(&device, &[27; 8]);
    let mut encoder = device.create_command_encoder(&Default::default());
    {
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some("timed"),
            timestamp_writes: Some(wgpu::ComputePassTimestampWrites {
                query_set: &queries,
                beginning_of_pass_write_index: Some(0),
                end_of_pass_write_index: Some(1),
            }),
        });
        pass.set_pipeline(&pipeline);
        pass.set_bind_group(0, &group, &[]);
        pass.dispatch_workgroups(8, 1, 1);
    }
    encoder.resolve_query_set(&queries, 0..2, &resolved, 0);
    queue.submit([encoder.finish()]);
    let bytes = read_back(&device, &queue, &resolved);
    let begin = u64::from_le_bytes(bytes[..8].try_into().unwrap());
    let end = u64::from_le_bytes(bytes[8..].try_into().unwrap());
    assert!(begin > 0, "the beginning timestamp was written");
    assert!(end >= begin, "end {end} before begin {begin}");
    assert!(queue.get_timestamp_period() > 0.0);
    // The mapping helper itself goes through wgpu: reading a fresh buffer gives zeros.
    let zeros = device.create_buffer(&wgpu::BufferDescriptor {
        label: None,
        size: 8,
        usage: wgpu::BufferUsages::MAP_READ,
        mapped_at_creation: false,
    });
    assert_eq!(read(&device, &zeros), vec![0; 8]);
}

#[test]
fn precompiled_objects_match_the_example_wgsl() {
    // Each target's reflection records the hash of the WGSL it was built
    // from; a shader edited without rebuilding (aqueduct-shaderc build
    // crates/wgpu-backend/examples/shaders) would no longer match its text
    // and need LLVM at run time.
    let hash = aqueduct::wgsl::source_hash(COLLATZ_WGSL);
    let objects = aqueduct_wgpu::include_precompiled!("../examples/shaders", "wgpu_hello_compute");
    for object in objects {
        let recorded = format!("\"source_hash\": \"{hash}\"");
        assert!(
            object.reflection.contains(&recorded),
            "{}: {} was built from another text than examples/shaders/wgpu_hello_compute.wgsl",
            object.target,
            object.name
        );
        // An AMDGPU ELF code object.
        assert_eq!(&object.code[..4], b"\x7fELF", "{}", object.target);
    }
}

#[test]
fn work_done_and_device_lost_callbacks_run() {
    let (device, queue) = device();
    let (tx, rx) = std::sync::mpsc::channel();
    let done = tx.clone();
    queue.on_submitted_work_done(move || done.send("work done").unwrap());
    let index = queue.submit([device.create_command_encoder(&Default::default()).finish()]);
    device
        .poll(wgpu::PollType::Wait {
            submission_index: Some(index),
            timeout: None,
        })
        .unwrap();
    assert_eq!(rx.try_recv(), Ok("work done"));
    device.set_device_lost_callback(move |reason, _message| {
        assert_eq!(reason, wgpu::DeviceLostReason::Destroyed);
        tx.send("lost").unwrap();
    });
    device.destroy();
    assert_eq!(rx.try_recv(), Ok("lost"));
}
