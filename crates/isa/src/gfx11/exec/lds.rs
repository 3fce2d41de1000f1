//! DS instructions on the workgroup's LDS: loads/stores of every width, the
//! two-address forms (offsets scaled by the element size, ×64 for stride64),
//! atomics with and without return, and the cross-lane permutes and swizzle.
//! LDS bounds: an access past the allocation reads 0 and drops writes.
//!
//! The plain and two-address loads and stores of whole dwords (b32..b128)
//! first try [`ds_in_range`]: when every active lane's access lies inside
//! the allocation (one check of the highest active address for the whole
//! pass), each lane's bytes are moved with no per-lane bounds check. That is
//! exactly what the per-lane path does in that case (same lane order, so the
//! highest lane still wins overlapping stores); any lane out of range, and
//! every other DS instruction, takes the per-lane path (the 8- and 16-bit
//! loads and stores have an in-range form of their own, lds_subword.rs,
//! which the wave loop tries first). The lane shuffles
//! (swizzle, permute, bpermute) are [`ds_shuffle`], shared with their
//! pre-resolved form.

use crate::gfx11::exec::env::{Env, ExecResult, Flow, illegal};
use crate::gfx11::exec::lds_banks::conflict_cycles;
use crate::gfx11::exec::vmem::atomics::{Rmw, apply32, apply64};
use crate::gfx11::exec::vmem::mem_kind::{MemKind, mem_kind};
use crate::gfx11::inst::Inst;
use crate::gfx11::opcodes::Op;
use crate::gfx11::wave::{EXEC, LANE_BIT, LANES, NUM_VGPRS, Wave, few_lanes};

/// Read `N` bytes of LDS at `addr` (one fixed-size move); past the allocation reads 0.
#[inline(always)]
pub(super) fn lds_get<const N: usize>(lds: &[u8], addr: u64) -> [u8; N] {
    let mut b = [0u8; N];
    // addr < 2^32, so the sum cannot wrap on a 64-bit host.
    if addr < u32::MAX as u64 && addr as usize + N <= lds.len() {
        let a = addr as usize;
        b.copy_from_slice(&lds[a..a + N]);
    }
    b
}

/// Write `N` bytes of LDS at `addr`; past the allocation the write is dropped.
#[inline(always)]
pub(super) fn lds_put<const N: usize>(lds: &mut [u8], addr: u64, b: [u8; N]) {
    if addr < u32::MAX as u64 && addr as usize + N <= lds.len() {
        let a = addr as usize;
        lds[a..a + N].copy_from_slice(&b);
    }
}

/// A loaded value `v` placed in destination dword `old` as a load's d16
/// field says: 0 the whole dword, 1 its low half, 2 its high half (the
/// other half kept).
#[inline(always)]
pub(super) fn place_d16(old: u32, v: u32, d16: u8) -> u32 {
    match d16 {
        1 => (old & 0xFFFF_0000) | (v & 0xFFFF),
        2 => (old & 0xFFFF) | (v << 16),
        _ => v,
    }
}

/// Dword `k` of an LDS value.
#[inline(always)]
fn dword<const N: usize>(b: &[u8; N], k: usize) -> u32 {
    u32::from_le_bytes([b[4 * k], b[4 * k + 1], b[4 * k + 2], b[4 * k + 3]])
}

/// Every active lane's `N`-byte read (N a multiple of 4) at `addr_row[l] +
/// off`, as dword rows `rows[first + k]`; inactive lanes' entries stay as they are.
#[inline(always)]
fn read_rows<const N: usize>(
    lds: &[u8],
    addr_row: &[u32; LANES],
    off: u64,
    exec: u32,
    rows: &mut [[u32; LANES]; 4],
    first: usize,
) {
    for l in 0..LANES {
        if exec >> l & 1 != 0 {
            let b = lds_get::<N>(lds, addr_row[l] as u64 + off);
            for k in 0..N / 4 {
                rows[(first + k) & 3][l] = dword(&b, k);
            }
        }
    }
}

/// Every active lane's `N`-byte write (N a multiple of 4) at `addr_row[l] +
/// off` from VGPRs `data..data + N/4`, in lane order.
#[inline(always)]
fn write_rows<const N: usize>(
    w: &Wave,
    lds: &mut [u8],
    addr_row: &[u32; LANES],
    off: u64,
    exec: u32,
    data: usize,
) {
    for l in 0..LANES {
        if exec >> l & 1 != 0 {
            let mut b = [0u8; N];
            for k in 0..N / 4 {
                b[4 * k..4 * k + 4].copy_from_slice(&w.vgpr[(data + k) & 255][l].to_le_bytes());
            }
            lds_put::<N>(lds, addr_row[l] as u64 + off, b);
        }
    }
}

/// `addr_row` with the inactive lanes' addresses set to 0, and an upper
/// bound of the active lanes' addresses: their bitwise OR, which is at least
/// their maximum and, unlike the maximum of unsigned words, vectorises on
/// baseline x86-64 (SSE2 has no unsigned dword max).
#[inline(always)]
pub(super) fn active_addresses(addr_row: &[u32; LANES], exec: u32) -> ([u32; LANES], u32) {
    let mut active = [0u32; LANES];
    let mut bound = 0;
    for l in 0..LANES {
        let keep = if exec & LANE_BIT[l] != 0 { u32::MAX } else { 0 };
        active[l] = addr_row[l] & keep;
        bound |= active[l];
    }
    (active, bound)
}

/// A plain or two-address dword DS load or store (b32..b128, 2addr b32/b64,
/// stride64) as the in-range path runs it: decoded once by [`DsRows::of`],
/// so `ds` and its pre-resolved form (`exec::fast`) run the same code.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct DsRows {
    pub load: bool,
    pub two: bool,
    /// Dwords per element: 1 to 4 (1 or 2 for the two-address forms).
    pub n: u8,
    /// Address VGPR.
    pub addr: u8,
    /// First destination VGPR (loads).
    pub dst: u8,
    /// Data VGPRs of the one or two elements (stores).
    pub data: [u8; 2],
    /// Byte offsets of the one or two elements.
    pub o0: u32,
    pub o1: u32,
}

impl DsRows {
    /// The form of `i`, or None for every other DS instruction (GDS included).
    pub(crate) fn of(i: &Inst) -> Option<DsRows> {
        use Op::*;
        if i.flags & Inst::GDS != 0 {
            return None;
        }
        // The decoder's offset fields are 8 bits each; anything else goes the general way.
        let (offset0, offset1) = (u8::try_from(i.imm).ok()?, u8::try_from(i.imm2).ok()?);
        let (offset0, offset1) = (offset0 as u32, offset1 as u32);
        let off16 = offset0 | offset1 << 8;
        // (dwords per element, two-address, offsets of the one or two elements).
        let (n, two, o0, o1) = match i.op {
            DsLoadB32 | DsStoreB32 => (1, false, off16, 0),
            DsLoadB64 | DsStoreB64 => (2, false, off16, 0),
            DsLoadB96 | DsStoreB96 => (3, false, off16, 0),
            DsLoadB128 | DsStoreB128 => (4, false, off16, 0),
            DsLoad2addrB32 | DsStore2addrB32 => (1, true, 4 * offset0, 4 * offset1),
            DsLoad2addrB64 | DsStore2addrB64 => (2, true, 8 * offset0, 8 * offset1),
            DsLoad2addrStride64B32 | DsStore2addrStride64B32 => {
                (1, true, 256 * offset0, 256 * offset1)
            }
            DsLoad2addrStride64B64 | DsStore2addrStride64B64 => {
                (2, true, 512 * offset0, 512 * offset1)
            }
            _ => return None,
        };
        let load = matches!(
            i.op,
            DsLoadB32
                | DsLoadB64
                | DsLoadB96
                | DsLoadB128
                | DsLoad2addrB32
                | DsLoad2addrB64
                | DsLoad2addrStride64B32
                | DsLoad2addrStride64B64
        );
        Some(DsRows {
            load,
            two,
            n,
            addr: i.addr,
            dst: u8::try_from(i.dst).ok()?,
            data: i.data,
            o0,
            o1,
        })
    }
}

/// Which lane shuffle a [`DsShuffle`] is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ShuffleKind {
    Swizzle,
    Permute,
    Bpermute,
    /// ds_bpermute_b32 over all 64 lanes of a wave64 (GFX9).
    Bpermute64,
    /// ds_permute_b32 over all 64 lanes (GFX9): not modelled, refused.
    Permute64,
}

/// ds_swizzle_b32, ds_permute_b32 and ds_bpermute_b32: lane shuffles through
/// the LDS crossbar that touch no LDS memory. Decoded once by
/// [`DsShuffle::of`], so `ds` and its pre-resolved form (`exec::fast`) run
/// the same code ([`ds_shuffle`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct DsShuffle {
    pub kind: ShuffleKind,
    pub dst: u8,
    /// The address VGPR (the source data for ds_swizzle, which has no data operand).
    pub addr: u8,
    /// The data VGPR of the permutes.
    pub data: u8,
    /// offset1:offset0 (ds_swizzle's pattern).
    pub off16: u32,
}

impl DsShuffle {
    /// The form of `i`, or None for every other DS instruction (GDS included).
    pub(crate) fn of(i: &Inst) -> Option<DsShuffle> {
        if i.flags & Inst::GDS != 0 {
            return None;
        }
        let wide = i.flags & Inst::PERMUTE_WAVE64 != 0;
        let kind = match i.op {
            Op::DsSwizzleB32 => ShuffleKind::Swizzle,
            Op::DsPermuteB32 if wide => ShuffleKind::Permute64,
            Op::DsPermuteB32 => ShuffleKind::Permute,
            Op::DsBpermuteB32 if wide => ShuffleKind::Bpermute64,
            Op::DsBpermuteB32 => ShuffleKind::Bpermute,
            _ => return None,
        };
        Some(DsShuffle {
            kind,
            dst: u8::try_from(i.dst).ok()?,
            addr: i.addr,
            data: i.data[0],
            off16: i.imm as u32 | i.imm2 << 8,
        })
    }
}

/// Run a lane shuffle over the current 32 lanes under `exec`.
#[inline(always)]
pub(crate) fn ds_shuffle(w: &mut Wave, d: &DsShuffle, exec: u32) {
    let addr_row = &w.vgpr[d.addr as usize];
    let off16 = d.off16 as u64;
    let mut out = [0u32; LANES];
    match d.kind {
        // Offset bit 15 set: quad-perm mode (lane l reads lane (l & !3) + sel[l & 3], two
        // bits per select); clear: bit-mask mode within each 32-lane group, lane l reads
        // ((l & and_mask) | or_mask) ^ xor_mask (masks at bits 4:0, 9:5, 14:10).
        // Inactive source lanes read 0. The source VGPR sits in the ADDR field
        // (`ds_swizzle_b32 vdst, vsrc offset:...`).
        ShuffleKind::Swizzle => {
            let data = addr_row;
            let pattern = off16 as usize;
            for l in 0..LANES {
                let src = if pattern & 0x8000 != 0 {
                    (l & !3) | ((pattern >> (2 * (l & 3))) & 3)
                } else {
                    let (and, or, xor) = (pattern & 31, (pattern >> 5) & 31, (pattern >> 10) & 31);
                    ((l & and) | or) ^ xor
                };
                out[l] = if exec >> src & 1 != 0 { data[src] } else { 0 };
            }
        }
        // Lane l reads the data of lane (address / 4) mod 32 (0 from an inactive lane).
        ShuffleKind::Bpermute => {
            let data = &w.vgpr[d.data as usize];
            let mut active = [0u32; LANES];
            for l in 0..LANES {
                active[l] = if exec & LANE_BIT[l] != 0 { data[l] } else { 0 };
            }
            for l in 0..LANES {
                // Bits 6:2 of the 64-bit sum: a 32-bit wrapping add has the
                // same low bits, and the loop becomes one gather.
                let src = (addr_row[l].wrapping_add(d.off16) >> 2) as usize & (LANES - 1);
                out[l] = active[src];
            }
        }
        // Lane l of the wave reads lane (address / 4) mod 64 (0 from an inactive
        // lane), in either half. The other half's data row is as it was before
        // this instruction: the high half is untouched during the low pass, and
        // the low pass keeps its row (`Wave::dpp_low`) for the high pass.
        ShuffleKind::Bpermute64 => {
            let half = w.half;
            let here = w.vgpr[d.data as usize];
            let other = if half == 0 {
                w.dpp_low = here;
                w.vgpr_hi[d.data as usize]
            } else {
                w.dpp_low
            };
            let other_exec = w.sgpr[EXEC + (1 - half)];
            for l in 0..LANES {
                let src = (addr_row[l].wrapping_add(d.off16) >> 2) as usize & (2 * LANES - 1);
                let (row, on) = if src / LANES == half {
                    (&here, exec)
                } else {
                    (&other, other_exec)
                };
                let s = src % LANES;
                out[l] = if on >> s & 1 != 0 { row[s] } else { 0 };
            }
        }
        // Each active lane of the wave sends its data to lane (address / 4) mod 64,
        // in lane order (the highest sender wins); lanes nobody sends to get 0. The
        // low half's address and data rows as they were before this instruction are
        // kept by the low pass (`Wave::dpp_row`, `Wave::dpp_low`: free during a DS
        // instruction) for the high pass.
        ShuffleKind::Permute64 => {
            let half = w.half;
            let (addr_here, data_here) = (*addr_row, w.vgpr[d.data as usize]);
            let (low_addr, low_data, high_addr, high_data) = if half == 0 {
                w.dpp_row = addr_here;
                w.dpp_low = data_here;
                let hi = (w.vgpr_hi[d.addr as usize], w.vgpr_hi[d.data as usize]);
                (addr_here, data_here, hi.0, hi.1)
            } else {
                (w.dpp_row, w.dpp_low, addr_here, data_here)
            };
            let (low_exec, high_exec) = if half == 0 {
                (exec, w.sgpr[EXEC + 1])
            } else {
                (w.sgpr[EXEC], exec)
            };
            for (rows, sender_exec) in [
                ((&low_addr, &low_data), low_exec),
                ((&high_addr, &high_data), high_exec),
            ] {
                for l in 0..LANES {
                    if sender_exec >> l & 1 != 0 {
                        let t = ((rows.0[l] as u64 + off16) / 4) as usize % (2 * LANES);
                        if t / LANES == half {
                            out[t % LANES] = rows.1[l];
                        }
                    }
                }
            }
        }
        // Each active lane l sends its data to lane (address / 4) mod 32, in lane order
        // (the highest sender wins); lanes nobody sends to get 0.
        ShuffleKind::Permute => {
            let data = &w.vgpr[d.data as usize];
            for l in 0..LANES {
                if exec >> l & 1 != 0 {
                    let t = ((addr_row[l] as u64 + off16) / 4) as usize % LANES;
                    out[t] = data[l];
                }
            }
        }
    }
    w.write_vgpr(d.dst as usize, &out, exec);
}

/// Active lanes up to which a DS load reads lane by lane (`load_rows`).
const SPARSE_LANES: u32 = 8;

/// The plain and two-address dword loads and stores when every active lane's
/// bytes lie inside the LDS allocation: true when done. False (nothing done)
/// for no active lane, or any lane out of range; the per-lane path then runs
/// instead.
#[inline(always)]
pub(crate) fn ds_in_range(w: &mut Wave, lds: &mut [u8], d: &DsRows, exec: u32) -> bool {
    if exec == 0 {
        return false;
    }
    if few_lanes(exec) {
        return ds_few_lanes(w, lds, d, exec);
    }
    let (o0, o1, n) = (d.o0 as usize, d.o1 as usize, d.n as usize);
    // Every active lane's address is at most `hi`, every offset at most o0.max(o1)
    // (all below 2^18), so one comparison covers every access of the pass; an
    // inactive lane counts as address 0, which is then in range as well. The
    // OR of the addresses usually passes; only near the end of the allocation
    // does the exact maximum decide.
    let (active, bound) = active_addresses(&w.vgpr[d.addr as usize], exec);
    let last = o0.max(o1) + 4 * n;
    if bound as usize + last > lds.len()
        && *active.iter().max().unwrap_or(&0) as usize + last > lds.len()
    {
        return false;
    }
    let addr_row = &active;
    let dst = d.dst as usize;
    let data = d.data[0] as usize;
    match (d.load, d.two, n) {
        (true, false, 1) => load_rows::<1>(w, lds, addr_row, exec, o0, dst),
        (true, false, 2) => load_rows::<2>(w, lds, addr_row, exec, o0, dst),
        (true, false, 3) => load_rows::<3>(w, lds, addr_row, exec, o0, dst),
        (true, false, _) => load_rows::<4>(w, lds, addr_row, exec, o0, dst),
        (true, true, 1) => {
            load_rows::<1>(w, lds, addr_row, exec, o0, dst);
            load_rows::<1>(w, lds, addr_row, exec, o1, dst + 1);
        }
        (true, true, _) => {
            load_rows::<2>(w, lds, addr_row, exec, o0, dst);
            load_rows::<2>(w, lds, addr_row, exec, o1, dst + 2);
        }
        (false, false, 1) => store_rows::<1>(w, lds, addr_row, exec, o0, data),
        (false, false, 2) => store_rows::<2>(w, lds, addr_row, exec, o0, data),
        (false, false, 3) => store_rows::<3>(w, lds, addr_row, exec, o0, data),
        (false, false, _) => store_rows::<4>(w, lds, addr_row, exec, o0, data),
        (false, true, 1) => store2_rows::<1>(w, lds, addr_row, exec, [o0, o1], d.data),
        (false, true, _) => store2_rows::<2>(w, lds, addr_row, exec, [o0, o1], d.data),
    }
    true
}

/// [`ds_in_range`] for at most two active lanes (`few_lanes`, not 0): each
/// lane's accesses straight from and into its own register lanes, in lane
/// order and, per lane, the first element before the second (the order
/// `store2_rows` and the per-lane path write in). A lane reads its
/// address before anything is written to its lanes, so a load over its
/// own address register reads the same address as the row path's copy.
#[inline(always)]
fn ds_few_lanes(w: &mut Wave, lds: &mut [u8], d: &DsRows, exec: u32) -> bool {
    let n = d.n as usize;
    let last = (d.o0.max(d.o1) as usize) + 4 * n;
    let mut m = exec;
    while m != 0 {
        let l = m.trailing_zeros() as usize & (LANES - 1);
        m &= m - 1;
        if w.vgpr[d.addr as usize][l] as usize + last > lds.len() {
            return false;
        }
    }
    let base = lds.as_mut_ptr();
    let elements = if d.two { 2 } else { 1 };
    let mut m = exec;
    while m != 0 {
        let l = m.trailing_zeros() as usize & (LANES - 1);
        m &= m - 1;
        let a = w.vgpr[d.addr as usize][l] as usize;
        for e in 0..elements {
            let off = if e == 0 { d.o0 } else { d.o1 };
            let at = a + off as usize;
            for k in 0..n {
                // SAFETY: at + 4 * n <= a + last <= lds.len() (checked above for this lane), and the unaligned accesses need no alignment.
                let p = unsafe { base.add(at + 4 * k) } as *mut u32;
                if d.load {
                    let r = (d.dst as usize + e * n + k) & (NUM_VGPRS - 1);
                    // SAFETY: see above.
                    w.vgpr[r][l] = unsafe { p.read_unaligned() };
                } else {
                    let r = (d.data[e] as usize + k) & (NUM_VGPRS - 1);
                    // SAFETY: see above.
                    unsafe { p.write_unaligned(w.vgpr[r][l]) };
                }
            }
        }
    }
    true
}

/// VGPRs `dst..dst + N` of the active lanes from the `N` dwords at
/// `addr_row[l] + off` (0 for the inactive lanes). The caller has checked
/// that every active lane's bytes, and those at `off`, lie in `lds`.
#[inline(always)]
fn load_rows<const N: usize>(
    w: &mut Wave,
    lds: &[u8],
    addr_row: &[u32; LANES],
    exec: u32,
    off: usize,
    dst: usize,
) {
    let base = lds.as_ptr();
    // A few active lanes (a one-invocation workgroup has one): read just
    // theirs, straight into the registers, instead of N dwords for each
    // of the 32 lanes and a blend per row; the same values land.
    if exec.count_ones() <= SPARSE_LANES {
        let mut m = exec;
        while m != 0 {
            let l = m.trailing_zeros() as usize;
            m &= m - 1;
            let a = addr_row[l] as usize + off;
            for k in 0..N {
                // SAFETY: a + 4 * N <= lds.len() for an active lane (checked by the caller), and read_unaligned needs no alignment.
                let v = unsafe { (base.add(a + 4 * k) as *const u32).read_unaligned() };
                w.vgpr[(dst + k) & (NUM_VGPRS - 1)][l] = v;
            }
        }
        return;
    }
    let mut rows = [[0u32; LANES]; N];
    for l in 0..LANES {
        // Inactive lanes' addresses are 0: they read at `off` and are not written back.
        let a = addr_row[l] as usize + off;
        for (k, row) in rows.iter_mut().enumerate() {
            // SAFETY: a + 4 * N <= lds.len() (checked by the caller for every active lane and address 0), and read_unaligned needs no alignment.
            row[l] = unsafe { (base.add(a + 4 * k) as *const u32).read_unaligned() };
        }
    }
    for (k, row) in rows.iter().enumerate() {
        w.write_vgpr(dst + k, row, exec);
    }
}

/// The `N` dwords of VGPRs `data..data + N` of each active lane, in lane
/// order, at `addr_row[l] + off`; the caller has checked every active lane's
/// bytes lie in `lds`.
#[inline(always)]
fn store_rows<const N: usize>(
    w: &Wave,
    lds: &mut [u8],
    addr_row: &[u32; LANES],
    exec: u32,
    off: usize,
    data: usize,
) {
    let rows: [&[u32; LANES]; N] = std::array::from_fn(|k| &w.vgpr[(data + k) & 255]);
    let base = lds.as_mut_ptr();
    // The active lanes in order, by their EXEC bits (no per-lane test to mispredict).
    let mut m = exec;
    while m != 0 {
        let l = m.trailing_zeros() as usize;
        m &= m - 1;
        let a = addr_row[l] as usize + off;
        for (k, row) in rows.iter().enumerate() {
            // SAFETY: a + 4 * N <= lds.len() for an active lane (checked by the caller), and write_unaligned needs no alignment.
            unsafe { (base.add(a + 4 * k) as *mut u32).write_unaligned(row[l]) };
        }
    }
}

/// The two-address store: each active lane in order writes VGPRs
/// `data[0]..+N` at `addr_row[l] + offs[0]`, then `data[1]..+N` at
/// `addr_row[l] + offs[1]` (so the later write wins an overlap, as per lane).
#[inline(always)]
fn store2_rows<const N: usize>(
    w: &Wave,
    lds: &mut [u8],
    addr_row: &[u32; LANES],
    exec: u32,
    offs: [usize; 2],
    data: [u8; 2],
) {
    let rows: [[&[u32; LANES]; N]; 2] =
        data.map(|d| std::array::from_fn(|k| &w.vgpr[(d as usize + k) & 255]));
    let base = lds.as_mut_ptr();
    let mut m = exec;
    while m != 0 {
        let l = m.trailing_zeros() as usize;
        m &= m - 1;
        for (off, regs) in offs.iter().zip(&rows) {
            let a = addr_row[l] as usize + off;
            for (k, row) in regs.iter().enumerate() {
                // SAFETY: a + 4 * N <= lds.len() for an active lane and either offset (checked by the caller), and write_unaligned needs no alignment.
                unsafe { (base.add(a + 4 * k) as *mut u32).write_unaligned(row[l]) };
            }
        }
    }
}

pub(crate) fn ds(w: &mut Wave, env: &mut Env, i: &Inst) -> ExecResult {
    use Op::*;
    if i.flags & Inst::GDS != 0 {
        return Err(illegal(i));
    }
    if env.observer.is_some() {
        super::observe::ds(w, env, i);
    }
    let exec = w.exec();
    let rows = DsRows::of(i);
    if let (Some(d), Some(conflicts)) = (&rows, &mut env.lds_bank_conflicts) {
        *conflicts += conflict_cycles(&w.vgpr[d.addr as usize], exec, d);
    }
    if let Some(d) = rows
        && ds_in_range(w, env.lds, &d, exec)
    {
        return Ok(Flow::Next);
    }
    if let Some(d) = DsShuffle::of(i) {
        ds_shuffle(w, &d, exec);
        return Ok(Flow::Next);
    }
    let addr_row = w.vgpr[i.addr as usize];
    let off16 = (i.imm as u32 | i.imm2 << 8) as u64;
    let d0 = i.data[0] as usize;
    let d1 = i.data[1] as usize;
    let dst = i.dst as usize;
    if let Some(done) = super::lds_misc::ds_misc(w, env, i) {
        return done;
    }
    match i.op {
        DsNop => return Ok(Flow::Next),
        DsLoad2addrB32 | DsLoad2addrB64 | DsLoad2addrStride64B32 | DsLoad2addrStride64B64 => {
            let size = if matches!(i.op, DsLoad2addrB32 | DsLoad2addrStride64B32) {
                4
            } else {
                8
            };
            let scale = size as u64
                * if matches!(i.op, DsLoad2addrStride64B32 | DsLoad2addrStride64B64) {
                    64
                } else {
                    1
                };
            let dw = size / 4;
            let mut rows = [[0u32; LANES]; 4];
            let (o0, o1) = (i.imm as u64 * scale, i.imm2 as u64 * scale);
            if size == 4 {
                read_rows::<4>(env.lds, &addr_row, o0, exec, &mut rows, 0);
                read_rows::<4>(env.lds, &addr_row, o1, exec, &mut rows, 1);
            } else {
                read_rows::<8>(env.lds, &addr_row, o0, exec, &mut rows, 0);
                read_rows::<8>(env.lds, &addr_row, o1, exec, &mut rows, 2);
            }
            for (k, row) in rows.iter().enumerate().take(2 * dw) {
                w.write_vgpr(dst + k, row, exec);
            }
            return Ok(Flow::Next);
        }
        DsStore2addrB32 | DsStore2addrB64 | DsStore2addrStride64B32 | DsStore2addrStride64B64 => {
            let size = if matches!(i.op, DsStore2addrB32 | DsStore2addrStride64B32) {
                4
            } else {
                8
            };
            let scale = size as u64
                * if matches!(i.op, DsStore2addrStride64B32 | DsStore2addrStride64B64) {
                    64
                } else {
                    1
                };
            // Lane order, each lane's first then second address (the highest lane wins overlaps).
            for l in 0..LANES {
                if exec >> l & 1 == 0 {
                    continue;
                }
                for (o, reg) in [(i.imm as u64, d0), (i.imm2 as u64, d1)] {
                    let a = addr_row[l] as u64 + o * scale;
                    let lo = w.vgpr[reg & 255][l];
                    if size == 4 {
                        lds_put::<4>(env.lds, a, lo.to_le_bytes());
                    } else {
                        let hi = w.vgpr[(reg + 1) & 255][l];
                        lds_put::<8>(env.lds, a, (lo as u64 | (hi as u64) << 32).to_le_bytes());
                    }
                }
            }
            return Ok(Flow::Next);
        }
        _ => {}
    }
    let kind = mem_kind(i.op);
    if let MemKind::Load(size, signed, d16) = kind {
        let mut rows = [[0u32; LANES]; 4];
        match size {
            4 => read_rows::<4>(env.lds, &addr_row, off16, exec, &mut rows, 0),
            8 => read_rows::<8>(env.lds, &addr_row, off16, exec, &mut rows, 0),
            12 => read_rows::<12>(env.lds, &addr_row, off16, exec, &mut rows, 0),
            16 => read_rows::<16>(env.lds, &addr_row, off16, exec, &mut rows, 0),
            _ => {
                let cur = w.vgpr[dst];
                for l in 0..LANES {
                    if exec >> l & 1 == 0 {
                        continue;
                    }
                    let a = addr_row[l] as u64 + off16;
                    let v = match (size, signed) {
                        (1, true) => lds_get::<1>(env.lds, a)[0] as i8 as i32 as u32,
                        (1, false) => lds_get::<1>(env.lds, a)[0] as u32,
                        (_, true) => i16::from_le_bytes(lds_get::<2>(env.lds, a)) as i32 as u32,
                        (_, false) => u16::from_le_bytes(lds_get::<2>(env.lds, a)) as u32,
                    };
                    rows[0][l] = place_d16(cur[l], v, d16);
                }
            }
        }
        for (k, row) in rows.iter().enumerate().take(size.div_ceil(4)) {
            w.write_vgpr(dst + k, row, exec);
        }
        return Ok(Flow::Next);
    }
    if let MemKind::Store(size, hi) = kind {
        match size {
            4 => write_rows::<4>(w, env.lds, &addr_row, off16, exec, d0),
            8 => write_rows::<8>(w, env.lds, &addr_row, off16, exec, d0),
            12 => write_rows::<12>(w, env.lds, &addr_row, off16, exec, d0),
            16 => write_rows::<16>(w, env.lds, &addr_row, off16, exec, d0),
            _ => {
                for l in 0..LANES {
                    if exec >> l & 1 == 0 {
                        continue;
                    }
                    let v = w.vgpr[d0][l];
                    let v = if hi { v >> 16 } else { v };
                    let a = addr_row[l] as u64 + off16;
                    if size == 1 {
                        lds_put::<1>(env.lds, a, [v as u8]);
                    } else {
                        lds_put::<2>(env.lds, a, (v as u16).to_le_bytes());
                    }
                }
            }
        }
        return Ok(Flow::Next);
    }
    // Atomics: data0 = source, data1 = compare (cmpstore).
    let MemKind::Atomic(rmw, wide, rtn) = kind else {
        return Err(illegal(i));
    };
    let mut old = [0u64; LANES];
    for l in 0..LANES {
        if exec >> l & 1 == 0 {
            continue;
        }
        let a = addr_row[l] as u64 + off16;
        let rd = |r: usize| {
            let lo = w.vgpr[r & 255][l] as u64;
            if wide {
                lo | (w.vgpr[(r + 1) & 255][l] as u64) << 32
            } else {
                lo
            }
        };
        let src = rd(d0);
        let cmp = if rmw == Rmw::CmpSwap { rd(d1) } else { 0 };
        let o = if wide {
            let o = u64::from_le_bytes(lds_get::<8>(env.lds, a));
            lds_put::<8>(env.lds, a, apply64(rmw, o, src, cmp).to_le_bytes());
            o
        } else {
            let o = u32::from_le_bytes(lds_get::<4>(env.lds, a));
            lds_put::<4>(
                env.lds,
                a,
                apply32(rmw, o, src as u32, cmp as u32).to_le_bytes(),
            );
            o as u64
        };
        old[l] = o;
    }
    if rtn {
        if wide {
            w.write_vgpr64(dst, &old, exec);
        } else {
            let lo = old.map(|v| v as u32);
            w.write_vgpr(dst, &lo, exec);
        }
    }
    Ok(Flow::Next)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::gfx11::exec::NoMemory;
    use crate::gfx11::exec::test_inst as inst;
    use crate::gfx11::wave::EXEC;

    const LDS_BYTES: usize = 3000;

    /// ds_bpermute_b32 as the ISA states it, lane by lane: lane l reads lane
    /// ((address + offset) / 4) mod 32 of the data, 0 where that lane is
    /// inactive. `ds_shuffle`'s vectorised form must give the same rows for
    /// any address (wrapping past 2^32 included), offset and EXEC.
    #[test]
    fn bpermute_matches_the_lane_rule() {
        // fast/tests.rs's generator: the same xorshift, the same stream.
        let mut rng = crate::gfx11::exec::fast::tests::Rng::new(0x2545_F491_4F6C_DD1D);
        let mut next = || rng.next();
        for round in 0..2000 {
            let mut w = Wave::default();
            for l in 0..LANES {
                w.vgpr[3][l] = match round % 3 {
                    0 => next(),
                    1 => u32::MAX - (next() & 0xFFFF),
                    _ => 4 * (next() % 64),
                };
                w.vgpr[7][l] = next();
                w.vgpr[9][l] = next();
            }
            let exec = [next(), u32::MAX, 0, 1 << (round % 32)][round % 4];
            let off16 = [0, 4, 0x7C, 0xFFFF, next() & 0xFFFF][round % 5];
            let d = DsShuffle {
                kind: ShuffleKind::Bpermute,
                dst: 9,
                addr: 3,
                data: 7,
                off16,
            };
            let (addr, data, old) = (w.vgpr[3], w.vgpr[7], w.vgpr[9]);
            ds_shuffle(&mut w, &d, exec);
            for l in 0..LANES {
                let src = ((addr[l] as u64 + off16 as u64) / 4) as usize % LANES;
                let want = if exec & 1 << l == 0 {
                    old[l]
                } else if exec & 1 << src == 0 {
                    0
                } else {
                    data[src]
                };
                assert_eq!(w.vgpr[9][l], want, "round {round} lane {l}");
            }
        }
    }

    /// GFX9's wave64 ds_bpermute_b32 / ds_permute_b32 over all 64 lanes, run
    /// as the executor runs a wave64 (the low pass, then the high pass with
    /// the files swapped), with the destination also the data (and, for
    /// permute, the address) register, so the high pass must see the rows
    /// as they were before the low pass wrote them.
    #[test]
    fn wave64_permutes_span_both_halves_on_gfx9() {
        let mut rng = crate::gfx11::exec::fast::tests::Rng::new(0x9E37_79B9_7F4A_7C15);
        let mut next = || rng.next();
        for round in 0..500 {
            for kind in [ShuffleKind::Bpermute64, ShuffleKind::Permute64] {
                let mut w = Wave {
                    wave64: true,
                    ..Wave::default()
                };
                let (addr, data) = (3usize, 7usize);
                let dst = if kind == ShuffleKind::Bpermute64 {
                    data
                } else {
                    addr
                };
                let mut a = [0u32; 64];
                let mut v = [0u32; 64];
                for l in 0..64 {
                    a[l] = if round % 2 == 0 {
                        4 * (next() % 64)
                    } else {
                        next()
                    };
                    v[l] = next();
                }
                w.vgpr[addr].copy_from_slice(&a[..32]);
                w.vgpr_hi[addr].copy_from_slice(&a[32..]);
                w.vgpr[data].copy_from_slice(&v[..32]);
                w.vgpr_hi[data].copy_from_slice(&v[32..]);
                let exec = [next() as u64 | (next() as u64) << 32, u64::MAX][round % 2];
                w.sgpr[EXEC] = exec as u32;
                w.sgpr[EXEC + 1] = (exec >> 32) as u32;
                let old: [u32; 64] = std::array::from_fn(|l| {
                    if l < 32 {
                        w.vgpr[dst][l]
                    } else {
                        w.vgpr_hi[dst][l - 32]
                    }
                });
                let d = DsShuffle {
                    kind,
                    dst: dst as u8,
                    addr: addr as u8,
                    data: data as u8,
                    off16: 0,
                };
                w.half = 0;
                ds_shuffle(&mut w, &d, exec as u32);
                std::mem::swap(&mut w.vgpr, &mut w.vgpr_hi);
                w.half = 1;
                ds_shuffle(&mut w, &d, (exec >> 32) as u32);
                std::mem::swap(&mut w.vgpr, &mut w.vgpr_hi);
                w.half = 0;
                let mut want = [0u32; 64];
                match kind {
                    ShuffleKind::Bpermute64 => {
                        for l in 0..64 {
                            let src = (a[l] / 4) as usize % 64;
                            want[l] = if exec >> src & 1 != 0 { v[src] } else { 0 };
                        }
                    }
                    _ => {
                        for l in 0..64 {
                            if exec >> l & 1 != 0 {
                                want[(a[l] / 4) as usize % 64] = v[l];
                            }
                        }
                    }
                }
                for l in 0..64 {
                    let got = if l < 32 {
                        w.vgpr[dst][l]
                    } else {
                        w.vgpr_hi[dst][l - 32]
                    };
                    let want = if exec >> l & 1 != 0 { want[l] } else { old[l] };
                    assert_eq!(got, want, "{kind:?} round {round} lane {l}");
                }
            }
        }
    }

    /// One form: llvm-mc-19 encoding, load, dwords per element, offsets of
    /// its one or two elements (bytes), data VGPRs (stores), first
    /// destination VGPR (loads).
    pub(crate) struct Form {
        pub text: &'static str,
        pub bytes: [u8; 8],
        pub load: bool,
        pub dwords: usize,
        pub offsets: &'static [u64],
        pub data: [usize; 2],
        pub dst: usize,
    }

    pub(crate) const FORMS: &[Form] = &[
        Form {
            text: "ds_load_b32 v10, v2 offset:12",
            bytes: [0x0c, 0x00, 0xd8, 0xd8, 0x02, 0x00, 0x00, 0x0a],
            load: true,
            dwords: 1,
            offsets: &[12],
            data: [0, 0],
            dst: 10,
        },
        Form {
            text: "ds_load_b64 v[10:11], v2 offset:1000",
            bytes: [0xe8, 0x03, 0xd8, 0xd9, 0x02, 0x00, 0x00, 0x0a],
            load: true,
            dwords: 2,
            offsets: &[1000],
            data: [0, 0],
            dst: 10,
        },
        Form {
            text: "ds_load_b96 v[10:12], v2 offset:4",
            bytes: [0x04, 0x00, 0xf8, 0xdb, 0x02, 0x00, 0x00, 0x0a],
            load: true,
            dwords: 3,
            offsets: &[4],
            data: [0, 0],
            dst: 10,
        },
        Form {
            text: "ds_load_b128 v[10:13], v2",
            bytes: [0x00, 0x00, 0xfc, 0xdb, 0x02, 0x00, 0x00, 0x0a],
            load: true,
            dwords: 4,
            offsets: &[0],
            data: [0, 0],
            dst: 10,
        },
        Form {
            text: "ds_load_b64 v[2:3], v2 offset:8 (destination over the address)",
            bytes: [0x08, 0x00, 0xd8, 0xd9, 0x02, 0x00, 0x00, 0x02],
            load: true,
            dwords: 2,
            offsets: &[8],
            data: [0, 0],
            dst: 2,
        },
        Form {
            text: "ds_store_b32 v2, v20 offset:12",
            bytes: [0x0c, 0x00, 0x34, 0xd8, 0x02, 0x14, 0x00, 0x00],
            load: false,
            dwords: 1,
            offsets: &[12],
            data: [20, 0],
            dst: 0,
        },
        Form {
            text: "ds_store_b64 v2, v[20:21] offset:1000",
            bytes: [0xe8, 0x03, 0x34, 0xd9, 0x02, 0x14, 0x00, 0x00],
            load: false,
            dwords: 2,
            offsets: &[1000],
            data: [20, 0],
            dst: 0,
        },
        Form {
            text: "ds_store_b96 v2, v[20:22] offset:4",
            bytes: [0x04, 0x00, 0x78, 0xdb, 0x02, 0x14, 0x00, 0x00],
            load: false,
            dwords: 3,
            offsets: &[4],
            data: [20, 0],
            dst: 0,
        },
        Form {
            text: "ds_store_b128 v2, v[20:23]",
            bytes: [0x00, 0x00, 0x7c, 0xdb, 0x02, 0x14, 0x00, 0x00],
            load: false,
            dwords: 4,
            offsets: &[0],
            data: [20, 0],
            dst: 0,
        },
        Form {
            text: "ds_load_2addr_b32 v[10:11], v2 offset0:3 offset1:200",
            bytes: [0x03, 0xc8, 0xdc, 0xd8, 0x02, 0x00, 0x00, 0x0a],
            load: true,
            dwords: 1,
            offsets: &[12, 800],
            data: [0, 0],
            dst: 10,
        },
        Form {
            text: "ds_load_2addr_b64 v[10:13], v2 offset0:255 offset1:1",
            bytes: [0xff, 0x01, 0xdc, 0xd9, 0x02, 0x00, 0x00, 0x0a],
            load: true,
            dwords: 2,
            offsets: &[2040, 8],
            data: [0, 0],
            dst: 10,
        },
        Form {
            text: "ds_load_2addr_b64 v[10:13], v2 offset0:4 offset1:6 (second element after the first)",
            bytes: [0x04, 0x06, 0xdc, 0xd9, 0x02, 0x00, 0x00, 0x0a],
            load: true,
            dwords: 2,
            offsets: &[32, 48],
            data: [0, 0],
            dst: 10,
        },
        Form {
            text: "ds_load_2addr_stride64_b32 v[10:11], v2 offset0:1 offset1:7",
            bytes: [0x01, 0x07, 0xe0, 0xd8, 0x02, 0x00, 0x00, 0x0a],
            load: true,
            dwords: 1,
            offsets: &[256, 1792],
            data: [0, 0],
            dst: 10,
        },
        Form {
            text: "ds_load_2addr_stride64_b64 v[10:13], v2 offset1:2",
            bytes: [0x00, 0x02, 0xe0, 0xd9, 0x02, 0x00, 0x00, 0x0a],
            load: true,
            dwords: 2,
            offsets: &[0, 1024],
            data: [0, 0],
            dst: 10,
        },
        Form {
            text: "ds_load_2addr_b32 v[1:2], v2 offset0:1 offset1:2 (destination over the address)",
            bytes: [0x01, 0x02, 0xdc, 0xd8, 0x02, 0x00, 0x00, 0x01],
            load: true,
            dwords: 1,
            offsets: &[4, 8],
            data: [0, 0],
            dst: 1,
        },
        Form {
            text: "ds_store_2addr_b32 v2, v20, v24 offset0:3 offset1:200",
            bytes: [0x03, 0xc8, 0x38, 0xd8, 0x02, 0x14, 0x18, 0x00],
            load: false,
            dwords: 1,
            offsets: &[12, 800],
            data: [20, 24],
            dst: 0,
        },
        Form {
            text: "ds_store_2addr_b64 v2, v[20:21], v[24:25] offset0:255 offset1:1",
            bytes: [0xff, 0x01, 0x38, 0xd9, 0x02, 0x14, 0x18, 0x00],
            load: false,
            dwords: 2,
            offsets: &[2040, 8],
            data: [20, 24],
            dst: 0,
        },
        Form {
            text: "ds_store_2addr_b32 v2, v20, v24 offset0:1 offset1:2 (second element after the first)",
            bytes: [0x01, 0x02, 0x38, 0xd8, 0x02, 0x14, 0x18, 0x00],
            load: false,
            dwords: 1,
            offsets: &[4, 8],
            data: [20, 24],
            dst: 0,
        },
        Form {
            text: "ds_store_2addr_b32 v2, v20, v24 offset1:8 (elements of neighbouring lanes meet)",
            bytes: [0x00, 0x08, 0x38, 0xd8, 0x02, 0x14, 0x18, 0x00],
            load: false,
            dwords: 1,
            offsets: &[0, 32],
            data: [20, 24],
            dst: 0,
        },
        Form {
            text: "ds_store_2addr_stride64_b32 v2, v20, v24 offset0:1 offset1:7",
            bytes: [0x01, 0x07, 0x3c, 0xd8, 0x02, 0x14, 0x18, 0x00],
            load: false,
            dwords: 1,
            offsets: &[256, 1792],
            data: [20, 24],
            dst: 0,
        },
        Form {
            text: "ds_store_2addr_stride64_b64 v2, v[20:21], v[24:25] offset1:2",
            bytes: [0x00, 0x02, 0x3c, 0xd9, 0x02, 0x14, 0x18, 0x00],
            load: false,
            dwords: 2,
            offsets: &[0, 1024],
            data: [20, 24],
            dst: 0,
        },
    ];

    /// The byte model of a form: lanes in order, elements in order, each
    /// element's `4 * dwords` bytes read or written whole when they lie in
    /// LDS (else it reads 0 and a write is dropped); loads write the active
    /// lanes' destination VGPRs after all reads.
    fn model(f: &Form, w: &mut Wave, lds: &mut [u8], exec: u32) {
        let addr = w.vgpr[2];
        let size = 4 * f.dwords;
        let mut loaded = vec![[0u32; LANES]; f.dwords * f.offsets.len()];
        for l in (0..LANES).filter(|l| exec >> l & 1 != 0) {
            for (e, &off) in f.offsets.iter().enumerate() {
                let a = addr[l] as u64 + off;
                let inside = a + size as u64 <= lds.len() as u64;
                for k in 0..f.dwords {
                    let at = a as usize + 4 * k;
                    if f.load {
                        if inside {
                            let b = &lds[at..at + 4];
                            loaded[e * f.dwords + k][l] = u32::from_le_bytes(b.try_into().unwrap());
                        }
                    } else if inside {
                        let v = w.vgpr[f.data[e] + k][l];
                        lds[at..at + 4].copy_from_slice(&v.to_le_bytes());
                    }
                }
            }
        }
        for (r, row) in loaded.iter().enumerate().filter(|_| f.load) {
            for l in (0..LANES).filter(|l| exec >> l & 1 != 0) {
                w.vgpr[f.dst + r][l] = row[l];
            }
        }
    }

    pub(crate) fn env(lds: &mut [u8]) -> Env<'_> {
        Env {
            mem: &NoMemory,
            lds,
            scratch: &mut [],
            scratch_va: 0,
            scratch_wave_bytes: 0,
            scratch_wave64: false,
            scratch_per_lane: 0,
            shared_base: 0,
            private_base: 0,
            // A test environment owns its cache: a few hundred bytes, leaked.
            spans: Box::leak(Box::default()),
            lds_bank_conflicts: None,
            observer: None,
        }
    }

    /// Every fast-path form against the byte model: random (often
    /// overlapping, unaligned) addresses under full, partial and empty EXEC,
    /// with a lane partly or wholly past the allocation, and with lanes near
    /// its end (the OR bound fails, the exact maximum passes). In range the
    /// fast path must be the one taken; a lane out of range must send the
    /// instruction to the per-lane path, which still matches the model.
    #[test]
    fn in_range_fast_path_matches_the_byte_model() {
        let mut rng = aqueduct_test_support::Rng::new(0x9E37_79B9_7F4A_7C15);
        let mut or_bound_failed = 0;
        for f in FORMS {
            let i = inst(f.bytes);
            for round in 0..14 {
                let exec = match round % 4 {
                    0 => u32::MAX,
                    1 => rng.u64() as u32,
                    // Two lanes, or one (the lane-by-lane path).
                    2 if round % 8 == 2 => 0x8000_0001,
                    2 => 1 << (rng.u64() % LANES as u64),
                    _ => 0,
                };
                let mut w = Wave::default();
                w.sgpr[EXEC] = exec;
                for (r, row) in w.vgpr.iter_mut().enumerate() {
                    for (l, v) in row.iter_mut().enumerate() {
                        *v = (rng.u64() as u32) ^ (r << 8 | l) as u32;
                    }
                }
                // Addresses in a small window so lanes overlap; any alignment.
                for l in 0..LANES {
                    w.vgpr[2][l] = (rng.u64() % 96) as u32;
                }
                let out_of_range = (8..12).contains(&round);
                if round >= 12 {
                    // All in range, but near the end: the OR of p and p - 1 (p the
                    // largest power of two that fits) is past it, the maximum is not.
                    let top = LDS_BYTES - *f.offsets.iter().max().unwrap() as usize - 4 * f.dwords;
                    let p = 1 << top.ilog2();
                    for l in 0..LANES {
                        w.vgpr[2][l] = [p, p - 1, l as u32][(rng.u64() % 3) as usize];
                    }
                    w.vgpr[2][0] = p;
                    w.vgpr[2][1] = p - 1;
                    w.sgpr[EXEC] = u32::MAX;
                    if (2 * p - 1) as usize > top {
                        or_bound_failed += 1;
                    }
                }
                if out_of_range {
                    let lane = (rng.u64() % LANES as u64) as usize;
                    w.sgpr[EXEC] |= 1 << lane;
                    w.vgpr[2][lane] = if round % 2 == 0 {
                        (LDS_BYTES - 2) as u32
                    } else {
                        u32::MAX - 3
                    };
                }
                let exec = w.sgpr[EXEC];
                let init: Vec<u8> = (0..LDS_BYTES).map(|_| rng.u64() as u8).collect();

                let (mut want_w, mut want_lds) = (w.clone(), init.clone());
                model(f, &mut want_w, &mut want_lds, exec);

                let (mut probe_w, mut probe_lds) = (w.clone(), init.clone());
                let d = DsRows::of(&i).expect("a dword form");
                let fast = ds_in_range(&mut probe_w, &mut probe_lds, &d, exec);
                assert_eq!(
                    fast,
                    exec != 0 && !out_of_range,
                    "{}: round {round}, exec {exec:#x}",
                    f.text
                );

                // The pre-resolved form (`Fast::Ds`), as the wave loop runs it:
                // taken exactly when the in-range path is, else `step`.
                let form = crate::gfx11::exec::fast::compile(&i, 0);
                assert_eq!(form, crate::gfx11::exec::fast::Fast::Ds(d), "{}", f.text);
                let (mut pre_w, mut pre_lds) = (w.clone(), init.clone());
                let mut pre_env = env(&mut pre_lds);
                let taken = match crate::gfx11::exec::fast::run(&mut pre_w, &mut pre_env, &form) {
                    Some(flow) => flow == Flow::Next,
                    None => {
                        crate::gfx11::exec::step(&mut pre_w, &mut pre_env, &i) != Ok(Flow::Next)
                    }
                };
                assert_eq!(taken, fast, "{}: pre-resolved taken, round {round}", f.text);
                assert!(
                    pre_lds == want_lds,
                    "{}: pre-resolved LDS, round {round}",
                    f.text
                );
                assert_eq!(pre_w.vgpr, want_w.vgpr, "{}: pre-resolved VGPRs", f.text);

                let mut lds = init.clone();
                let flow = ds(&mut w, &mut env(&mut lds), &i).unwrap();
                assert_eq!(flow, Flow::Next);
                assert!(lds == want_lds, "{}: LDS bytes, round {round}", f.text);
                assert_eq!(w.vgpr, want_w.vgpr, "{}: VGPRs, round {round}", f.text);
                if fast {
                    assert!(probe_lds == want_lds, "{}: fast path LDS", f.text);
                    assert_eq!(probe_w.vgpr, want_w.vgpr, "{}: fast path VGPRs", f.text);
                }
                if !f.load && exec != 0 && !out_of_range {
                    assert!(lds != init, "{}: the store wrote nothing", f.text);
                }
            }
        }
        assert!(or_bound_failed > 0, "no case needed the exact maximum");
    }

    /// Wave64 DS accesses and lane shuffles of GFX9 (gfx942 encodings from
    /// llvm-mc-19, normalised as the code cache does) through their forms
    /// (`run_wave64_memory`: each 32-lane pass through the form, or
    /// through `step`'s pass where it declines) against `step` on the whole
    /// wave: random registers, EXEC halves full, random or empty, lanes on
    /// overlapping addresses (the high pass's stores land last), a lane out
    /// of range in either half. LDS, both halves' registers, the result and
    /// the bank-conflict count match.
    #[test]
    fn wave64_ds_forms_match_step() {
        use crate::gfx9::{Target, decode::decode, exec_form::normalise};
        const ENCODINGS: [[u8; 8]; 6] = [
            [0x00, 0x00, 0x7e, 0xd8, 0x02, 0x03, 0x00, 0x01], // ds_bpermute_b32 v1, v2, v3
            [0x04, 0x00, 0x7c, 0xd8, 0x02, 0x03, 0x00, 0x01], // ds_permute_b32 v1, v2, v3 offset:4
            [0x07, 0x09, 0x7a, 0xd8, 0x02, 0x00, 0x00, 0x01], // ds_swizzle_b32 v1, v2 (bitmask perm)
            [0x08, 0x00, 0x6c, 0xd8, 0x02, 0x00, 0x00, 0x01], // ds_read_b32 v1, v2 offset:8
            [0x04, 0x00, 0x1a, 0xd8, 0x02, 0x03, 0x00, 0x00], // ds_write_b32 v2, v3 offset:4
            [0x01, 0x03, 0x6e, 0xd8, 0x02, 0x00, 0x00, 0x04], // ds_read2_b32 v[4:5], v2 offset0:1 offset1:3
        ];
        let mut rng = aqueduct_test_support::Rng::new(0x2545_F491_4F6C_DD1D);
        let mut in_range = 0;
        for enc in ENCODINGS {
            let words = [
                u32::from_le_bytes(enc[..4].try_into().unwrap()),
                u32::from_le_bytes(enc[4..].try_into().unwrap()),
            ];
            let i = normalise(Target::Gfx942, decode(Target::Gfx942, &words).unwrap()).unwrap();
            let form = crate::gfx11::exec::fast::compile(&i, 0);
            assert!(
                matches!(
                    form,
                    crate::gfx11::exec::fast::Fast::Ds(_)
                        | crate::gfx11::exec::fast::Fast::DsShuffle(_)
                ),
                "{}: {form:?}",
                i.mnemonic
            );
            for round in 0..16 {
                let mut w = Wave {
                    wave64: true,
                    ..Wave::default()
                };
                for file in [&mut w.vgpr, &mut w.vgpr_hi] {
                    for (r, row) in file.iter_mut().enumerate() {
                        for (l, v) in row.iter_mut().enumerate() {
                            *v = (rng.u64() as u32) ^ (r << 8 | l) as u32;
                        }
                    }
                    // Addresses in a small window so lanes overlap.
                    for v in file[2].iter_mut() {
                        *v = (rng.u64() % 96) as u32;
                    }
                }
                let pick = |k: u64, r: u32| [u32::MAX, r, 0, 0x8000_0001][k as usize % 4];
                w.sgpr[EXEC] = pick(round, rng.u64() as u32);
                w.sgpr[EXEC + 1] = pick(round / 4, rng.u64() as u32);
                if round % 3 == 2 {
                    let lane = (rng.u64() % LANES as u64) as usize;
                    let file = if round % 2 == 0 {
                        &mut w.vgpr
                    } else {
                        &mut w.vgpr_hi
                    };
                    file[2][lane] = (LDS_BYTES - 2) as u32;
                } else {
                    in_range += 1;
                }
                let init: Vec<u8> = (0..LDS_BYTES).map(|_| rng.u64() as u8).collect();
                let what = format!("{}: round {round}", i.mnemonic);

                let (mut fast_w, mut fast_lds) = (w.clone(), init.clone());
                let mut fast_env = env(&mut fast_lds);
                fast_env.lds_bank_conflicts = Some(0);
                let got = match crate::gfx11::exec::fast::run(&mut fast_w, &mut fast_env, &form) {
                    Some(flow) => Ok(flow),
                    None => crate::gfx11::exec::fast::run_wave64_memory(
                        &mut fast_w,
                        &mut fast_env,
                        &form,
                        &i,
                    )
                    .expect("a wave64 run"),
                };
                let fast_conflicts = fast_env.lds_bank_conflicts;

                let (mut slow_w, mut slow_lds) = (w.clone(), init.clone());
                let mut slow_env = env(&mut slow_lds);
                slow_env.lds_bank_conflicts = Some(0);
                let want = crate::gfx11::exec::step(&mut slow_w, &mut slow_env, &i);
                assert_eq!(
                    fast_conflicts, slow_env.lds_bank_conflicts,
                    "{what}: conflicts"
                );
                assert_eq!(got, want, "{what}");
                assert!(fast_lds == slow_lds, "{what}: LDS");
                assert_eq!(fast_w.vgpr, slow_w.vgpr, "{what}: lanes 0..31");
                assert_eq!(fast_w.vgpr_hi, slow_w.vgpr_hi, "{what}: lanes 32..63");
            }
        }
        assert!(in_range > 40, "{in_range}");
    }
}
