//! More pre-resolved integer vector forms: the 64-bit integer
//! compares (v_cmp[x]_*_u64/i64), v_lshrrev_b64 / v_ashrrev_i64,
//! v_mbcnt_lo/hi_u32_b32 and gfx940's v_lshl_add_u64 and v_mov_b64, each
//! the slow path's computation (vcmp.rs vopc, valu/mod.rs) on resolved
//! operands. 64-bit sources are VGPR or SGPR pairs, or
//! constants whose high dword is 0 (operand.rs `vsrc64`); anything else takes
//! the slow path. They run in wave64 through fast/wave64.rs.

use crate::gfx11::exec::operand::{VSrc, row, row_pair, vsrc, vsrc64};
use crate::gfx11::exec::valu::fast::int_compare;
use crate::gfx11::inst::{Family, Inst, Mods};
use crate::gfx11::opcodes::Op;
use crate::gfx11::wave::{LANE_BIT, LANES, Lanes, NULL, Wave};

/// Which lanes below lane l v_mbcnt counts in its mask word.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Below {
    /// None (mbcnt_hi in wave32 or the low pass: the word is lanes 32..63).
    Zero,
    /// The lanes below l of this word (mbcnt_lo low pass, mbcnt_hi high pass).
    Own,
    /// The whole word (mbcnt_lo in the high pass: all of lanes 0..31 are below).
    Full,
}

/// One pre-resolved form (a [`Fast::Vint`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Vint {
    /// 64-bit integer compare (`cond`: 1 less, 2 equal, 4 greater, as a mask)
    /// to `dst` (VCC, an SGPR, or EXEC for v_cmpx), inactive lanes 0.
    Cmp64 {
        cond: u8,
        signed: bool,
        dst: u8,
        a: VSrc,
        b: VSrc,
    },
    /// dst pair = b >> (a & 63), arithmetic for `signed` (b a 64-bit source).
    Shr64 {
        signed: bool,
        dst: u8,
        a: VSrc,
        b: VSrc,
    },
    /// v_lshl_add_u64: dst pair = (a << (b & 7)) + c (a and c 64-bit sources).
    LshlAdd64 { dst: u8, a: VSrc, b: VSrc, c: VSrc },
    /// dst = popcount(a & lanes below) + b.
    Mbcnt {
        below: Below,
        dst: u8,
        a: VSrc,
        b: VSrc,
    },
}

pub(crate) fn compile(i: &Inst) -> Option<Vint> {
    if i.dpp.is_some() || i.mods != Mods::default() {
        return None;
    }
    let v = match i.family {
        Family::Vopc => compile_cmp64(i)?,
        Family::Vop3 if crate::gfx11::decode::is_vop3_compare(i) => compile_cmp64(i)?,
        // v_mov_b64 (gfx940+, AMD CDNA3 ISA guide, V_MOV_B64: D.u64 =
        // S0.u64) is the shift right by 0 of its source: the same 64-bit read
        // (`vsrc64`, as the slow path's `u64`) and pair write.
        Family::Vop1 | Family::Vop3 if i.op == Op::VMovB64 => Vint::Shr64 {
            signed: false,
            dst: u8::try_from(i.dst).ok().filter(|&d| d < 255)?,
            a: VSrc::Imm(0),
            b: vsrc64(i.src[0].src)?,
        },
        Family::Vop3 => {
            let dst = u8::try_from(i.dst).ok()?;
            match i.op {
                Op::VLshrrevB64 | Op::VAshrrevI64 => Vint::Shr64 {
                    signed: i.op == Op::VAshrrevI64,
                    dst: (dst < 255).then_some(dst)?,
                    a: vsrc(i.src[0].src)?,
                    b: vsrc64(i.src[1].src)?,
                },
                // gfx940+ (AMD CDNA3 ISA guide, V_LSHL_ADD_U64): D.u64 =
                // (S0.u64 << S1[2:0]) + S2.u64.
                Op::VLshlAddU64 => Vint::LshlAdd64 {
                    dst: (dst < 255).then_some(dst)?,
                    a: vsrc64(i.src[0].src)?,
                    b: vsrc(i.src[1].src)?,
                    c: vsrc64(i.src[2].src)?,
                },
                Op::VMbcntLoU32B32 | Op::VMbcntHiU32B32 => Vint::Mbcnt {
                    below: if i.op == Op::VMbcntLoU32B32 {
                        Below::Own
                    } else {
                        Below::Zero
                    },
                    dst,
                    a: vsrc(i.src[0].src)?,
                    b: vsrc(i.src[1].src)?,
                },
                _ => return None,
            }
        }
        _ => return None,
    };
    Some(v)
}

/// v_cmp[x]_{lt,eq,le,gt,ne,ge}_{u64,i64}, as vcmp.rs parses the mnemonic.
fn compile_cmp64(i: &Inst) -> Option<Vint> {
    let (cond, signed, dst) = int_compare(i, "i64", "u64")?;
    Some(Vint::Cmp64 {
        cond,
        signed,
        dst,
        a: vsrc64(i.src[0].src)?,
        b: vsrc64(i.src[1].src)?,
    })
}

/// Run a form on 32 lanes under `exec` (wave32, or one pass of wave64).
#[inline(always)]
pub(crate) fn run(w: &mut Wave, v: &Vint, exec: u32) {
    let (mut b0, mut b1, mut b2, mut b3, mut b4) = (
        std::mem::MaybeUninit::uninit(),
        std::mem::MaybeUninit::uninit(),
        std::mem::MaybeUninit::uninit(),
        std::mem::MaybeUninit::uninit(),
        std::mem::MaybeUninit::uninit(),
    );
    match *v {
        Vint::Cmp64 {
            cond,
            signed,
            dst,
            a,
            b,
        } => {
            let m = {
                let (al, ah) = row_pair(w, a, &mut b0, &mut b1);
                let (bl, bh) = row_pair(w, b, &mut b2, &mut b3);
                let mut hit = [0u32; LANES];
                for l in 0..LANES {
                    let (x, y) = (
                        al[l] as u64 | (ah[l] as u64) << 32,
                        bl[l] as u64 | (bh[l] as u64) << 32,
                    );
                    let ord = if signed {
                        (x as i64).cmp(&(y as i64))
                    } else {
                        x.cmp(&y)
                    };
                    let rel = match ord {
                        std::cmp::Ordering::Less => 1,
                        std::cmp::Ordering::Equal => 2,
                        std::cmp::Ordering::Greater => 4,
                    };
                    hit[l] = (rel & cond != 0) as u32;
                }
                pack(&hit)
            };
            if dst != NULL as u8 && dst < 128 {
                w.sgpr[dst as usize] = m & exec;
            }
        }
        Vint::Shr64 { signed, dst, a, b } => {
            let (mut lo, mut hi) = ([0u32; LANES], [0u32; LANES]);
            {
                let x = row(w, a, &mut b0);
                let (yl, yh) = row_pair(w, b, &mut b1, &mut b2);
                for l in 0..LANES {
                    let y = yl[l] as u64 | (yh[l] as u64) << 32;
                    let r = if signed {
                        ((y as i64) >> (x[l] & 63)) as u64
                    } else {
                        y >> (x[l] & 63)
                    };
                    lo[l] = r as u32;
                    hi[l] = (r >> 32) as u32;
                }
            }
            w.write_vgpr(dst as usize, &lo, exec);
            w.write_vgpr(dst as usize + 1, &hi, exec);
        }
        Vint::LshlAdd64 { dst, a, b, c } => {
            let (mut lo, mut hi) = ([0u32; LANES], [0u32; LANES]);
            {
                let (xl, xh) = row_pair(w, a, &mut b0, &mut b1);
                let y = row(w, b, &mut b2);
                let (zl, zh) = row_pair(w, c, &mut b3, &mut b4);
                for l in 0..LANES {
                    let x = xl[l] as u64 | (xh[l] as u64) << 32;
                    let z = zl[l] as u64 | (zh[l] as u64) << 32;
                    let r = (x << (y[l] & 7)).wrapping_add(z);
                    lo[l] = r as u32;
                    hi[l] = (r >> 32) as u32;
                }
            }
            w.write_vgpr(dst as usize, &lo, exec);
            w.write_vgpr(dst as usize + 1, &hi, exec);
        }
        Vint::Mbcnt { below, dst, a, b } => {
            let mut r = [0u32; LANES];
            {
                let (x, y) = (row(w, a, &mut b0), row(w, b, &mut b1));
                for l in 0..LANES {
                    let m = match below {
                        Below::Zero => 0,
                        Below::Own => LANE_BIT[l] - 1,
                        Below::Full => u32::MAX,
                    };
                    r[l] = (x[l] & m).count_ones().wrapping_add(y[l]);
                }
            }
            w.write_vgpr(dst as usize, &r, exec);
        }
    }
}

#[inline(always)]
fn pack(hit: &Lanes) -> u32 {
    crate::gfx11::wave::pack_lanes(hit)
}
