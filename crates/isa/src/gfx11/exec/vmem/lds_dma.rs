//! GFX9 (gfx90a, gfx942) loads into LDS: MUBUF loads with the lds bit
//! (vmem/gfx9_buffer.rs), gfx90a's global loads with the lds bit and
//! gfx942's global_load_lds_* (the decode step gives both the gfx942 ops,
//! gfx9/exec_form.rs). Each active lane's element is read as the plain
//! load reads it and, zero- or sign-extended to a dword, written to LDS
//! instead of a VGPR, one dword per lane from M0's LDS address on.

use crate::gfx11::exec::env::{Env, ExecResult, Flow, illegal};
use crate::gfx11::exec::lds::lds_put;
use crate::gfx11::exec::observe;
use crate::gfx11::exec::vmem::lane_addresses;
use crate::gfx11::inst::Inst;
use crate::gfx11::opcodes::Op;
use crate::gfx11::wave::{LANES, M0, Wave};
use crate::observer::Segment;
use crate::{Access, WaveErrorKind};

/// Where lane `l` (of the current 32) of a load into LDS writes: M0[15:0] +
/// the instruction offset + 4 * the lane's id in the wave (AMD CDNA3 ISA
/// guide, "Buffer Instructions", loads to LDS: LDS_ADDR = LDS_offset
/// (M0[15:0]) + inst_offset + TID * 4; LLVM's `llvm.amdgcn.*.load.lds`
/// put the LDS base in M0 and apply the immediate offset to both
/// addresses).
/// The same rule as gfx11's buffer_load_lds_* (vmem/mubuf.rs).
pub(crate) fn lds_address(w: &Wave, i: &Inst, l: usize) -> u64 {
    u64::from(w.sgpr[M0] & 0xFFFF)
        .wrapping_add(i.imm as i64 as u64)
        .wrapping_add(4 * (l + LANES * w.half) as u64)
}

/// Write each active lane's loaded element (`raw`, `size` <= 4 bytes),
/// zero- or sign-extended to a dword, to LDS at [`lds_address`] instead of
/// a VGPR; past the allocation the write is dropped (lds.rs).
pub(crate) fn lds_write(
    w: &Wave,
    env: &mut Env,
    i: &Inst,
    exec: u32,
    raw: &[u32; LANES],
    size: usize,
    signed: bool,
) {
    for l in (0..LANES).filter(|l| exec >> l & 1 != 0) {
        let v = match (size, signed) {
            (1, true) => raw[l] as u8 as i8 as i32 as u32,
            (1, false) => raw[l] & 0xFF,
            (2, true) => raw[l] as u16 as i16 as i32 as u32,
            (2, false) => raw[l] & 0xFFFF,
            _ => raw[l],
        };
        lds_put::<4>(env.lds, lds_address(w, i, l), v.to_le_bytes());
    }
}

/// A global load into LDS (`global_load_lds_{ubyte,sbyte,ushort,sshort,dword}`):
/// the global address as the plain load's (AMD CDNA3 ISA guide, "Global
/// Load LDS"), the LDS address as [`lds_address`]. A bad global address
/// faults as the plain load does.
pub(crate) fn global_load_lds(w: &mut Wave, env: &mut Env, i: &Inst) -> ExecResult {
    let (size, signed) = match i.op {
        Op::GlobalLoadLdsUbyte => (1, false),
        Op::GlobalLoadLdsSbyte => (1, true),
        Op::GlobalLoadLdsUshort => (2, false),
        Op::GlobalLoadLdsSshort => (2, true),
        Op::GlobalLoadLdsDword => (4, false),
        _ => return Err(illegal(i)),
    };
    let exec = w.exec();
    let (addrs, _) = lane_addresses(w, env, i);
    if env.observer.is_some() {
        observe::lanes(w, env, Segment::Global, Access::Read, size as u32, &addrs);
        let to = std::array::from_fn(|l| lds_address(w, i, l));
        observe::lanes(w, env, Segment::Lds, Access::Write, 4, &to);
    }
    let mut raw = [0u32; LANES];
    for l in (0..LANES).filter(|l| exec >> l & 1 != 0) {
        let p = env
            .mem
            .translate(addrs[l], size as u64, Access::Read)
            .map_err(WaveErrorKind::MemoryViolation)?;
        let mut b = [0u8; 4];
        // SAFETY: translate returned a pointer valid for `size` (<= 4) bytes.
        unsafe { std::ptr::copy_nonoverlapping(p, b.as_mut_ptr(), size) };
        raw[l] = u32::from_le_bytes(b);
    }
    lds_write(w, env, i, exec, &raw, size, signed);
    Ok(Flow::Next)
}
