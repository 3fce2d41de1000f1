//! Mip chains of 2D-array, cube and 3D textures: every level of every layer
//! (or depth slice) in one chain, a level's layers a whole chain apart.
//! Views of several levels sample across them with `textureSampleLevel`
//! at fractional LODs under nearest and linear mipmap filters (trilinear
//! for 3D), against a host model of Vulkan's level selection and each
//! level's clamp-to-edge bilinear (or trilinear) filter; they answer
//! `textureNumLevels` and `textureDimensions(t, 1)` and read
//! `textureLoad` at level 1. Copies in every direction and clears of
//! level and layer ranges of an array chain, and of a 3D chain's levels,
//! are checked byte-exact against a host model of every level; mipmap
//! generation of an array chain reads level N and writes level N+1 of the
//! same texture in one dispatch (disjoint subresources, overlapping byte
//! ranges).

use super::cube::{face_of, toward};
use super::mips::{Model, at_level, level_size, mip_texture, read_level};
use super::sampling::{run_inputs, taps, wrap};
use super::*;

/// Texel (x, y) of layer or depth slice `z` of level `l`: distinct small
/// integers, exact in every blend.
fn value(l: u32, x: u32, y: u32, z: u32) -> f32 {
    (1000 * l + 100 * z + 10 * y + x) as f32
}

/// The levels a lane reads and their weights (Vulkan "Texel Filtering",
/// level selection): `d' = base + clamp(lod, 0, count - 1)`, nearest level
/// `ceil(d' + 0.5) - 1`, linear blend of `floor(d')` and the next (within
/// the view) by the fraction quantised to 8 bits, the sub-texel precision
/// gfxsim applies; a LOD at or below 0 reads the base level.
pub(super) fn mip_weights(
    lod: f32,
    base: u32,
    count: u32,
    mipmap: MipmapFilterMode,
) -> Vec<(u32, f64)> {
    if lod <= 0.0 {
        return vec![(base, 1.0)];
    }
    let d = f64::from(base) + f64::from(lod.min((count - 1) as f32));
    let last = base + count - 1;
    match mipmap {
        MipmapFilterMode::Nearest => {
            vec![((((d + 0.5).ceil() - 1.0) as u32).clamp(base, last), 1.0)]
        }
        MipmapFilterMode::Linear => {
            let hi = d.floor();
            let f = ((d - hi) * 256.0).floor() / 256.0;
            let hi = hi as u32;
            vec![(hi, 1.0 - f), ((hi + 1).min(last), f)]
        }
    }
}

/// One level's linear sample at normalised `coord` (two axes, or three for
/// 3D) on a level of `size`, clamped to edge; `texel` reads (x, y, z).
fn filter_level(size: [u32; 3], coord: &[f64], texel: &dyn Fn([u32; 3]) -> f32) -> f64 {
    let axis = |a: usize| taps(coord[a] * f64::from(size[a]), FilterMode::Linear);
    let clamp = |i: i64, a: usize| wrap(AddressMode::ClampToEdge, i, size[a]).unwrap();
    let tz = if coord.len() == 3 {
        axis(2)
    } else {
        vec![(0, 1.0)]
    };
    let mut acc = 0.0;
    for &(k, wz) in &tz {
        for (j, wy) in axis(1) {
            for (i, wx) in axis(0) {
                let z = if coord.len() == 3 { clamp(k, 2) } else { 0 };
                acc += wx * wy * wz * f64::from(texel([clamp(i, 0), clamp(j, 1), z]));
            }
        }
    }
    acc
}

/// The sizes of a 3D texture's levels (every dimension halved, never below
/// one).
fn volume_sizes(size: [u32; 3], levels: u32) -> Vec<[u32; 3]> {
    (0..levels).map(|l| size.map(|s| (s >> l).max(1))).collect()
}

/// Fill every level of `t` (of the given level sizes) with [`value`].
fn write_levels(c: &Ctx, t: &Texture, sizes: &[[u32; 3]]) {
    for (level, s) in sizes.iter().enumerate() {
        let l = level as u32;
        let data: Vec<f32> = (0..s[2])
            .flat_map(|z| (0..s[1]).flat_map(move |y| (0..s[0]).map(move |x| value(l, x, y, z))))
            .collect();
        expect_valid(&c.device, || {
            c.queue.write_texture(
                at_level(t, l, [0, 0, 0]),
                bytemuck::cast_slice(&data),
                TexelCopyBufferLayout {
                    offset: 0,
                    bytes_per_row: Some(s[0] * 4),
                    rows_per_image: Some(s[1]),
                },
                extent(*s),
            )
        });
    }
}

/// LODs with fractions on and off the 8-bit grid, below 0 and past the
/// last level.
const LODS: [f32; 11] = [-0.5, 0.0, 0.25, 0.5, 0.7, 1.0, 1.3, 1.5, 2.4, 2.75, 4.0];

/// Run `p` over `queries` with `view` under nearest and linear mipmap
/// filters (linear within a level); check each result's x against
/// `want(query, level)` blended by [`mip_weights`] for the view's levels
/// `base..base + count`; give the two results after the queries of each
/// run.
fn check_across_levels(
    c: &Ctx,
    p: &ComputePipeline,
    view: &TextureView,
    queries: &[[f32; 4]],
    lod_of: &dyn Fn(&[f32; 4]) -> f32,
    want: &dyn Fn(&[f32; 4], u32) -> f64,
) -> Vec<[[f32; 4]; 2]> {
    let levels = view.mip_levels();
    let (base, count) = (levels.start, levels.len() as u32);
    let mut extras = Vec::new();
    for mipmap in [MipmapFilterMode::Nearest, MipmapFilterMode::Linear] {
        let s = expect_valid(&c.device, || {
            c.device.create_sampler(&SamplerDescriptor {
                mag_filter: FilterMode::Linear,
                min_filter: FilterMode::Linear,
                mipmap_filter: mipmap,
                ..Default::default()
            })
        });
        let n = queries.len();
        let got = run_inputs(c, p, view, &s, bytemuck::cast_slice(queries), n + 2);
        for (q, g) in queries.iter().zip(&got) {
            let w: f64 = mip_weights(lod_of(q), base, count, mipmap)
                .into_iter()
                .map(|(level, weight)| weight * want(q, level))
                .sum();
            assert!(
                (w as f32 - g[0]).abs() <= 1e-6 * w.abs() as f32 + 1e-4,
                "{mipmap:?} levels {levels:?}: query {q:?} wants {w}, got {}",
                g[0]
            );
        }
        extras.push([got[n], got[n + 1]]);
    }
    extras
}

/// Texture-binding shaders: `q` holds the queries, `out` one result per
/// query and then the view's level count, level 1's size and (arrays and
/// 3D) a `textureLoad` at level 1 of its last texel in x (and z).
const ARRAY: &str = "@group(0) @binding(0) var t: texture_2d_array<f32>;
@group(0) @binding(1) var s: sampler;
@group(0) @binding(2) var<storage, read> q: array<vec4<f32>>;
@group(0) @binding(3) var<storage, read_write> out: array<vec4<f32>>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    let n = arrayLength(&q);
    if (id.x < n) {
        let p = q[id.x];
        out[id.x] = textureSampleLevel(t, s, p.xy, i32(p.z), p.w);
    }
    if (id.x == n) {
        let d = textureDimensions(t, 1);
        out[n] = vec4<f32>(f32(textureNumLevels(t)), f32(d.x), f32(d.y),
            f32(textureNumLayers(t)));
        out[n + 1u] = textureLoad(t, vec2<u32>(d.x - 1u, 0u), 1, 1);
    }
}";

const CUBE: &str = "@group(0) @binding(0) var t: texture_cube<f32>;
@group(0) @binding(1) var s: sampler;
@group(0) @binding(2) var<storage, read> q: array<vec4<f32>>;
@group(0) @binding(3) var<storage, read_write> out: array<vec4<f32>>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    let n = arrayLength(&q);
    if (id.x < n) {
        let p = q[id.x];
        out[id.x] = textureSampleLevel(t, s, p.xyz, p.w);
    }
    if (id.x == n) {
        let d = textureDimensions(t, 1);
        out[n] = vec4<f32>(f32(textureNumLevels(t)), f32(d.x), f32(d.y), 0.0);
        out[n + 1u] = vec4<f32>(0.0);
    }
}";

const VOLUME: &str = "@group(0) @binding(0) var t: texture_3d<f32>;
@group(0) @binding(1) var s: sampler;
@group(0) @binding(2) var<storage, read> q: array<vec4<f32>>;
@group(0) @binding(3) var<storage, read_write> out: array<vec4<f32>>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    let n = arrayLength(&q);
    if (id.x < n) {
        let p = q[id.x];
        out[id.x] = textureSampleLevel(t, s, p.xyz, p.w);
    }
    if (id.x == n) {
        let d = textureDimensions(t, 1);
        out[n] = vec4<f32>(f32(textureNumLevels(t)), f32(d.x), f32(d.y), f32(d.z));
        out[n + 1u] = textureLoad(t, vec3<u32>(d.x - 1u, 0u, d.z - 1u), 1);
    }
}";

/// A view of `levels` levels from `base` (and, for arrays, `layers`
/// layers from `first`).
fn levels_view(
    c: &Ctx,
    t: &Texture,
    dimension: TextureViewDimension,
    base: u32,
    levels: u32,
    layers: Option<(u32, u32)>,
) -> TextureView {
    let (first, count) = layers.map_or((0, None), |(f, n)| (f, Some(n)));
    expect_valid(&c.device, || {
        t.create_view(&TextureViewDescriptor {
            dimension: Some(dimension),
            base_mip_level: base,
            mip_level_count: Some(levels),
            base_array_layer: first,
            array_layer_count: count,
            ..Default::default()
        })
    })
}

/// A 2D-array chain (16x8, 3 layers, 4 levels) sampled across levels
/// through a view of layers 1..3 and all levels, and one of all layers
/// and levels 1..=2.
#[test]
fn array_chain_samples_across_levels() {
    if !texture_shaders("array_chain_samples_across_levels") {
        return;
    }
    let c = ctx();
    let size = [16, 8, 3];
    let t = expect_valid(&c.device, || {
        mip_texture(&c, TextureDimension::D2, TextureFormat::R32Float, size, 4)
    });
    let sizes: Vec<[u32; 3]> = (0..4).map(|l| level_size(size, l)).collect();
    write_levels(&c, &t, &sizes);
    let p = wgsl_pipeline(&c, ARRAY);
    let d2a = TextureViewDimension::D2Array;
    for (base, levels, first, layers) in [(0, 4, 1, 2), (1, 2, 0, 3)] {
        let view = levels_view(&c, &t, d2a, base, levels, Some((first, layers)));
        // Coordinates on 1/32 steps keep every level's weights exact.
        let queries: Vec<[f32; 4]> = LODS
            .iter()
            .enumerate()
            .flat_map(|(i, &lod)| {
                (0..5u32).map(move |k| {
                    let u = ((7 * i as u32 + 5 * k) % 32) as f32 / 32.0;
                    let v = ((3 * i as u32 + 11 * k) % 32) as f32 / 32.0;
                    [u, v, ((i as u32 + k) % layers) as f32, lod]
                })
            })
            .collect();
        let want = |q: &[f32; 4], level: u32| {
            let layer = first + q[2] as u32;
            let texel = |[x, y, _]: [u32; 3]| value(level, x, y, layer);
            filter_level(sizes[level as usize], &[q[0], q[1]].map(f64::from), &texel)
        };
        for [info, load] in check_across_levels(&c, &p, &view, &queries, &|q| q[3], &want) {
            let s1 = sizes[(base + 1) as usize];
            assert_eq!(
                info,
                [levels as f32, s1[0] as f32, s1[1] as f32, layers as f32]
            );
            assert_eq!(load[0], value(base + 1, s1[0] - 1, 0, first + 1));
        }
    }
}

/// A cube chain (16x16 faces, 4 levels) sampled by direction across
/// levels through a view of all levels and one of levels 1..=3; the
/// directions keep each level's footprint on its face (face coordinates
/// within 7/16 of the centre, so 2x2 faces' taps stay inside).
#[test]
fn cube_chain_samples_across_levels() {
    if !texture_shaders("cube_chain_samples_across_levels") {
        return;
    }
    let c = ctx();
    let t = expect_valid(&c.device, || {
        mip_texture(
            &c,
            TextureDimension::D2,
            TextureFormat::R32Float,
            [16, 16, 6],
            4,
        )
    });
    let sizes: Vec<[u32; 3]> = (0..4).map(|l| level_size([16, 16, 6], l)).collect();
    write_levels(&c, &t, &sizes);
    let p = wgsl_pipeline(&c, CUBE);
    let queries: Vec<[f32; 4]> = LODS
        .iter()
        .enumerate()
        .flat_map(|(i, &lod)| {
            (0..5u32).map(move |k| {
                let n = 5 * i as u32 + k;
                let a = ((n * 5) % 15) as f32 / 16.0 - 7.0 / 16.0;
                let b = ((n * 7 + 3) % 15) as f32 / 16.0 - 7.0 / 16.0;
                let m = [1.0, 2.0, 0.5][n as usize % 3];
                let [x, y, z] = toward(n % 6, a, b, m);
                [x, y, z, lod]
            })
        })
        .collect();
    let want = |q: &[f32; 4], level: u32| {
        let (face, s, t) = face_of([q[0], q[1], q[2]]);
        let texel = |[x, y, _]: [u32; 3]| value(level, x, y, face);
        filter_level(sizes[level as usize], &[s, t], &texel)
    };
    let cube = TextureViewDimension::Cube;
    for (base, levels) in [(0, 4), (1, 3)] {
        let view = levels_view(&c, &t, cube, base, levels, None);
        for [info, _] in check_across_levels(&c, &p, &view, &queries, &|q| q[3], &want) {
            let s1 = sizes[(base + 1) as usize];
            assert_eq!(info, [levels as f32, s1[0] as f32, s1[1] as f32, 0.0]);
        }
    }
}

/// A 3D chain (8x8x4, 4 levels: depth 4, 2, 1, 1) sampled trilinearly
/// across levels through a view of all levels and one of levels 1..=3.
#[test]
fn volume_chain_samples_across_levels() {
    if !texture_shaders("volume_chain_samples_across_levels") {
        return;
    }
    let c = ctx();
    let size = [8, 8, 4];
    let t = expect_valid(&c.device, || {
        mip_texture(&c, TextureDimension::D3, TextureFormat::R32Float, size, 4)
    });
    let sizes = volume_sizes(size, 4);
    write_levels(&c, &t, &sizes);
    let p = wgsl_pipeline(&c, VOLUME);
    let queries: Vec<[f32; 4]> = LODS
        .iter()
        .enumerate()
        .flat_map(|(i, &lod)| {
            (0..5u32).map(move |k| {
                let u = ((7 * i as u32 + 5 * k) % 32) as f32 / 32.0;
                let v = ((3 * i as u32 + 11 * k) % 32) as f32 / 32.0;
                let w = ((5 * i as u32 + 3 * k) % 16) as f32 / 16.0;
                [u, v, w, lod]
            })
        })
        .collect();
    let want = |q: &[f32; 4], level: u32| {
        let texel = |[x, y, z]: [u32; 3]| value(level, x, y, z);
        filter_level(
            sizes[level as usize],
            &[q[0], q[1], q[2]].map(f64::from),
            &texel,
        )
    };
    for (base, levels) in [(0, 4), (1, 3)] {
        let view = levels_view(&c, &t, TextureViewDimension::D3, base, levels, None);
        for [info, load] in check_across_levels(&c, &p, &view, &queries, &|q| q[3], &want) {
            let s1 = sizes[(base + 1) as usize];
            assert_eq!(
                info,
                [levels as f32, s1[0] as f32, s1[1] as f32, s1[2] as f32]
            );
            assert_eq!(load[0], value(base + 1, s1[0] - 1, 0, s1[2] - 1));
        }
    }
}

/// Every level of `t` read back equals the model's.
fn check_levels(c: &Ctx, t: &Texture, model: &Model, sizes: &[[u32; 3]], what: &str) {
    for (level, s) in sizes.iter().enumerate() {
        assert_eq!(
            read_level(c, t, level as u32, *s, 4),
            model.get(level as u32, [0, 0, 0], *s),
            "{what} level {level}"
        );
    }
}

/// Copies and clears of level and layer ranges of an array chain (a
/// level's layers a whole chain apart), byte-exact against a host model
/// of every level: write_texture and copy_buffer_to_texture into a box
/// of two layers of level 1, a texture-to-texture copy of two layers from
/// level 0 into another chain's level 1 and one between layers of level
/// 2, then a clear of levels 1..=2 of layers 1..=2; every texel outside
/// the cleared range keeps its bytes.
#[test]
fn array_chain_copies_and_clears_by_level_and_layer() {
    let c = ctx();
    let f = TextureFormat::Rgba8Unorm;
    let size = [10, 6, 4];
    let a = expect_valid(&c.device, || {
        mip_texture(&c, TextureDimension::D2, f, size, 4)
    });
    let b = expect_valid(&c.device, || {
        mip_texture(&c, TextureDimension::D2, f, size, 3)
    });
    let sizes_a: Vec<[u32; 3]> = (0..4).map(|l| level_size(size, l)).collect();
    let sizes_b = sizes_a[..3].to_vec();
    let (mut ma, mut mb) = (
        Model::of_sizes(4, sizes_a.clone()),
        Model::of_sizes(4, sizes_b.clone()),
    );
    for (t, m, sizes, seed) in [(&a, &mut ma, &sizes_a, 40), (&b, &mut mb, &sizes_b, 50)] {
        for (level, s) in sizes.iter().enumerate() {
            let data = pattern((s[0] * s[1] * s[2] * 4) as usize, seed + level as u32);
            c.queue.write_texture(
                at_level(t, level as u32, [0, 0, 0]),
                &data,
                TexelCopyBufferLayout {
                    offset: 0,
                    bytes_per_row: Some(s[0] * 4),
                    rows_per_image: Some(s[1]),
                },
                extent(*s),
            );
            m.put(level as u32, [0, 0, 0], *s, &data);
        }
    }
    // write_texture: a 3x2 box of layers 2..4 of level 1 (5x3) at (2, 1).
    let data = pattern(3 * 2 * 2 * 4, 1);
    c.queue.write_texture(
        at_level(&a, 1, [2, 1, 2]),
        &data,
        TexelCopyBufferLayout {
            offset: 0,
            bytes_per_row: Some(3 * 4),
            rows_per_image: Some(2),
        },
        extent([3, 2, 2]),
    );
    ma.put(1, [2, 1, 2], [3, 2, 2], &data);
    // copy_buffer_to_texture: 2x2 of layers 0..2 of level 1 at (0, 0),
    // from 256-byte rows at an offset.
    let src_bytes = pattern(1024, 2);
    let src = c.device.create_buffer_init(&util::BufferInitDescriptor {
        label: None,
        contents: &src_bytes,
        usage: BufferUsages::COPY_SRC,
    });
    let mut enc = c.device.create_command_encoder(&Default::default());
    enc.copy_buffer_to_texture(
        wgt::TexelCopyBufferInfo {
            buffer: &src,
            layout: TexelCopyBufferLayout {
                offset: 8,
                bytes_per_row: Some(256),
                rows_per_image: Some(2),
            },
        },
        at_level(&a, 1, [0, 0, 0]),
        extent([2, 2, 2]),
    );
    let mut tight = Vec::new();
    for z in 0..2 {
        for y in 0..2 {
            let at = 8 + z * 512 + y * 256;
            tight.extend_from_slice(&src_bytes[at..at + 8]);
        }
    }
    ma.put(1, [0, 0, 0], [2, 2, 2], &tight);
    // Level 0 of a (layers 1..3) into level 1 of b (layers 2..4).
    enc.copy_texture_to_texture(
        at_level(&a, 0, [5, 2, 1]),
        at_level(&b, 1, [1, 0, 2]),
        extent([4, 3, 2]),
    );
    let moved = ma.get(0, [5, 2, 1], [4, 3, 2]);
    mb.put(1, [1, 0, 2], [4, 3, 2], &moved);
    // Between layers of one level: layer 3 → layer 0 of level 2 (2x1).
    enc.copy_texture_to_texture(
        at_level(&a, 2, [0, 0, 3]),
        at_level(&a, 2, [0, 0, 0]),
        extent([2, 1, 1]),
    );
    let moved = ma.get(2, [0, 0, 3], [2, 1, 1]);
    ma.put(2, [0, 0, 0], [2, 1, 1], &moved);
    enc.clear_texture(
        &a,
        &wgt::ImageSubresourceRange {
            aspect: TextureAspect::All,
            base_mip_level: 1,
            mip_level_count: Some(2),
            base_array_layer: 1,
            array_layer_count: Some(2),
        },
    );
    for level in 1..3 {
        let s = sizes_a[level as usize];
        ma.put(
            level,
            [0, 0, 1],
            [s[0], s[1], 2],
            &vec![0; (s[0] * s[1] * 2 * 4) as usize],
        );
    }
    expect_valid(&c.device, || c.queue.submit([enc.finish()]));
    check_levels(&c, &a, &ma, &sizes_a, "a");
    check_levels(&c, &b, &mb, &sizes_b, "b");
}

/// A 3D chain (6x4x5, 3 levels: 6x4x5, 3x2x2, 1x1x1) keeps each level's
/// depth slices a chain apart: a clear of level 1 zeroes its two slices
/// alone, and a copy from level 0 into both slices of level 1 lands there.
#[test]
fn volume_chain_copies_and_clears_by_level() {
    let c = ctx();
    let size = [6, 4, 5];
    let t = expect_valid(&c.device, || {
        mip_texture(&c, TextureDimension::D3, TextureFormat::Rgba8Unorm, size, 3)
    });
    let sizes = volume_sizes(size, 3);
    let mut model = Model::of_sizes(4, sizes.clone());
    for (level, s) in sizes.iter().enumerate() {
        let data = pattern((s[0] * s[1] * s[2] * 4) as usize, 60 + level as u32);
        c.queue.write_texture(
            at_level(&t, level as u32, [0, 0, 0]),
            &data,
            TexelCopyBufferLayout {
                offset: 0,
                bytes_per_row: Some(s[0] * 4),
                rows_per_image: Some(s[1]),
            },
            extent(*s),
        );
        model.put(level as u32, [0, 0, 0], *s, &data);
    }
    let mut enc = c.device.create_command_encoder(&Default::default());
    enc.clear_texture(
        &t,
        &wgt::ImageSubresourceRange {
            base_mip_level: 1,
            mip_level_count: Some(1),
            ..Default::default()
        },
    );
    let s1 = sizes[1];
    model.put(
        1,
        [0, 0, 0],
        s1,
        &vec![0; (s1[0] * s1[1] * s1[2] * 4) as usize],
    );
    enc.copy_texture_to_texture(
        at_level(&t, 0, [3, 1, 2]),
        at_level(&t, 1, [1, 0, 0]),
        extent([2, 2, 2]),
    );
    let moved = model.get(0, [3, 1, 2], [2, 2, 2]);
    model.put(1, [1, 0, 0], [2, 2, 2], &moved);
    expect_valid(&c.device, || c.queue.submit([enc.finish()]));
    check_levels(&c, &t, &model, &sizes, "volume");
}

const ARRAY_MIPMAP: &str = "@group(0) @binding(0) var src: texture_2d_array<f32>;
@group(0) @binding(1) var dst: texture_storage_2d_array<r32float, write>;
@compute @workgroup_size(4, 4, 1)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    let size = textureDimensions(dst);
    if (id.x >= size.x || id.y >= size.y) { return; }
    let p = vec2<u32>(id.xy) * 2u;
    let l = id.z;
    let a = textureLoad(src, p, l, 0).x;
    let b = textureLoad(src, p + vec2<u32>(1u, 0u), l, 0).x;
    let c = textureLoad(src, p + vec2<u32>(0u, 1u), l, 0).x;
    let d = textureLoad(src, p + vec2<u32>(1u, 1u), l, 0).x;
    textureStore(dst, id.xy, l, vec4<f32>((((a + b) + c) + d) * 0.25, 0.0, 0.0, 1.0));
}";

/// Mipmap generation of a 2D-array chain (16x16, 2 layers, 5 levels), all
/// passes in one submission: each dispatch reads level N of both layers
/// through a sampled view and writes level N+1 through a storage view of
/// the same texture. The two views' byte ranges overlap (each covers the
/// levels between its layers), their subresources do not, so the dispatch
/// is valid; every level matches the host's box filter. A storage view
/// of level N beside the sampled one is a writable alias.
#[test]
fn array_chain_mipmap_generation() {
    if !texture_shaders("array_chain_mipmap_generation") {
        return;
    }
    let c = ctx();
    let size = [16, 16, 2];
    const LEVELS: u32 = 5;
    let t = expect_valid(&c.device, || {
        mip_texture(
            &c,
            TextureDimension::D2,
            TextureFormat::R32Float,
            size,
            LEVELS,
        )
    });
    let sizes: Vec<[u32; 3]> = (0..LEVELS).map(|l| level_size(size, l)).collect();
    let base: Vec<f32> = (0..16 * 16 * 2).map(|i| ((i * 37) % 101) as f32).collect();
    expect_valid(&c.device, || {
        c.queue.write_texture(
            at_level(&t, 0, [0, 0, 0]),
            bytemuck::cast_slice(&base),
            TexelCopyBufferLayout {
                offset: 0,
                bytes_per_row: Some(16 * 4),
                rows_per_image: Some(16),
            },
            extent(size),
        )
    });
    let p = wgsl_pipeline(&c, ARRAY_MIPMAP);
    let d2a = TextureViewDimension::D2Array;
    let group = |src: u32, dst: u32| {
        c.device.create_bind_group(&BindGroupDescriptor {
            label: None,
            layout: &p.get_bind_group_layout(0),
            entries: &[
                BindGroupEntry {
                    binding: 0,
                    resource: BindingResource::TextureView(&levels_view(&c, &t, d2a, src, 1, None)),
                },
                BindGroupEntry {
                    binding: 1,
                    resource: BindingResource::TextureView(&levels_view(&c, &t, d2a, dst, 1, None)),
                },
            ],
        })
    };
    let groups: Vec<BindGroup> = (0..LEVELS - 1)
        .map(|l| expect_valid(&c.device, || group(l, l + 1)))
        .collect();
    let mut enc = c.device.create_command_encoder(&Default::default());
    {
        let mut pass = enc.begin_compute_pass(&Default::default());
        pass.set_pipeline(&p);
        for (l, g) in groups.iter().enumerate() {
            let n = sizes[l + 1][0].div_ceil(4);
            pass.set_bind_group(0, Some(g), &[]);
            pass.dispatch_workgroups(n, n, 2);
        }
    }
    expect_valid(&c.device, || c.queue.submit([enc.finish()]));
    let mut want = base;
    for (l, s) in sizes.iter().enumerate() {
        if l > 0 {
            let (w, h) = (s[0] as usize, s[1] as usize);
            let from = |x: usize, y: usize, z: usize| want[(z * 2 * h + y) * 2 * w + x];
            want = (0..2)
                .flat_map(|z| (0..h).flat_map(move |y| (0..w).map(move |x| (x, y, z))))
                .map(|(x, y, z)| {
                    let (x, y) = (2 * x, 2 * y);
                    (((from(x, y, z) + from(x + 1, y, z)) + from(x, y + 1, z))
                        + from(x + 1, y + 1, z))
                        * 0.25
                })
                .collect();
        }
        let got = read_level(&c, &t, l as u32, *s, 4);
        assert_eq!(got, bytemuck::cast_slice::<f32, u8>(&want), "level {l}");
    }

    let alias = expect_valid(&c.device, || group(1, 1));
    let mut enc = c.device.create_command_encoder(&Default::default());
    {
        let mut pass = enc.begin_compute_pass(&Default::default());
        pass.set_pipeline(&p);
        pass.set_bind_group(0, Some(&alias), &[]);
        pass.dispatch_workgroups(1, 1, 2);
    }
    expect_validation(
        &c.device,
        |e| matches!(dispatch_error(e), Some(DispatchError::WritableAlias { .. })),
        || enc.finish(),
    );
}
