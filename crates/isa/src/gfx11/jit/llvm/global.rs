//! Scalar loads (`Fast::SLoad`) and FLAT and GLOBAL loads and stores
//! (`Fast::Coalesced`) inline, translated through the workgroup's span
//! cache.
//!
//! The interpreter's fast forms (exec/vmem/mod.rs `s_load_at` and
//! `coalesced`, exec/vmem/fast.rs `spanned`) translate one range per
//! access through `SpanCache::translate`; its hit finds the remembered
//! mapping holding the range's first byte, checks that the mapping holds the
//! whole range and allows the access, and adds the range's length to the
//! access's tally. The translation does the same on the same slots (the
//! frame's `spans`, span_cache.rs `inline_view`), on the same range: the
//! scalar load's aligned dwords, or the span from the lowest active lane's
//! address to the end of the highest one's bytes. On a hit it moves the
//! bytes as those forms do; anything else (no active lane, a FLAT access
//! with any lane, active or not, in the LDS or private aperture, a span
//! past `MAX_SPAN`, active lanes of a VGPR-pair address whose high words
//! differ, a miss, a range past the mapping, a missing permission) runs
//! the entry through the call-out on a side path, where the interpreter
//! decides: it remembers the mapping, records a coherence copy's access or
//! reports the fault. A workgroup with an observer has slots that hold
//! nothing (abi.rs), so every access there reaches the observer.
//!
//! On a hit:
//! - one active lane (a one-invocation workgroup's wave): its address is
//!   the span's start, so its dwords move as scalars;
//! - every lane active and the addresses one after the other (`coalesced`):
//!   one vector load or store of the whole span, the rows interleaved;
//! - otherwise loads gather each row's dwords (`span_load`), a dword store
//!   scatters (lowest lane first: LLVM LangRef, "llvm.masked.scatter", as
//!   `span_store`'s lane order), and a wider store goes lane by lane, each
//!   lane's dwords in order (`span_store`: a scatter per dword would order
//!   overlapping lanes differently).
//!
//! A 1- or 2-byte access moves `i8`/`i16` lanes the same three ways; a
//! load's values are extended and placed in the destination row as
//! exec/vmem/mod.rs `subword_lane` places them (a d16 load keeps the row's
//! other half, so the row is also read), a store takes the data's low
//! bytes or, for `d16_hi`, those of its high half.
//!
//! The span's ends and the lanes' offsets in it are 32-bit vector work: a
//! lane's address is one 64-bit base (the SGPR pair, or the lanes' shared
//! high word, plus the offset) and its 32-bit VGPR, so the reductions and
//! the coalescing test run on one row of dwords and a gather takes dword
//! indices, not four rows of 64-bit addresses (`lane_offsets`).
//!
//! Why: a call-out for a memory access cost more than the interpreter's own
//! step, so every block that touched memory ran at the interpreter's speed,
//! and a one-invocation workgroup spent a fifth of its time in call-outs for
//! its three scalar loads and two global accesses.

use super::emit::{Fx, LANE_ROWS, M, V};
use super::footprint::Footprint;
use crate::Access;
use crate::gfx11::exec::vmem::Coalesced;
use crate::gfx11::exec::vmem::mem::MAX_SPAN;
use crate::gfx11::wave::{EXEC, NULL};
use crate::span_cache::{ENTRY_ALLOW, ENTRY_BYTES, ENTRY_END, ENTRY_HOST, ENTRY_START, SLOTS};

/// A row of 64-bit lane addresses.
pub(super) const A: &str = "<32 x i64>";

/// The intrinsics this file's code adds to emit.rs `DECLARATIONS`.
pub(crate) const DECLARATIONS: &str = "\
declare i1 @llvm.vector.reduce.and.v32i1(<32 x i1>)
declare i1 @llvm.vector.reduce.or.v32i1(<32 x i1>)
declare i64 @llvm.uadd.sat.i64(i64, i64)
declare <32 x i8> @llvm.masked.gather.v32i8.v32p0(<32 x ptr>, i32, <32 x i1>, <32 x i8>)
declare <32 x i16> @llvm.masked.gather.v32i16.v32p0(<32 x ptr>, i32, <32 x i1>, <32 x i16>)
declare void @llvm.masked.scatter.v32i8.v32p0(<32 x i8>, <32 x ptr>, i32, <32 x i1>)
declare void @llvm.masked.scatter.v32i16.v32p0(<32 x i16>, <32 x ptr>, i32, <32 x i1>)
";

/// `l * step` in lane `l`, as a constant of 32 lanes of `bits` (32: a `V`,
/// wrapping at 2^32; 64: an `A`).
pub(super) fn lane_steps(bits: u32, step: u64) -> String {
    let lanes: Vec<String> = (0..32)
        .map(|l| {
            let x = l * step;
            let x = if bits == 32 {
                x as u32 as i32 as i64
            } else {
                x as i64
            };
            format!("i{bits} {x}")
        })
        .collect();
    format!("<{}>", lanes.join(", "))
}

/// The active lanes' span as [`Fx::active_span`] computes it.
pub(super) struct ActiveSpan {
    /// Each lane's 32-bit offset from the base (`lane_offsets`).
    pub offs: String,
    /// The lowest active offset, and `lo`, the lowest active address.
    pub least: String,
    /// The highest active offset.
    pub most: String,
    pub lo: String,
    /// The end of the highest active lane's bytes (saturating), and
    /// `hi - lo`.
    pub hi: String,
    pub span: String,
    /// The form `base + offs[l]` holds for every active lane and none of
    /// their addresses wraps past 2^64 while another does not.
    pub held: String,
}

/// The IR type of one lane's bytes of a sub-dword access.
fn subword_type(c: &Coalesced) -> &'static str {
    if c.size == 1 { "i8" } else { "i16" }
}

/// The shuffle mask picking dword `k` of each lane's `n` dwords from the
/// lanes' bytes laid one after the other.
pub(super) fn deinterleave(k: usize, n: usize) -> String {
    let picks: Vec<String> = (0..32).map(|l| format!("i32 {}", l * n + k)).collect();
    format!("<{}>", picks.join(", "))
}

/// The shuffle mask that lays `n` rows (concatenated) lane after lane.
pub(super) fn interleave(n: usize) -> String {
    let picks: Vec<String> = (0..32 * n)
        .map(|i| format!("i32 {}", (i % n) * 32 + i / n))
        .collect();
    format!("<{}>", picks.join(", "))
}

impl Fx {
    /// Entry `k`, `s_load` of `n` dwords into SGPRs `dst..dst + n` from
    /// `sbase + imm + soff` (exec/vmem/mod.rs `s_load_at`), leaving with
    /// `stop` if its call-out does not flow on.
    pub(super) fn s_load(
        &mut self,
        (n, dst, sbase, soff, imm): (u8, u8, u8, u8, i32),
        k: u32,
        stop: u32,
    ) {
        let base = self.sgpr_pair(sbase);
        // `s_load_at`: the offset SGPR zero-extended, the immediate
        // sign-extended, the sum dword-aligned.
        let soff = if soff as usize == NULL {
            "0".to_owned()
        } else {
            let s = self.sgpr_code(soff);
            self.ins(format!("zext i32 {s} to i64"))
        };
        let off = self.ins(format!("add i64 {soff}, {}", imm as i64));
        let sum = self.ins(format!("add i64 {base}, {off}"));
        let addr = self.ins(format!("and i64 {sum}, -4"));
        let len = 4 * n as u64;
        let (slow, join) = (self.label(), self.label());
        let host = self.span_lookup(&addr, &len.to_string(), Access::Read, &slow);
        self.tally(Access::Read, &len.to_string());
        let loaded: Vec<String> = (0..n)
            .map(|j| {
                let p = self.ins(format!(
                    "getelementptr i8, ptr {host}, i64 {}",
                    4 * j as u64
                ));
                self.ins(format!("load i32, ptr {p}, align 1"))
            })
            .collect();
        self.line(format!("br label %{join}"));
        let hit_end = self.current();

        self.start(&slow);
        let sgprs: Vec<u8> = (dst..dst + n).collect();
        let fp = Footprint {
            reads: Some(Vec::new()),
            writes: Some(Vec::new()),
        };
        let (_, reloaded) = self.callout_side(k, stop, &fp, &[], &sgprs);
        self.line(format!("br label %{join}"));
        let slow_end = self.current();

        self.start(&join);
        // Every phi first: writing through stores each value it sets.
        let phis = self.join_phis("i32", (&loaded, &hit_end), (&reloaded, &slow_end));
        for (&r, v) in sgprs.iter().zip(phis) {
            self.set_sgpr(r, v);
        }
    }

    /// Entry `k`, the FLAT or GLOBAL load or store `c`, leaving with
    /// `stop` if its call-out does not flow on; `fp` is its footprint.
    pub(super) fn global(&mut self, c: &Coalesced, k: u32, stop: u32, fp: &Footprint) {
        let (data, m, exec) = self.access_inputs(c);
        let at = self.active_span(c.addr, c.saddr, c.off, &exec, c.size as u64);
        let ok = if c.flat {
            let addrs = self.lane_addresses(c);
            self.outside_apertures(&addrs)
        } else {
            "true".to_owned()
        };
        self.span_access(c, &data, (&m, &exec), &at, (None, &ok), (k, stop, fp));
    }

    /// The rows access `c` stores or loads into (a sub-dword access moves
    /// part of one row; a d16 load keeps the rest of it), and EXEC as a
    /// mask and as a word: everything the hit uses, read before the first
    /// branch, so every path and the join see the same values.
    pub(super) fn access_inputs(&mut self, c: &Coalesced) -> (Vec<String>, String, String) {
        let n = (c.size as usize).div_ceil(4);
        let data = (0..n)
            .map(|j| self.row(c.reg.wrapping_add(j as u8)))
            .collect();
        let m = self.exec_mask();
        let exec = self.sgpr(self.word(EXEC as u8));
        (data, m, exec)
    }

    /// The access `c` (its rows `data`; EXEC `m` as a mask and `exec` as
    /// a word) at `at`, inline where the span is at most `MAX_SPAN` bytes,
    /// `at.held`, `ok` and the span cache hits, else through the call-out
    /// of entry `k` (exit code `stop`, footprint `fp`). `pre`, where given, is tested first, before an empty EXEC
    /// skips the access: a false one takes the call-out even then.
    pub(super) fn span_access(
        &mut self,
        c: &Coalesced,
        data: &[String],
        (m, exec): (&str, &str),
        at: &ActiveSpan,
        (pre, ok): (Option<&str>, &str),
        (k, stop, fp): (u32, u32, &Footprint),
    ) {
        let ActiveSpan {
            offs,
            least,
            lo,
            span,
            held,
            ..
        } = at;
        let short = self.ins(format!("icmp ule i64 {span}, {MAX_SPAN}"));
        let cached = self.ins(format!("and i1 {short}, {held}"));
        let ok = self.ins(format!("and i1 {cached}, {ok}"));
        let n = (c.size as usize).div_ceil(4);
        let rows: Vec<u8> = (0..n).map(|j| c.reg.wrapping_add(j as u8)).collect();
        let size = c.size as u64;
        let (lookup, slow, join) = (self.label(), self.label(), self.label());
        if let Some(pre) = pre {
            let go = self.label();
            self.line(format!("br i1 {pre}, label %{go}, label %{slow}"));
            self.start(&go);
        }
        let none = self.unless_no_lane(exec);
        self.line(format!("br i1 {ok}, label %{lookup}, label %{slow}"));
        self.start(&lookup);
        let access = if c.write { Access::Write } else { Access::Read };
        let host = self.span_lookup(lo, span, access, &slow);
        self.tally(access, span);

        // Three ways to move the bytes, each ending with the loads' rows.
        let (single, many, contiguous, scattered, moved) = (
            self.label(),
            self.label(),
            self.label(),
            self.label(),
            self.label(),
        );
        let below = self.ins(format!("sub i32 {exec}, 1"));
        let others = self.ins(format!("and i32 {exec}, {below}"));
        let alone = self.ins(format!("icmp eq i32 {others}, 0"));
        self.line(format!("br i1 {alone}, label %{single}, label %{many}"));

        self.start(&single);
        let one = self.global_one_lane(c, &host, m, data);
        self.line(format!("br label %{moved}"));
        let single_end = self.current();

        self.start(&many);
        // Every lane active, so `least` is lane 0's offset and no lane's
        // offset can equal a step past it that wraps 32 bits: the 32-bit
        // compare says what the 64-bit one would.
        let full = self.ins(format!("icmp eq i32 {exec}, -1"));
        let least_row = self.splat_value(least);
        let expect = self.ins(format!("add {V} {least_row}, {}", lane_steps(32, size)));
        let same = self.ins(format!("icmp eq {V} {offs}, {expect}"));
        let strided = self.ins(format!("call i1 @llvm.vector.reduce.and.v32i1({M} {same})"));
        let both = self.ins(format!("and i1 {full}, {strided}"));
        self.line(format!(
            "br i1 {both}, label %{contiguous}, label %{scattered}"
        ));

        self.start(&contiguous);
        let whole = self.global_contiguous(c, &host, data);
        self.line(format!("br label %{moved}"));
        let contiguous_end = self.current();

        self.start(&scattered);
        // Each active lane's offset into the span (below MAX_SPAN, so
        // gep's sign extension keeps it): 32-bit gathers' indices.
        let into = self.ins(format!("sub {V} {offs}, {least_row}"));
        let ptrs = self.ins(format!("getelementptr i8, ptr {host}, {V} {into}"));
        let spread = self.global_lanes(c, &ptrs, m, exec, data);
        self.line(format!("br label %{moved}"));
        let scattered_end = self.current();

        self.start(&none);
        self.line(format!("br label %{moved}"));

        self.start(&moved);
        let loaded: Vec<String> = (0..one.len())
            .map(|j| {
                self.ins(format!(
                    "phi {V} [ {}, %{single_end} ], [ {}, %{contiguous_end} ], \
                     [ {}, %{scattered_end} ], [ {}, %{none} ]",
                    one[j], whole[j], spread[j], data[j]
                ))
            })
            .collect();
        self.line(format!("br label %{join}"));
        let hit_end = self.current();

        self.start(&slow);
        let writes = if c.write { Vec::new() } else { rows.clone() };
        let (reloaded, _) = self.callout_side(k, stop, fp, &writes, &[]);
        self.line(format!("br label %{join}"));
        let slow_end = self.current();

        self.start(&join);
        self.merge_rows(&writes, (&loaded, &hit_end), (&reloaded, &slow_end));
    }

    /// `active_span` of the lanes' `size`-byte accesses at the addresses
    /// [`Fx::lane_offsets`] gives (same arguments), from two 32-bit
    /// reductions of the offsets. Where some active lanes' addresses wrap
    /// past 2^64 and others do not (`top < lo`), the span would cover
    /// nearly all of memory, and `held` is false: the caller takes the
    /// call-out, as it would by the span's length.
    pub(super) fn active_span(
        &mut self,
        addr: u8,
        saddr: u8,
        off: i32,
        exec: &str,
        size: u64,
    ) -> ActiveSpan {
        let (base, offs, uniform) = self.lane_offsets(addr, saddr, off, exec);
        self.span_from(&base, offs, &uniform, size)
    }

    /// [`Fx::active_span`] of the active lanes' `size`-byte accesses at
    /// `base + offs[l]` (an i64 and a row of 32-bit offsets), where
    /// `uniform` says that form holds for every active lane.
    pub(super) fn span_from(
        &mut self,
        base: &str,
        offs: String,
        uniform: &str,
        size: u64,
    ) -> ActiveSpan {
        let m = self.exec_mask();
        let low = self.ins(format!("select {M} {m}, {V} {offs}, {V} splat (i32 -1)"));
        let least = self.ins(format!(
            "call i32 @llvm.vector.reduce.umin.v32i32({V} {low})"
        ));
        let high = self.ins(format!("select {M} {m}, {V} {offs}, {V} zeroinitializer"));
        let most = self.ins(format!(
            "call i32 @llvm.vector.reduce.umax.v32i32({V} {high})"
        ));
        let [lo, top] = [&least, &most].map(|x| {
            let x = self.ins(format!("zext i32 {x} to i64"));
            self.ins(format!("add i64 {base}, {x}"))
        });
        let ordered = self.ins(format!("icmp uge i64 {top}, {lo}"));
        let held = self.ins(format!("and i1 {ordered}, {uniform}"));
        let hi = self.ins(format!(
            "call i64 @llvm.uadd.sat.i64(i64 {top}, i64 {size})"
        ));
        let span = self.ins(format!("sub i64 {hi}, {lo}"));
        ActiveSpan {
            offs,
            least,
            most,
            lo,
            hi,
            span,
            held,
        }
    }

    /// Each lane's address (`lane_addresses` of address VGPR `addr`, SGPR
    /// pair `saddr` or NULL, offset `off`; `exec` the EXEC word) as
    /// `base + offs[l]`, an i64 and a row, wrapping at 2^64, and whether
    /// that form holds for every active lane. With `saddr` it always does:
    /// the SGPR pair plus the offset, and the lane's VGPR. Without, the
    /// address is a VGPR pair, and it holds when every active lane's high
    /// word is that of the lowest active lane (no wave's lanes straddle a
    /// 4 GiB line, in practice); a wave whose lanes do takes the call-out.
    pub(super) fn lane_offsets(
        &mut self,
        addr: u8,
        saddr: u8,
        off: i32,
        exec: &str,
    ) -> (String, String, String) {
        let offs = self.row(addr);
        let off = off as i64;
        if saddr as usize != NULL {
            let b = self.sgpr_pair(saddr);
            let base = self.ins(format!("add i64 {b}, {off}"));
            return (base, offs, "true".to_owned());
        }
        let m = self.exec_mask();
        let high = self.row(addr.wrapping_add(1));
        // Lane 0 when none is active (`unless_no_lane` then skips the access).
        let first = self.ins(format!("call i32 @llvm.cttz.i32(i32 {exec}, i1 false)"));
        let first = self.ins(format!("and i32 {first}, 31"));
        let word = self.ins(format!("extractelement {V} {high}, i32 {first}"));
        let words = self.splat_value(&word);
        let same = self.ins(format!("icmp eq {V} {high}, {words}"));
        let same = self.ins(format!("select {M} {m}, {M} {same}, {M} splat (i1 true)"));
        let uniform = self.ins(format!("call i1 @llvm.vector.reduce.and.v32i1({M} {same})"));
        let word = self.ins(format!("zext i32 {word} to i64"));
        let word = self.ins(format!("shl i64 {word}, 32"));
        let base = self.ins(format!("add i64 {word}, {off}"));
        (base, offs, uniform)
    }

    /// Go on at a fresh label where EXEC word `exec` has an active lane;
    /// returns the label where it has none, for the caller to start and
    /// join. An access with no active lane moves, translates and tallies
    /// nothing, as the interpreter's general path does, so it needs no
    /// call-out: every access of a wave64 wave's empty half (a small
    /// workgroup's) would otherwise take one.
    pub(super) fn unless_no_lane(&mut self, exec: &str) -> String {
        let some = self.ins(format!("icmp ne i32 {exec}, 0"));
        let (live, none) = (self.label(), self.label());
        self.line(format!("br i1 {some}, label %{live}, label %{none}"));
        self.start(&live);
        none
    }

    /// Each lane's address as `lane_addresses` (exec/vmem/fast.rs)
    /// computes it: the SGPR pair plus the lane's VGPR with `saddr`, the
    /// VGPR pair (the second row wrapping at v255) without; plus the offset.
    fn lane_addresses(&mut self, c: &Coalesced) -> String {
        self.addresses_of(c.addr, c.saddr, c.off)
    }

    /// [`Fx::lane_addresses`] of an access with address VGPR `addr`, `saddr`
    /// (an SGPR pair's code, or NULL for none) and offset `off`.
    pub(super) fn addresses_of(&mut self, addr: u8, saddr: u8, off: i32) -> String {
        let lo = self.row(addr);
        let lo = self.ins(format!("zext {V} {lo} to {A}"));
        let base = if saddr as usize != NULL {
            let b = self.sgpr_pair(saddr);
            let b = self.splat64(&b);
            self.ins(format!("add {A} {b}, {lo}"))
        } else {
            let hi = self.row(addr.wrapping_add(1));
            let hi = self.ins(format!("zext {V} {hi} to {A}"));
            let hi = self.ins(format!("shl {A} {hi}, splat (i64 32)"));
            self.ins(format!("or {A} {hi}, {lo}"))
        };
        self.ins(format!("add {A} {base}, splat (i64 {})", off as i64))
    }

    /// True when no lane's address (active or not) is in FLAT's LDS or
    /// private aperture (exec/vmem/fast.rs `lane_addresses`): its high
    /// word is not that of an aperture's nonzero base.
    pub(super) fn outside_apertures(&mut self, addrs: &str) -> String {
        let high = self.ins(format!("lshr {A} {addrs}, splat (i64 32)"));
        let mut outside = "true".to_owned();
        for base in self.apertures() {
            let top = self.ins(format!("lshr i64 {base}, 32"));
            let top = self.splat64(&top);
            let same = self.ins(format!("icmp eq {A} {high}, {top}"));
            let any = self.ins(format!("call i1 @llvm.vector.reduce.or.v32i1({M} {same})"));
            let set = self.ins(format!("icmp ne i64 {base}, 0"));
            let hit = self.ins(format!("and i1 {any}, {set}"));
            let clear = self.ins(format!("xor i1 {hit}, true"));
            outside = self.ins(format!("and i1 {outside}, {clear}"));
        }
        outside
    }

    /// The one active lane's access at `host` (its address is the span's
    /// start): each dword as a scalar; a load's rows under the lane's mask.
    fn global_one_lane(
        &mut self,
        c: &Coalesced,
        host: &str,
        m: &str,
        data: &[String],
    ) -> Vec<String> {
        let mut rows = Vec::new();
        // The active lane's element: one extract instead of a reduction of
        // the masked row (a form `llc-19` alone, without the optimiser
        // run first, loops on when the row comes from compare results).
        let lane = c.write.then(|| self.first_active_lane());
        if c.size < 4 {
            let t = subword_type(c);
            if let Some(lane) = &lane {
                let x = self.ins(format!("extractelement {V} {}, i32 {lane}", data[0]));
                let x = if c.hi {
                    self.ins(format!("lshr i32 {x}, 16"))
                } else {
                    x
                };
                let x = self.ins(format!("trunc i32 {x} to {t}"));
                self.line(format!("store {t} {x}, ptr {host}, align 1"));
                return rows;
            }
            let x = self.ins(format!("load {t}, ptr {host}, align 1"));
            let one = self.ins(format!("insertelement <32 x {t}> poison, {t} {x}, i64 0"));
            let all = self.ins(format!(
                "shufflevector <32 x {t}> {one}, <32 x {t}> poison, <32 x i32> zeroinitializer"
            ));
            let v = self.subword_value(c, &all, &data[0]);
            rows.push(self.ins(format!("select {M} {m}, {V} {v}, {V} {}", data[0])));
            return rows;
        }
        for (j, row) in data.iter().enumerate() {
            let p = self.ins(format!("getelementptr i8, ptr {host}, i64 {}", 4 * j));
            if let Some(lane) = &lane {
                let x = self.ins(format!("extractelement {V} {row}, i32 {lane}"));
                self.line(format!("store i32 {x}, ptr {p}, align 1"));
            } else {
                let x = self.ins(format!("load i32, ptr {p}, align 1"));
                let all = self.splat_value(&x);
                rows.push(self.ins(format!("select {M} {m}, {V} {all}, {V} {row}")));
            }
        }
        rows
    }

    /// Every lane active, lane `l`'s bytes at `host + l * size`: the span
    /// moved at once, the rows (de)interleaved.
    fn global_contiguous(&mut self, c: &Coalesced, host: &str, data: &[String]) -> Vec<String> {
        if c.size < 4 {
            let t = format!("<32 x {}>", subword_type(c));
            if c.write {
                let x = self.subword_data(c, &data[0]);
                self.line(format!("store {t} {x}, ptr {host}, align 1"));
                return Vec::new();
            }
            let raw = self.ins(format!("load {t}, ptr {host}, align 1"));
            return vec![self.subword_value(c, &raw, &data[0])];
        }
        let n = data.len();
        let wide = format!("<{} x i32>", 32 * n);
        if n == 1 {
            if c.write {
                self.line(format!("store {V} {}, ptr {host}, align 1", data[0]));
                return Vec::new();
            }
            return vec![self.ins(format!("load {V}, ptr {host}, align 1"))];
        }
        if c.write {
            let all = self.concat(data);
            let laid = self.ins(format!(
                "shufflevector {wide} {all}, {wide} poison, {wide} {}",
                interleave(n)
            ));
            self.line(format!("store {wide} {laid}, ptr {host}, align 1"));
            return Vec::new();
        }
        let all = self.ins(format!("load {wide}, ptr {host}, align 1"));
        (0..n)
            .map(|j| {
                self.ins(format!(
                    "shufflevector {wide} {all}, {wide} poison, {V} {}",
                    deinterleave(j, n)
                ))
            })
            .collect()
    }

    /// A sub-dword load's values `raw` (a `<32 x i8>` or `<32 x i16>`) as
    /// its destination row holds them (exec/vmem/mod.rs `subword_lane`):
    /// zero- or sign-extended, or for d16 the low 16 bits of that in the
    /// low or high half of `old`, the other half kept.
    fn subword_value(&mut self, c: &Coalesced, raw: &str, old: &str) -> String {
        let ext = if c.signed { "sext" } else { "zext" };
        let t = subword_type(c);
        let val = self.ins(format!("{ext} <32 x {t}> {raw} to {V}"));
        let (keep, placed) = match c.d16 {
            1 => (
                self.ins(format!("and {V} {old}, splat (i32 -65536)")),
                self.ins(format!("and {V} {val}, splat (i32 65535)")),
            ),
            2 => (
                self.ins(format!("and {V} {old}, splat (i32 65535)")),
                self.ins(format!("shl {V} {val}, splat (i32 16)")),
            ),
            _ => return val,
        };
        self.ins(format!("or {V} {keep}, {placed}"))
    }

    /// A sub-dword store's lane values: the low bytes of the data row, or
    /// of its high half for the `d16_hi` stores.
    fn subword_data(&mut self, c: &Coalesced, row: &str) -> String {
        let x = if c.hi {
            self.ins(format!("lshr {V} {row}, splat (i32 16)"))
        } else {
            row.to_owned()
        };
        self.ins(format!("trunc {V} {x} to <32 x {}>", subword_type(c)))
    }

    /// Rows `rows` one after the other in one vector.
    pub(super) fn concat(&mut self, rows: &[String]) -> String {
        let mut all = rows[0].clone();
        for (i, row) in rows.iter().enumerate().skip(1) {
            let width = 32 * i;
            let ty = format!("<{width} x i32>");
            // The row widened to `all`'s width (the rest poison), so the
            // two can be one shuffle's operands.
            let wide = if width == 32 {
                row.clone()
            } else {
                let picks: Vec<String> = (0..width)
                    .map(|l| {
                        if l < 32 {
                            format!("i32 {l}")
                        } else {
                            "i32 poison".to_owned()
                        }
                    })
                    .collect();
                self.ins(format!(
                    "shufflevector {V} {row}, {V} poison, {ty} <{}>",
                    picks.join(", ")
                ))
            };
            let picks: Vec<String> = (0..width + 32).map(|l| format!("i32 {l}")).collect();
            all = self.ins(format!(
                "shufflevector {ty} {all}, {ty} {wide}, <{} x i32> <{}>",
                width + 32,
                picks.join(", ")
            ));
        }
        all
    }

    /// Any active lanes at `ptrs`: a load's rows gathered, a dword store
    /// scattered, a wider store lane by lane.
    fn global_lanes(
        &mut self,
        c: &Coalesced,
        ptrs: &str,
        m: &str,
        exec: &str,
        data: &[String],
    ) -> Vec<String> {
        if c.size < 4 {
            let e = subword_type(c);
            let t = format!("<32 x {e}>");
            if c.write {
                let x = self.subword_data(c, &data[0]);
                self.line(format!(
                    "call void @llvm.masked.scatter.v32{e}.v32p0({t} {x}, <32 x ptr> {ptrs}, \
                     i32 1, {M} {m})"
                ));
                return Vec::new();
            }
            let raw = self.ins(format!(
                "call {t} @llvm.masked.gather.v32{e}.v32p0(<32 x ptr> {ptrs}, i32 1, \
                 {M} {m}, {t} zeroinitializer)"
            ));
            let v = self.subword_value(c, &raw, &data[0]);
            return vec![self.ins(format!("select {M} {m}, {V} {v}, {V} {}", data[0]))];
        }
        if !c.write {
            return data
                .iter()
                .enumerate()
                .map(|(j, old)| {
                    let at = self.ins(format!(
                        "getelementptr i8, <32 x ptr> {ptrs}, i64 {}",
                        4 * j
                    ));
                    self.ins(format!(
                        "call {V} @llvm.masked.gather.v32i32.v32p0(<32 x ptr> {at}, i32 1, \
                         {M} {m}, {V} {old})"
                    ))
                })
                .collect();
        }
        if data.len() == 1 {
            self.line(format!(
                "call void @llvm.masked.scatter.v32i32.v32p0({V} {}, <32 x ptr> {ptrs}, \
                 i32 1, {M} {m})",
                data[0]
            ));
            return Vec::new();
        }
        // The lanes' dwords go to the stack once, lane after lane
        // (`LANE_ROWS`), as the addresses do (`each_staged_lane`), and each
        // lane's dwords move from there as one store.
        let n = data.len();
        debug_assert!(n <= LANE_ROWS, "a store of {n} dwords a lane");
        let wide = format!("<{} x i32>", 32 * n);
        let all = self.concat(data);
        let laid = self.ins(format!(
            "shufflevector {wide} {all}, {wide} poison, {wide} {}",
            interleave(n)
        ));
        self.line(format!("store {wide} {laid}, ptr %lane_rows, align 64"));
        let lane_ty = format!("<{n} x i32>");
        self.each_staged_lane(exec, "ptr", ptrs, |fx, l, p| {
            // Bytes, not `lane_ty`: a <3 x i32> is allocated 16 bytes.
            let off = fx.ins(format!("mul i32 {l}, {}", 4 * n));
            let at = fx.ins(format!("getelementptr i8, ptr %lane_rows, i32 {off}"));
            let x = fx.ins(format!("load {lane_ty}, ptr {at}, align 4"));
            fx.line(format!("store {lane_ty} {x}, ptr {p}, align 1"));
        });
        Vec::new()
    }

    /// The host address of `[addr, addr + len)` (i64 values) when a slot of
    /// the frame's span cache holds `addr`, the whole range and `access`
    /// (span_cache.rs `remembered` and `Entry::inside`); the code goes on
    /// where it does and branches to `slow` where it does not.
    pub(super) fn span_lookup(
        &mut self,
        addr: &str,
        len: &str,
        access: Access,
        slow: &str,
    ) -> String {
        let (slots, _) = self.spans();
        let found = self.label();
        let mut arrivals = Vec::new();
        for i in 0..SLOTS {
            let slot = self.ins(format!(
                "getelementptr i8, ptr {slots}, i64 {}",
                i * ENTRY_BYTES
            ));
            let ps = self.ins(format!("getelementptr i8, ptr {slot}, i64 {ENTRY_START}"));
            let start = self.ins(format!("load i64, ptr {ps}, align 8"));
            let pe = self.ins(format!("getelementptr i8, ptr {slot}, i64 {ENTRY_END}"));
            let end = self.ins(format!("load i64, ptr {pe}, align 8"));
            let above = self.ins(format!("icmp ule i64 {start}, {addr}"));
            let below = self.ins(format!("icmp ult i64 {addr}, {end}"));
            let holds = self.ins(format!("and i1 {above}, {below}"));
            let next = if i + 1 == SLOTS {
                slow.to_owned()
            } else {
                self.label()
            };
            self.line(format!("br i1 {holds}, label %{found}, label %{next}"));
            arrivals.push((self.current(), slot, start, end));
            if i + 1 < SLOTS {
                self.start(&next);
            }
        }
        self.start(&found);
        let pick =
            |f: &mut Fx, ty: &str, which: fn(&(String, String, String, String)) -> &String| {
                let incoming: Vec<String> = arrivals
                    .iter()
                    .map(|a| format!("[ {}, %{} ]", which(a), a.0))
                    .collect();
                f.ins(format!("phi {ty} {}", incoming.join(", ")))
            };
        let slot = pick(self, "ptr", |a| &a.1);
        let start = pick(self, "i64", |a| &a.2);
        let end = pick(self, "i64", |a| &a.3);
        // `inside`: addr < end, so `end - addr` does not wrap.
        let room = self.ins(format!("sub i64 {end}, {addr}"));
        let fits = self.ins(format!("icmp ule i64 {len}, {room}"));
        let pa = self.ins(format!("getelementptr i8, ptr {slot}, i64 {ENTRY_ALLOW}"));
        let allow = self.ins(format!("load i8, ptr {pa}, align 1"));
        let bit = self.ins(format!("and i8 {allow}, {}", 1u8 << access as u8));
        let allowed = self.ins(format!("icmp ne i8 {bit}, 0"));
        let ok = self.ins(format!("and i1 {fits}, {allowed}"));
        let ok = self.ins(format!("call i1 @llvm.expect.i1(i1 {ok}, i1 true)"));
        let inside = self.label();
        self.line(format!("br i1 {ok}, label %{inside}, label %{slow}"));
        self.start(&inside);
        let ph = self.ins(format!("getelementptr i8, ptr {slot}, i64 {ENTRY_HOST}"));
        let host = self.ins(format!("load ptr, ptr {ph}, align 8"));
        let at = self.ins(format!("sub i64 {addr}, {start}"));
        self.ins(format!("getelementptr i8, ptr {host}, i64 {at}"))
    }

    /// Add `len` (an i64) to the tally of `access` (`Tally::add`).
    pub(super) fn tally(&mut self, access: Access, len: &str) {
        let (_, tally) = self.spans();
        let p = self.ins(format!(
            "getelementptr i8, ptr {tally}, i64 {}",
            8 * access as usize
        ));
        let old = self.ins(format!("load atomic i64, ptr {p} monotonic, align 8"));
        let new = self.ins(format!("add i64 {old}, {len}"));
        self.line(format!(
            "store atomic i64 {new}, ptr {p} monotonic, align 8"
        ));
    }

    /// An SGPR pair's 64-bit value as `Wave::sgpr64` reads it: codes from
    /// 128 on read 0.
    pub(super) fn sgpr_pair(&mut self, r: u8) -> String {
        let lo = self.sgpr_code(r);
        let hi = match r.checked_add(1) {
            Some(next) => self.sgpr_code(next),
            None => "0".to_owned(),
        };
        let lo = self.ins(format!("zext i32 {lo} to i64"));
        let hi = self.ins(format!("zext i32 {hi} to i64"));
        let hi = self.ins(format!("shl i64 {hi}, 32"));
        self.ins(format!("or i64 {hi}, {lo}"))
    }

    /// SGPR code `r`'s value as `Wave::sgpr.get` reads it (0 from 128 on).
    fn sgpr_code(&mut self, r: u8) -> String {
        if r < 128 {
            self.sgpr(r)
        } else {
            "0".to_owned()
        }
    }

    /// A 64-bit value in every lane.
    pub(super) fn splat64(&mut self, x: &str) -> String {
        let i = self.ins(format!("insertelement {A} poison, i64 {x}, i64 0"));
        self.ins(format!(
            "shufflevector {A} {i}, {A} poison, <32 x i32> zeroinitializer"
        ))
    }
}
