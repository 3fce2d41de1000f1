//! Sampling with an explicit LOD and gathers through the image harness: the
//! S# is moved into s[20:23] with `s_mov_b32` before the MIMG words, every
//! result is computed on the host from Vulkan's filtering and wrapping
//! rules ("Texel Filtering", "Wrapping Operation") with the weight precision
//! gfxsim documents (fractions quantised down to 1/256).

use super::*;
use aqueduct_isa::gfx11::sampler_desc::{
    AddressMode, BorderColor, CompareFunc, SamplerDescriptor, XyFilter,
};

const SAMPLE_L: u32 = 0x1D;
const SAMPLE_LZ: u32 = 0x1F;
const SAMPLE_C_L: u32 = 0x22;
const SAMPLE_C_LZ: u32 = 0x24;
const GATHER4_LZ: u32 = 0x32;
const GATHER4_C_LZ: u32 = 0x34;
const SAMPLE_D: u32 = 0x1C;
const SAMPLE_D_O: u32 = 0x26;
const SAMPLE_L_O: u32 = 0x27;
const SAMPLE_LZ_O: u32 = 0x29;
const GATHER4_LZ_O: u32 = 0x36;

/// `s_mov_b32 s[20 + k], words[k]` (SOP1 with a literal), then the MIMG
/// words of `op` with ssamp s[20:23], normalised coordinates (UNORM clear).
fn sampling(samp: [u32; 4], op: u32, dim: ImageDim, dmask: u32) -> Vec<u32> {
    let mut code = Vec::new();
    for (k, &v) in samp.iter().enumerate() {
        code.extend([0xBE80_00FF | (20 + k as u32) << 16, v]);
    }
    let [w0, w1] = mimg(op, dim, dmask, 10, 1);
    code.extend([w0 & !0x80, w1 | 5 << 26]);
    code
}

/// A 2D/3D/array R32Float image whose texel (x, y, z) is `value(x, y, z)`.
fn r32_image(dim: ImageDim, (w, h, d): (u32, u32, u32)) -> (ImageDescriptor, Vec<u8>) {
    let desc = ImageDescriptor::linear(IMG, ImageFormat::R32Float, dim, w, h, d);
    let mut bytes = vec![0u8; aqueduct_isa::gfx11::image_desc::linear_size(&desc) as usize];
    for z in 0..d {
        for y in 0..h {
            for x in 0..w {
                let at = host_offset(ImageFormat::R32Float, w, h, x, y, z);
                bytes[at..at + 4].copy_from_slice(&value(x, y, z).to_le_bytes());
            }
        }
    }
    (desc, bytes)
}

/// Distinct, exactly representable texel values.
fn value(x: u32, y: u32, z: u32) -> f32 {
    (x + 10 * y + 100 * z) as f32 + 0.5
}

/// Vulkan's wrap of texel index `i` into 0..n; None for a border texel.
fn host_wrap(i: i64, n: i64, mode: AddressMode) -> Option<i64> {
    match mode {
        AddressMode::Wrap => Some(i.rem_euclid(n)),
        AddressMode::Mirror => {
            let m = |a: i64| if a >= 0 { a } else { -(1 + a) };
            Some((n - 1) - m(i.rem_euclid(2 * n) - n))
        }
        AddressMode::ClampLastTexel => Some(i.clamp(0, n - 1)),
        _ => (0..n).contains(&i).then_some(i),
    }
}

/// Per axis: (index, weight) pairs of a point or linear filter at texel
/// coordinate `u`.
fn host_axis(u: f64, linear: bool) -> Vec<(i64, f64)> {
    if !linear {
        return vec![(u.floor() as i64, 1.0)];
    }
    let t = u - 0.5;
    let i = t.floor();
    let a = ((t - i) * 256.0).floor() / 256.0;
    vec![(i as i64, 1.0 - a), (i as i64 + 1, a)]
}

/// The host's filtered value of an R32Float image at normalised `coords`
/// (axes of `size`), slice `layer`, with `texel` mapping a texel or border
/// (None) to the value being filtered.
fn host_filter(
    size: &[u32],
    coords: &[f32],
    modes: [AddressMode; 3],
    linear: bool,
    texel: &dyn Fn(Option<[i64; 3]>) -> f32,
) -> f32 {
    host_filter_offset(size, coords, [0; 3], modes, linear, texel)
}

/// `host_filter` with texel offsets added to the scaled coordinates.
fn host_filter_offset(
    size: &[u32],
    coords: &[f32],
    offsets: [i64; 3],
    modes: [AddressMode; 3],
    linear: bool,
    texel: &dyn Fn(Option<[i64; 3]>) -> f32,
) -> f32 {
    let axes: Vec<Vec<(i64, f64)>> = coords
        .iter()
        .zip(size)
        .zip(offsets)
        .map(|((&c, &n), o)| host_axis(c as f64 * n as f64 + o as f64, linear))
        .collect();
    let mut sum = 0f64;
    let mut idx = vec![0usize; axes.len()];
    loop {
        let mut pos = [0i64; 3];
        let mut weight = 1.0;
        let mut inside = true;
        for (a, taps) in axes.iter().enumerate() {
            let (i, w) = taps[idx[a]];
            weight *= w;
            match host_wrap(i, size[a] as i64, modes[a]) {
                Some(v) => pos[a] = v,
                None => inside = false,
            }
        }
        sum += weight * texel(inside.then_some(pos)) as f64;
        // Next tap, x fastest.
        let mut a = 0;
        while a < axes.len() {
            idx[a] += 1;
            if idx[a] < axes[a].len() {
                break;
            }
            idx[a] = 0;
            a += 1;
        }
        if a == axes.len() {
            return sum as f32;
        }
    }
}

/// Lane coordinates from -0.6 to 1.5 in steps that land on 1/256 texel
/// fractions for small images (k / 20 of the image, plus an odd offset).
fn lane_coord(l: usize, salt: usize) -> f32 {
    let k = (l * 7 + salt * 5) % 32;
    -0.625 + k as f32 * 0.0703125
}

fn sampler(mode: AddressMode, filter: XyFilter) -> SamplerDescriptor {
    let mut s = SamplerDescriptor::new([mode; 3], filter, filter);
    s.trunc_coord = true;
    s.border_color = BorderColor::OpaqueWhite;
    s
}

const MODES: [AddressMode; 4] = [
    AddressMode::Wrap,
    AddressMode::Mirror,
    AddressMode::ClampLastTexel,
    AddressMode::ClampBorder,
];

#[test]
fn sample_l_2d_filters_and_wraps_like_the_host() {
    let ext = (5, 4, 1);
    let (desc, image) = r32_image(ImageDim::D2, ext);
    for mode in MODES {
        for linear in [false, true] {
            let filter = if linear {
                XyFilter::Bilinear
            } else {
                XyFilter::Point
            };
            let samp = sampler(mode, filter);
            let mut coords = [[0u32; 4]; 32];
            for (l, c) in coords.iter_mut().enumerate() {
                *c = [
                    lane_coord(l, 0).to_bits(),
                    lane_coord(l, 3).to_bits(),
                    (l as f32 * 0.25 - 2.0).to_bits(),
                    0,
                ];
            }
            let run = run_image(
                desc.encode().unwrap(),
                &image,
                &coords,
                &[[0; 4]; 32],
                32,
                &sampling(samp.encode().unwrap(), SAMPLE_L, ImageDim::D2, 0xF),
            )
            .unwrap_or_else(|e| panic!("{mode:?} {linear}: {e:?}"));
            for l in 0..32 {
                let uv = [lane_coord(l, 0), lane_coord(l, 3)];
                let want = host_filter(&[5, 4], &uv, samp.address, linear, &|p| match p {
                    Some([x, y, _]) => value(x as u32, y as u32, 0),
                    None => 1.0,
                });
                // Missing y, z read 0 and w one; a border texel is white in
                // every component.
                let border_share = host_filter(&[5, 4], &uv, samp.address, linear, &|p| {
                    if p.is_some() { 0.0 } else { 1.0 }
                });
                let want = [want, border_share, border_share, 1.0].map(f32::to_bits);
                assert_eq!(
                    run.out[l], want,
                    "{mode:?} linear {linear} lane {l} uv {uv:?}"
                );
            }
        }
    }
}

#[test]
fn the_lod_picks_the_min_or_mag_filter() {
    let (desc, image) = r32_image(ImageDim::D2, (4, 4, 1));
    let mut samp = SamplerDescriptor::new(
        [AddressMode::ClampLastTexel; 3],
        XyFilter::Point,
        XyFilter::Bilinear,
    );
    samp.trunc_coord = true;
    samp.min_lod = 0.0;
    samp.max_lod = 8.0;
    let mut coords = [[0u32; 4]; 32];
    let uv = [0.3125f32, 0.5625];
    for (l, c) in coords.iter_mut().enumerate() {
        // LOD -1, 0, 0.5, 3 by lane.
        let lod = [-1.0f32, 0.0, 0.5, 3.0][l % 4];
        *c = [uv[0].to_bits(), uv[1].to_bits(), lod.to_bits(), 0];
    }
    let run = run_image(
        desc.encode().unwrap(),
        &image,
        &coords,
        &[[0; 4]; 32],
        32,
        &sampling(samp.encode().unwrap(), SAMPLE_L, ImageDim::D2, 0x1),
    )
    .unwrap();
    let texel = |p: Option<[i64; 3]>| {
        let [x, y, _] = p.expect("clamped");
        value(x as u32, y as u32, 0)
    };
    let point = host_filter(&[4, 4], &uv, samp.address, false, &texel);
    let linear = host_filter(&[4, 4], &uv, samp.address, true, &texel);
    assert_ne!(point, linear);
    for l in 0..32 {
        let want = if l % 4 >= 2 { linear } else { point };
        assert_eq!(run.out[l][0], want.to_bits(), "lane {l}");
    }
}

#[test]
fn sample_lz_on_arrays_and_3d() {
    // 2D array: layer = floor(layer + 0.5) clamped to the view.
    let (mut desc, image) = r32_image(ImageDim::D2Array, (3, 2, 4));
    desc.base_array = 1;
    desc.depth = 3;
    let samp = sampler(AddressMode::Wrap, XyFilter::Bilinear);
    let mut coords = [[0u32; 4]; 32];
    for (l, c) in coords.iter_mut().enumerate() {
        let layer = l as f32 * 0.375 - 1.0;
        *c = [
            lane_coord(l, 1).to_bits(),
            lane_coord(l, 2).to_bits(),
            layer.to_bits(),
            0,
        ];
    }
    let run = run_image(
        desc.encode().unwrap(),
        &image,
        &coords,
        &[[0; 4]; 32],
        32,
        &sampling(samp.encode().unwrap(), SAMPLE_LZ, ImageDim::D2Array, 0x1),
    )
    .unwrap();
    for l in 0..32 {
        let layer = ((l as f32 * 0.375 - 1.0 + 0.5).floor()).clamp(0.0, 2.0) as u32;
        let uv = [lane_coord(l, 1), lane_coord(l, 2)];
        let want = host_filter(&[3, 2], &uv, samp.address, true, &|p| {
            let [x, y, _] = p.expect("wrapped");
            value(x as u32, y as u32, layer + 1)
        });
        assert_eq!(run.out[l][0], want.to_bits(), "array lane {l}");
    }
    // 3D: trilinear with the XY filter, mirrored repeat.
    let (desc, image) = r32_image(ImageDim::D3, (3, 3, 4));
    let samp = sampler(AddressMode::Mirror, XyFilter::Bilinear);
    let mut coords = [[0u32; 4]; 32];
    for (l, c) in coords.iter_mut().enumerate() {
        *c = [
            lane_coord(l, 4).to_bits(),
            lane_coord(l, 5).to_bits(),
            lane_coord(l, 6).to_bits(),
            0,
        ];
    }
    let run = run_image(
        desc.encode().unwrap(),
        &image,
        &coords,
        &[[0; 4]; 32],
        32,
        &sampling(samp.encode().unwrap(), SAMPLE_LZ, ImageDim::D3, 0x1),
    )
    .unwrap();
    for l in 0..32 {
        let uvw = [lane_coord(l, 4), lane_coord(l, 5), lane_coord(l, 6)];
        let want = host_filter(&[3, 3, 4], &uvw, samp.address, true, &|p| {
            let [x, y, z] = p.expect("mirrored");
            value(x as u32, y as u32, z as u32)
        });
        assert_eq!(run.out[l][0], want.to_bits(), "3d lane {l}");
    }
}

#[test]
fn comparison_samples_filter_the_test_results() {
    let (desc, image) = r32_image(ImageDim::D2, (4, 3, 1));
    let funcs = [
        CompareFunc::Never,
        CompareFunc::Less,
        CompareFunc::Equal,
        CompareFunc::LessEqual,
        CompareFunc::Greater,
        CompareFunc::NotEqual,
        CompareFunc::GreaterEqual,
        CompareFunc::Always,
    ];
    for (n, func) in funcs.into_iter().enumerate() {
        for (op, lod_operand) in [(SAMPLE_C_LZ, false), (SAMPLE_C_L, true)] {
            let mut samp = sampler(AddressMode::ClampBorder, XyFilter::Bilinear);
            samp.compare = func;
            samp.border_color = BorderColor::TransparentBlack;
            let mut coords = [[0u32; 4]; 32];
            let reference = |l: usize| [11.5f32, 0.25, 12.5, 20.0][(l + n) % 4];
            for (l, c) in coords.iter_mut().enumerate() {
                *c = [
                    reference(l).to_bits(),
                    lane_coord(l, 7).to_bits(),
                    lane_coord(l, 8).to_bits(),
                    if lod_operand { 0.0f32.to_bits() } else { 0 },
                ];
            }
            let run = run_image(
                desc.encode().unwrap(),
                &image,
                &coords,
                &[[0; 4]; 32],
                32,
                &sampling(samp.encode().unwrap(), op, ImageDim::D2, 0x1),
            )
            .unwrap();
            for l in 0..32 {
                let uv = [lane_coord(l, 7), lane_coord(l, 8)];
                let want = host_filter(&[4, 3], &uv, samp.address, true, &|p| {
                    let d = p.map_or(0.0, |[x, y, _]| value(x as u32, y as u32, 0));
                    if func.passes(reference(l), d) {
                        1.0
                    } else {
                        0.0
                    }
                });
                assert_eq!(
                    run.out[l][0],
                    want.to_bits(),
                    "{func:?} op {op:#x} lane {l}"
                );
                assert_eq!(run.out[l][1], SENTINEL, "one component written");
            }
        }
    }
}

#[test]
fn gathers_return_the_footprint_in_wgsl_order() {
    // RGBA8: gather component 1 (G), whose bytes are 3 * x + 40 * y.
    let (w, h) = (4u32, 3u32);
    let desc = ImageDescriptor::linear(IMG, ImageFormat::Rgba8Unorm, ImageDim::D2, w, h, 1);
    let mut image = vec![0u8; aqueduct_isa::gfx11::image_desc::linear_size(&desc) as usize];
    for y in 0..h {
        for x in 0..w {
            let at = host_offset(ImageFormat::Rgba8Unorm, w, h, x, y, 0);
            image[at..at + 4].copy_from_slice(&[x as u8, (3 * x + 40 * y) as u8, 7, 255]);
        }
    }
    let g = |x: i64, y: i64| ((3 * x + 40 * y) as f64 / 255.0) as f32;
    let samp = sampler(AddressMode::Wrap, XyFilter::Point);
    let mut coords = [[0u32; 4]; 32];
    for (l, c) in coords.iter_mut().enumerate() {
        *c = [
            lane_coord(l, 9).to_bits(),
            lane_coord(l, 10).to_bits(),
            0,
            0,
        ];
    }
    let run = run_image(
        desc.encode().unwrap(),
        &image,
        &coords,
        &[[0; 4]; 32],
        32,
        &sampling(samp.encode().unwrap(), GATHER4_LZ, ImageDim::D2, 0x2),
    )
    .unwrap();
    let corners = |l: usize| {
        let ax = host_axis(lane_coord(l, 9) as f64 * w as f64, true);
        let ay = host_axis(lane_coord(l, 10) as f64 * h as f64, true);
        let wx = |i: i64| host_wrap(i, w as i64, AddressMode::Wrap).unwrap();
        let wy = |i: i64| host_wrap(i, h as i64, AddressMode::Wrap).unwrap();
        let (x0, x1, y0, y1) = (wx(ax[0].0), wx(ax[1].0), wy(ay[0].0), wy(ay[1].0));
        [(x0, y1), (x1, y1), (x1, y0), (x0, y0)]
    };
    for l in 0..32 {
        let want = corners(l).map(|(x, y)| g(x, y).to_bits());
        assert_eq!(run.out[l], want, "gather lane {l}");
    }
    // gather4_c on R32Float: the four comparison results.
    let (desc, image) = r32_image(ImageDim::D2, (w, h, 1));
    let mut samp = sampler(AddressMode::Wrap, XyFilter::Bilinear);
    samp.compare = CompareFunc::Less;
    let mut coords = [[0u32; 4]; 32];
    for (l, c) in coords.iter_mut().enumerate() {
        let r = 11.0f32;
        *c = [
            r.to_bits(),
            lane_coord(l, 9).to_bits(),
            lane_coord(l, 10).to_bits(),
            0,
        ];
    }
    let run = run_image(
        desc.encode().unwrap(),
        &image,
        &coords,
        &[[0; 4]; 32],
        32,
        &sampling(samp.encode().unwrap(), GATHER4_C_LZ, ImageDim::D2, 0x1),
    )
    .unwrap();
    for l in 0..32 {
        let want = corners(l).map(|(x, y)| {
            let pass = 11.0 < value(x as u32, y as u32, 0);
            if pass { 1.0f32 } else { 0.0 }.to_bits()
        });
        assert_eq!(run.out[l], want, "gather4_c lane {l}");
    }
}

/// The `_o` dword of texel offsets (6 bits each at 5:0, 13:8, 21:16).
fn pack_offsets(o: [i64; 3]) -> u32 {
    o.iter()
        .enumerate()
        .map(|(a, &v)| (v as u32 & 0x3F) << (8 * a))
        .sum()
}

/// Lane `l`'s texel offsets, -8..=7 as WGSL allows, several crossing the
/// image's edges from the lane coordinates.
fn lane_offsets(l: usize) -> [i64; 3] {
    [
        (l as i64 * 5) % 16 - 8,
        (l as i64 * 3 + 2) % 16 - 8,
        (l as i64 * 7 + 1) % 16 - 8,
    ]
}

#[test]
fn offsets_shift_the_footprint_before_wrapping() {
    let ext = (5, 4, 1);
    let (desc, image) = r32_image(ImageDim::D2, ext);
    for mode in [AddressMode::Wrap, AddressMode::ClampLastTexel] {
        for linear in [false, true] {
            let filter = if linear {
                XyFilter::Bilinear
            } else {
                XyFilter::Point
            };
            let samp = sampler(mode, filter);
            for op in [SAMPLE_LZ_O, SAMPLE_L_O] {
                let mut coords = [[0u32; 4]; 32];
                for (l, c) in coords.iter_mut().enumerate() {
                    *c = [
                        pack_offsets(lane_offsets(l)),
                        lane_coord(l, 0).to_bits(),
                        lane_coord(l, 3).to_bits(),
                        // The LOD of `_l_o`: mag and min filters agree.
                        (l as f32 * 0.25 - 2.0).to_bits(),
                    ];
                }
                let run = run_image(
                    desc.encode().unwrap(),
                    &image,
                    &coords,
                    &[[0; 4]; 32],
                    32,
                    &sampling(samp.encode().unwrap(), op, ImageDim::D2, 0x1),
                )
                .unwrap_or_else(|e| panic!("{mode:?} {linear}: {e:?}"));
                for l in 0..32 {
                    let uv = [lane_coord(l, 0), lane_coord(l, 3)];
                    let want = host_filter_offset(
                        &[5, 4],
                        &uv,
                        lane_offsets(l),
                        samp.address,
                        linear,
                        &|p| {
                            let [x, y, _] = p.expect("wrapped or clamped");
                            value(x as u32, y as u32, 0)
                        },
                    );
                    assert_eq!(
                        run.out[l][0],
                        want.to_bits(),
                        "{mode:?} linear {linear} op {op:#x} lane {l} uv {uv:?}"
                    );
                }
            }
        }
    }
    // gather4_lz_o: the offset footprint's corners, clamped.
    let samp = sampler(AddressMode::ClampLastTexel, XyFilter::Point);
    let mut coords = [[0u32; 4]; 32];
    for (l, c) in coords.iter_mut().enumerate() {
        *c = [
            pack_offsets(lane_offsets(l)),
            lane_coord(l, 9).to_bits(),
            lane_coord(l, 10).to_bits(),
            0,
        ];
    }
    let run = run_image(
        desc.encode().unwrap(),
        &image,
        &coords,
        &[[0; 4]; 32],
        32,
        &sampling(samp.encode().unwrap(), GATHER4_LZ_O, ImageDim::D2, 0x1),
    )
    .unwrap();
    for l in 0..32 {
        let [ox, oy, _] = lane_offsets(l);
        let ax = host_axis(lane_coord(l, 9) as f64 * 5.0 + ox as f64, true);
        let ay = host_axis(lane_coord(l, 10) as f64 * 4.0 + oy as f64, true);
        let c = |x: i64, y: i64| {
            let x = host_wrap(x, 5, AddressMode::ClampLastTexel).unwrap();
            let y = host_wrap(y, 4, AddressMode::ClampLastTexel).unwrap();
            value(x as u32, y as u32, 0).to_bits()
        };
        let (x0, x1, y0, y1) = (ax[0].0, ax[1].0, ay[0].0, ay[1].0);
        let want = [c(x0, y1), c(x1, y1), c(x1, y0), c(x0, y0)];
        assert_eq!(run.out[l], want, "gather4_lz_o lane {l}");
    }
}

/// `image_sample_d`: the LOD of the derivatives (scaled by the image's
/// extent, λ = log2 of the longer length) picks XY_MAG_FILTER at or below
/// 0 and XY_MIN_FILTER above it; `_d_o` adds the offsets as well.
#[test]
fn derivatives_choose_the_filter_by_their_lod() {
    let (desc, image) = r32_image(ImageDim::D2, (8, 4, 1));
    let mut samp = SamplerDescriptor::new(
        [AddressMode::Mirror; 3],
        XyFilter::Point,
        XyFilter::Bilinear,
    );
    samp.trunc_coord = true;
    // Per lane (ddx, ddy) in normalized units: texel lengths 0.5, 1 (λ 0),
    // 1.25 by ddy, 2.5 diagonally (8 * 0.25, 4 * 0.375), 0.
    let derivs = |l: usize| -> ([f32; 2], [f32; 2]) {
        match l % 5 {
            0 => ([0.0625, 0.0], [0.0, 0.0625]),
            1 => ([0.125, 0.0], [0.0, 0.25]),
            2 => ([0.0, 0.0], [0.0, 0.3125]),
            3 => ([0.25, 0.375], [0.0, 0.0]),
            _ => ([0.0, 0.0], [0.0, 0.0]),
        }
    };
    for (op, offset) in [(SAMPLE_D, false), (SAMPLE_D_O, true)] {
        let mut coords = [[0u32; 4]; 32];
        let mut data = [[0u32; 4]; 32];
        for l in 0..32 {
            let (dx, dy) = derivs(l);
            let mut regs = Vec::new();
            if offset {
                regs.push(pack_offsets(lane_offsets(l)));
            }
            regs.extend([dx[0], dx[1], dy[0], dy[1]].map(f32::to_bits));
            regs.extend([lane_coord(l, 4), lane_coord(l, 5)].map(f32::to_bits));
            regs.resize(8, 0);
            coords[l].copy_from_slice(&regs[..4]);
            data[l].copy_from_slice(&regs[4..]);
        }
        let run = run_image(
            desc.encode().unwrap(),
            &image,
            &coords,
            &data,
            32,
            &sampling(samp.encode().unwrap(), op, ImageDim::D2, 0x1),
        )
        .unwrap_or_else(|e| panic!("op {op:#x}: {e:?}"));
        for l in 0..32 {
            let linear = matches!(l % 5, 2 | 3);
            let uv = [lane_coord(l, 4), lane_coord(l, 5)];
            let offsets = if offset { lane_offsets(l) } else { [0; 3] };
            let want = host_filter_offset(&[8, 4], &uv, offsets, samp.address, linear, &|p| {
                let [x, y, _] = p.expect("mirrored");
                value(x as u32, y as u32, 0)
            });
            assert_eq!(
                run.out[l][0],
                want.to_bits(),
                "op {op:#x} lane {l} linear {linear}"
            );
        }
    }
}

#[test]
fn unmodelled_sampling_is_refused_by_name() {
    let (desc, image) = r32_image(ImageDim::D2, (4, 4, 1));
    let linear = sampler(AddressMode::Wrap, XyFilter::Bilinear)
        .encode()
        .unwrap();
    let mut aniso = linear;
    aniso[0] |= 2 << 9;
    let mut bias = sampler(AddressMode::Wrap, XyFilter::Bilinear);
    bias.lod_bias = 1.0;
    let mut no_trunc = sampler(AddressMode::Wrap, XyFilter::Point);
    no_trunc.trunc_coord = false;
    let uint = ImageDescriptor::linear(IMG, ImageFormat::R32Uint, ImageDim::D2, 4, 4, 1);
    let cube = ImageDescriptor::linear(IMG, ImageFormat::R32Float, ImageDim::Cube, 4, 4, 6)
        .encode()
        .unwrap();
    let cases: [(Vec<u32>, [u32; 8], &str); 8] = [
        (
            sampling(aniso, SAMPLE_LZ, ImageDim::D2, 1),
            desc.encode().unwrap(),
            "image_sample_lz (sampler MAX_ANISO_RATIO 2 (anisotropic filtering) is not modelled)",
        ),
        (
            sampling(bias.encode().unwrap(), SAMPLE_L, ImageDim::D2, 1),
            desc.encode().unwrap(),
            "image_sample_l (sampler LOD_BIAS with an explicit LOD)",
        ),
        (
            sampling(no_trunc.encode().unwrap(), SAMPLE_LZ, ImageDim::D2, 1),
            desc.encode().unwrap(),
            "image_sample_lz (point sampling without TRUNC_COORD)",
        ),
        (
            sampling(linear, SAMPLE_LZ, ImageDim::D2, 1),
            uint.encode().unwrap(),
            "image_sample_lz (linear filtering of an integer format)",
        ),
        (
            sampling(linear, GATHER4_LZ, ImageDim::D2, 3),
            desc.encode().unwrap(),
            "image_gather4_lz (dmask other than one component)",
        ),
        (
            sampling(linear, SAMPLE_LZ, ImageDim::D2Array, 1),
            ImageDescriptor::linear(IMG, ImageFormat::R32Float, ImageDim::Cube, 4, 4, 6)
                .encode()
                .unwrap(),
            "image_sample_lz (a cube T# sampled with a 2D-array dim)",
        ),
        (
            sampling(linear, SAMPLE_D_O, ImageDim::Cube, 1),
            cube,
            "image_sample_d_o (offsets on a cube image)",
        ),
        (
            sampling(linear, SAMPLE_LZ_O, ImageDim::Cube, 1),
            cube,
            "image_sample_lz_o (offsets on a cube image)",
        ),
    ];
    let big = vec![0u8; 6 * 4 * 256];
    for (code, tsharp, name) in cases {
        let img = if name.contains("cube") { &big } else { &image };
        let err = run_image(tsharp, img, &[[0; 4]; 32], &[[0; 4]; 32], 32, &code)
            .err()
            .unwrap_or_else(|| panic!("{name}: ran"));
        match err.kind {
            WaveErrorKind::IllegalInstruction { mnemonic, .. } => {
                assert_eq!(mnemonic.as_deref(), Some(name));
            }
            other => panic!("{name}: {other:?}"),
        }
    }
}

/// Cube sampling (`dim:SQ_RSRC_IMG_CUBE`) of a two-cube array: the address
/// is Mesa's (s, t) = face coordinate + 1 and slice = 8 * cube + face;
/// point samples pick the face's texel, linear ones inside a face filter
/// like 2D, and a linear sample on +X's left edge blends with the +Z
/// column across it (Vulkan "Cube Map Edge Handling").
#[test]
fn cube_sampling_addresses_faces_and_wraps_edges() {
    const N: u32 = 4;
    let (mut desc, image) = r32_image(ImageDim::D2Array, (N, N, 12));
    desc.dim = ImageDim::Cube;
    let tsharp = desc.encode().unwrap();
    let at = |x: u32, y: u32, layer: u32| value(x, y, layer);
    for linear in [false, true] {
        let filter = if linear {
            XyFilter::Bilinear
        } else {
            XyFilter::Point
        };
        // Address modes do not apply to cube sampling: Wrap would change
        // the edge lane's result if they did.
        let samp = sampler(AddressMode::Wrap, filter);
        let mut coords = [[0u32; 4]; 32];
        let lane = |l: usize| {
            let (cube, face) = ((l / 6) as u32 % 2, l as u32 % 6);
            // Interior positions on 1/8 texel steps (exact weights).
            let s = 1.0 + (0.125 + 0.0625 * (l % 12) as f32);
            let t = 1.0 + (0.8125 - 0.0625 * (l % 10) as f32);
            (cube, face, s, t)
        };
        for (l, c) in coords.iter_mut().enumerate().take(31) {
            let (cube, face, s, t) = lane(l);
            *c = [
                s.to_bits(),
                t.to_bits(),
                ((8 * cube + face) as f32).to_bits(),
                0,
            ];
        }
        // Lane 31: the left edge of +X (face 0) of cube 1, row 2's centre.
        coords[31] = [1.0f32.to_bits(), 1.625f32.to_bits(), 8.0f32.to_bits(), 0];
        let run = run_image(
            tsharp,
            &image,
            &coords,
            &[[0; 4]; 32],
            32,
            &sampling(samp.encode().unwrap(), SAMPLE_L, ImageDim::Cube, 1),
        )
        .unwrap_or_else(|e| panic!("linear {linear}: {e:?}"));
        for l in 0..31 {
            let (cube, face, s, t) = lane(l);
            let layer = 6 * cube + face;
            let want = host_filter(
                &[N, N],
                &[s - 1.0, t - 1.0],
                [AddressMode::ClampLastTexel; 3],
                linear,
                &|p| {
                    let [x, y, _] = p.expect("clamped");
                    at(x as u32, y as u32, layer)
                },
            );
            assert_eq!(run.out[l][0], want.to_bits(), "linear {linear} lane {l}");
        }
        // +X column 0 and, across the edge, +Z (layer 6 + 4) column 3.
        let edge = if linear {
            0.5 * at(0, 2, 6) + 0.5 * at(N - 1, 2, 10)
        } else {
            at(0, 2, 6)
        };
        assert_eq!(run.out[31][0], edge.to_bits(), "linear {linear} edge");
    }
}
