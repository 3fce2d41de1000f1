//! What tests of run-time WGSL share, through the facade or through
//! aqueduct-wgpu: whether LLVM is here to compile it (and the part can
//! run texture shaders), and keeping the
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

/// Whether WGSL with textures compiles and runs here: clang-19/ld.lld-19
/// are installed and the default part's ISA has texture instructions.
/// GFX9 targets refuse texture bindings (`UnsupportedKind::TargetTextures`,
/// which the facade's `textures/gfx9.rs` checks); there a test of texture
/// shaders says why on stderr and stops.
pub fn texture_shaders(what: &str) -> bool {
    if !llvm_installed(what) {
        return false;
    }
    let isa = aqueduct::gfxsim::default_part().isa();
    if isa.starts_with("gfx9") {
        eprintln!("{what}: skipped on {isa}: GFX9 targets refuse texture bindings");
        return false;
    }
    true
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
