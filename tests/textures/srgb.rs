//! sRGB textures through the facade: rgba8unorm-srgb and bgra8unorm-srgb
//! texels written with `write_texture`, read by WGSL kernels with
//! `textureLoad` and sampled with `textureSampleLevel` through nearest and
//! linear samplers, checked against the host's sRGB EOTF (Khronos Data
//! Format Specification, "sRGB EOTF") applied to each texel before the
//! filter (Vulkan "Texel Filtering" filters linear values). Storage of sRGB
//! formats is refused, as WebGPU has none.

use super::sampling::{H, Model, W, coords, pipeline_of, run_inputs};
use super::*;

/// The sRGB EOTF of an 8-bit code, in f64.
fn eotf(k: u8) -> f64 {
    let c = f64::from(k) / 255.0;
    if c <= 0.04045 {
        c / 12.92
    } else {
        ((c + 0.055) / 1.055).powf(2.4)
    }
}

const SHADER: &str = "@group(0) @binding(0) var t: texture_2d<f32>;
@group(0) @binding(1) var s: sampler;
@group(0) @binding(2) var<storage, read> coords: array<vec2<f32>>;
@group(0) @binding(3) var<storage, read_write> out: array<vec4<f32>>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    if (id.x >= arrayLength(&coords)) { return; }
    out[2u * id.x] = textureLoad(t, vec2<u32>(id.x % 4u, (id.x / 4u) % 2u), 0);
    out[2u * id.x + 1u] = textureSampleLevel(t, s, coords[id.x], 0.0);
}";

fn close(got: &[[f32; 4]], want: &[[f32; 4]], what: &str) {
    let (g, w): (Vec<f32>, Vec<f32>) = (got.concat(), want.concat());
    // The EOTF in f32 and gfxsim's filter weights (exact on the quarter
    // texels of `coords`) leave only rounding.
    aqueduct_test_support::assert_close(&g, &w, 1e-5, 1e-6, what);
}

#[test]
fn srgb_textures_decode_before_filtering() {
    if !texture_shaders("srgb_textures_decode_before_filtering") {
        return;
    }
    let c = ctx();
    let module = expect_valid(&c.device, || {
        c.device.create_shader_module(ShaderModuleDescriptor {
            label: Some("srgb"),
            source: ShaderSource::Wgsl(Cow::Borrowed(SHADER)),
        })
    });
    let p = pipeline_of(&c, &module, "main");
    let points = coords();
    let bytes = pattern((W * H * 4) as usize, 29);
    for format in [TextureFormat::Rgba8UnormSrgb, TextureFormat::Bgra8UnormSrgb] {
        let usage = TextureUsages::TEXTURE_BINDING | TextureUsages::COPY_DST;
        let t = texture(&c, TextureDimension::D2, format, [W, H, 1], usage);
        write_all(&c, &t, &bytes, 4);
        let view = t.create_view(&Default::default());
        // RGBA in memory order for rgba, B, G, R, A for bgra; alpha linear.
        // (The model takes a 'static closure: it owns its copy of the bytes.)
        let bytes = bytes.clone();
        let texel = move |x: u32, y: u32| -> [f32; 4] {
            let at = ((y * W + x) * 4) as usize;
            let b = &bytes[at..at + 4];
            let (r, g, bl) = if format == TextureFormat::Bgra8UnormSrgb {
                (b[2], b[1], b[0])
            } else {
                (b[0], b[1], b[2])
            };
            [eotf(r), eotf(g), eotf(bl), f64::from(b[3]) / 255.0].map(|v| v as f32)
        };
        let s = |filter| {
            expect_valid(&c.device, || {
                c.device.create_sampler(&SamplerDescriptor {
                    address_mode_u: AddressMode::Repeat,
                    address_mode_v: AddressMode::Repeat,
                    mag_filter: filter,
                    min_filter: filter,
                    ..Default::default()
                })
            })
        };
        let inputs: &[u8] = bytemuck::cast_slice(&points);
        let loads: Vec<[f32; 4]> = (0..points.len() as u32)
            .map(|i| texel(i % 4, (i / 4) % 2))
            .collect();
        for filter in [FilterMode::Nearest, FilterMode::Linear] {
            let sampler = s(filter);
            // Each point's load, then its sample.
            let got = run_inputs(&c, &p, &view, &sampler, inputs, 2 * points.len());
            let got_loads: Vec<[f32; 4]> = got.iter().step_by(2).copied().collect();
            let got_samples: Vec<[f32; 4]> = got.iter().skip(1).step_by(2).copied().collect();
            close(&got_loads, &loads, &format!("{format:?} textureLoad"));
            let model = Model {
                texel: &texel,
                mode: AddressMode::Repeat,
                filter,
                border: [0.0; 4],
            };
            let want: Vec<[f32; 4]> = points.iter().map(|&p| model.sample(p)).collect();
            close(
                &got_samples,
                &want,
                &format!("{format:?} {filter:?} textureSampleLevel"),
            );
        }
    }
}

#[test]
fn srgb_textures_have_no_storage() {
    let c = ctx();
    for format in [TextureFormat::Rgba8UnormSrgb, TextureFormat::Bgra8UnormSrgb] {
        expect_validation(
            &c.device,
            |e| matches!(create_err(e), Some(CreateTextureError::FormatUsage { .. })),
            || {
                texture(
                    &c,
                    TextureDimension::D2,
                    format,
                    [4, 4, 1],
                    TextureUsages::STORAGE_BINDING,
                )
            },
        );
        let features = c.adapter.get_texture_format_features(format);
        assert!(
            !features
                .allowed_usages
                .contains(TextureUsages::STORAGE_BINDING)
        );
        assert!(
            features
                .flags
                .contains(wgt::TextureFormatFeatureFlags::FILTERABLE)
        );
    }
}

/// An rgba8unorm texture created with `view_formats: [rgba8unorm-srgb]`
/// reads raw through its own view and decoded through the sRGB view (the
/// same bits under FORMAT 66); a view format not listed is refused.
#[test]
fn srgb_views_of_unorm_textures_decode() {
    if !texture_shaders("srgb_views_of_unorm_textures_decode") {
        return;
    }
    let c = ctx();
    let t = c.device.create_texture(&TextureDescriptor {
        label: Some("unorm with an srgb view"),
        size: extent([W, H, 1]),
        mip_level_count: 1,
        sample_count: 1,
        dimension: TextureDimension::D2,
        format: TextureFormat::Rgba8Unorm,
        usage: TextureUsages::TEXTURE_BINDING | TextureUsages::COPY_DST,
        view_formats: &[TextureFormat::Rgba8UnormSrgb],
    });
    let bytes = pattern((W * H * 4) as usize, 31);
    write_all(&c, &t, &bytes, 4);
    let module = expect_valid(&c.device, || {
        c.device.create_shader_module(ShaderModuleDescriptor {
            label: Some("srgb views"),
            source: ShaderSource::Wgsl(Cow::Borrowed(SHADER)),
        })
    });
    let p = pipeline_of(&c, &module, "main");
    let sampler = expect_valid(&c.device, || c.device.create_sampler(&Default::default()));
    let points = coords();
    let inputs: &[u8] = bytemuck::cast_slice(&points);
    for (format, decode) in [
        (TextureFormat::Rgba8Unorm, false),
        (TextureFormat::Rgba8UnormSrgb, true),
    ] {
        let view = t.create_view(&TextureViewDescriptor {
            format: Some(format),
            ..Default::default()
        });
        let got = run_inputs(&c, &p, &view, &sampler, inputs, 2 * points.len());
        let want: Vec<[f32; 4]> = (0..points.len())
            .map(|i| {
                let at = (((i / 4) % 2) * W as usize + i % 4) * 4;
                let b = &bytes[at..at + 4];
                std::array::from_fn(|k| {
                    if decode && k < 3 {
                        eotf(b[k]) as f32
                    } else {
                        f32::from(b[k]) / 255.0
                    }
                })
            })
            .collect();
        let loads: Vec<[f32; 4]> = got.iter().step_by(2).copied().collect();
        close(&loads, &want, &format!("{format:?} view"));
    }
    expect_validation(
        &c.device,
        |e| matches!(view_err(e), Some(TextureViewError::Format { .. })),
        || {
            t.create_view(&TextureViewDescriptor {
                format: Some(TextureFormat::Bgra8UnormSrgb),
                ..Default::default()
            })
        },
    );
}
