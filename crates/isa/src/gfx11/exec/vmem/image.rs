//! MIMG image instructions without a sampler: `image_load`,
//! `image_load_mip`, `image_store`, `image_store_mip` and
//! `image_get_resinfo`, through the image resource descriptor (T#) in eight
//! SGPRs (srsrc; gfx11/image_desc.rs decodes it and owns the linear layout).
//!
//! Operands (RDNA3 ISA guide, "Image Instructions" and the MIMG encoding;
//! LLVM `test/MC/AMDGPU/gfx11_asm_mimg.s`): the addresses are unsigned
//! integer texel coordinates, x then y, then z (3D), the face (cube) or the
//! layer (1D/2D arrays), then the mip level for the `_mip` forms;
//! `image_get_resinfo` takes only the mip level. They sit in consecutive
//! VGPRs from vaddr, or with NSA in the registers the NSA dword names.
//!
//! A16 (RDNA3 ISA guide, MIMG "A16": 16-bit address components; LLVM
//! `SIISelLowering.cpp` `packImage16bitOpsToDwords` and
//! `test/MC/AMDGPU/gfx11_asm_mimg.s` for the register counts): the same
//! components in the same order, 16 bits each, packed two per VGPR with the
//! lower-numbered component in the low half; an odd count leaves the last
//! VGPR's high half unused. The address VGPRs (consecutive or NSA slots)
//! are the packed dwords, so a 2D-array `_mip` form takes (x, y) and
//! (layer, level), and `image_get_resinfo` reads the level from the low
//! half. Load and store coordinates are unsigned 16-bit integers,
//! zero-extended.
//! DMASK picks the components: a load returns the enabled ones packed into
//! consecutive VGPRs from vdata, a store takes them packed the same way.
//!
//! Loads convert every component as the typed buffer loads do (mtbuf.rs:
//! UNORM x/(2^n-1), SNORM max(x/(2^(n-1)-1), -1), integers extended, f16
//! and the 11/10-bit floats widened; a missing w reads one, other missing
//! components 0; the sRGB formats' x, y and z through the sRGB EOTF,
//! srgb.rs), then apply the T#'s DST_SEL, then DMASK. Stores convert
//! the other way (round to nearest even, clamped; NaN stores 0 for UNORM and
//! SNORM) and write only the components DMASK enables, leaving the texel's
//! other bits as they were.
//!
//! Range: a coordinate, layer or mip level outside the view makes the
//! lane's load return zero bits (then converted and swizzled as above, so a
//! missing w still reads one) and drops its store, as the buffer range
//! checks do (RDNA3 ISA guide, "Buffer range checking"; Vulkan's
//! robustImageAccess gives the same results). Levels count from the T#'s
//! BASE_LEVEL: `image_load`/`image_store` use that level, the `_mip` forms
//! the level their operand names within the view, and a level's extent is
//! level 0's halved per level, never below one (image_desc.rs places the
//! levels). `image_get_resinfo` returns
//! the level's width, height, and depth (3D, minified) or layer count
//! (cube, arrays; for 1D arrays in y), and in w the view's level count; 1D
//! and 2D images return 1 for the dimensions they lack, and a level past the
//! view returns 0 for width, height and depth.
//!
//! Memory goes through `GpuMemory::translate` per lane, so an unmapped
//! texel faults with its address like a global access; the observer sees
//! the lanes' texel addresses as global accesses.
//!
//! Not modelled (IllegalInstruction naming the instruction and the reason):
//! d16, tfe, lwe, DMASK 0, the MSAA dims, an instruction dim the T#'s
//! TYPE does not match (cube T#s also take 2D-array addressing), stores
//! through a T# whose DST_SEL permutes the format's components (BGRA),
//! stores through an sRGB T# (WebGPU has no sRGB storage, and whether the
//! hardware encodes linear values on a store is not documented), any
//! descriptor `ImageDescriptor::decode` refuses, and every other MIMG
//! opcode (MSAA loads, BVH, the sample and gather forms sample.rs does not
//! execute). The explicit-LOD, offset and derivative sample and gather
//! forms go to sample.rs, the atomics to image_atomic.rs.
//! The cache bits (glc, slc, dlc) and unorm (a sampling control) do not
//! change results.

use crate::gfx11::decode::{BufferFormat, NumFormat};
use crate::gfx11::exec::env::{Env, ExecResult, Flow, illegal, unmodelled};
use crate::gfx11::exec::vmem::mtbuf::{
    decode as decode_component, encode as encode_component, one as missing_w,
};
use crate::gfx11::image_desc::{
    DstSel, ImageDescriptor, ImageDim, ImageFormat, NumericType, linear_texel_offset,
};
use crate::gfx11::inst::Inst;
use crate::gfx11::opcodes::Op;
use crate::gfx11::wave::{LANES, Wave};
use crate::observer::{LaneAccesses, Segment};
use crate::{Access, WaveErrorKind};

/// What an executed MIMG opcode does.
#[derive(Clone, Copy, PartialEq, Eq)]
enum ImageOp {
    Load { mip: bool },
    Store { mip: bool },
    Resinfo,
}

/// The DMASK of `i` once the MIMG bits gfxsim does not model are known
/// clear (d16, tfe, lwe, and a16 unless `a16_ok`; RDNA3 ISA guide, "MIMG"
/// fields) and DMASK is not 0; else the refusal naming the first.
pub(crate) fn modelled_dmask(i: &Inst, a16_ok: bool) -> Result<u32, WaveErrorKind> {
    let (w0, w1) = (i.words[0], i.words[1]);
    for (set, what) in [
        ((w0 >> 16) & 1 != 0 && !a16_ok, "a16"),
        ((w0 >> 17) & 1 != 0, "d16"),
        ((w1 >> 21) & 1 != 0, "tfe"),
        ((w1 >> 22) & 1 != 0, "lwe"),
    ] {
        if set {
            return Err(unmodelled(i, what));
        }
    }
    match (w0 >> 8) & 0xF {
        0 => Err(unmodelled(i, "dmask 0")),
        dmask => Ok(dmask),
    }
}

pub(crate) fn mimg(w: &mut Wave, env: &mut Env, i: &Inst) -> ExecResult {
    let op = match i.op {
        Op::ImageLoad => ImageOp::Load { mip: false },
        Op::ImageLoadMip => ImageOp::Load { mip: true },
        Op::ImageStore => ImageOp::Store { mip: false },
        Op::ImageStoreMip => ImageOp::Store { mip: true },
        Op::ImageGetResinfo => ImageOp::Resinfo,
        op if super::sample::is_sample(op) => return super::sample::sample(w, env, i),
        op if super::image_atomic::rmw_of(op).is_some() => {
            return super::image_atomic::image_atomic(w, env, i);
        }
        _ => return Err(illegal(i)),
    };
    let dmask = modelled_dmask(i, true)?;
    let w0 = i.words[0];
    let (dim, desc) = resource(w, i)?;
    let coords = match dim {
        ImageDim::D1 => 1,
        ImageDim::D2 | ImageDim::D1Array => 2,
        _ => 3,
    };
    let components = match op {
        ImageOp::Resinfo => 1,
        ImageOp::Load { mip } | ImageOp::Store { mip } => coords + mip as usize,
    };
    let address = Address {
        regs: address_registers(i, components, w0 >> 16 & 1 != 0),
        a16: w0 >> 16 & 1 != 0,
    };
    let coord = |k: usize, l: usize| address.component(w, k, l);
    match op {
        ImageOp::Resinfo => resinfo(w, &desc, dmask, i, &address),
        ImageOp::Load { mip } | ImageOp::Store { mip } => {
            let store = matches!(op, ImageOp::Store { .. });
            if store && !identity_swizzle(&desc) {
                return Err(unmodelled(i, "store through a swizzled T#"));
            }
            if store && desc.format.is_srgb() {
                return Err(unmodelled(i, "store through an sRGB T#"));
            }
            let exec = w.exec();
            let mut texel = [None; LANES];
            for (l, t) in texel.iter_mut().enumerate() {
                if exec >> l & 1 == 0 {
                    continue;
                }
                let c: [u32; 3] = std::array::from_fn(|k| if k < coords { coord(k, l) } else { 0 });
                let level = if mip { coord(coords, l) } else { 0 };
                *t = texel_coords(&desc, dim, c, level);
            }
            let access = if store { Access::Write } else { Access::Read };
            observe(w, env, &desc, &texel, access);
            if store {
                store_lanes(w, env, &desc, dmask, i, &texel)
            } else {
                load_lanes(w, env, &desc, dmask, i, &texel)
            }
        }
    }
}

/// The instruction's DIM and its T# (in the four SGPRs from srsrc), or why
/// the pair is not executed: MSAA dims, a descriptor `decode` refuses, or a
/// dim the T#'s TYPE does not match (a cube T# also takes 2D-array
/// addressing).
pub(super) fn resource(w: &Wave, i: &Inst) -> Result<(ImageDim, ImageDescriptor), WaveErrorKind> {
    // The instruction's DIM (gfx10+ MIMG dim field; LLVM `MIMGDim`).
    let dim = match (i.words[0] >> 2) & 7 {
        0 => ImageDim::D1,
        1 => ImageDim::D2,
        2 => ImageDim::D3,
        3 => ImageDim::Cube,
        4 => ImageDim::D1Array,
        5 => ImageDim::D2Array,
        _ => return Err(unmodelled(i, "MSAA dim")),
    };
    let srsrc = i.saddr as usize;
    let words: [u32; 8] = std::array::from_fn(|k| w.sgpr.get(srsrc + k).copied().unwrap_or(0));
    let desc = ImageDescriptor::decode(&words).map_err(|e| unmodelled(i, &e.to_string()))?;
    if dim != desc.dim && !(dim == ImageDim::D2Array && desc.dim == ImageDim::Cube) {
        return Err(unmodelled(i, "instruction dim does not match the T# TYPE"));
    }
    Ok((dim, desc))
}

/// Where an instruction's address components sit.
pub(super) struct Address {
    /// The address VGPRs in order.
    pub(super) regs: Vec<u16>,
    /// 16-bit components, two per VGPR, low half first.
    pub(super) a16: bool,
}

impl Address {
    /// Address component `k` (coordinates, then slice, then level) of lane
    /// `l`, zero-extended.
    pub(super) fn component(&self, w: &Wave, k: usize, l: usize) -> u32 {
        let (dword, shift, bits) = if self.a16 {
            (k / 2, 16 * (k % 2), 0xFFFF)
        } else {
            (k, 0, u32::MAX)
        };
        self.regs
            .get(dword)
            .map_or(0, |&r| w.vgpr[r as usize & 255][l] >> shift & bits)
    }
}

/// The VGPRs holding `components` address components (packed two per VGPR
/// with `a16`): consecutive from vaddr, or the NSA slots (vaddr, then the
/// NSA dword's bytes; a fifth slot and beyond continue from the last one,
/// as decode/image.rs prints partial NSA).
pub(super) fn address_registers(i: &Inst, components: usize, a16: bool) -> Vec<u16> {
    let dwords = if a16 {
        components.div_ceil(2)
    } else {
        components
    };
    let vaddr = i.addr as u16;
    if i.words[0] & 1 == 0 {
        (0..dwords as u16).map(|k| vaddr + k).collect()
    } else {
        let slot = |k: usize| -> u16 {
            if k == 0 {
                vaddr
            } else {
                (i.words[2] >> (8 * (k - 1)) & 0xFF) as u16
            }
        };
        (0..dwords)
            .map(|k| {
                if k < 4 {
                    slot(k)
                } else {
                    slot(4) + (k - 4) as u16
                }
            })
            .collect()
    }
}

/// Where a texel is: x, y, the slice (3D) or layer within the view, and
/// the chain level.
pub(crate) type TexelPos = (u32, u32, u32, u32);

/// A lane's texel at view level `level` (0 is the T#'s BASE_LEVEL: the
/// `_mip` operand and resinfo's level count from the view's first level, as
/// Vulkan's textureLoad and textureSize levels do, which LLVM passes
/// through unchanged), or None when it lies outside the view (coordinates
/// are unsigned, so negative ones are out of range too).
pub(super) fn texel_coords(
    desc: &ImageDescriptor,
    dim: ImageDim,
    c: [u32; 3],
    level: u32,
) -> Option<TexelPos> {
    let (x, y, z) = match dim {
        ImageDim::D1 => (c[0], 0, 0),
        ImageDim::D1Array => (c[0], 0, c[1]),
        ImageDim::D2 => (c[0], c[1], 0),
        _ => (c[0], c[1], c[2]),
    };
    if level >= desc.levels() {
        return None;
    }
    let level = desc.base_level + level;
    let [w, h, d] = desc.level_extent(level);
    let slices = if desc.dim == ImageDim::D3 {
        d
    } else {
        desc.layers()
    };
    (x < w && y < h && z < slices).then_some((x, y, z, level))
}

/// Do the T#'s DST_SELs name each of the format's components in place?
fn identity_swizzle(desc: &ImageDescriptor) -> bool {
    (0..desc.format.components()).all(|c| desc.dst_sel[c].component() == Some(c))
}

/// The unified buffer format behind an image format's bits (same FORMAT
/// codes; `8_8_8_8_SRGB` has the bits of `8_8_8_8_UNORM`).
fn buffer_format(f: ImageFormat) -> BufferFormat {
    let code = if f.is_srgb() {
        ImageFormat::Rgba8Unorm.format_field()
    } else {
        f.format_field()
    };
    BufferFormat::from_code(code as u8)
        .expect("every image format's bits are a unified format gfx11 defines")
}

pub(super) fn num_format(f: ImageFormat) -> NumFormat {
    match f.numeric() {
        NumericType::Unorm => NumFormat::Unorm,
        NumericType::Snorm => NumFormat::Snorm,
        NumericType::Uint => NumFormat::Uint,
        NumericType::Sint => NumFormat::Sint,
        NumericType::Float => NumFormat::Float,
    }
}

pub(super) fn texel_address(desc: &ImageDescriptor, (x, y, z, level): TexelPos) -> u64 {
    desc.base_address
        .wrapping_add(linear_texel_offset(desc, x, y, z, level))
}

/// Show the observer the lanes' texel accesses.
pub(super) fn observe(
    w: &Wave,
    env: &mut Env,
    desc: &ImageDescriptor,
    texel: &[Option<TexelPos>; LANES],
    access: Access,
) {
    let Some(o) = env.observer.as_deref_mut() else {
        return;
    };
    let mut addrs = [0u64; LANES];
    let mut mask = 0u32;
    for (l, t) in texel.iter().enumerate() {
        if let Some(t) = t {
            addrs[l] = texel_address(desc, *t);
            mask |= 1 << l;
        }
    }
    if mask != 0 {
        o.access(&LaneAccesses {
            pc: w.pc,
            wave: w.index,
            first_lane: 32 * w.half as u32,
            segment: Segment::Global,
            access,
            size: desc.format.bytes_per_texel(),
            exec: mask,
            addrs: &addrs,
            scalar: false,
            sc1: false,
        });
    }
}

/// The four register values a texel's bits `element` load as: each
/// component converted (a missing w reads one, other missing components 0),
/// then the T#'s DST_SEL applied.
pub(super) fn texel_value(desc: &ImageDescriptor, element: u128) -> [u32; 4] {
    let fmt = buffer_format(desc.format);
    let num = num_format(desc.format);
    let comp: [u32; 4] = std::array::from_fn(|c| {
        if c < fmt.components() {
            let (at, width) = fmt.component_bits(c);
            let raw = (element >> at) as u32 & (u32::MAX >> (32 - width));
            if desc.format.is_srgb() && c < 3 {
                super::srgb::decode(raw, width)
            } else {
                decode_component(num, width, raw)
            }
        } else if c == 3 {
            missing_w(num)
        } else {
            0
        }
    });
    std::array::from_fn(|c| match desc.dst_sel[c] {
        DstSel::Zero => 0,
        DstSel::One => missing_w(num),
        s => comp[s.component().expect("a component selector")],
    })
}

/// The bits of the texel at `t`, read through the GPU page table.
pub(super) fn read_texel(
    env: &mut Env,
    desc: &ImageDescriptor,
    t: TexelPos,
) -> Result<u128, WaveErrorKind> {
    let bytes = desc.format.bytes_per_texel() as usize;
    let p = env
        .mem
        .translate(texel_address(desc, t), bytes as u64, Access::Read)
        .map_err(WaveErrorKind::MemoryViolation)?;
    let mut b = [0u8; 16];
    // SAFETY: translate returned a pointer valid for `bytes` (<= 16) bytes.
    unsafe { std::ptr::copy_nonoverlapping(p, b.as_mut_ptr(), bytes) };
    Ok(u128::from_le_bytes(b))
}

fn load_lanes(
    w: &mut Wave,
    env: &mut Env,
    desc: &ImageDescriptor,
    dmask: u32,
    i: &Inst,
    texel: &[Option<TexelPos>; LANES],
) -> ExecResult {
    let exec = w.exec();
    let mut rows = [[0u32; LANES]; 4];
    for l in 0..LANES {
        if exec >> l & 1 == 0 {
            continue;
        }
        let element = match texel[l] {
            Some(t) => read_texel(env, desc, t)?,
            None => 0,
        };
        let value = texel_value(desc, element);
        let mut n = 0;
        for (c, v) in value.into_iter().enumerate() {
            if dmask >> c & 1 != 0 {
                rows[n][l] = v;
                n += 1;
            }
        }
    }
    let vdata = i.data[0] as usize;
    for (k, row) in rows.iter().enumerate().take(dmask.count_ones() as usize) {
        w.write_vgpr(vdata + k, row, exec);
    }
    Ok(Flow::Next)
}

fn store_lanes(
    w: &mut Wave,
    env: &mut Env,
    desc: &ImageDescriptor,
    dmask: u32,
    i: &Inst,
    texel: &[Option<TexelPos>; LANES],
) -> ExecResult {
    let exec = w.exec();
    let fmt = buffer_format(desc.format);
    let bytes = desc.format.bytes_per_texel() as usize;
    let vdata = i.data[0] as usize;
    for l in 0..LANES {
        let Some(t) = texel[l] else { continue };
        if exec >> l & 1 == 0 {
            continue;
        }
        let p = env
            .mem
            .translate(texel_address(desc, t), bytes as u64, Access::Write)
            .map_err(WaveErrorKind::MemoryViolation)?;
        let mut b = [0u8; 16];
        // SAFETY: translate returned a pointer valid for `bytes` (<= 16) bytes.
        unsafe { std::ptr::copy_nonoverlapping(p, b.as_mut_ptr(), bytes) };
        let mut element = u128::from_le_bytes(b);
        let mut n = 0;
        for c in 0..4 {
            if dmask >> c & 1 == 0 {
                continue;
            }
            let value = w.vgpr[(vdata + n) & 255][l];
            n += 1;
            if c >= fmt.components() {
                continue;
            }
            let (at, width) = fmt.component_bits(c);
            let mask = (1u128 << width) - 1;
            let field = encode_component(fmt, width, value) as u128;
            element = (element & !(mask << at)) | (field & mask) << at;
        }
        let b = element.to_le_bytes();
        // SAFETY: translate returned a pointer valid for `bytes` (<= 16) bytes.
        unsafe { std::ptr::copy_nonoverlapping(b.as_ptr(), p, bytes) };
    }
    Ok(Flow::Next)
}

/// `image_get_resinfo`: the level is the only address component.
fn resinfo(
    w: &mut Wave,
    desc: &ImageDescriptor,
    dmask: u32,
    i: &Inst,
    address: &Address,
) -> ExecResult {
    let exec = w.exec();
    let mut rows = [[0u32; LANES]; 4];
    for l in 0..LANES {
        if exec >> l & 1 == 0 {
            continue;
        }
        let lod = address.component(w, 0, l);
        let info = if lod < desc.levels() {
            let [x, y, z] = desc.level_extent(desc.base_level + lod);
            match desc.dim {
                ImageDim::D1 => [x, 1, 1],
                ImageDim::D1Array => [x, desc.layers(), 1],
                ImageDim::D2 => [x, y, 1],
                ImageDim::D3 => [x, y, z],
                ImageDim::Cube | ImageDim::D2Array => [x, y, desc.layers()],
            }
        } else {
            [0; 3]
        };
        let all = [info[0], info[1], info[2], desc.levels()];
        let mut n = 0;
        for (c, v) in all.into_iter().enumerate() {
            if dmask >> c & 1 != 0 {
                rows[n][l] = v;
                n += 1;
            }
        }
    }
    let vdata = i.data[0] as usize;
    for (k, row) in rows.iter().enumerate().take(dmask.count_ones() as usize) {
        w.write_vgpr(vdata + k, row, exec);
    }
    Ok(Flow::Next)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identity_swizzle_accepts_default_views_only() {
        for &f in crate::gfx11::image_desc::IMAGE_FORMATS {
            let d = ImageDescriptor::linear(0, f, ImageDim::D2, 4, 4, 1);
            assert_eq!(identity_swizzle(&d), !f.is_bgra(), "{f:?}");
        }
    }

    #[test]
    fn out_of_range_coordinates_and_levels_have_no_texel() {
        let mut d = ImageDescriptor::linear(0, ImageFormat::R8Uint, ImageDim::D2Array, 4, 3, 2);
        d.base_array = 1;
        assert_eq!(
            texel_coords(&d, ImageDim::D2Array, [3, 2, 1], 0),
            Some((3, 2, 1, 0))
        );
        assert_eq!(texel_coords(&d, ImageDim::D2Array, [4, 0, 0], 0), None);
        assert_eq!(texel_coords(&d, ImageDim::D2Array, [0, 3, 0], 0), None);
        assert_eq!(texel_coords(&d, ImageDim::D2Array, [0, 0, 2], 0), None);
        assert_eq!(texel_coords(&d, ImageDim::D2Array, [0, 0, 0], 1), None);
        assert_eq!(
            texel_coords(&d, ImageDim::D2Array, [u32::MAX, 0, 0], 0),
            None
        );
        // A view of levels 1..=2 of a 4x3 chain: its level 1 is chain
        // level 2, 1 x 1.
        let m = ImageDescriptor::linear(0, ImageFormat::R8Uint, ImageDim::D2, 4, 3, 1)
            .with_levels(3, 1, 2);
        assert_eq!(
            texel_coords(&m, ImageDim::D2, [1, 0, 0], 0),
            Some((1, 0, 0, 1))
        );
        assert_eq!(texel_coords(&m, ImageDim::D2, [2, 0, 0], 0), None);
        assert_eq!(
            texel_coords(&m, ImageDim::D2, [0, 0, 0], 1),
            Some((0, 0, 0, 2))
        );
        assert_eq!(texel_coords(&m, ImageDim::D2, [1, 0, 0], 1), None);
        assert_eq!(texel_coords(&m, ImageDim::D2, [0, 0, 0], 2), None);
    }
}
