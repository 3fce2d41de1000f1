//! More test shaders on gfxsim vs host: scans, tiled matmul, several entry
//! points, runtime arrays behind headers, modf/frexp, storageBarrier,
//! switch, private arrays, vec3/mat3 storage layouts, integer builtins.

use aqueduct_test_harness::shaderc::*;

#[test]
fn prefix_sum_workgroup() {
    let data: Vec<u32> = Rng::new(51).u32s(128).iter().map(|v| v % 1000).collect();
    let out = run(
        "tests/prefix_sum",
        "main",
        &[(0, 0, bytes_of(&data)), (0, 1, vec![0; 128 * 4])],
        [2, 1, 1],
    );
    let got = u32s(&out[1]);
    for g in 0..2 {
        let mut acc = 0;
        for l in 0..64 {
            acc += data[g * 64 + l];
            assert_eq!(got[g * 64 + l], acc, "group {g} item {l}");
        }
    }
}

#[test]
fn matmul_tiled_8x8() {
    let (m, n, k) = (13usize, 11usize, 19usize);
    let a = Rng::new(52).f32s(m * k, -1.0, 1.0);
    let b = Rng::new(53).f32s(k * n, -1.0, 1.0);
    let dims = [m as u32, n as u32, k as u32, 0];
    let out = run(
        "tests/matmul_tiled",
        "main",
        &[
            (0, 0, bytes_of(&a)),
            (0, 1, bytes_of(&b)),
            (0, 2, vec![0; m * n * 4]),
            (0, 3, bytes_of(&dims)),
        ],
        [2, 2, 1],
    );
    let got = f32s(&out[2]);
    let want: Vec<f32> = (0..m * n)
        .map(|idx| {
            (0..k)
                .map(|q| a[(idx / n) * k + q] * b[q * n + idx % n])
                .sum()
        })
        .collect();
    assert_close(&got, &want, 1e-4, 1e-4, "C");
}

#[test]
fn two_entry_points_in_one_module() {
    let a: Vec<u32> = (0..16).collect();
    let b: Vec<u32> = (0..8).map(|i| i * 10).collect();
    let k = [7u32, 0, 0, 0];
    let out = run(
        "tests/multi_entry",
        "square",
        &[(0, 0, bytes_of(&a))],
        [1, 1, 1],
    );
    assert_eq!(u32s(&out[0]), (0..16).map(|i| i * i).collect::<Vec<u32>>());
    let out = run(
        "tests/multi_entry",
        "add_k",
        &[(0, 1, bytes_of(&b)), (1, 0, bytes_of(&k))],
        [1, 1, 1],
    );
    assert_eq!(
        u32s(&out[0]),
        (0..8).map(|i| i * 10 + 7).collect::<Vec<u32>>()
    );
    let (_, reflection) = checked_in("tests/multi_entry", "gfx1100");
    let square = reflection.entry_point("square").unwrap();
    assert_eq!(
        square
            .bindings
            .iter()
            .map(|b| b.arg.as_str())
            .collect::<Vec<_>>(),
        ["g0_b0"]
    );
    let add = reflection.entry_point("add_k").unwrap();
    assert_eq!(
        add.bindings
            .iter()
            .map(|b| b.arg.as_str())
            .collect::<Vec<_>>(),
        ["g0_b1", "g1_b0"]
    );
    assert_eq!(add.workgroup_size, [8, 1, 1]);
}

#[test]
fn struct_with_trailing_runtime_array() {
    let items = 10usize;
    let mut buf = vec![0u8; 16 + items * 16];
    buf[0..4].copy_from_slice(&42u32.to_le_bytes());
    buf[4..8].copy_from_slice(&2.0f32.to_le_bytes());
    let vals = Rng::new(54).f32s(items * 4, -5.0, 5.0);
    buf[16..].copy_from_slice(&bytes_of(&vals));
    let out = run(
        "tests/struct_runtime_array",
        "main",
        &[(0, 0, buf), (0, 1, vec![0; 16])],
        [1, 1, 1],
    );
    assert_eq!(&u32s(&out[1])[..2], &[items as u32, 42]);
    let got = f32s(&out[0][16..]);
    for i in 0..items {
        for c in 0..4 {
            assert_eq!(
                got[i * 4 + c],
                vals[(items - 1 - i) * 4 + c] * 2.0,
                "item {i}.{c}"
            );
        }
    }
}

#[test]
fn modf_frexp_ldexp() {
    let mut x = vec![2.75f32, -2.75, 0.0, 1.0, 1024.5, -0.125, 3e-3];
    x.extend(Rng::new(55).f32s(32 - x.len(), -1e4, 1e4));
    let out = run(
        "tests/modf_frexp",
        "main",
        &[
            (0, 0, bytes_of(&x)),
            (0, 1, vec![0; 32 * 16]),
            (0, 2, vec![0; 32 * 4]),
        ],
        [1, 1, 1],
    );
    let got = f32s(&out[1]);
    let exps = i32s(&out[2]);
    for (i, &v) in x.iter().enumerate() {
        let whole = v.trunc();
        let (fr, e) = if v == 0.0 {
            (0.0, 0)
        } else {
            let e = v.abs().log2().floor() as i32 + 1;
            (v / 2f32.powi(e), e)
        };
        assert_eq!(
            &got[i * 4..i * 4 + 4],
            &[v - whole, whole, fr, fr * 2f32.powi(e + 1)],
            "modf/frexp of {v}"
        );
        assert_eq!(exps[i], e, "exponent of {v}");
    }
}

#[test]
fn storage_barrier_orders_writes() {
    let out = run(
        "tests/storage_barrier",
        "main",
        &[(0, 0, vec![0; 128 * 4]), (0, 1, vec![0; 128 * 4])],
        [2, 1, 1],
    );
    let got = u32s(&out[1]);
    for g in 0..2u32 {
        for l in 0..64u32 {
            let n = (l + 1) % 64;
            assert_eq!(got[(g * 64 + l) as usize], n * n + g);
        }
    }
}

#[test]
fn switch_on_signed_values() {
    let x: Vec<i32> = vec![-3, -2, -1, 0, 7, 100, 5, i32::MIN]
        .into_iter()
        .cycle()
        .take(32)
        .collect();
    let out = run(
        "tests/switch_signed",
        "main",
        &[(0, 0, bytes_of(&x)), (0, 1, vec![0; 32 * 4])],
        [1, 1, 1],
    );
    let mut count = 0;
    for i in 0..6 {
        for j in 0..6 {
            match (i + j) % 3 {
                0 => continue,
                1 => count += 1,
                _ => count += 10,
            }
            if j > i {
                break;
            }
        }
    }
    for (i, g) in i32s(&out[1]).iter().enumerate() {
        let r = match x[i] {
            -3 | -2 => 1,
            0 => 2,
            100 => 4,
            _ => 3,
        };
        assert_eq!(*g, r * 1000 + count, "value {}", x[i]);
    }
}

#[test]
fn private_array_state() {
    let out = run(
        "tests/private_array",
        "main",
        &[(0, 0, vec![0; 32 * 4])],
        [1, 1, 1],
    );
    let got = u32s(&out[0]);
    for i in 0..16u32 {
        let hist = (0..i).filter(|k| (k * 3) % 8 == i % 8).count() as u32;
        let total: u32 = (0..i).map(|k| k * 3).sum();
        assert_eq!(
            &got[i as usize * 2..i as usize * 2 + 2],
            &[hist, total],
            "invocation {i}"
        );
    }
}

#[test]
fn vec3_array_stride_16() {
    let vals = Rng::new(56).f32s(16 * 4, -3.0, 3.0);
    let out = run(
        "tests/vec3_storage",
        "main",
        &[(0, 0, bytes_of(&vals))],
        [1, 1, 1],
    );
    let got = f32s(&out[0]);
    for i in 0..16 {
        let (x, y) = (vals[i * 4] * 2.0, vals[i * 4 + 1] * 2.0);
        assert_eq!(
            &got[i * 4..i * 4 + 4],
            &[x, y, x + y, vals[i * 4 + 3]],
            "point {i} (padding kept)"
        );
    }
}

#[test]
fn mat3_in_storage() {
    let ms = Rng::new(57).f32s(8 * 12, -2.0, 2.0);
    let vs = Rng::new(58).f32s(8 * 4, -2.0, 2.0);
    let out = run(
        "tests/mat_storage",
        "main",
        &[
            (0, 0, bytes_of(&ms)),
            (0, 1, bytes_of(&vs)),
            (0, 2, vec![0; 8 * 16]),
        ],
        [1, 1, 1],
    );
    let got_m = f32s(&out[0]);
    let got_v = f32s(&out[2]);
    for i in 0..8 {
        let m = &ms[i * 12..i * 12 + 12];
        let v = &vs[i * 4..i * 4 + 3];
        let mv: Vec<f32> = (0..3)
            .map(|r| m[r] * v[0] + m[4 + r] * v[1] + m[8 + r] * v[2])
            .collect();
        assert_close(
            &got_v[i * 4..i * 4 + 4],
            &[mv[0], mv[1], mv[2], 1.0],
            1e-5,
            1e-5,
            "m*v",
        );
        let mut want = m.to_vec();
        let c = i % 3;
        for r in 0..3 {
            want[c * 4 + r] += (r + 1) as f32;
        }
        want[((c + 1) % 3) * 4 + 1] = -5.0;
        assert_eq!(&got_m[i * 12..i * 12 + 12], &want[..], "matrix {i}");
    }
}

#[test]
fn integer_builtins() {
    let mut x: Vec<i32> = vec![5, -3, i32::MIN, 7, -200, 0, 150, 150];
    x.extend(
        Rng::new(59)
            .u32s(64 - x.len())
            .iter()
            .map(|&v| v as i32 >> 8),
    );
    let out = run(
        "tests/int_builtins",
        "main",
        &[(0, 0, bytes_of(&x)), (0, 1, vec![0; 32 * 32])],
        [1, 1, 1],
    );
    let got = i32s(&out[1]);
    for i in 0..32 {
        let (a, b) = (x[2 * i], x[2 * i + 1]);
        let want = [
            a.wrapping_abs(),
            a.min(b),
            a.max(b),
            a.clamp(-100, 100),
            b.signum(),
            (a as u32).min(b as u32) as i32,
            a.wrapping_mul(2)
                .wrapping_sub(b)
                .wrapping_add(3i32.wrapping_mul(a)),
            a.wrapping_mul(b).wrapping_add(a).wrapping_sub(b),
        ];
        assert_eq!(&got[i * 8..i * 8 + 8], &want, "({a}, {b})");
    }
}
