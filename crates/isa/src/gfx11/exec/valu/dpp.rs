//! DPP16 / DPP8 execution: src0 is read through a lane permutation within
//! rows of 16 lanes (DPP16) or groups of 8 (DPP8); lanes whose row/bank is
//! masked off, or whose source lane is out of range or inactive (without
//! bound_ctrl / fetch-inactive), are not written. The instruction then runs
//! as its plain VOP1/VOP2/VOPC form with EXEC narrowed to the written lanes.
//!
//! GFX9's whole-wave controls (wave_shl/rol/shr/ror by one lane, row_bcast:15
//! and row_bcast:31; AMD CDNA3 ISA guide, "DPP") reach across rows and, in
//! wave64, across the two 32-lane halves: the low pass keeps its half of
//! src0 as it found it (`Wave::dpp_low`), so the high pass reads the values
//! from before the instruction even where the low pass wrote its destination.
//! Only GFX9 code carries them (the gfx11 decoder rejects those codes).
//!
//! GFX9's DP ALU ops (gfx90a, gfx942: any 64-bit operand) take DPP only
//! with row_newbcast:n; a 64-bit src0 is permuted as two dwords of one
//! lane (`Wave::dpp_row_hi` beside `Wave::dpp_row`), under the same row
//! and bank masks and bound_ctrl as a 32-bit one.

use crate::gfx11::exec::env::{Env, ExecResult, illegal};
use crate::gfx11::inst::{Dpp, Inst, Src};
use crate::gfx11::wave::{EXEC, LANES, NUM_VGPRS, Wave};

/// Source lane for DPP16 control `ctrl` at lane `l`, or None when out of the row.
fn dpp16_source(ctrl: u16, l: usize) -> Option<usize> {
    let row = l & !15;
    let i = l & 15;
    let within = |s: isize| {
        if (0..16).contains(&s) {
            Some(row + s as usize)
        } else {
            None
        }
    };
    match ctrl {
        0x000..=0x0FF => Some((l & !3) | ((ctrl as usize >> (2 * (l & 3))) & 3)),
        0x101..=0x10F => within(i as isize + (ctrl & 0xF) as isize),
        0x111..=0x11F => within(i as isize - (ctrl & 0xF) as isize),
        0x121..=0x12F => Some(row + ((i + 16 - (ctrl & 0xF) as usize) & 15)),
        0x140 => Some(row + 15 - i),
        0x141 => Some((l & !7) + 7 - (l & 7)),
        0x150..=0x15F => Some(row + (ctrl & 0xF) as usize),
        0x160..=0x16F => Some(row + (i ^ (ctrl & 0xF) as usize)),
        _ => None,
    }
}

/// Where lane `l` of 32-lane half `half` reads its permuted src0 under
/// row control `d` ([`row_control`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum LaneSource {
    /// Its row or bank is masked off: the lane is not written.
    Masked,
    /// Lane `s` of the same half.
    Lane(usize),
    /// Its source lies outside its row: written (as 0) only with bound_ctrl.
    Outside,
}

/// [`LaneSource`] of lane `l` in half `half` (wave64's lanes 32..63: 1) for
/// the row control `d`.
pub(crate) fn lane_source(d: &Dpp, l: usize, half: usize) -> LaneSource {
    match d.dpp8 {
        Some(sel) => LaneSource::Lane((l & !7) | ((sel >> (3 * (l & 7))) & 7) as usize),
        None => {
            let row_on = (d.row_mask >> (l / 16 + 2 * half)) & 1 != 0;
            let bank_on = (d.bank_mask >> ((l >> 2) & 3)) & 1 != 0;
            if !(row_on && bank_on) {
                return LaneSource::Masked;
            }
            dpp16_source(d.ctrl, l).map_or(LaneSource::Outside, LaneSource::Lane)
        }
    }
}

/// Is `d` a DPP8 selection or a DPP16 control within rows (quad_perm,
/// row_shl/shr/ror, row_mirror, row_half_mirror, row_newbcast/row_share,
/// row_xmask)? The other codes are GFX9's whole-wave controls or reserved.
pub(crate) fn row_control(d: &Dpp) -> bool {
    d.dpp8.is_some()
        || matches!(d.ctrl, 0..=0xFF | 0x101..=0x10F | 0x111..=0x11F | 0x121..=0x12F | 0x140 | 0x141 | 0x150..=0x16F)
}

/// Source lane (0..63) of wave lane `lane` for a GFX9 whole-wave control, or
/// None when there is none (shifted out, or a row that takes no broadcast).
fn wave_source(ctrl: u16, lane: usize) -> Option<usize> {
    match ctrl {
        0x130 => (lane < 63).then_some(lane + 1),
        0x134 => Some((lane + 1) % 64),
        0x138 => lane.checked_sub(1),
        0x13C => Some((lane + 63) % 64),
        // Lane 15 of each row to the next row.
        0x142 => (lane >= 16).then(|| (lane & !15) - 1),
        // Lane 31 to rows 2 and 3.
        0x143 => (lane >= 32).then_some(31),
        _ => None,
    }
}

/// Is `ctrl` one of GFX9's whole-wave controls?
fn is_wave_control(ctrl: u16) -> bool {
    matches!(ctrl, 0x130 | 0x134 | 0x138 | 0x13C | 0x142 | 0x143)
}

/// Execute `i` through its DPP lane permutation `d`; `plain` executes the
/// plain form (step.rs's `step_plain`).
pub(crate) fn step_dpp(
    w: &mut Wave,
    env: &mut Env,
    i: &Inst,
    d: &Dpp,
    plain: impl Fn(&mut Wave, &mut Env, &Inst) -> ExecResult,
) -> ExecResult {
    let reg = match i.src[0].src {
        Src::DppRow => (i.src[0].code - 256) as usize,
        _ => return Err(illegal(i)),
    };
    // A 64-bit src0 (the DP ALU ops of gfx90a and gfx942) comes only with
    // row_newbcast:n: llvm-mc-19 refuses every other control on them ("DP
    // ALU dpp only supports row_newbcast"); exec_form.rs refuses those words
    // by name, and the gfx11 decoder refuses DPP on 64-bit ops.
    let wide = i.widths[1] >= 2;
    if wide && (d.dpp8.is_some() || !matches!(d.ctrl, 0x150..=0x15F)) {
        return Err(illegal(i));
    }
    let whole_wave = d.dpp8.is_none() && is_wave_control(d.ctrl);
    if !(whole_wave || row_control(d)) {
        return Err(illegal(i));
    }
    let row = w.vgpr[reg];
    let exec = w.exec();
    if whole_wave {
        return step_wave_control(w, env, i, d, reg, plain);
    }
    // The high dwords of a 64-bit src0, in register reg + 1 (wrapping as
    // `Wave::vgpr64` does).
    let row_hi = if wide {
        w.vgpr[(reg + 1) & (NUM_VGPRS - 1)]
    } else {
        [0; LANES]
    };
    let mut out = [0u32; LANES];
    let mut out_hi = [0u32; LANES];
    let mut enable = 0u32;
    for l in 0..LANES {
        let src = match lane_source(d, l, w.half) {
            LaneSource::Masked => continue,
            LaneSource::Lane(s) => Some(s),
            LaneSource::Outside => None,
        };
        match src {
            Some(s) if d.fi || exec >> s & 1 != 0 => {
                out[l] = row[s];
                out_hi[l] = row_hi[s];
                enable |= 1 << l;
            }
            _ if d.bound_ctrl => enable |= 1 << l,
            _ => {}
        }
    }
    w.dpp_row = out;
    if wide {
        w.dpp_row_hi = out_hi;
    }
    w.sgpr[EXEC + w.half] = exec & enable;
    let r = plain(w, env, i);
    // A v_cmpx_*_dpp result stays in EXEC; otherwise EXEC is restored.
    if !i.op.name().starts_with("v_cmpx") || r.is_err() {
        w.sgpr[EXEC + w.half] = exec;
    }
    r
}

/// [`step_dpp`] for a GFX9 whole-wave control (wave64 only: GFX9 has no wave32).
fn step_wave_control(
    w: &mut Wave,
    env: &mut Env,
    i: &Inst,
    d: &Dpp,
    reg: usize,
    plain: impl Fn(&mut Wave, &mut Env, &Inst) -> ExecResult,
) -> ExecResult {
    if !w.wave64 {
        return Err(illegal(i));
    }
    let half = w.half;
    let here = w.vgpr[reg];
    // The other half's src0 row as it was before this instruction: the high
    // half is untouched during the low pass; the low half was kept then.
    let other = if half == 0 {
        w.dpp_low = here;
        w.vgpr_hi[reg]
    } else {
        w.dpp_low
    };
    let exec = w.exec();
    let other_exec = w.sgpr[EXEC + (1 - half)];
    let mut out = [0u32; LANES];
    let mut enable = 0u32;
    for l in 0..LANES {
        let lane = l + LANES * half;
        let row_on = (d.row_mask >> (lane / 16)) & 1 != 0;
        let bank_on = (d.bank_mask >> ((lane >> 2) & 3)) & 1 != 0;
        if !(row_on && bank_on) {
            continue;
        }
        let src = wave_source(d.ctrl, lane).map(|s| {
            if s / LANES == half {
                (here[s % LANES], exec >> (s % LANES) & 1 != 0)
            } else {
                (other[s % LANES], other_exec >> (s % LANES) & 1 != 0)
            }
        });
        match src {
            Some((v, true)) => {
                out[l] = v;
                enable |= 1 << l;
            }
            _ if d.bound_ctrl => enable |= 1 << l,
            _ => {}
        }
    }
    w.dpp_row = out;
    w.sgpr[EXEC + half] = exec & enable;
    let r = plain(w, env, i);
    w.sgpr[EXEC + half] = exec;
    r
}
