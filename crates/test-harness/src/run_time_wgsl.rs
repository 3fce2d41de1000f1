//! What tests of run-time WGSL share, through the facade or through
//! aqueduct-wgpu: whether LLVM is here to compile it, and keeping the
//! test process's compiled objects out of the user's on-disk shader cache.

/// Whether clang-19/ld.lld-19 can compile WGSL here; when not, says on
/// stderr that `what` is not tested.
pub fn llvm_installed(what: &str) -> bool {
    let found = aqueduct_shaderc::Toolchain::available();
    if !found {
        eprintln!("clang-19/ld.lld-19 not installed, so not tested: {what}");
    }
    found
}

/// Turns this process's on-disk shader cache off (`AQUEDUCT_SHADER_CACHE=off`),
/// once. Every test of a binary that opens a device calls it first, before
/// any device (or other thread reading the environment) exists.
pub fn no_disk_cache() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        // SAFETY: per the contract above, no other thread of this process
        // reads the environment while it is set.
        unsafe { std::env::set_var(aqueduct::shader_disk_cache::SHADER_CACHE_ENV, "off") };
    });
}
