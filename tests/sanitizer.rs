//! `aqueduct-run --sanitize` end to end on gfxsim: kernels with a
//! deliberate bug (kernels/src) give their finding as one stderr line
//! `sanitizer <tool>: kernel <name>+0x<offset>: ...` and exit status 3;
//! clean runs give no line and status 0; an unknown tool is refused with
//! the valid names.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn kernel(name: &str) -> String {
    let path: PathBuf = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("kernels/gfx1100")
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

fn out_file(name: &str) -> String {
    std::env::temp_dir()
        .join(format!(
            "aqueduct-sanitize-{name}-{}.bin",
            std::process::id()
        ))
        .to_str()
        .unwrap()
        .to_string()
}

/// vector_copy of 101 elements over 100-element buffers.
fn vector_copy(n: u32, extra: &[&str], env: &[(&str, &str)]) -> Output {
    let co = kernel("vector_copy");
    let out = format!("dst=out:{}:400", out_file("copy"));
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
    let out_arg = format!("out=out:{}:256", out_file("barrier"));
    let out = run(
        &[
            &co,
            "--grid",
            "64",
            "--workgroup",
            "64",
            "--arg",
            "in=iota-u32:64",
            "--arg",
            &out_arg,
            "--arg",
            "limit=u32:32",
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
             racecheck, initcheck, synccheck, all)"
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
    let dir = std::env::temp_dir().join(format!("aqueduct-sanitize-line-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
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
    let cl = [
        "-x",
        "cl",
        "-cl-std=CL2.0",
        "-target",
        "amdgcn-amd-amdhsa",
        "-mcpu=gfx1100",
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
    std::fs::remove_dir_all(dir).ok();
}
