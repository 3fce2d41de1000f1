//! The dword DS loads and stores (`Fast::Ds`: b32 to b128, the
//! two-address and stride64 forms) inline, on the workgroup's LDS through
//! the frame's pointer.
//!
//! The interpreter's in-range path (exec/lds.rs `ds_in_range`) decides
//! with one check whether every active lane's access lies inside the
//! allocation: the highest active address plus the furthest offset and
//! element. The translation makes the same check on the same values; when
//! it passes it does what that path does, and when it fails (a lane past
//! the end, where the per-lane path reads 0 and drops writes) the entry
//! runs through the call-out on a side path, which then does what the
//! interpreter does. The frame's LDS length is 0 in a dispatch that counts
//! bank conflicts (abi.rs), so every access there takes the call-out, which
//! counts them.
//!
//! In range:
//! - a load gathers each destination row's dwords from the active lanes'
//!   addresses (`llvm.masked.gather`; inactive lanes keep the row's value),
//!   after reading the address row, as `load_rows` does;
//! - a one-element single-dword store scatters
//!   (`llvm.masked.scatter`, whose overlapping lanes are written from the
//!   lowest to the highest: LLVM LangRef, "llvm.masked.scatter"), so the
//!   highest lane wins an overlap as in `store_rows`;
//! - a store of several dwords, or of two elements, goes lane by lane over
//!   the active lanes, each lane's dwords (and first element before its
//!   second) in order, as `store_rows` and `store2_rows` do: a scatter per
//!   dword would order overlapping lanes differently.
//!
//! Why: the call-out for a DS access cost more than the interpreter's own
//! step, so blocks with LDS traffic (tiles, reductions, the one-lane loops
//! of wgpu's zero-initialised workgroup memory test) stayed interpreted.

use super::emit::{Fx, LANE_ROWS, M, V, splat};
use super::footprint::{Footprint, ds_dwords, ds_rows};
use crate::gfx11::exec::lds::DsRows;
use crate::gfx11::wave::EXEC;

/// The values an in-range access works on: the LDS base, the address row
/// with inactive lanes 0, EXEC's lane mask and its bits.
struct Lanes<'a> {
    lds: &'a str,
    active: &'a str,
    m: &'a str,
    exec: &'a str,
}

/// The byte offset of dword `j` of element `e` from a lane's address.
fn offset(d: &DsRows, e: usize, j: u8) -> u32 {
    [d.o0, d.o1][e] + 4 * j as u32
}

impl Fx {
    /// Entry `k`, the dword DS access `d`, leaving with `stop` if its
    /// call-out does not flow on; `fp` is its call-out footprint.
    pub(super) fn ds(&mut self, d: &DsRows, k: u32, stop: u32, fp: &Footprint) {
        let (reads, writes) = ds_rows(d);
        // Everything the in-range path uses is read before the branch, so
        // both paths and the join see the same values.
        let addr = self.row(d.addr);
        let data: Vec<String> = reads[1..].iter().map(|&r| self.row(r)).collect();
        let old: Vec<String> = writes.iter().map(|&r| self.row(r)).collect();
        let m = self.exec_mask();
        let exec = self.sgpr(self.word(EXEC as u8));
        let (lds, len) = self.lds();
        let active = self.zero_inactive(V, &addr);
        let high = self.ins(format!(
            "call i32 @llvm.vector.reduce.umax.v32i32({V} {active})"
        ));
        let high = self.ins(format!("zext i32 {high} to i64"));
        let last = d.o0.max(d.o1) + 4 * d.n as u32;
        let end = self.ins(format!("add i64 {high}, {last}"));
        let inside = self.ins(format!("icmp ule i64 {end}, {len}"));
        let inside = self.ins(format!("call i1 @llvm.expect.i1(i1 {inside}, i1 true)"));
        let (fast, slow, join) = (self.label(), self.label(), self.label());
        self.line(format!("br i1 {inside}, label %{fast}, label %{slow}"));

        self.start(&fast);
        // One active lane (a one-invocation workgroup's wave): its address
        // is the maximum just taken, so it moves scalars instead of
        // gathering or scattering 32 lanes.
        let below = self.ins(format!("sub i32 {exec}, 1"));
        let others = self.ins(format!("and i32 {exec}, {below}"));
        let alone = self.ins(format!("icmp eq i32 {others}, 0"));
        let some = self.ins(format!("icmp ne i32 {exec}, 0"));
        let one = self.ins(format!("and i1 {alone}, {some}"));
        let (single, many, fast_join) = (self.label(), self.label(), self.label());
        self.line(format!("br i1 {one}, label %{single}, label %{many}"));
        self.start(&single);
        let lane = Lanes {
            lds: &lds,
            active: &active,
            m: &m,
            exec: &exec,
        };
        let one_lane = self.ds_one_lane(d, &lane, &high, &data, &old);
        self.line(format!("br label %{fast_join}"));
        let single_end = self.current();
        self.start(&many);
        let all_lanes = self.ds_lanes(d, &lane, &data, &old);
        self.line(format!("br label %{fast_join}"));
        let many_end = self.current();
        self.start(&fast_join);
        let loaded: Vec<String> = one_lane
            .iter()
            .zip(&all_lanes)
            .map(|(a, b)| {
                self.ins(format!(
                    "phi {V} [ {a}, %{single_end} ], [ {b}, %{many_end} ]"
                ))
            })
            .collect();
        self.line(format!("br label %{join}"));
        let fast_end = self.current();

        self.start(&slow);
        let (reloaded, _) = self.callout_side(k, stop, fp, &writes, &[]);
        self.line(format!("br label %{join}"));
        let slow_end = self.current();

        self.start(&join);
        self.merge_rows(&writes, (&loaded, &fast_end), (&reloaded, &slow_end));
    }

    /// The in-range access on the one active lane, whose address is
    /// `high`: each dword loaded into its row's lane (the loads' new rows,
    /// in `ds_rows` order) or stored, elements and dwords in order.
    fn ds_one_lane(
        &mut self,
        d: &DsRows,
        lane: &Lanes,
        high: &str,
        data: &[String],
        old: &[String],
    ) -> Vec<String> {
        let mut rows = Vec::new();
        // An element, not a reduction of the masked row (see global.rs
        // `global_one_lane`).
        let index = (!d.load).then(|| self.first_active_lane());
        for (row, (e, j)) in ds_dwords(d).enumerate() {
            let off = offset(d, e, j);
            let at = self.ins(format!("add nuw i64 {high}, {off}"));
            let p = self.ins(format!("getelementptr i8, ptr {}, i64 {at}", lane.lds));
            if d.load {
                let x = self.ins(format!("load i32, ptr {p}, align 1"));
                let all = self.splat_value(&x);
                rows.push(self.ins(format!(
                    "select {M} {}, {V} {all}, {V} {}",
                    lane.m, old[row]
                )));
            } else if let Some(index) = &index {
                let x = self.ins(format!("extractelement {V} {}, i32 {index}", data[row]));
                self.line(format!("store i32 {x}, ptr {p}, align 1"));
            }
        }
        rows
    }

    /// The in-range access on any set of lanes: a load's new rows (in
    /// `ds_rows` order) gathered, or the data stored.
    fn ds_lanes(
        &mut self,
        d: &DsRows,
        lane: &Lanes,
        data: &[String],
        old: &[String],
    ) -> Vec<String> {
        let (lds, active, m) = (lane.lds, lane.active, lane.m);
        let mut loaded = Vec::new();
        if d.load {
            for (row, (e, j)) in ds_dwords(d).enumerate() {
                let at = self.ins(format!("add nuw {V} {active}, {}", splat(offset(d, e, j))));
                let ptrs = self.ins(format!("getelementptr i8, ptr {lds}, {V} {at}"));
                loaded.push(self.ins(format!(
                    "call {V} @llvm.masked.gather.v32i32.v32p0(<32 x ptr> {ptrs}, i32 1, \
                     {M} {m}, {V} {})",
                    old[row]
                )));
            }
        } else if !d.two && d.n == 1 {
            let at = self.ins(format!("add nuw {V} {active}, {}", splat(d.o0)));
            let ptrs = self.ins(format!("getelementptr i8, ptr {lds}, {V} {at}"));
            self.line(format!(
                "call void @llvm.masked.scatter.v32i32.v32p0({V} {}, <32 x ptr> {ptrs}, \
                 i32 1, {M} {m})",
                data[0]
            ));
        } else {
            self.store_lanes(d, lane, data);
        }
        loaded
    }

    /// A store of several dwords or two elements, lane by lane over the set
    /// bits of `exec` (lowest first), each lane's elements and dwords in
    /// order (exec/lds.rs `store_rows`, `store2_rows`).
    fn store_lanes(&mut self, d: &DsRows, lane: &Lanes, data: &[String]) {
        let (lds, active, exec) = (lane.lds, lane.active, lane.exec);
        // The rows go to the stack once, as the addresses do
        // (`each_staged_lane`), and each pass loads its lane's from there.
        debug_assert!(data.len() <= LANE_ROWS, "{} dwords a lane", data.len());
        for (r, v) in data.iter().enumerate() {
            let at = self.ins(format!("getelementptr {V}, ptr %lane_rows, i64 {r}"));
            self.line(format!("store {V} {v}, ptr {at}, align 64"));
        }
        self.each_staged_lane(exec, "i32", active, |fx, l, a| {
            for (r, (e, j)) in ds_dwords(d).take(data.len()).enumerate() {
                let off = offset(d, e, j);
                let at = fx.ins(format!("add nuw i32 {a}, {off}"));
                let at = fx.ins(format!("zext i32 {at} to i64"));
                let p = fx.ins(format!("getelementptr i8, ptr {lds}, i64 {at}"));
                let k = fx.ins(format!("add i32 {l}, {}", 32 * r));
                let from = fx.ins(format!("getelementptr i32, ptr %lane_rows, i32 {k}"));
                let x = fx.ins(format!("load i32, ptr {from}, align 4"));
                fx.line(format!("store i32 {x}, ptr {p}, align 1"));
            }
        });
    }
}
