//! Two waves in one call: a block that only computes, emitted for two
//! wave32 waves at once with their entries interleaved.
//!
//! Why: one wave's 32 lanes are two zmm registers (four ymm) of
//! independent work, so a block of dependent float steps waits on the
//! host's latency (`llvm/mod.rs` says how much); the same entries of a
//! second wave are independent of the first's, and interleaved entry by
//! entry in one basic block they fill that wait.
//!
//! Which blocks (`Block::sync`, code_cache.rs): wave32 blocks whose every
//! entry is a vector or scalar ALU instruction but the last, which may be
//! a branch. Such a block touches nothing but the wave's registers, so
//! running it for two waves in one call is running it for each in turn.
//! Each wave leaves by its own branch: the code says which took theirs
//! (`PAIR_TAKEN_A`, `PAIR_TAKEN_B`, abi.rs). A self-loop goes round inside
//! the call while both waves take the back branch and both frames' loop
//! budgets last, its registers carried in phis as `emit_block` does for
//! one wave; when either leaves, both do, and a wave that took the branch
//! stands at the block's start, where the wave loop has it finish the loop
//! alone in its next turn. That keeps the order in which the waves run
//! their other blocks (and so touch memory) the order of the waves run one
//! by one, each running a loop on itself to its end in its turn, which the
//! interpreter follows too (dispatch.rs `run_wave_loop`).
//!
//! The entries of a pass are one basic block: an entry that needs a branch
//! of its own (a call-out, a side path) or a stack slot makes the block
//! unpaired (it still has its one-wave translation). gfxsim's NaN rule is
//! not applied here: every f32 result's active lanes in a pass are tested
//! for NaN (in the copy for full EXECs, where its NaN bits could show:
//! `deferred_nans.rs`), the tests joined and branched on once at the
//! pass's end, and a NaN leaves both waves as they were at the pass's
//! start (`PAIR_NAN`; the passes before it stand, counted in the frames'
//! loops), for their one-wave translations, which apply the rule.
//!
//! `@NAME.pair(ptr %frame, ptr %frame2)` tests both waves' EXEC and calls
//! the copy for two full EXECs (EXEC the constant -1, as `emit_block`'s
//! full copy) or the one for any EXEC.

use std::fmt::Write;

use super::super::super::abi::{
    FRAME_LOOP_BUDGET, FRAME_LOOPS, PAIR_NAN, PAIR_TAKEN_A, PAIR_TAKEN_B,
};
use super::{EXEC, F, Fx, Key, M, Reg, carried_phis, init_name, phi_name, self_loop};
use crate::gfx11::code_cache::Block;
use crate::gfx11::exec::fast::Fast;
use crate::gfx11::jit::target::JitTarget;

/// Emit the pair function of `block` as `@{name}.pair` into `out`; false
/// (nothing emitted) if an entry cannot be emitted that way.
pub(crate) fn emit_pair(out: &mut String, name: &str, block: &Block, target: JitTarget) -> bool {
    if !block.sync {
        return false;
    }
    let looped = self_loop(block, false);
    let mut text = String::new();
    for (suffix, full) in [("any", false), ("full", true)] {
        // A self-loop carries what each wave holds at its back branch: a
        // first emission finds it.
        let carried = if looped {
            match pair_copy(block, full, true, Default::default(), target) {
                Some(probe) => probe.held,
                None => return false,
            }
        } else {
            Default::default()
        };
        let Some(copy) = pair_copy(block, full, looped, carried, target) else {
            return false;
        };
        let _ = writeln!(
            text,
            "define internal i32 @{name}.pair.{suffix}(ptr noalias %frame, ptr noalias %frame2) nounwind {{"
        );
        text.push_str(&copy.body);
        text.push_str("}\n\n");
    }
    out.push_str(&text);
    super::exec_dispatcher(out, &format!("{name}.pair"), &["%frame", "%frame2"], 32);
    true
}

/// One emitted copy.
struct PairCopy {
    /// The function's body (after its opening line).
    body: String,
    /// The registers each wave holds at the end of a pass (before its
    /// branch's exits), and whether they are dirty there.
    held: [Vec<(Key, bool)>; 2],
}

/// One copy of the pair function, or None. `looped`: the block is a
/// self-loop, whose registers `carried` (per wave) go round in phis.
fn pair_copy(
    block: &Block,
    full: bool,
    looped: bool,
    carried: [Vec<(Key, bool)>; 2],
    target: JitTarget,
) -> Option<PairCopy> {
    let mut fx = [
        Fx::new(Vec::new(), full, looped, false, target),
        Fx::new(Vec::new(), full, looped, false, target),
    ];
    fx[1].prefix = "b";
    fx[1].frame = "%frame2";
    let (entries, branch) = match block.compiled.split_last() {
        Some((last, rest)) => match last.fast {
            Fast::Branch { cond, target } => (rest, Some((cond, target))),
            _ => (&block.compiled[..], None),
        },
        None => (&block.compiled[..], None),
    };
    // The entry block: the frames' pointers and the carried registers'
    // values before the first pass.
    let mut head = String::from("entry:\n");
    for (f, carried) in fx.iter_mut().zip(&carried) {
        f.load_bases();
        for &(k, _) in carried {
            let name = init_name(f.prefix, k);
            if full && matches!(k, Key::Sgpr(r) if r as usize == EXEC) {
                // The dispatcher saw -1 in memory.
                f.line(format!("{name} = or i32 -1, 0"));
            } else {
                f.load_into(k, &name);
            }
        }
        head.push_str(&std::mem::take(&mut f.out));
    }
    head.push_str("  br label %top\ntop:\n");
    // A pass: the carried registers start from their phis.
    let mut body = String::new();
    for (f, carried) in fx.iter_mut().zip(&carried) {
        f.pair_nans = Some(None);
        for &(k, dirty) in carried {
            f.carry_from_phi(k, dirty);
        }
        if full && !looped {
            // Memory holds -1 (the dispatcher's test): the value is clean.
            f.sgprs.insert(
                EXEC as u8,
                Reg {
                    v: "-1".to_owned(),
                    dirty: false,
                },
            );
        }
    }
    for f in &mut fx {
        f.defer_nans();
    }
    for (k, c) in entries.iter().enumerate() {
        for f in &mut fx {
            f.before_entry(block, c);
            if !f.inline(block, c, k as u32) || f.branched {
                return None;
            }
            f.after_entry();
            let text = std::mem::take(&mut f.out);
            // Stack slots (lane shuffles, atomics) are the one-wave
            // function's; such a block stays unpaired.
            if text.contains("%lanes") || text.contains("%atomic_") {
                return None;
            }
            body.push_str(&text);
        }
    }
    // The deferred NaN tests of what the registers hold at the pass's end.
    for f in &mut fx {
        f.test_deferred();
        body.push_str(&std::mem::take(&mut f.out));
    }
    // Each wave's branch, taken or not ("false": the block falls through).
    let taken: Vec<String> = fx
        .iter_mut()
        .map(|f| {
            let t = match branch {
                Some((cond, _)) => f.branch_condition(cond),
                None => "false".to_owned(),
            };
            body.push_str(&std::mem::take(&mut f.out));
            t
        })
        .collect();
    let held = [fx[0].held(), fx[1].held()];
    // One NaN test of both waves' results, before anything is stored: a
    // NaN leaves the carried registers as the pass found them.
    let mut hits: Option<String> = None;
    for f in &mut fx {
        if let Some(Some(h)) = f.pair_nans.take() {
            hits = Some(match hits {
                None => h,
                Some(g) => f.ins(format!("or {M} {g}, {h}")),
            });
        }
        body.push_str(&std::mem::take(&mut f.out));
    }
    if let Some(h) = hits {
        let f = &mut fx[0];
        let bits = f.ins(format!("bitcast {M} {h} to i32"));
        let any = f.ins(format!("icmp ne i32 {bits}, 0"));
        f.line(format!("br i1 {any}, label %pnan, label %pdone"));
        body.push_str(&std::mem::take(&mut f.out));
        body.push_str("pnan:\n");
        for (f, carried) in fx.iter_mut().zip(&carried) {
            for &(k, dirty) in carried {
                if dirty {
                    let v = phi_name(f.prefix, k);
                    f.store_key(k, &v);
                }
            }
            body.push_str(&std::mem::take(&mut f.out));
        }
        let _ = writeln!(body, "  ret i32 {PAIR_NAN}\npdone:");
    }
    let mut back_values: [Vec<String>; 2] = Default::default();
    if looped {
        // Round again while both took the back branch and both budgets last.
        let mut loops = Vec::new();
        for f in &mut fx {
            let lp = f.field(FRAME_LOOPS);
            let n = f.ins(format!("load i32, ptr {lp}, align 4"));
            let bp = f.field(FRAME_LOOP_BUDGET);
            let budget = f.ins(format!("load i32, ptr {bp}, align 4"));
            let more = f.ins(format!("icmp ult i32 {n}, {budget}"));
            body.push_str(&std::mem::take(&mut f.out));
            loops.push((lp, n, more));
        }
        let f = &mut fx[0];
        let both = f.ins(format!("and i1 {}, {}", taken[0], taken[1]));
        let both = f.ins(format!("and i1 {both}, {}", loops[0].2));
        let again = f.ins(format!("and i1 {both}, {}", loops[1].2));
        f.line(format!("br i1 {again}, label %pback, label %pleave"));
        body.push_str(&std::mem::take(&mut f.out));
        body.push_str("pback:\n");
        for (w, (f, (lp, n, _))) in fx.iter_mut().zip(&loops).enumerate() {
            let next = f.ins(format!("add i32 {n}, 1"));
            f.line(format!("store i32 {next}, ptr {lp}, align 4"));
            // The carried registers go round in phis, the others through
            // memory. What this path stores, the leaving path stores too.
            let saved = (
                f.rows.clone(),
                f.sgprs.clone(),
                f.scc.clone(),
                f.exec.clone(),
            );
            let keys: Vec<Key> = carried[w].iter().map(|&(k, _)| k).collect();
            let values: Vec<String> = keys.iter().map(|&k| f.value(k)).collect();
            f.store_dirty(|k| keys.contains(&k), false);
            (f.rows, f.sgprs, f.scc, f.exec) = saved;
            back_values[w] = values;
            body.push_str(&std::mem::take(&mut f.out));
        }
        body.push_str("  br label %top\npleave:\n");
    }
    for f in &mut fx {
        f.store_dirty(|_| false, false);
        body.push_str(&std::mem::take(&mut f.out));
    }
    let f = &mut fx[0];
    let a = f.ins(format!("select i1 {}, i32 {PAIR_TAKEN_A}, i32 0", taken[0]));
    let b = f.ins(format!("select i1 {}, i32 {PAIR_TAKEN_B}, i32 0", taken[1]));
    let code = f.ins(format!("or i32 {a}, {b}"));
    f.line(format!("ret i32 {code}"));
    body.push_str(&std::mem::take(&mut f.out));
    // The phis of the carried registers, at the top of a pass.
    if looped {
        for (f, (carried, values)) in fx.iter().zip(carried.iter().zip(&back_values)) {
            head.push_str(&carried_phis(f.prefix, carried, "entry", "pback", values));
        }
    }
    head.push_str(&body);
    Some(PairCopy { body: head, held })
}

impl Fx {
    /// Note f32 result `fr`'s active lanes that are NaN (`pair_nans`).
    pub(in crate::gfx11::jit::llvm) fn note_pair_nans(&mut self, fr: &str) {
        let exec = self.exec_mask();
        let bad = self.ins(format!("fcmp uno {F} {fr}, zeroinitializer"));
        let bad = self.ins(format!("and {M} {bad}, {exec}"));
        self.note_nan_lanes(bad);
    }

    /// Add lanes `bad` to `pair_nans`: NaN results, or lanes a form's
    /// short path does not compute (math.rs `unless_rare`).
    pub(in crate::gfx11::jit::llvm) fn note_nan_lanes(&mut self, bad: String) {
        let hits = match self.pair_nans.take().flatten() {
            None => bad,
            Some(h) => self.ins(format!("or {M} {h}, {bad}")),
        };
        self.pair_nans = Some(Some(hits));
    }
}
