//! Pre-resolved FLAT/GLOBAL accesses that are not coalesced:
//! loads and stores whose lanes scatter or whose EXEC is partial, and
//! atomics. They run the general path's span case directly: every active
//! lane inside one range translated at once (through the workgroup's span
//! cache, which gives what `GpuMemory::translate` gives and still sends
//! every recording mapping's access there), then the lanes in order.
//!
//! Each form computes the lane addresses exactly as `vmem::flat_lanes`
//! does and runs only when that path would take the same span case: for
//! FLAT every lane (active or not) outside the LDS and private apertures,
//! the span at most `MAX_SPAN` bytes (2^24 for atomics, as there) and, for
//! atomics, every active lane aligned. Anything else, or a translation that
//! fails, declines before any side effect (a failed translation records
//! nothing), and `step` then runs the instruction and reports any fault
//! itself.
//!
//! Lanes of an atomic that name one address (a counter, a flag, a few
//! bins indexed by `i % n`) have their operations applied in lane order to
//! a local copy, published with one host compare-exchange per address
//! (atomics.rs `*_lanes`): the same old values and final values as one host
//! atomic per lane, in the interleaving where no other thread's access
//! falls between two lanes of one address. A host atomic costs tens of
//! cycles however little it does, so 32 lanes on 4 bins take 4, not 32.

use crate::Access;
use crate::gfx11::exec::env::Env;
use crate::gfx11::exec::vmem::atomics::{Rmw, atomic32, atomic32_lanes, atomic64, atomic64_lanes};
use crate::gfx11::exec::vmem::mem::MAX_SPAN;
use crate::gfx11::exec::vmem::mem_kind::{MemKind, mem_kind};
use crate::gfx11::exec::vmem::{Coalesced, subword_lane_access};
use crate::gfx11::inst::{Family, Inst};
use crate::gfx11::wave::{LANE_BIT, LANES, NULL, Wave, few_lanes, pack_lanes};

/// Each lane's address as `flat_lanes` computes it: GLOBAL with saddr is the
/// SGPR pair plus the lane's VGPR, otherwise the VGPR pair; plus the signed
/// offset. None for a FLAT access with any lane (active or not) in the LDS
/// or private aperture (`flat_lanes` then goes lane by lane).
#[inline(always)]
fn lane_addresses(
    w: &Wave,
    env: &Env,
    flat: bool,
    addr: u8,
    saddr: u8,
    off: i32,
) -> Option<[u64; LANES]> {
    let off = off as i64 as u64;
    let mut addrs = [0u64; LANES];
    if saddr as usize != NULL {
        let base = w.sgpr64(saddr as usize);
        let v = &w.vgpr[addr as usize];
        for l in 0..LANES {
            addrs[l] = base.wrapping_add(v[l] as u64).wrapping_add(off);
        }
    } else {
        let (lo, hi) = (&w.vgpr[addr as usize], &w.vgpr[(addr as usize + 1) & 255]);
        for l in 0..LANES {
            addrs[l] = (lo[l] as u64 | (hi[l] as u64) << 32).wrapping_add(off);
        }
    }
    if flat {
        let (shared, private) = (env.shared_base >> 32, env.private_base >> 32);
        let mut hits = false;
        for a in &addrs {
            let hi = a >> 32;
            hits |=
                (env.shared_base != 0 && hi == shared) | (env.private_base != 0 && hi == private);
        }
        if hits {
            return None;
        }
    }
    Some(addrs)
}

/// The lowest active lane's address and the end of the highest active
/// lane's `size` bytes (saturating, as `resolve` computes them).
#[inline(always)]
fn active_span(addrs: &[u64; LANES], exec: u32, size: u64) -> (u64, u64) {
    let (mut lo, mut hi) = (u64::MAX, 0u64);
    for l in 0..LANES {
        let active = exec & LANE_BIT[l] != 0;
        let a = addrs[l];
        lo = if active { lo.min(a) } else { lo };
        hi = if active {
            hi.max(a.saturating_add(size))
        } else {
            hi
        };
    }
    (lo, hi)
}

/// A load or store of the coalesced form's kind whose lanes are not
/// coalesced: done (true), or nothing done (false) when the general path
/// would not take its one-span case or the span does not translate.
#[inline(always)]
pub(crate) fn spanned(w: &mut Wave, env: &Env, c: &Coalesced) -> bool {
    let exec = w.exec();
    if exec == 0 {
        return false;
    }
    // FLAT checks the apertures on every lane's address, active or not
    // (`lane_addresses`): only GLOBAL runs lane by lane.
    if few_lanes(exec) && !c.flat {
        return spanned_few(w, env, c, exec);
    }
    let Some(addrs) = lane_addresses(w, env, c.flat, c.addr, c.saddr, c.off) else {
        return false;
    };
    let size = c.size as usize;
    let (lo, hi) = active_span(&addrs, exec, size as u64);
    if hi - lo > MAX_SPAN {
        return false;
    }
    let access = if c.write { Access::Write } else { Access::Read };
    let Ok(p) = env.translate(lo, hi - lo, access) else {
        return false;
    };
    // Each active lane's offset in the span; inactive lanes read the lowest
    // active lane's bytes (inside the span) and are not written back.
    let mut offs = [0usize; LANES];
    for l in 0..LANES {
        let keep = if exec & LANE_BIT[l] != 0 { u64::MAX } else { 0 };
        offs[l] = (addrs[l].wrapping_sub(lo) & keep) as usize;
    }
    match (c.write, size) {
        // SAFETY: every active lane's bytes at p + offs[l] lie in the span translated above.
        (_, 1 | 2) => unsafe { span_subword(w, c, p, &offs, exec) },
        (false, 4) => span_load::<1>(w, p, &offs, exec, c.reg),
        (false, 8) => span_load::<2>(w, p, &offs, exec, c.reg),
        (false, 12) => span_load::<3>(w, p, &offs, exec, c.reg),
        (false, _) => span_load::<4>(w, p, &offs, exec, c.reg),
        (true, 4) => span_store::<1>(w, p, &offs, exec, c.reg),
        (true, 8) => span_store::<2>(w, p, &offs, exec, c.reg),
        (true, 12) => span_store::<3>(w, p, &offs, exec, c.reg),
        (true, _) => span_store::<4>(w, p, &offs, exec, c.reg),
    }
    true
}

/// [`spanned`] for a GLOBAL access with at most two active lanes
/// (`few_lanes`, not 0): the same addresses, span, translation and lane
/// order, computed for the active lanes only and moved one dword at a time
/// (exec/valu/fast_few.rs says why).
#[inline(always)]
fn spanned_few(w: &mut Wave, env: &Env, c: &Coalesced, exec: u32) -> bool {
    let (size, off) = (c.size as u64, c.off as i64 as u64);
    let base = (c.saddr as usize != NULL).then(|| w.sgpr64(c.saddr as usize));
    // The active lanes (in order) and their addresses; the span they cover.
    let mut lanes = [(0usize, 0u64); 2];
    let (mut lo, mut hi, mut n) = (u64::MAX, 0u64, 0);
    let mut m = exec;
    while m != 0 {
        let l = m.trailing_zeros() as usize & (LANES - 1);
        m &= m - 1;
        let v = w.vgpr[c.addr as usize][l] as u64;
        let a = match base {
            Some(b) => b.wrapping_add(v),
            None => v | (w.vgpr[(c.addr as usize + 1) & 255][l] as u64) << 32,
        }
        .wrapping_add(off);
        lo = lo.min(a);
        hi = hi.max(a.saturating_add(size));
        lanes[n & 1] = (l, a);
        n += 1;
    }
    if hi - lo > MAX_SPAN {
        return false;
    }
    let access = if c.write { Access::Write } else { Access::Read };
    let Ok(p) = env.translate(lo, hi - lo, access) else {
        return false;
    };
    for &(l, a) in &lanes[..n] {
        let at = (a - lo) as usize;
        if size < 4 {
            // SAFETY: this lane's `size` bytes at `at` lie in the translated span [lo, hi).
            unsafe { subword_lane_access(w, c, p.add(at), l) };
            continue;
        }
        for k in 0..(size / 4) as usize {
            let r = (c.reg as usize + k) & 255;
            // SAFETY: this lane's `size` bytes at `at` lie in the translated span [lo, hi).
            let q = unsafe { p.add(at + 4 * k) } as *mut u32;
            if c.write {
                // SAFETY: see above; the span was translated for writing.
                unsafe { q.write_unaligned(w.vgpr[r][l].to_le()) };
            } else {
                // SAFETY: see above.
                w.vgpr[r][l] = u32::from_le(unsafe { q.read_unaligned() });
            }
        }
    }
    true
}

/// The active lanes' 1- or 2-byte accesses at `p + offs[l]`, in lane order
/// (a load's values placed as `write_loaded` places them).
///
/// # Safety
/// Every active lane's `c.size` bytes at `p + offs[l]` lie in one range
/// translated for `c`'s access.
#[inline(never)]
unsafe fn span_subword(w: &mut Wave, c: &Coalesced, p: *mut u8, offs: &[usize; LANES], exec: u32) {
    let mut m = exec;
    while m != 0 {
        let l = m.trailing_zeros() as usize & (LANES - 1);
        m &= m - 1;
        // SAFETY: an active lane's bytes at p + offs[l] lie in the translated range.
        unsafe { subword_lane_access(w, c, p.add(offs[l]), l) };
    }
}

/// VGPRs `reg..reg + N` of the active lanes from the `N` dwords at `p + offs[l]`.
/// The caller guarantees every lane's `4 * N` bytes there lie in one translation.
#[inline(always)]
fn span_load<const N: usize>(w: &mut Wave, p: *mut u8, offs: &[usize; LANES], exec: u32, reg: u8) {
    for k in 0..N {
        let mut row = [0u32; LANES];
        for l in 0..LANES {
            // SAFETY: offs[l] + 4 * N bytes from p lie in the translated span (the caller's guarantee).
            row[l] =
                u32::from_le(unsafe { (p.add(offs[l] + 4 * k) as *const u32).read_unaligned() });
        }
        w.write_vgpr(reg as usize + k, &row, exec);
    }
}

/// The `N` dwords of VGPRs `reg..reg + N` of each active lane to `p + offs[l]`,
/// in lane order, each lane whole before the next (overlapping lanes end with
/// the highest lane's bytes, as `scatter` leaves them).
#[inline(always)]
fn span_store<const N: usize>(w: &Wave, p: *mut u8, offs: &[usize; LANES], exec: u32, reg: u8) {
    let rows: [&[u32; LANES]; N] = std::array::from_fn(|k| &w.vgpr[(reg as usize + k) & 255]);
    for l in 0..LANES {
        if exec & LANE_BIT[l] == 0 {
            continue;
        }
        for (k, row) in rows.iter().enumerate() {
            // SAFETY: an active lane's 4 * N bytes at p + offs[l] lie in the translated span.
            unsafe { (p.add(offs[l] + 4 * k) as *mut u32).write_unaligned(row[l].to_le()) };
        }
    }
}

/// A FLAT/GLOBAL atomic: everything `flat_lanes` reads from the instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct GlobalAtomic {
    pub flat: bool,
    pub rmw: Rmw,
    /// 64-bit.
    pub wide: bool,
    /// GLC: the old values go to `dst`.
    pub glc: bool,
    pub dst: u8,
    /// Source VGPR(s), then the compare value for cmpswap.
    pub data: u8,
    pub addr: u8,
    pub saddr: u8,
    pub off: i32,
}

impl GlobalAtomic {
    pub(crate) fn of_inst(i: &Inst) -> Option<GlobalAtomic> {
        let flat = match i.family {
            Family::Flat => true,
            Family::Global => false,
            _ => return None,
        };
        let MemKind::Atomic(rmw, wide, _) = mem_kind(i.op) else {
            return None;
        };
        Some(GlobalAtomic {
            flat,
            rmw,
            wide,
            glc: i.flags & Inst::GLC != 0,
            dst: u8::try_from(i.dst).ok()?,
            data: i.data[0],
            addr: i.addr,
            saddr: if flat { NULL as u8 } else { i.saddr },
            off: i.imm,
        })
    }
}

/// The lanes of `exec` of `a` that share an address, one host update per
/// address (atomics.rs `*_lanes`), into `old`; returns the lanes left for
/// the per-lane loop. Groups are taken from the lowest remaining lane while
/// its address has company; the first lane alone at its address ends the
/// grouping (a scatter of distinct addresses costs one compare pass). Its
/// own function so that the per-lane loop of [`atomic`] compiles as it did
/// without it.
#[inline(never)]
fn shared_addresses(
    w: &Wave,
    a: &GlobalAtomic,
    base: *mut u8,
    lo: u64,
    addrs: &[u64; LANES],
    exec: u32,
    old: &mut [u64; LANES],
) -> u32 {
    // One active lane (`if (lane == 0) atomic(...)`) has no company: no compare pass.
    if exec.is_power_of_two() {
        return exec;
    }
    let row = |k: usize| &w.vgpr[(a.data as usize + k) & 255];
    let dw = if a.wide { 2 } else { 1 };
    let cmp_row = if a.rmw == Rmw::CmpSwap { dw } else { 0 };
    let pair = |k: usize| -> [u64; LANES] {
        std::array::from_fn(|l| row(k)[l] as u64 | (row(k + 1)[l] as u64) << 32)
    };
    // The 64-bit data and compare values, built once a group is found.
    let mut wide_rows: Option<([u64; LANES], [u64; LANES])> = None;
    // Active lanes lie in one span of at most 2^24 bytes, so two of them
    // share an address exactly when the low 32 bits agree (a compare that
    // vectorises without 64-bit lane compares); `rest` drops the others.
    let low: [u32; LANES] = std::array::from_fn(|l| addrs[l] as u32);
    let mut rest = exec;
    while rest != 0 {
        let first = addrs[rest.trailing_zeros() as usize];
        let eq: [u32; LANES] = std::array::from_fn(|l| (low[l] == first as u32) as u32);
        let same = pack_lanes(&eq) & rest;
        if same.is_power_of_two() {
            break;
        }
        // The span [lo, hi) was translated as one range and holds these lanes' access.
        let p = base.wrapping_add((first - lo) as usize);
        if a.wide {
            let (src, cmp) = wide_rows.get_or_insert_with(|| (pair(0), pair(cmp_row)));
            atomic64_lanes(p, a.rmw, same, src, cmp, old);
        } else {
            atomic32_lanes(p, a.rmw, same, row(0), row(cmp_row), old);
        }
        rest &= !same;
    }
    rest
}

/// Run `a` when every active lane is global, aligned and inside one
/// translated span (true); else nothing done (false).
#[inline(always)]
pub(crate) fn atomic(w: &mut Wave, env: &Env, a: &GlobalAtomic) -> bool {
    let exec = w.exec();
    if exec == 0 {
        return false;
    }
    let Some(addrs) = lane_addresses(w, env, a.flat, a.addr, a.saddr, a.off) else {
        return false;
    };
    let size = if a.wide { 8u64 } else { 4 };
    let mut low_bits = 0;
    for l in 0..LANES {
        if exec & LANE_BIT[l] != 0 {
            low_bits |= addrs[l];
        }
    }
    if !low_bits.is_multiple_of(size) {
        return false;
    }
    let (lo, hi) = active_span(&addrs, exec, size);
    if lo >= hi || hi - lo > 1 << 24 {
        return false;
    }
    let Ok(base) = env.translate(lo, hi - lo, Access::Atomic) else {
        return false;
    };
    // Every data row is read before any lane's result is written (as the
    // general path does). The rows are found once, not per lane.
    let mut old = [0u64; LANES];
    let mut m = shared_addresses(w, a, base, lo, &addrs, exec, &mut old);
    let row = |k: usize| &w.vgpr[(a.data as usize + k) & 255];
    let dw = size as usize / 4;
    let (rmw, wide) = (a.rmw, a.wide);
    let (d0, d1, c0, c1) = (row(0), row(1), row(dw), row(dw + 1));
    while m != 0 {
        let l = m.trailing_zeros() as usize;
        m &= m - 1;
        // The span [lo, hi) was translated as one range and holds this lane's access.
        let p = base.wrapping_add((addrs[l] - lo) as usize);
        old[l] = if wide {
            let src = d0[l] as u64 | (d1[l] as u64) << 32;
            let cmp = if rmw == Rmw::CmpSwap {
                c0[l] as u64 | (c1[l] as u64) << 32
            } else {
                0
            };
            atomic64(p, rmw, src, cmp)
        } else {
            let cmp = if rmw == Rmw::CmpSwap { c0[l] } else { 0 };
            atomic32(p, rmw, d0[l], cmp) as u64
        };
    }
    write_old(w, a, &old, exec);
    true
}

/// With GLC, the lanes' old values to `a.dst`.
#[inline(always)]
fn write_old(w: &mut Wave, a: &GlobalAtomic, old: &[u64; LANES], exec: u32) {
    if a.glc {
        if a.wide {
            w.write_vgpr64(a.dst as usize, old, exec);
        } else {
            let lo: [u32; LANES] = old.map(|v| v as u32);
            w.write_vgpr(a.dst as usize, &lo, exec);
        }
    }
}
