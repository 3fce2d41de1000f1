//! Read-modify-write semantics shared by DS (LDS) and FLAT/GLOBAL atomics.
//! `apply` computes the new memory value from the old one; global memory
//! runs it inside a compare-exchange loop on host atomics, LDS (private to
//! the running workgroup) applies it directly.

use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};

use crate::gfx11::exec::valu::{add32, add64};
use crate::gfx11::opcodes::Op;
use crate::gfx11::wave::LANES;
use crate::{Access, MemoryFault, WaveErrorKind};

/// Atomic operation kinds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Rmw {
    Swap,
    CmpSwap,
    Add,
    Sub,
    Rsub,
    MinI,
    MaxI,
    MinU,
    MaxU,
    And,
    Or,
    Xor,
    Inc,
    Dec,
    AddF,
    MinF,
    MaxF,
    Csub,
}

/// Classify an atomic op by its mnemonic's operation word; also returns whether it is 64-bit.
pub(crate) fn classify(op: Op) -> Option<(Rmw, bool)> {
    let name = op.name();
    let wide = name.ends_with("_b64")
        || name.ends_with("_u64")
        || name.ends_with("_i64")
        || name.ends_with("_f64");
    let body = name
        .trim_start_matches("ds_")
        .trim_start_matches("global_atomic_")
        .trim_start_matches("flat_atomic_")
        .trim_start_matches("buffer_atomic_")
        .trim_end_matches("_rtn");
    let word = body.rsplit_once('_').map(|(a, _)| a).unwrap_or(body);
    let word = word.trim_end_matches("_rtn");
    let rmw = match word {
        "swap" | "storexchg" | "storexchg_rtn" => Rmw::Swap,
        "cmpswap" | "cmpstore" => Rmw::CmpSwap,
        "add" => {
            if name.ends_with("_f32") || name.ends_with("_f64") {
                Rmw::AddF
            } else {
                Rmw::Add
            }
        }
        "sub" => Rmw::Sub,
        "rsub" => Rmw::Rsub,
        "min" => {
            if name.ends_with("_f32") || name.ends_with("_f64") {
                Rmw::MinF
            } else if name.ends_with("_i32") || name.ends_with("_i64") {
                Rmw::MinI
            } else {
                Rmw::MinU
            }
        }
        "max" => {
            if name.ends_with("_f32") || name.ends_with("_f64") {
                Rmw::MaxF
            } else if name.ends_with("_i32") || name.ends_with("_i64") {
                Rmw::MaxI
            } else {
                Rmw::MaxU
            }
        }
        "and" => Rmw::And,
        "or" => Rmw::Or,
        "xor" => Rmw::Xor,
        "inc" => Rmw::Inc,
        "dec" => Rmw::Dec,
        "csub" => Rmw::Csub,
        _ => return None,
    };
    Some((rmw, wide))
}

/// New 32-bit memory value (`src` is the data operand, `cmp` the compare value).
/// A float add takes v_add_f32's NaN rule (valu/mod.rs `nan_rule`, the old
/// value as the first source), so that the NaN it stores is gfxsim's and not
/// whichever operand order the compiler chose for the host's add; the float
/// minimum and maximum take [`float_wins`].
pub(crate) fn apply32(rmw: Rmw, old: u32, src: u32, cmp: u32) -> u32 {
    match rmw {
        Rmw::Swap => src,
        Rmw::CmpSwap => {
            if old == cmp {
                src
            } else {
                old
            }
        }
        Rmw::Add => old.wrapping_add(src),
        Rmw::Sub => old.wrapping_sub(src),
        Rmw::Rsub => src.wrapping_sub(old),
        Rmw::MinI => (old as i32).min(src as i32) as u32,
        Rmw::MaxI => (old as i32).max(src as i32) as u32,
        Rmw::MinU => old.min(src),
        Rmw::MaxU => old.max(src),
        Rmw::And => old & src,
        Rmw::Or => old | src,
        Rmw::Xor => old ^ src,
        Rmw::Inc => {
            if old >= src {
                0
            } else {
                old + 1
            }
        }
        Rmw::Dec => {
            if old == 0 || old > src {
                src
            } else {
                old - 1
            }
        }
        Rmw::AddF => add32(f32::from_bits(old), f32::from_bits(src)).to_bits(),
        Rmw::MinF | Rmw::MaxF => {
            let [o, s] = [old, src].map(|x| f64::from(f32::from_bits(x)));
            if float_wins(rmw == Rmw::MaxF, o, s) {
                src
            } else {
                old
            }
        }
        Rmw::Csub => old.saturating_sub(src),
    }
}

/// Whether a float minimum (`max`: maximum) atomic stores its data `src`
/// over memory's value `old` (an f32's widened exactly): where the data is
/// less (greater), as the RDNA3 ISA guide gives GLOBAL_ATOMIC_MIN_F32,
/// GLOBAL_ATOMIC_MAX_F32, DS_MIN_F32 and DS_MAX_F32 (`MEM = src < tmp ?
/// src : tmp`, "floating-point compare handles NAN/INF/denorm"), and where
/// memory holds a NaN and the data is a number: LLVM lowers `atomicrmw
/// fmin`/`fmax`, whose result is `llvm.minnum`'s/`llvm.maxnum`'s (a number
/// over a NaN), to DS_MIN_F32/DS_MAX_F32 as they are (AMDGPU
/// SIISelLowering.cpp `shouldExpandAtomicRMWInIR`). Otherwise memory keeps
/// its value bit for bit: equal values (+0 and -0 too, as the compare
/// finds them equal), a NaN as the data, NaNs in both.
#[inline(always)]
pub(crate) fn float_wins(max: bool, old: f64, src: f64) -> bool {
    let better = if max { src > old } else { src < old };
    better || (old.is_nan() && !src.is_nan())
}

pub(crate) fn apply64(rmw: Rmw, old: u64, src: u64, cmp: u64) -> u64 {
    match rmw {
        Rmw::Swap => src,
        Rmw::CmpSwap => {
            if old == cmp {
                src
            } else {
                old
            }
        }
        Rmw::Add => old.wrapping_add(src),
        Rmw::Sub => old.wrapping_sub(src),
        Rmw::Rsub => src.wrapping_sub(old),
        Rmw::MinI => (old as i64).min(src as i64) as u64,
        Rmw::MaxI => (old as i64).max(src as i64) as u64,
        Rmw::MinU => old.min(src),
        Rmw::MaxU => old.max(src),
        Rmw::And => old & src,
        Rmw::Or => old | src,
        Rmw::Xor => old ^ src,
        Rmw::Inc => {
            if old >= src {
                0
            } else {
                old + 1
            }
        }
        Rmw::Dec => {
            if old == 0 || old > src {
                src
            } else {
                old - 1
            }
        }
        Rmw::AddF => add64(f64::from_bits(old), f64::from_bits(src)).to_bits(),
        Rmw::MinF | Rmw::MaxF => {
            if float_wins(rmw == Rmw::MaxF, f64::from_bits(old), f64::from_bits(src)) {
                src
            } else {
                old
            }
        }
        Rmw::Csub => old.saturating_sub(src),
    }
}

/// Atomically apply to a 4-byte-aligned host location; returns the old value.
/// Compare-and-swap is one host compare-exchange: it stores `src` exactly
/// when the value it finds is `cmp`, and returns that value either way,
/// which is what the load / `apply32` / compare-exchange loop would do.
#[inline]
pub(crate) fn atomic32(p: *mut u8, rmw: Rmw, src: u32, cmp: u32) -> u32 {
    // SAFETY: the caller checked 4-byte alignment and that p maps 4 bytes of GPU memory.
    let a = unsafe { AtomicU32::from_ptr(p as *mut u32) };
    match rmw {
        Rmw::CmpSwap => match a.compare_exchange(cmp, src, Ordering::SeqCst, Ordering::SeqCst) {
            Ok(v) | Err(v) => v,
        },
        Rmw::Add => a.fetch_add(src, Ordering::SeqCst),
        Rmw::Sub => a.fetch_sub(src, Ordering::SeqCst),
        Rmw::And => a.fetch_and(src, Ordering::SeqCst),
        Rmw::Or => a.fetch_or(src, Ordering::SeqCst),
        Rmw::Xor => a.fetch_xor(src, Ordering::SeqCst),
        Rmw::Swap => a.swap(src, Ordering::SeqCst),
        Rmw::MinU => a.fetch_min(src, Ordering::SeqCst),
        Rmw::MaxU => a.fetch_max(src, Ordering::SeqCst),
        _ => {
            let mut old = a.load(Ordering::SeqCst);
            loop {
                let new = apply32(rmw, old, src, cmp);
                match a.compare_exchange_weak(old, new, Ordering::SeqCst, Ordering::SeqCst) {
                    Ok(_) => return old,
                    Err(cur) => old = cur,
                }
            }
        }
    }
}

/// Calls `$fold!(op)` with `op` a constant in each arm, so that each arm's
/// lane loop compiles with its operation inlined (no per-lane `match`).
macro_rules! for_each_rmw {
    ($rmw:expr, $fold:ident) => {
        match $rmw {
            Rmw::Swap => $fold!(Rmw::Swap),
            Rmw::CmpSwap => $fold!(Rmw::CmpSwap),
            Rmw::Add => $fold!(Rmw::Add),
            Rmw::Sub => $fold!(Rmw::Sub),
            Rmw::Rsub => $fold!(Rmw::Rsub),
            Rmw::MinI => $fold!(Rmw::MinI),
            Rmw::MaxI => $fold!(Rmw::MaxI),
            Rmw::MinU => $fold!(Rmw::MinU),
            Rmw::MaxU => $fold!(Rmw::MaxU),
            Rmw::And => $fold!(Rmw::And),
            Rmw::Or => $fold!(Rmw::Or),
            Rmw::Xor => $fold!(Rmw::Xor),
            Rmw::Inc => $fold!(Rmw::Inc),
            Rmw::Dec => $fold!(Rmw::Dec),
            Rmw::AddF => $fold!(Rmw::AddF),
            Rmw::MinF => $fold!(Rmw::MinF),
            Rmw::MaxF => $fold!(Rmw::MaxF),
            Rmw::Csub => $fold!(Rmw::Csub),
        }
    };
}

/// `$name`: the operations of the lanes of `exec` in lane order on one
/// aligned host location of `$ty` (`$atomic`), as one atomic update: lane
/// `l`'s old value to `old[l]`. The same old values and final value as the
/// one-lane form once per lane with no other access in between (`src`/`cmp`:
/// each lane's data and compare value).
macro_rules! lanes_update {
    ($name:ident, $ty:ty, $atomic:ty, $apply:ident) => {
        pub(crate) fn $name(
            p: *mut u8,
            rmw: Rmw,
            exec: u32,
            src: &[$ty; LANES],
            cmp: &[$ty; LANES],
            old: &mut [u64; LANES],
        ) {
            // SAFETY: the caller checked alignment and that p maps the location's bytes of GPU memory.
            let a = unsafe { <$atomic>::from_ptr(p as *mut $ty) };
            let mut cur = a.load(Ordering::SeqCst);
            loop {
                macro_rules! fold {
                    ($op:expr) => {{
                        let (mut v, mut m) = (cur, exec);
                        while m != 0 {
                            let l = m.trailing_zeros() as usize;
                            m &= m - 1;
                            old[l] = v as u64;
                            v = $apply($op, v, src[l], cmp[l]);
                        }
                        v
                    }};
                }
                let v = for_each_rmw!(rmw, fold);
                match a.compare_exchange_weak(cur, v, Ordering::SeqCst, Ordering::SeqCst) {
                    Ok(_) => return,
                    Err(now) => cur = now,
                }
            }
        }
    };
}

lanes_update!(atomic32_lanes, u32, AtomicU32, apply32);
lanes_update!(atomic64_lanes, u64, AtomicU64, apply64);

/// [`atomic32`] for an 8-byte-aligned location.
#[inline]
pub(crate) fn atomic64(p: *mut u8, rmw: Rmw, src: u64, cmp: u64) -> u64 {
    // SAFETY: the caller checked 8-byte alignment and that p maps 8 bytes of GPU memory.
    let a = unsafe { AtomicU64::from_ptr(p as *mut u64) };
    match rmw {
        Rmw::CmpSwap => {
            return match a.compare_exchange(cmp, src, Ordering::SeqCst, Ordering::SeqCst) {
                Ok(v) | Err(v) => v,
            };
        }
        Rmw::Add => return a.fetch_add(src, Ordering::SeqCst),
        _ => {}
    }
    let mut old = a.load(Ordering::SeqCst);
    loop {
        let new = apply64(rmw, old, src, cmp);
        match a.compare_exchange_weak(old, new, Ordering::SeqCst, Ordering::SeqCst) {
            Ok(_) => return old,
            Err(cur) => old = cur,
        }
    }
}

/// One lane's buffer atomic (MUBUF on gfx11 and GFX9): the source (and
/// compare) operands from `vdata` of `row` (a lane's VGPR reader), the
/// natural-alignment rule (a misaligned address is a memory violation), and
/// the operation on the memory `translate` gives; the old value.
pub(crate) fn buffer_lane_atomic(
    row: impl Fn(usize) -> u64,
    rmw: Rmw,
    wide: bool,
    address: u64,
    translate: impl FnOnce(u64, u64, Access) -> Result<*mut u8, WaveErrorKind>,
) -> Result<u64, WaveErrorKind> {
    let size = if wide { 8 } else { 4 };
    let src = if wide { row(0) | row(1) << 32 } else { row(0) };
    let cmp = match (rmw == Rmw::CmpSwap, wide) {
        (false, _) => 0,
        (true, true) => row(2) | row(3) << 32,
        (true, false) => row(1),
    };
    if !address.is_multiple_of(size) {
        return Err(WaveErrorKind::MemoryViolation(MemoryFault {
            address,
            access: Access::Atomic,
        }));
    }
    let p = translate(address, size, Access::Atomic)?;
    Ok(if wide {
        atomic64(p, rmw, src, cmp)
    } else {
        u64::from(atomic32(p, rmw, src as u32, cmp as u32))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const POS_ZERO: u32 = 0x0000_0000;
    const NEG_ZERO: u32 = 0x8000_0000;
    const SNAN: u32 = 0x7F80_0001;
    const QNAN: u32 = 0xFFC0_1234;
    const DENORMAL: u32 = 0x0000_0001;

    /// The float minimum and maximum store the data only where it compares
    /// less (greater) or memory holds a NaN and the data is a number;
    /// otherwise memory keeps its exact bits (zeros of either sign, NaN
    /// data, NaNs in both), in both widths.
    #[test]
    fn float_min_and_max_follow_the_isa_compare() {
        let one = 1f32.to_bits();
        let two = 2f32.to_bits();
        // (old, src, min's result, max's result)
        let cases = [
            (two, one, one, two),
            (one, two, one, two),
            (POS_ZERO, NEG_ZERO, POS_ZERO, POS_ZERO),
            (NEG_ZERO, POS_ZERO, NEG_ZERO, NEG_ZERO),
            (one, QNAN, one, one),
            (one, SNAN, one, one),
            (SNAN, one, one, one),
            (QNAN, NEG_ZERO, NEG_ZERO, NEG_ZERO),
            (SNAN, QNAN, SNAN, SNAN),
            (QNAN, SNAN, QNAN, QNAN),
            (DENORMAL, POS_ZERO, POS_ZERO, DENORMAL),
            (
                f32::NEG_INFINITY.to_bits(),
                one,
                f32::NEG_INFINITY.to_bits(),
                one,
            ),
        ];
        // The same values as f64s (a NaN's payload moved up).
        let wide = |x: u32| {
            let f = f32::from_bits(x);
            if f.is_nan() {
                0x7FF0_0000_0000_0000
                    | u64::from(x & 0x8000_0000) << 32
                    | u64::from(x & 0x7F_FFFF) << 29
            } else {
                f64::from(f).to_bits()
            }
        };
        for (old, src, min, max) in cases {
            assert_eq!(
                apply32(Rmw::MinF, old, src, 0),
                min,
                "min {old:#x} {src:#x}"
            );
            assert_eq!(
                apply32(Rmw::MaxF, old, src, 0),
                max,
                "max {old:#x} {src:#x}"
            );
            let (o, s) = (wide(old), wide(src));
            assert_eq!(apply64(Rmw::MinF, o, s, 0), wide(min), "min {o:#x} {s:#x}");
            assert_eq!(apply64(Rmw::MaxF, o, s, 0), wide(max), "max {o:#x} {s:#x}");
        }
    }
}
