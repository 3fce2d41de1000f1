//! Float builtins, conversions, f16 and overrides on gfxsim vs host.

use aqueduct_test_harness::shaderc::*;

#[test]
fn float_arithmetic_builtins() {
    let mut ab = Rng::new(31).f32s(64, -3.0, 3.0);
    ab[2] = 0.0; // a = 0
    ab[5] = 2.0; // b = a multiple case below
    ab[4] = 5.0;
    let out = run(
        "tests/float_basic",
        "main",
        &[(0, 0, bytes_of(&ab)), (0, 1, vec![0; 32 * 48])],
        [1, 1, 1],
    );
    let got = f32s(&out[1]);
    for i in 0..32 {
        let (a, b) = (ab[2 * i], ab[2 * i + 1]);
        let sign = |x: f32| {
            if x > 0.0 {
                1.0
            } else if x < 0.0 {
                -1.0
            } else {
                0.0
            }
        };
        let want = [
            a + b,
            a - b,
            a * b,
            a / b,
            a % b,
            a.abs(),
            a.min(b) + a.max(b) * 10.0,
            a.clamp(-0.5, 0.75),
            a.mul_add(b, 0.25),
            a.clamp(0.0, 1.0),
            sign(a),
            f32::from(u8::from(a < b))
                + 2.0 * f32::from(u8::from(a >= b))
                + 4.0
                + 8.0 * f32::from(u8::from(a != b)),
        ];
        assert_close(
            &got[i * 12..i * 12 + 12],
            &want,
            1e-6,
            1e-6,
            &format!("float ops of ({a}, {b})"),
        );
    }
}

#[test]
fn float_rounding() {
    let mut x = vec![
        0.5f32,
        1.5,
        2.5,
        -0.5,
        -1.5,
        -2.5,
        0.49999997,
        -0.0,
        3.7,
        -3.7,
        1e7 + 0.5,
    ];
    x.extend(Rng::new(32).f32s(32 - x.len(), -100.0, 100.0));
    let out = run(
        "tests/float_round",
        "main",
        &[
            (0, 0, bytes_of(&x)),
            (0, 1, vec![0; 32 * 16]),
            (0, 2, vec![0; 32 * 4]),
        ],
        [1, 1, 1],
    );
    let got = f32s(&out[1]);
    let fr = f32s(&out[2]);
    for (i, &v) in x.iter().enumerate() {
        let want = [v.floor(), v.ceil(), v.round_ties_even(), v.trunc()];
        assert_eq!(&got[i * 4..i * 4 + 4], &want, "rounding {v}");
        assert_close(&fr[i..i + 1], &[v - v.floor()], 1e-6, 0.0, "fract");
    }
}

#[test]
fn float_exponentials() {
    let x = Rng::new(33).f32s(32, 0.05, 20.0);
    let out = run(
        "tests/float_exp",
        "main",
        &[(0, 0, bytes_of(&x)), (0, 1, vec![0; 32 * 28])],
        [1, 1, 1],
    );
    let got = f32s(&out[1]);
    for (i, &v) in x.iter().enumerate() {
        let d = f64::from(v);
        let want = [
            d.sqrt(),
            1.0 / d.sqrt(),
            (d * 0.25).exp(),
            (d * 0.5).exp2(),
            d.ln(),
            d.log2(),
            d.powf(1.7),
        ];
        let want: Vec<f32> = want.iter().map(|&w| w as f32).collect();
        assert_close(
            &got[i * 7..i * 7 + 7],
            &want,
            1e-5,
            1e-5,
            &format!("exp/log of {v}"),
        );
    }
}

#[test]
fn float_trigonometry() {
    let x = Rng::new(34).f32s(32, -0.99, 0.99);
    let out = run(
        "tests/float_trig",
        "main",
        &[(0, 0, bytes_of(&x)), (0, 1, vec![0; 32 * 64])],
        [1, 1, 1],
    );
    let got = f32s(&out[1]);
    for (i, &v) in x.iter().enumerate() {
        let d = f64::from(v);
        let w = d * 3.0;
        let want = [
            w.sin(),
            w.cos(),
            d.tan(),
            d.asin(),
            d.acos(),
            w.atan(),
            d.atan2(w - 0.5),
            d.sinh(),
            d.cosh(),
            w.tanh(),
            w.asinh(),
            (2.0 + w.abs()).acosh(),
            (d * 0.9).atanh(),
            (w * 60.0).to_radians(),
            d.to_degrees(),
            (-d).atan2(-1.0),
        ];
        let want: Vec<f32> = want.iter().map(|&w| w as f32).collect();
        assert_close(
            &got[i * 16..i * 16 + 16],
            &want,
            2e-4,
            2e-4,
            &format!("trig of {v}"),
        );
    }
}

#[test]
fn geometric_builtins() {
    let a = Rng::new(35).f32s(64, -2.0, 2.0);
    let b = Rng::new(36).f32s(64, -2.0, 2.0);
    let out = run(
        "tests/geometry",
        "main",
        &[
            (0, 0, bytes_of(&a)),
            (0, 1, bytes_of(&b)),
            (0, 2, vec![0; 16 * 64]),
        ],
        [1, 1, 1],
    );
    let got = f32s(&out[2]);
    for i in 0..16 {
        let p: Vec<f64> = a[i * 4..i * 4 + 4].iter().map(|&x| f64::from(x)).collect();
        let q: Vec<f64> = b[i * 4..i * 4 + 4].iter().map(|&x| f64::from(x)).collect();
        let dot = |x: &[f64], y: &[f64]| x.iter().zip(y).map(|(a, b)| a * b).sum::<f64>();
        let len = |x: &[f64]| dot(x, x).sqrt();
        let nq: Vec<f64> = q[..3].iter().map(|x| x / len(&q[..3])).collect();
        let cross = [
            p[1] * q[2] - p[2] * q[1],
            p[2] * q[0] - p[0] * q[2],
            p[0] * q[1] - p[1] * q[0],
        ];
        let diff: Vec<f64> = p.iter().zip(&q).map(|(a, b)| a - b).collect();
        let dn = dot(&nq, &p[..3]);
        let refl: Vec<f64> = (0..3).map(|k| p[k] - 2.0 * dn * nq[k]).collect();
        let t = ((p[3] + 1.0) / 2.0).clamp(0.0, 1.0);
        let np: Vec<f64> = p[..3].iter().map(|x| x / len(&p[..3])).collect();
        let eta = 0.7;
        let ni = dot(&nq, &np);
        let k = 1.0 - eta * eta * (1.0 - ni * ni);
        let refr: Vec<f64> = (0..3)
            .map(|j| {
                if k < 0.0 {
                    0.0
                } else {
                    eta * np[j] - (eta * ni + k.sqrt()) * nq[j]
                }
            })
            .collect();
        let ff: Vec<f64> = (0..3)
            .map(|j| {
                if dot(&q[..3], &p[..3]) < 0.0 {
                    nq[j]
                } else {
                    -nq[j]
                }
            })
            .collect();
        let mix: Vec<f64> = (0..4).map(|j| p[j] * 0.75 + q[j] * 0.25).collect();
        let step = if p[3] >= 0.0 { 1.0 } else { 0.0 };
        let want = [
            cross[0],
            cross[1],
            cross[2],
            dot(&p, &q),
            len(&p),
            len(&diff),
            p[0].abs(),
            (i as f64) * 3.0 - 2.0,
            refl[0],
            refl[1],
            refl[2],
            t * t * (3.0 - 2.0 * t),
            refr[0] + ff[0] + mix[0],
            refr[1] + ff[1] + mix[1],
            refr[2] + ff[2] + mix[2],
            step + mix[3],
        ];
        let want: Vec<f32> = want.iter().map(|&w| w as f32).collect();
        assert_close(
            &got[i * 16..i * 16 + 16],
            &want,
            1e-4,
            1e-4,
            &format!("geometry {i}"),
        );
    }
}

#[test]
fn conversions_and_bitcasts() {
    let mut x = vec![
        1.5f32,
        -1.5,
        3e9,
        -3e9,
        5e9,
        f32::NAN,
        0.0,
        -0.7,
        255.9,
        1e-3,
    ];
    x.extend(Rng::new(37).f32s(32 - x.len(), -1e6, 1e6));
    let out = run(
        "tests/conversions",
        "main",
        &[(0, 0, bytes_of(&x)), (0, 1, vec![0; 32 * 16])],
        [1, 1, 1],
    );
    let got = u32s(&out[1]);
    for (i, &v) in x.iter().enumerate() {
        // Rust's `as` saturates (NaN -> 0) exactly like WGSL's conversion.
        let (si, su) = (v as i32, v as u32);
        let back = si as f32 + su as f32 * 0.5;
        let want = [
            si as u32,
            su,
            back.to_bits(),
            u32::from(v > 0.0) + 2.0f32.to_bits(),
        ];
        assert_eq!(&got[i * 4..i * 4 + 4], &want, "conversions of {v}");
    }
}

fn f16_bits(v: f32) -> u16 {
    half::f16::from_f32(v).to_bits()
}

fn f16_val(bits: u16) -> f32 {
    half::f16::from_bits(bits).to_f32()
}

#[test]
fn f16_arithmetic() {
    let vals = Rng::new(38).f32s(32, -4.0, 4.0);
    let x: Vec<u16> = vals.iter().map(|&v| f16_bits(v)).collect();
    let out = run(
        "tests/f16_math",
        "main",
        &[
            (0, 0, bytes_of(&x)),
            (0, 1, vec![0; 16 * 16]),
            (0, 2, vec![0; 16 * 4]),
        ],
        [1, 1, 1],
    );
    let got = f32s(&out[1]);
    let hout: Vec<u16> = out[2]
        .chunks_exact(2)
        .map(|c| u16::from_le_bytes([c[0], c[1]]))
        .collect();
    let h = |v: f32| f16_val(f16_bits(v));
    for i in 0..16 {
        let (a, b) = (f16_val(x[2 * i]), f16_val(x[2 * i + 1]));
        let s = h(h(a * b) + 1.5);
        let want = [s, a.max(b), h(a / 2.0), h(b * 3.0)];
        assert_close(
            &got[i * 4..i * 4 + 4],
            &want,
            2e-3,
            2e-3,
            &format!("f16 ops of ({a}, {b})"),
        );
        let hw = [h(s * 2.0), h(-a * 2.0)];
        let hg = [f16_val(hout[2 * i]), f16_val(hout[2 * i + 1])];
        assert_close(&hg, &hw, 2e-3, 2e-3, "f16 stores");
    }
}

#[test]
fn override_defaults_are_specialised() {
    let out = run(
        "tests/overrides",
        "main",
        &[(0, 0, vec![0; 64 * 4])],
        [2, 1, 1],
    );
    let got = f32s(&out[0]);
    for (i, g) in got.iter().enumerate() {
        assert_eq!(*g, (i as u32 * 3) as f32 + 0.5 + 32_000.0, "element {i}");
    }
}

/// The distance between `v` and the next f32 away from zero (ulp of v).
fn ulp_f32(v: f64) -> f64 {
    let f = (v as f32).abs();
    if f == 0.0 {
        f64::from(f32::from_bits(1))
    } else {
        f64::from(f32::from_bits(f.to_bits() + 1) - f)
    }
}

/// Largest error of `got` against `want` in ulps of the f32 result, after
/// forgiving `abs` of absolute error; and the input where it happens.
fn worst_ulps(xs: &[f32], got: &[f32], want: &[f64], abs: f64) -> (f64, f32) {
    let mut worst = (0.0, 0.0);
    for ((&x, &g), &w) in xs.iter().zip(got).zip(want) {
        let err = ((f64::from(g) - w).abs() - abs).max(0.0) / ulp_f32(w);
        if err > worst.0 || err.is_nan() {
            worst = (err, x);
        }
    }
    worst
}

/// Arguments from 1e-3 to 1e5 in magnitude (geometric steps, both signs),
/// plus the f32 values nearest to multiples of pi/2 up to 1e5 (where the
/// reduced argument is tiny and an inexact reduction shows).
fn trig_arguments() -> Vec<f32> {
    let mut xs = Vec::new();
    let mut rng = Rng::new(77);
    for i in 0..1536 {
        let t = i as f64 / 1536.0;
        let mag = 1e-3 * 1e8f64.powf(t) * (1.0 + 0.01 * f64::from(rng.u32() % 100));
        let sign = if i % 2 == 0 { 1.0 } else { -1.0 };
        xs.push((sign * mag.min(1e5)) as f32);
    }
    let mut k = 1.0f64;
    while xs.len() < 2048 {
        xs.push((k * std::f64::consts::FRAC_PI_2) as f32);
        k = (k * 1.37).ceil();
        if k * std::f64::consts::FRAC_PI_2 > 1e5 {
            k = 1.0 + f64::from(rng.u32() % 64);
        }
    }
    xs
}

#[test]
fn sin_cos_tan_are_accurate_for_large_arguments() {
    let xs = trig_arguments();
    let out = run(
        "tests/trig_accuracy",
        "trig",
        &[(0, 0, bytes_of(&xs)), (0, 1, vec![0; xs.len() * 16])],
        [xs.len() as u32 / 64, 1, 1],
    );
    let got = f32s(&out[1]);
    let lane = |k: usize| -> Vec<f32> { got.iter().skip(k).step_by(4).copied().collect() };
    let d: Vec<f64> = xs.iter().map(|&x| f64::from(x)).collect();
    let sin: Vec<f64> = d.iter().map(|x| x.sin()).collect();
    let cos: Vec<f64> = d.iter().map(|x| x.cos()).collect();
    let tan: Vec<f64> = d.iter().map(|x| x.tan()).collect();
    // Bounds: 2 ulp of the result plus 2^-30 absolute (sin, cos); tan
    // within 4 ulp (its quotient adds the errors of both polynomials).
    let abs = 2f64.powi(-30);
    for (name, g, w, bound, abs) in [
        ("sin", lane(0), &sin, 2.0, abs),
        ("cos", lane(1), &cos, 2.0, abs),
        ("tan", lane(2), &tan, 4.0, abs),
    ] {
        let (ulps, at) = worst_ulps(&xs, &g, w, abs);
        eprintln!("{name}: worst {ulps:.2} ulp at x = {at}");
        assert!(ulps <= bound, "{name}: {ulps} ulp at x = {at}");
    }
    // Infinities and NaN give NaN.
    let special = [f32::INFINITY, f32::NEG_INFINITY, f32::NAN];
    let mut input = special.to_vec();
    input.resize(64, 0.5);
    let out = run(
        "tests/trig_accuracy",
        "trig",
        &[(0, 0, bytes_of(&input)), (0, 1, vec![0; 64 * 16])],
        [1, 1, 1],
    );
    let got = f32s(&out[1]);
    for i in 0..3 {
        assert!(
            got[i * 4..i * 4 + 3].iter().all(|v| v.is_nan()),
            "{:?}",
            &got[i * 4..i * 4 + 3]
        );
    }
}

#[test]
fn asin_acos_are_accurate_near_one() {
    // [-1, 1] uniformly, then the 512 f32 values just below 1 and above -1.
    let mut xs: Vec<f32> = (0..1024).map(|i| -1.0 + 2.0 * i as f32 / 1023.0).collect();
    let mut v = 1.0f32;
    for _ in 0..256 {
        v = f32::from_bits(v.to_bits() - 1);
        xs.push(v);
        xs.push(-v);
    }
    let out = run(
        "tests/trig_accuracy",
        "inverse",
        &[(0, 0, bytes_of(&xs)), (0, 1, vec![0; xs.len() * 16])],
        [xs.len() as u32 / 64, 1, 1],
    );
    let got = f32s(&out[1]);
    let lane = |k: usize| -> Vec<f32> { got.iter().skip(k).step_by(4).copied().collect() };
    let d: Vec<f64> = xs.iter().map(|&x| f64::from(x)).collect();
    let asin: Vec<f64> = d.iter().map(|x| x.asin()).collect();
    let acos: Vec<f64> = d.iter().map(|x| x.acos()).collect();
    let atan: Vec<f64> = d.iter().map(|x| x.atan()).collect();
    for (name, g, w) in [
        ("asin", lane(0), &asin),
        ("acos", lane(1), &acos),
        ("atan", lane(2), &atan),
    ] {
        let (ulps, at) = worst_ulps(&xs, &g, w, 0.0);
        eprintln!("{name}: worst {ulps:.2} ulp at x = {at}");
        assert!(ulps <= 4.0, "{name}: {ulps} ulp at x = {at}");
    }
}

#[test]
fn exp_log_pow_meet_wgsl_accuracy() {
    // x in (-8000, 8000) (exp args = x/100), y over many magnitudes.
    let mut rng = Rng::new(78);
    let n = 1024;
    let mut input = Vec::with_capacity(2 * n);
    for i in 0..n {
        input.push(rng.f32(-8000.0, 8000.0));
        let mag = 10f32.powf(-20.0 + 40.0 * i as f32 / n as f32);
        input.push(if i % 3 == 0 { -mag } else { mag });
    }
    let out = run(
        "tests/transcendental_accuracy",
        "main",
        &[(0, 0, bytes_of(&input)), (0, 1, vec![0; n * 32])],
        [n as u32 / 64, 1, 1],
    );
    let got = f32s(&out[1]);
    let xs: Vec<f32> = input.iter().step_by(2).copied().collect();
    let lane = |k: usize| -> Vec<f32> { got.iter().skip(k).step_by(8).copied().collect() };
    let e: Vec<f64> = xs.iter().map(|&x| f64::from(x * 0.01)).collect();
    let p: Vec<f64> = input
        .iter()
        .skip(1)
        .step_by(2)
        .map(|&y| f64::from(y.abs() + 1e-30))
        .collect();
    let ulps = |g: &[f32], w: &[f64], abs: f64| worst_ulps(&xs, g, w, abs).0;
    // exp, exp2: WGSL allows 3 + 2|x| ulp; we hold 3 ulp + 1 per 16 of |x|.
    let exp: Vec<f64> = e.iter().map(|x| x.exp()).collect();
    let exp2: Vec<f64> = e.iter().map(|x| x.exp2()).collect();
    for (name, g, w) in [("exp", lane(0), &exp), ("exp2", lane(1), &exp2)] {
        for i in 0..n {
            let u = worst_ulps(&xs[i..=i], &g[i..=i], &w[i..=i], 0.0).0;
            let bound = 3.0 + 2.0 * e[i].abs();
            assert!(
                u <= bound,
                "{name}({}) off by {u} ulp (WGSL bound {bound})",
                e[i]
            );
        }
        eprintln!("{name}: worst {:.2} ulp", ulps(&g, w, 0.0));
    }
    // log, log2: 3 ulp outside [0.5, 2], 2^-21 absolute inside.
    let log: Vec<f64> = p.iter().map(|x| x.ln()).collect();
    let log2: Vec<f64> = p.iter().map(|x| x.log2()).collect();
    for (name, g, w) in [("log", lane(2), &log), ("log2", lane(3), &log2)] {
        for i in 0..n {
            let err = (f64::from(g[i]) - w[i]).abs();
            if (0.5..=2.0).contains(&p[i]) {
                assert!(err <= 2f64.powi(-21), "{name}({}) off by {err}", p[i]);
            } else {
                let u = err / ulp_f32(w[i]);
                assert!(u <= 3.0, "{name}({}) off by {u} ulp", p[i]);
            }
        }
        eprintln!("{name}: worst {:.2} ulp", ulps(&g, w, 0.0));
    }
    // pow = exp2(y * log2(x)): WGSL inherits the bound of that expression;
    // checked as relative error within 2^-16 + (|y log2 x|) * 2^-21.
    let pw = lane(4);
    for i in 0..n {
        let y = f64::from((xs[i] * 0.01) * 0.05);
        let w = p[i].powf(y);
        let t = (y * p[i].log2()).abs();
        if w.is_finite() && w > 1e-30 && w < 1e30 {
            let rel = (f64::from(pw[i]) - w).abs() / w;
            assert!(
                rel <= 2f64.powi(-16) + t * 2f64.powi(-21),
                "pow({}, {y}) rel err {rel}",
                p[i]
            );
        }
    }
    // atan2: 4 ulp. tanh, sinh (computed from exp, with cancellation near
    // 0): 8 ulp beyond an absolute 2^-22 (WGSL inherits their formulas).
    let tanh: Vec<f64> = e.iter().map(|x| (x * 0.1).tanh()).collect();
    let sinh: Vec<f64> = e.iter().map(|x| (x * 0.1).sinh()).collect();
    let atan2: Vec<f64> = input
        .chunks(2)
        .map(|c| f64::from(c[0]).atan2(f64::from(c[1])))
        .collect();
    let u = ulps(&lane(6), &atan2, 0.0);
    eprintln!("atan2: worst {u:.2} ulp");
    assert!(u <= 4.0, "atan2: {u} ulp");
    for (name, g, w) in [("tanh", lane(5), &tanh), ("sinh", lane(7), &sinh)] {
        let u = ulps(&g, w, 2f64.powi(-22));
        eprintln!("{name}: worst {u:.2} ulp beyond 2^-22");
        assert!(u <= 8.0, "{name}: {u} ulp");
    }
}
