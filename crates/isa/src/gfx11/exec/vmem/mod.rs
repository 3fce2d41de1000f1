//! Memory instructions outside LDS: SMEM scalar loads, and FLAT / GLOBAL /
//! SCRATCH vector loads, stores and atomics. Flat addresses inside the
//! shared aperture go to LDS, inside the private aperture to the lane's
//! scratch; everything else through `GpuMemory::translate`.
//!
//! Two fast paths run before the general per-lane one and fall back to it
//! whenever their conditions fail (so faults are the general path's own):
//! coalesced FLAT/GLOBAL dword accesses (one translation, row copies), and
//! SCRATCH loads and stores, and FLAT ones whose active lanes all address the
//! private aperture, when every lane stays inside its private slot (one bound
//! check for the pass, no per-lane checks).

pub(crate) mod atomics;
pub(crate) mod fast;
pub(crate) mod fast_buffer_scratch;
pub(crate) mod fast_scratch;
pub(crate) mod gfx9_buffer;
pub(crate) mod gfx9_typed;
pub(crate) mod image;
pub(crate) mod image_atomic;
pub(crate) mod lds_dma;
pub(crate) mod mem;
pub(crate) mod mem_kind;
pub(crate) mod mtbuf;
pub(crate) mod mubuf;
pub(crate) mod private_layout;
pub(crate) mod sample;
pub(crate) mod sample_cube;
pub(crate) mod sample_grad;
pub(crate) mod srgb;

use crate::gfx11::exec::env::{Env, ExecResult, Flow, illegal, unmodelled};
use crate::gfx11::exec::vmem::atomics::{Rmw, apply32, apply64, atomic32, atomic64};
use crate::gfx11::exec::vmem::mem::{
    coalesced_row, gather, le_row, read_bytes, resolve, scatter, store_coalesced_row, write_bytes,
};
use crate::gfx11::exec::vmem::mem_kind::{MemKind, mem_kind};
use crate::gfx11::exec::vmem::private_layout::{
    half_span, lane_byte, lane_byte32, read_lane, row_lanes, write_lane,
};
use crate::gfx11::inst::{Family, Inst};
use crate::gfx11::opcodes::Op;
use crate::gfx11::wave::{LANE_BIT, LANES, Lanes, NULL, Wave};
use crate::{Access, MemoryFault, WaveErrorKind};

fn fault(address: u64, access: Access) -> WaveErrorKind {
    WaveErrorKind::MemoryViolation(MemoryFault { address, access })
}

pub(crate) fn smem(w: &mut Wave, env: &mut Env, i: &Inst) -> ExecResult {
    if env.observer.is_some() {
        super::observe::smem(w, env, i);
    }
    match i.op {
        Op::SLoadB32 => s_load::<1>(w, env, i),
        Op::SLoadB64 => s_load::<2>(w, env, i),
        Op::SLoadB128 => s_load::<4>(w, env, i),
        Op::SLoadB256 => s_load::<8>(w, env, i),
        Op::SLoadB512 => s_load::<16>(w, env, i),
        _ => smem_general(w, env, i),
    }
}

/// s_load of `N` dwords into SGPRs below null: one translation and one
/// fixed-size copy; a destination running into null/m0/exec takes
/// [`smem_general`].
#[inline(always)]
fn s_load<const N: usize>(w: &mut Wave, env: &Env, i: &Inst) -> ExecResult {
    let dst = i.dst as usize;
    if dst + N > NULL {
        return smem_general(w, env, i);
    }
    s_load_at::<N>(w, env, dst, i.addr, i.imm2, i.imm).map_err(WaveErrorKind::MemoryViolation)?;
    Ok(Flow::Next)
}

/// The body of [`s_load`] from its operands (`dst + N` below null; `soff`
/// the soffset code, null for none), shared with its pre-resolved form
/// (`exec::fast`), which runs it directly: SGPRs `dst..dst + N` from
/// `sbase + imm + soffset`, dword-aligned. On a fault nothing is written.
#[inline(always)]
pub(crate) fn s_load_at<const N: usize>(
    w: &mut Wave,
    env: &Env,
    dst: usize,
    sbase: u8,
    soff: u32,
    imm: i32,
) -> Result<(), MemoryFault> {
    let soff = if soff as usize == NULL {
        0
    } else {
        w.sgpr.get(soff as usize).copied().unwrap_or(0) as i64
    };
    let addr = w
        .sgpr64(sbase as usize)
        .wrapping_add((imm as i64 + soff) as u64)
        & !3;
    let p = env.translate(addr, 4 * N as u64, Access::Read)?;
    load_sgprs::<N>(w, dst, p);
    Ok(())
}

/// Every SMEM instruction: s_load and s_buffer_load of any destination,
/// cache invalidations (no-ops here).
#[inline(never)]
fn smem_general(w: &mut Wave, env: &Env, i: &Inst) -> ExecResult {
    use Op::*;
    let dwords = match i.op {
        SLoadB32 | SBufferLoadB32 => 1,
        SLoadB64 | SBufferLoadB64 => 2,
        SLoadB128 | SBufferLoadB128 => 4,
        SLoadB256 | SBufferLoadB256 => 8,
        SLoadB512 | SBufferLoadB512 => 16,
        SDcacheInv | SGl1Inv => return Ok(Flow::Next),
        // GFX9's s_memrealtime (AMD CDNA3 ISA guide, "Scalar Memory
        // Operations"): the 64-bit REALTIME counter into an SGPR pair.
        SMemrealtime => {
            w.set_sgpr64(i.dst as usize, crate::realtime::realtime_ticks());
            return Ok(Flow::Next);
        }
        _ => return Err(illegal(i)),
    };
    let soff = if i.imm2 as usize == NULL {
        0
    } else {
        w.sgpr.get(i.imm2 as usize).copied().unwrap_or(0) as i64
    };
    let off = i.imm as i64 + soff;
    let buffer = matches!(
        i.op,
        SBufferLoadB32 | SBufferLoadB64 | SBufferLoadB128 | SBufferLoadB256 | SBufferLoadB512
    );
    let base = w.sgpr64(i.addr as usize);
    let mut out = [0u32; 16];
    if buffer {
        // V#: base [47:0], num_records in dword 2 (bytes for stride 0); out of range reads 0.
        let vbase = base & 0xFFFF_FFFF_FFFF;
        let records = w.sgpr.get(i.addr as usize + 2).copied().unwrap_or(0) as u64;
        let off = (off as u64) & !3;
        for (k, o) in out.iter_mut().enumerate().take(dwords) {
            let byte = off + 4 * k as u64;
            if byte + 4 <= records {
                let addr = vbase.wrapping_add(byte);
                let p = env
                    .mem
                    .translate(addr, 4, Access::Read)
                    .map_err(WaveErrorKind::MemoryViolation)?;
                *o = u32::from_le_bytes(read_bytes::<4>(p));
            }
        }
    } else {
        let addr = base.wrapping_add(off as u64) & !3;
        let len = 4 * dwords as u64;
        let p = env
            .mem
            .translate(addr, len, Access::Read)
            .map_err(WaveErrorKind::MemoryViolation)?;
        for (k, o) in out.iter_mut().enumerate().take(dwords) {
            *o = u32::from_le_bytes(read_bytes::<4>(p.wrapping_add(4 * k)));
        }
    }
    for (k, v) in out.iter().enumerate().take(dwords) {
        w.set_sgpr(i.dst as usize + k, *v);
    }
    Ok(Flow::Next)
}

/// SGPRs `dst..dst + N` (all below null) from the `4 * N` bytes at `p`.
#[inline(always)]
fn load_sgprs<const N: usize>(w: &mut Wave, dst: usize, p: *const u8) {
    // SAFETY: `p` came from GpuMemory::translate for 4 * N bytes.
    let v = unsafe { std::ptr::read_unaligned(p as *const [u32; N]) };
    w.sgpr[dst..dst + N].copy_from_slice(&le_row(v));
}

/// Where a lane's flat access goes.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Seg {
    Global,
    Lds,
    Private,
}

pub(crate) fn flat(w: &mut Wave, env: &mut Env, i: &Inst) -> ExecResult {
    match i.op {
        Op::GlobalLoadAddtidB32 | Op::GlobalStoreAddtidB32 => return global_addtid(w, env, i),
        Op::GlobalLoadLdsDword
        | Op::GlobalLoadLdsSbyte
        | Op::GlobalLoadLdsSshort
        | Op::GlobalLoadLdsUbyte
        | Op::GlobalLoadLdsUshort => return lds_dma::global_load_lds(w, env, i),
        _ => {}
    }
    if i.flags & Inst::FLAT_SCRATCH_BASE != 0 {
        check_flat_scratch(w, env, i)?;
    }
    if env.observer.is_some() {
        super::observe::flat(w, env, i);
    }
    let kind = mem_kind(i.op);
    let done = match i.family {
        Family::Scratch => scratch_in_range(w, env, i, kind),
        Family::Flat => flat_coalesced(w, env, i, kind) || flat_private_in_range(w, env, i, kind),
        _ => flat_coalesced(w, env, i, kind),
    };
    if done {
        return Ok(Flow::Next);
    }
    flat_lanes(w, env, i, kind)
}

/// The fast path of SCRATCH loads and stores (every width, d16 forms too)
/// when every active lane's access lies inside its private segment: one check
/// of the highest active address for the whole pass, then each lane's bytes
/// moved with no per-lane bounds check or fault handling. That is what
/// [`flat_lanes`] does in that case (lanes in order; a lane's private bytes
/// are its own, so no two lanes overlap). An address shared by every lane
/// that is dword-aligned, with a dword-multiple size, moves whole rows
/// (private_layout.rs). False (nothing done) for atomics, no active lane, or
/// any lane out of its segment: the general path then runs and faults at the
/// first bad lane.
#[inline(always)]
fn scratch_in_range(w: &mut Wave, env: &mut Env, i: &Inst, kind: MemKind) -> bool {
    let size = match kind {
        MemKind::Load(size, _, _) | MemKind::Store(size, _) => size,
        _ => return false,
    };
    let exec = w.exec();
    if exec == 0 {
        return false;
    }
    let per = env.scratch_per_lane;
    let lanes = row_lanes(env.scratch_wave64);
    let Some(base) = slot_base(env, w) else {
        return false;
    };
    let uniform = scratch_uniform(w, i.saddr, i.imm);
    if i.flags & Inst::SVE == 0 {
        // One address for every lane (spills, the -O0 stack frame).
        if uniform as usize + size > per {
            return false;
        }
        if uniform.is_multiple_of(4) && size.is_multiple_of(4) {
            scratch_rows(w, i, kind, exec, base, lanes, uniform as usize);
        } else {
            scratch_lanes(
                w,
                i,
                kind,
                exec,
                base,
                lanes,
                &[uniform; LANES],
                uniform.is_multiple_of(4),
            );
        }
        return true;
    }
    let (active, _, _) = scratch_lanes_at(&w.vgpr[i.addr as usize], uniform, exec);
    private_lanes_in_range(w, i, kind, exec, base, lanes, per, size, &active)
}

/// The part of a SCRATCH access's lane addresses every lane shares, as
/// [`flat_lanes`] computes it modulo 2^32: the `saddr` SGPR (none at NULL)
/// plus the signed offset. The fast path (fast_scratch.rs) uses it too.
#[inline(always)]
pub(crate) fn scratch_uniform(w: &Wave, saddr: u8, imm: i32) -> u32 {
    let s = if saddr as usize != NULL {
        w.sgpr[saddr as usize & 127]
    } else {
        0
    };
    s.wrapping_add(imm as u32)
}

/// The per-lane addresses of a SCRATCH access with a VGPR offset `v`
/// (`v[l] + uniform`, modulo 2^32) under a non-zero `exec`, with their OR
/// (at least the maximum; it vectorises) and the OR of the active lanes'
/// differences from the first active lane's (0: one address for all).
/// Inactive lanes count as address 0: they then read bytes at offset 0 of
/// their own segment, which the bounds check covers too, and are not
/// written back.
#[inline(always)]
pub(crate) fn scratch_lanes_at(v: &Lanes, uniform: u32, exec: u32) -> (Lanes, u32, u32) {
    let first = v[exec.trailing_zeros() as usize & (LANES - 1)].wrapping_add(uniform);
    let mut active = [0u32; LANES];
    let (mut bound, mut differ) = (0u32, 0u32);
    for l in 0..LANES {
        let keep = if exec & LANE_BIT[l] != 0 { u32::MAX } else { 0 };
        active[l] = v[l].wrapping_add(uniform) & keep;
        bound |= active[l];
        differ |= (active[l] ^ first) & keep;
    }
    (active, bound, differ)
}

/// Whether every lane's `size` bytes at `active` fit a private segment of
/// `per` bytes, given `bound`, the OR of the addresses (at least their
/// maximum): the exact maximum decides only when the OR does not fit.
#[inline(always)]
pub(crate) fn lanes_fit(active: &Lanes, bound: u32, size: usize, per: usize) -> bool {
    bound as usize + size <= per || *active.iter().max().unwrap_or(&0) as usize + size <= per
}

/// Offset in the workgroup's scratch of 32-lane slot `slot`
/// ([`Wave::scratch_slot`]): its wave's slot base, plus, for a wave64's high
/// half, the 32 lanes' dwords that start each of its rows
/// (private_layout.rs).
#[inline(always)]
pub(crate) fn slot_start(env: &Env, slot: u32) -> usize {
    let shift = env.scratch_wave64 as u32;
    (slot >> shift) as usize * env.scratch_wave_bytes + (slot & shift) as usize * 4 * LANES
}

/// The start of the wave's slot in the scratch buffer, None when the buffer
/// does not hold the whole slot (the general path then reports it) or the slot
/// is 4 GiB or more (the fast paths compute offsets in it in u32).
#[inline(always)]
pub(crate) fn slot_base(env: &mut Env, w: &Wave) -> Option<*mut u8> {
    slot_base_of(env, w.scratch_slot())
}

/// [`slot_base`] of slot `slot` (`Wave::scratch_slot_of`).
#[inline(always)]
pub(crate) fn slot_base_of(env: &mut Env, slot: u32) -> Option<*mut u8> {
    let len = half_span(env.scratch_per_lane, env.scratch_wave64);
    if len > u32::MAX as usize {
        return None;
    }
    let first = slot_start(env, slot);
    env.scratch
        .get_mut(first..first + len)
        .map(|slot| slot.as_mut_ptr())
}

/// The private accesses at per-lane addresses `active` (0 for the inactive
/// lanes) of the wave whose slot starts at `base`, when every lane's `size`
/// bytes fit its `per` bytes: done, true; else false, nothing done.
#[allow(clippy::too_many_arguments)] // the pieces its two callers compute differently
#[inline(always)]
fn private_lanes_in_range(
    w: &mut Wave,
    i: &Inst,
    kind: MemKind,
    exec: u32,
    base: *mut u8,
    lanes: usize,
    per: usize,
    size: usize,
    active: &[u32; LANES],
) -> bool {
    let bound = active.iter().fold(0, |acc, a| acc | a);
    if !lanes_fit(active, bound, size, per) {
        return false;
    }
    scratch_lanes(w, i, kind, exec, base, lanes, active, bound % 4 == 0);
    true
}

/// The fast path of FLAT loads and stores whose active lanes all address
/// the private aperture: as [`scratch_in_range`] with each lane's address
/// the low word of its flat address (what [`flat_lanes`] uses for a private
/// lane). False (nothing done) when any active lane is outside the private
/// aperture (a global or LDS lane), for atomics, or when a lane leaves its
/// segment: the general path then runs.
#[inline(always)]
fn flat_private_in_range(w: &mut Wave, env: &mut Env, i: &Inst, kind: MemKind) -> bool {
    let size = match kind {
        MemKind::Load(size, _, _) | MemKind::Store(size, _) => size,
        _ => return false,
    };
    let exec = w.exec();
    let private_hi = (env.private_base >> 32) as u32;
    // flat_lanes tests the shared aperture first: a private aperture sharing its
    // high word would never be reached.
    let shadowed = env.shared_base != 0 && env.shared_base >> 32 == env.private_base >> 32;
    if exec == 0 || env.private_base == 0 || shadowed {
        return false;
    }
    let per = env.scratch_per_lane;
    let lanes = row_lanes(env.scratch_wave64);
    let Some(base) = slot_base(env, w) else {
        return false;
    };
    let off = i.imm as i64 as u64;
    let (lo, hi) = (
        &w.vgpr[i.addr as usize],
        &w.vgpr[(i.addr as usize + 1) & 255],
    );
    let mut active = [0u32; LANES];
    let mut outside = 0;
    for l in 0..LANES {
        let keep = if exec & LANE_BIT[l] != 0 { u32::MAX } else { 0 };
        let a = (lo[l] as u64 | (hi[l] as u64) << 32).wrapping_add(off);
        outside |= ((a >> 32) as u32 ^ private_hi) & keep;
        active[l] = a as u32 & keep;
    }
    if outside != 0 {
        return false;
    }
    private_lanes_in_range(w, i, kind, exec, base, lanes, per, size, &active)
}

/// A row to store under `exec`: `mem` in the active lanes, what the
/// memory held (`old`) in the others. A mask per lane, no branch, so it
/// vectorises.
#[inline(always)]
pub(crate) fn keep_inactive(mem: &mut Lanes, old: &Lanes, exec: u32) {
    for l in 0..LANES {
        let keep = 0u32.wrapping_sub(exec >> l & 1);
        mem[l] = (mem[l] & keep) | (old[l] & !keep);
    }
}

/// A SCRATCH dword-multiple load or store at dword-aligned `addr` for every
/// lane, in the slot at `base` (the caller checked `addr + size <= per`):
/// dword `k` of all 32 lanes is one contiguous row of the slot.
#[inline(always)]
fn scratch_rows(
    w: &mut Wave,
    i: &Inst,
    kind: MemKind,
    exec: u32,
    base: *mut u8,
    lanes: usize,
    addr: usize,
) {
    // SAFETY: addr + 4 * k + 4 <= per, so the row's LANES dwords lie inside the half's span (private_layout::half_span).
    let row =
        |k: usize| unsafe { base.add(lane_byte(lanes, 0, addr + 4 * k)) as *mut [u32; LANES] };
    match kind {
        MemKind::Load(size, _, _) => {
            for k in 0..size / 4 {
                // SAFETY: as `row`; unaligned read.
                let vals = le_row(unsafe { row(k).read_unaligned() });
                w.write_vgpr(i.dst as usize + k, &vals, exec);
            }
        }
        MemKind::Store(size, _) => {
            for k in 0..size / 4 {
                let data = &w.vgpr[(i.data[0] as usize + k) & 255];
                let mut mem = le_row(*data);
                if exec != u32::MAX {
                    // SAFETY: as `row`; unaligned read.
                    keep_inactive(&mut mem, &unsafe { row(k).read_unaligned() }, exec);
                }
                // SAFETY: as `row`; unaligned write.
                unsafe { row(k).write_unaligned(mem) };
            }
        }
        _ => {}
    }
}

/// A SCRATCH load or store whose lane `l` accesses its private bytes at
/// `addrs[l]` in the slot at `base`, which the caller guarantees fit the
/// lane's segment (for the inactive lanes too: loads read every lane and
/// write back the active ones). `aligned`: every address is a multiple of 4,
/// so each dword of an access is one dword of the slot and lane `l`'s dword
/// `k` sits `4 * LANES * k` bytes after its first byte.
#[allow(clippy::too_many_arguments)] // the wave, the access and where its lanes lie
#[inline(always)]
fn scratch_lanes(
    w: &mut Wave,
    i: &Inst,
    kind: MemKind,
    exec: u32,
    base: *mut u8,
    lanes: usize,
    addrs: &[u32; LANES],
    aligned: bool,
) {
    if !aligned {
        scratch_lanes_bytewise(w, i, kind, exec, base, lanes, addrs);
        return;
    }
    // In u32 (slot_base keeps a slot below 4 GiB), so that the loop vectorises.
    let mut offs = [0u32; LANES];
    for l in 0..LANES {
        offs[l] = lane_byte32(lanes as u32, l as u32, addrs[l]);
    }
    // SAFETY: lane l's access lies inside its segment, so inside the half's span (the caller's guarantee); dword k at + 4 * lanes * k.
    let at = move |l: usize, k: usize| unsafe { base.add(offs[l] as usize + 4 * lanes * k) };
    match kind {
        MemKind::Load(size, signed, d16) => {
            let mut rows = [[0u32; LANES]; 4];
            for (k, row) in rows.iter_mut().enumerate().take(size.div_ceil(4)) {
                for l in 0..LANES {
                    // SAFETY: as `at`; 1, 2 or 4 bytes inside one aligned dword; unaligned reads.
                    row[l] = unsafe {
                        match size {
                            1 => *at(l, k) as u32,
                            2 => u16::from_le((at(l, k) as *const u16).read_unaligned()) as u32,
                            _ => u32::from_le((at(l, k) as *const u32).read_unaligned()),
                        }
                    };
                }
            }
            write_loaded(w, i, exec, &rows, size, signed, d16);
        }
        MemKind::Store(size, hi) => {
            let data = i.data[0] as usize;
            let shift = if hi { 16 } else { 0 };
            // A dword row at a time (all lanes' dword 0, then dword 1, ...): lanes'
            // private bytes never overlap, so the order of lanes does not matter.
            for k in 0..size.div_ceil(4) {
                let row = &w.vgpr[(data + k) & 255];
                // SAFETY: as `at`; 1, 2 or 4 bytes inside one aligned dword; unaligned writes.
                for_active_lanes(exec, |l| unsafe {
                    match size {
                        1 => *at(l, k) = (row[l] >> shift) as u8,
                        2 => (at(l, k) as *mut u16)
                            .write_unaligned(((row[l] >> shift) as u16).to_le()),
                        _ => (at(l, k) as *mut u32).write_unaligned(row[l].to_le()),
                    }
                });
            }
        }
        _ => {}
    }
}

/// [`scratch_lanes`] for addresses that are not all dword-aligned: each byte
/// placed on its own (an access may straddle two dwords of the slot).
#[inline(never)]
fn scratch_lanes_bytewise(
    w: &mut Wave,
    i: &Inst,
    kind: MemKind,
    exec: u32,
    base: *mut u8,
    lanes: usize,
    addrs: &[u32; LANES],
) {
    // SAFETY: byte `j` of lane l's access lies inside its segment (the caller's guarantee), so inside the half's span.
    let at =
        move |l: usize, j: usize| unsafe { base.add(lane_byte(lanes, l, addrs[l] as usize + j)) };
    match kind {
        MemKind::Load(size, signed, d16) => {
            let mut rows = [[0u32; LANES]; 4];
            for l in 0..LANES {
                for j in 0..size {
                    // SAFETY: as `at`.
                    rows[j / 4][l] |= (unsafe { *at(l, j) } as u32) << (8 * (j % 4));
                }
            }
            write_loaded(w, i, exec, &rows, size, signed, d16);
        }
        MemKind::Store(size, hi) => {
            let data = i.data[0] as usize;
            let shift = if hi { 16 } else { 0 };
            for_active_lanes(exec, |l| {
                for j in 0..size {
                    let v = w.vgpr[(data + j / 4) & 255][l] >> shift;
                    // SAFETY: as `at`.
                    unsafe { *at(l, j) = (v >> (8 * (j % 4))) as u8 };
                }
            });
        }
        _ => {}
    }
}

/// `f(l)` for every lane `l` in `exec`, in order; two loops so that the
/// common all-lanes case tests no EXEC bits.
#[inline(always)]
fn for_active_lanes(exec: u32, mut f: impl FnMut(usize)) {
    if exec == u32::MAX {
        for l in 0..LANES {
            f(l);
        }
    } else {
        for l in 0..LANES {
            if exec & LANE_BIT[l] != 0 {
                f(l);
            }
        }
    }
}

/// gfx90a's scratch instructions address memory from FLAT_SCRATCH, which the
/// kernel prologue sets to its flat scratch init plus its private segment
/// wave offset (AMDGPUUsage, "Flat Scratch"): the wave's slot in the
/// backing memory. The executor addresses the wave's slot itself, so any
/// other FLAT_SCRATCH is refused rather than ignored.
#[cold]
fn check_flat_scratch(w: &Wave, env: &Env, i: &Inst) -> Result<(), WaveErrorKind> {
    let slot = env
        .scratch_va
        .wrapping_add(u64::from(w.index).wrapping_mul(env.scratch_wave_bytes as u64));
    if w.sgpr64(102) == slot {
        Ok(())
    } else {
        Err(unmodelled(i, "FLAT_SCRATCH is not the wave's scratch slot"))
    }
}

/// Each lane's address of a FLAT/GLOBAL/SCRATCH access and its segment
/// (LDS and private addresses as offsets into the segment).
#[inline(always)]
pub(crate) fn lane_addresses(w: &Wave, env: &Env, i: &Inst) -> ([u64; LANES], [Seg; LANES]) {
    // Per-lane addresses.
    let mut addrs = [0u64; LANES];
    let off = i.imm as i64 as u64;
    match i.family {
        Family::Global if i.saddr as usize != NULL => {
            let base = w.sgpr64(i.saddr as usize);
            let v = &w.vgpr[i.addr as usize];
            for l in 0..LANES {
                addrs[l] = base.wrapping_add(v[l] as u64).wrapping_add(off);
            }
        }
        Family::Scratch => {
            let s = if i.saddr as usize != NULL {
                w.sgpr[i.saddr as usize] as u64
            } else {
                0
            };
            let sve = i.flags & Inst::SVE != 0;
            for l in 0..LANES {
                let v = if sve {
                    w.vgpr[i.addr as usize][l] as u64
                } else {
                    0
                };
                addrs[l] = (v.wrapping_add(s).wrapping_add(off)) & 0xFFFF_FFFF;
            }
        }
        _ => {
            let a = w.vgpr64(i.addr as usize);
            for l in 0..LANES {
                addrs[l] = a[l].wrapping_add(off);
            }
        }
    }
    // Segment of each lane.
    let mut seg = [Seg::Global; LANES];
    let in_ap = |a: u64, base: u64| base != 0 && a >> 32 == base >> 32;
    match i.family {
        Family::Scratch => seg = [Seg::Private; LANES],
        Family::Flat => {
            for l in 0..LANES {
                if in_ap(addrs[l], env.shared_base) {
                    seg[l] = Seg::Lds;
                    addrs[l] &= 0xFFFF_FFFF;
                } else if in_ap(addrs[l], env.private_base) {
                    seg[l] = Seg::Private;
                    addrs[l] &= 0xFFFF_FFFF;
                }
            }
        }
        _ => {}
    }
    (addrs, seg)
}

/// The general FLAT/GLOBAL/SCRATCH path: per-lane addresses and segments.
/// Out of line, so that the coalesced path does not pay for its stack frame.
#[inline(never)]
fn flat_lanes(w: &mut Wave, env: &mut Env, i: &Inst, kind: MemKind) -> ExecResult {
    let exec = w.exec();
    let (addrs, seg) = lane_addresses(w, env, i);
    // GLOBAL and SCRATCH lanes all go to one segment; only FLAT lanes need the scan.
    let (all_global, all_private) = match i.family {
        Family::Global => (true, false),
        Family::Scratch => (false, true),
        _ => (
            seg.iter().all(|s| *s == Seg::Global),
            seg.iter().all(|s| *s == Seg::Private),
        ),
    };

    if let MemKind::Load(size, signed, d16) = kind {
        let rows = if all_global {
            let r = resolve(env.mem, &addrs, exec, size as u64, Access::Read)
                .map_err(WaveErrorKind::MemoryViolation)?;
            gather(&r, &addrs, exec, size)
        } else if all_private {
            private_load(env, w.scratch_slot(), &addrs, exec, size)?
        } else {
            let mut rows = [[0u32; LANES]; 4];
            for l in 0..LANES {
                if exec >> l & 1 != 0 {
                    let mut b = [0u8; 16];
                    lane_access(
                        env,
                        w.scratch_slot(),
                        l,
                        seg[l],
                        addrs[l],
                        &mut b[..size],
                        false,
                    )?;
                    for k in 0..4 {
                        rows[k][l] = u32::from_le_bytes([
                            b[4 * k],
                            b[4 * k + 1],
                            b[4 * k + 2],
                            b[4 * k + 3],
                        ]);
                    }
                }
            }
            rows
        };
        write_loaded(w, i, exec, &rows, size, signed, d16);
        return Ok(Flow::Next);
    }
    if let MemKind::Store(size, hi) = kind {
        let mut rows = [[0u32; LANES]; 4];
        for k in 0..size.div_ceil(4) {
            let row = &w.vgpr[(i.data[0] as usize + k) & 255];
            if hi {
                for l in 0..LANES {
                    rows[k][l] = row[l] >> 16;
                }
            } else {
                rows[k] = *row;
            }
        }
        if all_global {
            let r = resolve(env.mem, &addrs, exec, size as u64, Access::Write)
                .map_err(WaveErrorKind::MemoryViolation)?;
            scatter(&r, &addrs, exec, size, &rows);
        } else if all_private {
            private_store(env, w.scratch_slot(), &addrs, exec, size, &rows)?;
        } else {
            for l in 0..LANES {
                if exec >> l & 1 != 0 {
                    let mut b = [0u8; 16];
                    for k in 0..4 {
                        b[4 * k..4 * k + 4].copy_from_slice(&rows[k][l].to_le_bytes());
                    }
                    lane_access(
                        env,
                        w.scratch_slot(),
                        l,
                        seg[l],
                        addrs[l],
                        &mut b[..size],
                        true,
                    )?;
                }
            }
        }
        return Ok(Flow::Next);
    }
    let MemKind::Atomic(rmw, wide, _) = kind else {
        return Err(illegal(i));
    };
    let size = if wide { 8 } else { 4 };
    let dw = size / 4;
    let data = |k: usize| w.vgpr[(i.data[0] as usize + k) & 255];
    let (src_lo, src_hi) = (data(0), if wide { data(1) } else { [0; LANES] });
    let (cmp_lo, cmp_hi) = if rmw == Rmw::CmpSwap {
        (data(dw), if wide { data(dw + 1) } else { [0; LANES] })
    } else {
        ([0; LANES], [0; LANES])
    };
    let mut old = [0u64; LANES];
    // All lanes global and inside one mapping (contended counters, neighbouring
    // slots): one translation of the lanes' span. Then no lane can fault on
    // translation, as lane by lane; otherwise each lane is translated in turn.
    let span = if all_global {
        atomic_span(env, &addrs, exec, size as u64)
    } else {
        None
    };
    // Every lane global, in the span and aligned: no lane can fault, so the
    // lanes' atomics run in order with no per-lane checks (what the loop
    // below does in that case).
    if let Some((lo, base)) = span {
        let mut low_bits = 0;
        for l in 0..LANES {
            if exec & LANE_BIT[l] != 0 {
                low_bits |= addrs[l];
            }
        }
        if low_bits.is_multiple_of(size as u64) {
            // The span [lo, ..) was translated as one range and holds every active lane's access.
            let lane = |l: usize| base.wrapping_add((addrs[l] - lo) as usize);
            for l in 0..LANES {
                if exec & LANE_BIT[l] == 0 {
                    continue;
                }
                old[l] = if wide {
                    let src = src_lo[l] as u64 | (src_hi[l] as u64) << 32;
                    let cmp = cmp_lo[l] as u64 | (cmp_hi[l] as u64) << 32;
                    atomic64(lane(l), rmw, src, cmp)
                } else {
                    atomic32(lane(l), rmw, src_lo[l], cmp_lo[l]) as u64
                };
            }
            write_atomic_result(w, i, exec, wide, &old);
            return Ok(Flow::Next);
        }
    }
    for l in 0..LANES {
        if exec >> l & 1 == 0 {
            continue;
        }
        let src = src_lo[l] as u64 | (src_hi[l] as u64) << 32;
        let cmp = cmp_lo[l] as u64 | (cmp_hi[l] as u64) << 32;
        if seg[l] == Seg::Global {
            if addrs[l] % size as u64 != 0 {
                return Err(fault(addrs[l], Access::Atomic));
            }
            let p = match span {
                // The span [lo, ..) was translated as one range and holds this lane's access.
                Some((lo, base)) => base.wrapping_add((addrs[l] - lo) as usize),
                None => env
                    .mem
                    .translate(addrs[l], size as u64, Access::Atomic)
                    .map_err(WaveErrorKind::MemoryViolation)?,
            };
            old[l] = if wide {
                atomic64(p, rmw, src, cmp)
            } else {
                atomic32(p, rmw, src as u32, cmp as u32) as u64
            };
        } else {
            let mut b = [0u8; 8];
            lane_access(
                env,
                w.scratch_slot(),
                l,
                seg[l],
                addrs[l],
                &mut b[..size],
                false,
            )?;
            let o = u64::from_le_bytes(b);
            let new = if wide {
                apply64(rmw, o, src, cmp)
            } else {
                apply32(rmw, o as u32, src as u32, cmp as u32) as u64
            };
            let mut nb = new.to_le_bytes();
            lane_access(
                env,
                w.scratch_slot(),
                l,
                seg[l],
                addrs[l],
                &mut nb[..size],
                true,
            )?;
            old[l] = o;
        }
    }
    write_atomic_result(w, i, exec, wide, &old);
    Ok(Flow::Next)
}

/// The pre-op values of a FLAT/GLOBAL atomic to its destination VGPR(s),
/// when it returns them (GLC set).
fn write_atomic_result(w: &mut Wave, i: &Inst, exec: u32, wide: bool, old: &[u64; LANES]) {
    if i.flags & Inst::GLC != 0 {
        if wide {
            w.write_vgpr64(i.dst as usize, old, exec);
        } else {
            let lo: [u32; LANES] = old.map(|v| v as u32);
            w.write_vgpr(i.dst as usize, &lo, exec);
        }
    }
}

/// The coalesced fast path of FLAT/GLOBAL loads and stores (1, 2, 4, 8,
/// 12 or 16 bytes per lane): every lane active, lane `l` at `a0 + l *
/// size`, outside the LDS and private apertures. One translation of the
/// 32 lanes' bytes and row copies straight between memory and the VGPRs,
/// no per-lane addresses. False (nothing done, no side effect) when any
/// of that does not hold or the translation fails: the general path then
/// runs and reports a fault exactly as it always has (the same range was
/// its first translation, and a failed translation changes nothing).
#[inline(always)]
fn flat_coalesced(w: &mut Wave, env: &Env, i: &Inst, kind: MemKind) -> bool {
    match Coalesced::of(i, kind) {
        Some(c) => coalesced(w, env, &c),
        None => false,
    }
}

/// A FLAT/GLOBAL load or store as the coalesced path reads it: everything
/// [`coalesced`] needs from the instruction, so its pre-resolved form
/// (`exec::fast`) runs the same code without the `Inst`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Coalesced {
    /// FLAT (apertures possible) rather than GLOBAL.
    pub flat: bool,
    pub write: bool,
    /// Bytes per lane: 1, 2, 4, 8, 12 or 16.
    pub size: u8,
    /// A sub-dword load's sign extension and d16 placement (`MemKind::Load`:
    /// 0 the whole dword, 1 its low half, 2 its high half).
    pub signed: bool,
    pub d16: u8,
    /// A sub-dword store takes the data's high 16 bits (the `d16_hi` stores).
    pub hi: bool,
    /// The loaded (dst) or stored (data) VGPR.
    pub reg: u8,
    /// Address VGPR (pair, unless `saddr` is used).
    pub addr: u8,
    /// GLOBAL saddr SGPR pair, null for none.
    pub saddr: u8,
    pub off: i32,
}

impl Coalesced {
    /// The form of `i` (whose memory kind is `kind`) when the coalesced path
    /// may take it: any FLAT/GLOBAL load or store.
    #[inline(always)]
    pub(crate) fn of(i: &Inst, kind: MemKind) -> Option<Coalesced> {
        let (size, write, reg, signed, d16, hi) = match kind {
            MemKind::Load(size, signed, d16) => (size, false, i.dst as u8, signed, d16, false),
            MemKind::Store(size, hi) => (size, true, i.data[0], false, 0, hi),
            _ => return None,
        };
        let flat = match i.family {
            Family::Flat => true,
            Family::Global => false,
            _ => return None,
        };
        Some(Coalesced {
            flat,
            write,
            size: size as u8,
            signed,
            d16,
            hi,
            reg,
            addr: i.addr,
            saddr: if flat { NULL as u8 } else { i.saddr },
            off: i.imm,
        })
    }

    /// [`Coalesced::of`] for an instruction known only by its `Inst`.
    pub(crate) fn of_inst(i: &Inst) -> Option<Coalesced> {
        Coalesced::of(i, mem_kind(i.op))
    }
}

/// Run `c` when it is coalesced and its range translates (true), else do
/// nothing (false): the general path then runs and reports any fault
/// exactly as it always has (the same range was its first translation, and a
/// failed translation changes nothing).
#[inline(always)]
pub(crate) fn coalesced(w: &mut Wave, env: &Env, c: &Coalesced) -> bool {
    let size = c.size as usize;
    let access = if c.write { Access::Write } else { Access::Read };
    let Some(a0) = coalesced_base(w, env, c) else {
        return false;
    };
    let Ok(p) = env.translate(a0, (size * LANES) as u64, access) else {
        return false;
    };
    match (access, size) {
        (Access::Read, 4) => w.vgpr[c.reg as usize] = coalesced_row(p, 4, 0),
        (Access::Write, 4) => store_coalesced_row(p, 4, 0, &w.vgpr[c.reg as usize]),
        // SAFETY: p holds the 32 lanes' `size` bytes, translated for the access.
        (_, 1 | 2) => unsafe { coalesced_subword(w, c, p) },
        _ => coalesced_wide(w, c.reg, p, size, access),
    }
    true
}

/// The lanes of a coalesced 1- or 2-byte access at `p` (every lane active,
/// lane `l` at `p + l * size`), each as [`subword_lane_access`] moves it.
///
/// # Safety
/// `p` holds `32 * c.size` bytes translated for `c`'s access.
#[inline(never)]
unsafe fn coalesced_subword(w: &mut Wave, c: &Coalesced, p: *mut u8) {
    for l in 0..LANES {
        // SAFETY: lane l's bytes lie in the 32 * size bytes at p (the caller's guarantee).
        unsafe { subword_lane_access(w, c, p.add(l * c.size as usize), l) };
    }
}

/// Lane `l`'s 1- or 2-byte access `c` at `q`: a load's value extended and
/// placed ([`subword_lane`]), a store's low bytes (of the high half for `hi`).
///
/// # Safety
/// `q` holds `c.size` bytes translated for `c`'s access.
#[inline(always)]
pub(crate) unsafe fn subword_lane_access(w: &mut Wave, c: &Coalesced, q: *mut u8, l: usize) {
    let (reg, size) = (c.reg as usize, c.size as usize);
    if c.write {
        let x = w.vgpr[reg][l] >> if c.hi { 16 } else { 0 };
        if size == 1 {
            // SAFETY: q holds this lane's byte (the caller's guarantee).
            unsafe { q.write(x as u8) };
        } else {
            // SAFETY: q holds this lane's 2 bytes (the caller's guarantee).
            unsafe { (q as *mut u16).write_unaligned((x as u16).to_le()) };
        }
        return;
    }
    let raw = if size == 1 {
        // SAFETY: as above.
        unsafe { q.read() as u32 }
    } else {
        // SAFETY: as above.
        u16::from_le(unsafe { (q as *const u16).read_unaligned() }) as u32
    };
    let cur = w.vgpr[reg][l];
    w.vgpr[reg][l] = subword_lane(raw, cur, size, c.signed, c.d16);
}

/// The rows of a coalesced 8-, 12- or 16-byte access (out of line: the
/// strided lane loop's set-up would otherwise burden the dword case).
#[inline(never)]
fn coalesced_wide(w: &mut Wave, reg: u8, p: *mut u8, size: usize, access: Access) {
    if access == Access::Read {
        for k in 0..size / 4 {
            w.vgpr[(reg as usize + k) & 255] = coalesced_row(p, size, k);
        }
    } else {
        for k in 0..size / 4 {
            store_coalesced_row(p, size, k, &w.vgpr[(reg as usize + k) & 255]);
        }
    }
}

/// Lane 0's address when the access is coalesced as [`flat_coalesced`]
/// needs: EXEC all ones, lane `l`'s address (computed as `flat` does) equal
/// to `a0 + l * size` with nothing wrapping, and for FLAT no lane in an
/// aperture. The lane addresses lie between a0 and a0 + 31 * size, so their
/// high words are those of the two ends.
#[inline(always)]
fn coalesced_base(w: &Wave, env: &Env, c: &Coalesced) -> Option<u64> {
    if w.exec() != u32::MAX {
        return None;
    }
    let size = c.size as u32;
    let off = c.off as i64 as u64;
    let a0 = if c.saddr as usize != NULL {
        let v = &w.vgpr[c.addr as usize];
        if !strided(v, size) {
            return None;
        }
        w.sgpr64(c.saddr as usize)
            .wrapping_add(v[0] as u64)
            .wrapping_add(off)
    } else {
        let lo = &w.vgpr[c.addr as usize];
        let hi = &w.vgpr[(c.addr as usize + 1) & 255];
        if !strided_pair(lo, hi, size) {
            return None;
        }
        (lo[0] as u64 | (hi[0] as u64) << 32).wrapping_add(off)
    };
    a0.checked_add(size as u64 * LANES as u64)?;
    if c.flat {
        let in_ap = |a: u64, base: u64| base != 0 && a >> 32 == base >> 32;
        let last = a0 + size as u64 * (LANES as u64 - 1);
        for a in [a0, last] {
            if in_ap(a, env.shared_base) || in_ap(a, env.private_base) {
                return None;
            }
        }
    }
    Some(a0)
}

/// `l * step` for every lane and every stride up to 16 bytes (row `step`).
const LANE_OFFSETS: [[u32; LANES]; 17] = {
    let mut rows = [[0u32; LANES]; 17];
    let mut k = 0;
    while k < 17 {
        let mut l = 0;
        while l < LANES {
            rows[k][l] = (k * l) as u32;
            l += 1;
        }
        k += 1;
    }
    rows
};

/// True when `v[l] == v[0] + l * step` for every lane with nothing
/// wrapping past 2^32; `step` is at most 16 (a table row instead of a
/// per-lane multiply, so the loop vectorises on baseline x86-64).
#[inline(always)]
fn strided(v: &[u32; LANES], step: u32) -> bool {
    debug_assert!(step <= 16, "stride {step}");
    let offsets = &LANE_OFFSETS[step as usize % 17];
    let v0 = v[0];
    let mut diff = 0u32;
    for (x, o) in v.iter().zip(offsets) {
        diff |= x ^ v0.wrapping_add(*o);
    }
    diff == 0 && v0 <= u32::MAX - step * (LANES as u32 - 1)
}

/// `strided(lo, step) && strided(hi, 0)` (a 64-bit address pair whose low
/// words step and whose high word is uniform) in one pass over both rows:
/// the differences or-ed together four lanes at a time. SSE2 on x86-64: as a
/// plain loop LLVM turned the or-reduction into 64 compare-and-branch steps
/// (~260 host instructions an access), and the two single-row checks into
/// compares and packs (~150).
#[inline(always)]
fn strided_pair(lo: &[u32; LANES], hi: &[u32; LANES], step: u32) -> bool {
    debug_assert!(step <= 16, "stride {step}");
    let offsets = &LANE_OFFSETS[step as usize % 17];
    let (l0, h0) = (lo[0], hi[0]);
    let no_wrap = l0 <= u32::MAX - step * (LANES as u32 - 1);
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{
            __m128i, _mm_add_epi32, _mm_cmpeq_epi32, _mm_loadu_si128, _mm_movemask_epi8,
            _mm_or_si128, _mm_set1_epi32, _mm_setzero_si128, _mm_xor_si128,
        };
        // SAFETY: SSE2 is in every x86-64 target's baseline; lanes 4q..4q+3 are in
        // bounds of the 32-lane rows (16 bytes each) and loadu needs no alignment.
        let same = unsafe {
            let (lv, hv) = (_mm_set1_epi32(l0 as i32), _mm_set1_epi32(h0 as i32));
            let load = |row: &[u32; LANES], q: usize| {
                _mm_loadu_si128(row.as_ptr().add(4 * q) as *const __m128i)
            };
            let mut acc = _mm_setzero_si128();
            for q in 0..LANES / 4 {
                let want = _mm_add_epi32(lv, load(offsets, q));
                let d = _mm_or_si128(
                    _mm_xor_si128(load(lo, q), want),
                    _mm_xor_si128(load(hi, q), hv),
                );
                acc = _mm_or_si128(acc, d);
            }
            _mm_movemask_epi8(_mm_cmpeq_epi32(acc, _mm_setzero_si128())) == 0xFFFF
        };
        same && no_wrap
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        strided(lo, step) && strided(hi, 0) && no_wrap
    }
}

/// (lowest address, its host pointer) when the active lanes' `size`-byte
/// accesses all lie in one mapping that allows atomics.
fn atomic_span(env: &Env, addrs: &[u64; LANES], exec: u32, size: u64) -> Option<(u64, *mut u8)> {
    let (mut lo, mut hi) = (u64::MAX, 0u64);
    for l in 0..LANES {
        if exec >> l & 1 != 0 {
            lo = lo.min(addrs[l]);
            hi = hi.max(addrs[l].saturating_add(size));
        }
    }
    if lo >= hi || hi - lo > 1 << 24 {
        return None;
    }
    env.mem
        .translate(lo, hi - lo, Access::Atomic)
        .ok()
        .map(|p| (lo, p))
}

pub(crate) fn write_loaded(
    w: &mut Wave,
    i: &Inst,
    exec: u32,
    rows: &[[u32; LANES]; 4],
    size: usize,
    signed: bool,
    d16: u8,
) {
    let dst = i.dst as usize;
    if size >= 4 {
        for k in 0..size / 4 {
            w.write_vgpr(dst + k, &rows[k], exec);
        }
        return;
    }
    let cur = w.vgpr[dst & 255];
    let mut row = [0u32; LANES];
    for l in 0..LANES {
        row[l] = subword_lane(rows[0][l], cur[l], size, signed, d16);
    }
    w.write_vgpr(dst, &row, exec);
}

/// A 1- or 2-byte load's value `raw` (in its low bytes) as its destination
/// holds it: zero- or sign-extended to 32 bits, or for d16 its low 16 bits
/// in the low (1) or high (2) half of `cur`, the other half kept.
#[inline(always)]
pub(crate) fn subword_lane(raw: u32, cur: u32, size: usize, signed: bool, d16: u8) -> u32 {
    let val = match (size, signed) {
        (1, true) => raw as u8 as i8 as i32 as u32,
        (2, true) => raw as u16 as i16 as i32 as u32,
        (1, false) => raw & 0xFF,
        _ => raw & 0xFFFF,
    };
    match d16 {
        1 => (cur & 0xFFFF_0000) | (val & 0xFFFF),
        2 => (cur & 0xFFFF) | (val << 16),
        _ => val,
    }
}

/// Start in the workgroup's scratch of 32-lane slot `slot`, for lane
/// `lane`'s `size`-byte private access at `addr`; out of the lane's segment,
/// a fault at the private-aperture address (as [`lane_access`]); a slot the
/// scratch does not hold (its backing memory is not mapped), a fault at the
/// lane's byte in the backing memory.
#[inline(always)]
fn private_slot(
    env: &Env,
    slot: u32,
    lane: usize,
    addr: u64,
    size: usize,
    access: Access,
) -> Result<usize, WaveErrorKind> {
    let per = env.scratch_per_lane;
    if (addr as usize).checked_add(size).is_none_or(|e| e > per) {
        return Err(fault(env.private_base | addr, access));
    }
    let start = slot_start(env, slot);
    if start + half_span(per, env.scratch_wave64) > env.scratch.len() {
        let at = start + lane_byte(row_lanes(env.scratch_wave64), lane, addr as usize);
        return Err(fault(env.scratch_va.wrapping_add(at as u64), access));
    }
    Ok(start)
}

/// Every active lane's private load (all lanes in the private segment: SCRATCH
/// and flat scratch) as dword rows, like `gather`: lanes in order, the first
/// out-of-range lane faults.
fn private_load(
    env: &Env,
    slot: u32,
    addrs: &[u64; LANES],
    exec: u32,
    size: usize,
) -> Result<[[u32; LANES]; 4], WaveErrorKind> {
    let mut rows = [[0u32; LANES]; 4];
    for l in 0..LANES {
        if exec >> l & 1 == 0 {
            continue;
        }
        let at = private_slot(env, slot, l, addrs[l], size, Access::Read)?;
        let mut b = [0u8; 16];
        read_lane(
            env.scratch,
            row_lanes(env.scratch_wave64),
            at,
            l,
            addrs[l] as usize,
            &mut b[..size],
        );
        for (k, row) in rows.iter_mut().enumerate() {
            row[l] = u32::from_le_bytes([b[4 * k], b[4 * k + 1], b[4 * k + 2], b[4 * k + 3]]);
        }
    }
    Ok(rows)
}

/// Every active lane's private store from dword rows (lanes in order; lanes
/// before the first out-of-range one are written, as with per-lane accesses).
fn private_store(
    env: &mut Env,
    slot: u32,
    addrs: &[u64; LANES],
    exec: u32,
    size: usize,
    rows: &[[u32; LANES]; 4],
) -> Result<(), WaveErrorKind> {
    for l in 0..LANES {
        if exec >> l & 1 == 0 {
            continue;
        }
        let at = private_slot(env, slot, l, addrs[l], size, Access::Write)?;
        let mut b = [0u8; 16];
        for (k, row) in rows.iter().enumerate() {
            b[4 * k..4 * k + 4].copy_from_slice(&row[l].to_le_bytes());
        }
        write_lane(
            env.scratch,
            row_lanes(env.scratch_wave64),
            at,
            l,
            addrs[l] as usize,
            &b[..size],
        );
    }
    Ok(())
}

/// One lane's access to LDS or its private memory (flat apertures / scratch).
/// LDS out of range: reads 0, writes dropped. Private out of range: a fault at
/// the private-aperture address.
pub(crate) fn lane_access(
    env: &mut Env,
    wave: u32,
    lane: usize,
    seg: Seg,
    addr: u64,
    buf: &mut [u8],
    write: bool,
) -> Result<(), WaveErrorKind> {
    let n = buf.len();
    match seg {
        Seg::Lds => {
            let a = addr as usize;
            if a.checked_add(n).is_some_and(|e| e <= env.lds.len()) {
                if write {
                    copy_small(&mut env.lds[a..a + n], buf);
                } else {
                    copy_small(buf, &env.lds[a..a + n]);
                }
            } else if !write {
                buf.fill(0);
            }
            Ok(())
        }
        Seg::Private => {
            let access = if write { Access::Write } else { Access::Read };
            let slot = private_slot(env, wave, lane, addr, n, access)?;
            let lanes = row_lanes(env.scratch_wave64);
            if write {
                write_lane(env.scratch, lanes, slot, lane, addr as usize, buf);
            } else {
                read_lane(env.scratch, lanes, slot, lane, addr as usize, buf);
            }
            Ok(())
        }
        Seg::Global => {
            let access = if write { Access::Write } else { Access::Read };
            let p = env
                .mem
                .translate(addr, n as u64, access)
                .map_err(WaveErrorKind::MemoryViolation)?;
            if write {
                write_bytes(p, buf);
            } else {
                // SAFETY: translate returned a pointer valid for n bytes.
                unsafe { std::ptr::copy_nonoverlapping(p as *const u8, buf.as_mut_ptr(), n) };
            }
            Ok(())
        }
    }
}

/// `dst.copy_from_slice(src)` with fixed-size moves for the access sizes
/// (1, 2, 4, 8, 12, 16 bytes): a copy of a run-time length is a call to
/// memcpy, which was the largest cost of scratch-heavy kernels.
#[inline(always)]
fn copy_small(dst: &mut [u8], src: &[u8]) {
    macro_rules! fixed {
        ($($n:literal)*) => {$(
            if let (Ok(d), Ok(s)) =
                (<&mut [u8; $n]>::try_from(&mut *dst), <&[u8; $n]>::try_from(src))
            {
                *d = *s;
                return;
            }
        )*};
    }
    fixed!(4 8 16 12 2 1);
    dst.copy_from_slice(src);
}

/// GLOBAL_{LOAD,STORE}_ADDTID_B32: no VGPR address; lane n accesses the
/// dword at saddr (0 when off) + offset + 4 * n (RDNA3 ISA guide, GLOBAL
/// opcodes). Global memory only: a bad address faults as any global access.
fn global_addtid(w: &mut Wave, env: &mut Env, i: &Inst) -> ExecResult {
    let base = if i.saddr as usize != NULL {
        w.sgpr64(i.saddr as usize)
    } else {
        0
    };
    let base = base.wrapping_add(i.imm as i64 as u64);
    let exec = w.exec();
    let store = i.op == Op::GlobalStoreAddtidB32;
    let access = if store { Access::Write } else { Access::Read };
    if env.observer.is_some() {
        let addrs = std::array::from_fn(|l| base.wrapping_add(4 * (l + LANES * w.half) as u64));
        super::observe::lanes(w, env, crate::observer::Segment::Global, access, 4, &addrs);
    }
    let mut row = [0u32; LANES];
    for l in 0..LANES {
        if exec >> l & 1 == 0 {
            continue;
        }
        let a = base.wrapping_add(4 * (l + LANES * w.half) as u64);
        let p = env
            .mem
            .translate(a, 4, access)
            .map_err(WaveErrorKind::MemoryViolation)?;
        let mut b = [0u8; 4];
        if store {
            b = w.vgpr[i.data[0] as usize][l].to_le_bytes();
            // SAFETY: translate returned a pointer valid for 4 bytes.
            unsafe { std::ptr::copy_nonoverlapping(b.as_ptr(), p, 4) };
        } else {
            // SAFETY: translate returned a pointer valid for 4 bytes.
            unsafe { std::ptr::copy_nonoverlapping(p, b.as_mut_ptr(), 4) };
            row[l] = u32::from_le_bytes(b);
        }
    }
    if !store {
        w.write_vgpr(i.dst as usize, &row, exec);
    }
    Ok(Flow::Next)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gfx11::exec::NoMemory;
    use crate::gfx11::exec::test_inst as inst;
    use crate::{GpuMemory, MemoryFault};

    const PER_LANE: usize = 40;
    const PRIVATE_BASE: u64 = 0x7000_0000_0000_0000;

    fn env<'a>(scratch: &'a mut [u8], lds: &'a mut [u8]) -> Env<'a> {
        Env {
            mem: &NoMemory,
            lds,
            scratch,
            scratch_va: 0,
            scratch_wave_bytes: super::private_layout::slot_bytes(PER_LANE),
            scratch_wave64: false,
            scratch_per_lane: PER_LANE,
            shared_base: 0,
            private_base: PRIVATE_BASE,
            // A test environment owns its cache: a few hundred bytes, leaked.
            spans: Box::leak(Box::default()),
            lds_bank_conflicts: None,
            observer: None,
        }
    }

    /// private_load/private_store agree with the per-lane lane_access on
    /// every access size, a partial EXEC and wave slot 1.
    #[test]
    fn private_rows_match_lane_access() {
        let init: Vec<u8> = (0..2 * LANES * PER_LANE)
            .map(|i| (i * 13 + 5) as u8)
            .collect();
        let mask = 0xA5C3_0FF1u32;
        for size in [1usize, 2, 4, 8, 12, 16] {
            let mut addrs = [0u64; LANES];
            for (l, a) in addrs.iter_mut().enumerate() {
                *a = ((l * 7) % (PER_LANE - size + 1)) as u64;
            }
            let (mut fast, mut slow, mut lds) = (init.clone(), init.clone(), vec![0u8; 4]);
            let rows = private_load(&env(&mut fast, &mut lds), 1, &addrs, mask, size).unwrap();
            let mut e = env(&mut slow, &mut lds);
            for l in 0..LANES {
                let mut b = [0u8; 16];
                if mask >> l & 1 != 0 {
                    lane_access(&mut e, 1, l, Seg::Private, addrs[l], &mut b[..size], false)
                        .unwrap();
                }
                for k in 0..4 {
                    let want = u32::from_le_bytes(b[4 * k..4 * k + 4].try_into().unwrap());
                    assert_eq!(rows[k][l], want, "size {size} lane {l} dword {k}");
                }
            }
            let mut src = [[0u32; LANES]; 4];
            for (k, row) in src.iter_mut().enumerate() {
                for (l, v) in row.iter_mut().enumerate() {
                    *v = 0x9E37_79B9u32.wrapping_mul((k * 32 + l + 1) as u32);
                }
            }
            private_store(&mut env(&mut fast, &mut lds), 1, &addrs, mask, size, &src).unwrap();
            let mut e = env(&mut slow, &mut lds);
            for l in 0..LANES {
                if mask >> l & 1 != 0 {
                    let mut b = [0u8; 16];
                    for k in 0..4 {
                        b[4 * k..4 * k + 4].copy_from_slice(&src[k][l].to_le_bytes());
                    }
                    lane_access(&mut e, 1, l, Seg::Private, addrs[l], &mut b[..size], true)
                        .unwrap();
                }
            }
            assert_eq!(fast, slow, "size {size}");
            assert_ne!(fast, init, "size {size}: the store wrote nothing");
        }
    }

    /// The first out-of-range lane faults at its private-aperture address;
    /// a store has written the lanes before it and none after.
    #[test]
    fn private_fault_is_the_first_bad_lane() {
        let mut addrs = [0u64; LANES];
        addrs[9] = PER_LANE as u64 - 2;
        addrs[20] = PER_LANE as u64 + 100;
        let mut scratch = vec![0u8; LANES * PER_LANE];
        let mut lds = vec![0u8; 4];
        let e = private_load(&env(&mut scratch, &mut lds), 0, &addrs, u32::MAX, 4)
            .err()
            .unwrap();
        let want = |a: u64, access| {
            WaveErrorKind::MemoryViolation(MemoryFault {
                address: PRIVATE_BASE | a,
                access,
            })
        };
        assert_eq!(e, want(PER_LANE as u64 - 2, Access::Read));
        let rows = [[0xDEAD_BEEFu32; LANES]; 4];
        let e = private_store(
            &mut env(&mut scratch, &mut lds),
            0,
            &addrs,
            !(1 << 9),
            4,
            &rows,
        )
        .err()
        .unwrap();
        assert_eq!(e, want(PER_LANE as u64 + 100, Access::Write));
        for l in 0..LANES {
            // Address 0 of lane l: the slot's first row, lane l's column.
            let word = &scratch[4 * l..4 * l + 4];
            let written = l < 20 && l != 9;
            assert_eq!(word == 0xDEAD_BEEFu32.to_le_bytes(), written, "lane {l}");
        }
    }

    /// Global memory: one mapping of `GLOBAL_LEN` bytes at `GLOBAL_BASE`,
    /// counting translations.
    struct OneMapping {
        bytes: std::cell::UnsafeCell<Vec<u8>>,
        translations: std::sync::atomic::AtomicUsize,
    }
    // SAFETY: the tests use it from one thread only.
    unsafe impl Sync for OneMapping {}
    const GLOBAL_BASE: u64 = 0x20_0000;
    const GLOBAL_LEN: usize = 1024;

    impl OneMapping {
        fn new() -> OneMapping {
            OneMapping {
                bytes: std::cell::UnsafeCell::new(
                    (0..GLOBAL_LEN).map(|i| (i * 29 + 7) as u8).collect(),
                ),
                translations: 0.into(),
            }
        }
        fn bytes(&self) -> Vec<u8> {
            // SAFETY: single-threaded test, no pointer from translate is live here.
            unsafe { (*self.bytes.get()).clone() }
        }
        fn translations(&self) -> usize {
            self.translations.load(std::sync::atomic::Ordering::Relaxed)
        }
    }

    impl GpuMemory for OneMapping {
        fn translate(&self, addr: u64, len: u64, access: Access) -> Result<*mut u8, MemoryFault> {
            self.translations
                .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            let fault = MemoryFault {
                address: addr,
                access,
            };
            let end = addr.checked_add(len).ok_or(fault)?;
            if addr < GLOBAL_BASE || end > GLOBAL_BASE + GLOBAL_LEN as u64 {
                return Err(fault);
            }
            // SAFETY: single-threaded test; the pointer stays inside the vector.
            Ok(unsafe { (*self.bytes.get()).as_mut_ptr() }
                .wrapping_add((addr - GLOBAL_BASE) as usize))
        }
    }

    /// A wave whose lane `l` addresses `addrs[l]` through `i`'s address
    /// operands (v[2:3], or v4 with s[6:7] = GLOBAL_BASE), all lanes active.
    fn wave_at(i: &Inst, saddr: bool, addrs: &[u64; LANES]) -> Wave {
        let mut w = Wave::default();
        w.sgpr[crate::gfx11::wave::EXEC] = u32::MAX;
        w.sgpr[6] = GLOBAL_BASE as u32;
        w.sgpr[7] = (GLOBAL_BASE >> 32) as u32;
        for (l, &a) in addrs.iter().enumerate() {
            let v = a.wrapping_sub(i.imm as i64 as u64);
            if saddr {
                w.vgpr[4][l] = v.wrapping_sub(GLOBAL_BASE) as u32;
            } else {
                w.vgpr[2][l] = v as u32;
                w.vgpr[3][l] = (v >> 32) as u32;
            }
        }
        for (r, row) in w.vgpr.iter_mut().enumerate().skip(8) {
            for (l, v) in row.iter_mut().enumerate() {
                *v = 0x5151_0000 | (r as u32) << 8 | l as u32;
            }
        }
        w
    }

    // (llvm-mc-19 encoding, store, bytes per lane, saddr form) of
    // `global_load_b32 v10, v[2:3], off` and its siblings.
    const DWORD_ACCESSES: [([u8; 8], bool, usize, bool); 14] = [
        (
            [0x00, 0x00, 0x52, 0xdc, 0x02, 0x00, 0x7c, 0x0a],
            false,
            4,
            false,
        ),
        // global_load_b64 v[10:11], v[2:3], off offset:16
        (
            [0x10, 0x00, 0x56, 0xdc, 0x02, 0x00, 0x7c, 0x0a],
            false,
            8,
            false,
        ),
        // global_load_b96 v[10:12], v[2:3], off
        (
            [0x00, 0x00, 0x5a, 0xdc, 0x02, 0x00, 0x7c, 0x0a],
            false,
            12,
            false,
        ),
        // global_load_b128 v[10:13], v[2:3], off
        (
            [0x00, 0x00, 0x5e, 0xdc, 0x02, 0x00, 0x7c, 0x0a],
            false,
            16,
            false,
        ),
        // global_load_b32 v10, v4, s[6:7] offset:-8
        (
            [0xf8, 0x1f, 0x52, 0xdc, 0x04, 0x00, 0x06, 0x0a],
            false,
            4,
            true,
        ),
        // global_load_b128 v[10:13], v4, s[6:7]
        (
            [0x00, 0x00, 0x5e, 0xdc, 0x04, 0x00, 0x06, 0x0a],
            false,
            16,
            true,
        ),
        // flat_load_b32 v10, v[2:3]
        (
            [0x00, 0x00, 0x50, 0xdc, 0x02, 0x00, 0x7c, 0x0a],
            false,
            4,
            false,
        ),
        // flat_load_b64 v[10:11], v[2:3] offset:8
        (
            [0x08, 0x00, 0x54, 0xdc, 0x02, 0x00, 0x7c, 0x0a],
            false,
            8,
            false,
        ),
        // global_store_b32 v[2:3], v20, off
        (
            [0x00, 0x00, 0x6a, 0xdc, 0x02, 0x14, 0x7c, 0x00],
            true,
            4,
            false,
        ),
        // global_store_b64 v[2:3], v[20:21], off offset:16
        (
            [0x10, 0x00, 0x6e, 0xdc, 0x02, 0x14, 0x7c, 0x00],
            true,
            8,
            false,
        ),
        // global_store_b96 v[2:3], v[20:22], off
        (
            [0x00, 0x00, 0x72, 0xdc, 0x02, 0x14, 0x7c, 0x00],
            true,
            12,
            false,
        ),
        // global_store_b128 v4, v[20:23], s[6:7]
        (
            [0x00, 0x00, 0x76, 0xdc, 0x04, 0x14, 0x06, 0x00],
            true,
            16,
            true,
        ),
        // flat_store_b128 v[2:3], v[20:23]
        (
            [0x00, 0x00, 0x74, 0xdc, 0x02, 0x14, 0x7c, 0x00],
            true,
            16,
            false,
        ),
        // flat_store_b32 v[2:3], v20
        (
            [0x00, 0x00, 0x68, 0xdc, 0x02, 0x14, 0x7c, 0x00],
            true,
            4,
            false,
        ),
    ];

    /// The byte model of a dword access: every lane's `size` bytes at its
    /// address, stored from v20.. or loaded into v10..; the registers and
    /// memory (from GLOBAL_BASE) it leaves.
    fn dword_model(
        addrs: &[u64; LANES],
        size: usize,
        store: bool,
        regs: &crate::gfx11::wave::VgprFile,
        mem: &[u8],
    ) -> (crate::gfx11::wave::VgprFile, Vec<u8>) {
        let (mut want_regs, mut want_mem) = (regs.clone(), mem.to_vec());
        for (l, &a) in addrs.iter().enumerate() {
            let o = (a - GLOBAL_BASE) as usize;
            for k in 0..size / 4 {
                let m = &mut want_mem[o + 4 * k..o + 4 * k + 4];
                if store {
                    m.copy_from_slice(&regs[20 + k][l].to_le_bytes());
                } else {
                    want_regs[10 + k][l] = u32::from_le_bytes(m.try_into().unwrap());
                }
            }
        }
        (want_regs, want_mem)
    }

    /// FLAT/GLOBAL dword loads and stores of every width, coalesced (the
    /// one-translation row path) and with lanes out of order (the general
    /// path), against a byte model of memory and registers; a coalesced
    /// access translates once.
    #[test]
    fn coalesced_and_scattered_dword_accesses_match_model() {
        for (enc, store, size, saddr) in DWORD_ACCESSES {
            let i = inst(enc);
            for coalesced in [true, false] {
                let mut addrs = [0u64; LANES];
                for (l, a) in addrs.iter_mut().enumerate() {
                    let slot = if coalesced { l } else { (l * 7 + 3) % LANES };
                    *a = GLOBAL_BASE + 48 + (slot * size) as u64;
                }
                let mem = OneMapping::new();
                let before = mem.bytes();
                let mut w = wave_at(&i, saddr, &addrs);
                let regs = w.vgpr.clone();
                let (mut scratch, mut lds) = (vec![0u8; 4], vec![0u8; 4]);
                let mut e = env(&mut scratch, &mut lds);
                e.mem = &mem;
                assert_eq!(flat(&mut w, &mut e, &i), Ok(Flow::Next));
                let what = format!("{} coalesced {coalesced}", i.mnemonic);
                if coalesced {
                    assert_eq!(mem.translations(), 1, "{what}");
                }
                let (want_regs, want_mem) = dword_model(&addrs, size, store, &regs, &before);
                assert_eq!(mem.bytes(), want_mem, "{what}: memory");
                assert!(w.vgpr == want_regs, "{what}: registers");
            }
        }
    }

    /// A coalesced access that runs past the end of its mapping faults at
    /// the first lane outside it, as lane by lane, and a store writes
    /// nothing; a partial EXEC that leaves those lanes out succeeds.
    #[test]
    fn coalesced_access_past_the_mapping_faults_at_the_first_bad_lane() {
        for (enc, store, size, saddr) in DWORD_ACCESSES {
            let i = inst(enc);
            // Lane 19 is the first whose bytes do not all fit.
            let end = GLOBAL_BASE + GLOBAL_LEN as u64;
            let a0 = end - 20 * size as u64 + 4;
            let addrs: [u64; LANES] = std::array::from_fn(|l| a0 + (l * size) as u64);
            let mem = OneMapping::new();
            let before = mem.bytes();
            let mut w = wave_at(&i, saddr, &addrs);
            let regs = w.vgpr.clone();
            let (mut scratch, mut lds) = (vec![0u8; 4], vec![0u8; 4]);
            let mut e = env(&mut scratch, &mut lds);
            e.mem = &mem;
            let access = if store { Access::Write } else { Access::Read };
            assert_eq!(
                flat(&mut w, &mut e, &i),
                Err(fault(addrs[19], access)),
                "{}",
                i.mnemonic
            );
            assert_eq!(mem.bytes(), before, "{}: memory", i.mnemonic);
            assert!(w.vgpr == regs, "{}: registers", i.mnemonic);
            w.sgpr[crate::gfx11::wave::EXEC] = (1 << 19) - 1;
            assert_eq!(flat(&mut w, &mut e, &i), Ok(Flow::Next), "{}", i.mnemonic);
        }
    }

    /// Coalesced FLAT addresses inside the shared aperture go to LDS, not
    /// through translation.
    #[test]
    fn coalesced_flat_in_the_shared_aperture_reads_lds() {
        const SHARED_BASE: u64 = 0x0001_0000_0000_0000;
        // flat_load_b32 v10, v[2:3]
        let i = inst([0x00, 0x00, 0x50, 0xdc, 0x02, 0x00, 0x7c, 0x0a]);
        let addrs: [u64; LANES] = std::array::from_fn(|l| SHARED_BASE + 16 + 4 * l as u64);
        let mut w = wave_at(&i, false, &addrs);
        let mem = OneMapping::new();
        let mut lds: Vec<u8> = (0..256u32).map(|b| (b * 3 + 1) as u8).collect();
        let want: Vec<u32> = (0..LANES)
            .map(|l| u32::from_le_bytes(lds[16 + 4 * l..20 + 4 * l].try_into().unwrap()))
            .collect();
        let mut scratch = vec![0u8; 4];
        let mut e = env(&mut scratch, &mut lds);
        e.mem = &mem;
        e.shared_base = SHARED_BASE;
        assert_eq!(flat(&mut w, &mut e, &i), Ok(Flow::Next));
        assert_eq!(w.vgpr[10].to_vec(), want);
        assert_eq!(mem.translations(), 0);
    }

    /// SMEM loads of every width from s[2:3] = GLOBAL_BASE (the one-copy
    /// path below null, and the per-register path for a destination
    /// running past null: s122, s123 written, null dropped, m0 written)
    /// against the bytes in memory; no other SGPR changes. Past the
    /// mapping, a fault at the load's address.
    #[test]
    fn smem_loads_match_memory() {
        // (encoding words, destination, dwords, byte offset); offsets as llvm-mc-19 encodes them.
        let cases: [([u32; 2], usize, usize, u64); 7] = [
            ([0xf400_0141, 0xf800_0004], 5, 1, 0x4), // s_load_b32 s5, s[2:3], 0x4
            ([0xf404_0181, 0xf800_0008], 6, 2, 0x8), // s_load_b64 s[6:7], s[2:3], 0x8
            ([0xf408_0201, 0xf800_0010], 8, 4, 0x10), // s_load_b128 s[8:11], s[2:3], 0x10
            ([0xf40c_0301, 0xf800_0020], 12, 8, 0x20), // s_load_b256 s[12:19], s[2:3], 0x20
            ([0xf410_0501, 0xf800_0040], 20, 16, 0x40), // s_load_b512 s[20:35], s[2:3], 0x40
            ([0xf400_0141, 0x0800_0004], 5, 1, 0x4 + 12), // s_load_b32 s5, s[2:3], s4 offset:0x4
            ([0xf408_1e81, 0xf800_0010], 122, 4, 0x10), // s_load_b128 s[122:125] (sdata 122)
        ];
        let mem = OneMapping::new();
        let bytes = mem.bytes();
        for (words, dst, dwords, off) in cases {
            let i = crate::gfx11::decode::decode(&words).unwrap();
            let mut w = Wave::default();
            for (r, v) in w.sgpr.iter_mut().enumerate() {
                *v = 0xA000_0000 | r as u32;
            }
            w.sgpr[2] = GLOBAL_BASE as u32;
            w.sgpr[3] = (GLOBAL_BASE >> 32) as u32;
            w.sgpr[4] = 12;
            let mut want = w.sgpr;
            for k in 0..dwords {
                let o = off as usize + 4 * k;
                if dst + k != NULL {
                    want[dst + k] = u32::from_le_bytes(bytes[o..o + 4].try_into().unwrap());
                }
            }
            let (mut scratch, mut lds) = (vec![0u8; 4], vec![0u8; 4]);
            let mut e = env(&mut scratch, &mut lds);
            e.mem = &mem;
            assert_eq!(smem(&mut w, &mut e, &i), Ok(Flow::Next), "{}", i.mnemonic);
            assert_eq!(w.sgpr, want, "{} dst {dst}", i.mnemonic);
            // The same load with s[2:3] moved so that it starts at the mapping's end.
            let base = GLOBAL_BASE + GLOBAL_LEN as u64 - off;
            w.sgpr[2] = base as u32;
            w.sgpr[3] = (base >> 32) as u32;
            w.sgpr[4] = 12;
            assert_eq!(
                smem(&mut w, &mut e, &i),
                Err(fault(GLOBAL_BASE + GLOBAL_LEN as u64, Access::Read)),
                "{}",
                i.mnemonic
            );
        }
    }

    /// The one-pass check of a 64-bit address pair agrees with the two row
    /// checks: strided and uniform rows, each broken in one lane (low word,
    /// high word, first or last lane), and a low word that would wrap.
    #[test]
    fn strided_pair_matches_the_row_checks() {
        let mut seed = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed >> 16) as u32
        };
        let mut checked = [0u32; 2];
        for step in [0u32, 4, 8, 12, 16] {
            for round in 0..200 {
                let l0 = match round % 4 {
                    0 => (u32::MAX - step * (LANES as u32 - 1)).wrapping_add(round / 4 % 2),
                    _ => next(),
                };
                let h0 = next();
                let mut lo: [u32; LANES] =
                    std::array::from_fn(|l| l0.wrapping_add(step * l as u32));
                let mut hi = [h0; LANES];
                let lane = [0, LANES - 1, next() as usize % LANES][round as usize % 3];
                match round % 5 {
                    1 => lo[lane] ^= 1 << (next() % 32),
                    2 => hi[lane] ^= 1 << (next() % 32),
                    3 => hi[lane] = hi[lane].wrapping_add(1),
                    _ => {}
                }
                let want = strided(&lo, step) && strided(&hi, 0);
                assert_eq!(strided_pair(&lo, &hi, step), want, "{lo:x?} {hi:x?} {step}");
                checked[want as usize] += 1;
            }
        }
        assert!(checked[0] > 100 && checked[1] > 100, "{checked:?}");
    }

    /// What the wave loop does with `i`: run its pre-resolved form, and take
    /// `step` (the general path) when that declines. True: the form ran it.
    /// A wave64 memory access runs its passes through the form where it
    /// can (`run_wave64_memory`; true whether or not a pass declined).
    fn run_pre_resolved(w: &mut Wave, e: &mut Env, i: &Inst) -> (ExecResult, bool) {
        use crate::gfx11::exec::fast;
        let f = fast::compile(i, 0);
        match fast::run(w, e, &f) {
            Some(flow) => (Ok(flow), true),
            None => match fast::run_wave64_memory(w, e, &f, i) {
                Some(done) => (done, true),
                None => (crate::gfx11::exec::step(w, e, i), false),
            },
        }
    }

    /// The pre-resolved FLAT/GLOBAL forms (`Fast::Coalesced`) of every
    /// dword-multiple load and store: coalesced lanes run there (one
    /// translation), scattered lanes and a partial EXEC there too (the
    /// one-span case, vmem/fast.rs; one or two lanes one at a time), and
    /// match the byte model; a range past the mapping (fault at the first
    /// bad lane, nothing stored) and FLAT
    /// lanes in the shared aperture decline to the general path. Every case
    /// gives exactly the result, memory and translations of `flat` alone.
    #[test]
    fn pre_resolved_flat_forms_match_the_byte_model() {
        const SHARED_BASE: u64 = 0x0001_0000_0000_0000;
        for (enc, store, size, saddr) in DWORD_ACCESSES {
            let i = inst(enc);
            let f = crate::gfx11::exec::fast::compile(&i, 0);
            assert!(
                matches!(f, crate::gfx11::exec::fast::Fast::Coalesced(_)),
                "{}: {f:?}",
                i.mnemonic
            );
            let end = GLOBAL_BASE + GLOBAL_LEN as u64;
            for case in [
                "coalesced",
                "scattered",
                "partial exec",
                "one lane",
                "two lanes",
                "past the end",
                "shared",
            ] {
                if case == "shared" && (saddr || !i.mnemonic.starts_with("flat")) {
                    continue;
                }
                let addrs: [u64; LANES] = std::array::from_fn(|l| {
                    let slot = if case == "scattered" {
                        (l * 7 + 3) % LANES
                    } else {
                        l
                    };
                    let base = match case {
                        "past the end" => end - 20 * size as u64 + 4,
                        "shared" => SHARED_BASE + 16,
                        _ => GLOBAL_BASE + 48,
                    };
                    base + (slot * size) as u64
                });
                let what = format!("{} {case}", i.mnemonic);
                let w0 = {
                    let mut w = wave_at(&i, saddr, &addrs);
                    // One or two lanes: GLOBAL runs them lane by lane (`spanned_few`).
                    w.sgpr[crate::gfx11::wave::EXEC] = match case {
                        "partial exec" => 0xFFFF_7FFF,
                        "one lane" => 1 << 9,
                        "two lanes" => 1 << 2 | 1 << 30,
                        _ => w.sgpr[crate::gfx11::wave::EXEC],
                    };
                    w
                };
                let (mem_fast, mem_slow) = (OneMapping::new(), OneMapping::new());
                let before = mem_fast.bytes();
                let (mut fast_w, mut slow_w) = (w0.clone(), w0.clone());
                let (mut scratch, mut lds) = (vec![0u8; 4], vec![0x5Au8; 256]);
                let (mut scratch2, mut lds2) = (vec![0u8; 4], vec![0x5Au8; 256]);
                let mut e = env(&mut scratch, &mut lds);
                e.mem = &mem_fast;
                e.shared_base = SHARED_BASE;
                let mut e2 = env(&mut scratch2, &mut lds2);
                e2.mem = &mem_slow;
                e2.shared_base = SHARED_BASE;
                let (got, took) = run_pre_resolved(&mut fast_w, &mut e, &i);
                let want = flat(&mut slow_w, &mut e2, &i);
                assert_eq!(got, want, "{what}");
                let runs = matches!(
                    case,
                    "coalesced" | "scattered" | "partial exec" | "one lane" | "two lanes"
                );
                assert_eq!(took, runs, "{what}: taken");
                if runs {
                    assert_eq!(
                        mem_fast.translations(),
                        mem_slow.translations(),
                        "{what}: translations"
                    );
                }
                assert_eq!(mem_fast.bytes(), mem_slow.bytes(), "{what}: memory");
                assert!(fast_w.vgpr == slow_w.vgpr, "{what}: registers");
                assert_eq!(e.lds, e2.lds, "{what}: LDS");
                if case == "coalesced" {
                    assert_eq!(mem_fast.translations(), 1, "{what}");
                }
                if matches!(case, "coalesced" | "scattered") {
                    // The byte model: every lane's `size` bytes at its address.
                    let (want_regs, want_mem) = dword_model(&addrs, size, store, &w0.vgpr, &before);
                    assert_eq!(mem_fast.bytes(), want_mem, "{what}: model memory");
                    assert!(fast_w.vgpr == want_regs, "{what}: model registers");
                }
            }
        }
    }

    // llvm-mc-19 encodings of FLAT/GLOBAL 1- and 2-byte loads (into v10) and
    // stores (of v20), addressed by v[2:3] or by v4 from s[6:7] (the saddr
    // form, true).
    const SUBWORD_ACCESSES: [(&str, [u8; 8], bool); 15] = [
        (
            "global_load_u8 v10, v[2:3], off",
            [0x00, 0x00, 0x42, 0xdc, 0x02, 0x00, 0x7c, 0x0a],
            false,
        ),
        (
            "global_load_i8 v10, v[2:3], off offset:3",
            [0x03, 0x00, 0x46, 0xdc, 0x02, 0x00, 0x7c, 0x0a],
            false,
        ),
        (
            "global_load_u16 v10, v[2:3], off",
            [0x00, 0x00, 0x4a, 0xdc, 0x02, 0x00, 0x7c, 0x0a],
            false,
        ),
        (
            "global_load_i16 v10, v4, s[6:7] offset:-6",
            [0xfa, 0x1f, 0x4e, 0xdc, 0x04, 0x00, 0x06, 0x0a],
            true,
        ),
        (
            "global_load_d16_b16 v10, v[2:3], off offset:2",
            [0x02, 0x00, 0x82, 0xdc, 0x02, 0x00, 0x7c, 0x0a],
            false,
        ),
        (
            "global_load_d16_hi_b16 v10, v[2:3], off",
            [0x00, 0x00, 0x8e, 0xdc, 0x02, 0x00, 0x7c, 0x0a],
            false,
        ),
        (
            "global_load_d16_i8 v10, v4, s[6:7]",
            [0x00, 0x00, 0x7e, 0xdc, 0x04, 0x00, 0x06, 0x0a],
            true,
        ),
        (
            "global_load_d16_hi_u8 v10, v[2:3], off offset:1",
            [0x01, 0x00, 0x86, 0xdc, 0x02, 0x00, 0x7c, 0x0a],
            false,
        ),
        (
            "flat_load_u16 v10, v[2:3] offset:4",
            [0x04, 0x00, 0x48, 0xdc, 0x02, 0x00, 0x7c, 0x0a],
            false,
        ),
        (
            "flat_load_d16_hi_i8 v10, v[2:3]",
            [0x00, 0x00, 0x88, 0xdc, 0x02, 0x00, 0x7c, 0x0a],
            false,
        ),
        (
            "global_store_b8 v[2:3], v20, off offset:1",
            [0x01, 0x00, 0x62, 0xdc, 0x02, 0x14, 0x7c, 0x00],
            false,
        ),
        (
            "global_store_b16 v4, v20, s[6:7] offset:-2",
            [0xfe, 0x1f, 0x66, 0xdc, 0x04, 0x14, 0x06, 0x00],
            true,
        ),
        (
            "global_store_d16_hi_b16 v[2:3], v20, off",
            [0x00, 0x00, 0x96, 0xdc, 0x02, 0x14, 0x7c, 0x00],
            false,
        ),
        (
            "global_store_d16_hi_b8 v[2:3], v20, off offset:5",
            [0x05, 0x00, 0x92, 0xdc, 0x02, 0x14, 0x7c, 0x00],
            false,
        ),
        (
            "flat_store_b16 v[2:3], v20 offset:2",
            [0x02, 0x00, 0x64, 0xdc, 0x02, 0x14, 0x7c, 0x00],
            false,
        ),
    ];

    /// What a 1- or 2-byte access does to registers and memory, lane by
    /// lane in lane order, written from the ISA's description rather than
    /// the interpreter's code (RDNA3 ISA guide, "FLAT, Scratch and Global
    /// Instructions": a u8/u16 load zero-extends, i8/i16 sign-extends, a
    /// D16 load writes the low or high 16 bits and keeps the other half, a
    /// D16_HI store writes bits 16 and up).
    fn subword_model(
        mnemonic: &str,
        addrs: &[u64; LANES],
        exec: u32,
        regs: &crate::gfx11::wave::VgprFile,
        mem: &[u8],
    ) -> (crate::gfx11::wave::VgprFile, Vec<u8>) {
        let (mut want_regs, mut want_mem) = (regs.clone(), mem.to_vec());
        let store = mnemonic.contains("store");
        let size = if mnemonic.contains("8 ") { 1 } else { 2 };
        let signed = mnemonic.contains("_i8") || mnemonic.contains("_i16");
        let hi = mnemonic.contains("_hi_");
        let d16 = mnemonic.contains("d16");
        for (l, &a) in addrs.iter().enumerate() {
            if exec >> l & 1 == 0 {
                continue;
            }
            let o = (a - GLOBAL_BASE) as usize;
            if store {
                let x = regs[20][l] >> if hi { 16 } else { 0 };
                want_mem[o..o + size].copy_from_slice(&x.to_le_bytes()[..size]);
                continue;
            }
            let mut b = [0u8; 4];
            b[..size].copy_from_slice(&mem[o..o + size]);
            let mut x = u32::from_le_bytes(b);
            if signed && b[size - 1] & 0x80 != 0 {
                x |= u32::MAX << (8 * size);
            }
            let old = regs[10][l];
            want_regs[10][l] = match (d16, hi) {
                (false, _) => x,
                (true, false) => old & 0xFFFF_0000 | x & 0xFFFF,
                (true, true) => old & 0xFFFF | x << 16,
            };
        }
        (want_regs, want_mem)
    }

    /// The pre-resolved forms of 1- and 2-byte FLAT/GLOBAL loads and stores
    /// (`Fast::Coalesced`, sizes 1 and 2): coalesced lanes, scattered lanes
    /// and partial EXECs (one or two lanes too) run there and match the
    /// byte model, with the translations of `flat` alone; a range past the
    /// mapping and FLAT lanes in the shared aperture decline to the general
    /// path, with its fault or its LDS access.
    #[test]
    fn pre_resolved_subword_forms_match_the_byte_model() {
        const SHARED_BASE: u64 = 0x0001_0000_0000_0000;
        for (text, enc, saddr) in SUBWORD_ACCESSES {
            let i = inst(enc);
            assert_eq!(i.mnemonic, text.split(' ').next().unwrap(), "{text}");
            let f = crate::gfx11::exec::fast::compile(&i, 0);
            assert!(
                matches!(f, crate::gfx11::exec::fast::Fast::Coalesced(_)),
                "{text}: {f:?}"
            );
            let size = if text.contains("8 ") { 1 } else { 2 };
            let end = GLOBAL_BASE + GLOBAL_LEN as u64;
            for case in [
                "coalesced",
                "scattered",
                "partial exec",
                "one lane",
                "two lanes",
                "past the end",
                "shared",
            ] {
                if case == "shared" && !text.starts_with("flat") {
                    continue;
                }
                let addrs: [u64; LANES] = std::array::from_fn(|l| {
                    let slot = if case == "scattered" {
                        (l * 7 + 3) % LANES
                    } else {
                        l
                    };
                    let base = match case {
                        "past the end" => end - 20 * size as u64 + 1,
                        "shared" => SHARED_BASE + 16,
                        _ => GLOBAL_BASE + 49,
                    };
                    base + (slot * size) as u64
                });
                let what = format!("{text} {case}");
                let w0 = {
                    let mut w = wave_at(&i, saddr, &addrs);
                    for (l, x) in w.vgpr[20].iter_mut().enumerate() {
                        *x = (l as u32).wrapping_mul(0x9E37_79B9) ^ 0x8070_6050;
                    }
                    w.sgpr[crate::gfx11::wave::EXEC] = match case {
                        "partial exec" => 0xFFFF_7FFF,
                        "one lane" => 1 << 9,
                        "two lanes" => 1 << 2 | 1 << 30,
                        _ => u32::MAX,
                    };
                    w
                };
                let exec = w0.sgpr[crate::gfx11::wave::EXEC];
                let (mem_fast, mem_slow) = (OneMapping::new(), OneMapping::new());
                let before = mem_fast.bytes();
                let (mut fast_w, mut slow_w) = (w0.clone(), w0.clone());
                let (mut scratch, mut lds) = (vec![0u8; 4], vec![0x5Au8; 256]);
                let (mut scratch2, mut lds2) = (vec![0u8; 4], vec![0x5Au8; 256]);
                let mut e = env(&mut scratch, &mut lds);
                e.mem = &mem_fast;
                e.shared_base = SHARED_BASE;
                let mut e2 = env(&mut scratch2, &mut lds2);
                e2.mem = &mem_slow;
                e2.shared_base = SHARED_BASE;
                let (got, took) = run_pre_resolved(&mut fast_w, &mut e, &i);
                let want = flat(&mut slow_w, &mut e2, &i);
                assert_eq!(got, want, "{what}");
                let runs = !matches!(case, "past the end" | "shared");
                assert_eq!(took, runs, "{what}: taken");
                assert_eq!(mem_fast.bytes(), mem_slow.bytes(), "{what}: memory");
                assert!(fast_w.vgpr == slow_w.vgpr, "{what}: registers");
                assert_eq!(e.lds, e2.lds, "{what}: LDS");
                if runs {
                    assert_eq!(
                        mem_fast.translations(),
                        mem_slow.translations(),
                        "{what}: translations"
                    );
                    let (want_regs, want_mem) =
                        subword_model(text, &addrs, exec, &w0.vgpr, &before);
                    assert_eq!(mem_fast.bytes(), want_mem, "{what}: model memory");
                    assert!(fast_w.vgpr == want_regs, "{what}: model registers");
                }
                if case == "coalesced" {
                    assert_eq!(mem_fast.translations(), 1, "{what}");
                }
                if case == "past the end" {
                    let access = if text.contains("store") {
                        Access::Write
                    } else {
                        Access::Read
                    };
                    assert_eq!(got, Err(fault(addrs[19], access)), "{what}");
                    assert_eq!(mem_fast.bytes(), before, "{what}: nothing stored");
                }
            }
        }
    }

    /// The pre-resolved s_load forms (`Fast::SLoad`) load what memory holds
    /// (soffset included); a destination running into null has none, and
    /// a load past the mapping declines to `step`, which faults there.
    #[test]
    fn pre_resolved_smem_loads_match_memory() {
        let cases: [([u32; 2], usize, usize, u64); 7] = [
            ([0xf400_0141, 0xf800_0004], 5, 1, 0x4), // s_load_b32 s5, s[2:3], 0x4
            ([0xf404_0181, 0xf800_0008], 6, 2, 0x8), // s_load_b64 s[6:7], s[2:3], 0x8
            ([0xf408_0201, 0xf800_0010], 8, 4, 0x10), // s_load_b128 s[8:11], s[2:3], 0x10
            ([0xf40c_0301, 0xf800_0020], 12, 8, 0x20), // s_load_b256 s[12:19], s[2:3], 0x20
            ([0xf410_0501, 0xf800_0040], 20, 16, 0x40), // s_load_b512 s[20:35], s[2:3], 0x40
            ([0xf400_0141, 0x0800_0004], 5, 1, 0x4 + 12), // s_load_b32 s5, s[2:3], s4 offset:0x4
            ([0xf408_1e81, 0xf800_0010], 122, 4, 0x10), // s_load_b128 s[122:125] (sdata 122)
        ];
        let mem = OneMapping::new();
        let bytes = mem.bytes();
        for (words, dst, dwords, off) in cases {
            let i = crate::gfx11::decode::decode(&words).unwrap();
            let f = crate::gfx11::exec::fast::compile(&i, 0);
            let resolved = matches!(f, crate::gfx11::exec::fast::Fast::SLoad { .. });
            assert_eq!(resolved, dst + dwords <= NULL, "{}: {f:?}", i.mnemonic);
            let mut w = Wave::default();
            for (r, v) in w.sgpr.iter_mut().enumerate() {
                *v = 0xA000_0000 | r as u32;
            }
            w.sgpr[2] = GLOBAL_BASE as u32;
            w.sgpr[3] = (GLOBAL_BASE >> 32) as u32;
            w.sgpr[4] = 12;
            let mut want = w.sgpr;
            for k in 0..dwords {
                let o = off as usize + 4 * k;
                if dst + k != NULL {
                    want[dst + k] = u32::from_le_bytes(bytes[o..o + 4].try_into().unwrap());
                }
            }
            let (mut scratch, mut lds) = (vec![0u8; 4], vec![0u8; 4]);
            let mut e = env(&mut scratch, &mut lds);
            e.mem = &mem;
            let (got, took) = run_pre_resolved(&mut w, &mut e, &i);
            assert_eq!((got, took), (Ok(Flow::Next), resolved), "{}", i.mnemonic);
            assert_eq!(w.sgpr, want, "{} dst {dst}", i.mnemonic);
            let base = GLOBAL_BASE + GLOBAL_LEN as u64 - off;
            w.sgpr[2] = base as u32;
            w.sgpr[3] = (base >> 32) as u32;
            w.sgpr[4] = 12;
            let before = w.sgpr;
            let (got, took) = run_pre_resolved(&mut w, &mut e, &i);
            let fault = Err(fault(GLOBAL_BASE + GLOBAL_LEN as u64, Access::Read));
            assert_eq!((got, took), (fault, false), "{}", i.mnemonic);
            assert_eq!(w.sgpr, before, "{}: a fault writes nothing", i.mnemonic);
        }
    }

    /// One SCRATCH form for the byte model: llvm-mc-19 encoding, store,
    /// bytes, sign-extend, d16 placement (0 none, 1 low, 2 high) for loads or
    /// high-half data for stores, vaddr v2 used, saddr s4 used, offset, first
    /// destination (loads) or data (stores) VGPR.
    struct ScratchForm {
        text: &'static str,
        bytes: [u8; 8],
        store: bool,
        size: usize,
        signed: bool,
        d16: u8,
        vaddr: bool,
        saddr: bool,
        offset: i32,
        reg: usize,
    }

    const fn form(
        text: &'static str,
        bytes: [u8; 8],
        (store, size, signed, d16): (bool, usize, bool, u8),
        (vaddr, saddr, offset, reg): (bool, bool, i32, usize),
    ) -> ScratchForm {
        ScratchForm {
            text,
            bytes,
            store,
            size,
            signed,
            d16,
            vaddr,
            saddr,
            offset,
            reg,
        }
    }

    const L: bool = false;
    const S: bool = true;
    const SCRATCH_FORMS: &[ScratchForm] = &[
        form(
            "scratch_load_u8 v10, v2, off offset:3",
            [0x03, 0x00, 0x41, 0xdc, 0x02, 0x00, 0xfc, 0x0a],
            (L, 1, false, 0),
            (true, false, 3, 10),
        ),
        form(
            "scratch_load_i8 v10, off, s4 offset:5",
            [0x05, 0x00, 0x45, 0xdc, 0x00, 0x00, 0x04, 0x0a],
            (L, 1, true, 0),
            (false, true, 5, 10),
        ),
        form(
            "scratch_load_u16 v10, v2, s4 offset:-2",
            [0xfe, 0x1f, 0x49, 0xdc, 0x02, 0x00, 0x84, 0x0a],
            (L, 2, false, 0),
            (true, true, -2, 10),
        ),
        form(
            "scratch_load_i16 v10, v2, off",
            [0x00, 0x00, 0x4d, 0xdc, 0x02, 0x00, 0xfc, 0x0a],
            (L, 2, true, 0),
            (true, false, 0, 10),
        ),
        form(
            "scratch_load_b32 v10, off, s4 offset:8",
            [0x08, 0x00, 0x51, 0xdc, 0x00, 0x00, 0x04, 0x0a],
            (L, 4, false, 0),
            (false, true, 8, 10),
        ),
        form(
            "scratch_load_b32 v10, v2, off offset:4",
            [0x04, 0x00, 0x51, 0xdc, 0x02, 0x00, 0xfc, 0x0a],
            (L, 4, false, 0),
            (true, false, 4, 10),
        ),
        form(
            "scratch_load_b64 v[10:11], v2, s4 offset:16",
            [0x10, 0x00, 0x55, 0xdc, 0x02, 0x00, 0x84, 0x0a],
            (L, 8, false, 0),
            (true, true, 16, 10),
        ),
        form(
            "scratch_load_b96 v[10:12], v2, off",
            [0x00, 0x00, 0x59, 0xdc, 0x02, 0x00, 0xfc, 0x0a],
            (L, 12, false, 0),
            (true, false, 0, 10),
        ),
        form(
            "scratch_load_b128 v[10:13], off, s4 offset:12",
            [0x0c, 0x00, 0x5d, 0xdc, 0x00, 0x00, 0x04, 0x0a],
            (L, 16, false, 0),
            (false, true, 12, 10),
        ),
        form(
            "scratch_load_d16_u8 v10, v2, off offset:1",
            [0x01, 0x00, 0x79, 0xdc, 0x02, 0x00, 0xfc, 0x0a],
            (L, 1, false, 1),
            (true, false, 1, 10),
        ),
        form(
            "scratch_load_d16_hi_i8 v10, v2, off",
            [0x00, 0x00, 0x89, 0xdc, 0x02, 0x00, 0xfc, 0x0a],
            (L, 1, true, 2),
            (true, false, 0, 10),
        ),
        form(
            "scratch_load_d16_b16 v10, v2, off offset:2",
            [0x02, 0x00, 0x81, 0xdc, 0x02, 0x00, 0xfc, 0x0a],
            (L, 2, false, 1),
            (true, false, 2, 10),
        ),
        form(
            "scratch_load_d16_hi_b16 v10, off, s4",
            [0x00, 0x00, 0x8d, 0xdc, 0x00, 0x00, 0x04, 0x0a],
            (L, 2, false, 2),
            (false, true, 0, 10),
        ),
        form(
            "scratch_load_b64 v[2:3], v2, off offset:8",
            [0x08, 0x00, 0x55, 0xdc, 0x02, 0x00, 0xfc, 0x02],
            (L, 8, false, 0),
            (true, false, 8, 2),
        ),
        form(
            "scratch_store_b8 v2, v20, off offset:3",
            [0x03, 0x00, 0x61, 0xdc, 0x02, 0x14, 0xfc, 0x00],
            (S, 1, false, 0),
            (true, false, 3, 20),
        ),
        form(
            "scratch_store_b16 off, v20, s4 offset:6",
            [0x06, 0x00, 0x65, 0xdc, 0x00, 0x14, 0x04, 0x00],
            (S, 2, false, 0),
            (false, true, 6, 20),
        ),
        form(
            "scratch_store_d16_hi_b8 v2, v20, off",
            [0x00, 0x00, 0x91, 0xdc, 0x02, 0x14, 0xfc, 0x00],
            (S, 1, false, 2),
            (true, false, 0, 20),
        ),
        form(
            "scratch_store_d16_hi_b16 v2, v20, s4 offset:2",
            [0x02, 0x00, 0x95, 0xdc, 0x02, 0x14, 0x84, 0x00],
            (S, 2, false, 2),
            (true, true, 2, 20),
        ),
        form(
            "scratch_store_b32 v2, v20, off offset:4",
            [0x04, 0x00, 0x69, 0xdc, 0x02, 0x14, 0xfc, 0x00],
            (S, 4, false, 0),
            (true, false, 4, 20),
        ),
        form(
            "scratch_store_b32 off, v20, s4 offset:8",
            [0x08, 0x00, 0x69, 0xdc, 0x00, 0x14, 0x04, 0x00],
            (S, 4, false, 0),
            (false, true, 8, 20),
        ),
        form(
            "scratch_store_b64 v2, v[20:21], s4",
            [0x00, 0x00, 0x6d, 0xdc, 0x02, 0x14, 0x84, 0x00],
            (S, 8, false, 0),
            (true, true, 0, 20),
        ),
        form(
            "scratch_store_b96 v2, v[20:22], off offset:4",
            [0x04, 0x00, 0x71, 0xdc, 0x02, 0x14, 0xfc, 0x00],
            (S, 12, false, 0),
            (true, false, 4, 20),
        ),
        form(
            "scratch_store_b128 v2, v[20:23], off",
            [0x00, 0x00, 0x75, 0xdc, 0x02, 0x14, 0xfc, 0x00],
            (S, 16, false, 0),
            (true, false, 0, 20),
        ),
    ];

    /// The byte model of a SCRATCH form on wave slot `w.index`: lanes in
    /// order, lane `l`'s address `a` = (v2 if used) + (s4 if used) + offset
    /// modulo 2^32, its byte `a + j` in the slot's dword row `(a + j) / 4`,
    /// lane `l`'s column (the interleaved layout of private_layout.rs). A lane
    /// with `a + size > PER_LANE` faults at `PRIVATE_BASE | a` and ends the
    /// instruction (stores keep the earlier lanes' bytes; loads write no VGPR).
    fn scratch_model(
        f: &ScratchForm,
        w: &mut Wave,
        scratch: &mut [u8],
        flat: bool,
    ) -> Result<(), WaveErrorKind> {
        let exec = w.sgpr[crate::gfx11::wave::EXEC];
        let mut loaded = [[0u32; LANES]; 4];
        for l in (0..LANES).filter(|l| exec >> l & 1 != 0) {
            let mut a = f.offset as u32;
            if flat {
                // v[2:3] + offset, a private lane by its high word; any other lane
                // goes to global memory, which this test's env does not have.
                let full = (w.vgpr[2][l] as u64 | (w.vgpr[3][l] as u64) << 32)
                    .wrapping_add(f.offset as i64 as u64);
                if full >> 32 != PRIVATE_BASE >> 32 {
                    let access = if f.store { Access::Write } else { Access::Read };
                    return Err(fault(full, access));
                }
                a = full as u32;
            } else if f.vaddr {
                a = a.wrapping_add(w.vgpr[2][l]);
            }
            if f.saddr {
                a = a.wrapping_add(w.sgpr[4]);
            }
            if a as usize + f.size > PER_LANE {
                let access = if f.store { Access::Write } else { Access::Read };
                return Err(fault(PRIVATE_BASE | a as u64, access));
            }
            // Byte j of the access: dword (a + j) / 4 of the slot's rows, lane l's
            // column, byte (a + j) % 4 of it.
            let at = |j: usize| {
                let b = a as usize + j;
                w.index as usize * LANES * PER_LANE + (b / 4) * 4 * LANES + 4 * l + b % 4
            };
            if f.store {
                let mut b = Vec::new();
                for k in 0..f.size.div_ceil(4) {
                    let v = w.vgpr[f.reg + k][l];
                    b.extend_from_slice(&(if f.d16 == 2 { v >> 16 } else { v }).to_le_bytes());
                }
                for j in 0..f.size {
                    scratch[at(j)] = b[j];
                }
            } else {
                for j in 0..f.size {
                    loaded[j / 4][l] |= (scratch[at(j)] as u32) << (8 * (j % 4));
                }
            }
        }
        if f.store {
            return Ok(());
        }
        for l in (0..LANES).filter(|l| exec >> l & 1 != 0) {
            if f.size >= 4 {
                for k in 0..f.size / 4 {
                    w.vgpr[f.reg + k][l] = loaded[k][l];
                }
                continue;
            }
            let raw = loaded[0][l];
            let v = match (f.size, f.signed) {
                (1, true) => raw as u8 as i8 as i32 as u32,
                (1, false) => raw as u8 as u32,
                (_, true) => raw as u16 as i16 as i32 as u32,
                (_, false) => raw as u16 as u32,
            };
            let old = w.vgpr[f.reg][l];
            w.vgpr[f.reg][l] = match f.d16 {
                1 => (old & 0xFFFF_0000) | (v & 0xFFFF),
                2 => (old & 0xFFFF) | (v << 16),
                _ => v,
            };
        }
        Ok(())
    }

    /// Every SCRATCH width and addressing form through `flat` against the
    /// byte model, on wave slot 1, under full, random and single-lane EXEC,
    /// and with addresses whose OR is past the slot but whose maximum is not:
    /// in range the fast path is the one taken; a lane just or far past its
    /// slot sends the instruction to the per-lane path,
    /// which faults at that lane as the model says.
    #[test]
    fn scratch_fast_path_matches_the_byte_model() {
        check_private_forms(SCRATCH_FORMS, false);
    }

    /// FLAT loads and stores whose lanes address the private aperture, the
    /// same way as SCRATCH (the fast path is flat_private_in_range), plus a
    /// round where one active lane addresses global memory instead: the
    /// general path then runs and faults there (this env has no memory).
    #[test]
    fn flat_private_fast_path_matches_the_byte_model() {
        check_private_forms(FLAT_PRIVATE_FORMS, true);
    }

    /// (llvm-mc-19 encodings.) FLAT forms: the address is always v[2:3].
    const FLAT_PRIVATE_FORMS: &[ScratchForm] = &[
        form(
            "flat_load_u8 v10, v[2:3] offset:3",
            [0x03, 0x00, 0x40, 0xdc, 0x02, 0x00, 0x7c, 0x0a],
            (L, 1, false, 0),
            (true, false, 3, 10),
        ),
        form(
            "flat_load_i16 v10, v[2:3]",
            [0x00, 0x00, 0x4c, 0xdc, 0x02, 0x00, 0x7c, 0x0a],
            (L, 2, true, 0),
            (true, false, 0, 10),
        ),
        form(
            "flat_load_b32 v10, v[2:3] offset:4",
            [0x04, 0x00, 0x50, 0xdc, 0x02, 0x00, 0x7c, 0x0a],
            (L, 4, false, 0),
            (true, false, 4, 10),
        ),
        form(
            "flat_load_b64 v[10:11], v[2:3] offset:16",
            [0x10, 0x00, 0x54, 0xdc, 0x02, 0x00, 0x7c, 0x0a],
            (L, 8, false, 0),
            (true, false, 16, 10),
        ),
        form(
            "flat_load_b96 v[10:12], v[2:3]",
            [0x00, 0x00, 0x58, 0xdc, 0x02, 0x00, 0x7c, 0x0a],
            (L, 12, false, 0),
            (true, false, 0, 10),
        ),
        form(
            "flat_load_b128 v[10:13], v[2:3] offset:12",
            [0x0c, 0x00, 0x5c, 0xdc, 0x02, 0x00, 0x7c, 0x0a],
            (L, 16, false, 0),
            (true, false, 12, 10),
        ),
        form(
            "flat_load_d16_hi_b16 v10, v[2:3] offset:2",
            [0x02, 0x00, 0x8c, 0xdc, 0x02, 0x00, 0x7c, 0x0a],
            (L, 2, false, 2),
            (true, false, 2, 10),
        ),
        form(
            "flat_load_b64 v[2:3], v[2:3] offset:8",
            [0x08, 0x00, 0x54, 0xdc, 0x02, 0x00, 0x7c, 0x02],
            (L, 8, false, 0),
            (true, false, 8, 2),
        ),
        form(
            "flat_store_b8 v[2:3], v20 offset:3",
            [0x03, 0x00, 0x60, 0xdc, 0x02, 0x14, 0x7c, 0x00],
            (S, 1, false, 0),
            (true, false, 3, 20),
        ),
        form(
            "flat_store_d16_hi_b16 v[2:3], v20 offset:2",
            [0x02, 0x00, 0x94, 0xdc, 0x02, 0x14, 0x7c, 0x00],
            (S, 2, false, 2),
            (true, false, 2, 20),
        ),
        form(
            "flat_store_b32 v[2:3], v20 offset:4",
            [0x04, 0x00, 0x68, 0xdc, 0x02, 0x14, 0x7c, 0x00],
            (S, 4, false, 0),
            (true, false, 4, 20),
        ),
        form(
            "flat_store_b64 v[2:3], v[20:21]",
            [0x00, 0x00, 0x6c, 0xdc, 0x02, 0x14, 0x7c, 0x00],
            (S, 8, false, 0),
            (true, false, 0, 20),
        ),
        form(
            "flat_store_b128 v[2:3], v[20:23] offset:8",
            [0x08, 0x00, 0x74, 0xdc, 0x02, 0x14, 0x7c, 0x00],
            (S, 16, false, 0),
            (true, false, 8, 20),
        ),
    ];

    /// Runs `forms` (SCRATCH, or FLAT into the private aperture when `flat`)
    /// through `flat` and through the fast path alone, against the byte model.
    fn check_private_forms(forms: &[ScratchForm], flat_forms: bool) {
        let mut seed = 0x2545_F491_4F6C_DD1Du64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for f in forms {
            let i = inst(f.bytes);
            for round in 0..23 {
                // Rounds 15..23: every lane's address a multiple of 4 (the row and
                // aligned paths of the interleaved layout), where the form allows.
                let aligned = round >= 15;
                let mut w = Wave {
                    index: 1,
                    ..Wave::default()
                };
                w.sgpr[crate::gfx11::wave::EXEC] = match round % 4 {
                    0 => u32::MAX,
                    1 => next() as u32,
                    2 => 1 << (next() % 32),
                    _ => 0,
                };
                for (r, row) in w.vgpr.iter_mut().enumerate() {
                    for (l, v) in row.iter_mut().enumerate() {
                        *v = (next() as u32) ^ (r << 8 | l) as u32;
                    }
                }
                // Every lane's address in [2, PER_LANE - 16] (room for the negative
                // offset and any width), split between v2 and s4.
                let mut s4 = if f.saddr { 2 + (next() % 8) as u32 } else { 0 };
                if aligned && f.saddr && !f.vaddr {
                    // s4 + offset a multiple of 4.
                    s4 += (s4 as i32 + f.offset)
                        .rem_euclid(4)
                        .wrapping_neg()
                        .rem_euclid(4) as u32;
                }
                w.sgpr[4] = s4;
                for l in 0..LANES {
                    let a = 2 + (next() % (PER_LANE as u64 - 34)) as u32;
                    w.vgpr[2][l] = if f.vaddr { a } else { next() as u32 };
                    if aligned && f.vaddr {
                        // a in 20..=40 - size, a multiple of 4: v2 = a - s4 - offset
                        // stays non-negative (offsets here are below 20).
                        let a =
                            20 + 4 * (next() % ((PER_LANE - f.size - 20) / 4 + 1) as u64) as u32;
                        w.vgpr[2][l] = a.wrapping_sub(s4.wrapping_add(f.offset as u32));
                    }
                }
                let out_of_range = (8..12).contains(&round) && f.vaddr;
                if (12..15).contains(&round) && f.vaddr {
                    // All in range, but the OR of the addresses p and p - 1 is not:
                    // the exact maximum decides.
                    let p: u32 = if f.size <= 8 { 32 } else { 16 };
                    assert!(
                        (2 * p - 1) as usize + f.size > PER_LANE && p as usize + f.size <= PER_LANE
                    );
                    for l in 0..LANES {
                        let a = if l % 2 == 0 { p } else { p - 1 };
                        w.vgpr[2][l] = a.wrapping_sub(s4.wrapping_add(f.offset as u32));
                    }
                    w.sgpr[crate::gfx11::wave::EXEC] = u32::MAX;
                }
                if out_of_range {
                    let lane = (next() % LANES as u64) as usize;
                    w.sgpr[crate::gfx11::wave::EXEC] |= 1 << lane;
                    w.vgpr[2][lane] = if round % 2 == 0 {
                        (PER_LANE - f.size + 1) as u32 - s4.wrapping_add(f.offset as u32)
                    } else {
                        0x8000_0000 + (next() % 64) as u32
                    };
                }
                if flat_forms {
                    w.vgpr[3] = [(PRIVATE_BASE >> 32) as u32; LANES];
                }
                // Round 14 (FLAT): one active lane addresses global memory.
                let global_lane = round == 14 && flat_forms;
                if global_lane {
                    let lane = (next() % LANES as u64) as usize;
                    w.sgpr[crate::gfx11::wave::EXEC] |= 1 << lane;
                    w.vgpr[3][lane] = 0x10;
                }
                let exec = w.sgpr[crate::gfx11::wave::EXEC];
                let init: Vec<u8> = (0..2 * LANES * PER_LANE).map(|_| next() as u8).collect();

                let (mut want_w, mut want_scratch) = (w.clone(), init.clone());
                let want = scratch_model(f, &mut want_w, &mut want_scratch, flat_forms);
                let out_of_range = out_of_range || global_lane;
                assert_eq!(want.is_err(), out_of_range, "{}: round {round}", f.text);

                let (mut probe_w, mut probe_scratch, mut lds) =
                    (w.clone(), init.clone(), vec![0u8; 4]);
                let kind = mem_kind(i.op);
                let probe_env = &mut env(&mut probe_scratch, &mut lds);
                let fast = if flat_forms {
                    flat_private_in_range(&mut probe_w, probe_env, &i, kind)
                } else {
                    scratch_in_range(&mut probe_w, probe_env, &i, kind)
                };
                assert_eq!(
                    fast,
                    exec != 0 && !out_of_range,
                    "{}: round {round}, exec {exec:#x}",
                    f.text
                );
                if fast {
                    assert!(
                        probe_scratch == want_scratch,
                        "{}: fast path scratch, round {round}",
                        f.text
                    );
                    assert_eq!(
                        probe_w.vgpr, want_w.vgpr,
                        "{}: fast path VGPRs, round {round}",
                        f.text
                    );
                }

                let mut scratch = init.clone();
                let got = flat(&mut w, &mut env(&mut scratch, &mut lds), &i);
                assert_eq!(got.map(|_| ()), want, "{}: round {round}", f.text);
                assert!(
                    scratch == want_scratch,
                    "{}: scratch bytes, round {round}",
                    f.text
                );
                assert_eq!(w.vgpr, want_w.vgpr, "{}: VGPRs, round {round}", f.text);
                if f.store && exec != 0 && !out_of_range {
                    assert!(scratch != init, "{}: the store wrote nothing", f.text);
                }
            }
        }
    }

    /// A global atomic for the byte model: llvm-mc-19 encoding, saddr form,
    /// 64-bit, returns (GLC), and its operation on (old, src, cmp).
    struct AtomicForm {
        text: &'static str,
        bytes: [u8; 8],
        saddr: bool,
        wide: bool,
        glc: bool,
        op: fn(u64, u64, u64) -> u64,
    }

    const ATOMIC_FORMS: &[AtomicForm] = &[
        AtomicForm {
            text: "global_atomic_add_u32 v10, v[2:3], v20, off glc",
            bytes: [0x00, 0x40, 0xd6, 0xdc, 0x02, 0x14, 0x7c, 0x0a],
            saddr: false,
            wide: false,
            glc: true,
            op: |o, s, _| (o as u32).wrapping_add(s as u32) as u64,
        },
        AtomicForm {
            text: "global_atomic_add_u32 v[2:3], v20, off offset:8",
            bytes: [0x08, 0x00, 0xd6, 0xdc, 0x02, 0x14, 0x7c, 0x00],
            saddr: false,
            wide: false,
            glc: false,
            op: |o, s, _| (o as u32).wrapping_add(s as u32) as u64,
        },
        AtomicForm {
            text: "global_atomic_cmpswap_b32 v10, v[2:3], v[20:21], off glc",
            bytes: [0x00, 0x40, 0xd2, 0xdc, 0x02, 0x14, 0x7c, 0x0a],
            saddr: false,
            wide: false,
            glc: true,
            op: |o, s, c| if o == c { s } else { o },
        },
        AtomicForm {
            text: "global_atomic_max_u32 v10, v4, v20, s[6:7] glc",
            bytes: [0x00, 0x40, 0xee, 0xdc, 0x04, 0x14, 0x06, 0x0a],
            saddr: true,
            wide: false,
            glc: true,
            op: |o, s, _| o.max(s),
        },
        AtomicForm {
            text: "global_atomic_min_i32 v10, v[2:3], v20, off glc",
            bytes: [0x00, 0x40, 0xe2, 0xdc, 0x02, 0x14, 0x7c, 0x0a],
            saddr: false,
            wide: false,
            glc: true,
            op: |o, s, _| (o as u32 as i32).min(s as u32 as i32) as u32 as u64,
        },
        AtomicForm {
            text: "global_atomic_xor_b32 v4, v20, s[6:7] offset:-4",
            bytes: [0xfc, 0x1f, 0xfa, 0xdc, 0x04, 0x14, 0x06, 0x00],
            saddr: true,
            wide: false,
            glc: false,
            op: |o, s, _| o ^ s,
        },
        AtomicForm {
            text: "global_atomic_add_u64 v[10:11], v[2:3], v[20:21], off glc",
            bytes: [0x00, 0x40, 0x0e, 0xdd, 0x02, 0x14, 0x7c, 0x0a],
            saddr: false,
            wide: true,
            glc: true,
            op: |o, s, _| o.wrapping_add(s),
        },
        AtomicForm {
            text: "global_atomic_cmpswap_b64 v[10:11], v[2:3], v[20:23], off glc",
            bytes: [0x00, 0x40, 0x0a, 0xdd, 0x02, 0x14, 0x7c, 0x0a],
            saddr: false,
            wide: true,
            glc: true,
            op: |o, s, c| if o == c { s } else { o },
        },
        AtomicForm {
            text: "flat_atomic_add_u32 v10, v[2:3], v20 glc",
            bytes: [0x00, 0x40, 0xd4, 0xdc, 0x02, 0x14, 0x7c, 0x0a],
            saddr: false,
            wide: false,
            glc: true,
            op: |o, s, _| (o as u32).wrapping_add(s as u32) as u64,
        },
    ];

    /// The byte model of a global atomic: active lanes in order; a lane
    /// whose address is misaligned or outside the mapping faults there
    /// (earlier lanes' updates stay); otherwise old -> op(old, src, cmp),
    /// and with GLC the old values go to v10 (v[10:11]) after all lanes.
    fn atomic_model(
        f: &AtomicForm,
        w: &mut Wave,
        mem: &mut [u8],
        addrs: &[u64; LANES],
    ) -> Result<(), WaveErrorKind> {
        let exec = w.sgpr[crate::gfx11::wave::EXEC];
        let size = if f.wide { 8 } else { 4 };
        let mut old = [0u64; LANES];
        for l in (0..LANES).filter(|l| exec >> l & 1 != 0) {
            let a = addrs[l];
            let inside = a >= GLOBAL_BASE && a + size as u64 <= GLOBAL_BASE + GLOBAL_LEN as u64;
            if !a.is_multiple_of(size as u64) || !inside {
                return Err(fault(a, Access::Atomic));
            }
            let reg = |r: usize| {
                let lo = w.vgpr[r][l] as u64;
                if f.wide {
                    lo | (w.vgpr[r + 1][l] as u64) << 32
                } else {
                    lo
                }
            };
            let (src, cmp) = (reg(20), reg(20 + size / 4));
            let at = (a - GLOBAL_BASE) as usize;
            let mut b = [0u8; 8];
            b[..size].copy_from_slice(&mem[at..at + size]);
            old[l] = u64::from_le_bytes(b);
            let new = (f.op)(old[l], src, cmp);
            mem[at..at + size].copy_from_slice(&new.to_le_bytes()[..size]);
        }
        if f.glc {
            for l in (0..LANES).filter(|l| exec >> l & 1 != 0) {
                w.vgpr[10][l] = old[l] as u32;
                if f.wide {
                    w.vgpr[11][l] = (old[l] >> 32) as u32;
                }
            }
        }
        Ok(())
    }

    /// Global and flat atomics against the byte model: lanes contending for
    /// a few addresses (so lane order matters), cmpswap compares that match
    /// for some lanes, full and random EXEC; all aligned and in one mapping
    /// is the no-check path, a misaligned lane or one past the mapping must
    /// take the per-lane path and fault there with the earlier lanes applied.
    #[test]
    fn global_atomics_match_the_byte_model() {
        let mut seed = 0x1234_5678_9ABC_DEF1u64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for f in ATOMIC_FORMS {
            let i = inst(f.bytes);
            let size = if f.wide { 8u64 } else { 4 };
            for round in 0..12 {
                // Rounds 0 to 7: lanes on 6 addresses (one host update per
                // address); 8 and 9: every lane at one address; 10 and 11:
                // every lane at its own address (one host atomic per lane).
                let one = GLOBAL_BASE + 64 + size * (next() % 6);
                let mut addrs: [u64; LANES] = std::array::from_fn(|l| match round {
                    8 | 9 => one,
                    10 | 11 => GLOBAL_BASE + 64 + size * l as u64,
                    _ => GLOBAL_BASE + 64 + size * (next() % 6),
                });
                let bad_lane = (next() % LANES as u64) as usize;
                let bad = (6..8).contains(&round);
                match round {
                    6 => addrs[bad_lane] += 2,
                    7 => addrs[bad_lane] = GLOBAL_BASE + GLOBAL_LEN as u64,
                    _ => {}
                }
                let mem = OneMapping::new();
                let mut w = wave_at(&i, f.saddr, &addrs);
                w.sgpr[crate::gfx11::wave::EXEC] = if round % 2 == 0 {
                    u32::MAX
                } else {
                    next() as u32
                };
                if bad {
                    w.sgpr[crate::gfx11::wave::EXEC] |= 1 << bad_lane;
                }
                for r in 20..24 {
                    for l in 0..LANES {
                        w.vgpr[r][l] = next() as u32 % 8;
                    }
                }
                // Make some cmpswap compares match the initial memory.
                for l in (0..LANES).filter(|l| l % 3 == 0) {
                    let at = (addrs[l].wrapping_sub(GLOBAL_BASE) as usize).min(GLOBAL_LEN - 8);
                    let b = &mem.bytes()[at..at + 8];
                    let cmp_reg = 20 + size as usize / 4;
                    w.vgpr[cmp_reg][l] = u32::from_le_bytes(b[..4].try_into().unwrap());
                    w.vgpr[cmp_reg + 1][l] = u32::from_le_bytes(b[4..].try_into().unwrap());
                }
                let (mut want_w, mut want_mem) = (w.clone(), mem.bytes());
                let want = atomic_model(f, &mut want_w, &mut want_mem, &addrs);
                assert_eq!(want.is_err(), bad, "{}: round {round}", f.text);

                // The pre-resolved form (vmem/fast.rs) on its own copy:
                // it runs when no lane is bad, and declines to `step` else.
                let (mem_pre, mut w_pre) = (OneMapping::new(), w.clone());
                let (mut scratch, mut lds) = (vec![0u8; 4], vec![0u8; 4]);
                let mut e = env(&mut scratch, &mut lds);
                e.mem = &mem_pre;
                let (got, took) = run_pre_resolved(&mut w_pre, &mut e, &i);
                assert_eq!(took, !bad, "{}: round {round} taken", f.text);
                assert_eq!(
                    got.map(|_| ()),
                    want,
                    "{}: pre-resolved, round {round}",
                    f.text
                );
                assert_eq!(mem_pre.bytes(), want_mem, "{}: pre-resolved memory", f.text);
                assert!(w_pre.vgpr == want_w.vgpr, "{}: pre-resolved VGPRs", f.text);

                let (mut scratch, mut lds) = (vec![0u8; 4], vec![0u8; 4]);
                let mut e = env(&mut scratch, &mut lds);
                e.mem = &mem;
                let got = flat(&mut w, &mut e, &i);
                assert_eq!(got.map(|_| ()), want, "{}: round {round}", f.text);
                assert_eq!(mem.bytes(), want_mem, "{}: memory, round {round}", f.text);
                assert!(w.vgpr == want_w.vgpr, "{}: VGPRs, round {round}", f.text);
                // (Declining, the form may try a translation that fails:
                // that records nothing, so only the runs' counts must agree.)
                if !bad {
                    assert_eq!(
                        mem_pre.translations(),
                        mem.translations(),
                        "{}: translations, round {round}",
                        f.text
                    );
                }
            }
        }
    }

    /// Wave64 FLAT/GLOBAL loads, stores and atomics through their forms
    /// (`run_wave64_memory`: each 32-lane pass through the form, or through
    /// `step`'s pass where the form declines) against `step` on the whole
    /// wave, for every pairing of the two halves' cases: coalesced,
    /// scattered (the halves on the same addresses, so the high pass's
    /// stores and atomics must land after the low pass's), a partial or
    /// empty EXEC, misaligned, and past the mapping (a fault in the low
    /// pass ends the instruction before the high one). Result, registers,
    /// memory and, for a run that does not fault, translations match.
    #[test]
    fn wave64_memory_forms_match_step() {
        use crate::gfx11::wave::EXEC;
        const CASES: [&str; 6] = [
            "coalesced",
            "scattered",
            "partial exec",
            "no lanes",
            "misaligned",
            "past the end",
        ];
        let end = GLOBAL_BASE + GLOBAL_LEN as u64;
        let addrs = |case: &str, size: usize| -> [u64; LANES] {
            std::array::from_fn(|l| {
                let slot = match case {
                    "scattered" => (l * 7 + 3) % 6,
                    _ => l,
                };
                let base = match case {
                    "past the end" => end - 20 * size as u64 + 4,
                    "misaligned" => GLOBAL_BASE + 50,
                    _ => GLOBAL_BASE + 48,
                };
                base + (slot * size) as u64
            })
        };
        let exec = |case: &str| match case {
            "partial exec" => 0xFFFF_7FF5,
            "no lanes" => 0,
            _ => u32::MAX,
        };
        let forms = DWORD_ACCESSES
            .iter()
            .map(|&(enc, _, size, saddr)| (enc, size, saddr))
            .chain(
                ATOMIC_FORMS
                    .iter()
                    .map(|f| (f.bytes, if f.wide { 8 } else { 4 }, f.saddr)),
            );
        let mut ran = 0;
        for (enc, size, saddr) in forms {
            let i = inst(enc);
            for lo in CASES {
                for hi in CASES {
                    let what = format!("{} low {lo}, high {hi}", i.mnemonic);
                    let mut w0 = wave_at(&i, saddr, &addrs(lo, size));
                    let high = wave_at(&i, saddr, &addrs(hi, size));
                    w0.wave64 = true;
                    w0.vgpr_hi = high.vgpr.clone();
                    for row in w0.vgpr_hi.iter_mut().skip(8) {
                        for v in row.iter_mut() {
                            *v ^= 0x0080_0000;
                        }
                    }
                    (w0.sgpr[EXEC], w0.sgpr[EXEC + 1]) = (exec(lo), exec(hi));
                    let (mem_fast, mem_slow) = (OneMapping::new(), OneMapping::new());
                    let (mut fast_w, mut slow_w) = (w0.clone(), w0.clone());
                    let (mut scratch, mut lds) = (vec![0u8; 4], vec![0u8; 4]);
                    let (mut scratch2, mut lds2) = (vec![0u8; 4], vec![0u8; 4]);
                    let mut e = env(&mut scratch, &mut lds);
                    e.mem = &mem_fast;
                    let mut e2 = env(&mut scratch2, &mut lds2);
                    e2.mem = &mem_slow;
                    let (got, took) = run_pre_resolved(&mut fast_w, &mut e, &i);
                    let want = crate::gfx11::exec::step(&mut slow_w, &mut e2, &i);
                    assert!(took, "{what}: the wave64 run");
                    assert_eq!(got, want, "{what}");
                    assert_eq!(mem_fast.bytes(), mem_slow.bytes(), "{what}: memory");
                    assert!(fast_w.vgpr == slow_w.vgpr, "{what}: lanes 0..31");
                    assert!(fast_w.vgpr_hi == slow_w.vgpr_hi, "{what}: lanes 32..63");
                    assert_eq!(fast_w.sgpr, slow_w.sgpr, "{what}: SGPRs");
                    if want.is_ok() {
                        let n = mem_slow.translations();
                        assert_eq!(mem_fast.translations(), n, "{what}: translations");
                        ran += 1;
                    }
                }
            }
        }
        assert!(ran > 200, "only {ran} runs without a fault");
    }
}
