//! The WGSL front end's fuzz checks (fuzz/checks/shaderc_frontend.rs) on
//! every WGSL file of the repository and on a fixed number of deterministic
//! mutants of them, in every `cargo test` (fuzz/README.md has the libFuzzer
//! runs that explore further).

#[path = "../../../fuzz/checks/mutate.rs"]
mod mutate;
#[path = "../../../fuzz/checks/shaderc_frontend.rs"]
mod shaderc_frontend;

use aqueduct_test_support::repo;

#[test]
fn shaderc_frontend_checks_hold_on_every_wgsl_file_and_mutants() {
    let seeds = mutate::files(&repo::root(), &["shaders", "examples/shaders"], &[".wgsl"]);
    assert!(seeds.len() > 20, "{} seeds", seeds.len());
    mutate::replay("shaderc_frontend", &seeds, 2000, shaderc_frontend::check);
}
