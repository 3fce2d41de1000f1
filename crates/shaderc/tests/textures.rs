//! Textures in the compiler: each texture op compiles to a gfx1100 code
//! object whose disassembly holds the image instruction it lowers to,
//! texture bindings are 32-byte by-value kernel arguments in binding order,
//! and the reflection names their kind, dimension, access and format.

use aqueduct_hsa::code_object::{CodeObject, ValueKind};
use aqueduct_shaderc::{
    BindingKind, Options, Reflection, Source, StorageTextureAccess, StorageTextureFormat,
    TextureSampleType, TextureViewDimension, Toolchain, compile, translate,
};

fn llvm_or_skip(what: &str) -> bool {
    if Toolchain::available() {
        true
    } else {
        eprintln!("{what}: skipped (clang-19 / ld.lld-19 not installed)");
        false
    }
}

fn gfx1100() -> Options {
    Options {
        targets: vec!["gfx1100".into()],
        file_name: "textures.wgsl".into(),
        ..Options::default()
    }
}

/// The code object and reflection of `src` for gfx1100, and its
/// disassembly.
fn build(src: &str) -> (Vec<u8>, Reflection, String) {
    let c = compile(Source::Wgsl(src), &gfx1100()).unwrap_or_else(|e| panic!("{e}\n{src}"));
    let dir = std::env::temp_dir().join(format!(
        "aq-shaderc-tex-{}-{}",
        std::process::id(),
        aqueduct_shaderc::source_hash(src)
    ));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("k.co");
    std::fs::write(&path, &c.code_object).unwrap();
    let dis = std::process::Command::new("llvm-objdump-19")
        .args(["-d", "--mcpu=gfx1100"])
        .arg(&path)
        .output()
        .expect("llvm-objdump-19");
    let _ = std::fs::remove_dir_all(&dir);
    (
        c.code_object,
        c.reflection,
        String::from_utf8_lossy(&dis.stdout).into_owned(),
    )
}

/// The image instructions of a disassembly, one per line: the mnemonic,
/// dmask, dim and a16 (no registers).
fn image_lines(dis: &str) -> Vec<String> {
    dis.lines()
        .filter_map(|l| {
            let l = l.trim();
            let at = l.find("image_")?;
            let text = &l[at..];
            let text = text.split("//").next().unwrap_or(text).trim();
            let mnemonic = text.split_whitespace().next()?;
            let mods: Vec<&str> = text
                .split_whitespace()
                .filter(|w| w.starts_with("dmask:") || w.starts_with("dim:") || *w == "a16")
                .collect();
            Some(format!("{mnemonic} {}", mods.join(" ")))
        })
        .collect()
}

const COPY_2D: &str = "
@group(0) @binding(0) var src: texture_2d<f32>;
@group(0) @binding(1) var dst: texture_storage_2d<rgba8unorm, write>;
@compute @workgroup_size(8, 8)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    let c = textureLoad(src, vec2<i32>(id.xy), 1);
    textureStore(dst, id.xy, c.zyxw);
}
";

#[test]
fn sampled_load_and_storage_store_lower_to_image_instructions() {
    if !llvm_or_skip("sampled_load_and_storage_store") {
        return;
    }
    let (co, r, dis) = build(COPY_2D);
    let lines = image_lines(&dis);
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("image_load_mip") && l.contains("dim:SQ_RSRC_IMG_2D")),
        "{dis}"
    );
    assert!(
        lines
            .iter()
            .any(|l| l == "image_store dmask:0xf dim:SQ_RSRC_IMG_2D"),
        "{lines:?}"
    );

    let ep = r.entry_point("main").unwrap();
    assert_eq!(ep.bindings.len(), 2);
    let (s, d) = (&ep.bindings[0], &ep.bindings[1]);
    assert_eq!(
        (s.group, s.binding, s.kind),
        (0, 0, BindingKind::SampledTexture)
    );
    let st = s.texture.unwrap();
    assert_eq!(st.view_dimension, TextureViewDimension::D2);
    assert_eq!(st.sample_type, Some(TextureSampleType::Float));
    assert_eq!((st.access, st.format), (None, None));
    assert_eq!(d.kind, BindingKind::StorageTexture);
    let dt = d.texture.unwrap();
    assert_eq!(dt.access, Some(StorageTextureAccess::WriteOnly));
    assert_eq!(dt.format, Some(StorageTextureFormat::Rgba8Unorm));
    assert_eq!(dt.sample_type, None);
    assert_eq!((s.min_binding_size, s.size_arg.as_deref()), (0, None));

    // Both descriptors are 32-byte by-value arguments, 32-byte aligned,
    // in binding order.
    let object = CodeObject::parse(&co).expect("code object");
    let kernel = object.kernel("main").expect("kernel main");
    let args: Vec<_> = kernel.explicit_args().collect();
    assert_eq!(args.len(), 2);
    for (arg, b) in args.iter().zip(&ep.bindings) {
        assert_eq!(arg.name.as_deref(), Some(b.arg.as_str()));
        assert_eq!(arg.value_kind, ValueKind::ByValue);
        assert_eq!(arg.size, 32);
        assert_eq!(arg.offset % 32, 0);
    }
    assert!(args[0].offset < args[1].offset);

    // The reflection round-trips through its JSON with the texture fields.
    let json = r.to_json().unwrap();
    assert!(json.contains("\"kind\": \"sampled_texture\""), "{json}");
    assert!(json.contains("\"format\": \"rgba8unorm\""), "{json}");
    assert!(json.contains("\"view_dimension\": \"d2\""), "{json}");
    assert_eq!(Reflection::from_json(&json).unwrap(), r);
}

#[test]
fn stores_write_only_the_formats_components() {
    if !llvm_or_skip("stores_write_only_the_formats_components") {
        return;
    }
    for (format, ty, dmask) in [
        ("r32float", "f32", "0x1"),
        ("rg32uint", "u32", "0x3"),
        ("rgba16sint", "i32", "0xf"),
        ("r8uint", "u32", "0x1"),
    ] {
        let src = format!(
            "@group(0) @binding(0) var dst: texture_storage_2d<{format}, write>;
@compute @workgroup_size(1)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {{
    textureStore(dst, vec2<u32>(id.x, 1u), vec4<{ty}>({ty}(id.x), {ty}(2), {ty}(3), {ty}(4)));
}}
"
        );
        let (_, r, dis) = build(&src);
        let lines = image_lines(&dis);
        assert_eq!(
            lines,
            vec![format!("image_store dmask:{dmask} dim:SQ_RSRC_IMG_2D")],
            "{format}"
        );
        let t = r.entry_points[0].bindings[0].texture.unwrap();
        let want = serde_json::from_value::<StorageTextureFormat>(serde_json::json!(format));
        assert_eq!(t.format, Some(want.unwrap()), "{format}");
    }
}

#[test]
fn read_write_storage_and_every_dimension() {
    if !llvm_or_skip("read_write_storage_and_every_dimension") {
        return;
    }
    let src = "
@group(0) @binding(0) var a: texture_storage_1d<r32uint, read_write>;
@group(0) @binding(1) var b: texture_storage_2d_array<rgba32float, read>;
@group(0) @binding(2) var c: texture_storage_3d<rgba32sint, read_write>;
@group(1) @binding(0) var d: texture_3d<u32>;
@compute @workgroup_size(4)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    let x = textureLoad(a, id.x).x;
    textureStore(a, id.x, vec4<u32>(x + 1u));
    let y = textureLoad(b, vec2<u32>(id.x, 0u), 2u);
    let z = textureLoad(c, vec3<i32>(1, 2, 3));
    let w = textureLoad(d, vec3<u32>(id.x, 1u, 2u), 0u);
    textureStore(c, vec3<u32>(id.x, 0u, 0u), z + vec4<i32>(y) + vec4<i32>(w));
}
";
    let (_, r, dis) = build(src);
    let lines = image_lines(&dis);
    let has = |prefix: &str, dim: &str| {
        lines
            .iter()
            .any(|l| l.starts_with(prefix) && l.ends_with(&format!("dim:SQ_RSRC_IMG_{dim}")))
    };
    assert!(has("image_load ", "1D"), "{lines:?}");
    assert!(has("image_store dmask:0x1", "1D"), "{lines:?}");
    assert!(has("image_load ", "2D_ARRAY"), "{lines:?}");
    assert!(has("image_load ", "3D"), "{lines:?}");
    assert!(has("image_store dmask:0xf", "3D"), "{lines:?}");
    // LLVM narrows c's constant coordinates to 16-bit addresses (A16,
    // which gfxsim executes); id.x keeps d's load at 32 bits.
    assert!(
        lines
            .iter()
            .any(|l| l == "image_load dmask:0xf dim:SQ_RSRC_IMG_3D a16"),
        "{lines:?}"
    );
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("image_load") && l.ends_with("3D")),
        "{lines:?}"
    );

    let ep = &r.entry_points[0];
    let dims: Vec<_> = ep
        .bindings
        .iter()
        .map(|b| {
            (
                b.group,
                b.binding,
                b.kind,
                b.texture.unwrap().view_dimension,
            )
        })
        .collect();
    assert_eq!(
        dims,
        vec![
            (0, 0, BindingKind::StorageTexture, TextureViewDimension::D1),
            (
                0,
                1,
                BindingKind::StorageTexture,
                TextureViewDimension::D2Array
            ),
            (0, 2, BindingKind::StorageTexture, TextureViewDimension::D3),
            (1, 0, BindingKind::SampledTexture, TextureViewDimension::D3),
        ]
    );
    let access: Vec<_> = ep.bindings[..3]
        .iter()
        .map(|b| b.texture.unwrap().access.unwrap())
        .collect();
    assert_eq!(
        access,
        vec![
            StorageTextureAccess::ReadWrite,
            StorageTextureAccess::ReadOnly,
            StorageTextureAccess::ReadWrite
        ]
    );
    assert_eq!(
        ep.bindings[3].texture.unwrap().sample_type,
        Some(TextureSampleType::Uint)
    );
}

#[test]
fn queries_lower_to_get_resinfo() {
    if !llvm_or_skip("queries_lower_to_get_resinfo") {
        return;
    }
    let src = "
@group(0) @binding(0) var t: texture_2d_array<f32>;
@group(0) @binding(1) var v: texture_3d<i32>;
@group(0) @binding(2) var s: texture_storage_2d<r32float, write>;
@group(0) @binding(3) var<storage, read_write> o: array<u32>;
@compute @workgroup_size(1)
fn main() {
    let d = textureDimensions(t, 1u);
    o[0] = d.x;
    o[1] = d.y;
    o[2] = textureNumLayers(t);
    o[3] = textureNumLevels(t);
    let e = textureDimensions(v);
    o[4] = e.x + e.y + e.z;
    o[5] = textureDimensions(s).x;
}
";
    let (_, r, dis) = build(src);
    let lines = image_lines(&dis);
    let resinfo: Vec<_> = lines
        .iter()
        .filter(|l| l.starts_with("image_get_resinfo"))
        .collect();
    // Every level is a constant, so LLVM narrows each query's address to
    // 16 bits (A16).
    for want in [
        "image_get_resinfo dmask:0x3 dim:SQ_RSRC_IMG_2D_ARRAY a16",
        "image_get_resinfo dmask:0x4 dim:SQ_RSRC_IMG_2D_ARRAY a16",
        "image_get_resinfo dmask:0x8 dim:SQ_RSRC_IMG_2D_ARRAY a16",
        "image_get_resinfo dmask:0x7 dim:SQ_RSRC_IMG_3D a16",
        "image_get_resinfo dmask:0x1 dim:SQ_RSRC_IMG_2D a16",
    ] {
        assert!(resinfo.iter().any(|l| *l == want), "{want} in {lines:?}");
    }
    assert_eq!(r.entry_points[0].bindings.len(), 4);
    assert_eq!(r.entry_points[0].bindings[3].texture, None);
}

/// Multisampled textures: `textureLoad` with a sample index is an MSAA
/// image load whose fourth address is the sample, clamped to the
/// descriptor's sample count (1 << LAST_LEVEL, T# dword 3 bits 19:16),
/// which `textureNumSamples` returns; the reflection marks the binding.
#[test]
fn multisampled_loads_lower_to_msaa_image_loads() {
    if !llvm_or_skip("multisampled_loads_lower_to_msaa_image_loads") {
        return;
    }
    let src = "
@group(0) @binding(0) var t: texture_multisampled_2d<u32>;
@group(0) @binding(1) var d: texture_depth_multisampled_2d;
@group(0) @binding(2) var<storage, read_write> o: array<u32>;
@group(0) @binding(3) var<storage, read> s: array<i32>;
@compute @workgroup_size(1)
fn main() {
    o[0] = textureLoad(t, vec2<i32>(s[0], s[1]), s[2]).x;
    o[1] = u32(textureLoad(d, vec2<i32>(s[0], s[1]), s[3]));
    o[2] = textureNumSamples(t);
    o[3] = textureDimensions(d).y;
}
";
    let (_, r, dis) = build(src);
    let lines = image_lines(&dis);
    for want in [
        "image_load dmask:0x1 dim:SQ_RSRC_IMG_2D_MSAA",
        "image_get_resinfo dmask:0x2 dim:SQ_RSRC_IMG_2D_MSAA a16",
    ] {
        assert!(lines.iter().any(|l| l == want), "{want} in {lines:?}");
    }
    assert_eq!(
        lines.iter().filter(|l| l.starts_with("image_load")).count(),
        2,
        "{lines:?}"
    );
    // The count: one shift of 1 by the descriptor's LAST_LEVEL field, and
    // the clamp of each sample index below it.
    assert!(
        dis.contains("s_bfe_u32") || dis.contains("s_lshr_b32"),
        "{dis}"
    );
    assert!(dis.contains("s_lshl_b32") && dis.contains(", 1, "), "{dis}");
    assert!(
        dis.contains("v_min_u32") || dis.contains("s_min_u32"),
        "{dis}"
    );
    let bindings = &r.entry_points[0].bindings;
    for b in &bindings[..2] {
        let texture = b.texture.as_ref().expect("a texture binding");
        assert!(texture.multisampled, "{b:?}");
    }
}

/// A texture passed to a helper function and a texture global a helper
/// reads both reach the image instruction as the kernel's descriptor.
#[test]
fn textures_reach_helper_functions() {
    if !llvm_or_skip("textures_reach_helper_functions") {
        return;
    }
    let src = "
@group(0) @binding(0) var src: texture_2d<i32>;
@group(0) @binding(1) var dst: texture_storage_2d<rg32sint, write>;
fn fetch(t: texture_2d<i32>, p: vec2<u32>) -> vec4<i32> { return textureLoad(t, p, 0); }
fn put(p: vec2<u32>, v: vec4<i32>) { textureStore(dst, p, v); }
@compute @workgroup_size(1)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    put(id.xy, fetch(src, id.xy) * 2);
}
";
    let (_, _, dis) = build(src);
    let lines = image_lines(&dis);
    assert!(
        lines.iter().any(|l| l.starts_with("image_load")),
        "{lines:?}"
    );
    assert!(
        lines
            .iter()
            .any(|l| l == "image_store dmask:0x3 dim:SQ_RSRC_IMG_2D"),
        "{lines:?}"
    );
}

/// Translation alone (no LLVM) gives the IR intrinsics, so the lowering
/// is checked where LLVM is not installed too.
#[test]
fn ir_names_the_image_intrinsics() {
    let t = translate(Source::Wgsl(COPY_2D), &gfx1100()).unwrap();
    assert!(
        t.llvm_ir
            .contains("define amdgpu_kernel void @\"main\"(<8 x i32> %g0_b0, <8 x i32> %g0_b1)"),
        "{}",
        t.llvm_ir
    );
    assert!(
        t.llvm_ir
            .contains("call <4 x float> @llvm.amdgcn.image.load.mip.2d.v4f32.i32(i32 15,"),
        "{}",
        t.llvm_ir
    );
    assert!(
        t.llvm_ir
            .contains("@llvm.amdgcn.image.store.2d.v4f32.i32(<4 x float>"),
        "{}",
        t.llvm_ir
    );
}

const SAMPLING: &str = "
@group(0) @binding(0) var color: texture_2d<f32>;
@group(0) @binding(1) var depth: texture_depth_2d_array;
@group(0) @binding(2) var lin: sampler;
@group(0) @binding(3) var cmp: sampler_comparison;
@group(0) @binding(4) var<storage, read_write> out: array<vec4<f32>>;
@compute @workgroup_size(32)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    let uv = vec2<f32>(f32(id.x) / 32.0, 0.25);
    let a = textureSampleLevel(color, lin, uv, f32(id.y));
    let b = textureSampleCompareLevel(depth, cmp, uv, 1, 0.5);
    let c = textureGather(1, color, lin, uv);
    let d = textureGatherCompare(depth, cmp, uv, 2u, 0.25);
    out[id.x] = a + c + d + vec4<f32>(b);
}
";

/// The explicit-LOD sampling builtins lower to the sample/gather
/// instructions with the sampler as a 16-byte argument, and reflection
/// names each sampler, whether it compares and the textures it samples.
#[test]
fn sampling_lowers_to_sample_and_gather_instructions() {
    if !llvm_or_skip("sampling_lowers") {
        return;
    }
    let (co, r, dis) = build(SAMPLING);
    let lines = image_lines(&dis);
    for want in [
        "image_sample_l dmask:0xf dim:SQ_RSRC_IMG_2D",
        "image_sample_c_lz dmask:0x1 dim:SQ_RSRC_IMG_2D_ARRAY",
        "image_gather4_lz dmask:0x2 dim:SQ_RSRC_IMG_2D",
        "image_gather4_c_lz dmask:0x1 dim:SQ_RSRC_IMG_2D_ARRAY",
    ] {
        assert!(lines.iter().any(|l| l == want), "{want}: {lines:?}");
    }
    let ep = r.entry_point("main").unwrap();
    let kinds: Vec<_> = ep.bindings.iter().map(|b| b.kind).collect();
    assert_eq!(
        kinds,
        [
            BindingKind::SampledTexture,
            BindingKind::SampledTexture,
            BindingKind::Sampler,
            BindingKind::Sampler,
            BindingKind::StorageReadWrite,
        ]
    );
    assert_eq!(
        ep.bindings[1].texture.unwrap().sample_type,
        Some(TextureSampleType::Depth)
    );
    let lin = ep.bindings[2].sampler.clone().unwrap();
    assert!(!lin.comparison);
    assert_eq!(lin.textures, [[0, 0]]);
    let cmp = ep.bindings[3].sampler.clone().unwrap();
    assert!(cmp.comparison);
    assert_eq!(cmp.textures, [[0, 1]]);
    let object = CodeObject::parse(&co).expect("code object");
    let kernel = object.kernel("main").expect("kernel main");
    let args: Vec<_> = kernel.explicit_args().collect();
    for (arg, b) in args[2..4].iter().zip(&ep.bindings[2..4]) {
        assert_eq!(arg.name.as_deref(), Some(b.arg.as_str()));
        assert_eq!(arg.value_kind, ValueKind::ByValue);
        assert_eq!((arg.size, arg.offset % 16), (16, 0));
    }
    let json = r.to_json().unwrap();
    assert!(json.contains("\"kind\": \"sampler\""), "{json}");
    assert!(json.contains("\"sample_type\": \"depth\""), "{json}");
    assert_eq!(Reflection::from_json(&json).unwrap(), r);
}

/// The IR names the intrinsics with f32 operands: the depth reference
/// first, the layer converted from its integer.
#[test]
fn sampling_ir_orders_the_operands() {
    let t = translate(Source::Wgsl(SAMPLING), &gfx1100()).unwrap();
    let ir = &t.llvm_ir;
    assert!(
        ir.contains("@llvm.amdgcn.image.sample.l.2d.v4f32.f32(i32 15, float"),
        "{ir}"
    );
    assert!(
        ir.contains("@llvm.amdgcn.image.sample.c.lz.2darray.f32.f32(i32 1, float "),
        "{ir}"
    );
    assert!(
        ir.contains("@llvm.amdgcn.image.gather4.lz.2d.v4f32.f32(i32 2, float"),
        "{ir}"
    );
    assert!(ir.contains("sitofp i32"), "{ir}");
    assert!(ir.contains("uitofp i32"), "{ir}");
    assert!(ir.contains("<4 x i32> %g0_b2"), "{ir}");
}

const OFFSETS_AND_GRADIENTS: &str = "
@group(0) @binding(0) var t: texture_2d<f32>;
@group(0) @binding(1) var ta: texture_2d_array<f32>;
@group(0) @binding(2) var t3: texture_3d<f32>;
@group(0) @binding(3) var d: texture_depth_2d;
@group(0) @binding(4) var s: sampler;
@group(0) @binding(5) var c: sampler_comparison;
@group(0) @binding(6) var<storage, read_write> o: array<vec4<f32>>;
@group(0) @binding(7) var tc: texture_cube_array<f32>;
@compute @workgroup_size(1)
fn main() {
    let p = vec2<f32>(o[0].x, o[0].y);
    o[1] = textureSampleLevel(t, s, p, o[0].z, vec2<i32>(-8, 7));
    o[2] = textureGather(1, ta, s, p, 2u, vec2<i32>(3, -1));
    o[3] = vec4<f32>(textureSampleCompareLevel(d, c, p, 0.5, vec2<i32>(1, 2)));
    o[4] = textureGatherCompare(d, c, p, 0.5, vec2<i32>(-2, 0));
    o[5] = textureSampleGrad(t, s, p, o[1].xy, o[2].xy);
    o[6] = textureSampleGrad(t3, s, o[0].xyz, o[1].xyz, o[2].xyz, vec3<i32>(1, -3, 5));
    o[7] = textureSampleBaseClampToEdge(t, s, p);
    o[8] = textureSampleGrad(tc, s, o[0].xyz, 1, o[1].xyz, o[2].xyz);
}
";

/// The offset forms lower to the `_o` instructions with the packed offset
/// dword (6 bits per coordinate), gradients to `image_sample_d(_o)` and
/// `textureSampleBaseClampToEdge` to a size query and `image_sample_lz`;
/// cube gradients become face derivatives (`v_cube*` selections).
#[test]
fn offsets_and_gradients_lower_to_their_instructions() {
    let t = translate(Source::Wgsl(OFFSETS_AND_GRADIENTS), &gfx1100()).unwrap();
    let ir = &t.llvm_ir;
    for want in [
        "@llvm.amdgcn.image.sample.l.o.2d.v4f32.f32(i32 15, i32 ",
        "@llvm.amdgcn.image.gather4.lz.o.2darray.v4f32.f32(i32 2, i32 ",
        "@llvm.amdgcn.image.sample.c.lz.o.2d.f32.f32(i32 1, i32 ",
        "@llvm.amdgcn.image.gather4.c.lz.o.2d.v4f32.f32(i32 1, i32 ",
        "@llvm.amdgcn.image.sample.d.2d.v4f32.f32.f32(i32 15, float ",
        "@llvm.amdgcn.image.sample.d.o.3d.v4f32.f32.f32(i32 15, i32 ",
        "@llvm.amdgcn.image.getresinfo.2d.v2f32.i32(i32 3, i32 0",
        "@llvm.amdgcn.image.sample.d.cube.v4f32.f32.f32(i32 15, float ",
    ] {
        assert!(ir.contains(want), "{want}\n{ir}");
    }
    if !llvm_or_skip("offsets_and_gradients") {
        return;
    }
    let (_, _, dis) = build(OFFSETS_AND_GRADIENTS);
    let lines = image_lines(&dis);
    for want in [
        "image_sample_l_o dmask:0xf dim:SQ_RSRC_IMG_2D",
        "image_gather4_lz_o dmask:0x2 dim:SQ_RSRC_IMG_2D_ARRAY",
        "image_sample_c_lz_o dmask:0x1 dim:SQ_RSRC_IMG_2D",
        "image_gather4_c_lz_o dmask:0x1 dim:SQ_RSRC_IMG_2D",
        "image_sample_d dmask:0xf dim:SQ_RSRC_IMG_2D",
        "image_sample_d_o dmask:0xf dim:SQ_RSRC_IMG_3D",
        "image_sample_lz dmask:0xf dim:SQ_RSRC_IMG_2D",
        "image_sample_d dmask:0xf dim:SQ_RSRC_IMG_CUBE",
    ] {
        assert!(lines.iter().any(|l| l == want), "{want}: {lines:?}");
    }
    // The offsets fold to their packed dwords: (-8, 7) is 0x738 and
    // (1, -3, 5) is 0x53d01.
    for packed in ["0x738", "0x53d01"] {
        assert!(dis.contains(packed), "{packed}\n{dis}");
    }
}

const ATOMICS: &str = "
@group(0) @binding(0) var u: texture_storage_2d<r32uint, atomic>;
@group(0) @binding(1) var s: texture_storage_2d_array<r32sint, atomic>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    let p = vec2<u32>(id.x % 4u, id.x / 4u);
    textureAtomicAdd(u, p, 1u);
    textureAtomicMin(u, p, id.x);
    textureAtomicMax(s, p, 2u, i32(id.x) - 7);
    textureAtomicXor(s, p, 1u, 5);
}
";

/// WGSL texture atomics lower to gfx11 image atomics (unsigned or signed
/// min/max after the format; one data dword; LLVM 19 sets GLC even though
/// the pre-op value it returns goes unused), reflect as `atomic` access,
/// and are refused for GFX9 targets (as every texture is).
#[test]
fn texture_atomics_lower_to_image_atomics() {
    if !llvm_or_skip("texture_atomics_lower_to_image_atomics") {
        return;
    }
    let (_, r, dis) = build(ATOMICS);
    let lines = image_lines(&dis);
    for want in [
        "image_atomic_add dmask:0x1 dim:SQ_RSRC_IMG_2D",
        "image_atomic_umin dmask:0x1 dim:SQ_RSRC_IMG_2D",
        "image_atomic_smax dmask:0x1 dim:SQ_RSRC_IMG_2D_ARRAY",
        "image_atomic_xor dmask:0x1 dim:SQ_RSRC_IMG_2D_ARRAY",
    ] {
        assert!(lines.iter().any(|l| l == want), "{want}: {lines:?}");
    }
    assert!(
        dis.lines()
            .filter(|l| l.contains("image_atomic"))
            .all(|l| l.contains(" glc")),
        "{dis}"
    );
    let ep = r.entry_point("main").unwrap();
    for b in &ep.bindings {
        assert_eq!(
            b.texture.unwrap().access,
            Some(StorageTextureAccess::Atomic)
        );
    }
    for target in ["gfx942", "gfx90a"] {
        let options = Options {
            targets: vec![target.into()],
            ..gfx1100()
        };
        match translate(Source::Wgsl(ATOMICS), &options) {
            Err(aqueduct_shaderc::CompileError::Unsupported {
                kind, construct, ..
            }) => {
                assert_eq!(kind, aqueduct_shaderc::UnsupportedKind::TargetTextures);
                assert_eq!(construct, format!("textures on {target}"));
            }
            other => panic!("{target}: {:?}", other.map(|t| t.reflection)),
        }
    }
}

/// Every texture binding is refused for the GFX9 targets with a typed
/// error naming the target and the binding (sampled, storage, queries
/// alone), while the same shader translates for gfx1100 and a shader
/// without textures translates for GFX9.
#[test]
fn textures_are_refused_for_gfx9_targets() {
    const QUERY_ONLY: &str = "
@group(1) @binding(3) var t: texture_3d<u32>;
@group(0) @binding(0) var<storage, read_write> out: array<u32>;
@compute @workgroup_size(1)
fn main() { out[0] = textureDimensions(t).x; }
";
    const NO_TEXTURE: &str = "
@group(0) @binding(0) var<storage, read_write> out: array<u32>;
@compute @workgroup_size(1)
fn main() { out[0] = 1u; }
";
    for (src, at) in [
        (COPY_2D, "@group(0) @binding(0)"),
        (QUERY_ONLY, "@group(1) @binding(3)"),
    ] {
        assert!(translate(Source::Wgsl(src), &gfx1100()).is_ok());
        for target in ["gfx942", "gfx90a"] {
            let options = Options {
                targets: vec![target.into()],
                ..gfx1100()
            };
            match translate(Source::Wgsl(src), &options) {
                Err(e @ aqueduct_shaderc::CompileError::Unsupported { .. }) => {
                    let text = e.to_string();
                    let aqueduct_shaderc::CompileError::Unsupported {
                        kind, construct, ..
                    } = e
                    else {
                        unreachable!()
                    };
                    assert_eq!(kind, aqueduct_shaderc::UnsupportedKind::TargetTextures);
                    assert_eq!(construct, format!("textures on {target}"));
                    assert!(text.contains(at), "{text}");
                }
                other => panic!("{target}: {:?}", other.map(|t| t.reflection)),
            }
            assert!(translate(Source::Wgsl(NO_TEXTURE), &options).is_ok());
        }
    }
}
