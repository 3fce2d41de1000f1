//! Wave64 runs of the pre-resolved vector forms (issue #4): two 32-lane
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
//! SGPRs as they were before the low pass; the two passes here are the same
//! computation only when the high pass reads no SGPR word the low pass wrote,
//! so such an instruction (and a constant lane mask, whose high word the
//! form no longer knows) goes to the slow path instead.

use super::Flow;
use super::fast::{Fast, SSrc, VSrc, valu};
use crate::isa::wave::{EXEC, LANES, NULL, Wave};

/// Run `f` for all 64 lanes of a wave64 wave. None: it has no wave64 run
/// here (the caller runs `step`).
#[inline(always)]
pub(crate) fn run(w: &mut Wave, f: &Fast) -> Option<Flow> {
    if let Fast::Readlane { dst, a, lane } = *f {
        // Lane index 0..63 (wave64.rs): lanes 32..63 live in `vgpr_hi`.
        let lane = sread(w, lane) as usize & 63;
        let v = match a {
            VSrc::Vgpr(r) if lane < LANES => w.vgpr[r as usize][lane],
            VSrc::Vgpr(r) => w.vgpr_hi[r as usize][lane - LANES],
            VSrc::Sgpr(r) => w.sgpr[r as usize & 127],
            VSrc::Imm(v) => v,
        };
        if dst != NULL as u8 && dst < 128 {
            w.sgpr[dst as usize] = v;
        }
        return Some(Flow::Next);
    }
    let high = high_form(f)?;
    let (exec_lo, exec_hi) = (w.sgpr[EXEC], w.sgpr[EXEC + 1]);
    valu(w, f, exec_lo);
    std::mem::swap(&mut w.vgpr, &mut w.vgpr_hi);
    valu(w, &high, exec_hi);
    std::mem::swap(&mut w.vgpr, &mut w.vgpr_hi);
    Some(Flow::Next)
}

/// The high pass's form of `f`, or None where the two passes would not be
/// the slow path's computation (see the file comment) or `f` has no wave64 run.
#[inline(always)]
fn high_form(f: &Fast) -> Option<Fast> {
    Some(match *f {
        // Per-lane forms with no lane-mask operand: the same form.
        Fast::Valu { .. } | Fast::LshlrevB64 { .. } | Fast::FmaF32 { .. } => *f,
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
        } => {
            if reads(a, sdst) || reads(b, sdst) {
                return None;
            }
            Fast::AddCo {
                sub,
                rev,
                dst,
                sdst: high_dst(sdst),
                a,
                b,
            }
        }
        Fast::AddCoCi {
            sub,
            rev,
            dst,
            sdst,
            a,
            b,
            cin,
        } => {
            let cin = high_mask(cin)?;
            if reads(a, sdst) || reads(b, sdst) || cin == SSrc::Reg(sdst) {
                return None;
            }
            Fast::AddCoCi {
                sub,
                rev,
                dst,
                sdst: high_dst(sdst),
                a,
                b,
                cin,
            }
        }
        Fast::MadU64 { dst, sdst, a, b, c } => {
            if reads(a, sdst) || reads(b, sdst) || reads64(c, sdst) {
                return None;
            }
            Fast::MadU64 {
                dst,
                sdst: high_dst(sdst),
                a,
                b,
                c,
            }
        }
        Fast::Vcmp {
            cond,
            signed,
            dst,
            a,
            b,
        } => {
            if reads(a, dst) || reads(b, dst) {
                return None;
            }
            Fast::Vcmp {
                cond,
                signed,
                dst: high_dst(dst),
                a,
                b,
            }
        }
        _ => return None,
    })
}

/// Does the high pass read SGPR `code` (written by the low pass) through
/// the 32-bit vector source `s`?
#[inline(always)]
fn reads(s: VSrc, code: u8) -> bool {
    s == VSrc::Sgpr(code)
}

/// The same for a 64-bit source (an SGPR pair).
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
fn high_dst(code: u8) -> u8 {
    if code == NULL as u8 || code >= 127 {
        NULL as u8
    } else {
        code + 1
    }
}

#[inline(always)]
fn sread(w: &Wave, s: SSrc) -> u32 {
    match s {
        SSrc::Reg(r) => w.sgpr[r as usize & 127],
        SSrc::Imm(v) => v,
    }
}
