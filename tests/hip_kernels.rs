//! The HIP comparison's kernels (benches/hip/*.hip) on gfxsim: the code objects clang-19
//! built from those files' device code, loaded through the facade as
//! `ShaderSource::CodeObject` by the same workload code the bench times
//! (benches/hip/workloads.rs), each result compared with host arithmetic. Sizes are small
//! and deliberately not multiples of the workgroup sizes, so the bounds checks run too.
//! Where clang-19 is installed, the checked-in objects must equal a fresh build.

#[path = "../benches/hip/workloads.rs"]
mod workloads;

use std::path::Path;
use std::process::Command;

use aqueduct::DeviceChoice;
use workloads::*;

const BENCHES: [&str; 6] = ["empty", "bump", "saxpy", "reduce", "readback", "matmul"];
/// The ISAs whose objects are checked in.
const ISAS: [&str; 3] = ["gfx1100", "gfx942", "gfx90a"];

fn gpu() -> Gpu {
    Gpu::open(DeviceChoice::Sim).expect("gfxsim device")
}

#[test]
fn empty_and_bump_run_every_dispatch() {
    let gpu = gpu();
    let dir = gpu.objects();
    Empty::new(&gpu, &dir).unwrap().run(&gpu).unwrap();
    let bump = Bump::new(&gpu, &dir, 300).unwrap();
    bump.run(&gpu).unwrap();
    bump.check(&gpu).unwrap();
    // A second run starts from zero again.
    bump.run(&gpu).unwrap();
    bump.check(&gpu).unwrap();
}

#[test]
fn saxpy_matches_the_host() {
    let gpu = gpu();
    let saxpy = Saxpy::new(&gpu, &gpu.objects(), 1000).unwrap();
    saxpy.run(&gpu).unwrap();
    saxpy.check(&gpu).unwrap();
    // Twice: run restores y first, so the result is the same.
    saxpy.run(&gpu).unwrap();
    saxpy.check(&gpu).unwrap();
}

#[test]
fn reduce_partials_match_the_host() {
    let gpu = gpu();
    let reduce = Reduce::new(&gpu, &gpu.objects(), 1000).unwrap();
    reduce.run(&gpu).unwrap();
    reduce.check(&gpu).unwrap();
}

#[test]
fn readback_sees_every_word_of_each_fill() {
    let gpu = gpu();
    let mut readback = Readback::new(&gpu, &gpu.objects(), 64 << 10).unwrap();
    for seed in [0x1234_5678, 0x9e37_79b9] {
        readback.run(&gpu, seed).unwrap();
        readback.check(seed).unwrap();
    }
    // The check itself can fail: a different seed's pattern differs.
    assert!(readback.check(1).is_err());
}

#[test]
fn matmul_matches_the_host_bit_for_bit() {
    let gpu = gpu();
    let matmul = Matmul::new(&gpu, &gpu.objects(), 40, 24, 20).unwrap();
    matmul.run(&gpu).unwrap();
    matmul.check(&gpu).unwrap();
}

#[test]
fn host_references_are_what_the_hip_programs_compute() {
    // Spot values the .hip host code computes the same way.
    let (a, x, y) = saxpy_inputs(1001);
    assert_eq!((a, x[1000], y[1000]), (2.5, 0.0, 6.0));
    assert_eq!(pattern(1, 0), 2_654_435_761);
    let (ma, mb) = matmul_inputs(2, 2, 2);
    assert_eq!(ma, [-1.0, -0.125, 0.75, -0.5]);
    assert_eq!(mb, [-1.5, -0.25, 1.0, -1.0]);
    assert_eq!(
        matmul_host(&ma, &mb, 2, 2, 2),
        [1.375, 0.375, -1.625, 0.3125]
    );
}

#[test]
fn every_benchmark_has_its_source_and_object() {
    let hip = Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/hip");
    let script = std::fs::read_to_string(hip.join("build.sh")).unwrap();
    assert!(
        script.contains(&format!("BENCHES=({})", BENCHES.join(" "))),
        "build.sh builds exactly {BENCHES:?}"
    );
    for b in BENCHES {
        let src = std::fs::read_to_string(hip.join(format!("{b}.hip"))).unwrap();
        assert!(
            src.contains("#ifndef AQ_DEVICE_ONLY"),
            "{b}.hip guards its host code"
        );
        assert!(
            src.contains("RESULT") || src.contains("report("),
            "{b}.hip reports"
        );
        for isa in ISAS {
            assert!(
                hip.join(format!("{isa}/{b}.co")).is_file(),
                "{isa}/{b}.co checked in"
            );
        }
    }
}

#[test]
fn checked_in_objects_match_a_fresh_build() {
    if Command::new("clang-19").arg("--version").output().is_err() {
        eprintln!("clang-19 not installed: staleness check skipped");
        return;
    }
    let hip = Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/hip");
    let out = std::env::temp_dir().join(format!("aqueduct-hip-objects-{}", std::process::id()));
    for isa in ISAS {
        let status = Command::new("bash")
            .arg(hip.join("build.sh"))
            .arg(isa)
            .arg(&out)
            .status()
            .expect("build.sh runs");
        assert!(status.success(), "benches/hip/build.sh {isa} failed");
        for b in BENCHES {
            let fresh = std::fs::read(out.join(format!("{isa}/{b}.co"))).unwrap();
            let checked_in = std::fs::read(hip.join(format!("{isa}/{b}.co"))).unwrap();
            assert!(
                fresh == checked_in,
                "benches/hip/{isa}/{b}.co is stale: run benches/hip/build.sh {isa}"
            );
        }
    }
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn comparison_table_joins_both_sides_by_metric() {
    if Command::new("awk").arg("BEGIN{}").output().is_err() {
        eprintln!("awk not installed: table check skipped");
        return;
    }
    let dir = std::env::temp_dir().join(format!("aqueduct-hip-table-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let hip = dir.join("hip.txt");
    let aq = dir.join("aqueduct.txt");
    std::fs::write(
        &hip,
        "RESULT empty_round_trip_us 10.0 us\nnoise\nRESULT saxpy_gb_per_s 200 GB/s\n",
    )
    .unwrap();
    std::fs::write(
        &aq,
        "RESULT empty_round_trip_us 8.0 us\nRESULT saxpy_gb_per_s 100 GB/s\n\
         RESULT matmul_gflop_per_s 3.5 GFLOP/s\n",
    )
    .unwrap();
    let table = Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/hip/table.awk");
    let out = Command::new("awk")
        .arg("-v")
        .arg(format!("hipfile={}", hip.display()))
        .arg("-f")
        .arg(&table)
        .arg(&aq)
        .output()
        .unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    assert!(out.status.success());
    let rows: Vec<Vec<String>> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| l.split_whitespace().map(str::to_string).collect())
        .collect();
    let expect = [
        ["metric", "unit", "HIP", "Aqueduct", "ratio"],
        // A time: HIP / Aqueduct, > 1 because Aqueduct is faster.
        ["empty_round_trip_us", "us", "10.0", "8.0", "1.25"],
        // A rate: Aqueduct / HIP, < 1 because Aqueduct is slower.
        ["saxpy_gb_per_s", "GB/s", "200", "100", "0.50"],
        ["matmul_gflop_per_s", "GFLOP/s", "-", "3.5", "-"],
    ];
    assert_eq!(rows, expect.map(|r| r.map(str::to_string).to_vec()));
}

#[test]
fn host_programs_compile_against_the_hip_headers() {
    // The HIP side's host code needs ROCm's headers, which CI does not install; where they
    // are (e.g. Debian's libamdhip64-dev), every program must compile warning-free.
    let header = Path::new("/usr/include/hip/hip_runtime.h");
    if !header.exists() || Command::new("clang-19").arg("--version").output().is_err() {
        eprintln!("no HIP headers or clang-19: host-code check skipped");
        return;
    }
    // Host passes only (build.sh and the staleness test cover the device code), all at once.
    let hip = Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/hip");
    let children: Vec<_> = BENCHES
        .iter()
        .map(|b| {
            let child = Command::new("clang-19")
                .args(["-x", "hip", "--offload-arch=gfx1100", "--cuda-host-only"])
                .args(["-nogpulib", "-D__HIP_PLATFORM_AMD__", "-std=c++17"])
                .args(["-fsyntax-only", "-Wall", "-Werror"])
                .arg(hip.join(format!("{b}.hip")))
                .stderr(std::process::Stdio::piped())
                .spawn()
                .expect("clang-19 runs");
            (b, child)
        })
        .collect();
    for (b, child) in children {
        let out = child.wait_with_output().expect("clang-19 finishes");
        assert!(
            out.status.success(),
            "{b}.hip: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}
