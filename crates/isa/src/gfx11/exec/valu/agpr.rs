//! GFX9 accumulation registers (AGPRs) of gfx90a and gfx942.
//!
//! These targets have one unified register file per wave: its VGPRs, then
//! from ACCUM_OFFSET on its AGPRs, a0 being row ACCUM_OFFSET (LLVM
//! AMDGPUUsage, "Kernel Descriptor", COMPUTE_PGM_RSRC3 for GFX90A/GFX942:
//! ACCUM_OFFSET; the GRANULATED_WORKITEM_VGPR_COUNT allocation counts both
//! kinds). The executor keeps the AGPRs beside its 256-row VGPR file
//! (`Wave::agpr`, sized to the allocation past ACCUM_OFFSET, so an AGPR the
//! wave does not own has no row and naming it is an error). A VGPR index at
//! or past ACCUM_OFFSET would alias an AGPR on hardware; the VGPR file does
//! not model that aliasing (LLVM never emits such an index).
//!
//! Here: v_accvgpr_read_b32 / write_b32 / mov_b32 (AMD CDNA3 ISA guide,
//! "VOP3P-MAI" and VOP1 V_ACCVGPR_MOV_B32), and the memory instructions
//! whose `acc` bit puts their data and destination in AGPRs (FLAT, GLOBAL,
//! SCRATCH, DS, MUBUF, MTBUF: same guide, "Microcode Formats"). Those run
//! through a window: the AGPR rows are copied into VGPR rows the address
//! does not use, the instruction runs on them as VGPRs, the rows go back to
//! the AGPRs and the VGPR rows are restored, which leaves every memory path
//! single.

use crate::WaveErrorKind;
use crate::gfx11::exec::env::{Env, ExecResult, Flow, illegal};
use crate::gfx11::exec::valu::src32;
use crate::gfx11::inst::{Family, Inst, Src};
use crate::gfx11::opcodes::Op;
use crate::gfx11::wave::{LANES, Lanes, NUM_VGPRS, Wave};

/// The error for an AGPR range the wave does not own.
pub(crate) fn out_of_range(i: &Inst, first: usize, n: usize, owned: usize) -> WaveErrorKind {
    WaveErrorKind::IllegalInstruction {
        words: i.raw().to_vec(),
        mnemonic: Some(format!(
            "{} (a{first}..a{} beyond the wave's {owned} AGPRs)",
            i.mnemonic,
            first + n - 1
        )),
    }
}

/// Check that AGPRs `first..first + n` belong to the wave.
#[inline]
pub(crate) fn check(w: &Wave, i: &Inst, first: usize, n: usize) -> Result<(), WaveErrorKind> {
    if first + n <= w.agpr.len() {
        Ok(())
    } else {
        Err(out_of_range(i, first, n, w.agpr.len()))
    }
}

/// Write an AGPR row of the current lanes under `mask`.
#[inline]
pub(crate) fn write(w: &mut Wave, reg: usize, vals: &Lanes, mask: u32) {
    let row = &mut w.agpr[reg];
    for l in 0..LANES {
        if mask >> l & 1 != 0 {
            row[l] = vals[l];
        }
    }
}

/// The VGPR number of source `k` (an AGPR operand is always a register).
fn reg(i: &Inst, k: usize) -> Result<usize, WaveErrorKind> {
    match i.src[k].src {
        Src::Vgpr(r) => Ok(r as usize),
        _ => Err(illegal(i)),
    }
}

/// v_accvgpr_read_b32 (AGPR to VGPR), v_accvgpr_write_b32 (VGPR or
/// constant to AGPR), v_accvgpr_mov_b32 (AGPR to AGPR), over the current
/// lanes under EXEC.
pub(crate) fn moves(w: &mut Wave, env: &Env, i: &Inst) -> ExecResult {
    let exec = w.exec();
    let d = i.dst as usize;
    match i.op {
        Op::VAccvgprReadB32 => {
            let s = reg(i, 0)?;
            check(w, i, s, 1)?;
            let v = w.agpr[s];
            w.write_vgpr(d, &v, exec);
        }
        Op::VAccvgprWriteB32 => {
            check(w, i, d, 1)?;
            let v = src32(w, env, i, 0)?;
            write(w, d, &v, exec);
        }
        Op::VAccvgprMovB32 => {
            let s = reg(i, 0)?;
            check(w, i, s, 1)?;
            check(w, i, d, 1)?;
            let v = w.agpr[s];
            write(w, d, &v, exec);
        }
        _ => return Err(illegal(i)),
    }
    Ok(Flow::Next)
}

/// Where an AGPR operand of a memory instruction sits in `Inst`.
#[derive(Clone, Copy)]
enum Field {
    Dst,
    Data0,
    Data1,
}

/// The AGPR operands of memory instruction `i` (acc set): field, first
/// register, rows. Loads write their destination; stores and atomics read
/// their data; returning atomics write the destination (FLAT, DS) or the
/// data registers (MUBUF, as gfx11's GLC return).
fn operands(i: &Inst) -> Vec<(Field, usize, usize)> {
    let w = i.widths;
    let mut v = Vec::new();
    let mut push = |f: Field, r: usize, n: u8| {
        if n != 0 {
            v.push((f, r, n as usize));
        }
    };
    match i.family {
        Family::Mubuf | Family::Mtbuf => push(Field::Data0, i.data[0] as usize, w[0]),
        Family::Ds => {
            push(Field::Data0, i.data[0] as usize, w[2]);
            push(Field::Data1, i.data[1] as usize, w[3]);
            push(Field::Dst, i.dst as usize, w[0]);
        }
        _ => {
            push(Field::Data0, i.data[0] as usize, w[2]);
            let mut dst = w[0];
            // A returning FLAT atomic (GLC) returns the old value: as wide
            // as its data, half of it for a compare-swap.
            if dst == 0 && i.flags & Inst::GLC != 0 && i.op.name().contains("_atomic_") {
                dst = if i.op.name().contains("cmpswap") {
                    w[2] / 2
                } else {
                    w[2]
                };
            }
            push(Field::Dst, i.dst as usize, dst);
        }
    }
    v
}

/// Run memory instruction `i`, whose data and destination are AGPRs,
/// through a window of VGPR rows (see the module comment); `run` executes
/// the renamed instruction for the whole wave.
pub(crate) fn memory(
    w: &mut Wave,
    env: &mut Env,
    i: &Inst,
    run: impl Fn(&mut Wave, &mut Env, &Inst) -> ExecResult,
) -> ExecResult {
    let ops = operands(i);
    for &(_, first, n) in &ops {
        check(w, i, first, n)?;
    }
    let rows: usize = ops.iter().map(|o| o.2).sum();
    // The address VGPRs (at most two: FLAT's 64-bit address, MUBUF's
    // index and offset) stay where they are; the window avoids them.
    let addr = i.addr as usize;
    let base = if addr >= rows { 0 } else { addr + 2 };
    if base + rows > NUM_VGPRS {
        return Err(illegal(i));
    }
    let mut j = i.clone();
    j.acc = 0;
    let mut at = base;
    let mut placed = Vec::with_capacity(ops.len());
    for &(f, first, n) in &ops {
        match f {
            Field::Dst => j.dst = at as u16,
            Field::Data0 => j.data[0] = at as u8,
            Field::Data1 => j.data[1] = at as u8,
        }
        placed.push((at, first, n));
        at += n;
    }
    let saved: Vec<(Lanes, Lanes)> = (base..at).map(|r| (w.vgpr[r], w.vgpr_hi[r])).collect();
    for &(win, first, n) in &placed {
        for k in 0..n {
            w.vgpr[win + k] = w.agpr[first + k];
            if w.wave64 {
                w.vgpr_hi[win + k] = w.agpr_hi[first + k];
            }
        }
    }
    let result = run(w, env, &j);
    // Back in operand order, so the destination (last) wins where
    // operands name the same AGPRs.
    for &(win, first, n) in &placed {
        for k in 0..n {
            w.agpr[first + k] = w.vgpr[win + k];
            if w.wave64 {
                w.agpr_hi[first + k] = w.vgpr_hi[win + k];
            }
        }
    }
    for (k, (lo, hi)) in saved.into_iter().enumerate() {
        w.vgpr[base + k] = lo;
        w.vgpr_hi[base + k] = hi;
    }
    result
}
