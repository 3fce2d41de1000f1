//! Run-time WGSL compiled in batches: create_shader_module translates
//! (errors surface there), the first pipeline that needs a module compiles
//! every waiting module at once, dropped modules leave the batch, override
//! variants compile on their own, and a later device loads each module of
//! a batch from the on-disk cache. The cache lives in a directory of this
//! test's own (`AQUEDUCT_SHADER_CACHE`, set before any device exists).

use std::borrow::Cow;
use std::path::Path;
use std::sync::Once;

use aqueduct::shader_disk_cache::SHADER_CACHE_ENV;
use aqueduct::*;
use aqueduct_test_harness::facade::*;

/// A device whose WGSL caches on disk in this process's own directory.
fn device() -> Option<Ctx> {
    static CACHE_DIR: Once = Once::new();
    if !aqueduct_shaderc::Toolchain::available() {
        eprintln!("clang-19/ld.lld-19 not installed: batch compiles are not tested");
        return None;
    }
    CACHE_DIR.call_once(|| {
        // Under target/ (CARGO_TARGET_TMPDIR): the directory lives as long
        // as the process, so nothing removes it, and `cargo clean` should.
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
            .join(format!("shader-batch-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        // SAFETY: every test calls this before it does anything else, so no
        // other thread of this process reads the environment meanwhile.
        unsafe { std::env::set_var(SHADER_CACHE_ENV, &dir) };
    });
    Some(ctx())
}

/// A distinct module per (`test`, `k`): out[i] = helper(i) with a
/// workgroup variable and helper named alike in every module.
fn module_text(test: &str, k: u32) -> String {
    format!(
        "// tests/shader_batch.rs: {test}
@group(0) @binding(0) var<storage, read_write> out: array<u32>;
var<workgroup> tile: array<u32, 64>;

fn helper(x: u32) -> u32 {{
    return x * {k}u + 1u;
}}

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(local_invocation_index) li: u32) {{
    tile[li] = helper(gid.x);
    workgroupBarrier();
    out[gid.x] = tile[li];
}}
"
    )
}

fn create(c: &Ctx, text: &str) -> ShaderModule {
    expect_valid(&c.device, || {
        c.device.create_shader_module(ShaderModuleDescriptor {
            label: Some("batch.wgsl"),
            source: ShaderSource::Wgsl(Cow::Owned(text.to_string())),
        })
    })
}

fn pipeline(c: &Ctx, module: &ShaderModule, constants: &[(&str, f64)]) -> ComputePipeline {
    expect_valid(&c.device, || {
        c.device
            .create_compute_pipeline(&ComputePipelineDescriptor {
                label: None,
                layout: None,
                module,
                entry_point: Some("main"),
                compilation_options: PipelineCompilationOptions {
                    constants,
                    ..Default::default()
                },
                cache: None,
            })
    })
}

/// out[i] for i < 128 after one dispatch of two workgroups.
fn run(c: &Ctx, p: &ComputePipeline) -> Vec<u32> {
    let buffer = storage(&c.device, 128 * 4);
    let bg = bind_group(&c.device, p, 0, &[&buffer]);
    let mut enc = c.device.create_command_encoder(&Default::default());
    {
        let mut pass = enc.begin_compute_pass(&Default::default());
        pass.set_pipeline(p);
        pass.set_bind_group(0, &bg, &[]);
        pass.dispatch_workgroups(2, 1, 1);
    }
    c.queue.submit([enc.finish()]);
    read_words(c, &buffer)
}

fn expected(k: u32) -> Vec<u32> {
    (0..128).map(|i| i * k + 1).collect()
}

#[test]
fn waiting_modules_compile_together_at_the_first_pipeline() {
    let Some(c) = device() else { return };
    let ks = [2u32, 3, 5, 7, 11];
    let modules: Vec<ShaderModule> = ks
        .iter()
        .map(|&k| create(&c, &module_text("together", k)))
        .collect();
    assert_eq!(c.device.wgsl_compiles(), 0, "creation translates only");
    assert_eq!(modules[0].entry_points(), ["main"]);
    let third = pipeline(&c, &modules[2], &[]);
    assert_eq!(
        c.device.wgsl_compiles(),
        ks.len() as u64,
        "one pipeline compiled every waiting module"
    );
    assert_eq!(run(&c, &third), expected(5));
    for (module, &k) in modules.iter().zip(&ks) {
        let p = pipeline(&c, module, &[]);
        assert_eq!(run(&c, &p), expected(k), "k = {k}");
    }
    assert_eq!(c.device.wgsl_compiles(), ks.len() as u64);

    // Another device over the same on-disk cache: every module loads from
    // its own entry at creation (they share the batch's object).
    let Some(warm) = device() else { return };
    let again: Vec<ShaderModule> = ks
        .iter()
        .map(|&k| create(&warm, &module_text("together", k)))
        .collect();
    assert_eq!(warm.device.wgsl_compiles(), ks.len() as u64);
    assert_eq!(warm.device.wgsl_disk_cache_hits(), ks.len() as u64);
    for (module, &k) in again.iter().zip(&ks) {
        let p = pipeline(&warm, module, &[]);
        assert_eq!(run(&warm, &p), expected(k), "warm, k = {k}");
    }
}

#[test]
fn a_module_dropped_while_waiting_is_not_compiled() {
    let Some(c) = device() else { return };
    let kept = create(&c, &module_text("dropped", 3));
    let dropped = create(&c, &module_text("dropped", 4));
    drop(dropped);
    let p = pipeline(&c, &kept, &[]);
    assert_eq!(c.device.wgsl_compiles(), 1, "only the kept module compiled");
    assert_eq!(run(&c, &p), expected(3));
}

#[test]
fn shader_errors_still_surface_at_module_creation() {
    let Some(c) = device() else { return };
    let creation_error = |e: &ValidationError| {
        matches!(
            e,
            ValidationError::Shader(ShaderModuleError::Create {
                source: ShaderLoadError::Wgsl(WgslError::Compile(_)),
                ..
            })
        )
    };
    let parse = "@compute @workgroup_size(64) fn main() { let x: u32 = ; }";
    let module = expect_validation(&c.device, creation_error, || {
        c.device.create_shader_module(ShaderModuleDescriptor {
            label: Some("parse.wgsl"),
            source: ShaderSource::Wgsl(Cow::Borrowed(parse)),
        })
    });
    assert!(module.entry_points().is_empty());
    // 80 KiB of workgroup memory: past the limit every target has.
    let too_big = "var<workgroup> big: array<u32, 20480>;
@group(0) @binding(0) var<storage, read_write> out: array<u32>;
@compute @workgroup_size(64) fn main(@builtin(local_invocation_index) li: u32) {
    big[li] = li;
    workgroupBarrier();
    out[li] = big[63u - li];
}";
    expect_validation(&c.device, creation_error, || {
        c.device.create_shader_module(ShaderModuleDescriptor {
            label: Some("too_big.wgsl"),
            source: ShaderSource::Wgsl(Cow::Borrowed(too_big)),
        })
    });
    assert_eq!(c.device.wgsl_compiles(), 0);
}

#[test]
fn pipeline_constants_compile_their_own_variant() {
    let Some(c) = device() else { return };
    let text = "// tests/shader_batch.rs: constants
override K: u32 = 6u;
@group(0) @binding(0) var<storage, read_write> out: array<u32>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    out[gid.x] = gid.x * K + 1u;
}";
    let module = create(&c, text);
    let defaults = pipeline(&c, &module, &[]);
    assert_eq!(c.device.wgsl_compiles(), 1);
    let nine = pipeline(&c, &module, &[("K", 9.0)]);
    assert_eq!(c.device.wgsl_compiles(), 2);
    assert_eq!(run(&c, &defaults), expected(6));
    assert_eq!(run(&c, &nine), expected(9));
}

/// The variable that makes this binary's `llvm_failure_child` run.
const CHILD_ENV: &str = "AQUEDUCT_SHADER_BATCH_TEST_CHILD";

/// An LLVM failure (clang-19 replaced by a script that fails) reaches the
/// pipelines of the modules it concerns, typed, and not module creation.
/// Runs in a child process: the tools' directory is process-wide.
#[test]
fn an_llvm_failure_reaches_the_pipelines_that_need_the_module() {
    if !aqueduct_shaderc::Toolchain::available() {
        return;
    }
    let tools = std::env::temp_dir().join(format!(
        "aqueduct-shader-batch-tools-{}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&tools);
    std::fs::create_dir_all(&tools).unwrap();
    let clang = tools.join("clang-19");
    std::fs::write(
        &clang,
        "#!/bin/sh\necho 'clang-19: this build always fails' >&2\nexit 1\n",
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&clang, std::fs::Permissions::from_mode(0o755)).unwrap();
    let lld = aqueduct_shaderc::Toolchain::find(None).unwrap().lld;
    std::os::unix::fs::symlink(lld, tools.join("ld.lld-19")).unwrap();
    let output = std::process::Command::new(std::env::current_exe().unwrap())
        .args(["llvm_failure_child", "--exact", "--ignored", "--nocapture"])
        .env(CHILD_ENV, "1")
        .env("AQUEDUCT_LLVM_BIN", &tools)
        .env(SHADER_CACHE_ENV, "off")
        .output()
        .unwrap();
    let _ = std::fs::remove_dir_all(&tools);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success() && stdout.contains("1 passed"),
        "child failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
}

#[test]
#[ignore = "run by an_llvm_failure_reaches_the_pipelines_that_need_the_module"]
fn llvm_failure_child() {
    if std::env::var_os(CHILD_ENV).is_none() {
        return;
    }
    let c = ctx();
    // Both translate: creation reports nothing.
    let a = create(&c, &module_text("llvm failure", 2));
    let b = create(&c, &module_text("llvm failure", 3));
    let llvm_failed = |e: &ValidationError| match e {
        ValidationError::Pipeline(ComputePipelineError::Variant {
            source: ShaderLoadError::Wgsl(WgslError::Compile(e)),
            ..
        }) => e.to_string().contains("this build always fails"),
        _ => false,
    };
    for module in [&a, &b, &a] {
        expect_validation(&c.device, llvm_failed, || {
            c.device
                .create_compute_pipeline(&ComputePipelineDescriptor {
                    label: None,
                    layout: None,
                    module,
                    entry_point: Some("main"),
                    compilation_options: Default::default(),
                    cache: None,
                })
        });
    }
    assert_eq!(c.device.wgsl_compiles(), 2, "one batch for both modules");
}
