//! The vector fast forms on 32 lanes: one pass of a wave32 or wave64 wave.

use super::form::Fast;
use crate::gfx11::exec::operand::{VSrc, put_sgpr, sread};
use crate::gfx11::exec::valu;
use crate::gfx11::exec::valu::fast::{add_co, cndmask, fma_f32, lshlrev_b64, mad_u64, vcmp, vop};
use crate::gfx11::wave::{LANES, Wave};

/// The vector forms on 32 lanes under `exec` (wave32, or one pass of
/// wave64: fast/wave64.rs). Results are computed into locals from the
/// source rows (read in place) and written under `exec` afterwards, so a
/// destination that is also a source reads its old value, as in `step`.
///
/// Each form's body is its own function so that `run`'s per-form wave32
/// arms call just that body: inlining all of `valu` into every arm (and
/// counting on LLVM to fold it) multiplied the crate's release build time.
#[inline(always)]
pub(crate) fn valu(w: &mut Wave, f: &Fast, exec: u32) {
    match *f {
        Fast::Valu { op, dst, a, b, c } => vop(w, op, dst, a, b, c, exec),
        Fast::Cndmask { dst, a, b, mask } => cndmask(w, dst, a, b, mask, exec),
        Fast::AddCo {
            sub,
            rev,
            dst,
            sdst,
            a,
            b,
        } => add_co(w, sub, rev, dst, sdst, a, b, 0, exec),
        Fast::AddCoCi {
            sub,
            rev,
            dst,
            sdst,
            a,
            b,
            cin,
        } => add_co(w, sub, rev, dst, sdst, a, b, sread(w, cin), exec),
        Fast::MadU64 { dst, sdst, a, b, c } => mad_u64(w, dst, sdst, a, b, c, exec),
        Fast::LshlrevB64 { dst, a, b } => lshlrev_b64(w, dst, a, b, exec),
        Fast::Readlane { dst, a, lane } => {
            let lane = sread(w, lane) as usize & (LANES - 1);
            let v = match a {
                VSrc::Vgpr(r) => w.vgpr[r as usize][lane],
                VSrc::Sgpr(r) => w.sgpr[r as usize & 127],
                VSrc::Imm(v) => v,
            };
            put_sgpr(w, dst, v);
        }
        Fast::Vcmp { cmp, dst, a, b } => vcmp(w, cmp, dst, a, b, exec),
        Fast::FmaF32 { dst, a, b, c } => fma_f32(w, dst, a, b, c, exec),
        Fast::Vint(ref v) => valu::fast_vint::run(w, v, exec),
        Fast::Vopd(ref v) => valu::fast_vopd::run(w, v, exec),
        Fast::F64(ref d) => valu::fast_f64::run(w, d, exec),
        Fast::Flt(ref x) => valu::fast_f32::run(w, x, exec),
        Fast::Fma32(ref x) => valu::fast_fma32::run(w, x, exec),
        Fast::Fcmp(ref c) => valu::fast_vcmp::run(w, c, exec),
        Fast::AddPair(ref p) => valu::fast_pair::run(w, p, exec),
        _ => {}
    }
}
