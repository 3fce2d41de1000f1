//! Sizes of the per-queue buffers KFD validates at CREATE_QUEUE: the
//! context-save/restore (CWSR) area, its control stack, the debugger area
//! and the EOP buffer.
//!
//! The kernel computes these per node (`kfd_queue_ctx_save_restore_size`
//! in kfd_queue.c, mirrored by libhsakmt's `update_ctx_save_restore_size`)
//! but does not publish them in sysfs, and since ~6.12 it rejects a queue
//! whose sizes differ. So the runtime recomputes them from the node's
//! properties with the same formulas, and gfxsim uses
//! the same function to validate, so both sides agree by construction.

use super::Node;

pub const CWSR_PAGE_SIZE: u64 = 4096;
/// `sizeof(HsaUserContextSaveAreaHeader)`.
const SAVE_AREA_HEADER_SIZE: u64 = 40;
const SGPR_SIZE_PER_CU: u64 = 0x4000;
const LDS_SIZE_PER_CU: u64 = 0x10000;
const HWREG_SIZE_PER_CU: u64 = 0x1000;
const DEBUGGER_BYTES_PER_WAVE: u64 = 32;
const DEBUGGER_BYTES_ALIGN: u64 = 64;

/// The buffer sizes a compute queue of one node must use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CwsrSizes {
    /// CREATE_QUEUE `ctl_stack_size`: header + control stack, page aligned.
    pub ctl_stack_size: u32,
    /// Workgroup context data (VGPRs, SGPRs, LDS, HW regs) of all CUs of
    /// one XCC, page aligned.
    pub wg_data_size: u32,
    /// CREATE_QUEUE `ctx_save_restore_size`: ctl_stack_size + wg_data_size
    /// (per XCC).
    pub cwsr_size: u32,
    /// Debugger scratch per XCC, after each XCC's save area.
    pub debug_memory_size: u32,
    /// CREATE_QUEUE `eop_buffer_size`.
    pub eop_buffer_size: u32,
    /// XCCs of the node: the save area holds one (cwsr + debug) slice each.
    pub num_xcc: u32,
}

impl CwsrSizes {
    /// Bytes of the whole context-save allocation KFD expects to find
    /// mapped at `ctx_save_restore_address`:
    /// ALIGN((cwsr_size + debug_memory_size) * num_xcc, PAGE).
    /// `Node::cwsr_sizes` builds only sizes whose total fits; hand-built
    /// ones that do not saturate to `u64::MAX`, which no allocation meets.
    pub fn total_size(&self) -> u64 {
        self.checked_total_size().unwrap_or(u64::MAX)
    }

    fn checked_total_size(&self) -> Option<u64> {
        let slice = self.cwsr_size as u64 + self.debug_memory_size as u64;
        align(slice.checked_mul(self.num_xcc as u64)?, CWSR_PAGE_SIZE)
    }

    /// Byte offset of XCC `xcc`'s slice (where its
    /// `HsaUserContextSaveAreaHeader` goes).
    /// Saturates past the end of the area, as `total_size` does.
    pub fn xcc_slice_offset(&self, xcc: u32) -> u64 {
        (self.cwsr_size as u64 + self.debug_memory_size as u64).saturating_mul(xcc as u64)
    }
}

/// `value` rounded up to a multiple of `to`, or None past `u64::MAX`.
const fn align(value: u64, to: u64) -> Option<u64> {
    value.div_ceil(to).checked_mul(to)
}

fn vgpr_size_per_cu(gfxv: u64) -> u64 {
    match gfxv {
        // gfx940/941/942 (all of 9.4.x), gfx90a, gfx908, gfx950
        v if v / 100 * 100 == 90400 || v == 90010 || v == 90008 || v == 90500 => 0x80000,
        // gfx1100, gfx1101, gfx1200, gfx1201
        110000 | 110001 | 120000 | 120001 => 0x60000,
        _ => 0x40000,
    }
}

impl Node {
    /// The CWSR/EOP sizes KFD requires for this node's compute queues, or
    /// None for CPU nodes and targets the formulas do not cover (before
    /// gfx8 Carrizo, whose queues have no CWSR, and gfx12.5+, whose
    /// per-CU SGPR size is not known here).
    pub fn cwsr_sizes(&self) -> Option<CwsrSizes> {
        let p = &self.properties;
        let gfxv = p.gfx_target_version;
        if !self.is_gpu() || !(80001..120500).contains(&gfxv) || p.simd_per_cu == 0 {
            return None;
        }
        // The properties come from sysfs text: every product is checked, and
        // a node whose sizes do not fit the ioctl's u32 fields (or whose
        // whole save area does not fit a u64) has none.
        let num_xcc = p.num_xcc.max(1);
        let cu_num = p.simd_count / p.simd_per_cu / num_xcc;
        let wave_num = if gfxv < 100100 {
            let by_arrays = p
                .array_count
                .checked_div(p.simd_arrays_per_engine)
                .unwrap_or(0)
                .checked_mul(512)?;
            cu_num.checked_mul(40)?.min(by_arrays)
        } else {
            cu_num.checked_mul(32)?
        };
        let lds_per_cu = if gfxv == 90500 {
            p.lds_size_in_kb.checked_mul(1 << 10)?
        } else {
            LDS_SIZE_PER_CU
        };
        let wg_per_cu = (vgpr_size_per_cu(gfxv) + SGPR_SIZE_PER_CU + HWREG_SIZE_PER_CU)
            .checked_add(lds_per_cu)?;
        let wg_data_size = align(cu_num.checked_mul(wg_per_cu)?, CWSR_PAGE_SIZE)?;
        let ctl_bytes_per_wave = if gfxv >= 100100 { 12 } else { 8 };
        let mut ctl_stack_size = align(
            wave_num
                .checked_mul(ctl_bytes_per_wave)?
                .checked_add(SAVE_AREA_HEADER_SIZE + 8)?,
            CWSR_PAGE_SIZE,
        )?;
        if gfxv / 10000 == 10 {
            // gfx10.x: the hardware limits the control stack to 0x7000.
            ctl_stack_size = ctl_stack_size.min(0x7000);
        }
        let debug_memory_size = align(
            wave_num.checked_mul(DEBUGGER_BYTES_PER_WAVE)?,
            DEBUGGER_BYTES_ALIGN,
        )?;
        let eop_buffer_size = if gfxv == 80002 { 0x8000 } else { 4096 };
        let to_u32 = |v: u64| u32::try_from(v).ok();
        let sizes = CwsrSizes {
            ctl_stack_size: to_u32(ctl_stack_size)?,
            wg_data_size: to_u32(wg_data_size)?,
            cwsr_size: to_u32(ctl_stack_size.checked_add(wg_data_size)?)?,
            debug_memory_size: to_u32(debug_memory_size)?,
            eop_buffer_size,
            num_xcc: to_u32(num_xcc)?,
        };
        sizes.checked_total_size()?;
        Some(sizes)
    }
}
