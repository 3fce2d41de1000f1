//! Textures through the facade on gfxsim: uploads, copies and clears
//! checked against host-computed texels, WGSL kernels reading sampled and
//! storage textures and writing storage textures (several formats and
//! dimensions), the texture queries, and each validation rule's typed
//! error.

use std::borrow::Cow;

use aqueduct::util::DeviceExt;
use aqueduct::*;
use aqueduct_test_harness::facade::*;
use aqueduct_test_harness::run_time_wgsl::{llvm_installed, no_disk_cache, texture_shaders};

#[path = "textures/sampling.rs"]
mod sampling;

#[path = "textures/depth.rs"]
mod depth;

#[path = "textures/cube.rs"]
mod cube;

#[path = "textures/grad_offsets.rs"]
mod grad_offsets;

#[path = "textures/bgra8_storage.rs"]
mod bgra8_storage;

#[path = "textures/srgb.rs"]
mod srgb;

#[path = "textures/atomics.rs"]
mod atomics;

#[path = "textures/mips.rs"]
mod mips;

#[path = "textures/layered_mips.rs"]
mod layered_mips;

#[path = "textures/gfx9.rs"]
mod gfx9;

fn ctx() -> Ctx {
    no_disk_cache();
    aqueduct_test_harness::facade::ctx()
}

const ALL_USAGES: TextureUsages = TextureUsages::COPY_SRC
    .union(TextureUsages::COPY_DST)
    .union(TextureUsages::TEXTURE_BINDING)
    .union(TextureUsages::STORAGE_BINDING);

fn texture(
    c: &Ctx,
    dimension: TextureDimension,
    format: TextureFormat,
    size: [u32; 3],
    usage: TextureUsages,
) -> Texture {
    c.device.create_texture(&TextureDescriptor {
        label: Some("t"),
        size: Extent3d {
            width: size[0],
            height: size[1],
            depth_or_array_layers: size[2],
        },
        mip_level_count: 1,
        sample_count: 1,
        dimension,
        format,
        usage,
        view_formats: &[],
    })
}

fn extent(size: [u32; 3]) -> Extent3d {
    Extent3d {
        width: size[0],
        height: size[1],
        depth_or_array_layers: size[2],
    }
}

fn at(texture: &Texture, origin: [u32; 3]) -> texture::TexelCopyTextureInfo<'_> {
    wgt::TexelCopyTextureInfo {
        texture,
        mip_level: 0,
        origin: Origin3d {
            x: origin[0],
            y: origin[1],
            z: origin[2],
        },
        aspect: TextureAspect::All,
    }
}

/// The texels of `size` (tightly packed rows) read back through
/// `copy_texture_to_buffer` with 256-byte rows.
fn read_texels(c: &Ctx, t: &Texture, origin: [u32; 3], size: [u32; 3], texel: u32) -> Vec<u8> {
    let row = size[0] * texel;
    let bpr = row.next_multiple_of(COPY_BYTES_PER_ROW_ALIGNMENT);
    let bytes = u64::from(bpr) * u64::from(size[1]) * u64::from(size[2]);
    let rb = readback_buffer(&c.device, bytes);
    let mut enc = c.device.create_command_encoder(&Default::default());
    enc.copy_texture_to_buffer(
        at(t, origin),
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

/// Upload `data` (tight rows) into the whole of `t`.
fn write_all(c: &Ctx, t: &Texture, data: &[u8], texel: u32) {
    let size = t.size();
    expect_valid(&c.device, || {
        c.queue.write_texture(
            at(t, [0, 0, 0]),
            data,
            TexelCopyBufferLayout {
                offset: 0,
                bytes_per_row: Some(size.width * texel),
                rows_per_image: Some(size.height),
            },
            size,
        )
    });
}

fn pattern(n: usize, seed: u32) -> Vec<u8> {
    let mut rng = aqueduct_test_support::Rng::new(u64::from(seed));
    (0..n).map(|_| rng.u32() as u8).collect()
}

#[test]
fn write_texture_then_copy_back() {
    let c = ctx();
    for (dim, format, texel, size) in [
        (
            TextureDimension::D2,
            TextureFormat::Rgba8Unorm,
            4,
            [5, 3, 1],
        ),
        (TextureDimension::D2, TextureFormat::R32Float, 4, [70, 4, 1]),
        (TextureDimension::D2, TextureFormat::R8Uint, 1, [3, 5, 4]),
        (TextureDimension::D1, TextureFormat::Rg16Sint, 4, [33, 1, 1]),
        (
            TextureDimension::D3,
            TextureFormat::Rgba32Float,
            16,
            [4, 3, 2],
        ),
    ] {
        let t = expect_valid(&c.device, || texture(&c, dim, format, size, ALL_USAGES));
        let n = (size[0] * size[1] * size[2] * texel) as usize;
        let data = pattern(n, size[0] + texel);
        write_all(&c, &t, &data, texel);
        assert_eq!(
            read_texels(&c, &t, [0, 0, 0], size, texel),
            data,
            "{format:?} {size:?}"
        );
        // A sub-box: rows of the box only, at an offset in both axes.
        if size[0] > 2 && size[1] > 2 {
            let sub = [size[0] - 2, size[1] - 2, 1];
            let got = read_texels(&c, &t, [1, 1, 0], sub, texel);
            let mut want = Vec::new();
            for y in 1..size[1] - 1 {
                let start = ((y * size[0] + 1) * texel) as usize;
                want.extend_from_slice(&data[start..start + (sub[0] * texel) as usize]);
            }
            assert_eq!(got, want, "{format:?} sub-box");
        }
    }
}

#[test]
fn textures_start_zeroed_and_clear_to_zero() {
    let c = ctx();
    let t = texture(
        &c,
        TextureDimension::D2,
        TextureFormat::R32Uint,
        [9, 4, 3],
        ALL_USAGES,
    );
    assert!(
        read_texels(&c, &t, [0, 0, 0], [9, 4, 3], 4)
            .iter()
            .all(|&b| b == 0)
    );
    let data = pattern(9 * 4 * 3 * 4, 7);
    write_all(&c, &t, &data, 4);
    let mut enc = c.device.create_command_encoder(&Default::default());
    enc.clear_texture(
        &t,
        &wgt::ImageSubresourceRange {
            base_array_layer: 1,
            array_layer_count: Some(1),
            ..Default::default()
        },
    );
    expect_valid(&c.device, || c.queue.submit([enc.finish()]));
    let got = read_texels(&c, &t, [0, 0, 0], [9, 4, 3], 4);
    let layer = 9 * 4 * 4;
    assert_eq!(got[..layer], data[..layer]);
    assert!(got[layer..2 * layer].iter().all(|&b| b == 0));
    assert_eq!(got[2 * layer..], data[2 * layer..]);
}

#[test]
fn buffer_to_texture_and_texture_to_texture_copies() {
    let c = ctx();
    let size = [6, 5, 2];
    let a = texture(
        &c,
        TextureDimension::D2,
        TextureFormat::Rg32Uint,
        size,
        ALL_USAGES,
    );
    let b = texture(
        &c,
        TextureDimension::D2,
        TextureFormat::Rg32Uint,
        size,
        ALL_USAGES,
    );
    // 256-byte rows in the source buffer, 48 bytes of texels each.
    let bpr = 256u32;
    let mut src = vec![0u8; (bpr * 5 * 2) as usize];
    let tight = pattern(6 * 5 * 2 * 8, 11);
    for (i, row) in tight.chunks(48).enumerate() {
        src[i * bpr as usize..i * bpr as usize + 48].copy_from_slice(row);
    }
    let buf = c
        .device
        .create_buffer_init(&aqueduct::util::BufferInitDescriptor {
            label: Some("src"),
            contents: &src,
            usage: BufferUsages::COPY_SRC,
        });
    let mut enc = c.device.create_command_encoder(&Default::default());
    enc.copy_buffer_to_texture(
        wgt::TexelCopyBufferInfo {
            buffer: &buf,
            layout: TexelCopyBufferLayout {
                offset: 0,
                bytes_per_row: Some(bpr),
                rows_per_image: Some(5),
            },
        },
        at(&a, [0, 0, 0]),
        extent(size),
    );
    enc.copy_texture_to_texture(at(&a, [1, 2, 1]), at(&b, [0, 0, 0]), extent([5, 3, 1]));
    expect_valid(&c.device, || c.queue.submit([enc.finish()]));
    assert_eq!(read_texels(&c, &a, [0, 0, 0], size, 8), tight);
    let got = read_texels(&c, &b, [0, 0, 0], [5, 3, 1], 8);
    let mut want = Vec::new();
    for y in 2..5 {
        let start = ((5 * 6 + y * 6 + 1) * 8) as usize;
        want.extend_from_slice(&tight[start..start + 40]);
    }
    assert_eq!(got, want);
}

fn wgsl_pipeline(c: &Ctx, text: &str) -> ComputePipeline {
    let module = expect_valid(&c.device, || {
        c.device.create_shader_module(ShaderModuleDescriptor {
            label: Some("textures"),
            source: ShaderSource::Wgsl(Cow::Owned(text.to_string())),
        })
    });
    expect_valid(&c.device, || auto_pipeline(&c.device, &module, "main"))
}

fn dispatch(c: &Ctx, p: &ComputePipeline, entries: &[BindGroupEntry<'_>], groups: [u32; 3]) {
    let bg = expect_valid(&c.device, || {
        c.device.create_bind_group(&BindGroupDescriptor {
            label: None,
            layout: &p.get_bind_group_layout(0),
            entries,
        })
    });
    let mut enc = c.device.create_command_encoder(&Default::default());
    {
        let mut pass = enc.begin_compute_pass(&Default::default());
        pass.set_pipeline(p);
        pass.set_bind_group(0, Some(&bg), &[]);
        pass.dispatch_workgroups(groups[0], groups[1], groups[2]);
    }
    expect_valid(&c.device, || c.queue.submit([enc.finish()]));
}

/// A kernel reads a sampled texture with textureLoad and writes each texel
/// (times two) into a storage texture of another format: rgba8unorm →
/// rgba16float and r32float → r32float in 2D, rgba32sint in 3D, r32uint in
/// 1D, and rgba8uint in a 2D array (a layer range view).
#[test]
fn sampled_to_storage_across_formats_and_dimensions() {
    if !texture_shaders("sampled_to_storage_across_formats_and_dimensions") {
        return;
    }
    let c = ctx();
    let w = 7u32;
    let h = 3u32;

    // 2D float: rgba8unorm in, rgba32float out (exact in f32).
    let src = texture(
        &c,
        TextureDimension::D2,
        TextureFormat::Rgba8Unorm,
        [w, h, 1],
        ALL_USAGES,
    );
    let dst = texture(
        &c,
        TextureDimension::D2,
        TextureFormat::Rgba32Float,
        [w, h, 1],
        ALL_USAGES,
    );
    let data = pattern((w * h * 4) as usize, 3);
    write_all(&c, &src, &data, 4);
    let p = wgsl_pipeline(
        &c,
        "@group(0) @binding(0) var src: texture_2d<f32>;
@group(0) @binding(1) var dst: texture_storage_2d<rgba32float, write>;
@compute @workgroup_size(8, 4)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    if (any(id.xy >= textureDimensions(dst))) { return; }
    textureStore(dst, id.xy, textureLoad(src, id.xy, 0) * 2.0);
}",
    );
    let (sv, dv) = (
        src.create_view(&Default::default()),
        dst.create_view(&Default::default()),
    );
    dispatch(
        &c,
        &p,
        &[
            BindGroupEntry {
                binding: 0,
                resource: BindingResource::TextureView(&sv),
            },
            BindGroupEntry {
                binding: 1,
                resource: BindingResource::TextureView(&dv),
            },
        ],
        [1, 1, 1],
    );
    let got: Vec<f32> =
        bytemuck::cast_slice(&read_texels(&c, &dst, [0, 0, 0], [w, h, 1], 16)).to_vec();
    let want: Vec<f32> = data.iter().map(|&b| f32::from(b) / 255.0 * 2.0).collect();
    aqueduct_test_support::assert_close(&got, &want, 1e-6, 0.0, "rgba8unorm doubled");

    // 1D r32uint → 1D r32uint, doubled.
    let src = texture(
        &c,
        TextureDimension::D1,
        TextureFormat::R32Uint,
        [40, 1, 1],
        ALL_USAGES,
    );
    let dst = texture(
        &c,
        TextureDimension::D1,
        TextureFormat::R32Uint,
        [40, 1, 1],
        ALL_USAGES,
    );
    let words: Vec<u32> = (0..40).map(|i| i * 3 + 1).collect();
    write_all(&c, &src, bytemuck::cast_slice(&words), 4);
    let p = wgsl_pipeline(
        &c,
        "@group(0) @binding(0) var src: texture_1d<u32>;
@group(0) @binding(1) var dst: texture_storage_1d<r32uint, write>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    if (id.x >= textureDimensions(src)) { return; }
    let v = textureLoad(src, id.x, 0);
    // A one-component format reads as (r, 0, 0, 1).
    textureStore(dst, id.x, vec4<u32>(v.x * 2u + v.y + v.z + v.w - 1u));
}",
    );
    let (sv, dv) = (
        src.create_view(&Default::default()),
        dst.create_view(&Default::default()),
    );
    dispatch(
        &c,
        &p,
        &[
            BindGroupEntry {
                binding: 0,
                resource: BindingResource::TextureView(&sv),
            },
            BindGroupEntry {
                binding: 1,
                resource: BindingResource::TextureView(&dv),
            },
        ],
        [1, 1, 1],
    );
    let got: Vec<u32> =
        bytemuck::cast_slice(&read_texels(&c, &dst, [0, 0, 0], [40, 1, 1], 4)).to_vec();
    assert_eq!(got, words.iter().map(|v| v * 2).collect::<Vec<_>>());

    // 3D rgba32sint, negated.
    let size = [3, 2, 4];
    let src = texture(
        &c,
        TextureDimension::D3,
        TextureFormat::Rgba32Sint,
        size,
        ALL_USAGES,
    );
    let dst = texture(
        &c,
        TextureDimension::D3,
        TextureFormat::Rgba32Sint,
        size,
        ALL_USAGES,
    );
    let ints: Vec<i32> = (0..3 * 2 * 4 * 4).map(|i| i * 7 - 50).collect();
    write_all(&c, &src, bytemuck::cast_slice(&ints), 16);
    let p = wgsl_pipeline(
        &c,
        "@group(0) @binding(0) var src: texture_3d<i32>;
@group(0) @binding(1) var dst: texture_storage_3d<rgba32sint, write>;
@compute @workgroup_size(4, 4, 4)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    if (any(id >= textureDimensions(src))) { return; }
    textureStore(dst, id, -textureLoad(src, id, 0));
}",
    );
    let (sv, dv) = (
        src.create_view(&Default::default()),
        dst.create_view(&Default::default()),
    );
    dispatch(
        &c,
        &p,
        &[
            BindGroupEntry {
                binding: 0,
                resource: BindingResource::TextureView(&sv),
            },
            BindGroupEntry {
                binding: 1,
                resource: BindingResource::TextureView(&dv),
            },
        ],
        [1, 1, 1],
    );
    let got: Vec<i32> = bytemuck::cast_slice(&read_texels(&c, &dst, [0, 0, 0], size, 16)).to_vec();
    assert_eq!(got, ints.iter().map(|v| -v).collect::<Vec<_>>());

    // 2D array rgba8uint: a view of layers 1..3 of four, into a 2D array
    // storage texture of two layers.
    let src = texture(
        &c,
        TextureDimension::D2,
        TextureFormat::Rgba8Uint,
        [5, 2, 4],
        ALL_USAGES,
    );
    let dst = texture(
        &c,
        TextureDimension::D2,
        TextureFormat::Rgba8Uint,
        [5, 2, 2],
        ALL_USAGES,
    );
    let bytes = pattern(5 * 2 * 4 * 4, 9);
    write_all(&c, &src, &bytes, 4);
    let p = wgsl_pipeline(
        &c,
        "@group(0) @binding(0) var src: texture_2d_array<u32>;
@group(0) @binding(1) var dst: texture_storage_2d_array<rgba8uint, write>;
@compute @workgroup_size(8, 2, 2)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    if (id.x >= 5u || id.z >= textureNumLayers(src)) { return; }
    textureStore(dst, id.xy, id.z, textureLoad(src, id.xy, id.z, 0) ^ vec4<u32>(255u));
}",
    );
    let sv = src.create_view(&TextureViewDescriptor {
        dimension: Some(TextureViewDimension::D2Array),
        base_array_layer: 1,
        array_layer_count: Some(2),
        ..Default::default()
    });
    let dv = dst.create_view(&Default::default());
    assert_eq!(sv.array_layers(), 1..3);
    dispatch(
        &c,
        &p,
        &[
            BindGroupEntry {
                binding: 0,
                resource: BindingResource::TextureView(&sv),
            },
            BindGroupEntry {
                binding: 1,
                resource: BindingResource::TextureView(&dv),
            },
        ],
        [1, 1, 1],
    );
    let got = read_texels(&c, &dst, [0, 0, 0], [5, 2, 2], 4);
    let layer = 5 * 2 * 4;
    let want: Vec<u8> = bytes[layer..3 * layer].iter().map(|b| b ^ 255).collect();
    assert_eq!(got, want);
}

/// read_write storage: each texel incremented in place, twice (two
/// dispatches ordered by the hazard tracker).
#[test]
fn read_write_storage_in_place() {
    if !texture_shaders("read_write_storage_in_place") {
        return;
    }
    let c = ctx();
    let t = texture(
        &c,
        TextureDimension::D2,
        TextureFormat::R32Float,
        [9, 9, 1],
        ALL_USAGES,
    );
    let values: Vec<f32> = (0..81).map(|i| i as f32 * 0.5).collect();
    write_all(&c, &t, bytemuck::cast_slice(&values), 4);
    let p = wgsl_pipeline(
        &c,
        "@group(0) @binding(0) var t: texture_storage_2d<r32float, read_write>;
@compute @workgroup_size(8, 8)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    if (any(id.xy >= textureDimensions(t))) { return; }
    textureStore(t, id.xy, textureLoad(t, id.xy) + vec4<f32>(1.0));
}",
    );
    let v = t.create_view(&Default::default());
    for _ in 0..2 {
        dispatch(
            &c,
            &p,
            &[BindGroupEntry {
                binding: 0,
                resource: BindingResource::TextureView(&v),
            }],
            [2, 2, 1],
        );
    }
    let got: Vec<f32> =
        bytemuck::cast_slice(&read_texels(&c, &t, [0, 0, 0], [9, 9, 1], 4)).to_vec();
    let want: Vec<f32> = values.iter().map(|v| v + 2.0).collect();
    assert_eq!(got, want);
}

/// textureDimensions, textureNumLayers and textureNumLevels of 1D, 2D,
/// 2D-array (a layer-range view) and 3D views.
#[test]
fn texture_queries() {
    if !texture_shaders("texture_queries") {
        return;
    }
    let c = ctx();
    let a = texture(
        &c,
        TextureDimension::D1,
        TextureFormat::R8Unorm,
        [17, 1, 1],
        ALL_USAGES,
    );
    let b = texture(
        &c,
        TextureDimension::D2,
        TextureFormat::Rg16Float,
        [9, 6, 5],
        ALL_USAGES,
    );
    let d = texture(
        &c,
        TextureDimension::D3,
        TextureFormat::Rgba16Uint,
        [4, 5, 6],
        ALL_USAGES,
    );
    let out = storage(&c.device, 64);
    let p = wgsl_pipeline(
        &c,
        "@group(0) @binding(0) var a: texture_1d<f32>;
@group(0) @binding(1) var b: texture_2d_array<f32>;
@group(0) @binding(2) var d: texture_3d<u32>;
@group(0) @binding(3) var s: texture_storage_2d<rg16float, read>;
@group(0) @binding(4) var<storage, read_write> o: array<u32>;
@compute @workgroup_size(1)
fn main() {
    o[0] = textureDimensions(a);
    o[1] = textureDimensions(b).x;
    o[2] = textureDimensions(b).y;
    o[3] = textureNumLayers(b);
    o[4] = textureNumLevels(b);
    let e = textureDimensions(d);
    o[5] = e.x; o[6] = e.y; o[7] = e.z;
    o[8] = textureNumLevels(d);
    o[9] = textureDimensions(s).x;
    o[10] = textureDimensions(s).y;
}",
    );
    let av = a.create_view(&Default::default());
    let bv = b.create_view(&TextureViewDescriptor {
        base_array_layer: 1,
        array_layer_count: Some(3),
        dimension: Some(TextureViewDimension::D2Array),
        ..Default::default()
    });
    let dv = d.create_view(&Default::default());
    let sv = b.create_view(&TextureViewDescriptor {
        base_array_layer: 4,
        array_layer_count: Some(1),
        dimension: Some(TextureViewDimension::D2),
        ..Default::default()
    });
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
                resource: BindingResource::TextureView(&bv),
            },
            BindGroupEntry {
                binding: 2,
                resource: BindingResource::TextureView(&dv),
            },
            BindGroupEntry {
                binding: 3,
                resource: BindingResource::TextureView(&sv),
            },
            BindGroupEntry {
                binding: 4,
                resource: out.as_entire_binding(),
            },
        ],
        [1, 1, 1],
    );
    let got = read_words(&c, &out);
    assert_eq!(&got[..11], &[17, 9, 6, 3, 1, 4, 5, 6, 1, 9, 6]);
}

fn tex_err(e: &ValidationError) -> Option<&TextureError> {
    match e {
        ValidationError::Texture(t) => Some(t),
        _ => None,
    }
}

fn create_err(e: &ValidationError) -> Option<&CreateTextureError> {
    match tex_err(e)? {
        TextureError::Create { source, .. } => Some(source),
        _ => None,
    }
}

fn view_err(e: &ValidationError) -> Option<&TextureViewError> {
    match tex_err(e)? {
        TextureError::View { source, .. } => Some(source),
        _ => None,
    }
}

fn copy_err(e: &ValidationError) -> Option<&TextureCopyError> {
    match command_error(e)? {
        CommandError::Texture { source, .. } => Some(source),
        _ => None,
    }
}

fn bind_err(e: &ValidationError) -> Option<&TextureBindingError> {
    match e {
        ValidationError::BindGroup(BindGroupError::Texture { source, .. })
        | ValidationError::BindGroupLayout(BindGroupLayoutError::Texture { source, .. }) => {
            Some(source)
        }
        _ => None,
    }
}

#[test]
fn texture_creation_is_validated() {
    let c = ctx();
    let limits = c.device.limits();
    let d2 = TextureDimension::D2;
    let rgba = TextureFormat::Rgba8Unorm;
    let make = |dim, format, size, usage, mips, samples| {
        c.device.create_texture(&TextureDescriptor {
            label: None,
            size: extent(size),
            mip_level_count: mips,
            sample_count: samples,
            dimension: dim,
            format,
            usage,
            view_formats: &[],
        })
    };
    expect_validation(
        &c.device,
        |e| {
            matches!(
                create_err(e),
                Some(CreateTextureError::ZeroSize { size: [0, 4, 1] })
            )
        },
        || make(d2, rgba, [0, 4, 1], ALL_USAGES, 1, 1),
    );
    let max = limits.max_texture_dimension_2d;
    expect_validation(
        &c.device,
        |e| matches!(create_err(e), Some(CreateTextureError::TooLarge { max: m, limit: "max_texture_dimension_2d", .. }) if *m == max),
        || make(d2, rgba, [max + 1, 1, 1], ALL_USAGES, 1, 1),
    );
    expect_validation(
        &c.device,
        |e| {
            matches!(
                create_err(e),
                Some(CreateTextureError::TooLarge {
                    limit: "max_texture_array_layers",
                    ..
                })
            )
        },
        || {
            make(
                d2,
                rgba,
                [4, 4, limits.max_texture_array_layers + 1],
                ALL_USAGES,
                1,
                1,
            )
        },
    );
    expect_validation(
        &c.device,
        |e| {
            matches!(
                create_err(e),
                Some(CreateTextureError::TooLarge {
                    limit: "max_texture_dimension_3d",
                    ..
                })
            )
        },
        || {
            make(
                TextureDimension::D3,
                rgba,
                [4, 4, limits.max_texture_dimension_3d + 1],
                ALL_USAGES,
                1,
                1,
            )
        },
    );
    expect_validation(
        &c.device,
        |e| {
            matches!(
                create_err(e),
                Some(CreateTextureError::TooLarge {
                    limit: "max_texture_dimension_1d",
                    ..
                })
            )
        },
        || {
            make(
                TextureDimension::D1,
                rgba,
                [limits.max_texture_dimension_1d + 1, 1, 1],
                ALL_USAGES,
                1,
                1,
            )
        },
    );
    expect_validation(
        &c.device,
        |e| matches!(create_err(e), Some(CreateTextureError::Not1D { .. })),
        || make(TextureDimension::D1, rgba, [4, 2, 1], ALL_USAGES, 1, 1),
    );
    expect_validation(
        &c.device,
        |e| {
            matches!(
                create_err(e),
                Some(CreateTextureError::MipLevelCount {
                    requested: 5,
                    max: 4
                })
            )
        },
        || make(d2, rgba, [8, 8, 1], ALL_USAGES, 5, 1),
    );
    expect_validation(
        &c.device,
        |e| {
            matches!(
                create_err(e),
                Some(CreateTextureError::SampleCount { count: 4 })
            )
        },
        || make(d2, rgba, [8, 8, 1], ALL_USAGES, 1, 4),
    );
    expect_validation(
        &c.device,
        |e| {
            matches!(
                create_err(e),
                Some(CreateTextureError::UnsupportedFormat {
                    format: TextureFormat::Depth24PlusStencil8
                })
            )
        },
        || {
            make(
                d2,
                TextureFormat::Depth24PlusStencil8,
                [8, 8, 1],
                TextureUsages::COPY_DST,
                1,
                1,
            )
        },
    );
    expect_validation(
        &c.device,
        |e| matches!(create_err(e), Some(CreateTextureError::EmptyUsage)),
        || make(d2, rgba, [8, 8, 1], TextureUsages::empty(), 1, 1),
    );
    expect_validation(
        &c.device,
        |e| matches!(create_err(e), Some(CreateTextureError::UnsupportedUsage { unsupported, .. }) if *unsupported == TextureUsages::RENDER_ATTACHMENT),
        || {
            make(
                d2,
                rgba,
                [8, 8, 1],
                TextureUsages::RENDER_ATTACHMENT | TextureUsages::COPY_DST,
                1,
                1,
            )
        },
    );
    expect_validation(
        &c.device,
        |e| matches!(create_err(e), Some(CreateTextureError::ViewFormat { .. })),
        || {
            c.device.create_texture(&TextureDescriptor {
                label: None,
                size: extent([4, 4, 1]),
                mip_level_count: 1,
                sample_count: 1,
                dimension: d2,
                format: rgba,
                usage: ALL_USAGES,
                view_formats: &[TextureFormat::Bgra8Unorm],
            })
        },
    );
}

#[test]
fn views_are_validated() {
    let c = ctx();
    let t = texture(
        &c,
        TextureDimension::D2,
        TextureFormat::Rgba8Unorm,
        [8, 8, 4],
        TextureUsages::COPY_DST | TextureUsages::TEXTURE_BINDING,
    );
    let v = |desc: TextureViewDescriptor<'static>| t.create_view(&desc);
    expect_validation(
        &c.device,
        |e| matches!(view_err(e), Some(TextureViewError::Format { .. })),
        || {
            v(TextureViewDescriptor {
                format: Some(TextureFormat::R32Float),
                ..Default::default()
            })
        },
    );
    expect_validation(
        &c.device,
        |e| {
            matches!(
                view_err(e),
                Some(TextureViewError::Dimension {
                    view: TextureViewDimension::D3,
                    ..
                })
            )
        },
        || {
            v(TextureViewDescriptor {
                dimension: Some(TextureViewDimension::D3),
                ..Default::default()
            })
        },
    );
    expect_validation(
        &c.device,
        |e| {
            matches!(
                view_err(e),
                Some(TextureViewError::LayerCount {
                    view: TextureViewDimension::Cube,
                    count: 4,
                })
            )
        },
        || {
            v(TextureViewDescriptor {
                dimension: Some(TextureViewDimension::Cube),
                array_layer_count: Some(4),
                ..Default::default()
            })
        },
    );
    expect_validation(
        &c.device,
        |e| {
            matches!(
                view_err(e),
                Some(TextureViewError::LayerRange {
                    base: 3,
                    end: 5,
                    layers: 4
                })
            )
        },
        || {
            v(TextureViewDescriptor {
                base_array_layer: 3,
                array_layer_count: Some(2),
                ..Default::default()
            })
        },
    );
    expect_validation(
        &c.device,
        |e| {
            matches!(
                view_err(e),
                Some(TextureViewError::LayerCount { count: 2, .. })
            )
        },
        || {
            v(TextureViewDescriptor {
                dimension: Some(TextureViewDimension::D2),
                array_layer_count: Some(2),
                ..Default::default()
            })
        },
    );
    expect_validation(
        &c.device,
        |e| {
            matches!(
                view_err(e),
                Some(TextureViewError::MipRange { base: 1, .. })
            )
        },
        || {
            v(TextureViewDescriptor {
                base_mip_level: 1,
                ..Default::default()
            })
        },
    );
    expect_validation(
        &c.device,
        |e| matches!(view_err(e), Some(TextureViewError::Usage { .. })),
        || {
            v(TextureViewDescriptor {
                usage: Some(TextureUsages::STORAGE_BINDING),
                ..Default::default()
            })
        },
    );
    expect_validation(
        &c.device,
        |e| matches!(view_err(e), Some(TextureViewError::Aspect { .. })),
        || {
            v(TextureViewDescriptor {
                aspect: TextureAspect::DepthOnly,
                ..Default::default()
            })
        },
    );
    // Defaults: an array of the remaining layers, or one layer for a 2D view.
    let all = expect_valid(&c.device, || v(Default::default()));
    assert_eq!(
        (all.dimension(), all.array_layers()),
        (TextureViewDimension::D2Array, 0..4)
    );
    let one = expect_valid(&c.device, || {
        v(TextureViewDescriptor {
            dimension: Some(TextureViewDimension::D2),
            base_array_layer: 2,
            ..Default::default()
        })
    });
    assert_eq!(one.array_layers(), 2..3);
    t.destroy();
    expect_validation(
        &c.device,
        |e| matches!(view_err(e), Some(TextureViewError::InvalidTexture { .. })),
        || v(Default::default()),
    );
}

fn layout_entry(binding: u32, ty: BindingType) -> BindGroupLayoutEntry {
    BindGroupLayoutEntry {
        binding,
        visibility: ShaderStages::COMPUTE,
        ty,
        count: None,
    }
}

fn storage_entry(
    format: TextureFormat,
    access: StorageTextureAccess,
    dim: TextureViewDimension,
) -> BindingType {
    BindingType::StorageTexture {
        access,
        format,
        view_dimension: dim,
    }
}

#[test]
fn texture_bindings_are_validated() {
    let c = ctx();
    let d2 = TextureViewDimension::D2;
    let layout = |ty| {
        c.device
            .create_bind_group_layout(&BindGroupLayoutDescriptor {
                label: None,
                entries: &[layout_entry(0, ty)],
            })
    };
    // Layout rows.
    expect_validation(
        &c.device,
        |e| {
            matches!(
                bind_err(e),
                Some(TextureBindingError::ReadWriteFormat {
                    format: TextureFormat::Rgba8Unorm,
                    ..
                })
            )
        },
        || {
            layout(storage_entry(
                TextureFormat::Rgba8Unorm,
                StorageTextureAccess::ReadWrite,
                d2,
            ))
        },
    );
    expect_validation(
        &c.device,
        |e| matches!(bind_err(e), Some(TextureBindingError::Multisampled)),
        || {
            layout(BindingType::Texture {
                sample_type: TextureSampleType::Float { filterable: false },
                view_dimension: d2,
                multisampled: true,
            })
        },
    );
    expect_validation(
        &c.device,
        |e| matches!(bind_err(e), Some(TextureBindingError::ViewDimension { .. })),
        || {
            layout(storage_entry(
                TextureFormat::R32Float,
                StorageTextureAccess::ReadOnly,
                TextureViewDimension::Cube,
            ))
        },
    );
    expect_validation(
        &c.device,
        |e| matches!(bind_err(e), Some(TextureBindingError::StorageFormat { .. })),
        || {
            layout(storage_entry(
                TextureFormat::Rgba8UnormSrgb,
                StorageTextureAccess::WriteOnly,
                d2,
            ))
        },
    );
    // bgra8unorm binds as storage only with BGRA8UNORM_STORAGE (as texture
    // creation refuses it without).
    let plain = ctx_with(|a| DeviceDescriptor {
        required_features: a.features() - wgpu_types::Features::BGRA8UNORM_STORAGE,
        experimental_features: experimental_features(),
        required_limits: a.limits(),
        ..Default::default()
    });
    expect_validation(
        &plain.device,
        |e| {
            matches!(
                bind_err(e),
                Some(TextureBindingError::MissingFeature {
                    format: TextureFormat::Bgra8Unorm,
                    feature: wgpu_types::Features::BGRA8UNORM_STORAGE,
                })
            )
        },
        || {
            plain
                .device
                .create_bind_group_layout(&BindGroupLayoutDescriptor {
                    label: None,
                    entries: &[layout_entry(
                        0,
                        storage_entry(
                            TextureFormat::Bgra8Unorm,
                            StorageTextureAccess::WriteOnly,
                            d2,
                        ),
                    )],
                })
        },
    );
    expect_valid(&c.device, || {
        layout(storage_entry(
            TextureFormat::Bgra8Unorm,
            StorageTextureAccess::WriteOnly,
            d2,
        ))
    });

    // Bind group rows.
    let storage_layout = expect_valid(&c.device, || {
        layout(storage_entry(
            TextureFormat::R32Float,
            StorageTextureAccess::WriteOnly,
            d2,
        ))
    });
    let sampled_layout = expect_valid(&c.device, || {
        layout(BindingType::Texture {
            sample_type: TextureSampleType::Uint,
            view_dimension: d2,
            multisampled: false,
        })
    });
    let group = |layout: &BindGroupLayout, resource: BindingResource<'_>| {
        c.device.create_bind_group(&BindGroupDescriptor {
            label: None,
            layout,
            entries: &[BindGroupEntry {
                binding: 0,
                resource,
            }],
        })
    };
    let no_storage = texture(
        &c,
        TextureDimension::D2,
        TextureFormat::R32Float,
        [4, 4, 1],
        TextureUsages::TEXTURE_BINDING,
    );
    let v = no_storage.create_view(&Default::default());
    expect_validation(
        &c.device,
        |e| matches!(bind_err(e), Some(TextureBindingError::MissingUsage { needed, .. }) if *needed == TextureUsages::STORAGE_BINDING),
        || group(&storage_layout, BindingResource::TextureView(&v)),
    );
    let other_format = texture(
        &c,
        TextureDimension::D2,
        TextureFormat::R32Uint,
        [4, 4, 1],
        ALL_USAGES,
    );
    let v = other_format.create_view(&Default::default());
    expect_validation(
        &c.device,
        |e| {
            matches!(
                bind_err(e),
                Some(TextureBindingError::Format {
                    layout: TextureFormat::R32Float,
                    view: TextureFormat::R32Uint
                })
            )
        },
        || group(&storage_layout, BindingResource::TextureView(&v)),
    );
    // An r32uint view satisfies a uint sampled entry; an r32float one does not.
    expect_valid(&c.device, || {
        group(&sampled_layout, BindingResource::TextureView(&v))
    });
    let float = texture(
        &c,
        TextureDimension::D2,
        TextureFormat::R32Float,
        [4, 4, 1],
        ALL_USAGES,
    );
    let fv = float.create_view(&Default::default());
    expect_validation(
        &c.device,
        |e| {
            matches!(
                bind_err(e),
                Some(TextureBindingError::SampleType {
                    layout: TextureSampleType::Uint,
                    ..
                })
            )
        },
        || group(&sampled_layout, BindingResource::TextureView(&fv)),
    );
    let array = texture(
        &c,
        TextureDimension::D2,
        TextureFormat::R32Float,
        [4, 4, 2],
        ALL_USAGES,
    );
    let av = array.create_view(&Default::default());
    expect_validation(
        &c.device,
        |e| {
            matches!(
                bind_err(e),
                Some(TextureBindingError::Dimension {
                    layout: TextureViewDimension::D2,
                    view: TextureViewDimension::D2Array
                })
            )
        },
        || group(&storage_layout, BindingResource::TextureView(&av)),
    );
    let buf = storage(&c.device, 64);
    expect_validation(
        &c.device,
        |e| {
            matches!(
                bind_err(e),
                Some(TextureBindingError::ResourceKind {
                    resource: "a buffer",
                    ..
                })
            )
        },
        || group(&storage_layout, buf.as_entire_binding()),
    );
    float.destroy();
    expect_validation(
        &c.device,
        |e| matches!(bind_err(e), Some(TextureBindingError::InvalidView)),
        || group(&storage_layout, BindingResource::TextureView(&fv)),
    );
}

#[test]
fn copies_are_validated() {
    let c = ctx();
    let t = texture(
        &c,
        TextureDimension::D2,
        TextureFormat::Rgba8Unorm,
        [8, 4, 2],
        ALL_USAGES,
    );
    let other = texture(
        &c,
        TextureDimension::D2,
        TextureFormat::R32Float,
        [8, 4, 2],
        ALL_USAGES,
    );
    let no_copy = texture(
        &c,
        TextureDimension::D2,
        TextureFormat::Rgba8Unorm,
        [8, 4, 2],
        TextureUsages::TEXTURE_BINDING,
    );
    let buf = storage(&c.device, 4096);
    let to_buffer =
        |tex: &Texture, origin, bpr: Option<u32>, rpi: Option<u32>, offset: u64, size| {
            let mut enc = c.device.create_command_encoder(&Default::default());
            enc.copy_texture_to_buffer(
                at(tex, origin),
                wgt::TexelCopyBufferInfo {
                    buffer: &buf,
                    layout: TexelCopyBufferLayout {
                        offset,
                        bytes_per_row: bpr,
                        rows_per_image: rpi,
                    },
                },
                extent(size),
            );
            enc.finish()
        };
    expect_validation(
        &c.device,
        |e| {
            matches!(
                copy_err(e),
                Some(TextureCopyError::BytesPerRowAlignment { bytes_per_row: 32 })
            )
        },
        || to_buffer(&t, [0, 0, 0], Some(32), Some(4), 0, [8, 4, 1]),
    );
    expect_validation(
        &c.device,
        |e| matches!(copy_err(e), Some(TextureCopyError::BytesPerRowMissing)),
        || to_buffer(&t, [0, 0, 0], None, None, 0, [8, 4, 1]),
    );
    expect_validation(
        &c.device,
        |e| matches!(copy_err(e), Some(TextureCopyError::RowsPerImageMissing)),
        || to_buffer(&t, [0, 0, 0], Some(256), None, 0, [8, 4, 2]),
    );
    expect_validation(
        &c.device,
        |e| {
            matches!(
                copy_err(e),
                Some(TextureCopyError::RowsPerImageTooSmall {
                    rows_per_image: 2,
                    height: 4
                })
            )
        },
        || to_buffer(&t, [0, 0, 0], Some(256), Some(2), 0, [8, 4, 2]),
    );
    expect_validation(
        &c.device,
        |e| {
            matches!(
                copy_err(e),
                Some(TextureCopyError::OffsetAlignment {
                    offset: 2,
                    texel_bytes: 4
                })
            )
        },
        || to_buffer(&t, [0, 0, 0], Some(256), Some(4), 2, [8, 4, 1]),
    );
    expect_validation(
        &c.device,
        |e| {
            matches!(
                copy_err(e),
                Some(TextureCopyError::Overrun {
                    len: 4096,
                    what: "buffer",
                    ..
                })
            )
        },
        || to_buffer(&t, [0, 0, 0], Some(256), Some(16), 0, [8, 4, 2]),
    );
    expect_validation(
        &c.device,
        |e| {
            matches!(
                copy_err(e),
                Some(TextureCopyError::OutOfBounds {
                    mip_level: 0,
                    origin: [4, 0, 0],
                    size: [5, 1, 1],
                    extent: [8, 4, 2]
                })
            )
        },
        || to_buffer(&t, [4, 0, 0], Some(256), Some(1), 0, [5, 1, 1]),
    );
    expect_validation(
        &c.device,
        |e| matches!(copy_err(e), Some(TextureCopyError::TextureUsage { needed, .. }) if *needed == TextureUsages::COPY_SRC),
        || to_buffer(&no_copy, [0, 0, 0], Some(256), Some(4), 0, [8, 4, 1]),
    );
    let t2t = |a: &Texture, b: &Texture| {
        let mut enc = c.device.create_command_encoder(&Default::default());
        enc.copy_texture_to_texture(at(a, [0, 0, 0]), at(b, [0, 0, 0]), extent([2, 2, 1]));
        enc.finish()
    };
    expect_validation(
        &c.device,
        |e| matches!(copy_err(e), Some(TextureCopyError::FormatMismatch { .. })),
        || t2t(&t, &other),
    );
    expect_validation(
        &c.device,
        |e| matches!(copy_err(e), Some(TextureCopyError::SameTexture { .. })),
        || t2t(&t, &t),
    );
    expect_validation(
        &c.device,
        |e| matches!(copy_err(e), Some(TextureCopyError::TextureUsage { .. })),
        || {
            let mut enc = c.device.create_command_encoder(&Default::default());
            enc.clear_texture(&no_copy, &Default::default());
            enc.finish()
        },
    );
    // write_texture has no 256-byte rule but checks the data's length:
    // two 12-byte strides and one 8-byte row.
    expect_valid(&c.device, || {
        c.queue.write_texture(
            at(&t, [1, 1, 0]),
            &[0u8; 3 * 12 + 8],
            TexelCopyBufferLayout {
                offset: 0,
                bytes_per_row: Some(12),
                rows_per_image: None,
            },
            extent([2, 3, 1]),
        )
    });
    expect_validation(
        &c.device,
        |e| {
            matches!(
                tex_err(e),
                Some(TextureError::Write(TextureCopyError::Overrun {
                    what: "data",
                    end: 32,
                    len: 31
                }))
            )
        },
        || {
            c.queue.write_texture(
                at(&t, [1, 1, 0]),
                &[0u8; 31],
                TexelCopyBufferLayout {
                    offset: 0,
                    bytes_per_row: Some(12),
                    rows_per_image: None,
                },
                extent([2, 3, 1]),
            )
        },
    );
    expect_validation(
        &c.device,
        |e| {
            matches!(
                tex_err(e),
                Some(TextureError::Write(TextureCopyError::BytesPerRowTooSmall {
                    bytes_per_row: 4,
                    row_bytes: 8
                }))
            )
        },
        || {
            c.queue.write_texture(
                at(&t, [0, 0, 0]),
                &[0u8; 64],
                TexelCopyBufferLayout {
                    offset: 0,
                    bytes_per_row: Some(4),
                    rows_per_image: None,
                },
                extent([2, 3, 1]),
            )
        },
    );
}

/// A shader's texture binding against an explicit layout of another
/// texture type fails pipeline creation with the typed mismatch.
#[test]
fn pipeline_layouts_must_hold_the_shaders_textures() {
    if !texture_shaders("pipeline_layouts_must_hold_the_shaders_textures") {
        return;
    }
    let c = ctx();
    let module = expect_valid(&c.device, || {
        c.device.create_shader_module(ShaderModuleDescriptor {
            label: None,
            source: ShaderSource::Wgsl(Cow::Borrowed(
                "@group(0) @binding(0) var t: texture_storage_2d<r32float, write>;
@compute @workgroup_size(1) fn main() { textureStore(t, vec2<u32>(0u), vec4<f32>(1.0)); }",
            )),
        })
    });
    let bgl = c
        .device
        .create_bind_group_layout(&BindGroupLayoutDescriptor {
            label: None,
            entries: &[layout_entry(
                0,
                storage_entry(
                    TextureFormat::R32Uint,
                    StorageTextureAccess::WriteOnly,
                    TextureViewDimension::D2,
                ),
            )],
        });
    let pl = c.device.create_pipeline_layout(&PipelineLayoutDescriptor {
        label: None,
        bind_group_layouts: &[Some(&bgl)],
        immediate_size: 0,
    });
    let (_, err) = validation_error(&c.device, || {
        c.device
            .create_compute_pipeline(&ComputePipelineDescriptor {
                label: None,
                layout: Some(&pl),
                module: &module,
                entry_point: Some("main"),
                compilation_options: Default::default(),
                cache: None,
            })
    });
    let err = err.expect("a layout mismatch");
    assert!(err.to_string().contains("R32Uint"), "{err}");
}

/// Multisampled textures compile (`textureLoad` with a sample index,
/// `textureNumSamples`), but Aqueduct creates no multisampled texture
/// (`sample_count` 1 only), so a pipeline that binds one is refused: its
/// auto layout would need a multisampled entry.
#[test]
fn multisampled_texture_shaders_compile_and_their_pipelines_are_refused() {
    if !texture_shaders("multisampled_texture_shaders_compile_and_their_pipelines_are_refused") {
        return;
    }
    let c = ctx();
    let module = expect_valid(&c.device, || {
        c.device.create_shader_module(ShaderModuleDescriptor {
            label: None,
            source: ShaderSource::Wgsl(Cow::Borrowed(
                "@group(0) @binding(0) var t: texture_multisampled_2d<f32>;
@group(0) @binding(1) var<storage, read_write> o: array<f32>;
@compute @workgroup_size(1) fn main() {
    o[0] = textureLoad(t, vec2<i32>(0), 1).x + f32(textureNumSamples(t));
}",
            )),
        })
    });
    expect_validation(
        &c.device,
        |e| matches!(bind_err(e), Some(TextureBindingError::Multisampled)),
        || {
            c.device
                .create_compute_pipeline(&ComputePipelineDescriptor {
                    label: None,
                    layout: None,
                    module: &module,
                    entry_point: Some("main"),
                    compilation_options: Default::default(),
                    cache: None,
                })
        },
    );
}

/// A copy whose rows are contiguous on both sides (whole rows, buffer rows
/// as far apart as the texture's 256-byte pitch) is one copy per run of
/// rows; a narrower box is one copy per row. (Sizes below the SDMA
/// threshold: each copy is one blit dispatch packet.)
#[test]
fn texture_copies_are_one_packet_per_contiguous_run() {
    let c = ctx();
    // 64 rgba8 texels: 256-byte rows, the texture's pitch exactly.
    let t = texture(
        &c,
        TextureDimension::D2,
        TextureFormat::Rgba8Unorm,
        [64, 8, 2],
        ALL_USAGES,
    );
    let buf = storage(&c.device, 256 * 8 * 2);
    let copies = |width: u32, layers: u32| {
        let mut enc = c.device.create_command_encoder(&Default::default());
        enc.copy_texture_to_buffer(
            at(&t, [0, 0, 0]),
            wgt::TexelCopyBufferInfo {
                buffer: &buf,
                layout: TexelCopyBufferLayout {
                    offset: 0,
                    bytes_per_row: Some(256),
                    rows_per_image: Some(8),
                },
            },
            extent([width, 8, layers]),
        );
        let packets = expect_valid(&c.device, || enc.finish()).debug_packets();
        packets
            .iter()
            .filter(|p| p.role == PacketRole::Copy)
            .count()
    };
    assert_eq!(copies(64, 2), 1, "both layers in one run");
    assert_eq!(copies(32, 2), 16, "a half-width box: one per row");
}
