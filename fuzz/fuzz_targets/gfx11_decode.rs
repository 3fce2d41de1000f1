//! Fuzz target: the gfx11 instruction decoder and disassembler.
//!
//! The invariants are in `checks/gfx11_decode.rs`.
#![no_main]

#[path = "../checks/gfx11_decode.rs"]
mod checks;

libfuzzer_sys::fuzz_target!(|bytes: &[u8]| checks::check(bytes));
