//! Wave-level kernels: wave64 (ballot, divergence, shuffles on a 64-bit exec mask), and the
//! cross-lane moves of wave32: DPP (row shifts, rotates, mirrors, quad permutes, row
//! xmask), permlane16/permlanex16, ds_swizzle, ds_bpermute, ballot/mbcnt/readlane. The host
//! models each lane move as an index map.

use super::data::{Rng, bytes, filled};
use super::{Arg, Case, Category, Expect, Kernel, Lang};

pub fn kernels() -> Vec<Kernel> {
    use Category::{CrossLane as X, Wave64 as W};
    vec![
        Kernel {
            name: "wave64_reduce",
            lang: Lang::OpenCl,
            category: W,
            cases: wave64_reduce,
        },
        Kernel {
            name: "wave64_divergent",
            lang: Lang::OpenCl,
            category: W,
            cases: wave64_divergent,
        },
        Kernel {
            name: "hip_wave64_shfl",
            lang: Lang::Hip,
            category: W,
            cases: hip_wave64_shfl,
        },
        Kernel {
            name: "asm_wave64_triple",
            lang: Lang::Asm,
            category: W,
            cases: asm_wave64_triple,
        },
        Kernel {
            name: "dpp_row_reduce",
            lang: Lang::OpenCl,
            category: X,
            cases: dpp_row_reduce,
        },
        Kernel {
            name: "lane_permute",
            lang: Lang::OpenCl,
            category: X,
            cases: lane_permute,
        },
        Kernel {
            name: "wave_compact",
            lang: Lang::OpenCl,
            category: X,
            cases: wave_compact,
        },
        Kernel {
            name: "asm_dpp_shuffle",
            lang: Lang::Asm,
            category: X,
            cases: asm_dpp_shuffle,
        },
        Kernel {
            name: "asm_ds_ops",
            lang: Lang::Asm,
            category: X,
            cases: asm_ds_ops,
        },
    ]
}

fn wave64_reduce() -> Vec<Case> {
    [(256u16, 4u32), (1024, 1), (64, 3)]
        .into_iter()
        .map(|(wg, groups)| {
            let n = wg as usize * groups as usize;
            let input = Rng::new(wg as u64 + 31).u32s(n);
            let reference = input.clone();
            Case::linear(format!("wg={wg} groups={groups}"), n as u32, wg)
                .buf(bytes(&input))
                .buf(filled(groups as usize, 0u32))
                .buf(filled(n / 64, 0u32))
                .expect(move || {
                    let sums = reference
                        .chunks(wg as usize)
                        .map(|c| c.iter().fold(0u32, |a, &v| a.wrapping_add(v)))
                        .collect();
                    let odd = reference
                        .chunks(64)
                        .map(|c| c.iter().filter(|&&v| v & 1 != 0).count() as u32)
                        .collect();
                    vec![(1, Expect::U32(sums)), (2, Expect::U32(odd))]
                })
        })
        .collect()
}

fn wave64_divergent() -> Vec<Case> {
    [(2048u32, 256u16), (640, 64), (1024, 1024)]
        .into_iter()
        .map(|(n, wg)| {
            let mut rng = Rng::new(n as u64 + 7);
            let input: Vec<u32> = (0..n)
                .map(|i| {
                    if i % 97 == 0 {
                        0
                    } else {
                        rng.range(1, 10_000) as u32
                    }
                })
                .collect();
            let reference = input.clone();
            Case::linear(format!("n={n} wg={wg}"), n, wg)
                .buf(bytes(&input))
                .buf(filled(n as usize, 0u32))
                .buf(filled(n as usize, 0u32))
                .expect(move || {
                    let steps = reference
                        .iter()
                        .map(|&x| {
                            let (mut v, mut s) = (x, 0u32);
                            while v > 1 && s < 1000 {
                                v = if v & 1 != 0 {
                                    v.wrapping_mul(3).wrapping_add(1)
                                } else {
                                    v >> 1
                                };
                                s += 1;
                            }
                            s
                        })
                        .collect();
                    let even = reference
                        .iter()
                        .map(|&x| {
                            if x == 0 {
                                u32::MAX
                            } else {
                                x >> x.trailing_zeros()
                            }
                        })
                        .collect();
                    vec![(1, Expect::U32(steps)), (2, Expect::U32(even))]
                })
        })
        .collect()
}

fn hip_wave64_shfl() -> Vec<Case> {
    [(1024u16, 2u32), (64, 3), (256, 1)]
        .into_iter()
        .map(|(wg, groups)| {
            let n = wg as usize * groups as usize;
            let input = Rng::new(wg as u64 + 41).u32s(n);
            let reference = input.clone();
            Case::linear(format!("wg={wg} groups={groups}"), n as u32, wg)
                .buf(bytes(&input))
                .buf(filled(n, 0u32))
                .buf(filled(n / 64, 0u32))
                .expect(move || {
                    // ds_bpermute stays within each 32-lane half of a wave64 on RDNA.
                    let rotated = (0..reference.len())
                        .map(|i| reference[(i & !31) | ((i + 1) & 31)])
                        .collect();
                    let sums = reference
                        .chunks(64)
                        .map(|c| {
                            c[..32]
                                .iter()
                                .fold(0u32, |a, &v| a.wrapping_add(v))
                                .wrapping_mul(2)
                        })
                        .collect();
                    vec![(1, Expect::U32(rotated)), (2, Expect::U32(sums))]
                })
        })
        .collect()
}

fn asm_wave64_triple() -> Vec<Case> {
    [
        (1000u32, 128u16, 900u32),
        (256, 64, 256),
        (1024, 1024, 1000),
    ]
    .into_iter()
    .map(|(grid, wg, n)| {
        let input = Rng::new(grid as u64 + n as u64).u32s(grid as usize);
        let reference = input.clone();
        let waves = grid.div_ceil(64) as usize;
        Case::linear(format!("grid={grid} wg={wg} n={n}"), grid, wg)
            .buf(bytes(&input))
            .buf(filled(grid as usize, 0xdead_beefu32))
            .buf(filled(waves, 0xdead_beefu32))
            .arg(Arg::U32(n))
            .expect(move || {
                let n = n as usize;
                let out = (0..reference.len())
                    .map(|i| {
                        if i < n {
                            reference[i].wrapping_mul(3)
                        } else {
                            0xdead_beef
                        }
                    })
                    .collect();
                let odd = (0..waves)
                    .map(|w| {
                        let lanes = (w * 64..(w * 64 + 64).min(n)).collect::<Vec<_>>();
                        if lanes.is_empty() {
                            0xdead_beef
                        } else {
                            lanes.iter().filter(|&&i| reference[i] & 1 != 0).count() as u32
                        }
                    })
                    .collect();
                vec![(1, Expect::U32(out)), (2, Expect::U32(odd))]
            })
    })
    .collect()
}

fn dpp_row_reduce() -> Vec<Case> {
    [(256u32, 64u16), (1024, 1024), (32, 32)]
        .into_iter()
        .map(|(n, wg)| {
            let input = Rng::new(n as u64 + 51).u32s(n as usize);
            let reference = input.clone();
            Case::linear(format!("n={n} wg={wg}"), n, wg)
                .buf(bytes(&input))
                .buf(filled(n as usize, 0u32))
                .buf(filled(n as usize / 32, 0u32))
                .expect(move || {
                    let mut scan = Vec::new();
                    let mut total = Vec::new();
                    for wave in reference.chunks(32) {
                        let mut acc = 0u32;
                        for &v in wave {
                            acc = acc.wrapping_add(v);
                            scan.push(acc);
                        }
                        total.push(acc);
                    }
                    vec![(1, Expect::U32(scan)), (2, Expect::U32(total))]
                })
        })
        .collect()
}

/// The wave32 lane each output of lane_permute reads, for lane `l` (None: keeps 0xdead).
fn lane_permute_source(k: usize, l: usize, sel: u64) -> Option<usize> {
    let row = l & !15;
    let i = l & 15;
    let nibble = ((sel >> (4 * i)) & 15) as usize;
    Some(match k {
        0 => row + nibble,
        1 => (row ^ 16) + nibble,
        2 => ((l & 0x1c) | 0x01) ^ 0x10,
        3 => (l & !3) | (3 - (l & 3)),
        4 => (7 * l + 3) & 31,
        5 => {
            if i + 3 > 15 {
                return None;
            }
            l + 3
        }
        6 => row + ((i + 16 - 5) & 15),
        7 => row + 15 - i,
        8 => (l & !7) + 7 - (l & 7),
        9 => (l & !3) + [2, 3, 0, 1][l & 3],
        10 => row + (i ^ 3),
        _ => unreachable!("lane_permute has 11 outputs"),
    })
}

fn lane_permute() -> Vec<Case> {
    [(64u32, 64u16), (256, 256), (32, 32)]
        .into_iter()
        .map(|(n, wg)| {
            let (sel_lo, sel_hi) = (0x3210_fedcu32, 0xba98_7654u32);
            let input = Rng::new(n as u64 + 61).u32s(n as usize);
            let reference = input.clone();
            Case::linear(format!("n={n} wg={wg}"), n, wg)
                .buf(bytes(&input))
                .buf(filled(n as usize * 11, 0u32))
                .arg(Arg::U32(sel_lo))
                .arg(Arg::U32(sel_hi))
                .expect(move || {
                    let sel = ((sel_hi as u64) << 32) | sel_lo as u64;
                    let mut want = Vec::new();
                    for (w, wave) in reference.chunks(32).enumerate() {
                        let _ = w;
                        for l in 0..32 {
                            for k in 0..11 {
                                want.push(match lane_permute_source(k, l, sel) {
                                    Some(src) => wave[src],
                                    None => 0xdead,
                                });
                            }
                        }
                    }
                    vec![(1, Expect::U32(want))]
                })
        })
        .collect()
}

fn wave_compact() -> Vec<Case> {
    [(256u32, 64u16), (1024, 1024)]
        .into_iter()
        .map(|(n, wg)| {
            let mut rng = Rng::new(n as u64 + 71);
            // Wave 2 keeps nothing (no multiple of 3), so its count is 0 and first is the marker.
            let input: Vec<u32> = (0..n)
                .map(|i| {
                    if i / 32 == 2 {
                        3 * rng.range(0, 1000) as u32 + 1
                    } else {
                        rng.u32() >> 4
                    }
                })
                .collect();
            let reference = input.clone();
            let waves = n as usize / 32;
            Case::linear(format!("n={n} wg={wg}"), n, wg)
                .buf(bytes(&input))
                .buf(filled(n as usize, 0xdead_beefu32))
                .buf(filled(waves, 0u32))
                .buf(filled(waves, 0u32))
                .expect(move || {
                    let mut out = vec![0xdead_beefu32; reference.len()];
                    let (mut count, mut first) = (Vec::new(), Vec::new());
                    for (w, wave) in reference.chunks(32).enumerate() {
                        let kept: Vec<u32> = wave.iter().copied().filter(|v| v % 3 == 0).collect();
                        out[w * 32..w * 32 + kept.len()].copy_from_slice(&kept);
                        count.push(kept.len() as u32);
                        first.push(kept.first().copied().unwrap_or(u32::MAX));
                    }
                    vec![
                        (1, Expect::U32(out)),
                        (2, Expect::U32(count)),
                        (3, Expect::U32(first)),
                    ]
                })
        })
        .collect()
}

fn asm_dpp_shuffle() -> Vec<Case> {
    [(64u32, 64u16), (256, 256)]
        .into_iter()
        .map(|(n, wg)| {
            let input = Rng::new(n as u64 + 81).u32s(n as usize);
            let reference = input.clone();
            Case::linear(format!("n={n} wg={wg}"), n, wg)
                .buf(bytes(&input))
                .buf(filled(n as usize * 3, 0u32))
                .expect(move || {
                    let mut want = Vec::new();
                    for wave in reference.chunks(32) {
                        for l in 0..32 {
                            let i = l & 15;
                            want.push(if i == 0 { 0 } else { wave[l - 1] });
                            want.push(wave[l ^ 3].wrapping_add(wave[l]));
                            want.push(wave[((l & !15) ^ 16) + ((23 - i) & 15)]);
                        }
                    }
                    vec![(1, Expect::U32(want))]
                })
        })
        .collect()
}

fn asm_ds_ops() -> Vec<Case> {
    [4u32, 1]
        .into_iter()
        .map(|groups| {
            let n = 64 * groups as usize;
            let input = Rng::new(groups as u64 + 91).u32s(n);
            let reference = input.clone();
            Case::linear(format!("groups={groups} wg=64"), n as u32, 64)
                .buf(bytes(&input))
                .buf(filled(n * 4, 0u32))
                .expect(move || {
                    let mut want = Vec::new();
                    for g in reference.chunks(64) {
                        let sum = g.iter().fold(0u32, |a, &v| a.wrapping_add(v));
                        for l in 0..64 {
                            want.push(g[(l + 1) % 64]);
                            want.push(g[(l & 32) + ((l & 31) ^ 16)]);
                            want.push(g[(l & 32) + ((l + 1) & 31)]);
                            want.push(sum);
                        }
                    }
                    vec![(1, Expect::U32(want))]
                })
        })
        .collect()
}
