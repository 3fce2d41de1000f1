//! WGSL at the edges of the emitter (shift amounts, matrix and frexp
//! conversions, f64 transcendentals, wide subgroup values, other stages'
//! code in the module): each shader is valid IR for clang, runs on gfxsim
//! and matches the host; what the compiler does not lower fails with an
//! error naming the class of the construct.

use aqueduct_shaderc::{
    CompileError, Options, Source, Toolchain, UnsupportedKind, compile, translate,
};
use aqueduct_test_harness::shaderc::*;

fn llvm_or_skip(what: &str) -> bool {
    let found = Toolchain::available();
    if !found {
        eprintln!("{what}: skipped (clang-19 / ld.lld-19 not installed)");
    }
    found
}

fn options(entry: Option<&str>) -> Options {
    Options {
        file_name: "coverage.wgsl".into(),
        entry: entry.map(String::from),
        ..Options::default()
    }
}

/// Compile `src` (entry point `entry`) and run it over `groups` workgroups.
fn compile_and_run(src: &str, entry: &str, bindings: &[Binding], groups: u32) -> Vec<Vec<u8>> {
    let compiled = compile(Source::Wgsl(src), &options(None))
        .unwrap_or_else(|e| panic!("does not compile:\n{e}"));
    run_code_object(
        &compiled.code_object,
        &compiled.reflection,
        entry,
        bindings,
        [groups, 1, 1],
    )
    .unwrap_or_else(|e| panic!("does not run: {e}"))
}

fn translate_err(src: &str, entry: Option<&str>) -> CompileError {
    translate(Source::Wgsl(src), &options(entry)).expect_err("must not compile")
}

/// Shift amounts at or past the bit width are taken modulo the width, as
/// WGSL defines, for scalars and vectors of 32 and 64 bits.
#[test]
fn shifts_take_the_amount_modulo_the_width() {
    if !llvm_or_skip("shifts") {
        return;
    }
    let src = "
@group(0) @binding(0) var<storage, read> amount: array<u32>;
@group(0) @binding(1) var<storage, read_write> u: array<vec2<u32>>;
@group(0) @binding(2) var<storage, read_write> s: array<i32>;
@group(0) @binding(3) var<storage, read_write> w: array<vec2<u64>>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    let k = id.x;
    let n = amount[k];
    u[k] = vec2<u32>(0x80000001u << n, 0x80000001u >> vec2<u32>(n + 1u).x);
    s[2u * k] = -0x40000000i >> n;
    s[2u * k + 1u] = 3i << (n + 7u);
    w[k] = vec2<u64>(0x8000000000000001lu, 3lu) << vec2<u32>(n, n + 64u);
}
";
    let amounts: Vec<u32> = (0..64).map(|k| k * 3 + k / 7).collect();
    let out = compile_and_run(
        src,
        "main",
        &[
            (0, 0, bytes_of(&amounts)),
            (0, 1, vec![0; 64 * 8]),
            (0, 2, vec![0; 64 * 8]),
            (0, 3, vec![0; 64 * 16]),
        ],
        1,
    );
    let u = u32s(&out[1]);
    let s = i32s(&out[2]);
    let w: Vec<u64> = out[3]
        .chunks_exact(8)
        .map(|c| u64::from_le_bytes(c.try_into().unwrap()))
        .collect();
    for (k, &n) in amounts.iter().enumerate() {
        assert_eq!(u[2 * k], 0x8000_0001u32.wrapping_shl(n), "u32 << {n}");
        assert_eq!(
            u[2 * k + 1],
            0x8000_0001u32.wrapping_shr(n + 1),
            "u32 >> {}",
            n + 1
        );
        assert_eq!(s[2 * k], (-0x4000_0000i32).wrapping_shr(n), "i32 >> {n}");
        assert_eq!(s[2 * k + 1], 3i32.wrapping_shl(n + 7), "i32 << {}", n + 7);
        assert_eq!(
            w[2 * k],
            0x8000_0000_0000_0001u64.wrapping_shl(n),
            "u64 << {n}"
        );
        assert_eq!(w[2 * k + 1], 3u64.wrapping_shl(n + 64), "u64 << {}", n + 64);
    }
}

/// Matrix conversions run column by column (LLVM's casts take no
/// aggregates, so `mat2x2<f16>(m)` cannot be one fptrunc).
#[test]
fn matrix_conversions_between_f32_and_f16() {
    if !llvm_or_skip("matrix conversions") {
        return;
    }
    let src = "
enable f16;
@group(0) @binding(0) var<storage, read_write> o: array<f32>;

@compute @workgroup_size(16)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    let x = f32(id.x) * 0.75;
    let m = mat3x2<f16>(mat3x2<f32>(x, 1.0 / 3.0, -x, 2.5, 65504.0, x * 0.5));
    let back = mat3x2<f32>(m);
    for (var c = 0u; c < 3u; c++) {
        o[id.x * 6u + 2u * c] = back[c].x;
        o[id.x * 6u + 2u * c + 1u] = back[c].y;
    }
}
";
    let out = compile_and_run(src, "main", &[(0, 0, vec![0; 16 * 24])], 1);
    let got = f32s(&out[0]);
    let h = |v: f32| half::f16::from_f32(v).to_f32();
    for k in 0..16 {
        let x = k as f32 * 0.75;
        let want = [x, 1.0 / 3.0, -x, 2.5, 65504.0, x * 0.5].map(h);
        assert_eq!(got[k * 6..k * 6 + 6], want, "invocation {k}");
    }
}

/// A helper only a fragment entry point calls may use derivatives: the
/// compute kernels of the module compile and run.
#[test]
fn fragment_only_helpers_do_not_stop_compute_entry_points() {
    if !llvm_or_skip("fragment helpers") {
        return;
    }
    let src = "
@group(0) @binding(0) var<storage, read_write> o: array<f32>;

fn shade(x: f32) -> f32 {
    return dpdx(x) + fwidth(x);
}

fn twice(x: f32) -> f32 {
    return 2.0 * x;
}

@fragment
fn fs(@location(0) x: f32) -> @location(0) vec4<f32> {
    return vec4<f32>(shade(x) + dpdy(x));
}

@compute @workgroup_size(8)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    o[id.x] = twice(o[id.x]) + 1.0;
}
";
    let input: Vec<f32> = (0..8).map(|k| k as f32 * 1.5).collect();
    let out = compile_and_run(src, "main", &[(0, 0, bytes_of(&input))], 1);
    let want: Vec<f32> = input.iter().map(|v| 2.0 * v + 1.0).collect();
    assert_eq!(f32s(&out[0]), want);
    // The fragment helper still fails where a compute entry point calls it.
    let e = translate_err(
        &src.replace("twice(o[id.x])", "shade(o[id.x])"),
        Some("main"),
    );
    assert!(
        matches!(e, CompileError::Validation { .. }),
        "derivatives in a compute entry point: {e}"
    );
}

/// Overrides only other stages' entry points use need no value when the
/// module's compute entry points are compiled; one a compute entry point
/// uses still does, unless another entry point is chosen.
#[test]
fn overrides_of_other_entry_points_need_no_value() {
    let fragment_only = "
override scale: f32;
override bias: f32 = 1.0;
@group(0) @binding(0) var<storage, read_write> o: array<f32>;
@compute @workgroup_size(1) fn main() { o[0] = bias; }
@fragment fn fs() -> @location(0) vec4<f32> { return vec4<f32>(scale); }
";
    let t = translate(Source::Wgsl(fragment_only), &options(None))
        .unwrap_or_else(|e| panic!("an override of a fragment entry point blocks: {e}"));
    assert_eq!(t.reflection.entry_points.len(), 1);

    let other_compute =
        format!("{fragment_only}@compute @workgroup_size(1) fn other() {{ o[1] = scale; }}\n");
    let e = translate_err(&other_compute, None);
    assert!(matches!(e, CompileError::Override { .. }), "{e}");
    let t = translate(Source::Wgsl(&other_compute), &options(Some("main")))
        .unwrap_or_else(|e| panic!("`main` does not use `scale`: {e}"));
    assert_eq!(t.reflection.entry_points[0].name, "main");
}

/// What the compiler does not lower fails with the class of the construct
/// and its name, located in the source.
#[test]
fn unsupported_constructs_are_named_by_class() {
    let cases: [(&str, UnsupportedKind, &str); 5] = [
        (
            // An acceleration structure reaching a helper as an argument is
            // refused by its type, still as a ray query construct.
            "enable wgpu_ray_query;
fn hit(a: acceleration_structure, d: vec3<f32>) -> u32 {
    var rq: ray_query;
    rayQueryInitialize(&rq, a, RayDesc(0u, 0xFFu, 0.1, 10.0, vec3<f32>(0.0), d));
    return u32(rayQueryProceed(&rq));
}
@group(0) @binding(0) var acc: acceleration_structure;
@group(0) @binding(1) var<storage, read_write> o: array<u32>;
@compute @workgroup_size(1) fn main() { o[0] = hit(acc, vec3<f32>(0.0, 0.0, 1.0)); }",
            UnsupportedKind::RayQueries,
            "acceleration structure",
        ),
        (
            "enable wgpu_ray_query;
@group(0) @binding(0) var acc: acceleration_structure;
@group(0) @binding(1) var<storage, read_write> o: array<u32>;
@compute @workgroup_size(1) fn main() {
    var rq: ray_query;
    rayQueryInitialize(&rq, acc, RayDesc(0u, 0xFFu, 0.1, 100.0, vec3<f32>(0.0), vec3<f32>(0.0, 0.0, 1.0)));
    o[0] = u32(rayQueryProceed(&rq));
}",
            UnsupportedKind::RayQueries,
            "ray queries",
        ),
        (
            "@group(0) @binding(0) var t: texture_external;
@group(0) @binding(1) var<storage, read_write> o: array<f32>;
@compute @workgroup_size(1) fn main() { o[0] = textureLoad(t, vec2<i32>(0, 0)).x; }",
            UnsupportedKind::TextureClass,
            "external textures",
        ),
        (
            "@group(0) @binding(0) var<storage, read_write> o: array<u32>;
@compute @workgroup_size(2048) fn main() { o[0] = 1u; }",
            UnsupportedKind::WorkgroupSize,
            "workgroup size",
        ),
        (
            "enable wgpu_binding_array;
@group(0) @binding(0) var ts: binding_array<texture_2d<f32>, 4>;
@group(0) @binding(1) var<storage, read_write> o: array<f32>;
@compute @workgroup_size(1) fn main() { o[0] = textureLoad(ts[1], vec2<i32>(0, 0), 0).x; }",
            UnsupportedKind::BindingArrays,
            "binding arrays of textures",
        ),
    ];
    for (src, want, name) in cases {
        match translate_err(src, None) {
            CompileError::Unsupported {
                kind,
                construct,
                location,
                rendered,
            } => {
                assert_eq!(kind, want, "{rendered}");
                assert!(construct.contains(name), "{construct} for {want:?}");
                assert!(
                    location
                        .as_deref()
                        .is_some_and(|l| l.starts_with("coverage.wgsl:")),
                    "{location:?}"
                );
            }
            other => panic!("expected Unsupported {want:?}, got {other:?}"),
        }
    }
}

/// Distance in units in the last place between two f64 values (0 when
/// both are the same NaN-or-not value, u64::MAX when one is NaN).
fn ulps(a: f64, b: f64) -> u64 {
    if a == b || (a.is_nan() && b.is_nan()) {
        return 0;
    }
    if a.is_nan() || b.is_nan() {
        return u64::MAX;
    }
    // Map the bits onto a line ordered like the values.
    let key = |x: f64| {
        let bits = x.to_bits() as i64;
        if bits < 0 { i64::MIN - bits } else { bits }
    };
    key(a).abs_diff(key(b))
}

/// f64 transcendentals run in software (the GPU has no instruction for
/// them): each against the host's f64 over 4096 arguments, within the
/// bounds emit/f64math.rs documents; the functions built from them within
/// the error their formula inherits.
#[test]
fn f64_transcendentals_match_the_host() {
    if !llvm_or_skip("f64 transcendentals") {
        return;
    }
    const N: usize = 4096;
    let src = "
@group(0) @binding(0) var<storage, read> x: array<f64>;
@group(0) @binding(1) var<storage, read> y: array<f64>;
@group(0) @binding(2) var<storage, read_write> o: array<f64>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    let k = id.x;
    let a = x[k];
    let b = y[k];
    let n = arrayLength(&x);
    o[k] = exp(a * 0.1lf);
    o[n + k] = exp2(a * 0.15lf);
    o[2u * n + k] = log(b);
    o[3u * n + k] = log2(b);
    let t = vec2<f64>(a, a * 1e-5lf);
    let s = sin(t);
    let c = cos(t);
    let tn = tan(t);
    o[4u * n + k] = s.x;
    o[5u * n + k] = c.x;
    o[6u * n + k] = tn.x;
    o[7u * n + k] = s.y;
    o[8u * n + k] = c.y;
    o[9u * n + k] = tn.y;
    o[10u * n + k] = atan(a * 1e-3lf);
    o[11u * n + k] = sinh(a * 1e-3lf);
    o[12u * n + k] = pow(b, a * 1e-3lf);
    o[13u * n + k] = asin(a * 1e-4lf);
    o[14u * n + k] = atan2(a, b - 1.0lf);
}
";
    let mut rng = Rng::new(0xf64);
    // x over +-7000 (exp's argument +-700, sin's), y positive over 2^+-1000
    // with a share near 1.
    let x: Vec<f64> = (0..N).map(|_| rng.f64(-7000.0, 7000.0)).collect();
    let y: Vec<f64> = (0..N)
        .map(|i| {
            if i % 4 == 0 {
                1.0 + rng.f64(-0.1, 0.1)
            } else {
                rng.f64(-1000.0, 1000.0).exp2()
            }
        })
        .collect();
    let out = compile_and_run(
        src,
        "main",
        &[
            (0, 0, bytes_of(&x)),
            (0, 1, bytes_of(&y)),
            (0, 2, vec![0; N * 8 * 15]),
        ],
        (N / 64) as u32,
    );
    let got: Vec<f64> = out[2]
        .chunks_exact(8)
        .map(|c| f64::from_le_bytes(c.try_into().unwrap()))
        .collect();
    type Host = fn(f64, f64) -> f64;
    let checks: [(&str, Host, u64); 11] = [
        ("exp", |a, _| (a * 0.1).exp(), 2),
        ("exp2", |a, _| (a * 0.15).exp2(), 2),
        ("log", |_, b| b.ln(), 2),
        ("log2", |_, b| b.log2(), 2),
        ("sin", |a, _| a.sin(), 2),
        ("cos", |a, _| a.cos(), 2),
        ("tan", |a, _| a.tan(), 4),
        ("sin small", |a, _| (a * 1e-5).sin(), 2),
        ("cos small", |a, _| (a * 1e-5).cos(), 2),
        ("tan small", |a, _| (a * 1e-5).tan(), 4),
        ("atan", |a, _| (a * 1e-3).atan(), 2),
    ];
    for (f, (name, host, bound)) in checks.iter().enumerate() {
        let mut worst = (0u64, 0.0, 0.0, 0.0);
        for k in 0..N {
            let want = host(x[k], y[k]);
            let have = got[f * N + k];
            let e = ulps(have, want);
            if e > worst.0 {
                worst = (e, x[k], have, want);
            }
        }
        eprintln!("{name}: at most {} ulp", worst.0);
        assert!(
            worst.0 <= *bound,
            "{name}: {} ulp at x = {}: {} vs the host's {}",
            worst.0,
            worst.1,
            worst.2,
            worst.3
        );
    }
    // Built from the functions above, as the f32 versions are.
    let inherited: [(&str, Host); 4] = [
        ("sinh", |a, _| (a * 1e-3).sinh()),
        ("pow", |a, b| b.powf(a * 1e-3)),
        ("asin", |a, _| (a * 1e-4).asin()),
        ("atan2", |a, b| a.atan2(b - 1.0)),
    ];
    for (f, (name, host)) in inherited.iter().enumerate() {
        for k in 0..N {
            let want = host(x[k], y[k]);
            let have = got[(11 + f) * N + k];
            let tolerance = want.abs() * 1e-12 + 1e-15;
            assert!(
                have == want || (have - want).abs() <= tolerance,
                "{name} at ({}, {}): {have} vs the host's {want}",
                x[k],
                y[k]
            );
        }
    }
    // Special values.
    let specials = "
@group(0) @binding(0) var<storage, read_write> o: array<f64>;
@compute @workgroup_size(1)
fn main() {
    let zero = o[0];
    let inf = 1.0lf / zero;
    o[1] = log(zero);
    o[2] = log(-1.0lf - zero);
    o[3] = exp(inf);
    o[4] = exp(-inf);
    o[5] = exp(800.0lf + zero);
    o[6] = log2(8.0lf + zero);
    o[7] = exp2(-1074.0lf + zero);
    o[8] = sin(inf);
    o[9] = log(inf);
}
";
    let out = compile_and_run(specials, "main", &[(0, 0, vec![0; 80])], 1);
    let s: Vec<f64> = out[0]
        .chunks_exact(8)
        .map(|c| f64::from_le_bytes(c.try_into().unwrap()))
        .collect();
    assert_eq!(s[1], f64::NEG_INFINITY, "log 0");
    assert!(s[2].is_nan(), "log -1: {}", s[2]);
    assert_eq!(s[3], f64::INFINITY, "exp inf");
    assert_eq!(s[4], 0.0, "exp -inf");
    assert_eq!(s[5], f64::INFINITY, "exp 800");
    assert_eq!(s[6], 3.0, "log2 8");
    assert_eq!(s[7], f64::from_bits(1), "exp2 -1074");
    assert!(s[8].is_nan(), "sin inf: {}", s[8]);
    assert_eq!(s[9], f64::INFINITY, "log inf");
}

/// The command line allows every capability unless told otherwise: with
/// `--capabilities` a shader needing one more fails and names it.
#[test]
fn cli_capabilities_restrict_the_validator() {
    let exe = env!("CARGO_BIN_EXE_aqueduct-shaderc");
    let dir = std::env::temp_dir().join(format!("aqueduct-shaderc-caps-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let src = dir.join("half.wgsl");
    std::fs::write(
        &src,
        "enable f16;\n@group(0) @binding(0) var<storage, read_write> o: array<f16>;\n\
         @compute @workgroup_size(1)\nfn main() { o[0] = 1.5h; }\n",
    )
    .unwrap();
    let run = |caps: Option<&str>| {
        let mut cmd = std::process::Command::new(exe);
        cmd.arg("compile").arg(&src).arg("--emit-llvm");
        if let Some(caps) = caps {
            cmd.args(["--capabilities", caps]);
        }
        cmd.output().unwrap()
    };
    assert!(run(None).status.success(), "permissive by default");
    assert!(run(Some("SHADER_FLOAT16")).status.success());
    let refused = run(Some("SHADER_INT64,SUBGROUP"));
    assert_eq!(refused.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(stderr.contains("SHADER_FLOAT16"), "{stderr}");
    let bad = run(Some("NOT_A_CAPABILITY"));
    assert_eq!(bad.status.code(), Some(2));
    let _ = std::fs::remove_dir_all(&dir);

    // The library's typed error lists what is missing.
    let options = Options {
        capabilities: aqueduct_shaderc::Capabilities::SHADER_INT64,
        ..options(None)
    };
    match translate(
        Source::Wgsl(
            "enable f16;\n@group(0) @binding(0) var<storage, read_write> o: array<f16>;\n@compute @workgroup_size(1)\nfn main() { o[0] = 1.5h; }\n",
        ),
        &options,
    ) {
        Err(CompileError::MissingCapabilities { missing, .. }) => {
            assert_eq!(missing, aqueduct_shaderc::Capabilities::SHADER_FLOAT16);
        }
        other => panic!("expected MissingCapabilities, got {other:?}"),
    }
}

/// frexp of f64 (naga's exponent is i64, LLVM's i32) and of f32 vectors,
/// ldexp back: the IR types agree and the results match the host.
#[test]
fn frexp_of_f64_and_vectors() {
    if !llvm_or_skip("frexp") {
        return;
    }
    let src = "
@group(0) @binding(0) var<storage, read> x: array<f64>;
@group(0) @binding(1) var<storage, read_write> fract: array<f64>;
@group(0) @binding(2) var<storage, read_write> exp: array<i32>;
@group(0) @binding(3) var<storage, read_write> back: array<vec2<f32>>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    let k = id.x;
    let f = frexp(x[k]);
    fract[k] = f.fract;
    exp[k] = i32(f.exp);
    let v = frexp(vec2<f32>(f32(x[k]), 3.0));
    back[k] = ldexp(v.fract, v.exp);
}
";
    let mut rng = Rng::new(77);
    let x: Vec<f64> = (0..64)
        .map(|i| {
            if i == 0 {
                0.0
            } else {
                rng.f64(-1.0, 1.0) * rng.f64(-300.0, 300.0).exp2()
            }
        })
        .collect();
    let out = compile_and_run(
        src,
        "main",
        &[
            (0, 0, bytes_of(&x)),
            (0, 1, vec![0; 64 * 8]),
            (0, 2, vec![0; 64 * 4]),
            (0, 3, vec![0; 64 * 8]),
        ],
        1,
    );
    let fract: Vec<f64> = out[1]
        .chunks_exact(8)
        .map(|c| f64::from_le_bytes(c.try_into().unwrap()))
        .collect();
    let exp = i32s(&out[2]);
    let back = f32s(&out[3]);
    for k in 0..64 {
        let v = x[k];
        if v == 0.0 {
            assert_eq!((fract[k], exp[k]), (0.0, 0), "frexp 0");
        } else {
            assert!(
                (0.5..1.0).contains(&fract[k].abs()),
                "fract of {v}: {}",
                fract[k]
            );
            assert_eq!(fract[k] * 2f64.powi(exp[k]), v, "frexp of {v}");
        }
        assert_eq!(
            [back[2 * k], back[2 * k + 1]],
            [v as f32, 3.0],
            "f32 round trip"
        );
    }
}

/// A shader using most of WGSL's builtins on f16, the same on f64, and
/// 64-bit integer builtins: each is valid IR for clang (a compile error
/// here is the emitter's bug, never the shader's).
#[test]
fn wide_and_narrow_types_through_every_builtin_compile() {
    if !llvm_or_skip("f16/f64/i64 builtins") {
        return;
    }
    const F16: &str = r#"enable f16;
struct S { a: f16, b: vec3<f16>, m: mat3x3<f16> }
@group(0) @binding(0) var<storage, read_write> s: array<S>;
@group(0) @binding(1) var<storage, read_write> o: array<f32>;
var<workgroup> w: array<vec2<f16>, 64>;
var<private> p: mat2x2<f16>;
@compute @workgroup_size(64) fn main(@builtin(local_invocation_index) li: u32) {
    let x = s[li].a;
    let v = s[li].b;
    let m = s[li].m;
    w[li] = vec2<f16>(x, -x);
    workgroupBarrier();
    let q = w[63u - li];
    p = mat2x2<f16>(q, q.yx);
    let mm = m * transpose(m);
    let d = determinant(mm) + determinant(p);
    let c = cross(v, v.zxy);
    let l = length(v) + distance(v, c) + dot(v, c);
    let n = normalize(v + vec3<f16>(1.0h));
    let t = sin(x) + cos(x) + tan(x * 0.1h) + exp(x * 0.01h) + log(abs(x) + 1.0h) + pow(abs(x) + 1.0h, 0.5h);
    let r = sqrt(abs(x)) + inverseSqrt(abs(x) + 1.0h) + fma(x, x, x) + step(x, 1.0h) + smoothstep(0.0h, 1.0h, x) + saturate(x);
    let mf = modf(x); let fe = frexp(x);
    let sel = select(x, -x, x > 0.0h);
    let mix1 = mix(v, c, vec3<f16>(0.5h));
    let cl = clamp(v, vec3<f16>(-1.0h), vec3<f16>(1.0h));
    let i = vec3<i32>(v) + vec3<i32>(vec3<u32>(abs(v)));
    let back = vec3<f16>(i) + vec3<f16>(vec3<f32>(v));
    let rounds = floor(x) + ceil(x) + round(x) + trunc(x) + fract(x) + sign(x);
    let fm = faceForward(v, c, n) + reflect(v, n) + refract(v, n, 0.5h);
    let ex = ldexp(x, 2) + mf.fract + mf.whole + fe.fract + f16(fe.exp);
    let de = degrees(x) + radians(x) + atan2(x, 1.0h) + asin(x * 0.01h) + acos(x*0.01h) + atan(x) + sinh(x*0.01h) + cosh(x*0.01h) + tanh(x) + asinh(x) + acosh(abs(x) + 1.0h) + atanh(x * 0.01h);
    s[li].m = mm * f16(d);
    s[li].b = mix1 + cl + back + fm + n;
    o[li] = f32(l + t + r + sel + rounds + ex + de) + f32(p[1].x);
}
"#;
    let f64_src = F16
        .replace("enable f16;", "")
        .replace("f16", "f64")
        .replace(".0h", ".0lf")
        .replace(".01h", ".01lf")
        .replace(".1h", ".1lf")
        .replace(".5h", ".5lf");
    const I64: &str = r#"@group(0) @binding(0) var<storage, read_write> a: array<vec3<i64>>;
@group(0) @binding(1) var<storage, read_write> b: array<vec2<u64>>;
var<workgroup> w: array<u64, 64>;
@compute @workgroup_size(64) fn main(@builtin(local_invocation_index) li: u32) {
    let x = a[li];
    let y = b[li];
    w[li] = y.x ^ y.y;
    workgroupBarrier();
    let z = w[63u - li];
    a[li] = abs(x) + min(x, -x) + max(x, x.zxy) + clamp(x, vec3(-5li), vec3(5li)) + sign(x) + (x / vec3(3li)) + (x % vec3(-7li)) + (x >> vec3<u32>(li)) + (x << vec3(u32(z & 63lu)));
    b[li] = vec2(countOneBits(z), countLeadingZeros(z)) + reverseBits(y) + firstLeadingBit(y) + firstTrailingBit(y) + extractBits(y, 3u, 20u) + insertBits(y, y.yx, 5u, 40u) + vec2<u64>(vec2<f32>(y)) + vec2<u64>(vec2<i32>(x.xy)) + select(y, y.yx, y.x > y.y) + ~y + (y * y.yx) / max(y.yx, vec2(1lu));
}
"#;
    for (name, src) in [
        ("f16", F16.to_string()),
        ("f64", f64_src),
        ("i64", I64.to_string()),
    ] {
        if let Err(e) = compile(Source::Wgsl(&src), &options(None)) {
            panic!("{name}: {e}");
        }
    }
}

/// Subgroup operations on 64-bit and f16 values (two 32-bit lanes per
/// value, or half lanes) match the host on wave32.
#[test]
fn subgroup_operations_on_wide_and_narrow_values() {
    if !llvm_or_skip("wide subgroup operations") {
        return;
    }
    let src = "
enable f16;
@group(0) @binding(0) var<storage, read> x: array<u64>;
@group(0) @binding(1) var<storage, read_write> u: array<u64>;
@group(0) @binding(2) var<storage, read_write> d: array<f64>;
@group(0) @binding(3) var<storage, read_write> h: array<vec2<f16>>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>, @builtin(subgroup_invocation_id) lane: u32) {
    let k = id.x;
    let v = x[k];
    u[3u * k] = subgroupAdd(v);
    u[3u * k + 1u] = subgroupMin(v);
    u[3u * k + 2u] = subgroupShuffle(v, lane ^ 5u) ^ subgroupExclusiveAdd(v >> 3u);
    let f = f64(bitcast<i64>(v)) * 1e-9lf;
    d[2u * k] = subgroupMax(f);
    d[2u * k + 1u] = subgroupBroadcast(f, 30u) + quadSwapY(f);
    h[k] = subgroupAdd(vec2<f16>(f16(lane), f16(k % 3u)));
}
";
    let mut rng = Rng::new(6432);
    let x: Vec<u64> = (0..64).map(|_| rng.u64()).collect();
    let out = compile_and_run(
        src,
        "main",
        &[
            (0, 0, bytes_of(&x)),
            (0, 1, vec![0; 64 * 24]),
            (0, 2, vec![0; 64 * 16]),
            (0, 3, vec![0; 64 * 4]),
        ],
        1,
    );
    let u: Vec<u64> = out[1]
        .chunks_exact(8)
        .map(|c| u64::from_le_bytes(c.try_into().unwrap()))
        .collect();
    let d: Vec<f64> = out[2]
        .chunks_exact(8)
        .map(|c| f64::from_le_bytes(c.try_into().unwrap()))
        .collect();
    let h: Vec<f32> = out[3]
        .chunks_exact(2)
        .map(|c| half::f16::from_le_bytes([c[0], c[1]]).to_f32())
        .collect();
    for k in 0..64 {
        let (base, lane) = (k / 32 * 32, k % 32);
        let w = &x[base..base + 32];
        let f: Vec<f64> = w.iter().map(|&v| v as i64 as f64 * 1e-9).collect();
        assert_eq!(
            u[3 * k],
            w.iter().fold(0u64, |s, &v| s.wrapping_add(v)),
            "add at {k}"
        );
        assert_eq!(u[3 * k + 1], *w.iter().min().unwrap(), "min at {k}");
        let scan = w[..lane].iter().fold(0u64, |s, &v| s.wrapping_add(v >> 3));
        assert_eq!(u[3 * k + 2], w[lane ^ 5] ^ scan, "shuffle/scan at {k}");
        assert_eq!(
            d[2 * k],
            f.iter().copied().fold(f64::MIN, f64::max),
            "max at {k}"
        );
        assert_eq!(d[2 * k + 1], f[30] + f[lane ^ 2], "broadcast/quad at {k}");
        let thirds: f32 = (base..base + 32).map(|i| (i % 3) as f32).sum();
        assert_eq!([h[2 * k], h[2 * k + 1]], [496.0, thirds], "f16 add at {k}");
    }
}

/// 16-bit integers (`enable wgpu_int16;`): shifts by u32 amounts take
/// the amount modulo 16 (the amount narrows, it cannot be zero-extended),
/// with storage, arithmetic and bit builtins, against the host.
#[test]
fn int16_shifts_and_arithmetic() {
    if !llvm_or_skip("int16") {
        return;
    }
    let src = "
enable wgpu_int16;
@group(0) @binding(0) var<storage, read> n: array<u32>;
@group(0) @binding(1) var<storage, read_write> a: array<i16>;
@group(0) @binding(2) var<storage, read_write> b: array<vec2<u16>>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    let k = id.x;
    let s = n[k];
    let x = a[k];
    let y = b[k];
    a[k] = (x >> s) + (x << (s + 3u)) * i16(3) - min(x, i16(-4));
    b[k] = (y << vec2<u32>(s, s + 17u))
        ^ ((y >> vec2<u32>(s + 1u)) + vec2<u16>(countOneBits(y.x), reverseBits(y.y)));
}
";
    let mut rng = Rng::new(16);
    let amounts: Vec<u32> = (0..64).map(|_| rng.u32() % 80).collect();
    let x: Vec<i16> = (0..64).map(|_| rng.u32() as i16).collect();
    let y: Vec<u16> = (0..128).map(|_| rng.u32() as u16).collect();
    let out = compile_and_run(
        src,
        "main",
        &[
            (0, 0, bytes_of(&amounts)),
            (0, 1, bytes_of(&x)),
            (0, 2, bytes_of(&y)),
        ],
        1,
    );
    let a: Vec<i16> = out[1]
        .chunks_exact(2)
        .map(|c| i16::from_le_bytes([c[0], c[1]]))
        .collect();
    let b: Vec<u16> = out[2]
        .chunks_exact(2)
        .map(|c| u16::from_le_bytes([c[0], c[1]]))
        .collect();
    for k in 0..64 {
        let (s, v) = (amounts[k], x[k]);
        let want = v
            .wrapping_shr(s)
            .wrapping_add(v.wrapping_shl(s + 3).wrapping_mul(3))
            .wrapping_sub(v.min(-4));
        assert_eq!(a[k], want, "i16 at {k} (shift {s})");
        let (y0, y1) = (y[2 * k], y[2 * k + 1]);
        let w0 = y0.wrapping_shl(s) ^ y0.wrapping_shr(s + 1).wrapping_add(y0.count_ones() as u16);
        let w1 = y1.wrapping_shl(s + 17) ^ y1.wrapping_shr(s + 1).wrapping_add(y1.reverse_bits());
        assert_eq!([b[2 * k], b[2 * k + 1]], [w0, w1], "u16 at {k} (shift {s})");
    }
}
