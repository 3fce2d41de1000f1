//! Memory kernels: private arrays and register spills in scratch, MUBUF buffer resources,
//! LDS with bank-conflicting and padded strides, sub-dword LDS accesses, a 2D LDS stencil,
//! 128-bit struct loads, and 3D grids with partial groups.

use super::data::{Rng, bytes, filled};
use super::{Arg, Case, Category, Expect, Kernel, Lang};

pub fn kernels() -> Vec<Kernel> {
    use Category::{General as G, Lds as L, Scratch as S};
    vec![
        Kernel {
            name: "private_sort",
            lang: Lang::OpenCl,
            category: S,
            cases: private_sort,
        },
        Kernel {
            name: "private_histogram",
            lang: Lang::OpenCl,
            category: S,
            cases: private_histogram,
        },
        Kernel {
            name: "spill_vgpr",
            lang: Lang::OpenCl,
            category: S,
            cases: spill_vgpr,
        },
        Kernel {
            name: "hip_private_bareiss",
            lang: Lang::Hip,
            category: S,
            cases: hip_private_bareiss,
        },
        Kernel {
            name: "asm_scratch",
            lang: Lang::Asm,
            category: S,
            cases: asm_scratch,
        },
        Kernel {
            name: "lds_transpose",
            lang: Lang::OpenCl,
            category: L,
            cases: lds_transpose,
        },
        Kernel {
            name: "lds_strided_sum",
            lang: Lang::OpenCl,
            category: L,
            cases: lds_strided_sum,
        },
        Kernel {
            name: "lds_subword",
            lang: Lang::OpenCl,
            category: L,
            cases: lds_subword,
        },
        Kernel {
            name: "hip_stencil_lds",
            lang: Lang::Hip,
            category: L,
            cases: hip_stencil_lds,
        },
        Kernel {
            name: "asm_mubuf",
            lang: Lang::Asm,
            category: G,
            cases: asm_mubuf,
        },
        Kernel {
            name: "hip_struct_aos",
            lang: Lang::Hip,
            category: G,
            cases: hip_struct_aos,
        },
        Kernel {
            name: "grid3d_ids",
            lang: Lang::OpenCl,
            category: G,
            cases: grid3d_ids,
        },
    ]
}

fn private_sort() -> Vec<Case> {
    [(256u32, 64u16), (40, 1)]
        .into_iter()
        .map(|(n, wg)| {
            let keys = Rng::new(n as u64 + 101).u32s(n as usize * 48);
            let reference = keys.clone();
            Case::linear(format!("n={n} wg={wg}"), n, wg)
                .buf(bytes(&keys))
                .expect(move || {
                    let mut want = Vec::new();
                    for c in reference.chunks(48) {
                        let mut c = c.to_vec();
                        c.sort_unstable();
                        want.extend(c);
                    }
                    vec![(0, Expect::U32(want))]
                })
        })
        .collect()
}

fn private_histogram() -> Vec<Case> {
    [(256u32, 256u16), (64, 64)]
        .into_iter()
        .map(|(n, wg)| {
            let mut rng = Rng::new(n as u64 + 102);
            let data: Vec<u8> = (0..n as usize * 128).map(|_| rng.u32() as u8).collect();
            let reference = data.clone();
            Case::linear(format!("n={n} wg={wg}"), n, wg)
                .buf(data)
                .buf(filled(n as usize * 64, 0u32))
                .expect(move || {
                    let mut want = Vec::new();
                    for c in reference.chunks(128) {
                        let mut h = [0u32; 64];
                        for &b in c {
                            h[(b & 63) as usize] += 1;
                        }
                        want.extend(h);
                    }
                    vec![(1, Expect::U32(want))]
                })
        })
        .collect()
}

fn spill_vgpr() -> Vec<Case> {
    [(256u32, 256u16, 20u32), (32, 32, 3)]
        .into_iter()
        .map(|(n, wg, rounds)| {
            let x = Rng::new(n as u64 + 103).u32s(n as usize);
            let reference = x.clone();
            Case::linear(format!("n={n} wg={wg} rounds={rounds}"), n, wg)
                .buf(bytes(&x))
                .buf(filled(n as usize * 40, 0u32))
                .arg(Arg::U32(rounds))
                .expect(move || {
                    let mut want = Vec::new();
                    for &x in &reference {
                        let mut acc: Vec<u32> = (0..40).map(|k| x.wrapping_add(k)).collect();
                        for r in 0..rounds {
                            let first = acc[0];
                            for k in 0..39 {
                                acc[k] = acc[k].wrapping_mul(33).wrapping_add(acc[k + 1]) ^ r;
                            }
                            acc[39] = acc[39].wrapping_mul(33).wrapping_add(first) ^ r;
                        }
                        want.extend(acc);
                    }
                    vec![(1, Expect::U32(want))]
                })
        })
        .collect()
}

/// Determinant by cofactor expansion along the first row (exact in i64 here).
fn determinant(m: &[Vec<i64>]) -> i64 {
    if m.len() == 1 {
        return m[0][0];
    }
    (0..m.len())
        .map(|c| {
            let minor: Vec<Vec<i64>> = m[1..]
                .iter()
                .map(|row| {
                    row.iter()
                        .enumerate()
                        .filter(|&(j, _)| j != c)
                        .map(|(_, &v)| v)
                        .collect()
                })
                .collect();
            let sign = if c % 2 == 0 { 1 } else { -1 };
            sign * m[0][c] * determinant(&minor)
        })
        .sum()
}

fn hip_private_bareiss() -> Vec<Case> {
    [(64u32, 64u16), (10, 1)]
        .into_iter()
        .map(|(n, wg)| {
            let mut rng = Rng::new(n as u64 + 104);
            let mut m: Vec<i64> = (0..n as usize * 36).map(|_| rng.range(-5, 6)).collect();
            // Zero pivots in some matrices force row swaps; one matrix is singular.
            for k in 0..n as usize {
                if k % 3 == 0 {
                    m[k * 36] = 0;
                }
            }
            for c in 0..6 {
                m[36 + 6 + c] = m[36 + c] * 2;
            }
            let reference = m.clone();
            Case::linear(format!("n={n} wg={wg}"), n, wg)
                .buf(bytes(&m))
                .buf(filled(n as usize, 0x5555i64))
                .expect(move || {
                    let want = reference
                        .chunks(36)
                        .map(|c| {
                            determinant(&c.chunks(6).map(|r| r.to_vec()).collect::<Vec<_>>()) as u64
                        })
                        .collect();
                    vec![(1, Expect::U64(want))]
                })
        })
        .collect()
}

fn asm_scratch() -> Vec<Case> {
    [(256u32, 64u16), (1024, 1024)]
        .into_iter()
        .map(|(n, wg)| {
            let x = Rng::new(n as u64 + 105).u32s(n as usize);
            let reference = x.clone();
            Case::linear(format!("n={n} wg={wg}"), n, wg)
                .buf(bytes(&x))
                .buf(filled(n as usize, 0u32))
                .expect(move || {
                    let want = reference
                        .iter()
                        .map(|&x| (0..16).fold(0u32, |a, j| a.wrapping_add(x ^ j)))
                        .collect();
                    vec![(1, Expect::U32(want))]
                })
        })
        .collect()
}

fn lds_transpose() -> Vec<Case> {
    [(64u32, 0u32), (64, 1), (96, 1)]
        .into_iter()
        .map(|(width, pad)| {
            let w = width as usize;
            let input = Rng::new(width as u64 + pad as u64).u32s(w * w);
            let reference = input.clone();
            Case::shaped(
                format!("width={width} pad={pad}"),
                [width, width / 4, 1],
                [32, 8, 1],
            )
            .buf(bytes(&input))
            .buf(filled(w * w, 0u32))
            .arg(Arg::U32(width))
            .arg(Arg::U32(pad))
            .expect(move || {
                let want = (0..w * w).map(|i| reference[(i % w) * w + i / w]).collect();
                vec![(1, Expect::U32(want))]
            })
        })
        .collect()
}

fn lds_strided_sum() -> Vec<Case> {
    [(1u32, 256u16), (32, 256), (33, 64), (64, 1024)]
        .into_iter()
        .map(|(stride, wg)| {
            let groups = 2usize;
            let input = Rng::new(stride as u64 + 106).u32s(4096 * groups);
            let reference = input.clone();
            Case::linear(
                format!("stride={stride} wg={wg}"),
                groups as u32 * wg as u32,
                wg,
            )
            .buf(bytes(&input))
            .buf(filled(groups * wg as usize, 0u32))
            .arg(Arg::U32(stride))
            .expect(move || {
                let mut want = Vec::new();
                for g in 0..groups {
                    let buf = &reference[g * 4096..(g + 1) * 4096];
                    for l in 0..wg as u32 {
                        let s = (0..64u32).fold(0u32, |a, j| {
                            a.wrapping_add(
                                buf[(l.wrapping_mul(stride).wrapping_add(33 * j) & 4095) as usize],
                            )
                        });
                        want.push(s);
                    }
                }
                vec![(1, Expect::U32(want))]
            })
        })
        .collect()
}

fn lds_subword() -> Vec<Case> {
    [(64u16, 3u32), (256, 2), (1024, 1), (1, 4)]
        .into_iter()
        .map(|(wg, groups)| {
            let n = wg as usize * groups as usize;
            let input = Rng::new(wg as u64 + 107).u32s(n);
            let reference = input.clone();
            Case::linear(format!("wg={wg} groups={groups}"), n as u32, wg)
                .buf(bytes(&input))
                .buf(filled(2 * n, 0u32))
                .expect(move || {
                    let mut want = Vec::new();
                    for g in reference.chunks(wg as usize) {
                        for l in 0..g.len() {
                            let v = g[(l + 1) % g.len()];
                            let (byte, half) = (v as u8, (v >> 8) as u16);
                            want.push(byte as i8 as i32 as u32);
                            want.push(
                                (half as i16 as i32 as u32) ^ ((byte as u32) << 16) ^ half as u32,
                            );
                        }
                    }
                    vec![(1, Expect::U32(want))]
                })
        })
        .collect()
}

fn hip_stencil_lds() -> Vec<Case> {
    [(48u32, 32u32), (16, 16)]
        .into_iter()
        .map(|(width, height)| {
            let (w, h) = (width as usize, height as usize);
            let input = Rng::new(width as u64 + 108).u32s(w * h);
            let reference = input.clone();
            Case::shaped(format!("{width}x{height}"), [width, height, 1], [16, 16, 1])
                .buf(bytes(&input))
                .buf(filled(w * h, 0u32))
                .arg(Arg::U32(width))
                .arg(Arg::U32(height))
                .expect(move || {
                    let at = |x: i64, y: i64| {
                        reference[(y.clamp(0, h as i64 - 1) as usize) * w
                            + x.clamp(0, w as i64 - 1) as usize]
                    };
                    let mut want = Vec::new();
                    for y in 0..h as i64 {
                        for x in 0..w as i64 {
                            want.push(
                                at(x, y)
                                    .wrapping_mul(4)
                                    .wrapping_sub(at(x, y - 1))
                                    .wrapping_sub(at(x, y + 1))
                                    .wrapping_sub(at(x - 1, y))
                                    .wrapping_sub(at(x + 1, y)),
                            );
                        }
                    }
                    vec![(1, Expect::U32(want))]
                })
        })
        .collect()
}

fn asm_mubuf() -> Vec<Case> {
    [(1000u32, 64u16, 900u32), (256, 256, 256), (64, 1, 10)]
        .into_iter()
        .map(|(count, wg, n)| {
            let input = Rng::new(count as u64 + 109).u32s(count as usize);
            let reference = input.clone();
            Case::linear(format!("count={count} wg={wg} n={n}"), count, wg)
                .buf(bytes(&input))
                .buf(filled(count as usize, 0xdead_beefu32))
                .arg(Arg::U32(n))
                .arg(Arg::U32(count))
                .expect(move || {
                    let want = (0..reference.len())
                        .map(|i| {
                            if i < n as usize {
                                reference[i].wrapping_add(1)
                            } else {
                                1
                            }
                        })
                        .collect();
                    vec![(1, Expect::U32(want))]
                })
        })
        .collect()
}

fn hip_struct_aos() -> Vec<Case> {
    [(1000u32, 256u16), (64, 64)]
        .into_iter()
        .map(|(n, wg)| {
            let mut rng = Rng::new(n as u64 + 110);
            let mut raw = Vec::new();
            let mut particles = Vec::new();
            for _ in 0..n {
                let p = [
                    rng.f32(-50.0, 50.0),
                    rng.f32(-50.0, 50.0),
                    rng.f32(-50.0, 50.0),
                ];
                let id = rng.u32();
                raw.extend(bytes(&p));
                raw.extend(bytes(&[id]));
                particles.push((p, id));
            }
            Case::linear(format!("n={n} wg={wg}"), n, wg)
                .buf(raw)
                .buf(filled(n as usize, 0f32))
                .buf(filled(n as usize, 0u32))
                .buf(filled(2 * n as usize, 0f32))
                .expect(move || {
                    let mut len = Vec::new();
                    let mut ids = Vec::new();
                    let mut bx = Vec::new();
                    for (i, &([x, y, z], id)) in particles.iter().enumerate() {
                        len.push(x * x + y * y + z * z);
                        ids.push(id ^ i as u32);
                        bx.push(x.min(y).min(z));
                        bx.push(x.max(y).max(z));
                    }
                    vec![
                        (1, Expect::F32 { want: len, ulp: 0 }),
                        (2, Expect::U32(ids)),
                        (3, Expect::F32 { want: bx, ulp: 0 }),
                    ]
                })
        })
        .collect()
}

fn grid3d_ids() -> Vec<Case> {
    [
        ([10u32, 7, 5], [4u16, 4, 4]),
        ([33, 2, 3], [8, 2, 2]),
        ([8, 8, 16], [8, 8, 16]),
    ]
    .into_iter()
    .map(|(grid, wg)| {
        let total = (grid[0] * grid[1] * grid[2]) as usize;
        Case::shaped(format!("grid={grid:?} wg={wg:?}"), grid, wg)
            .buf(filled(total, 0xdead_beefu32))
            .arg(Arg::U32(grid[0]))
            .arg(Arg::U32(grid[1]))
            .expect(move || {
                let mut want = Vec::new();
                for z in 0..grid[2] {
                    for y in 0..grid[1] {
                        for x in 0..grid[0] {
                            want.push(x | (y << 10) | (z << 20));
                        }
                    }
                }
                vec![(0, Expect::U32(want))]
            })
    })
    .collect()
}
