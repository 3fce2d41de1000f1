//! Memory instructions outside LDS: SMEM scalar loads, and FLAT / GLOBAL /
//! SCRATCH vector loads, stores and atomics. Flat addresses inside the
//! shared aperture go to LDS, inside the private aperture to the lane's
//! scratch; everything else through `GpuMemory::translate`.

use super::atomics::{Rmw, apply32, apply64, atomic32, atomic64};
use super::mem::{gather, read_bytes, resolve, scatter, write_bytes};
use super::mem_kind::{MemKind, mem_kind};
use super::{Env, ExecResult, Flow, illegal};
use crate::isa::inst::{Family, Inst};
use crate::isa::opcodes::Op;
use crate::isa::wave::{LANES, NULL, Wave};
use crate::isa::{Access, MemoryFault, WaveErrorKind};

fn fault(address: u64, access: Access) -> WaveErrorKind {
    WaveErrorKind::MemoryViolation(MemoryFault { address, access })
}

pub(super) fn smem(w: &mut Wave, env: &Env, i: &Inst) -> ExecResult {
    use Op::*;
    let dwords = match i.op {
        SLoadB32 | SBufferLoadB32 => 1,
        SLoadB64 | SBufferLoadB64 => 2,
        SLoadB128 | SBufferLoadB128 => 4,
        SLoadB256 | SBufferLoadB256 => 8,
        SLoadB512 | SBufferLoadB512 => 16,
        SDcacheInv | SGl1Inv => return Ok(Flow::Next),
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

/// Where a lane's flat access goes.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Seg {
    Global,
    Lds,
    Private,
}

pub(super) fn flat(w: &mut Wave, env: &mut Env, i: &Inst) -> ExecResult {
    let exec = w.exec();
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
    // GLOBAL and SCRATCH lanes all go to one segment; only FLAT lanes need the scan.
    let (all_global, all_private) = match i.family {
        Family::Global => (true, false),
        Family::Scratch => (false, true),
        _ => (
            seg.iter().all(|s| *s == Seg::Global),
            seg.iter().all(|s| *s == Seg::Private),
        ),
    };

    let kind = mem_kind(i.op);
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
    if i.flags & Inst::GLC != 0 {
        if wide {
            w.write_vgpr64(i.dst as usize, &old, exec);
        } else {
            let lo: [u32; LANES] = old.map(|v| v as u32);
            w.write_vgpr(i.dst as usize, &lo, exec);
        }
    }
    Ok(Flow::Next)
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

pub(super) fn write_loaded(
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
        let raw = rows[0][l];
        let val = match (size, signed) {
            (1, true) => raw as u8 as i8 as i32 as u32,
            (2, true) => raw as u16 as i16 as i32 as u32,
            (1, false) => raw & 0xFF,
            _ => raw & 0xFFFF,
        };
        row[l] = match d16 {
            1 => (cur[l] & 0xFFFF_0000) | (val & 0xFFFF),
            2 => (cur[l] & 0xFFFF) | (val << 16),
            _ => val,
        };
    }
    w.write_vgpr(dst, &row, exec);
}

/// Offset in the workgroup's scratch of a lane's `size`-byte private access at
/// `addr`; out of the lane's slot, a fault at the private-aperture address
/// (as [`lane_access`]).
#[inline(always)]
fn private_offset(
    env: &Env,
    slot: u32,
    lane: usize,
    addr: u64,
    size: usize,
    access: Access,
) -> Result<usize, WaveErrorKind> {
    let per = env.scratch_per_lane;
    let a = addr as usize;
    if a.checked_add(size).is_none_or(|e| e > per) {
        return Err(fault(env.private_base | addr, access));
    }
    Ok((slot as usize * LANES + lane) * per + a)
}

/// Every active lane's private load (all lanes in the private segment: SCRATCH
/// and flat scratch) as dword rows, like `gather`: lanes in order, the first
/// out-of-range lane faults; fixed-size moves, no per-lane byte buffer.
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
        let at = private_offset(env, slot, l, addrs[l], size, Access::Read)?;
        let bytes = &env.scratch[at..at + size];
        match size {
            1 => rows[0][l] = bytes[0] as u32,
            2 => rows[0][l] = u16::from_le_bytes([bytes[0], bytes[1]]) as u32,
            _ => {
                for (k, dword) in bytes.chunks_exact(4).enumerate().take(4) {
                    rows[k][l] = u32::from_le_bytes([dword[0], dword[1], dword[2], dword[3]]);
                }
            }
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
        let at = private_offset(env, slot, l, addrs[l], size, Access::Write)?;
        let bytes = &mut env.scratch[at..at + size];
        match size {
            1 => bytes[0] = rows[0][l] as u8,
            2 => bytes.copy_from_slice(&(rows[0][l] as u16).to_le_bytes()),
            _ => {
                for (k, dword) in bytes.chunks_exact_mut(4).enumerate().take(4) {
                    dword.copy_from_slice(&rows[k][l].to_le_bytes());
                }
            }
        }
    }
    Ok(())
}

/// One lane's access to LDS or its private memory (flat apertures / scratch).
/// LDS out of range: reads 0, writes dropped. Private out of range: a fault at
/// the private-aperture address.
pub(super) fn lane_access(
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
            let base = private_offset(env, wave, lane, addr, n, access)?;
            if write {
                copy_small(&mut env.scratch[base..base + n], buf);
            } else {
                copy_small(buf, &env.scratch[base..base + n]);
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::isa::{GpuMemory, MemoryFault};

    /// No global memory: the private paths never translate.
    struct NoMemory;
    impl GpuMemory for NoMemory {
        fn translate(&self, addr: u64, _len: u64, access: Access) -> Result<*mut u8, MemoryFault> {
            Err(MemoryFault {
                address: addr,
                access,
            })
        }
    }

    const PER_LANE: usize = 40;
    const PRIVATE_BASE: u64 = 0x7000_0000_0000_0000;

    fn env<'a>(scratch: &'a mut [u8], lds: &'a mut [u8]) -> Env<'a> {
        Env {
            mem: &NoMemory,
            lds,
            scratch,
            scratch_per_lane: PER_LANE,
            shared_base: 0,
            private_base: PRIVATE_BASE,
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
            let word = &scratch[l * PER_LANE..l * PER_LANE + 4];
            let written = l < 20 && l != 9;
            assert_eq!(word == 0xDEAD_BEEFu32.to_le_bytes(), written, "lane {l}");
        }
    }
}
