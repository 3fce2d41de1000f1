//! `var<immediate>` through the wgpu API on aqueduct-wgpu: run-time WGSL
//! whose immediates come from `ComputePass::set_immediates` (at offsets,
//! changed between two dispatches of one pass) under an explicit layout
//! with `immediate_size`, against host-computed results; a layout smaller
//! than the shader's immediates, and a dispatch before the immediates the
//! shader reads are set, are validation errors.

use aqueduct_test_harness::run_time_wgsl::{llvm_installed, no_disk_cache};
use aqueduct_test_harness::wgpu_api::{device, read_back, validation_error};
use wgpu::util::DeviceExt;

/// `p` is 32 bytes: n at 0, scale at 4, bias at 16 (vec4 alignment).
const SHADER: &str = "
struct Params { n: u32, scale: f32, bias: vec4<f32> }
var<immediate> p: Params;
@group(0) @binding(0) var<storage, read_write> out: array<f32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    if id.x < p.n {
        out[id.x] = f32(id.x) * p.scale + p.bias[id.x % 4u];
    }
}
";

const LEN: usize = 96;

fn expected(n: u32, scale: f32, bias: [f32; 4]) -> Vec<f32> {
    (0..LEN)
        .map(|i| {
            if (i as u32) < n {
                i as f32 * scale + bias[i % 4]
            } else {
                0.0
            }
        })
        .collect()
}

fn floats(bytes: &[u8]) -> Vec<f32> {
    bytes
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

struct Setup {
    device: wgpu::Device,
    queue: wgpu::Queue,
    module: wgpu::ShaderModule,
    group: wgpu::BindGroupLayout,
}

fn setup() -> Setup {
    no_disk_cache();
    let (device, queue) = device();
    assert!(device.features().contains(wgpu::Features::IMMEDIATES));
    let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: Some("immediates.wgsl"),
        source: wgpu::ShaderSource::Wgsl(SHADER.into()),
    });
    let group = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
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
    Setup {
        device,
        queue,
        module,
        group,
    }
}

fn pipeline(s: &Setup, immediate_size: u32) -> wgpu::ComputePipeline {
    let layout = s
        .device
        .create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: None,
            bind_group_layouts: &[Some(&s.group)],
            immediate_size,
        });
    s.device
        .create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
            label: Some("immediates"),
            layout: Some(&layout),
            module: &s.module,
            entry_point: Some("main"),
            compilation_options: Default::default(),
            cache: None,
        })
}

#[test]
fn immediates_at_offsets_change_between_dispatches() {
    if !llvm_installed("WGSL immediates") {
        return;
    }
    let s = setup();
    let p = pipeline(&s, 32);
    let outputs: Vec<wgpu::Buffer> = (0..2)
        .map(|_| {
            s.device
                .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                    label: Some("out"),
                    contents: &[0; LEN * 4],
                    usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
                })
        })
        .collect();
    let groups: Vec<wgpu::BindGroup> = outputs
        .iter()
        .map(|b| {
            s.device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: None,
                layout: &s.group,
                entries: &[wgpu::BindGroupEntry {
                    binding: 0,
                    resource: b.as_entire_binding(),
                }],
            })
        })
        .collect();
    let bias = [1.0f32, -1.0, 0.5, 8.0];
    let bias_bytes: Vec<u8> = bias.iter().flat_map(|b| b.to_le_bytes()).collect();
    let err = validation_error(&s.device, || {
        let mut enc = s.device.create_command_encoder(&Default::default());
        {
            let mut pass = enc.begin_compute_pass(&Default::default());
            pass.set_pipeline(&p);
            pass.set_immediates(16, &bias_bytes);
            pass.set_immediates(0, &50u32.to_le_bytes());
            pass.set_immediates(4, &3.0f32.to_le_bytes());
            pass.set_bind_group(0, &groups[0], &[]);
            pass.dispatch_workgroups(2, 1, 1);
            pass.set_immediates(0, &(LEN as u32).to_le_bytes());
            pass.set_immediates(4, &0.25f32.to_le_bytes());
            pass.set_bind_group(0, &groups[1], &[]);
            pass.dispatch_workgroups(2, 1, 1);
        }
        s.queue.submit([enc.finish()]);
    });
    assert!(err.is_none(), "{err:?}");
    assert_eq!(
        floats(&read_back(&s.device, &s.queue, &outputs[0])),
        expected(50, 3.0, bias)
    );
    assert_eq!(
        floats(&read_back(&s.device, &s.queue, &outputs[1])),
        expected(LEN as u32, 0.25, bias)
    );
}

#[test]
fn a_layout_smaller_than_the_immediates_is_an_error() {
    if !llvm_installed("WGSL immediates") {
        return;
    }
    let s = setup();
    let err = validation_error(&s.device, || {
        let _ = pipeline(&s, 16);
    })
    .expect("a 16-byte layout for 32 bytes of immediates is an error");
    let text = err.to_string();
    assert!(
        text.contains("32 bytes of immediates") && text.contains("immediate_size is 16"),
        "{text}"
    );
}

#[test]
fn a_dispatch_before_its_immediates_are_set_is_an_error() {
    if !llvm_installed("WGSL immediates") {
        return;
    }
    let s = setup();
    let p = pipeline(&s, 32);
    let out = s
        .device
        .create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("out"),
            contents: &[0; LEN * 4],
            usage: wgpu::BufferUsages::STORAGE,
        });
    let group = s.device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: None,
        layout: &s.group,
        entries: &[wgpu::BindGroupEntry {
            binding: 0,
            resource: out.as_entire_binding(),
        }],
    });
    let err = validation_error(&s.device, || {
        let mut enc = s.device.create_command_encoder(&Default::default());
        {
            let mut pass = enc.begin_compute_pass(&Default::default());
            pass.set_pipeline(&p);
            pass.set_bind_group(0, &group, &[]);
            pass.set_immediates(0, &7u32.to_le_bytes());
            pass.dispatch_workgroups(1, 1, 1);
        }
        let _ = enc.finish();
    })
    .expect("scale and bias were never set");
    let text = err.to_string();
    assert!(text.contains("missing bytes: 4..8, 16..32"), "{text}");
}
