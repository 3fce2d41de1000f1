//! Subgroup builtins and operations on gfxsim (gfx1100, wave32) against
//! host references computed per wave: reductions, scans, all/any, ballots
//! over full waves and divergent subsets, broadcasts, shuffles and quad
//! operations. Waves are 32 consecutive local invocation indices.

use aqueduct_test_harness::shaderc::*;

const WAVE: usize = 32;

/// Test data below 1000 with a 7 only in wave 0 and wave 3 all even.
fn data(n: usize, seed: u64) -> Vec<u32> {
    let mut d: Vec<u32> = Rng::new(seed)
        .u32s(n)
        .iter()
        .map(|v| v % 1000)
        .map(|v| if v == 7 { 8 } else { v })
        .collect();
    d[3] = 7;
    for v in &mut d[3 * WAVE..4 * WAVE] {
        *v &= !1;
    }
    d
}

fn bits(f: f32) -> u32 {
    f.to_bits()
}

#[test]
fn subgroup_builtins_per_wave() {
    let out = run(
        "tests/subgroup_builtins",
        "main",
        &[(0, 0, vec![0; 160 * 16])],
        [2, 1, 1],
    );
    let got = u32s(&out[0]);
    for i in 0..160 {
        let li = (i % 80) as u32;
        assert_eq!(
            &got[i * 4..i * 4 + 4],
            &[32, li % 32, li / 32, 3],
            "invocation {i}"
        );
    }
}

#[test]
fn subgroup_reductions_scans_and_ballots() {
    const SLOTS: usize = 32;
    let n = 128;
    let d = data(n, 71);
    let out = run(
        "tests/subgroup_reduce",
        "main",
        &[(0, 0, bytes_of(&d)), (0, 1, vec![0; n * SLOTS * 4])],
        [2, 1, 1],
    );
    let got = u32s(&out[1]);
    for w in 0..n / WAVE {
        let xs = &d[w * WAVE..(w + 1) * WAVE];
        let fs: Vec<f32> = xs.iter().map(|&x| x as f32 * 0.125 - 3.0).collect();
        let fold = |f: &dyn Fn(u32, u32) -> u32, init: u32, lanes: &[usize]| {
            lanes.iter().fold(init, |a, &l| f(a, xs[l]))
        };
        let all: Vec<usize> = (0..WAVE).collect();
        let active: Vec<usize> = (0..WAVE).filter(|&l| !xs[l].is_multiple_of(3)).collect();
        let active2: Vec<usize> = active
            .iter()
            .copied()
            .filter(|&l| xs[l].is_multiple_of(2))
            .collect();
        let mask_of = |lanes: &[usize]| lanes.iter().fold(0u32, |m, &l| m | 1 << l);
        let fsum = |lanes: &[usize]| lanes.iter().fold(0.0f32, |a, &l| a + fs[l]);
        for l in 0..WAVE {
            let i = w * WAVE + l;
            let slot = |k: usize| got[i * SLOTS + k];
            let below: Vec<usize> = (0..l).collect();
            let upto: Vec<usize> = (0..=l).collect();
            let mut want = [0u32; SLOTS];
            want[0] = fold(&|a, x| a.wrapping_add(x), 0, &all);
            want[1] = fold(&|a, x| a.wrapping_mul(x | 1), 1, &all);
            want[2] = *xs.iter().min().unwrap();
            want[3] = *xs.iter().max().unwrap();
            want[4] = fold(&|a, x| a & (x | 0x10000), !0, &all);
            want[5] = fold(&|a, x| a | x, 0, &all);
            want[6] = fold(&|a, x| a ^ x, 0, &all);
            want[7] = xs.iter().map(|&x| x as i32 - 500).min().unwrap() as u32;
            want[8] = xs.iter().map(|&x| x as i32 - 500).max().unwrap() as u32;
            want[9] = bits(fsum(&all));
            want[10] = fold(&|a, x| a.wrapping_add(x), 0, &upto);
            want[11] = fold(&|a, x| a.wrapping_add(x), 0, &below);
            want[12] = fold(&|a, x| a.wrapping_mul(x | 1), 1, &upto);
            want[13] = fold(&|a, x| a.wrapping_mul(x | 1), 1, &below);
            want[14] = u32::from(xs.iter().all(|&x| x < 1000))
                | u32::from(xs.iter().all(|&x| x.is_multiple_of(2))) << 1;
            want[15] = u32::from(xs.contains(&7)) | 2;
            want[16] = mask_of(
                &(0..WAVE)
                    .filter(|&l| xs[l].is_multiple_of(3))
                    .collect::<Vec<_>>(),
            );
            let (sx, s2, s1) = xs.iter().fold((0u32, 0u32, 0u32), |(a, b, c), &x| {
                (
                    a.wrapping_add(x),
                    b.wrapping_add(x * 2),
                    c.wrapping_add(x + 1),
                )
            });
            want[18] = sx ^ (s2 << 8) ^ (s1 << 16);
            want[19] = bits(fs.iter().map(|f| -f).fold(f32::NEG_INFINITY, f32::max));
            want[20] = bits(fsum(&below));
            if !xs[l].is_multiple_of(3) {
                let act_below: Vec<usize> = active.iter().copied().filter(|&a| a < l).collect();
                let act_upto: Vec<usize> = active.iter().copied().filter(|&a| a <= l).collect();
                want[21] = fold(&|a, x| a.wrapping_add(x), 0, &active);
                want[22] = active.iter().map(|&a| xs[a]).min().unwrap();
                want[23] = fold(&|a, x| a.wrapping_add(x), 0, &act_below);
                want[24] = mask_of(&active);
                want[25] = u32::from(active.iter().all(|&a| xs[a] % 3 == 1));
                want[26] = xs[active[0]];
                want[27] = fold(&|a, x| a.wrapping_mul(x % 5 + 1), 1, &act_upto);
                if xs[l].is_multiple_of(2) {
                    want[28] = active2.iter().map(|&a| xs[a]).max().unwrap();
                    want[29] = mask_of(&active2);
                }
            }
            for (k, &w) in want.iter().enumerate() {
                assert_eq!(
                    slot(k),
                    w,
                    "invocation {i} (wave {}, lane {l}) slot {k}",
                    i / WAVE
                );
            }
        }
    }
    // The data makes both outcomes of all/any occur.
    assert!(d[3 * WAVE..].iter().all(|x| x.is_multiple_of(2)));
    assert!(!d[..WAVE].iter().all(|x| x.is_multiple_of(2)));
}

#[test]
fn subgroup_broadcasts_shuffles_and_quads() {
    const SLOTS: usize = 16;
    let n = 128;
    let d = data(n, 72);
    let out = run(
        "tests/subgroup_shuffle",
        "main",
        &[(0, 0, bytes_of(&d)), (0, 1, vec![0; n * SLOTS * 4])],
        [2, 1, 1],
    );
    let got = u32s(&out[1]);
    for i in 0..n {
        let l = i % WAVE;
        let base = i - l;
        let x = |lane: usize| d[base + lane];
        let slot = |k: usize| got[i * SLOTS + k];
        let at = |k: usize, want: u32| assert_eq!(slot(k), want, "invocation {i} slot {k}");
        at(0, x(0));
        at(1, x(5));
        at(2, x((d[i] as usize * 7) % 32));
        at(3, x(l ^ 5));
        if l >= 3 {
            at(4, x(l - 3));
        }
        if l + 2 < WAVE {
            at(5, x(l + 2));
        }
        at(6, x((l & !3) + 2));
        at(7, x(l ^ 1));
        at(8, x(l ^ 2));
        at(9, x(l ^ 3));
        let s = x(l ^ 9) as f32;
        at(10, bits(s + (s * 0.5) * 4.0 - (-s) * 16.0));
        let h = half::f16::from_f32((x(17) % 1024) as f32).to_bits() as u32;
        at(11, h | (half::f16::from_f32(1.5).to_bits() as u32) << 16);
        let q = x(31 - (d[i] as usize % 32));
        at(12, q ^ ((q + 3) << 12));
        if l + 1 < WAVE {
            at(13, (x(l + 1) as i32 - 100) as u32);
        }
    }
}
