//! Depth textures through the facade: depth16unorm textures written with
//! `write_texture`, read by WGSL kernels through `texture_depth_2d` and
//! `texture_depth_2d_array` (`textureLoad`, `textureDimensions`,
//! `textureNumLayers`, `textureSampleLevel`, `textureSampleCompareLevel`
//! with every compare function, nearest and linear (PCF) filters,
//! `textureGatherCompare`), checked against the host model of
//! `sampling.rs` applied to each texel's comparison result; depth32float
//! and depth24plus, which no copy can fill (only clears, which give 0);
//! and WebGPU's depth rules (creation, aspects, copies, bindings) as typed
//! errors.

use super::sampling::{H, Model, W, coords, pipeline_of};
use super::*;

const LAYERS: u32 = 3;

/// The depth16unorm value of texel (x, y) of `layer`: 0 and 1.0 at two
/// corners, so clamped references meet equal texels.
pub(super) fn depth_bits(x: u32, y: u32, layer: u32) -> u16 {
    match (x, y) {
        (0, 0) => 0,
        (3, 1) => u16::MAX,
        _ => ((x * 9973 + y * 21011 + layer * 7919 + 1234) % 65536) as u16,
    }
}

/// The f32 a depth16unorm value reads as (`k / 65535`, correctly rounded).
pub(super) fn unorm(k: u16) -> f32 {
    f32::from(k) / 65535.0
}

/// WebGPU's compare functions: `reference FUNC texel` passes.
pub(super) fn passes(f: CompareFunction, reference: f32, texel: f32) -> bool {
    match f {
        CompareFunction::Never => false,
        CompareFunction::Less => reference < texel,
        CompareFunction::Equal => reference == texel,
        CompareFunction::LessEqual => reference <= texel,
        CompareFunction::Greater => reference > texel,
        CompareFunction::NotEqual => reference != texel,
        CompareFunction::GreaterEqual => reference >= texel,
        CompareFunction::Always => true,
    }
}

const COMPARES: [CompareFunction; 8] = [
    CompareFunction::Never,
    CompareFunction::Less,
    CompareFunction::Equal,
    CompareFunction::LessEqual,
    CompareFunction::Greater,
    CompareFunction::NotEqual,
    CompareFunction::GreaterEqual,
    CompareFunction::Always,
];

/// The depth16unorm texture of `layers` layers holding [`depth_bits`].
fn depth16(c: &Ctx, layers: u32) -> Texture {
    let t = texture(
        c,
        TextureDimension::D2,
        TextureFormat::Depth16Unorm,
        [W, H, layers],
        TextureUsages::COPY_SRC | TextureUsages::COPY_DST | TextureUsages::TEXTURE_BINDING,
    );
    let mut data = Vec::new();
    for l in 0..layers {
        for y in 0..H {
            for x in 0..W {
                data.push(depth_bits(x, y, l));
            }
        }
    }
    write_all(c, &t, bytemuck::cast_slice(&data), 2);
    t
}

/// Queries: (x, y, reference, layer). The references are a texel's own
/// value (so Equal and the -Equal functions see ties), midpoints and values
/// outside [0, 1], which compare as 0 and 1 (fixed-point depth clamps the
/// reference: Vulkan's "Depth Compare Operation").
fn queries(layers: u32) -> Vec<[f32; 4]> {
    coords()
        .into_iter()
        .enumerate()
        .map(|(k, [x, y])| {
            let k = k as u32;
            let layer = k % layers;
            let tx = (k * 3) % W;
            let ty = (k / 3) % H;
            let own = unorm(depth_bits(tx, ty, layer));
            let reference = match k % 4 {
                0 => own,
                1 => own + 0.5 / 65535.0,
                2 => (k as f32) / 64.0,
                _ if k % 8 == 3 => -0.25,
                _ => 1.25,
            };
            [x, y, reference, layer as f32]
        })
        .collect()
}

/// Run `p` with `view`, `s` and the queries; `per` vec4 results each.
pub(super) fn run(
    c: &Ctx,
    p: &ComputePipeline,
    view: &TextureView,
    s: &Sampler,
    q: &[[f32; 4]],
    per: usize,
) -> Vec<[f32; 4]> {
    super::sampling::run_inputs(c, p, view, s, bytemuck::cast_slice(q), q.len() * per)
}

pub(super) fn module(c: &Ctx, text: &'static str) -> ShaderModule {
    expect_valid(&c.device, || {
        c.device.create_shader_module(ShaderModuleDescriptor {
            label: Some("depth"),
            source: ShaderSource::Wgsl(Cow::Borrowed(text)),
        })
    })
}

/// Comparison sampling, 2D and 2D array: per query, out[2i] is
/// `textureGatherCompare`, out[2i + 1] (compare, load, layers, width).
const COMPARE: &str = "@group(0) @binding(0) var t: texture_depth_2d;
@group(0) @binding(1) var s: sampler_comparison;
@group(0) @binding(2) var<storage, read> q: array<vec4<f32>>;
@group(0) @binding(3) var<storage, read_write> out: array<vec4<f32>>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    if (id.x >= arrayLength(&q)) { return; }
    let p = q[id.x];
    let texel = vec2<u32>((id.x * 3u) % 4u, (id.x / 3u) % 2u);
    out[2u * id.x] = textureGatherCompare(t, s, p.xy, p.z);
    out[2u * id.x + 1u] = vec4<f32>(textureSampleCompareLevel(t, s, p.xy, p.z),
        textureLoad(t, texel, 0), 1.0, f32(textureDimensions(t).x));
}";

const COMPARE_ARRAY: &str = "@group(0) @binding(0) var t: texture_depth_2d_array;
@group(0) @binding(1) var s: sampler_comparison;
@group(0) @binding(2) var<storage, read> q: array<vec4<f32>>;
@group(0) @binding(3) var<storage, read_write> out: array<vec4<f32>>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    if (id.x >= arrayLength(&q)) { return; }
    let p = q[id.x];
    let layer = i32(p.w);
    let texel = vec2<u32>((id.x * 3u) % 4u, (id.x / 3u) % 2u);
    out[2u * id.x] = textureGatherCompare(t, s, p.xy, layer, p.z);
    out[2u * id.x + 1u] = vec4<f32>(textureSampleCompareLevel(t, s, p.xy, layer, p.z),
        textureLoad(t, texel, layer, 0), f32(textureNumLayers(t)),
        f32(textureDimensions(t).x));
}";

/// Plain sampling of a depth texture (a filtering sampler, which WebGPU
/// allows with the `depth` sample type): (textureSampleLevel, the gather of
/// the depths, height, 0).
const SAMPLE: &str = "@group(0) @binding(0) var t: texture_depth_2d_array;
@group(0) @binding(1) var s: sampler;
@group(0) @binding(2) var<storage, read> q: array<vec4<f32>>;
@group(0) @binding(3) var<storage, read_write> out: array<vec4<f32>>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    if (id.x >= arrayLength(&q)) { return; }
    let p = q[id.x];
    let layer = u32(p.w);
    out[2u * id.x] = textureGather(t, s, p.xy, layer);
    out[2u * id.x + 1u] = vec4<f32>(textureSampleLevel(t, s, p.xy, layer, 0),
        f32(textureDimensions(t).y), 0.0, 0.0);
}";

pub(super) fn compare_sampler(
    c: &Ctx,
    f: CompareFunction,
    mode: AddressMode,
    filter: FilterMode,
) -> Sampler {
    expect_valid(&c.device, || {
        c.device.create_sampler(&SamplerDescriptor {
            label: Some("compare"),
            address_mode_u: mode,
            address_mode_v: mode,
            mag_filter: filter,
            min_filter: filter,
            compare: Some(f),
            ..Default::default()
        })
    })
}

/// The model of one query on `layer`: each texel replaced by its
/// comparison result (1 or 0), then filtered or gathered as colours are.
fn compare_model(
    f: CompareFunction,
    mode: AddressMode,
    filter: FilterMode,
    reference: f32,
    layer: u32,
    c: [f32; 2],
) -> (f32, [f32; 4]) {
    let texel = move |x: u32, y: u32| {
        let pass = passes(f, reference.clamp(0.0, 1.0), unorm(depth_bits(x, y, layer)));
        [f32::from(u8::from(pass)), 0.0, 0.0, 1.0]
    };
    let model = Model {
        texel: &texel,
        mode,
        filter,
        border: [0.0; 4],
    };
    (model.sample(c)[0], model.gather(c, 0))
}

#[test]
fn depth16_compare_sample_gather_and_load_match_the_host_model() {
    if !texture_shaders("depth16_compare_sample_gather_and_load_match_the_host_model") {
        return;
    }
    let c = ctx();
    let flat = pipeline_of(&c, &module(&c, COMPARE), "main");
    let arrayed = pipeline_of(&c, &module(&c, COMPARE_ARRAY), "main");
    let one = depth16(&c, 1);
    let three = depth16(&c, LAYERS);
    let one_view = one.create_view(&Default::default());
    // A DepthOnly view reads what the All view reads.
    let three_view = expect_valid(&c.device, || {
        three.create_view(&TextureViewDescriptor {
            aspect: TextureAspect::DepthOnly,
            ..Default::default()
        })
    });
    let cases = [(&flat, &one_view, 1), (&arrayed, &three_view, LAYERS)];
    for (p, view, layers) in cases {
        let q = queries(layers);
        for mode in [AddressMode::ClampToEdge, AddressMode::Repeat] {
            for filter in [FilterMode::Nearest, FilterMode::Linear] {
                for f in COMPARES {
                    let s = compare_sampler(&c, f, mode, filter);
                    let got = run(&c, p, view, &s, &q, 2);
                    for (k, &[x, y, r, l]) in q.iter().enumerate() {
                        let (layer, id) = (l as u32, k as u32);
                        let (sample, gather) = compare_model(f, mode, filter, r, layer, [x, y]);
                        let what = format!("{layers} layer(s) {f:?} {mode:?} {filter:?} {k}");
                        assert_eq!(got[2 * k], gather, "gather {what}");
                        let load = unorm(depth_bits((id * 3) % W, (id / 3) % H, layer));
                        let layer_count = if layers == 1 { 1.0 } else { layers as f32 };
                        assert_eq!(
                            got[2 * k + 1],
                            [sample, load, layer_count, W as f32],
                            "compare {what}"
                        );
                    }
                }
            }
        }
    }
}

#[test]
fn depth16_plain_sampling_returns_the_depth() {
    if !texture_shaders("depth16_plain_sampling_returns_the_depth") {
        return;
    }
    let c = ctx();
    let p = pipeline_of(&c, &module(&c, SAMPLE), "main");
    let t = depth16(&c, LAYERS);
    let view = t.create_view(&Default::default());
    let q = queries(LAYERS);
    for filter in [FilterMode::Nearest, FilterMode::Linear] {
        let s = expect_valid(&c.device, || {
            c.device.create_sampler(&SamplerDescriptor {
                mag_filter: filter,
                min_filter: filter,
                address_mode_u: AddressMode::MirrorRepeat,
                address_mode_v: AddressMode::MirrorRepeat,
                ..Default::default()
            })
        });
        let got = run(&c, &p, &view, &s, &q, 2);
        for (k, &[x, y, _, l]) in q.iter().enumerate() {
            let layer = l as u32;
            let texel = move |x: u32, y: u32| [unorm(depth_bits(x, y, layer)), 0.0, 0.0, 1.0];
            let model = Model {
                texel: &texel,
                mode: AddressMode::MirrorRepeat,
                filter,
                border: [0.0; 4],
            };
            assert_eq!(got[2 * k], model.gather([x, y], 0), "gather {k}");
            assert_eq!(
                got[2 * k + 1],
                [model.sample([x, y])[0], H as f32, 0.0, 0.0],
                "sample {filter:?} {k}"
            );
        }
    }
}

/// depth32float and depth24plus start (and clear) to 0.0, which loads,
/// compares and copies (depth32float out to a buffer and into another
/// depth32float texture) see.
#[test]
fn depth32_and_depth24plus_read_their_cleared_zero() {
    if !texture_shaders("depth32_and_depth24plus_read_their_cleared_zero") {
        return;
    }
    let c = ctx();
    let p = pipeline_of(&c, &module(&c, COMPARE), "main");
    let usage = TextureUsages::COPY_SRC | TextureUsages::COPY_DST | TextureUsages::TEXTURE_BINDING;
    let q = [
        [0.3, 0.6, 0.0, 0.0],
        [0.6, 0.3, -0.5, 0.0],
        [0.9, 0.9, 0.5, 0.0],
    ];
    for format in [TextureFormat::Depth32Float, TextureFormat::Depth24Plus] {
        let t = texture(&c, TextureDimension::D2, format, [W, H, 1], usage);
        let mut enc = c.device.create_command_encoder(&Default::default());
        enc.clear_texture(
            &t,
            &wgt::ImageSubresourceRange {
                aspect: TextureAspect::DepthOnly,
                ..Default::default()
            },
        );
        expect_valid(&c.device, || c.queue.submit([enc.finish()]));
        let view = t.create_view(&Default::default());
        for f in [CompareFunction::Less, CompareFunction::LessEqual] {
            let s = compare_sampler(&c, f, AddressMode::ClampToEdge, FilterMode::Linear);
            let got = run(&c, &p, &view, &s, &q, 2);
            for (k, &[_, _, r, _]) in q.iter().enumerate() {
                let pass = f32::from(u8::from(passes(f, r, 0.0)));
                assert_eq!(got[2 * k], [pass; 4], "{format:?} {f:?} gather {k}");
                assert_eq!(
                    got[2 * k + 1],
                    [pass, 0.0, 1.0, W as f32],
                    "{format:?} {f:?} {k}"
                );
            }
        }
    }
    // depth32float copies out to a buffer and whole into a texture.
    let src = texture(
        &c,
        TextureDimension::D2,
        TextureFormat::Depth32Float,
        [W, H, 2],
        usage,
    );
    let dst = texture(
        &c,
        TextureDimension::D2,
        TextureFormat::Depth32Float,
        [W, H, 1],
        usage,
    );
    let mut enc = c.device.create_command_encoder(&Default::default());
    enc.copy_texture_to_texture(at(&src, [0, 0, 1]), at(&dst, [0, 0, 0]), extent([W, H, 1]));
    expect_valid(&c.device, || c.queue.submit([enc.finish()]));
    assert_eq!(
        read_texels(&c, &dst, [0, 0, 0], [W, H, 1], 4),
        vec![0u8; (W * H * 4) as usize]
    );
}

/// depth16unorm copies both ways and between textures; whole layers only.
#[test]
fn depth16_copies_move_whole_layers() {
    let c = ctx();
    let t = depth16(&c, LAYERS);
    let usage = TextureUsages::COPY_SRC | TextureUsages::COPY_DST | TextureUsages::TEXTURE_BINDING;
    let other = texture(
        &c,
        TextureDimension::D2,
        TextureFormat::Depth16Unorm,
        [W, H, 1],
        usage,
    );
    let mut enc = c.device.create_command_encoder(&Default::default());
    enc.copy_texture_to_texture(
        wgt::TexelCopyTextureInfo {
            aspect: TextureAspect::DepthOnly,
            ..at(&t, [0, 0, 2])
        },
        at(&other, [0, 0, 0]),
        extent([W, H, 1]),
    );
    expect_valid(&c.device, || c.queue.submit([enc.finish()]));
    let want: Vec<u8> = (0..H)
        .flat_map(|y| (0..W).map(move |x| depth_bits(x, y, 2)))
        .flat_map(u16::to_le_bytes)
        .collect();
    assert_eq!(read_texels(&c, &other, [0, 0, 0], [W, H, 1], 2), want);
    let layers_1_2: Vec<u8> = (1..3)
        .flat_map(|l| (0..H).flat_map(move |y| (0..W).map(move |x| depth_bits(x, y, l))))
        .flat_map(u16::to_le_bytes)
        .collect();
    assert_eq!(read_texels(&c, &t, [0, 0, 1], [W, H, 2], 2), layers_1_2);
}

#[test]
fn depth_rules_are_validated() {
    let c = ctx();
    let usage = TextureUsages::COPY_SRC | TextureUsages::COPY_DST | TextureUsages::TEXTURE_BINDING;
    let make = |dim, format, size: [u32; 3], usage| {
        c.device.create_texture(&TextureDescriptor {
            label: None,
            size: extent(size),
            mip_level_count: 1,
            sample_count: 1,
            dimension: dim,
            format,
            usage,
            view_formats: &[],
        })
    };
    // Creation: no storage binding, 2D only.
    expect_validation(
        &c.device,
        |e| {
            matches!(
                create_err(e),
                Some(CreateTextureError::FormatUsage {
                    format: TextureFormat::Depth32Float,
                    ..
                })
            )
        },
        || {
            make(
                TextureDimension::D2,
                TextureFormat::Depth32Float,
                [4, 4, 1],
                usage | TextureUsages::STORAGE_BINDING,
            )
        },
    );
    for dim in [TextureDimension::D1, TextureDimension::D3] {
        let size = if dim == TextureDimension::D1 {
            [4, 1, 1]
        } else {
            [4, 4, 4]
        };
        expect_validation(
            &c.device,
            |e| {
                matches!(
                    create_err(e),
                    Some(CreateTextureError::DepthDimension { dimension, .. }) if *dimension == dim
                )
            },
            || make(dim, TextureFormat::Depth16Unorm, size, usage),
        );
    }
    let d16 = make(
        TextureDimension::D2,
        TextureFormat::Depth16Unorm,
        [W, H, 2],
        usage,
    );
    let d32 = make(
        TextureDimension::D2,
        TextureFormat::Depth32Float,
        [W, H, 1],
        usage,
    );
    let d24 = make(
        TextureDimension::D2,
        TextureFormat::Depth24Plus,
        [W, H, 1],
        usage,
    );
    // Views: a stencil aspect the format lacks.
    expect_validation(
        &c.device,
        |e| {
            matches!(
                view_err(e),
                Some(TextureViewError::Aspect {
                    aspect: TextureAspect::StencilOnly,
                    format: TextureFormat::Depth16Unorm,
                })
            )
        },
        || {
            d16.create_view(&TextureViewDescriptor {
                aspect: TextureAspect::StencilOnly,
                ..Default::default()
            })
        },
    );
    // A copy's error, from `write_texture` or an encoder command.
    let copy_err = |e: &ValidationError| match tex_err(e) {
        Some(TextureError::Write(source)) => Some(source.clone()),
        _ => super::copy_err(e).cloned(),
    };
    let write = |t: &Texture, origin: [u32; 3], size: [u32; 3], bytes: usize| {
        c.queue.write_texture(
            at(t, origin),
            &vec![0u8; bytes],
            TexelCopyBufferLayout {
                offset: 0,
                bytes_per_row: Some(256),
                rows_per_image: Some(size[1]),
            },
            extent(size),
        )
    };
    // Copies into depth32float and any copy of depth24plus are refused.
    expect_validation(
        &c.device,
        |e| {
            matches!(
                copy_err(e),
                Some(TextureCopyError::DepthCopy {
                    format: TextureFormat::Depth32Float,
                    ..
                })
            )
        },
        || write(&d32, [0, 0, 0], [W, H, 1], 1024),
    );
    expect_validation(
        &c.device,
        |e| {
            matches!(
                copy_err(e),
                Some(TextureCopyError::DepthCopy {
                    format: TextureFormat::Depth24Plus,
                    ..
                })
            )
        },
        || write(&d24, [0, 0, 0], [W, H, 1], 1024),
    );
    let buf = c.device.create_buffer(&BufferDescriptor {
        label: None,
        size: 4096,
        usage: BufferUsages::COPY_SRC | BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    let encode = |f: &dyn Fn(&mut CommandEncoder)| {
        let mut enc = c.device.create_command_encoder(&Default::default());
        f(&mut enc);
        enc.finish()
    };
    let layout = |offset| TexelCopyBufferLayout {
        offset,
        bytes_per_row: Some(256),
        rows_per_image: Some(H),
    };
    let buffer_side = |offset| texture::TexelCopyBufferInfo {
        buffer: &buf,
        layout: layout(offset),
    };
    expect_validation(
        &c.device,
        |e| {
            matches!(
                copy_err(e),
                Some(TextureCopyError::DepthCopy {
                    format: TextureFormat::Depth24Plus,
                    ..
                })
            )
        },
        || {
            encode(&|enc| {
                enc.copy_texture_to_buffer(at(&d24, [0, 0, 0]), buffer_side(0), extent([W, H, 1]))
            })
        },
    );
    expect_validation(
        &c.device,
        |e| {
            matches!(
                copy_err(e),
                Some(TextureCopyError::DepthCopy {
                    format: TextureFormat::Depth32Float,
                    ..
                })
            )
        },
        || {
            encode(&|enc| {
                enc.copy_buffer_to_texture(buffer_side(0), at(&d32, [0, 0, 0]), extent([W, H, 1]))
            })
        },
    );
    // depth32float copies out; depth16unorm both ways.
    expect_valid(&c.device, || {
        encode(&|enc| {
            enc.copy_texture_to_buffer(at(&d32, [0, 0, 0]), buffer_side(0), extent([W, H, 1]));
            enc.copy_buffer_to_texture(buffer_side(256), at(&d16, [0, 0, 1]), extent([W, H, 1]));
        })
    });
    // Partial rows or columns of a depth format.
    expect_validation(
        &c.device,
        |e| {
            matches!(
                copy_err(e),
                Some(TextureCopyError::PartialDepthCopy {
                    origin: [1, 0, 0],
                    ..
                })
            )
        },
        || write(&d16, [1, 0, 0], [W - 1, H, 1], 1024),
    );
    expect_validation(
        &c.device,
        |e| matches!(copy_err(e), Some(TextureCopyError::PartialDepthCopy { .. })),
        || {
            encode(&|enc| {
                enc.copy_texture_to_buffer(at(&d16, [0, 0, 0]), buffer_side(0), extent([W, 1, 1]))
            })
        },
    );
    // Buffer offsets of depth copies are multiples of 4, not of the texel.
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
        || {
            encode(&|enc| {
                enc.copy_texture_to_buffer(at(&d16, [0, 0, 0]), buffer_side(2), extent([W, H, 1]))
            })
        },
    );
    // Copy aspects: StencilOnly on a depth format, DepthOnly on a colour one.
    let color = make(
        TextureDimension::D2,
        TextureFormat::R16Unorm,
        [W, H, 1],
        usage,
    );
    for (t, aspect) in [
        (&d16, TextureAspect::StencilOnly),
        (&color, TextureAspect::DepthOnly),
    ] {
        expect_validation(
            &c.device,
            |e| matches!(copy_err(e), Some(TextureCopyError::Aspect { aspect: a, .. }) if a == aspect),
            || {
                encode(&|enc| {
                    enc.copy_texture_to_buffer(
                        wgt::TexelCopyTextureInfo {
                            aspect,
                            ..at(t, [0, 0, 0])
                        },
                        buffer_side(0),
                        extent([W, H, 1]),
                    )
                })
            },
        );
    }
    // Layouts: no depth storage textures.
    expect_validation(
        &c.device,
        |e| {
            matches!(
                bind_err(e),
                Some(TextureBindingError::StorageFormat {
                    format: TextureFormat::Depth32Float
                })
            )
        },
        || {
            c.device
                .create_bind_group_layout(&BindGroupLayoutDescriptor {
                    label: None,
                    entries: &[layout_entry(
                        0,
                        BindingType::StorageTexture {
                            access: StorageTextureAccess::ReadOnly,
                            format: TextureFormat::Depth32Float,
                            view_dimension: TextureViewDimension::D2,
                        },
                    )],
                })
        },
    );
    // Bindings: a depth view binds as `depth` and as unfilterable float,
    // not as filterable float.
    let bind = |sample_type, view: &TextureView| {
        let bgl = c
            .device
            .create_bind_group_layout(&BindGroupLayoutDescriptor {
                label: None,
                entries: &[layout_entry(
                    0,
                    BindingType::Texture {
                        sample_type,
                        view_dimension: TextureViewDimension::D2,
                        multisampled: false,
                    },
                )],
            });
        c.device.create_bind_group(&BindGroupDescriptor {
            label: None,
            layout: &bgl,
            entries: &[BindGroupEntry {
                binding: 0,
                resource: BindingResource::TextureView(view),
            }],
        })
    };
    let d32_view = d32.create_view(&Default::default());
    expect_valid(&c.device, || {
        bind(TextureSampleType::Depth, &d32_view);
        bind(TextureSampleType::Float { filterable: false }, &d32_view);
    });
    expect_validation(
        &c.device,
        |e| {
            matches!(
                bind_err(e),
                Some(TextureBindingError::SampleType {
                    layout: TextureSampleType::Float { filterable: true },
                    format: TextureFormat::Depth32Float,
                })
            )
        },
        || bind(TextureSampleType::Float { filterable: true }, &d32_view),
    );
}

/// wgpu-core's sample-type rules with explicit layouts: a `depth` entry
/// takes a `Filtering` sampler entry (only float entries marked
/// unfilterable refuse one), and a `texture_2d<f32>` at an
/// unfilterable-float entry reads a depth view's depth as its x.
#[test]
fn depth_views_bind_as_depth_or_unfilterable_float() {
    if !texture_shaders("depth_views_bind_as_depth_or_unfilterable_float") {
        return;
    }
    let c = ctx();
    let layout_with = |texture: BindingType, sampler: SamplerBindingType| {
        let bgl = c
            .device
            .create_bind_group_layout(&BindGroupLayoutDescriptor {
                label: None,
                entries: &[
                    layout_entry(0, texture),
                    layout_entry(1, BindingType::Sampler(sampler)),
                    layout_entry(2, super::sampling::storage_buffer(true)),
                    layout_entry(3, super::sampling::storage_buffer(false)),
                ],
            });
        c.device.create_pipeline_layout(&PipelineLayoutDescriptor {
            label: None,
            bind_group_layouts: &[Some(&bgl)],
            immediate_size: 0,
        })
    };
    let pipeline = |module: &ShaderModule, layout: &PipelineLayout| {
        c.device
            .create_compute_pipeline(&ComputePipelineDescriptor {
                label: None,
                layout: Some(layout),
                module,
                entry_point: Some("main"),
                compilation_options: Default::default(),
                cache: None,
            })
    };
    let depth_entry = BindingType::Texture {
        sample_type: TextureSampleType::Depth,
        view_dimension: TextureViewDimension::D2Array,
        multisampled: false,
    };
    let sample = module(&c, SAMPLE);
    expect_valid(&c.device, || {
        pipeline(
            &sample,
            &layout_with(depth_entry, SamplerBindingType::Filtering),
        )
    });
    // A float view of the depth: textureLoad's x is the depth.
    let float = module(
        &c,
        "@group(0) @binding(0) var t: texture_2d<f32>;
@group(0) @binding(1) var s: sampler;
@group(0) @binding(2) var<storage, read> q: array<vec4<f32>>;
@group(0) @binding(3) var<storage, read_write> out: array<vec4<f32>>;
@compute @workgroup_size(8)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    let c = vec2<u32>(id.x % 4u, id.x / 4u);
    out[id.x] = vec4<f32>(textureLoad(t, c, 0).x,
        textureSampleLevel(t, s, (vec2<f32>(c) + 0.5) / vec2<f32>(4.0, 2.0), 0.0).x, 0.0, 0.0);
}",
    );
    let unfilterable = BindingType::Texture {
        sample_type: TextureSampleType::Float { filterable: false },
        view_dimension: TextureViewDimension::D2,
        multisampled: false,
    };
    let p = expect_valid(&c.device, || {
        pipeline(
            &float,
            &layout_with(unfilterable, SamplerBindingType::NonFiltering),
        )
    });
    let t = depth16(&c, 1);
    let view = t.create_view(&Default::default());
    let nearest = c.device.create_sampler(&SamplerDescriptor::default());
    let got = run(&c, &p, &view, &nearest, &[[0.0; 4]; 8], 1);
    for (k, v) in got.iter().enumerate() {
        let d = unorm(depth_bits(k as u32 % W, k as u32 / W, 0));
        assert_eq!(v[..2], [d, d], "texel {k}");
    }
}
