//! Checked-in test shaders (shaders/tests/gfx1100) run on gfxsim; results
//! against host computations: memory, control flow, integer rules.

mod common;

use common::*;

#[test]
fn copy_u32_runtime_array() {
    let src = Lcg::new(1).u32s(200);
    let out = run("tests/copy_u32", "main", &[(0, 0, bytes_of(&src)), (0, 1, vec![0; 200 * 4])], [4, 1, 1]);
    let got = u32s(&out[1]);
    for i in 0..200 {
        assert_eq!(got[i], src[i].wrapping_mul(3).wrapping_add(i as u32), "element {i}");
    }
}

#[test]
fn int_div_wgsl_rules() {
    let pairs: Vec<i32> = vec![
        7, 2, -7, 2, 7, 0, -5, 0, i32::MIN, -1, i32::MIN, 1, 100, 33, 1, 31, 1, 32, -8, 35, 0, 0, 13, -4,
    ];
    let n = pairs.len() / 2;
    let out = run(
        "tests/int_div",
        "main",
        &[(0, 0, bytes_of(&pairs)), (0, 1, vec![0; n * 16]), (0, 2, vec![0; n * 16])],
        [1, 1, 1],
    );
    let got = i32s(&out[1]);
    let ugot = u32s(&out[2]);
    for i in 0..n {
        let (a, b) = (pairs[2 * i], pairs[2 * i + 1]);
        let div = if b == 0 || (a == i32::MIN && b == -1) { a } else { a / b };
        let rem = if b == 0 || (a == i32::MIN && b == -1) { 0 } else { a % b };
        let sh = (b as u32) & 31;
        assert_eq!(&got[4 * i..4 * i + 4], &[div, rem, a << sh, a >> sh], "signed pair {a},{b}");
        let (ua, ub) = (a as u32, b as u32);
        let udiv = if ub == 0 { ua } else { ua / ub };
        let urem = if ub == 0 { 0 } else { ua % ub };
        assert_eq!(&ugot[4 * i..4 * i + 4], &[udiv, urem, ua << sh, ua >> sh], "unsigned pair {ua},{ub}");
    }
}

#[test]
fn workgroup_reduce_with_barriers() {
    let data = Lcg::new(7).u32s(128 * 3);
    let out = run("tests/workgroup_reduce", "main", &[(0, 0, bytes_of(&data)), (0, 1, vec![0; 12])], [3, 1, 1]);
    let got = u32s(&out[1]);
    for g in 0..3 {
        let want = data[g * 128..(g + 1) * 128].iter().fold(0u32, |a, &b| a.wrapping_add(b));
        assert_eq!(got[g], want, "group {g}");
    }
}
