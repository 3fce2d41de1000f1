//! The single-lane forms inline: v_readlane_b32 (`Fast::Readlane`),
//! v_writelane_b32 and v_readfirstlane_b32 (`Fast::Lane`), in wave32 and
//! wave64.
//!
//! Each restates the interpreter's pre-resolved form on SSA values: the
//! lane index is the scalar source modulo the wave size (exec/fast/lanes.rs
//! and exec/fast/wave64.rs for readlane, exec/valu/fast_lanes.rs `run` for
//! the other two), a wave64 lane from 32 up lies in the high half's row,
//! writelane writes its lane whatever EXEC is, and readfirstlane reads
//! EXEC's lowest lane, lane 0 when EXEC is empty. In a wave64 list they
//! are emitted once (`wave64.rs`), like scalar work, since they read or
//! write one lane of one half.
//!
//! Why: compilers' wave-level reductions and atomic optimizations loop
//! over the active lanes with s_ctz, v_readlane and v_writelane; as
//! call-outs they kept those loops, and the atomics kernels around them,
//! in the interpreter.

use super::emit::{Fx, V};
use crate::gfx11::exec::operand::{SSrc, VSrc};
use crate::gfx11::wave::EXEC;

impl Fx {
    /// v_readlane_b32: SGPR `dst` = lane `lane` (modulo the wave size) of `a`.
    pub(super) fn readlane(&mut self, dst: u8, a: VSrc, lane: SSrc) {
        let l = self.sread(lane);
        let v = self.lane_of(a, &l);
        self.set_sgpr(dst, v);
    }

    /// v_readfirstlane_b32: SGPR `dst` = `a` in EXEC's lowest lane (lane 0
    /// when EXEC is empty).
    pub(super) fn readfirstlane(&mut self, dst: u8, a: VSrc) {
        let l = if self.wave64 {
            // cttz of the pair is 64 when it is empty; modulo 64 that is 0.
            let pair = self.sgpr_pair(EXEC as u8);
            let t = self.ins(format!("call i64 @llvm.cttz.i64(i64 {pair}, i1 false)"));
            self.ins(format!("trunc i64 {t} to i32"))
        } else {
            // 32 when EXEC is empty; modulo 32 that is 0.
            self.first_active_lane()
        };
        let v = self.lane_of(a, &l);
        self.set_sgpr(dst, v);
    }

    /// v_writelane_b32: lane `lane` (modulo the wave size) of VGPR `dst` =
    /// `val`, whatever EXEC is.
    pub(super) fn writelane(&mut self, dst: u8, val: SSrc, lane: SSrc) {
        let v = self.sread(val);
        let l = self.sread(lane);
        let i = self.ins(format!("and i32 {l}, 31"));
        if !self.wave64 {
            let row = self.half_row(0, dst);
            let n = self.ins(format!("insertelement {V} {row}, i32 {v}, i32 {i}"));
            self.set_half_row(0, dst, n);
            return;
        }
        let high = self.ins(format!("and i32 {l}, 32"));
        for half in 0..2u8 {
            let row = self.half_row(half, dst);
            let n = self.ins(format!("insertelement {V} {row}, i32 {v}, i32 {i}"));
            let cc = if half == 0 { "eq" } else { "ne" };
            let hit = self.ins(format!("icmp {cc} i32 {high}, 0"));
            let r = self.ins(format!("select i1 {hit}, {V} {n}, {V} {row}"));
            self.set_half_row(half, dst, r);
        }
    }

    /// Source `a` in lane `l` (an i32, taken modulo the wave size): a
    /// VGPR's lane, or the uniform value of an SGPR or constant.
    fn lane_of(&mut self, a: VSrc, l: &str) -> String {
        let r = match a {
            VSrc::Vgpr(r) => r,
            VSrc::Sgpr(r) => return self.sgpr(r),
            VSrc::Imm(v) => return format!("{}", v as i32),
        };
        let i = self.ins(format!("and i32 {l}, 31"));
        let low = self.half_row(0, r);
        let x = self.ins(format!("extractelement {V} {low}, i32 {i}"));
        if !self.wave64 {
            return x;
        }
        let hi_row = self.half_row(1, r);
        let y = self.ins(format!("extractelement {V} {hi_row}, i32 {i}"));
        let high = self.ins(format!("and i32 {l}, 32"));
        let up = self.ins(format!("icmp ne i32 {high}, 0"));
        self.ins(format!("select i1 {up}, i32 {y}, i32 {x}"))
    }
}
