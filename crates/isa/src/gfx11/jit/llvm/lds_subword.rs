//! The 8- and 16-bit DS loads and stores (`Fast::DsSubword`) inline, on
//! the workgroup's LDS through the frame's pointer.
//!
//! The interpreter's form (exec/lds_subword.rs `ds_subword_in_range`)
//! runs when the highest active address plus the offset and the size lies
//! inside the allocation; the translation makes the same check on the
//! same values and, when it passes, gathers each active lane's byte or
//! halfword (`llvm.masked.gather`), extends it and places it in the whole
//! destination or one half of it, or scatters the data's low or high bits
//! (`llvm.masked.scatter`, which writes overlapping lanes from the lowest
//! to the highest: LLVM LangRef, "llvm.masked.scatter", so the highest
//! lane wins as in the interpreter's lane loop; global.rs declares both). When the check
//! fails, or no lane is active, the entry runs through the call-out on a
//! side path. The frame's LDS length is 0 in a dispatch that counts bank
//! conflicts (abi.rs), so there every access takes the call-out; neither
//! engine counts conflicts for these widths (lds.rs counts the dword
//! forms alone).

use super::emit::{Fx, M, V, splat};
use super::footprint::Footprint;
use crate::gfx11::exec::lds_subword::DsSubword;

impl Fx {
    /// Entry `k`, the subword DS access `d`, leaving with `stop` if its
    /// call-out does not flow on; `fp` is its call-out footprint.
    pub(super) fn ds_subword(&mut self, d: &DsSubword, k: u32, stop: u32, fp: &Footprint) {
        // Everything the inline path uses is read before the branch, so
        // both paths see the same values.
        let addr = self.row(d.addr);
        let reg = self.row(d.reg);
        let m = self.exec_mask();
        let (lds, len) = self.lds();
        let active = self.zero_inactive(V, &addr);
        let high = self.ins(format!(
            "call i32 @llvm.vector.reduce.umax.v32i32({V} {active})"
        ));
        let high = self.ins(format!("zext i32 {high} to i64"));
        let end = self.ins(format!("add i64 {high}, {}", d.offset + u32::from(d.bytes)));
        let outside = self.ins(format!("icmp ugt i64 {end}, {len}"));
        let mask = self.ins(format!("bitcast {M} {m} to i32"));
        let none = self.ins(format!("icmp eq i32 {mask}, 0"));
        let rare = self.ins(format!("or i1 {outside}, {none}"));
        let rows: &[u8] = if d.load { &[d.reg] } else { &[] };
        self.inline_unless(&rare, (k, stop, fp), rows, &[], |fx| {
            // The highest active address plus the offset is inside the
            // LDS (below 2^32), so no active lane's sum wraps.
            let at = fx.ins(format!("add nuw {V} {active}, {}", splat(d.offset)));
            let ptrs = fx.ins(format!("getelementptr i8, ptr {lds}, {V} {at}"));
            let t = if d.bytes == 1 { "i8" } else { "i16" };
            let narrow = format!("<32 x {t}>");
            if d.load {
                let got = fx.ins(format!(
                    "call {narrow} @llvm.masked.gather.v32{t}.v32p0(<32 x ptr> {ptrs}, i32 1, \
                     {M} {m}, {narrow} zeroinitializer)"
                ));
                let ext = if d.signed { "sext" } else { "zext" };
                let v = fx.ins(format!("{ext} {narrow} {got} to {V}"));
                let placed = match d.d16 {
                    1 => {
                        let low = fx.ins(format!("and {V} {v}, {}", splat(0xFFFF)));
                        let kept = fx.ins(format!("and {V} {reg}, {}", splat(0xFFFF_0000)));
                        fx.ins(format!("or {V} {kept}, {low}"))
                    }
                    2 => {
                        let high = fx.ins(format!("shl {V} {v}, {}", splat(16)));
                        let kept = fx.ins(format!("and {V} {reg}, {}", splat(0xFFFF)));
                        fx.ins(format!("or {V} {kept}, {high}"))
                    }
                    _ => v,
                };
                let new = fx.ins(format!("select {M} {m}, {V} {placed}, {V} {reg}"));
                fx.set_row_whole(d.reg, new);
            } else {
                let data = if d.d16 == 2 {
                    fx.ins(format!("lshr {V} {reg}, {}", splat(16)))
                } else {
                    reg.clone()
                };
                let data = fx.ins(format!("trunc {V} {data} to {narrow}"));
                fx.line(format!(
                    "call void @llvm.masked.scatter.v32{t}.v32p0({narrow} {data}, <32 x ptr> \
                     {ptrs}, i32 1, {M} {m})"
                ));
            }
        });
    }
}
