//! Compiler-side tests: checked-in objects are fresh (where LLVM is
//! installed), every target's objects load through the code-object loader
//! with the ABI the reflection promises, SPIR-V input gives the same
//! results, bundles, --define, and readable errors with locations.

use aqueduct_hsa::code_object::{Bundle, CodeObject, IsaName};
use aqueduct_shaderc::{
    CompileError, ComputeLimit, Options, Source, Toolchain, UnsupportedKind, build, compile,
    translate,
};
use aqueduct_test_harness::shaderc::*;

fn llvm_or_skip(what: &str) -> bool {
    if Toolchain::available() {
        true
    } else {
        eprintln!("{what}: skipped (clang-19 / ld.lld-19 not installed)");
        false
    }
}

#[test]
fn checked_in_objects_are_fresh() {
    if !llvm_or_skip("staleness check") {
        return;
    }
    let dir = shaders_dir();
    let fresh = std::env::temp_dir().join(format!("aqueduct-shaderc-stale-{}", std::process::id()));
    let options = Options {
        targets: build::DEFAULT_BUILD_TARGETS
            .iter()
            .map(|s| s.to_string())
            .collect(),
        ..Options::default()
    };
    let built = build::compile_dir(&dir, &fresh, &options).expect("fresh build");
    assert!(built.len() >= 40, "{} shaders", built.len());
    let mut stale = Vec::new();
    for b in &built {
        for (_, co, json) in &b.outputs {
            for path in [co, json] {
                let rel = path.strip_prefix(&fresh).unwrap();
                let old = std::fs::read(dir.join(rel)).unwrap_or_default();
                if old != std::fs::read(path).unwrap() {
                    stale.push(rel.display().to_string());
                }
            }
        }
    }
    let _ = std::fs::remove_dir_all(&fresh);
    assert!(
        stale.is_empty(),
        "stale (run `aqueduct-shaderc build shaders`): {stale:?}"
    );
}

#[test]
fn every_target_loads_with_the_reflected_abi() {
    let sources = build::wgsl_files(&shaders_dir()).unwrap();
    assert!(sources.len() >= 40);
    for src in &sources {
        let rel = src.strip_prefix(shaders_dir()).unwrap().with_extension("");
        let name = rel.to_string_lossy().replace('\\', "/");
        for target in ["gfx1100", "gfx942", "gfx90a"] {
            let (co, reflection) = checked_in(&name, target);
            let parsed = CodeObject::parse(&co).unwrap_or_else(|e| panic!("{name} {target}: {e}"));
            assert_eq!(parsed.isa().gfx, target, "{name}");
            assert_eq!(parsed.code_object_version(), 5);
            for ep in &reflection.entry_points {
                let k = parsed.require_kernel(&ep.kernel).unwrap();
                assert_eq!(
                    k.reqd_workgroup_size,
                    Some(ep.workgroup_size),
                    "{name} {target}"
                );
                let explicit: Vec<&str> = k
                    .explicit_args()
                    .filter_map(|a| a.name.as_deref())
                    .collect();
                let mut want = Vec::new();
                for b in &ep.bindings {
                    want.push(b.arg.as_str());
                    if let Some(s) = &b.size_arg {
                        want.push(s.as_str());
                    }
                }
                assert_eq!(explicit, want, "{name} {target} kernel args");
                assert!(
                    k.group_segment_fixed_size >= ep.workgroup_memory_size,
                    "{name} LDS"
                );
                let wave = if target == "gfx1100" { 32 } else { 64 };
                assert_eq!(k.wavefront_size, wave);
                assert_eq!(aqueduct_shaderc::wave_size(target), Some(wave));
                assert_eq!(ep.uses_subgroups, name.contains("subgroup"), "{name}");
            }
        }
    }
}

#[test]
fn reflection_reports_kinds_and_sizes() {
    let (_, r) = checked_in("tests/uniform_params", "gfx1100");
    let ep = r.entry_point("main").unwrap();
    let kinds: Vec<String> = ep
        .bindings
        .iter()
        .map(|b| format!("{:?}:{}", b.kind, b.min_binding_size))
        .collect();
    assert_eq!(
        kinds,
        ["Uniform:32", "StorageRead:16", "StorageReadWrite:16"]
    );
    let (_, r) = checked_in("tests/struct_runtime_array", "gfx1100");
    let b = &r.entry_point("main").unwrap().bindings[0];
    assert_eq!(
        (b.min_binding_size, b.array_stride, b.size_arg.as_deref()),
        (32, Some(16), Some("g0_b0_size"))
    );
    let (_, r) = checked_in("tests/workgroup_reduce", "gfx1100");
    assert_eq!(r.entry_point("main").unwrap().workgroup_memory_size, 512);
}

/// The same IR gives wave64 code on gfx9 (64-bit exec masks) and wave32
/// code on gfx11, with the active-lane walk reading lanes by readlane.
#[test]
fn subgroups_are_wave64_on_gfx9() {
    if !llvm_or_skip("subgroups_are_wave64_on_gfx9") {
        return;
    }
    let src = std::fs::read_to_string(shaders_dir().join("tests/subgroup_reduce.wgsl")).unwrap();
    for (target, wave64) in [("gfx942", true), ("gfx90a", true), ("gfx1100", false)] {
        let options = Options {
            targets: vec![target.into()],
            ..Options::default()
        };
        let c = compile(Source::Wgsl(&src), &options).unwrap();
        let dir =
            std::env::temp_dir().join(format!("aq-shaderc-sg-{}-{target}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("k.co");
        std::fs::write(&path, &c.code_object).unwrap();
        let dis = std::process::Command::new("llvm-objdump-19")
            .args(["-d", &format!("--mcpu={target}")])
            .arg(&path)
            .output()
            .expect("llvm-objdump-19");
        let text = String::from_utf8_lossy(&dis.stdout);
        let _ = std::fs::remove_dir_all(&dir);
        // Divergent branches save a 64-bit exec mask on wave64, 32-bit on wave32.
        assert_eq!(text.contains("s_and_saveexec_b64"), wave64, "{target}");
        assert_eq!(text.contains("s_and_saveexec_b32"), !wave64, "{target}");
        assert!(text.contains("v_readlane_b32"), "{target}");
    }
}

#[test]
fn reflection_records_the_source_hash() {
    // Known SHA-256 vector (FIPS 180-2, "abc") and the empty string.
    assert_eq!(
        aqueduct_shaderc::source_hash(""),
        "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
    );
    for name in ["fill_u32", "tests/uniform_params"] {
        let (_, r) = checked_in(name, "gfx1100");
        let text = std::fs::read_to_string(shaders_dir().join(format!("{name}.wgsl"))).unwrap();
        assert_eq!(
            r.source_hash,
            aqueduct_shaderc::source_hash(&text),
            "{name}"
        );
        assert_eq!(r.source_hash.len(), 64);
    }
    let spv = to_spirv("@compute @workgroup_size(1)\nfn main() {}\n");
    let t = translate(Source::SpirV(&spv), &Options::default()).unwrap();
    assert_eq!(t.reflection.source_hash.len(), 64);
    assert_ne!(t.reflection.source_hash, aqueduct_shaderc::source_hash(""));
}

/// WGSL → naga → SPIR-V (naga's back end) → aqueduct-shaderc.
fn to_spirv(wgsl: &str) -> Vec<u8> {
    let module = naga::front::wgsl::parse_str(wgsl).unwrap();
    let info = naga::valid::Validator::new(
        naga::valid::ValidationFlags::all(),
        naga::valid::Capabilities::all(),
    )
    .validate(&module)
    .unwrap();
    let words =
        naga::back::spv::write_vec(&module, &info, &naga::back::spv::Options::default(), None)
            .unwrap();
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

#[test]
fn spirv_input_gives_the_same_results() {
    if !llvm_or_skip("SPIR-V input") {
        return;
    }
    let cases: [(&str, Vec<Binding>, [u32; 3]); 3] = [
        (
            "copy_u32",
            vec![
                (0, 0, bytes_of(&Rng::new(1).u32s(64))),
                (0, 1, vec![0; 256]),
            ],
            [1, 1, 1],
        ),
        ("control_flow", vec![(0, 0, vec![0; 256])], [1, 1, 1]),
        (
            "workgroup_reduce",
            vec![(0, 0, bytes_of(&Rng::new(2).u32s(256))), (0, 1, vec![0; 8])],
            [2, 1, 1],
        ),
    ];
    for (name, bindings, groups) in cases {
        let wgsl =
            std::fs::read_to_string(shaders_dir().join(format!("tests/{name}.wgsl"))).unwrap();
        let spv = to_spirv(&wgsl);
        let options = Options {
            file_name: format!("{name}.spv"),
            ..Options::default()
        };
        let compiled =
            compile(Source::SpirV(&spv), &options).unwrap_or_else(|e| panic!("{name}: {e}"));
        let from_spv = run_code_object(
            &compiled.code_object,
            &compiled.reflection,
            "main",
            &bindings,
            groups,
        )
        .unwrap();
        let (co, reflection) = checked_in(&format!("tests/{name}"), "gfx1100");
        let from_wgsl = run_code_object(&co, &reflection, "main", &bindings, groups).unwrap();
        assert_eq!(from_spv, from_wgsl, "{name}");
    }
}

#[test]
fn several_targets_make_one_bundle() {
    if !llvm_or_skip("bundle") {
        return;
    }
    let wgsl = std::fs::read_to_string(shaders_dir().join("tests/copy_u32.wgsl")).unwrap();
    let options = Options {
        targets: vec!["gfx1100".into(), "gfx942".into(), "gfx90a".into()],
        file_name: "copy_u32.wgsl".into(),
        ..Options::default()
    };
    let compiled = compile(Source::Wgsl(&wgsl), &options).unwrap();
    let bundle = Bundle::parse(&compiled.code_object).unwrap();
    for (target, object) in &compiled.objects {
        assert_eq!(
            bundle.select(&IsaName::new(target.clone())).unwrap(),
            &object[..],
            "{target}"
        );
    }
    // The bundle is what clang-offload-bundler-19 writes, when it is there.
    let tmp = std::env::temp_dir().join(format!("aqueduct-shaderc-bundle-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).unwrap();
    let mut inputs = vec![format!("--input={}", tmp.join("host.o").display())];
    std::fs::write(tmp.join("host.o"), b"").unwrap();
    for (t, o) in &compiled.objects {
        std::fs::write(tmp.join(format!("{t}.co")), o).unwrap();
        inputs.push(format!("--input={}", tmp.join(format!("{t}.co")).display()));
    }
    let targets = "host-x86_64-unknown-linux-gnu,hipv4-amdgcn-amd-amdhsa--gfx1100,hipv4-amdgcn-amd-amdhsa--gfx942,hipv4-amdgcn-amd-amdhsa--gfx90a";
    let status = std::process::Command::new("clang-offload-bundler-19")
        .args(["-type=o", &format!("-targets={targets}")])
        .args(&inputs)
        .arg(format!("--output={}", tmp.join("b.bundle").display()))
        .status();
    if let Ok(s) = status {
        assert!(s.success());
        assert_eq!(
            std::fs::read(tmp.join("b.bundle")).unwrap(),
            compiled.code_object
        );
    }
    let _ = std::fs::remove_dir_all(&tmp);
}

#[test]
fn defines_specialise_overrides() {
    if !llvm_or_skip("--define") {
        return;
    }
    let wgsl = std::fs::read_to_string(shaders_dir().join("tests/overrides.wgsl")).unwrap();
    let options = Options {
        defines: vec![
            aqueduct_shaderc::parse_define("SCALE=5").unwrap(),
            aqueduct_shaderc::parse_define("7=64").unwrap(),
            aqueduct_shaderc::parse_define("USE_BIAS=false").unwrap(),
        ],
        file_name: "overrides.wgsl".into(),
        ..Options::default()
    };
    let compiled = compile(Source::Wgsl(&wgsl), &options).unwrap();
    assert_eq!(
        compiled.reflection.entry_points[0].workgroup_size,
        [64, 1, 1]
    );
    let out = run_code_object(
        &compiled.code_object,
        &compiled.reflection,
        "main",
        &[(0, 0, vec![0; 128 * 4])],
        [2, 1, 1],
    )
    .unwrap();
    for (i, v) in f32s(&out[0]).iter().enumerate() {
        assert_eq!(*v, (i as u32 * 5) as f32 + 64_000.0);
    }
}

/// The reflection records the `--define`d override values under
/// "constants" (what the facade keys a precompiled specialisation by), and
/// writes no "constants" field without defines.
#[test]
fn reflection_records_the_defined_constants() {
    let wgsl = std::fs::read_to_string(shaders_dir().join("tests/overrides.wgsl")).unwrap();
    let options = Options {
        defines: vec![
            aqueduct_shaderc::parse_define("SCALE=5").unwrap(),
            aqueduct_shaderc::parse_define("USE_BIAS=false").unwrap(),
        ],
        file_name: "overrides.wgsl".into(),
        ..Options::default()
    };
    let t = translate(Source::Wgsl(&wgsl), &options).unwrap();
    let expected: std::collections::BTreeMap<String, f64> =
        [("SCALE".to_string(), 5.0), ("USE_BIAS".to_string(), 0.0)].into();
    assert_eq!(t.reflection.constants, expected);
    let json = t.reflection.to_json().unwrap();
    let value: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(
        value["constants"],
        serde_json::json!({ "SCALE": 5.0, "USE_BIAS": 0.0 })
    );
    assert_eq!(
        aqueduct_shaderc::Reflection::from_json(&json).unwrap(),
        t.reflection
    );
    let plain = translate(
        Source::Wgsl("@compute @workgroup_size(1)\nfn main() {}\n"),
        &Options::default(),
    )
    .unwrap();
    assert!(!plain.reflection.to_json().unwrap().contains("constants"));
}

fn translate_err(src: &str, entry: Option<&str>) -> CompileError {
    let options = Options {
        file_name: "bad.wgsl".into(),
        entry: entry.map(String::from),
        ..Options::default()
    };
    translate(Source::Wgsl(src), &options).expect_err("must not compile")
}

/// A 16x16 f16 multiply-add tests at run time whether the whole wave runs
/// it, unless every workgroup of the module is a multiple of 64
/// invocations (whole waves on every target): then the test is constant
/// and the generic path drops out where the target has matrix cores. f32
/// inputs keep the run-time test (matrix_cores.rs says why).
#[test]
fn whole_wave_workgroups_make_the_matrix_core_test_constant() {
    let ir = |size: u32, ty: &str| {
        let src = format!(
            "enable f16;
enable wgpu_cooperative_matrix;
@group(0) @binding(0) var<storage, read_write> m: array<{ty}>;
@group(0) @binding(1) var<storage, read_write> o: array<f32>;
@compute @workgroup_size({size}) fn main() {{
    let a = coopLoad<coop_mat16x16<{ty}, A>>(&m[0]);
    let b = coopLoad<coop_mat16x16<{ty}, B>>(&m[256]);
    let c = coopLoad<coop_mat16x16<f32, C>>(&o[0]);
    coopStore(coopMultiplyAdd(a, b, c), &o[256]);
}}"
        );
        translate(Source::Wgsl(&src), &Options::default())
            .unwrap_or_else(|e| panic!("{e}"))
            .llvm_ir
    };
    assert!(ir(64, "f16").contains("available(i1 true)"));
    assert!(ir(128, "f16").contains("available(i1 true)"));
    // Whole waves of 32 but not of 64.
    assert!(ir(32, "f16").contains("available(i1 false)"));
    assert!(ir(64, "f32").contains("available(i1 false)"));
}

#[test]
fn workgroup_memory_past_the_hardware_limit_names_the_variable() {
    // 64 KiB exactly fits; one more array of 16 KiB does not.
    let src = "var<workgroup> a: array<u32, 16384>;\nvar<workgroup> tile: array<u32, 4096>;\n\
               @group(0) @binding(0) var<storage, read_write> o: array<u32>;\n\
               @compute @workgroup_size(64)\nfn main(@builtin(local_invocation_index) i: u32) {\n  \
               a[i] = i;\n  tile[i] = i;\n  o[i] = a[i] + tile[i];\n}\n";
    match translate_err(src, None) {
        CompileError::LimitExceeded {
            entry_point,
            limit,
            requested,
            allowed,
            variable,
            location,
            rendered,
        } => {
            assert_eq!(entry_point, "main");
            assert_eq!(limit, ComputeLimit::WorkgroupStorageSize);
            assert_eq!((requested, allowed), (81920, 65536));
            assert_eq!(variable.as_deref(), Some("tile"));
            assert_eq!(location.as_deref(), Some("bad.wgsl:2:1"));
            assert!(rendered.contains("bad.wgsl"), "{rendered}");
        }
        other => panic!("expected LimitExceeded, got {other:?}"),
    }
    // Exactly 64 KiB translates.
    let fits = "var<workgroup> a: array<u32, 16383>;\nvar<workgroup> tile: u32;\n\
                @group(0) @binding(0) var<storage, read_write> o: array<u32>;\n\
                @compute @workgroup_size(64)\nfn main(@builtin(local_invocation_index) i: u32) {\n  \
                a[i] = i;\n  tile = i;\n  o[i] = a[i] + tile;\n}\n";
    let t = translate(Source::Wgsl(fits), &Options::default()).expect("64 KiB fits");
    assert_eq!(t.reflection.entry_points[0].workgroup_memory_size, 65536);
}

#[test]
fn errors_are_readable_with_locations() {
    let e = translate_err(
        "@compute @workgroup_size(1)\nfn main() {\n  let x = ;\n}\n",
        None,
    );
    assert!(matches!(e, CompileError::Parse { .. }), "{e:?}");
    assert!(e.to_string().contains("bad.wgsl:3:"), "{e}");

    let e = translate_err(
        "@group(0) @binding(0) var<storage, read_write> o: array<u32>;\n@compute @workgroup_size(1)\nfn main() {\n  o[0] = 1.5;\n}\n",
        None,
    );
    assert!(e.to_string().contains("bad.wgsl:4:"), "{e}");

    let e = translate_err(
        "@group(0) @binding(0) var t: texture_external;\n@group(0) @binding(1) var<storage, read_write> o: array<f32>;\n@compute @workgroup_size(1)\nfn main() {\n  o[0] = textureLoad(t, vec2<i32>(0, 0)).x;\n}\n",
        None,
    );
    match &e {
        CompileError::Unsupported {
            kind,
            construct,
            location,
            rendered,
        } => {
            assert_eq!(*kind, UnsupportedKind::TextureClass);
            assert!(construct.contains("external"), "{construct}");
            assert_eq!(
                location.as_deref().map(|l| l.starts_with("bad.wgsl:")),
                Some(true),
                "{location:?}"
            );
            assert!(rendered.contains("bad.wgsl"), "{rendered}");
        }
        other => panic!("expected Unsupported, got {other:?}"),
    }

    // naga 30 has no subgroupElect: a located parse error naming it.
    let e = translate_err(
        "@group(0) @binding(0) var<storage, read_write> o: array<u32>;\n@compute @workgroup_size(32)\nfn main() {\n  o[0] = u32(subgroupElect());\n}\n",
        None,
    );
    assert!(
        e.to_string().contains("subgroupElect") && e.to_string().contains("bad.wgsl:4:"),
        "{e}"
    );

    let e = translate_err("@compute @workgroup_size(1)\nfn main() {}\n", Some("other"));
    assert!(
        e.to_string()
            .contains("no compute entry point named `other`"),
        "{e}"
    );
    assert!(e.to_string().contains("main"), "{e}");
}

#[test]
fn cli_reports_errors_and_emits_llvm() {
    let exe = env!("CARGO_BIN_EXE_aqueduct-shaderc");
    let tmp = std::env::temp_dir().join(format!("aqueduct-shaderc-cli-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).unwrap();
    let bad = tmp.join("bad.wgsl");
    std::fs::write(
        &bad,
        "@compute @workgroup_size(1)\nfn main() { let = 1; }\n",
    )
    .unwrap();
    let out = std::process::Command::new(exe)
        .args(["compile"])
        .arg(&bad)
        .arg("--emit-llvm")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("bad.wgsl:2:"), "{stderr}");
    let good = shaders_dir().join("tests/copy_u32.wgsl");
    let out = std::process::Command::new(exe)
        .args(["compile"])
        .arg(&good)
        .arg("--emit-llvm")
        .output()
        .unwrap();
    assert!(out.status.success());
    let ir = String::from_utf8_lossy(&out.stdout);
    assert!(ir.contains("define amdgpu_kernel void @\"main\"(ptr addrspace(1) readonly %g0_b0, i32 %g0_b0_size, ptr addrspace(1) %g0_b1, i32 %g0_b1_size)"), "{ir}");
    // With one target the IR is printed as compiled for it (the matrix-core
    // helpers defined), with several as they share it (declared only).
    let coop = tmp.join("coop.wgsl");
    std::fs::write(
        &coop,
        "enable wgpu_cooperative_matrix;
@group(0) @binding(0) var<storage, read_write> m: array<f32>;
@compute @workgroup_size(64) fn main() {
    let a = coopLoad<coop_mat16x16<f32, A>>(&m[0]);
    let b = coopLoad<coop_mat16x16<f32, B>>(&m[256]);
    let c = coopLoad<coop_mat16x16<f32, C>>(&m[512]);
    coopStore(coopMultiplyAdd(a, b, c), &m[768]);
}",
    )
    .unwrap();
    let emit = |targets: &str| {
        let out = std::process::Command::new(exe)
            .arg("compile")
            .arg(&coop)
            .args(["--target", targets, "--emit-llvm"])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let gfx942 = emit("gfx942");
    assert!(
        gfx942.contains("call <4 x float> @llvm.amdgcn.mfma.f32.16x16x4f32("),
        "{gfx942}"
    );
    assert!(!gfx942.contains("declare i1 @aqueduct.coop"), "{gfx942}");
    let shared = emit("gfx942,gfx1100");
    assert!(
        shared.contains("declare i1 @aqueduct.coop.mma.f32.f32.available(i1)"),
        "{shared}"
    );
    assert!(!shared.contains("@llvm.amdgcn.mfma"), "{shared}");
    let _ = std::fs::remove_dir_all(&tmp);
}

#[test]
fn compile_dir_reuses_precompiled_objects_without_llvm() {
    let tmp = std::env::temp_dir().join(format!("aqueduct-shaderc-nollvm-{}", std::process::id()));
    let no_tools = tmp.join("empty-bin");
    std::fs::create_dir_all(&no_tools).unwrap();
    let options = Options {
        targets: vec!["gfx1100".into(), "gfx942".into()],
        llvm_bin: Some(no_tools),
        ..Options::default()
    };
    let out = tmp.join("out");
    let built = build::compile_dir(&shaders_dir(), &out, &options).unwrap();
    assert!(built.iter().all(|b| b.precompiled));
    let co = std::fs::read(out.join("gfx942/fill_u32.co")).unwrap();
    assert_eq!(
        co,
        std::fs::read(shaders_dir().join("gfx942/fill_u32.co")).unwrap()
    );
    assert!(out.join("tests/gfx1100/matrices.reflect.json").is_file());
    let _ = std::fs::remove_dir_all(&tmp);
}

/// Whether `co` names a `.comment` section, which ld.lld writes and the
/// in-process linker does not (a scan of the section names suffices).
fn has_comment_section(co: &[u8]) -> bool {
    co.windows(9).any(|w| w == b".comment\0")
}

#[test]
fn cli_selects_the_llvm_path_from_the_environment() {
    if !llvm_or_skip("LLVM selection") {
        return;
    }
    let exe = env!("CARGO_BIN_EXE_aqueduct-shaderc");
    let tmp = std::env::temp_dir().join(format!("aqueduct-shaderc-mode-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).unwrap();
    let src = shaders_dir().join("tests/copy_u32.wgsl");
    let compile = |mode: &str, out: &str| {
        std::process::Command::new(exe)
            .env(aqueduct_shaderc::LLVM_MODE_ENV, mode)
            .arg("compile")
            .arg(&src)
            .arg("-o")
            .arg(tmp.join(out))
            .output()
            .unwrap()
    };
    let out = compile("bogus", "bogus.co");
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("AQUEDUCT_SHADERC_LLVM=bogus"), "{stderr}");
    assert!(compile("process", "process.co").status.success());
    assert!(has_comment_section(
        &std::fs::read(tmp.join("process.co")).unwrap()
    ));
    let in_process =
        aqueduct_shaderc::Toolchain::find_with(None, aqueduct_shaderc::LlvmMode::InProcess);
    let out = compile("in-process", "in-process.co");
    match in_process {
        Ok(_) => {
            assert!(out.status.success());
            let co = std::fs::read(tmp.join("in-process.co")).unwrap();
            assert!(!has_comment_section(&co), "linked in process");
            // The default is in process where the library loads.
            assert!(compile("", "default.co").status.success());
            assert_eq!(std::fs::read(tmp.join("default.co")).unwrap(), co);
        }
        Err(_) => {
            assert_eq!(out.status.code(), Some(1));
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert!(stderr.contains("libLLVM-19"), "{stderr}");
        }
    }
    let _ = std::fs::remove_dir_all(&tmp);
}
