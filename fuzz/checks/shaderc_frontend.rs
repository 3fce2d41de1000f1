//! Fuzz checks: shaderc's front end and LLVM IR emission on WGSL text.
//!
//! `translate` runs naga's WGSL parser and validator, then this project's
//! IR emitter and reflection; it stops before clang, so no process is
//! spawned. Any text must give IR or a `CompileError`; a panic (in naga or
//! in the emitter) is a finding. Emitted IR for a compute entry point must
//! define that entry point's kernel. Seeded with shaders/**/*.wgsl.
//!
//! The checks live here, apart from libFuzzer, so the fuzz target
//! (`fuzz_targets/shaderc_frontend.rs`) and the corpus replay that runs in every
//! `cargo test` use the same code.

use aqueduct_shaderc::{Options, Source, translate};

/// Run the target's invariants on one input (panics on a finding).
pub fn check(bytes: &[u8]) {
    let Ok(text) = std::str::from_utf8(bytes) else {
        return;
    };
    let options = Options::default();
    if let Ok(translated) = translate(Source::Wgsl(text), &options) {
        assert!(!translated.reflection.entry_points.is_empty());
        for entry in &translated.reflection.entry_points {
            assert!(
                translated.llvm_ir.contains(&format!("@{}(", entry.kernel))
                    || translated
                        .llvm_ir
                        .contains(&format!("@\"{}\"(", entry.kernel)),
                "kernel {} not defined in the IR",
                entry.kernel
            );
        }
    }
}
