//! Run-time WGSL (`ShaderSource::Wgsl`): objects matched by content hash,
//! on-the-fly compilation with aqueduct-shaderc (where clang-19/ld.lld-19
//! are installed), the per-device cache, and override constants resolved
//! at pipeline creation. The LLVM-absent branch is in wgsl_no_llvm.rs (its
//! own process, since it sets AQUEDUCT_LLVM_BIN). The on-disk cache is off
//! in this process.

use std::borrow::Cow;

use aqueduct::*;
use aqueduct_test_harness::facade::*;
use aqueduct_test_harness::run_time_wgsl::{llvm_installed, no_disk_cache};

/// A device, once this process's on-disk WGSL cache is off (the tests
/// check the device's own cache and must not fill the user's).
fn ctx() -> Ctx {
    no_disk_cache();
    aqueduct_test_harness::facade::ctx()
}

fn wgsl_module(c: &Ctx, label: &'static str, text: &str) -> ShaderModule {
    expect_valid(&c.device, || {
        c.device.create_shader_module(ShaderModuleDescriptor {
            label: Some(label),
            source: ShaderSource::Wgsl(Cow::Owned(text.to_string())),
        })
    })
}

fn pipeline_with(
    c: &Ctx,
    module: &ShaderModule,
    entry: Option<&str>,
    constants: &[(&str, f64)],
) -> ComputePipeline {
    c.device
        .create_compute_pipeline(&ComputePipelineDescriptor {
            label: None,
            layout: None,
            module,
            entry_point: entry,
            compilation_options: PipelineCompilationOptions {
                constants,
                ..Default::default()
            },
            cache: None,
        })
}

/// Dispatch `groups` workgroups of `pipeline` over `buffers` (group 0).
fn run(c: &Ctx, pipeline: &ComputePipeline, buffers: &[&Buffer], groups: u32) {
    let bg = bind_group(&c.device, pipeline, 0, buffers);
    let mut enc = c.device.create_command_encoder(&Default::default());
    {
        let mut pass = enc.begin_compute_pass(&Default::default());
        pass.set_pipeline(pipeline);
        pass.set_bind_group(0, &bg, &[]);
        pass.dispatch_workgroups(groups, 1, 1);
    }
    c.queue.submit([enc.finish()]);
}

#[test]
fn facade_hash_matches_aqueduct_shaderc() {
    for text in ["", "abc", include_str!("../shaders/fill_u32.wgsl")] {
        assert_eq!(
            aqueduct::wgsl::source_hash(text),
            aqueduct_shaderc::source_hash(text)
        );
    }
}

/// An object registered under the hash of a text that is not even valid
/// WGSL: the module resolves by hash alone (compiling would fail).
#[test]
fn registered_objects_answer_by_content_hash() {
    let c = ctx();
    let text = "// resolved by content hash, never compiled\n";
    let hash = aqueduct::wgsl::source_hash(text);
    let (code, copy_reflection) = test_shader("copy_u32");
    let code = code.as_slice();
    let mut reflection: serde_json::Value = serde_json::from_str(&copy_reflection).unwrap();
    reflection["source_hash"] = serde_json::Value::String(hash);
    let reflection = reflection.to_string();
    c.device.register_precompiled(code, &reflection).unwrap();
    let module = wgsl_module(&c, "by_hash.wgsl", text);
    assert_eq!(module.entry_points(), ["main"]);

    // It runs: copy_u32 writes dst[i] = src[i] * 3 + i.
    let words: Vec<u32> = (0..256u32).map(|i| i * 7 + 1).collect();
    let src = storage_init(&c.device, &words);
    let dst = storage(&c.device, 1024);
    let p = expect_valid(&c.device, || pipeline_with(&c, &module, Some("main"), &[]));
    run(&c, &p, &[&src, &dst], 4);
    let want: Vec<u32> = words.iter().zip(0..).map(|(w, i)| w * 3 + i).collect();
    assert_eq!(read_words(&c, &dst), want);

    // A registration without a hash, or with garbage, is refused.
    let unhashed = copy_reflection.replace(
        &format!(
            "\"source_hash\": \"{}\",",
            aqueduct::wgsl::source_hash(include_str!("../shaders/tests/copy_u32.wgsl"))
        ),
        "",
    );
    let e = c.device.register_precompiled(code, &unhashed).unwrap_err();
    assert!(
        matches!(
            e,
            ValidationError::Shader(ShaderModuleError::RegisterPrecompiled(
                ShaderLoadError::NoSourceHash
            ))
        ),
        "{e}"
    );
    let e = c
        .device
        .register_precompiled(b"\x7fELF", &reflection)
        .unwrap_err();
    assert!(
        matches!(
            e,
            ValidationError::Shader(ShaderModuleError::RegisterPrecompiled(
                ShaderLoadError::Load { .. }
            ))
        ),
        "{e}"
    );
}

/// The facade's own blit shaders are registered: their WGSL text resolves
/// without compiling.
#[test]
fn facade_blit_sources_resolve_from_the_device() {
    let c = ctx();
    let module = wgsl_module(
        &c,
        "fill_u32.wgsl",
        include_str!("../shaders/fill_u32.wgsl"),
    );
    assert_eq!(module.entry_points(), ["fill_u32"]);
    assert_eq!(c.device.wgsl_compiles(), 0);
}

const SCALE_WGSL: &str = "
override FACTOR: u32;
override OFFSET: u32 = 5u;
@group(0) @binding(0) var<storage, read_write> data: array<u32>;
@compute @workgroup_size(64)
fn scale(@builtin(global_invocation_id) gid: vec3<u32>) {
    data[gid.x] = data[gid.x] * FACTOR + OFFSET;
}
";

#[test]
fn wgsl_compiles_at_run_time_and_is_cached() {
    if !llvm_installed("the run-time compile branch") {
        return;
    }
    let c = ctx();
    let text = "
@group(0) @binding(0) var<storage, read> a: array<u32>;
@group(0) @binding(1) var<storage, read_write> b: array<u32>;
@compute @workgroup_size(32)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    b[gid.x] = a[gid.x] * a[gid.x] + 3u;
}
";
    let module = wgsl_module(&c, "square.wgsl", text);
    assert_eq!(module.entry_points(), ["main"]);
    // Translated at creation; the LLVM step runs on the device's worker
    // thread, which may or may not have started it yet.
    assert!(c.device.wgsl_compiles() <= 1);
    let _first = expect_valid(&c.device, || pipeline_with(&c, &module, None, &[]));
    assert_eq!(c.device.wgsl_compiles(), 1);
    // The same text again: from the device's cache.
    let again = wgsl_module(&c, "square_again.wgsl", text);
    assert_eq!(c.device.wgsl_compiles(), 1);

    let words: Vec<u32> = (0..96u32).map(|i| i ^ 0x55).collect();
    let a = storage_init(&c.device, &words);
    let b = storage(&c.device, 96 * 4);
    let p = expect_valid(&c.device, || pipeline_with(&c, &again, None, &[]));
    run(&c, &p, &[&a, &b], 3);
    let want: Vec<u32> = words.iter().map(|w| w * w + 3).collect();
    assert_eq!(read_words(&c, &b), want);
}

#[test]
fn override_constants_specialise_pipelines() {
    if !llvm_installed("the run-time compile branch") {
        return;
    }
    let c = ctx();
    // FACTOR has no default: the module is valid, its entry point waits.
    let module = wgsl_module(&c, "scale.wgsl", SCALE_WGSL);
    assert!(module.entry_points().is_empty());
    assert_eq!(c.device.wgsl_compiles(), 0);

    let words: Vec<u32> = (0..128u32).collect();
    let check = |constants: &[(&str, f64)], factor: u32, offset: u32| {
        let p = expect_valid(&c.device, || {
            pipeline_with(&c, &module, Some("scale"), constants)
        });
        let buf = storage_init(&c.device, &words);
        run(&c, &p, &[&buf], 2);
        let want: Vec<u32> = words.iter().map(|w| w * factor + offset).collect();
        assert_eq!(read_words(&c, &buf), want, "constants {constants:?}");
    };
    check(&[("FACTOR", 3.0)], 3, 5);
    check(&[("FACTOR", 7.0), ("OFFSET", 1.0)], 7, 1);
    assert_eq!(c.device.wgsl_compiles(), 2);
    // Same constants in another order: the cached variant.
    check(&[("OFFSET", 1.0), ("FACTOR", 7.0)], 7, 1);
    assert_eq!(c.device.wgsl_compiles(), 2);

    // Without a value for FACTOR the pipeline is invalid and says why.
    let needs_constants = |e: &ValidationError| {
        matches!(
            e,
            ValidationError::Pipeline(ComputePipelineError::Variant {
                source: ShaderLoadError::Wgsl(WgslError::NeedsConstants { .. }),
                ..
            })
        )
    };
    expect_validation(&c.device, needs_constants, || {
        pipeline_with(&c, &module, Some("scale"), &[])
    });
    // An unknown constant name is a pipeline error too.
    expect_validation(&c.device, needs_constants, || {
        pipeline_with(
            &c,
            &module,
            Some("scale"),
            &[("FACTOR", 1.0), ("NOPE", 2.0)],
        )
    });
}

/// A registered object built with constants answers only for them.
#[test]
fn registered_variants_match_their_constants() {
    if !llvm_installed("the run-time compile branch") {
        return;
    }
    let c = ctx();
    let options = aqueduct_shaderc::Options {
        defines: vec![("FACTOR".into(), 4.0)],
        file_name: "scale.wgsl".into(),
        targets: vec![target().to_string()],
        ..Default::default()
    };
    let compiled =
        aqueduct_shaderc::compile(aqueduct_shaderc::Source::Wgsl(SCALE_WGSL), &options).unwrap();
    let mut reflection: serde_json::Value =
        serde_json::from_str(&compiled.reflection.to_json().unwrap()).unwrap();
    reflection["constants"] = serde_json::json!({ "FACTOR": 4.0 });
    c.device
        .register_precompiled(&compiled.code_object, &reflection.to_string())
        .unwrap();
    let module = wgsl_module(&c, "scale.wgsl", SCALE_WGSL);
    let words: Vec<u32> = (0..64u32).collect();
    let p = expect_valid(&c.device, || {
        pipeline_with(&c, &module, Some("scale"), &[("FACTOR", 4.0)])
    });
    let buf = storage_init(&c.device, &words);
    run(&c, &p, &[&buf], 1);
    let want: Vec<u32> = words.iter().map(|w| w * 4 + 5).collect();
    assert_eq!(read_words(&c, &buf), want);
    assert_eq!(
        c.device.wgsl_compiles(),
        0,
        "the registered variant was used"
    );
    // Other constants compile a new variant.
    let _ = expect_valid(&c.device, || {
        pipeline_with(&c, &module, Some("scale"), &[("FACTOR", 5.0)])
    });
    assert_eq!(c.device.wgsl_compiles(), 1);
}
