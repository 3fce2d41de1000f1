//! The fuzz targets' checks (fuzz/checks/) on their seeds and on a fixed
//! number of deterministic mutants, in every `cargo test`: the code object
//! loader, the KFD topology parser, the gfx11 decoder and the facade's API
//! (call sequences decoded from bytes as libFuzzer decodes them). The
//! libFuzzer runs that explore further are in fuzz/README.md; the WGSL
//! front end's replay is in crates/shaderc/tests/fuzz_replay.rs.

#[path = "../fuzz/checks/code_object.rs"]
mod code_object;
#[path = "../fuzz/checks/facade_api.rs"]
mod facade_api;
#[path = "../fuzz/checks/gfx11_decode.rs"]
mod gfx11_decode;
#[path = "../fuzz/checks/mutate.rs"]
mod mutate;
#[path = "../fuzz/checks/topology.rs"]
mod topology;

use aqueduct_test_support::repo;

#[test]
fn code_object_checks_hold_on_every_code_object_and_mutants() {
    let seeds = mutate::files(
        &repo::root(),
        &[
            "kernels/gfx1100",
            "kernels/gfx942",
            "kernels/gfx90a",
            "kernels/bundles",
            "shaders/gfx1100",
        ],
        &[".co", ".bundle"],
    );
    assert!(seeds.len() > 20, "{} seeds", seeds.len());
    mutate::replay("code_object", &seeds, 3000, code_object::check);
}

#[test]
fn topology_checks_hold_on_the_seeds_and_mutants() {
    let seeds = mutate::files(&repo::root(), &["fuzz/corpus/topology"], &[""]);
    mutate::replay("topology", &seeds, 3000, topology::check);
}

#[test]
fn gfx11_decode_checks_hold_on_the_seeds_and_mutants() {
    let seeds = mutate::files(&repo::root(), &["fuzz/corpus/gfx11_decode"], &[""]);
    mutate::replay("gfx11_decode", &seeds, 10000, gfx11_decode::check);
}

#[test]
fn facade_api_checks_hold_on_the_seeds_and_mutants() {
    let seeds = mutate::files(&repo::root(), &["fuzz/corpus/facade_api"], &[""]);
    assert!(seeds.len() >= 20, "{} seeds", seeds.len());
    mutate::replay("facade_api", &seeds, 1500, facade_api::check_bytes);
}
