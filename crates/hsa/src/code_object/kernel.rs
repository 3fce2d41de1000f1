//! A kernel of a loaded code object: its metadata record joined with the
//! 64-byte kernel descriptor read from the image. This is everything a
//! dispatch needs: where the descriptor lives (the AQL `kernel_object` is
//! load base + `descriptor_offset`), how big the kernarg segment is and which
//! arguments (explicit and hidden) go where, and the static resource usage.

use aqueduct_kfd::abi::KernelDescriptor;

use super::descriptor_rules::gfx9_fields;
use super::isa::IsaName;
use super::metadata::{KernelArg, KernelMetadata};

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KernelInfo {
    /// Metadata `.name` (the source-level kernel name, e.g. `saxpy`).
    pub name: String,
    /// Metadata `.symbol`: the descriptor symbol (e.g. `saxpy.kd`).
    pub symbol: String,
    /// Image offset (symbol value) of the 64-byte kernel descriptor.
    pub descriptor_offset: u64,
    pub descriptor: KernelDescriptor,
    /// All arguments in metadata order, hidden ones included.
    pub args: Vec<KernelArg>,
    pub kernarg_segment_size: u32,
    pub kernarg_segment_align: u32,
    pub group_segment_fixed_size: u32,
    pub private_segment_fixed_size: u32,
    pub wavefront_size: u32,
    pub sgpr_count: u32,
    pub vgpr_count: u32,
    /// Accumulation VGPRs (gfx90a/gfx94x); 0 where absent.
    pub agpr_count: u32,
    pub sgpr_spill_count: u32,
    pub vgpr_spill_count: u32,
    pub max_flat_workgroup_size: u32,
    pub reqd_workgroup_size: Option<[u32; 3]>,
    pub uses_dynamic_stack: bool,
    /// gfx90a/gfx94x: the VGPR index where the AGPRs start in the unified
    /// register file (COMPUTE_PGM_RSRC3.ACCUM_OFFSET, 4 to 256); None on
    /// other targets.
    pub accum_offset: Option<u32>,
    /// gfx90a/gfx94x: COMPUTE_PGM_RSRC3.TG_SPLIT, the workgroup's waves may
    /// run on different CUs; false on other targets.
    pub tg_split: bool,
}

impl KernelInfo {
    pub(crate) fn new(
        metadata: KernelMetadata,
        descriptor_offset: u64,
        descriptor: KernelDescriptor,
        isa: &IsaName,
    ) -> Self {
        let gfx9 = gfx9_fields(isa, &descriptor);
        Self {
            name: metadata.name,
            symbol: metadata.symbol,
            descriptor_offset,
            descriptor,
            args: metadata.args,
            kernarg_segment_size: metadata.kernarg_segment_size,
            kernarg_segment_align: metadata.kernarg_segment_align,
            group_segment_fixed_size: metadata.group_segment_fixed_size,
            private_segment_fixed_size: metadata.private_segment_fixed_size,
            wavefront_size: metadata.wavefront_size,
            sgpr_count: metadata.sgpr_count,
            vgpr_count: metadata.vgpr_count,
            agpr_count: metadata.agpr_count,
            sgpr_spill_count: metadata.sgpr_spill_count,
            vgpr_spill_count: metadata.vgpr_spill_count,
            max_flat_workgroup_size: metadata.max_flat_workgroup_size,
            reqd_workgroup_size: metadata.reqd_workgroup_size,
            uses_dynamic_stack: metadata.uses_dynamic_stack,
            accum_offset: gfx9.map(|f| f.accum_offset),
            tg_split: gfx9.is_some_and(|f| f.tg_split),
        }
    }

    /// The explicit (caller-supplied) arguments, in order; `ArgRef::Index`
    /// counts these.
    pub fn explicit_args(&self) -> impl Iterator<Item = &KernelArg> {
        self.args.iter().filter(|arg| !arg.value_kind.is_hidden())
    }

    /// Image offset of the kernel's first instruction (descriptor offset plus
    /// the descriptor's signed `kernel_code_entry_byte_offset`); checked to lie
    /// inside the image when the code object was parsed.
    pub fn entry_offset(&self) -> u64 {
        self.descriptor_offset
            .wrapping_add_signed(self.descriptor.kernel_code_entry_byte_offset)
    }
}
