//! The DS instructions outside lds.rs's load/store/atomic families (RDNA3
//! ISA guide, DS opcode descriptions): masked OR, the two-address exchange,
//! the wrapping counter, the M0-addressed append/consume counters and the
//! thread-id-addressed load/store. Same LDS bounds rule as lds.rs: past the
//! allocation reads 0 and drops writes.

use super::lds::{lds_get, lds_put};
use crate::gfx11::exec::env::{Env, ExecResult, Flow};
use crate::gfx11::inst::Inst;
use crate::gfx11::opcodes::Op;
use crate::gfx11::wave::{LANES, M0, Wave};

/// Executes `i` if it is one of this file's instructions; `None` otherwise.
pub(crate) fn ds_misc(w: &mut Wave, env: &mut Env, i: &Inst) -> Option<ExecResult> {
    use Op::*;
    let exec = w.exec();
    let off16 = u64::from(i.imm as u32 | i.imm2 << 8);
    let (d0, d1, dst) = (i.data[0] as usize, i.data[1] as usize, i.dst as usize);
    let addr_row = w.vgpr[i.addr as usize];
    let lanes = (0..LANES).filter(move |l| exec >> l & 1 != 0);
    let read64 = |w: &Wave, r: usize, l: usize| {
        u64::from(w.vgpr[r & 255][l]) | u64::from(w.vgpr[(r + 1) & 255][l]) << 32
    };
    match i.op {
        // MEM = (MEM & ~DATA0) | DATA1; the _rtn forms return the old value.
        DsMskorB32 | DsMskorRtnB32 => {
            let mut old = [0u32; LANES];
            for l in lanes {
                let a = u64::from(addr_row[l]) + off16;
                let o = u32::from_le_bytes(lds_get::<4>(env.lds, a));
                let v = (o & !w.vgpr[d0][l]) | w.vgpr[d1][l];
                lds_put::<4>(env.lds, a, v.to_le_bytes());
                old[l] = o;
            }
            if i.op == DsMskorRtnB32 {
                w.write_vgpr(dst, &old, exec);
            }
        }
        DsMskorB64 | DsMskorRtnB64 => {
            let mut old = [0u64; LANES];
            for l in lanes {
                let a = u64::from(addr_row[l]) + off16;
                let o = u64::from_le_bytes(lds_get::<8>(env.lds, a));
                let v = (o & !read64(w, d0, l)) | read64(w, d1, l);
                lds_put::<8>(env.lds, a, v.to_le_bytes());
                old[l] = o;
            }
            if i.op == DsMskorRtnB64 {
                w.write_vgpr64(dst, &old, exec);
            }
        }
        // Two addresses (offset0 and offset1 in elements, x64 for stride64):
        // DATA0 and DATA1 are stored, the old values return as {first, second}.
        DsStorexchg2addrRtnB32
        | DsStorexchg2addrStride64RtnB32
        | DsStorexchg2addrRtnB64
        | DsStorexchg2addrStride64RtnB64 => {
            let wide = matches!(
                i.op,
                DsStorexchg2addrRtnB64 | DsStorexchg2addrStride64RtnB64
            );
            let size: u64 = if wide { 8 } else { 4 };
            let stride = if matches!(
                i.op,
                DsStorexchg2addrStride64RtnB32 | DsStorexchg2addrStride64RtnB64
            ) {
                64
            } else {
                1
            };
            let mut old = [[0u64; LANES]; 2];
            for l in lanes {
                for (k, (o, reg)) in [(i.imm as u64 & 0xFF, d0), (u64::from(i.imm2), d1)]
                    .into_iter()
                    .enumerate()
                {
                    let a = u64::from(addr_row[l]) + o * size * stride;
                    if wide {
                        old[k][l] = u64::from_le_bytes(lds_get::<8>(env.lds, a));
                        lds_put::<8>(env.lds, a, read64(w, reg, l).to_le_bytes());
                    } else {
                        old[k][l] = u64::from(u32::from_le_bytes(lds_get::<4>(env.lds, a)));
                        lds_put::<4>(env.lds, a, w.vgpr[reg & 255][l].to_le_bytes());
                    }
                }
            }
            if wide {
                w.write_vgpr64(dst, &old[0], exec);
                w.write_vgpr64(dst + 2, &old[1], exec);
            } else {
                w.write_vgpr(dst, &old[0].map(|v| v as u32), exec);
                w.write_vgpr(dst + 1, &old[1].map(|v| v as u32), exec);
            }
        }
        // MEM = MEM >= DATA0 ? MEM - DATA0 : MEM + DATA1; returns the old value.
        DsWrapRtnB32 => {
            let mut old = [0u32; LANES];
            for l in lanes {
                let a = u64::from(addr_row[l]) + off16;
                let o = u32::from_le_bytes(lds_get::<4>(env.lds, a));
                let (data, data2) = (w.vgpr[d0][l], w.vgpr[d1][l]);
                let v = if o >= data {
                    o - data
                } else {
                    o.wrapping_add(data2)
                };
                lds_put::<4>(env.lds, a, v.to_le_bytes());
                old[l] = o;
            }
            w.write_vgpr(dst, &old, exec);
        }
        // One counter for the whole wave at M0[15:0] + offset (no VGPR
        // address): it grows (append) or shrinks (consume) by the number of
        // active lanes, and every active lane gets the old value.
        DsAppend | DsConsume => {
            let a = u64::from(w.sgpr[M0] & 0xFFFF) + off16;
            let o = u32::from_le_bytes(lds_get::<4>(env.lds, a));
            let n = exec.count_ones();
            let v = if i.op == DsAppend {
                o.wrapping_add(n)
            } else {
                o.wrapping_sub(n)
            };
            lds_put::<4>(env.lds, a, v.to_le_bytes());
            w.write_vgpr(dst, &[o; LANES], exec);
        }
        // Address M0[15:0] + offset + 4 * lane id; no VGPR address.
        DsStoreAddtidB32 | DsLoadAddtidB32 => {
            let base = u64::from(w.sgpr[M0] & 0xFFFF) + off16;
            let lane_base = 32 * w.half as u64;
            let mut rows = [0u32; LANES];
            for l in lanes {
                let a = base + 4 * (lane_base + l as u64);
                if i.op == DsStoreAddtidB32 {
                    lds_put::<4>(env.lds, a, w.vgpr[d0][l].to_le_bytes());
                } else {
                    rows[l] = u32::from_le_bytes(lds_get::<4>(env.lds, a));
                }
            }
            if i.op == DsLoadAddtidB32 {
                w.write_vgpr(dst, &rows, exec);
            }
        }
        _ => return None,
    }
    Some(Ok(Flow::Next))
}
