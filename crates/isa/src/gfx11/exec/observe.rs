//! What an observed dispatch's memory instructions show the workgroup's
//! observer (observer.rs at the crate root): each FLAT/GLOBAL/SCRATCH
//! (addtid forms included), DS and MUBUF/MTBUF instruction's active lanes'
//! addresses, per segment, and each scalar load's address, before the
//! instruction runs. Only reached when `Env::observer` is set.

use crate::Access;
use crate::gfx11::exec::env::Env;
use crate::gfx11::exec::lds::DsShuffle;
use crate::gfx11::exec::vmem::mem_kind::{MemKind, mem_kind};
use crate::gfx11::exec::vmem::mubuf::{BufferLanes, in_range};
use crate::gfx11::exec::vmem::{Seg, lane_addresses};
use crate::gfx11::inst::Inst;
use crate::gfx11::opcodes::Op;
use crate::gfx11::wave::{LANES, NULL, Wave};
use crate::observer::{LaneAccesses, Segment};

/// How [`per_lane`]'s lanes access memory: the access kind and the
/// instruction's sc1 bit ([`LaneAccesses::sc1`]).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Shown {
    pub access: Access,
    pub sc1: bool,
}

impl From<Access> for Shown {
    fn from(access: Access) -> Shown {
        Shown { access, sc1: false }
    }
}

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
    // The active lanes of each segment, in one pass (a spill or reload runs
    // here for every scratch access of an observed dispatch).
    let mut masks = [0u32; 3];
    for l in 0..LANES {
        let k = match seg[l] {
            Seg::Global => 0,
            Seg::Lds => 1,
            Seg::Private => 2,
        };
        masks[k] |= (exec >> l & 1) << l;
    }
    for (segment, mask) in [
        (Segment::Global, masks[0]),
        (Segment::Lds, masks[1]),
        (Segment::Private, masks[2]),
    ] {
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
                scalar: false,
                sc1: i.flags & Inst::SC1 != 0,
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
                scalar: false,
                sc1: false,
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

/// Show the observer a scalar load's one access: `s_load_*` reads its
/// dwords at the dword-aligned address; `s_buffer_load_*` reads those of
/// its dwords that pass the V#'s num_records check (a prefix; the rest
/// read 0 without an access), as `vmem::smem` executes them. Cache
/// invalidations show nothing.
#[cold]
#[inline(never)]
pub(crate) fn smem(w: &Wave, env: &mut Env, i: &Inst) {
    use Op::*;
    let (dwords, buffer) = match i.op {
        SLoadB32 => (1, false),
        SLoadB64 => (2, false),
        SLoadB128 => (4, false),
        SLoadB256 => (8, false),
        SLoadB512 => (16, false),
        SBufferLoadB32 => (1, true),
        SBufferLoadB64 => (2, true),
        SBufferLoadB128 => (4, true),
        SBufferLoadB256 => (8, true),
        SBufferLoadB512 => (16, true),
        _ => return,
    };
    let soff = if i.imm2 as usize == NULL {
        0
    } else {
        w.sgpr.get(i.imm2 as usize).copied().unwrap_or(0) as i64
    };
    let off = (i.imm as i64).wrapping_add(soff) as u64;
    let base = w.sgpr64(i.addr as usize);
    let (addr, bytes) = if buffer {
        // V#: base [47:0], num_records (bytes) in dword 2.
        let records = w.sgpr.get(i.addr as usize + 2).copied().unwrap_or(0) as u64;
        let off = off & !3;
        let in_range = (0..dwords)
            .take_while(|k| off.saturating_add(4 * k + 4) <= records)
            .count() as u64;
        ((base & 0xFFFF_FFFF_FFFF).wrapping_add(off), 4 * in_range)
    } else {
        (base.wrapping_add(off) & !3, 4 * dwords)
    };
    let Some(o) = env.observer.as_deref_mut() else {
        return;
    };
    if bytes == 0 {
        return;
    }
    let mut addrs = [0u64; LANES];
    addrs[0] = addr;
    o.access(&LaneAccesses {
        pc: w.pc,
        wave: w.index,
        first_lane: 0,
        segment: Segment::Global,
        access: Access::Read,
        size: bytes as u32,
        exec: 1,
        addrs: &addrs,
        scalar: true,
        sc1: false,
    });
}

/// Show the observer a MUBUF/MTBUF instruction's global accesses: each
/// active lane's bytes that pass the resource's range check (mubuf.rs),
/// all `size` bytes or none when `whole` (atomics, typed elements), else
/// the leading dwords that pass (the check is per dword and, its bound
/// growing with the dword, passes a prefix). Lanes with the same number
/// of bytes in range share one call.
#[cold]
#[inline(never)]
pub(crate) fn buffer(
    w: &Wave,
    env: &mut Env,
    b: &BufferLanes,
    size: u64,
    access: Access,
    whole: bool,
) {
    let exec = w.exec();
    let mut addrs = [0u64; LANES];
    let mut bytes = [0u64; LANES];
    let mut left = 0u32;
    for l in (0..LANES).filter(|l| exec >> l & 1 != 0) {
        addrs[l] = b
            .base
            .wrapping_add(b.index[l].wrapping_mul(b.res.stride))
            .wrapping_add(b.offset[l]);
        bytes[l] = if whole {
            if in_range(&b.res, b.index[l], b.offset[l], 0, size) {
                size
            } else {
                0
            }
        } else {
            (0..size.div_ceil(4))
                .map(|k| (4 * k, (size - 4 * k).min(4)))
                .take_while(|&(start, len)| in_range(&b.res, b.index[l], b.offset[l], start, len))
                .map(|(_, len)| len)
                .sum()
        };
        if bytes[l] != 0 {
            left |= 1 << l;
        }
    }
    per_lane(
        w,
        env,
        access.into(),
        &[Segment::Global; LANES],
        &addrs,
        &bytes,
        left,
    );
}

/// Show the observer the accesses of the lanes in `left`: lane `l`'s
/// `bytes[l]` bytes at `addrs[l]` in `segments[l]`. Lanes alike in segment
/// and size share one call, in the order of their first lanes.
pub(crate) fn per_lane(
    w: &Wave,
    env: &mut Env,
    how: Shown,
    segments: &[Segment; LANES],
    addrs: &[u64; LANES],
    bytes: &[u64; LANES],
    mut left: u32,
) {
    let Some(o) = env.observer.as_deref_mut() else {
        return;
    };
    let Shown { access, sc1 } = how;
    while left != 0 {
        let first = left.trailing_zeros() as usize;
        let (segment, n) = (segments[first], bytes[first]);
        let mask = (0..LANES)
            .filter(|&l| left >> l & 1 != 0 && bytes[l] == n && segments[l] == segment)
            .fold(0u32, |m, l| m | 1 << l);
        o.access(&LaneAccesses {
            pc: w.pc,
            wave: w.index,
            first_lane: 32 * w.half as u32,
            segment,
            access,
            size: n as u32,
            exec: mask,
            addrs,
            scalar: false,
            sc1,
        });
        left &= !mask;
    }
}

/// Show the observer the lanes' accesses of one segment at `addrs`, `size`
/// bytes each, for the active lanes.
pub(crate) fn lanes(
    w: &Wave,
    env: &mut Env,
    segment: Segment,
    access: Access,
    size: u32,
    addrs: &[u64; LANES],
) {
    let exec = w.exec();
    if exec == 0 {
        return;
    }
    if let Some(o) = env.observer.as_deref_mut() {
        o.access(&LaneAccesses {
            pc: w.pc,
            wave: w.index,
            first_lane: 32 * w.half as u32,
            segment,
            access,
            size,
            exec,
            addrs,
            scalar: false,
            sc1: false,
        });
    }
}

/// Show the observer a pre-resolved SCRATCH access (vmem/fast_scratch.rs)
/// of the instruction at `pc` (the pre-resolved forms do not set
/// `w.pc`): what [`flat`] shows for it, one private-segment call for the
/// active lanes, lane `l` at `v[l] + uniform` modulo 2^32 with `v` the
/// `vaddr` VGPR (0 without one), `size` bytes each.
#[inline(never)]
pub(crate) fn scratch(
    w: &Wave,
    env: &mut Env,
    pc: u64,
    vaddr: Option<u8>,
    uniform: u32,
    size: u32,
    access: Access,
) {
    let exec = w.exec();
    let Some(o) = env.observer.as_deref_mut() else {
        return;
    };
    if exec == 0 {
        return;
    }
    let mut addrs = [u64::from(uniform); LANES];
    if let Some(v) = vaddr {
        let v = &w.vgpr[v as usize];
        for l in 0..LANES {
            addrs[l] = u64::from(v[l].wrapping_add(uniform));
        }
    }
    o.access(&LaneAccesses {
        pc,
        wave: w.index,
        first_lane: 32 * w.half as u32,
        segment: Segment::Private,
        access,
        size,
        exec,
        addrs: &addrs,
        scalar: false,
        sc1: false,
    });
}
