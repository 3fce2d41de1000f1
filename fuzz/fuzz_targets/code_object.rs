//! Fuzz target: the code-object loader on arbitrary bytes.
//!
//! The invariants are in `checks/code_object.rs`.
#![no_main]

#[path = "../checks/code_object.rs"]
mod checks;

libfuzzer_sys::fuzz_target!(|bytes: &[u8]| checks::check(bytes));
