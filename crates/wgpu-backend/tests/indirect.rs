//! Indirect dispatch through the wgpu API on aqueduct-wgpu, as wgpu's own
//! `dispatch_workgroups_indirect` tests check it: `num_workgroups` is the
//! indirect buffer's counts at every offset and buffer size, a count past
//! the device limit discards the dispatch, and the validation errors for a
//! missing bind group and an indirect buffer too small carry wgpu's words.
//! The shader reads an immediate that must stay 0 (set by the pass, never
//! by the indirect machinery).

use aqueduct_test_harness::run_time_wgsl::{llvm_installed, no_disk_cache};
use aqueduct_test_harness::wgpu_api::{device, read_back, validation_error};

const SHADER: &str = "
struct Offset { inner: u32 }
var<immediate> test_offset: Offset;
@group(0) @binding(0) var<storage, read_write> out: array<u32, 3>;

@compute @workgroup_size(1)
fn main(@builtin(num_workgroups) n: vec3u, @builtin(workgroup_id) id: vec3u) {
    if (all(id == vec3u())) {
        out[0] = n.x + test_offset.inner;
        out[1] = n.y + test_offset.inner;
        out[2] = n.z + test_offset.inner;
    }
}
";

struct Resources {
    device: wgpu::Device,
    queue: wgpu::Queue,
    pipeline: wgpu::ComputePipeline,
    out: wgpu::Buffer,
    bind_group: wgpu::BindGroup,
}

fn resources() -> Resources {
    let (device, queue) = device();
    let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: None,
        source: wgpu::ShaderSource::Wgsl(SHADER.into()),
    });
    let bgl = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
        label: None,
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
        label: None,
        bind_group_layouts: &[Some(&bgl)],
        immediate_size: 4,
    });
    let pipeline = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
        label: None,
        layout: Some(&layout),
        module: &module,
        entry_point: Some("main"),
        compilation_options: Default::default(),
        cache: None,
    });
    let out = device.create_buffer(&wgpu::BufferDescriptor {
        label: None,
        size: 12,
        usage: wgpu::BufferUsages::STORAGE
            | wgpu::BufferUsages::COPY_SRC
            | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    let bind_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: None,
        layout: &pipeline.get_bind_group_layout(0),
        entries: &[wgpu::BindGroupEntry {
            binding: 0,
            resource: out.as_entire_binding(),
        }],
    });
    Resources {
        device,
        queue,
        pipeline,
        out,
        bind_group,
    }
}

fn indirect_buffer(r: &Resources, size: u64) -> wgpu::Buffer {
    r.device.create_buffer(&wgpu::BufferDescriptor {
        label: None,
        size,
        usage: wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::INDIRECT,
        mapped_at_creation: false,
    })
}

/// Dispatches indirectly with `counts` at each (offset, buffer size) of
/// wgpu's table; the `num_workgroups` every run saw (all must agree).
fn num_workgroups_seen(r: &Resources, counts: [u32; 3]) -> [u32; 3] {
    let table: [(u64, u64); 10] = [
        (0, 12),
        (4, 4 + 12),
        (4, 8 + 12),
        (256 * 2 - 4 - 12, 256 * 2 - 4),
        (0, 256 * 2 * 2 + 4),
        (256, 256 * 2 * 2 + 8),
        (256 + 4, 256 * 2 * 2 + 12),
        (256 * 2 + 16, 256 * 2 * 2 + 16),
        (256 * 2 * 2, 256 * 2 * 2 + 32),
        (256 + 12, 256 * 2 * 2 + 64),
    ];
    let mut seen = None;
    for (offset, size) in table {
        let indirect = indirect_buffer(r, size);
        r.queue
            .write_buffer(&indirect, offset, bytemuck::cast_slice(&counts));
        // A marker that a discarded dispatch leaves in place.
        r.queue.write_buffer(&r.out, 0, &[0; 12]);
        let err = validation_error(&r.device, || {
            let mut enc = r.device.create_command_encoder(&Default::default());
            {
                let mut pass = enc.begin_compute_pass(&Default::default());
                pass.set_pipeline(&r.pipeline);
                pass.set_immediates(0, &[0, 0, 0, 0]);
                pass.set_bind_group(0, &r.bind_group, &[]);
                pass.dispatch_workgroups_indirect(&indirect, offset);
            }
            r.queue.submit([enc.finish()]);
        });
        assert!(err.is_none(), "offset {offset}, size {size}: {err:?}");
        let got: [u32; 3] = bytemuck::pod_read_unaligned(&read_back(&r.device, &r.queue, &r.out));
        if let Some(prev) = seen {
            assert_eq!(prev, got, "offset {offset}, size {size}");
        }
        seen = Some(got);
    }
    seen.expect("table rows")
}

#[test]
fn num_workgroups_and_discarded_dispatches() {
    if !llvm_installed("indirect dispatch") {
        return;
    }
    no_disk_cache();
    let r = resources();
    assert_eq!(num_workgroups_seen(&r, [1, 2, 3]), [1, 2, 3]);
    let max = r.device.limits().max_compute_workgroups_per_dimension;
    assert_eq!(num_workgroups_seen(&r, [max, 1, 1]), [max, 1, 1]);
    for counts in [[max + 1, 1, 1], [1, max + 1, 1], [1, 1, max + 1]] {
        assert_eq!(num_workgroups_seen(&r, counts), [0; 3], "{counts:?}");
    }
}

#[test]
fn indirect_validation_errors_use_wgpus_words() {
    if !llvm_installed("indirect dispatch") {
        return;
    }
    no_disk_cache();
    let r = resources();
    let run = |indirect: &wgpu::Buffer, bind: bool| {
        validation_error(&r.device, || {
            let mut enc = r.device.create_command_encoder(&Default::default());
            {
                let mut pass = enc.begin_compute_pass(&Default::default());
                pass.set_pipeline(&r.pipeline);
                pass.set_immediates(0, &[0, 0, 0, 0]);
                if bind {
                    pass.set_bind_group(0, &r.bind_group, &[]);
                }
                pass.dispatch_workgroups_indirect(indirect, 0);
            }
            r.queue.submit([enc.finish()]);
        })
        .expect("a validation error")
        .to_string()
    };
    let message = run(&indirect_buffer(&r, 12), false);
    assert!(
        message.contains(
            "The current set ComputePipeline with '' label expects a BindGroup to be set at index 0"
        ),
        "{message}"
    );
    let message = run(&indirect_buffer(&r, 0), true);
    assert!(
        message
            .contains("Indirect buffer uses bytes 0..12 which overruns indirect buffer of size 0"),
        "{message}"
    );
}
