//! The baseline compiler against LLVM: each shader compiled both ways runs
//! on gfxsim (gfx1100) over the same random inputs, and every output byte
//! must agree; a few results are also checked against the host. Each
//! shader must be one the baseline compiler covers, so no case passes by
//! falling back to LLVM.

use aqueduct_shaderc::{Options, Reflection, Source};
use aqueduct_test_harness::shaderc::*;

/// The baseline code object and reflection of `wgsl`, and LLVM's object.
fn both(wgsl: &str) -> (Vec<u8>, Vec<u8>, Reflection) {
    let options = Options {
        baseline: true,
        ..Options::default()
    };
    let t = aqueduct_shaderc::translate(Source::Wgsl(wgsl), &options).expect("translates");
    let baseline = match t.baseline {
        Some(Ok(co)) => co,
        Some(Err(e)) => panic!("{e}\n{wgsl}"),
        None => panic!("no baseline compile"),
    };
    let llvm =
        aqueduct_shaderc::compile(Source::Wgsl(wgsl), &Options::default()).expect("LLVM compiles");
    assert_eq!(llvm.reflection.entry_points, t.reflection.entry_points);
    (baseline, llvm.code_object, t.reflection)
}

/// Run `wgsl`'s `main` both ways over `bindings`; the outputs, which must
/// agree byte for byte (None, and the test skipped, without LLVM 19).
fn agree(wgsl: &str, bindings: &[Binding], workgroups: [u32; 3]) -> Option<Vec<Vec<u8>>> {
    if !aqueduct_shaderc::Toolchain::available() {
        eprintln!("LLVM 19 not installed: skipped");
        return None;
    }
    let (baseline, llvm, reflection) = both(wgsl);
    let ours = run_code_object(&baseline, &reflection, "main", bindings, workgroups)
        .unwrap_or_else(|e| panic!("baseline run: {e}\n{wgsl}"));
    let theirs = run_code_object(&llvm, &reflection, "main", bindings, workgroups)
        .unwrap_or_else(|e| panic!("LLVM run: {e}"));
    for (i, (a, b)) in ours.iter().zip(&theirs).enumerate() {
        if a != b {
            let at = a.iter().zip(b).position(|(x, y)| x != y).unwrap_or(0) / 4;
            panic!(
                "binding {i} differs first at word {at}: baseline {:#x}, LLVM {:#x}\n{wgsl}",
                u32s(a)[at],
                u32s(b)[at]
            );
        }
    }
    Some(ours)
}

/// Interesting 32-bit patterns mixed with random ones.
fn words(seed: u64, n: usize) -> Vec<u32> {
    let special = [
        0,
        1,
        2,
        31,
        32,
        33,
        0x7fff_ffff,
        0x8000_0000,
        0xffff_ffff,
        0x3f80_0000,
        0xbf80_0000,
        0x7f80_0000,
        0xff80_0000,
        0x7fc0_0000,
        0x0000_0001,
        0x4f80_0000,
        0x4f00_0000,
        0xcf00_0001,
    ];
    let mut rng = Rng::new(seed);
    (0..n)
        .map(|i| {
            if i % 3 == 0 {
                special[rng.index(special.len())]
            } else {
                rng.u32()
            }
        })
        .collect()
}

#[test]
fn elementwise_kernels_match_llvm_and_the_host() {
    // The pipeline-creation benchmark's modules (benches/wgpu-peer/src/compile_sources.rs).
    for (op, k, m, s) in [
        ("+", 1, 3, 0),
        ("*", 8, 4, 1),
        ("^", 15, 5, 2),
        ("|", 22, 6, 3),
    ] {
        let wgsl = format!(
            "@group(0) @binding(0) var<storage, read> src: array<u32>;
@group(0) @binding(1) var<storage, read_write> dst: array<u32>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {{
    let i = gid.x;
    if (i >= arrayLength(&dst)) {{
        return;
    }}
    dst[i] = (src[i] {op} {k}u) * {m}u + (i >> {s}u);
}}"
        );
        let src = words(1, 150);
        let Some(out) = agree(
            &wgsl,
            &[(0, 0, bytes_of(&src)), (0, 1, vec![0; 150 * 4])],
            [3, 1, 1],
        ) else {
            return;
        };
        for (i, got) in u32s(&out[1]).into_iter().enumerate() {
            let x = src[i];
            let y = match op {
                "+" => x.wrapping_add(k),
                "*" => x.wrapping_mul(k),
                "^" => x ^ k,
                _ => x | k,
            };
            assert_eq!(
                got,
                y.wrapping_mul(m).wrapping_add(i as u32 >> s),
                "{op} element {i}"
            );
        }
    }
}

#[test]
fn integer_operations_match_llvm() {
    let wgsl = "
@group(0) @binding(0) var<storage, read> a: array<u32>;
@group(0) @binding(1) var<storage, read> b: array<u32>;
@group(0) @binding(2) var<storage, read_write> out: array<vec4<u32>>;
@compute @workgroup_size(32)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    let x = a[i];
    let y = b[i];
    let sx = i32(x);
    let sy = bitcast<i32>(y);
    var r = vec4<u32>(0u);
    r.x = (x << y) ^ (x >> (y + 3u)) ^ u32(sx >> y) ^ (x - y) ^ (x * y);
    r.y = min(x, y) + max(x, y) * 3u + u32(min(sx, sy)) + u32(max(sx, sy)) + clamp(x, 10u, y);
    r.z = u32(abs(sx)) ^ u32(-sy) ^ ~x ^ (x / 8u) ^ (y % 16u) ^ u32(clamp(sx, -5, 7));
    var flags = 0u;
    if (x < y) { flags |= 1u; }
    if (sx < sy) { flags |= 2u; }
    if (x == y || x >= 100u) { flags |= 4u; }
    if (sx <= sy && !(x != 7u)) { flags |= 8u; }
    if (sx > sy) { flags |= 16u; } else { flags |= 32u; }
    r.w = flags + select(5u, 9u, sx >= -3) + u32(x > y) + u32(i32(y) < 0);
    out[i] = r;
}";
    let n = 96;
    let Some(out) = agree(
        wgsl,
        &[
            (0, 0, bytes_of(&words(2, n))),
            (0, 1, bytes_of(&words(3, n))),
            (0, 2, vec![0; n * 16]),
        ],
        [3, 1, 1],
    ) else {
        return;
    };
    assert!(u32s(&out[2]).iter().any(|&w| w != 0));
}

#[test]
fn float_operations_match_llvm() {
    let wgsl = "
@group(0) @binding(0) var<storage, read> a: array<f32>;
@group(0) @binding(1) var<storage, read> b: array<f32>;
@group(0) @binding(2) var<storage, read_write> out: array<f32>;
@group(0) @binding(3) var<storage, read_write> bits: array<u32>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    let x = a[i];
    let y = b[i];
    out[4u * i] = x * y + x - y;
    out[4u * i + 1u] = fma(x, y, -x) + abs(y);
    out[4u * i + 2u] = f32(u32(x)) + f32(i32(y)) + f32(i);
    out[4u * i + 3u] = select(x, y, x < y) * 0.5;
    var f = 0u;
    if (x == y) { f |= 1u; }
    if (x != y) { f |= 2u; }
    if (x <= y) { f |= 4u; }
    if (x > y) { f |= 8u; }
    if (x >= 1.0) { f |= 16u; }
    bits[i] = f ^ (u32(i32(x)) << 8u) ^ bitcast<u32>(-x);
}";
    let n = 128;
    let fw = |seed| {
        let mut rng = Rng::new(seed);
        let mut w = words(seed, n);
        for v in w.iter_mut().skip(1).step_by(3) {
            // Finite floats of moderate size as well.
            *v = ((rng.range(-100_000, 100_000) as f32) / 7.0).to_bits();
        }
        w
    };
    agree(
        wgsl,
        &[
            (0, 0, bytes_of(&fw(4))),
            (0, 1, bytes_of(&fw(5))),
            (0, 2, vec![0; n * 16]),
            (0, 3, vec![0; n * 4]),
        ],
        [2, 1, 1],
    );
}

#[test]
fn divergent_control_flow_matches_llvm() {
    let wgsl = "
@group(0) @binding(0) var<storage, read> a: array<u32>;
@group(0) @binding(1) var<storage, read_write> out: array<u32>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    let n = a[i] % 32u;
    if (n == 3u) {
        return;
    }
    var sum = 0u;
    var odd = false;
    var j = 0u;
    loop {
        if (j >= n) { break; }
        j += 1u;
        if ((j & 3u) == 1u) { continue; }
        if (j == 29u && (i & 1u) == 1u) { return; }
        sum = sum * 3u + j;
        odd = !odd;
        continuing {
            sum ^= j << 4u;
        }
    }
    for (var k = 0u; k < (n & 7u); k++) {
        if (k == 5u) { break; }
        sum += k * 7u;
    }
    var w = 0u;
    while (w < n) {
        w += 2u;
        if (odd) { w += 1u; }
    }
    out[i] = sum + select(0u, 1000u, odd) + w * 100000u;
}";
    let n = 200;
    let mut input = words(6, n);
    for (i, v) in input.iter_mut().enumerate() {
        if i % 5 == 0 {
            *v = 3;
        }
    }
    let Some(out) = agree(
        wgsl,
        &[(0, 0, bytes_of(&input)), (0, 1, vec![0xab; n * 4])],
        [4, 1, 1],
    ) else {
        return;
    };
    // Lanes that returned early left their word alone.
    for (i, w) in u32s(&out[1]).into_iter().enumerate().take(n) {
        if input[i] % 32 == 3 {
            assert_eq!(w, 0xabab_abab, "lane {i} returned first");
        }
    }
}

#[test]
fn out_of_bounds_accesses_match_llvm() {
    // Loads clamp to the last element; stores out of bounds are dropped;
    // a struct binding's runtime array starts after its header.
    let wgsl = "
struct Header { scale: u32, pad: u32, table: array<vec2<u32>> }
@group(0) @binding(0) var<storage, read> h: Header;
@group(0) @binding(1) var<storage, read> idx: array<u32>;
@group(0) @binding(2) var<storage, read_write> out: array<u32>;
@group(0) @binding(3) var<storage, read_write> out2: array<u32>;
@compute @workgroup_size(32)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    let k = idx[i] % 64u;
    let v = h.table[k];
    // Lanes with the same k store the same value.
    out[k + 1u] = v.x * h.scale + v.y + arrayLength(&h.table) + arrayLength(&out);
    out2[i] = h.table[i].y;
}";
    let mut rng = Rng::new(7);
    let table: Vec<u32> = (0..2 + 2 * 20).map(|_| rng.u32()).collect();
    let idx = words(8, 64);
    agree(
        wgsl,
        &[
            (0, 0, bytes_of(&table)),
            (0, 1, bytes_of(&idx)),
            (0, 2, vec![0; 40 * 4]),
            (0, 3, vec![0; 48 * 4]),
        ],
        [2, 1, 1],
    );
}

#[test]
fn two_dimensional_workgroups_match_llvm() {
    let wgsl = "
@group(0) @binding(0) var<storage, read_write> out: array<u32>;
@compute @workgroup_size(8, 4, 2)
fn main(@builtin(global_invocation_id) gid: vec3<u32>,
        @builtin(local_invocation_id) lid: vec3<u32>,
        @builtin(local_invocation_index) li: u32,
        @builtin(workgroup_id) wid: vec3<u32>,
        @builtin(num_workgroups) nwg: vec3<u32>) {
    let flat = gid.x + gid.y * 16u + gid.z * 16u * 12u;
    out[flat] = (lid.x | (lid.y << 4u) | (lid.z << 8u)) + (li << 12u) + (wid.x << 20u) + (wid.y << 24u) + (wid.z << 28u);
    out[n_all + flat] = nwg.x | (nwg.y << 8u) | (nwg.z << 16u);
}
const n_all = 768u;";
    let n = 16 * 12 * 4;
    let Some(out) = agree(wgsl, &[(0, 0, vec![0; 2 * n * 4])], [2, 3, 2]) else {
        return;
    };
    let got = u32s(&out[0]);
    for z in 0..4u32 {
        for y in 0..12u32 {
            for x in 0..16u32 {
                let (l, w) = ([x % 8, y % 4, z % 2], [x / 8, y / 4, z / 2]);
                let li = l[0] + l[1] * 8 + l[2] * 32;
                let want = (l[0] | l[1] << 4 | l[2] << 8)
                    + (li << 12)
                    + (w[0] << 20)
                    + (w[1] << 24)
                    + (w[2] << 28);
                assert_eq!(
                    got[(x + y * 16 + z * 192) as usize],
                    want,
                    "({x}, {y}, {z})"
                );
            }
        }
    }
}

#[test]
fn what_the_baseline_does_not_cover_is_named() {
    let options = Options {
        baseline: true,
        ..Options::default()
    };
    for (wgsl, what) in [
        (
            "@group(0) @binding(0) var<storage, read_write> o: array<u32>;
@compute @workgroup_size(1) fn main() { o[0] = o[1] / o[2]; }",
            "an integer division",
        ),
        (
            "var<workgroup> t: array<u32, 4>;
@group(0) @binding(0) var<storage, read_write> o: array<u32>;
@compute @workgroup_size(4) fn main(@builtin(local_invocation_index) i: u32) { t[i] = i; workgroupBarrier(); o[i] = t[3u - i]; }",
            "workgroup memory",
        ),
    ] {
        let t = aqueduct_shaderc::translate(Source::Wgsl(wgsl), &options).expect("translates");
        match t.baseline {
            Some(Err(e)) => assert!(e.what.starts_with(what), "{e}"),
            other => panic!("expected the baseline to decline: {other:?}"),
        }
    }
    // Several targets: LLVM's offload bundle.
    let t = aqueduct_shaderc::translate(
        Source::Wgsl("@compute @workgroup_size(1) fn main() {}"),
        &Options {
            baseline: true,
            targets: vec!["gfx1100".into(), "gfx942".into()],
            ..Options::default()
        },
    )
    .expect("translates");
    assert!(matches!(t.baseline, Some(Err(_))));
}

#[test]
fn inlined_function_calls_match_llvm() {
    // wgpu's hello_compute (Collatz) and calls with pointer arguments,
    // early returns inside loops and nested calls.
    let wgsl = "
@group(0) @binding(0) var<storage, read_write> v: array<u32>;
fn collatz_iterations(n_base: u32) -> u32 {
    var n: u32 = n_base;
    var i: u32 = 0u;
    loop {
        if (n <= 1u) { break; }
        if (n % 2u == 0u) { n = n / 2u; }
        else {
            if (n >= 1431655765u) { return 4294967295u; }
            n = 3u * n + 1u;
        }
        i = i + 1u;
    }
    return i;
}
fn bump(p: ptr<function, u32>, by: u32) {
    if (by == 0u) { return; }
    *p = *p + by;
}
fn twice(x: u32) -> u32 {
    var t = x;
    bump(&t, x & 3u);
    return collatz_iterations(t & 1023u) + t;
}
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    if (i >= arrayLength(&v)) { return; }
    v[i] = collatz_iterations(v[i]) ^ (twice(i) << 16u);
}";
    let n = 150;
    let input = words(9, n);
    let Some(out) = agree(wgsl, &[(0, 0, bytes_of(&input))], [3, 1, 1]) else {
        return;
    };
    let collatz = |mut n: u32| {
        let mut i = 0u32;
        while n > 1 {
            if n.is_multiple_of(2) {
                n /= 2;
            } else {
                if n >= 1431655765 {
                    return u32::MAX;
                }
                n = 3 * n + 1;
            }
            i += 1;
        }
        i
    };
    for (i, got) in u32s(&out[0]).into_iter().enumerate() {
        let t = i as u32 + (i as u32 & 3);
        let twice = collatz(t & 1023).wrapping_add(t);
        assert_eq!(got, collatz(input[i]) ^ (twice << 16), "element {i}");
    }
}
