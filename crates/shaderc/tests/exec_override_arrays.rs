//! Override-sized workgroup arrays (lengths that are pipeline-overridable
//! constants or override expressions), run on gfxsim with
//! the checked-in defaults and, where LLVM is installed, recompiled with
//! other values; a length that specialises to 0 is a compile error.

use aqueduct_shaderc::{CompileError, Options, Source, Toolchain, compile, parse_define};
use aqueduct_test_harness::shaderc::*;

/// What invocation `i % wg` of workgroup `g` writes at `out[g * n + i]`.
fn expected(n: u32, wg: u32, m: u32, groups: u32) -> Vec<u32> {
    let k = 2 * n;
    let mut out = Vec::new();
    for g in 0..groups {
        for i in 0..n {
            let li = i % wg;
            let tile = (n - 1 - i) * 3 + g;
            let pair = i / 2;
            let copy = (i % m + 1) * li;
            out.push(
                tile.wrapping_add(pair.wrapping_mul(1000))
                    .wrapping_add(k.wrapping_mul(100_000))
                    .wrapping_add(copy.wrapping_mul(10_000_000)),
            );
        }
    }
    out
}

#[test]
fn override_sized_arrays_with_defaults() {
    let (_, r) = checked_in("tests/override_arrays", "gfx1100");
    let ep = r.entry_point("main").unwrap();
    assert_eq!(ep.workgroup_size, [16, 1, 1]);
    // tile: 48 u32, pairs: 24 vec2<u32>, weights: 5 u32.
    assert_eq!(ep.workgroup_memory_size, 48 * 4 + 24 * 8 + 5 * 4);
    let out = run(
        "tests/override_arrays",
        "main",
        &[(0, 0, vec![0; 3 * 48 * 4])],
        [3, 1, 1],
    );
    assert_eq!(u32s(&out[0]), expected(48, 16, 5, 3));
}

#[test]
fn override_sized_arrays_specialised() {
    if !Toolchain::available() {
        eprintln!("override_sized_arrays_specialised: skipped (no clang-19 / ld.lld-19)");
        return;
    }
    let src = std::fs::read_to_string(shaders_dir().join("tests/override_arrays.wgsl")).unwrap();
    for (n, wg, m) in [(20u32, 8u32, 3u32), (100, 64, 7)] {
        let options = Options {
            defines: [format!("N={n}"), format!("WG={wg}"), format!("M={m}")]
                .iter()
                .map(|d| parse_define(d).unwrap())
                .collect(),
            file_name: "override_arrays.wgsl".into(),
            ..Options::default()
        };
        let c = compile(Source::Wgsl(&src), &options).unwrap();
        let ep = &c.reflection.entry_points[0];
        assert_eq!(ep.workgroup_size, [wg, 1, 1]);
        assert_eq!(ep.workgroup_memory_size, n * 4 + (n / 2) * 8 + m * 4);
        let out = run_code_object(
            &c.code_object,
            &c.reflection,
            "main",
            &[(0, 0, vec![0; 2 * n as usize * 4])],
            [2, 1, 1],
        )
        .unwrap();
        assert_eq!(u32s(&out[0]), expected(n, wg, m, 2), "N={n} WG={wg} M={m}");
    }
    // A length that specialises to zero is rejected, naming the array type.
    let options = Options {
        defines: vec![parse_define("N=0").unwrap()],
        ..Options::default()
    };
    let e = aqueduct_shaderc::translate(Source::Wgsl(&src), &options).unwrap_err();
    assert!(matches!(e, CompileError::Override { .. }), "{e}");
    assert!(e.to_string().contains("positive size"), "{e}");
}
