//! DPP16 and DPP8 instructions of wave32 waves inline: the permuted src0
//! row is one constant shufflevector, then the instruction runs as its
//! plain form.
//!
//! The interpreter (exec/valu/dpp.rs `step_dpp`) builds the permuted row
//! lane by lane: a lane whose row or bank is masked off is not written; a
//! lane reading lane `s` gets `s`'s src0 when `s` is active or with
//! fetch-inactive (fi), else 0, and is written when it got a value or with
//! bound_ctrl; a lane whose source lies outside its row reads 0 and is
//! written only with bound_ctrl. Then the plain VOP1/VOP2/VOPC/VOP3 form
//! runs with EXEC narrowed to the written lanes, and EXEC is restored. The
//! lane map (`lane_source`, shared with the interpreter) depends only on the
//! controls, so here the row is one shufflevector of src0 and zero, the
//! lanes that got a value one shufflevector of EXEC's lane mask, and the
//! plain form is the pre-resolved form (exec/fast `compile`) of the same
//! instruction without DPP, reading a VGPR the instruction does not name
//! whose row stands for the permuted one (`Fx::with_stand_ins`).
//!
//! Left as call-outs: wave64 waves (GFX9's whole-wave controls, a row mask
//! per half), a 64-bit src0 (GFX9's DP ALU ops), v_cmpx (its result stays
//! in EXEC), and plain forms without a pre-resolved form.
//!
//! Why: DPP row reductions and scans (`row_shr`, `row_bcast`, `quad_perm`)
//! as call-outs kept whole blocks of reduction kernels in the interpreter.

use std::fmt::Write;

use super::emit::{Fx, M, V};
use crate::gfx11::code_cache::{Block, Compiled};
use crate::gfx11::exec::fast::{Fast, compile};
use crate::gfx11::exec::valu::dpp::{LaneSource, lane_source, row_control};
use crate::gfx11::inst::{Inst, Operand, Src};
use crate::gfx11::wave::{EXEC, LANES};

/// Does `i` name VGPR `t` (as a destination or source of up to four
/// dwords)?
fn names(i: &Inst, t: u8) -> bool {
    let near = |n: u16| (n..n + 4).contains(&u16::from(t));
    let vgpr_dst = i.dst < 256 && near(i.dst);
    vgpr_dst
        || i.src.iter().any(|o| match o.src {
            Src::Vgpr(n) => near(u16::from(n)),
            Src::DppRow => near(o.code - 256),
            _ => false,
        })
}

impl Fx {
    /// Entry `c` of `block`, a DPP instruction, inline; false (nothing
    /// that matters emitted) if it must be a call-out.
    pub(super) fn dpp(&mut self, block: &Block, c: &Compiled) -> bool {
        let i = &block.insts[c.index as usize];
        let Some(d) = i.dpp else {
            return false;
        };
        if self.wave64
            || i.src[0].src != Src::DppRow
            || i.widths[1] >= 2
            || !row_control(&d)
            || i.op.name().starts_with("v_cmpx")
        {
            return false;
        }
        let Some(stand_in) = (0..=255u8).rev().find(|&t| !names(i, t)) else {
            return false;
        };
        let mut plain = i.clone();
        plain.dpp = None;
        plain.src[0] = Operand {
            code: 256 + u16::from(stand_in),
            src: Src::Vgpr(stand_in),
        };
        let fast = compile(&plain, block.start + u64::from(c.offset));
        // A Slow entry is emitted from `block.insts`, which holds the DPP
        // instruction, not `plain`.
        if matches!(fast, Fast::Slow) {
            return false;
        }
        let reg = (i.src[0].code - 256) as u8;
        let (mut sel, mut got, mut bound) = (String::new(), 0u32, 0u32);
        for l in 0..LANES {
            let s = match lane_source(&d, l, 0) {
                LaneSource::Lane(s) => {
                    got |= 1 << l;
                    s
                }
                // The first lane of the zero operand.
                LaneSource::Masked | LaneSource::Outside => LANES,
            };
            if d.bound_ctrl && lane_source(&d, l, 0) != LaneSource::Masked {
                bound |= 1 << l;
            }
            let _ = write!(sel, "{}i32 {s}", if l == 0 { "" } else { ", " });
        }
        let src0 = self.row(reg);
        let moved = self.ins(format!(
            "shufflevector {V} {src0}, {V} zeroinitializer, <32 x i32> <{sel}>"
        ));
        let exec = self.sgpr(EXEC as u8);
        // The lanes that got a value: with fi every lane with a source, else
        // those whose source lane is active.
        let (row, fetched) = if d.fi {
            (moved, format!("{}", got as i32))
        } else {
            let m = self.exec_mask();
            let active = self.ins(format!(
                "shufflevector {M} {m}, {M} zeroinitializer, <32 x i32> <{sel}>"
            ));
            let row = self.ins(format!(
                "select {M} {active}, {V} {moved}, {V} zeroinitializer"
            ));
            (row, self.ins(format!("bitcast {M} {active} to i32")))
        };
        let written = self.ins(format!("or i32 {fetched}, {}", bound as i32));
        let narrowed = self.ins(format!("and i32 {exec}, {written}"));
        let entry = Compiled { fast, ..*c };
        self.with_stand_ins(stand_in, row, narrowed, |fx| fx.entry(block, &entry))
    }
}
