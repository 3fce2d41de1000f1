//! Paths inside the repository, for tests that read checked-in kernels,
//! shaders and vectors wherever their crate sits.

use std::path::PathBuf;

/// The repository root (this crate lives at `crates/test-support`).
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The bytes of a file under the repository root, or a panic naming it.
pub fn read(relative: &str) -> Vec<u8> {
    let path = root().join(relative);
    std::fs::read(&path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()))
}

/// A checked-in kernel: `kernels/<relative>` (e.g. `gfx1100/saxpy.co`).
pub fn kernel(relative: &str) -> Vec<u8> {
    read(&format!("kernels/{relative}"))
}
