//! Fuzz target: shaderc's front end and LLVM IR emission on WGSL text.
//!
//! The invariants are in `checks/shaderc_frontend.rs`.
#![no_main]

#[path = "../checks/shaderc_frontend.rs"]
mod checks;

libfuzzer_sys::fuzz_target!(|bytes: &[u8]| checks::check(bytes));
