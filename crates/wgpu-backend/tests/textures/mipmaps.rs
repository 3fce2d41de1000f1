//! Mipmap generation as wgpu compute code does it, run unchanged through
//! aqueduct-wgpu: a 64x64 rgba8unorm texture of its full 7-level chain,
//! level 0 uploaded with `write_texture`, each level N+1 written by a
//! 2x2 box filter reading level N through a single-level view, all six
//! passes and the readback of every level (`copy_texture_to_buffer` with
//! `mip_level`) in one submission. The expected levels are computed on the
//! host with the same f32 operations, unorm8 reads as `k / 255` and
//! writes rounded to nearest. Trilinear sampling of a texture whose
//! levels are each written with `write_texture`, at fractional LODs,
//! against the host's blend of the two levels around the LOD.

use aqueduct_test_harness::run_time_wgsl::texture_shaders;
use aqueduct_test_harness::wgpu_api::{device, read_back};

const DOWNSAMPLE_WGSL: &str = "
@group(0) @binding(0) var src: texture_2d<f32>;
@group(0) @binding(1) var dst: texture_storage_2d<rgba8unorm, write>;

@compute @workgroup_size(8, 8)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    let size = textureDimensions(dst);
    if (id.x >= size.x || id.y >= size.y) { return; }
    let p = id.xy * 2u;
    let sum = textureLoad(src, p, 0) + textureLoad(src, p + vec2<u32>(1u, 0u), 0)
        + textureLoad(src, p + vec2<u32>(0u, 1u), 0) + textureLoad(src, p + vec2<u32>(1u, 1u), 0);
    textureStore(dst, id.xy, sum * 0.25);
}
";

const SIDE: u32 = 64;
const LEVELS: u32 = 7;

/// Level `level + 1` of a level (`side` x `side` rgba8, tight rows) by the
/// kernel's arithmetic.
fn downsample(level: &[u8], side: usize) -> Vec<u8> {
    let half = side / 2;
    let texel = |x: usize, y: usize, c: usize| f32::from(level[(y * side + x) * 4 + c]) / 255.0;
    let mut out = Vec::with_capacity(half * half * 4);
    for y in 0..half {
        for x in 0..half {
            for c in 0..4 {
                let (x, y) = (2 * x, 2 * y);
                let sum = ((texel(x, y, c) + texel(x + 1, y, c)) + texel(x, y + 1, c))
                    + texel(x + 1, y + 1, c);
                let v = f64::from(sum * 0.25).clamp(0.0, 1.0) * 255.0;
                out.push(v.round_ties_even() as u8);
            }
        }
    }
    out
}

#[test]
fn compute_mipmap_generation_through_unchanged_wgpu_code() {
    if !texture_shaders("mipmap generation") {
        return;
    }
    let (device, queue) = device();
    let texture = device.create_texture(&wgpu::TextureDescriptor {
        label: Some("mipmapped"),
        size: wgpu::Extent3d {
            width: SIDE,
            height: SIDE,
            depth_or_array_layers: 1,
        },
        mip_level_count: LEVELS,
        sample_count: 1,
        dimension: wgpu::TextureDimension::D2,
        format: wgpu::TextureFormat::Rgba8Unorm,
        usage: wgpu::TextureUsages::TEXTURE_BINDING
            | wgpu::TextureUsages::STORAGE_BINDING
            | wgpu::TextureUsages::COPY_DST
            | wgpu::TextureUsages::COPY_SRC,
        view_formats: &[],
    });
    let base: Vec<u8> = (0..SIDE * SIDE * 4)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
        .collect();
    queue.write_texture(
        texture.as_image_copy(),
        &base,
        wgpu::TexelCopyBufferLayout {
            offset: 0,
            bytes_per_row: Some(SIDE * 4),
            rows_per_image: None,
        },
        texture.size(),
    );

    let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: Some("downsample"),
        source: wgpu::ShaderSource::Wgsl(DOWNSAMPLE_WGSL.into()),
    });
    let pipeline = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
        label: Some("downsample"),
        layout: None,
        module: &module,
        entry_point: Some("main"),
        compilation_options: Default::default(),
        cache: None,
    });
    let level_view = |level: u32| {
        texture.create_view(&wgpu::TextureViewDescriptor {
            base_mip_level: level,
            mip_level_count: Some(1),
            ..Default::default()
        })
    };
    let groups: Vec<wgpu::BindGroup> = (0..LEVELS - 1)
        .map(|level| {
            device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: None,
                layout: &pipeline.get_bind_group_layout(0),
                entries: &[
                    wgpu::BindGroupEntry {
                        binding: 0,
                        resource: wgpu::BindingResource::TextureView(&level_view(level)),
                    },
                    wgpu::BindGroupEntry {
                        binding: 1,
                        resource: wgpu::BindingResource::TextureView(&level_view(level + 1)),
                    },
                ],
            })
        })
        .collect();

    // Every level into one buffer, each at a 256-byte aligned offset with
    // 256-byte rows.
    let offsets: Vec<u64> = (0..LEVELS)
        .scan(0u64, |at, level| {
            let side = u64::from(SIDE >> level);
            let offset = *at;
            *at += side * u64::from((side as u32 * 4).next_multiple_of(256));
            Some(offset)
        })
        .collect();
    let readback = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("levels"),
        size: offsets[LEVELS as usize - 1] + 256,
        usage: wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::COPY_SRC,
        mapped_at_creation: false,
    });
    let mut encoder = device.create_command_encoder(&Default::default());
    {
        let mut pass = encoder.begin_compute_pass(&Default::default());
        pass.set_pipeline(&pipeline);
        for (level, group) in groups.iter().enumerate() {
            let n = (SIDE >> (level + 1)).div_ceil(8);
            pass.set_bind_group(0, group, &[]);
            pass.dispatch_workgroups(n, n, 1);
        }
    }
    for level in 0..LEVELS {
        let side = SIDE >> level;
        encoder.copy_texture_to_buffer(
            wgpu::TexelCopyTextureInfo {
                texture: &texture,
                mip_level: level,
                origin: wgpu::Origin3d::ZERO,
                aspect: wgpu::TextureAspect::All,
            },
            wgpu::TexelCopyBufferInfo {
                buffer: &readback,
                layout: wgpu::TexelCopyBufferLayout {
                    offset: offsets[level as usize],
                    bytes_per_row: Some((side * 4).next_multiple_of(256)),
                    rows_per_image: None,
                },
            },
            wgpu::Extent3d {
                width: side,
                height: side,
                depth_or_array_layers: 1,
            },
        );
    }
    queue.submit([encoder.finish()]);
    let bytes = read_back(&device, &queue, &readback);

    let mut want = base;
    for level in 0..LEVELS {
        let side = (SIDE >> level) as usize;
        if level > 0 {
            want = downsample(&want, 2 * side);
        }
        let bpr = (side * 4).next_multiple_of(256);
        let at = offsets[level as usize] as usize;
        let got: Vec<u8> = (0..side)
            .flat_map(|y| bytes[at + y * bpr..at + y * bpr + side * 4].to_vec())
            .collect();
        assert_eq!(got, want, "level {level}");
    }
}

const TRILINEAR_WGSL: &str = "
@group(0) @binding(0) var tex: texture_2d<f32>;
@group(0) @binding(1) var trilinear: sampler;
@group(0) @binding(2) var<storage, read> points: array<vec4<f32>>;
@group(0) @binding(3) var<storage, read_write> seen: array<vec4<f32>>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    if (id.x >= arrayLength(&points)) { return; }
    let p = points[id.x];
    seen[id.x] = textureSampleLevel(tex, trilinear, p.xy, p.z);
}
";

/// Byte `c` of texel (x, y) of level `level` in [`trilinear_sampling_across_written_levels`].
fn level_byte(level: u32, x: u32, y: u32, c: u32) -> u8 {
    ((level * 61 + x * 7 + y * 13 + c * 29) % 256) as u8
}

/// Trilinear sampling as wgpu compute code does it: a 16x8 rgba8unorm
/// texture of 4 levels, each level written with `queue.write_texture`,
/// sampled with `textureSampleLevel` at fractional LODs through a linear
/// sampler with a linear mipmap filter. The host blends the two levels
/// around the LOD (Vulkan "Texel Filtering": levels `floor(lod)` and the
/// next by its fraction, the last level past the chain's end), each
/// bilinearly with clamp to edge; the LOD fractions and coordinates are
/// multiples of 1/32, exact in the texture unit's 8-bit weights.
#[test]
fn trilinear_sampling_across_written_levels() {
    if !texture_shaders("trilinear sampling") {
        return;
    }
    const LEVELS: u32 = 4;
    let (width, height) = (16u32, 8u32);
    let (device, queue) = device();
    let texture = device.create_texture(&wgpu::TextureDescriptor {
        label: Some("trilinear"),
        size: wgpu::Extent3d {
            width,
            height,
            depth_or_array_layers: 1,
        },
        mip_level_count: LEVELS,
        sample_count: 1,
        dimension: wgpu::TextureDimension::D2,
        format: wgpu::TextureFormat::Rgba8Unorm,
        usage: wgpu::TextureUsages::TEXTURE_BINDING | wgpu::TextureUsages::COPY_DST,
        view_formats: &[],
    });
    let size = |level: u32| ((width >> level).max(1), (height >> level).max(1));
    for level in 0..LEVELS {
        let (w, h) = size(level);
        let bytes: Vec<u8> = (0..h)
            .flat_map(|y| (0..w).flat_map(move |x| (0..4).map(move |c| level_byte(level, x, y, c))))
            .collect();
        queue.write_texture(
            wgpu::TexelCopyTextureInfo {
                texture: &texture,
                mip_level: level,
                origin: wgpu::Origin3d::ZERO,
                aspect: wgpu::TextureAspect::All,
            },
            &bytes,
            wgpu::TexelCopyBufferLayout {
                offset: 0,
                bytes_per_row: Some(w * 4),
                rows_per_image: None,
            },
            wgpu::Extent3d {
                width: w,
                height: h,
                depth_or_array_layers: 1,
            },
        );
    }
    let sampler = device.create_sampler(&wgpu::SamplerDescriptor {
        mag_filter: wgpu::FilterMode::Linear,
        min_filter: wgpu::FilterMode::Linear,
        mipmap_filter: wgpu::MipmapFilterMode::Linear,
        ..Default::default()
    });
    let lods = [-1.0f32, 0.0, 0.25, 0.5, 0.75, 1.5, 2.25, 3.0, 5.0];
    let points: Vec<[f32; 4]> = lods
        .iter()
        .enumerate()
        .flat_map(|(i, &lod)| {
            (0..6u32).map(move |k| {
                let u = ((7 * i as u32 + 5 * k) % 32) as f32 / 32.0;
                let v = ((3 * i as u32 + 11 * k) % 32) as f32 / 32.0;
                [u, v, lod, 0.0]
            })
        })
        .collect();
    let view = texture.create_view(&Default::default());
    let got = super::run_lookup(
        &device,
        &queue,
        TRILINEAR_WGSL,
        &view,
        &sampler,
        &points,
        16,
    );

    // One level's bilinear sample, clamped to the edge.
    let bilinear = |level: u32, u: f32, v: f32| -> [f64; 4] {
        let (w, h) = size(level);
        let axis = |c: f32, n: u32| {
            let t = f64::from(c) * f64::from(n) - 0.5;
            let i = t.floor();
            let clamp = |k: f64| (k.max(0.0) as u32).min(n - 1);
            [(clamp(i), 1.0 - (t - i)), (clamp(i + 1.0), t - i)]
        };
        let mut acc = [0f64; 4];
        for (y, wy) in axis(v, h) {
            for (x, wx) in axis(u, w) {
                for (c, a) in acc.iter_mut().enumerate() {
                    *a += wx * wy * f64::from(level_byte(level, x, y, c as u32)) / 255.0;
                }
            }
        }
        acc
    };
    for (i, p) in points.iter().enumerate() {
        let d = f64::from(p[2].clamp(0.0, (LEVELS - 1) as f32));
        let lo = d.floor() as u32;
        let f = d - d.floor();
        let hi = (lo + 1).min(LEVELS - 1);
        let (a, b) = (bilinear(lo, p[0], p[1]), bilinear(hi, p[0], p[1]));
        for c in 0..4 {
            let want = (1.0 - f) * a[c] + f * b[c];
            let g = got[4 * i + c];
            assert!(
                (want as f32 - g).abs() <= 1e-5,
                "point {i} {p:?} component {c}: want {want}, got {g}"
            );
        }
    }
}
