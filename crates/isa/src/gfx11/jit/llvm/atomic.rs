//! FLAT and GLOBAL 32- and 64-bit integer atomics and the 32-bit float
//! add, minimum and maximum (`Fast::GlobalAtomic`) inline,
//! translated through the workgroup's span cache: a wave32 wave's 32 lanes,
//! or one 32-lane pass of a wave64 wave's (llvm/wave64.rs), as the
//! interpreter runs a wave64 atomic pass by pass (`run_wave64_memory`).
//!
//! The interpreter's fast form (exec/vmem/fast.rs `atomic`) takes the span
//! from the lowest active lane's address to the end of the highest one's
//! dword (qword), when every active address is aligned to the size (4 or
//! 8 bytes), no lane of a FLAT
//! access is in the LDS or private aperture and the span is at most 2^24
//! bytes, and translates it once for `Access::Atomic` (a span cache hit
//! adds its length to that tally); then it updates memory with host
//! atomics, lane by lane in lane order (lanes that share an address as one
//! update with the same old values: `shared_addresses`), and with GLC
//! writes each active lane's old value to the destination. The translation
//! checks the same and, on a hit, takes the active lanes by address from
//! the lowest lane: a lane alone at its address is one sequentially
//! consistent `atomicrmw` (or `cmpxchg`), as `atomic32` (`atomic64`); the lanes that
//! share an address fold their operations in lane order in registers, each
//! lane's old value into its element, and store the result with one
//! `cmpxchg`, retried from the value it found. In one thread both give each
//! lane the old value of applying the lanes one by one in lane order.
//! Anything else runs the entry through the call-out on a side path.
//!
//! The operations are those LLVM has an `atomicrmw` of the same meaning
//! (LLVM LangRef, "atomicrmw Instruction": `uinc_wrap` and `udec_wrap` are
//! AMDGPU's inc and dec, atomics.rs `apply32`) and cmpswap (`cmpxchg`,
//! data then compare value, as `atomic32` and `atomic64`; a 64-bit value
//! is a pair of rows, low dword first). Rsub, csub and the f32 add,
//! minimum and maximum have no such `atomicrmw` (LLVM's `fadd` leaves the
//! NaN it returns open, its `fmin` the zero): a lane alone at its address
//! takes the compare-exchange loop of a group of one, which computes them
//! as `apply32` does (the add with v_add_f32's NaN rule, valu/mod.rs
//! `add32`; the minimum and maximum by atomics.rs `float_wins`). GFX9's
//! f64 add, minimum and maximum stay call-outs.
//!
//! Why: the atomics kernels of the corpus spent more of their time in the
//! call-outs of their atomics than in their translated code. One host
//! atomic per lane made the kernels whose lanes share a few counters
//! slower than the interpreter's grouped updates (atomic_cas_increment
//! from 1.50x to 1.17x the interpreter's speed): hence the groups. The
//! gfx942 build of atomic_f32_add (global_atomic_add_f32) went from
//! 1.25-1.33x to 1.59-1.67x the interpreter's speed with the f32 add
//! inline (`AQUEDUCT_SIM_ISA=gfx942 cargo bench --bench corpus -- --settle
//! --only atomic_f32_add`, two cores).

use super::emit::{Fx, M, V};
use super::footprint::Footprint;
use super::global::{A, ActiveSpan};
use crate::Access;
use crate::gfx11::exec::vmem::atomics::Rmw;
use crate::gfx11::exec::vmem::fast::GlobalAtomic;
use crate::gfx11::wave::EXEC;

/// The largest span the interpreter's fast form takes (exec/vmem/fast.rs
/// `atomic`).
const ATOMIC_SPAN: u64 = 1 << 24;

/// The `atomicrmw` operation of `rmw`, or `cmpxchg`; None where a lane
/// alone at its address takes the compare-exchange loop of a group of one.
fn operation(rmw: Rmw) -> Option<&'static str> {
    Some(match rmw {
        Rmw::Swap => "xchg",
        Rmw::CmpSwap => "cmpxchg",
        Rmw::Add => "add",
        Rmw::Sub => "sub",
        Rmw::And => "and",
        Rmw::Or => "or",
        Rmw::Xor => "xor",
        Rmw::MinI => "min",
        Rmw::MaxI => "max",
        Rmw::MinU => "umin",
        Rmw::MaxU => "umax",
        Rmw::Inc => "uinc_wrap",
        Rmw::Dec => "udec_wrap",
        Rmw::Rsub | Rmw::Csub | Rmw::AddF | Rmw::MinF | Rmw::MaxF => return None,
    })
}

/// Whether `rmw` (`wide`: 64-bit) runs inline: every operation but GFX9's
/// f64 add, minimum and maximum, which no test here runs translated.
fn inline(rmw: Rmw, wide: bool) -> bool {
    match rmw {
        Rmw::AddF | Rmw::MinF | Rmw::MaxF => !wide,
        _ => true,
    }
}

impl Fx {
    /// `rmw` of `old` with data `src` (and compare value `cmp` for
    /// cmpswap), values of type `t` (i32 or i64) as atomics.rs `apply32`
    /// and `apply64` compute them.
    fn apply(&mut self, rmw: Rmw, t: &str, old: &str, src: &str, cmp: Option<&str>) -> String {
        match rmw {
            Rmw::Swap => self.ins(format!("or {t} {src}, 0")),
            Rmw::CmpSwap => {
                let cmp = cmp.expect("cmpswap has a compare value");
                let hit = self.ins(format!("icmp eq {t} {old}, {cmp}"));
                self.ins(format!("select i1 {hit}, {t} {src}, {t} {old}"))
            }
            Rmw::Add | Rmw::Sub | Rmw::And | Rmw::Or | Rmw::Xor => {
                let op = operation(rmw).expect("an atomicrmw operation");
                self.ins(format!("{op} {t} {old}, {src}"))
            }
            Rmw::MinI | Rmw::MaxI | Rmw::MinU | Rmw::MaxU => {
                let f = match rmw {
                    Rmw::MinI => "smin",
                    Rmw::MaxI => "smax",
                    Rmw::MinU => "umin",
                    _ => "umax",
                };
                self.ins(format!("call {t} @llvm.{f}.{t}({t} {old}, {t} {src})"))
            }
            Rmw::Inc => {
                let wraps = self.ins(format!("icmp uge {t} {old}, {src}"));
                let up = self.ins(format!("add {t} {old}, 1"));
                self.ins(format!("select i1 {wraps}, {t} 0, {t} {up}"))
            }
            Rmw::Dec => {
                let zero = self.ins(format!("icmp eq {t} {old}, 0"));
                let above = self.ins(format!("icmp ugt {t} {old}, {src}"));
                let wraps = self.ins(format!("or i1 {zero}, {above}"));
                let down = self.ins(format!("sub {t} {old}, 1"));
                self.ins(format!("select i1 {wraps}, {t} {src}, {t} {down}"))
            }
            Rmw::Rsub => self.ins(format!("sub {t} {src}, {old}")),
            Rmw::Csub => self.ins(format!("call {t} @llvm.usub.sat.{t}({t} {old}, {t} {src})")),
            Rmw::AddF => {
                // valu/mod.rs `add32`: the sum, and where it is a NaN the
                // first NaN operand quieted (old, then data), else the
                // host's default NaN.
                assert_eq!(t, "i32", "the f64 add is a call-out");
                let (ft, quiet) = ("float", 0x0040_0000);
                let [fo, fs] = [old, src].map(|x| self.ins(format!("bitcast {t} {x} to {ft}")));
                let sum = self.ins(format!("fadd {ft} {fo}, {fs}"));
                let sum_bits = self.ins(format!("bitcast {ft} {sum} to {t}"));
                let [sum_nan, old_nan, src_nan] =
                    [&sum, &fo, &fs].map(|x| self.ins(format!("fcmp uno {ft} {x}, 0.0")));
                let [old_q, src_q] = [old, src].map(|x| self.ins(format!("or {t} {x}, {quiet}")));
                let pick = self.ins(format!("select i1 {src_nan}, {t} {src_q}, {t} {sum_bits}"));
                let pick = self.ins(format!("select i1 {old_nan}, {t} {old_q}, {t} {pick}"));
                self.ins(format!("select i1 {sum_nan}, {t} {pick}, {t} {sum_bits}"))
            }
            Rmw::MinF | Rmw::MaxF => {
                // atomics.rs `float_wins`: the data where it compares less
                // (greater), or where memory holds a NaN and the data is a
                // number; else memory's bits.
                assert_eq!(t, "i32", "the f64 minimum and maximum are call-outs");
                let [fo, fs] = [old, src].map(|x| self.ins(format!("bitcast {t} {x} to float")));
                let cmp = if rmw == Rmw::MaxF { "ogt" } else { "olt" };
                let better = self.ins(format!("fcmp {cmp} float {fs}, {fo}"));
                let old_nan = self.ins(format!("fcmp uno float {fo}, 0.0"));
                let src_number = self.ins(format!("fcmp ord float {fs}, 0.0"));
                let rescue = self.ins(format!("and i1 {old_nan}, {src_number}"));
                let wins = self.ins(format!("or i1 {better}, {rescue}"));
                self.ins(format!("select i1 {wins}, {t} {src}, {t} {old}"))
            }
        }
    }

    /// Atomic `a` (entry `k`, exit code `stop` for its call-out, footprint
    /// `fp`) inline; false (nothing emitted) if it must be a call-out.
    pub(super) fn global_atomic(
        &mut self,
        a: &GlobalAtomic,
        k: u32,
        stop: u32,
        fp: &Footprint,
    ) -> bool {
        if !inline(a.rmw, a.wide) {
            return false;
        }
        let op = operation(a.rmw);
        // The values' type, their vector of 32 and their bytes.
        let (t, vt, bytes) = if a.wide {
            ("i64", A, 8u64)
        } else {
            ("i32", V, 4)
        };
        // Everything the hit uses is read before the first branch, so every
        // path and the join see the same values: the data, then the compare
        // value, each one row or a pair; with GLC the destination's rows.
        let dwords = bytes as u8 / 4;
        let value = |fx: &mut Fx, r: u8| {
            let lo = fx.row(r);
            if a.wide {
                let hi = fx.row(r.wrapping_add(1));
                fx.join64(&lo, &hi)
            } else {
                lo
            }
        };
        let data = value(self, a.data);
        let cmp = (a.rmw == Rmw::CmpSwap).then(|| value(self, a.data.wrapping_add(dwords)));
        let writes: Vec<u8> = if a.glc {
            (0..dwords).map(|k| a.dst.wrapping_add(k)).collect()
        } else {
            Vec::new()
        };
        let old_dst: Vec<String> = writes.iter().map(|&r| self.row(r)).collect();
        let m = self.exec_mask();
        let exec = self.sgpr(self.word(EXEC as u8));
        // The span's ends from 32-bit offsets, as global.rs `global` takes
        // them (lanes whose addresses wrap or whose high words differ take
        // the call-out).
        let ActiveSpan {
            offs,
            least,
            lo,
            hi,
            span,
            held,
            ..
        } = self.active_span(a.addr, a.saddr, a.off, &exec, bytes);
        // Every active address aligned to its size: the lowest one is, and
        // every active offset lies a multiple of the size past the lowest
        // (addresses are `lo` plus that distance).
        let least_row = self.splat_value(&least);
        let apart = self.ins(format!("xor {V} {offs}, {least_row}"));
        let apart = self.ins(format!("select {M} {m}, {V} {apart}, {V} zeroinitializer"));
        let bits = self.ins(format!(
            "call i32 @llvm.vector.reduce.or.v32i32({V} {apart})"
        ));
        let low_bits = self.ins(format!("and i32 {bits}, {}", bytes - 1));
        let lo_bits = self.ins(format!("and i64 {lo}, {}", bytes - 1));
        let lo_aligned = self.ins(format!("icmp eq i64 {lo_bits}, 0"));
        let same_bits = self.ins(format!("icmp eq i32 {low_bits}, 0"));
        let aligned = self.ins(format!("and i1 {lo_aligned}, {same_bits}"));
        // `lo < hi` and `hi - lo <= 2^24`.
        let ordered = self.ins(format!("icmp ult i64 {lo}, {hi}"));
        let short = self.ins(format!("icmp ule i64 {span}, {ATOMIC_SPAN}"));
        let mut ok = self.ins(format!("and i1 {short}, {ordered}"));
        ok = self.ins(format!("and i1 {ok}, {aligned}"));
        ok = self.ins(format!("and i1 {ok}, {held}"));
        if a.flat {
            let addrs = self.addresses_of(a.addr, a.saddr, a.off);
            let outside = self.outside_apertures(&addrs);
            ok = self.ins(format!("and i1 {ok}, {outside}"));
        }
        let (lookup, slow, join) = (self.label(), self.label(), self.label());
        let hit_join = self.label();
        let none = self.unless_no_lane(&exec);
        self.line(format!("br i1 {ok}, label %{lookup}, label %{slow}"));
        self.start(&lookup);
        let host = self.span_lookup(&lo, &span, Access::Atomic, &slow);
        self.tally(Access::Atomic, &span);

        // The active lanes by address, from the lowest lane: a lane alone at
        // its address is one atomic update; lanes that share one fold their
        // operations in lane order in registers and store the result with
        // one compare-exchange (`shared_addresses`, `lanes_update`).
        // Addresses in one span of at most 2^24 bytes are equal exactly when
        // their low 32 bits are.
        let keys = self.ins(format!("sub {V} {offs}, {least_row}"));
        // Lanes are read and written one at a time through the stack: a
        // variable lane of a 32-lane vector costs a spill of the whole row.
        let [data_at, cmp_at, olds_at] =
            [0, 1, 2].map(|k| self.ins(format!("getelementptr {vt}, ptr %atomic_rows, i64 {k}")));
        self.line(format!("store {vt} {data}, ptr {data_at}, align 8"));
        if let Some(cmp) = &cmp {
            self.line(format!("store {vt} {cmp}, ptr {cmp_at}, align 8"));
        }
        self.line(format!(
            "store {vt} zeroinitializer, ptr {olds_at}, align 8"
        ));
        let wide = self.ins(format!("zext {V} {keys} to {A}"));
        self.line(format!("store {A} {wide}, ptr %atomic_offs, align 8"));
        let [
            head,
            pick,
            single,
            group,
            retry,
            fold,
            fold_body,
            fold_end,
            grouped,
            done,
        ] = [(); 10].map(|_| self.label());
        let before = self.current();
        self.line(format!("br label %{head}"));
        self.start(&head);
        let [rest, rest_single, rest_group] = [(); 3].map(|_| self.tmp());
        let from_single = match op {
            Some(_) => format!(", [ {rest_single}, %{single} ]"),
            None => String::new(),
        };
        self.line(format!(
            "{rest} = phi i32 [ {exec}, %{before} ]{from_single}, [ {rest_group}, %{grouped} ]"
        ));
        let empty = self.ins(format!("icmp eq i32 {rest}, 0"));
        self.line(format!("br i1 {empty}, label %{done}, label %{pick}"));

        self.start(&pick);
        let lane = self.ins(format!("call i32 @llvm.cttz.i32(i32 {rest}, i1 true)"));
        let off_at = self.ins(format!("getelementptr i64, ptr %atomic_offs, i32 {lane}"));
        let off = self.ins(format!("load i64, ptr {off_at}, align 8"));
        let p = self.ins(format!("getelementptr i8, ptr {host}, i64 {off}"));
        let key = self.ins(format!("trunc i64 {off} to i32"));
        let key_row = self.splat_value(&key);
        let equal = self.ins(format!("icmp eq {V} {keys}, {key_row}"));
        let equal = self.ins(format!("bitcast {M} {equal} to i32"));
        let same = self.ins(format!("and i32 {equal}, {rest}"));
        if op.is_some() {
            let below = self.ins(format!("sub i32 {same}, 1"));
            let others = self.ins(format!("and i32 {same}, {below}"));
            let alone = self.ins(format!("icmp eq i32 {others}, 0"));
            self.line(format!("br i1 {alone}, label %{single}, label %{group}"));
        } else {
            self.line(format!("br label %{group}"));
        }

        // The lane's data (and compare value) and where its old value goes.
        let lane_of = |fx: &mut Fx, l: &str| {
            let at =
                |fx: &mut Fx, row: &str| fx.ins(format!("getelementptr {t}, ptr {row}, i32 {l}"));
            let d = at(fx, &data_at);
            let src = fx.ins(format!("load {t}, ptr {d}, align {bytes}"));
            let c = cmp.as_ref().map(|_| {
                let c = at(fx, &cmp_at);
                fx.ins(format!("load {t}, ptr {c}, align {bytes}"))
            });
            (src, c, at(fx, &olds_at))
        };

        if let Some(op) = op {
            self.start(&single);
            let (src, c, old_at) = lane_of(self, &lane);
            let old = match &c {
                Some(c) => {
                    let pair = self.ins(format!(
                        "cmpxchg ptr {p}, {t} {c}, {t} {src} seq_cst seq_cst, align {bytes}"
                    ));
                    self.ins(format!("extractvalue {{ {t}, i1 }} {pair}, 0"))
                }
                None => self.ins(format!(
                    "atomicrmw {op} ptr {p}, {t} {src} seq_cst, align {bytes}"
                )),
            };
            self.line(format!("store {t} {old}, ptr {old_at}, align {bytes}"));
            let below = self.ins(format!("sub i32 {rest}, 1"));
            self.line(format!("{rest_single} = and i32 {rest}, {below}"));
            self.line(format!("br label %{head}"));
        }

        self.start(&group);
        let first = self.ins(format!("load atomic {t}, ptr {p} seq_cst, align {bytes}"));
        self.line(format!("br label %{retry}"));
        self.start(&retry);
        let (expected, seen) = (self.tmp(), self.tmp());
        self.line(format!(
            "{expected} = phi {t} [ {first}, %{group} ], [ {seen}, %{fold_end} ]"
        ));
        self.line(format!("br label %{fold}"));
        self.start(&fold);
        let [left, left_next, value, value_next] = [(); 4].map(|_| self.tmp());
        self.line(format!(
            "{left} = phi i32 [ {same}, %{retry} ], [ {left_next}, %{fold_body} ]"
        ));
        self.line(format!(
            "{value} = phi {t} [ {expected}, %{retry} ], [ {value_next}, %{fold_body} ]"
        ));
        let last = self.ins(format!("icmp eq i32 {left}, 0"));
        self.line(format!(
            "br i1 {last}, label %{fold_end}, label %{fold_body}"
        ));
        self.start(&fold_body);
        let l = self.ins(format!("call i32 @llvm.cttz.i32(i32 {left}, i1 true)"));
        let (s, c, old_at) = lane_of(self, &l);
        self.line(format!("store {t} {value}, ptr {old_at}, align {bytes}"));
        let next = self.apply(a.rmw, t, &value, &s, c.as_deref());
        self.line(format!("{value_next} = or {t} {next}, 0"));
        let below = self.ins(format!("sub i32 {left}, 1"));
        self.line(format!("{left_next} = and i32 {left}, {below}"));
        self.line(format!("br label %{fold}"));
        self.start(&fold_end);
        let pair = self.ins(format!(
            "cmpxchg ptr {p}, {t} {expected}, {t} {value} seq_cst seq_cst, align {bytes}"
        ));
        self.line(format!("{seen} = extractvalue {{ {t}, i1 }} {pair}, 0"));
        let stored = self.ins(format!("extractvalue {{ {t}, i1 }} {pair}, 1"));
        self.line(format!("br i1 {stored}, label %{grouped}, label %{retry}"));
        self.start(&grouped);
        let kept = self.ins(format!("xor i32 {same}, -1"));
        self.line(format!("{rest_group} = and i32 {rest}, {kept}"));
        self.line(format!("br label %{head}"));

        self.start(&done);
        // The old values as the destination's rows (low dwords first).
        let olds = if writes.is_empty() {
            Vec::new()
        } else {
            let all = self.ins(format!("load {vt}, ptr {olds_at}, align 8"));
            if a.wide {
                let hi = self.ins(format!("lshr {A} {all}, splat (i64 32)"));
                [all, hi]
                    .iter()
                    .map(|x| self.ins(format!("trunc {A} {x} to {V}")))
                    .collect()
            } else {
                vec![all]
            }
        };
        let written: Vec<String> = olds
            .iter()
            .zip(&old_dst)
            .map(|(o, d)| self.ins(format!("select {M} {m}, {V} {o}, {V} {d}")))
            .collect();
        self.line(format!("br label %{hit_join}"));
        let done_end = self.current();
        self.start(&none);
        self.line(format!("br label %{hit_join}"));
        self.start(&hit_join);
        let fast: Vec<String> = written
            .iter()
            .zip(&old_dst)
            .map(|(w, d)| self.ins(format!("phi {V} [ {w}, %{done_end} ], [ {d}, %{none} ]")))
            .collect();
        self.line(format!("br label %{join}"));
        let hit_end = self.current();

        self.start(&slow);
        let (reloaded, _) = self.callout_side(k, stop, fp, &writes, &[]);
        self.line(format!("br label %{join}"));
        let slow_end = self.current();

        self.start(&join);
        self.merge_rows(&writes, (&fast, &hit_end), (&reloaded, &slow_end));
        true
    }
}
