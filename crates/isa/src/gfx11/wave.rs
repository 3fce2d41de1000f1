//! Wave state: 128 scalar register slots indexed by operand code (s0..s105,
//! vcc_lo/hi = 106/107, ttmp, null = 124, m0 = 125, exec_lo/hi = 126/127),
//! SCC, the PC, and the VGPR file as struct-of-arrays (`vgpr[reg][lane]`) so
//! one instruction runs over all 32 lanes in loops the compiler vectorises.
//!
//! Wave64 is modelled as RDNA3 executes it: two 32-lane passes. Lanes 32..63
//! live in `vgpr_hi`; for the second pass of a vector instruction the two
//! files are swapped (a pointer swap) and `half` is 1, so `exec()`/`vcc()` and
//! lane-mask reads/writes address the high words (exec_hi, vcc_hi, s[n+1]).
//! Wave32 always has `half == 0` and never touches `vgpr_hi`.
//!
//! Both files are fixed 256-row boxed arrays ([`VgprFile`]): an index that is
//! a `u8` or masked with `NUM_VGPRS - 1` needs no bounds check on the hot path.

/// Lanes per pass (a wave32 wave, or one half of a wave64 wave).
pub const LANES: usize = 32;
/// VGPRs addressable by an instruction.
pub const NUM_VGPRS: usize = 256;

pub const VCC: usize = 106;
pub const NULL: usize = 124;
pub const M0: usize = 125;
pub const EXEC: usize = 126;

/// One lane-row of a VGPR.
pub type Lanes = [u32; LANES];

/// A wave's VGPR file (or the high halves of a wave64 file): `NUM_VGPRS` rows.
pub type VgprFile = Box<[Lanes; NUM_VGPRS]>;

/// A zeroed VGPR file, allocated zeroed (no 32 KiB temporary on the stack).
pub fn zeroed_vgprs() -> VgprFile {
    vec![[0; LANES]; NUM_VGPRS]
        .into_boxed_slice()
        .try_into()
        .expect("NUM_VGPRS rows")
}

/// `LANE_BIT[l]` = 1 << l: a lane-mask test as an and/compare with a constant
/// row vectorises on every x86-64 (a shift by the lane number does not before AVX2).
pub const LANE_BIT: Lanes = {
    let mut b = [0u32; LANES];
    let mut l = 0;
    while l < LANES {
        b[l] = 1 << l;
        l += 1;
    }
    b
};

/// At most two lanes of `exec` are active (a wave of a one- or
/// two-invocation workgroup). The hot vector forms then run lane by lane
/// (exec/valu/fast_few.rs, `ds_in_range`): reading and writing whole
/// 32-lane rows costs more than the work, and a masked row store cannot
/// forward to the next instruction's row load on the host.
#[inline(always)]
pub(crate) fn few_lanes(exec: u32) -> bool {
    let rest = exec & exec.wrapping_sub(1);
    rest & rest.wrapping_sub(1) == 0
}

/// The lane mask with bit `l` set where `flags[l] & 1` is 1.
#[inline(always)]
pub fn pack_lanes(flags: &Lanes) -> u32 {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{
            __m128i, _mm_loadu_si128, _mm_movemask_epi8, _mm_packs_epi16, _mm_packs_epi32,
            _mm_slli_epi32,
        };
        // Sixteen lanes at a time: bit 0 to the sign bit, two saturating packs
        // (which keep the sign: 0x8000_0000 -> 0x8000 -> 0x80) to sixteen bytes in
        // lane order, then one pmovmskb (SSE2, part of every x86-64).
        let mut m = 0u32;
        for h in 0..LANES / 16 {
            // SAFETY: SSE2 is in every x86-64 target's baseline; lanes 16h..16h+15 are
            // in bounds of `flags` (four 16-byte loads) and loadu needs no alignment.
            let bits = unsafe {
                let p = flags.as_ptr().add(16 * h) as *const __m128i;
                let a = _mm_slli_epi32::<31>(_mm_loadu_si128(p));
                let b = _mm_slli_epi32::<31>(_mm_loadu_si128(p.add(1)));
                let c = _mm_slli_epi32::<31>(_mm_loadu_si128(p.add(2)));
                let d = _mm_slli_epi32::<31>(_mm_loadu_si128(p.add(3)));
                let bytes = _mm_packs_epi16(_mm_packs_epi32(a, b), _mm_packs_epi32(c, d));
                _mm_movemask_epi8(bytes) as u32 & 0xFFFF
            };
            m |= bits << (16 * h);
        }
        m
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let mut m = 0u32;
        for l in 0..LANES {
            m |= (flags[l] & 1) << l;
        }
        m
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WaveStatus {
    Running,
    AtBarrier,
    Ended,
    /// Stopped at the start of a block that only computes
    /// (`code_cache::Block::sync`), for the workgroup's other waves to
    /// reach a barrier, the end or such a block (dispatch.rs
    /// `run_sync_blocks`).
    AtSync,
    /// Running again from the block it stopped at `AtSync`, which it runs
    /// on its own (a loop on itself to its end: the wave loop does not stop
    /// at a block's branch back to its own start).
    SyncAlone,
}

#[derive(Clone, Debug)]
pub struct Wave {
    pub sgpr: [u32; 128],
    pub scc: bool,
    pub pc: u64,
    pub vgpr: VgprFile,
    pub status: WaveStatus,
    /// Index of this wave in its workgroup (selects its scratch slice).
    pub index: u32,
    /// The MODE hardware register (s_getreg/s_setreg HW_REG_MODE); recorded only.
    pub mode: u32,
    /// The XCC of the agent's partition the wave's workgroup runs on
    /// (gfx942's HW_REG_XCC_ID, xcc.rs); 0 on single-XCC agents.
    pub xcc_id: u32,
    /// src0 of the DPP instruction being executed, after the lane permutation.
    pub dpp_row: Lanes,
    /// The high dwords of a 64-bit DPP src0 (GFX9's DP ALU ops), permuted
    /// as `dpp_row` is; written only for such a source (valu/dpp.rs).
    pub dpp_row_hi: Lanes,
    /// Wave64 GFX9 whole-wave DPP: the low half of src0 as the low pass
    /// found it (valu/dpp.rs).
    pub dpp_low: Lanes,
    /// Wave64: EXEC/VCC are 64-bit, lanes 32..63 live in `vgpr_hi`.
    pub wave64: bool,
    /// The 32-lane half a vector instruction is executing (always 0 in wave32).
    pub half: usize,
    /// Wave64: lanes 32..63 of every VGPR (swapped with `vgpr` for the high pass).
    pub vgpr_hi: VgprFile,
    /// GFX9 (gfx90a, gfx942) accumulation registers a0.. (lanes 0..31): the
    /// rows of the unified register file from ACCUM_OFFSET on, as many as
    /// the wave allocates (empty on gfx11); see valu/agpr.rs.
    pub agpr: Vec<Lanes>,
    /// Wave64: lanes 32..63 of every AGPR (swapped with `agpr` for the high pass).
    pub agpr_hi: Vec<Lanes>,
}

impl Default for Wave {
    fn default() -> Self {
        Wave {
            sgpr: [0; 128],
            scc: false,
            pc: 0,
            vgpr: zeroed_vgprs(),
            status: WaveStatus::Running,
            index: 0,
            mode: 0,
            xcc_id: 0,
            dpp_row: [0; LANES],
            dpp_row_hi: [0; LANES],
            dpp_low: [0; LANES],
            wave64: false,
            half: 0,
            vgpr_hi: zeroed_vgprs(),
            agpr: Vec::new(),
            agpr_hi: Vec::new(),
        }
    }
}

impl Wave {
    /// EXEC of the lanes being executed (exec_lo, or exec_hi in a wave64 high pass).
    #[inline]
    pub fn exec(&self) -> u32 {
        // The mask keeps the index provably in range (no bounds check on the hot path).
        self.sgpr[(EXEC + self.half) & 127]
    }
    /// VCC of the lanes being executed (vcc_lo, or vcc_hi in a wave64 high pass).
    #[inline]
    pub fn vcc(&self) -> u32 {
        self.sgpr[(VCC + self.half) & 127]
    }
    /// The whole EXEC mask of the wave (wave32: exec_lo).
    #[inline]
    pub fn exec_mask(&self) -> u64 {
        if self.wave64 {
            self.sgpr64(EXEC)
        } else {
            self.sgpr[EXEC] as u64
        }
    }
    /// The whole VCC mask of the wave (wave32: vcc_lo).
    #[inline]
    pub fn vcc_mask(&self) -> u64 {
        if self.wave64 {
            self.sgpr64(VCC)
        } else {
            self.sgpr[VCC] as u64
        }
    }
    /// Write the current half's word of a lane mask whose low word is SGPR `code`
    /// (wave64 masks are SGPR pairs; null stays null).
    #[inline]
    pub fn set_lane_mask(&mut self, code: usize, bits: u32) {
        if code != NULL {
            self.set_sgpr(code + self.half, bits);
        }
    }
    /// Slot of the current lanes in the workgroup's private memory, in units of 32 lanes.
    #[inline]
    pub fn scratch_slot(&self) -> u32 {
        self.scratch_slot_of(self.half)
    }
    /// Slot of half `half`'s lanes (wave32: the wave's one slot).
    #[inline]
    pub fn scratch_slot_of(&self, half: usize) -> u32 {
        if self.wave64 {
            self.index * 2 + half as u32
        } else {
            self.index
        }
    }
    /// Set lane `lane` (0..63) of VGPR `reg`.
    #[inline]
    pub fn set_lane(&mut self, reg: usize, lane: usize, v: u32) {
        let reg = reg & (NUM_VGPRS - 1);
        if lane < LANES {
            self.vgpr[reg][lane] = v;
        } else {
            self.vgpr_hi[reg][lane & (LANES - 1)] = v;
        }
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
                let keep = if mask & LANE_BIT[l] != 0 { u32::MAX } else { 0 };
                row[l] = (vals[l] & keep) | (row[l] & !keep);
            }
        }
    }
    /// Read a 64-bit VGPR pair (reg, reg+1) for all lanes.
    #[inline(always)]
    pub fn vgpr64(&self, reg: usize) -> [u64; LANES] {
        let lo = &self.vgpr[reg & (NUM_VGPRS - 1)];
        let hi = &self.vgpr[(reg + 1) & (NUM_VGPRS - 1)];
        let mut out = [0u64; LANES];
        for l in 0..LANES {
            out[l] = lo[l] as u64 | (hi[l] as u64) << 32;
        }
        out
    }
    #[inline(always)]
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

#[cfg(test)]
mod tests {
    use super::*;

    /// pack_lanes against the plain per-lane formula, with garbage above bit 0.
    #[test]
    fn pack_lanes_matches_per_lane_bits() {
        let mut x = 0x2545_F491_4F6C_DD1Du64;
        for _ in 0..10_000 {
            let mut flags = [0u32; LANES];
            for f in flags.iter_mut() {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                *f = (x >> 16) as u32;
            }
            let mut want = 0u32;
            for (l, f) in flags.iter().enumerate() {
                want |= (f & 1) << l;
            }
            assert_eq!(pack_lanes(&flags), want, "{flags:x?}");
        }
    }
}
