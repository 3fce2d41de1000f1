//! The baseline compiler: naga IR → gfx11 machine code → a code object,
//! without LLVM, in microseconds.
//!
//! Creating a pipeline through LLVM costs milliseconds per module (LLVM's
//! AMDGPU back end at -O3, in process), where lavapipe needs a fraction
//! of one. The baseline tier covers what small compute shaders use
//! (storage buffers of 32-bit scalars and vectors, integer and float
//! arithmetic, comparisons, `if`, loops, the invocation and workgroup ids)
//! with straightforward code: `lower` maps each naga expression to VALU
//! instructions over fresh registers, `asm` encodes them, `object` writes
//! the code object with the same kernel ABI as the LLVM path (arguments,
//! metadata, reflection), so a runtime loads either the same way. A module
//! that uses anything else is [`lower::Unsupported`] here and goes through
//! LLVM as before.
//!
//! Only gfx11 targets (wave32) have a baseline encoder.

pub(crate) mod asm;
pub(crate) mod lower;
pub(crate) mod object;

use crate::reflect::{BindingKind, Reflection};
use lower::{BindingArgs, Inputs, Unsupported};
use object::{HiddenArgs, KernelArg, KernelImage, UserSgprs};

/// Targets the baseline encoder covers: the gfx11 family (RDNA3).
pub(crate) fn covers(target: &str) -> bool {
    target.starts_with("gfx11")
}

/// Compile every entry point `reflection` lists into one code object for
/// `target`, or say what the baseline compiler does not cover.
pub(crate) fn compile(
    module: &naga::Module,
    info: &naga::valid::ModuleInfo,
    reflection: &Reflection,
    target: &str,
) -> Result<Vec<u8>, Unsupported> {
    if !covers(target) {
        return Err(Unsupported("a target outside the gfx11 family"));
    }
    struct Built {
        symbol: String,
        code: Vec<u8>,
        lowered: lower::Lowered,
        /// Each argument: a buffer address (Some(read_only)) or a size.
        args: Vec<(String, Option<bool>)>,
        workgroup_size: [u32; 3],
        hidden: HiddenArgs,
    }
    let layout = object::sgpr_layout(target, false, UserSgprs::KERNARG, [true; 3], false)
        .map_err(|_| Unsupported("a target the object writer does not know"))?;
    let (Some(kernarg), [Some(x), Some(y), Some(z)]) =
        (layout.kernarg_segment_ptr, layout.workgroup_id)
    else {
        return Err(Unsupported(
            "an input SGPR layout without the kernarg pointer",
        ));
    };
    let inputs = Inputs {
        kernarg,
        workgroup_id: [x, y, z],
        first_free: layout.input_sgprs,
        hidden: None,
    };
    // (name, read_only) of a buffer address, or (name of a size) as None.
    fn kernel_args(args: &[(String, Option<bool>)]) -> Vec<KernelArg<'_>> {
        args.iter()
            .map(|(name, buffer)| match buffer {
                Some(read_only) => KernelArg::global_buffer(name, *read_only),
                None => KernelArg::by_value(name, 4, 4),
            })
            .collect()
    }
    let mut built = Vec::new();
    for entry in &reflection.entry_points {
        let Some(ep_index) = module
            .entry_points
            .iter()
            .position(|e| e.stage == naga::ShaderStage::Compute && e.name == entry.name)
        else {
            return Err(Unsupported("an entry point missing from the module"));
        };
        let mut args: Vec<(String, Option<bool>)> = Vec::new();
        for b in &entry.bindings {
            args.push((b.arg.clone(), Some(b.kind == BindingKind::StorageRead)));
            if let Some(size) = &b.size_arg {
                args.push((size.clone(), None));
            }
        }
        let ep = &module.entry_points[ep_index];
        let hidden = if ep
            .function
            .arguments
            .iter()
            .any(|a| a.binding == Some(naga::Binding::BuiltIn(naga::BuiltIn::NumWorkGroups)))
        {
            HiddenArgs::Dispatch
        } else {
            HiddenArgs::None
        };
        let layout = object::kernarg_layout(&kernel_args(&args), hidden)
            .map_err(|_| Unsupported("kernel arguments the object writer rejects"))?;
        let mut binding_args = Vec::new();
        let mut at = 0;
        for b in &entry.bindings {
            let pointer = layout.offsets[at];
            at += 1;
            let size = match b.size_arg {
                Some(_) => {
                    at += 1;
                    Some(layout.offsets[at - 1])
                }
                None => None,
            };
            binding_args.push(BindingArgs { pointer, size });
        }
        let lowered = lower::lower(
            module,
            info,
            ep_index,
            entry,
            &binding_args,
            Inputs {
                hidden: layout.hidden,
                ..inputs
            },
        )?;
        let code = asm::encode(&lowered.program)
            .map_err(|_| Unsupported("a program the encoder rejects"))?;
        built.push(Built {
            symbol: entry.kernel.clone(),
            code,
            lowered,
            args,
            workgroup_size: entry.workgroup_size,
            hidden,
        });
    }
    let arg_lists: Vec<Vec<KernelArg<'_>>> = built.iter().map(|b| kernel_args(&b.args)).collect();
    let images: Vec<KernelImage<'_>> = built
        .iter()
        .zip(&arg_lists)
        .map(|(b, args)| KernelImage {
            symbol: &b.symbol,
            code: &b.code,
            target,
            wave64: false,
            sgpr_count: b.lowered.sgprs,
            vgpr_count: b.lowered.vgprs,
            group_segment_fixed_size: 0,
            private_segment_fixed_size: 0,
            workgroup_size: b.workgroup_size,
            user_sgprs: UserSgprs::KERNARG,
            workgroup_ids: [true; 3],
            workitem_id_dims: b.lowered.workitem_dims,
            args,
            hidden_args: b.hidden,
        })
        .collect();
    object::write_code_object(&images).map_err(|_| Unsupported("a code object the writer rejects"))
}
