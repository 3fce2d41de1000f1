//! Per-lane math that translated code calls on one 4-lane chunk where
//! lane_inline.rs has no inline form (f32 to u32, and rndne without
//! SSE4.1): the interpreter's own scalar functions (exec/valu) over four
//! lanes, so a lane-local run need not end there and the results are the
//! interpreter's bit for bit. The chunk travels through a
//! 32-byte slot on the translated function's stack (source a, then b; the
//! result over a).

use crate::gfx11::exec::valu::{
    cvt_i32, cvt_u32, exp32, fmax32, fmin32, frexp32, ldexp32, log32, rcp32, round_even32, rsq32,
};

/// A lane helper: four lanes of source a at `io[0..4]`, of b at
/// `io[4..8]`; writes the result's four lanes over a.
pub(crate) type LaneHelper = unsafe extern "C" fn(io: *mut [u32; 8]);

/// A per-lane operation that translated code runs through a helper. Only
/// functions whose results do not depend on the target features the
/// interpreter's loop was compiled for (floor/ceil/trunc are roundps in
/// its AVX2 copy and libm calls in its baseline one, which keep a
/// signalling NaN) are helpers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum LaneFn {
    Rcp,
    Rsq,
    Exp,
    Log,
    Rndne,
    FrexpMant,
    FrexpExp,
    CvtI32F32,
    CvtU32F32,
    CvtF32I32,
    CvtF32U32,
    /// a * 2^b, b a raw 32-bit source.
    Ldexp,
    Max,
    Min,
}

impl LaneFn {
    /// Does it take two sources?
    pub(crate) fn binary(self) -> bool {
        matches!(self, LaneFn::Ldexp | LaneFn::Max | LaneFn::Min)
    }

    /// The scalar function on raw bits (one source; `b` is ignored) as the
    /// interpreter computes it per lane.
    #[inline(always)]
    fn apply(self, a: u32, b: u32) -> u32 {
        let f = f32::from_bits(a);
        match self {
            LaneFn::Rcp => rcp32(f).to_bits(),
            LaneFn::Rsq => rsq32(f).to_bits(),
            LaneFn::Exp => exp32(f).to_bits(),
            LaneFn::Log => log32(f).to_bits(),
            LaneFn::Rndne => round_even32(f).to_bits(),
            LaneFn::FrexpMant => frexp32(f).0.to_bits(),
            LaneFn::FrexpExp => frexp32(f).1 as u32,
            LaneFn::CvtI32F32 => cvt_i32(f),
            LaneFn::CvtU32F32 => cvt_u32(f),
            LaneFn::CvtF32I32 => (a as i32 as f32).to_bits(),
            LaneFn::CvtF32U32 => (a as f32).to_bits(),
            LaneFn::Ldexp => ldexp32(f, b as i32).to_bits(),
            LaneFn::Max => fmax32(f, f32::from_bits(b)).to_bits(),
            LaneFn::Min => fmin32(f, f32::from_bits(b)).to_bits(),
        }
    }

    /// The helper's address, for a call from translated code.
    pub(crate) fn address(self) -> usize {
        macro_rules! pick {
            ($($name:ident),*) => {
                match self {
                    $(LaneFn::$name => lane::<{ LaneFn::$name as u8 }> as LaneHelper as usize,)*
                }
            };
        }
        pick!(
            Rcp, Rsq, Exp, Log, Rndne, FrexpMant, FrexpExp, CvtI32F32, CvtU32F32, CvtF32I32,
            CvtF32U32, Ldexp, Max, Min
        )
    }

    const ALL: [LaneFn; 14] = [
        LaneFn::Rcp,
        LaneFn::Rsq,
        LaneFn::Exp,
        LaneFn::Log,
        LaneFn::Rndne,
        LaneFn::FrexpMant,
        LaneFn::FrexpExp,
        LaneFn::CvtI32F32,
        LaneFn::CvtU32F32,
        LaneFn::CvtF32I32,
        LaneFn::CvtF32U32,
        LaneFn::Ldexp,
        LaneFn::Max,
        LaneFn::Min,
    ];

    fn from_u8(v: u8) -> LaneFn {
        LaneFn::ALL[v as usize]
    }
}

/// Helper `OP` (a [`LaneFn`] as u8) over the four lanes in `io`.
///
/// # Safety
/// `io` points at 32 bytes the caller owns, aligned for u32.
unsafe extern "C" fn lane<const OP: u8>(io: *mut [u32; 8]) {
    // SAFETY: per the contract (translated code passes its stack slot).
    let io = unsafe { &mut *io };
    let f = LaneFn::from_u8(OP);
    for l in 0..4 {
        io[l] = f.apply(io[l], io[4 + l]);
    }
}

#[cfg(test)]
mod tests {
    use super::LaneFn;

    /// `ALL` lists every operation at its own discriminant (the helpers
    /// decode their const parameter through it).
    #[test]
    fn all_is_indexed_by_discriminant() {
        for (k, f) in LaneFn::ALL.iter().enumerate() {
            assert_eq!(*f as usize, k, "{f:?}");
        }
    }
}
