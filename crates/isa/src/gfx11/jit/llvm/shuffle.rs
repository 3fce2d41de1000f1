//! ds_bpermute_b32 and ds_swizzle_b32 (`Fast::DsShuffle`) inline: lane
//! shuffles through the LDS crossbar that touch no LDS memory, within 32
//! lanes (wave32, or each half of a gfx11 wave64, wave64.rs).
//!
//! Both restate exec/lds.rs `ds_shuffle`: a lane reads the data of its
//! source lane, 0 where that lane is inactive, and the result is written
//! under EXEC. ds_swizzle's sources are fixed by its offset (quad-perm mode
//! with bit 15 set, else the and/or/xor masks within 32 lanes), so it is one
//! constant shuffle; ds_bpermute's come from each lane's address
//! (`(address + offset) / 4` modulo 32), so the active data goes to the
//! function's stack slot (`%lanes`, emit.rs) and one gather reads it back.
//! ds_permute (a scatter where the highest sender wins) and GFX9's
//! whole-wave forms stay call-outs. v_permlane16_b32 and v_permlanex16_b32
//! (without op_sel bits or modifiers) gather the same way, restating
//! valu/mod.rs: lane `l` reads lane `sel` of its own row of 16
//! (permlanex16: of the other row), `sel` the nibble of s1 (lanes 0..7 of
//! a row) or s2 (8..15) for `l`.
//!
//! Why: compilers lower subgroup shuffles (HIP's `__shfl`) to ds_bpermute;
//! as a call-out each one kept its reduction or scan block interpreted.

use super::emit::{Fx, V, splat};
use crate::gfx11::exec::lds::{DsShuffle, ShuffleKind};
use crate::gfx11::exec::operand::{SSrc, VSrc};

impl Fx {
    /// Shuffle `d` inline; false (nothing emitted) for the kinds that stay
    /// call-outs.
    pub(super) fn shuffle(&mut self, d: &DsShuffle) -> bool {
        let r = match d.kind {
            ShuffleKind::Swizzle => {
                let data = self.row(d.addr);
                let active = self.zero_inactive(V, &data);
                let pattern = d.off16 as usize;
                let picks: Vec<String> = (0..32)
                    .map(|l| {
                        let src = if pattern & 0x8000 != 0 {
                            (l & !3) | ((pattern >> (2 * (l & 3))) & 3)
                        } else {
                            let (and, or, xor) =
                                (pattern & 31, (pattern >> 5) & 31, (pattern >> 10) & 31);
                            ((l & and) | or) ^ xor
                        };
                        format!("i32 {src}")
                    })
                    .collect();
                self.ins(format!(
                    "shufflevector {V} {active}, {V} poison, <32 x i32> <{}>",
                    picks.join(", ")
                ))
            }
            ShuffleKind::Bpermute => {
                let data = self.row(d.data);
                let active = self.zero_inactive(V, &data);
                let addr = self.row(d.addr);
                let sum = self.ins(format!("add {V} {addr}, {}", splat(d.off16)));
                let index = self.ins(format!("lshr {V} {sum}, {}", splat(2)));
                let index = self.ins(format!("and {V} {index}, {}", splat(31)));
                self.gather(&active, &index)
            }
            _ => return false,
        };
        self.set_row(d.dst, r);
        true
    }

    /// v_permlane16_b32 (`cross` false) or v_permlanex16_b32 of `a` into
    /// VGPR `dst`, lane selects from `s1` and `s2`, written under EXEC.
    pub(super) fn permlane(&mut self, cross: bool, dst: u8, a: VSrc, s1: SSrc, s2: SSrc) {
        debug_assert!(!self.wave64, "wave64.rs makes v_permlane call-outs");
        let data = self.src(a);
        let (lo, hi) = (self.sread(s1), self.sread(s2));
        let (lo, hi) = (self.splat_value(&lo), self.splat_value(&hi));
        let low_half = constant("i1", |l| if l & 15 < 8 { "true" } else { "false" }.into());
        let word = self.ins(format!("select <32 x i1> {low_half}, {V} {lo}, {V} {hi}"));
        let shifts = constant("i32", |l| (4 * (l & 7)).to_string());
        let nibble = self.ins(format!("lshr {V} {word}, {shifts}"));
        let sel = self.ins(format!("and {V} {nibble}, {}", splat(15)));
        let rows = constant("i32", |l| {
            let row = l & !15;
            if cross { row ^ 16 } else { row }.to_string()
        });
        let index = self.ins(format!("add {V} {sel}, {rows}"));
        let r = self.gather(&data, &index);
        self.set_row(dst, r);
    }

    /// Lane `index[l]` (each in 0..32) of row `data` in each lane `l`:
    /// the row goes to the function's stack row and one gather reads it.
    fn gather(&mut self, data: &str, index: &str) -> String {
        self.line(format!("store {V} {data}, ptr %lanes, align 4"));
        let at = self.ins(format!("getelementptr i32, ptr %lanes, {V} {index}"));
        self.ins(format!(
            "call {V} @llvm.masked.gather.v32i32.v32p0(<32 x ptr> {at}, i32 4, \
             <32 x i1> splat (i1 true), {V} poison)"
        ))
    }
}

/// A 32-lane constant vector of element type `ty`, lane `l` written by `f`.
fn constant(ty: &str, f: impl Fn(usize) -> String) -> String {
    let lanes: Vec<String> = (0..32).map(|l| format!("{ty} {}", f(l))).collect();
    format!("<{}>", lanes.join(", "))
}
