//! Floating point: f64 and f16 arithmetic (scalar and packed), f32 math and conversions,
//! fused multiply-add chains (matmul, Horner, Newton), VOPD dual issue, and WMMA matrix
//! multiplies (f16 and bf16 into f32, signed i8 into i32). Inputs are chosen so that host
//! references are exact: every IEEE basic operation is compared bit for bit; only the
//! compiler's division/square-root expansions get an ulp bound (documented per case).

use super::data::{Rng, bf16_exact, bytes, f16_from_f64, f16_to_f32, f16_to_f64, filled};
use super::{Arg, Case, Category, Expect, Kernel, Lang};

pub fn kernels() -> Vec<Kernel> {
    use Category::{F64F16 as F, General as G, Wmma as W};
    vec![
        Kernel {
            name: "f64_arith",
            lang: Lang::OpenCl,
            category: F,
            cases: f64_arith,
        },
        Kernel {
            name: "f64_horner",
            lang: Lang::OpenCl,
            category: F,
            cases: f64_horner,
        },
        Kernel {
            name: "f16_arith",
            lang: Lang::OpenCl,
            category: F,
            cases: f16_arith,
        },
        Kernel {
            name: "f16_packed",
            lang: Lang::OpenCl,
            category: F,
            cases: f16_packed,
        },
        Kernel {
            name: "hip_f64_newton",
            lang: Lang::Hip,
            category: F,
            cases: hip_f64_newton,
        },
        Kernel {
            name: "asm_f64_ops",
            lang: Lang::Asm,
            category: F,
            cases: asm_f64_ops,
        },
        Kernel {
            name: "f32_math",
            lang: Lang::OpenCl,
            category: G,
            cases: f32_math,
        },
        Kernel {
            name: "convert_f32",
            lang: Lang::OpenCl,
            category: G,
            cases: convert_f32,
        },
        Kernel {
            name: "matmul_f32",
            lang: Lang::OpenCl,
            category: G,
            cases: matmul_f32,
        },
        Kernel {
            name: "hip_saxpy_grid_stride",
            lang: Lang::Hip,
            category: G,
            cases: hip_saxpy_grid_stride,
        },
        Kernel {
            name: "asm_vopd",
            lang: Lang::Asm,
            category: G,
            cases: asm_vopd,
        },
        Kernel {
            name: "wmma_f32_f16",
            lang: Lang::OpenCl,
            category: W,
            cases: wmma_f32_f16,
        },
        Kernel {
            name: "wmma_i32_iu8",
            lang: Lang::OpenCl,
            category: W,
            cases: wmma_i32_iu8,
        },
        Kernel {
            name: "hip_wmma_bf16",
            lang: Lang::Hip,
            category: W,
            cases: hip_wmma_bf16,
        },
        Kernel {
            name: "asm_wmma_f16",
            lang: Lang::Asm,
            category: W,
            cases: asm_wmma_f16,
        },
    ]
}

/// Division and square root are the compiler's inline f64 expansions (scale, reciprocal or
/// reciprocal-sqrt estimate, Newton steps, fixup); allowed 1 ulp. Everything else is exact.
const F64_DIV_SQRT_ULP: u64 = 1;

fn f64_arith() -> Vec<Case> {
    [(512u32, 64u16), (100, 1)]
        .into_iter()
        .map(|(n, wg)| {
            let mut rng = Rng::new(n as u64 + 201);
            let mut make = |k: usize| -> Vec<f64> {
                (0..n as usize)
                    .map(|i| {
                        let v = rng.f64(-1e3, 1e3) * (2.0f64).powi(rng.range(-40, 40) as i32);
                        if i % 50 == k { 0.0 } else { v }
                    })
                    .collect()
            };
            let (a, b, c) = (make(7), make(99), make(13));
            let b: Vec<f64> = b
                .into_iter()
                .map(|v| if v == 0.0 { 3.0 } else { v })
                .collect();
            let (ra, rb, rc) = (a.clone(), b.clone(), c.clone());
            Case::linear(format!("n={n} wg={wg}"), n, wg)
                .buf(bytes(&a))
                .buf(bytes(&b))
                .buf(bytes(&c))
                .buf(filled(n as usize * 6, 0f64))
                .expect(move || {
                    let mut exact = Vec::new();
                    let mut rounded = Vec::new();
                    for i in 0..ra.len() {
                        let (x, y, z) = (ra[i], rb[i], rc[i]);
                        exact.push([x + y, x * y, x.mul_add(y, z), (x as f32) as f64]);
                        rounded.push([x / y, x.abs().sqrt()]);
                    }
                    let all: Vec<f64> = (0..ra.len())
                        .flat_map(|i| {
                            let (e, r) = (exact[i], rounded[i]);
                            [e[0], e[1], e[2], r[0], r[1], e[3]]
                        })
                        .collect();
                    vec![
                        (
                            3,
                            Expect::F64 {
                                want: all.clone(),
                                ulp: F64_DIV_SQRT_ULP,
                            },
                        ),
                        (
                            3,
                            Expect::Relation(Box::new(move |got| {
                                // The exact ones (all but slots 3 and 4) bit for bit.
                                let g = super::data::words::<u64>(got[3]);
                                for (i, w) in all.iter().enumerate() {
                                    if i % 6 != 3 && i % 6 != 4 && g[i] != w.to_bits() {
                                        return Err(format!(
                                            "element [{i}] (slot {}): got {:e}, want {w:e}",
                                            i % 6,
                                            f64::from_bits(g[i])
                                        ));
                                    }
                                }
                                Ok(())
                            })),
                        ),
                    ]
                })
        })
        .collect()
}

fn f64_horner() -> Vec<Case> {
    [(1000u32, 256u16), (64, 64)]
        .into_iter()
        .map(|(n, wg)| {
            let mut rng = Rng::new(n as u64 + 202);
            let x: Vec<f64> = (0..n).map(|_| rng.f64(-1.5, 1.5)).collect();
            let coef: Vec<f64> = (0..17)
                .map(|k| rng.f64(-1.0, 1.0) / (k + 1) as f64)
                .collect();
            let (rx, rc) = (x.clone(), coef.clone());
            Case::linear(format!("n={n} wg={wg}"), n, wg)
                .buf(bytes(&x))
                .buf(bytes(&coef))
                .buf(filled(n as usize, 0f64))
                .expect(move || {
                    let want = rx
                        .iter()
                        .map(|&v| (0..16).rev().fold(rc[16], |r, k| r.mul_add(v, rc[k])))
                        .collect();
                    vec![(2, Expect::F64 { want, ulp: 0 })]
                })
        })
        .collect()
}

/// f16 values k/256 for |k| <= 2048: every sum, product and fused product-sum of three of
/// them is exact in f64, so rounding that once to f16 is the IEEE result.
fn f16_inputs(rng: &mut Rng, n: usize) -> Vec<u16> {
    (0..n)
        .map(|_| f16_from_f64(rng.range(-2048, 2049) as f64 / 256.0))
        .collect()
}

fn f16_arith() -> Vec<Case> {
    [(512u32, 64u16), (33, 1)]
        .into_iter()
        .map(|(n, wg)| {
            let mut rng = Rng::new(n as u64 + 203);
            let (a, b, c) = (
                f16_inputs(&mut rng, n as usize),
                f16_inputs(&mut rng, n as usize),
                f16_inputs(&mut rng, n as usize),
            );
            let (ra, rb, rc) = (a.clone(), b.clone(), c.clone());
            Case::linear(format!("n={n} wg={wg}"), n, wg)
                .buf(bytes(&a))
                .buf(bytes(&b))
                .buf(bytes(&c))
                .buf(filled(n as usize * 6, 0u16))
                .expect(move || {
                    let mut want = Vec::new();
                    for i in 0..ra.len() {
                        let (x, y, z) = (f16_to_f64(ra[i]), f16_to_f64(rb[i]), f16_to_f64(rc[i]));
                        want.extend([
                            f16_from_f64(x + y),
                            f16_from_f64(x * y),
                            f16_from_f64(x * y + z),
                            if x <= y { ra[i] } else { rb[i] },
                            if x >= y { ra[i] } else { rb[i] },
                            f16_from_f64(x * y),
                        ]);
                    }
                    vec![(3, Expect::F16 { want, ulp: 0 })]
                })
        })
        .collect()
}

fn f16_packed() -> Vec<Case> {
    [(512u32, 64u16), (1024, 1024)]
        .into_iter()
        .map(|(n, wg)| {
            let mut rng = Rng::new(n as u64 + 204);
            let lanes = 2 * n as usize;
            let (a, b, c) = (
                f16_inputs(&mut rng, lanes),
                f16_inputs(&mut rng, lanes),
                f16_inputs(&mut rng, lanes),
            );
            let (ra, rb, rc) = (a.clone(), b.clone(), c.clone());
            Case::linear(format!("n={n} wg={wg}"), n, wg)
                .buf(bytes(&a))
                .buf(bytes(&b))
                .buf(bytes(&c))
                .buf(filled(lanes, 0u16))
                .buf(filled(n as usize, 0f32))
                .expect(move || {
                    let mut out = Vec::new();
                    let mut sum = Vec::new();
                    for p in 0..ra.len() / 2 {
                        let mut s = [0f32; 2];
                        for (h, slot) in s.iter_mut().enumerate() {
                            let i = 2 * p + h;
                            let (x, y, z) =
                                (f16_to_f64(ra[i]), f16_to_f64(rb[i]), f16_to_f64(rc[i]));
                            let f = f16_to_f64(f16_from_f64(x * y + z));
                            let m = f16_to_f64(f16_from_f64(x * z));
                            out.push(f16_from_f64(f - m));
                            *slot = f16_to_f32(f16_from_f64(x + y));
                        }
                        sum.push(s[0] + s[1]);
                    }
                    vec![
                        (3, Expect::F16 { want: out, ulp: 0 }),
                        (4, Expect::F32 { want: sum, ulp: 0 }),
                    ]
                })
        })
        .collect()
}

fn hip_f64_newton() -> Vec<Case> {
    [(512u32, 256u16), (64, 1)]
        .into_iter()
        .map(|(n, wg)| {
            let mut rng = Rng::new(n as u64 + 205);
            let x: Vec<f64> = (0..n).map(|_| rng.f64(0.5, 4.0)).collect();
            let rx = x.clone();
            Case::linear(format!("n={n} wg={wg}"), n, wg)
                .buf(bytes(&x))
                .buf(filled(n as usize, 0f64))
                .expect(move || {
                    let want = rx
                        .iter()
                        .map(|&v| {
                            let mut y = (1.0f32 / v as f32) as f64;
                            for _ in 0..6 {
                                let h = -0.5 * v * y;
                                y *= h.mul_add(y, 1.5);
                            }
                            y
                        })
                        .collect();
                    vec![(1, Expect::F64 { want, ulp: 0 })]
                })
        })
        .collect()
}

fn asm_f64_ops() -> Vec<Case> {
    [(256u32, 64u16), (96, 32)]
        .into_iter()
        .map(|(n, wg)| {
            let mut rng = Rng::new(n as u64 + 206);
            let a: Vec<f64> = (0..n).map(|_| rng.f64(-1e6, 1e6)).collect();
            let b: Vec<f64> = (0..n).map(|_| rng.f64(-1e6, 1e6)).collect();
            let (ra, rb) = (a.clone(), b.clone());
            Case::linear(format!("n={n} wg={wg}"), n, wg)
                .buf(bytes(&a))
                .buf(bytes(&b))
                .buf(filled(4 * n as usize, 0f64))
                .expect(move || {
                    let want = ra
                        .iter()
                        .zip(&rb)
                        .flat_map(|(&x, &y)| [x.mul_add(y, x), x + y, x * y, x.max(y)])
                        .collect();
                    vec![(2, Expect::F64 { want, ulp: 0 })]
                })
        })
        .collect()
}

/// OpenCL C 2.0's accuracy for single-precision x / y and sqrt without
/// -cl-fp32-correctly-rounded-divide-sqrt (2.5 and 3 ulp), rounded up.
const F32_DIV_SQRT_ULP: u32 = 3;

fn f32_math() -> Vec<Case> {
    [(1024u32, 256u16), (40, 1)]
        .into_iter()
        .map(|(n, wg)| {
            let mut rng = Rng::new(n as u64 + 207);
            let mut make = || -> Vec<f32> {
                (0..n)
                    .map(|_| {
                        let v = rng.f32(1e-3, 1e3);
                        if rng.u32() & 1 == 0 { v } else { -v }
                    })
                    .collect()
            };
            let (a, b) = (make(), make());
            let (ra, rb) = (a.clone(), b.clone());
            Case::linear(format!("n={n} wg={wg}"), n, wg)
                .buf(bytes(&a))
                .buf(bytes(&b))
                .buf(filled(8 * n as usize, 0f32))
                .expect(move || {
                    let mut approx = Vec::new();
                    let mut exact = Vec::new();
                    for i in 0..ra.len() {
                        let (x, y) = (ra[i], rb[i]);
                        let scale = (2.0f32).powi((i & 15) as i32 - 8);
                        approx.extend([x.abs().sqrt(), x / y, 1.0 / y]);
                        exact.extend([x.min(y), x.max(y), x.abs(), x.copysign(y), x * scale]);
                    }
                    let all: Vec<f32> = (0..ra.len())
                        .flat_map(|i| {
                            let (p, e) = (&approx[3 * i..3 * i + 3], &exact[5 * i..5 * i + 5]);
                            [p[0], p[1], p[2], e[0], e[1], e[2], e[3], e[4]]
                        })
                        .collect();
                    let exact_check = all.clone();
                    vec![
                        (
                            2,
                            Expect::F32 {
                                want: all,
                                ulp: F32_DIV_SQRT_ULP,
                            },
                        ),
                        (
                            2,
                            Expect::Relation(Box::new(move |got| {
                                let g = super::data::words::<u32>(got[2]);
                                for (i, w) in exact_check.iter().enumerate() {
                                    if i % 8 >= 3 && g[i] != w.to_bits() {
                                        return Err(format!(
                                            "element [{i}] (slot {}): got {}, want {w}",
                                            i % 8,
                                            f32::from_bits(g[i])
                                        ));
                                    }
                                }
                                Ok(())
                            })),
                        ),
                    ]
                })
        })
        .collect()
}

fn convert_f32() -> Vec<Case> {
    [(1024u32, 256u16), (64, 64)]
        .into_iter()
        .map(|(n, wg)| {
            let mut rng = Rng::new(n as u64 + 208);
            let specials = [
                0.5f32, 1.5, 2.5, -0.5, -1.5, -2.5, 0.0, -0.0, 3.75, -7.25, 8388607.5, -1e9,
            ];
            let x: Vec<f32> = (0..n as usize)
                .map(|i| match i % 4 {
                    0 => specials[(i / 4) % specials.len()],
                    1 => rng.range(-4000, 4000) as f32 / 4.0,
                    _ => rng.f32(-2e9, 2e9),
                })
                .collect();
            let k: Vec<i32> = rng.u32s(n as usize).into_iter().map(|v| v as i32).collect();
            let (rx, rk) = (x.clone(), k.clone());
            Case::linear(format!("n={n} wg={wg}"), n, wg)
                .buf(bytes(&x))
                .buf(bytes(&k))
                .buf(filled(8 * n as usize, 0u32))
                .expect(move || {
                    let want = rx
                        .iter()
                        .zip(&rk)
                        .flat_map(|(&f, &k)| {
                            [
                                f as i32 as u32,
                                f.abs() as u32,
                                (k as f32).to_bits(),
                                (k as u32 as f32).to_bits(),
                                f.floor().to_bits(),
                                f.ceil().to_bits(),
                                f.trunc().to_bits(),
                                f.round_ties_even().to_bits(),
                            ]
                        })
                        .collect();
                    vec![(2, Expect::U32(want))]
                })
        })
        .collect()
}

fn matmul_f32() -> Vec<Case> {
    [(32u32, [16u16, 16, 1]), (20, [8, 8, 1]), (5, [1, 1, 1])]
        .into_iter()
        .map(|(n, wg)| {
            let size = (n * n) as usize;
            let mut rng = Rng::new(n as u64 + 209);
            let a: Vec<f32> = (0..size).map(|_| rng.f32(-2.0, 2.0)).collect();
            let b: Vec<f32> = (0..size).map(|_| rng.f32(-2.0, 2.0)).collect();
            let (ra, rb) = (a.clone(), b.clone());
            let n_us = n as usize;
            Case::shaped(format!("n={n} wg={wg:?}"), [n, n, 1], wg)
                .buf(bytes(&a))
                .buf(bytes(&b))
                .buf(filled(size, 0f32))
                .arg(Arg::U32(n))
                .expect(move || {
                    let mut want = vec![0f32; n_us * n_us];
                    for r in 0..n_us {
                        for c in 0..n_us {
                            want[r * n_us + c] = (0..n_us).fold(0f32, |acc, k| {
                                ra[r * n_us + k].mul_add(rb[k * n_us + c], acc)
                            });
                        }
                    }
                    vec![(2, Expect::F32 { want, ulp: 0 })]
                })
        })
        .collect()
}

fn hip_saxpy_grid_stride() -> Vec<Case> {
    [(5000u32, 1024u32, 256u16), (777, 64, 64), (100, 1, 1)]
        .into_iter()
        .map(|(n, grid, wg)| {
            let mut rng = Rng::new(n as u64 + 210);
            let a = rng.f32(-3.0, 3.0);
            let x: Vec<f32> = (0..n).map(|_| rng.f32(-100.0, 100.0)).collect();
            let y: Vec<f32> = (0..n).map(|_| rng.f32(-100.0, 100.0)).collect();
            let (rx, ry) = (x.clone(), y.clone());
            Case::linear(format!("n={n} grid={grid} wg={wg}"), grid, wg)
                .arg(Arg::F32(a))
                .buf(bytes(&x))
                .buf(bytes(&y))
                .arg(Arg::U32(n))
                .expect(move || {
                    let want = rx.iter().zip(&ry).map(|(&x, &y)| a.mul_add(x, y)).collect();
                    vec![(1, Expect::F32 { want, ulp: 0 })]
                })
        })
        .collect()
}

fn asm_vopd() -> Vec<Case> {
    [(256u32, 64u16), (1000, 1000)]
        .into_iter()
        .map(|(n, wg)| {
            let mut rng = Rng::new(n as u64 + 211);
            let a: Vec<f32> = (0..n).map(|_| rng.f32(-100.0, 100.0)).collect();
            let b: Vec<f32> = (0..n).map(|_| rng.f32(-100.0, 100.0)).collect();
            let (ra, rb) = (a.clone(), b.clone());
            Case::linear(format!("n={n} wg={wg}"), n, wg)
                .buf(bytes(&a))
                .buf(bytes(&b))
                .buf(filled(4 * n as usize, 0f32))
                .expect(move || {
                    let want = ra
                        .iter()
                        .zip(&rb)
                        .flat_map(|(&x, &y)| [x * y, y - x, x.mul_add(y, x * y), y])
                        .collect();
                    vec![(2, Expect::F32 { want, ulp: 0 })]
                })
        })
        .collect()
}

/// D = A * B + C on 16x16 tiles (row-major), in f64 (exact for the small integers used).
fn matmul16(a: &[f64], b: &[f64], c: &[f64]) -> Vec<f64> {
    let mut d = c.to_vec();
    for r in 0..16 {
        for col in 0..16 {
            d[r * 16 + col] += (0..16)
                .map(|k| a[r * 16 + k] * b[k * 16 + col])
                .sum::<f64>();
        }
    }
    d
}

/// Small-integer tiles: `tiles` A, B, C of 256 values each.
fn int_tiles(seed: u64, tiles: usize, lo: i64, hi: i64) -> (Vec<f64>, Vec<f64>, Vec<f64>) {
    let mut rng = Rng::new(seed);
    let mut make = |lo: i64, hi: i64| {
        (0..tiles * 256)
            .map(|_| rng.range(lo, hi) as f64)
            .collect::<Vec<_>>()
    };
    (make(lo, hi), make(lo, hi), make(-100, 100))
}

fn tiled_reference(a: &[f64], b: &[f64], c: &[f64]) -> Vec<f64> {
    (0..a.len() / 256)
        .flat_map(|t| {
            matmul16(
                &a[t * 256..][..256],
                &b[t * 256..][..256],
                &c[t * 256..][..256],
            )
        })
        .collect()
}

fn wmma_f32_f16() -> Vec<Case> {
    [(4usize, 64u16), (1, 32)]
        .into_iter()
        .map(|(tiles, wg)| {
            let (a, b, c) = int_tiles(tiles as u64 + 212, tiles, -4, 5);
            let want: Vec<f32> = tiled_reference(&a, &b, &c)
                .into_iter()
                .map(|v| v as f32)
                .collect();
            let h = |v: &[f64]| bytes(&v.iter().map(|&x| f16_from_f64(x)).collect::<Vec<u16>>());
            let f = |v: &[f64]| bytes(&v.iter().map(|&x| x as f32).collect::<Vec<f32>>());
            Case::linear(format!("tiles={tiles} wg={wg}"), 32 * tiles as u32, wg)
                .buf(h(&a))
                .buf(h(&b))
                .buf(f(&c))
                .buf(filled(256 * tiles, 0f32))
                .expect(move || {
                    vec![(
                        3,
                        Expect::F32 {
                            want: want.clone(),
                            ulp: 0,
                        },
                    )]
                })
        })
        .collect()
}

fn wmma_i32_iu8() -> Vec<Case> {
    [(4usize, 128u16), (1, 32)]
        .into_iter()
        .map(|(tiles, wg)| {
            let (a, b, c) = int_tiles(tiles as u64 + 213, tiles, -128, 128);
            let want: Vec<u32> = tiled_reference(&a, &b, &c)
                .into_iter()
                .map(|v| v as i32 as u32)
                .collect();
            let i8s = |v: &[f64]| v.iter().map(|&x| x as i8 as u8).collect::<Vec<u8>>();
            Case::linear(format!("tiles={tiles} wg={wg}"), 32 * tiles as u32, wg)
                .buf(i8s(&a))
                .buf(i8s(&b))
                .buf(bytes(&c.iter().map(|&x| x as i32).collect::<Vec<i32>>()))
                .buf(filled(256 * tiles, 0u32))
                .expect(move || vec![(3, Expect::U32(want.clone()))])
        })
        .collect()
}

fn hip_wmma_bf16() -> Vec<Case> {
    [(4usize, 64u16), (2, 32)]
        .into_iter()
        .map(|(tiles, wg)| {
            let (a, b, c) = int_tiles(tiles as u64 + 214, tiles, -16, 17);
            let want: Vec<f32> = tiled_reference(&a, &b, &c)
                .into_iter()
                .map(|v| v as f32)
                .collect();
            let bf = |v: &[f64]| {
                bytes(
                    &v.iter()
                        .map(|&x| bf16_exact(x as f32))
                        .collect::<Vec<u16>>(),
                )
            };
            Case::linear(format!("tiles={tiles} wg={wg}"), 32 * tiles as u32, wg)
                .buf(bf(&a))
                .buf(bf(&b))
                .buf(bytes(&c.iter().map(|&x| x as f32).collect::<Vec<f32>>()))
                .buf(filled(256 * tiles, 0f32))
                .expect(move || {
                    vec![(
                        3,
                        Expect::F32 {
                            want: want.clone(),
                            ulp: 0,
                        },
                    )]
                })
        })
        .collect()
}

/// Row-major 16x16 tiles -> the accumulator's lane order (lane l, element j = row 2j + l/16,
/// column l%16), 8 values per lane.
fn to_lane_order(m: &[f64]) -> Vec<f64> {
    let mut out = Vec::with_capacity(m.len());
    for tile in m.chunks(256) {
        for l in 0..32 {
            for j in 0..8 {
                out.push(tile[(2 * j + l / 16) * 16 + l % 16]);
            }
        }
    }
    out
}

fn asm_wmma_f16() -> Vec<Case> {
    [(4usize, 64u16), (1, 32)]
        .into_iter()
        .map(|(tiles, wg)| {
            let (a, b, c) = int_tiles(tiles as u64 + 215, tiles, -4, 5);
            let want: Vec<f32> = to_lane_order(&tiled_reference(&a, &b, &c))
                .into_iter()
                .map(|v| v as f32)
                .collect();
            let mut bt = vec![0f64; b.len()];
            for t in 0..tiles {
                for r in 0..16 {
                    for col in 0..16 {
                        bt[t * 256 + col * 16 + r] = b[t * 256 + r * 16 + col];
                    }
                }
            }
            let h = |v: &[f64]| bytes(&v.iter().map(|&x| f16_from_f64(x)).collect::<Vec<u16>>());
            Case::linear(format!("tiles={tiles} wg={wg}"), 32 * tiles as u32, wg)
                .buf(h(&a))
                .buf(h(&bt))
                .buf(bytes(
                    &to_lane_order(&c)
                        .iter()
                        .map(|&x| x as f32)
                        .collect::<Vec<f32>>(),
                ))
                .buf(filled(256 * tiles, 0f32))
                .expect(move || {
                    vec![(
                        3,
                        Expect::F32 {
                            want: want.clone(),
                            ulp: 0,
                        },
                    )]
                })
        })
        .collect()
}
