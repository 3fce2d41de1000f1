//! MIMG sampling with an explicit LOD or explicit derivatives:
//! `image_sample_l`, `image_sample_lz`, `image_sample_c_l`,
//! `image_sample_c_lz`, `image_gather4_lz`, `image_gather4_c_lz`, their
//! texel-offset `_o` forms, and `image_sample_d` / `image_sample_d_o` on
//! 1D, 2D, 3D, 1D-array, 2D-array and cube linear images and their mip
//! chains (cube addressing and edges: sample_cube.rs; the LOD of the
//! derivatives: sample_grad.rs), through the T# in eight SGPRs (srsrc) and
//! the S# in four (ssamp; gfx11/sampler_desc.rs decodes it and refuses what
//! is not modelled).
//!
//! Operands (RDNA3 ISA guide, "Image Instructions"; LLVM 19's gfx1100
//! output for `llvm.amdgcn.image.sample.*` / `gather4.*`): the packed
//! offset dword first for the `_o` forms, then the depth reference for the
//! `_c` forms, then the derivatives for `_d` (∂/∂h of each coordinate, then
//! ∂/∂v of each), then the f32 coordinates (x, y, z as the dim has them),
//! the layer for arrays, then the LOD for the `_l` forms; consecutive from
//! vaddr or NSA slots, as for image_load (image.rs).
//!
//! The filtering rules are Vulkan's ("Texel Filtering", "Wrapping
//! Operation"), which the RDNA3 guide does not restate and which Mesa's
//! drivers rely on the texture unit to follow:
//! - LOD: the instruction's (0 for `_lz`; from the derivatives for `_d`,
//!   scaled by the view's base level extent, with the S#'s LOD_BIAS),
//!   clamped to the S#'s MIN_LOD..MAX_LOD; above 0 selects XY_MIN_FILTER,
//!   else XY_MAG_FILTER. An S# with a LOD_BIAS is refused for the
//!   explicit-LOD forms: whether the texture unit adds it to an explicit
//!   LOD is not documented.
//! - Levels ("Texel Filtering", level selection): with the LOD λ above 0,
//!   `d' = BASE_LEVEL + min(λ, levels - 1)`; MIP_FILTER POINT reads level
//!   `ceil(d' + 0.5) - 1` (Vulkan's preferred rounding, assumed), LINEAR
//!   blends levels `floor(d')` and the next (kept within the view) by the
//!   fraction of `d'`, quantised to [`SUB_TEXEL_BITS`] like the texel
//!   weights (an assumption: the hardware's precision is not public).
//!   MIP_FILTER NONE, and λ at or below 0, read BASE_LEVEL. Gather reads
//!   BASE_LEVEL (its forms are `_lz`; Vulkan "Texel Gathering" uses
//!   level_base). Each level is filtered at its own extent.
//! - Coordinates are scaled by the level's extent unless FORCE_UNNORMALIZED
//!   or the instruction's UNORM bit;
//!   the layer is `floor(layer + 0.5)` clamped to the view's layers.
//! - Cube derivatives (`_d` with the cube dim) are those of the face
//!   coordinates (s, t) the compiler passes, in the same normalised face
//!   units (Mesa's drivers project the direction's derivatives onto the
//!   face in the shader, `ac_nir_lower_tex.c`), scaled by the face's
//!   extent like 2D derivatives; that the texture unit takes them
//!   unchanged is an assumption no public document confirms.
//! - Offsets (`_o`): the dword packs one 6-bit two's-complement texel
//!   offset per coordinate, x in bits 5:0, y in 13:8, z in 21:16 (RDNA3
//!   ISA guide, "Image Instructions", the offset address component; Mesa
//!   `ac_nir_lower_tex.c` packs WGSL/SPIR-V ConstOffset so). Each is added
//!   to the scaled coordinate in texels, before the filter's taps and the
//!   wrapping, so an offset that leaves the image wraps or clamps like any
//!   coordinate there. The layer takes no offset.
//! - Point: texel `floor(u)`, which is TRUNC_COORD's rule; point sampling
//!   with TRUNC_COORD clear (rounding of the fixed-point coordinate) is
//!   refused. Linear: texels `floor(u - 0.5)` and the next, blended by the
//!   fraction. A 3D image filters z with the same filter (Z_FILTER 0).
//! - Weight precision: the hardware's is not public. gfxsim quantises each
//!   fraction down to the 8 sub-texel bits radv reports for these parts
//!   (`subTexelPrecisionBits` 8), blends the f32 texel values in f64 with
//!   those weights and rounds once to f32. A GPU may differ in the last
//!   bits of a linear result; point results are exact.
//! - Wrapping per axis on the integer texel index: repeat, mirrored repeat,
//!   clamp to edge, clamp to border (the border colour replaces all four
//!   returned components; integer formats see 0 and 1 as integers).
//! - Comparison (`_c`): each texel's first returned component against the
//!   reference with DEPTH_COMPARE_FUNC (`reference FUNC texel`), 1.0 when it
//!   passes, else 0.0, then filtered; a border texel compares its colour's
//!   first component. On a UNORM T# (a fixed-point depth format) the
//!   reference is clamped to [0, 1] first, as Vulkan and OpenGL require
//!   for fixed-point depth: radeonsi clamps it in the shader only where
//!   TC-compatible HTILE has promoted Z16/Z24 to a 32-bit float format
//!   (Mesa `si_nir_clamp_shadow_comparison_value`, "so the depth
//!   comparison value isn't clamped for Z16 and Z24 anymore"), which says
//!   the texture unit clamps for the UNORM formats themselves. Float
//!   formats compare the reference as it is.
//! - Gather4 (`_lz`): the bilinear footprint of (x, y) whatever the filters,
//!   one component (DMASK's single bit; the comparison result for `_c`),
//!   returned as (i0, j1), (i1, j1), (i1, j0), (i0, j0), Vulkan's and
//!   WGSL's `textureGather` order.
//!
//! Not modelled (IllegalInstruction naming the instruction and the reason):
//! a cube T# sampled with a 2D-array dim, unnormalized cube
//! coordinates, offsets on a cube image (whether they cross faces is not
//! documented), A16, G16, d16, tfe,
//! lwe, DMASK other than one bit for gather or the `_c` samples, filtering
//! (linear, or MIP_FILTER LINEAR) of integer formats, unnormalized
//! coordinates on a view of several levels (Vulkan forbids them; what the
//! texture unit does is not documented), comparison on integer formats or 3D images,
//! gather on 1D and 3D images, and every S# `SamplerDescriptor::decode`
//! refuses.

use crate::Access;
use crate::gfx11::exec::env::{Env, ExecResult, Flow, unmodelled};
use crate::gfx11::exec::vmem::image::{
    Address, TexelPos, address_registers, read_texel, resource, texel_address, texel_value,
};
use crate::gfx11::exec::vmem::sample_cube::cube_footprint;
use crate::gfx11::exec::vmem::sample_grad::gradient_lod;
use crate::gfx11::image_desc::{ImageDescriptor, ImageDim, NumericType};
use crate::gfx11::inst::Inst;
use crate::gfx11::opcodes::Op;
use crate::gfx11::sampler_desc::{AddressMode, MipFilter, SamplerDescriptor, XyFilter};
use crate::gfx11::wave::{LANES, Wave};
use crate::observer::{LaneAccesses, Segment};

/// Sub-texel fraction bits of a linear weight (see the module comment).
pub const SUB_TEXEL_BITS: u32 = 8;

/// At most sixteen taps: a 3D footprint of eight texels on two levels.
const MAX_TAPS: usize = 16;

/// One texel of a footprint: where it is (None: a border texel) and its
/// weight.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Tap {
    pub(crate) texel: Option<TexelPos>,
    pub(crate) weight: f64,
}

/// Which address components an executed sampling opcode takes.
#[derive(Clone, Copy)]
struct Form {
    /// `_o`: the packed offset dword.
    offset: bool,
    /// `_c`: the depth reference.
    compare: bool,
    /// `_d`: the derivatives.
    grad: bool,
    /// `_l`: the LOD.
    lod: bool,
    gather: bool,
}

/// The opcodes sample.rs executes (image.rs routes them here).
pub(crate) fn is_sample(op: Op) -> bool {
    form(op).is_some()
}

fn form(op: Op) -> Option<Form> {
    let f = |offset, compare, grad, lod, gather| Form {
        offset,
        compare,
        grad,
        lod,
        gather,
    };
    Some(match op {
        Op::ImageSampleL => f(false, false, false, true, false),
        Op::ImageSampleLz => f(false, false, false, false, false),
        Op::ImageSampleCL => f(false, true, false, true, false),
        Op::ImageSampleCLz => f(false, true, false, false, false),
        Op::ImageGather4Lz => f(false, false, false, false, true),
        Op::ImageGather4CLz => f(false, true, false, false, true),
        Op::ImageSampleLO => f(true, false, false, true, false),
        Op::ImageSampleLzO => f(true, false, false, false, false),
        Op::ImageSampleCLO => f(true, true, false, true, false),
        Op::ImageSampleCLzO => f(true, true, false, false, false),
        Op::ImageGather4LzO => f(true, false, false, false, true),
        Op::ImageGather4CLzO => f(true, true, false, false, true),
        Op::ImageSampleD => f(false, false, true, false, false),
        Op::ImageSampleDO => f(true, false, true, false, false),
        _ => return None,
    })
}

/// The texel offsets of a packed `_o` dword: 6-bit two's complement per
/// coordinate at bits 5:0, 13:8 and 21:16 (see the module comment).
pub(crate) fn unpack_offsets(dword: u32) -> [i64; 3] {
    std::array::from_fn(|a| (((dword >> (8 * a)) as u8 as i8) << 2 >> 2) as i64)
}

pub(crate) fn sample(w: &mut Wave, env: &mut Env, i: &Inst) -> ExecResult {
    let Some(form) = form(i.op) else {
        return Err(crate::gfx11::exec::env::illegal(i));
    };
    let Form {
        compare,
        lod: lod_operand,
        gather,
        ..
    } = form;
    let dmask = super::image::modelled_dmask(i, false)?;
    let w0 = i.words[0];
    if (gather || compare) && dmask.count_ones() != 1 {
        return Err(unmodelled(i, "dmask other than one component"));
    }
    let (dim, desc) = resource(w, i)?;
    // `resource` takes a 2D-array dim on a cube T# (loads address faces
    // as layers); whether sampling does too is not documented.
    let cube = dim == ImageDim::Cube;
    if desc.dim == ImageDim::Cube && !cube {
        return Err(unmodelled(i, "a cube T# sampled with a 2D-array dim"));
    }
    if gather && !matches!(dim, ImageDim::D2 | ImageDim::D2Array | ImageDim::Cube) {
        return Err(unmodelled(i, "gather4 on a 1D or 3D image"));
    }
    let ssamp = i.imm2 as usize;
    let words: [u32; 4] = std::array::from_fn(|k| w.sgpr.get(ssamp + k).copied().unwrap_or(0));
    let mut samp = SamplerDescriptor::decode(&words).map_err(|e| unmodelled(i, &e.to_string()))?;
    // The instruction's UNORM bit (MIMG bit 7) forces texel coordinates
    // like the S#'s FORCE_UNNORMALIZED (RDNA3 ISA guide, MIMG fields).
    samp.unnormalized |= w0 >> 7 & 1 != 0;
    if samp.lod_bias != 0.0 && !form.grad {
        return Err(unmodelled(i, "sampler LOD_BIAS with an explicit LOD"));
    }
    if cube && form.offset {
        return Err(unmodelled(i, "offsets on a cube image"));
    }
    if cube && samp.unnormalized {
        // Vulkan forbids unnormalized coordinates with cube views; the
        // texture unit's reading of them is not documented.
        return Err(unmodelled(i, "unnormalized coordinates on a cube image"));
    }
    let integer = matches!(desc.format.numeric(), NumericType::Uint | NumericType::Sint);
    let unorm = desc.format.numeric() == NumericType::Unorm;
    if compare && (integer || dim == ImageDim::D3) {
        return Err(unmodelled(
            i,
            "comparison on an integer format or a 3D image",
        ));
    }
    if !gather
        && integer
        && (samp.mag_filter != XyFilter::Point
            || samp.min_filter != XyFilter::Point
            || samp.mip_filter == MipFilter::Linear)
    {
        return Err(unmodelled(i, "linear filtering of an integer format"));
    }
    if samp.unnormalized && desc.levels() > 1 {
        return Err(unmodelled(
            i,
            "unnormalized coordinates on a view of several levels",
        ));
    }
    let axes = match dim {
        ImageDim::D1 | ImageDim::D1Array => 1,
        // Cube: (s, t) on the face, then the face slice (sample_cube.rs).
        ImageDim::D2 | ImageDim::D2Array | ImageDim::Cube => 2,
        ImageDim::D3 => 3,
    };
    let layered = dim.is_layered();
    let derivatives = if form.grad { 2 * axes } else { 0 };
    let components = form.offset as usize
        + compare as usize
        + derivatives
        + axes
        + layered as usize
        + lod_operand as usize;
    let address = Address {
        regs: address_registers(i, components, false),
        a16: false,
    };
    let exec = w.exec();
    let mut taps = [[Tap {
        texel: None,
        weight: 0.0,
    }; MAX_TAPS]; LANES];
    let mut tap_count = [0usize; LANES];
    let mut reference = [0f32; LANES];
    for l in 0..LANES {
        if exec >> l & 1 == 0 {
            continue;
        }
        let f = |k: usize| f32::from_bits(address.component(w, k, l));
        let mut k = 0;
        let offsets = if form.offset {
            k = 1;
            unpack_offsets(address.component(w, 0, l))
        } else {
            [0; 3]
        };
        if compare {
            reference[l] = if unorm { f(k).clamp(0.0, 1.0) } else { f(k) };
            k += 1;
        }
        let mut ddx = [0f32; 3];
        let mut ddy = [0f32; 3];
        if form.grad {
            for a in 0..axes {
                ddx[a] = f(k + a);
                ddy[a] = f(k + axes + a);
            }
            k += derivatives;
        }
        let coord: [f32; 3] = std::array::from_fn(|a| if a < axes { f(k + a) } else { 0.0 });
        k += axes;
        let layer = if layered {
            let v = f(k);
            k += 1;
            Some(v)
        } else {
            None
        };
        let lod = if form.grad {
            let size = desc.level_extent(desc.base_level);
            gradient_lod(&samp, size, axes, ddx, ddy)
        } else if lod_operand {
            f(k)
        } else {
            0.0
        };
        let filter = if gather {
            XyFilter::Bilinear
        } else {
            select_filter(&samp, lod)
        };
        if filter == XyFilter::Point && !samp.trunc_coord {
            return Err(unmodelled(i, "point sampling without TRUNC_COORD"));
        }
        let (levels, level_count) = if gather {
            ([(desc.base_level, 1.0), (0, 0.0)], 1)
        } else {
            select_levels(&desc, &samp, lod)
        };
        let mut n = 0;
        for &(level, level_weight) in &levels[..level_count] {
            let footprint = match layer {
                Some(slice) if cube => {
                    cube_footprint(&desc, &samp, [coord[0], coord[1]], slice, filter, level)
                }
                _ => footprint(&desc, &samp, axes, coord, offsets, layer, filter, level),
            };
            for (slot, tap) in taps[l][n..].iter_mut().zip(&footprint) {
                *slot = Tap {
                    weight: tap.weight * level_weight,
                    ..*tap
                };
            }
            n += footprint.len();
        }
        tap_count[l] = n;
    }
    observe(w, env, &desc, &taps, &tap_count);
    let mut rows = [[0u32; LANES]; 4];
    for l in 0..LANES {
        if exec >> l & 1 == 0 {
            continue;
        }
        let border = border_value(&samp, integer);
        let mut values = [[0u32; 4]; MAX_TAPS];
        for (t, v) in taps[l][..tap_count[l]].iter().zip(values.iter_mut()) {
            *v = match t.texel {
                Some(p) => texel_value(&desc, read_texel(env, &desc, p)?),
                None => border,
            };
            if compare {
                let pass = samp.compare.passes(reference[l], f32::from_bits(v[0]));
                *v = [if pass { 1f32 } else { 0f32 }.to_bits(); 4];
            }
        }
        let values = &values[..tap_count[l]];
        if gather {
            let c = dmask.trailing_zeros() as usize;
            // Footprint order is (i0, j0), (i1, j0), (i0, j1), (i1, j1);
            // gather returns (i0, j1), (i1, j1), (i1, j0), (i0, j0).
            for (row, tap) in rows.iter_mut().zip([2, 3, 1, 0]) {
                row[l] = values[tap][c];
            }
            continue;
        }
        let result = blend(&taps[l][..tap_count[l]], values);
        let mut n = 0;
        for (c, v) in result.into_iter().enumerate() {
            if dmask >> c & 1 != 0 {
                rows[n][l] = v;
                n += 1;
            }
        }
    }
    let written = if gather {
        4
    } else {
        dmask.count_ones() as usize
    };
    let vdata = i.data[0] as usize;
    for (k, row) in rows.iter().enumerate().take(written) {
        w.write_vgpr(vdata + k, row, exec);
    }
    Ok(Flow::Next)
}

/// XY_MIN_FILTER above LOD 0, XY_MAG_FILTER at or below, after the S#'s
/// clamp (a NaN LOD clamps to MIN_LOD).
fn select_filter(samp: &SamplerDescriptor, lod: f32) -> XyFilter {
    let lod = lod.max(samp.min_lod).min(samp.max_lod);
    if lod > 0.0 {
        samp.min_filter
    } else {
        samp.mag_filter
    }
}

/// The chain levels a lane reads and their weights (one or two; see the
/// module comment), after the S#'s LOD clamp.
fn select_levels(
    desc: &ImageDescriptor,
    samp: &SamplerDescriptor,
    lod: f32,
) -> ([(u32, f64); 2], usize) {
    let lod = lod.max(samp.min_lod).min(samp.max_lod) as f64;
    let base = desc.base_level;
    let top = (desc.levels() - 1) as f64;
    if lod <= 0.0 || samp.mip_filter == MipFilter::None {
        return ([(base, 1.0), (0, 0.0)], 1);
    }
    let d = base as f64 + lod.min(top);
    let last = desc.last_level;
    if samp.mip_filter == MipFilter::Point {
        let level = ((d + 0.5).ceil() - 1.0) as u32;
        return ([(level.clamp(base, last), 1.0), (0, 0.0)], 1);
    }
    let hi = d.floor();
    let scale = (1u32 << SUB_TEXEL_BITS) as f64;
    let frac = ((d - hi) * scale).floor() / scale;
    let hi = hi as u32;
    let lo = (hi + 1).min(last);
    if frac == 0.0 || lo == hi {
        return ([(hi, 1.0), (0, 0.0)], 1);
    }
    ([(hi, 1.0 - frac), (lo, frac)], 2)
}

/// The border colour as four register values.
fn border_value(samp: &SamplerDescriptor, integer: bool) -> [u32; 4] {
    let rgba = samp
        .border_color
        .rgba()
        .expect("decode refuses the border colour table");
    rgba.map(|v| if integer { v as u32 } else { v.to_bits() })
}

/// The texel index `i` wrapped into 0..size by `mode`; None for a border
/// texel (Vulkan "Wrapping Operation").
fn wrap(i: i64, size: u32, mode: AddressMode) -> Option<u32> {
    let n = size as i64;
    let v = match mode {
        AddressMode::Wrap => i.rem_euclid(n),
        AddressMode::Mirror => {
            let t = i.rem_euclid(2 * n);
            if t >= n { 2 * n - 1 - t } else { t }
        }
        AddressMode::ClampLastTexel => i.clamp(0, n - 1),
        _ => {
            if (0..n).contains(&i) {
                i
            } else {
                return None;
            }
        }
    };
    Some(v as u32)
}

/// The texel indices and weights along one axis: one for point, two for
/// linear (the fraction quantised to [`SUB_TEXEL_BITS`]).
pub(crate) fn axis_taps(u: f64, filter: XyFilter) -> ([i64; 2], [f64; 2], usize) {
    // `as` saturates and sends NaN to 0, keeping indices finite.
    if filter == XyFilter::Point {
        return ([u.floor() as i64, 0], [1.0, 0.0], 1);
    }
    let t = u - 0.5;
    let i0 = t.floor();
    let scale = (1u32 << SUB_TEXEL_BITS) as f64;
    let frac = ((t - i0) * scale).floor() / scale;
    let frac = if frac.is_finite() { frac } else { 0.0 };
    let i0 = i0 as i64;
    ([i0, i0.saturating_add(1)], [1.0 - frac, frac], 2)
}

/// A lane's footprint on chain level `level`: the product of the axes'
/// taps, x fastest.
#[allow(clippy::too_many_arguments)]
fn footprint(
    desc: &ImageDescriptor,
    samp: &SamplerDescriptor,
    axes: usize,
    coord: [f32; 3],
    offsets: [i64; 3],
    layer: Option<f32>,
    filter: XyFilter,
    level: u32,
) -> Vec<Tap> {
    let size = desc.level_extent(level);
    let per_axis: Vec<([i64; 2], [f64; 2], usize)> = (0..axes)
        .map(|a| {
            let u = if samp.unnormalized {
                coord[a] as f64
            } else {
                coord[a] as f64 * size[a] as f64
            };
            // The offset is in texels, after the scaling (module comment).
            axis_taps(u + offsets[a] as f64, filter)
        })
        .collect();
    let slice = layer.map(|v| {
        let r = (v as f64 + 0.5).floor();
        let r = if r.is_nan() { 0.0 } else { r };
        r.clamp(0.0, (desc.layers() - 1) as f64) as u32
    });
    let count: usize = per_axis.iter().map(|p| p.2).product();
    (0..count)
        .map(|t| {
            let mut rest = t;
            let mut pos = [0u32; 3];
            let mut weight = 1.0;
            let mut inside = true;
            for (a, (idx, wts, n)) in per_axis.iter().enumerate() {
                let j = rest % n;
                rest /= n;
                weight *= wts[j];
                match wrap(idx[j], size[a], samp.address[a]) {
                    Some(v) => pos[a] = v,
                    None => inside = false,
                }
            }
            if let Some(s) = slice {
                pos[axes] = s;
            }
            Tap {
                texel: inside.then_some((pos[0], pos[1], pos[2], level)),
                weight,
            }
        })
        .collect()
}

/// The weighted sum of the taps' f32 values, rounded once; one tap returns
/// its value's bits unchanged (integer formats, point sampling).
fn blend(taps: &[Tap], values: &[[u32; 4]]) -> [u32; 4] {
    if taps.len() == 1 {
        return values[0];
    }
    std::array::from_fn(|c| {
        let sum: f64 = taps
            .iter()
            .zip(values)
            .map(|(t, v)| t.weight * f32::from_bits(v[c]) as f64)
            .sum();
        (sum as f32).to_bits()
    })
}

/// Show the observer each footprint slot's texel reads.
fn observe(
    w: &Wave,
    env: &mut Env,
    desc: &ImageDescriptor,
    taps: &[[Tap; MAX_TAPS]; LANES],
    count: &[usize; LANES],
) {
    let Some(o) = env.observer.as_deref_mut() else {
        return;
    };
    for k in 0..MAX_TAPS {
        let mut addrs = [0u64; LANES];
        let mut mask = 0u32;
        for l in 0..LANES {
            if k < count[l]
                && let Some(t) = taps[l][k].texel
            {
                addrs[l] = texel_address(desc, t);
                mask |= 1 << l;
            }
        }
        if mask != 0 {
            o.access(&LaneAccesses {
                pc: w.pc,
                wave: w.index,
                first_lane: 32 * w.half as u32,
                segment: Segment::Global,
                access: Access::Read,
                size: desc.format.bytes_per_texel(),
                exec: mask,
                addrs: &addrs,
                scalar: false,
                sc1: false,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wrapping_follows_vulkan() {
        let modes = [
            AddressMode::Wrap,
            AddressMode::Mirror,
            AddressMode::ClampLastTexel,
            AddressMode::ClampBorder,
        ];
        // Size 3: indices -4..=6 per mode.
        let want: [[Option<u32>; 11]; 4] = [
            [2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0].map(Some),
            [2, 2, 1, 0, 0, 1, 2, 2, 1, 0, 0].map(Some),
            [0, 0, 0, 0, 0, 1, 2, 2, 2, 2, 2].map(Some),
            [
                None,
                None,
                None,
                None,
                Some(0),
                Some(1),
                Some(2),
                None,
                None,
                None,
                None,
            ],
        ];
        for (mode, row) in modes.iter().zip(want) {
            let got: Vec<_> = (-4..=6).map(|i| wrap(i, 3, *mode)).collect();
            assert_eq!(got, row, "{mode:?}");
        }
    }

    #[test]
    fn linear_taps_quantise_the_fraction() {
        // u = 1.75 texels: t = 1.25, texels 1 and 2, weights 0.75 / 0.25.
        assert_eq!(
            axis_taps(1.75, XyFilter::Bilinear),
            ([1, 2], [0.75, 0.25], 2)
        );
        // A fraction below 1/256 is dropped.
        let (_, wts, _) = axis_taps(0.5 + 1.0 / 1024.0, XyFilter::Bilinear);
        assert_eq!(wts, [1.0, 0.0]);
        assert_eq!(axis_taps(-0.25, XyFilter::Point).0[0], -1);
        assert_eq!(axis_taps(f64::NAN, XyFilter::Point).0[0], 0);
    }

    #[test]
    fn levels_follow_the_mip_filter_and_the_view() {
        use crate::gfx11::image_desc::ImageFormat;
        // A view of levels 1..=3 of a five-level chain.
        let desc = ImageDescriptor::linear(0, ImageFormat::R32Float, ImageDim::D2, 16, 16, 1)
            .with_levels(5, 1, 3);
        let mut samp = SamplerDescriptor::new(
            [AddressMode::ClampLastTexel; 3],
            XyFilter::Bilinear,
            XyFilter::Bilinear,
        );
        samp.mip_filter = MipFilter::Linear;
        // LOD 1.25: d' = 2.25, levels 2 and 3 at 0.75 / 0.25.
        assert_eq!(
            select_levels(&desc, &samp, 1.25),
            ([(2, 0.75), (3, 0.25)], 2)
        );
        // Past the view's last level: level 3 alone.
        assert_eq!(select_levels(&desc, &samp, 7.0), ([(3, 1.0), (0, 0.0)], 1));
        // At or below 0, and NaN: the base level.
        assert_eq!(select_levels(&desc, &samp, -2.0).0[0], (1, 1.0));
        assert_eq!(select_levels(&desc, &samp, f32::NAN).0[0], (1, 1.0));
        // A fraction below 1/256 is dropped.
        assert_eq!(select_levels(&desc, &samp, 1.001).1, 1);
        // MIN_LOD lifts the LOD.
        samp.min_lod = 1.5;
        assert_eq!(select_levels(&desc, &samp, 0.0), ([(2, 0.5), (3, 0.5)], 2));
        samp.min_lod = 0.0;
        // Point: d' = 2.5 rounds down, 2.51 up.
        samp.mip_filter = MipFilter::Point;
        assert_eq!(select_levels(&desc, &samp, 1.5).0[0], (2, 1.0));
        assert_eq!(select_levels(&desc, &samp, 1.51).0[0], (3, 1.0));
        samp.mip_filter = MipFilter::None;
        assert_eq!(select_levels(&desc, &samp, 2.0).0[0], (1, 1.0));
    }

    #[test]
    fn offsets_unpack_six_signed_bits_per_coordinate() {
        assert_eq!(unpack_offsets(0x0007_3f08), [8, -1, 7]);
        // Bits above each 6-bit field are ignored.
        assert_eq!(unpack_offsets(0xC0C0_E0E0), [-32, -32, 0]);
        assert_eq!(unpack_offsets(0x0038_0020), [-32, 0, -8]);
    }
}
