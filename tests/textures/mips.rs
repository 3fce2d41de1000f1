//! Textures with several mip levels: every texture is one mip chain
//! (a level's layers or depth slices a whole chain apart), sampled
//! across its levels (a 2D chain here at fractional LODs under nearest and
//! linear mipmap filters against a host model; 2D-array, cube and 3D
//! chains in layered_mips.rs). A compute mipmap generation (a 2x2 box
//! filter from level N to N+1 of a 64x64 r32float texture of 7 levels, all
//! passes in one submission) checked level by level against the host's
//! filter, each level's view answering `textureDimensions` and
//! `textureNumLevels` for itself; level views of 2D-array, 3D and cube
//! textures; copies into and out of levels at offsets (write_texture,
//! buffer to texture, texture to buffer, level to level within one texture
//! and across textures) and a clear of a range of levels and layers
//! against a host model; and the typed errors.

use super::*;

/// The copy error of a rejected `write_texture`.
fn write_err(e: &ValidationError) -> Option<&TextureCopyError> {
    match tex_err(e)? {
        TextureError::Write(source) => Some(source),
        _ => None,
    }
}

pub(super) fn mip_texture(
    c: &Ctx,
    dimension: TextureDimension,
    format: TextureFormat,
    size: [u32; 3],
    levels: u32,
) -> Texture {
    c.device.create_texture(&TextureDescriptor {
        label: Some("mips"),
        size: extent(size),
        mip_level_count: levels,
        sample_count: 1,
        dimension,
        format,
        usage: ALL_USAGES,
        view_formats: &[],
    })
}

pub(super) fn at_level(
    texture: &Texture,
    level: u32,
    origin: [u32; 3],
) -> texture::TexelCopyTextureInfo<'_> {
    wgt::TexelCopyTextureInfo {
        mip_level: level,
        ..at(texture, origin)
    }
}

fn level_view(
    c: &Ctx,
    t: &Texture,
    level: u32,
    dimension: Option<TextureViewDimension>,
) -> TextureView {
    expect_valid(&c.device, || {
        t.create_view(&TextureViewDescriptor {
            base_mip_level: level,
            mip_level_count: Some(1),
            dimension,
            ..Default::default()
        })
    })
}

/// The size of `level` of a 2D texture of `size`.
pub(super) fn level_size(size: [u32; 3], level: u32) -> [u32; 3] {
    [
        (size[0] >> level).max(1),
        (size[1] >> level).max(1),
        size[2],
    ]
}

/// The texels of a level (tight rows) read back with `copy_texture_to_buffer`.
pub(super) fn read_level(c: &Ctx, t: &Texture, level: u32, size: [u32; 3], texel: u32) -> Vec<u8> {
    let row = size[0] * texel;
    let bpr = row.next_multiple_of(COPY_BYTES_PER_ROW_ALIGNMENT);
    let rb = readback_buffer(
        &c.device,
        u64::from(bpr) * u64::from(size[1]) * u64::from(size[2]),
    );
    let mut enc = c.device.create_command_encoder(&Default::default());
    enc.copy_texture_to_buffer(
        at_level(t, level, [0, 0, 0]),
        wgt::TexelCopyBufferInfo {
            buffer: &rb,
            layout: TexelCopyBufferLayout {
                offset: 0,
                bytes_per_row: Some(bpr),
                rows_per_image: Some(size[1]),
            },
        },
        extent(size),
    );
    expect_valid(&c.device, || c.queue.submit([enc.finish()]));
    let padded = aqueduct::util::read_mapped(&c.device, &rb).expect("readback");
    padded
        .chunks(bpr as usize)
        .flat_map(|r| r[..row as usize].to_vec())
        .collect()
}

const MIPMAP: &str = "@group(0) @binding(0) var src: texture_2d<f32>;
@group(0) @binding(1) var dst: texture_storage_2d<r32float, write>;
@group(0) @binding(2) var<storage, read_write> info: array<u32>;
@compute @workgroup_size(8, 8)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    let size = textureDimensions(dst);
    let s = textureDimensions(src);
    if (id.x == 0u && id.y == 0u) {
        let n = 4u * (6u - firstTrailingBit(s.x));
        info[n] = s.x;
        info[n + 1u] = s.y;
        info[n + 2u] = textureNumLevels(src);
        info[n + 3u] = size.x;
    }
    if (id.x >= size.x || id.y >= size.y) { return; }
    let p = vec2<u32>(id.xy) * 2u;
    let a = textureLoad(src, p, 0).x;
    let b = textureLoad(src, p + vec2<u32>(1u, 0u), 0).x;
    let c = textureLoad(src, p + vec2<u32>(0u, 1u), 0).x;
    let d = textureLoad(src, p + vec2<u32>(1u, 1u), 0).x;
    textureStore(dst, id.xy, vec4<f32>((((a + b) + c) + d) * 0.25, 0.0, 0.0, 1.0));
}";

/// Mipmap generation by compute: level N read through a single-level
/// sampled view, level N+1 written through a single-level storage view,
/// six passes in one submission; every level read back and compared with
/// the host's box filter (the same f32 operations in the same order).
#[test]
fn compute_mipmap_generation_matches_the_host() {
    if !texture_shaders("compute_mipmap_generation_matches_the_host") {
        return;
    }
    let c = ctx();
    const LEVELS: u32 = 7;
    let t = expect_valid(&c.device, || {
        mip_texture(
            &c,
            TextureDimension::D2,
            TextureFormat::R32Float,
            [64, 64, 1],
            LEVELS,
        )
    });
    assert_eq!(t.mip_level_count(), LEVELS);
    let mut rng = aqueduct_test_support::Rng::new(41);
    let base: Vec<f32> = (0..64 * 64).map(|_| rng.below(1000) as f32 / 7.0).collect();
    let bytes: Vec<u8> = base.iter().flat_map(|v| v.to_le_bytes()).collect();
    write_all(&c, &t, &bytes, 4);

    let p = wgsl_pipeline(&c, MIPMAP);
    let info = storage(&c.device, 4 * 4 * u64::from(LEVELS - 1));
    let mut enc = c.device.create_command_encoder(&Default::default());
    let mut groups = Vec::new();
    for level in 0..LEVELS - 1 {
        let src = level_view(&c, &t, level, None);
        let dst = level_view(&c, &t, level + 1, None);
        let bg = expect_valid(&c.device, || {
            c.device.create_bind_group(&BindGroupDescriptor {
                label: None,
                layout: &p.get_bind_group_layout(0),
                entries: &[
                    BindGroupEntry {
                        binding: 0,
                        resource: BindingResource::TextureView(&src),
                    },
                    BindGroupEntry {
                        binding: 1,
                        resource: BindingResource::TextureView(&dst),
                    },
                    BindGroupEntry {
                        binding: 2,
                        resource: info.as_entire_binding(),
                    },
                ],
            })
        });
        groups.push(bg);
    }
    {
        let mut pass = enc.begin_compute_pass(&Default::default());
        pass.set_pipeline(&p);
        for (level, bg) in groups.iter().enumerate() {
            let n = (64u32 >> (level + 1)).div_ceil(8);
            pass.set_bind_group(0, Some(bg), &[]);
            pass.dispatch_workgroups(n, n, 1);
        }
    }
    expect_valid(&c.device, || c.queue.submit([enc.finish()]));

    let mut want = base;
    for level in 0..LEVELS {
        let side = 64u32 >> level;
        if level > 0 {
            let prev = 2 * side as usize;
            let s = side as usize;
            want = (0..s * s)
                .map(|i| {
                    let (x, y) = (2 * (i % s), 2 * (i / s));
                    let t = |x: usize, y: usize| want[y * prev + x];
                    (((t(x, y) + t(x + 1, y)) + t(x, y + 1)) + t(x + 1, y + 1)) * 0.25
                })
                .collect();
        }
        let got: Vec<f32> = read_level(&c, &t, level, [side, side, 1], 4)
            .chunks(4)
            .map(|b| f32::from_le_bytes(b.try_into().unwrap()))
            .collect();
        assert_eq!(got, want, "level {level}");
    }
    // Each pass's views answer for themselves: the source level's size,
    // one level, the destination level's width.
    let words = read_words(&c, &info);
    for level in 0..LEVELS - 1 {
        let n = 4 * level as usize;
        let side = 64 >> level;
        assert_eq!(
            words[n..n + 4],
            [side, side, 1, side / 2],
            "pass from level {level}"
        );
    }
}

const LEVEL_VIEWS: &str = "@group(0) @binding(0) var a: texture_2d_array<u32>;
@group(0) @binding(1) var v: texture_3d<u32>;
@group(0) @binding(2) var cube: texture_cube<f32>;
@group(0) @binding(3) var<storage, read_write> out: array<u32>;
@group(0) @binding(4) var w: texture_storage_3d<r32uint, write>;
@compute @workgroup_size(1)
fn main() {
    textureStore(w, vec3<u32>(1u, 0u, 0u), vec4<u32>(55u));
    out[13] = textureDimensions(w).z;
    let da = textureDimensions(a);
    out[0] = da.x; out[1] = da.y; out[2] = textureNumLayers(a); out[3] = textureNumLevels(a);
    let dv = textureDimensions(v);
    out[4] = dv.x; out[5] = dv.y; out[6] = dv.z; out[7] = textureNumLevels(v);
    let dc = textureDimensions(cube);
    out[8] = dc.x; out[9] = dc.y; out[10] = textureNumLevels(cube);
    out[11] = textureLoad(a, vec2<u32>(2u, 1u), 1, 0).x;
    out[12] = textureLoad(v, vec3<u32>(1u, 0u, 1u), 0).x;
}";

/// Level views of a 2D-array texture (layer range, level 1), a 3D texture
/// (level 1: every dimension halved) and a cube texture (level 2) answer
/// their level's size and one level, and read their level's texels; a
/// storage view of the 3D texture's level 2 writes that level alone.
#[test]
fn level_views_of_arrays_3d_and_cubes() {
    if !texture_shaders("level_views_of_arrays_3d_and_cubes") {
        return;
    }
    let c = ctx();
    let u = TextureFormat::R32Uint;
    let arr = mip_texture(&c, TextureDimension::D2, u, [12, 6, 3], 3);
    let vol = mip_texture(&c, TextureDimension::D3, u, [8, 4, 6], 3);
    let cube = mip_texture(
        &c,
        TextureDimension::D2,
        TextureFormat::R32Float,
        [8, 8, 6],
        4,
    );
    // Level 1 of the array is 6x3 with 3 layers; texel (2, 1) of layer 2
    // holds 77. Level 1 of the volume is 4x2x3; texel (1, 0, 1) holds 99.
    let word = |v: u32| v.to_le_bytes();
    expect_valid(&c.device, || {
        c.queue.write_texture(
            at_level(&arr, 1, [2, 1, 2]),
            &word(77),
            TexelCopyBufferLayout::default(),
            extent([1, 1, 1]),
        );
        c.queue.write_texture(
            at_level(&vol, 1, [1, 0, 1]),
            &word(99),
            TexelCopyBufferLayout::default(),
            extent([1, 1, 1]),
        );
    });
    let av = expect_valid(&c.device, || {
        arr.create_view(&TextureViewDescriptor {
            base_mip_level: 1,
            mip_level_count: Some(1),
            base_array_layer: 1,
            array_layer_count: Some(2),
            dimension: Some(TextureViewDimension::D2Array),
            ..Default::default()
        })
    });
    let vv = level_view(&c, &vol, 1, None);
    let cv = level_view(&c, &cube, 2, Some(TextureViewDimension::Cube));
    let wv = level_view(&c, &vol, 2, None);
    let p = wgsl_pipeline(&c, LEVEL_VIEWS);
    let out = storage(&c.device, 4 * 14);
    dispatch(
        &c,
        &p,
        &[
            BindGroupEntry {
                binding: 0,
                resource: BindingResource::TextureView(&av),
            },
            BindGroupEntry {
                binding: 1,
                resource: BindingResource::TextureView(&vv),
            },
            BindGroupEntry {
                binding: 2,
                resource: BindingResource::TextureView(&cv),
            },
            BindGroupEntry {
                binding: 3,
                resource: out.as_entire_binding(),
            },
            BindGroupEntry {
                binding: 4,
                resource: BindingResource::TextureView(&wv),
            },
        ],
        [1, 1, 1],
    );
    assert_eq!(
        read_words(&c, &out),
        [6, 3, 2, 1, 4, 2, 3, 1, 2, 2, 1, 77, 99, 1]
    );
    // Level 2 of the volume (2x1x1) holds the store; level 1 (4x2x3)
    // keeps only its one written texel.
    let words = |bytes: Vec<u8>| -> Vec<u32> {
        bytes
            .chunks(4)
            .map(|b| u32::from_le_bytes(b.try_into().unwrap()))
            .collect()
    };
    assert_eq!(words(read_level(&c, &vol, 2, [2, 1, 1], 4)), [0, 55]);
    let mut level1 = vec![0; 4 * 2 * 3];
    level1[8 + 1] = 99;
    assert_eq!(words(read_level(&c, &vol, 1, [4, 2, 3], 4)), level1);
}

/// Host model of a texture's levels: tight rows of each level, its
/// layers or depth slices one after the other.
pub(super) struct Model {
    texel: u32,
    sizes: Vec<[u32; 3]>,
    levels: Vec<Vec<u8>>,
}

impl Model {
    /// The levels of a 2D texture of `size` (layers kept per level).
    pub(super) fn new(size: [u32; 3], texel: u32, levels: u32) -> Self {
        Self::of_sizes(texel, (0..levels).map(|l| level_size(size, l)).collect())
    }

    /// Levels of the given sizes, zero-filled.
    pub(super) fn of_sizes(texel: u32, sizes: Vec<[u32; 3]>) -> Self {
        let levels = sizes
            .iter()
            .map(|s| vec![0; (s[0] * s[1] * s[2] * texel) as usize])
            .collect();
        Model {
            texel,
            sizes,
            levels,
        }
    }

    fn index(&self, level: u32, [x, y, z]: [u32; 3]) -> usize {
        let s = self.sizes[level as usize];
        (((z * s[1] + y) * s[0] + x) * self.texel) as usize
    }

    /// Put `data` (tight rows of `size`) at `origin` of `level`.
    pub(super) fn put(&mut self, level: u32, origin: [u32; 3], size: [u32; 3], data: &[u8]) {
        let row = (size[0] * self.texel) as usize;
        for z in 0..size[2] {
            for y in 0..size[1] {
                let at = self.index(level, [origin[0], origin[1] + y, origin[2] + z]);
                let from = ((z * size[1] + y) as usize) * row;
                self.levels[level as usize][at..at + row].copy_from_slice(&data[from..from + row]);
            }
        }
    }

    /// The texels (tight rows) of the box `size` at `origin` of `level`.
    pub(super) fn get(&self, level: u32, origin: [u32; 3], size: [u32; 3]) -> Vec<u8> {
        let row = (size[0] * self.texel) as usize;
        let mut out = Vec::new();
        for z in 0..size[2] {
            for y in 0..size[1] {
                let at = self.index(level, [origin[0], origin[1] + y, origin[2] + z]);
                out.extend_from_slice(&self.levels[level as usize][at..at + row]);
            }
        }
        out
    }
}

/// Copies into and out of levels at offsets, in every direction, against
/// a host model: write_texture and copy_buffer_to_texture into boxes of
/// levels 1 to 3 of a 2D-array texture, level-to-level copies within it
/// and into another texture's level, and every level of both read back.
#[test]
fn level_copies_at_offsets() {
    let c = ctx();
    let f = TextureFormat::Rgba8Unorm;
    let size = [20, 12, 2];
    let a = expect_valid(&c.device, || {
        mip_texture(&c, TextureDimension::D2, f, size, 5)
    });
    let b = expect_valid(&c.device, || {
        mip_texture(&c, TextureDimension::D2, f, size, 4)
    });
    let (mut ma, mut mb) = (Model::new(size, 4, 5), Model::new(size, 4, 4));

    // write_texture: a 5x3 box at (3, 2) of layer 1 of level 1 (10x6).
    let data = pattern(5 * 3 * 4, 1);
    c.queue.write_texture(
        at_level(&a, 1, [3, 2, 1]),
        &data,
        TexelCopyBufferLayout {
            offset: 0,
            bytes_per_row: Some(5 * 4),
            rows_per_image: Some(3),
        },
        extent([5, 3, 1]),
    );
    ma.put(1, [3, 2, 1], [5, 3, 1], &data);
    // write_texture of whole rows of level 2 (5x3), both layers.
    let data = pattern(5 * 3 * 2 * 4, 2);
    c.queue.write_texture(
        at_level(&a, 2, [0, 0, 0]),
        &data,
        TexelCopyBufferLayout {
            offset: 0,
            bytes_per_row: Some(5 * 4),
            rows_per_image: Some(3),
        },
        extent([5, 3, 2]),
    );
    ma.put(2, [0, 0, 0], [5, 3, 2], &data);
    // copy_buffer_to_texture: a 2x1 box at (1, 0) of layer 0 of level 3
    // (2x1... 20 >> 3 = 2, 12 >> 3 = 1), from a buffer offset.
    let src_bytes = pattern(512, 3);
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
                rows_per_image: Some(1),
            },
        },
        at_level(&a, 3, [1, 0, 1]),
        extent([1, 1, 1]),
    );
    ma.put(3, [1, 0, 1], [1, 1, 1], &src_bytes[8..12]);
    // Level 1 → level 2 within one texture: 4x2 from (4, 3, 1) to (1, 1, 0).
    enc.copy_texture_to_texture(
        at_level(&a, 1, [4, 3, 1]),
        at_level(&a, 2, [1, 1, 0]),
        extent([4, 2, 1]),
    );
    let moved = ma.get(1, [4, 3, 1], [4, 2, 1]);
    ma.put(2, [1, 1, 0], [4, 2, 1], &moved);
    // Same level, disjoint layers: layer 1 → layer 0 of level 1.
    enc.copy_texture_to_texture(
        at_level(&a, 1, [0, 0, 1]),
        at_level(&a, 1, [0, 0, 0]),
        extent([10, 6, 1]),
    );
    let moved = ma.get(1, [0, 0, 1], [10, 6, 1]);
    ma.put(1, [0, 0, 0], [10, 6, 1], &moved);
    // Into the other texture: level 2 of a → level 1 of b at (5, 3).
    enc.copy_texture_to_texture(
        at_level(&a, 2, [0, 0, 0]),
        at_level(&b, 1, [5, 3, 0]),
        extent([5, 3, 2]),
    );
    let moved = ma.get(2, [0, 0, 0], [5, 3, 2]);
    mb.put(1, [5, 3, 0], [5, 3, 2], &moved);
    expect_valid(&c.device, || c.queue.submit([enc.finish()]));

    for (t, m, levels) in [(&a, &ma, 5), (&b, &mb, 4)] {
        for level in 0..levels {
            let s = level_size(size, level);
            assert_eq!(
                read_level(&c, t, level, s, 4),
                m.get(level, [0, 0, 0], s),
                "level {level}"
            );
        }
    }
    // A sub-box of a level read at an offset.
    let mut enc = c.device.create_command_encoder(&Default::default());
    let rb = readback_buffer(&c.device, 512);
    enc.copy_texture_to_buffer(
        at_level(&a, 2, [2, 1, 1]),
        wgt::TexelCopyBufferInfo {
            buffer: &rb,
            layout: TexelCopyBufferLayout {
                offset: 4,
                bytes_per_row: Some(256),
                rows_per_image: Some(2),
            },
        },
        extent([3, 2, 1]),
    );
    expect_valid(&c.device, || c.queue.submit([enc.finish()]));
    let got = aqueduct::util::read_mapped(&c.device, &rb).expect("readback");
    let want = ma.get(2, [2, 1, 1], [3, 2, 1]);
    assert_eq!(got[4..16], want[..12]);
    assert_eq!(got[260..272], want[12..]);
}

/// The typed errors of mip levels: counts of 0 or past the full chain
/// (1 for 1D), copies past a level's extent or at a missing level, copies
/// within one level of one texture, and a storage binding of several
/// levels (sampled views of several levels of a layered texture bind).
#[test]
fn mip_level_errors() {
    let c = ctx();
    let f = TextureFormat::R32Float;
    let d2 = TextureDimension::D2;
    for (dim, size, levels, max) in [
        (d2, [64, 64, 1], 8, 7),
        (d2, [64, 20, 1], 0, 7),
        (d2, [5, 3, 1], 4, 3),
        (TextureDimension::D1, [64, 1, 1], 2, 1),
        (TextureDimension::D3, [4, 8, 32], 7, 6),
    ] {
        expect_validation(
            &c.device,
            |e| {
                matches!(
                    create_err(e),
                    Some(CreateTextureError::MipLevelCount { requested, max: m })
                        if *requested == levels && *m == max
                )
            },
            || mip_texture(&c, dim, f, size, levels),
        );
        if levels > 0 {
            expect_valid(&c.device, || mip_texture(&c, dim, f, size, max));
        }
    }

    let t = expect_valid(&c.device, || mip_texture(&c, d2, f, [64, 64, 1], 7));
    let other = expect_valid(&c.device, || mip_texture(&c, d2, f, [64, 64, 1], 7));
    let data = [0u8; 17 * 4];
    expect_validation(
        &c.device,
        |e| {
            matches!(
                write_err(e),
                Some(TextureCopyError::OutOfBounds {
                    mip_level: 2,
                    origin: [0, 3, 0],
                    size: [17, 1, 1],
                    extent: [16, 16, 1],
                })
            )
        },
        || {
            c.queue.write_texture(
                at_level(&t, 2, [0, 3, 0]),
                &data,
                TexelCopyBufferLayout::default(),
                extent([17, 1, 1]),
            )
        },
    );
    expect_validation(
        &c.device,
        |e| {
            matches!(
                write_err(e),
                Some(TextureCopyError::MipLevel {
                    level: 7,
                    levels: 7
                })
            )
        },
        || {
            c.queue.write_texture(
                at_level(&t, 7, [0, 0, 0]),
                &data[..4],
                TexelCopyBufferLayout::default(),
                extent([1, 1, 1]),
            )
        },
    );
    // A clear's layer range is checked at its base level's extent.
    expect_validation(
        &c.device,
        |e| {
            matches!(
                copy_err(e),
                Some(TextureCopyError::OutOfBounds {
                    mip_level: 2,
                    size: [16, 16, 2],
                    extent: [16, 16, 1],
                    ..
                })
            )
        },
        || {
            let mut enc = c.device.create_command_encoder(&Default::default());
            enc.clear_texture(
                &t,
                &wgt::ImageSubresourceRange {
                    base_mip_level: 2,
                    array_layer_count: Some(2),
                    ..Default::default()
                },
            );
            enc.finish()
        },
    );
    let t2t = |src: u32, dst: u32, size: [u32; 3]| {
        let mut enc = c.device.create_command_encoder(&Default::default());
        enc.copy_texture_to_texture(
            at_level(&t, src, [0, 0, 0]),
            at_level(&other, dst, [0, 0, 0]),
            extent(size),
        );
        enc.finish()
    };
    // Level 5 is 2x2: a 4x4 copy from level 3 (8x8) does not fit.
    expect_validation(
        &c.device,
        |e| {
            matches!(
                copy_err(e),
                Some(TextureCopyError::OutOfBounds {
                    mip_level: 5,
                    extent: [2, 2, 1],
                    ..
                })
            )
        },
        || t2t(3, 5, [4, 4, 1]),
    );
    expect_validation(
        &c.device,
        |e| matches!(copy_err(e), Some(TextureCopyError::SameTexture { .. })),
        || {
            let mut enc = c.device.create_command_encoder(&Default::default());
            enc.copy_texture_to_texture(
                at_level(&t, 1, [0, 0, 0]),
                at_level(&t, 1, [4, 0, 0]),
                extent([2, 2, 1]),
            );
            enc.finish()
        },
    );

    // A sampled view of several levels of one layer of a layered texture
    // binds (its levels are one chain), as do its single-level views; a
    // storage binding of several levels does not.
    let layered = expect_valid(&c.device, || mip_texture(&c, d2, f, [64, 64, 2], 7));
    let layout_of = |ty: BindingType| {
        expect_valid(&c.device, || {
            c.device
                .create_bind_group_layout(&BindGroupLayoutDescriptor {
                    label: None,
                    entries: &[layout_entry(0, ty)],
                })
        })
    };
    let sampled = layout_of(BindingType::Texture {
        sample_type: TextureSampleType::Float { filterable: false },
        view_dimension: TextureViewDimension::D2,
        multisampled: false,
    });
    let stored = layout_of(BindingType::StorageTexture {
        access: StorageTextureAccess::WriteOnly,
        format: f,
        view_dimension: TextureViewDimension::D2,
    });
    let bind = |layout: &BindGroupLayout, view: &TextureView| {
        c.device.create_bind_group(&BindGroupDescriptor {
            label: None,
            layout,
            entries: &[BindGroupEntry {
                binding: 0,
                resource: BindingResource::TextureView(view),
            }],
        })
    };
    let all = layered.create_view(&TextureViewDescriptor {
        dimension: Some(TextureViewDimension::D2),
        array_layer_count: Some(1),
        ..Default::default()
    });
    assert_eq!(all.mip_levels(), 0..7);
    expect_valid(&c.device, || bind(&sampled, &all));
    let two = layered.create_view(&TextureViewDescriptor {
        base_mip_level: 3,
        mip_level_count: Some(2),
        dimension: Some(TextureViewDimension::D2),
        base_array_layer: 1,
        array_layer_count: Some(1),
        ..Default::default()
    });
    expect_valid(&c.device, || bind(&sampled, &two));
    expect_validation(
        &c.device,
        |e| {
            matches!(
                bind_err(e),
                Some(TextureBindingError::StorageMipLevels { count: 2 })
            )
        },
        || bind(&stored, &two),
    );
    let one = level_view(&c, &layered, 6, Some(TextureViewDimension::D2));
    expect_valid(&c.device, || bind(&sampled, &one));
    expect_valid(&c.device, || bind(&stored, &one));
    expect_valid(&c.device, || {
        bind(&sampled, &t.create_view(&Default::default()))
    });
}

/// `clear_texture` zeroes the levels and layers of its range and nothing
/// else: levels 1 and 2 of layer 1 of a two-layer texture of 4 levels.
#[test]
fn clear_texture_clears_the_levels_of_its_range() {
    let c = ctx();
    let size = [16, 8, 2];
    let t = expect_valid(&c.device, || {
        mip_texture(&c, TextureDimension::D2, TextureFormat::Rgba8Unorm, size, 4)
    });
    let mut model = Model::new(size, 4, 4);
    for level in 0..4 {
        let s = level_size(size, level);
        let data = pattern((s[0] * s[1] * s[2] * 4) as usize, 10 + level);
        c.queue.write_texture(
            at_level(&t, level, [0, 0, 0]),
            &data,
            TexelCopyBufferLayout {
                offset: 0,
                bytes_per_row: Some(s[0] * 4),
                rows_per_image: Some(s[1]),
            },
            extent(s),
        );
        model.put(level, [0, 0, 0], s, &data);
    }
    let mut enc = c.device.create_command_encoder(&Default::default());
    enc.clear_texture(
        &t,
        &wgt::ImageSubresourceRange {
            aspect: TextureAspect::All,
            base_mip_level: 1,
            mip_level_count: Some(2),
            base_array_layer: 1,
            array_layer_count: Some(1),
        },
    );
    expect_valid(&c.device, || c.queue.submit([enc.finish()]));
    for level in 1..3 {
        let s = level_size(size, level);
        let zeros = vec![0; (s[0] * s[1] * 4) as usize];
        model.put(level, [0, 0, 1], [s[0], s[1], 1], &zeros);
    }
    for level in 0..4 {
        let s = level_size(size, level);
        assert_eq!(
            read_level(&c, &t, level, s, 4),
            model.get(level, [0, 0, 0], s),
            "level {level}"
        );
    }
}

/// Level `l` of the chain sampled below: distinct in every level.
fn chain_texel(l: u32, x: u32, y: u32) -> [f32; 4] {
    [(100 * l + x + 4 * y) as f32, l as f32, x as f32, y as f32]
}

const CHAIN: &str = "@group(0) @binding(0) var t: texture_2d<f32>;
@group(0) @binding(1) var s: sampler;
@group(0) @binding(2) var<storage, read> q: array<vec4<f32>>;
@group(0) @binding(3) var<storage, read_write> out: array<vec4<f32>>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    let n = arrayLength(&q);
    if (id.x < n) {
        out[id.x] = textureSampleLevel(t, s, q[id.x].xy, q[id.x].z);
    }
    if (id.x == n) {
        let d = textureDimensions(t, 1);
        out[n] = vec4<f32>(f32(textureNumLevels(t)), f32(d.x), f32(d.y), 0.0);
        out[n + 1u] = textureLoad(t, vec2<u32>(1u, 0u), 1);
    }
}";

/// `textureSampleLevel` across the levels of a 2D mip chain with fractional
/// LODs under nearest and linear mipmap filters (bilinear within a level,
/// clamp to edge), through a view of all four levels and one of levels
/// 1..=2, against the host's level selection (Vulkan "Texel Filtering":
/// `d' = base + clamp(lod, 0, levels - 1)`, nearest level
/// `ceil(d' + 0.5) - 1`, linear blend of `floor(d')` and the next by the
/// fraction, quantised to 8 bits like gfxsim's texel weights); and
/// `textureNumLevels`, `textureDimensions(t, 1)` and `textureLoad` at
/// level 1 through each view.
#[test]
fn sampling_across_mip_levels_matches_the_host() {
    if !texture_shaders("sampling_across_mip_levels_matches_the_host") {
        return;
    }
    use super::layered_mips::mip_weights;
    use super::sampling::{run_inputs, taps, wrap};
    let c = ctx();
    const LEVELS: u32 = 4;
    let size = [8, 4, 1];
    let t = expect_valid(&c.device, || {
        mip_texture(
            &c,
            TextureDimension::D2,
            TextureFormat::Rgba32Float,
            size,
            LEVELS,
        )
    });
    for level in 0..LEVELS {
        let s = level_size(size, level);
        let data: Vec<f32> = (0..s[1])
            .flat_map(|y| (0..s[0]).flat_map(move |x| chain_texel(level, x, y)))
            .collect();
        c.queue.write_texture(
            at_level(&t, level, [0, 0, 0]),
            bytemuck::cast_slice(&data),
            TexelCopyBufferLayout {
                offset: 0,
                bytes_per_row: Some(s[0] * 16),
                rows_per_image: None,
            },
            extent(s),
        );
    }
    // Coordinates on 1/32 and 1/16 steps keep every level's bilinear
    // weights exact; LODs with fractions on and off the 8-bit grid.
    let lods = [-1.0f32, 0.0, 0.25, 0.5, 0.75, 1.0, 1.3, 1.5, 2.6, 3.0, 5.0];
    let queries: Vec<[f32; 4]> = lods
        .iter()
        .enumerate()
        .flat_map(|(i, &lod)| {
            (0..4u32).map(move |k| {
                let u = ((7 * i as u32 + 5 * k) % 32) as f32 / 32.0;
                let v = ((3 * i as u32 + 7 * k) % 16) as f32 / 16.0;
                [u, v, lod, 0.0]
            })
        })
        .collect();
    let p = wgsl_pipeline(&c, CHAIN);
    let all = expect_valid(&c.device, || t.create_view(&Default::default()));
    let middle = expect_valid(&c.device, || {
        t.create_view(&TextureViewDescriptor {
            base_mip_level: 1,
            mip_level_count: Some(2),
            ..Default::default()
        })
    });
    // One level's bilinear sample at (u, v), clamped to edge.
    let bilinear = |level: u32, [u, v]: [f32; 2]| -> [f64; 4] {
        let s = level_size(size, level);
        let mut acc = [0f64; 4];
        for (j, wy) in taps(f64::from(v) * f64::from(s[1]), FilterMode::Linear) {
            for (i, wx) in taps(f64::from(u) * f64::from(s[0]), FilterMode::Linear) {
                let x = wrap(AddressMode::ClampToEdge, i, s[0]).unwrap();
                let y = wrap(AddressMode::ClampToEdge, j, s[1]).unwrap();
                for (a, t) in acc.iter_mut().zip(chain_texel(level, x, y)) {
                    *a += wx * wy * f64::from(t);
                }
            }
        }
        acc
    };
    for mipmap in [MipmapFilterMode::Nearest, MipmapFilterMode::Linear] {
        let s = expect_valid(&c.device, || {
            c.device.create_sampler(&SamplerDescriptor {
                mag_filter: FilterMode::Linear,
                min_filter: FilterMode::Linear,
                mipmap_filter: mipmap,
                ..Default::default()
            })
        });
        for (view, base, count) in [(&all, 0u32, LEVELS), (&middle, 1, 2)] {
            let got = run_inputs(
                &c,
                &p,
                view,
                &s,
                bytemuck::cast_slice(&queries),
                queries.len() + 2,
            );
            for (q, g) in queries.iter().zip(&got) {
                let levels = mip_weights(q[2], base, count, mipmap);
                let mut want = [0f64; 4];
                for (level, weight) in levels {
                    for (w, b) in want.iter_mut().zip(bilinear(level, [q[0], q[1]])) {
                        *w += weight * b;
                    }
                }
                for (w, g) in want.iter().zip(g) {
                    assert!(
                        (*w as f32 - g).abs() <= 1e-4,
                        "{mipmap:?} view from {base}: query {q:?} wants {want:?}, got {g:?}"
                    );
                }
            }
            let n = queries.len();
            let s1 = level_size(size, base + 1);
            assert_eq!(
                got[n],
                [count as f32, s1[0] as f32, s1[1] as f32, 0.0],
                "levels and level 1's size through the view from {base}"
            );
            assert_eq!(
                got[n + 1],
                chain_texel(base + 1, 1, 0),
                "textureLoad at level 1"
            );
        }
    }
}

/// 2D mip chains with odd and even sides keep every level through
/// writes, a clear of one level and reads: levels are disjoint byte ranges
/// of the chain.
#[test]
fn chain_levels_copy_and_clear_independently() {
    let c = ctx();
    for size in [[7, 5, 1], [64, 3, 1]] {
        let dim = TextureDimension::D2;
        let t = expect_valid(&c.device, || {
            mip_texture(&c, dim, TextureFormat::Rgba8Unorm, size, 3)
        });
        let sizes: Vec<[u32; 3]> = (0..3).map(|l| level_size(size, l)).collect();
        let mut want = Vec::new();
        for (level, s) in sizes.iter().enumerate() {
            let data = pattern((s[0] * s[1] * 4) as usize, 20 + level as u32);
            c.queue.write_texture(
                at_level(&t, level as u32, [0, 0, 0]),
                &data,
                TexelCopyBufferLayout {
                    offset: 0,
                    bytes_per_row: Some(s[0] * 4),
                    rows_per_image: None,
                },
                extent(*s),
            );
            want.push(data);
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
        expect_valid(&c.device, || c.queue.submit([enc.finish()]));
        want[1].fill(0);
        for (level, s) in sizes.iter().enumerate() {
            assert_eq!(
                read_level(&c, &t, level as u32, *s, 4),
                want[level],
                "{size:?} level {level}"
            );
        }
    }
}
