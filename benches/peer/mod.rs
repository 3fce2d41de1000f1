//! The wgpu 30 / Mesa lavapipe peer, as seen from Aqueduct's bench binaries.
//!
//! Include it with `#[path = "peer/mod.rs"] mod peer;`. wgpu is not a
//! dependency of any workspace member (CI's `cargo test --workspace` must not
//! build it), so the peer is a standalone project, benches/wgpu-peer, built
//! here on first use with `cargo build --release` into the same target
//! directory (CARGO_TARGET_DIR, else the root `target/`), then run as a child
//! process per measurement; it prints one JSON object per line.
//!
//! When lavapipe, the Vulkan loader or the build is missing, `run` returns an
//! error; benches print `unavailable(&why)` and carry on with their own
//! figures. `AQUEDUCT_WGPU_PEER=/path/to/wgpu-peer` skips the build.
#![allow(dead_code)]

use std::path::PathBuf;
use std::process::Command;
use std::sync::OnceLock;

/// What to install when the peer cannot find lavapipe (Debian/Ubuntu).
pub const INSTALL_HINT: &str = "apt-get install -y mesa-vulkan-drivers libvulkan1";

/// The line a bench prints when the peer cannot run.
pub fn unavailable(why: &str) -> String {
    if why.contains(INSTALL_HINT) {
        format!("peer unavailable: {why}")
    } else {
        format!("peer unavailable: {why} ({INSTALL_HINT})")
    }
}

/// Runs one measurement of the peer (`saxpy`, `encode-submit`, `distinct`,
/// `workgroups`, `round-trip`, `readback`, `pipelines`, `end-to-end`, `compute`, `info`) with `--key value` arguments, e.g.
/// `run("saxpy", &["--n", "16777216", "--runs", "3"])`, and returns its JSON
/// object. Fields per measurement (all numbers are f64):
/// - saxpy: `gbs` (best of runs, 12 bytes/element), `best_s`, `n`, `runs`
/// - encode-submit: `ns_per_dispatch` (best run), `median_ns_per_dispatch`,
///   `encode_ns_per_dispatch`, `submit_ns_per_dispatch`, `dispatches`
/// - distinct: `ns_per_dispatch` (best run, a buffer and bind group per
///   dispatch), `encode_ns_per_dispatch`, `dispatches`
/// - workgroups (`--kernel tiny|zero-init --groups N`): `median_s`,
///   `ns_per_workgroup`, `groups`
/// - round-trip: `median_us`, `p10_us`, `p90_us`, `median_with_encode_us`
/// - readback: `median_us` (map + poll + copy out), `full_median_us` (with the
///   GPU copy into the staging buffer), `memcpy_median_us`,
///   `ratio_to_memcpy`, `full_ratio_to_memcpy`
/// - end-to-end: `programs`, an array of `{name, aqueduct_ms, wgpu_ms,
///   aqueduct_cold_ms, wgpu_cold_ms}` (the `device_open` row has no cold
///   times): whole programs run on both sides in the peer's process
/// - compute (`--runs N --quick 0|1`): `kernels`, an array of `{name, work,
///   aqueduct_ms, wgpu_ms, aqueduct_first_ms, wgpu_first_ms, aqueduct_check,
///   wgpu_check}` (warm dispatch+wait medians; the first dispatch includes
///   compilation), and `aqueduct_engine` (interpreter or translator)
/// - pipelines: `total_ms` (creating `count` modules and pipelines of
///   benches/wgpu-peer/src/compile_sources.rs), `per_pipeline_ms`, `count`
///
/// and `peer` (adapter name, driver, lavapipe thread setting, host cores).
pub fn run(measurement: &str, args: &[&str]) -> Result<serde_json::Value, String> {
    run_with_env(measurement, args, &[])
}

/// [`run`] with extra environment variables for the peer process, e.g.
/// `("LP_NUM_THREADS", "1")` for lavapipe on one thread.
pub fn run_with_env(
    measurement: &str,
    args: &[&str],
    env: &[(&str, &str)],
) -> Result<serde_json::Value, String> {
    let binary = binary()?;
    let output = Command::new(binary)
        .arg(measurement)
        .args(args)
        .envs(env.iter().copied())
        .output()
        .map_err(|e| format!("cannot start {}: {e}", binary.display()))?;
    if !output.status.success() {
        let stderr = String::from_utf8_lossy(&output.stderr);
        let why = stderr
            .lines()
            .rev()
            .find(|l| !l.trim().is_empty())
            .unwrap_or("no message")
            .trim()
            .trim_start_matches("wgpu-peer: ")
            .to_string();
        return Err(format!(
            "wgpu-peer {measurement} failed ({}): {why}",
            output.status
        ));
    }
    let stdout = String::from_utf8_lossy(&output.stdout);
    let line = stdout
        .lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .ok_or_else(|| format!("wgpu-peer {measurement} printed nothing"))?;
    let value: serde_json::Value = serde_json::from_str(line)
        .map_err(|e| format!("wgpu-peer {measurement} printed bad JSON ({e}): {line}"))?;
    if value["measurement"] != measurement {
        return Err(format!("wgpu-peer answered another measurement: {line}"));
    }
    Ok(value)
}

/// The number `key` of a peer result.
pub fn number(value: &serde_json::Value, key: &str) -> Result<f64, String> {
    value[key]
        .as_f64()
        .ok_or_else(|| format!("peer result has no number {key:?}: {value}"))
}

/// The adapter description of a peer result, e.g. "llvmpipe (LLVM 15.0.6,
/// 256 bits), Mesa 22.3.6 (LLVM 15.0.6)".
pub fn adapter(value: &serde_json::Value) -> String {
    let peer = &value["peer"];
    format!(
        "{}, {}",
        peer["adapter"].as_str().unwrap_or("?"),
        peer["driver_info"].as_str().unwrap_or("?")
    )
}

/// The peer binary, built once per process.
pub fn binary() -> Result<&'static PathBuf, String> {
    static BINARY: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    BINARY.get_or_init(build).as_ref().map_err(Clone::clone)
}

fn build() -> Result<PathBuf, String> {
    if let Some(prebuilt) = std::env::var_os("AQUEDUCT_WGPU_PEER") {
        let path = PathBuf::from(prebuilt);
        return if path.is_file() {
            Ok(path)
        } else {
            Err(format!(
                "AQUEDUCT_WGPU_PEER={} is not a file",
                path.display()
            ))
        };
    }
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let manifest = root.join("benches/wgpu-peer/Cargo.toml");
    let target_dir = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("target"));
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    eprintln!(
        "building the wgpu 30 peer if needed ({}; a first build takes minutes)...",
        manifest.display()
    );
    let output = Command::new(cargo)
        .args(["build", "--release", "--quiet", "--manifest-path"])
        .arg(&manifest)
        .arg("--target-dir")
        .arg(&target_dir)
        .output()
        .map_err(|e| format!("cannot run cargo to build the wgpu peer: {e}"))?;
    if !output.status.success() {
        let stderr = String::from_utf8_lossy(&output.stderr);
        let tail: Vec<&str> = stderr.lines().rev().take(3).collect();
        return Err(format!(
            "building benches/wgpu-peer failed ({}): {}",
            output.status,
            tail.into_iter().rev().collect::<Vec<_>>().join(" / ")
        ));
    }
    let binary = target_dir.join("release/wgpu-peer");
    if binary.is_file() {
        Ok(binary)
    } else {
        Err(format!(
            "built the wgpu peer but {} is missing",
            binary.display()
        ))
    }
}
