//! An unchanged wgpu compute program with textures on aqueduct-wgpu: it
//! uploads an image with `create_texture_with_data`, reads it with
//! `textureLoad` in a kernel that writes a storage texture, and copies
//! the result back through a buffer with 256-byte rows; a shadow-map
//! lookup on a depth16unorm texture with a comparison sampler; a
//! sky-box lookup through a cube view; gradient, offset and clamp-to-edge
//! sampling; compute mipmap generation over a texture's mip chain and
//! trilinear sampling across its levels; and the adapter's format table
//! against what the device accepts. The answers are computed on the host.

use aqueduct_test_harness::run_time_wgsl::texture_shaders;
use aqueduct_test_harness::wgpu_api::{device, read_back, sim_adapter, validation_error};
use wgpu::util::DeviceExt;

#[path = "textures/ported.rs"]
mod ported;

#[path = "textures/mipmaps.rs"]
mod mipmaps;

const INVERT_WGSL: &str = "
@group(0) @binding(0) var source: texture_2d<f32>;
@group(0) @binding(1) var dest: texture_storage_2d<rgba32float, write>;

@compute @workgroup_size(8, 8)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    let size = textureDimensions(source);
    if (id.x >= size.x || id.y >= size.y) { return; }
    let texel = textureLoad(source, id.xy, 0);
    textureStore(dest, id.xy, vec4<f32>(1.0 - texel.rgb, f32(id.x + id.y * size.x)));
}
";

/// Runs the program over a `width` x `height` rgba8unorm image and
/// returns the target's texels (row-major, tightly packed).
fn invert(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    image: &[u8],
    width: u32,
    height: u32,
) -> Vec<f32> {
    let size = wgpu::Extent3d {
        width,
        height,
        depth_or_array_layers: 1,
    };
    let source = device.create_texture_with_data(
        queue,
        &wgpu::TextureDescriptor {
            label: Some("source"),
            size,
            mip_level_count: 1,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format: wgpu::TextureFormat::Rgba8Unorm,
            usage: wgpu::TextureUsages::TEXTURE_BINDING | wgpu::TextureUsages::COPY_DST,
            view_formats: &[],
        },
        wgpu::util::TextureDataOrder::LayerMajor,
        image,
    );
    let target = device.create_texture(&wgpu::TextureDescriptor {
        label: Some("target"),
        size,
        mip_level_count: 1,
        sample_count: 1,
        dimension: wgpu::TextureDimension::D2,
        format: wgpu::TextureFormat::Rgba32Float,
        usage: wgpu::TextureUsages::STORAGE_BINDING | wgpu::TextureUsages::COPY_SRC,
        view_formats: &[],
    });
    let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: Some("invert"),
        source: wgpu::ShaderSource::Wgsl(INVERT_WGSL.into()),
    });
    let pipeline = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
        label: Some("invert"),
        layout: None,
        module: &module,
        entry_point: Some("main"),
        compilation_options: Default::default(),
        cache: None,
    });
    let source_view = source.create_view(&Default::default());
    let target_view = target.create_view(&Default::default());
    let group = device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: None,
        layout: &pipeline.get_bind_group_layout(0),
        entries: &[
            wgpu::BindGroupEntry {
                binding: 0,
                resource: wgpu::BindingResource::TextureView(&source_view),
            },
            wgpu::BindGroupEntry {
                binding: 1,
                resource: wgpu::BindingResource::TextureView(&target_view),
            },
        ],
    });
    let bytes_per_row = (width * 16).next_multiple_of(wgpu::COPY_BYTES_PER_ROW_ALIGNMENT);
    let readback = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("readback"),
        size: u64::from(bytes_per_row * height),
        usage: wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::COPY_SRC,
        mapped_at_creation: false,
    });
    let mut encoder = device.create_command_encoder(&Default::default());
    {
        let mut pass = encoder.begin_compute_pass(&Default::default());
        pass.set_pipeline(&pipeline);
        pass.set_bind_group(0, &group, &[]);
        pass.dispatch_workgroups(width.div_ceil(8), height.div_ceil(8), 1);
    }
    encoder.copy_texture_to_buffer(
        target.as_image_copy(),
        wgpu::TexelCopyBufferInfo {
            buffer: &readback,
            layout: wgpu::TexelCopyBufferLayout {
                offset: 0,
                bytes_per_row: Some(bytes_per_row),
                rows_per_image: None,
            },
        },
        size,
    );
    queue.submit([encoder.finish()]);
    let padded = read_back(device, queue, &readback);
    padded
        .chunks(bytes_per_row as usize)
        .flat_map(|row| bytemuck::cast_slice::<u8, f32>(&row[..(width * 16) as usize]).to_vec())
        .collect()
}

#[test]
fn a_wgpu_storage_texture_program_matches_the_host() {
    if !texture_shaders("the texture program") {
        return;
    }
    let (device, queue) = device();
    let (width, height) = (11u32, 6u32);
    let image: Vec<u8> = (0..width * height * 4)
        .map(|i| (i * 37 % 251) as u8)
        .collect();
    let got = invert(&device, &queue, &image, width, height);
    let want: Vec<f32> = image
        .chunks(4)
        .enumerate()
        .flat_map(|(i, t)| {
            let c = |b: u8| 1.0 - f32::from(b) / 255.0;
            [c(t[0]), c(t[1]), c(t[2]), i as f32]
        })
        .collect();
    assert_eq!(got.len(), want.len());
    for (i, (g, w)) in got.iter().zip(&want).enumerate() {
        assert!((g - w).abs() <= 1e-6, "texel component {i}: {g} vs {w}");
    }
}

const PCF_WGSL: &str = "
@group(0) @binding(0) var depth: texture_depth_2d;
@group(0) @binding(1) var shadow: sampler_comparison;
@group(0) @binding(2) var<storage, read> points: array<vec4<f32>>;
@group(0) @binding(3) var<storage, read_write> lit: array<vec4<f32>>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    if (id.x >= arrayLength(&points)) { return; }
    let p = points[id.x];
    let gathered = textureGatherCompare(depth, shadow, p.xy, p.z);
    lit[id.x] = vec4<f32>(textureSampleCompareLevel(depth, shadow, p.xy, p.z),
        gathered.x + gathered.y + gathered.z + gathered.w,
        textureLoad(depth, vec2<u32>(id.x % 4u, id.x % 3u), 0), 0.0);
}
";

/// A shadow-map lookup with a depth16unorm texture and a linear
/// LessEqual comparison sampler (percentage-closer filtering), through
/// wgpu; the host computes each lookup from the texels.
#[test]
fn a_wgpu_depth_comparison_program_matches_the_host() {
    if !texture_shaders("the depth program") {
        return;
    }
    let (device, queue) = device();
    const N: u32 = 4;
    let size = wgpu::Extent3d {
        width: N,
        height: N,
        depth_or_array_layers: 1,
    };
    let bits: Vec<u16> = (0..N * N).map(|i| (i * 4099 % 65536) as u16).collect();
    let depth_at = |x: i64, y: i64| {
        let (x, y) = (x.clamp(0, 3) as u32, y.clamp(0, 3) as u32);
        f32::from(bits[(y * N + x) as usize]) / 65535.0
    };
    let texture = device.create_texture(&wgpu::TextureDescriptor {
        label: Some("shadow map"),
        size,
        mip_level_count: 1,
        sample_count: 1,
        dimension: wgpu::TextureDimension::D2,
        format: wgpu::TextureFormat::Depth16Unorm,
        usage: wgpu::TextureUsages::TEXTURE_BINDING | wgpu::TextureUsages::COPY_DST,
        view_formats: &[],
    });
    queue.write_texture(
        wgpu::TexelCopyTextureInfo {
            texture: &texture,
            mip_level: 0,
            origin: wgpu::Origin3d::ZERO,
            aspect: wgpu::TextureAspect::DepthOnly,
        },
        bytemuck::cast_slice(&bits),
        wgpu::TexelCopyBufferLayout {
            offset: 0,
            bytes_per_row: Some(N * 2),
            rows_per_image: None,
        },
        size,
    );
    let sampler = device.create_sampler(&wgpu::SamplerDescriptor {
        mag_filter: wgpu::FilterMode::Linear,
        min_filter: wgpu::FilterMode::Linear,
        compare: Some(wgpu::CompareFunction::LessEqual),
        ..Default::default()
    });
    // Quarter-texel positions (exact 8-bit weights) and references.
    let points: Vec<[f32; 4]> = (0..48u32)
        .map(|i| {
            let x = (i * 5 % 17) as f32 / 16.0;
            let y = (i * 7 % 17) as f32 / 16.0;
            [x, y, (i * 13 % 48) as f32 / 48.0, 0.0]
        })
        .collect();
    let view = texture.create_view(&Default::default());
    let got = run_lookup(&device, &queue, PCF_WGSL, &view, &sampler, &points, 16);
    for (i, p) in points.iter().enumerate() {
        // Linear filtering: texels floor(u - 0.5) and the next, clamped
        // to the edge, each 1.0 where `reference <= texel`, blended.
        let (u, v) = (f64::from(p[0]) * 4.0 - 0.5, f64::from(p[1]) * 4.0 - 0.5);
        let (i0, j0) = (u.floor(), v.floor());
        let (fu, fv) = (u - i0, v - j0);
        let pass = |x: i64, y: i64| f64::from(u8::from(p[2] <= depth_at(x, y)));
        let (i0, j0) = (i0 as i64, j0 as i64);
        let pcf = (1.0 - fu) * (1.0 - fv) * pass(i0, j0)
            + fu * (1.0 - fv) * pass(i0 + 1, j0)
            + (1.0 - fu) * fv * pass(i0, j0 + 1)
            + fu * fv * pass(i0 + 1, j0 + 1);
        let gathered = pass(i0, j0) + pass(i0 + 1, j0) + pass(i0, j0 + 1) + pass(i0 + 1, j0 + 1);
        let load = depth_at((i % 4) as i64, (i % 3) as i64);
        let want = [pcf as f32, gathered as f32, load, 0.0];
        assert_eq!(&got[4 * i..4 * i + 4], &want, "point {i} {p:?}");
    }
}

const SKY_WGSL: &str = "
@group(0) @binding(0) var sky: texture_cube<f32>;
@group(0) @binding(1) var nearest: sampler;
@group(0) @binding(2) var<storage, read> rays: array<vec4<f32>>;
@group(0) @binding(3) var<storage, read_write> seen: array<f32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    if (id.x >= arrayLength(&rays)) { return; }
    seen[id.x] = textureSampleLevel(sky, nearest, rays[id.x].xyz, 0.0).x;
}
";

/// A sky-box lookup through wgpu: a cube view of a 6-layer r32float
/// texture sampled by direction with a nearest sampler; each face's 2x2
/// texels hold `10 * face + texel`, and the host picks face and texel with
/// Vulkan's face selection.
/// Run a one-workgroup program of `wgsl` whose bindings are a texture view
/// (0), a sampler (1), `input` (2, read-only storage) and an output of
/// `out_bytes_per_input` bytes per input element (3), and read the output
/// back as f32s.
fn run_lookup<T: bytemuck::Pod>(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    wgsl: &str,
    view: &wgpu::TextureView,
    sampler: &wgpu::Sampler,
    input: &[T],
    out_bytes_per_input: u64,
) -> Vec<f32> {
    let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: None,
        source: wgpu::ShaderSource::Wgsl(wgsl.into()),
    });
    let pipeline = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
        label: None,
        layout: None,
        module: &module,
        entry_point: Some("main"),
        compilation_options: Default::default(),
        cache: None,
    });
    let input_buffer = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: Some("input"),
        contents: bytemuck::cast_slice(input),
        usage: wgpu::BufferUsages::STORAGE,
    });
    let out = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("output"),
        size: input.len() as u64 * out_bytes_per_input,
        usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
        mapped_at_creation: false,
    });
    let group = device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: None,
        layout: &pipeline.get_bind_group_layout(0),
        entries: &[
            wgpu::BindGroupEntry {
                binding: 0,
                resource: wgpu::BindingResource::TextureView(view),
            },
            wgpu::BindGroupEntry {
                binding: 1,
                resource: wgpu::BindingResource::Sampler(sampler),
            },
            wgpu::BindGroupEntry {
                binding: 2,
                resource: input_buffer.as_entire_binding(),
            },
            wgpu::BindGroupEntry {
                binding: 3,
                resource: out.as_entire_binding(),
            },
        ],
    });
    let mut encoder = device.create_command_encoder(&Default::default());
    {
        let mut pass = encoder.begin_compute_pass(&Default::default());
        pass.set_pipeline(&pipeline);
        pass.set_bind_group(0, &group, &[]);
        pass.dispatch_workgroups(1, 1, 1);
    }
    queue.submit([encoder.finish()]);
    bytemuck::cast_slice(&read_back(device, queue, &out)).to_vec()
}

#[test]
fn a_wgpu_cube_map_lookup_matches_the_host() {
    if !texture_shaders("the cube program") {
        return;
    }
    let (device, queue) = device();
    let texels: Vec<f32> = (0..6 * 4).map(|i| (10 * (i / 4) + i % 4) as f32).collect();
    let texture = device.create_texture_with_data(
        &queue,
        &wgpu::TextureDescriptor {
            label: Some("sky"),
            size: wgpu::Extent3d {
                width: 2,
                height: 2,
                depth_or_array_layers: 6,
            },
            mip_level_count: 1,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format: wgpu::TextureFormat::R32Float,
            usage: wgpu::TextureUsages::TEXTURE_BINDING | wgpu::TextureUsages::COPY_DST,
            view_formats: &[],
        },
        wgpu::util::TextureDataOrder::LayerMajor,
        bytemuck::cast_slice(&texels),
    );
    let view = texture.create_view(&wgpu::TextureViewDescriptor {
        dimension: Some(wgpu::TextureViewDimension::Cube),
        ..Default::default()
    });
    let sampler = device.create_sampler(&Default::default());
    // Directions toward each quadrant of each face (no ties).
    let rays: Vec<[f32; 4]> = (0..48u32)
        .map(|i| {
            let a = if i % 2 == 0 { -0.5 } else { 0.25 };
            let b = if i / 2 % 2 == 0 { -0.75 } else { 0.5 };
            let m = if i / 4 % 2 == 0 { 1.0 } else { -1.0 };
            match i / 8 {
                0 => [m, a, b, 0.0],
                1 => [a, m, b, 0.0],
                _ => [a, b, m, 0.0],
            }
        })
        .collect();
    let got = run_lookup(&device, &queue, SKY_WGSL, &view, &sampler, &rays, 4);
    for (i, r) in rays.iter().enumerate() {
        let [x, y, z] = [r[0], r[1], r[2]];
        // Vulkan's "Cube Map Face Selection": face, sc, tc, |ma|.
        let (face, sc, tc, ma) = if z.abs() > x.abs() && z.abs() > y.abs() {
            if z > 0.0 {
                (4, x, -y, z)
            } else {
                (5, -x, -y, -z)
            }
        } else if y.abs() > x.abs() {
            if y > 0.0 {
                (2, x, z, y)
            } else {
                (3, x, -z, -y)
            }
        } else if x > 0.0 {
            (0, -z, -y, x)
        } else {
            (1, z, -y, -x)
        };
        let texel = |c: f32| ((0.5 * (c / ma + 1.0) * 2.0).floor() as u32).min(1);
        let want = (10 * face + texel(sc) + 2 * texel(tc)) as f32;
        assert_eq!(got[i], want, "ray {i} {r:?}");
    }
}

const GRAD_WGSL: &str = "
@group(0) @binding(0) var image: texture_2d<f32>;
@group(0) @binding(1) var s: sampler;
@group(0) @binding(2) var<storage, read> at: array<vec4<f32>>;
@group(0) @binding(3) var<storage, read_write> got: array<vec4<f32>>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    if (id.x >= arrayLength(&at)) { return; }
    let p = at[id.x].xy;
    let d = vec2<f32>(at[id.x].z, 0.0);
    got[id.x] = vec4<f32>(
        textureSampleGrad(image, s, p, d, d.yx).x,
        textureSampleGrad(image, s, p, d, d.yx, vec2<i32>(-1, 2)).x,
        textureSampleLevel(image, s, p, 0.0, vec2<i32>(3, -5)).x,
        textureSampleBaseClampToEdge(image, s, p).x);
}
";

/// `textureSampleGrad` (a derivative of a quarter texel magnifies with the
/// nearest filter, of two texels minifies with the linear one), the offset
/// forms and `textureSampleBaseClampToEdge` through wgpu on a 4x4 r32float
/// image with a repeating sampler, against the host's filtering.
#[test]
fn a_wgpu_gradient_and_offset_program_matches_the_host() {
    if !texture_shaders("the gradient program") {
        return;
    }
    let (device, queue) = device();
    const N: i64 = 4;
    let value = |x: i64, y: i64| (x.rem_euclid(N) + 10 * y.rem_euclid(N)) as f64;
    let texels: Vec<f32> = (0..N * N).map(|i| value(i % N, i / N) as f32).collect();
    let texture = device.create_texture_with_data(
        &queue,
        &wgpu::TextureDescriptor {
            label: Some("image"),
            size: wgpu::Extent3d {
                width: N as u32,
                height: N as u32,
                depth_or_array_layers: 1,
            },
            mip_level_count: 1,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format: wgpu::TextureFormat::R32Float,
            usage: wgpu::TextureUsages::TEXTURE_BINDING | wgpu::TextureUsages::COPY_DST,
            view_formats: &[],
        },
        wgpu::util::TextureDataOrder::LayerMajor,
        bytemuck::cast_slice(&texels),
    );
    let view = texture.create_view(&Default::default());
    let sampler = device.create_sampler(&wgpu::SamplerDescriptor {
        address_mode_u: wgpu::AddressMode::Repeat,
        address_mode_v: wgpu::AddressMode::Repeat,
        mag_filter: wgpu::FilterMode::Nearest,
        min_filter: wgpu::FilterMode::Linear,
        ..Default::default()
    });
    // Quarter-texel positions (exact linear weights) in and around the
    // image; derivatives of a quarter texel and of two texels.
    let at: Vec<[f32; 4]> = (0..40i32)
        .map(|i| {
            let u = ((i * 7) % 23 - 3) as f32 / 16.0;
            let v = ((i * 5) % 21 - 2) as f32 / 16.0;
            let d = if i % 2 == 0 { 0.0625 } else { 0.5 };
            [u, v, d, 0.0]
        })
        .collect();
    let got = run_lookup(&device, &queue, GRAD_WGSL, &view, &sampler, &at, 16);
    // WebGPU's filtering of texel coordinates (u, v): nearest floor(u),
    // linear floor(u - 0.5) and the next, wrapped by `value`.
    let filter = |u: f64, v: f64, linear: bool| -> f32 {
        if !linear {
            return value(u.floor() as i64, v.floor() as i64) as f32;
        }
        let (x, y) = ((u - 0.5).floor(), (v - 0.5).floor());
        let (fx, fy) = (u - 0.5 - x, v - 0.5 - y);
        let (x, y) = (x as i64, y as i64);
        let sum = (1.0 - fx) * (1.0 - fy) * value(x, y)
            + fx * (1.0 - fy) * value(x + 1, y)
            + (1.0 - fx) * fy * value(x, y + 1)
            + fx * fy * value(x + 1, y + 1);
        sum as f32
    };
    for (i, a) in at.iter().enumerate() {
        let (u, v) = (f64::from(a[0]) * 4.0, f64::from(a[1]) * 4.0);
        // One texel per step is the boundary: 0.25 magnifies, 2 minifies.
        let minify = f64::from(a[2]) * 4.0 > 1.0;
        let clamp = |c: f64| c.clamp(0.5, 3.5);
        let want = [
            filter(u, v, minify),
            filter(u - 1.0, v + 2.0, minify),
            // An explicit level 0 magnifies.
            filter(u + 3.0, v - 5.0, false),
            filter(clamp(u), clamp(v), false),
        ];
        assert_eq!(&got[4 * i..4 * i + 4], &want, "point {i} {a:?}");
    }
}

/// The adapter's format table says what textures can do here, and what it
/// says holds: a texture with every reported usage is created without an
/// error, storage access flags match the formats WebGPU allows them for,
/// and formats the device cannot hold report nothing.
#[test]
fn texture_format_features_say_what_works() {
    let adapter = sim_adapter();
    let (device, _queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
        required_features: adapter.features() - wgpu::Features::all_experimental_mask(),
        required_limits: adapter.limits(),
        ..Default::default()
    }))
    .expect("device");
    use wgpu::TextureFormat as T;
    use wgpu::TextureFormatFeatureFlags as F;
    let storage = F::STORAGE_READ_ONLY | F::STORAGE_WRITE_ONLY;
    let rows = [
        (T::Rgba8Unorm, true, storage | F::FILTERABLE),
        (T::Bgra8Unorm, true, storage | F::FILTERABLE),
        (T::R32Float, true, storage | F::STORAGE_READ_WRITE),
        // TEXTURE_ATOMIC gives r32uint and r32sint atomic storage.
        (
            T::R32Uint,
            true,
            storage | F::STORAGE_READ_WRITE | F::STORAGE_ATOMIC,
        ),
        (T::Depth32Float, true, F::empty()),
        (T::Depth24PlusStencil8, false, F::empty()),
        (T::Bc1RgbaUnorm, false, F::empty()),
    ];
    for (format, usable, flags) in rows {
        let got = adapter.get_texture_format_features(format);
        // FLOAT32_FILTERABLE makes r32float filterable where the adapter has it.
        let filterable_f32 = format == T::R32Float
            && adapter
                .features()
                .contains(wgpu::Features::FLOAT32_FILTERABLE);
        let want = if filterable_f32 {
            flags | F::FILTERABLE
        } else {
            flags
        };
        assert_eq!(got.flags, want, "{format:?}");
        assert_eq!(got.allowed_usages.is_empty(), !usable, "{format:?}");
        if !usable {
            continue;
        }
        assert!(
            !got.allowed_usages
                .contains(wgpu::TextureUsages::RENDER_ATTACHMENT),
            "{format:?}"
        );
        assert_eq!(
            got.allowed_usages
                .contains(wgpu::TextureUsages::STORAGE_BINDING),
            want.contains(F::STORAGE_WRITE_ONLY),
            "{format:?}"
        );
        let error = validation_error(&device, || {
            let _texture = device.create_texture(&wgpu::TextureDescriptor {
                label: Some("every reported usage"),
                size: wgpu::Extent3d {
                    width: 4,
                    height: 4,
                    depth_or_array_layers: 1,
                },
                mip_level_count: 1,
                sample_count: 1,
                dimension: wgpu::TextureDimension::D2,
                format,
                usage: got.allowed_usages,
                view_formats: &[],
            });
        });
        assert!(error.is_none(), "{format:?}: {error:?}");
    }
    // What a device's table withholds, create_texture refuses: bgra8unorm
    // storage without BGRA8UNORM_STORAGE.
    let (device, _queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
        required_features: adapter.features()
            - wgpu::Features::BGRA8UNORM_STORAGE
            - wgpu::Features::all_experimental_mask(),
        required_limits: adapter.limits(),
        ..Default::default()
    }))
    .expect("device");
    let error = validation_error(&device, || {
        let _texture = device.create_texture(&wgpu::TextureDescriptor {
            label: Some("bgra8unorm storage"),
            size: wgpu::Extent3d {
                width: 4,
                height: 4,
                depth_or_array_layers: 1,
            },
            mip_level_count: 1,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format: T::Bgra8Unorm,
            usage: wgpu::TextureUsages::STORAGE_BINDING,
            view_formats: &[],
        });
    });
    assert!(error.is_some(), "bgra8unorm storage was accepted");
}
