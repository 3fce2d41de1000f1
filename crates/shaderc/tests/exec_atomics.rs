//! Atomics (storage and workgroup), workgroupUniformLoad and the compute
//! builtins, on gfxsim vs host.

use aqueduct_test_harness::shaderc::*;

#[test]
fn storage_atomics_all_functions() {
    let mut init = vec![0u32; 12];
    init[1] = 100_000; // sub
    init[3] = u32::MAX; // umin
    init[4] = u32::MAX; // and
    init[6] = 0x5555; // xor
    init[9] = 0; // smin (i32)
    let out = run(
        "tests/atomics_storage",
        "main",
        &[(0, 0, bytes_of(&init)), (0, 1, vec![0; 64 * 4])],
        [1, 1, 1],
    );
    let c = u32s(&out[0]);
    assert_eq!(c[0], (1..=64).sum::<u32>(), "add");
    assert_eq!(c[1], 100_000 - (0..64).sum::<u32>(), "sub");
    assert_eq!(c[2], 63 * 7, "umax");
    assert_eq!(c[3], 1000 - 63, "umin");
    assert_eq!(c[4], 0x8000_0000, "and");
    assert_eq!(c[5], u32::MAX, "or");
    assert_eq!(c[6], (0..64u32).fold(0x5555, |a, b| a ^ b), "xor");
    assert_eq!(c[7], 5, "exchange");
    assert_eq!(c[8] as i32, 23, "smax");
    assert_eq!(c[9] as i32, -40, "smin");
    assert_eq!(c[10], 128, "compare-exchange loop");
    assert_eq!(c[11], 0xabcd, "atomicStore");
    // the old values returned by atomicAdd are a permutation of prefix sums
    let mut olds = u32s(&out[1]);
    olds.sort();
    assert_eq!(olds[0], 0);
    assert!(olds.windows(2).all(|w| w[0] < w[1]), "distinct old values");
}

#[test]
fn workgroup_atomics_histogram() {
    let data = Rng::new(9).u32s(64 * 4);
    let out = run(
        "tests/atomics_workgroup",
        "main",
        &[(0, 0, bytes_of(&data)), (0, 1, vec![0; 17 * 4])],
        [4, 1, 1],
    );
    let bins = u32s(&out[1]);
    let mut want = [0u32; 16];
    for v in &data {
        want[(v % 16) as usize] += 1;
    }
    assert_eq!(&bins[..16], &want);
    assert_eq!(bins[16], *data.iter().max().unwrap());
}

#[test]
fn workgroup_uniform_load() {
    let seeds = [7u32, 11, 13];
    let out = run(
        "tests/uniform_load",
        "main",
        &[(0, 0, bytes_of(&seeds)), (0, 1, vec![0; 96 * 4])],
        [3, 1, 1],
    );
    let got = u32s(&out[1]);
    for g in 0..3 {
        for l in 0..32 {
            assert_eq!(got[g * 32 + l], seeds[g] * 3 + l as u32);
        }
    }
}

#[test]
fn compute_builtins_3d() {
    let groups = [2u32, 3, 2];
    let n = (groups.iter().product::<u32>() * 16) as usize;
    let out = run(
        "tests/builtin_ids",
        "main",
        &[(0, 0, vec![0; n * 64])],
        groups,
    );
    let got = u32s(&out[0]);
    for wz in 0..groups[2] {
        for wy in 0..groups[1] {
            for wx in 0..groups[0] {
                for lz in 0..2 {
                    for ly in 0..2 {
                        for lx in 0..4 {
                            let lidx = lx + 4 * ly + 8 * lz;
                            let flat = wx + groups[0] * (wy + groups[1] * wz);
                            let s = ((flat * 16 + lidx) * 16) as usize;
                            let want = [
                                lx,
                                ly,
                                lz,
                                lidx,
                                wx,
                                wy,
                                wz,
                                0,
                                wx * 4 + lx,
                                wy * 2 + ly,
                                wz * 2 + lz,
                                0,
                                groups[0],
                                groups[1],
                                groups[2],
                                0,
                            ];
                            assert_eq!(
                                &got[s..s + 16],
                                &want,
                                "group {wx},{wy},{wz} item {lx},{ly},{lz}"
                            );
                        }
                    }
                }
            }
        }
    }
}

#[test]
fn builtins_in_an_input_struct() {
    let out = run(
        "tests/builtin_struct_input",
        "main",
        &[(0, 0, vec![0; 48 * 4])],
        [3, 1, 1],
    );
    let got = u32s(&out[0]);
    for i in 0..48u32 {
        assert_eq!(got[i as usize], i * 100 + i % 16);
    }
}
