//! Which blocks a region holds: a hot block (the head) and the blocks it
//! reaches by its branches, fall-throughs and calls (the callee of
//! s_call_b64 or of LLVM's call sequence, and the block after the call,
//! where it returns), breadth first, that are decoded already (a region
//! decodes nothing: reading code ahead of the wave could see memory the
//! wave will not, or not yet, run). The LLVM back end emits them as one
//! function (llvm/emit/region.rs says why and how).
//!
//! A region is of one wave size: its members' lists for that size (a
//! wave64 wave's `compiled64`) make its code, and a block may be a member
//! of one region for each size.
//!
//! Left out, so that the edges to them leave the region: for wave32,
//! blocks every wave stops before (`Block::sync`: the wave loop runs them
//! for two waves at once), and whatever follows the end in a block. A block that
//! loops on itself joins (its registers go round in host registers there
//! as in its own translation, llvm/emit/region.rs `looping_member`) but
//! heads none: the wave loop runs a loop to its end in one entry, so the
//! block before it, entered as often, heads the region holding both. The block after a barrier joins:
//! at the barrier the region's code goes on with the workgroup's next
//! wave where that wave stands at a member (abi.rs `switch_wave`), and the
//! wave itself goes on there once the barrier is released. A region has
//! at most [`MAX_MEMBERS`] blocks and [`MAX_ENTRIES`] entries, which
//! bounds its compile.
//!
//! A block heads a region only if no region made before holds it: one
//! that does is entered at the block's label (tier.rs). The corpus's
//! private_sort (about 1200 short blocks of an unrolled insertion sort)
//! made some 1090 regions when every hot block headed its own (190 MB of
//! IR and objects in the on-disk cache, llvm/cache_bound.rs), and about
//! 110 (21 MB) with the regions shared.

use std::collections::VecDeque;
use std::sync::Arc;

use super::translation::{MIN_TRANSLATED_ENTRIES, worth_translating};
use crate::gfx11::code_cache::{Block, CodeCache, Compiled, Tail};
use crate::gfx11::exec::fast::{Cond, Fast};
use crate::gfx11::exec::operand::SSrc;
use crate::gfx11::exec::salu::SOp;
use crate::gfx11::exec::salu::fast::{Scalar, Src64};

/// The most blocks of a region.
pub(crate) const MAX_MEMBERS: usize = 12;
/// The most entries (lists for the wave size) of a region's blocks together.
pub(crate) const MAX_ENTRIES: usize = 400;

const _: () = assert!(MAX_MEMBERS <= super::abi::REGION_MAX_MEMBERS);

/// The region headed by `head` for waves of that size (`wave64`; head
/// first), from the blocks `cache` holds at `generation`; empty where
/// `head` heads none (it is left out itself, or no other block joins it).
pub(crate) fn members(
    head: &Block,
    cache: &CodeCache,
    generation: u64,
    wave64: bool,
) -> Vec<Arc<Block>> {
    if !may_join(head, wave64) || self_loop(head, wave64) {
        return Vec::new();
    }
    let Some(first) = cache.decoded(head.start, generation) else {
        return Vec::new();
    };
    let mut entries = first.list(wave64).len();
    let mut members = vec![first];
    let mut queue = VecDeque::from([0usize]);
    while let Some(j) = queue.pop_front() {
        for pc in successors(&members[j], wave64) {
            if members.len() == MAX_MEMBERS {
                break;
            }
            if members.iter().any(|m| m.start == pc) {
                continue;
            }
            let Some(b) = cache.decoded(pc, generation) else {
                continue;
            };
            if !may_join(&b, wave64) || entries + b.list(wave64).len() > MAX_ENTRIES {
                continue;
            }
            entries += b.list(wave64).len();
            queue.push_back(members.len());
            members.push(b);
        }
    }
    if members.len() < 2 {
        members.clear();
    }
    members
}

/// Does translating the region `members` for waves of that size
/// (`wave64`) pay (translation.rs `worth_translating`, over the region:
/// enough entries, or vector work)?
pub(crate) fn worth(members: &[Arc<Block>], wave64: bool) -> bool {
    let entries: usize = members.iter().map(|b| b.list(wave64).len()).sum();
    entries >= MIN_TRANSLATED_ENTRIES || members.iter().any(|b| worth_translating(b, wave64))
}

/// The code `members` cover: the lowest start and the highest end.
pub(crate) fn span(members: &[Arc<Block>]) -> (u64, u64) {
    let lo = members.iter().map(|b| b.start).min().unwrap_or(0);
    let hi = members.iter().map(|b| b.end).max().unwrap_or(0);
    (lo, hi)
}

/// May `block` be in a region for waves of that size (`wave64`)? Wave64
/// waves do not stop before `Block::sync` blocks (dispatch.rs
/// `run_wave_loop`).
fn may_join(block: &Block, wave64: bool) -> bool {
    wave64 || !block.sync
}

/// Does `block` loop on itself (its list's last entry branches to its
/// start)?
fn self_loop(block: &Block, wave64: bool) -> bool {
    matches!(
        block.list(wave64).last().map(|c| c.fast),
        Some(Fast::Branch { target, .. }) if target == block.start
    )
}

/// Where a wave may go on from `block`'s end: its branch's target and,
/// unless that branch always jumps, the fall-through (none past a tail
/// that is not more code), which after a call is where the callee
/// returns to, after the callee ([`call_target`]); from its first barrier,
/// the block after it; none from its end.
fn successors(block: &Block, wave64: bool) -> Vec<u64> {
    let list = block.list(wave64);
    // The translation stops at the first barrier or end; past a barrier
    // the next wave of the workgroup goes on in the region (abi.rs
    // `switch_wave`), and the wave itself once the barrier is released.
    if let Some(c) = list
        .iter()
        .find(|c| matches!(c.fast, Fast::End | Fast::Barrier))
    {
        return match c.fast {
            Fast::Barrier => vec![block.start + c.offset as u64 + c.len as u64],
            _ => Vec::new(),
        };
    }
    let mut next = Vec::with_capacity(2);
    let mut falls = true;
    if let Some(Fast::Branch { cond, target }) = list.last().map(|c| c.fast) {
        next.push(target);
        falls = cond != Cond::Always;
    }
    // A call's callee, and (the fall-through) where it returns to.
    next.extend(call_target(list));
    if falls && matches!(block.tail, Tail::Continue) {
        next.push(block.end);
    }
    next
}

/// Where the s_call_b64 closing `list` goes, or the s_swappc_b64 (or
/// s_setpc_b64) when the block computes the address as LLVM's call
/// sequence does (`s_getpc_b64 s[n:n+1]`, `s_add_u32 sn, sn, lo`,
/// `s_addc_u32 sn+1, sn+1, hi`: AMDGPUUsage, "Call Convention"). A guess,
/// not a proof (other writes to the pair are not looked for): it only
/// picks which blocks join the region, whose code goes on at a member by
/// the address the wave holds and leaves the region for any other
/// (llvm/emit/region.rs `pc_jump`).
fn call_target(list: &[Compiled]) -> Option<u64> {
    let pair = match list.last().map(|c| c.fast) {
        Some(Fast::Scalar(Scalar::Pc {
            jump: Some(Src64::Reg(pair)),
            ..
        })) => pair,
        // s_call_b64's constant target.
        Some(Fast::Scalar(Scalar::Pc {
            jump: Some(Src64::Imm(lo, hi)),
            ..
        })) => return Some(u64::from(lo) | u64::from(hi) << 32),
        _ => return None,
    };
    let high = pair.wrapping_add(1);
    let (mut base, mut offset) = (None, 0u64);
    for c in list {
        match c.fast {
            Fast::Scalar(Scalar::Pc {
                dst,
                ret,
                jump: None,
            }) if dst == pair => (base, offset) = (Some(ret), 0),
            Fast::Salu {
                op: SOp::AddU32,
                dst,
                a: SSrc::Reg(a),
                b: SSrc::Imm(lo),
            } if dst == pair && a == pair => offset |= u64::from(lo),
            Fast::Salu {
                op: SOp::AddcU32,
                dst,
                a: SSrc::Reg(a),
                b: SSrc::Imm(hi),
            } if dst == high && a == high => offset |= u64::from(hi) << 32,
            _ => {}
        }
    }
    // The pair of adds is one 64-bit add (the low add's carry goes in).
    base.map(|b| b.wrapping_add(offset))
}
