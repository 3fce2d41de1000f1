//! LLVM's f32 square root with its correction steps dropped
//! (llvm/sqrt_correction.rs) against the interpreter: the expansion the
//! AMDGPU back end emits for `sqrt` (the words of a WGSL kernel's code,
//! as llvm-mc-19 `-mcpu=gfx1100 -show-encoding` gives them), chained four
//! times, run on inputs of every class (zeros, infinities, NaNs, negative
//! values, denormals, the scaling threshold 2^-96 and its neighbours,
//! random bits) through the one-wave translation under full and partial
//! EXEC and through the two-wave one, at every target this host runs;
//! every register must match. The matcher finds each chained root, and
//! none without the scaling (where a correction does fire). GFX9's form
//! (HIP's `sqrtf` for gfx942: the threshold in an SGPR, masks in SGPR
//! pairs) runs the same way in wave64 waves.

use std::cell::UnsafeCell;
use std::sync::Arc;

use super::abi::{callout, run_pair, run_translated};
use super::llvm::sqrt_correction::sqrt_corrections;
use super::target::JitTarget;
use super::tests::{
    Backend, CODE, DATA_LEN, Memory, assert_same_run, backends, compare, mnemonics,
};
use crate::WaveLoop;
use crate::gfx11::code_cache::{Block, CodeCache};
use crate::gfx11::exec::fast::tests::{Rng, env_over};
use crate::gfx11::run_block::interpret_block_for_tests as interpret_block;
use crate::gfx11::wave::{EXEC, Wave};

/// One square root of v3 into v0 (temporaries v4..v8, s0, VCC), as the
/// AMDGPU back end expands it, with the scaling threshold `tiny` (its
/// 2^-96 is 0x0F800000), then v3 = 0.75 * v0 for the next.
fn root(tiny: u32) -> Vec<u32> {
    vec![
        0x1000_06FF,
        0x4F80_0000, // v_mul_f32_e32 v0, 0x4f800000, v3
        0x7C28_06FF,
        tiny,        // v_cmp_gt_f32_e32 vcc_lo, tiny, v3
        0x0200_0103, // v_cndmask_b32_e32 v0, v3, v0, vcc_lo
        0xBF87_0141, // s_delay_alu
        0x7E08_6700, // v_sqrt_f32_e32 v4, v0
        0xBF88_0FFF, // s_waitcnt_depctr 0xfff
        0x4A0A_08C1, // v_add_nc_u32_e32 v5, -1, v4
        0x4A0C_0881, // v_add_nc_u32_e32 v6, 1, v4
        0xD613_0007,
        0x2402_0905, // v_fma_f32 v7, -v5, v4, v0
        0xD613_0008,
        0x2402_0906, // v_fma_f32 v8, -v6, v4, v0
        0xD416_0000,
        0x0002_0E80, // v_cmp_ge_f32_e64 s0, 0, v7
        0xD501_0004,
        0x0002_0B04, // v_cndmask_b32_e64 v4, v4, v5, s0
        0xD411_0000,
        0x0002_1080, // v_cmp_lt_f32_e64 s0, 0, v8
        0xD501_0004,
        0x0002_0D04, // v_cndmask_b32_e64 v4, v4, v6, s0
        0x100A_08FF,
        0x3780_0000, // v_mul_f32_e32 v5, 0x37800000, v4
        0x0208_0B04, // v_cndmask_b32_e32 v4, v4, v5, vcc_lo
        0xD47E_006A,
        0x0001_FF00,
        0x0000_0260, // v_cmp_class_f32_e64 vcc_lo, v0, 0x260
        0x0200_0104, // v_cndmask_b32_e32 v0, v4, v0, vcc_lo
        0x1000_00FF,
        0x3F40_0000, // v_mul_f32_e32 v3, 0x3f400000, v0
    ]
}

/// Four chained roots, the last with threshold `tiny`, then a branch to
/// the next instruction (the block ends there).
fn roots(tiny: u32) -> (Arc<Block>, Memory) {
    let mut words = Vec::new();
    for k in 0..4 {
        words.extend(root(if k == 3 { tiny } else { 0x0F80_0000 }));
    }
    words.push(0xBFA0_0000); // s_branch to the next instruction
    let code = Memory {
        code: words.iter().flat_map(|w| w.to_le_bytes()).collect(),
        data: UnsafeCell::new(vec![0; DATA_LEN]),
    };
    let block = CodeCache::new().block(CODE, &code);
    (block, code)
}

/// An input of a class the expansion treats apart, or random bits.
fn input(rng: &mut Rng, k: usize) -> u32 {
    const EDGES: [u32; 22] = [
        0x0000_0000,
        0x8000_0000,
        0x7F80_0000,
        0xFF80_0000,
        0x7FC0_0000,
        0x7FA0_0042,
        0xFFC0_1234,
        0xBF80_0000,
        0x8000_0001,
        0x0000_0001,
        0x007F_FFFF,
        0x0080_0000,
        0x0F7F_FFFF,
        0x0F80_0000,
        0x0F80_0001,
        0x1F80_0000,
        0x3F80_0000,
        0x4000_0000,
        0x7F7F_FFFF,
        0x0000_0004,
        0x0000_0005,
        0x3400_0000,
    ];
    match k {
        k if k < EDGES.len() => EDGES[k],
        _ => match rng.below(4) {
            0 => rng.next(),
            // A positive value below the threshold (denormal or not).
            1 => rng.below(0x0F80_0000),
            // Near the threshold.
            2 => 0x0F80_0000 - 64 + rng.below(128),
            _ => rng.next() & 0x7FFF_FFFF,
        },
    }
}

/// A wave32 wave with inputs in v3, the rest random.
fn wave(rng: &mut Rng, first: usize) -> Wave {
    let mut w = rng.wave();
    w.wave64 = false;
    for l in 0..32 {
        w.vgpr[3][l] = input(rng, first + l);
    }
    w
}

/// The one-wave translation against the interpreter, from `w0`.
fn one_wave(t: &super::translation::Translation, block: &Block, code: &Memory, w0: &Wave) {
    let run = |jit: bool| {
        let mut w = w0.clone();
        let mut env = env_over(code, &mut [], &mut []);
        let r = if jit {
            // SAFETY: `t` translates `block` for wave32 and lives across
            // the call.
            unsafe {
                run_translated(
                    t.func(),
                    callout(WaveLoop::host_best()),
                    &mut w,
                    &mut env,
                    block,
                    0,
                    &mut 0,
                )
                .0
            }
        } else {
            interpret_block(&mut w, &mut env, block, &block.compiled)
        };
        (r, w)
    };
    let (want, slow) = run(false);
    let (got, quick) = run(true);
    let what = format!("{} (EXEC {:#x})", mnemonics(block), w0.sgpr[EXEC]);
    assert_same_run(&what, (&got, &quick), (&want, &slow));
}

#[test]
fn the_matcher_finds_each_chained_root_and_no_other() {
    let (block, _code) = roots(0x0F80_0000);
    let found = sqrt_corrections(&block, false);
    assert_eq!(found.len(), 4, "{found:?}");
    for f in &found {
        assert_eq!((f.row, f.dst), (4, 4), "{f:?}");
        assert!(f.sqrt < f.last, "{f:?}");
    }
    // With a threshold of 0 no positive input is scaled, and for denormal
    // ones a correction fires: the last root is not matched.
    let (other, _code) = roots(0);
    assert_eq!(sqrt_corrections(&other, false).len(), 3);
}

#[test]
fn roots_without_their_corrections_match_the_interpreter() {
    let backends = backends();
    if !backends.iter().any(|b| matches!(b, Backend::Llvm)) {
        return;
    }
    for tiny in [0x0F80_0000, 0] {
        let (block, code) = roots(tiny);
        assert!(block.sync, "{}", mnemonics(&block));
        for target in JitTarget::all_here() {
            let t = &Backend::Llvm.translate_for(&[&block], target)[0];
            let mut rng = Rng::new(0x51D7_C0AA_0E11_9F03 ^ u64::from(tiny));
            for k in 0..24 {
                let mut w = wave(&mut rng, 32 * k);
                for exec in [u32::MAX, 0x8000_0001, rng.next()] {
                    w.sgpr[EXEC] = exec;
                    one_wave(t, &block, &code, &w);
                }
            }
            // Two waves at once; with a NaN anywhere (the inputs have
            // some) the pair leaves both to their one-wave translations.
            let pair = t.pair().expect("the block has a two-wave form");
            for k in 0..16 {
                let mut w0 = [wave(&mut rng, 64 * k), wave(&mut rng, 64 * k + 32)];
                if k % 2 == 1 {
                    // Positive finite inputs only: the pair runs.
                    for w in &mut w0 {
                        for l in 0..32 {
                            w.vgpr[3][l] = rng.below(0x7F80_0000);
                        }
                    }
                }
                for (w, exec) in w0.iter_mut().zip([u32::MAX, rng.next()]) {
                    w.sgpr[EXEC] = if k % 4 < 2 { u32::MAX } else { exec };
                }
                let [mut a, mut b] = w0.clone();
                let mut env = env_over(&code, &mut [], &mut []);
                // SAFETY: `pair` is the two-wave translation of `block`,
                // alive with `t`; both waves are wave32.
                let exit = unsafe {
                    run_pair(
                        pair,
                        callout(WaveLoop::host_best()),
                        &mut a,
                        &mut b,
                        &mut env,
                        &block,
                        0,
                    )
                };
                assert!(exit.ran || k % 2 == 0, "{target:?} pair {k} did not run");
                for (got, w) in [a, b].into_iter().zip(w0) {
                    let mut want = w.clone();
                    if exit.ran {
                        let mut env = env_over(&code, &mut [], &mut []);
                        let r = interpret_block(&mut want, &mut env, &block, &block.compiled);
                        assert!(r.is_ok(), "{target:?} pair {k}");
                    }
                    assert_eq!(got.sgpr, want.sgpr, "{target:?} pair {k}");
                    for r in 0..10 {
                        assert_eq!(got.vgpr[r], want.vgpr[r], "{target:?} pair {k} v{r}");
                    }
                }
            }
        }
    }
}

/// HIP's `sqrtf` of v1 for gfx942 (clang-19 `-x hip --offload-arch=gfx942
/// -O3`, the words llvm-objdump-19 shows): the threshold in s0 (unless
/// `threshold` is false), v1 loaded in between when `load`, then the
/// expansion on wave64 masks in SGPR pairs, and 0.75 times the root.
fn gfx942_root(threshold: bool, load: bool) -> Vec<u32> {
    let mut words = Vec::new();
    if threshold {
        words.extend([0xBE80_00FF, 0x0F80_0000]); // s_mov_b32 s0, 0xf800000
    }
    words.extend([0x7E06_02FF, 0x0000_0260]); // v_mov_b32_e32 v3, 0x260
    if load {
        words.extend([0xBF8C_C07F, 0xDC50_8000, 0x0102_0000]); // s_waitcnt; global_load_dword v1, v0, s[2:3]
    }
    words.extend([
        0xBF8C_0F70, // s_waitcnt vmcnt(0)
        0x0A04_02FF,
        0x4F80_0000, // v_mul_f32_e32 v2, 0x4f800000, v1
        0x7C88_0200, // v_cmp_gt_f32_e32 vcc, s0, v1
        0xBF80_0001, // s_nop 1
        0x0002_0501, // v_cndmask_b32_e32 v1, v1, v2, vcc
        0x7E04_4F01, // v_sqrt_f32_e32 v2, v1
        0xBF80_0000, // s_nop 0
        0x6808_04C1, // v_add_u32_e32 v4, -1, v2
        0x680A_0481, // v_add_u32_e32 v5, 1, v2
        0xD1CB_0006,
        0x2406_0504, // v_fma_f32 v6, -v4, v2, v1
        0xD1CB_0007,
        0x2406_0505, // v_fma_f32 v7, -v5, v2, v1
        0xD046_0000,
        0x0002_0C80, // v_cmp_ge_f32_e64 s[0:1], 0, v6
        0xBF80_0001, // s_nop 1
        0xD100_0002,
        0x0002_0902, // v_cndmask_b32_e64 v2, v2, v4, s[0:1]
        0xD041_0000,
        0x0002_0E80, // v_cmp_lt_f32_e64 s[0:1], 0, v7
        0xBF80_0001, // s_nop 1
        0xD100_0002,
        0x0002_0B02, // v_cndmask_b32_e64 v2, v2, v5, s[0:1]
        0x0A08_04FF,
        0x3780_0000, // v_mul_f32_e32 v4, 0x37800000, v2
        0x0004_0902, // v_cndmask_b32_e32 v2, v2, v4, vcc
        0x7C20_0701, // v_cmp_class_f32_e32 vcc, v1, v3
        0xBF80_0001, // s_nop 1
        0x0002_0302, // v_cndmask_b32_e32 v1, v2, v1, vcc
        0x0A02_02FF,
        0x3F40_0000, // v_mul_f32_e32 v1, 0x3f400000, v1
        0xBF81_0000, // s_endpgm
    ]);
    words
}

fn gfx942_block(words: &[u32]) -> (Arc<Block>, Memory) {
    use crate::Isa;
    use crate::gfx9::Target;
    let mem = Memory {
        code: words.iter().flat_map(|w| w.to_le_bytes()).collect(),
        data: UnsafeCell::new(vec![0; DATA_LEN]),
    };
    let block = CodeCache::for_isa(Isa::Gfx9(Target::Gfx942)).block(CODE, &mem);
    (block, mem)
}

#[test]
fn the_matcher_finds_gfx942_roots_across_vector_memory() {
    let found = |threshold, load| {
        let (block, _mem) = gfx942_block(&gfx942_root(threshold, load));
        sqrt_corrections(&block, true)
    };
    let f = found(true, true);
    assert_eq!(f.len(), 1, "{f:?}");
    assert_eq!((f[0].row, f[0].dst), (2, 2), "{f:?}");
    assert_eq!(found(true, false).len(), 1);
    // An SGPR of unknown value as the threshold: no match.
    assert!(found(false, true).is_empty());
}

#[test]
fn gfx942_roots_without_their_corrections_match_the_interpreter() {
    if !super::llvm::available() {
        eprintln!("skipped: libLLVM-19 does not load here");
        return;
    }
    let (block, mem) = gfx942_block(&gfx942_root(true, false));
    assert_eq!(sqrt_corrections(&block, true).len(), 1);
    let mut rng = Rng::new(0x0D3A_71C4_95EE_2B60);
    for target in JitTarget::all_here() {
        let t = &super::llvm::translate_all_for(&[&block], true, target)
            .expect("the block translates")[0];
        let mut inlined = 0;
        for k in 0..16 {
            let w = rng.wave();
            let mut w = rng.wave64(&w);
            for l in 0..32 {
                w.vgpr[1][l] = input(&mut rng, 64 * k + l);
                w.vgpr_hi[1][l] = input(&mut rng, 64 * k + 32 + l);
            }
            for (lo, hi) in [(u32::MAX, u32::MAX), (rng.next(), rng.next()), (0, 1 << 7)] {
                (w.sgpr[EXEC], w.sgpr[EXEC + 1]) = (lo, hi);
                inlined += compare(t, &block, &mem, &w, &[], WaveLoop::host_best());
            }
        }
        assert!(inlined > 0, "{target:?}: nothing ran inline");
    }
}

/// The correction steps leave every `s` as it is, for each of the 2^32
/// inputs, in the interpreter's arithmetic: IEEE f32 products, fused
/// multiply-adds and square roots (valu/mod.rs), ordered compares (a NaN
/// residual selects nothing, so a NaN's payload does not matter). About
/// half a minute on two cores: `cargo test --release -p aqueduct-isa
/// --features llvm-jit -- --ignored sqrt_corrections_never_fire`.
#[test]
#[ignore]
fn sqrt_corrections_never_fire_for_any_input() {
    fn corrected(x: f32) -> (u32, u32) {
        let y = if f32::from_bits(0x0F80_0000) > x {
            x * f32::from_bits(0x4F80_0000)
        } else {
            x
        };
        let s = y.sqrt();
        let d = f32::from_bits(s.to_bits().wrapping_sub(1));
        let u = f32::from_bits(s.to_bits().wrapping_add(1));
        let s1 = if 0.0 >= (-d).mul_add(s, y) { d } else { s };
        let s2 = if 0.0 < (-u).mul_add(s, y) { u } else { s1 };
        (s.to_bits(), s2.to_bits())
    }
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get()) as u64;
    let fired: u64 = (0..threads)
        .map(|t| {
            std::thread::spawn(move || {
                let (lo, hi) = (t * (1 << 32) / threads, (t + 1) * (1 << 32) / threads);
                (lo..hi)
                    .filter(|&b| {
                        let (s, s2) = corrected(f32::from_bits(b as u32));
                        s != s2
                    })
                    .count() as u64
            })
        })
        .collect::<Vec<_>>()
        .into_iter()
        .map(|h| h.join().expect("a checking thread"))
        .sum();
    assert_eq!(fired, 0);
}
