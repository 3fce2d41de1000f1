//! aqueduct-run and aqueduct-info given hostile command lines and files:
//! every case ends within a time bound with a non-zero exit code and a
//! message, never a panic (exit 101), a signal or a hang. Each row of the
//! tables below is one input; results are checked by the same rule.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use aqueduct_test_support::Rng;
use aqueduct_test_support::bytes::bytes_of;
use aqueduct_test_support::process::run_bounded;

/// Every row must fail cleanly (`Ended::failed_cleanly`), each run on
/// gfxsim within a minute.
fn expect_clean_failures(bin: &str, rows: &[Vec<String>]) {
    let mut bad = Vec::new();
    for args in rows {
        let e = run_bounded(
            Command::new(bin)
                .args(args)
                .env("AQUEDUCT_DEVICE", "sim")
                .env("AQUEDUCT_SIM_THREADS", "2")
                .env("AQUEDUCT_SIM_VRAM_MB", "1024"),
            Duration::from_secs(60),
        );
        if !e.failed_cleanly() {
            bad.push(format!("{args:?}: exit {:?}\n{}", e.code, e.text));
        }
    }
    assert!(
        bad.is_empty(),
        "{} inputs did not fail cleanly:\n{}",
        bad.len(),
        bad.join("\n---\n")
    );
}

fn strings(args: &[&str]) -> Vec<String> {
    args.iter().map(|s| s.to_string()).collect()
}

fn kernel(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("kernels/gfx1100")
        .join(name)
        .display()
        .to_string()
}

/// Files with hostile contents: empty, random bytes, a truncated and a
/// corrupted code object.
fn hostile_files() -> Vec<PathBuf> {
    let dir = std::env::temp_dir().join(format!("aqueduct-cli-files-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let real = std::fs::read(kernel("saxpy.co")).unwrap();
    let mut corrupted = real.clone();
    // The section header offset points past the end.
    corrupted[0x28..0x30].copy_from_slice(&u64::MAX.to_le_bytes());
    let random = bytes_of(&Rng::new(0x2545_F491_4F6C_DD1D).u32s(1024));
    let files = [
        ("empty.co", Vec::new()),
        ("random.co", random),
        ("truncated.co", real[..64].to_vec()),
        ("corrupted.co", corrupted),
        ("elf_magic_only.co", b"\x7fELF".to_vec()),
    ];
    files
        .into_iter()
        .map(|(name, bytes)| {
            let p = dir.join(name);
            std::fs::write(&p, bytes).unwrap();
            p
        })
        .collect()
}

#[test]
fn aqueduct_run_fails_cleanly_on_hostile_input() {
    let saxpy = kernel("saxpy.co");
    let out = std::env::temp_dir()
        .join(format!("aqueduct-cli-out-{}.bin", std::process::id()))
        .display()
        .to_string();
    let good = |extra: &[&str]| {
        let mut v = strings(&[
            &saxpy,
            "--kernel",
            "saxpy",
            "--grid",
            "64",
            "--workgroup",
            "64",
        ]);
        v.extend(strings(extra));
        v
    };
    let full_args = [
        "--arg",
        "a=f32:1",
        "--arg",
        "x=in:/dev/null",
        "--arg",
        "n=u32:64",
    ];
    let files = hostile_files();
    let mut rows: Vec<Vec<String>> = vec![
        vec![],
        strings(&["--no-such-flag"]),
        strings(&["/nonexistent/file.co"]),
        strings(&[&saxpy, "--kernel", "no_such_kernel"]),
        good(&["--grid", "0"]),
        good(&["--grid", "18446744073709551615"]),
        good(&["--grid", "2147483648,2147483648,4", "--workgroup", "1"]),
        good(&["--workgroup", "0"]),
        good(&["--workgroup", "100000"]),
        good(&["--grid", "abc"]),
        good(&["--arg", "garbage"]),
        good(&["--arg", "a=f32:not_a_number"]),
        good(&["--arg", "99=u32:1"]),
        good(&["--arg", "x=@/nonexistent/input.bin"]),
        good(&["--arg", &format!("2=out:{out}:99999999999999999")]),
        good(&["--arg", "2=out:/nonexistent/dir/out.bin:16"]),
        good(&["--arg", "a=local:4294967296"]),
        good(&["--dynamic-lds", "99999999999"]),
        good(&["--timeout", "-1"]),
        good(&["--timeout", "abc"]),
        good(&["--device", "bogus"]),
        good(&["--gpu", "99"]),
    ];
    // Missing arguments entirely, and every argument twice.
    rows.push(good(&[]));
    let mut twice = good(&full_args);
    twice.extend(strings(&full_args));
    rows.push(twice);
    for file in &files {
        rows.push(strings(&[
            file.to_str().unwrap(),
            "--grid",
            "64",
            "--workgroup",
            "64",
        ]));
        rows.push(strings(&[file.to_str().unwrap(), "--list"]));
        rows.push(strings(&[file.to_str().unwrap(), "--disasm"]));
    }
    expect_clean_failures(env!("CARGO_BIN_EXE_aqueduct-run"), &rows);
    if let Some(dir) = files.first().and_then(|f| f.parent()) {
        std::fs::remove_dir_all(dir).ok();
    }
}

#[test]
fn aqueduct_info_fails_cleanly_on_hostile_input() {
    let rows = vec![
        strings(&["--no-such-flag"]),
        strings(&["--json", "--json", "extra"]),
        strings(&["--device", "bogus"]),
    ];
    expect_clean_failures(env!("CARGO_BIN_EXE_aqueduct-info"), &rows);
}
