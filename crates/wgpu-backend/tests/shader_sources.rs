//! SPIR-V and GLSL through the wgpu API on aqueduct-wgpu
//! (`wgpu::ShaderSource::SpirV`, `make_spirv`, `ShaderSource::Glsl`): each
//! runs with host-checked results, GLSL `constant_id`s take pipeline
//! constants and `defines` reach the preprocessor, and a GLSL shader of a
//! stage other than compute is a validation error naming what was given.

use aqueduct_test_harness::run_time_wgsl::{llvm_installed, no_disk_cache};
use aqueduct_test_harness::wgpu_api::{device, read_back, validation_error};
use wgpu::util::DeviceExt;

/// Runs `main` of `module` over `input` (binding 0) into a fresh output
/// (binding 1) with `constants`; returns the output's words.
fn run(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    module: &wgpu::ShaderModule,
    constants: &[(&str, f64)],
    input: &[u32],
) -> Vec<u32> {
    let pipeline = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
        label: None,
        layout: None,
        module,
        entry_point: Some("main"),
        compilation_options: wgpu::PipelineCompilationOptions {
            constants,
            ..Default::default()
        },
        cache: None,
    });
    let src = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: Some("src"),
        contents: bytemuck::cast_slice(input),
        usage: wgpu::BufferUsages::STORAGE,
    });
    let dst = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("dst"),
        size: (input.len() * 4) as u64,
        usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
        mapped_at_creation: false,
    });
    let bg = device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: None,
        layout: &pipeline.get_bind_group_layout(0),
        entries: &[
            wgpu::BindGroupEntry {
                binding: 0,
                resource: src.as_entire_binding(),
            },
            wgpu::BindGroupEntry {
                binding: 1,
                resource: dst.as_entire_binding(),
            },
        ],
    });
    let err = validation_error(device, || {
        let mut enc = device.create_command_encoder(&Default::default());
        {
            let mut pass = enc.begin_compute_pass(&Default::default());
            pass.set_pipeline(&pipeline);
            pass.set_bind_group(0, &bg, &[]);
            pass.dispatch_workgroups(input.len().div_ceil(64) as u32, 1, 1);
        }
        queue.submit([enc.finish()]);
    });
    assert!(err.is_none(), "{err:?}");
    bytemuck::cast_slice(&read_back(device, queue, &dst)).to_vec()
}

const AFFINE_GLSL: &str = r#"#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) readonly buffer Src { uint values[]; } src;
layout(set = 0, binding = 1) buffer Dst { uint values[]; } dst;
layout(constant_id = 0) const uint SCALE = 3;
void main() {
    uint i = gl_GlobalInvocationID.x;
    dst.values[i] = src.values[i] * SCALE + OFFSET;
}
"#;

#[test]
fn glsl_runs_with_constants_and_defines() {
    if !llvm_installed("SPIR-V and GLSL") {
        return;
    }
    no_disk_cache();
    let (device, queue) = device();
    let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: Some("affine.comp"),
        source: wgpu::ShaderSource::Glsl {
            shader: AFFINE_GLSL.into(),
            stage: wgpu::naga::ShaderStage::Compute,
            defines: &[("OFFSET", "7u")],
        },
    });
    let input: Vec<u32> = (0..128).map(|i| i * 3 + 1).collect();
    for (constants, scale) in [(&[][..], 3u32), (&[("0", 4.0)][..], 4)] {
        let want: Vec<u32> = input.iter().map(|v| v * scale + 7).collect();
        assert_eq!(
            run(&device, &queue, &module, constants, &input),
            want,
            "scale {scale}"
        );
    }
}

#[test]
fn spirv_from_make_spirv_runs() {
    if !llvm_installed("SPIR-V and GLSL") {
        return;
    }
    no_disk_cache();
    let wgsl = "
@group(0) @binding(0) var<storage, read> src: array<u32>;
@group(0) @binding(1) var<storage, read_write> dst: array<u32>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    dst[gid.x] = src[gid.x] ^ 0x5a5a5a5au;
}
";
    let module = naga::front::wgsl::parse_str(wgsl).expect("WGSL");
    let info = naga::valid::Validator::new(
        naga::valid::ValidationFlags::all(),
        naga::valid::Capabilities::empty(),
    )
    .validate(&module)
    .expect("valid");
    let words = naga::back::spv::write_vec(&module, &info, &Default::default(), None).unwrap();
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    let (device, queue) = device();
    let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: Some("xor.spv"),
        source: wgpu::util::make_spirv(&bytes),
    });
    let input: Vec<u32> = (0..64).map(|i| i * 0x0101_0101).collect();
    let want: Vec<u32> = input.iter().map(|v| v ^ 0x5a5a_5a5a).collect();
    assert_eq!(run(&device, &queue, &module, &[], &input), want);
}

#[test]
fn glsl_of_another_stage_is_a_validation_error() {
    let (device, _queue) = device();
    let err = validation_error(&device, || {
        let _ = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("vertex.glsl"),
            source: wgpu::ShaderSource::Glsl {
                shader: "#version 450\nvoid main() { gl_Position = vec4(0.0); }\n".into(),
                stage: wgpu::naga::ShaderStage::Vertex,
                defines: &[],
            },
        });
    })
    .expect("an error");
    let text = err.to_string();
    assert!(
        text.contains("another stage") && text.contains("vertex.glsl"),
        "{text}"
    );
}
