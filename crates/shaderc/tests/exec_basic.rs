//! Checked-in test shaders (shaders/tests/gfx1100) run on gfxsim; results
//! against host computations: memory, control flow, integer rules.

use aqueduct_test_harness::shaderc::*;

#[test]
fn copy_u32_runtime_array() {
    let src = Rng::new(1).u32s(200);
    let out = run(
        "tests/copy_u32",
        "main",
        &[(0, 0, bytes_of(&src)), (0, 1, vec![0; 200 * 4])],
        [4, 1, 1],
    );
    let got = u32s(&out[1]);
    for i in 0..200 {
        assert_eq!(
            got[i],
            src[i].wrapping_mul(3).wrapping_add(i as u32),
            "element {i}"
        );
    }
}

#[test]
fn int_div_wgsl_rules() {
    let pairs: Vec<i32> = vec![
        7,
        2,
        -7,
        2,
        7,
        0,
        -5,
        0,
        i32::MIN,
        -1,
        i32::MIN,
        1,
        100,
        33,
        1,
        31,
        1,
        32,
        -8,
        35,
        0,
        0,
        13,
        -4,
    ];
    let n = pairs.len() / 2;
    let out = run(
        "tests/int_div",
        "main",
        &[
            (0, 0, bytes_of(&pairs)),
            (0, 1, vec![0; n * 16]),
            (0, 2, vec![0; n * 16]),
        ],
        [1, 1, 1],
    );
    let got = i32s(&out[1]);
    let ugot = u32s(&out[2]);
    for i in 0..n {
        let (a, b) = (pairs[2 * i], pairs[2 * i + 1]);
        let div = if b == 0 || (a == i32::MIN && b == -1) {
            a
        } else {
            a / b
        };
        let rem = if b == 0 || (a == i32::MIN && b == -1) {
            0
        } else {
            a % b
        };
        let sh = (b as u32) & 31;
        assert_eq!(
            &got[4 * i..4 * i + 4],
            &[div, rem, a << sh, a >> sh],
            "signed pair {a},{b}"
        );
        let (ua, ub) = (a as u32, b as u32);
        let udiv = ua.checked_div(ub).unwrap_or(ua);
        let urem = if ub == 0 { 0 } else { ua % ub };
        assert_eq!(
            &ugot[4 * i..4 * i + 4],
            &[udiv, urem, ua << sh, ua >> sh],
            "unsigned pair {ua},{ub}"
        );
    }
}

#[test]
fn workgroup_reduce_with_barriers() {
    let data = Rng::new(7).u32s(128 * 3);
    let out = run(
        "tests/workgroup_reduce",
        "main",
        &[(0, 0, bytes_of(&data)), (0, 1, vec![0; 12])],
        [3, 1, 1],
    );
    let got = u32s(&out[1]);
    for g in 0..3 {
        let want = data[g * 128..(g + 1) * 128]
            .iter()
            .fold(0u32, |a, &b| a.wrapping_add(b));
        assert_eq!(got[g], want, "group {g}");
    }
}

#[test]
fn control_flow_statements() {
    let out = run(
        "tests/control_flow",
        "main",
        &[(0, 0, vec![0; 64 * 4])],
        [1, 1, 1],
    );
    let got = u32s(&out[0]);
    let classify = |x: u32| match x % 7 {
        0 | 1 => 10,
        2 => 20,
        5 => 50,
        _ => 99,
    };
    let collatz = |start: u32| {
        let (mut n, mut steps) = (start, 0u32);
        while n > 1 {
            n = if n % 2 == 0 { n / 2 } else { 3 * n + 1 };
            steps += 1;
            if steps >= 200 {
                break;
            }
        }
        steps
    };
    for i in 0..32u32 {
        let acc: u32 = (0..i).filter(|k| k % 3 != 0).sum();
        let mut w = i;
        while w > 10 {
            w -= 7;
        }
        let r = if i < 10 {
            1
        } else if i < 20 {
            2
        } else {
            3
        };
        let want = acc * 1_000_000 + classify(i) * 10_000 + collatz(i + 1) * 10 + r;
        assert_eq!(got[i as usize], want, "invocation {i}");
        assert_eq!(got[i as usize + 32], w, "while result {i}");
    }
}

#[test]
fn functions_with_pointer_parameters() {
    let values: Vec<i32> = (0..64).map(|i| ((i * 37) % 23) - 11).collect();
    let out = run(
        "tests/functions_ptrs",
        "main",
        &[(0, 0, bytes_of(&values)), (0, 1, vec![0; 16 * 16])],
        [1, 1, 1],
    );
    let got = i32s(&out[1]);
    for i in 0..16 {
        let q = &values[i * 4..i * 4 + 4];
        let (a, b) = (q[0].min(q[1]), q[0].max(q[1]));
        let want = [
            *q.iter().min().unwrap(),
            *q.iter().max().unwrap(),
            a * 1000 + b,
            102,
        ];
        assert_eq!(&got[i * 4..i * 4 + 4], &want, "invocation {i}");
    }
}

#[test]
fn locals_are_zero_initialised() {
    let out = run(
        "tests/locals_zero",
        "main",
        &[(0, 0, vec![0xff; 8 * 4])],
        [1, 1, 1],
    );
    let table = [3u32, 1, 4, 1, 5, 9];
    let got = u32s(&out[0]);
    for i in 0..8 {
        assert_eq!(got[i], 600 + table[i % 6], "invocation {i}");
    }
}

/// Offsets of `Rec` in WGSL layout (see struct_layout.wgsl).
const REC_SIZE: usize = 128;

fn put_f32(b: &mut [u8], off: usize, v: f32) {
    b[off..off + 4].copy_from_slice(&v.to_le_bytes());
}

fn get_f32(b: &[u8], off: usize) -> f32 {
    f32::from_le_bytes(b[off..off + 4].try_into().unwrap())
}

fn get_u32(b: &[u8], off: usize) -> u32 {
    u32::from_le_bytes(b[off..off + 4].try_into().unwrap())
}

#[test]
fn struct_layout_matches_wgsl() {
    let n = 4;
    let mut recs = vec![0u8; n * REC_SIZE];
    let mut rng = Rng::new(11);
    for r in 0..n {
        let base = r * REC_SIZE;
        for k in 0..REC_SIZE / 4 {
            put_f32(&mut recs, base + 4 * k, rng.f32(-4.0, 4.0));
        }
        recs[base + 24..base + 28].copy_from_slice(&(r as u32 * 10).to_le_bytes()); // inner.k
        recs[base + 112..base + 116].copy_from_slice(&(0x1234_0000u32 + r as u32).to_le_bytes()); // flag
    }
    let out = run(
        "tests/struct_layout",
        "main",
        &[(0, 0, recs.clone()), (0, 1, vec![0; n * REC_SIZE])],
        [1, 1, 1],
    );
    let o = &out[1];
    for r in 0..n {
        let b = r * REC_SIZE;
        let w = get_f32(&recs, b + 12);
        for c in 0..3 {
            assert_eq!(
                get_f32(o, b + 4 * c),
                get_f32(&recs, b + 4 * c) * 2.0 + w,
                "pos[{c}] of {r}"
            );
        }
        assert_eq!(get_f32(o, b + 12), w);
        assert_eq!(get_f32(o, b + 16), get_f32(&recs, b + 20), "inner.v.x");
        assert_eq!(get_f32(o, b + 20), get_f32(&recs, b + 16), "inner.v.y");
        assert_eq!(get_u32(o, b + 24), r as u32 * 10 + 1, "inner.k");
        for k in 0..2 {
            assert_eq!(
                get_f32(o, b + 32 + 4 * k),
                get_f32(&recs, b + 32 + 4 * k),
                "arr[0]"
            );
            assert_eq!(
                get_f32(o, b + 48 + 4 * k),
                get_f32(&recs, b + 48 + 4 * k),
                "arr[2]"
            );
            let sum = get_f32(&recs, b + 32 + 4 * k) + get_f32(&recs, b + 48 + 4 * k);
            assert_eq!(get_f32(o, b + 40 + 4 * k), sum, "arr[1]");
        }
        for c in 0..3 {
            for rr in 0..3 {
                let got = get_f32(o, b + 64 + 16 * c + 4 * rr);
                let want = get_f32(&recs, b + 64 + 16 * rr + 4 * c);
                assert_eq!(got, want, "m[{c}][{rr}]");
            }
        }
        assert_eq!(get_u32(o, b + 112), !(0x1234_0000u32 + r as u32), "flag");
    }
}

#[test]
fn uniform_parameters() {
    let mut params = vec![0u8; 32];
    for (k, v) in [1.5f32, -2.0, 0.25, 3.0].iter().enumerate() {
        put_f32(&mut params, 4 * k, *v);
    }
    params[16..20].copy_from_slice(&20u32.to_le_bytes());
    put_f32(&mut params, 20, 0.5);
    let x = Rng::new(3).f32s(32 * 4, -8.0, 8.0);
    let y = Rng::new(4).f32s(32 * 4, -8.0, 8.0);
    let out = run(
        "tests/uniform_params",
        "main",
        &[(0, 0, params), (0, 1, bytes_of(&x)), (1, 0, bytes_of(&y))],
        [1, 1, 1],
    );
    let got = f32s(&out[2]);
    let scale = [1.5f32, -2.0, 0.25, 3.0];
    for i in 0..32 * 4 {
        let want = if i / 4 < 20 {
            scale[i % 4] * x[i] + y[i] + 0.5
        } else {
            y[i]
        };
        assert_eq!(got[i], want, "element {i}");
    }
}

#[test]
fn vectors_swizzles_and_select() {
    let a = Rng::new(5).f32s(32, -1.0, 2.0);
    let out = run(
        "tests/vectors",
        "main",
        &[
            (0, 0, bytes_of(&a)),
            (0, 1, vec![0; 64 * 4]),
            (0, 2, vec![0; 32 * 4]),
        ],
        [1, 1, 1],
    );
    let got = f32s(&out[1]);
    let flags = u32s(&out[2]);
    for i in 0..8 {
        let v = &a[i * 4..i * 4 + 4];
        let s = [v[3] + v[0] * 2.0, v[2] + v[1] * 2.0, v[1] + 2.0, v[0] + 4.0];
        assert_eq!(&got[i * 8..i * 8 + 4], &s, "swizzle sum {i}");
        let mut t = [v[0], v[i % 4], v[0]];
        t[(i + 1) % 3] = 7.0;
        let any = v.iter().any(|&x| x > 0.5);
        let all = v.iter().all(|&x| x > 0.5);
        assert_eq!(
            &got[i * 8 + 4..i * 8 + 8],
            &[t[0], t[1], t[2], if any { 1.0 } else { -1.0 }],
            "t {i}"
        );
        let want: Vec<u32> = (0..4)
            .map(
                |k| if v[k] > 0.5 { k as u32 + 1 } else { 0 } + if k == 0 && all { 100 } else { 0 },
            )
            .collect();
        assert_eq!(&flags[i * 4..i * 4 + 4], &want[..], "flags {i}");
    }
}

#[test]
fn bool_logic_and_workgroup_bools() {
    let x: Vec<u32> = (0..32).map(|i| i * 97 % 2011).collect();
    let out = run(
        "tests/bool_logic",
        "main",
        &[(0, 0, bytes_of(&x)), (0, 1, vec![0; 32 * 4])],
        [1, 1, 1],
    );
    let got = u32s(&out[1]);
    let mark = |v: u32| v.is_multiple_of(2) != (v > 1000);
    for li in 0..32 {
        let v = x[li];
        let (even, big) = (v.is_multiple_of(2), v > 1000);
        let b = (mark(x[(li + 1) % 32]), !mark(v));
        let either = even || big;
        let vb = (!b.0, !b.1 & either);
        let want = (even && big) as u32
            | (either as u32) << 1
            | (vb.0 as u32) << 2
            | (vb.1 as u32) << 3
            | (mark(v) as u32) << 4;
        assert_eq!(got[li], want, "invocation {li}");
    }
}

#[test]
fn robust_out_of_bounds_access() {
    let src: Vec<u32> = (0..5).map(|i| 10 + i).collect();
    let out = run(
        "tests/robust_access",
        "main",
        &[
            (0, 0, bytes_of(&src)),
            (0, 1, vec![0; 8 * 4]),
            (0, 2, vec![0; 16]),
        ],
        [1, 1, 1],
    );
    let got = u32s(&out[1]);
    // every out-of-bounds read clamps to the last element
    for (i, g) in got.iter().enumerate() {
        assert_eq!(*g, 14 + 14 * 1000 + 3 * 1_000_000, "dst[{i}]");
    }
    // fixed[i + 2] for i in 0..8: only 2 and 3 are in bounds
    assert_eq!(u32s(&out[2]), vec![0, 0, 0x1000, 0x1001]);
}
