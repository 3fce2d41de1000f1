//! The 64-byte AMDHSA kernel descriptor (LLVM `AMDHSAKernelDescriptor.h`),
//! with accessors for the COMPUTE_PGM_RSRC* and kernel_code_properties bit
//! fields a loader and a wave launcher need.

use bytemuck::{Pod, Zeroable};

#[repr(C, align(64))]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Pod, Zeroable)]
pub struct KernelDescriptor {
    pub group_segment_fixed_size: u32,
    pub private_segment_fixed_size: u32,
    pub kernarg_size: u32,
    pub reserved0: [u8; 4],
    /// Byte offset from the descriptor's own address to the kernel entry.
    pub kernel_code_entry_byte_offset: i64,
    pub reserved1: [u8; 20],
    pub compute_pgm_rsrc3: u32,
    pub compute_pgm_rsrc1: u32,
    pub compute_pgm_rsrc2: u32,
    pub kernel_code_properties: u16,
    pub kernarg_preload: u16,
    pub reserved3: [u8; 4],
}

const fn bits(value: u32, shift: u32, width: u32) -> u32 {
    (value >> shift) & ((1u32 << width) - 1)
}

impl KernelDescriptor {
    pub const SIZE: usize = 64;

    /// Read from the 64 bytes at a descriptor's address.
    pub fn from_bytes(bytes: &[u8; 64]) -> Self {
        bytemuck::pod_read_unaligned(bytes)
    }

    // COMPUTE_PGM_RSRC1
    /// Granulated VGPR count field (encoding depends on wave size/target).
    pub fn granulated_workitem_vgpr_count(&self) -> u32 {
        bits(self.compute_pgm_rsrc1, 0, 6)
    }
    pub fn granulated_wavefront_sgpr_count(&self) -> u32 {
        bits(self.compute_pgm_rsrc1, 6, 4)
    }
    pub fn float_round_mode_32(&self) -> u32 {
        bits(self.compute_pgm_rsrc1, 12, 2)
    }
    pub fn float_round_mode_16_64(&self) -> u32 {
        bits(self.compute_pgm_rsrc1, 14, 2)
    }
    pub fn float_denorm_mode_32(&self) -> u32 {
        bits(self.compute_pgm_rsrc1, 16, 2)
    }
    pub fn float_denorm_mode_16_64(&self) -> u32 {
        bits(self.compute_pgm_rsrc1, 18, 2)
    }
    pub fn enable_dx10_clamp(&self) -> bool {
        bits(self.compute_pgm_rsrc1, 21, 1) != 0
    }
    pub fn enable_ieee_mode(&self) -> bool {
        bits(self.compute_pgm_rsrc1, 23, 1) != 0
    }
    /// gfx10+: wave32 VGPRs allocated in "workgroup processor" mode.
    pub fn wgp_mode(&self) -> bool {
        bits(self.compute_pgm_rsrc1, 29, 1) != 0
    }
    pub fn mem_ordered(&self) -> bool {
        bits(self.compute_pgm_rsrc1, 30, 1) != 0
    }
    pub fn fwd_progress(&self) -> bool {
        bits(self.compute_pgm_rsrc1, 31, 1) != 0
    }

    // COMPUTE_PGM_RSRC2
    pub fn enable_private_segment(&self) -> bool {
        bits(self.compute_pgm_rsrc2, 0, 1) != 0
    }
    /// Number of user SGPRs the CP loads (s0..s[n-1]).
    pub fn user_sgpr_count(&self) -> u32 {
        bits(self.compute_pgm_rsrc2, 1, 5)
    }
    pub fn enable_trap_handler(&self) -> bool {
        bits(self.compute_pgm_rsrc2, 6, 1) != 0
    }
    pub fn enable_sgpr_workgroup_id_x(&self) -> bool {
        bits(self.compute_pgm_rsrc2, 7, 1) != 0
    }
    pub fn enable_sgpr_workgroup_id_y(&self) -> bool {
        bits(self.compute_pgm_rsrc2, 8, 1) != 0
    }
    pub fn enable_sgpr_workgroup_id_z(&self) -> bool {
        bits(self.compute_pgm_rsrc2, 9, 1) != 0
    }
    pub fn enable_sgpr_workgroup_info(&self) -> bool {
        bits(self.compute_pgm_rsrc2, 10, 1) != 0
    }
    /// 0: v0 = x only; 1: x, y; 2: x, y, z (packed or separate per
    /// `enable_packed_work_item_id`... see `workitem_ids_packed`).
    pub fn enable_vgpr_workitem_id(&self) -> u32 {
        bits(self.compute_pgm_rsrc2, 11, 2)
    }
    pub fn granulated_lds_size(&self) -> u32 {
        bits(self.compute_pgm_rsrc2, 15, 9)
    }
    pub fn enable_exception_mask(&self) -> u32 {
        bits(self.compute_pgm_rsrc2, 24, 7)
    }

    // COMPUTE_PGM_RSRC3 (gfx10+)
    pub fn shared_vgpr_count(&self) -> u32 {
        bits(self.compute_pgm_rsrc3, 0, 4)
    }
    pub fn inst_pref_size(&self) -> u32 {
        bits(self.compute_pgm_rsrc3, 4, 6)
    }

    // COMPUTE_PGM_RSRC3 of gfx90a and gfx94x (LLVM AMDGPUUsage,
    // "compute_pgm_rsrc3 for GFX90A, GFX942"; `AMDHSAKernelDescriptor.h`
    // COMPUTE_PGM_RSRC3_GFX90A_*): ACCUM_OFFSET in bits 5:0, TG_SPLIT in
    // bit 16, every other bit reserved and 0.
    /// The ACCUM_OFFSET field: the first AGPR of the unified register file
    /// is VGPR (field + 1) * 4.
    pub fn accum_offset_field(&self) -> u32 {
        bits(self.compute_pgm_rsrc3, 0, 6)
    }
    /// The VGPR index where the AGPRs start: 4 to 256 in steps of 4.
    pub fn accum_offset(&self) -> u32 {
        (self.accum_offset_field() + 1) * 4
    }
    /// TG_SPLIT: the workgroup's waves may run on different CUs (no LDS
    /// sharing beyond a wave's CU; LLVM `+tgsplit`).
    pub fn tg_split(&self) -> bool {
        bits(self.compute_pgm_rsrc3, 16, 1) != 0
    }
    /// The bits of COMPUTE_PGM_RSRC3 that gfx90a/gfx94x reserve (15:6 and
    /// 31:17), as set in this descriptor.
    pub fn gfx90a_rsrc3_reserved_bits(&self) -> u32 {
        self.compute_pgm_rsrc3 & !(0x3f | 1 << 16)
    }

    // kernel_code_properties
    pub fn enable_sgpr_private_segment_buffer(&self) -> bool {
        self.kernel_code_properties & (1 << 0) != 0
    }
    pub fn enable_sgpr_dispatch_ptr(&self) -> bool {
        self.kernel_code_properties & (1 << 1) != 0
    }
    pub fn enable_sgpr_queue_ptr(&self) -> bool {
        self.kernel_code_properties & (1 << 2) != 0
    }
    pub fn enable_sgpr_kernarg_segment_ptr(&self) -> bool {
        self.kernel_code_properties & (1 << 3) != 0
    }
    pub fn enable_sgpr_dispatch_id(&self) -> bool {
        self.kernel_code_properties & (1 << 4) != 0
    }
    pub fn enable_sgpr_flat_scratch_init(&self) -> bool {
        self.kernel_code_properties & (1 << 5) != 0
    }
    pub fn enable_sgpr_private_segment_size(&self) -> bool {
        self.kernel_code_properties & (1 << 6) != 0
    }
    /// gfx10+: 1 = wave32, 0 = wave64. Reserved (0) on GFX6-GFX9.
    pub fn enable_wavefront_size32(&self) -> bool {
        self.kernel_code_properties & (1 << 10) != 0
    }
    pub fn uses_dynamic_stack(&self) -> bool {
        self.kernel_code_properties & (1 << 11) != 0
    }
    /// Wave size this descriptor asks for on a gfx10+ target.
    pub fn wavefront_size(&self) -> u32 {
        if self.enable_wavefront_size32() {
            32
        } else {
            64
        }
    }
    /// The user SGPRs the kernel_code_properties enables and the kernarg
    /// preload asks for, in the order the CP loads them (LLVM AMDGPUUsage,
    /// "Initial Kernel Execution State"): private segment buffer 4,
    /// dispatch ptr 2, queue ptr 2, kernarg segment ptr 2, dispatch id 2,
    /// flat scratch init 2, private segment size 1, then the preloaded
    /// kernarg dwords.
    pub fn implied_user_sgpr_count(&self) -> u32 {
        let enabled = [
            (self.enable_sgpr_private_segment_buffer(), 4),
            (self.enable_sgpr_dispatch_ptr(), 2),
            (self.enable_sgpr_queue_ptr(), 2),
            (self.enable_sgpr_kernarg_segment_ptr(), 2),
            (self.enable_sgpr_dispatch_id(), 2),
            (self.enable_sgpr_flat_scratch_init(), 2),
            (self.enable_sgpr_private_segment_size(), 1),
        ];
        enabled
            .iter()
            .filter(|(on, _)| *on)
            .map(|(_, n)| n)
            .sum::<u32>()
            + self.kernarg_preload_spec_length()
    }
    pub fn kernarg_preload_spec_length(&self) -> u32 {
        (self.kernarg_preload & 0x7f) as u32
    }
    pub fn kernarg_preload_spec_offset(&self) -> u32 {
        (self.kernarg_preload >> 7) as u32
    }
}
