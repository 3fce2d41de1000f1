//! Texel offsets, `textureSampleGrad` and `textureSampleBaseClampToEdge`
//! through the facade: WGSL kernels sample rgba32float 2D, 2D-array and 3D
//! textures, checked against a host model of WebGPU's filtering (Vulkan's
//! "Texel Filtering" and "Wrapping Operation") on quarter texels, where
//! gfxsim's 8-bit linear weights are exact. The gradients are chosen well
//! below and above one texel per invocation step, so the LOD's side of 0
//! (magnification: nearest; minification: linear) does not rest on how
//! the texture unit approximates the derivative lengths.

use super::sampling::{pipeline_of, run_inputs, taps, wrap};
use super::*;

const SIZE: [u32; 3] = [4, 2, 4];

/// rgba32float texel (x, y, z): small integers, exact in every blend.
fn texel(x: u32, y: u32, z: u32) -> [f32; 4] {
    let (x, y, z) = (x as f32, y as f32, z as f32);
    [x + 4.0 * y + 16.0 * z, 10.0 * x - y, 100.0 * z + 1.0, 1.0]
}

/// WebGPU's filtered sample of `texel` over the first `axes` axes of
/// SIZE at normalised `c` plus texel `offset`, on slice `layer` (arrays).
fn host_sample(
    axes: usize,
    c: [f32; 3],
    offset: [i64; 3],
    layer: u32,
    mode: AddressMode,
    filter: FilterMode,
) -> [f32; 4] {
    let per_axis: Vec<Vec<(i64, f64)>> = (0..3)
        .map(|a| {
            if a < axes {
                taps(
                    f64::from(c[a]) * f64::from(SIZE[a]) + offset[a] as f64,
                    filter,
                )
            } else {
                vec![(0, 1.0)]
            }
        })
        .collect();
    let mut out = [0f64; 4];
    for &(k, wz) in &per_axis[2] {
        for &(j, wy) in &per_axis[1] {
            for &(i, wx) in &per_axis[0] {
                let at = |n: i64, a: usize| wrap(mode, n, SIZE[a]).expect("no border mode");
                let z = if axes == 3 { at(k, 2) } else { layer };
                let t = texel(at(i, 0), at(j, 1), z);
                for (o, v) in out.iter_mut().zip(t) {
                    *o += wx * wy * wz * f64::from(v);
                }
            }
        }
    }
    out.map(|v| v as f32)
}

/// The filter WebGPU's LOD selects for derivatives `dx`, `dy` of the
/// first `axes` coordinates (Vulkan's scale factor: the longer of the
/// two lengths in texels; λ > 0 minifies).
fn host_filter(axes: usize, dx: [f32; 3], dy: [f32; 3]) -> FilterMode {
    let len = |d: [f32; 3]| {
        (0..axes)
            .map(|a| (f64::from(d[a]) * f64::from(SIZE[a])).powi(2))
            .sum::<f64>()
            .sqrt()
    };
    if len(dx).max(len(dy)) > 1.0 {
        FilterMode::Linear
    } else {
        FilterMode::Nearest
    }
}

fn filled(c: &Ctx, dimension: TextureDimension) -> Texture {
    let t = texture(c, dimension, TextureFormat::Rgba32Float, SIZE, ALL_USAGES);
    let mut data = Vec::new();
    for z in 0..SIZE[2] {
        for y in 0..SIZE[1] {
            for x in 0..SIZE[0] {
                data.extend_from_slice(&texel(x, y, z));
            }
        }
    }
    write_all(c, &t, bytemuck::cast_slice(&data), 16);
    t
}

fn sampler(c: &Ctx, mode: AddressMode, mag: FilterMode, min: FilterMode) -> Sampler {
    expect_valid(&c.device, || {
        c.device.create_sampler(&SamplerDescriptor {
            address_mode_u: mode,
            address_mode_v: mode,
            address_mode_w: mode,
            mag_filter: mag,
            min_filter: min,
            ..Default::default()
        })
    })
}

/// A module whose entry points read `In`s (coordinate, layer in w, the
/// two derivatives) and write one vec4 each, sampling `ty` at binding 0.
fn module(c: &Ctx, ty: &str, entries: &[(&str, &str)]) -> ShaderModule {
    let mut src = format!(
        "@group(0) @binding(0) var t: {ty};
@group(0) @binding(1) var s: sampler;
struct In {{ c: vec4<f32>, dx: vec4<f32>, dy: vec4<f32> }}
@group(0) @binding(2) var<storage, read> inputs: array<In>;
@group(0) @binding(3) var<storage, read_write> out: array<vec4<f32>>;
"
    );
    for (name, expr) in entries {
        src.push_str(&format!(
            "@compute @workgroup_size(64)
fn {name}(@builtin(global_invocation_id) id: vec3<u32>) {{
    if (id.x >= arrayLength(&inputs)) {{ return; }}
    let c = inputs[id.x].c;
    let dx = inputs[id.x].dx;
    let dy = inputs[id.x].dy;
    out[id.x] = {expr};
}}
"
        ));
    }
    expect_valid(&c.device, || {
        c.device.create_shader_module(ShaderModuleDescriptor {
            label: Some(ty),
            source: ShaderSource::Wgsl(Cow::Owned(src)),
        })
    })
}

/// One invocation's inputs: coordinate (layer in w) and derivatives.
type Input = [[f32; 4]; 3];

/// Quarter-texel coordinates from past the low edges to past the high
/// ones, layers 0..3, and derivatives cycling through half a texel
/// (magnify), two texels along x, three along y (minify) and none.
fn inputs() -> Vec<Input> {
    (0..48)
        .map(|i: i32| {
            let q = |k: i32, a: usize| k as f32 / (4.0 * SIZE[a] as f32);
            let c = [
                q((i * 7) % 27 - 6, 0),
                q((i * 5) % 15 - 3, 1),
                q((i * 11) % 19 - 4, 2),
                (i % 3) as f32,
            ];
            let s = |t: f32, a: usize| t / SIZE[a] as f32;
            let (dx, dy) = match i % 4 {
                0 => (
                    [s(0.5, 0), s(0.25, 1), 0.0, 0.0],
                    [0.0, s(0.5, 1), s(0.5, 2), 0.0],
                ),
                1 => ([s(2.0, 0), 0.0, 0.0, 0.0], [0.0; 4]),
                2 => ([0.0; 4], [s(0.5, 0), s(3.0, 1), 0.0, 0.0]),
                _ => ([0.0; 4], [0.0; 4]),
            };
            [c, dx, dy]
        })
        .collect()
}

fn xyz(v: [f32; 4]) -> [f32; 3] {
    [v[0], v[1], v[2]]
}

fn run(
    c: &Ctx,
    p: &ComputePipeline,
    view: &TextureView,
    s: &Sampler,
    inputs: &[Input],
) -> Vec<[f32; 4]> {
    run_inputs(c, p, view, s, bytemuck::cast_slice(inputs), inputs.len())
}

#[test]
fn offsets_shift_samples_and_gathers_before_wrapping() {
    if !texture_shaders("offsets_shift_samples_and_gathers_before_wrapping") {
        return;
    }
    let c = ctx();
    let view = filled(&c, TextureDimension::D2).create_view(&TextureViewDescriptor {
        dimension: Some(TextureViewDimension::D2),
        array_layer_count: Some(1),
        ..Default::default()
    });
    let m = module(
        &c,
        "texture_2d<f32>",
        &[
            (
                "level",
                "textureSampleLevel(t, s, c.xy, 0.0, vec2<i32>(-3, 2))",
            ),
            ("gather", "textureGather(1, t, s, c.xy, vec2<i32>(5, -1))"),
        ],
    );
    let (level, gather) = (pipeline_of(&c, &m, "level"), pipeline_of(&c, &m, "gather"));
    let inputs = inputs();
    for mode in [AddressMode::Repeat, AddressMode::ClampToEdge] {
        for filter in [FilterMode::Nearest, FilterMode::Linear] {
            let s = sampler(&c, mode, filter, filter);
            let got = run(&c, &level, &view, &s, &inputs);
            for (k, i) in inputs.iter().enumerate() {
                let want = host_sample(2, xyz(i[0]), [-3, 2, 0], 0, mode, filter);
                assert_eq!(got[k], want, "{mode:?} {filter:?} at {:?}", i[0]);
            }
        }
        // The gather's footprint: the bilinear taps' corners, (i0, j1),
        // (i1, j1), (i1, j0), (i0, j0), of component 1.
        let s = sampler(&c, mode, FilterMode::Nearest, FilterMode::Nearest);
        let got = run(&c, &gather, &view, &s, &inputs);
        for (k, i) in inputs.iter().enumerate() {
            let u = taps(f64::from(i[0][0]) * 4.0 + 5.0, FilterMode::Linear);
            let v = taps(f64::from(i[0][1]) * 2.0 - 1.0, FilterMode::Linear);
            let g =
                |x: i64, y: i64| texel(wrap(mode, x, 4).unwrap(), wrap(mode, y, 2).unwrap(), 0)[1];
            let (i0, i1, j0, j1) = (u[0].0, u[1].0, v[0].0, v[1].0);
            let want = [g(i0, j1), g(i1, j1), g(i1, j0), g(i0, j0)];
            assert_eq!(got[k], want, "gather {mode:?} at {:?}", i[0]);
        }
    }
}

/// `textureSampleGrad` on 2D (with and without an offset), 2D-array and
/// 3D views (both with offsets) with a sampler whose mag filter (nearest) differs from its min
/// filter (linear): each invocation's derivatives pick one.
#[test]
fn sample_grad_picks_the_filter_from_the_derivatives() {
    if !texture_shaders("sample_grad_picks_the_filter_from_the_derivatives") {
        return;
    }
    let c = ctx();
    let inputs = inputs();
    let d2 = filled(&c, TextureDimension::D2);
    let d3 = filled(&c, TextureDimension::D3);
    let cases: [(&str, &str, TextureView, usize, [i64; 3]); 4] = [
        (
            "texture_2d<f32>",
            "textureSampleGrad(t, s, c.xy, dx.xy, dy.xy)",
            d2.create_view(&TextureViewDescriptor {
                dimension: Some(TextureViewDimension::D2),
                array_layer_count: Some(1),
                ..Default::default()
            }),
            2,
            [0; 3],
        ),
        (
            "texture_2d<f32>",
            "textureSampleGrad(t, s, c.xy, dx.xy, dy.xy, vec2<i32>(7, -8))",
            d2.create_view(&TextureViewDescriptor {
                dimension: Some(TextureViewDimension::D2),
                array_layer_count: Some(1),
                ..Default::default()
            }),
            2,
            [7, -8, 0],
        ),
        (
            "texture_2d_array<f32>",
            "textureSampleGrad(t, s, c.xy, i32(c.w), dx.xy, dy.xy, vec2<i32>(-2, 1))",
            d2.create_view(&TextureViewDescriptor {
                dimension: Some(TextureViewDimension::D2Array),
                ..Default::default()
            }),
            2,
            [-2, 1, 0],
        ),
        (
            "texture_3d<f32>",
            "textureSampleGrad(t, s, c.xyz, dx.xyz, dy.xyz, vec3<i32>(1, -3, 5))",
            d3.create_view(&Default::default()),
            3,
            [1, -3, 5],
        ),
    ];
    for mode in [AddressMode::Repeat, AddressMode::MirrorRepeat] {
        let s = sampler(&c, mode, FilterMode::Nearest, FilterMode::Linear);
        for (ty, expr, view, axes, offset) in &cases {
            let m = module(&c, ty, &[("main", expr)]);
            let p = pipeline_of(&c, &m, "main");
            let got = run(&c, &p, view, &s, &inputs);
            let mut filters = [0usize; 2];
            for (k, i) in inputs.iter().enumerate() {
                let filter = host_filter(*axes, xyz(i[1]), xyz(i[2]));
                filters[(filter == FilterMode::Linear) as usize] += 1;
                let layer = if *axes == 2 && ty.contains("array") {
                    i[0][3] as u32
                } else {
                    0
                };
                let want = host_sample(*axes, xyz(i[0]), *offset, layer, mode, filter);
                assert_eq!(got[k], want, "{expr} {mode:?} {filter:?} input {i:?}");
            }
            assert!(filters[0] > 0 && filters[1] > 0, "{expr}: both filters");
        }
    }
}

/// `textureSampleBaseClampToEdge`: the coordinate clamped to half a texel
/// inside the edges, so a linear repeat sampler never blends across them.
#[test]
fn clamp_to_edge_sampling_stays_half_a_texel_inside() {
    if !texture_shaders("clamp_to_edge_sampling_stays_half_a_texel_inside") {
        return;
    }
    let c = ctx();
    let view = filled(&c, TextureDimension::D2).create_view(&TextureViewDescriptor {
        dimension: Some(TextureViewDimension::D2),
        array_layer_count: Some(1),
        ..Default::default()
    });
    let m = module(
        &c,
        "texture_2d<f32>",
        &[("main", "textureSampleBaseClampToEdge(t, s, c.xy)")],
    );
    let p = pipeline_of(&c, &m, "main");
    let s = sampler(
        &c,
        AddressMode::Repeat,
        FilterMode::Linear,
        FilterMode::Linear,
    );
    let inputs = inputs();
    let got = run(&c, &p, &view, &s, &inputs);
    for (k, i) in inputs.iter().enumerate() {
        let clamp = |v: f32, n: u32| v.clamp(0.5 / n as f32, 1.0 - 0.5 / n as f32);
        let uv = [clamp(i[0][0], SIZE[0]), clamp(i[0][1], SIZE[1]), 0.0];
        let want = host_sample(2, uv, [0; 3], 0, AddressMode::Repeat, FilterMode::Linear);
        assert_eq!(got[k], want, "at {:?}", i[0]);
    }
}
