//! The kernel corpus (corpus/): every kernel, at every optimisation level it is built
//! at, dispatched on gfxsim through the HSA runtime for each of its cases, with the
//! results compared to a host reference computed in Rust (corpus/cases): integers
//! exactly, floats within the ulp bound documented next to each case (0 for IEEE basic
//! operations). A failure names the kernel, the variant, the case and the first
//! differing element.
//!
//! One test per kernel variant (`<kernel>::o0`, `<kernel>::o3`, `<kernel>::asm`), so a
//! simulator gap can be ignored for exactly the variants it affects. Each test has its
//! own simulated device: a faulting kernel fails only its own test.

use aqueduct_gfxsim as gfxsim;
use aqueduct_hsa as hsa;

/// corpus/ relative to this crate's manifest (used by the runner).
const CORPUS_FROM_MANIFEST: &str = "../../corpus";

#[path = "../../../corpus/cases/mod.rs"]
mod cases;
#[path = "../../../corpus/runner.rs"]
mod runner;

/// Host worker threads of each test's simulated GPU.
const SIM_THREADS: usize = 2;

fn variant_name(test_name: &str) -> &'static str {
    match test_name {
        "o0" => "O0",
        "o3" => "O3",
        _ => "",
    }
}

/// Runs every case of `kernel` built at `variant` and checks each against its reference.
fn run_variant(kernel: &str, variant: &str) {
    let k = cases::find(kernel).unwrap_or_else(|| panic!("{kernel} is not in corpus/cases"));
    let device = runner::Device::new(SIM_THREADS).unwrap_or_else(|e| panic!("{e}"));
    let exe = device
        .load(&k.file(variant))
        .unwrap_or_else(|e| panic!("{e}"));
    let cases = (k.cases)();
    assert!(!cases.is_empty(), "{kernel} has no cases");
    for case in cases {
        let what = format!("{kernel} {variant} [{}]", case.label);
        let out = device
            .run(&exe, &k, &case)
            .unwrap_or_else(|e| panic!("{what}: {e}"));
        let views: Vec<&[u8]> = out.buffers.iter().map(Vec::as_slice).collect();
        case.check(&views).unwrap_or_else(|e| panic!("{what}: {e}"));
    }
}

macro_rules! corpus_tests {
    ($($kernel:ident: [$($(#[$attr:meta])* $variant:ident),*];)*) => {
        /// Every kernel that has tests here, with its variants' test names.
        const TESTED: &[(&str, &[&str])] = &[$((stringify!($kernel), &[$(stringify!($variant)),*])),*];
        $(
            mod $kernel {
                $(
                    #[test]
                    $(#[$attr])*
                    fn $variant() {
                        super::run_variant(stringify!($kernel), super::variant_name(stringify!($variant)));
                    }
                )*
            }
        )*
    };
}

corpus_tests! {
    asm_barrier_rounds: [asm];
    asm_call_subroutine: [asm];
    asm_divergent_exec: [asm];
    asm_dpp_shuffle: [asm];
    asm_ds_ops: [asm];
    asm_f64_ops: [asm];
    asm_mubuf: [asm];
    asm_salu_loop: [asm];
    asm_scratch: [asm];
    asm_vadd_u32: [asm];
    asm_valu_mix: [asm];
    asm_vopd: [asm];
    asm_wave64_triple: [asm];
    asm_wmma_f16: [asm];
    atomic_add_contended: [o0, o3];
    atomic_bitwise: [o0, o3];
    atomic_cas_increment: [o0, o3];
    atomic_f32_add: [o0, o3];
    atomic_inc_dec_wrap: [o0, o3];
    atomic_lds_kinds: [o0, o3];
    atomic_minmax: [o0, o3];
    atomic_ticket_xchg: [o0, o3];
    atomic_u64_kinds: [o0, o3];
    bitonic_sort_lds: [o0, o3];
    bitops: [o0, o3];
    calls_noinline: [o0, o3];
    convert_f32: [o0, o3];
    dpp_row_reduce: [o0, o3];
    f16_arith: [o0, o3];
    f16_packed: [o0, o3];
    f32_math: [o0, o3];
    f64_arith: [o0, o3];
    f64_horner: [o0, o3];
    grid3d_ids: [o0, o3];
    hash_u64: [o0, o3];
    hip_atomic_cas_fmax: [o0, o3];
    hip_atomic_scopes: [o0, o3];
    hip_block_reduce_shfl: [o0, o3];
    hip_block_scan: [o0, o3];
    hip_f64_newton: [o0, o3];
    hip_fnptr_table: [o0, o3];
    hip_private_bareiss: [o0, o3];
    hip_recursion_fib: [o0, o3];
    hip_saxpy_grid_stride: [o0, o3];
    hip_stencil_lds: [o0, o3];
    hip_struct_aos: [o0, o3];
    hip_templates: [o0, o3];
    hip_wave64_shfl: [o0, o3];
    hip_wmma_bf16: [o0, o3];
    idiv_64: [o0, o3];
    idiv_const: [o0, o3];
    idiv_i32: [o0, o3];
    idiv_u32: [o0, o3];
    lane_permute: [o0, o3];
    lds_rotate_rounds: [o0, o3];
    lds_strided_sum: [o0, o3];
    lds_subword: [o0, o3];
    lds_transpose: [o0, o3];
    matmul_f32: [o0, o3];
    private_histogram: [o0, o3];
    private_sort: [o0, o3];
    reduce_f32_tree: [o0, o3];
    reduce_minmax_i32: [o0, o3];
    reduce_u64: [o0, o3];
    scan_exclusive_blelloch: [o0, o3];
    scan_inclusive_lds: [o0, o3];
    serial_wg1: [o0, o3];
    spill_vgpr: [o0, o3];
    wave64_divergent: [o0, o3];
    wave64_reduce: [o0, o3];
    wave_compact: [o0, o3];
    wmma_f32_f16: [o0, o3];
    wmma_i32_iu8: [o0, o3];
}

/// What gfxsim does not execute yet on the GFX9 parts: (kernel, variant, a word of
/// the failure it must give). Every such variant stops with an illegal-instruction
/// error naming what is missing, never a wrong result. None is left today: every
/// variant passes on both parts.
///
/// The lists are exact: a variant that starts passing must leave its list.
const GFX942_GAPS: &[(&str, &str, &str)] = &[];
const GFX90A_GAPS: &[(&str, &str, &str)] = &[];

/// Every kernel variant built for `part`'s ISA (corpus/<isa>/, all but `GFX11_ONLY` of
/// corpus/build.sh) runs every case on that part, checked against the same host
/// references as on gfx1100; the variants that fail are exactly `gaps`, each for its
/// stated reason.
fn run_on_part(part: gfxsim::SimPart, gaps: &[(&str, &str, &str)]) {
    let isa = part.isa();
    let dir = runner::corpus_dir().join(isa);
    let mut ran = 0;
    let mut unexpected = Vec::new();
    for k in cases::all() {
        for variant in k.lang.variants() {
            if !dir.join(k.file(variant)).is_file() {
                continue;
            }
            ran += 1;
            let config = gfxsim::SimConfig {
                part,
                threads: SIM_THREADS,
                ..gfxsim::SimConfig::default()
            };
            let outcome = (|| {
                let device = runner::Device::with_config(config, None)?;
                let exe = device.load(&k.file(variant))?;
                for case in (k.cases)() {
                    let what = format!("[{}]", case.label);
                    let out = device.run(&exe, &k, &case).map_err(|e| {
                        let detail = device.sim.wave_error(device.queue.id()).unwrap_or_default();
                        format!("{what}: {e} {detail}")
                    })?;
                    let views: Vec<&[u8]> = out.buffers.iter().map(Vec::as_slice).collect();
                    case.check(&views).map_err(|e| format!("{what}: {e}"))?;
                }
                Ok::<(), String>(())
            })();
            let gap = gaps
                .iter()
                .find(|(name, v, _)| *name == k.name && v == variant);
            match (outcome, gap) {
                (Ok(()), None) => {}
                (Err(e), Some((_, _, why))) if e.contains(why) => {}
                (Err(e), _) => unexpected.push(format!("{} {variant}: {e}", k.name)),
                (Ok(()), Some(_)) => unexpected.push(format!(
                    "{} {variant}: passes; remove it from the gaps",
                    k.name
                )),
            }
        }
    }
    assert!(
        ran >= 100,
        "{isa}: only {ran} variants built (run corpus/build.sh)"
    );
    assert!(
        unexpected.is_empty(),
        "{isa}: {} of {ran} variants are not as listed:\n{}",
        unexpected.len(),
        unexpected.join("\n")
    );
}

#[test]
fn the_corpus_runs_on_gfx942() {
    run_on_part(gfxsim::SimPart::Mi300x, GFX942_GAPS);
}

#[test]
fn the_corpus_runs_on_gfx90a() {
    run_on_part(gfxsim::SimPart::Mi210, GFX90A_GAPS);
}

/// The table, the sources, the checked-in objects and the tests above agree: every source
/// has a table entry of its language, every variant's object exists, every kernel has a
/// test per variant, and the corpus keeps its promised size and coverage.
#[test]
fn corpus_table_sources_objects_and_tests_agree() {
    use std::collections::BTreeMap;
    let dir = runner::corpus_dir();
    let mut sources = BTreeMap::new();
    for entry in std::fs::read_dir(dir.join("src")).expect("corpus/src") {
        let name = entry
            .expect("dir entry")
            .file_name()
            .to_string_lossy()
            .into_owned();
        if let Some((stem, ext)) = name.rsplit_once('.') {
            let lang = match ext {
                "cl" => cases::Lang::OpenCl,
                "hip" => cases::Lang::Hip,
                "s" => cases::Lang::Asm,
                _ => continue,
            };
            sources.insert(stem.to_string(), lang);
        }
    }
    let table = cases::all();
    let in_table: BTreeMap<String, cases::Lang> =
        table.iter().map(|k| (k.name.to_string(), k.lang)).collect();
    assert_eq!(
        in_table.len(),
        table.len(),
        "a kernel is listed twice in corpus/cases"
    );
    assert_eq!(
        sources, in_table,
        "corpus/src and corpus/cases list different kernels or languages"
    );
    let tested: BTreeMap<&str, Vec<&str>> = TESTED.iter().map(|&(k, v)| (k, v.to_vec())).collect();
    for k in &table {
        let want: Vec<&str> = match k.lang {
            cases::Lang::Asm => vec!["asm"],
            _ => vec!["o0", "o3"],
        };
        assert_eq!(
            tested.get(k.name),
            Some(&want),
            "{}: tests per variant",
            k.name
        );
        for variant in k.lang.variants() {
            let file = dir.join("gfx1100").join(k.file(variant));
            assert!(
                file.is_file(),
                "{} is missing (run corpus/build.sh)",
                file.display()
            );
        }
    }
    assert_eq!(
        tested.len(),
        table.len(),
        "a test names a kernel that is not in the table"
    );
    assert!(
        table.len() >= 60,
        "the corpus has {} kernels, want >= 60",
        table.len()
    );
    for lang in [cases::Lang::OpenCl, cases::Lang::Hip, cases::Lang::Asm] {
        assert!(table.iter().any(|k| k.lang == lang), "no {lang:?} kernel");
    }
    use cases::Category::*;
    for category in [
        ScanReduce, Atomics, Wave64, Scratch, F64F16, IntDiv, Calls, CrossLane, Wmma, Lds,
    ] {
        assert!(
            table.iter().any(|k| k.category == category),
            "no {category:?} kernel"
        );
    }
    // Groups of 1, 64, 256 and 1024 work-items all appear among the cases.
    let sizes: std::collections::BTreeSet<u32> = table
        .iter()
        .flat_map(|k| {
            (k.cases)()
                .into_iter()
                .map(|c| c.workgroup.iter().map(|&d| d as u32).product::<u32>())
        })
        .collect();
    for size in [1, 64, 256, 1024] {
        assert!(sizes.contains(&size), "no case with {size}-item groups");
    }
}
