//! Scans, reductions and sorts through LDS with many barriers per workgroup, for groups of
//! 1, 64, 256 and 1024 work-items (and odd sizes where the kernel allows them).

use super::data::{Rng, bytes, filled, words};
use super::{Arg, Case, Category, Expect, Kernel, Lang};

pub fn kernels() -> Vec<Kernel> {
    use Category::ScanReduce as C;
    vec![
        Kernel {
            name: "scan_inclusive_lds",
            lang: Lang::OpenCl,
            category: C,
            cases: scan_inclusive_lds,
        },
        Kernel {
            name: "scan_exclusive_blelloch",
            lang: Lang::OpenCl,
            category: C,
            cases: scan_exclusive_blelloch,
        },
        Kernel {
            name: "reduce_f32_tree",
            lang: Lang::OpenCl,
            category: C,
            cases: reduce_f32_tree,
        },
        Kernel {
            name: "reduce_minmax_i32",
            lang: Lang::OpenCl,
            category: C,
            cases: reduce_minmax_i32,
        },
        Kernel {
            name: "reduce_u64",
            lang: Lang::OpenCl,
            category: C,
            cases: reduce_u64,
        },
        Kernel {
            name: "lds_rotate_rounds",
            lang: Lang::OpenCl,
            category: C,
            cases: lds_rotate_rounds,
        },
        Kernel {
            name: "bitonic_sort_lds",
            lang: Lang::OpenCl,
            category: C,
            cases: bitonic_sort_lds,
        },
        Kernel {
            name: "serial_wg1",
            lang: Lang::OpenCl,
            category: C,
            cases: serial_wg1,
        },
        Kernel {
            name: "hip_block_reduce_shfl",
            lang: Lang::Hip,
            category: C,
            cases: hip_block_reduce_shfl,
        },
        Kernel {
            name: "hip_block_scan",
            lang: Lang::Hip,
            category: C,
            cases: hip_block_scan,
        },
    ]
}

/// Wrapping inclusive prefix sums of each `group`-sized chunk.
fn segmented_inclusive(input: &[u32], group: usize) -> Vec<u32> {
    let mut out = Vec::with_capacity(input.len());
    for chunk in input.chunks(group) {
        let mut acc = 0u32;
        for &v in chunk {
            acc = acc.wrapping_add(v);
            out.push(acc);
        }
    }
    out
}

fn scan_inclusive_lds() -> Vec<Case> {
    [(2500u32, 1024u16), (1000, 256), (320, 64), (3, 1)]
        .into_iter()
        .map(|(n, wg)| {
            let input = Rng::new(n as u64).u32s(n as usize);
            let want = segmented_inclusive(&input, wg as usize);
            Case::linear(format!("n={n} wg={wg}"), n, wg)
                .buf(bytes(&input))
                .buf(filled(n as usize, 0u32))
                .arg(Arg::U32(n))
                .expect(move || vec![(1, Expect::U32(want.clone()))])
        })
        .collect()
}

fn scan_exclusive_blelloch() -> Vec<Case> {
    [(256u16, 4u32), (64, 3), (1024, 1), (1, 5)]
        .into_iter()
        .map(|(wg, groups)| {
            let block = 2 * wg as usize;
            let n = block * groups as usize;
            let input: Vec<u32> = Rng::new(wg as u64).u32s(n).iter().map(|v| v >> 8).collect();
            let reference = input.clone();
            Case::linear(format!("wg={wg} groups={groups}"), groups * wg as u32, wg)
                .buf(bytes(&input))
                .buf(filled(n, 0xdead_beefu32))
                .expect(move || {
                    let mut want = Vec::with_capacity(reference.len());
                    for chunk in reference.chunks(block) {
                        let mut acc = 0u32;
                        for &v in chunk {
                            want.push(acc);
                            acc = acc.wrapping_add(v);
                        }
                    }
                    vec![(1, Expect::U32(want))]
                })
        })
        .collect()
}

fn reduce_f32_tree() -> Vec<Case> {
    [(256u16, 8u32), (1024, 2), (64, 5), (1, 7)]
        .into_iter()
        .map(|(wg, groups)| {
            let n = wg as usize * groups as usize;
            let mut rng = Rng::new(11 + wg as u64);
            let input: Vec<f32> = (0..n).map(|_| rng.f32(-100.0, 100.0)).collect();
            let reference = input.clone();
            Case::linear(format!("wg={wg} groups={groups}"), n as u32, wg)
                .buf(bytes(&input))
                .buf(filled(groups as usize, 0f32))
                .expect(move || {
                    // The same tree as the kernel, so the rounding matches bit for bit.
                    let want = reference
                        .chunks(wg as usize)
                        .map(|chunk| {
                            let mut p = chunk.to_vec();
                            let mut s = p.len() / 2;
                            while s > 0 {
                                for i in 0..s {
                                    p[i] += p[i + s];
                                }
                                s /= 2;
                            }
                            p[0]
                        })
                        .collect();
                    vec![(1, Expect::F32 { want, ulp: 0 })]
                })
        })
        .collect()
}

fn reduce_minmax_i32() -> Vec<Case> {
    [(100u16, 3u32), (1024, 2), (64, 4), (1, 3), (256, 1)]
        .into_iter()
        .map(|(wg, groups)| {
            let n = wg as usize * groups as usize;
            let input: Vec<i32> = Rng::new(wg as u64 * 3)
                .u32s(n)
                .into_iter()
                .map(|v| v as i32)
                .collect();
            let reference = input.clone();
            Case::linear(format!("wg={wg} groups={groups}"), n as u32, wg)
                .buf(bytes(&input))
                .buf(filled(2 * groups as usize, 0u32))
                .expect(move || {
                    let mut want = Vec::new();
                    for chunk in reference.chunks(wg as usize) {
                        want.push(*chunk.iter().min().unwrap() as u32);
                        want.push(*chunk.iter().max().unwrap() as u32);
                    }
                    vec![(1, Expect::U32(want))]
                })
        })
        .collect()
}

fn reduce_u64() -> Vec<Case> {
    [(256u16, 4u32), (64, 3), (1024, 1)]
        .into_iter()
        .map(|(wg, groups)| {
            let n = wg as usize * groups as usize;
            let mut rng = Rng::new(77 + wg as u64);
            let input: Vec<u64> = (0..n).map(|_| rng.u64()).collect();
            let reference = input.clone();
            Case::linear(format!("wg={wg} groups={groups}"), n as u32, wg)
                .buf(bytes(&input))
                .buf(filled(groups as usize, 0u64))
                .expect(move || {
                    let want = reference
                        .chunks(wg as usize)
                        .map(|c| c.iter().fold(0u64, |a, &v| a.wrapping_add(v)))
                        .collect();
                    vec![(1, Expect::U64(want))]
                })
        })
        .collect()
}

fn lds_rotate_rounds() -> Vec<Case> {
    [(64u16, 4u32, 50u32), (1024, 1, 8), (1, 3, 5), (256, 2, 20)]
        .into_iter()
        .map(|(wg, groups, rounds)| {
            let n = wg as usize * groups as usize;
            let input = Rng::new(rounds as u64).u32s(n);
            let reference = input.clone();
            Case::linear(
                format!("wg={wg} groups={groups} rounds={rounds}"),
                n as u32,
                wg,
            )
            .buf(bytes(&input))
            .arg(Arg::U32(rounds))
            .expect(move || {
                let mut want = Vec::with_capacity(reference.len());
                for chunk in reference.chunks(wg as usize) {
                    let mut ring = chunk.to_vec();
                    for r in 0..rounds {
                        let size = ring.len();
                        ring = (0..size)
                            .map(|i| ring[(i + 1) % size].wrapping_mul(3).wrapping_add(r))
                            .collect();
                    }
                    want.extend(ring);
                }
                vec![(0, Expect::U32(want))]
            })
        })
        .collect()
}

fn bitonic_sort_lds() -> Vec<Case> {
    [(256u16, 4u32), (1024, 1), (64, 2), (1, 2)]
        .into_iter()
        .map(|(wg, groups)| {
            let n = wg as usize * groups as usize;
            // Few distinct values in one case, so equal keys meet in the network.
            let input: Vec<u32> = Rng::new(wg as u64 + 5)
                .u32s(n)
                .into_iter()
                .map(|v| if wg == 64 { v % 16 } else { v })
                .collect();
            let reference = input.clone();
            Case::linear(format!("wg={wg} groups={groups}"), n as u32, wg)
                .buf(bytes(&input))
                .expect(move || {
                    let mut want = Vec::new();
                    for chunk in reference.chunks(wg as usize) {
                        let mut c = chunk.to_vec();
                        c.sort_unstable();
                        want.extend(c);
                    }
                    vec![(0, Expect::U32(want))]
                })
        })
        .collect()
}

fn serial_wg1() -> Vec<Case> {
    [(16u32, 100u32), (3, 1000)]
        .into_iter()
        .map(|(groups, len)| {
            let n = (groups * len) as usize;
            let input = Rng::new(len as u64).u32s(n);
            let want = segmented_inclusive(&input, len as usize);
            Case::linear(format!("groups={groups} len={len}"), groups, 1)
                .buf(bytes(&input))
                .buf(filled(n, 0u32))
                .arg(Arg::U32(len))
                .expect(move || vec![(1, Expect::U32(want.clone()))])
        })
        .collect()
}

fn hip_block_reduce_shfl() -> Vec<Case> {
    [(1024u16, 2u32), (256, 4), (64, 3), (32, 2)]
        .into_iter()
        .map(|(wg, groups)| {
            let n = wg as usize * groups as usize;
            let input = Rng::new(wg as u64 + 9).u32s(n);
            let reference = input.clone();
            Case::linear(format!("wg={wg} groups={groups}"), n as u32, wg)
                .buf(bytes(&input))
                .buf(filled(groups as usize, 0u32))
                .expect(move || {
                    let want = reference
                        .chunks(wg as usize)
                        .map(|c| c.iter().fold(0u32, |a, &v| a.wrapping_add(v)))
                        .collect();
                    vec![(1, Expect::U32(want))]
                })
        })
        .collect()
}

fn hip_block_scan() -> Vec<Case> {
    [(1024u16, 2u32), (256, 3), (64, 2), (32, 4)]
        .into_iter()
        .map(|(wg, groups)| {
            let n = wg as usize * groups as usize;
            let input = Rng::new(wg as u64 + 13).u32s(n);
            let want = segmented_inclusive(&input, wg as usize);
            Case::linear(format!("wg={wg} groups={groups}"), n as u32, wg)
                .buf(bytes(&input))
                .buf(filled(n, 0u32))
                .expect(move || vec![(1, Expect::U32(want.clone()))])
        })
        .collect()
}

/// The u32 words of buffer `index` (for relations).
pub fn u32s_of(got: &[&[u8]], index: usize) -> Vec<u32> {
    words::<u32>(got[index])
}
