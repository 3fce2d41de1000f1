//! Cube and cube-array views through the facade: an r32float texture of
//! two cubes (12 layers) and a depth16unorm cube sampled by direction in
//! WGSL (`textureSampleLevel`, `textureGather`, `textureSampleCompareLevel`,
//! `textureGatherCompare`, `textureDimensions`, `textureNumLayers`),
//! checked against a host model of Vulkan's cube-map face selection and
//! 2D filtering on the face; one linear sample across an edge, checked
//! against the adjacent face's texel; and wgpu-core's cube view rules.

use super::depth::{compare_sampler, depth_bits, module, passes, run, unorm};
use super::sampling::{pipeline_of, taps};
use super::*;

const N: u32 = 4;

/// Texel (x, y) of `layer`: distinct small values, exact in every blend.
fn value(x: u32, y: u32, layer: u32) -> f32 {
    (x + 10 * y + 100 * layer) as f32
}

/// Vulkan's "Cube Map Face Selection and Transformations" for a direction
/// without ties: the face (+X, -X, +Y, -Y, +Z, -Z) and (s, t) in [0, 1].
pub(super) fn face_of([x, y, z]: [f32; 3]) -> (u32, f64, f64) {
    let [x, y, z] = [x, y, z].map(f64::from);
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
    (face, 0.5 * (sc / ma + 1.0), 0.5 * (tc / ma + 1.0))
}

/// A direction to face `face` at face coordinates (a, b) in (-1, 1)
/// (sc / |ma|, tc / |ma|), scaled by `m` (a power of two, so the kernel's
/// reciprocal is exact).
pub(super) fn toward(face: u32, a: f32, b: f32, m: f32) -> [f32; 3] {
    let d = match face {
        0 => [1.0, -b, -a],
        1 => [-1.0, -b, a],
        2 => [a, 1.0, b],
        3 => [a, -1.0, -b],
        4 => [a, -b, 1.0],
        _ => [-a, -b, -1.0],
    };
    d.map(|c| c * m)
}

/// Queries (direction, cube) on every face; `reach` bounds |a| and |b| in
/// sixteenths (11 keeps linear footprints inside the face).
fn queries(reach: i32, cubes: u32) -> Vec<[f32; 4]> {
    (0..60u32)
        .map(|k| {
            let span = 2 * reach + 1;
            let a = ((k as i32 * 5) % span - reach) as f32 / 16.0;
            let b = ((k as i32 * 7 + 3) % span - reach) as f32 / 16.0;
            let m = [1.0, 2.0, 0.5][k as usize % 3];
            let [x, y, z] = toward(k % 6, a, b, m);
            [x, y, z, (k / 6 % cubes) as f32]
        })
        .collect()
}

/// The host's sample at (s, t) of a face: 2D taps, clamped to the face
/// (the queries keep linear footprints inside it).
fn model(s: f64, t: f64, filter: FilterMode, texel: &dyn Fn(u32, u32) -> f32) -> f32 {
    let clamp = |i: i64| i.clamp(0, i64::from(N) - 1) as u32;
    let mut sum = 0f64;
    for (j, wy) in taps(t * f64::from(N), filter) {
        for &(i, wx) in &taps(s * f64::from(N), filter) {
            sum += wx * wy * f64::from(texel(clamp(i), clamp(j)));
        }
    }
    sum as f32
}

/// The gather of (s, t) on a face in WGSL's order.
fn gather_model(s: f64, t: f64, texel: &dyn Fn(u32, u32) -> f32) -> [f32; 4] {
    let i0 = (s * f64::from(N) - 0.5).floor() as u32;
    let j0 = (t * f64::from(N) - 0.5).floor() as u32;
    [(i0, j0 + 1), (i0 + 1, j0 + 1), (i0 + 1, j0), (i0, j0)].map(|(i, j)| texel(i, j))
}

const CUBE: &str = "@group(0) @binding(0) var t: texture_cube<f32>;
@group(0) @binding(1) var s: sampler;
@group(0) @binding(2) var<storage, read> q: array<vec4<f32>>;
@group(0) @binding(3) var<storage, read_write> out: array<vec4<f32>>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    if (id.x >= arrayLength(&q)) { return; }
    let d = q[id.x].xyz;
    out[2u * id.x] = textureGather(0, t, s, d);
    let size = textureDimensions(t);
    out[2u * id.x + 1u] = vec4<f32>(textureSampleLevel(t, s, d, 0.0).x,
        f32(size.x), f32(size.y), 0.0);
}";

const CUBE_ARRAY: &str = "@group(0) @binding(0) var t: texture_cube_array<f32>;
@group(0) @binding(1) var s: sampler;
@group(0) @binding(2) var<storage, read> q: array<vec4<f32>>;
@group(0) @binding(3) var<storage, read_write> out: array<vec4<f32>>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    if (id.x >= arrayLength(&q)) { return; }
    let p = q[id.x];
    let cube = i32(p.w);
    out[2u * id.x] = textureGather(0, t, s, p.xyz, cube);
    out[2u * id.x + 1u] = vec4<f32>(textureSampleLevel(t, s, p.xyz, cube, 0.0).x,
        f32(textureDimensions(t).x), f32(textureNumLayers(t)), 0.0);
}";

const DEPTH_CUBE: &str = "@group(0) @binding(0) var t: texture_depth_cube;
@group(0) @binding(1) var s: sampler_comparison;
@group(0) @binding(2) var<storage, read> q: array<vec4<f32>>;
@group(0) @binding(3) var<storage, read_write> out: array<vec4<f32>>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    if (id.x >= arrayLength(&q)) { return; }
    let p = q[id.x];
    out[2u * id.x] = textureGatherCompare(t, s, p.xyz, p.w);
    out[2u * id.x + 1u] = vec4<f32>(textureSampleCompareLevel(t, s, p.xyz, p.w),
        0.0, 0.0, 0.0);
}";

/// Views of [`two_cubes`]: the second cube alone (layers 6..12), and both
/// as a cube array.
fn cube_views(c: &Ctx, t: &Texture) -> (TextureView, TextureView) {
    let cube = expect_valid(&c.device, || {
        t.create_view(&TextureViewDescriptor {
            dimension: Some(TextureViewDimension::Cube),
            base_array_layer: 6,
            ..Default::default()
        })
    });
    let array = expect_valid(&c.device, || {
        t.create_view(&TextureViewDescriptor {
            dimension: Some(TextureViewDimension::CubeArray),
            ..Default::default()
        })
    });
    (cube, array)
}

/// The r32float texture of two cubes holding [`value`].
fn two_cubes(c: &Ctx) -> Texture {
    let t = texture(
        c,
        TextureDimension::D2,
        TextureFormat::R32Float,
        [N, N, 12],
        TextureUsages::COPY_DST | TextureUsages::TEXTURE_BINDING,
    );
    let mut data = Vec::new();
    for l in 0..12 {
        for y in 0..N {
            for x in 0..N {
                data.push(value(x, y, l));
            }
        }
    }
    write_all(c, &t, bytemuck::cast_slice(&data), 4);
    t
}

fn plain_sampler(c: &Ctx, filter: FilterMode) -> Sampler {
    expect_valid(&c.device, || {
        c.device.create_sampler(&SamplerDescriptor {
            mag_filter: filter,
            min_filter: filter,
            // Address modes do not apply to cube views.
            address_mode_u: AddressMode::Repeat,
            address_mode_v: AddressMode::MirrorRepeat,
            ..Default::default()
        })
    })
}

#[test]
fn cube_views_sample_by_direction_like_the_host() {
    if !texture_shaders("cube_views_sample_by_direction_like_the_host") {
        return;
    }
    let c = ctx();
    let t = two_cubes(&c);
    let cube = pipeline_of(&c, &module(&c, CUBE), "main");
    let array = pipeline_of(&c, &module(&c, CUBE_ARRAY), "main");
    // The second cube alone (layers 6..12), and both as a cube array.
    let (cube_view, array_view) = cube_views(&c, &t);
    for filter in [FilterMode::Nearest, FilterMode::Linear] {
        let s = plain_sampler(&c, filter);
        // Nearest reaches to 15/16 of the face; linear footprints stay on it.
        let reach = if filter == FilterMode::Nearest {
            15
        } else {
            11
        };
        let cases = [(&cube, &cube_view, 1u32, 6u32), (&array, &array_view, 2, 0)];
        for (p, view, cubes, base) in cases {
            let q = queries(reach, cubes);
            let got = run(&c, p, view, &s, &q, 2);
            for (k, &[x, y, z, cube_index]) in q.iter().enumerate() {
                let (face, fs, ft) = face_of([x, y, z]);
                let layer = base + 6 * cube_index as u32 + face;
                let texel = |i: u32, j: u32| value(i, j, layer);
                let what = format!("{cubes} cube(s) {filter:?} query {k} {:?}", q[k]);
                let third = if cubes == 1 { N as f32 } else { cubes as f32 };
                assert_eq!(
                    got[2 * k + 1],
                    [model(fs, ft, filter, &texel), N as f32, third, 0.0],
                    "sample {what}"
                );
                if filter == FilterMode::Linear {
                    assert_eq!(got[2 * k], gather_model(fs, ft, &texel), "gather {what}");
                }
            }
        }
    }
    // Across the edge: +X at a = -15/16 (s = 1/32, u = 0.125) and row
    // centre 2: the left taps (weight 0.375) are +Z's right column (the
    // texel the cube wrap reads off +X's left edge).
    let s = plain_sampler(&c, FilterMode::Linear);
    let q = [[1.0, 0.0, 15.0 / 16.0, 0.0]];
    let got = run(&c, &cube, &cube_view, &s, &q, 2);
    let (px, pz) = (6, 6 + 4);
    let row = |j| 0.375 * value(N - 1, j, pz) + 0.625 * value(0, j, px);
    assert_eq!(got[1][0], 0.5 * row(1) + 0.5 * row(2), "edge");
}

#[test]
fn depth_cube_compares_by_direction() {
    if !texture_shaders("depth_cube_compares_by_direction") {
        return;
    }
    let c = ctx();
    let t = texture(
        &c,
        TextureDimension::D2,
        TextureFormat::Depth16Unorm,
        [N, N, 6],
        TextureUsages::COPY_DST | TextureUsages::TEXTURE_BINDING,
    );
    let data: Vec<u16> = (0..6)
        .flat_map(|l| (0..N).flat_map(move |y| (0..N).map(move |x| depth_bits(x, y, l))))
        .collect();
    write_all(&c, &t, bytemuck::cast_slice(&data), 2);
    let view = expect_valid(&c.device, || {
        t.create_view(&TextureViewDescriptor {
            dimension: Some(TextureViewDimension::Cube),
            aspect: TextureAspect::DepthOnly,
            ..Default::default()
        })
    });
    let p = pipeline_of(&c, &module(&c, DEPTH_CUBE), "main");
    let mut q = queries(11, 1);
    for (k, e) in q.iter_mut().enumerate() {
        e[3] = (k as f32 * 0.37) % 1.0;
    }
    for f in [CompareFunction::LessEqual, CompareFunction::Greater] {
        let s = compare_sampler(&c, f, AddressMode::ClampToEdge, FilterMode::Linear);
        let got = run(&c, &p, &view, &s, &q, 2);
        for (k, &[x, y, z, r]) in q.iter().enumerate() {
            let (face, fs, ft) = face_of([x, y, z]);
            let texel =
                |i: u32, j: u32| f32::from(u8::from(passes(f, r, unorm(depth_bits(i, j, face)))));
            assert_eq!(got[2 * k], gather_model(fs, ft, &texel), "{f:?} gather {k}");
            assert_eq!(
                got[2 * k + 1][0],
                model(fs, ft, FilterMode::Linear, &texel),
                "{f:?} compare {k}"
            );
        }
    }
}

#[test]
fn cube_view_rules_are_validated() {
    let c = ctx();
    let usage = TextureUsages::COPY_DST | TextureUsages::TEXTURE_BINDING;
    let square = texture(
        &c,
        TextureDimension::D2,
        TextureFormat::R32Float,
        [4, 4, 12],
        usage,
    );
    let wide = texture(
        &c,
        TextureDimension::D2,
        TextureFormat::R32Float,
        [8, 4, 6],
        usage,
    );
    let view = |t: &Texture, dimension, base, count| {
        t.create_view(&TextureViewDescriptor {
            dimension: Some(dimension),
            base_array_layer: base,
            array_layer_count: count,
            ..Default::default()
        })
    };
    // A cube has 6 layers (the default count), a cube array a multiple.
    expect_valid(&c.device, || {
        view(&square, TextureViewDimension::Cube, 3, None);
        view(&square, TextureViewDimension::CubeArray, 0, Some(12));
        view(&square, TextureViewDimension::CubeArray, 6, None);
    });
    for (dimension, base, count, bad) in [
        (TextureViewDimension::Cube, 0, Some(12), 12),
        (TextureViewDimension::CubeArray, 0, Some(9), 9),
        (TextureViewDimension::CubeArray, 3, None, 9),
    ] {
        expect_validation(
            &c.device,
            |e| {
                matches!(
                    view_err(e),
                    Some(TextureViewError::LayerCount { view, count }) if *view == dimension && *count == bad
                )
            },
            || view(&square, dimension, base, count),
        );
    }
    expect_validation(
        &c.device,
        |e| {
            matches!(
                view_err(e),
                Some(TextureViewError::CubeNotSquare {
                    width: 8,
                    height: 4
                })
            )
        },
        || view(&wide, TextureViewDimension::Cube, 0, None),
    );
    // A cube view binds only at a cube entry.
    let cube_view = view(&square, TextureViewDimension::Cube, 0, None);
    let bgl = c
        .device
        .create_bind_group_layout(&BindGroupLayoutDescriptor {
            label: None,
            entries: &[layout_entry(
                0,
                BindingType::Texture {
                    sample_type: TextureSampleType::Float { filterable: false },
                    view_dimension: TextureViewDimension::D2Array,
                    multisampled: false,
                },
            )],
        });
    expect_validation(
        &c.device,
        |e| {
            matches!(
                bind_err(e),
                Some(TextureBindingError::Dimension {
                    layout: TextureViewDimension::D2Array,
                    view: TextureViewDimension::Cube,
                })
            )
        },
        || {
            c.device.create_bind_group(&BindGroupDescriptor {
                label: None,
                layout: &bgl,
                entries: &[BindGroupEntry {
                    binding: 0,
                    resource: BindingResource::TextureView(&cube_view),
                }],
            })
        },
    );
}

const CUBE_GRAD: &str = "@group(0) @binding(0) var t: texture_cube<f32>;
@group(0) @binding(1) var s: sampler;
struct In { q: vec4<f32>, dx: vec4<f32>, dy: vec4<f32> }
@group(0) @binding(2) var<storage, read> q: array<In>;
@group(0) @binding(3) var<storage, read_write> out: array<vec4<f32>>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    if (id.x >= arrayLength(&q)) { return; }
    let p = q[id.x];
    out[id.x] = textureSampleGrad(t, s, p.q.xyz, p.dx.xyz, p.dy.xyz);
}";

const CUBE_ARRAY_GRAD: &str = "@group(0) @binding(0) var t: texture_cube_array<f32>;
@group(0) @binding(1) var s: sampler;
struct In { q: vec4<f32>, dx: vec4<f32>, dy: vec4<f32> }
@group(0) @binding(2) var<storage, read> q: array<In>;
@group(0) @binding(3) var<storage, read_write> out: array<vec4<f32>>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    if (id.x >= arrayLength(&q)) { return; }
    let p = q[id.x];
    out[id.x] = textureSampleGrad(t, s, p.q.xyz, i32(p.q.w), p.dx.xyz, p.dy.xyz);
}";

/// The face derivatives of a direction derivative `d` at `dir`, by a
/// central difference of the host's face coordinates (the queries stay
/// inside their face), in texels of the N-texel face.
fn face_texels(dir: [f32; 3], d: [f32; 4]) -> f64 {
    let h = 1e-4;
    let at = |sign: f64| {
        let p = [0, 1, 2].map(|a| (f64::from(dir[a]) + sign * h * f64::from(d[a])) as f32);
        let (_, s, t) = face_of(p);
        (s, t)
    };
    let ((s1, t1), (s0, t0)) = (at(1.0), at(-1.0));
    let (ds, dt) = ((s1 - s0) / (2.0 * h), (t1 - t0) / (2.0 * h));
    f64::from(N) * (ds * ds + dt * dt).sqrt()
}

/// `textureSampleGrad` on cube and cube-array views with a nearest-mag,
/// linear-min sampler: the direction's derivatives, projected on the
/// face, pick the filter (small ones magnify, large ones minify).
#[test]
fn cube_sample_grad_picks_the_filter_on_the_face() {
    if !texture_shaders("cube_sample_grad_picks_the_filter_on_the_face") {
        return;
    }
    let c = ctx();
    let t = two_cubes(&c);
    let (cube_view, array_view) = cube_views(&c, &t);
    let s = expect_valid(&c.device, || {
        c.device.create_sampler(&SamplerDescriptor {
            mag_filter: FilterMode::Nearest,
            min_filter: FilterMode::Linear,
            ..Default::default()
        })
    });
    let cube = pipeline_of(&c, &module(&c, CUBE_GRAD), "main");
    let array = pipeline_of(&c, &module(&c, CUBE_ARRAY_GRAD), "main");
    let cases = [(&cube, &cube_view, 1u32, 6u32), (&array, &array_view, 2, 0)];
    for (p, view, cubes, base) in cases {
        let q = queries(11, cubes);
        // Unit derivatives along each axis (for a face's major axis only
        // the |ma| term of the chain rule moves s and t) or mixed, scaled
        // so the host's projection gives 0.6 or 1.6 texels per step: a
        // wrong projection shows as the other filter, while any length
        // approximation Vulkan allows (within a factor √2) keeps the side.
        let inputs: Vec<[[f32; 4]; 3]> = q
            .iter()
            .enumerate()
            .map(|(k, &e)| {
                let dir = [e[0], e[1], e[2]];
                let ux = match k % 4 {
                    0 => [1.0, 0.0, 0.0, 0.0],
                    1 => [0.0, 1.0, 0.0, 0.0],
                    2 => [0.0, 0.0, 1.0, 0.0],
                    _ => [0.5, -1.0, 0.25, 0.0],
                };
                // ddy only with the mixed ddx, so a single-axis ddx alone
                // decides (a major-axis one through the |ma| term alone).
                let uy = if k % 4 == 3 {
                    [-ux[2], ux[0], ux[1], 0.0]
                } else {
                    [0.0; 4]
                };
                let unit = face_texels(dir, ux).max(face_texels(dir, uy));
                let target = if k % 2 == 0 { 0.6 } else { 1.6 };
                let m = (target / unit) as f32;
                assert!(m.is_finite(), "query {k}: no face derivative");
                [e, ux.map(|v| v * m), uy.map(|v| v * m)]
            })
            .collect();
        let got = super::sampling::run_inputs(
            &c,
            p,
            view,
            &s,
            bytemuck::cast_slice(&inputs),
            inputs.len(),
        );
        let mut filters = [0usize; 2];
        for (k, [e, dx, dy]) in inputs.iter().enumerate() {
            let dir = [e[0], e[1], e[2]];
            let rho = face_texels(dir, *dx).max(face_texels(dir, *dy));
            let target = if k % 2 == 0 { 0.6 } else { 1.6 };
            assert!((rho / target - 1.0).abs() < 0.01, "query {k}: rho {rho}");
            let filter = if rho > 1.0 {
                FilterMode::Linear
            } else {
                FilterMode::Nearest
            };
            filters[(filter == FilterMode::Linear) as usize] += 1;
            let (face, fs, ft) = face_of(dir);
            let layer = base + 6 * e[3] as u32 + face;
            let want = model(fs, ft, filter, &|i, j| value(i, j, layer));
            assert_eq!(got[k][0], want, "{cubes} cube(s) query {k} {e:?} rho {rho}");
        }
        assert!(filters[0] > 0 && filters[1] > 0, "both filters");
    }
}
