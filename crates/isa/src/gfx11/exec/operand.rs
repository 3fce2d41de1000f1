//! Pre-resolved operands: what a fast form reads (an SGPR, a VGPR row or a
//! constant, resolved when the code cache compiles the instruction) and the
//! lane helpers every family's fast forms share. The bottom of the fast
//! forms: it depends on the wave only.

use std::mem::MaybeUninit;

use crate::gfx11::inst::Src;
use crate::gfx11::wave::{LANES, Lanes, Wave};

/// A scalar operand: SGPR `n` (0..=127) or a 32-bit constant.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum SSrc {
    Reg(u8),
    Imm(u32),
}

/// A vector operand: VGPR `n`, SGPR `n` (the same value in every lane) or a constant.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum VSrc {
    Vgpr(u8),
    Sgpr(u8),
    Imm(u32),
}

pub(crate) fn ssrc(s: Src) -> Option<SSrc> {
    match s {
        Src::Sgpr(r) if r < 128 => Some(SSrc::Reg(r)),
        Src::Imm(v) => Some(SSrc::Imm(v as u32)),
        _ => None,
    }
}

pub(crate) fn vsrc(s: Src) -> Option<VSrc> {
    match s {
        Src::Vgpr(r) => Some(VSrc::Vgpr(r)),
        Src::Sgpr(r) if r < 128 => Some(VSrc::Sgpr(r)),
        Src::Imm(v) => Some(VSrc::Imm(v as u32)),
        _ => None,
    }
}

/// A 64-bit vector source: a VGPR pair, an SGPR pair, or a constant whose high
/// dword is 0 (so the 32-bit constant zero-extends to the slow path's value).
pub(crate) fn vsrc64(s: Src) -> Option<VSrc> {
    match s {
        Src::Vgpr(r) if r < 255 => Some(VSrc::Vgpr(r)),
        Src::Sgpr(r) if r < 127 => Some(VSrc::Sgpr(r)),
        Src::Imm(v) if v >> 32 == 0 => Some(VSrc::Imm(v as u32)),
        _ => None,
    }
}

/// A scalar destination code the slow path writes with `set_sgpr` (NULL drops).
pub(crate) fn sdst(code: u16) -> Option<u8> {
    (code < 128).then_some(code as u8)
}

/// A scalar operand's value: the SGPR, or the constant.
#[inline(always)]
pub(crate) fn sread(w: &Wave, s: SSrc) -> u32 {
    match s {
        SSrc::Reg(r) => w.sgpr[r as usize & 127],
        SSrc::Imm(v) => v,
    }
}

/// A source's 32 lanes: the VGPR row itself, or `buf` filled with the scalar
/// (left uninitialised otherwise: zeroing the spare rows cost ~30 host
/// instructions per vector op).
#[inline(always)]
pub(crate) fn row<'a>(w: &'a Wave, s: VSrc, buf: &'a mut Row) -> &'a Lanes {
    match s {
        VSrc::Vgpr(r) => &w.vgpr[r as usize],
        VSrc::Sgpr(r) => buf.write([w.sgpr[r as usize & 127]; LANES]),
        VSrc::Imm(v) => buf.write([v; LANES]),
    }
}

/// Lane `l` (0..32) of a source: the VGPR's lane, or the scalar.
#[inline(always)]
pub(crate) fn lane(w: &Wave, s: VSrc, l: usize) -> u32 {
    match s {
        VSrc::Vgpr(r) => w.vgpr[r as usize][l & (LANES - 1)],
        VSrc::Sgpr(r) => w.sgpr[r as usize & 127],
        VSrc::Imm(v) => v,
    }
}

/// Room for a source row that may not be needed.
pub(crate) type Row = MaybeUninit<Lanes>;

/// The value of a source that is the same in every lane (an SGPR or a
/// constant; a VGPR's lane 0, which callers do not ask for).
#[inline(always)]
pub(crate) fn scalar(w: &Wave, s: VSrc) -> u32 {
    match s {
        VSrc::Vgpr(r) => w.vgpr[r as usize][0],
        VSrc::Sgpr(r) => w.sgpr[r as usize & 127],
        VSrc::Imm(v) => v,
    }
}

/// The low and high dwords of a 64-bit source (see [`vsrc64`]), as two rows.
#[inline(always)]
pub(crate) fn row_pair<'a>(
    w: &'a Wave,
    s: VSrc,
    lo: &'a mut Row,
    hi: &'a mut Row,
) -> (&'a Lanes, &'a Lanes) {
    match s {
        VSrc::Vgpr(r) => (&w.vgpr[r as usize], &w.vgpr[(r as usize + 1) & 255]),
        VSrc::Sgpr(r) => {
            let r = r as usize & 127;
            let h = w.sgpr.get(r + 1).copied().unwrap_or(0);
            (lo.write([w.sgpr[r]; LANES]), hi.write([h; LANES]))
        }
        VSrc::Imm(v) => (lo.write([v; LANES]), hi.write([0; LANES])),
    }
}

/// An SGPR write to a pre-resolved destination code: the slow path's
/// `Wave::set_sgpr` (NULL and codes >= 128 are dropped).
#[inline(always)]
pub(crate) fn put_sgpr(w: &mut Wave, code: u8, v: u32) {
    w.set_sgpr(code as usize, v);
}

#[inline(always)]
pub(crate) fn map2(a: &Lanes, b: &Lanes, f: impl Fn(u32, u32) -> u32) -> Lanes {
    let mut r = [0u32; LANES];
    for l in 0..LANES {
        r[l] = f(a[l], b[l]);
    }
    r
}

#[inline(always)]
pub(crate) fn map3(a: &Lanes, b: &Lanes, c: &Lanes, f: impl Fn(u32, u32, u32) -> u32) -> Lanes {
    let mut r = [0u32; LANES];
    for l in 0..LANES {
        r[l] = f(a[l], b[l], c[l]);
    }
    r
}
