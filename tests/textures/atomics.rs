//! Texture atomics through the facade (wgpu's `TEXTURE_ATOMIC`): WGSL
//! kernels apply `textureAtomicAdd`, `Min`, `Max`, `And`, `Or` and `Xor`
//! to r32uint and r32sint storage textures from many invocations per texel;
//! the host folds the same values into the uploaded texels (the operations
//! commute, so any order gives the same texels); counts into 1D, 2D-array
//! and 3D textures check each dimension's addressing. The rules: atomic access
//! needs the feature and an atomic format, and a shader using texture
//! atomics needs the feature.

use super::*;

const W: u32 = 8;
const H: u32 = 4;

const UNSIGNED: &str = "@group(0) @binding(0) var a: texture_storage_2d<r32uint, atomic>;
@group(0) @binding(1) var b: texture_storage_2d<r32uint, atomic>;
@group(0) @binding(2) var c: texture_storage_2d<r32uint, atomic>;
@group(0) @binding(3) var d: texture_storage_2d<r32uint, atomic>;
@group(0) @binding(4) var<storage, read> vals: array<u32>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    let p = vec2<u32>(id.x % 8u, (id.x / 8u) % 4u);
    let v = vals[id.x];
    textureAtomicAdd(a, p, v);
    textureAtomicMin(b, p, v);
    textureAtomicMax(c, p, v);
    textureAtomicXor(d, p, v);
}";

const SIGNED: &str = "@group(0) @binding(0) var a: texture_storage_2d<r32sint, atomic>;
@group(0) @binding(1) var b: texture_storage_2d<r32sint, atomic>;
@group(0) @binding(2) var c: texture_storage_2d<r32sint, atomic>;
@group(0) @binding(3) var d: texture_storage_2d<r32sint, atomic>;
@group(0) @binding(4) var<storage, read> vals: array<i32>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    let p = vec2<i32>(i32(id.x % 8u), i32((id.x / 8u) % 4u));
    let v = vals[id.x];
    textureAtomicMin(a, p, v);
    textureAtomicMax(b, p, v);
    textureAtomicAnd(c, p, v);
    textureAtomicOr(d, p, v);
}";

/// Run `wgsl` over 128 invocations (four per texel) with four textures of
/// `format` holding `init` and `vals`; each texture's texels after.
fn run(c: &Ctx, wgsl: &str, format: TextureFormat, init: &[u32], vals: &[u32]) -> Vec<Vec<u32>> {
    let p = wgsl_pipeline(c, wgsl);
    let textures: Vec<Texture> = (0..4)
        .map(|_| {
            let t = texture(c, TextureDimension::D2, format, [W, H, 1], ALL_USAGES);
            write_all(c, &t, bytemuck::cast_slice(init), 4);
            t
        })
        .collect();
    let views: Vec<TextureView> = textures
        .iter()
        .map(|t| t.create_view(&Default::default()))
        .collect();
    let input = c
        .device
        .create_buffer_init(&aqueduct::util::BufferInitDescriptor {
            label: None,
            contents: bytemuck::cast_slice(vals),
            usage: BufferUsages::STORAGE,
        });
    let mut entries: Vec<BindGroupEntry<'_>> = views
        .iter()
        .enumerate()
        .map(|(i, v)| BindGroupEntry {
            binding: i as u32,
            resource: BindingResource::TextureView(v),
        })
        .collect();
    entries.push(BindGroupEntry {
        binding: 4,
        resource: input.as_entire_binding(),
    });
    dispatch(c, &p, &entries, [2, 1, 1]);
    textures
        .iter()
        .map(|t| bytemuck::cast_slice(&read_texels(c, t, [0, 0, 0], [W, H, 1], 4)).to_vec())
        .collect()
}

/// `init` with each of the 128 `vals` folded into texel `i % 32` by `op`.
fn fold(init: &[u32], vals: &[u32], op: impl Fn(u32, u32) -> u32) -> Vec<u32> {
    let mut t = init.to_vec();
    for (i, &v) in vals.iter().enumerate() {
        let k = i % (W * H) as usize;
        t[k] = op(t[k], v);
    }
    t
}

#[test]
fn texture_atomics_match_the_host() {
    if !texture_shaders("texture_atomics_match_the_host") {
        return;
    }
    let c = ctx();
    assert!(c.device.features().contains(Features::TEXTURE_ATOMIC));
    let mut rng = aqueduct_test_support::Rng::new(41);
    let init: Vec<u32> = (0..W * H).map(|_| rng.u32() >> 4).collect();
    let vals: Vec<u32> = (0..128).map(|_| rng.u32() >> 4).collect();
    let got = run(&c, UNSIGNED, TextureFormat::R32Uint, &init, &vals);
    assert_eq!(got[0], fold(&init, &vals, u32::wrapping_add), "add");
    assert_eq!(got[1], fold(&init, &vals, u32::min), "min");
    assert_eq!(got[2], fold(&init, &vals, u32::max), "max");
    assert_eq!(got[3], fold(&init, &vals, |a, b| a ^ b), "xor");

    // Signed: values around zero, so signed and unsigned order differ.
    let init: Vec<u32> = (0..W * H)
        .map(|_| (rng.u32() % 2001).wrapping_sub(1000))
        .collect();
    let vals: Vec<u32> = (0..128)
        .map(|_| (rng.u32() % 2001).wrapping_sub(1000))
        .collect();
    let got = run(&c, SIGNED, TextureFormat::R32Sint, &init, &vals);
    let s = |f: fn(i32, i32) -> i32| move |a: u32, b: u32| f(a as i32, b as i32) as u32;
    assert_eq!(got[0], fold(&init, &vals, s(i32::min)), "signed min");
    assert_eq!(got[1], fold(&init, &vals, s(i32::max)), "signed max");
    assert_eq!(got[2], fold(&init, &vals, |a, b| a & b), "and");
    assert_eq!(got[3], fold(&init, &vals, |a, b| a | b), "or");
}

#[test]
fn texture_atomics_need_their_feature_and_format() {
    let c = ctx();
    let atomic = |format| BindingType::StorageTexture {
        access: StorageTextureAccess::Atomic,
        format,
        view_dimension: TextureViewDimension::D2,
    };
    let layout = |device: &Device, ty| {
        device.create_bind_group_layout(&BindGroupLayoutDescriptor {
            label: None,
            entries: &[layout_entry(0, ty)],
        })
    };
    expect_valid(&c.device, || {
        layout(&c.device, atomic(TextureFormat::R32Sint))
    });
    expect_validation(
        &c.device,
        |e| {
            matches!(
                bind_err(e),
                Some(TextureBindingError::AtomicFormat {
                    format: TextureFormat::R32Float
                })
            )
        },
        || layout(&c.device, atomic(TextureFormat::R32Float)),
    );
    let plain = ctx_with(|a| DeviceDescriptor {
        required_features: a.features() - Features::TEXTURE_ATOMIC,
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
                    format: TextureFormat::R32Uint,
                    feature: Features::TEXTURE_ATOMIC,
                })
            )
        },
        || layout(&plain.device, atomic(TextureFormat::R32Uint)),
    );
    expect_validation(
        &plain.device,
        |e| {
            matches!(
                e,
                ValidationError::Shader(ShaderModuleError::Create {
                    source: ShaderLoadError::Wgsl(WgslError::MissingFeatures { missing, .. }),
                    ..
                }) if missing.contains(Features::TEXTURE_ATOMIC)
            )
        },
        || {
            plain.device.create_shader_module(ShaderModuleDescriptor {
                label: Some("texture atomics"),
                source: ShaderSource::Wgsl(Cow::Borrowed(UNSIGNED)),
            })
        },
    );
}

/// `textureAtomicAdd` counts into 1D, 2D-array (a layer-range view) and 3D
/// r32uint textures: each texel's count is the invocations that chose it.
#[test]
fn texture_atomics_address_every_dimension() {
    if !texture_shaders("texture_atomics_address_every_dimension") {
        return;
    }
    let c = ctx();
    let p = wgsl_pipeline(
        &c,
        "@group(0) @binding(0) var a: texture_storage_1d<r32uint, atomic>;
@group(0) @binding(1) var b: texture_storage_2d_array<r32uint, atomic>;
@group(0) @binding(2) var d: texture_storage_3d<r32uint, atomic>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    let h = id.x * 2654435761u;
    textureAtomicAdd(a, h % 5u, 1u);
    textureAtomicAdd(b, vec2<u32>(h % 3u, (h >> 8u) % 2u), (h >> 16u) % 2u, 1u);
    textureAtomicAdd(d, vec3<u32>(h % 2u, (h >> 8u) % 3u, (h >> 16u) % 2u), 1u);
}",
    );
    let one_d = texture(
        &c,
        TextureDimension::D1,
        TextureFormat::R32Uint,
        [5, 1, 1],
        ALL_USAGES,
    );
    // Four layers; the view sees layers 1 and 2.
    let layers = texture(
        &c,
        TextureDimension::D2,
        TextureFormat::R32Uint,
        [3, 2, 4],
        ALL_USAGES,
    );
    let three_d = texture(
        &c,
        TextureDimension::D3,
        TextureFormat::R32Uint,
        [2, 3, 2],
        ALL_USAGES,
    );
    let views = [
        one_d.create_view(&Default::default()),
        layers.create_view(&TextureViewDescriptor {
            dimension: Some(TextureViewDimension::D2Array),
            base_array_layer: 1,
            array_layer_count: Some(2),
            ..Default::default()
        }),
        three_d.create_view(&Default::default()),
    ];
    let entries: Vec<BindGroupEntry<'_>> = views
        .iter()
        .enumerate()
        .map(|(i, v)| BindGroupEntry {
            binding: i as u32,
            resource: BindingResource::TextureView(v),
        })
        .collect();
    dispatch(&c, &p, &entries, [4, 1, 1]);
    let (mut a, mut b, mut d) = (vec![0u32; 5], vec![0u32; 3 * 2 * 4], vec![0u32; 2 * 3 * 2]);
    for i in 0..256u32 {
        let h = i.wrapping_mul(2_654_435_761);
        a[(h % 5) as usize] += 1;
        let layer = 1 + (h >> 16) % 2;
        b[((layer * 2 + (h >> 8) % 2) * 3 + h % 3) as usize] += 1;
        d[((((h >> 16) % 2) * 3 + (h >> 8) % 3) * 2 + h % 2) as usize] += 1;
    }
    let words = |t: &Texture, size: [u32; 3]| -> Vec<u32> {
        bytemuck::cast_slice(&read_texels(&c, t, [0, 0, 0], size, 4)).to_vec()
    };
    assert_eq!(words(&one_d, [5, 1, 1]), a, "1d");
    assert_eq!(words(&layers, [3, 2, 4]), b, "2d array");
    assert_eq!(words(&three_d, [2, 3, 2]), d, "3d");
}
