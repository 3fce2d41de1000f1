//! MUBUF buffer instructions: loads, stores and atomics through a 128-bit
//! buffer resource (V#) in four SGPRs, with the gfx11 range checking.
//!
//! Fields come from the decoder (offset, glc, vaddr, vdata, srsrc/4,
//! soffset and its literal; see decode/buffer.rs) and, for tfe (bit 21), offen (bit 22) and
//! idxen (bit 23), from the encoding's second word. The V#: base
//! address = d0 | d1[15:0] << 32, stride = d1[29:16], swizzle_enable =
//! d1[31:30], num_records = d2, add_tid_enable = d3[23], oob_select = d3[29:28].
//!
//! Address = base + soffset + index * stride + offset, where index = vaddr
//! (idxen) + lane id (add_tid), offset = vaddr[+1 with idxen] (offen) + inst
//! offset. Range checking (RDNA3 ISA "Buffer range checking"; out of range:
//! loads return 0, stores are dropped), per dword for b64/b96/b128, all or
//! nothing for atomics:
//! - oob_select 0 (structured with offset): index >= num_records, or
//!   offset + bytes > stride;
//! - 1 (structured): index >= num_records;
//! - 2 (raw, checking off): only num_records == 0;
//! - 3 (raw): index * stride + offset + bytes > num_records (soffset is not
//!   part of the check).
//!
//! The `_format_` forms convert through the V#'s FORMAT field (mtbuf.rs).
//! Not modelled (typed IllegalInstruction errors naming the reason): swizzled
//! resources (swizzle_enable != 0), tfe, buffer_load_lds_format_x.

use crate::gfx11::exec::env::{Env, ExecResult, Flow, illegal, unmodelled};
use crate::gfx11::exec::observe;
use crate::gfx11::exec::vmem::atomics::buffer_lane_atomic;
use crate::gfx11::exec::vmem::mem::{MAX_SPAN, Resolved, gather, scatter};
use crate::gfx11::exec::vmem::mem_kind::{BufferForm, MemKind, buffer_form, mem_kind};
use crate::gfx11::exec::vmem::write_loaded;
use crate::gfx11::inst::Inst;
use crate::gfx11::opcodes::Op;
use crate::gfx11::wave::{LANES, Wave};
use crate::observer::{CacheControl, CacheOp, Segment};
use crate::{Access, WaveErrorKind};

/// The decoded buffer resource.
pub(crate) struct Resource {
    base: u64,
    pub(crate) stride: u64,
    num_records: u64,
    add_tid: bool,
    oob: u32,
    /// DST_SEL_X/Y/Z/W (d3[11:0]), which typed loads apply.
    pub(crate) dst_sel: u32,
    /// FORMAT (d3[18:12]): the unified format of MUBUF's `_format_` forms.
    pub(crate) format: u8,
}

/// Value of the soffset operand code (SGPR, null/M0, an inline integer, or
/// the instruction's literal for code 255).
fn soffset(w: &Wave, code: u32, literal: Option<u32>) -> Option<u64> {
    Some(match code {
        0..=127 => w.sgpr[code as usize] as u64,
        _ => soffset_constant(code, literal)? as u64,
    })
}

/// The value of a constant soffset code (128 and up): an inline integer or
/// the literal; None for codes soffset cannot name.
fn soffset_constant(code: u32, literal: Option<u32>) -> Option<u32> {
    Some(match code {
        128..=192 => code - 128,
        193..=208 => (192i64 - code as i64) as u32,
        255 => literal?,
        _ => return None,
    })
}

/// Is the range `[start, start + len)` of an access in range for the resource?
pub(crate) fn in_range(r: &Resource, index: u64, offset: u64, start: u64, len: u64) -> bool {
    let end = offset.saturating_add(start + len);
    match r.oob {
        0 => index < r.num_records && end <= r.stride,
        1 => index < r.num_records,
        2 => r.num_records != 0,
        _ => index.saturating_mul(r.stride).saturating_add(end) <= r.num_records,
    }
}

/// Per-lane addressing of a buffer instruction (MUBUF or MTBUF: the same
/// fields): the resource, index and offset per lane, and base + soffset.
pub(crate) struct BufferLanes {
    pub res: Resource,
    pub index: [u64; LANES],
    pub offset: [u64; LANES],
    pub base: u64,
}

/// The tfe (bit 21), offen (22) and idxen (23) bits of a buffer
/// instruction's second word.
fn word1_bits(i: &Inst) -> (bool, bool, bool) {
    let w1 = i.raw().get(1).copied().unwrap_or(0);
    let bit = |b: u32| (w1 >> b) & 1 != 0;
    (bit(21), bit(22), bit(23))
}

pub(crate) fn buffer_lanes(w: &Wave, i: &Inst) -> Result<BufferLanes, WaveErrorKind> {
    let (_, offen, idxen) = word1_bits(i);
    let vaddr = i.addr as usize;
    let srsrc = i.saddr as usize * 4;
    let soff = soffset(w, i.imm2, i.literal).ok_or_else(|| illegal(i))?;
    let d = |k: usize| w.sgpr.get(srsrc + k).copied().unwrap_or(0);
    let (d0, d1, d2, d3) = (d(0), d(1), d(2), d(3));
    if (d1 >> 30) & 3 != 0 {
        return Err(unmodelled(i, "swizzled buffer resource"));
    }
    let res = Resource {
        base: d0 as u64 | ((d1 & 0xFFFF) as u64) << 32,
        stride: ((d1 >> 16) & 0x3FFF) as u64,
        num_records: d2 as u64,
        add_tid: (d3 >> 23) & 1 != 0,
        oob: (d3 >> 28) & 3,
        dst_sel: d3 & 0xFFF,
        format: ((d3 >> 12) & 0x7F) as u8,
    };
    let mut index = [0u64; LANES];
    let mut offset = [i.imm as u64; LANES];
    for l in 0..LANES {
        if idxen {
            index[l] = w.vgpr[vaddr & 255][l] as u64;
        }
        if res.add_tid {
            index[l] += (l + LANES * w.half) as u64;
        }
        if offen {
            offset[l] += w.vgpr[(vaddr + idxen as usize) & 255][l] as u64;
        }
    }
    Ok(BufferLanes {
        base: res.base.wrapping_add(soff),
        res,
        index,
        offset,
    })
}

pub(crate) fn mubuf(w: &mut Wave, env: &mut Env, i: &Inst) -> ExecResult {
    // Cache controls (gfx11's and GFX9's): every agent's view is coherent here.
    if matches!(
        i.op,
        Op::BufferGl0Inv
            | Op::BufferGl1Inv
            | Op::BufferWbinvl1
            | Op::BufferWbinvl1Vol
            | Op::BufferWbl2
            | Op::BufferInv
    ) {
        // A wave64 runs this once per 32-lane half: the observer hears of
        // it once per wave.
        if matches!(i.op, Op::BufferWbl2 | Op::BufferInv)
            && w.half == 0
            && let Some(o) = env.observer.as_deref_mut()
        {
            o.cache_control(&CacheControl {
                wave: w.index,
                op: if i.op == Op::BufferWbl2 {
                    CacheOp::WritebackL2
                } else {
                    CacheOp::Invalidate
                },
                sc0: i.flags & Inst::GLC != 0,
                sc1: i.flags & Inst::SC1 != 0,
            });
        }
        return Ok(Flow::Next);
    }
    if i.flags & Inst::GFX9_BUFFER != 0 {
        return super::gfx9_buffer::mubuf(w, env, i);
    }
    // The decoder's fields (see decode/buffer.rs); tfe from word 1.
    let glc = i.flags & Inst::GLC != 0;
    let vdata = i.data[0] as usize;
    if word1_bits(i).0 {
        return Err(unmodelled(i, "tfe"));
    }
    match buffer_form(i.op) {
        BufferForm::LoadLds => return load_to_lds(w, env, i),
        BufferForm::Typed => {
            let format = buffer_lanes(w, i)?.res.format;
            return super::mtbuf::typed(w, env, i, format);
        }
        BufferForm::Raw => {}
    }
    let kind = mem_kind(i.op);
    let (size, access, whole) = match kind {
        MemKind::Load(size, ..) => (size as u64, Access::Read, false),
        MemKind::Store(size, _) => (size as u64, Access::Write, false),
        MemKind::Atomic(_, wide, _) => (if wide { 8 } else { 4 }, Access::Atomic, true),
        MemKind::Other => return Err(illegal(i)),
    };
    let lanes = buffer_lanes(w, i)?;
    if env.observer.is_some() {
        observe::buffer(w, env, &lanes, size, access, whole);
    }
    let BufferLanes {
        res,
        index,
        offset,
        base,
    } = lanes;
    let exec = w.exec();
    let addr = |l: usize| {
        base.wrapping_add(index[l].wrapping_mul(res.stride))
            .wrapping_add(offset[l])
    };
    if env.observer.is_none() && spanned(w, env, i, &res, &index, &offset, base, kind) {
        return Ok(Flow::Next);
    }
    let access = |a: u64, len: u64, acc: Access| {
        env.mem
            .translate(a, len, acc)
            .map_err(WaveErrorKind::MemoryViolation)
    };
    match kind {
        MemKind::Load(size, signed, d16) => {
            let mut rows = [[0u32; LANES]; 4];
            for l in 0..LANES {
                if exec >> l & 1 == 0 {
                    continue;
                }
                for k in 0..size.div_ceil(4) {
                    let len = (size - 4 * k).min(4) as u64;
                    if !in_range(&res, index[l], offset[l], 4 * k as u64, len) {
                        continue;
                    }
                    let p = access(addr(l) + 4 * k as u64, len, Access::Read)?;
                    let mut b = [0u8; 4];
                    // SAFETY: translate returned a pointer valid for `len` (<= 4) bytes.
                    unsafe { std::ptr::copy_nonoverlapping(p, b.as_mut_ptr(), len as usize) };
                    rows[k][l] = u32::from_le_bytes(b);
                }
            }
            let mut j = i.clone();
            j.dst = vdata as u16;
            write_loaded(w, &j, exec, &rows, size, signed, d16);
        }
        MemKind::Store(size, hi) => {
            for l in 0..LANES {
                if exec >> l & 1 == 0 {
                    continue;
                }
                for k in 0..size.div_ceil(4) {
                    let len = (size - 4 * k).min(4) as u64;
                    if !in_range(&res, index[l], offset[l], 4 * k as u64, len) {
                        continue;
                    }
                    let v = w.vgpr[(vdata + k) & 255][l];
                    let b = if hi { v >> 16 } else { v }.to_le_bytes();
                    let p = access(addr(l) + 4 * k as u64, len, Access::Write)?;
                    // SAFETY: translate returned a pointer valid for `len` (<= 4) bytes.
                    unsafe { std::ptr::copy_nonoverlapping(b.as_ptr(), p, len as usize) };
                }
            }
        }
        MemKind::Atomic(rmw, wide, _) => {
            let size = if wide { 8u64 } else { 4 };
            let dw = size as usize / 4;
            let mut old = [[0u32; LANES]; 2];
            for l in 0..LANES {
                if exec >> l & 1 == 0 || !in_range(&res, index[l], offset[l], 0, size) {
                    continue;
                }
                let row = |k: usize| u64::from(w.vgpr[(vdata + k) & 255][l]);
                let o = buffer_lane_atomic(row, rmw, wide, addr(l), access)?;
                old[0][l] = o as u32;
                old[1][l] = (o >> 32) as u32;
            }
            // GLC returns the pre-op value in vdata (out-of-range lanes read 0).
            if glc {
                for k in 0..dw {
                    w.write_vgpr(vdata + k, &old[k], exec);
                }
            }
        }
        MemKind::Other => return Err(illegal(i)),
    }
    Ok(Flow::Next)
}

/// A raw load or store (`kind`; false for any other) whose active lanes are each
/// wholly in range or wholly out of range, and whose in-range lanes lie in
/// one span of at most `MAX_SPAN` bytes that translates: the span translated
/// once (through the workgroup's span cache, as FLAT's scattered accesses
/// are, vmem/mem.rs), then the lanes in order, out-of-range lanes loading 0
/// and storing nothing; true when done. Anything else (a lane in range for
/// only some of its dwords, a wide span, a span that does not translate)
/// declines before any side effect, and the lane-by-lane path runs it and
/// reports any fault itself.
#[allow(clippy::too_many_arguments)]
fn spanned(
    w: &mut Wave,
    env: &Env,
    i: &Inst,
    res: &Resource,
    index: &[u64; LANES],
    offset: &[u64; LANES],
    base: u64,
    kind: MemKind,
) -> bool {
    let (MemKind::Load(size, ..) | MemKind::Store(size, _)) = kind else {
        return false;
    };
    let exec = w.exec();
    let bytes = size as u64;
    let mut addrs = [0u64; LANES];
    let mut mask = 0u32;
    let (mut lo, mut hi) = (u64::MAX, 0u64);
    for l in 0..LANES {
        if exec >> l & 1 == 0 {
            continue;
        }
        // Each check's end grows with the dword and the rest is the
        // lane's (`in_range`): the lane's last dword is in range only if
        // all are, its first out of range only if none is.
        if !in_range(res, index[l], offset[l], 0, bytes) {
            if in_range(res, index[l], offset[l], 0, bytes.min(4)) {
                return false;
            }
            continue;
        }
        let a = base
            .wrapping_add(index[l].wrapping_mul(res.stride))
            .wrapping_add(offset[l]);
        let Some(end) = a.checked_add(bytes) else {
            return false;
        };
        addrs[l] = a;
        mask |= 1 << l;
        lo = lo.min(a);
        hi = hi.max(end);
    }
    let store = matches!(kind, MemKind::Store(..));
    let resolved = if mask == 0 {
        Resolved::Span(std::ptr::null_mut(), 0)
    } else {
        if hi - lo > MAX_SPAN {
            return false;
        }
        let access = if store { Access::Write } else { Access::Read };
        match env.translate(lo, hi - lo, access) {
            Ok(p) => Resolved::Span(p, lo),
            Err(_) => return false,
        }
    };
    let vdata = i.data[0] as usize;
    match kind {
        MemKind::Load(size, signed, d16) => {
            let rows = gather(&resolved, &addrs, mask, size);
            let mut j = i.clone();
            j.dst = vdata as u16;
            write_loaded(w, &j, exec, &rows, size, signed, d16);
        }
        MemKind::Store(size, hi) => {
            let mut rows = [[0u32; LANES]; 4];
            for (k, row) in rows.iter_mut().enumerate().take(size.div_ceil(4)) {
                let v = &w.vgpr[(vdata + k) & 255];
                for l in 0..LANES {
                    row[l] = if hi { v[l] >> 16 } else { v[l] };
                }
            }
            scatter(&resolved, &addrs, mask, size, &rows);
        }
        _ => unreachable!("spanned runs loads and stores"),
    }
    true
}

/// `buffer_load_lds_{u8,i8,u16,i16,b32}`: each active lane's element,
/// zero- or sign-extended to a dword, goes to LDS instead of a VGPR, at
/// M0[15:0] + the instruction offset + 4 * lane id (RDNA3 ISA guide, MUBUF
/// "load to LDS"; the formula is the guide's, unconfirmed on hardware here).
/// Out-of-range elements write 0; LDS past the allocation drops the write.
fn load_to_lds(w: &mut Wave, env: &mut Env, i: &Inst) -> ExecResult {
    let (size, signed): (u64, bool) = match i.op {
        Op::BufferLoadLdsU8 => (1, false),
        Op::BufferLoadLdsI8 => (1, true),
        Op::BufferLoadLdsU16 => (2, false),
        Op::BufferLoadLdsI16 => (2, true),
        Op::BufferLoadLdsB32 => (4, false),
        _ => return Err(unmodelled(i, "load to LDS with a format conversion")),
    };
    let lanes = buffer_lanes(w, i)?;
    let lds_base = u64::from(w.sgpr[crate::gfx11::wave::M0] & 0xFFFF) + u64::from(i.imm as u32);
    if env.observer.is_some() {
        observe::buffer(w, env, &lanes, size, Access::Read, true);
        let to = std::array::from_fn(|l| lds_base + 4 * (l + LANES * w.half) as u64);
        observe::lanes(w, env, Segment::Lds, Access::Write, 4, &to);
    }
    let BufferLanes {
        res,
        index,
        offset,
        base,
    } = lanes;
    let exec = w.exec();
    for l in 0..LANES {
        if exec >> l & 1 == 0 {
            continue;
        }
        let mut b = [0u8; 4];
        if in_range(&res, index[l], offset[l], 0, size) {
            let a = base
                .wrapping_add(index[l].wrapping_mul(res.stride))
                .wrapping_add(offset[l]);
            let p = env
                .mem
                .translate(a, size, Access::Read)
                .map_err(WaveErrorKind::MemoryViolation)?;
            // SAFETY: translate returned a pointer valid for `size` (<= 4) bytes.
            unsafe { std::ptr::copy_nonoverlapping(p, b.as_mut_ptr(), size as usize) };
        }
        let raw = u32::from_le_bytes(b);
        let v = match (size, signed) {
            (1, true) => raw as u8 as i8 as i32 as u32,
            (2, true) => raw as u16 as i16 as i32 as u32,
            _ => raw,
        };
        let at = lds_base + 4 * (l + LANES * w.half) as u64;
        crate::gfx11::exec::lds::lds_put::<4>(env.lds, at, v.to_le_bytes());
    }
    Ok(Flow::Next)
}

/// The scalar offset of a [`RawBuffer`]: an SGPR or a constant (an inline
/// integer or the instruction's literal), as [`soffset`] reads it.
#[cfg(feature = "llvm-jit")]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum SOffset {
    Sgpr(u8),
    Const(u32),
}

/// A gfx11 MUBUF load or store of raw bytes without an index (no idxen,
/// no tfe) in the fields [`mubuf`] reads: what a translation can run as a
/// GLOBAL access from one 64-bit base when the resource, read at run time,
/// has no swizzle and no add_tid and every active lane is in range
/// (jit/llvm/buffer.rs). The access itself (size, data or destination
/// VGPR, sign extension and d16 placement) is `access`, its address VGPR
/// (offen) `access.addr`, unused without offen.
#[cfg(feature = "llvm-jit")]
#[derive(Clone, Copy, Debug)]
pub(crate) struct RawBuffer {
    pub access: super::Coalesced,
    pub offen: bool,
    /// The first SGPR of the resource (four in a row).
    pub srsrc: u8,
    pub soffset: SOffset,
    /// The instruction's offset, as [`buffer_lanes`] widens it.
    pub imm: u64,
}

#[cfg(feature = "llvm-jit")]
impl RawBuffer {
    /// The form of `i`, or None where [`mubuf`] takes another path
    /// (cache controls, GFX9's buffers, tfe, idxen, typed, to LDS,
    /// atomics) or would refuse the soffset.
    pub(crate) fn of_inst(i: &Inst) -> Option<RawBuffer> {
        if i.family != crate::gfx11::inst::Family::Mubuf || i.flags & Inst::GFX9_BUFFER != 0 {
            return None;
        }
        let (tfe, offen, idxen) = word1_bits(i);
        if tfe || idxen || buffer_form(i.op) != BufferForm::Raw {
            return None;
        }
        let (size, write, signed, d16, hi) = match mem_kind(i.op) {
            MemKind::Load(size, signed, d16) => (size, false, signed, d16, false),
            MemKind::Store(size, hi) => (size, true, false, 0, hi),
            _ => return None,
        };
        let soffset = match i.imm2 {
            code @ 0..=127 => SOffset::Sgpr(code as u8),
            code => SOffset::Const(soffset_constant(code, i.literal)?),
        };
        Some(RawBuffer {
            access: super::Coalesced {
                flat: false,
                write,
                size: size as u8,
                signed,
                d16,
                hi,
                reg: i.data[0],
                addr: i.addr,
                saddr: crate::gfx11::wave::NULL as u8,
                off: 0,
            },
            offen,
            srsrc: (i.saddr as usize * 4) as u8,
            soffset,
            imm: i.imm as u64,
        })
    }
}
