//! Function calls: non-inlined OpenCL helpers with private-pointer arguments, HIP
//! recursion (dynamic stack), indirect calls through a function-pointer table, and
//! hand-written s_swappc_b64 / s_call_b64 / s_setpc_b64 subroutines.

use super::data::{Rng, bytes, filled};
use super::{Case, Category, Expect, Kernel, Lang};

pub fn kernels() -> Vec<Kernel> {
    use Category::Calls as C;
    vec![
        Kernel {
            name: "calls_noinline",
            lang: Lang::OpenCl,
            category: C,
            cases: calls_noinline,
        },
        Kernel {
            name: "hip_recursion_fib",
            lang: Lang::Hip,
            category: C,
            cases: hip_recursion_fib,
        },
        Kernel {
            name: "hip_fnptr_table",
            lang: Lang::Hip,
            category: C,
            cases: hip_fnptr_table,
        },
        Kernel {
            name: "asm_call_subroutine",
            lang: Lang::Asm,
            category: C,
            cases: asm_call_subroutine,
        },
    ]
}

fn calls_noinline() -> Vec<Case> {
    [(1024u32, 256u16), (20, 1)]
        .into_iter()
        .map(|(n, wg)| {
            let mut rng = Rng::new(n as u64 + 401);
            let (x, y) = (rng.u32s(n as usize), rng.u32s(n as usize));
            let (rx, ry) = (x.clone(), y.clone());
            Case::linear(format!("n={n} wg={wg}"), n, wg)
                .buf(bytes(&x))
                .buf(bytes(&y))
                .buf(filled(3 * n as usize, 0u32))
                .expect(move || {
                    let mix64 = |v: u64| (v ^ (v >> 31)).wrapping_mul(0x9e37_79b9_7f4a_7c15);
                    let mut want = Vec::new();
                    for i in 0..rx.len() {
                        let (a, b) = (rx[i], ry[i]);
                        want.push(
                            (a ^ (b << 3)).wrapping_add((i as u32).wrapping_mul(2_654_435_761)),
                        );
                        want.push(a.min(b).wrapping_mul(3).wrapping_add(a.max(b)));
                        let folded =
                            (0..=(b & 7) as u64).fold(a as u64, |v, j| mix64(v.wrapping_add(j)));
                        want.push((folded >> 7) as u32);
                    }
                    vec![(2, Expect::U32(want))]
                })
        })
        .collect()
}

fn hip_recursion_fib() -> Vec<Case> {
    [(256u32, 64u16), (16, 1)]
        .into_iter()
        .map(|(n, wg)| {
            let mut rng = Rng::new(n as u64 + 402);
            let input: Vec<u32> = (0..n).map(|_| rng.range(0, 14) as u32).collect();
            let r = input.clone();
            Case::linear(format!("n={n} wg={wg}"), n, wg)
                .buf(bytes(&input))
                .buf(filled(n as usize, 0u32))
                .expect(move || {
                    let fib = |k: u32| {
                        (0..k)
                            .fold((0u32, 1u32), |(a, b), _| (b, a.wrapping_add(b)))
                            .0
                    };
                    vec![(1, Expect::U32(r.iter().map(|&k| fib(k)).collect()))]
                })
        })
        .collect()
}

fn hip_fnptr_table() -> Vec<Case> {
    [(1024u32, 256u16), (12, 1)]
        .into_iter()
        .map(|(n, wg)| {
            let mut rng = Rng::new(n as u64 + 403);
            let (sel, a, b) = (
                rng.u32s(n as usize),
                rng.u32s(n as usize),
                rng.u32s(n as usize),
            );
            let (rs, ra, rb) = (sel.clone(), a.clone(), b.clone());
            Case::linear(format!("n={n} wg={wg}"), n, wg)
                .buf(bytes(&sel))
                .buf(bytes(&a))
                .buf(bytes(&b))
                .buf(filled(n as usize, 0u32))
                .expect(move || {
                    let want = (0..rs.len())
                        .map(|i| {
                            let (a, b) = (ra[i], rb[i]);
                            match rs[i] & 3 {
                                0 => a.wrapping_add(b),
                                1 => a.wrapping_sub(b),
                                2 => a.wrapping_mul(b),
                                _ => (a ^ b).rotate_left(7),
                            }
                        })
                        .collect();
                    vec![(3, Expect::U32(want))]
                })
        })
        .collect()
}

fn asm_call_subroutine() -> Vec<Case> {
    [(512u32, 64u16), (3, 1)]
        .into_iter()
        .map(|(n, wg)| {
            let x = Rng::new(n as u64 + 404).u32s(n as usize);
            let rx = x.clone();
            Case::linear(format!("n={n} wg={wg}"), n, wg)
                .buf(bytes(&x))
                .buf(filled(n as usize, 0u32))
                .expect(move || {
                    let f = |v: u32| v.wrapping_mul(v).wrapping_add(7);
                    vec![(1, Expect::U32(rx.iter().map(|&v| f(f(v))).collect()))]
                })
        })
        .collect()
}
