//! FLAT and GLOBAL 32-bit integer atomics (`Fast::GlobalAtomic`) of wave32
//! waves inline, translated through the workgroup's span cache.
//!
//! The interpreter's fast form (exec/vmem/fast.rs `atomic`) takes the span
//! from the lowest active lane's address to the end of the highest one's
//! dword, when every active address is dword aligned, no lane of a FLAT
//! access is in the LDS or private aperture and the span is at most 2^24
//! bytes, and translates it once for `Access::Atomic` (a span cache hit
//! adds its length to that tally); then it updates memory with host
//! atomics, lane by lane in lane order (lanes that share an address as one
//! update with the same old values: `shared_addresses`), and with GLC
//! writes each active lane's old value to the destination. The translation
//! checks the same and, on a hit, runs a loop over EXEC's lanes from the
//! lowest: one sequentially consistent `atomicrmw` (or `cmpxchg`) per lane,
//! as `atomic32` does, its old value into the lane's element. Anything else
//! runs the entry through the call-out on a side path.
//!
//! The operations are those LLVM has an `atomicrmw` of the same meaning
//! (LLVM LangRef, "atomicrmw Instruction": `uinc_wrap` and `udec_wrap` are
//! AMDGPU's inc and dec, atomics.rs `apply32`) and cmpswap (`cmpxchg`,
//! data then compare value, as `atomic32`). Rsub, csub, the float
//! operations, 64-bit atomics and wave64 waves stay call-outs.
//!
//! Why: the atomics kernels of the corpus spent more of their time in the
//! call-outs of their atomics than in their translated code.

use super::emit::{Fx, M, V};
use super::footprint::Footprint;
use super::global::A;
use crate::Access;
use crate::gfx11::exec::vmem::atomics::Rmw;
use crate::gfx11::exec::vmem::fast::GlobalAtomic;
use crate::gfx11::wave::EXEC;

/// The intrinsics this file's code adds to emit.rs `DECLARATIONS`.
pub(crate) const DECLARATIONS: &str = "\
declare i64 @llvm.vector.reduce.or.v32i64(<32 x i64>)
";

/// The largest span the interpreter's fast form takes (exec/vmem/fast.rs
/// `atomic`).
const ATOMIC_SPAN: u64 = 1 << 24;

/// The `atomicrmw` operation of `rmw`, or `cmpxchg` (None for call-outs).
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

impl Fx {
    /// Atomic `a` (entry `k`, exit code `stop` for its call-out, footprint
    /// `fp`) inline; false (nothing emitted) if it must be a call-out.
    pub(super) fn global_atomic(
        &mut self,
        a: &GlobalAtomic,
        k: u32,
        stop: u32,
        fp: &Footprint,
    ) -> bool {
        let Some(op) = operation(a.rmw) else {
            return false;
        };
        if self.wave64 || a.wide {
            return false;
        }
        // Everything the hit uses is read before the first branch, so every
        // path and the join see the same values.
        let addrs = self.addresses_of(a.addr, a.saddr, a.off);
        let data = self.row(a.data);
        let cmp = (a.rmw == Rmw::CmpSwap).then(|| self.row(a.data.wrapping_add(1)));
        let old_dst = a.glc.then(|| self.row(a.dst));
        let m = self.exec_mask();
        let exec = self.sgpr(self.word(EXEC as u8));
        let low = self.ins(format!("select {M} {m}, {A} {addrs}, {A} splat (i64 -1)"));
        let lo = self.ins(format!(
            "call i64 @llvm.vector.reduce.umin.v32i64({A} {low})"
        ));
        let ends = self.ins(format!(
            "call {A} @llvm.uadd.sat.v32i64({A} {addrs}, {A} splat (i64 4))"
        ));
        let high = self.ins(format!("select {M} {m}, {A} {ends}, {A} zeroinitializer"));
        let hi = self.ins(format!(
            "call i64 @llvm.vector.reduce.umax.v32i64({A} {high})"
        ));
        let span = self.ins(format!("sub i64 {hi}, {lo}"));
        // The active lanes' addresses ORed: dword aligned when its low bits are clear.
        let active = self.ins(format!("select {M} {m}, {A} {addrs}, {A} zeroinitializer"));
        let bits = self.ins(format!(
            "call i64 @llvm.vector.reduce.or.v32i64({A} {active})"
        ));
        let low_bits = self.ins(format!("and i64 {bits}, 3"));
        let aligned = self.ins(format!("icmp eq i64 {low_bits}, 0"));
        let some = self.ins(format!("icmp ne i32 {exec}, 0"));
        // `lo < hi` and `hi - lo <= 2^24`.
        let ordered = self.ins(format!("icmp ult i64 {lo}, {hi}"));
        let short = self.ins(format!("icmp ule i64 {span}, {ATOMIC_SPAN}"));
        let mut ok = self.ins(format!("and i1 {some}, {short}"));
        ok = self.ins(format!("and i1 {ok}, {ordered}"));
        ok = self.ins(format!("and i1 {ok}, {aligned}"));
        if a.flat {
            let outside = self.outside_apertures(&addrs);
            ok = self.ins(format!("and i1 {ok}, {outside}"));
        }
        let (lookup, slow, join) = (self.label(), self.label(), self.label());
        self.line(format!("br i1 {ok}, label %{lookup}, label %{slow}"));
        self.start(&lookup);
        let host = self.span_lookup(&lo, &span, Access::Atomic, &slow);
        self.tally(Access::Atomic, &span);
        let lo_row = self.splat64(&lo);
        let offs = self.ins(format!("sub {A} {addrs}, {lo_row}"));

        // One update per active lane, lowest first.
        let (head, body, done) = (self.label(), self.label(), self.label());
        let before = self.current();
        self.line(format!("br label %{head}"));
        self.start(&head);
        let (rest, rest_next) = (self.tmp(), self.tmp());
        let (olds, olds_next) = (self.tmp(), self.tmp());
        self.line(format!(
            "{rest} = phi i32 [ {exec}, %{before} ], [ {rest_next}, %{body} ]"
        ));
        self.line(format!(
            "{olds} = phi {V} [ zeroinitializer, %{before} ], [ {olds_next}, %{body} ]"
        ));
        let empty = self.ins(format!("icmp eq i32 {rest}, 0"));
        self.line(format!("br i1 {empty}, label %{done}, label %{body}"));
        self.start(&body);
        let lane = self.ins(format!("call i32 @llvm.cttz.i32(i32 {rest}, i1 true)"));
        let off = self.ins(format!("extractelement {A} {offs}, i32 {lane}"));
        let p = self.ins(format!("getelementptr i8, ptr {host}, i64 {off}"));
        let src = self.ins(format!("extractelement {V} {data}, i32 {lane}"));
        let old = match &cmp {
            Some(cmp) => {
                let c = self.ins(format!("extractelement {V} {cmp}, i32 {lane}"));
                let pair = self.ins(format!(
                    "cmpxchg ptr {p}, i32 {c}, i32 {src} seq_cst seq_cst, align 4"
                ));
                self.ins(format!("extractvalue {{ i32, i1 }} {pair}, 0"))
            }
            None => self.ins(format!(
                "atomicrmw {op} ptr {p}, i32 {src} seq_cst, align 4"
            )),
        };
        self.line(format!(
            "{olds_next} = insertelement {V} {olds}, i32 {old}, i32 {lane}"
        ));
        let below = self.ins(format!("sub i32 {rest}, 1"));
        self.line(format!("{rest_next} = and i32 {rest}, {below}"));
        self.line(format!("br label %{head}"));
        self.start(&done);
        let written = old_dst
            .as_ref()
            .map(|d| self.ins(format!("select {M} {m}, {V} {olds}, {V} {d}")));
        self.line(format!("br label %{join}"));
        let hit_end = self.current();

        self.start(&slow);
        let writes: Vec<u8> = if a.glc { vec![a.dst] } else { Vec::new() };
        let (reloaded, _) = self.callout_side(k, stop, fp, &writes, &[]);
        self.line(format!("br label %{join}"));
        let slow_end = self.current();

        self.start(&join);
        let fast: Vec<String> = written.into_iter().collect();
        self.merge_rows(&writes, (&fast, &hit_end), (&reloaded, &slow_end));
        true
    }
}
