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

fn lds_read(lds: &[u8], addr: u64, buf: &mut [u8]) {
    let a = addr as usize;
    match a.checked_add(buf.len()) {
        Some(e) if addr < u32::MAX as u64 && e <= lds.len() => buf.copy_from_slice(&lds[a..e]),
        _ => buf.fill(0),
    }
}

fn lds_write(lds: &mut [u8], addr: u64, buf: &[u8]) {
    let a = addr as usize;
    if let Some(e) = a.checked_add(buf.len())
        && addr < u32::MAX as u64
        && e <= lds.len()
    {
        lds[a..e].copy_from_slice(buf);
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
            for l in 0..LANES {
                if exec >> l & 1 == 0 {
                    continue;
                }
                for (n, o) in [i.imm as u64, i.imm2 as u64].into_iter().enumerate() {
                    let mut b = [0u8; 8];
                    lds_read(env.lds, addr_row[l] as u64 + o * scale, &mut b[..size]);
                    for k in 0..dw {
                        rows[n * dw + k][l] =
                            u32::from_le_bytes(b[4 * k..4 * k + 4].try_into().unwrap_or([0; 4]));
                    }
                }
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
            for l in 0..LANES {
                if exec >> l & 1 == 0 {
                    continue;
                }
                for (n, (o, reg)) in [(i.imm as u64, d0), (i.imm2 as u64, d1)]
                    .into_iter()
                    .enumerate()
                {
                    let _ = n;
                    let mut b = [0u8; 8];
                    for k in 0..size / 4 {
                        b[4 * k..4 * k + 4]
                            .copy_from_slice(&w.vgpr[(reg + k) & 255][l].to_le_bytes());
                    }
                    lds_write(env.lds, addr_row[l] as u64 + o * scale, &b[..size]);
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
        let cur = w.vgpr[dst];
        for l in 0..LANES {
            if exec >> l & 1 == 0 {
                continue;
            }
            let mut b = [0u8; 16];
            lds_read(env.lds, addr_row[l] as u64 + off16, &mut b[..size]);
            if size >= 4 {
                for k in 0..size / 4 {
                    rows[k][l] =
                        u32::from_le_bytes(b[4 * k..4 * k + 4].try_into().unwrap_or([0; 4]));
                }
            } else {
                let raw = if size == 1 {
                    b[0] as u32
                } else {
                    u16::from_le_bytes([b[0], b[1]]) as u32
                };
                let v = match (size, signed) {
                    (1, true) => raw as u8 as i8 as i32 as u32,
                    (2, true) => raw as u16 as i16 as i32 as u32,
                    _ => raw,
                };
                rows[0][l] = match d16 {
                    1 => (cur[l] & 0xFFFF_0000) | (v & 0xFFFF),
                    2 => (cur[l] & 0xFFFF) | (v << 16),
                    _ => v,
                };
            }
        }
        for (k, row) in rows.iter().enumerate().take(size.div_ceil(4)) {
            w.write_vgpr(dst + k, row, exec);
        }
        return Ok(Flow::Next);
    }
    if let MemKind::Store(size, hi) = kind {
        for l in 0..LANES {
            if exec >> l & 1 == 0 {
                continue;
            }
            let mut b = [0u8; 16];
            for k in 0..size.div_ceil(4) {
                let v = w.vgpr[(d0 + k) & 255][l];
                let v = if hi { v >> 16 } else { v };
                b[4 * k..4 * k + 4].copy_from_slice(&v.to_le_bytes());
            }
            lds_write(env.lds, addr_row[l] as u64 + off16, &b[..size]);
        }
        return Ok(Flow::Next);
    }
    // Atomics: data0 = source, data1 = compare (cmpstore).
    let MemKind::Atomic(rmw, wide, rtn) = kind else {
        return Err(illegal(i));
    };
    let size = if wide { 8 } else { 4 };
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
        let mut b = [0u8; 8];
        lds_read(env.lds, a, &mut b[..size]);
        let o = u64::from_le_bytes(b);
        let new = if wide {
            apply64(rmw, o, src, cmp)
        } else {
            apply32(rmw, o as u32, src as u32, cmp as u32) as u64
        };
        lds_write(env.lds, a, &new.to_le_bytes()[..size]);
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
