//! Matrix arithmetic shader vs host.

use aqueduct_test_harness::shaderc::*;

type M4 = [[f32; 4]; 4]; // [column][row]

fn mat_vec(m: &M4, v: [f32; 4]) -> [f32; 4] {
    let mut r = [0.0; 4];
    for c in 0..4 {
        for k in 0..4 {
            r[k] += m[c][k] * v[c];
        }
    }
    r
}

fn det(m: &[Vec<f64>]) -> f64 {
    let n = m.len();
    if n == 1 {
        return m[0][0];
    }
    let mut acc = 0.0;
    for r in 0..n {
        let minor: Vec<Vec<f64>> = m[1..]
            .iter()
            .map(|col| {
                col.iter()
                    .enumerate()
                    .filter(|(i, _)| *i != r)
                    .map(|(_, x)| *x)
                    .collect()
            })
            .collect();
        let s = if r % 2 == 0 { 1.0 } else { -1.0 };
        acc += s * m[0][r] * det(&minor);
    }
    acc
}

#[test]
fn matrix_operations() {
    let ms = Rng::new(21).f32s(4 * 16, -2.0, 2.0);
    let vs = Rng::new(22).f32s(4 * 4, -2.0, 2.0);
    let out = run(
        "tests/matrices",
        "main",
        &[
            (0, 0, bytes_of(&ms)),
            (0, 1, bytes_of(&vs)),
            (0, 2, vec![0; 4 * 5 * 16]),
        ],
        [1, 1, 1],
    );
    let got = f32s(&out[2]);
    for i in 0..4 {
        let mut m: M4 = [[0.0; 4]; 4];
        for c in 0..4 {
            for r in 0..4 {
                m[c][r] = ms[i * 16 + c * 4 + r];
            }
        }
        let v = [vs[i * 4], vs[i * 4 + 1], vs[i * 4 + 2], vs[i * 4 + 3]];
        let o = &got[i * 20..i * 20 + 20];
        assert_close(&o[0..4], &mat_vec(&m, v), 1e-4, 1e-5, "m*v");
        let vm: Vec<f32> = (0..4)
            .map(|c| (0..4).map(|k| v[k] * m[c][k]).sum())
            .collect();
        assert_close(&o[4..8], &vm, 1e-4, 1e-5, "v*m");
        // mm = m * transpose(m) + 0.5 m - m, column i % 4
        let c = i % 4;
        let want: Vec<f32> = (0..4)
            .map(|r| {
                let mt: f32 = (0..4).map(|k| m[k][r] * m[k][c]).sum();
                mt + m[c][r] * 0.5 - m[c][r]
            })
            .collect();
        assert_close(&o[8..12], &want, 1e-4, 1e-5, "m*mT + m*0.5 - m");
        let to64 = |n: usize| -> Vec<Vec<f64>> {
            (0..n)
                .map(|c| (0..n).map(|r| f64::from(m[c][r])).collect())
                .collect()
        };
        let r23: Vec<f32> = (0..3).map(|r| m[0][r] * v[0] + m[1][r] * v[1]).collect();
        let dets = [
            det(&to64(2)) as f32,
            det(&to64(3)) as f32,
            det(&to64(4)) as f32,
            r23[2],
        ];
        assert_close(&o[12..16], &dets, 1e-3, 1e-4, "determinants");
        let vm23 = v[0] * m[1][0] + v[1] * m[1][1] + v[2] * m[1][2];
        assert_close(
            &o[16..20],
            &[r23[0], r23[1], vm23, 0.0],
            1e-4,
            1e-5,
            "mat2x3",
        );
    }
}
