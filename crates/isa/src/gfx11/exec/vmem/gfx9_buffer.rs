//! GFX9 (gfx90a, gfx942) MUBUF loads, stores and atomics: the GFX9 buffer
//! resource (V#), its addressing with swizzling, and its range checks.
//! gfx90a reaches private memory this way (LLVM addresses scratch through
//! the queue's scratch V# and each wave's private segment offset in
//! soffset), so this is the path every gfx90a spill and private array takes.
//!
//! The V# (Mesa `src/amd/common/sid.h` SQ_BUF_RSRC_WORD0..3 for GFX6-9;
//! ROCR-Runtime `amd_aql_queue.cpp` `FillBufRsrcWord3` for gfx9): base =
//! d0 | d1[15:0] << 32, STRIDE d1[29:16], SWIZZLE_ENABLE d1[31],
//! NUM_RECORDS d2; DST_SEL d3[11:0], NUM_FORMAT d3[14:12], DATA_FORMAT
//! d3[18:15], ELEMENT_SIZE d3[20:19] (2, 4, 8, 16 bytes), INDEX_STRIDE
//! d3[22:21] (8, 16, 32, 64), ADD_TID_ENABLE d3[23]. No OOB_SELECT: the
//! range check follows from the buffer's kind.
//!
//! Addressing (AMD CDNA3 ISA guide, "Buffer Instructions", addressing):
//! index = vaddr (idxen) + lane id (ADD_TID_ENABLE); offset = vaddr[+1
//! with idxen] (offen) + the instruction offset. Swizzled, the buffer
//! offset is (index / INDEX_STRIDE * STRIDE + offset / ELEMENT_SIZE *
//! ELEMENT_SIZE) * INDEX_STRIDE + index % INDEX_STRIDE * ELEMENT_SIZE +
//! offset % ELEMENT_SIZE; else index * STRIDE + offset. The address is
//! base + soffset + that, computed per dword of a multi-dword access.
//!
//! Range checking (same guide, "Range Checking"; out of range: loads read
//! 0, stores and atomics are dropped; dwordx2..x4 per dword, atomics all
//! or nothing):
//! - private (scratch) buffer, ADD_TID_ENABLE and no idxen: none;
//! - raw buffer, no ADD_TID_ENABLE, no swizzle, no idxen: offset >=
//!   NUM_RECORDS (soffset is not part of it);
//! - structured buffer, no ADD_TID_ENABLE, STRIDE != 0, idxen: index >=
//!   NUM_RECORDS.
//!
//! Loads into LDS (the lds bit) read as loads do and write each lane's
//! dword to LDS instead of a VGPR (vmem/lds_dma.rs); the `_format_` forms
//! convert through the V#'s formats (vmem/gfx9_typed.rs). A resource and
//! instruction the guide gives no rule for are refused as unmodelled.
//!
//! An observed dispatch (observer.rs) sees each active lane's bytes that
//! pass the range check ([`observe`]): those of a private resource as the
//! lane's private segment offsets, the rest as global addresses.

use crate::gfx11::exec::env::{Env, ExecResult, Flow, illegal, sread, unmodelled};
use crate::gfx11::exec::observe;
use crate::gfx11::exec::vmem::atomics::buffer_lane_atomic;
use crate::gfx11::exec::vmem::lds_dma::{lds_address, lds_write};
use crate::gfx11::exec::vmem::mem_kind::{BufferForm, MemKind, buffer_form, mem_kind};
use crate::gfx11::exec::vmem::private_layout::row_lanes;
use crate::gfx11::exec::vmem::{slot_start, write_loaded};
use crate::gfx11::inst::Inst;
use crate::gfx11::wave::{LANES, Wave};
use crate::observer::Segment;
use crate::{Access, WaveErrorKind};

/// [`Inst::flags`]: the decoder's lds bit (gfx9/decode/flat.rs `LDS`).
const LDS: u8 = 64;

/// The decoded GFX9 buffer resource.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Resource {
    pub base: u64,
    pub stride: u64,
    pub swizzle: bool,
    pub num_records: u64,
    pub element_size: u64,
    pub index_stride: u64,
    pub add_tid: bool,
}

impl Resource {
    /// The fields of the four descriptor dwords.
    pub(crate) fn decode(d: [u32; 4]) -> Resource {
        Resource {
            base: u64::from(d[0]) | u64::from(d[1] & 0xFFFF) << 32,
            stride: u64::from((d[1] >> 16) & 0x3FFF),
            swizzle: d[1] >> 31 != 0,
            num_records: u64::from(d[2]),
            element_size: 2 << ((d[3] >> 19) & 3),
            index_stride: 8 << ((d[3] >> 21) & 3),
            add_tid: (d[3] >> 23) & 1 != 0,
        }
    }

    /// The buffer offset of byte `offset` of element `index`.
    pub(crate) fn buffer_offset(&self, index: u64, offset: u64) -> u64 {
        if self.swizzle {
            let (es, is) = (self.element_size, self.index_stride);
            ((index / is) * self.stride + (offset / es) * es) * is + (index % is) * es + offset % es
        } else {
            index * self.stride + offset
        }
    }
}

/// Which range check applies (see the module comment).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    Private,
    Raw,
    Structured,
}

/// The buffer kind of `res` under an instruction with `idxen`, or None when
/// the guide names none.
pub(crate) fn kind(res: &Resource, idxen: bool) -> Option<Kind> {
    match (res.add_tid, idxen) {
        (true, false) => Some(Kind::Private),
        (false, false) if !res.swizzle => Some(Kind::Raw),
        (false, true) if res.stride != 0 => Some(Kind::Structured),
        _ => None,
    }
}

/// Is the access at `offset` (the dword's own offset) of element `index` in range?
fn in_range(kind: Kind, res: &Resource, index: u64, offset: u64) -> bool {
    match kind {
        Kind::Private => true,
        Kind::Raw => offset < res.num_records,
        Kind::Structured => index < res.num_records,
    }
}

/// Each lane's index (vaddr with idxen, + the lane id with ADD_TID_ENABLE)
/// and offset (the next vaddr with offen, + the instruction offset) of a
/// MUBUF or MTBUF instruction (the same fields) through `res`.
pub(crate) fn lane_fields(w: &Wave, i: &Inst, res: &Resource) -> ([u64; LANES], [u64; LANES]) {
    let w0 = i.words[0];
    let (offen, idxen) = ((w0 >> 12) & 1 != 0, (w0 >> 13) & 1 != 0);
    let vaddr = i.addr as usize;
    let mut index = [0u64; LANES];
    let mut offset = [i.imm as u64; LANES];
    for l in 0..LANES {
        if idxen {
            index[l] = u64::from(w.vgpr[vaddr & 255][l]);
        }
        if res.add_tid {
            index[l] += (l + LANES * w.half) as u64;
        }
        if offen {
            offset[l] += u64::from(w.vgpr[(vaddr + idxen as usize) & 255][l]);
        }
    }
    (index, offset)
}

/// A GFX9 MUBUF load, store or atomic over the current 32 lanes.
pub(crate) fn mubuf(w: &mut Wave, env: &mut Env, i: &Inst) -> ExecResult {
    let idxen = (i.words[0] >> 13) & 1 != 0;
    if buffer_form(i.op) == BufferForm::Typed {
        return super::gfx9_typed::typed(w, env, i);
    }
    let to_lds = i.flags & LDS != 0;
    let srsrc = i.imm2 as usize * 4;
    let d = std::array::from_fn(|k| w.sgpr.get(srsrc + k).copied().unwrap_or(0));
    let res = Resource::decode(d);
    let Some(kind) = kind(&res, idxen) else {
        return Err(unmodelled(i, "buffer kind without a range rule"));
    };
    let soffset = u64::from(sread(w, env, i, 0)?);
    let vdata = i.data[0] as usize;
    let exec = w.exec();
    let (index, offset) = lane_fields(w, i, &res);
    let base = res.base.wrapping_add(soffset);
    if env.observer.is_some() {
        let lanes = Lanes {
            kind,
            res,
            base,
            index,
            offset,
        };
        observe(w, env, &lanes, mem_kind(i.op), i.flags & Inst::SC1 != 0);
        if to_lds {
            let to = std::array::from_fn(|l| lds_address(w, i, l));
            observe::lanes(w, env, Segment::Lds, Access::Write, 4, &to);
        }
    }
    let addr = |l: usize, k: u64| base.wrapping_add(res.buffer_offset(index[l], offset[l] + k));
    let access = |a: u64, len: u64, acc: Access| {
        env.mem
            .translate(a, len, acc)
            .map_err(WaveErrorKind::MemoryViolation)
    };
    match mem_kind(i.op) {
        MemKind::Load(size, signed, d16) => {
            let mut rows = [[0u32; LANES]; 4];
            for l in (0..LANES).filter(|l| exec >> l & 1 != 0) {
                for k in 0..size.div_ceil(4) {
                    let at = 4 * k as u64;
                    if !in_range(kind, &res, index[l], offset[l] + at) {
                        continue;
                    }
                    let len = (size - 4 * k).min(4);
                    let p = access(addr(l, at), len as u64, Access::Read)?;
                    let mut b = [0u8; 4];
                    // SAFETY: translate returned a pointer valid for `len` (<= 4) bytes.
                    unsafe { std::ptr::copy_nonoverlapping(p, b.as_mut_ptr(), len) };
                    rows[k][l] = u32::from_le_bytes(b);
                }
            }
            if to_lds {
                lds_write(w, env, i, exec, &rows[0], size, signed);
                return Ok(Flow::Next);
            }
            let mut j = i.clone();
            j.dst = vdata as u16;
            write_loaded(w, &j, exec, &rows, size, signed, d16);
        }
        MemKind::Store(size, hi) => {
            for l in (0..LANES).filter(|l| exec >> l & 1 != 0) {
                for k in 0..size.div_ceil(4) {
                    let at = 4 * k as u64;
                    if !in_range(kind, &res, index[l], offset[l] + at) {
                        continue;
                    }
                    let len = (size - 4 * k).min(4);
                    let v = w.vgpr[(vdata + k) & 255][l];
                    let b = if hi { v >> 16 } else { v }.to_le_bytes();
                    let p = access(addr(l, at), len as u64, Access::Write)?;
                    // SAFETY: translate returned a pointer valid for `len` (<= 4) bytes.
                    unsafe { std::ptr::copy_nonoverlapping(b.as_ptr(), p, len) };
                }
            }
        }
        MemKind::Atomic(rmw, wide, _) => {
            let size = if wide { 8u64 } else { 4 };
            let mut old = [[0u32; LANES]; 2];
            for l in (0..LANES).filter(|l| exec >> l & 1 != 0) {
                if !in_range(kind, &res, index[l], offset[l]) {
                    continue;
                }
                let row = |k: usize| u64::from(w.vgpr[(vdata + k) & 255][l]);
                let o = buffer_lane_atomic(row, rmw, wide, addr(l, 0), access)?;
                old[0][l] = o as u32;
                old[1][l] = (o >> 32) as u32;
            }
            // GLC returns the pre-op value in vdata (out-of-range lanes read 0).
            if i.flags & Inst::GLC != 0 {
                for (k, row) in old.iter().enumerate().take(size as usize / 4) {
                    w.write_vgpr(vdata + k, row, exec);
                }
            }
        }
        MemKind::Other => return Err(illegal(i)),
    }
    Ok(Flow::Next)
}

/// One instruction's addressing: its buffer kind and resource, base +
/// soffset, and each lane's index and offset.
struct Lanes {
    kind: Kind,
    res: Resource,
    base: u64,
    index: [u64; LANES],
    offset: [u64; LANES],
}

impl Lanes {
    /// The address of byte `at` of lane `l`'s access.
    fn addr(&self, l: usize, at: u64) -> u64 {
        self.base
            .wrapping_add(self.res.buffer_offset(self.index[l], self.offset[l] + at))
    }
}

/// Where lane `l` (of the current 32) of `w` accesses the scratch address
/// `va`: the byte offset in its private segment when `va` is one of its own
/// bytes in the wave's slot layout (private_layout.rs: rows of the wave's
/// lanes' dwords), which is how LLVM addresses private memory through the
/// scratch V#; None when it is another lane's byte. Rows before the slot
/// give offsets that wrap below 0.
fn private_offset(env: &Env, w: &Wave, l: usize, va: u64) -> Option<u64> {
    let half_start = env
        .scratch_va
        .wrapping_add(slot_start(env, w.scratch_slot()) as u64);
    let rel = va.wrapping_sub(half_start) as i64;
    let row = 4 * row_lanes(env.scratch_wave64) as i64;
    let column = rel.rem_euclid(row);
    (column / 4 == l as i64).then(|| (rel.div_euclid(row) * 4 + column % 4) as u64)
}

/// Show the observer a GFX9 MUBUF access of kind `kind` (observer.rs): each
/// active lane's dwords that pass the range check (a prefix: the check is
/// per dword and its bound grows with the dword; atomics all or nothing).
/// A lane whose dwords lie one after the other in one segment shows them
/// as one access, as the gfx11 path does; an instruction with a lane whose
/// dwords do not (a swizzled resource with elements smaller than the
/// access) shows one access per dword.
#[cold]
#[inline(never)]
fn observe(w: &Wave, env: &mut Env, b: &Lanes, kind: MemKind, sc1: bool) {
    let (size, access, whole) = match kind {
        MemKind::Load(size, ..) => (size as u64, Access::Read, false),
        MemKind::Store(size, _) => (size as u64, Access::Write, false),
        MemKind::Atomic(_, wide, _) => (if wide { 8 } else { 4 }, Access::Atomic, true),
        MemKind::Other => return,
    };
    let dwords = size.div_ceil(4) as usize;
    let exec = w.exec();
    // Per lane and dword: its segment and address there (None: out of range).
    let mut at = [[None; 4]; LANES];
    for l in (0..LANES).filter(|l| exec >> l & 1 != 0) {
        if whole && !in_range(b.kind, &b.res, b.index[l], b.offset[l]) {
            continue;
        }
        for (k, slot) in at[l].iter_mut().enumerate().take(dwords) {
            let start = 4 * k as u64;
            if !whole && !in_range(b.kind, &b.res, b.index[l], b.offset[l] + start) {
                break;
            }
            let va = b.addr(l, start);
            *slot = Some(match b.kind {
                Kind::Private => private_offset(env, w, l, va)
                    .map_or((Segment::Global, va), |o| (Segment::Private, o)),
                Kind::Raw | Kind::Structured => (Segment::Global, va),
            });
        }
    }
    let len = |k: usize| (size - 4 * k as u64).min(4);
    let contiguous = at.iter().all(|dw| {
        dw.iter()
            .enumerate()
            .skip(1)
            .all(|(k, d)| match (d, dw[0]) {
                (Some((seg, a)), Some((seg0, a0))) => {
                    *seg == seg0 && *a == a0.wrapping_add(4 * k as u64)
                }
                _ => true,
            })
    });
    let mut segments = [Segment::Global; LANES];
    let mut addrs = [0u64; LANES];
    let mut bytes = [0u64; LANES];
    let passes = if contiguous { 1 } else { dwords };
    for pass in 0..passes {
        let mut left = 0u32;
        for (l, dw) in at.iter().enumerate() {
            let (n, first) = if contiguous {
                let n = (0..dwords).take_while(|&k| dw[k].is_some()).map(len).sum();
                (n, dw[0])
            } else {
                (len(pass), dw[pass])
            };
            if let Some((seg, a)) = first {
                (segments[l], addrs[l], bytes[l]) = (seg, a, n);
                left |= 1 << l;
            }
        }
        let how = observe::Shown { access, sc1 };
        observe::per_lane(w, env, how, &segments, &addrs, &bytes, left);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The scratch V# ROCr writes for gfx9 (`FillBufRsrcWord1`/`3`):
    /// swizzled, element size 4, index stride 64, ADD_TID_ENABLE; a lane's
    /// dword k lies at k * 256 + lane * 4, bytes inside it in order.
    #[test]
    fn the_scratch_resource_interleaves_lanes_a_dword_at_a_time() {
        let word3 = 4 | 5 << 3 | 6 << 6 | 7 << 9 | 4 << 12 | 4 << 15 | 1 << 19 | 3 << 21 | 1 << 23;
        let r = Resource::decode([0x1000, 0x12 | 1 << 31, 1 << 20, word3]);
        assert_eq!(r.base, 0x12_0000_1000);
        assert_eq!((r.element_size, r.index_stride, r.stride), (4, 64, 0));
        assert!(r.swizzle && r.add_tid);
        assert_eq!(kind(&r, false), Some(Kind::Private));
        assert_eq!(kind(&r, true), None);
        assert_eq!(r.buffer_offset(0, 0), 0);
        assert_eq!(r.buffer_offset(5, 0), 20);
        assert_eq!(r.buffer_offset(5, 3), 23);
        assert_eq!(r.buffer_offset(63, 8), 2 * 256 + 63 * 4);
        // Index stride 8, element size 16, stride 32: the index's high part
        // steps by STRIDE * INDEX_STRIDE.
        let r = Resource::decode([0, 32 << 16 | 1 << 31, 0, 3 << 19]);
        assert_eq!((r.element_size, r.index_stride), (16, 8));
        assert_eq!(r.buffer_offset(9, 20), (32 + 16) * 8 + 16 + 4);
    }

    /// Raw and structured buffers by the bits the guide names.
    #[test]
    fn buffer_kinds_and_their_checks() {
        let raw = Resource::decode([0, 0, 100, 0]);
        assert_eq!(kind(&raw, false), Some(Kind::Raw));
        assert!(in_range(Kind::Raw, &raw, 0, 99));
        assert!(!in_range(Kind::Raw, &raw, 0, 100));
        assert_eq!(kind(&raw, true), None, "idxen with stride 0");
        let structured = Resource::decode([0, 16 << 16, 10, 0]);
        assert_eq!(kind(&structured, true), Some(Kind::Structured));
        assert!(in_range(Kind::Structured, &structured, 9, 1000));
        assert!(!in_range(Kind::Structured, &structured, 10, 0));
        let swizzled = Resource::decode([0, 1 << 31, 10, 0]);
        assert_eq!(kind(&swizzled, false), None);
    }
}
