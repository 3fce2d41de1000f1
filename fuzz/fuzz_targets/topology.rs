//! Fuzz target: `Topology::parse` over a sysfs tree built from the bytes.
//!
//! The invariants are in `checks/topology.rs`.
#![no_main]

#[path = "../checks/topology.rs"]
mod checks;

libfuzzer_sys::fuzz_target!(|bytes: &[u8]| checks::check(bytes));
