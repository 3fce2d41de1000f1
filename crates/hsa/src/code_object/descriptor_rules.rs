//! The rules a kernel descriptor must follow on its target, checked when a
//! code object is parsed, and the GFX9 fields a dispatch needs
//! ([`Gfx9Fields`]). A descriptor that breaks one would make the command
//! processor set up the wave wrongly (user SGPRs shifted, AGPRs overlapping
//! VGPRs, a wave size the hardware lacks), so it is refused as a
//! [`DescriptorFault`].
//!
//! The rules are those of LLVM AMDGPUUsage ("Kernel Descriptor", its
//! compute_pgm_rsrc tables, and "Initial Kernel Execution State"), which
//! the assembler enforces for `.amdhsa_kernel` (AMDGPUAsmParser.cpp
//! `ParseDirectiveAMDHSAKernel`):
//! - GFX9 has no wave32: ENABLE_WAVEFRONT_SIZE32 is reserved and 0.
//! - On gfx90a/gfx94x, COMPUTE_PGM_RSRC3 holds ACCUM_OFFSET (5:0) and
//!   TG_SPLIT (16) and reserves every other bit; the AGPRs start at
//!   ACCUM_OFFSET VGPRs, which must lie within the wave's VGPR allocation
//!   (GRANULATED_WORKITEM_VGPR_COUNT in blocks of 8 on these targets:
//!   "accum_offset exceeds total VGPR allocation"). On the other GFX9
//!   processors COMPUTE_PGM_RSRC3 is reserved and 0.
//! - Targets with architected flat scratch (gfx94x) do not support the
//!   private segment buffer and flat scratch init user SGPRs.
//! - The CP loads COMPUTE_PGM_RSRC2.USER_SGPR_COUNT user SGPRs: the enabled
//!   ones and the preloaded kernargs must fit in it, and GFX9 has 16 user
//!   data registers ("Any requests beyond 16 will be ignored").
//!
//! Only GFX9 targets are checked: gfx10 and later define these fields
//! differently (wave32, COMPUTE_PGM_RSRC3 as SHARED_VGPR_COUNT and
//! INST_PREF_SIZE).

use aqueduct_kfd::abi::KernelDescriptor;
use thiserror::Error;

use super::isa::IsaName;

/// The user SGPRs a GFX9 CP loads at most (COMPUTE_USER_DATA_0..15).
pub const GFX9_MAX_USER_SGPRS: u32 = 16;

/// The decoded COMPUTE_PGM_RSRC3 of a gfx90a/gfx94x kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Gfx9Fields {
    /// The first AGPR's index in the unified register file (4 to 256).
    pub accum_offset: u32,
    /// TG_SPLIT: the workgroup's waves may run on different CUs.
    pub tg_split: bool,
}

/// A user SGPR a descriptor enables.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UserSgpr {
    PrivateSegmentBuffer,
    FlatScratchInit,
}

impl std::fmt::Display for UserSgpr {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            UserSgpr::PrivateSegmentBuffer => "ENABLE_SGPR_PRIVATE_SEGMENT_BUFFER",
            UserSgpr::FlatScratchInit => "ENABLE_SGPR_FLAT_SCRATCH_INIT",
        })
    }
}

/// How a kernel descriptor breaks its target's rules.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum DescriptorFault {
    #[error(
        "ENABLE_WAVEFRONT_SIZE32 is set, but {gfx} runs wave64 only (the bit is reserved on GFX9)"
    )]
    Wave32OnGfx9 { gfx: String },
    #[error("COMPUTE_PGM_RSRC3 has reserved bits {bits:#x} set on {gfx}")]
    Rsrc3Reserved { gfx: String, bits: u32 },
    #[error(
        "ACCUM_OFFSET puts the AGPRs at VGPR {accum_offset}, past the {allocated} VGPRs the wave allocates"
    )]
    AccumOffsetPastAllocation { accum_offset: u32, allocated: u32 },
    #[error("{sgpr} is set, but {gfx} has architected flat scratch and does not support it")]
    ArchitectedFlatScratch { gfx: String, sgpr: UserSgpr },
    #[error(
        "COMPUTE_PGM_RSRC2.USER_SGPR_COUNT is {count}, but the enabled user SGPRs and preloaded kernargs take {implied}"
    )]
    UserSgprCountTooSmall { count: u32, implied: u32 },
    #[error("the descriptor asks for {count} user SGPRs; GFX9 loads at most {max}")]
    TooManyUserSgprs { count: u32, max: u32 },
}

/// The GFX9 fields of `descriptor` where `isa` has them (gfx90a, gfx94x).
pub fn gfx9_fields(isa: &IsaName, descriptor: &KernelDescriptor) -> Option<Gfx9Fields> {
    isa.has_unified_register_file().then(|| Gfx9Fields {
        accum_offset: descriptor.accum_offset(),
        tg_split: descriptor.tg_split(),
    })
}

/// Check `descriptor` against the rules of `isa` (module comment).
pub fn check_descriptor(
    isa: &IsaName,
    descriptor: &KernelDescriptor,
) -> Result<(), DescriptorFault> {
    if !isa.is_gfx9() {
        return Ok(());
    }
    let gfx = || isa.gfx.clone();
    if descriptor.enable_wavefront_size32() {
        return Err(DescriptorFault::Wave32OnGfx9 { gfx: gfx() });
    }
    if isa.has_unified_register_file() {
        let reserved = descriptor.gfx90a_rsrc3_reserved_bits();
        if reserved != 0 {
            return Err(DescriptorFault::Rsrc3Reserved {
                gfx: gfx(),
                bits: reserved,
            });
        }
        // AMDGPUUsage, compute_pgm_rsrc1 for GFX90A/GFX942: the VGPR
        // count (arch VGPRs aligned to 4, plus AGPRs) in blocks of 8.
        let allocated = (descriptor.granulated_workitem_vgpr_count() + 1) * 8;
        if descriptor.accum_offset() > allocated {
            return Err(DescriptorFault::AccumOffsetPastAllocation {
                accum_offset: descriptor.accum_offset(),
                allocated,
            });
        }
    } else if descriptor.compute_pgm_rsrc3 != 0 {
        return Err(DescriptorFault::Rsrc3Reserved {
            gfx: gfx(),
            bits: descriptor.compute_pgm_rsrc3,
        });
    }
    if isa.is_gfx9_with_architected_flat_scratch() {
        for (set, sgpr) in [
            (
                descriptor.enable_sgpr_private_segment_buffer(),
                UserSgpr::PrivateSegmentBuffer,
            ),
            (
                descriptor.enable_sgpr_flat_scratch_init(),
                UserSgpr::FlatScratchInit,
            ),
        ] {
            if set {
                return Err(DescriptorFault::ArchitectedFlatScratch { gfx: gfx(), sgpr });
            }
        }
    }
    let count = descriptor.user_sgpr_count();
    let implied = descriptor.implied_user_sgpr_count();
    if implied > count {
        return Err(DescriptorFault::UserSgprCountTooSmall { count, implied });
    }
    if count > GFX9_MAX_USER_SGPRS {
        return Err(DescriptorFault::TooManyUserSgprs {
            count,
            max: GFX9_MAX_USER_SGPRS,
        });
    }
    Ok(())
}
