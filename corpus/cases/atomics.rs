//! Atomics of every kind (add, sub, min/max signed and unsigned, and/or/xor, exchange,
//! compare-exchange, wrapping inc/dec, f32 add, 64-bit) on global and LDS memory, at every
//! scope, under contention from many waves on few addresses. Results that depend on the
//! order of the atomics are checked as relations (permutations, multisets).

use super::data::{Rng, bytes, filled, words};
use super::{Arg, Case, Category, Expect, Kernel, Lang};

pub fn kernels() -> Vec<Kernel> {
    use Category::Atomics as C;
    vec![
        Kernel {
            name: "atomic_add_contended",
            lang: Lang::OpenCl,
            category: C,
            cases: atomic_add_contended,
        },
        Kernel {
            name: "atomic_minmax",
            lang: Lang::OpenCl,
            category: C,
            cases: atomic_minmax,
        },
        Kernel {
            name: "atomic_bitwise",
            lang: Lang::OpenCl,
            category: C,
            cases: atomic_bitwise,
        },
        Kernel {
            name: "atomic_cas_increment",
            lang: Lang::OpenCl,
            category: C,
            cases: atomic_cas_increment,
        },
        Kernel {
            name: "atomic_ticket_xchg",
            lang: Lang::OpenCl,
            category: C,
            cases: atomic_ticket_xchg,
        },
        Kernel {
            name: "atomic_inc_dec_wrap",
            lang: Lang::OpenCl,
            category: C,
            cases: atomic_inc_dec_wrap,
        },
        Kernel {
            name: "atomic_lds_kinds",
            lang: Lang::OpenCl,
            category: C,
            cases: atomic_lds_kinds,
        },
        Kernel {
            name: "atomic_f32_add",
            lang: Lang::OpenCl,
            category: C,
            cases: atomic_f32_add,
        },
        Kernel {
            name: "atomic_u64_kinds",
            lang: Lang::OpenCl,
            category: C,
            cases: atomic_u64_kinds,
        },
        Kernel {
            name: "hip_atomic_cas_fmax",
            lang: Lang::Hip,
            category: C,
            cases: hip_atomic_cas_fmax,
        },
        Kernel {
            name: "hip_atomic_scopes",
            lang: Lang::Hip,
            category: C,
            cases: hip_atomic_scopes,
        },
    ]
}

fn atomic_add_contended() -> Vec<Case> {
    [(5000u32, 256u16, 3u32), (4096, 1024, 1), (64, 64, 7)]
        .into_iter()
        .map(|(n, wg, slots)| {
            let input: Vec<u32> = Rng::new(n as u64)
                .u32s(n as usize)
                .iter()
                .map(|v| v >> 4)
                .collect();
            let reference = input.clone();
            Case::linear(format!("n={n} wg={wg} slots={slots}"), n, wg)
                .buf(bytes(&input))
                .buf(filled(slots as usize + 1, 0u32))
                .buf(filled(2, 0u64))
                .arg(Arg::U32(slots))
                .arg(Arg::U32(n))
                .expect(move || {
                    let mut counters = vec![0u32; slots as usize + 1];
                    let mut wide = [0u64; 2];
                    for (i, &v) in reference.iter().enumerate() {
                        counters[i % slots as usize] = counters[i % slots as usize].wrapping_add(v);
                        wide[i & 1] = wide[i & 1].wrapping_add((v as u64) << 20);
                    }
                    counters[slots as usize] = n;
                    vec![(1, Expect::U32(counters)), (2, Expect::U64(wide.to_vec()))]
                })
        })
        .collect()
}

fn atomic_minmax() -> Vec<Case> {
    [(4096u32, 1024u16), (100, 1), (640, 64)]
        .into_iter()
        .map(|(n, wg)| {
            let input: Vec<i32> = Rng::new(n as u64 + 1)
                .u32s(n as usize)
                .into_iter()
                .map(|v| v as i32)
                .collect();
            let reference = input.clone();
            Case::linear(format!("n={n} wg={wg}"), n, wg)
                .buf(bytes(&input))
                .buf(filled(4, i32::MAX))
                .buf(filled(4, i32::MIN))
                .buf(filled(4, u32::MAX))
                .buf(filled(4, 0u32))
                .expect(move || {
                    let (mut smin, mut smax) = ([i32::MAX; 4], [i32::MIN; 4]);
                    let (mut umin, mut umax) = ([u32::MAX; 4], [0u32; 4]);
                    for (i, &v) in reference.iter().enumerate() {
                        let s = i & 3;
                        smin[s] = smin[s].min(v);
                        smax[s] = smax[s].max(v);
                        umin[s] = umin[s].min(v as u32);
                        umax[s] = umax[s].max(v as u32);
                    }
                    let u = |a: [i32; 4]| a.iter().map(|&v| v as u32).collect();
                    vec![
                        (1, Expect::U32(u(smin))),
                        (2, Expect::U32(u(smax))),
                        (3, Expect::U32(umin.to_vec())),
                        (4, Expect::U32(umax.to_vec())),
                    ]
                })
        })
        .collect()
}

fn atomic_bitwise() -> Vec<Case> {
    [(2048u32, 256u16), (1024, 1024)]
        .into_iter()
        .map(|(n, wg)| {
            // Every value keeps one bit per byte set, so the AND does not collapse to 0.
            let input: Vec<u32> = Rng::new(n as u64 + 2)
                .u32s(n as usize)
                .iter()
                .map(|v| v | 0x0101_0101)
                .collect();
            let reference = input.clone();
            Case::linear(format!("n={n} wg={wg}"), n, wg)
                .buf(bytes(&input))
                .buf(filled(8, u32::MAX))
                .buf(filled(8, 0u32))
                .buf(filled(8, 0u32))
                .expect(move || {
                    let (mut and, mut or, mut xor) = ([u32::MAX; 8], [0u32; 8], [0u32; 8]);
                    for (i, &v) in reference.iter().enumerate() {
                        and[i & 7] &= v;
                        or[i & 7] |= v;
                        xor[i & 7] ^= v;
                    }
                    vec![
                        (1, Expect::U32(and.to_vec())),
                        (2, Expect::U32(or.to_vec())),
                        (3, Expect::U32(xor.to_vec())),
                    ]
                })
        })
        .collect()
}

fn atomic_cas_increment() -> Vec<Case> {
    [(2048u32, 256u16), (1024, 1024), (8, 1)]
        .into_iter()
        .map(|(n, wg)| {
            let input: Vec<u32> = Rng::new(n as u64 + 3)
                .u32s(n as usize)
                .iter()
                .map(|v| v >> 12)
                .collect();
            let reference = input.clone();
            Case::linear(format!("n={n} wg={wg}"), n, wg)
                .buf(bytes(&input))
                .buf(filled(2, 0u32))
                .buf(filled(n as usize, 0u32))
                .expect(move || {
                    let mut sums = [0u32; 2];
                    for (i, &v) in reference.iter().enumerate() {
                        sums[i & 1] = sums[i & 1].wrapping_add(v);
                    }
                    let n = reference.len() as u32;
                    let tries = Expect::Relation(Box::new(move |got| {
                        let tries = words::<u32>(got[2]);
                        match tries.iter().position(|&t| t == 0 || t > n) {
                            Some(i) => Err(format!("tries[{i}] = {} (want 1..={n})", tries[i])),
                            None => Ok(()),
                        }
                    }));
                    vec![(1, Expect::U32(sums.to_vec())), (2, tries)]
                })
        })
        .collect()
}

fn atomic_ticket_xchg() -> Vec<Case> {
    [(3000u32, 256u16), (1024, 1024), (5, 1)]
        .into_iter()
        .map(|(n, wg)| {
            const INITIAL: u32 = 0xffff_ffff;
            Case::linear(format!("n={n} wg={wg}"), n, wg)
                .buf(filled(1, 0u32))
                .buf(filled(n as usize, INITIAL))
                .buf(filled(1, INITIAL))
                .buf(filled(n as usize, INITIAL))
                .expect(move || {
                    let relation = Expect::Relation(Box::new(move |got| {
                        let mut order = words::<u32>(got[1]);
                        order.sort_unstable();
                        if let Some(i) = (0..n as usize).find(|&i| order[i] != i as u32) {
                            return Err(format!("order is not a permutation: sorted[{i}] = {:#x}", order[i]));
                        }
                        let mut seen = words::<u32>(got[3]);
                        seen.push(words::<u32>(got[2])[0]);
                        seen.sort_unstable();
                        let mut want: Vec<u32> = (0..n).collect();
                        want.push(INITIAL);
                        match (0..want.len()).find(|&i| seen[i] != want[i]) {
                            Some(i) => Err(format!(
                                "exchange results + final value are not the ids + initial: sorted[{i}] = {:#x}, want {:#x}",
                                seen[i], want[i]
                            )),
                            None => Ok(()),
                        }
                    }));
                    vec![(0, Expect::U32(vec![n])), (1, relation)]
                })
        })
        .collect()
}

fn atomic_inc_dec_wrap() -> Vec<Case> {
    [(5000u32, 256u16, 37u32), (1024, 1024, 1000), (64, 64, 0)]
        .into_iter()
        .map(|(n, wg, limit)| {
            Case::linear(format!("n={n} wg={wg} limit={limit}"), n, wg)
                .buf(filled(2, 0u32))
                .arg(Arg::U32(limit))
                .expect(move || {
                    let (mut inc, mut dec) = (0u32, 0u32);
                    for _ in 0..n {
                        inc = if inc >= limit { 0 } else { inc + 1 };
                        dec = if dec == 0 || dec > limit {
                            limit
                        } else {
                            dec - 1
                        };
                    }
                    vec![(0, Expect::U32(vec![inc, dec]))]
                })
        })
        .collect()
}

fn atomic_lds_kinds() -> Vec<Case> {
    [(256u16, 4u32), (1024, 1), (1, 3), (64, 2)]
        .into_iter()
        .map(|(wg, groups)| {
            let n = wg as usize * groups as usize;
            let input = Rng::new(wg as u64 + 21).u32s(n);
            let reference = input.clone();
            Case::linear(format!("wg={wg} groups={groups}"), n as u32, wg)
                .buf(bytes(&input))
                .buf(filled(10 * groups as usize, 0u32))
                .expect(move || {
                    let mut want = Vec::new();
                    for c in reference.chunks(wg as usize) {
                        let sum = c.iter().fold(0u32, |a, &v| a.wrapping_add(v));
                        want.extend([
                            sum,
                            0u32.wrapping_sub(sum),
                            *c.iter().min().unwrap(),
                            *c.iter().max().unwrap(),
                            c.iter().map(|&v| v as i32).min().unwrap() as u32,
                            c.iter().map(|&v| v as i32).max().unwrap() as u32,
                            c.iter().fold(u32::MAX, |a, &v| a & v),
                            c.iter().fold(0, |a, &v| a | v),
                            c.iter().fold(0, |a, &v| a ^ v),
                            1,
                        ]);
                    }
                    vec![(1, Expect::U32(want))]
                })
        })
        .collect()
}

fn atomic_f32_add() -> Vec<Case> {
    [(4096u32, 256u16), (1024, 1024)]
        .into_iter()
        .map(|(n, wg)| {
            let mut rng = Rng::new(n as u64 + 4);
            let input: Vec<f32> = (0..n).map(|_| rng.range(-8, 9) as f32).collect();
            let reference = input.clone();
            Case::linear(format!("n={n} wg={wg}"), n, wg)
                .buf(bytes(&input))
                .buf(filled(4, 0f32))
                .expect(move || {
                    let mut sums = [0f32; 4];
                    for (i, &v) in reference.iter().enumerate() {
                        sums[i & 3] += v; // small integers: exact in any order
                    }
                    vec![(
                        1,
                        Expect::F32 {
                            want: sums.to_vec(),
                            ulp: 0,
                        },
                    )]
                })
        })
        .collect()
}

fn atomic_u64_kinds() -> Vec<Case> {
    [(2048u32, 256u16), (1024, 1024)]
        .into_iter()
        .map(|(n, wg)| {
            let mut rng = Rng::new(n as u64 + 5);
            let input: Vec<u64> = (0..n).map(|_| rng.u64() | 0x0100_0000_0000_0001).collect();
            let reference = input.clone();
            Case::linear(format!("n={n} wg={wg}"), n, wg)
                .buf(bytes(&input))
                .buf(bytes(&[0, u64::MAX, 0, 0, 0, u64::MAX]))
                .expect(move || {
                    let r = &reference;
                    let want = vec![
                        r.iter().fold(0u64, |a, &v| a.wrapping_add(v)),
                        *r.iter().min().unwrap(),
                        *r.iter().max().unwrap(),
                        r.iter().fold(0, |a, &v| a ^ v),
                        r.iter().fold(0, |a, &v| a | v),
                        r.iter().fold(u64::MAX, |a, &v| a & v),
                    ];
                    vec![(1, Expect::U64(want))]
                })
        })
        .collect()
}

/// The u32 the HIP kernel orders floats by (larger float, larger key).
fn ordered(f: f32) -> u32 {
    let b = f.to_bits();
    if b & 0x8000_0000 != 0 {
        !b
    } else {
        b | 0x8000_0000
    }
}

fn hip_atomic_cas_fmax() -> Vec<Case> {
    [(4096u32, 256u16), (1024, 1024), (7, 1)]
        .into_iter()
        .map(|(n, wg)| {
            let mut rng = Rng::new(n as u64 + 6);
            let input: Vec<f32> = (0..n).map(|_| rng.f32(-1000.0, 1000.0)).collect();
            let reference = input.clone();
            Case::linear(format!("n={n} wg={wg}"), n, wg)
                .buf(bytes(&input))
                .buf(filled(4, f32::NEG_INFINITY))
                .buf(filled(1, u64::MAX))
                .expect(move || {
                    let mut best = [f32::NEG_INFINITY; 4];
                    let mut key = u64::MAX;
                    for (i, &v) in reference.iter().enumerate() {
                        best[i & 3] = best[i & 3].max(v);
                        key = key.min(((ordered(v) as u64) << 32) | i as u64);
                    }
                    vec![
                        (
                            1,
                            Expect::F32 {
                                want: best.to_vec(),
                                ulp: 0,
                            },
                        ),
                        (2, Expect::U64(vec![key])),
                    ]
                })
        })
        .collect()
}

fn hip_atomic_scopes() -> Vec<Case> {
    [(3000u32, 256u16), (2048, 1024), (64, 64)]
        .into_iter()
        .map(|(n, wg)| {
            let groups = n.div_ceil(wg as u32) as usize;
            Case::linear(format!("n={n} wg={wg}"), n, wg)
                .buf(filled(5, 0u32))
                .buf(filled(groups, 0u32))
                .buf(filled(1, 0u32))
                .expect(move || {
                    let sum_i = (0..n).fold(0u32, |a, i| a.wrapping_add(i));
                    let sum_low = (0..n).fold(0u32, |a, i| a.wrapping_add(i & 255));
                    let counts = (0..groups)
                        .map(|g| (n - g as u32 * wg as u32).min(wg as u32))
                        .collect();
                    vec![
                        (0, Expect::U32(vec![n, sum_i, 2 * n, sum_low, n])),
                        (1, Expect::U32(counts)),
                        (2, Expect::U32(vec![n - 1])),
                    ]
                })
        })
        .collect()
}
