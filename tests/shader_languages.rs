//! SPIR-V and GLSL compute shaders through the facade
//! (`ShaderSource::SpirV`, `ShaderSource::Glsl`): each gives the same
//! results as the WGSL form of the same shader and the host, GLSL
//! `constant_id`s are pipeline constants by id and `defines` reach its
//! preprocessor, and invalid modules are typed errors naming the language.
//! The SPIR-V comes from naga's SPIR-V writer (a real producer) run on the
//! WGSL form. WGSL compiled here is not cached on disk.

use std::borrow::Cow;

use aqueduct::*;
use aqueduct_test_harness::facade::*;
use aqueduct_test_harness::run_time_wgsl::{llvm_installed, no_disk_cache};

/// A device, once this process's WGSL cache is off; None without LLVM.
fn device() -> Option<Ctx> {
    if !llvm_installed("SPIR-V and GLSL") {
        return None;
    }
    no_disk_cache();
    Some(ctx())
}

fn module(c: &Ctx, label: &'static str, source: ShaderSource<'_>) -> ShaderModule {
    expect_valid(&c.device, || {
        c.device.create_shader_module(ShaderModuleDescriptor {
            label: Some(label),
            source,
        })
    })
}

/// Runs `entry` of `module` over `input` (binding 0, read) into a fresh
/// output (binding 1), `groups` workgroups; returns the output's words.
fn run(
    c: &Ctx,
    module: &ShaderModule,
    entry: &str,
    constants: &[(&str, f64)],
    input: &[u32],
    groups: u32,
) -> Vec<u32> {
    let pipeline = expect_valid(&c.device, || {
        c.device
            .create_compute_pipeline(&ComputePipelineDescriptor {
                label: Some(entry),
                layout: None,
                module,
                entry_point: Some(entry),
                compilation_options: PipelineCompilationOptions {
                    constants,
                    ..Default::default()
                },
                cache: None,
            })
    });
    let src = storage_init(&c.device, input);
    let dst = storage(&c.device, (input.len() * 4) as u64);
    let bg = bind_group(&c.device, &pipeline, 0, &[&src, &dst]);
    let mut enc = c.device.create_command_encoder(&Default::default());
    {
        let mut pass = enc.begin_compute_pass(&Default::default());
        pass.set_pipeline(&pipeline);
        pass.set_bind_group(0, &bg, &[]);
        pass.dispatch_workgroups(groups, 1, 1);
    }
    expect_valid(&c.device, || c.queue.submit([enc.finish()]));
    read_words(c, &dst)
}

/// Reverses each 64-word block through workgroup memory.
const REVERSE_WGSL: &str = r#"
@group(0) @binding(0) var<storage, read> src: array<u32>;
@group(0) @binding(1) var<storage, read_write> dst: array<u32>;
var<workgroup> tile: array<u32, 64>;

@compute @workgroup_size(64)
fn reverse(@builtin(global_invocation_id) gid: vec3<u32>,
           @builtin(local_invocation_index) li: u32,
           @builtin(workgroup_id) wg: vec3<u32>) {
    tile[li] = src[gid.x] * 3u + 1u;
    workgroupBarrier();
    dst[wg.x * 64u + li] = tile[63u - li];
}
"#;

fn spirv_of(wgsl: &str) -> Vec<u32> {
    let module = naga::front::wgsl::parse_str(wgsl).expect("WGSL");
    let info = naga::valid::Validator::new(
        naga::valid::ValidationFlags::all(),
        naga::valid::Capabilities::empty(),
    )
    .validate(&module)
    .expect("valid");
    naga::back::spv::write_vec(&module, &info, &naga::back::spv::Options::default(), None)
        .expect("SPIR-V")
}

#[test]
fn spirv_runs_like_its_wgsl() {
    let Some(c) = device() else { return };
    let input: Vec<u32> = (0..256).map(|i| i * 7 + 3).collect();
    let want: Vec<u32> = input
        .chunks(64)
        .flat_map(|block| block.iter().rev().map(|v| v * 3 + 1).collect::<Vec<_>>())
        .collect();
    let wgsl = module(&c, "reverse.wgsl", ShaderSource::Wgsl(REVERSE_WGSL.into()));
    let words = spirv_of(REVERSE_WGSL);
    let spirv = module(&c, "reverse.spv", ShaderSource::SpirV(Cow::Owned(words)));
    assert_eq!(run(&c, &wgsl, "reverse", &[], &input, 4), want, "WGSL");
    assert_eq!(run(&c, &spirv, "reverse", &[], &input, 4), want, "SPIR-V");
}

/// The GLSL form of an affine map: `SCALE` is a specialization constant
/// (id 0), `OFFSET` a preprocessor define.
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

const AFFINE_WGSL: &str = r#"
@group(0) @binding(0) var<storage, read> src: array<u32>;
@group(0) @binding(1) var<storage, read_write> dst: array<u32>;
@id(0) override SCALE: u32 = 3u;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    dst[gid.x] = src[gid.x] * SCALE + 11u;
}
"#;

#[test]
fn glsl_runs_like_its_wgsl_with_constants_and_defines() {
    let Some(c) = device() else { return };
    let input: Vec<u32> = (0..128).map(|i| i * 5 + 2).collect();
    let glsl = module(
        &c,
        "affine.comp",
        ShaderSource::Glsl {
            shader: AFFINE_GLSL.into(),
            defines: &[("OFFSET", "11u")],
        },
    );
    let wgsl = module(&c, "affine.wgsl", ShaderSource::Wgsl(AFFINE_WGSL.into()));
    for (constants, scale) in [(&[][..], 3u32), (&[("0", 5.0)][..], 5)] {
        let want: Vec<u32> = input.iter().map(|v| v * scale + 11).collect();
        assert_eq!(
            run(&c, &wgsl, "main", constants, &input, 2),
            want,
            "WGSL, scale {scale}"
        );
        assert_eq!(
            run(&c, &glsl, "main", constants, &input, 2),
            want,
            "GLSL, scale {scale}"
        );
    }
}

fn translate_error(c: &Ctx, source: ShaderSource<'_>) -> (ShaderLanguage, String) {
    let mut got = None;
    expect_validation(
        &c.device,
        |e| match e {
            ValidationError::Shader(ShaderModuleError::Create {
                source: ShaderLoadError::Translate { language, source },
                ..
            }) => {
                got = Some((*language, source.to_string()));
                true
            }
            _ => false,
        },
        || {
            c.device.create_shader_module(ShaderModuleDescriptor {
                label: Some("broken"),
                source,
            })
        },
    );
    got.expect("a translate error")
}

#[test]
fn invalid_spirv_and_glsl_are_typed_errors() {
    let Some(c) = device() else { return };
    let garbage: Vec<u32> = (0..64u32)
        .map(|i| 0x0723_0203 ^ i.wrapping_mul(2_654_435_761))
        .collect();
    let (language, _) = translate_error(&c, ShaderSource::SpirV(Cow::Owned(garbage)));
    assert_eq!(language, ShaderLanguage::SpirV);
    let (language, message) = translate_error(
        &c,
        ShaderSource::Glsl {
            shader: "#version 450\nlayout(local_size_x = 1) in;\nvoid main() { uint x = ; }\n"
                .into(),
            defines: &[],
        },
    );
    assert_eq!(language, ShaderLanguage::Glsl);
    assert!(
        message.contains("broken"),
        "the error names the module: {message}"
    );
    // A define the text needs but was not given is the preprocessor's error.
    let (language, _) = translate_error(
        &c,
        ShaderSource::Glsl {
            shader: AFFINE_GLSL.into(),
            defines: &[],
        },
    );
    assert_eq!(language, ShaderLanguage::Glsl);
    // The device still compiles and runs shaders afterwards.
    let wgsl = module(&c, "affine.wgsl", ShaderSource::Wgsl(AFFINE_WGSL.into()));
    assert_eq!(run(&c, &wgsl, "main", &[], &[1; 64], 1), vec![14; 64]);
}
