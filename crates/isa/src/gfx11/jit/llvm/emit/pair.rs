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
//! entry is a vector or scalar ALU instruction and that fall through to
//! the next block. Such a block touches nothing but the wave's
//! registers, so running it for two waves in one call is running it for
//! each in turn. The emission is one basic block: an entry that needs a
//! branch of its own (a call-out, a side path) or a stack slot makes the
//! block unpaired (it still has its one-wave translation). gfxsim's NaN
//! rule is not applied here: every f32 result's active lanes are tested
//! for NaN together, once at the end, and a NaN leaves both waves as they
//! were (exit code 1; nothing is stored) for their one-wave translations,
//! which apply the rule.
//!
//! `@NAME.pair(ptr %frame, ptr %frame2)` tests both waves' EXEC and calls
//! the copy for two full EXECs (EXEC the constant -1, as `emit_block`'s
//! full copy) or the one for any EXEC.

use std::fmt::Write;

use super::{EXEC, F, Fx, M, Reg};
use crate::gfx11::code_cache::Block;

/// Emit the pair function of `block` as `@{name}.pair` into `out`; false
/// (nothing emitted) if an entry cannot be emitted that way.
pub(crate) fn emit_pair(out: &mut String, name: &str, block: &Block) -> bool {
    if !block.sync {
        return false;
    }
    let mut text = String::new();
    for (suffix, full) in [("any", false), ("full", true)] {
        match pair_copy(block, full) {
            Some(body) => {
                let _ = writeln!(
                    text,
                    "define internal i32 @{name}.pair.{suffix}(ptr noalias %frame, ptr noalias %frame2) nounwind {{\nentry:"
                );
                text.push_str(&body);
                text.push_str("}\n\n");
            }
            None => return false,
        }
    }
    out.push_str(&text);
    super::exec_dispatcher(out, &format!("{name}.pair"), &["%frame", "%frame2"], 32);
    true
}

/// The body of one copy (after its `entry:` label), or None.
fn pair_copy(block: &Block, full: bool) -> Option<String> {
    let mut fx = [
        Fx::new(Vec::new(), full, false, false),
        Fx::new(Vec::new(), full, false, false),
    ];
    fx[1].prefix = "b";
    fx[1].frame = "%frame2";
    let mut body = String::new();
    for f in &mut fx {
        f.pair_nans = Some(None);
        f.load_bases();
        if full {
            // The dispatcher saw -1 in memory: the value is clean.
            f.sgprs.insert(
                EXEC as u8,
                Reg {
                    v: "-1".to_owned(),
                    dirty: false,
                },
            );
        }
        body.push_str(&std::mem::take(&mut f.out));
    }
    for (k, c) in block.compiled.iter().enumerate() {
        for f in &mut fx {
            if !f.inline(block, c, k as u32) || f.branched {
                return None;
            }
            let text = std::mem::take(&mut f.out);
            // Stack slots (lane shuffles, atomics) are the one-wave
            // function's; such a block stays unpaired.
            if text.contains("%lanes") || text.contains("%atomic_") {
                return None;
            }
            body.push_str(&text);
        }
    }
    // One NaN test of both waves' results, before anything is stored.
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
    let f = &mut fx[0];
    if let Some(h) = hits {
        let bits = f.ins(format!("bitcast {M} {h} to i32"));
        let any = f.ins(format!("icmp ne i32 {bits}, 0"));
        f.line(format!("br i1 {any}, label %nan, label %done"));
        f.out.push_str("nan:\n  ret i32 1\ndone:\n");
        body.push_str(&std::mem::take(&mut f.out));
    }
    for f in &mut fx {
        f.store_dirty(|_| false, false);
        body.push_str(&std::mem::take(&mut f.out));
    }
    body.push_str("  ret i32 0\n");
    Some(body)
}

impl Fx {
    /// Note f32 result `fr`'s active lanes that are NaN (`pair_nans`).
    pub(in crate::gfx11::jit::llvm) fn note_pair_nans(&mut self, fr: &str) {
        let exec = self.exec_mask();
        let bad = self.ins(format!("fcmp uno {F} {fr}, zeroinitializer"));
        let bad = self.ins(format!("and {M} {bad}, {exec}"));
        let hits = match self.pair_nans.take().flatten() {
            None => bad,
            Some(h) => self.ins(format!("or {M} {h}, {bad}")),
        };
        self.pair_nans = Some(Some(hits));
    }
}
