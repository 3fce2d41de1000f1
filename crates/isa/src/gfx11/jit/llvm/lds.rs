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
//! In range, when the active lanes' addresses step by one lane's bytes
//! (lane `l` at `base + l * stride`: the elements of neighbouring lanes
//! touch, none overlaps another) each element moves as one masked vector
//! load or store of all lanes' dwords, laid lane after lane: no byte is
//! written twice, so the order of the lanes cannot show (a two-element
//! store whose elements' spans may overlap takes the lane paths below).
//! Otherwise:
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
use super::global::{deinterleave, interleave, lane_steps};
use crate::gfx11::exec::lds::DsRows;
use crate::gfx11::wave::EXEC;

/// The intrinsics this file's code adds to emit.rs `DECLARATIONS`: masked
/// loads and stores of one to four dwords a lane.
pub(crate) const DECLARATIONS: &str = "\
declare <32 x i32> @llvm.masked.load.v32i32.p0(ptr, i32, <32 x i1>, <32 x i32>)
declare <64 x i32> @llvm.masked.load.v64i32.p0(ptr, i32, <64 x i1>, <64 x i32>)
declare <96 x i32> @llvm.masked.load.v96i32.p0(ptr, i32, <96 x i1>, <96 x i32>)
declare <128 x i32> @llvm.masked.load.v128i32.p0(ptr, i32, <128 x i1>, <128 x i32>)
declare void @llvm.masked.store.v32i32.p0(<32 x i32>, ptr, i32, <32 x i1>)
declare void @llvm.masked.store.v64i32.p0(<64 x i32>, ptr, i32, <64 x i1>)
declare void @llvm.masked.store.v96i32.p0(<96 x i32>, ptr, i32, <96 x i1>)
declare void @llvm.masked.store.v128i32.p0(<128 x i32>, ptr, i32, <128 x i1>)
";

/// How access `d` lies when its active lanes sit one after the other: a
/// lane's bytes (the stride from one lane's address to the next), and the
/// spans each lane's dwords fill in [`ds_dwords`] order (byte offset from
/// the lane's address, dwords). A two-element access whose second element
/// follows the first is one span of both; a two-element store whose
/// elements' spans may meet has none (lane order would show).
fn contiguous_layout(d: &DsRows) -> Option<(u32, Vec<(u32, usize)>)> {
    let n = d.n as u32;
    if !d.two {
        return Some((4 * n, vec![(d.o0, d.n as usize)]));
    }
    if d.o1 == d.o0 + 4 * n {
        return Some((8 * n, vec![(d.o0, 2 * d.n as usize)]));
    }
    if !d.load && d.o0.abs_diff(d.o1) < 32 * 4 * n {
        return None;
    }
    Some((4 * n, vec![(d.o0, d.n as usize), (d.o1, d.n as usize)]))
}

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
        let all_lanes = match contiguous_layout(d) {
            Some(layout) => self.ds_contiguous_or_lanes(d, &lane, &addr, layout, &data, &old),
            None => self.ds_lanes(d, &lane, &data, &old),
        };
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

    /// The in-range access on any set of lanes, whose addresses are `addr`:
    /// through [`Fx::ds_contiguous`] when the active lanes step by
    /// `layout`'s stride, else [`Fx::ds_lanes`]; a load's new rows (in
    /// `ds_rows` order) either way.
    fn ds_contiguous_or_lanes(
        &mut self,
        d: &DsRows,
        lane: &Lanes,
        addr: &str,
        layout: (u32, Vec<(u32, usize)>),
        data: &[String],
        old: &[String],
    ) -> Vec<String> {
        let (stride, spans) = layout;
        // Lane 0's address as the first active lane's gives it (masked to
        // a lane index: EXEC may be empty here, and every lane then passes).
        let first = self.first_active_lane();
        let first = self.ins(format!("and i32 {first}, 31"));
        let at = self.ins(format!("extractelement {V} {addr}, i32 {first}"));
        let before = self.ins(format!("mul i32 {first}, {stride}"));
        let base = self.ins(format!("sub i32 {at}, {before}"));
        let base_row = self.splat_value(&base);
        let expect = self.ins(format!(
            "add {V} {base_row}, {}",
            lane_steps(32, stride as u64)
        ));
        let same = self.ins(format!("icmp eq {V} {addr}, {expect}"));
        let idle = self.ins(format!("xor {M} {}, splat (i1 true)", lane.m));
        let held = self.ins(format!("or {M} {same}, {idle}"));
        let held = self.ins(format!("call i1 @llvm.vector.reduce.and.v32i1({M} {held})"));
        let (contiguous, scattered, moved) = (self.label(), self.label(), self.label());
        self.line(format!(
            "br i1 {held}, label %{contiguous}, label %{scattered}"
        ));

        self.start(&contiguous);
        // Every active address is below the LDS length (the range check),
        // so `at - before` is lane 0's byte offset exactly; an inactive
        // lane's place may lie outside the LDS, and no masked lane is read
        // or written.
        let at = self.ins(format!("zext i32 {at} to i64"));
        let before = self.ins(format!("zext i32 {before} to i64"));
        let offset = self.ins(format!("sub i64 {at}, {before}"));
        let lane0 = self.ins(format!("getelementptr i8, ptr {}, i64 {offset}", lane.lds));
        let whole = self.ds_contiguous(d, lane, &lane0, &spans, data, old);
        self.line(format!("br label %{moved}"));
        let contiguous_end = self.current();

        self.start(&scattered);
        let spread = self.ds_lanes(d, lane, data, old);
        self.line(format!("br label %{moved}"));
        let scattered_end = self.current();

        self.start(&moved);
        whole
            .iter()
            .zip(&spread)
            .map(|(a, b)| {
                self.ins(format!(
                    "phi {V} [ {a}, %{contiguous_end} ], [ {b}, %{scattered_end} ]"
                ))
            })
            .collect()
    }

    /// The in-range access whose active lanes lie one after the other
    /// from `lane0` (lane 0's place), each span of `spans` (offset,
    /// dwords a lane) one masked vector load or store: a load's new rows
    /// (in `ds_rows` order, inactive lanes keeping theirs).
    fn ds_contiguous(
        &mut self,
        d: &DsRows,
        lane: &Lanes,
        lane0: &str,
        spans: &[(u32, usize)],
        data: &[String],
        old: &[String],
    ) -> Vec<String> {
        let mut loaded = Vec::new();
        let mut row = 0;
        for &(off, w) in spans {
            let p = self.ins(format!("getelementptr i8, ptr {lane0}, i64 {off}"));
            let rows = if d.load {
                &old[row..row + w]
            } else {
                &data[row..row + w]
            };
            row += w;
            if w == 1 {
                if d.load {
                    loaded.push(self.ins(format!(
                        "call {V} @llvm.masked.load.v32i32.p0(ptr {p}, i32 1, {M} {}, {V} {})",
                        lane.m, rows[0]
                    )));
                } else {
                    self.line(format!(
                        "call void @llvm.masked.store.v32i32.p0({V} {}, ptr {p}, i32 1, {M} {})",
                        rows[0], lane.m
                    ));
                }
                continue;
            }
            // Each lane's `w` dwords one after the other, under a mask of
            // each lane's bit `w` times over.
            let lanes = 32 * w;
            let wide = format!("<{lanes} x i32>");
            let wm = format!("<{lanes} x i1>");
            let exec = self.ins(format!(
                "insertelement {wide} poison, i32 {}, i64 0",
                lane.exec
            ));
            let exec = self.ins(format!(
                "shufflevector {wide} {exec}, {wide} poison, {wide} zeroinitializer"
            ));
            let bits: Vec<String> = (0..lanes)
                .map(|i| format!("i32 {}", (1u32 << (i / w)) as i32))
                .collect();
            let hit = self.ins(format!("and {wide} {exec}, <{}>", bits.join(", ")));
            let mask = self.ins(format!("icmp ne {wide} {hit}, zeroinitializer"));
            let all = self.concat(rows);
            let laid = self.ins(format!(
                "shufflevector {wide} {all}, {wide} poison, {wide} {}",
                interleave(w)
            ));
            if d.load {
                let got = self.ins(format!(
                    "call {wide} @llvm.masked.load.v{lanes}i32.p0(ptr {p}, i32 1, {wm} {mask}, \
                     {wide} {laid})"
                ));
                for j in 0..w {
                    loaded.push(self.ins(format!(
                        "shufflevector {wide} {got}, {wide} poison, {V} {}",
                        deinterleave(j, w)
                    )));
                }
            } else {
                self.line(format!(
                    "call void @llvm.masked.store.v{lanes}i32.p0({wide} {laid}, ptr {p}, i32 1, \
                     {wm} {mask})"
                ));
            }
        }
        loaded
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
