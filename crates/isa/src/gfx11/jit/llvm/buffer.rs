//! gfx11 MUBUF loads and stores of raw bytes without an index
//! (exec/vmem/mubuf.rs `RawBuffer`) inline, as GLOBAL accesses from one
//! 64-bit base (global.rs `span_access`).
//!
//! The interpreter (mubuf.rs `mubuf`) reads the buffer resource from four
//! SGPRs at run time, refuses a swizzled one, and addresses lane `l` at
//! `base + soffset + index * stride + offset`, where without idxen `index`
//! is 0 (or the lane id with add_tid) and `offset` is the instruction's
//! offset plus, with offen, the lane's VGPR; each lane is range checked by
//! the resource's oob_select (`in_range`): out of range, a load returns 0
//! and a store is dropped. Its `spanned` path then translates the span of
//! the in-range lanes once through the span cache and moves the bytes in
//! lane order, as GLOBAL's fast form does. The translation reads the same
//! four SGPRs and goes inline where the resource has no swizzle and no
//! add_tid and every active lane is wholly in range: then the access is
//! GLOBAL's, from the base `base + soffset + offset` and each lane's
//! 32-bit VGPR (0 without offen), with the same span, tally and lane
//! order. Anything else (a swizzled resource even with no active lane,
//! add_tid, a lane out of range) runs the entry through the call-out, where
//! the interpreter zeroes, drops or refuses. A wave64 wave's access runs
//! pass by pass (wave64.rs `classify`), each half from its own rows and
//! EXEC word, as the interpreter runs it.
//!
//! With every lane at index 0, the range checks (RDNA3 ISA guide, "Buffer
//! range checking") come down to one bound on the highest active lane's
//! end, `offset + size`: oob_select 0 needs `num_records > 0` and the end
//! within `stride`, 1 and 2 `num_records > 0`, 3 the end within
//! `num_records`.
//!
//! Why: asm_mubuf (a raw buffer load and store per lane) ran at 1.05-1.13x
//! the interpreter's speed, both engines spending half their time in the
//! interpreter's general MUBUF path; inline, 1.96-2.01x (two cores, `cargo
//! bench --bench corpus -- --settle --batches 5 --only asm_mubuf`).

use super::emit::Fx;
use super::footprint::Footprint;
use crate::gfx11::exec::vmem::mubuf::{RawBuffer, SOffset};

impl Fx {
    /// Entry `k`, the raw buffer access `b`, leaving with `stop` if its
    /// call-out does not flow on; `fp` is its footprint.
    pub(super) fn raw_buffer(&mut self, b: &RawBuffer, k: u32, stop: u32, fp: &Footprint) {
        let c = &b.access;
        let (data, m, exec) = self.access_inputs(c);
        let [d0, d1, d2, d3] = [0, 1, 2, 3].map(|j| self.sgpr(b.srsrc.wrapping_add(j)));
        let soffset = match b.soffset {
            SOffset::Sgpr(r) => {
                let s = self.sgpr(r);
                self.ins(format!("zext i32 {s} to i64"))
            }
            SOffset::Const(v) => format!("{}", v as i64),
        };
        // No swizzle (d1[31:30]) and no add_tid (d3[23]).
        let swizzle = self.ins(format!("and i32 {d1}, {}", 3u32 << 30));
        let add_tid = self.ins(format!("and i32 {d3}, {}", 1u32 << 23));
        let plain = self.ins(format!("or i32 {swizzle}, {add_tid}"));
        let plain = self.ins(format!("icmp eq i32 {plain}, 0"));
        // The base: d0 | d1[15:0] << 32, plus soffset and the offset.
        let low = self.ins(format!("zext i32 {d0} to i64"));
        let high = self.ins(format!("and i32 {d1}, 65535"));
        let high = self.ins(format!("zext i32 {high} to i64"));
        let high = self.ins(format!("shl i64 {high}, 32"));
        let base = self.ins(format!("or i64 {high}, {low}"));
        let base = self.ins(format!("add i64 {base}, {soffset}"));
        let base = self.ins(format!("add i64 {base}, {}", b.imm as i64));
        let offs = if b.offen {
            self.row(c.addr)
        } else {
            "zeroinitializer".to_owned()
        };
        let at = self.span_from(&base, offs, "true", c.size as u64);
        // The highest active lane's end: offset + size, in 64 bits.
        let most = self.ins(format!("zext i32 {} to i64", at.most));
        let end = self.ins(format!("add i64 {most}, {}", b.imm as i64 + c.size as i64));
        let records = self.ins(format!("zext i32 {d2} to i64"));
        let stride = self.ins(format!("lshr i32 {d1}, 16"));
        let stride = self.ins(format!("and i32 {stride}, 16383"));
        let stride = self.ins(format!("zext i32 {stride} to i64"));
        let some = self.ins(format!("icmp ne i64 {records}, 0"));
        let in_stride = self.ins(format!("icmp ule i64 {end}, {stride}"));
        let structured = self.ins(format!("and i1 {some}, {in_stride}"));
        let raw = self.ins(format!("icmp ule i64 {end}, {records}"));
        let oob = self.ins(format!("lshr i32 {d3}, 28"));
        let oob = self.ins(format!("and i32 {oob}, 3"));
        let [is0, is3] = [0, 3].map(|v| self.ins(format!("icmp eq i32 {oob}, {v}")));
        let in_range = self.ins(format!("select i1 {is3}, i1 {raw}, i1 {some}"));
        let in_range = self.ins(format!("select i1 {is0}, i1 {structured}, i1 {in_range}"));
        self.span_access(
            c,
            &data,
            (&m, &exec),
            &at,
            (Some(&plain), &in_range),
            (k, stop, fp),
        );
    }
}
