//! The sanitizer end to end on gfxsim. `aqueduct-run --sanitize`: kernels
//! with a deliberate bug (kernels/src) give their finding as one stderr
//! line `sanitizer <tool>: kernel <name>+0x<offset>: ...` and exit status
//! 3; clean runs give no line and status 0; an unknown tool is refused with
//! the valid names. Through the facade: a submission's findings are
//! `Error::Internal`s (source `InternalError::Sanitizer`) that an error
//! scope catches or the uncaptured-error handler gets, and an access
//! outside every bound range of a buffer is one.

use std::num::NonZeroU64;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::{Arc, Mutex};

use aqueduct::gfxsim::{Access, Finding, SanitizerConfig, SimConfig, Tool};
use aqueduct::*;
use aqueduct_test_harness::facade::{
    Ctx, InternalError, auto_pipeline, bind_group, kernel_module, read_words, sim_ctx_with,
    storage, storage_init, target,
};
use aqueduct_test_support::ScratchDir;

/// `kernels/<isa>/NAME.co`.
fn kernel(name: &str) -> String {
    let path: PathBuf = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("kernels")
        .join(target())
        .join(format!("{name}.co"));
    path.to_str().unwrap().to_string()
}

fn run(args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_aqueduct-run"));
    cmd.args(args)
        .env("AQUEDUCT_DEVICE", "sim")
        .env("AQUEDUCT_SIM_THREADS", "2")
        .env_remove("AQUEDUCT_SIM_SANITIZE");
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.output().expect("aqueduct-run starts")
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// The stderr lines of the sanitizer's findings.
fn findings(out: &Output) -> Vec<String> {
    stderr(out)
        .lines()
        .filter(|l| l.starts_with("sanitizer "))
        .map(str::to_string)
        .collect()
}

/// A scratch directory (removed when dropped) and the path of the output
/// file `aqueduct-run` writes in it.
fn out_file(name: &str) -> (ScratchDir, String) {
    let dir = ScratchDir::new(&format!("sanitize-{name}"));
    let path = dir.join("out.bin").to_str().unwrap().to_string();
    (dir, path)
}

/// vector_copy of 101 elements over 100-element buffers.
fn vector_copy(n: u32, extra: &[&str], env: &[(&str, &str)]) -> Output {
    let co = kernel("vector_copy");
    let (_scratch, out) = out_file("copy");
    let out = format!("dst=out:{out}:400");
    let n_arg = format!("n=u32:{n}");
    let grid = n.to_string();
    let mut args = vec![
        co.as_str(),
        "--grid",
        &grid,
        "--workgroup",
        "32",
        "--arg",
        "src=iota-u32:100",
        "--arg",
        &out,
        "--arg",
        &n_arg,
    ];
    args.extend_from_slice(extra);
    run(&args, env)
}

#[test]
fn an_overrun_is_a_memcheck_line_and_status_3() {
    let out = vector_copy(101, &["--sanitize", "memcheck"], &[]);
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    let lines = findings(&out);
    assert_eq!(lines.len(), 2, "{}", stderr(&out));
    for (line, verb) in lines.iter().zip(["read", "write"]) {
        assert!(
            line.starts_with("sanitizer memcheck: kernel vector_copy+0x"),
            "{line}"
        );
        assert!(
            line.contains(&format!(": {verb} of 4 bytes at 0x"))
                && line.contains("overruns the 400-byte allocation at 0x")
                && line.ends_with("by 4 bytes (workgroup (3,0,0) wave 0 lane 4)"),
            "{line}"
        );
    }
    assert!(
        stderr(&out).contains("aqueduct-run: the sanitizer found 2 problems (2 occurrences)"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn the_environment_turns_the_sanitizer_on_too() {
    let out = vector_copy(101, &[], &[("AQUEDUCT_SIM_SANITIZE", "all")]);
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    assert_eq!(findings(&out).len(), 2, "{}", stderr(&out));
}

#[test]
fn a_clean_run_has_no_findings_and_status_0() {
    let out = vector_copy(100, &["--sanitize", "all"], &[]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(findings(&out), Vec::<String>::new());
}

#[test]
fn a_barrier_only_some_waves_reach_is_a_synccheck_line() {
    let co = kernel("divergent_barrier");
    // Two waves in one workgroup, the barrier reached by the first alone.
    let wave: u32 = if target() == "gfx1100" { 32 } else { 64 };
    let (_scratch, out) = out_file("barrier");
    let out_arg = format!("out=out:{out}:{}", 8 * wave);
    let (grid, input, limit) = (
        (2 * wave).to_string(),
        format!("in=iota-u32:{}", 2 * wave),
        format!("limit=u32:{wave}"),
    );
    let out = run(
        &[
            &co,
            "--grid",
            &grid,
            "--workgroup",
            &grid,
            "--arg",
            &input,
            "--arg",
            &out_arg,
            "--arg",
            &limit,
            "--sanitize",
            "synccheck",
        ],
        &[],
    );
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    let lines = findings(&out);
    assert_eq!(lines.len(), 1, "{}", stderr(&out));
    assert!(
        lines[0].starts_with("sanitizer synccheck: kernel divergent_barrier+0x")
            && lines[0].contains(
                ": workgroup (0,0,0) wave 1 ended while workgroup (0,0,0) wave 0 waits at the \
                 barrier at +0x"
            ),
        "{}",
        lines[0]
    );
}

#[test]
fn an_unknown_tool_is_refused_with_the_valid_ones() {
    let out = vector_copy(100, &["--sanitize", "memcheck,leakcheck"], &[]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).starts_with(
            "error: --sanitize: unknown sanitizer tool `leakcheck` (the tools are memcheck, \
             racecheck, initcheck, synccheck, all, racecheck-global)"
        ),
        "{}",
        stderr(&out)
    );
    let kfd = vector_copy(100, &["--sanitize", "all", "--device", "kfd"], &[]);
    assert_eq!(kfd.status.code(), Some(2), "{}", stderr(&kfd));
    assert!(
        stderr(&kfd).starts_with("error: --sanitize runs on gfxsim; --device kfd has no sanitizer"),
        "{}",
        stderr(&kfd)
    );
}

/// A kernel built with `-g`: aqueduct-run adds the source line of the
/// finding's instruction (its DWARF line table) after the run. Needs
/// clang-19 and ld.lld-19 (skipped without them).
#[test]
fn a_finding_names_its_source_line_with_debug_info() {
    let include = Path::new(env!("CARGO_MANIFEST_DIR")).join("include");
    let dir = ScratchDir::new("sanitize-line");
    // Line 4 stores one element past the buffer when n is its length.
    let source = "kernel void over(global uint* p, uint n)
{
    uint i = get_global_id(0);
    if (i <= n) p[i] = i;
}
";
    std::fs::write(dir.join("over.cl"), source).unwrap();
    let tool = |name: &str, args: &[&str]| {
        let mut command = Command::new(name);
        command.current_dir(&dir).args(args);
        if name == "clang-19" {
            command
                .arg("-I")
                .arg(&include)
                .args(["-include", "aqueduct_device.h"]);
        }
        command.output().ok().filter(|o| o.status.success())
    };
    let mcpu = format!("-mcpu={}", target());
    let cl = [
        "-x",
        "cl",
        "-cl-std=CL2.0",
        "-target",
        "amdgcn-amd-amdhsa",
        &mcpu,
        "-nogpulib",
        "-cl-kernel-arg-info",
        "-O1",
        "-g",
        "-c",
        "over.cl",
        "-o",
        "over.o",
    ];
    if tool("clang-19", &cl).is_none()
        || tool("ld.lld-19", &["-shared", "over.o", "-o", "over.co"]).is_none()
    {
        eprintln!("skipped: clang-19 / ld.lld-19 not installed or failed");
        return;
    }
    let co = dir.join("over.co");
    let out = run(
        &[
            co.to_str().unwrap(),
            "--grid",
            "33",
            "--workgroup",
            "32",
            "--arg",
            "p=zeros:128",
            "--arg",
            "n=u32:32",
            "--sanitize",
            "memcheck",
        ],
        &[],
    );
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    let lines = findings(&out);
    assert_eq!(lines.len(), 1, "{}", stderr(&out));
    assert!(
        lines[0].starts_with("sanitizer memcheck: kernel over+0x")
            && lines[0].contains("overruns the 128-byte allocation"),
        "{}",
        lines[0]
    );
    assert!(
        stderr(&out).contains("  memcheck over+0x") && stderr(&out).contains(" at over.cl:4"),
        "{}",
        stderr(&out)
    );
}

/// A facade device on gfxsim with the sanitizer's `tools`.
fn sanitized(tools: SanitizerConfig) -> Ctx {
    sim_ctx_with(SimConfig {
        sanitize: tools,
        ..SimConfig::default()
    })
    .0
}

/// vector_copy of `n` elements between `src` and `dst` bound by `group`,
/// in workgroups of 64, submitted and waited for.
fn copy(c: &Ctx, group: impl FnOnce(&ComputePipeline) -> BindGroup, n: u32) {
    let module = kernel_module(&c.device, "vector_copy", [64, 1, 1]);
    let pipeline = auto_pipeline(&c.device, &module, "vector_copy");
    let group = group(&pipeline);
    let mut encoder = c.device.create_command_encoder(&Default::default());
    {
        let mut pass = encoder.begin_compute_pass(&Default::default());
        pass.set_pipeline(&pipeline);
        pass.set_bind_group(0, &group, &[]);
        pass.set_immediates(0, &n.to_le_bytes());
        pass.dispatch_workgroups(n.div_ceil(64), 1, 1);
    }
    let index = c.queue.submit([encoder.finish()]);
    c.device
        .poll(PollType::Wait {
            submission_index: Some(index),
            timeout: Some(std::time::Duration::from_secs(60)),
        })
        .expect("the copy completes");
}

/// The sanitizer finding behind `e`.
fn sanitizer_error(e: &Error) -> &aqueduct::error::SanitizerError {
    assert_eq!(e.filter(), ErrorFilter::Internal, "{e}");
    match std::error::Error::source(e).and_then(|s| s.downcast_ref::<InternalError>()) {
        Some(InternalError::Sanitizer(f)) => f,
        _ => panic!("not a sanitizer finding: {e:?}"),
    }
}

/// vector_copy told 5 elements over 4-element buffers: the first finding of
/// the submission (the read past `src`) reaches the Internal error scope
/// with its tool, kernel, offset and address; a Validation scope catches
/// nothing; the right bound gives no error.
#[test]
fn a_finding_is_an_internal_error_an_error_scope_catches() {
    let c = sanitized(SanitizerConfig::off().with(Tool::Memcheck));
    let src = storage_init(&c.device, &[1, 2, 3, 4]);
    let dst = storage(&c.device, 16);
    let group = |p: &ComputePipeline| bind_group(&c.device, p, 0, &[&src, &dst]);
    let internal = c.device.push_error_scope(ErrorFilter::Internal);
    let validation = c.device.push_error_scope(ErrorFilter::Validation);
    copy(&c, group, 4);
    assert!(validation.pop_now().is_none());
    assert!(internal.pop_now().is_none());

    let internal = c.device.push_error_scope(ErrorFilter::Internal);
    let validation = c.device.push_error_scope(ErrorFilter::Validation);
    copy(&c, group, 5);
    assert!(validation.pop_now().is_none());
    let err = internal.pop_now().expect("the overrun is reported");
    let found = sanitizer_error(&err);
    assert_eq!(
        (found.tool, &*found.kernel, found.count),
        (Tool::Memcheck, "vector_copy", 1)
    );
    let Finding::GlobalOverrun {
        at,
        access,
        address,
        allocation,
        overrun,
        ..
    } = found.finding
    else {
        panic!("{found:?}");
    };
    assert_eq!((access, overrun), (Access::Read, 4));
    assert_eq!((allocation.size, address), (16, allocation.base + 16));
    assert_eq!(found.address, Some(address));
    assert_eq!(found.offset, at.offset);
    assert_eq!((at.workgroup, at.lane), ([0, 0, 0], Some(4)));
    // `src` is bound at binding 0 of group 0 (vector_copy's first pointer).
    assert_eq!(
        found.binding,
        Some(BindingSlot {
            group: 0,
            binding: 0
        })
    );
    let message = err.to_string();
    assert!(
        message.starts_with(&format!(
            "Internal error: sanitizer memcheck: kernel vector_copy+{:#x}: read of 4 bytes at \
             {address:#x} overruns the 16-byte allocation",
            at.offset
        )) && message.ends_with(&format!(
            " (binding 0 of group 0) (submission {})",
            found.submission
        )),
        "{message}"
    );
}

/// With no scope open, each finding of the submission (the read past
/// `src`, the write past `dst`) goes to the uncaptured-error handler.
#[test]
fn uncaptured_findings_go_to_the_handler() {
    let c = sanitized(SanitizerConfig::all());
    let errors = Arc::new(Mutex::new(Vec::new()));
    let sink = errors.clone();
    c.device.on_uncaptured_error(Arc::new(move |e: Error| {
        sink.lock().unwrap().push(e.to_string())
    }));
    let src = storage_init(&c.device, &[1, 2, 3, 4]);
    let dst = storage(&c.device, 16);
    copy(&c, |p| bind_group(&c.device, p, 0, &[&src, &dst]), 5);
    let errors = errors.lock().unwrap().clone();
    assert_eq!(errors.len(), 2, "{errors:#?}");
    for (e, verb) in errors.iter().zip(["read", "write"]) {
        assert!(
            e.starts_with("Internal error: sanitizer memcheck: kernel vector_copy+0x")
                && e.contains(&format!(": {verb} of 4 bytes at 0x"))
                && e.contains("overruns the 16-byte allocation"),
            "{e}"
        );
    }
}

/// Without the sanitizer the same overrun reports nothing.
#[test]
fn without_the_sanitizer_a_submission_reports_no_finding() {
    let c = sanitized(SanitizerConfig::off());
    let src = storage_init(&c.device, &[1, 2, 3, 4]);
    let dst = storage(&c.device, 16);
    let scope = c.device.push_error_scope(ErrorFilter::Internal);
    copy(&c, |p| bind_group(&c.device, p, 0, &[&src, &dst]), 5);
    assert!(scope.pop_now().is_none());
}

/// `src` and `dst` are two 256-byte ranges of one 1024-byte buffer: a copy
/// of 65 elements reads the byte after `src`'s range and writes the one
/// after `dst`'s, both inside the buffer, so no allocation is overrun; each
/// is a memcheck finding naming the bound range it left. 64 elements
/// stay inside both ranges.
#[test]
fn an_access_outside_the_bound_range_is_a_finding() {
    let c = sanitized(SanitizerConfig::off().with(Tool::Memcheck));
    let errors = Arc::new(Mutex::new(Vec::new()));
    let sink = errors.clone();
    c.device
        .on_uncaptured_error(Arc::new(move |e: Error| sink.lock().unwrap().push(e)));
    let buffer = storage_init(&c.device, &(0..256).collect::<Vec<u32>>());
    let range = |offset| {
        BindingResource::Buffer(BufferBinding {
            buffer: &buffer,
            offset,
            size: NonZeroU64::new(256),
        })
    };
    let group = |p: &ComputePipeline| {
        c.device.create_bind_group(&BindGroupDescriptor {
            label: None,
            layout: &p.get_bind_group_layout(0),
            entries: &[
                BindGroupEntry {
                    binding: 0,
                    resource: range(0),
                },
                BindGroupEntry {
                    binding: 1,
                    resource: range(512),
                },
            ],
        })
    };
    copy(&c, group, 64);
    assert_eq!(errors.lock().unwrap().len(), 0);
    copy(&c, group, 65);
    let errors = std::mem::take(&mut *errors.lock().unwrap());
    assert_eq!(errors.len(), 2, "{errors:#?}");
    let mut seen = Vec::new();
    for e in &errors {
        let found = sanitizer_error(e);
        let Finding::BindingOverrun {
            at,
            access,
            address,
            size,
            allocation,
            ref binding,
        } = found.finding
        else {
            panic!("{found:?}");
        };
        // Work-item 64 is lane 0 of workgroup 1.
        assert_eq!((at.workgroup, at.lane, size), ([1, 0, 0], Some(0), 4));
        assert_eq!(allocation.size, 1024);
        assert_eq!(address, binding.end);
        seen.push((
            access,
            binding.start - allocation.base,
            binding.end - binding.start,
            found.binding.map(|s| (s.group, s.binding)),
        ));
        assert!(
            e.to_string().contains(&format!(
                "is outside every range the dispatch binds of the 1024-byte allocation at \
                 {:#x} (nearest bound range {:#x}..{:#x})",
                allocation.base, binding.start, binding.end
            )),
            "{e}"
        );
    }
    seen.sort_by_key(|&(access, ..)| access == Access::Write);
    assert_eq!(
        seen,
        vec![
            (Access::Read, 0, 256, Some((0, 0))),
            (Access::Write, 512, 256, Some((0, 1)))
        ]
    );
}

/// Every workgroup stores its id to the same words of `out`.
const RACY_WGSL: &str = "
@group(0) @binding(0) var<storage, read_write> out: array<u32>;

@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) i: u32, @builtin(workgroup_id) wg: vec3u) {
    out[i] = wg.x;
}
";

/// racecheck-global through the facade: a WGSL kernel whose workgroups
/// store to the same words is one `racecheck-global` finding in the
/// Internal scope, naming the kernel and a byte of the buffer.
#[test]
fn workgroups_storing_to_the_same_words_race_in_wgsl() {
    if !aqueduct_test_harness::run_time_wgsl::llvm_installed("racecheck-global") {
        return;
    }
    aqueduct_test_harness::run_time_wgsl::no_disk_cache();
    let c = sanitized(SanitizerConfig::off().with(Tool::RacecheckGlobal));
    let module = c.device.create_shader_module(ShaderModuleDescriptor {
        label: Some("racy.wgsl"),
        source: ShaderSource::Wgsl(RACY_WGSL.into()),
    });
    let pipeline = auto_pipeline(&c.device, &module, "main");
    let out = storage(&c.device, 256);
    let group = bind_group(&c.device, &pipeline, 0, &[&out]);
    let internal = c.device.push_error_scope(ErrorFilter::Internal);
    let mut encoder = c.device.create_command_encoder(&Default::default());
    {
        let mut pass = encoder.begin_compute_pass(&Default::default());
        pass.set_pipeline(&pipeline);
        pass.set_bind_group(0, &group, &[]);
        pass.dispatch_workgroups(4, 1, 1);
    }
    let index = c.queue.submit([encoder.finish()]);
    c.device
        .poll(PollType::Wait {
            submission_index: Some(index),
            timeout: Some(std::time::Duration::from_secs(60)),
        })
        .unwrap();
    let err = internal.pop_now().expect("the race is reported");
    let found = sanitizer_error(&err);
    assert_eq!(found.tool, Tool::RacecheckGlobal);
    // The entry point's name, not the batch-compiled symbol (`m1.main`).
    assert_eq!(&*found.kernel, "main");
    let address = found.address.expect("a global byte");
    let Finding::GlobalRace { at, earlier, .. } = found.finding else {
        panic!("{found:?}");
    };
    assert_ne!(at.workgroup, earlier.workgroup);
    assert!(
        err.to_string().contains(&format!(
            "sanitizer racecheck-global: kernel {}+0x",
            found.kernel
        )),
        "{err}"
    );
    let words = read_words(&c, &out);
    assert!(words.iter().all(|&w| w < 4), "{words:?}");
    assert!(address.is_multiple_of(4));
}

/// `aqueduct-run --sanitize racecheck-global` on global_race: one line,
/// status 3; `all` does not include the tool.
#[test]
fn a_global_race_is_a_racecheck_global_line() {
    let co = kernel("global_race");
    let (_scratch, out) = out_file("global-race");
    let out_arg = format!("out=out:{out}:512");
    let args = |tools| {
        vec![
            co.clone(),
            "--grid".into(),
            "256".into(),
            "--workgroup".into(),
            "64".into(),
            "--arg".into(),
            out_arg.clone(),
            "--arg".into(),
            "flags=zeros:4".into(),
            "--arg".into(),
            "check=u32:0".into(),
            "--sanitize".into(),
            tools,
        ]
    };
    let racy = args("racecheck-global".to_string());
    let out = run(&racy.iter().map(String::as_str).collect::<Vec<_>>(), &[]);
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    let lines = findings(&out);
    assert_eq!(lines.len(), 1, "{}", stderr(&out));
    assert!(
        lines[0].starts_with("sanitizer racecheck-global: kernel global_race+0x")
            && lines[0].contains("races with the write at +0x"),
        "{}",
        lines[0]
    );
    let all = args("all".to_string());
    let out = run(&all.iter().map(String::as_str).collect::<Vec<_>>(), &[]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
}
