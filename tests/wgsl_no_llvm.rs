//! Run-time WGSL where no LLVM can be found: AQUEDUCT_LLVM_BIN points at an
//! empty directory (set before any device exists; this file is its own
//! test process and has one test, so nothing else sees the variable).
//! Registered objects still resolve and the baseline compiler compiles
//! what it covers; anything else is an error that says how to precompile.

use std::borrow::Cow;

use aqueduct::*;
use aqueduct_test_harness::facade::*;

#[test]
fn without_llvm_wgsl_resolves_by_hash_or_says_how_to_precompile() {
    let empty = std::env::temp_dir().join(format!("aqueduct-no-llvm-{}", std::process::id()));
    std::fs::create_dir_all(&empty).unwrap();
    // SAFETY: set before any other thread of this test process reads the
    // environment (the only test here, before the device is created).
    unsafe { std::env::set_var(aqueduct::wgsl::LLVM_BIN_ENV, &empty) };
    let c = ctx();

    // The facade's own blit shader: registered with the device.
    let fill = expect_valid(&c.device, || {
        c.device.create_shader_module(ShaderModuleDescriptor {
            label: Some("fill_u32.wgsl"),
            source: ShaderSource::Wgsl(Cow::Borrowed(include_str!("../shaders/fill_u32.wgsl"))),
        })
    });
    assert_eq!(fill.entry_points(), ["fill_u32"]);

    // A test shader the baseline compiler does not cover (integer
    // division): registered by the application from its checked-in files.
    let text = include_str!("../shaders/tests/int_div.wgsl");
    let unknown = expect_validation(
        &c.device,
        |e| match e {
            ValidationError::Shader(ShaderModuleError::Create {
                source: ShaderLoadError::Wgsl(w),
                ..
            }) => w.precompile_hint().is_some_and(|h| {
                h.file == "int_div.wgsl" && h.target == target() && h.constants.is_empty()
            }),
            _ => false,
        },
        || {
            c.device.create_shader_module(ShaderModuleDescriptor {
                label: Some("int_div.wgsl"),
                source: ShaderSource::Wgsl(Cow::Borrowed(text)),
            })
        },
    );
    assert!(unknown.entry_points().is_empty());
    let (_, err) = validation_error(&c.device, || {
        c.device.create_shader_module(ShaderModuleDescriptor {
            label: Some("int_div.wgsl"),
            source: ShaderSource::Wgsl(Cow::Borrowed(text)),
        })
    });
    // The message says how to precompile: its wording is the point.
    let msg = err.expect("an error").to_string();
    for needle in [
        &format!(
            "aqueduct-shaderc compile int_div.wgsl --target {}",
            target()
        ),
        "clang-19",
        "register_precompiled",
        &format!("include_shader!(\"shaders/{}/int_div\")", target()),
        &aqueduct::wgsl::source_hash(text),
        aqueduct::wgsl::LLVM_BIN_ENV,
    ] {
        assert!(msg.contains(needle), "{needle:?} missing from: {msg}");
    }

    let (code, reflection) = test_shader("int_div");
    c.device.register_precompiled(&code, &reflection).unwrap();
    let registered = expect_valid(&c.device, || {
        c.device.create_shader_module(ShaderModuleDescriptor {
            label: Some("int_div.wgsl"),
            source: ShaderSource::Wgsl(Cow::Borrowed(text)),
        })
    });
    assert_eq!(registered.entry_points(), ["main"]);

    // A shader the baseline compiler covers (gfx11 targets) compiles with
    // no LLVM at all.
    let baseline = target().starts_with("gfx11");
    if baseline {
        let module = expect_valid(&c.device, || {
            c.device.create_shader_module(ShaderModuleDescriptor {
                label: Some("copy_u32.wgsl"),
                source: ShaderSource::Wgsl(Cow::Borrowed(include_str!(
                    "../shaders/tests/copy_u32.wgsl"
                ))),
            })
        });
        assert_eq!(c.device.wgsl_baseline_compiles(), 1);
        let words: Vec<u32> = (0..64u32).map(|i| i * 11).collect();
        let src = storage_init(&c.device, &words);
        let dst = storage(&c.device, 256);
        let p = expect_valid(&c.device, || auto_pipeline(&c.device, &module, "main"));
        let bg = bind_group(&c.device, &p, 0, &[&src, &dst]);
        let mut enc = c.device.create_command_encoder(&Default::default());
        {
            let mut pass = enc.begin_compute_pass(&Default::default());
            pass.set_pipeline(&p);
            pass.set_bind_group(0, &bg, &[]);
            pass.dispatch_workgroups(1, 1, 1);
        }
        c.queue.submit([enc.finish()]);
        let want: Vec<u32> = words.iter().zip(0..).map(|(w, i)| w * 3 + i).collect();
        assert_eq!(read_words(&c, &dst), want);
    }

    // Override constants with no registered variant: the same advice, with
    // the --define flags to pass. (overrides.wgsl's default variant is
    // registered; SCALE=2 is not.)
    let (code, reflection) = test_shader("overrides");
    c.device.register_precompiled(&code, &reflection).unwrap();
    let overrides = expect_valid(&c.device, || {
        c.device.create_shader_module(ShaderModuleDescriptor {
            label: Some("overrides.wgsl"),
            source: ShaderSource::Wgsl(Cow::Borrowed(include_str!(
                "../shaders/tests/overrides.wgsl"
            ))),
        })
    });
    expect_valid(&c.device, || auto_pipeline(&c.device, &overrides, "main"));
    expect_validation(
        &c.device,
        |e| match e {
            ValidationError::Pipeline(ComputePipelineError::Variant {
                source: ShaderLoadError::Wgsl(w),
                ..
            }) => w
                .precompile_hint()
                .is_some_and(|h| h.constants == [("SCALE".to_string(), 2.0)]),
            _ => false,
        },
        || {
            c.device
                .create_compute_pipeline(&ComputePipelineDescriptor {
                    label: None,
                    layout: None,
                    module: &overrides,
                    entry_point: Some("main"),
                    compilation_options: PipelineCompilationOptions {
                        constants: &[("SCALE", 2.0)],
                        ..Default::default()
                    },
                    cache: None,
                })
        },
    );
    // Only the baseline compiled anything.
    assert_eq!(c.device.wgsl_compiles(), u64::from(baseline));
    let _ = std::fs::remove_dir(&empty);
}
