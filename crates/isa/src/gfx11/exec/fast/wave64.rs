//! Wave64 runs of the pre-resolved vector forms: two 32-lane
//! passes, as the slow path (wave64.rs) runs a vector instruction, without
//! its per-pass decode-level dispatch and its copy of the SGPR file.
//!
//! The low pass is the wave32 form under exec_lo. For the high pass the VGPR
//! files are swapped (lanes 32..63 in front, as `high_pass` does) and the
//! form is rewritten for the high words: a lane-mask source (v_cndmask's
//! mask, a carry in) reads SGPR n+1 where `mask_read` does, and a lane-mask
//! destination (compare result, carry out) is written at n+1 where
//! `set_lane_mask` writes it; EXEC is exec_hi. Vector sources that are SGPRs
//! or constants read the same value in both passes, as in `src32`.
//!
//! The slow path runs the high pass of a mask-writing instruction on the
//! SGPRs as they were before the low pass. Where the high pass reads the word
//! the low pass writes through a 32-bit source, the high form reads that
//! word's value from before the low pass as a constant (the same value in
//! every lane, as the SGPR source would give); through a 64-bit source, or
//! with a constant lane mask (whose high word the form no longer knows), the
//! instruction goes to the slow path instead.

use super::form::Fast;
use super::lanes::valu;
use crate::gfx11::exec::env::Flow;
use crate::gfx11::exec::operand::{SSrc, VSrc, put_sgpr, sread};
use crate::gfx11::exec::valu::fast_f64::S64;
use crate::gfx11::exec::valu::fast_vint::{Below, Vint};
use crate::gfx11::wave::{EXEC, LANES, NULL, Wave};

/// Run `f` for all 64 lanes of a wave64 wave. None: it has no wave64 run
/// here (the caller runs `step`).
#[inline(always)]
pub(crate) fn run(w: &mut Wave, f: &Fast) -> Option<Flow> {
    if let Fast::Readlane { dst, a, lane } = *f {
        // Lane index 0..63 (valu/wave64.rs): lanes 32..63 live in `vgpr_hi`.
        let lane = sread(w, lane) as usize & 63;
        let v = match a {
            VSrc::Vgpr(r) if lane < LANES => w.vgpr[r as usize][lane],
            VSrc::Vgpr(r) => w.vgpr_hi[r as usize][lane - LANES],
            VSrc::Sgpr(r) => w.sgpr[r as usize & 127],
            VSrc::Imm(v) => v,
        };
        put_sgpr(w, dst, v);
        return Some(Flow::Next);
    }
    let high = high_form(w, f)?;
    let (exec_lo, exec_hi) = (w.sgpr[EXEC], w.sgpr[EXEC + 1]);
    valu(w, f, exec_lo);
    std::mem::swap(&mut w.vgpr, &mut w.vgpr_hi);
    valu(w, &high, exec_hi);
    std::mem::swap(&mut w.vgpr, &mut w.vgpr_hi);
    Some(Flow::Next)
}

/// The high pass's form of `f`, made before the low pass runs, or None where
/// the two passes would not be the slow path's computation (see the file
/// comment) or `f` has no wave64 run.
#[inline(always)]
fn high_form(w: &Wave, f: &Fast) -> Option<Fast> {
    // A 32-bit source reading SGPR `code` (which the low pass writes) as it is now.
    let keep = |s: VSrc, code: u8| match s {
        VSrc::Sgpr(r) if r == code => VSrc::Imm(w.sgpr[r as usize & 127]),
        _ => s,
    };
    Some(match *f {
        // Per-lane forms with no lane-mask operand: the same form.
        Fast::Valu { .. } | Fast::LshlrevB64 { .. } | Fast::FmaF32 { .. } => *f,
        Fast::F64(d) if !d.uses_mask() => *f,
        Fast::Flt(_) => *f,
        Fast::Fma32(d) if !d.uses_mask() => *f,
        Fast::Cndmask { dst, a, b, mask } => Fast::Cndmask {
            dst,
            a,
            b,
            mask: high_mask(mask)?,
        },
        Fast::AddCo {
            sub,
            rev,
            dst,
            sdst,
            a,
            b,
        } => Fast::AddCo {
            sub,
            rev,
            dst,
            sdst: high_dst(sdst),
            a: keep(a, sdst),
            b: keep(b, sdst),
        },
        Fast::AddCoCi {
            sub,
            rev,
            dst,
            sdst,
            a,
            b,
            cin,
        } => {
            let cin = match high_mask(cin)? {
                SSrc::Reg(r) if r == sdst => SSrc::Imm(w.sgpr[r as usize & 127]),
                c => c,
            };
            Fast::AddCoCi {
                sub,
                rev,
                dst,
                sdst: high_dst(sdst),
                a: keep(a, sdst),
                b: keep(b, sdst),
                cin,
            }
        }
        Fast::MadU64 { dst, sdst, a, b, c } => {
            if reads64(c, sdst) {
                return None;
            }
            Fast::MadU64 {
                dst,
                sdst: high_dst(sdst),
                a: keep(a, sdst),
                b: keep(b, sdst),
                c,
            }
        }
        Fast::Vcmp { cmp, dst, a, b } => Fast::Vcmp {
            cmp,
            dst: high_dst(dst),
            a: keep(a, dst),
            b: keep(b, dst),
        },
        Fast::Fcmp(c) => {
            // As `keep` and `reads64` do for the integer compares.
            let mut h = c;
            for (k, s) in [&mut h.a, &mut h.b].into_iter().enumerate() {
                match *s {
                    S64::Sgpr(r) if c.wide(k) && reads64(VSrc::Sgpr(r), c.dst) => return None,
                    S64::Sgpr(r) if r == c.dst => *s = S64::Lo(w.sgpr[r as usize & 127]),
                    _ => {}
                }
            }
            h.dst = high_dst(c.dst);
            Fast::Fcmp(h)
        }
        Fast::Vint(v) => Fast::Vint(match v {
            Vint::Shr64 { .. } | Vint::LshlAdd64 { .. } => v,
            Vint::Mbcnt { below, dst, a, b } => Vint::Mbcnt {
                // mbcnt_lo counts all of the low word from the high half;
                // mbcnt_hi counts its own word there.
                below: match below {
                    Below::Own => Below::Full,
                    Below::Zero => Below::Own,
                    Below::Full => return None,
                },
                dst,
                a,
                b,
            },
            Vint::Cmp64 {
                cond,
                signed,
                dst,
                a,
                b,
            } => {
                if reads64(a, dst) || reads64(b, dst) {
                    return None;
                }
                Vint::Cmp64 {
                    cond,
                    signed,
                    dst: high_dst(dst),
                    a,
                    b,
                }
            }
        }),
        _ => return None,
    })
}

/// Does the high pass read SGPR `code` (written by the low pass) through
/// the 64-bit vector source `s` (an SGPR pair)?
#[inline(always)]
fn reads64(s: VSrc, code: u8) -> bool {
    matches!(s, VSrc::Sgpr(r) if r == code || r.wrapping_add(1) == code)
}

/// The high word of a lane-mask source as `mask_read` reads it: SGPR n+1
/// (0 past the file); a constant's high word is not kept, so None.
#[inline(always)]
fn high_mask(s: SSrc) -> Option<SSrc> {
    match s {
        SSrc::Reg(r) if r < 127 => Some(SSrc::Reg(r + 1)),
        SSrc::Reg(_) => Some(SSrc::Imm(0)),
        SSrc::Imm(_) => None,
    }
}

/// The high word of a lane-mask destination as `set_lane_mask` writes it:
/// n+1, none for null (and past the file).
#[inline(always)]
pub(crate) fn high_dst(code: u8) -> u8 {
    if code == NULL as u8 || code >= 127 {
        NULL as u8
    } else {
        code + 1
    }
}
