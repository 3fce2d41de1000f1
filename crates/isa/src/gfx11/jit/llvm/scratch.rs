//! SCRATCH dword loads and stores (`Fast::Scratch`) inline, in the wave's
//! slot of the workgroup's scratch.
//!
//! The interpreter's form (exec/vmem/fast_scratch.rs `run_n`) takes each
//! lane's address in its private segment (`scratch_uniform`: the `saddr`
//! SGPR plus the offset, plus the lane's VGPR in SVE mode, modulo 2^32;
//! inactive lanes 0) and goes ahead only when some lane is active, every
//! active address is dword-aligned and every active lane's bytes fit its
//! `scratch_per_lane`, in a slot the buffer holds (`slot_base`, taken into
//! the frame). Lane `l`'s byte `b` lies at `(b & !3) * 32 + 4 * l + b % 4`
//! of the slot (private_layout.rs; a wave64 wave's rows hold 64 lanes,
//! its high half's slot starting 128 bytes into the low one's, and each
//! half runs this with its own slot: llvm/wave64.rs), so lanes never share
//! a byte:
//! - every active lane at one address (ST mode always, and the spills and
//!   reloads of SVE mode): dword `k` of the lanes is the row of 32 dwords
//!   at `(addr + 4 * k) * 32`, loaded or stored as one vector, inactive
//!   lanes keeping their memory (`keep_inactive`);
//! - otherwise each dword is gathered or scattered under EXEC.
//!
//! Anything else runs the entry through the call-out on a side path, where
//! the interpreter declines to `step` and reports the fault. Private
//! accesses record nothing for strict coherence, and an observed dispatch
//! runs no translation (dispatch.rs), so the side path is all there is.
//!
//! Why: spills, reloads and private arrays were call-outs, so the corpus's
//! private-memory kernels (private_sort, private_histogram, spill_vgpr)
//! stayed in the interpreter.

use super::super::abi::{FRAME_SCRATCH, FRAME_SCRATCH_HI, FRAME_SCRATCH_PER_LANE};
use super::emit::{Fx, M, V};
use super::footprint::Footprint;
use super::global::lane_steps;
use crate::gfx11::exec::vmem::fast_scratch::Scratch;
use crate::gfx11::wave::{EXEC, NULL};

/// The intrinsics this file's code adds to emit.rs `DECLARATIONS`.
pub(crate) const DECLARATIONS: &str = "\
declare i32 @llvm.vector.reduce.or.v32i32(<32 x i32>)
declare i32 @llvm.vector.reduce.umin.v32i32(<32 x i32>)
";

impl Fx {
    /// Entry `k`, the SCRATCH access `s`, leaving with `stop` if its
    /// call-out does not flow on; `fp` is its footprint.
    pub(super) fn scratch(&mut self, s: &Scratch, k: u32, stop: u32, fp: &Footprint) {
        let n = s.dwords as usize;
        let size = 4 * n as u64;
        let regs: Vec<u8> = (0..n).map(|j| s.reg.wrapping_add(j as u8)).collect();
        // Everything the in-range path uses is read before the first
        // branch, so every path and the join see the same values.
        let data: Vec<String> = regs.iter().map(|&r| self.row(r)).collect();
        let m = self.exec_mask();
        let exec = self.sgpr(self.word(EXEC as u8));
        let (base, per) = self.scratch_slot();
        let uniform = if s.saddr as usize != NULL {
            self.sgpr(s.saddr)
        } else {
            "0".to_owned()
        };
        let uniform = self.ins(format!("add i32 {uniform}, {}", s.imm));
        // The active lanes' addresses (inactive 0), their OR and maximum,
        // and whether they are all one address.
        let (active, or, high, same) = match s.vaddr {
            None => (
                String::new(),
                uniform.clone(),
                uniform.clone(),
                "true".to_owned(),
            ),
            Some(v) => {
                let row = self.row(v);
                let u = self.splat_value(&uniform);
                let at = self.ins(format!("add {V} {row}, {u}"));
                let active = self.zero_inactive(V, &at);
                let or = self.ins(format!(
                    "call i32 @llvm.vector.reduce.or.v32i32({V} {active})"
                ));
                let high = self.ins(format!(
                    "call i32 @llvm.vector.reduce.umax.v32i32({V} {active})"
                ));
                let low = self.ins(format!("select {M} {m}, {V} {at}, {V} splat (i32 -1)"));
                let low = self.ins(format!(
                    "call i32 @llvm.vector.reduce.umin.v32i32({V} {low})"
                ));
                let same = self.ins(format!("icmp eq i32 {low}, {high}"));
                (active, or, high, same)
            }
        };
        let low_bits = self.ins(format!("and i32 {or}, 3"));
        let aligned = self.ins(format!("icmp eq i32 {low_bits}, 0"));
        let top = self.ins(format!("zext i32 {high} to i64"));
        let end = self.ins(format!("add i64 {top}, {size}"));
        let fits = self.ins(format!("icmp ule i64 {end}, {per}"));
        let ok = self.ins(format!("and i1 {aligned}, {fits}"));
        let ok = self.ins(format!("call i1 @llvm.expect.i1(i1 {ok}, i1 true)"));
        let (fast, rows, lanes, moved, slow, join) = (
            self.label(),
            self.label(),
            self.label(),
            self.label(),
            self.label(),
            self.label(),
        );
        let none = self.unless_no_lane(&exec);
        self.line(format!("br i1 {ok}, label %{fast}, label %{slow}"));

        self.start(&fast);
        self.line(format!("br i1 {same}, label %{rows}, label %{lanes}"));

        self.start(&rows);
        let whole = self.scratch_rows(s, &base, &top, &m, &data);
        self.line(format!("br label %{moved}"));
        let rows_end = self.current();

        self.start(&lanes);
        let spread = if active.is_empty() {
            // ST mode never gets here: its lanes share one address.
            self.line("unreachable");
            Vec::new()
        } else {
            let spread = self.scratch_lanes(s, &base, &active, &m, &data);
            self.line(format!("br label %{moved}"));
            spread
        };
        let lanes_end = self.current();

        self.start(&none);
        self.line(format!("br label %{moved}"));

        self.start(&moved);
        let loaded: Vec<String> = whole
            .iter()
            .enumerate()
            .map(|(j, w)| match spread.get(j) {
                Some(l) => self.ins(format!(
                    "phi {V} [ {w}, %{rows_end} ], [ {l}, %{lanes_end} ], [ {}, %{none} ]",
                    data[j]
                )),
                None => self.ins(format!(
                    "phi {V} [ {w}, %{rows_end} ], [ {}, %{none} ]",
                    data[j]
                )),
            })
            .collect();
        self.line(format!("br label %{join}"));
        let fast_end = self.current();

        self.start(&slow);
        let writes = if s.store { Vec::new() } else { regs.clone() };
        let (reloaded, _) = self.callout_side(k, stop, fp, &writes, &[]);
        self.line(format!("br label %{join}"));
        let slow_end = self.current();

        self.start(&join);
        self.merge_rows(&writes, (&loaded, &fast_end), (&reloaded, &slow_end));
    }

    /// The frame's scratch slot of the half being emitted: its base
    /// pointer and the lanes' private bytes (an i64; 0 when no inline
    /// access may go ahead, abi.rs).
    fn scratch_slot(&mut self) -> (String, String) {
        let slot = if self.half == 0 {
            FRAME_SCRATCH
        } else {
            FRAME_SCRATCH_HI
        };
        let p = self.field(slot);
        let base = self.ins(format!("load ptr, ptr {p}, align 8"));
        let p = self.field(FRAME_SCRATCH_PER_LANE);
        let per = self.ins(format!("load i64, ptr {p}, align 8"));
        (base, per)
    }

    /// Lanes per row of private memory (private_layout.rs `lane_byte`): a
    /// wave64 wave's two halves interleave, 32 dwords of each per row.
    fn private_row_lanes(&self) -> u64 {
        if self.wave64 { 64 } else { 32 }
    }

    /// Every active lane at address `addr` (an i64): dword `j` is the row
    /// at `(addr + 4 * j) * R` (R lanes per row: `private_row_lanes`). A
    /// load's new rows (blended under EXEC), or the stores with the
    /// inactive lanes' memory kept.
    fn scratch_rows(
        &mut self,
        s: &Scratch,
        base: &str,
        addr: &str,
        m: &str,
        data: &[String],
    ) -> Vec<String> {
        let lanes = self.private_row_lanes();
        let start = self.ins(format!("mul i64 {addr}, {lanes}"));
        let mut loaded = Vec::new();
        for (j, row) in data.iter().enumerate() {
            let at = self.ins(format!("add i64 {start}, {}", 4 * lanes * j as u64));
            let p = self.ins(format!("getelementptr i8, ptr {base}, i64 {at}"));
            let mem = self.ins(format!("load {V}, ptr {p}, align 1"));
            if s.store {
                let kept = self.ins(format!("select {M} {m}, {V} {row}, {V} {mem}"));
                self.line(format!("store {V} {kept}, ptr {p}, align 1"));
            } else {
                loaded.push(self.ins(format!("select {M} {m}, {V} {mem}, {V} {row}")));
            }
        }
        loaded
    }

    /// The active lanes at addresses `active`: lane `l`'s dword `j` at
    /// `(active[l] + 4 * j) * R + 4 * l` (R: `private_row_lanes`), gathered
    /// (a load's new rows, blended under EXEC) or scattered.
    fn scratch_lanes(
        &mut self,
        s: &Scratch,
        base: &str,
        active: &str,
        m: &str,
        data: &[String],
    ) -> Vec<String> {
        let wide = self.ins(format!("zext {V} {active} to <32 x i64>"));
        let lanes = self.private_row_lanes();
        let rows = self.ins(format!("mul <32 x i64> {wide}, splat (i64 {lanes})"));
        let at = self.ins(format!("add <32 x i64> {rows}, {}", lane_steps(64, 4)));
        let ptrs = self.ins(format!("getelementptr i8, ptr {base}, <32 x i64> {at}"));
        let mut loaded = Vec::new();
        for (j, row) in data.iter().enumerate() {
            let p = self.ins(format!(
                "getelementptr i8, <32 x ptr> {ptrs}, i64 {}",
                4 * lanes * j as u64
            ));
            if s.store {
                self.line(format!(
                    "call void @llvm.masked.scatter.v32i32.v32p0({V} {row}, <32 x ptr> {p}, \
                     i32 1, {M} {m})"
                ));
            } else {
                loaded.push(self.ins(format!(
                    "call {V} @llvm.masked.gather.v32i32.v32p0(<32 x ptr> {p}, i32 1, \
                     {M} {m}, {V} {row})"
                )));
            }
        }
        loaded
    }
}
