//! What an observed dispatch's memory instructions show the workgroup's
//! observer (observer.rs at the crate root): each FLAT/GLOBAL/SCRATCH and
//! DS instruction's active lanes' addresses, per segment, before the
//! instruction runs. Only reached when `Env::observer` is set.

use crate::Access;
use crate::gfx11::exec::env::Env;
use crate::gfx11::exec::lds::DsShuffle;
use crate::gfx11::exec::vmem::mem_kind::{MemKind, mem_kind};
use crate::gfx11::exec::vmem::{Seg, lane_addresses};
use crate::gfx11::inst::Inst;
use crate::gfx11::opcodes::Op;
use crate::gfx11::wave::{LANES, Wave};
use crate::observer::{LaneAccesses, Segment};

/// Bytes per lane and the access kind of a memory opcode's kind (None: it
/// moves no memory the observer sees).
fn size_and_access(kind: MemKind) -> Option<(u32, Access)> {
    match kind {
        MemKind::Load(size, ..) => Some((size as u32, Access::Read)),
        MemKind::Store(size, _) => Some((size as u32, Access::Write)),
        MemKind::Atomic(_, wide, _) => Some((if wide { 8 } else { 4 }, Access::Atomic)),
        MemKind::Other => None,
    }
}

/// Show the observer a FLAT/GLOBAL/SCRATCH instruction's active lanes, one
/// call per segment they address.
#[cold]
#[inline(never)]
pub(crate) fn flat(w: &Wave, env: &mut Env, i: &Inst) {
    let Some((size, access)) = size_and_access(mem_kind(i.op)) else {
        return;
    };
    let exec = w.exec();
    let (addrs, seg) = lane_addresses(w, env, i);
    let Some(o) = env.observer.as_deref_mut() else {
        return;
    };
    for (segment, s) in [
        (Segment::Global, Seg::Global),
        (Segment::Lds, Seg::Lds),
        (Segment::Private, Seg::Private),
    ] {
        let mut mask = 0u32;
        for l in 0..LANES {
            if exec >> l & 1 != 0 && seg[l] == s {
                mask |= 1 << l;
            }
        }
        if mask != 0 {
            o.access(&LaneAccesses {
                pc: w.pc,
                wave: w.index,
                first_lane: 32 * w.half as u32,
                segment,
                access,
                size,
                exec: mask,
                addrs: &addrs,
            });
        }
    }
}

/// Show the observer a DS instruction's LDS accesses: one call, or two for
/// the two-address forms (each lane's first then second address). The lane
/// shuffles touch no LDS.
#[cold]
#[inline(never)]
pub(crate) fn ds(w: &Wave, env: &mut Env, i: &Inst) {
    use Op::*;
    let exec = w.exec();
    if exec == 0 || DsShuffle::of(i).is_some() {
        return;
    }
    let row = &w.vgpr[i.addr as usize];
    let two = match i.op {
        DsLoad2addrB32 | DsStore2addrB32 => Some((4, 1)),
        DsLoad2addrB64 | DsStore2addrB64 => Some((8, 1)),
        DsLoad2addrStride64B32 | DsStore2addrStride64B32 => Some((4, 64)),
        DsLoad2addrStride64B64 | DsStore2addrStride64B64 => Some((8, 64)),
        _ => None,
    };
    let mut show = |offset: u64, size: u32, access: Access| {
        let addrs: [u64; LANES] = std::array::from_fn(|l| row[l] as u64 + offset);
        if let Some(o) = env.observer.as_deref_mut() {
            o.access(&LaneAccesses {
                pc: w.pc,
                wave: w.index,
                first_lane: 32 * w.half as u32,
                segment: Segment::Lds,
                access,
                size,
                exec,
                addrs: &addrs,
            });
        }
    };
    if let Some((size, stride)) = two {
        let access = if matches!(
            i.op,
            DsLoad2addrB32 | DsLoad2addrB64 | DsLoad2addrStride64B32 | DsLoad2addrStride64B64
        ) {
            Access::Read
        } else {
            Access::Write
        };
        let scale = size as u64 * stride;
        show(i.imm as u64 * scale, size, access);
        show(i.imm2 as u64 * scale, size, access);
        return;
    }
    if let Some((size, access)) = size_and_access(mem_kind(i.op)) {
        show((i.imm as u32 | i.imm2 << 8) as u64, size, access);
    }
}
