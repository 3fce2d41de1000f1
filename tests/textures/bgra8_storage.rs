//! bgra8unorm as a storage texture (WebGPU "bgra8unorm-storage"): a WGSL
//! kernel loads a read-only bgra8unorm storage texture, writes what it read
//! into an rgba32float texture, and stores the texel with red and blue
//! exchanged into a write-only bgra8unorm texture; the host checks both
//! against the bytes it uploaded (memory order B, G, R, A). A device
//! without BGRA8UNORM_STORAGE refuses the binding.

use super::*;

#[test]
fn bgra8unorm_storage_loads_and_stores_in_rgba_order() {
    if !texture_shaders("bgra8unorm_storage_loads_and_stores_in_rgba_order") {
        return;
    }
    let c = ctx();
    assert!(c.device.features().contains(Features::BGRA8UNORM_STORAGE));
    let (w, h) = (9u32, 5u32);
    let make = |format| texture(&c, TextureDimension::D2, format, [w, h, 1], ALL_USAGES);
    let src = make(TextureFormat::Bgra8Unorm);
    let dst = make(TextureFormat::Bgra8Unorm);
    let seen = make(TextureFormat::Rgba32Float);
    let bytes = pattern((w * h * 4) as usize, 17);
    write_all(&c, &src, &bytes, 4);
    let p = wgsl_pipeline(
        &c,
        "@group(0) @binding(0) var src: texture_storage_2d<bgra8unorm, read>;
@group(0) @binding(1) var dst: texture_storage_2d<bgra8unorm, write>;
@group(0) @binding(2) var seen: texture_storage_2d<rgba32float, write>;
@compute @workgroup_size(8, 8)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    if (any(id.xy >= textureDimensions(src))) { return; }
    let v = textureLoad(src, id.xy);
    textureStore(seen, id.xy, v);
    textureStore(dst, id.xy, v.bgra);
}",
    );
    let views = [&src, &dst, &seen].map(|t| t.create_view(&Default::default()));
    let entries: Vec<BindGroupEntry<'_>> = views
        .iter()
        .enumerate()
        .map(|(i, v)| BindGroupEntry {
            binding: i as u32,
            resource: BindingResource::TextureView(v),
        })
        .collect();
    dispatch(&c, &p, &entries, [2, 1, 1]);

    // The load gives (R, G, B, A): memory bytes 2, 1, 0, 3.
    let got: Vec<f32> =
        bytemuck::cast_slice(&read_texels(&c, &seen, [0, 0, 0], [w, h, 1], 16)).to_vec();
    let want: Vec<f32> = bytes
        .chunks(4)
        .flat_map(|t| [t[2], t[1], t[0], t[3]].map(|b| f32::from(b) / 255.0))
        .collect();
    aqueduct_test_support::assert_close(&got, &want, 1e-6, 0.0, "bgra8unorm load");

    // Storing (B, G, R, A) as (R, G, B, A) puts the bytes in reverse order
    // of red and blue: memory (R, G, B, A) of the source texel.
    let got = read_texels(&c, &dst, [0, 0, 0], [w, h, 1], 4);
    let want: Vec<u8> = bytes
        .chunks(4)
        .flat_map(|t| [t[2], t[1], t[0], t[3]])
        .collect();
    assert_eq!(got, want);
}

#[test]
fn bgra8unorm_storage_needs_its_feature() {
    let c = ctx_with(|a| DeviceDescriptor {
        required_features: a.features() - Features::BGRA8UNORM_STORAGE,
        experimental_features: experimental_features(),
        required_limits: a.limits(),
        ..Default::default()
    });
    expect_validation(
        &c.device,
        |e| {
            matches!(
                create_err(e),
                Some(CreateTextureError::FormatUsage {
                    format: TextureFormat::Bgra8Unorm,
                    ..
                })
            )
        },
        || {
            texture(
                &c,
                TextureDimension::D2,
                TextureFormat::Bgra8Unorm,
                [4, 4, 1],
                TextureUsages::STORAGE_BINDING,
            )
        },
    );
}
