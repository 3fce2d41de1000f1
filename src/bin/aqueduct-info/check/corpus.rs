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
use super::side::SIM_ISA;
use super::{Check, CheckError, Group, Observation, Side};

/// `(name, -O0 object, -O3 object)` of the compiled kernels.
macro_rules! compiled {
    ($($name:literal),* $(,)?) => {
        &[$((
            $name,
            include_bytes!(concat!(env!("CARGO_MANIFEST_DIR"), "/corpus/gfx1100/", $name, ".O0.co")),
            include_bytes!(concat!(env!("CARGO_MANIFEST_DIR"), "/corpus/gfx1100/", $name, ".O3.co")),
        )),*]
    };
}

/// `(name, object)` of the assembly kernels.
macro_rules! assembled {
    ($($name:literal),* $(,)?) => {
        &[$((
            $name,
            include_bytes!(concat!(env!("CARGO_MANIFEST_DIR"), "/corpus/gfx1100/", $name, ".co")),
        )),*]
    };
}

type CompiledObjects = &'static [(&'static str, &'static [u8], &'static [u8])];

const COMPILED: CompiledObjects = compiled![
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
    "dpp_row_reduce",
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
    "hip_wave64_shfl",
    "hip_wmma_bf16",
    "idiv_64",
    "idiv_const",
    "idiv_i32",
    "idiv_u32",
    "lane_permute",
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
    "wave_compact",
    "wmma_f32_f16",
    "wmma_i32_iu8",
];

const ASSEMBLED: &[(&str, &[u8])] = assembled![
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
];

/// The embedded code object of `name` in `variant` ("O0", "O3" or "" for assembly).
fn code_object(name: &str, variant: &str) -> Option<&'static [u8]> {
    match variant {
        "" => ASSEMBLED
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, co)| *co),
        "O0" => COMPILED
            .iter()
            .find(|(n, ..)| *n == name)
            .map(|(_, o0, _)| *o0),
        "O3" => COMPILED
            .iter()
            .find(|(n, ..)| *n == name)
            .map(|(_, _, o3)| *o3),
        _ => None,
    }
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
    if side.isa() != SIM_ISA {
        return Err(CheckError::Unsupported {
            reason: format!(
                "the corpus is built for {SIM_ISA}, this GPU is {}",
                side.isa()
            ),
        });
    }
    let kernel: Kernel = cases::find(name)
        .ok_or_else(|| CheckError::unexpected("corpus kernel", name, "not in the table"))?;
    let code = code_object(name, variant).ok_or_else(|| {
        CheckError::unexpected("embedded code object", kernel.file(variant), "missing")
    })?;
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

    #[test]
    fn every_corpus_kernel_has_its_objects_embedded() {
        let kernels = cases::all();
        for kernel in &kernels {
            for &variant in kernel.lang.variants() {
                assert!(
                    code_object(kernel.name, variant).is_some(),
                    "{} is not embedded",
                    kernel.file(variant)
                );
            }
        }
        assert_eq!(COMPILED.len() + ASSEMBLED.len(), kernels.len());
        assert!(checks().len() >= 100);
    }
}
