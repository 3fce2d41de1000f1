//! aqueduct-run end to end on gfxsim: real kernels from kernels/, results
//! checked on the host, and every argument mismatch a clear error.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn kernels() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("kernels")
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

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("aqueduct-run-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn saxpy_writes_the_host_result() {
    let dir = temp_dir("saxpy");
    let n = 1000u32; // not a multiple of the workgroup: a partial last group
    let x: Vec<f32> = (0..n).map(|i| i as f32 * 0.5).collect();
    let x_file = dir.join("x.bin");
    std::fs::write(&x_file, bytemuck::cast_slice::<f32, u8>(&x)).unwrap();
    let y_file = dir.join("y.bin");
    let co = kernels().join("gfx1100/saxpy.co");
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
    std::fs::remove_dir_all(dir).ok();
}

#[test]
fn fill3d_over_a_3d_grid_from_a_multi_kernel_object() {
    let dir = temp_dir("fill3d");
    let (w, h, d) = (9u32, 5u32, 3u32);
    let out_file = dir.join("out.bin");
    let co = kernels().join("gfx1100/multi.co");
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
    std::fs::remove_dir_all(dir).ok();
}

#[test]
fn list_prints_kernels_and_arguments() {
    let co = kernels().join("gfx1100/multi.co");
    let out = run(&[co.to_str().unwrap(), "--list"]);
    assert!(out.status.success(), "{}", text(&out));
    let t = text(&out);
    for needle in ["vector_copy", "saxpy", "fill3d", "0: a:", "3: n:"] {
        assert!(t.contains(needle), "missing {needle:?} in:\n{t}");
    }
}

#[test]
fn argument_mismatches_are_clear_errors() {
    let co = kernels().join("gfx1100/saxpy.co");
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
    let bogus = temp_dir("bogus").join("not.co");
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
    let co = kernels().join("gfx1100/oob_write.co");
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
    std::fs::remove_dir_all(dir).ok();
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
    let co = kernels().join("gfx1100/saxpy.co");
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
    let co = kernels().join("gfx1100/saxpy.co");
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
