//! Fuzz target: the facade's validation, as sequences of API calls on
//! gfxsim. The calls, their decoding and the invariants are in
//! `checks/facade_api.rs`.
#![no_main]

#[path = "../checks/facade_api.rs"]
mod checks;

libfuzzer_sys::fuzz_target!(|bytes: &[u8]| checks::check_bytes(bytes));
