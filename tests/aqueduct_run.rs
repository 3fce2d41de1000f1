//! aqueduct-run end to end on gfxsim: real kernels from kernels/, results
//! checked on the host, and every argument mismatch a clear error.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use aqueduct_test_harness::facade::target;
use aqueduct_test_support::ScratchDir;

fn kernels() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("kernels")
}

/// A checked-in kernel (kernels/) built for [`target`].
fn kernel(file: &str) -> PathBuf {
    kernels().join(target()).join(file)
}

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_aqueduct-run"))
        .args(args)
        .env("AQUEDUCT_DEVICE", "sim")
        .env("AQUEDUCT_SIM_THREADS", "2")
        .output()
        .expect("aqueduct-run starts")
}

fn text(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

fn temp_dir(name: &str) -> ScratchDir {
    ScratchDir::new(&format!("run-{name}"))
}

#[test]
fn saxpy_writes_the_host_result() {
    let dir = temp_dir("saxpy");
    let n = 1000u32; // not a multiple of the workgroup: a partial last group
    let x: Vec<f32> = (0..n).map(|i| i as f32 * 0.5).collect();
    let x_file = dir.join("x.bin");
    std::fs::write(&x_file, bytemuck::cast_slice::<f32, u8>(&x)).unwrap();
    let y_file = dir.join("y.bin");
    let co = kernel("saxpy.co");
    let out = run(&[
        co.to_str().unwrap(),
        "--kernel",
        "saxpy",
        "--grid",
        &n.to_string(),
        "--workgroup",
        "256",
        "--arg",
        "a=f32:3",
        "--arg",
        &format!("x=@{}", x_file.display()),
        "--arg",
        &format!("2=out:{}:{}", y_file.display(), n * 4),
        "--arg",
        &format!("n=u32:{n}"),
    ]);
    assert!(out.status.success(), "{}", text(&out));
    assert!(text(&out).contains("dispatch time"), "{}", text(&out));
    let y = std::fs::read(&y_file).unwrap();
    let y: &[f32] = bytemuck::cast_slice(&y);
    // y starts zeroed, so y = 3 * x.
    for i in 0..n as usize {
        assert_eq!(y[i], 3.0 * x[i], "y[{i}]");
    }
}

#[test]
fn fill3d_over_a_3d_grid_from_a_multi_kernel_object() {
    let dir = temp_dir("fill3d");
    let (w, h, d) = (9u32, 5u32, 3u32);
    let out_file = dir.join("out.bin");
    let co = kernel("multi.co");
    let out = run(&[
        co.to_str().unwrap(),
        "--kernel=fill3d",
        "--grid",
        &format!("{w},{h},{d}"),
        "--workgroup",
        "4,2,2",
        "--arg",
        &format!("0=out:{}:{}", out_file.display(), w * h * d * 4),
        "--arg",
        &format!("W=u32:{w}"),
        "--arg",
        &format!("H=u32:{h}"),
        "--arg",
        &format!("D=u32:{d}"),
    ]);
    assert!(out.status.success(), "{}", text(&out));
    let bytes = std::fs::read(&out_file).unwrap();
    let got: &[u32] = bytemuck::cast_slice(&bytes);
    let want: Vec<u32> = (0..w * h * d).collect();
    assert_eq!(got, &want[..]);
}

#[test]
fn list_prints_kernels_and_arguments() {
    let co = kernel("multi.co");
    let out = run(&[co.to_str().unwrap(), "--list"]);
    assert!(out.status.success(), "{}", text(&out));
    let t = text(&out);
    for needle in ["vector_copy", "saxpy", "fill3d", "0: a:", "3: n:"] {
        assert!(t.contains(needle), "missing {needle:?} in:\n{t}");
    }
}

#[test]
fn argument_mismatches_are_clear_errors() {
    let co = kernel("saxpy.co");
    let co = co.to_str().unwrap();
    let base = [co, "--kernel", "saxpy", "--grid", "64", "--workgroup", "64"];
    let full = [
        "--arg",
        "a=f32:1",
        "--arg",
        "x=zeros:256",
        "--arg",
        "y=zeros:256",
        "--arg",
        "n=u32:64",
    ];
    let cases: Vec<(Vec<&str>, &str)> = vec![
        // An unknown argument name lists the real ones.
        (vec!["--arg", "alpha=f32:1"], "no argument named \"alpha\""),
        // A scalar of the wrong size.
        (
            vec![
                "--arg",
                "a=f64:1",
                "--arg",
                "x=zeros:4",
                "--arg",
                "y=zeros:4",
                "--arg",
                "n=u32:1",
            ],
            "is 4 bytes",
        ),
        // A buffer spec for a by-value argument.
        (
            vec![
                "--arg",
                "a=zeros:4",
                "--arg",
                "x=zeros:4",
                "--arg",
                "y=zeros:4",
                "--arg",
                "n=u32:1",
            ],
            "passed by value",
        ),
        // A missing argument.
        (
            vec![
                "--arg",
                "a=f32:1",
                "--arg",
                "x=zeros:4",
                "--arg",
                "y=zeros:4",
            ],
            "missing --arg for argument 3",
        ),
        // An index past the end.
        (vec!["--arg", "7=u32:1"], "no argument 7"),
        // The same argument twice.
        (vec!["--arg", "a=f32:1", "--arg", "0=f32:2"], "given twice"),
    ];
    for (extra, needle) in cases {
        let mut args: Vec<&str> = base.to_vec();
        args.extend(extra.iter());
        let out = run(&args);
        assert!(!out.status.success(), "{args:?} should fail");
        assert!(
            text(&out).contains(needle),
            "{args:?}: expected {needle:?} in:\n{}",
            text(&out)
        );
    }
    // A kernel that is not there lists the ones that are.
    let mut args: Vec<&str> = vec![co, "--kernel", "saxpi", "--grid", "64", "--workgroup", "64"];
    args.extend(full.iter());
    let out = run(&args);
    assert!(!out.status.success());
    assert!(
        text(&out).contains("saxpi") && text(&out).contains("saxpy"),
        "{}",
        text(&out)
    );
    // A workgroup larger than the hardware allows.
    let out = run(&[
        co,
        "--kernel",
        "saxpy",
        "--grid",
        "2048",
        "--workgroup",
        "2048",
    ]);
    assert!(!out.status.success());
    assert!(text(&out).contains("at most 1024"), "{}", text(&out));
    // A grid of more work-items than the agent's grid max size (2^32 - 1)
    // is refused before anything reaches the queue.
    let mut args: Vec<&str> = vec![
        co,
        "--kernel",
        "saxpy",
        "--grid",
        "65536,65536",
        "--workgroup",
        "64",
    ];
    args.extend(full.iter());
    let out = run(&args);
    assert!(!out.status.success());
    assert!(
        text(&out).contains("4294967296 work-items") && text(&out).contains("grid max size"),
        "{}",
        text(&out)
    );
    assert!(!text(&out).contains("queue"), "{}", text(&out));
    // Not a code object at all.
    let bogus_dir = temp_dir("bogus");
    let bogus = bogus_dir.join("not.co");
    std::fs::write(&bogus, b"hello, not an ELF").unwrap();
    let out = run(&[bogus.to_str().unwrap(), "--list"]);
    assert!(!out.status.success());
    assert!(!text(&out).contains("panicked"), "{}", text(&out));
    // Usage errors exit 2 with the usage text.
    let out = run(&[co, "--grid"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(text(&out).contains("usage:"), "{}", text(&out));
}

#[test]
fn scalar_values_reach_the_kernel() {
    let dir = temp_dir("oob");
    let file = dir.join("target.bin");
    let co = kernel("oob_write.co");
    let out = run(&[
        co.to_str().unwrap(),
        "--grid",
        "32",
        "--workgroup",
        "32",
        "--arg",
        &format!("target=out:{}:4", file.display()),
        "--arg",
        "value=u32:0xdeadbeef",
    ]);
    assert!(out.status.success(), "{}", text(&out));
    assert_eq!(std::fs::read(&file).unwrap(), 0xdeadbeefu32.to_le_bytes());
}

/// aqueduct-run with `AQUEDUCT_DEVICE` set to `device_env`.
fn run_with_device_env(device_env: &str, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_aqueduct-run"))
        .args(args)
        .env("AQUEDUCT_DEVICE", device_env)
        .env("AQUEDUCT_SIM_THREADS", "2")
        .output()
        .expect("aqueduct-run starts")
}

#[test]
fn a_timeout_beyond_duration_waits_without_a_limit() {
    let co = kernel("saxpy.co");
    for timeout in ["1e300", "18446744073709551616"] {
        let out = run(&[
            co.to_str().unwrap(),
            "--grid",
            "64",
            "--workgroup",
            "64",
            "--arg",
            "a=f32:1",
            "--arg",
            "x=zeros:256",
            "--arg",
            "y=zeros:256",
            "--arg",
            "n=u32:64",
            "--timeout",
            timeout,
        ]);
        assert!(out.status.success(), "--timeout {timeout}: {}", text(&out));
        assert!(!text(&out).contains("panicked"), "{}", text(&out));
    }
}

#[test]
fn the_device_flag_overrides_the_environment() {
    let co = kernel("saxpy.co");
    let co = co.to_str().unwrap();
    // A bad environment value does not matter when the flag is given.
    let out = run_with_device_env("bogus", &[co, "--device", "sim", "--list"]);
    assert!(out.status.success(), "{}", text(&out));
    assert!(text(&out).contains("saxpy"), "{}", text(&out));
    // A bad flag value is reported as the flag, not as the environment.
    let out = run_with_device_env("sim", &[co, "--device", "cuda", "--list"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(text(&out).contains("--device \"cuda\""), "{}", text(&out));
    assert!(!text(&out).contains("AQUEDUCT_DEVICE"), "{}", text(&out));
    // Without the flag, a bad environment value is still an error naming it.
    let out = run_with_device_env("bogus", &[co, "--list"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(text(&out).contains("AQUEDUCT_DEVICE"), "{}", text(&out));
}

fn u32_file(path: &Path, values: &[u32]) {
    std::fs::write(path, bytemuck::cast_slice::<u32, u8>(values)).unwrap();
}

fn read_u32s(path: &Path) -> Vec<u32> {
    bytemuck::pod_collect_to_vec(&std::fs::read(path).unwrap())
}

/// Inclusive prefix sums of each `group`-sized slice, as group_scan computes them.
fn group_scans(data: &[u32], group: usize) -> Vec<u32> {
    data.chunks(group)
        .flat_map(|chunk| {
            chunk.iter().scan(0u32, |acc, &v| {
                *acc = acc.wrapping_add(v);
                Some(*acc)
            })
        })
        .collect()
}

#[test]
fn local_arguments_back_an_in_place_scan() {
    let dir = temp_dir("scan");
    let n = 1000u32; // a partial last workgroup
    let data: Vec<u32> = (0..n)
        .map(|i| i.wrapping_mul(2_654_435_761) >> 20)
        .collect();
    let file = dir.join("data.bin");
    u32_file(&file, &data);
    let co = kernel("group_scan.co");
    let out = run(&[
        co.to_str().unwrap(),
        "--grid",
        &n.to_string(),
        "--workgroup",
        "64",
        "--arg",
        &format!("data=inout:{}", file.display()),
        "--arg",
        "ping=local:256",
        "--arg",
        "pong=local:256",
        "--arg",
        &format!("n=u32:{n}"),
    ]);
    assert!(out.status.success(), "{}", text(&out));
    // The file now holds the result, in place.
    assert_eq!(read_u32s(&file), group_scans(&data, 64));
}

#[test]
fn local_argument_mismatches_and_the_lds_limit_are_errors() {
    let co = kernel("group_scan.co");
    let co = co.to_str().unwrap();
    let base = [co, "--grid", "64", "--workgroup", "64", "--arg", "n=u32:64"];
    let cases: [(&[&str], &str); 4] = [
        // A buffer for a __local pointer.
        (
            &["data=zeros:256", "ping=zeros:256", "pong=local:256"],
            "argument 1 (ping: uint* (DynamicSharedPointer, 4 bytes)) is a __local pointer",
        ),
        // LDS for a global one.
        (
            &["data=local:256", "ping=local:256", "pong=local:256"],
            "argument 0 (data: uint* (GlobalBuffer, 8 bytes)) is not a __local pointer",
        ),
        // 40 KiB + 40 KiB of LDS exceed gfx1100's 64 KiB.
        (
            &["data=zeros:256", "ping=local:40K", "pong=local:40K"],
            "needs 81920 bytes of LDS (0 static + local arguments and --dynamic-lds); the agent has 65536",
        ),
        // The same through --dynamic-lds on top of the local arguments.
        (
            &[
                "data=zeros:256",
                "ping=local:256",
                "pong=local:256",
                "--dynamic-lds=64K",
            ],
            "needs 66048 bytes of LDS",
        ),
    ];
    for (extra, needle) in cases {
        let mut args: Vec<&str> = base.to_vec();
        for a in extra {
            if !a.starts_with("--") {
                args.push("--arg");
            }
            args.push(a);
        }
        let out = run(&args);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {}", text(&out));
        assert!(
            text(&out).contains(needle),
            "{args:?}: expected {needle:?} in:\n{}",
            text(&out)
        );
    }
}

#[test]
fn dynamic_lds_backs_hip_extern_shared_by_demangled_name() {
    let dir = temp_dir("reverse");
    let co = kernel("reverse_blocks.co");
    let co = co.to_str().unwrap();
    let n = 200usize; // three full groups of 64 and one of 8
    let data: Vec<u32> = (0..n as u32).map(|i| i * 7 + 1).collect();
    let file = dir.join("data.bin");
    u32_file(&file, &data);
    let args = |kernel: &'static str, file: &Path, lds: &'static str| -> Vec<String> {
        [
            co,
            "--kernel",
            kernel,
            "--grid",
            &n.to_string(),
            "--workgroup",
            "64",
            "--dynamic-lds",
            lds,
            "--arg",
            &format!("0=inout:{}", file.display()),
            "--arg",
            &format!("1=u32:{n}"),
        ]
        .iter()
        .map(|s| s.to_string())
        .collect()
    };
    let argv = args("reverse_blocks(unsigned int*, unsigned int)", &file, "256");
    let out = run(&argv.iter().map(String::as_str).collect::<Vec<_>>());
    assert!(out.status.success(), "{}", text(&out));
    let want: Vec<u32> = data
        .chunks(64)
        .flat_map(|c| c.iter().rev().copied())
        .collect();
    assert_eq!(read_u32s(&file), want);

    // The float overload by its symbol.
    let floats: Vec<f32> = (0..n).map(|i| i as f32 * 0.25).collect();
    let float_file = dir.join("floats.bin");
    std::fs::write(&float_file, bytemuck::cast_slice::<f32, u8>(&floats)).unwrap();
    let argv = args("_Z14reverse_blocksPfj", &float_file, "256");
    let out = run(&argv.iter().map(String::as_str).collect::<Vec<_>>());
    assert!(out.status.success(), "{}", text(&out));
    let got: Vec<f32> = bytemuck::pod_collect_to_vec(&std::fs::read(&float_file).unwrap());
    let want: Vec<f32> = floats
        .chunks(64)
        .flat_map(|c| c.iter().rev().copied())
        .collect();
    assert_eq!(got, want);

    // The plain name is shared by both overloads: an error naming both.
    let argv = args("reverse_blocks", &file, "256");
    let out = run(&argv.iter().map(String::as_str).collect::<Vec<_>>());
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    for needle in [
        "kernel name \"reverse_blocks\" is ambiguous",
        "reverse_blocks(unsigned int*, unsigned int) (_Z14reverse_blocksPjj)",
        "reverse_blocks(float*, unsigned int) (_Z14reverse_blocksPfj)",
    ] {
        assert!(
            text(&out).contains(needle),
            "{needle:?} in:\n{}",
            text(&out)
        );
    }
    // 4 bytes of static LDS + 64 KiB is past the limit.
    let argv = args("_Z14reverse_blocksPjj", &file, "64K");
    let out = run(&argv.iter().map(String::as_str).collect::<Vec<_>>());
    assert!(
        text(&out).contains("needs 65540 bytes of LDS (4 static"),
        "{}",
        text(&out)
    );

    // A unique plain name finds its kernel; --list shows the signatures.
    let ids = dir.join("ids.bin");
    let out = run(&[
        co,
        "--kernel",
        "block_ids",
        "--grid",
        "100",
        "--workgroup",
        "32",
        "--arg",
        &format!("0=out:{}:400", ids.display()),
        "--arg",
        "1=u32:100",
    ]);
    assert!(out.status.success(), "{}", text(&out));
    assert_eq!(
        read_u32s(&ids),
        (0..100).map(|i| i / 32).collect::<Vec<u32>>()
    );
    let out = run(&[co, "--list"]);
    assert!(
        text(&out).contains("_Z9block_idsPjj (block_ids(unsigned int*, unsigned int))"),
        "{}",
        text(&out)
    );
}

#[test]
fn scalar_types_must_match_the_metadata_unless_forced() {
    let dir = temp_dir("types");
    let co = kernel("saxpy.co");
    let y = dir.join("y.bin");
    let args = |n: &str, a: &str| -> Vec<String> {
        vec![
            co.to_str().unwrap().to_string(),
            "--grid".into(),
            "64".into(),
            "--workgroup".into(),
            "64".into(),
            "--arg".into(),
            format!("a={a}"),
            "--arg".into(),
            "x=iota-f32:64".into(),
            "--arg".into(),
            format!("y=out:{}:256", y.display()),
            "--arg".into(),
            format!("n={n}"),
        ]
    };
    let argv = args("f32:64", "f32:2");
    let out = run(&argv.iter().map(String::as_str).collect::<Vec<_>>());
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(
        text(&out).contains("argument 3 (n: uint (ByValue, 4 bytes)) is declared uint; the value is f32 (write u32:..."),
        "{}",
        text(&out)
    );
    let argv = args("u32:64", "i32:2");
    let out = run(&argv.iter().map(String::as_str).collect::<Vec<_>>());
    assert!(
        text(&out).contains("is declared float; the value is i32"),
        "{}",
        text(&out)
    );
    // --force passes the bytes: 2.0f32 reads as n = 0x40000000, so every
    // one of the 64 work-items runs; a = 0x40000000 as float is 2.0.
    let mut argv = args("f32:2", "u32:0x40000000");
    argv.push("--force".into());
    let out = run(&argv.iter().map(String::as_str).collect::<Vec<_>>());
    assert!(out.status.success(), "{}", text(&out));
    let got: Vec<f32> = bytemuck::pod_collect_to_vec(&std::fs::read(&y).unwrap());
    assert_eq!(got, (0..64).map(|i| 2.0 * i as f32).collect::<Vec<_>>());
}

#[test]
fn wgsl_size_arguments_come_from_the_bound_buffers() {
    let dir = temp_dir("wgsl-size");
    let co = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join(format!("shaders/tests/{}/copy_u32.co", target()));
    let dst = dir.join("dst.bin");
    // 100 elements in a grid of 128: arrayLength(&dst) must be 100.
    let out = run(&[
        co.to_str().unwrap(),
        "--grid",
        "128",
        "--workgroup",
        "64",
        "--arg",
        "g0_b0=iota-u32:100",
        "--arg",
        &format!("g0_b1=out:{}:400", dst.display()),
    ]);
    assert!(out.status.success(), "{}", text(&out));
    assert_eq!(
        read_u32s(&dst),
        (0..100).map(|i| 4 * i).collect::<Vec<u32>>()
    );
}

fn faults_co() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("tests/kernels/{}/faults.co", target()))
}

#[test]
fn the_timeout_raises_the_gfxsim_watchdog() {
    // The watchdog alone would stop the endless kernel after 200 ms; --timeout 1
    // raises it, so the wait times out first, after a second.
    let started = std::time::Instant::now();
    let out = Command::new(env!("CARGO_BIN_EXE_aqueduct-run"))
        .args([
            faults_co().to_str().unwrap(),
            "--kernel",
            "spin",
            "--grid",
            "64",
            "--workgroup",
            "64",
            "--arg",
            "flag=zeros:8",
            "--timeout",
            "1",
        ])
        .env("AQUEDUCT_DEVICE", "sim")
        .env("AQUEDUCT_SIM_THREADS", "2")
        .env("AQUEDUCT_SIM_DISPATCH_TIMEOUT_MS", "200")
        .output()
        .expect("aqueduct-run starts");
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(text(&out).contains("wait timed out"), "{}", text(&out));
    assert!(!text(&out).contains("watchdog"), "{}", text(&out));
    assert!(started.elapsed() >= std::time::Duration::from_secs(1));
}

#[test]
fn a_fault_names_the_kernel_and_offset() {
    let dir = temp_dir("fault");
    let out = run(&[
        faults_co().to_str().unwrap(),
        "--kernel",
        "read_at",
        "--grid",
        "64",
        "--workgroup",
        "64",
        "--arg",
        &format!("out=out:{}:256", dir.join("o.bin").display()),
        "--arg",
        "address=u64:0x10",
    ]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let t = text(&out);
    // "... (pc read_at+0x1c [0x7f...], workgroup ...)"
    let at = t.find("pc read_at+0x").unwrap_or_else(|| panic!("{t}"));
    let rest = &t[at + "pc read_at+0x".len()..];
    let (offset, rest) = rest.split_once(" [0x").unwrap_or_else(|| panic!("{t}"));
    let offset = u64::from_str_radix(offset, 16).unwrap();
    assert!(offset < 0x400, "{t}");
    assert!(
        rest.contains("address 0x10") || t.contains("address 0x10"),
        "{t}"
    );
}

/// clang-19 flags for an OpenCL C kernel, for [`target`].
fn opencl_flags() -> Vec<String> {
    [
        "-x",
        "cl",
        "-cl-std=CL2.0",
        "-target",
        "amdgcn-amd-amdhsa",
        "-nogpulib",
        "-cl-kernel-arg-info",
    ]
    .into_iter()
    .map(str::to_string)
    .chain([format!("-mcpu={}", target())])
    .collect()
}

/// clang-19 flags for HIP device code, for [`target`].
fn hip_flags() -> Vec<String> {
    ["-x", "hip", "--cuda-device-only", "-nogpuinc", "-nogpulib"]
        .into_iter()
        .map(str::to_string)
        .chain([format!("--offload-arch={}", target())])
        .collect()
}

/// `flags` followed by `rest`, as `build_in` takes them.
fn with<'a>(flags: &'a [String], rest: &[&'a str]) -> Vec<&'a str> {
    flags
        .iter()
        .map(String::as_str)
        .chain(rest.iter().copied())
        .collect()
}

/// Runs `tool` in `dir` with `args` and asserts it succeeded; clang-19
/// also gets include/aqueduct_device.h.
fn build_in(dir: &Path, tool: &str, args: &[&str]) {
    let include = Path::new(env!("CARGO_MANIFEST_DIR")).join("include");
    let mut command = Command::new(tool);
    command.current_dir(dir).args(args);
    if tool == "clang-19" {
        command
            .arg("-I")
            .arg(&include)
            .args(["-include", "aqueduct_device.h"]);
    }
    let out = command.output().unwrap();
    assert!(out.status.success(), "{tool}: {}", text(&out));
}

/// include/aqueduct_device.h: one kernel written against OpenCL's and one
/// against HIP's work-item functions, barriers, atomics and math, built
/// with plain clang-19 (no ROCm device library), run by aqueduct-run and
/// checked on the host. Needs clang-19 and ld.lld-19 (skipped without).
#[test]
fn kernels_built_with_the_device_header_run() {
    if !aqueduct_shaderc::Toolchain::available() {
        eprintln!("skipped: clang-19 / ld.lld-19 not installed");
        return;
    }
    let dir = temp_dir("device-header");
    let opencl = "kernel void scale_hist(global float* x, global uint* bins, float a, uint n)
{
    local uint lbins[16];
    uint lid = get_local_id(0);
    if (lid < 16) lbins[lid] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    size_t i = get_global_id(0);
    if (i < n) {
        x[i] = fma(a, sqrt(x[i]), 1.0f);
        atomic_inc(&lbins[i % 16]);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (lid < 16) atomic_add(&bins[lid], lbins[lid]);
    if (i == 0) bins[16] = get_num_groups(0);
}
";
    let hip = r#"extern "C" __global__ void scale_hist(float* x, unsigned* bins, float a, unsigned n)
{
    __shared__ unsigned lbins[16];
    unsigned lid = threadIdx.x;
    if (lid < 16) lbins[lid] = 0;
    __syncthreads();
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        x[i] = fmaf(a, sqrtf(x[i]), 1.0f);
        atomicAdd(&lbins[i % 16], 1u);
    }
    __syncthreads();
    if (lid < 16) atomicAdd(&bins[lid], lbins[lid]);
    if (i == 0) bins[16] = gridDim.x;
}
"#;
    std::fs::write(dir.join("k.cl"), opencl).unwrap();
    std::fs::write(dir.join("k.hip"), hip).unwrap();
    let path = |name: &str| dir.join(name).to_str().unwrap().to_string();
    build_in(
        dir.path(),
        "clang-19",
        &with(&opencl_flags(), &["-O3", "-c", "k.cl", "-o", "k.o"]),
    );
    build_in(dir.path(), "ld.lld-19", &["-shared", "k.o", "-o", "cl.co"]);
    build_in(
        dir.path(),
        "clang-19",
        &with(
            &hip_flags(),
            &[
                "--no-gpu-bundle-output",
                "-O3",
                "-c",
                "k.hip",
                "-o",
                "hip.co",
            ],
        ),
    );
    // Arguments by position: HIP's metadata carries no argument names.
    let n = 1000u32; // a partial last workgroup
    let x: Vec<f32> = (0..n).map(|i| i as f32 * 0.25).collect();
    for co in ["cl.co", "hip.co"] {
        let x_file = dir.join(format!("{co}.x.bin"));
        std::fs::write(&x_file, bytemuck::cast_slice::<f32, u8>(&x)).unwrap();
        let bins_file = dir.join(format!("{co}.bins.bin"));
        let out = run(&[
            &path(co),
            "--kernel",
            "scale_hist",
            "--grid",
            &n.to_string(),
            "--workgroup",
            "256",
            "--arg",
            &format!("0=inout:{}", x_file.display()),
            "--arg",
            &format!("1=out:{}:{}", bins_file.display(), 17 * 4),
            "--arg",
            "2=f32:3",
            "--arg",
            &format!("3=u32:{n}"),
        ]);
        assert!(out.status.success(), "{co}: {}", text(&out));
        let got = std::fs::read(&x_file).unwrap();
        let got: &[f32] = bytemuck::cast_slice(&got);
        for i in 0..n as usize {
            let want = 3.0f32.mul_add(x[i].sqrt(), 1.0);
            assert!(
                (got[i] - want).abs() <= want * 1e-6,
                "{co}: x[{i}] = {}, want {want}",
                got[i]
            );
        }
        let bins = read_u32s(&bins_file);
        for (b, &count) in bins[..16].iter().enumerate() {
            let want = (0..n).filter(|i| i % 16 == b as u32).count() as u32;
            assert_eq!(count, want, "{co}: bin {b}");
        }
        assert_eq!(bins[16], n.div_ceil(256), "{co}: number of groups");
    }
}

/// A kernel built with `-g` names the faulting source line next to
/// kernel+offset (its DWARF line table). Needs clang-19 and ld.lld-19.
#[test]
fn a_fault_names_the_source_line_with_debug_info() {
    if !aqueduct_shaderc::Toolchain::available() {
        eprintln!("skipped: clang-19 / ld.lld-19 not installed");
        return;
    }
    let dir = temp_dir("fault-line");
    // The store on line 4 faults: `address` is not mapped.
    let source = "kernel void poke(ulong address, uint value)
{
    if (get_global_id(0) == 0)
        *(volatile global uint*)address = value;
}
";
    std::fs::write(dir.join("poke.cl"), source).unwrap();
    build_in(
        dir.path(),
        "clang-19",
        &with(
            &opencl_flags(),
            &["-O1", "-g", "-c", "poke.cl", "-o", "poke.o"],
        ),
    );
    build_in(
        dir.path(),
        "ld.lld-19",
        &["-shared", "poke.o", "-o", "poke.co"],
    );
    // Writes 7 to the unmapped address 0x10 from one work-item.
    let poke = |file: &str| {
        run(&[
            dir.join(file).to_str().unwrap(),
            "--grid",
            "32",
            "--workgroup",
            "32",
            "--arg",
            "0=u64:0x10",
            "--arg",
            "1=u32:7",
        ])
    };
    let out = poke("poke.co");
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let t = text(&out);
    assert!(t.contains("pc poke+0x"), "{t}");
    assert!(t.contains(" at poke.cl:4"), "{t}");

    // The same from an offload bundle (HIP's default output): the line
    // table of the entry loaded for the GPU.
    let hip = r#"extern "C" __global__ void poke(unsigned long address, unsigned value)
{
    if (blockIdx.x * blockDim.x + threadIdx.x == 0)
        *(volatile unsigned*)address = value;
}
"#;
    std::fs::write(dir.join("poke.hip"), hip).unwrap();
    build_in(
        dir.path(),
        "clang-19",
        &with(
            &hip_flags(),
            &["-O1", "-g", "-c", "poke.hip", "-o", "poke.bundle"],
        ),
    );
    let bundle = std::fs::read(dir.join("poke.bundle")).unwrap();
    assert!(
        bundle.starts_with(b"__CLANG_OFFLOAD_BUNDLE__"),
        "not a bundle"
    );
    let out = poke("poke.bundle");
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let t = text(&out);
    assert!(t.contains(" at poke.hip:4"), "{t}");
}

#[test]
fn profile_prints_counters_counted_by_hand() {
    // The counts below are of gfx1100's vector_copy, counted by hand; the
    // GFX9 objects are other code.
    if target() != "gfx1100" {
        eprintln!("skipped: the hand counts are of the gfx1100 object");
        return;
    }
    let dir = temp_dir("profile");
    let out_file = dir.join("dst.bin");
    let co = kernel("vector_copy.co");
    let out = run(&[
        co.to_str().unwrap(),
        "--kernel",
        "vector_copy",
        "--grid",
        "96",
        "--workgroup",
        "32",
        "--arg",
        "src=iota-u32:96",
        "--arg",
        &format!("dst=out:{}:384", out_file.display()),
        "--arg",
        "n=u32:40",
        "--repeat",
        "2",
        "--profile",
    ]);
    assert!(out.status.success(), "{}", text(&out));
    let stdout = String::from_utf8_lossy(&out.stdout);
    // vector_copy (gfx1100) has 26 instructions on the path of a wave with a
    // lane below n: s_clause, s_load_b32 x2, s_waitcnt, s_and_b32, s_delay_alu,
    // v_mad_u64_u32, s_mov_b32, v_cmpx_gt_u32, s_cbranch_execz, s_load_b128,
    // v_mov_b32, s_delay_alu, v_lshlrev_b64, s_waitcnt, v_add_co_u32,
    // s_delay_alu, v_add_co_ci_u32, v_add_co_u32, v_add_co_ci_u32,
    // global_load_b32, s_waitcnt, global_store_b32, s_nop, s_sendmsg, s_endpgm
    // (SALU 2, SMEM 3, VALU 8, branch 1, load 1, store 1, control 10); a wave
    // with none branches from s_cbranch_execz to s_nop: 13 (SALU 2, SMEM 2,
    // VALU 2, branch 1, control 6). Three one-wave workgroups over n = 40:
    // two take the long path, one the short: 65.
    // Bytes read: s_load_b32 x2 (8) per wave, s_load_b128 (16) per long
    // wave, and 4 per lane below n (40 lanes): 3 * 8 + 2 * 16 + 160 = 216;
    // written: 160. 8 VGPRs are given 24, so 16 waves fit a SIMD.
    let expected = [
        "6", "8", "18", "0", "2", "2", "0", "0", "3", "0", "26", "65", "216", "160", "0", "16",
        "wave", "slots",
    ];
    let rows: Vec<Vec<&str>> = stdout
        .lines()
        .map(|l| l.split_whitespace().collect::<Vec<_>>())
        .filter(|w| w.first().is_some_and(|r| *r == "1" || *r == "2"))
        .collect();
    assert_eq!(rows.len(), 2, "{stdout}");
    for row in rows {
        assert_eq!(&row[2..], &expected, "{stdout}");
        assert!(row[1].parse::<f64>().is_ok(), "GPU time: {stdout}");
    }
    let header = stdout
        .lines()
        .find(|l| l.trim_start().starts_with("run "))
        .expect("a header");
    for name in ["salu", "vmem_load", "read B", "waves/SIMD", "limited by"] {
        assert!(header.contains(name), "{header}");
    }
}

/// The LDS bank-conflict column of `--profile` against a count by hand
/// (crates/isa/src/gfx11/exec/lds_banks.rs: 32 four-byte banks). Needs
/// clang-19 and ld.lld-19 (skipped without).
#[test]
fn profile_counts_lds_bank_conflicts_by_stride() {
    if !aqueduct_shaderc::Toolchain::available() {
        eprintln!("skipped: clang-19 / ld.lld-19 not installed");
        return;
    }
    let dir = temp_dir("lds-banks");
    let source = "kernel void strided(global uint* out, uint stride)
{
    local uint tile[32 * 33];
    uint lid = get_local_id(0);
    tile[lid * stride] = lid;
    barrier(CLK_LOCAL_MEM_FENCE);
    out[get_global_id(0)] = tile[((lid + 1) % 32) * stride];
}
";
    std::fs::write(dir.join("k.cl"), source).unwrap();
    build_in(
        dir.path(),
        "clang-19",
        &with(&opencl_flags(), &["-O3", "-c", "k.cl", "-o", "k.o"]),
    );
    build_in(dir.path(), "ld.lld-19", &["-shared", "k.o", "-o", "k.co"]);
    // Two one-wave workgroups. With a stride of 32 dwords every lane's
    // dword is in bank 0: the store and the load take 32 cycles each, 31
    // of them conflicts, so 2 * 2 * 31 = 124. A stride of 33 puts the 32
    // lanes in 32 banks (0 conflicts); a stride of 0 is one dword for all
    // (a broadcast: 0 conflicts).
    for (stride, conflicts) in [(32, 124), (33, 0), (0, 0)] {
        let out_file = dir.join(format!("out{stride}.bin"));
        let out = run(&[
            dir.join("k.co").to_str().unwrap(),
            "--kernel",
            "strided",
            "--grid",
            "64",
            "--workgroup",
            "32",
            "--arg",
            &format!("out=out:{}:256", out_file.display()),
            "--arg",
            &format!("stride=u32:{stride}"),
            "--profile",
        ]);
        assert!(out.status.success(), "{}", text(&out));
        // Each lane reads what the next lane (mod 32) stored, or for a
        // stride of 0 what the last lane to store wrote (the highest).
        let want: Vec<u32> = (0..64u32)
            .map(|i| if stride == 0 { 31 } else { (i + 1) % 32 })
            .collect();
        assert_eq!(read_u32s(&out_file), want, "stride {stride}");
        let stdout = String::from_utf8_lossy(&out.stdout);
        // Columns are right-aligned under their names.
        let header = stdout
            .lines()
            .find(|l| l.trim_start().starts_with("run "))
            .expect("a header");
        let end = header.find("LDS conflicts").expect("the column") + "LDS conflicts".len();
        let row = stdout
            .lines()
            .find(|l| l.split_whitespace().next() == Some("1"))
            .expect("a row");
        let cell = row[..end].split_whitespace().last().expect("a cell");
        assert_eq!(cell, conflicts.to_string(), "stride {stride}: {stdout}");
    }
}
