//! Build script: a digest of this crate's sources (src/ and Cargo.toml,
//! which pins naga), exported as `AQUEDUCT_SHADERC_SOURCE_DIGEST` for
//! `COMPILER_ID`, so caches of compiled shaders tell builds of the compiler
//! apart even while the crate version stays the same.

use std::path::{Path, PathBuf};

/// 64-bit FNV-1a: enough to notice a changed source, needs no dependency.
struct Fnv1a(u64);

impl Fnv1a {
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 ^= u64::from(b);
            self.0 = self.0.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
}

fn files_under(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            files_under(&path, out);
        } else {
            out.push(path);
        }
    }
}

fn main() {
    let root = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").expect("set by cargo"));
    let mut files = vec![root.join("Cargo.toml")];
    files_under(&root.join("src"), &mut files);
    files.sort();
    let mut digest = Fnv1a(0xcbf2_9ce4_8422_2325);
    for file in &files {
        let relative = file.strip_prefix(&root).unwrap_or(file);
        digest.write(relative.to_string_lossy().as_bytes());
        digest.write(&[0]);
        digest.write(&std::fs::read(file).unwrap_or_default());
        digest.write(&[0]);
    }
    println!("cargo:rerun-if-changed=src");
    println!("cargo:rerun-if-changed=Cargo.toml");
    println!(
        "cargo:rustc-env=AQUEDUCT_SHADERC_SOURCE_DIGEST={:016x}",
        digest.0
    );
}
