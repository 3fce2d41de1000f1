//! DS instructions on the workgroup's LDS: loads/stores of every width, the
//! two-address forms (offsets scaled by the element size, ×64 for stride64),
//! atomics with and without return, and the cross-lane permutes and swizzle.
//! LDS bounds: an access past the allocation reads 0 and drops writes.

use super::atomics::{Rmw, apply32, apply64};
use super::mem_kind::{MemKind, mem_kind};
use super::{Env, ExecResult, Flow, illegal};
use crate::isa::inst::Inst;
use crate::isa::opcodes::Op;
use crate::isa::wave::{LANES, Wave};

/// Read `N` bytes of LDS at `addr` (one fixed-size move); past the allocation reads 0.
#[inline(always)]
fn lds_get<const N: usize>(lds: &[u8], addr: u64) -> [u8; N] {
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
fn lds_put<const N: usize>(lds: &mut [u8], addr: u64, b: [u8; N]) {
    if addr < u32::MAX as u64 && addr as usize + N <= lds.len() {
        let a = addr as usize;
        lds[a..a + N].copy_from_slice(&b);
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

pub(super) fn ds(w: &mut Wave, env: &mut Env, i: &Inst) -> ExecResult {
    use Op::*;
    if i.flags & Inst::GDS != 0 {
        return Err(illegal(i));
    }
    let exec = w.exec();
    let addr_row = w.vgpr[i.addr as usize];
    let off16 = (i.imm as u32 | i.imm2 << 8) as u64;
    let d0 = i.data[0] as usize;
    let d1 = i.data[1] as usize;
    let dst = i.dst as usize;
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
        // Offset bit 15 set: quad-perm mode (lane l reads lane (l & !3) + sel[l & 3], two
        // bits per select); clear: bit-mask mode within each 32-lane group, lane l reads
        // ((l & and_mask) | or_mask) ^ xor_mask (masks at bits 4:0, 9:5, 14:10).
        // Inactive source lanes read 0.
        DsSwizzleB32 => {
            // The source VGPR sits in the ADDR field (`ds_swizzle_b32 vdst, vsrc offset:...`).
            let data = addr_row;
            let pattern = off16 as usize;
            let mut out = [0u32; LANES];
            for l in 0..LANES {
                let src = if pattern & 0x8000 != 0 {
                    (l & !3) | ((pattern >> (2 * (l & 3))) & 3)
                } else {
                    let (and, or, xor) = (pattern & 31, (pattern >> 5) & 31, (pattern >> 10) & 31);
                    ((l & and) | or) ^ xor
                };
                out[l] = if exec >> src & 1 != 0 { data[src] } else { 0 };
            }
            w.write_vgpr(dst, &out, exec);
            return Ok(Flow::Next);
        }
        DsBpermuteB32 | DsPermuteB32 => {
            let data = w.vgpr[d0];
            let mut out = [0u32; LANES];
            if i.op == DsBpermuteB32 {
                for l in 0..LANES {
                    let src = ((addr_row[l] as u64 + off16) / 4) as usize % LANES;
                    out[l] = if exec >> src & 1 != 0 { data[src] } else { 0 };
                }
            } else {
                for l in 0..LANES {
                    if exec >> l & 1 != 0 {
                        let d = ((addr_row[l] as u64 + off16) / 4) as usize % LANES;
                        out[d] = data[l];
                    }
                }
            }
            w.write_vgpr(dst, &out, exec);
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
                    rows[0][l] = match d16 {
                        1 => (cur[l] & 0xFFFF_0000) | (v & 0xFFFF),
                        2 => (cur[l] & 0xFFFF) | (v << 16),
                        _ => v,
                    };
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
