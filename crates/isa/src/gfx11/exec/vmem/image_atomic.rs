//! MIMG image atomics: `image_atomic_swap`, `_cmpswap`, `_add`, `_sub`,
//! `_smin`, `_umin`, `_smax`, `_umax`, `_and`, `_or`, `_xor`, `_inc` and
//! `_dec` on 32-bit integer texels (r32uint, r32sint), as LLVM's
//! `llvm.amdgcn.image.atomic.*` intrinsics lower for gfx11.
//!
//! Operands (RDNA3 ISA guide, "Image Instructions", image atomics; LLVM
//! `test/MC/AMDGPU/gfx11_asm_mimg.s`): the address components are those
//! of `image_load` (coordinates, then the layer; no mip level), read as
//! image.rs reads them (consecutive VGPRs or NSA, A16 packing). The data
//! VGPRs hold the source value, and for `cmpswap` the source then the
//! compare value; DMASK names them (0x1, or 0x3 for `cmpswap`, for a
//! 32-bit texel). With GLC the texel's value before the operation returns
//! in the first data VGPR (LLVM 19 sets it for every image atomic
//! intrinsic, used result or not); without GLC the VGPRs are left as they
//! were.
//!
//! Each lane's operation is one atomic read-modify-write of its texel (the
//! same `atomics.rs` semantics as buffer and global atomics: `inc` wraps to
//! 0 past the source, `dec` reloads the source at 0 or above it); lanes
//! run in lane order, so lanes hitting one texel see each other's results.
//! A coordinate or layer outside the view touches no memory and returns 0,
//! as image.rs's loads do (RDNA3 ISA guide, "Buffer range checking").
//!
//! Not modelled (IllegalInstruction naming the reason): formats other than
//! r32uint and r32sint (64-bit texels and float atomics have no WGSL form
//! here), another DMASK, and the bits and descriptors image.rs refuses.

use crate::gfx11::exec::env::{Env, ExecResult, Flow, unmodelled};
use crate::gfx11::exec::vmem::atomics::{Rmw, atomic32};
use crate::gfx11::exec::vmem::image::{
    Address, address_registers, modelled_dmask, observe, resource, texel_address, texel_coords,
};
use crate::gfx11::image_desc::{ImageDim, ImageFormat};
use crate::gfx11::inst::Inst;
use crate::gfx11::opcodes::Op;
use crate::gfx11::wave::{LANES, Wave};
use crate::{Access, WaveErrorKind};

/// The read-modify-write of an image atomic opcode (None: not one).
pub(crate) fn rmw_of(op: Op) -> Option<Rmw> {
    Some(match op {
        Op::ImageAtomicSwap => Rmw::Swap,
        Op::ImageAtomicCmpswap => Rmw::CmpSwap,
        Op::ImageAtomicAdd => Rmw::Add,
        Op::ImageAtomicSub => Rmw::Sub,
        Op::ImageAtomicSmin => Rmw::MinI,
        Op::ImageAtomicUmin => Rmw::MinU,
        Op::ImageAtomicSmax => Rmw::MaxI,
        Op::ImageAtomicUmax => Rmw::MaxU,
        Op::ImageAtomicAnd => Rmw::And,
        Op::ImageAtomicOr => Rmw::Or,
        Op::ImageAtomicXor => Rmw::Xor,
        Op::ImageAtomicInc => Rmw::Inc,
        Op::ImageAtomicDec => Rmw::Dec,
        _ => return None,
    })
}

pub(crate) fn image_atomic(w: &mut Wave, env: &mut Env, i: &Inst) -> ExecResult {
    let rmw = rmw_of(i.op).ok_or_else(|| unmodelled(i, "not an image atomic"))?;
    let dmask = modelled_dmask(i, true)?;
    let cmpswap = rmw == Rmw::CmpSwap;
    if dmask != if cmpswap { 0x3 } else { 0x1 } {
        return Err(unmodelled(
            i,
            "an image atomic DMASK other than 0x1 (0x3 for cmpswap)",
        ));
    }
    let (dim, desc) = resource(w, i)?;
    if !matches!(desc.format, ImageFormat::R32Uint | ImageFormat::R32Sint) {
        return Err(unmodelled(
            i,
            "an image atomic on a format other than r32uint or r32sint",
        ));
    }
    let w0 = i.words[0];
    let glc = w0 >> 14 & 1 != 0;
    let coords = match dim {
        ImageDim::D1 => 1,
        ImageDim::D2 | ImageDim::D1Array => 2,
        _ => 3,
    };
    let a16 = w0 >> 16 & 1 != 0;
    let address = Address {
        regs: address_registers(i, coords, a16),
        a16,
    };
    let exec = w.exec();
    let mut texel = [None; LANES];
    for (l, t) in texel.iter_mut().enumerate() {
        if exec >> l & 1 != 0 {
            let c: [u32; 3] = std::array::from_fn(|k| {
                if k < coords {
                    address.component(w, k, l)
                } else {
                    0
                }
            });
            *t = texel_coords(&desc, dim, c, 0);
        }
    }
    observe(w, env, &desc, &texel, Access::Atomic);
    let vdata = i.data[0] as usize;
    let mut old = [0u32; LANES];
    for l in 0..LANES {
        let Some(t) = texel[l] else { continue };
        let src = w.vgpr[vdata & 255][l];
        let cmp = if cmpswap {
            w.vgpr[(vdata + 1) & 255][l]
        } else {
            0
        };
        // 4-byte texels from a 256-byte aligned base: always aligned.
        let p = env
            .mem
            .translate(texel_address(&desc, t), 4, Access::Atomic)
            .map_err(WaveErrorKind::MemoryViolation)?;
        old[l] = atomic32(p, rmw, src, cmp);
    }
    if glc {
        w.write_vgpr(vdata, &old, exec);
    }
    Ok(Flow::Next)
}
