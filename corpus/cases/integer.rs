//! Integer kernels: 32- and 64-bit division and remainder (signed, unsigned, by
//! constants), bit operations, 64-bit hashing, three-operand VALU ops, scalar-ALU loops,
//! exec-mask divergence, and templated code. All compared exactly.

use super::data::{Rng, bytes, filled};
use super::{Arg, Case, Category, Expect, Kernel, Lang};

pub fn kernels() -> Vec<Kernel> {
    use Category::{General as G, IntDiv as D};
    vec![
        Kernel {
            name: "idiv_u32",
            lang: Lang::OpenCl,
            category: D,
            cases: idiv_u32,
        },
        Kernel {
            name: "idiv_i32",
            lang: Lang::OpenCl,
            category: D,
            cases: idiv_i32,
        },
        Kernel {
            name: "idiv_64",
            lang: Lang::OpenCl,
            category: D,
            cases: idiv_64,
        },
        Kernel {
            name: "idiv_const",
            lang: Lang::OpenCl,
            category: D,
            cases: idiv_const,
        },
        Kernel {
            name: "bitops",
            lang: Lang::OpenCl,
            category: G,
            cases: bitops,
        },
        Kernel {
            name: "hash_u64",
            lang: Lang::OpenCl,
            category: G,
            cases: hash_u64,
        },
        Kernel {
            name: "hip_templates",
            lang: Lang::Hip,
            category: G,
            cases: hip_templates,
        },
        Kernel {
            name: "asm_vadd_u32",
            lang: Lang::Asm,
            category: G,
            cases: asm_vadd_u32,
        },
        Kernel {
            name: "asm_salu_loop",
            lang: Lang::Asm,
            category: G,
            cases: asm_salu_loop,
        },
        Kernel {
            name: "asm_divergent_exec",
            lang: Lang::Asm,
            category: G,
            cases: asm_divergent_exec,
        },
        Kernel {
            name: "asm_valu_mix",
            lang: Lang::Asm,
            category: G,
            cases: asm_valu_mix,
        },
        Kernel {
            name: "asm_barrier_rounds",
            lang: Lang::Asm,
            category: G,
            cases: asm_barrier_rounds,
        },
    ]
}

/// Divisors of every shape: 1, small, powers of two, near-max, random.
fn divisor(rng: &mut Rng, i: usize) -> u64 {
    match i % 6 {
        0 => 1,
        1 => rng.range(2, 17) as u64,
        2 => 1 << rng.range(0, 32),
        3 => u32::MAX as u64 - rng.range(0, 3) as u64,
        _ => (rng.u32() >> rng.range(0, 31)).max(1) as u64,
    }
}

fn idiv_u32() -> Vec<Case> {
    [(2048u32, 256u16), (64, 1)]
        .into_iter()
        .map(|(n, wg)| {
            let mut rng = Rng::new(n as u64 + 301);
            let a = rng.u32s(n as usize);
            let b: Vec<u32> = (0..n as usize)
                .map(|i| divisor(&mut rng, i) as u32)
                .collect();
            let (ra, rb) = (a.clone(), b.clone());
            Case::linear(format!("n={n} wg={wg}"), n, wg)
                .buf(bytes(&a))
                .buf(bytes(&b))
                .buf(filled(n as usize, 0u32))
                .buf(filled(n as usize, 0u32))
                .expect(move || {
                    let q = ra.iter().zip(&rb).map(|(&a, &b)| a / b).collect();
                    let r = ra.iter().zip(&rb).map(|(&a, &b)| a % b).collect();
                    vec![(2, Expect::U32(q)), (3, Expect::U32(r))]
                })
        })
        .collect()
}

fn idiv_i32() -> Vec<Case> {
    [(2048u32, 256u16), (64, 64)]
        .into_iter()
        .map(|(n, wg)| {
            let mut rng = Rng::new(n as u64 + 302);
            let a: Vec<i32> = (0..n as usize)
                .map(|i| {
                    if i % 37 == 0 {
                        i32::MIN
                    } else {
                        rng.u32() as i32
                    }
                })
                .collect();
            let b: Vec<i32> = (0..n as usize)
                .map(|i| {
                    let d = divisor(&mut rng, i) as u32 as i32;
                    let d = if d == 0 || (d == -1 && a[i] == i32::MIN) {
                        7
                    } else {
                        d
                    };
                    if rng.u32() & 1 == 0 {
                        d
                    } else {
                        d.wrapping_neg()
                    }
                })
                .map(|d| if d == 0 { 3 } else { d })
                .collect();
            let b: Vec<i32> = b
                .iter()
                .zip(&a)
                .map(|(&d, &x)| if d == -1 && x == i32::MIN { 5 } else { d })
                .collect();
            let (ra, rb) = (a.clone(), b.clone());
            Case::linear(format!("n={n} wg={wg}"), n, wg)
                .buf(bytes(&a))
                .buf(bytes(&b))
                .buf(filled(n as usize, 0u32))
                .buf(filled(n as usize, 0u32))
                .expect(move || {
                    let q = ra.iter().zip(&rb).map(|(&a, &b)| (a / b) as u32).collect();
                    let r = ra.iter().zip(&rb).map(|(&a, &b)| (a % b) as u32).collect();
                    vec![(2, Expect::U32(q)), (3, Expect::U32(r))]
                })
        })
        .collect()
}

fn idiv_64() -> Vec<Case> {
    [(1024u32, 256u16), (40, 1)]
        .into_iter()
        .map(|(n, wg)| {
            let mut rng = Rng::new(n as u64 + 303);
            let a: Vec<u64> = (0..n as usize)
                .map(|i| {
                    if i % 41 == 0 {
                        i64::MIN as u64
                    } else {
                        rng.u64() >> rng.range(0, 40)
                    }
                })
                .collect();
            let b: Vec<u64> = (0..n as usize)
                .map(|i| {
                    let d = match i % 4 {
                        0 => divisor(&mut rng, i / 4),
                        1 => rng.u64() >> rng.range(0, 63),
                        2 => (rng.u64() >> rng.range(0, 63)).wrapping_neg(),
                        _ => rng.u64(),
                    };
                    if d == 0 || (d == u64::MAX && a[i] == i64::MIN as u64) {
                        9
                    } else {
                        d
                    }
                })
                .collect();
            let (ra, rb) = (a.clone(), b.clone());
            Case::linear(format!("n={n} wg={wg}"), n, wg)
                .buf(bytes(&a))
                .buf(bytes(&b))
                .buf(filled(4 * n as usize, 0u64))
                .expect(move || {
                    let want = ra
                        .iter()
                        .zip(&rb)
                        .flat_map(|(&x, &y)| {
                            [
                                x / y,
                                x % y,
                                ((x as i64) / (y as i64)) as u64,
                                ((x as i64) % (y as i64)) as u64,
                            ]
                        })
                        .collect();
                    vec![(2, Expect::U64(want))]
                })
        })
        .collect()
}

fn idiv_const() -> Vec<Case> {
    [(2048u32, 1024u16), (50, 1)]
        .into_iter()
        .map(|(n, wg)| {
            let mut rng = Rng::new(n as u64 + 304);
            let x: Vec<u32> = (0..n)
                .map(|i| match i % 5 {
                    0 => u32::MAX - i,
                    1 => 0x8000_0000 + i,
                    2 => i,
                    _ => rng.u32(),
                })
                .collect();
            let rx = x.clone();
            Case::linear(format!("n={n} wg={wg}"), n, wg)
                .buf(bytes(&x))
                .buf(filled(8 * n as usize, 0u32))
                .expect(move || {
                    let want = rx
                        .iter()
                        .flat_map(|&u| {
                            let s = u as i32;
                            [
                                u / 7,
                                u % 7,
                                u / 1000,
                                u % 65537,
                                (s / 3) as u32,
                                (s % 3) as u32,
                                (s / -10) as u32,
                                (s % -10) as u32,
                            ]
                        })
                        .collect();
                    vec![(1, Expect::U32(want))]
                })
        })
        .collect()
}

fn bitops() -> Vec<Case> {
    [(1024u32, 256u16), (33, 1)]
        .into_iter()
        .map(|(n, wg)| {
            let mut rng = Rng::new(n as u64 + 305);
            let x: Vec<u32> = (0..n)
                .map(|i| if i % 9 == 0 { 0 } else { rng.u32() >> (i % 32) })
                .collect();
            let y = rng.u32s(n as usize);
            let (rx, ry) = (x.clone(), y.clone());
            Case::linear(format!("n={n} wg={wg}"), n, wg)
                .buf(bytes(&x))
                .buf(bytes(&y))
                .buf(filled(8 * n as usize, 0u32))
                .expect(move || {
                    let want = rx
                        .iter()
                        .zip(&ry)
                        .flat_map(|(&a, &b)| {
                            [
                                a.count_ones(),
                                a.leading_zeros(),
                                a.trailing_zeros(),
                                a.reverse_bits(),
                                a.rotate_left(b & 31),
                                ((a as u64 * b as u64) >> 32) as u32,
                                (a & 0xff_ffff)
                                    .wrapping_mul(b & 0xff_ffff)
                                    .wrapping_add(a ^ b),
                                (a >> (b & 15)) & 0xfff,
                            ]
                        })
                        .collect();
                    vec![(2, Expect::U32(want))]
                })
        })
        .collect()
}

fn hash_u64() -> Vec<Case> {
    [(4096u32, 256u16, 0x1234_5678_9abc_def0u64), (64, 1, 0)]
        .into_iter()
        .map(|(n, wg, seed)| {
            Case::linear(format!("n={n} wg={wg}"), n, wg)
                .buf(filled(n as usize, 0u64))
                .arg(Arg::U64(seed))
                .expect(move || {
                    let want = (0..n as u64)
                        .map(|i| {
                            let mut z = seed.wrapping_add(i.wrapping_mul(0x9e37_79b9_7f4a_7c15));
                            for _ in 0..4 {
                                z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
                                z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
                                z ^= z >> 31;
                            }
                            z
                        })
                        .collect();
                    vec![(0, Expect::U64(want))]
                })
        })
        .collect()
}

fn hip_templates() -> Vec<Case> {
    [(1000u32, 256u16), (16, 1)]
        .into_iter()
        .map(|(n, wg)| {
            let x = Rng::new(n as u64 + 306).u32s(2 * n as usize);
            let rx = x.clone();
            let pairs = n as usize;
            Case::linear(format!("n={n} wg={wg}"), n, wg)
                .buf(bytes(&x))
                .buf(filled(pairs, 0u32))
                .buf(filled(2 * pairs, 0u64))
                .buf(filled(pairs, 0u64))
                .buf(filled(2 * pairs, 0f64))
                .buf(filled(pairs, 0f64))
                .expect(move || {
                    let wide: Vec<u64> = rx.iter().map(|&v| (v as u64) << 16).collect();
                    let dbl: Vec<f64> = rx.iter().map(|&v| v as f64).collect();
                    let o32 = rx
                        .chunks(2)
                        .map(|p| p[0].wrapping_mul(3).wrapping_add(p[1]))
                        .collect();
                    let o64 = wide
                        .chunks(2)
                        .map(|p| p[0].wrapping_mul(3).wrapping_add(p[1]))
                        .collect();
                    let of = dbl.chunks(2).map(|p| p[0].mul_add(3.0, p[1])).collect();
                    vec![
                        (1, Expect::U32(o32)),
                        (2, Expect::U64(wide)),
                        (3, Expect::U64(o64)),
                        (4, Expect::F64 { want: dbl, ulp: 0 }),
                        (5, Expect::F64 { want: of, ulp: 0 }),
                    ]
                })
        })
        .collect()
}

fn asm_vadd_u32() -> Vec<Case> {
    [(1000u32, 64u16, 900u32), (1024, 1024, 1024), (5, 1, 3)]
        .into_iter()
        .map(|(grid, wg, n)| {
            let mut rng = Rng::new(grid as u64 + 307);
            let (a, b) = (rng.u32s(grid as usize), rng.u32s(grid as usize));
            let (ra, rb) = (a.clone(), b.clone());
            Case::linear(format!("grid={grid} wg={wg} n={n}"), grid, wg)
                .buf(bytes(&a))
                .buf(bytes(&b))
                .buf(filled(grid as usize, 0xdead_beefu32))
                .arg(Arg::U32(n))
                .expect(move || {
                    let want = (0..ra.len())
                        .map(|i| {
                            if i < n as usize {
                                ra[i].wrapping_add(rb[i])
                            } else {
                                0xdead_beef
                            }
                        })
                        .collect();
                    vec![(2, Expect::U32(want))]
                })
        })
        .collect()
}

fn asm_salu_loop() -> Vec<Case> {
    [(16u32, 32u16, 500u32), (4, 1, 0), (2, 1024, 77)]
        .into_iter()
        .map(|(groups, wg, n)| {
            Case::linear(
                format!("groups={groups} wg={wg} n={n}"),
                groups * wg as u32,
                wg,
            )
            .buf(filled(groups as usize, 0xdead_beefu32))
            .arg(Arg::U32(n))
            .expect(move || {
                let want = (0..groups)
                    .map(|g| {
                        (0..n).fold(0u32, |acc, k| {
                            acc.rotate_left(1).wrapping_add(k.wrapping_mul(k) ^ g)
                        })
                    })
                    .collect();
                vec![(0, Expect::U32(want))]
            })
        })
        .collect()
}

/// Workgroups of 48 and 100 invocations: a last wave of 16 or 4 lanes after full ones.
/// The output has room past the grid, which must keep its fill.
fn asm_barrier_rounds() -> Vec<Case> {
    [(2u32, 48u16, 20u32), (3, 100, 7), (1, 32, 5)]
        .into_iter()
        .map(|(groups, wg, rounds)| {
            let grid = groups * wg as u32;
            let len = grid as usize + 64;
            Case::linear(format!("groups={groups} wg={wg} rounds={rounds}"), grid, wg)
                .buf(filled(len, 0xdead_beefu32))
                .arg(Arg::U32(rounds))
                .expect(move || {
                    let want = (0..len as u32)
                        .map(|i| {
                            if i < grid {
                                i.wrapping_mul(rounds) + 1
                            } else {
                                0xdead_beef
                            }
                        })
                        .collect();
                    vec![(0, Expect::U32(want))]
                })
        })
        .collect()
}

fn asm_divergent_exec() -> Vec<Case> {
    [(1024u32, 256u16), (64, 1)]
        .into_iter()
        .map(|(n, wg)| {
            let mut rng = Rng::new(n as u64 + 308);
            let x: Vec<u32> = (0..n).map(|_| rng.range(0, 20_000) as u32).collect();
            let rx = x.clone();
            Case::linear(format!("n={n} wg={wg}"), n, wg)
                .buf(bytes(&x))
                .buf(filled(n as usize, 0u32))
                .expect(move || {
                    let want = rx
                        .iter()
                        .map(|&v| {
                            let mut v = if v & 1 != 0 {
                                v.wrapping_mul(3).wrapping_add(1)
                            } else {
                                v >> 1
                            };
                            while v > 100 {
                                v -= 100;
                            }
                            v
                        })
                        .collect();
                    vec![(1, Expect::U32(want))]
                })
        })
        .collect()
}

fn asm_valu_mix() -> Vec<Case> {
    [(512u32, 128u16), (32, 32)]
        .into_iter()
        .map(|(n, wg)| {
            let mut rng = Rng::new(n as u64 + 309);
            let (a, b, c) = (
                rng.u32s(n as usize),
                rng.u32s(n as usize),
                rng.u32s(n as usize),
            );
            let (ra, rb, rc) = (a.clone(), b.clone(), c.clone());
            Case::linear(format!("n={n} wg={wg}"), n, wg)
                .buf(bytes(&a))
                .buf(bytes(&b))
                .buf(bytes(&c))
                .buf(filled(8 * n as usize, 0u32))
                .expect(move || {
                    let mut want = Vec::new();
                    for i in 0..ra.len() {
                        let (a, b, c) = (ra[i], rb[i], rc[i]);
                        let mad = (a as u64 * b as u64).wrapping_add(c as u64);
                        let (off, width) = (b & 31, c & 31);
                        let bfe = if width == 0 {
                            0
                        } else {
                            (a >> off) & ((1u32 << width) - 1)
                        };
                        let wide = ((a as u64) << 32) | b as u64;
                        let perm = [1u32, 3, 5, 7]
                            .iter()
                            .enumerate()
                            .fold(0u32, |acc, (k, &s)| {
                                acc | ((((wide >> (8 * s)) & 0xff) as u32) << (8 * k))
                            });
                        let mut three = [a as i32, b as i32, c as i32];
                        three.sort_unstable();
                        want.extend([
                            mad as u32,
                            (mad >> 32) as u32,
                            bfe,
                            perm,
                            (wide >> (c & 31)) as u32,
                            three[1] as u32,
                            (a ^ b).wrapping_add(c),
                            (a << (b & 31)).wrapping_add(c),
                        ]);
                    }
                    vec![(3, Expect::U32(want))]
                })
        })
        .collect()
}
