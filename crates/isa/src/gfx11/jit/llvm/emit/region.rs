//! Several blocks in one call: a region is a hot block (its head) and
//! blocks it reaches by its branches and fall-throughs (its members,
//! `jit/region.rs` picks them), emitted as one function whose edges
//! between members are branches inside it.
//!
//! Why: every block entry otherwise goes through the wave loop (tiers,
//! frame, exit code, counts, the next block's lookup) and loads the
//! registers it uses from the wave's memory; the corpus's reductions,
//! scans and sorts run blocks of 3 to 8 instructions between barriers,
//! where that path costs about twice the translated code itself, and
//! their short scalar blocks stay interpreted alone (translation.rs
//! `MIN_TRANSLATED_ENTRIES`). In a region they are translated with their
//! neighbours and the wave stays in host code from the head to a barrier,
//! the end, or an edge out of the region.
//!
//! Each member is emitted as `emit_block` emits one block, its exit codes
//! and call-out arguments carrying its index (abi.rs `EXIT_MEMBER_SHIFT`,
//! `CALLOUT_MEMBER_SHIFT`), so the wave loop finishes an exit as of that
//! member. An edge to a member stores the registers held dirty, adds the
//! member's instructions up to the edge to the frame's `passed` (the wave
//! loop counts them) and branches to the member's label, where the next
//! member starts with nothing held. A taken branch to a member counts
//! against the frame's loop budget, the taken branches left before the
//! wave loop's next watchdog check: with none left the region leaves by
//! the branch, and the wave loop takes it, counts it and checks. The head
//! is emitted twice: at the function's entry and after label `m0` for
//! edges back to it. In the full-EXEC copy every member starts with EXEC
//! as the constant -1: the function's dispatcher saw it in memory, and
//! every edge to a member and every barrier's switch of waves tests it
//! first, going on in the `any` copy's member instead where EXEC is not
//! all ones (`go_to_copy`).
//!
//! s_setpc_b64, s_swappc_b64 and s_call_b64 go on at the member their
//! target starts, as a taken branch to it does (`pc_jump`): a call whose
//! callee joined the region (jit/region.rs `call_target`) and the callee's
//! return to the block after the call stay in the function; any other
//! target leaves it with `EXIT_PC`.
//!
//! A barrier whose next block is a member calls the frame's hook (abi.rs
//! `switch_wave`) with the registers stored: it moves the frame to the
//! workgroup's next wave, and the code goes on at the member that wave
//! stands at, or it leaves the wave to the wave loop and the code returns
//! the barrier's exit.
//!
//! Every member is also an entry: the frame names the member the call
//! starts at (abi.rs `Frame::entry`) and the function's entry block goes on
//! at its label. A wave that comes back to the wave loop in the middle of
//! a region (after a call-out that does not flow on, the loop budget's
//! end, an exit to a block outside it and back) then re-enters it there:
//! the members of a region made once serve every block of it that gets hot
//! (jit/tier.rs), instead of each heading a region of its own, compiled
//! again with most of the same blocks.

use std::fmt::Write;

use super::super::super::abi::{
    EXIT_JUMP, EXIT_MEMBER_SHIFT, EXIT_SHIFT, FRAME_ENTRY, FRAME_JUMP_TO, FRAME_PASSED,
    FRAME_SWITCH, NO_SWITCH,
};
use super::{Fx, Key, carried_phis, emit_copies, exec_dispatcher, init_name, self_loop};
use crate::gfx11::code_cache::{Block, Tail};
use crate::gfx11::exec::fast::Cond;
use crate::gfx11::jit::target::JitTarget;

/// Emit the translation of the region `members` (head first; their lists
/// for waves of that size, `wave64`) as function `name` into `out`;
/// returns how many entries of all members run inline.
pub(crate) fn emit_region(
    out: &mut String,
    name: &str,
    members: &[&Block],
    wave64: bool,
    target: JitTarget,
) -> usize {
    let starts: Vec<u64> = members.iter().map(|b| b.start).collect();
    // Each looping member's carried registers, the same in every copy.
    let carried: Vec<Option<Vec<(Key, bool)>>> = members
        .iter()
        .enumerate()
        .map(|(j, m)| {
            self_loop(m, wave64).then(|| loop_carried(m, j as u32, &starts, wave64, target))
        })
        .collect();
    let copy = |out: &mut String, suffix: &str, full: bool, through: bool| {
        let mut fx = Fx::new(Vec::new(), full, false, wave64, target).writing_through(through);
        fx.region = starts.clone();
        if full {
            fx.any_copy = Some(format!("@{name}.any"));
        }
        let (pre, mut inlined) = fx.body(members[0]);
        for (j, member) in members.iter().enumerate() {
            fx.member = j as u32;
            let label = format!("m{j}");
            fx.start(&label);
            fx.forget_held();
            if full {
                // Every way here tested EXEC in memory for -1 (`Fx::go_to_copy`).
                fx.assume_full_exec();
            }
            let n = match &carried[j] {
                Some(carried) => fx.looping_member(member, j as u32, carried.clone()),
                None => fx.block(member),
            };
            // The head's second copy counts once.
            if j > 0 {
                inlined += n;
            }
        }
        let _ = writeln!(
            out,
            "define internal i32 @{name}.{suffix}(ptr noalias %frame) nounwind {{"
        );
        out.push_str(&entry_switch(&pre, members.len()));
        out.push_str("top:\n");
        out.push_str(&fx.out);
        out.push_str("}\n\n");
        (inlined, fx.store_counts())
    };
    // Registers are written through where the paths out would store them
    // too often (emit.rs `WRITE_THROUGH`).
    let inlined = emit_copies(out, name, true, copy);
    exec_dispatcher(out, name, &["%frame"], if wave64 { 64 } else { 32 });
    inlined
}

/// The registers member `j` of the region at `starts`, `block`, which
/// loops on itself, holds at its back edge (and whether dirty there), as a
/// first emission of it finds them: the ones carried round in phis.
fn loop_carried(
    block: &Block,
    j: u32,
    starts: &[u64],
    wave64: bool,
    target: JitTarget,
) -> Vec<(Key, bool)> {
    let mut probe = Fx::new(Vec::new(), false, true, wave64, target);
    probe.region = starts.to_vec();
    probe.member = j;
    probe.body(block);
    probe.live_at_back
}

/// The function's entry block `pre` (which ends by going on at the head)
/// made to go on at the member the frame names: the head at `top`, any
/// other at its label, where it starts with nothing held (EXEC the
/// constant -1 in the full copy, which the dispatcher's or an edge's test
/// saw in memory, else read from memory).
fn entry_switch(pre: &str, members: usize) -> String {
    let to_head = "  br label %top\n";
    let Some(body) = pre.strip_suffix(to_head) else {
        unreachable!("a region's entry block ends by going on at its head");
    };
    let mut out = body.to_owned();
    let _ = writeln!(
        out,
        "  %entry.at = getelementptr i8, ptr %frame, i64 {FRAME_ENTRY}\n  \
         %entry.member = load i32, ptr %entry.at, align 4\n  \
         switch i32 %entry.member, label %top ["
    );
    for j in 1..members {
        let _ = writeln!(out, "    i32 {j}, label %m{j}");
    }
    out.push_str("  ]\n");
    out
}

impl Fx {
    /// The member starting at `pc`, when emitting a region.
    pub(super) fn member_at(&self, pc: u64) -> Option<u32> {
        self.region.iter().position(|&s| s == pc).map(|j| j as u32)
    }

    /// The member `block` falls through to at its end, if any.
    pub(super) fn fall_through(&self, block: &Block) -> Option<u32> {
        match block.tail {
            Tail::Continue => self.member_at(block.end),
            _ => None,
        }
    }

    /// Hold no register: the code goes on at a label other paths reach
    /// with their own values (the registers are in memory there).
    fn forget_held(&mut self) {
        self.rows.clear();
        self.sgprs.clear();
        self.scc = None;
        self.exec = None;
        self.load_bases();
    }

    /// A branch form whose target is member `to`: when its condition
    /// holds, go on at `to` while the frame's loop budget lasts (having
    /// run `insts` instructions of this member), else leave with `taken`.
    pub(super) fn region_jump(&mut self, cond: Cond, taken: u32, to: u32, insts: u64) {
        let t = self.branch_condition(cond);
        let (yes, no) = (self.label(), self.label());
        self.line(format!("br i1 {t}, label %{yes}, label %{no}"));
        self.start(&yes);
        let leave = self.budgeted_jump();
        self.region_edge(to, insts);
        self.start(&leave);
        debug_assert_eq!(taken & ((1 << EXIT_SHIFT) - 1), EXIT_JUMP);
        debug_assert_eq!(taken >> EXIT_MEMBER_SHIFT, self.member);
        self.exit(taken);
        self.start(&no);
    }

    /// s_setpc_b64, s_swappc_b64 or s_call_b64 to `target` (an i64)
    /// having run `insts` instructions of this member: in a region, where
    /// `target` is a member's start (a call to a callee or a return to a
    /// caller in the region), go on there while the frame's loop budget
    /// lasts, as a taken branch does; otherwise leave with `code`
    /// (`EXIT_PC`) and the target in the frame's `jump_to`, where the wave
    /// loop goes on.
    pub(super) fn pc_jump(&mut self, target: &str, code: u32, insts: u64) {
        let leave = self.label();
        let cases: Vec<(u64, String)> = self
            .region
            .clone()
            .into_iter()
            .map(|start| (start, self.label()))
            .collect();
        let arms: String = cases
            .iter()
            .map(|(start, l)| format!("    i64 {}, label %{l}\n", *start as i64))
            .collect();
        self.line(format!("switch i64 {target}, label %{leave} [\n{arms}  ]"));
        for (j, (_, l)) in cases.iter().enumerate() {
            self.start(l);
            let out = self.budgeted_jump();
            self.region_edge(j as u32, insts);
            self.start(&out);
            self.line(format!("br label %{leave}"));
        }
        self.start(&leave);
        let p = self.field(FRAME_JUMP_TO);
        self.line(format!("store i64 {target}, ptr {p}, align 8"));
        self.exit(code);
    }

    /// A barrier whose next block is a member (exit `code`): the
    /// registers stored, the frame's hook (abi.rs `switch_wave`) either
    /// moves the frame to the workgroup's next wave and names the member
    /// it stands at, where the code goes on (in the full-EXEC copy, only
    /// while that wave's EXEC is all ones: [`Fx::go_to_copy`]), or leaves
    /// it to the wave loop.
    pub(super) fn barrier_switch(&mut self, code: u32) {
        self.store_dirty(|_| false, false);
        let p = self.field(FRAME_SWITCH);
        let f = self.ins(format!("load ptr, ptr {p}, align 8"));
        let frame = self.frame;
        let to = self.ins(format!("call i32 {f}(ptr {frame}, i32 {code})"));
        let leave = self.ins(format!("icmp eq i32 {to}, {NO_SWITCH}"));
        let (out, on) = (self.label(), self.label());
        self.line(format!("br i1 {leave}, label %{out}, label %{on}"));
        self.start(&out);
        self.line(format!("ret i32 {code}"));
        self.start(&on);
        if self.any_copy.is_some() {
            // Another wave's registers: its EXEC from memory.
            self.forget_held();
            let here = self.label();
            self.go_to_copy(&to, &here, true);
            self.start(&here);
        }
        let arms: String = (1..self.region.len())
            .map(|j| format!("    i32 {j}, label %m{j}\n"))
            .collect();
        self.line(format!("switch i32 {to}, label %m0 [\n{arms}  ]"));
    }

    /// Go on at member `to` having run `insts` instructions of this one:
    /// the dirty registers stored (they stay dirty for the paths that do
    /// not take this edge), the count added to the frame's `passed`.
    pub(super) fn region_edge(&mut self, to: u32, insts: u64) {
        self.store_dirty(|_| false, false);
        self.add_passed(insts);
        let here = format!("m{to}");
        self.go_to_copy(&to.to_string(), &here, false);
    }

    /// With the registers stored, go on at member `to` (an i32): at label
    /// `here`, except in the full-EXEC copy where EXEC (as held now, or of
    /// the wave a barrier's switch went on with) is not all ones: there
    /// from the start of member `to` in the `any` copy, by a tail call
    /// with `to` as the frame's entry (`switched` says the registers are
    /// another wave's; the test is the same).
    /// Why: the full copy's members start with EXEC -1, so that LLVM folds
    /// the EXEC blends of a loop's body (a member) as it does the head's;
    /// read from memory, EXEC folds nothing. A wave does not go back from
    /// the `any` copy to the full one within a call: where a loop's body
    /// diverges and joins again on every pass, going back and forth cost
    /// more than the blends (the corpus's tree reductions), and a tail
    /// call in each direction is a call (the copies' frames are realigned
    /// for their vectors), so the stack would grow with each round trip.
    fn go_to_copy(&mut self, to: &str, here: &str, switched: bool) {
        let Some(any) = self.any_copy.clone() else {
            self.line(format!("br label %{here}"));
            return;
        };
        debug_assert!(self.full_exec, "only the full copy goes on in the other");
        debug_assert!(
            !switched || self.sgprs.is_empty(),
            "a switched wave's EXEC is loaded"
        );
        // A word loaded here is not held: other edges from this point on
        // (a switch's arms) are not dominated by this one.
        let held = self.sgprs.clone();
        let mut full = "true".to_owned();
        for &r in self.exec_words() {
            let v = self.sgpr(r);
            if v != "-1" {
                let all = self.ins(format!("icmp eq i32 {v}, -1"));
                full = self.ins(format!("and i1 {full}, {all}"));
            }
        }
        self.sgprs = held;
        if full == "true" {
            self.line(format!("br label %{here}"));
            return;
        }
        let there = self.label();
        self.line(format!("br i1 {full}, label %{here}, label %{there}"));
        self.start(&there);
        let p = self.field(FRAME_ENTRY);
        self.line(format!("store i32 {to}, ptr {p}, align 4"));
        let frame = self.frame;
        let r = self.ins(format!("tail call i32 {any}(ptr {frame})"));
        self.line(format!("ret i32 {r}"));
    }

    /// Add `insts` instructions run to the frame's `passed`.
    pub(super) fn add_passed(&mut self, insts: u64) {
        let p = self.field(FRAME_PASSED);
        let v = self.ins(format!("load i64, ptr {p}, align 8"));
        let sum = self.ins(format!("add i64 {v}, {insts}"));
        self.line(format!("store i64 {sum}, ptr {p}, align 8"));
    }

    /// Member `j`, `block`, which loops on itself, from its label on (the
    /// registers in memory there): the registers `carried` ([`loop_carried`])
    /// loaded once before the loop and carried from pass to pass in phis at
    /// label `m{j}.top`, as a block alone carries them (emit.rs
    /// `emit_block`). Returns how many entries run inline.
    pub(super) fn looping_member(
        &mut self,
        block: &Block,
        j: u32,
        carried: Vec<(Key, bool)>,
    ) -> usize {
        let names = format!("{}m{j}.", self.prefix);
        for &(k, _) in &carried {
            if self.full_exec && self.is_exec_word(k) {
                // The member starts with EXEC -1 in the full copy.
                self.line(format!("{} = or i32 -1, 0", init_name(&names, k)));
            } else {
                self.load_into(k, &init_name(&names, k));
            }
        }
        let top = format!("m{j}.top");
        self.line(format!("br label %{top}"));
        let entered = self.current();
        self.start(&top);
        let phis_at = self.out.len();
        self.load_bases();
        for &(k, dirty) in &carried {
            self.carry_from_phi_named(k, dirty, &names);
        }
        self.looped = true;
        self.top = top;
        self.carried = carried;
        self.back = None;
        let inlined = self.block(block);
        // Registers are carried only where the first emission went round
        // the back edge, which this one emits the same way.
        if let Some((label, values)) = self.back.take() {
            let phis = carried_phis(&names, &self.carried, &entered, &label, &values);
            self.out.insert_str(phis_at, &phis);
        }
        self.looped = false;
        self.top = "top".to_owned();
        self.carried = Vec::new();
        inlined
    }
}
