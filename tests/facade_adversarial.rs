//! The facade given hostile sizes, offsets and counts, row by row: each row
//! must raise an error through the device's error scopes (validation, out
//! of memory or internal, as WebGPU sorts them), never panic, abort or
//! hang; afterwards the same device still runs work and gives the host's
//! result.

use aqueduct::*;
use aqueduct_test_harness::facade::*;

fn buffer(device: &Device, size: u64, usage: BufferUsages) -> Buffer {
    device.create_buffer(&BufferDescriptor {
        label: Some("hostile"),
        size,
        usage,
        mapped_at_creation: false,
    })
}

#[test]
fn hostile_sizes_and_offsets_raise_errors_and_the_device_survives() {
    let c = ctx();
    let d = &c.device;
    let storage_usage = BufferUsages::STORAGE | BufferUsages::COPY_SRC | BufferUsages::COPY_DST;
    let small = storage(d, 256);
    let other = storage(d, 256);
    let dispatch = |x: u32, y: u32, z: u32| {
        let module = kernel_module(d, "vector_copy", [64, 1, 1]);
        let pipeline = auto_pipeline(d, &module, "vector_copy");
        let mut encoder = d.create_command_encoder(&CommandEncoderDescriptor::default());
        {
            let mut pass = encoder.begin_compute_pass(&ComputePassDescriptor::default());
            pass.set_pipeline(&pipeline);
            pass.dispatch_workgroups(x, y, z);
        }
        c.queue.submit([encoder.finish()]);
    };
    type Row<'a> = (&'a str, Box<dyn FnOnce() + 'a>);
    let rows: Vec<Row> = vec![
        (
            "buffer of u64::MAX bytes",
            Box::new(|| drop(buffer(d, u64::MAX, storage_usage))),
        ),
        (
            "buffer past max_buffer_size",
            Box::new(|| drop(buffer(d, d.limits().max_buffer_size + 4, storage_usage))),
        ),
        (
            "buffer with no usage",
            Box::new(|| drop(buffer(d, 64, BufferUsages::empty()))),
        ),
        (
            "write past the end",
            Box::new(|| c.queue.write_buffer(&small, 252, &[0; 8])),
        ),
        (
            "write at u64::MAX - 3",
            Box::new(|| c.queue.write_buffer(&small, u64::MAX - 3, &[0; 4])),
        ),
        (
            "copy past the end",
            Box::new(|| {
                let mut e = d.create_command_encoder(&CommandEncoderDescriptor::default());
                e.copy_buffer_to_buffer(&small, 128, &other, 0, 256);
                c.queue.submit([e.finish()]);
            }),
        ),
        (
            "copy with offsets near u64::MAX",
            Box::new(|| {
                let mut e = d.create_command_encoder(&CommandEncoderDescriptor::default());
                e.copy_buffer_to_buffer(&small, u64::MAX - 3, &other, 0, 4);
                c.queue.submit([e.finish()]);
            }),
        ),
        (
            "copy onto itself",
            Box::new(|| {
                let mut e = d.create_command_encoder(&CommandEncoderDescriptor::default());
                e.copy_buffer_to_buffer(&small, 0, &small, 4, 64);
                c.queue.submit([e.finish()]);
            }),
        ),
        (
            "clear past the end",
            Box::new(|| {
                let mut e = d.create_command_encoder(&CommandEncoderDescriptor::default());
                e.clear_buffer(&small, 0, Some(u64::MAX - 3));
                c.queue.submit([e.finish()]);
            }),
        ),
        (
            "dispatch past max workgroups",
            Box::new(|| dispatch(u32::MAX, u32::MAX, u32::MAX)),
        ),
        (
            "dispatch with no pipeline",
            Box::new(|| {
                let mut e = d.create_command_encoder(&CommandEncoderDescriptor::default());
                {
                    let mut pass = e.begin_compute_pass(&ComputePassDescriptor::default());
                    pass.dispatch_workgroups(1, 1, 1);
                }
                c.queue.submit([e.finish()]);
            }),
        ),
        (
            "immediates past the limit",
            Box::new(|| {
                let mut e = d.create_command_encoder(&CommandEncoderDescriptor::default());
                {
                    let mut pass = e.begin_compute_pass(&ComputePassDescriptor::default());
                    pass.set_immediates(u32::MAX - 3, &[0; 8]);
                }
                c.queue.submit([e.finish()]);
            }),
        ),
        (
            "code object of random bytes",
            Box::new(|| {
                let bytes: Vec<u8> = (0..4096u32)
                    .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
                    .collect();
                drop(d.create_shader_module(ShaderModuleDescriptor {
                    label: Some("random"),
                    source: ShaderSource::CodeObject {
                        code: bytes.into(),
                        workgroup_size: None,
                    },
                }))
            }),
        ),
        (
            "empty code object",
            Box::new(|| {
                drop(d.create_shader_module(ShaderModuleDescriptor {
                    label: Some("empty"),
                    source: ShaderSource::CodeObject {
                        code: Vec::new().into(),
                        workgroup_size: None,
                    },
                }))
            }),
        ),
    ];
    let mut silent = Vec::new();
    for (what, f) in rows {
        if any_error(d, f).is_none() {
            silent.push(what);
        }
    }
    assert!(silent.is_empty(), "rows that raised no error: {silent:?}");
    // MAP_READ with STORAGE needs MAPPABLE_PRIMARY_BUFFERS, which this
    // device does not enable.
    let plain = ctx_with(|_| DeviceDescriptor::default());
    let mapped_storage = BufferUsages::MAP_READ | BufferUsages::STORAGE;
    let e = any_error(&plain.device, || {
        drop(buffer(&plain.device, 64, mapped_storage))
    });
    assert!(
        e.is_some(),
        "MAP_READ | STORAGE without the feature raised no error"
    );
    // The device still works: two chained copies give the input.
    let (work, out) = doubling_work(&c);
    c.queue.submit([work]);
    assert_eq!(read_words(&c, &out), [2, 4, 6, 8]);
}
