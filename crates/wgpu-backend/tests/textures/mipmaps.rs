//! Mipmap generation as wgpu compute code does it, run unchanged through
//! aqueduct-wgpu: a 64x64 rgba8unorm texture of its full 7-level chain,
//! level 0 uploaded with `write_texture`, each level N+1 written by a
//! 2x2 box filter reading level N through a single-level view, all six
//! passes and the readback of every level (`copy_texture_to_buffer` with
//! `mip_level`) in one submission. The expected levels are computed on the
//! host with the same f32 operations, unorm8 reads as `k / 255` and
//! writes rounded to nearest.

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
