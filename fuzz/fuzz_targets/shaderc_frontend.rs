//! Fuzz target: shaderc's front end and LLVM IR emission on WGSL text.
//!
//! `translate` runs naga's WGSL parser and validator, then this project's
//! IR emitter and reflection; it stops before clang, so no process is
//! spawned. Any text must give IR or a `CompileError`; a panic (in naga or
//! in the emitter) is a finding. Emitted IR for a compute entry point must
//! define that entry point's kernel. Seeded with shaders/**/*.wgsl.
#![no_main]

use aqueduct_shaderc::{Options, Source, translate};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|bytes: &[u8]| {
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
});
