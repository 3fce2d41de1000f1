//! The kernel corpus (corpus/): every kernel at -O0 and -O3 (and the
//! assembly ones), each case dispatched with the corpus's inputs, checked
//! against its host reference, and compared bit for bit with gfxsim.
//!
//! The code objects are embedded, so the binary runs from any directory.
//! The compared bytes are the buffers a case's reference pins down exactly;
//! buffers only a relation constrains (atomics whose order is the
//! hardware's choice) are checked by the relation on each side and not
//! compared.

use super::cases::{self, Expect, Kernel};
use super::dispatch::{self, KernelArg, Launch};
use super::side::SHIPPED_ISAS;
use super::{Check, CheckError, Group, Observation, Side};

/// One compiled kernel's `(name, -O0 object, -O3 object)` for `$isa`.
macro_rules! compiled {
    ($isa:literal, $name:literal) => {
        (
            $name,
            include_bytes!(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/corpus/",
                $isa,
                "/",
                $name,
                ".O0.co"
            )) as &[u8],
            include_bytes!(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/corpus/",
                $isa,
                "/",
                $name,
                ".O3.co"
            )) as &[u8],
        )
    };
}

/// The embedded objects: the compiled kernels built for every ISA, those
/// built for gfx1100 alone (their instructions are gfx11's: WMMA, DPP8,
/// wave32 permutes; corpus/build.sh), and the assembly kernels (gfx11
/// assembly).
macro_rules! corpus_objects {
    (
        every: [$($every:literal),* $(,)?],
        gfx1100: [$($gfx11:literal),* $(,)?],
        assembled: [$($asm:literal),* $(,)?] $(,)?
    ) => {
        const GFX1100: CompiledObjects =
            &[$(compiled!("gfx1100", $every),)* $(compiled!("gfx1100", $gfx11),)*];
        const GFX942: CompiledObjects = &[$(compiled!("gfx942", $every),)*];
        const GFX90A: CompiledObjects = &[$(compiled!("gfx90a", $every),)*];
        const ASSEMBLED: &[(&str, &[u8])] = &[$((
            $asm,
            include_bytes!(concat!(env!("CARGO_MANIFEST_DIR"), "/corpus/gfx1100/", $asm, ".co")),
        ),)*];
    };
}

type CompiledObjects = &'static [(&'static str, &'static [u8], &'static [u8])];

corpus_objects! {
    every: [
        "atomic_add_contended",
        "atomic_bitwise",
        "atomic_cas_increment",
        "atomic_f32_add",
        "atomic_inc_dec_wrap",
        "atomic_lds_kinds",
        "atomic_minmax",
        "atomic_ticket_xchg",
        "atomic_u64_kinds",
        "bitonic_sort_lds",
        "bitops",
        "calls_noinline",
        "convert_f32",
        "f16_arith",
        "f16_packed",
        "f32_math",
        "f64_arith",
        "f64_horner",
        "grid3d_ids",
        "hash_u64",
        "hip_atomic_cas_fmax",
        "hip_atomic_scopes",
        "hip_block_reduce_shfl",
        "hip_block_scan",
        "hip_f64_newton",
        "hip_fnptr_table",
        "hip_private_bareiss",
        "hip_recursion_fib",
        "hip_saxpy_grid_stride",
        "hip_stencil_lds",
        "hip_struct_aos",
        "hip_templates",
        "idiv_64",
        "idiv_const",
        "idiv_i32",
        "idiv_u32",
        "lds_rotate_rounds",
        "lds_strided_sum",
        "lds_subword",
        "lds_transpose",
        "matmul_f32",
        "private_histogram",
        "private_sort",
        "reduce_f32_tree",
        "reduce_minmax_i32",
        "reduce_u64",
        "scan_exclusive_blelloch",
        "scan_inclusive_lds",
        "serial_wg1",
        "spill_vgpr",
        "wave64_divergent",
        "wave64_reduce",
    ],
    gfx1100: [
        "dpp_row_reduce",
        "hip_wave64_shfl",
        "hip_wmma_bf16",
        "lane_permute",
        "wave_compact",
        "wmma_f32_f16",
        "wmma_i32_iu8",
    ],
    assembled: [
        "asm_barrier_rounds",
        "asm_call_subroutine",
        "asm_divergent_exec",
        "asm_dpp_shuffle",
        "asm_ds_ops",
        "asm_f64_ops",
        "asm_mubuf",
        "asm_salu_loop",
        "asm_scratch",
        "asm_vadd_u32",
        "asm_valu_mix",
        "asm_vopd",
        "asm_wave64_triple",
        "asm_wmma_f16",
    ],
}

/// Why a corpus object is not embedded.
enum Missing {
    /// The corpus is not built for this ISA.
    Isa,
    /// The kernel is built for gfx1100 alone.
    Kernel,
}

/// The embedded code object of `name` in `variant` ("O0", "O3" or "" for
/// assembly) for `isa`.
fn code_object(isa: &str, name: &str, variant: &str) -> Result<&'static [u8], Missing> {
    let compiled = match isa {
        "gfx1100" => GFX1100,
        "gfx942" => GFX942,
        "gfx90a" => GFX90A,
        _ => return Err(Missing::Isa),
    };
    let found = match variant {
        "" if isa == "gfx1100" => ASSEMBLED
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, co)| *co),
        "O0" => compiled
            .iter()
            .find(|(n, ..)| *n == name)
            .map(|(_, o0, _)| *o0),
        "O3" => compiled
            .iter()
            .find(|(n, ..)| *n == name)
            .map(|(_, _, o3)| *o3),
        _ => None,
    };
    found.ok_or(Missing::Kernel)
}

fn variant_label(variant: &str) -> &'static str {
    match variant {
        "O0" => "o0",
        "O3" => "o3",
        _ => "asm",
    }
}

pub fn checks() -> Vec<Check> {
    let mut checks = Vec::new();
    for kernel in cases::all() {
        for &variant in kernel.lang.variants() {
            let name = kernel.name;
            checks.push(Check::new(
                Group::Corpus,
                format!("{name}.{}", variant_label(variant)),
                move |side| run_kernel(side, name, variant),
            ));
        }
    }
    checks
}

fn run_kernel(side: &Side, name: &str, variant: &str) -> Result<Observation, CheckError> {
    let code = code_object(side.isa(), name, variant).map_err(|missing| {
        let reason = match missing {
            Missing::Isa => format!(
                "the corpus is built for {}, this GPU is {}",
                SHIPPED_ISAS.join(", "),
                side.isa()
            ),
            Missing::Kernel => format!("{name} is built for gfx1100 only"),
        };
        CheckError::Unsupported { reason }
    })?;
    let kernel: Kernel = cases::find(name)
        .ok_or_else(|| CheckError::unexpected("corpus kernel", name, "not in the table"))?;
    let exe = side
        .runtime
        .load_executable(&side.agent, code)
        .map_err(CheckError::hsa("loading the code object"))?;
    let mut observation = Observation::default();
    let case_list = (kernel.cases)();
    for case in &case_list {
        let args: Vec<KernelArg> = case
            .args
            .iter()
            .map(|arg| match *arg {
                cases::Arg::Buf(b) => KernelArg::Buffer(b),
                cases::Arg::U32(v) => KernelArg::u32(v),
                cases::Arg::U64(v) => KernelArg::u64(v),
                cases::Arg::F32(v) => KernelArg::u32(v.to_bits()),
            })
            .collect();
        let out = dispatch::run(
            side,
            &exe,
            &Launch {
                kernel: name,
                grid: case.grid,
                workgroup: case.workgroup,
                buffers: &case.buffers,
                args: &args,
            },
        )?;
        let views: Vec<&[u8]> = out.iter().map(Vec::as_slice).collect();
        case.check(&views)
            .map_err(|message| CheckError::Reference {
                case: case.label.clone(),
                message,
            })?;
        for (index, expect) in case.reference() {
            if !matches!(expect, Expect::Relation(_))
                && let Some(bytes) = out.get(index)
            {
                observation
                    .parts
                    .push((format!("[{}] buffer {index}", case.label), bytes.clone()));
            }
        }
    }
    Ok(observation.noted(format!("{} cases", case_list.len())))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each ISA's objects are embedded exactly where `corpus/<isa>` has the
    /// file, and gfx1100 has every kernel.
    #[test]
    fn every_corpus_object_is_embedded() {
        let kernels = cases::all();
        let corpus = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus");
        for isa in SHIPPED_ISAS {
            for kernel in &kernels {
                for &variant in kernel.lang.variants() {
                    let file = kernel.file(variant);
                    let exists = corpus.join(isa).join(&file).is_file();
                    assert_eq!(
                        code_object(isa, kernel.name, variant).is_ok(),
                        exists,
                        "{isa}/{file}: embedded or not as the corpus says"
                    );
                    assert!(exists || isa != "gfx1100", "gfx1100 lacks {file}");
                }
            }
        }
        assert_eq!(GFX1100.len() + ASSEMBLED.len(), kernels.len());
        assert!(matches!(
            code_object("gfx1030", "bitops", "O3"),
            Err(Missing::Isa)
        ));
        assert!(checks().len() >= 100);
    }
}
