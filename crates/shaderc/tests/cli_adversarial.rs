//! aqueduct-shaderc given hostile command lines and sources: every case
//! ends within a time bound with a non-zero exit code and a message, never
//! a panic (exit 101), a signal or a hang. None of the sources reaches
//! clang (each fails earlier), so the test needs no LLVM.

use std::process::Command;
use std::time::Duration;

use aqueduct_test_support::process::run_bounded;

fn dir() -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("aqueduct-shaderc-cli-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

#[test]
fn hostile_input_fails_cleanly() {
    let d = dir();
    let write = |name: &str, bytes: &[u8]| {
        let p = d.join(name);
        std::fs::write(&p, bytes).unwrap();
        p.display().to_string()
    };
    let empty = write("empty.wgsl", b"");
    let control = write("control.wgsl", &vec![0x01u8; 2 << 20]);
    let not_utf8 = write("bytes.wgsl", &[0xFF, 0xFE, 0x00, 0x80, 0xC3]);
    let spirv = write(
        "garbage.spv",
        &[0x03, 0x02, 0x23, 0x07, 0xFF, 0xFF, 0xFF, 0xFF],
    );
    let huge_wg = write(
        "huge_workgroup.wgsl",
        b"var<workgroup> big: array<u32, 32768>;
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) i: u32) { big[i] = i; }
",
    );
    let no_entry = write("no_entry.wgsl", b"fn helper() -> u32 { return 1u; }\n");
    let deep = write(
        "deep.wgsl",
        format!(
            "@compute @workgroup_size(1) fn main() {{ let x = {}1{}; }}\n",
            "(".repeat(20_000),
            ")".repeat(20_000)
        )
        .as_bytes(),
    );
    let out = d.join("out.co").display().to_string();
    let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
    let rows: Vec<Vec<String>> = vec![
        s(&[]),
        s(&["frobnicate"]),
        s(&["compile"]),
        s(&["compile", "/nonexistent/shader.wgsl", "-o", &out]),
        s(&["compile", &empty, "-o", &out]),
        s(&["compile", &control, "-o", &out]),
        s(&["compile", &not_utf8, "-o", &out]),
        s(&["compile", &spirv, "-o", &out]),
        s(&["compile", &huge_wg, "-o", &out]),
        s(&["compile", &no_entry, "-o", &out]),
        s(&["compile", &deep, "-o", &out]),
        s(&["compile", &no_entry, "--target", "gfx9999", "-o", &out]),
        s(&["compile", &no_entry, "-O7", "-o", &out]),
        s(&["compile", &no_entry, "--define", "=1", "-o", &out]),
        s(&["compile", &no_entry, "--define", "X=notanumber", "-o", &out]),
        s(&["build", "/nonexistent/dir"]),
    ];
    let mut bad = Vec::new();
    for args in &rows {
        let e = run_bounded(
            Command::new(env!("CARGO_BIN_EXE_aqueduct-shaderc")).args(args),
            Duration::from_secs(30),
        );
        if !e.failed_cleanly() {
            let text = &e.text[..e.text.len().min(2000)];
            bad.push(format!("{args:?}: exit {:?}\n{text}", e.code));
        }
    }
    std::fs::remove_dir_all(&d).ok();
    assert!(
        bad.is_empty(),
        "{} inputs did not fail cleanly:\n{}",
        bad.len(),
        bad.join("\n---\n")
    );
}
