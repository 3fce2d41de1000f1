//! One decoded block's list (wave32 or wave64) as an LLVM IR function (text), the
//! block structure: registers, exits, call-outs, branches and self-loops.
//!
//! Values are whole-wave vectors: a VGPR row is a `<32 x i32>`, EXEC and
//! the lane masks a `<32 x i1>` (bit L of the SGPR is lane L), so LLVM
//! emits two zmm (or four ymm) operations per 32-lane operation. Every
//! register the entries touch lives in SSA values: a VGPR row is loaded at
//! its first read, each write is blended under the EXEC of that moment (a
//! select), and a dirty register is stored only where memory must hold it:
//! on the path of each exit (a taken branch, a call-out that stops, the
//! end), and before a call-out that may read or write it. A call-out may
//! change any SGPR and SCC, which are reloaded after it; of the rows, only
//! those it may write (`footprint.rs`). A self-loop carries its registers
//! from one pass to the next in phis instead of through memory.
//!
//! Why: moving rows between the register file and host registers took a
//! third of a hot block's time when every call-out stored and reloaded
//! everything and every pass of a loop went through memory.
//!
//! Program order is kept by construction (each entry reads the values the
//! entries before it produced), so no run planning is needed; LLVM's
//! optimiser schedules and folds across the block. The lane operations are
//! in `lanes.rs`, the inline math in `math.rs`.
//!
//! A wave64 block (its `compiled64` list) is emitted the same way, with
//! each per-lane vector entry emitted once per 32-lane half (`wave64.rs`
//! says which entries and how): a row is keyed by its half as well, and
//! the half's EXEC and lane-mask words are the pair's low or high SGPR.

mod deferred_nans;
mod pair;
mod region;

pub(crate) use pair::emit_pair;
pub(crate) use region::emit_region;

use std::collections::BTreeMap;
use std::fmt::Write;

use super::super::abi::{
    CALLOUT_HIGH, CALLOUT_MEMBER_SHIFT, CALLOUT_PASS, EXIT_BARRIER, EXIT_END, EXIT_FELL, EXIT_JUMP,
    EXIT_MEMBER_SHIFT, EXIT_PC, EXIT_SHIFT, EXIT_STOP, FRAME_APERTURES, FRAME_CALLOUT, FRAME_LDS,
    FRAME_LDS_LEN, FRAME_LOOP_BUDGET, FRAME_LOOPS, FRAME_SCC, FRAME_SGPR, FRAME_SPANS, FRAME_TALLY,
    FRAME_VGPR, FRAME_VGPR_HI,
};
use super::footprint::{Footprint, footprint};
use super::lanes::slow_packed_f16;
use super::sqrt_correction::{SqrtCorrection, sqrt_corrections};
use super::wave64::{Wave64Entry, classify};
use crate::gfx11::code_cache::{Block, Compiled};
use crate::gfx11::exec::fast::wave64::high_dst;
use crate::gfx11::exec::fast::{Cond, Fast};
use crate::gfx11::exec::operand::{SSrc, VSrc};
use crate::gfx11::exec::salu::fast::Scalar;
use crate::gfx11::exec::valu::fast_f32::FltOp;
use crate::gfx11::exec::vmem::mubuf::RawBuffer;
use crate::gfx11::jit::target::JitTarget;
use crate::gfx11::opcodes::Op;
use crate::gfx11::wave::{EXEC, NULL, VCC};

/// IR types of the wave-wide values.
pub(super) const V: &str = "<32 x i32>";
pub(super) const F: &str = "<32 x float>";
pub(super) const M: &str = "<32 x i1>";
pub(super) const D: &str = "<32 x double>";

/// The most dwords a lane-by-lane store moves for each lane (a b128 store,
/// or two elements of two dwords): the rows of the function's `%lane_rows`.
pub(super) const LANE_ROWS: usize = 4;

/// How many compare masks `Fx::masks` remembers (the latest).
const MASKS_HELD: usize = 8;

/// Lane `i`'s bit of a lane mask, lane by lane (`Fx::mask_of`).
const LANE_BITS: &str = "<i32 1, i32 2, i32 4, i32 8, i32 16, i32 32, i32 64, i32 128, \
i32 256, i32 512, i32 1024, i32 2048, i32 4096, i32 8192, i32 16384, i32 32768, \
i32 65536, i32 131072, i32 262144, i32 524288, i32 1048576, i32 2097152, i32 4194304, \
i32 8388608, i32 16777216, i32 33554432, i32 67108864, i32 134217728, i32 268435456, \
i32 536870912, i32 1073741824, i32 -2147483648>";

/// Bytes per VGPR row.
const ROW_BYTES: usize = 128;

/// The intrinsics the functions use, declared once per module.
pub(crate) const DECLARATIONS: &str = "\
declare <32 x float> @llvm.fma.v32f32(<32 x float>, <32 x float>, <32 x float>)
declare <32 x double> @llvm.fma.v32f64(<32 x double>, <32 x double>, <32 x double>)
declare <32 x float> @llvm.sqrt.v32f32(<32 x float>)
declare <32 x double> @llvm.sqrt.v32f64(<32 x double>)
declare <32 x float> @llvm.roundeven.v32f32(<32 x float>)
declare <32 x i32> @llvm.smax.v32i32(<32 x i32>, <32 x i32>)
declare <32 x i32> @llvm.smin.v32i32(<32 x i32>, <32 x i32>)
declare <32 x i32> @llvm.umax.v32i32(<32 x i32>, <32 x i32>)
declare <32 x i32> @llvm.umin.v32i32(<32 x i32>, <32 x i32>)
declare <32 x i32> @llvm.fshr.v32i32(<32 x i32>, <32 x i32>, <32 x i32>)
declare <32 x i32> @llvm.ctpop.v32i32(<32 x i32>)
declare <32 x float> @llvm.trunc.v32f32(<32 x float>)
declare i32 @llvm.smax.i32(i32, i32)
declare i32 @llvm.smin.i32(i32, i32)
declare i32 @llvm.umax.i32(i32, i32)
declare i32 @llvm.umin.i32(i32, i32)
declare {i32, i1} @llvm.sadd.with.overflow.i32(i32, i32)
declare {i32, i1} @llvm.ssub.with.overflow.i32(i32, i32)
declare i1 @llvm.expect.i1(i1, i1)
declare i32 @llvm.cttz.i32(i32, i1)
declare i64 @llvm.cttz.i64(i64, i1)
declare i32 @llvm.ctpop.i32(i32)
declare i32 @llvm.abs.i32(i32, i1)
declare i32 @llvm.bitreverse.i32(i32)
declare <32 x i32> @llvm.bitreverse.v32i32(<32 x i32>)
declare i32 @llvm.vector.reduce.umax.v32i32(<32 x i32>)
declare <32 x i32> @llvm.masked.gather.v32i32.v32p0(<32 x ptr>, i32, <32 x i1>, <32 x i32>)
declare void @llvm.masked.scatter.v32i32.v32p0(<32 x i32>, <32 x ptr>, i32, <32 x i1>)
";

/// A splatted i32 constant, as an operand of a `<32 x i32>` instruction.
pub(super) fn splat(v: u32) -> String {
    format!("splat (i32 {})", v as i32)
}

/// An f32 constant in every lane (LLVM writes float constants as the
/// double of the same value, in hex).
pub(super) fn splat_f32(v: f32) -> String {
    format!("splat (float 0x{:016X})", f64::from(v).to_bits())
}

/// A splatted f64 constant (exact: its bits in hex).
pub(super) fn splat_f64(v: f64) -> String {
    format!("splat (double 0x{:016X})", v.to_bits())
}

/// Is `r` an SGPR slot writes reach (`Wave::set_sgpr` drops null and codes
/// from 128)?
pub(super) fn real_sgpr(r: u8) -> bool {
    r < 128 && r as usize != NULL
}

/// A register's value in the current segment.
#[derive(Clone)]
struct Reg {
    v: String,
    /// The register file in memory may hold another value.
    dirty: bool,
}

/// A register the emitter keeps in SSA values.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Key {
    /// A VGPR row of a half ([`row_id`]).
    Row(u16),
    Sgpr(u8),
    Scc,
}

/// The key of VGPR `r`'s row in half `half` (wave64's lanes 32..63 are
/// half 1; wave32 has half 0 only).
fn row_id(half: u8, r: u8) -> u16 {
    u16::from(half) << 8 | u16::from(r)
}

/// The VGPR number of a row key.
fn row_of(id: u16) -> u8 {
    id as u8
}

/// The emitter of one function.
pub(super) struct Fx {
    out: String,
    next: u32,
    /// Register-file base pointers (reloaded after call-outs).
    sgpr: String,
    vgpr: String,
    /// Wave64: the base of the high half's rows.
    vgpr_hi: String,
    scc_ptr: String,
    rows: BTreeMap<u16, Reg>,
    sgprs: BTreeMap<u8, Reg>,
    scc: Option<Reg>,
    /// (EXEC's value, its lane mask).
    exec: Option<(String, String)>,
    /// The compares' results written as lane masks (`set_mask`): (the
    /// SGPR's value, the `<32 x i1>` it was made from), each defined next
    /// to the other, so a later read of the SGPR as a mask (`v_cndmask`
    /// reading VCC) takes the compare's lanes instead of testing the
    /// value's bits lane by lane.
    masks: Vec<(String, String)>,
    /// The label of the basic block being written (phis name it).
    cur: String,
    /// A self-loop's registers carried in phis from one pass to the next
    /// (their values at the back edge are recorded in `back`), and whether
    /// memory may differ from them at the loop's top.
    carried: Vec<(Key, bool)>,
    /// The back edge's label and the carried registers' values on it.
    back: Option<(String, Vec<String>)>,
    /// The registers held in SSA values at the back edge, and whether they
    /// are dirty there.
    live_at_back: Vec<(Key, bool)>,
    /// The copy for waves entering with EXEC all ones.
    full_exec: bool,
    /// The block branches back to its start.
    looped: bool,
    /// The label a self-loop's back edge goes to ("top" for one block; a
    /// region's looping member has its own).
    top: String,
    /// The block is a wave64 wave's (its `compiled64` list, two halves).
    pub(super) wave64: bool,
    /// The CPU the module is compiled for (`target.rs`): which inline
    /// forms it has the instructions for.
    pub(super) target: JitTarget,
    /// The 32-lane half being emitted (wave64's high pass: 1).
    pub(super) half: u8,
    /// During a wave64 high pass: the SGPR the low pass wrote and its value
    /// from before the low pass, which the high pass reads.
    pinned: Option<(u8, String)>,
    /// Emitting a wave64 entry pass by pass: a call-out runs the pass
    /// being emitted only (abi.rs `CALLOUT_PASS`).
    by_pass: bool,
    /// What this emitter's SSA names and labels start with (`pair.rs`
    /// emits two waves into one function).
    prefix: &'static str,
    /// The frame argument's SSA name.
    frame: &'static str,
    /// Two waves in one call (`pair.rs`): the lanes whose f32 results were
    /// NaN so far (`<32 x i1>`), tested once at the end, instead of the NaN
    /// rule per result; and whether a basic block was started, which that
    /// emission cannot follow.
    pub(super) pair_nans: Option<Option<String>>,
    /// A pair function's copy for two full EXECs: the f32 results whose
    /// NaN test waits (SSA names; `deferred_nans.rs`), and whether the
    /// entry being emitted defers its results.
    deferred: Option<std::collections::BTreeSet<String>>,
    keeping: bool,
    branched: bool,
    /// Emitting a region (`region.rs`): its members' start addresses, the
    /// head first; empty for one block.
    region: Vec<u64>,
    /// The member being emitted (0: the head, or the one block).
    member: u32,
    /// In a region's full-EXEC copy, its `any` copy (`@name.any`), where
    /// the code goes on where EXEC is not all ones (`region.rs`
    /// `go_to_copy`).
    any_copy: Option<String>,
    /// Store each register write at once, so that nothing is ever dirty
    /// and the exit and call-out paths store nothing ([`WRITE_THROUGH`]).
    write_through: bool,
    /// Within `with_stand_ins`: writes stay unstored (the stand-ins' writes
    /// are dropped, the others are stored as dirty registers are).
    standing_in: bool,
    /// Register writes emitted, and register stores: what decides
    /// between the two ways of keeping registers ([`WRITE_THROUGH`]).
    writes: usize,
    stores: usize,
    /// The square roots whose correction steps are dropped
    /// (`sqrt_correction.rs`), of the block starting at the address (for
    /// wave64 or not), and the rows their v_sqrt_f32 left (by block start,
    /// instruction and half), waiting for the last step.
    sqrt_fixes: Option<((u64, bool), Vec<SqrtCorrection>)>,
    sqrt_rows: BTreeMap<(u64, usize, u8), String>,
}

/// A function that stores its registers this many times per register
/// write (once on each exit and call-out path for every register dirty
/// there) is emitted again writing each register through to memory as it
/// is written. Its paths then store nothing: a block of many fallible
/// memory accesses, each with a path out holding dozens of dirty rows,
/// otherwise grows with their product (the corpus's private_sort, 48
/// rows loaded then stored to scratch one by one: a megabyte of IR per
/// block, past what compiles in time, llvm/queue.rs `MAX_MODULE_BYTES`).
/// A block that loops on itself keeps its registers in host registers
/// from pass to pass and is never written through.
pub(super) const WRITE_THROUGH: usize = 4;

/// Does an emission with `stores` register stores for `writes` register
/// writes store too often ([`WRITE_THROUGH`])?
fn stores_too_often(stores: usize, writes: usize) -> bool {
    #[cfg(test)]
    if FORCE_WRITE_THROUGH.get() {
        return true;
    }
    stores > WRITE_THROUGH * writes.max(8)
}

#[cfg(test)]
thread_local! {
    /// Tests: write every function through that may be (this thread's
    /// emissions), so the differential tests cover that way too.
    pub(crate) static FORCE_WRITE_THROUGH: std::cell::Cell<bool> =
        const { std::cell::Cell::new(false) };
    /// Tests: give every function its `any` copy alone ([`ONE_COPY_BYTES`]).
    pub(crate) static FORCE_ONE_COPY: std::cell::Cell<bool> =
        const { std::cell::Cell::new(false) };
}

/// A function whose `any` copy takes more IR than this has no `full` copy:
/// its `full` entry point calls the `any` copy, which gives the same
/// results for any EXEC. Both copies of such a function would make a module
/// past the largest the background compiler takes (queue.rs
/// `MAX_MODULE_BYTES`), leaving a hot block interpreted: the wave64 body
/// of the corpus's hip_private_bareiss on gfx942 (1.3 MB of IR in two
/// copies) ran at the interpreter's speed. One copy costs the full-EXEC
/// folding (about 15% in straight-line f32 blocks), not the translation.
pub(super) const ONE_COPY_BYTES: usize = super::queue::MAX_MODULE_BYTES / 2;

/// Does an `any` copy of `bytes` bytes of IR stand alone ([`ONE_COPY_BYTES`])?
fn one_copy(bytes: usize) -> bool {
    #[cfg(test)]
    if FORCE_ONE_COPY.get() {
        return true;
    }
    bytes > ONE_COPY_BYTES
}

/// Is `block` a self-loop (the last entry of its list for the wave size
/// branches to its start)?
fn self_loop(block: &Block, wave64: bool) -> bool {
    matches!(
        block.list(wave64).last().map(|c| c.fast),
        Some(Fast::Branch { target, .. }) if target == block.start
    )
}

/// Emit `block`'s translation for waves of that size (`wave64`) as
/// function `name` into `out`; returns how many entries run inline (the
/// rest are call-outs).
///
/// The block is emitted twice: a copy for waves that enter with every lane
/// of EXEC set, which takes EXEC's value at entry as the constant -1 (so
/// LLVM folds the EXEC blends, the compares' EXEC ands and EXEC tests away
/// until something writes EXEC or a call-out may have), and a copy for any
/// EXEC; `name` loads EXEC and tail-calls the one that applies. Both copies
/// do the same: the constant is the value the full copy's entry test saw.
/// Why: in straight-line f32 blocks the blends took about 15% of the time,
/// and dispatched waves nearly always have all lanes.
///
/// A self-loop's registers stay in host registers from one pass to the
/// next: a first emission finds the registers held at the back edge, the
/// second loads them once before the loop and carries them in phis; the
/// loop's exits store them. In a self-loop's full copy EXEC is a constant
/// only where it is carried (its phi then starts from -1): a later pass
/// starts from what the previous pass left.
pub(crate) fn emit_block(
    out: &mut String,
    name: &str,
    block: &Block,
    wave64: bool,
    target: JitTarget,
) -> usize {
    let looped = self_loop(block, wave64);
    let carried = if looped {
        let mut probe = Fx::new(Vec::new(), false, true, wave64, target);
        probe.body(block);
        probe.live_at_back
    } else {
        Vec::new()
    };
    let copy = |out: &mut String, suffix: &str, full: bool, through: bool| {
        let fx = Fx::new(carried.clone(), full, looped, wave64, target).writing_through(through);
        emit_copy(out, &format!("{name}.{suffix}"), block, fx)
    };
    let inlined = emit_copies(out, name, !looped, copy);
    // EXEC all ones: exec_lo, and for wave64 exec_hi too.
    exec_dispatcher(out, name, &["%frame"], if wave64 { 64 } else { 32 });
    inlined
}

/// Function `name` over the frames `frames` (SSA names of its `ptr`
/// arguments): it loads each frame's EXEC (`bits` wide: both words for a
/// wave64 wave) and tail-calls `{name}.full` when every one is all ones,
/// else `{name}.any`, with the same arguments.
pub(super) fn exec_dispatcher(out: &mut String, name: &str, frames: &[&str], bits: u32) {
    let params: Vec<String> = frames.iter().map(|f| format!("ptr noalias {f}")).collect();
    let args: Vec<String> = frames.iter().map(|f| format!("ptr {f}")).collect();
    let _ = writeln!(
        out,
        "define i32 @{name}({}) nounwind {{\nentry:",
        params.join(", ")
    );
    let mut all = "-1".to_owned();
    for (k, f) in frames.iter().enumerate() {
        let _ = writeln!(
            out,
            "  %p{k} = getelementptr i8, ptr {f}, i64 {FRAME_SGPR}\n  \
             %s{k} = load ptr, ptr %p{k}, align 8\n  \
             %e{k} = getelementptr i8, ptr %s{k}, i64 {}\n  \
             %x{k} = load i{bits}, ptr %e{k}, align 4\n  \
             %all{k} = and i{bits} {all}, %x{k}",
            4 * EXEC,
        );
        all = format!("%all{k}");
    }
    let args = args.join(", ");
    let _ = writeln!(
        out,
        "  %full = icmp eq i{bits} {all}, -1\n  \
         br i1 %full, label %f, label %a\n\
         f:\n  %r1 = tail call i32 @{name}.full({args})\n  ret i32 %r1\n\
         a:\n  %r2 = tail call i32 @{name}.any({args})\n  ret i32 %r2\n}}\n"
    );
}

/// The `any` and `full` copies of function `name` (`@{name}.any` and
/// `@{name}.full`, over one frame) by `copy` (out, suffix, full EXEC,
/// written through; returns the inline count and the register (stores,
/// writes)): both written through where `may_write_through` and the `any`
/// copy stores too often ([`WRITE_THROUGH`]); past [`ONE_COPY_BYTES`] the
/// `full` copy is a call of the `any` one. Returns the `any` copy's inline
/// count.
pub(super) fn emit_copies(
    out: &mut String,
    name: &str,
    may_write_through: bool,
    copy: impl Fn(&mut String, &str, bool, bool) -> (usize, (usize, usize)),
) -> usize {
    let mut any = String::new();
    let (mut inlined, (stores, writes)) = copy(&mut any, "any", false, false);
    let through = may_write_through && stores_too_often(stores, writes);
    if through {
        any.clear();
        inlined = copy(&mut any, "any", false, true).0;
    }
    out.push_str(&any);
    if one_copy(any.len()) {
        let _ = writeln!(
            out,
            "define internal i32 @{name}.full(ptr noalias %frame) nounwind {{\nentry:\n  \
             %r = tail call i32 @{name}.any(ptr %frame)\n  ret i32 %r\n}}\n"
        );
    } else {
        copy(out, "full", true, through);
    }
    inlined
}

/// One copy of `block` as internal function `name`, by `fx` (made for
/// that copy); returns how many entries run inline and `fx`'s register
/// (stores, writes).
fn emit_copy(out: &mut String, name: &str, block: &Block, mut fx: Fx) -> (usize, (usize, usize)) {
    let (pre, inlined) = fx.body(block);
    let _ = writeln!(
        out,
        "define internal i32 @{name}(ptr noalias %frame) nounwind {{"
    );
    out.push_str(&pre);
    out.push_str("top:\n");
    if let Some((label, values)) = &fx.back {
        out.push_str(&carried_phis("", &fx.carried, "entry", label, values));
    }
    out.push_str(&fx.out);
    out.push_str("}\n\n");
    (inlined, fx.store_counts())
}

/// The phis at a loop's top of the `carried` registers (SSA names
/// starting with `prefix`): each its first value from block `entered`, and
/// `values` (one per register) from the back edge's block `back`.
fn carried_phis<'a>(
    prefix: &str,
    carried: impl IntoIterator<Item = &'a (Key, bool)>,
    entered: &str,
    back: &str,
    values: &[String],
) -> String {
    let mut out = String::new();
    for (&(k, _), v) in carried.into_iter().zip(values) {
        let _ = writeln!(
            out,
            "  {} = phi {} [ {}, %{entered} ], [ {v}, %{back} ]",
            phi_name(prefix, k),
            key_type(k),
            init_name(prefix, k)
        );
    }
    out
}

/// The SSA names of a carried register at the loop's top and before it,
/// for the emitter whose names start with `prefix`.
fn phi_name(prefix: &str, k: Key) -> String {
    match k {
        Key::Row(id) => format!("%{prefix}pv{id}"),
        Key::Sgpr(r) => format!("%{prefix}ps{r}"),
        Key::Scc => format!("%{prefix}pscc"),
    }
}

fn init_name(prefix: &str, k: Key) -> String {
    match k {
        Key::Row(id) => format!("%{prefix}iv{id}"),
        Key::Sgpr(r) => format!("%{prefix}is{r}"),
        Key::Scc => format!("%{prefix}iscc"),
    }
}

/// The IR type of register `k`'s value.
fn key_type(k: Key) -> &'static str {
    match k {
        Key::Row(_) => V,
        Key::Sgpr(_) => "i32",
        Key::Scc => "i1",
    }
}

impl Fx {
    fn new(
        carried: Vec<(Key, bool)>,
        full_exec: bool,
        looped: bool,
        wave64: bool,
        target: JitTarget,
    ) -> Fx {
        Fx {
            out: String::new(),
            next: 0,
            sgpr: String::new(),
            vgpr: String::new(),
            vgpr_hi: String::new(),
            scc_ptr: String::new(),
            rows: BTreeMap::new(),
            sgprs: BTreeMap::new(),
            scc: None,
            exec: None,
            masks: Vec::new(),
            cur: "entry".to_string(),
            carried,
            back: None,
            live_at_back: Vec::new(),
            full_exec,
            looped,
            top: "top".to_owned(),
            wave64,
            target,
            half: 0,
            pinned: None,
            by_pass: false,
            prefix: "",
            frame: "%frame",
            pair_nans: None,
            deferred: None,
            keeping: false,
            branched: false,
            region: Vec::new(),
            member: 0,
            any_copy: None,
            write_through: false,
            standing_in: false,
            writes: 0,
            stores: 0,
            sqrt_fixes: None,
            sqrt_rows: BTreeMap::new(),
        }
    }

    /// The SGPRs that hold EXEC: exec_lo, and exec_hi for wave64.
    fn exec_words(&self) -> &'static [u8] {
        const WORDS: [u8; 2] = [EXEC as u8, EXEC as u8 + 1];
        if self.wave64 { &WORDS } else { &WORDS[..1] }
    }

    /// The function's body: the entry block (returned apart, with the loads
    /// of the carried registers), then from label `top` on in `self.out`
    /// (without the label, which phis follow). Returns the entry block and
    /// how many entries run inline.
    fn body(&mut self, block: &Block) -> (String, usize) {
        self.out.push_str("entry:\n");
        // A row's worth of stack for the lane shuffles (shuffle.rs); LLVM
        // drops it, and the others, where none is used.
        self.line(format!("%lanes = alloca {V}, align 4"));
        // The global atomics' per-lane rows (atomic.rs): data, compare
        // value and old values, and the lanes' offsets.
        self.line("%atomic_rows = alloca [3 x <32 x i64>], align 8");
        self.line("%atomic_offs = alloca <32 x i64>, align 8");
        // The lane-by-lane stores' addresses and dwords (global.rs
        // `global_lanes`, lds.rs `store_lanes`).
        self.line("%lane_addrs = alloca <32 x i64>, align 64");
        self.line(format!("%lane_rows = alloca [{LANE_ROWS} x {V}], align 64"));
        self.load_bases();
        for (k, _) in self.carried.clone() {
            if self.full_exec && self.is_exec_word(k) {
                // The entry test saw -1 in memory.
                self.line(format!("{} = or i32 -1, 0", init_name(self.prefix, k)));
            } else {
                self.load_into(k, &init_name(self.prefix, k));
            }
        }
        self.line("br label %top");
        let pre = std::mem::take(&mut self.out);
        self.cur = "top".to_string();
        self.load_bases();
        for (k, dirty) in self.carried.clone() {
            // Dirty where a pass may change it without storing it: the
            // registers the first emission found dirty at the back edge.
            // Those it found clean are clean there in this emission too
            // (it writes and stores the same registers), and they are
            // clean on entry.
            self.carry_from_phi(k, dirty);
        }
        if self.full_exec && !self.looped {
            // Memory holds -1 (the entry test).
            self.assume_full_exec();
        }
        let inlined = self.block(block);
        (pre, inlined)
    }

    /// EXEC holds -1 here, in memory too: its words read as that constant
    /// and are clean.
    fn assume_full_exec(&mut self) {
        for &r in self.exec_words() {
            self.sgprs.insert(
                r,
                Reg {
                    v: "-1".to_owned(),
                    dirty: false,
                },
            );
        }
    }

    /// Is `k` one of EXEC's words (of the wave's size)?
    fn is_exec_word(&self, k: Key) -> bool {
        matches!(k, Key::Sgpr(r) if self.exec_words().contains(&r))
    }

    /// Hold carried register `k` in its phi at the loop's top, dirty where
    /// a pass may change it without storing it.
    fn carry_from_phi(&mut self, k: Key, dirty: bool) {
        self.carry_from_phi_named(k, dirty, self.prefix);
    }

    /// [`Fx::carry_from_phi`] with the phi's name starting with `names`.
    fn carry_from_phi_named(&mut self, k: Key, dirty: bool, names: &str) {
        let r = Reg {
            v: phi_name(names, k),
            dirty,
        };
        match k {
            Key::Row(id) => {
                self.rows.insert(id, r);
            }
            Key::Sgpr(n) => {
                self.sgprs.insert(n, r);
            }
            Key::Scc => self.scc = Some(r),
        }
    }

    /// Load register `k` from memory into SSA name `name`.
    fn load_into(&mut self, k: Key, name: &str) {
        match k {
            Key::Row(id) => {
                let p = self.row_ptr(id);
                self.line(format!("{name} = load {V}, ptr {p}, align 4"));
            }
            Key::Sgpr(r) => {
                let p = self.sgpr_ptr(r);
                self.line(format!("{name} = load i32, ptr {p}, align 4"));
            }
            Key::Scc => {
                let p = self.scc_ptr.clone();
                let b = self.ins(format!("load i8, ptr {p}, align 1"));
                self.line(format!("{name} = icmp ne i8 {b}, 0"));
            }
        }
    }

    /// A fresh SSA name.
    pub(super) fn tmp(&mut self) -> String {
        self.next += 1;
        format!("%{}t{}", self.prefix, self.next)
    }

    /// A fresh label.
    pub(super) fn label(&mut self) -> String {
        self.next += 1;
        format!("{}l{}", self.prefix, self.next)
    }

    /// Emit `%tN = rhs`; returns `%tN`.
    pub(super) fn ins(&mut self, rhs: impl AsRef<str>) -> String {
        let t = self.tmp();
        let _ = writeln!(self.out, "  {t} = {}", rhs.as_ref());
        t
    }

    pub(super) fn line(&mut self, s: impl AsRef<str>) {
        let _ = writeln!(self.out, "  {}", s.as_ref());
    }

    pub(super) fn start(&mut self, label: &str) {
        let _ = writeln!(self.out, "{label}:");
        self.cur = label.to_string();
        self.branched = true;
    }

    /// The label of the basic block being written.
    pub(super) fn current(&self) -> String {
        self.cur.clone()
    }

    pub(super) fn field(&mut self, off: i32) -> String {
        let frame = self.frame;
        self.ins(format!("getelementptr i8, ptr {frame}, i64 {off}"))
    }

    fn load_bases(&mut self) {
        for (off, which) in [(FRAME_SGPR, 0), (FRAME_VGPR, 1), (FRAME_SCC, 2)] {
            let p = self.field(off);
            let v = self.ins(format!("load ptr, ptr {p}, align 8"));
            match which {
                0 => self.sgpr = v,
                1 => self.vgpr = v,
                _ => self.scc_ptr = v,
            }
        }
        if self.wave64 {
            let p = self.field(FRAME_VGPR_HI);
            self.vgpr_hi = self.ins(format!("load ptr, ptr {p}, align 8"));
        }
    }

    /// Emit the block; returns how many entries run inline.
    fn block(&mut self, block: &Block) -> usize {
        let list = block.list(self.wave64);
        let mut inlined = 0;
        let member = self.member << EXIT_MEMBER_SHIFT;
        for (k, c) in list.iter().enumerate() {
            let code = |kind: u32| member | ((k as u32) << EXIT_SHIFT) | kind;
            if self.wave64 {
                match classify(block, c, self.target) {
                    Wave64Entry::Once => {}
                    Wave64Entry::Halves { high, pinned } => {
                        if self.halves(block, c, k as u32, high, pinned) {
                            inlined += 1;
                        } else {
                            let fp = footprint(block, c);
                            self.callout(k as u32, code(EXIT_STOP), &fp);
                        }
                        continue;
                    }
                    Wave64Entry::Callout => {
                        let fp = footprint(block, c);
                        self.callout(k as u32, code(EXIT_STOP), &fp);
                        continue;
                    }
                }
            }
            match c.fast {
                Fast::End => {
                    self.exit(code(EXIT_END));
                    return inlined + 1;
                }
                Fast::Barrier => {
                    let next = block.start + c.offset as u64 + c.len as u64;
                    match self.member_at(next) {
                        Some(_) => self.barrier_switch(code(EXIT_BARRIER)),
                        None => self.exit(code(EXIT_BARRIER)),
                    }
                    return inlined + 1;
                }
                Fast::Branch { cond, target } => {
                    let back = target == block.start && k + 1 == list.len();
                    match self.member_at(target) {
                        // A looping member's back edge: round in phis,
                        // counting the pass into the frame's `passed`.
                        Some(_) if back && self.looped => {
                            let insts = block.insts.len() as u64;
                            self.branch(cond, code(EXIT_JUMP), Some(insts));
                        }
                        // An edge the region follows itself.
                        Some(to) => {
                            let insts = u64::from(c.last) + 1;
                            self.region_jump(cond, code(EXIT_JUMP), to, insts);
                        }
                        None => self.branch(cond, code(EXIT_JUMP), back.then_some(0)),
                    }
                    inlined += 1;
                }
                // s_setpc_b64 / s_swappc_b64 / s_call_b64 (salu/fast.rs
                // `Scalar::Pc` with a jump): the target is read before the
                // return address is written (swappc may overwrite its own
                // source pair), then the code goes on at the member
                // starting there (a region's call or return) or the wave
                // loop at the frame's `jump_to` (emit/region.rs `pc_jump`).
                Fast::Scalar(Scalar::Pc {
                    dst,
                    ret,
                    jump: Some(a),
                }) => {
                    let target = self.read64(a);
                    // `Wave::set_sgpr64`: each half dropped past the file.
                    if real_sgpr(dst) {
                        self.set_sgpr(dst, format!("{}", ret as u32 as i32));
                    }
                    if dst < 127 && real_sgpr(dst + 1) {
                        self.set_sgpr(dst + 1, format!("{}", (ret >> 32) as u32 as i32));
                    }
                    self.pc_jump(&target, code(EXIT_PC), u64::from(c.last) + 1);
                    return inlined + 1;
                }
                Fast::SLoad {
                    n,
                    dst,
                    sbase,
                    soff,
                    imm,
                } => {
                    self.s_load((n, dst, sbase, soff, imm), k as u32, code(EXIT_STOP));
                    inlined += 1;
                }
                _ => {
                    if self.inline(block, c, k as u32) {
                        inlined += 1;
                    } else {
                        let fp = footprint(block, c);
                        self.callout(k as u32, code(EXIT_STOP), &fp);
                    }
                }
            }
        }
        match self.fall_through(block) {
            Some(to) => self.region_edge(to, block.insts.len() as u64),
            None => self.exit(member | EXIT_FELL),
        }
        inlined
    }

    /// Entry `k` (`c`) inline ([`Fx::inline_form`]); false (nothing
    /// emitted) if it must be a call-out. The last correction step of a
    /// square root (`sqrt_correction.rs`) leaves its register the value
    /// the v_sqrt_f32 made, under the same EXEC, which the steps compute
    /// too: LLVM then drops those the rest does not read.
    fn inline(&mut self, block: &Block, c: &Compiled, k: u32) -> bool {
        let key = (block.start, self.wave64);
        if self.sqrt_fixes.as_ref().is_none_or(|(at, _)| *at != key) {
            self.sqrt_fixes = Some((key, sqrt_corrections(block, self.wave64)));
        }
        let fixes = self.sqrt_fixes.as_ref().map_or(&[][..], |(_, f)| &f[..]);
        let (index, last) = (c.index as usize, c.last as usize);
        let sqrt = fixes.iter().find(|f| f.sqrt == last).copied();
        let ends = fixes
            .iter()
            .find(|f| f.last == last && index == last)
            .copied();
        // Wave64 emits each entry for one half at a time.
        let half = self.half;
        let at = |f: SqrtCorrection| (block.start, f.sqrt, half);
        let old = ends.map(|f| self.row(f.dst));
        if !self.inline_form(block, c, k) {
            if let Some(f) = sqrt {
                self.sqrt_rows.remove(&at(f));
            }
            return false;
        }
        if let Some(f) = sqrt {
            let s = self.row(f.row);
            self.sqrt_rows.insert(at(f), s);
        }
        if let (Some(f), Some(old)) = (ends, old)
            && let Some(s) = self.sqrt_rows.remove(&at(f))
        {
            let m = self.exec_mask();
            let n = self.ins(format!("select {M} {m}, {V} {s}, {V} {old}"));
            self.set_row_whole(f.dst, n);
        }
        true
    }

    /// Entry `k` (`c`) inline: a memory access (with the call-out of its
    /// slow path), or a form [`Fx::entry`] covers; false (nothing emitted)
    /// if it must be a call-out.
    fn inline_form(&mut self, block: &Block, c: &Compiled, k: u32) -> bool {
        let stop = (self.member << EXIT_MEMBER_SHIFT) | (k << EXIT_SHIFT) | EXIT_STOP;
        if matches!(c.fast, Fast::Slow)
            && let Some(b) = RawBuffer::of_inst(&block.insts[c.index as usize])
        {
            self.raw_buffer(&b, k, stop, &footprint(block, c));
            return true;
        }
        match c.fast {
            Fast::Ds(d) => self.ds(&d, k, stop, &footprint(block, c)),
            Fast::DsSubword(d) => self.ds_subword(&d, k, stop, &footprint(block, c)),
            Fast::Coalesced(g) => self.global(&g, k, stop, &footprint(block, c)),
            Fast::Scratch(s) => self.scratch(&s, k, stop, &footprint(block, c)),
            Fast::GlobalAtomic(a) => {
                return self.global_atomic(&a, k, stop, &footprint(block, c));
            }
            Fast::F64(f) if f.op.divides() && !self.wave64 => {
                return self.division64(&f, (k, stop, &footprint(block, c)));
            }
            Fast::Flt(f) if f.op == FltOp::FmacF16 => {
                return self.fmac16(&f, (k, stop, &footprint(block, c)));
            }
            Fast::Slow if block.insts[c.index as usize].dpp.is_some() => {
                return self.dpp(block, c);
            }
            Fast::Slow if block.insts[c.index as usize].op == Op::VPkFmaF16 => {
                return slow_packed_f16(&block.insts[c.index as usize])
                    .is_some_and(|p| self.pk_fma16(&p, (k, stop, &footprint(block, c))));
            }
            _ => return self.entry(block, c),
        }
        true
    }

    /// Wave64: entry `k` (`c`) inline for lanes 0..31, then as `high` for
    /// lanes 32..63, reading SGPR `pinned` as it was before the first pass
    /// (`wave64.rs`); false (nothing emitted) if it must be a call-out. A
    /// memory access's slow path calls out for its pass alone.
    fn halves(
        &mut self,
        block: &Block,
        c: &Compiled,
        k: u32,
        high: Fast,
        pinned: Option<u8>,
    ) -> bool {
        let before = pinned.map(|d| (d, self.sgpr(d)));
        self.by_pass = true;
        let low = self.inline(block, c, k);
        let inline = low && {
            self.half = 1;
            self.pinned = before;
            let high = Compiled { fast: high, ..*c };
            self.inline(block, &high, k)
        };
        (self.half, self.pinned, self.by_pass) = (0, None, false);
        // The same form in the other half: the emitter covers it too.
        assert!(
            inline || !low,
            "the high pass of {:?} has no inline form",
            c.fast
        );
        low
    }

    /// Store the dirty registers `skip` does not name, leaving them
    /// dirty (for a path that leaves the others in SSA values) or clean.
    fn store_dirty(&mut self, skip: impl Fn(Key) -> bool, clean: bool) {
        let mut dirty: Vec<(Key, String)> = Vec::new();
        for (&id, v) in self.rows.iter_mut() {
            if v.dirty && !skip(Key::Row(id)) {
                v.dirty &= !clean;
                dirty.push((Key::Row(id), v.v.clone()));
            }
        }
        for (&r, v) in self.sgprs.iter_mut() {
            if v.dirty && !skip(Key::Sgpr(r)) {
                v.dirty &= !clean;
                dirty.push((Key::Sgpr(r), v.v.clone()));
            }
        }
        if let Some(v) = self.scc.as_mut().filter(|s| s.dirty && !skip(Key::Scc)) {
            v.dirty &= !clean;
            dirty.push((Key::Scc, v.v.clone()));
        }
        for (k, v) in dirty {
            self.store_key(k, &v);
        }
    }

    /// Store `v`, the value of register `k`, to memory.
    fn store_key(&mut self, k: Key, v: &str) {
        self.stores += 1;
        match k {
            Key::Row(id) => {
                let p = self.row_ptr(id);
                self.line(format!("store {V} {v}, ptr {p}, align 4"));
            }
            Key::Sgpr(r) => {
                let p = self.sgpr_ptr(r);
                self.line(format!("store i32 {v}, ptr {p}, align 4"));
            }
            Key::Scc => {
                let b = self.ins(format!("zext i1 {v} to i8"));
                let p = self.scc_ptr.clone();
                self.line(format!("store i8 {b}, ptr {p}, align 1"));
            }
        }
    }

    /// Return `code` with the registers in memory.
    fn exit(&mut self, code: u32) {
        self.store_dirty(|_| false, false);
        self.line(format!("ret i32 {code}"));
    }

    /// Run entry `k` through the call-out, which may touch the rows of
    /// `fp`, every SGPR and SCC; leave with `stop` unless it flows on.
    fn callout(&mut self, k: u32, stop: u32, fp: &Footprint) {
        self.call_entry(k, stop, fp, true);
        // A call-out may change any SGPR, SCC, and the rows it writes.
        self.sgprs.clear();
        self.scc = None;
        self.exec = None;
        self.rows.retain(|&id, _| !fp.writes(row_of(id)));
    }

    /// The call of entry `k`'s call-out: the registers it may see stored,
    /// the call (then the frame's pointers reloaded where `reload_bases`),
    /// and a path that leaves with `stop` unless it flows on; the code goes
    /// on where it does.
    fn call_entry(&mut self, k: u32, stop: u32, fp: &Footprint, reload_bases: bool) {
        // It reads memory: store what it may see; rows it may write only
        // in part (EXEC, a half) keep the rest of the stored value.
        self.store_dirty(
            |key| matches!(key, Key::Row(id) if !fp.touches(row_of(id))),
            true,
        );
        let p = self.field(FRAME_CALLOUT);
        let f = self.ins(format!("load ptr, ptr {p}, align 8"));
        let arg = match (self.by_pass, self.half) {
            (false, _) => k | (self.member << CALLOUT_MEMBER_SHIFT),
            (true, 0) => k | CALLOUT_PASS | (self.member << CALLOUT_MEMBER_SHIFT),
            (true, _) => k | CALLOUT_PASS | CALLOUT_HIGH | (self.member << CALLOUT_MEMBER_SHIFT),
        };
        let frame = self.frame;
        let r = self.ins(format!("call i32 {f}(ptr {frame}, i32 {})", arg as i32));
        if reload_bases {
            // It refreshes the frame's pointers.
            self.load_bases();
        }
        let c = self.ins(format!("icmp ne i32 {r}, 0"));
        let (off, on) = (self.label(), self.label());
        self.line(format!("br i1 {c}, label %{off}, label %{on}"));
        self.start(&off);
        // The dirty rows it cannot touch; everything else is stored.
        self.store_dirty(|_| false, false);
        self.line(format!("ret i32 {stop}"));
        self.start(&on);
    }

    /// Run entry `k` through the call-out on a side path that rejoins the
    /// inline code (the entry's slow case): as `callout` (leaving with
    /// `stop` unless it flows on), then load the rows of `rows` and the
    /// SGPRs of `sgprs` the call-out wrote and return their values. The
    /// register state after it is the one before it: the caller guarantees
    /// that the entry writes no SCC or EXEC and no row or SGPR outside
    /// `rows` and `sgprs`, whose values it merges itself. The frame's
    /// pointers are not reloaded: a call-out refreshes them to the same
    /// wave, LDS and span cache.
    pub(super) fn callout_side(
        &mut self,
        k: u32,
        stop: u32,
        fp: &Footprint,
        rows: &[u8],
        sgprs: &[u8],
    ) -> (Vec<String>, Vec<String>) {
        let saved = (
            self.rows.clone(),
            self.sgprs.clone(),
            self.scc.clone(),
            self.exec.clone(),
        );
        self.call_entry(k, stop, fp, false);
        let rows = rows
            .iter()
            .map(|&r| {
                let p = self.row_ptr(row_id(self.half, r));
                self.ins(format!("load {V}, ptr {p}, align 4"))
            })
            .collect();
        let sgprs = sgprs
            .iter()
            .map(|&r| {
                let p = self.sgpr_ptr(r);
                self.ins(format!("load i32, ptr {p}, align 4"))
            })
            .collect();
        // Registers stored here are dirty again on the path that did not store them.
        (self.rows, self.sgprs, self.scc, self.exec) = saved;
        (rows, sgprs)
    }

    /// Entry `k` inline unless `rare` (an i1, expected false) holds, then
    /// through its call-out on a side path: `fast` emits the inline form,
    /// which writes VGPRs `rows` and SGPRs `sgprs` and no other register;
    /// the call-out's values of them are reloaded, and the two paths meet
    /// in phis. For forms whose common case is simple and whose rare cases
    /// are the interpreter's long per-lane rules.
    pub(super) fn inline_unless(
        &mut self,
        rare: &str,
        (k, stop, fp): (u32, u32, &Footprint),
        rows: &[u8],
        sgprs: &[u8],
        fast: impl FnOnce(&mut Fx),
    ) {
        let rare = self.ins(format!("call i1 @llvm.expect.i1(i1 {rare}, i1 false)"));
        let (quick, slow, join) = (self.label(), self.label(), self.label());
        self.line(format!("br i1 {rare}, label %{slow}, label %{quick}"));
        let saved = (
            self.rows.clone(),
            self.sgprs.clone(),
            self.scc.clone(),
            self.exec.clone(),
            self.masks.clone(),
        );
        self.start(&quick);
        fast(self);
        let fast_rows: Vec<String> = rows.iter().map(|&r| self.row(r)).collect();
        let fast_sgprs: Vec<String> = sgprs.iter().map(|&r| self.sgpr(r)).collect();
        let fast_end = self.current();
        self.line(format!("br label %{join}"));
        // The side path starts from what the entry found.
        (self.rows, self.sgprs, self.scc, self.exec, self.masks) = saved;
        self.start(&slow);
        let (called_rows, called_sgprs) = self.callout_side(k, stop, fp, rows, sgprs);
        let slow_end = self.current();
        self.line(format!("br label %{join}"));
        self.start(&join);
        // Every phi first: writing through stores each value it sets.
        let row_phis = self.join_phis(V, (&fast_rows, &fast_end), (&called_rows, &slow_end));
        let sgpr_phis = self.join_phis("i32", (&fast_sgprs, &fast_end), (&called_sgprs, &slow_end));
        for (&r, v) in rows.iter().zip(row_phis) {
            self.set_row_whole(r, v);
        }
        for (&r, v) in sgprs.iter().zip(sgpr_phis) {
            self.set_sgpr(r, v);
        }
    }

    /// A loop over the set bits of `exec` (an i32), lowest first: `body`
    /// emits one pass's straight-line code for lane `l` (an i32 value);
    /// the code goes on after the loop.
    pub(super) fn each_lane(&mut self, exec: &str, body: impl FnOnce(&mut Fx, &str)) {
        let from = self.current();
        let (head, pass, latch, done) = (self.label(), self.label(), self.label(), self.label());
        self.line(format!("br label %{head}"));
        self.start(&head);
        let left = self.tmp();
        let rest = self.tmp();
        self.line(format!(
            "{left} = phi i32 [ {exec}, %{from} ], [ {rest}, %{latch} ]"
        ));
        let empty = self.ins(format!("icmp eq i32 {left}, 0"));
        self.line(format!("br i1 {empty}, label %{done}, label %{pass}"));
        self.start(&pass);
        let l = self.ins(format!("call i32 @llvm.cttz.i32(i32 {left}, i1 true)"));
        body(self, &l);
        self.line(format!("br label %{latch}"));
        self.start(&latch);
        let below = self.ins(format!("sub i32 {left}, 1"));
        self.line(format!("{rest} = and i32 {left}, {below}"));
        self.line(format!("br label %{head}"));
        self.start(&done);
    }

    /// [`Fx::each_lane`] with lane `l`'s element of `addrs` (a row of
    /// 32 `elem`) as the body's third argument, read from the function's
    /// `%lane_addrs` slot where `addrs` is stored once before the loop: an
    /// element picked by the loop's lane index would make LLVM write the
    /// whole row to the stack again in each pass.
    pub(super) fn each_staged_lane(
        &mut self,
        exec: &str,
        elem: &str,
        addrs: &str,
        body: impl FnOnce(&mut Fx, &str, &str),
    ) {
        self.line(format!(
            "store <32 x {elem}> {addrs}, ptr %lane_addrs, align 64"
        ));
        self.each_lane(exec, |fx, l| {
            let at = fx.ins(format!("getelementptr {elem}, ptr %lane_addrs, i32 {l}"));
            let a = fx.ins(format!("load {elem}, ptr {at}"));
            body(fx, l, &a);
        });
    }

    /// Where an entry's inline path (ending in block `fast.1`) and its
    /// call-out side path (`slow.1`) join: each of `rows` takes the value
    /// its path left (`fast.0`, `slow.0`, in `rows` order).
    pub(super) fn merge_rows(
        &mut self,
        rows: &[u8],
        fast: (&[String], &str),
        slow: (&[String], &str),
    ) {
        // Every phi first: writing through stores each value it sets.
        let phis = self.join_phis(V, fast, slow);
        for (&r, v) in rows.iter().zip(phis) {
            self.set_row_whole(r, v);
        }
    }

    /// The phis (of IR type `ty`) of values joining from the paths `fast`
    /// and `slow` (their values, in order, and the block each ends in).
    pub(super) fn join_phis(
        &mut self,
        ty: &str,
        fast: (&[String], &str),
        slow: (&[String], &str),
    ) -> Vec<String> {
        fast.0
            .iter()
            .zip(slow.0)
            .map(|(quick, called)| {
                self.ins(format!(
                    "phi {ty} [ {quick}, %{} ], [ {called}, %{} ]",
                    fast.1, slow.1
                ))
            })
            .collect()
    }

    /// The frame's FLAT apertures (abi.rs): the LDS and private bases, i64s.
    pub(super) fn apertures(&mut self) -> [String; 2] {
        [0, 8].map(|k| {
            let p = self.field(FRAME_APERTURES + k);
            self.ins(format!("load i64, ptr {p}, align 8"))
        })
    }

    /// The frame's span cache slots and tally counters (abi.rs).
    pub(super) fn spans(&mut self) -> (String, String) {
        let p = self.field(FRAME_SPANS);
        let slots = self.ins(format!("load ptr, ptr {p}, align 8"));
        let p = self.field(FRAME_TALLY);
        let tally = self.ins(format!("load ptr, ptr {p}, align 8"));
        (slots, tally)
    }

    /// The workgroup's LDS: its base pointer and the length (an i64)
    /// inline accesses may use (0: none, `abi.rs`).
    pub(super) fn lds(&mut self) -> (String, String) {
        let p = self.field(FRAME_LDS);
        let base = self.ins(format!("load ptr, ptr {p}, align 8"));
        let p = self.field(FRAME_LDS_LEN);
        let len = self.ins(format!("load i64, ptr {p}, align 8"));
        (base, len)
    }

    /// A branch form: leave with `taken` when its condition holds; `back`:
    /// the branch goes to the block's start, which the code follows itself
    /// while the frame's loop budget lasts, adding that many instructions
    /// to the frame's `passed` on each pass (a region's member; 0 for a
    /// block alone, whose passes the wave loop counts from the budget).
    fn branch(&mut self, cond: Cond, taken: u32, back: Option<u64>) {
        let t = self.branch_condition(cond);
        let (yes, no) = (self.label(), self.label());
        self.line(format!("br i1 {t}, label %{yes}, label %{no}"));
        self.start(&yes);
        if let Some(insts) = back {
            let leave = self.budgeted_jump();
            if insts > 0 {
                self.add_passed(insts);
            }
            self.live_at_back = self.held();
            // The carried registers go round in phis, the others through
            // memory. What this path loads is not seen by the others.
            let saved = (
                self.rows.clone(),
                self.sgprs.clone(),
                self.scc.clone(),
                self.exec.clone(),
            );
            let carried: Vec<Key> = self.carried.iter().map(|&(k, _)| k).collect();
            let values: Vec<String> = carried.iter().map(|&k| self.value(k)).collect();
            self.store_dirty(|k| carried.contains(&k), false);
            self.back = Some((self.current(), values));
            let top = self.top.clone();
            self.line(format!("br label %{top}"));
            (self.rows, self.sgprs, self.scc, self.exec) = saved;
            self.start(&leave);
        }
        self.exit(taken);
        self.start(&no);
    }

    /// A taken branch the code follows itself, counted against the frame's
    /// loop budget: while the budget lasts the code goes on in a new basic
    /// block with the frame's count raised, where the caller emits the
    /// path it follows; returns the label of the block for when the budget
    /// is spent, which the caller starts after that path.
    pub(super) fn budgeted_jump(&mut self) -> String {
        let lp = self.field(FRAME_LOOPS);
        let loops = self.ins(format!("load i32, ptr {lp}, align 4"));
        let bp = self.field(FRAME_LOOP_BUDGET);
        let budget = self.ins(format!("load i32, ptr {bp}, align 4"));
        let more = self.ins(format!("icmp ult i32 {loops}, {budget}"));
        let (again, leave) = (self.label(), self.label());
        self.line(format!("br i1 {more}, label %{again}, label %{leave}"));
        self.start(&again);
        let n = self.ins(format!("add i32 {loops}, 1"));
        self.line(format!("store i32 {n}, ptr {lp}, align 4"));
        leave
    }

    /// Whether a branch form with condition `cond` is taken, as an i1.
    pub(super) fn branch_condition(&mut self, cond: Cond) -> String {
        match cond {
            Cond::Always => "true".to_owned(),
            Cond::Scc0 => {
                let s = self.scc();
                self.ins(format!("xor i1 {s}, true"))
            }
            Cond::Scc1 => self.scc(),
            Cond::Vccz | Cond::Vccnz | Cond::Execz | Cond::Execnz => {
                let reg = if matches!(cond, Cond::Vccz | Cond::Vccnz) {
                    VCC
                } else {
                    EXEC
                };
                let mut v = self.sgpr(reg as u8);
                if self.wave64 {
                    // The whole pair (exec/fast/mod.rs: `vcc_mask`, `exec_mask`).
                    let hi = self.sgpr(reg as u8 + 1);
                    v = self.ins(format!("or i32 {v}, {hi}"));
                }
                let cc = if matches!(cond, Cond::Vccz | Cond::Execz) {
                    "eq"
                } else {
                    "ne"
                };
                self.ins(format!("icmp {cc} i32 {v}, 0"))
            }
        }
    }

    /// The registers held in SSA values now, and whether they are dirty.
    fn held(&self) -> Vec<(Key, bool)> {
        let mut keys: Vec<(Key, bool)> = self
            .rows
            .iter()
            .map(|(&id, v)| (Key::Row(id), v.dirty))
            .collect();
        keys.extend(self.sgprs.iter().map(|(&r, v)| (Key::Sgpr(r), v.dirty)));
        keys.extend(self.scc.as_ref().map(|v| (Key::Scc, v.dirty)));
        keys
    }

    /// Register `k`'s value (loaded if it is not held).
    fn value(&mut self, k: Key) -> String {
        match k {
            Key::Row(id) => self.row_by_id(id),
            Key::Sgpr(r) => self.sgpr(r),
            Key::Scc => self.scc(),
        }
    }

    // Registers.

    fn row_ptr(&mut self, id: u16) -> String {
        let v = if id >> 8 == 0 {
            self.vgpr.clone()
        } else {
            self.vgpr_hi.clone()
        };
        self.ins(format!(
            "getelementptr i8, ptr {v}, i64 {}",
            row_of(id) as usize * ROW_BYTES
        ))
    }

    fn sgpr_ptr(&mut self, r: u8) -> String {
        let s = self.sgpr.clone();
        self.ins(format!(
            "getelementptr i8, ptr {s}, i64 {}",
            4 * (r as usize & 127)
        ))
    }

    /// VGPR `r`'s row in the half being emitted (loaded at its first read).
    pub(super) fn row(&mut self, r: u8) -> String {
        self.row_by_id(row_id(self.half, r))
    }

    /// VGPR `r`'s row in half `half` (wave64's lanes 32..63 are half 1),
    /// whichever half is being emitted.
    pub(super) fn half_row(&mut self, half: u8, r: u8) -> String {
        self.row_by_id(row_id(half, r))
    }

    /// VGPR `r`'s row in half `half` now holds `v` in every lane; memory
    /// may differ.
    pub(super) fn set_half_row(&mut self, half: u8, r: u8, v: String) {
        self.hold(Key::Row(row_id(half, r)), v);
    }

    /// Register `k` now holds `v`: dirty, or stored at once when writing
    /// through.
    fn hold(&mut self, k: Key, v: String) {
        self.writes += 1;
        let dirty = !self.write_through || self.standing_in;
        if !dirty {
            self.store_key(k, &v);
        }
        if let Key::Row(_) = k {
            self.defer_written(&v);
        }
        let reg = Reg { v, dirty };
        match k {
            Key::Row(id) => {
                self.rows.insert(id, reg);
            }
            Key::Sgpr(r) => {
                self.sgprs.insert(r, reg);
            }
            Key::Scc => self.scc = Some(reg),
        }
    }

    /// Emit with each register write stored at once where `through`
    /// ([`WRITE_THROUGH`]).
    pub(super) fn writing_through(mut self, through: bool) -> Fx {
        self.write_through = through;
        self
    }

    /// (Register stores, register writes) emitted so far.
    pub(super) fn store_counts(&self) -> (usize, usize) {
        (self.stores, self.writes)
    }

    fn row_by_id(&mut self, id: u16) -> String {
        if let Some(row) = self.rows.get(&id) {
            return row.v.clone();
        }
        let p = self.row_ptr(id);
        let v = self.ins(format!("load {V}, ptr {p}, align 4"));
        self.rows.insert(
            id,
            Reg {
                v: v.clone(),
                dirty: false,
            },
        );
        v
    }

    /// Write `v` to VGPR `r` under EXEC (inactive lanes keep their value).
    pub(super) fn set_row(&mut self, r: u8, v: String) {
        let old = self.row(r);
        let m = self.exec_mask();
        let n = self.ins(format!("select {M} {m}, {V} {v}, {V} {old}"));
        self.set_row_whole(r, n);
    }

    /// VGPR `r` now holds `v` in every lane (already blended under EXEC by
    /// the caller); memory may differ.
    pub(super) fn set_row_whole(&mut self, r: u8, v: String) {
        self.hold(Key::Row(row_id(self.half, r)), v);
    }

    /// SGPR `r & 127`'s value (an i32); in a wave64 high pass, the pinned
    /// SGPR's value from before the low pass.
    pub(super) fn sgpr(&mut self, r: u8) -> String {
        let r = r & 127;
        if let Some((p, v)) = &self.pinned
            && *p == r
        {
            return v.clone();
        }
        if let Some(s) = self.sgprs.get(&r) {
            return s.v.clone();
        }
        let p = self.sgpr_ptr(r);
        let v = self.ins(format!("load i32, ptr {p}, align 4"));
        self.sgprs.insert(
            r,
            Reg {
                v: v.clone(),
                dirty: false,
            },
        );
        v
    }

    /// Emit one entry with `f` while VGPR `r`'s row reads `row` and EXEC's
    /// word reads `exec` (neither is ever stored); afterwards both read as
    /// before, whatever `f` wrote to them. Returns `f`'s result.
    pub(super) fn with_stand_ins(
        &mut self,
        r: u8,
        row: String,
        exec: String,
        f: impl FnOnce(&mut Fx) -> bool,
    ) -> bool {
        let id = row_id(self.half, r);
        let word = self.word(EXEC as u8);
        let old_row = self.rows.insert(
            id,
            Reg {
                v: row,
                dirty: false,
            },
        );
        let old_exec = self.sgprs.insert(
            word,
            Reg {
                v: exec,
                dirty: false,
            },
        );
        let standing_in = std::mem::replace(&mut self.standing_in, true);
        let done = f(self);
        self.standing_in = standing_in;
        match old_row {
            Some(old) => self.rows.insert(id, old),
            None => self.rows.remove(&id),
        };
        match old_exec {
            Some(old) => self.sgprs.insert(word, old),
            None => self.sgprs.remove(&word),
        };
        done
    }

    /// `Wave::set_sgpr` of a pre-resolved code (below 128; null drops).
    pub(super) fn set_sgpr(&mut self, r: u8, v: String) {
        if real_sgpr(r) {
            self.hold(Key::Sgpr(r), v);
        }
    }

    /// SCC as an i1.
    pub(super) fn scc(&mut self) -> String {
        if let Some(s) = &self.scc {
            return s.v.clone();
        }
        let p = self.scc_ptr.clone();
        let b = self.ins(format!("load i8, ptr {p}, align 1"));
        let v = self.ins(format!("icmp ne i8 {b}, 0"));
        self.scc = Some(Reg {
            v: v.clone(),
            dirty: false,
        });
        v
    }

    pub(super) fn set_scc(&mut self, v: String) {
        self.hold(Key::Scc, v);
    }

    /// The SGPR of the half's word of the lane mask at `r` (wave32: `r`).
    pub(super) fn word(&self, r: u8) -> u8 {
        r + self.half
    }

    /// EXEC's lane mask now (of the half being emitted).
    pub(super) fn exec_mask(&mut self) -> String {
        let e = self.sgpr(self.word(EXEC as u8));
        if let Some((v, m)) = &self.exec
            && *v == e
        {
            return m.clone();
        }
        let m = self.mask_of(&e);
        self.exec = Some((e, m.clone()));
        m
    }

    /// The index of EXEC's lowest lane (32 when EXEC is empty).
    pub(super) fn first_active_lane(&mut self) -> String {
        let e = self.sgpr(self.word(EXEC as u8));
        self.ins(format!("call i32 @llvm.cttz.i32(i32 {e}, i1 false)"))
    }

    /// `v` (of vector type `ty`) with the lanes outside EXEC zero.
    pub(super) fn zero_inactive(&mut self, ty: &str, v: &str) -> String {
        let m = self.exec_mask();
        self.ins(format!("select {M} {m}, {ty} {v}, {ty} zeroinitializer"))
    }

    /// A 32-bit value's lanes as a mask: lane `i` tests bit `i` of the
    /// value in every lane. `bitcast i32 to <32 x i1>` says the same, but
    /// libLLVM-19's x86 code generator loops forever on some selects of
    /// such masks with AVX-512 (llvm/llvm-project#123333, fixed in LLVM
    /// 20: `combineBitcastToBoolVector` before legalisation); the test
    /// form compiles to a broadcast and a `vptestmd` there, and to what
    /// the bitcast gives on AVX2.
    pub(super) fn mask_of(&mut self, bits: &str) -> String {
        if let Some(m) = self.known_mask(bits) {
            return m;
        }
        let row = self.splat_value(bits);
        let hit = self.ins(format!("and {V} {row}, {LANE_BITS}"));
        self.ins(format!("icmp ne {V} {hit}, zeroinitializer"))
    }

    /// The lanes of 32-bit value `bits` without testing its bits: a
    /// compare's mask (`set_mask`), a bitwise op of such masks
    /// (`bitwise_mask`), or the constants 0 and -1.
    fn known_mask(&self, bits: &str) -> Option<String> {
        match bits {
            "-1" => Some("splat (i1 true)".to_owned()),
            "0" => Some("zeroinitializer".to_owned()),
            _ => self
                .masks
                .iter()
                .find(|(v, _)| v == bits)
                .map(|(_, m)| m.clone()),
        }
    }

    /// Value `bits`, just defined, has the lanes of mask `m`, defined in
    /// the same basic block (so `m` is available wherever `bits` is).
    fn remember_mask(&mut self, bits: &str, m: String) {
        if self.masks.len() == MASKS_HELD {
            self.masks.remove(0);
        }
        self.masks.push((bits.to_owned(), m));
    }

    /// `r` = `inst` (and, or, xor) of 32-bit values `x` and `y`, the
    /// operands inverted first where `not` says, was just emitted: where
    /// both operands' lanes are known, emit the same op on the lanes and
    /// remember them as `r`'s (the saveexec forms and the SALU ops that
    /// combine VCC and EXEC keep the compares' lanes that way).
    pub(super) fn bitwise_mask(&mut self, r: &str, inst: &str, x: &str, y: &str, not: [bool; 2]) {
        let (Some(mx), Some(my)) = (self.known_mask(x), self.known_mask(y)) else {
            return;
        };
        let mut lanes = [mx, my];
        for (m, inverted) in lanes.iter_mut().zip(not) {
            if inverted {
                *m = self.ins(format!("xor {M} {m}, splat (i1 true)"));
            }
        }
        let m = self.ins(format!("{inst} {M} {}, {}", lanes[0], lanes[1]));
        self.remember_mask(r, m);
    }

    /// A source's row: a VGPR's, or a uniform value splatted.
    pub(super) fn src(&mut self, s: VSrc) -> String {
        match s {
            VSrc::Vgpr(r) => self.row(r),
            VSrc::Sgpr(r) => {
                let x = self.sgpr(r);
                self.splat_value(&x)
            }
            VSrc::Imm(v) => splat(v),
        }
    }

    /// A runtime i32 in every lane.
    pub(super) fn splat_value(&mut self, x: &str) -> String {
        let i = self.ins(format!("insertelement {V} poison, i32 {x}, i64 0"));
        self.ins(format!(
            "shufflevector {V} {i}, {V} poison, {V} zeroinitializer"
        ))
    }

    /// A scalar source's value.
    pub(super) fn sread(&mut self, s: SSrc) -> String {
        match s {
            SSrc::Reg(r) => self.sgpr(r),
            SSrc::Imm(v) => format!("{}", v as i32),
        }
    }

    /// The lane mask an SGPR (or constant) source holds; in a wave64 high
    /// pass the pair's high word (exec/env.rs `mask_read`: 0 past the
    /// file). A constant has no high word here: `wave64.rs` makes such an
    /// entry a call-out.
    pub(super) fn mask_src(&mut self, s: SSrc) -> String {
        let bits = match s {
            SSrc::Reg(r) if self.half == 1 && r >= 127 => "0".to_owned(),
            SSrc::Reg(r) => self.sgpr(self.word(r)),
            SSrc::Imm(v) => {
                assert_eq!(self.half, 0, "a constant lane mask in a high pass");
                format!("{}", v as i32)
            }
        };
        self.mask_of(&bits)
    }

    /// A compare's lanes as mask `dst`: inactive lanes 0 (valu/fast.rs
    /// `vcmp`); in a wave64 high pass the pair's high word.
    pub(super) fn set_mask(&mut self, dst: u8, hits: &str) {
        let bits = self.ins(format!("bitcast {M} {hits} to i32"));
        let e = self.sgpr(self.word(EXEC as u8));
        let v = self.ins(format!("and i32 {bits}, {e}"));
        let exec = self.exec_mask();
        let m = self.ins(format!("and {M} {hits}, {exec}"));
        self.remember_mask(&v, m);
        let dst = if self.half == 1 { high_dst(dst) } else { dst };
        self.set_sgpr(dst, v);
    }

    /// `value` (of IR type `ty`), or what `fix` emits on a side path taken
    /// only when a lane of mask `lanes` is set: for rare cases (NaN results)
    /// whose per-lane handling would otherwise cost every wave.
    pub(super) fn rarely(
        &mut self,
        lanes: &str,
        ty: &str,
        value: &str,
        fix: impl FnOnce(&mut Fx) -> String,
    ) -> String {
        let bits = self.ins(format!("bitcast {M} {lanes} to i32"));
        let any = self.ins(format!("icmp ne i32 {bits}, 0"));
        let any = self.ins(format!("call i1 @llvm.expect.i1(i1 {any}, i1 false)"));
        let (side, join) = (self.label(), self.label());
        let from = self.current();
        self.line(format!("br i1 {any}, label %{side}, label %{join}"));
        self.start(&side);
        let fixed = fix(self);
        let fixed_from = self.current();
        self.line(format!("br label %{join}"));
        self.start(&join);
        self.ins(format!(
            "phi {ty} [ {value}, %{from} ], [ {fixed}, %{fixed_from} ]"
        ))
    }

    /// `v` (a `<32 x i32>`) as floats, and back.
    pub(super) fn fl(&mut self, v: &str) -> String {
        self.ins(format!("bitcast {V} {v} to {F}"))
    }

    pub(super) fn bits(&mut self, v: &str) -> String {
        self.ins(format!("bitcast {F} {v} to {V}"))
    }
}
