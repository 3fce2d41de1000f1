//! Wave state: 128 scalar register slots indexed by operand code (s0..s105,
//! vcc_lo/hi = 106/107, ttmp, null = 124, m0 = 125, exec_lo/hi = 126/127),
//! SCC, the PC, and the VGPR file as struct-of-arrays (`vgpr[reg][lane]`) so
//! one instruction runs over all 32 lanes in loops the compiler vectorises.

/// Lanes per wave (wave32; wave64 descriptors are rejected by `Dispatch`).
pub const LANES: usize = 32;
/// VGPRs addressable by an instruction.
pub const NUM_VGPRS: usize = 256;

pub const VCC: usize = 106;
pub const NULL: usize = 124;
pub const M0: usize = 125;
pub const EXEC: usize = 126;

/// One lane-row of a VGPR.
pub type Lanes = [u32; LANES];

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WaveStatus {
    Running,
    AtBarrier,
    Ended,
}

#[derive(Clone, Debug)]
pub struct Wave {
    pub sgpr: [u32; 128],
    pub scc: bool,
    pub pc: u64,
    pub vgpr: Vec<Lanes>,
    pub status: WaveStatus,
    /// Index of this wave in its workgroup (selects its scratch slice).
    pub index: u32,
    /// The MODE hardware register (s_getreg/s_setreg HW_REG_MODE); recorded only.
    pub mode: u32,
    /// src0 of the DPP instruction being executed, after the lane permutation.
    pub dpp_row: Lanes,
}

impl Default for Wave {
    fn default() -> Self {
        Wave {
            sgpr: [0; 128],
            scc: false,
            pc: 0,
            vgpr: vec![[0; LANES]; NUM_VGPRS],
            status: WaveStatus::Running,
            index: 0,
            mode: 0,
            dpp_row: [0; LANES],
        }
    }
}

impl Wave {
    #[inline]
    pub fn exec(&self) -> u32 {
        self.sgpr[EXEC]
    }
    #[inline]
    pub fn vcc(&self) -> u32 {
        self.sgpr[VCC]
    }
    /// Write a scalar register by operand code (null and codes ≥ 128 are dropped).
    #[inline]
    pub fn set_sgpr(&mut self, code: usize, v: u32) {
        if code < 128 && code != NULL {
            self.sgpr[code] = v;
        }
    }
    #[inline]
    pub fn sgpr64(&self, code: usize) -> u64 {
        let lo = self.sgpr.get(code).copied().unwrap_or(0) as u64;
        let hi = self.sgpr.get(code + 1).copied().unwrap_or(0) as u64;
        lo | hi << 32
    }
    #[inline]
    pub fn set_sgpr64(&mut self, code: usize, v: u64) {
        self.set_sgpr(code, v as u32);
        self.set_sgpr(code + 1, (v >> 32) as u32);
    }
    /// Write a VGPR row under a lane mask.
    #[inline(always)]
    pub fn write_vgpr(&mut self, reg: usize, vals: &Lanes, mask: u32) {
        let row = &mut self.vgpr[reg & (NUM_VGPRS - 1)];
        if mask == u32::MAX {
            *row = *vals;
        } else {
            // Branch-free blend so the loop vectorises.
            for l in 0..LANES {
                let keep = 0u32.wrapping_sub((mask >> l) & 1);
                row[l] = (vals[l] & keep) | (row[l] & !keep);
            }
        }
    }
    /// Read a 64-bit VGPR pair (reg, reg+1) for all lanes.
    #[inline]
    pub fn vgpr64(&self, reg: usize) -> [u64; LANES] {
        let lo = &self.vgpr[reg & (NUM_VGPRS - 1)];
        let hi = &self.vgpr[(reg + 1) & (NUM_VGPRS - 1)];
        let mut out = [0u64; LANES];
        for l in 0..LANES {
            out[l] = lo[l] as u64 | (hi[l] as u64) << 32;
        }
        out
    }
    #[inline]
    pub fn write_vgpr64(&mut self, reg: usize, vals: &[u64; LANES], mask: u32) {
        let mut lo = [0u32; LANES];
        let mut hi = [0u32; LANES];
        for l in 0..LANES {
            lo[l] = vals[l] as u32;
            hi[l] = (vals[l] >> 32) as u32;
        }
        self.write_vgpr(reg, &lo, mask);
        self.write_vgpr(reg + 1, &hi, mask);
    }
}
