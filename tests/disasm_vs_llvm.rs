//! `aqueduct-run --disasm` against LLVM's own disassembler: for every
//! checked-in gfx1100 code object, aqueduct-isa's gfx11 decoder must print exactly what
//! `llvm-objdump-19 -d` prints (instruction text, address and words), line
//! for line. Where llvm-objdump-19 is not installed the comparison is
//! skipped with a note (CI installs it).

use std::path::{Path, PathBuf};
use std::process::Command;

fn objects() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    for dir in ["kernels/gfx1100", "crates/isa/tests/isa_kernels"] {
        for entry in std::fs::read_dir(root.join(dir)).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|e| e == "co") {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

/// The instruction lines (`text // ADDRESS: WORDS`), whitespace collapsed,
/// with llvm-objdump's branch-target annotations (` <sym+0x..>`) removed.
fn instruction_lines(text: &str) -> Vec<String> {
    text.lines()
        .filter(|l| l.contains("//"))
        .map(|l| {
            let l = match l.rfind(" <") {
                Some(i) if l.ends_with('>') => &l[..i],
                _ => l,
            };
            l.split_whitespace().collect::<Vec<_>>().join(" ")
        })
        .collect()
}

#[test]
fn decoder_matches_llvm_objdump_on_every_checked_in_kernel() {
    if Command::new("llvm-objdump-19")
        .arg("--version")
        .output()
        .is_err()
    {
        println!("skipped: llvm-objdump-19 not installed (apt-get install -y llvm-19)");
        return;
    }
    let mut total = 0;
    for path in objects() {
        let ours = Command::new(env!("CARGO_BIN_EXE_aqueduct-run"))
            .arg(&path)
            .arg("--disasm")
            .output()
            .unwrap();
        assert!(
            ours.status.success(),
            "{}: {}",
            path.display(),
            String::from_utf8_lossy(&ours.stderr)
        );
        let llvm = Command::new("llvm-objdump-19")
            .args(["-d", "--triple=amdgcn-amd-amdhsa", "--mcpu=gfx1100"])
            .arg(&path)
            .output()
            .unwrap();
        assert!(llvm.status.success());
        let ours = instruction_lines(&String::from_utf8_lossy(&ours.stdout));
        let llvm = instruction_lines(&String::from_utf8_lossy(&llvm.stdout));
        for (i, (a, b)) in ours.iter().zip(&llvm).enumerate() {
            assert_eq!(a, b, "{}: line {i} differs", path.display());
        }
        assert_eq!(
            ours.len(),
            llvm.len(),
            "{}: instruction count",
            path.display()
        );
        assert!(!ours.is_empty());
        total += ours.len();
    }
    println!("{total} instructions agree with llvm-objdump-19");
}

#[test]
fn disasm_refuses_other_families_clearly() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = Command::new(env!("CARGO_BIN_EXE_aqueduct-run"))
        .arg(root.join("kernels/gfx942/saxpy.co"))
        .arg("--disasm")
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("gfx942") && err.contains("gfx11"), "{err}");
    // A bundle is disassembled through its gfx1100 entry.
    let out = Command::new(env!("CARGO_BIN_EXE_aqueduct-run"))
        .arg(root.join("kernels/bundles/saxpy.zstd.bundle"))
        .arg("--disasm")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("<saxpy>:"));
}
