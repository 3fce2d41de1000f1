//! Texture features wgpu compute code asks for, run unchanged through
//! aqueduct-wgpu: a bgra8unorm storage texture (`BGRA8UNORM_STORAGE`)
//! written by a kernel, an sRGB texture uploaded with
//! `create_texture_with_data` and read as linear values, and a histogram
//! built with `textureAtomicAdd` (`TEXTURE_ATOMIC`). The expected results
//! are computed on the host.

use aqueduct_test_harness::run_time_wgsl::texture_shaders;
use aqueduct_test_harness::wgpu_api::{device, read_back};
use wgpu::util::DeviceExt;

/// A 2D texture of `format` and `usage`, `width` x `height`.
pub(super) fn texture_2d(
    device: &wgpu::Device,
    format: wgpu::TextureFormat,
    usage: wgpu::TextureUsages,
    width: u32,
    height: u32,
) -> wgpu::Texture {
    device.create_texture(&wgpu::TextureDescriptor {
        label: Some("ported"),
        size: wgpu::Extent3d {
            width,
            height,
            depth_or_array_layers: 1,
        },
        mip_level_count: 1,
        sample_count: 1,
        dimension: wgpu::TextureDimension::D2,
        format,
        usage,
        view_formats: &[],
    })
}

/// Runs `wgsl`'s `main` over `groups` with `resources` bound at 0, 1, ...
/// of group 0.
pub(super) fn run(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    wgsl: &str,
    resources: &[wgpu::BindingResource<'_>],
    groups: [u32; 3],
) {
    let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: Some("ported"),
        source: wgpu::ShaderSource::Wgsl(wgsl.into()),
    });
    let pipeline = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
        label: Some("ported"),
        layout: None,
        module: &module,
        entry_point: Some("main"),
        compilation_options: Default::default(),
        cache: None,
    });
    let entries: Vec<wgpu::BindGroupEntry<'_>> = resources
        .iter()
        .enumerate()
        .map(|(i, r)| wgpu::BindGroupEntry {
            binding: i as u32,
            resource: r.clone(),
        })
        .collect();
    let group = device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: None,
        layout: &pipeline.get_bind_group_layout(0),
        entries: &entries,
    });
    let mut encoder = device.create_command_encoder(&Default::default());
    {
        let mut pass = encoder.begin_compute_pass(&Default::default());
        pass.set_pipeline(&pipeline);
        pass.set_bind_group(0, &group, &[]);
        pass.dispatch_workgroups(groups[0], groups[1], groups[2]);
    }
    queue.submit([encoder.finish()]);
}

/// The texels of a 2D `texture` of `texel` bytes, rows tightly packed.
pub(super) fn texels(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    texture: &wgpu::Texture,
    texel: u32,
) -> Vec<u8> {
    let (width, height) = (texture.width(), texture.height());
    let row = width * texel;
    let bytes_per_row = row.next_multiple_of(wgpu::COPY_BYTES_PER_ROW_ALIGNMENT);
    let readback = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("readback"),
        size: u64::from(bytes_per_row * height),
        usage: wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::COPY_SRC,
        mapped_at_creation: false,
    });
    let mut encoder = device.create_command_encoder(&Default::default());
    encoder.copy_texture_to_buffer(
        texture.as_image_copy(),
        wgpu::TexelCopyBufferInfo {
            buffer: &readback,
            layout: wgpu::TexelCopyBufferLayout {
                offset: 0,
                bytes_per_row: Some(bytes_per_row),
                rows_per_image: None,
            },
        },
        texture.size(),
    );
    queue.submit([encoder.finish()]);
    read_back(device, queue, &readback)
        .chunks(bytes_per_row as usize)
        .flat_map(|r| r[..row as usize].to_vec())
        .collect()
}

fn llvm() -> bool {
    texture_shaders("the ported texture programs")
}

/// A kernel writes a colour ramp into a bgra8unorm storage texture; the
/// bytes come back in B, G, R, A order.
#[test]
fn a_wgpu_bgra8unorm_storage_program_matches_the_host() {
    if !llvm() {
        return;
    }
    let (device, queue) = device();
    assert!(
        device
            .features()
            .contains(wgpu::Features::BGRA8UNORM_STORAGE)
    );
    let (width, height) = (13u32, 7u32);
    let target = texture_2d(
        &device,
        wgpu::TextureFormat::Bgra8Unorm,
        wgpu::TextureUsages::STORAGE_BINDING | wgpu::TextureUsages::COPY_SRC,
        width,
        height,
    );
    let view = target.create_view(&Default::default());
    run(
        &device,
        &queue,
        "@group(0) @binding(0) var dst: texture_storage_2d<bgra8unorm, write>;
@compute @workgroup_size(8, 8)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    if (any(id.xy >= textureDimensions(dst))) { return; }
    let r = f32(id.x * 17u) / 255.0;
    let g = f32(id.y * 31u) / 255.0;
    let b = f32(id.x + id.y) / 255.0;
    textureStore(dst, id.xy, vec4<f32>(r, g, b, 0.2));
}",
        &[wgpu::BindingResource::TextureView(&view)],
        [2, 1, 1],
    );
    let got = texels(&device, &queue, &target, 4);
    let want: Vec<u8> = (0..height)
        .flat_map(|y| (0..width).map(move |x| (x, y)))
        .flat_map(|(x, y)| [(x + y) as u8, (y * 31) as u8, (x * 17) as u8, 51])
        .collect();
    assert_eq!(got, want);
}

/// An rgba8unorm-srgb image read with `textureLoad` comes back linear (the
/// sRGB EOTF of each colour byte, alpha as stored).
#[test]
fn a_wgpu_srgb_texture_reads_linear() {
    if !llvm() {
        return;
    }
    let (device, queue) = device();
    let (width, height) = (5u32, 3u32);
    let image: Vec<u8> = (0..width * height * 4)
        .map(|i| (i * 53 % 256) as u8)
        .collect();
    let source = device.create_texture_with_data(
        &queue,
        &wgpu::TextureDescriptor {
            label: Some("srgb"),
            size: wgpu::Extent3d {
                width,
                height,
                depth_or_array_layers: 1,
            },
            mip_level_count: 1,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format: wgpu::TextureFormat::Rgba8UnormSrgb,
            usage: wgpu::TextureUsages::TEXTURE_BINDING | wgpu::TextureUsages::COPY_DST,
            view_formats: &[],
        },
        wgpu::util::TextureDataOrder::LayerMajor,
        &image,
    );
    let linear = texture_2d(
        &device,
        wgpu::TextureFormat::Rgba32Float,
        wgpu::TextureUsages::STORAGE_BINDING | wgpu::TextureUsages::COPY_SRC,
        width,
        height,
    );
    let (sv, lv) = (
        source.create_view(&Default::default()),
        linear.create_view(&Default::default()),
    );
    run(
        &device,
        &queue,
        "@group(0) @binding(0) var src: texture_2d<f32>;
@group(0) @binding(1) var dst: texture_storage_2d<rgba32float, write>;
@compute @workgroup_size(8, 8)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    if (any(id.xy >= textureDimensions(src))) { return; }
    textureStore(dst, id.xy, textureLoad(src, id.xy, 0));
}",
        &[
            wgpu::BindingResource::TextureView(&sv),
            wgpu::BindingResource::TextureView(&lv),
        ],
        [1, 1, 1],
    );
    let got: Vec<f32> = bytemuck::cast_slice(&texels(&device, &queue, &linear, 16)).to_vec();
    let eotf = |k: u8| {
        let c = f64::from(k) / 255.0;
        if c <= 0.04045 {
            c / 12.92
        } else {
            ((c + 0.055) / 1.055).powf(2.4)
        }
    };
    for (i, (&g, &b)) in got.iter().zip(&image).enumerate() {
        let want = if i % 4 == 3 {
            f64::from(b) / 255.0
        } else {
            eotf(b)
        };
        assert!(
            (f64::from(g) - want).abs() <= 1e-6,
            "component {i}: {g} vs {want}"
        );
    }
}

/// A 2D histogram with `textureAtomicAdd` on an r32uint storage texture:
/// each of 512 values counts into bin (v % 16, v / 16 % 4).
#[test]
fn a_wgpu_texture_atomic_histogram_matches_the_host() {
    if !llvm() {
        return;
    }
    let (device, queue) = device();
    assert!(device.features().contains(wgpu::Features::TEXTURE_ATOMIC));
    let values: Vec<u32> = (0..512u32)
        .map(|i| i.wrapping_mul(2_654_435_761) >> 7)
        .collect();
    let input = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: Some("values"),
        contents: bytemuck::cast_slice(&values),
        usage: wgpu::BufferUsages::STORAGE,
    });
    let hist = texture_2d(
        &device,
        wgpu::TextureFormat::R32Uint,
        wgpu::TextureUsages::STORAGE_BINDING | wgpu::TextureUsages::COPY_SRC,
        16,
        4,
    );
    let view = hist.create_view(&Default::default());
    run(
        &device,
        &queue,
        "@group(0) @binding(0) var hist: texture_storage_2d<r32uint, atomic>;
@group(0) @binding(1) var<storage, read> values: array<u32>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    let v = values[id.x];
    textureAtomicAdd(hist, vec2<u32>(v % 16u, (v / 16u) % 4u), 1u);
}",
        &[
            wgpu::BindingResource::TextureView(&view),
            input.as_entire_binding(),
        ],
        [8, 1, 1],
    );
    let got: Vec<u32> = bytemuck::cast_slice(&texels(&device, &queue, &hist, 4)).to_vec();
    let mut want = vec![0u32; 64];
    for v in values {
        want[((v / 16) % 4 * 16 + v % 16) as usize] += 1;
    }
    assert_eq!(got, want);
}
