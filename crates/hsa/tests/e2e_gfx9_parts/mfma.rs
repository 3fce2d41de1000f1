//! Every MFMA form LLVM emits from `__builtin_amdgcn_mfma_*` for gfx90a and
//! gfx942 (kernels/src/mfma.cl, one kernel per form) run on gfxsim and
//! compared element by element with a host computation.
//!
//! The host lays A, B and C out in each lane's registers as AMD's matrix
//! instruction calculator gives them (`--detail-instruction`, "Matrix
//! element to register mapping", CDNA2 and CDNA3) and restates them here
//! independently of gfxsim: with B blocks of M x N (= M) x K and
//! e = K * M * B / 64 elements per lane, A[i][k] of block b is in lane
//! i + M * b + M * B * (k / e), element k % e (B[k][j] likewise with j);
//! 32-bit C and D[i][j] of block b are in register i, lane j + 4 * b for
//! M = 4, register 4 * b + i % 4, lane j + 16 * (i / 4) for M = 16, and
//! register 16 * b + 4 * (i / 8) + i % 4, lane j + 32 * (i / 4 % 2) for
//! M = 32; f64 C and D in pair i / 4, lane j + M * b + 16 * (i % 4).
//! CBSZ/ABID make block b read block (b / 2^CBSZ) * 2^CBSZ + ABID's A;
//! BLGP moves the lane B is read from (negates A, B, C on gfx942's f64).

use super::{SENTINEL, gpu_of, parts};
use aqueduct_test_harness::hsa_sim::{Arg, Gpu, Rng, read_u32};
use aqueduct_test_support::repo;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Ty {
    F32,
    Xf32,
    F16,
    Bf16,
    I8,
    F64,
    Fp8,
    Bf8,
}

impl Ty {
    fn bits(self) -> usize {
        match self {
            Ty::F32 | Ty::Xf32 => 32,
            Ty::F16 | Ty::Bf16 => 16,
            Ty::I8 | Ty::Fp8 | Ty::Bf8 => 8,
            Ty::F64 => 64,
        }
    }
}

/// Which targets have a form.
#[derive(Clone, Copy, PartialEq, Eq)]
enum On {
    Both,
    Gfx90a,
    Gfx942,
}

/// A kernel of mfma.cl: name, M, K, blocks, A type, B type, (cbsz, abid,
/// blgp), targets.
type Case = (&'static str, usize, usize, usize, Ty, Ty, (u8, u8, u8), On);

const NONE: (u8, u8, u8) = (0, 0, 0);

#[rustfmt::skip]
const CASES: &[Case] = &[
    ("mfma_f32_32x32x1f32", 32, 1, 2, Ty::F32, Ty::F32, NONE, On::Both),
    ("mfma_f32_16x16x1f32", 16, 1, 4, Ty::F32, Ty::F32, NONE, On::Both),
    ("mfma_f32_4x4x1f32", 4, 1, 16, Ty::F32, Ty::F32, NONE, On::Both),
    ("mfma_f32_32x32x2f32", 32, 2, 1, Ty::F32, Ty::F32, NONE, On::Both),
    ("mfma_f32_16x16x4f32", 16, 4, 1, Ty::F32, Ty::F32, NONE, On::Both),
    ("mfma_f32_32x32x4f16", 32, 4, 2, Ty::F16, Ty::F16, NONE, On::Both),
    ("mfma_f32_16x16x4f16", 16, 4, 4, Ty::F16, Ty::F16, NONE, On::Both),
    ("mfma_f32_4x4x4f16", 4, 4, 16, Ty::F16, Ty::F16, NONE, On::Both),
    ("mfma_f32_32x32x8f16", 32, 8, 1, Ty::F16, Ty::F16, NONE, On::Both),
    ("mfma_f32_16x16x16f16", 16, 16, 1, Ty::F16, Ty::F16, NONE, On::Both),
    ("mfma_i32_32x32x4i8", 32, 4, 2, Ty::I8, Ty::I8, NONE, On::Both),
    ("mfma_i32_16x16x4i8", 16, 4, 4, Ty::I8, Ty::I8, NONE, On::Both),
    ("mfma_i32_4x4x4i8", 4, 4, 16, Ty::I8, Ty::I8, NONE, On::Both),
    ("mfma_f32_32x32x4bf16_1k", 32, 4, 2, Ty::Bf16, Ty::Bf16, NONE, On::Both),
    ("mfma_f32_16x16x4bf16_1k", 16, 4, 4, Ty::Bf16, Ty::Bf16, NONE, On::Both),
    ("mfma_f32_4x4x4bf16_1k", 4, 4, 16, Ty::Bf16, Ty::Bf16, NONE, On::Both),
    ("mfma_f32_32x32x8bf16_1k", 32, 8, 1, Ty::Bf16, Ty::Bf16, NONE, On::Both),
    ("mfma_f32_16x16x16bf16_1k", 16, 16, 1, Ty::Bf16, Ty::Bf16, NONE, On::Both),
    ("mfma_f64_16x16x4f64", 16, 4, 1, Ty::F64, Ty::F64, NONE, On::Both),
    ("mfma_f64_4x4x4f64", 4, 4, 4, Ty::F64, Ty::F64, NONE, On::Both),
    ("mfma_f32_16x16x1f32_cbsz2_abid3_blgp3", 16, 1, 4, Ty::F32, Ty::F32, (2, 3, 3), On::Both),
    ("mfma_f32_4x4x4f16_cbsz3_abid5_blgp6", 4, 4, 16, Ty::F16, Ty::F16, (3, 5, 6), On::Both),
    ("mfma_i32_32x32x4i8_cbsz1_abid1_blgp1", 32, 4, 2, Ty::I8, Ty::I8, (1, 1, 1), On::Both),
    ("mfma_i32_32x32x8i8", 32, 8, 1, Ty::I8, Ty::I8, NONE, On::Gfx90a),
    ("mfma_i32_16x16x16i8", 16, 16, 1, Ty::I8, Ty::I8, NONE, On::Gfx90a),
    ("mfma_f32_32x32x2bf16", 32, 2, 2, Ty::Bf16, Ty::Bf16, NONE, On::Gfx90a),
    ("mfma_f32_16x16x2bf16", 16, 2, 4, Ty::Bf16, Ty::Bf16, NONE, On::Gfx90a),
    ("mfma_f32_4x4x2bf16", 4, 2, 16, Ty::Bf16, Ty::Bf16, NONE, On::Gfx90a),
    ("mfma_f32_32x32x4bf16", 32, 4, 1, Ty::Bf16, Ty::Bf16, NONE, On::Gfx90a),
    ("mfma_f32_16x16x8bf16", 16, 8, 1, Ty::Bf16, Ty::Bf16, NONE, On::Gfx90a),
    ("mfma_i32_32x32x16_i8", 32, 16, 1, Ty::I8, Ty::I8, NONE, On::Gfx942),
    ("mfma_i32_16x16x32_i8", 16, 32, 1, Ty::I8, Ty::I8, NONE, On::Gfx942),
    ("mfma_f32_16x16x8_xf32", 16, 8, 1, Ty::Xf32, Ty::Xf32, NONE, On::Gfx942),
    ("mfma_f32_32x32x4_xf32", 32, 4, 1, Ty::Xf32, Ty::Xf32, NONE, On::Gfx942),
    ("mfma_f32_16x16x32_bf8_bf8", 16, 32, 1, Ty::Bf8, Ty::Bf8, NONE, On::Gfx942),
    ("mfma_f32_16x16x32_bf8_fp8", 16, 32, 1, Ty::Bf8, Ty::Fp8, NONE, On::Gfx942),
    ("mfma_f32_16x16x32_fp8_bf8", 16, 32, 1, Ty::Fp8, Ty::Bf8, NONE, On::Gfx942),
    ("mfma_f32_16x16x32_fp8_fp8", 16, 32, 1, Ty::Fp8, Ty::Fp8, NONE, On::Gfx942),
    ("mfma_f32_32x32x16_bf8_bf8", 32, 16, 1, Ty::Bf8, Ty::Bf8, NONE, On::Gfx942),
    ("mfma_f32_32x32x16_bf8_fp8", 32, 16, 1, Ty::Bf8, Ty::Fp8, NONE, On::Gfx942),
    ("mfma_f32_32x32x16_fp8_bf8", 32, 16, 1, Ty::Fp8, Ty::Bf8, NONE, On::Gfx942),
    ("mfma_f32_32x32x16_fp8_fp8", 32, 16, 1, Ty::Fp8, Ty::Fp8, NONE, On::Gfx942),
    ("mfma_f64_4x4x4f64_blgp5", 4, 4, 4, Ty::F64, Ty::F64, (0, 0, 5), On::Gfx942),
];

/// The value of FNUZ 8-bit float `bits` (E4M3 bias 8 or E5M2 bias 16, NaN
/// 0x80, no infinities; CDNA3 ISA guide).
fn fnuz(bits: u8, mant: u32, bias: i32) -> f64 {
    let mag = u32::from(bits & 0x7F);
    let (exp, frac) = ((mag >> mant) as i32, mag & ((1 << mant) - 1));
    let scale = f64::from(1u32 << mant);
    let v = if exp == 0 {
        f64::from(frac) / scale * 2f64.powi(1 - bias)
    } else {
        (1.0 + f64::from(frac) / scale) * 2f64.powi(exp - bias)
    };
    if bits & 0x80 != 0 { -v } else { v }
}

/// Raw bits of `x` (exact in `ty`).
fn encode(ty: Ty, x: f64) -> u64 {
    let narrow = |mant: u32, bias: i32| -> u64 {
        let code = (0..=255u8)
            .filter(|&c| c != 0x80)
            .find(|&c| fnuz(c, mant, bias) == x)
            .unwrap_or_else(|| panic!("{x} is not exact in {ty:?}"));
        u64::from(code)
    };
    match ty {
        Ty::F32 | Ty::Xf32 => u64::from((x as f32).to_bits()),
        Ty::F16 => u64::from(half::f16::from_f64(x).to_bits()),
        Ty::Bf16 => u64::from(half::bf16::from_f64(x).to_bits()),
        Ty::I8 => u64::from(x as i8 as u8),
        Ty::F64 => x.to_bits(),
        Ty::Fp8 => narrow(3, 8),
        Ty::Bf8 => narrow(2, 16),
    }
}

/// The value of raw bits `v` of `ty`.
fn decode(ty: Ty, v: u64) -> f64 {
    match ty {
        Ty::F32 | Ty::Xf32 => f64::from(f32::from_bits(v as u32)),
        Ty::F16 => half::f16::from_bits(v as u16).to_f64(),
        Ty::Bf16 => half::bf16::from_bits(v as u16).to_f64(),
        Ty::I8 => f64::from(v as u8 as i8),
        Ty::F64 => f64::from_bits(v),
        Ty::Fp8 => fnuz(v as u8, 3, 8),
        Ty::Bf8 => fnuz(v as u8, 2, 16),
    }
}

/// The lane B is read from under BLGP (calculator: 1, 2 broadcast a
/// 32-lane half, 3 rotates down by 16, 4-7 broadcast one 16-lane group).
fn blgp_lane(lane: usize, blgp: u8) -> usize {
    match blgp {
        1 => lane % 32,
        2 => 32 + lane % 32,
        3 => (lane + 16) % 64,
        4..=7 => 16 * (blgp as usize - 4) + lane % 16,
        _ => lane,
    }
}

/// Register (first of a pair for f64) and lane of C/D[i][j] of `block`.
fn out_place(m: usize, f64_out: bool, i: usize, j: usize, block: usize) -> (usize, usize) {
    if f64_out {
        return (2 * (i / 4), j + m * block + 16 * (i % 4));
    }
    match m {
        4 => (i, j + 4 * block),
        16 => (4 * block + i % 4, j + 16 * (i / 4)),
        _ => (16 * block + 4 * (i / 8) + i % 4, j + 32 * (i / 4 % 2)),
    }
}

/// Runs `case` on `gpu` (code objects of `gfx`) with inputs drawn by
/// `draw` (A and B elements) and `draw_c`, and returns (D read back, D the
/// host expects). `swap` moves the host's expected D of lanes 0-15 to
/// lanes 16-31 and back, a deliberately wrong layout.
fn run_case(
    gpu: &Gpu,
    gfx: &str,
    case: &Case,
    rng: &mut Rng,
    fraction: bool,
    swap: bool,
) -> (Vec<u32>, Vec<u32>) {
    let &(name, m, k, blocks, ta, tb, (cbsz, abid, blgp), _) = case;
    let program = gpu
        .load_bytes(&repo::kernel(&format!("{gfx}/mfma.co")), name)
        .unwrap_or_else(|e| panic!("{gfx} {name}: {e}"));
    let e = k * m * blocks / 64;
    // Small integers are exact in every format; `fraction` adds eighths
    // (exact in f32/f16, the only formats it is used with).
    let mut draw = |lo: i32, hi: i32| -> f64 {
        let int = lo + (rng.u32() % (hi - lo + 1) as u32) as i32;
        if fraction {
            f64::from(int) + f64::from(rng.u32() % 8) / 8.0
        } else {
            f64::from(int)
        }
    };
    let lane_bytes = |ty: Ty| (e * ty.bits()).div_ceil(32) * 4;
    let mut images = [
        vec![0u8; 64 * lane_bytes(ta)],
        vec![0u8; 64 * lane_bytes(tb)],
    ];
    for (img, ty) in images.iter_mut().zip([ta, tb]) {
        for lane in 0..64 {
            for x in 0..e {
                let v = encode(ty, draw(-4, 4));
                let (w, at) = (ty.bits() / 8, lane * lane_bytes(ty) + x * ty.bits() / 8);
                img[at..at + w].copy_from_slice(&v.to_le_bytes()[..w]);
            }
        }
    }
    let read = |img: &[u8], ty: Ty, lane: usize, x: usize| -> f64 {
        let (w, at) = (ty.bits() / 8, lane * lane_bytes(ty) + x * ty.bits() / 8);
        let mut b = [0u8; 8];
        b[..w].copy_from_slice(&img[at..at + w]);
        decode(ty, u64::from_le_bytes(b))
    };
    let f64_out = ta == Ty::F64;
    let (neg_a, neg_b, neg_c, blgp) = if f64_out {
        (blgp & 1 != 0, blgp & 2 != 0, blgp & 4 != 0, 0)
    } else {
        (false, false, false, blgp)
    };
    let sign = |neg: bool| if neg { -1.0 } else { 1.0 };
    let regs = m * m * blocks * if f64_out { 2 } else { 1 } / 64;
    let mut ci = vec![0u32; 64 * regs];
    let mut want = vec![0u32; 64 * regs];
    for blk in 0..blocks {
        let group = 1usize << cbsz;
        let a_blk = blk / group * group + usize::from(abid);
        for i in 0..m {
            for j in 0..m {
                let cv = draw(-50, 50);
                // Products are exact in f64; they are summed in f64 in k
                // order, C added last and the sum rounded once (gfxsim's
                // stated order; integer inputs make any order agree).
                let mut sum = 0f64;
                for kk in 0..k {
                    let lane_of = |r: usize, b: usize| r + m * b + m * blocks * (kk / e);
                    let x = read(&images[0], ta, lane_of(i, a_blk), kk % e);
                    let y = read(&images[1], tb, blgp_lane(lane_of(j, blk), blgp), kk % e);
                    sum += sign(neg_a) * x * sign(neg_b) * y;
                }
                let dv = sum + sign(neg_c) * cv;
                let (reg, lane) = out_place(m, f64_out, i, j, blk);
                let out = |v: f64| -> u64 {
                    match ta {
                        Ty::I8 => u64::from(v as i32 as u32),
                        Ty::F64 => v.to_bits(),
                        _ => u64::from((v as f32).to_bits()),
                    }
                };
                let wl = if swap && lane < 32 { lane ^ 16 } else { lane };
                ci[lane * regs + reg] = out(cv) as u32;
                want[wl * regs + reg] = out(dv) as u32;
                if f64_out {
                    ci[lane * regs + reg + 1] = (out(cv) >> 32) as u32;
                    want[wl * regs + reg + 1] = (out(dv) >> 32) as u32;
                }
            }
        }
    }
    let (ab, bb, cb) = (
        gpu.upload(&images[0]),
        gpu.upload(&images[1]),
        gpu.upload_u32(&ci),
    );
    let db = gpu.filled_u32(64 * regs, SENTINEL);
    gpu.run(
        &program.kernel,
        &[
            Arg::Ptr(ab.gpu_va()),
            Arg::Ptr(bb.gpu_va()),
            Arg::Ptr(cb.gpu_va()),
            Arg::Ptr(db.gpu_va()),
        ],
        [64, 1, 1],
        [64, 1, 1],
    )
    .unwrap_or_else(|e| panic!("{gfx} {name}: {e}"));
    (read_u32(&db, 64 * regs), want)
}

/// Every form of each target, small integer inputs.
#[test]
fn mfma_products_match_the_host() {
    for (part, gfx) in parts() {
        let gpu = gpu_of(part);
        let mut rng = Rng::new(9);
        let mut ran = 0;
        for case in CASES {
            let on = match gfx {
                "gfx90a" => On::Gfx90a,
                _ => On::Gfx942,
            };
            if case.7 != On::Both && case.7 != on {
                continue;
            }
            let (got, want) = run_case(&gpu, gfx, case, &mut rng, false, false);
            assert_eq!(got, want, "{gfx} {}: D", case.0);
            ran += 1;
        }
        let expected = CASES.iter().filter(|c| c.7 == On::Both).count()
            + match gfx {
                "gfx90a" => 7,
                _ => 13,
            };
        assert_eq!(ran, expected, "{gfx}: forms run");
    }
}

/// Non-integer f32 and f16 inputs (eighths): the result matches the host
/// under gfxsim's stated order (exact products summed in f64 in k order,
/// C added last, one rounding to f32).
#[test]
fn mfma_fractional_products_match_the_host() {
    let gpu = gpu_of(aqueduct_gfxsim::SimPart::Mi300x);
    let mut rng = Rng::new(31);
    for name in [
        "mfma_f32_16x16x4f32",
        "mfma_f32_32x32x8f16",
        "mfma_f32_4x4x1f32",
    ] {
        let case = CASES.iter().find(|c| c.0 == name).expect("case");
        let (got, want) = run_case(&gpu, "gfx942", case, &mut rng, true, false);
        assert_eq!(got, want, "{name}: D");
    }
}

/// The comparison catches a wrong layout: the same dispatch checked
/// against a host layout whose lanes 0-15 and 16-31 trade places fails.
#[test]
fn mfma_check_rejects_a_swapped_layout() {
    let gpu = gpu_of(aqueduct_gfxsim::SimPart::Mi250xGcd);
    let mut rng = Rng::new(5);
    for name in [
        "mfma_f32_16x16x4f32",
        "mfma_f32_4x4x4f16",
        "mfma_f64_4x4x4f64",
    ] {
        let case = CASES.iter().find(|c| c.0 == name).expect("case");
        let (got, want) = run_case(&gpu, "gfx90a", case, &mut rng, false, true);
        assert_ne!(got, want, "{name}: a swapped layout went unnoticed");
    }
}

/// A sparse kernel of mfma.cl (gfx942): name, M, K, A type, B type, ABID.
type Sparse = (&'static str, usize, usize, Ty, Ty, u8);

#[rustfmt::skip]
const SPARSE: &[Sparse] = &[
    ("smfmac_f32_16x16x32_f16", 16, 32, Ty::F16, Ty::F16, 0),
    ("smfmac_f32_32x32x16_f16", 32, 16, Ty::F16, Ty::F16, 0),
    ("smfmac_f32_16x16x32_bf16", 16, 32, Ty::Bf16, Ty::Bf16, 0),
    ("smfmac_f32_32x32x16_bf16", 32, 16, Ty::Bf16, Ty::Bf16, 0),
    ("smfmac_i32_16x16x64_i8", 16, 64, Ty::I8, Ty::I8, 0),
    ("smfmac_i32_32x32x32_i8", 32, 32, Ty::I8, Ty::I8, 0),
    ("smfmac_f32_16x16x64_bf8_bf8", 16, 64, Ty::Bf8, Ty::Bf8, 0),
    ("smfmac_f32_16x16x64_bf8_fp8", 16, 64, Ty::Bf8, Ty::Fp8, 0),
    ("smfmac_f32_16x16x64_fp8_bf8", 16, 64, Ty::Fp8, Ty::Bf8, 0),
    ("smfmac_f32_16x16x64_fp8_fp8", 16, 64, Ty::Fp8, Ty::Fp8, 0),
    ("smfmac_f32_32x32x32_bf8_bf8", 32, 32, Ty::Bf8, Ty::Bf8, 0),
    ("smfmac_f32_32x32x32_bf8_fp8", 32, 32, Ty::Bf8, Ty::Fp8, 0),
    ("smfmac_f32_32x32x32_fp8_bf8", 32, 32, Ty::Fp8, Ty::Bf8, 0),
    ("smfmac_f32_32x32x32_fp8_fp8", 32, 32, Ty::Fp8, Ty::Fp8, 0),
    ("smfmac_f32_16x16x32_f16_abid3", 16, 32, Ty::F16, Ty::F16, 3),
    ("smfmac_i32_16x16x64_i8_abid1", 16, 64, Ty::I8, Ty::I8, 1),
];

/// gfx942's sparse ops: a 4:2 sparse A (two increasing positions of each
/// four K elements, drawn at random) is stored compressed with its index
/// VGPR as the calculator lays them out (e = K * M / 64 dense K elements
/// per lane; row i's K elements k in lane i + M * (k / e); group
/// g = (k % e) / 4 keeps its two values as packed elements 2g and 2g + 1,
/// their positions in index bits [4g+1:4g] and [4g+3:4g+2], shifted up by
/// ABID * e); B and D as for the dense single-block ops. D must equal C
/// plus the dense product.
#[test]
fn smfmac_products_match_the_host() {
    let gpu = gpu_of(aqueduct_gfxsim::SimPart::Mi300x);
    let mut rng = Rng::new(17);
    let pairs = [(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)];
    for &(name, m, k, ta, tb, abid) in SPARSE {
        let program = gpu
            .load_bytes(&repo::kernel("gfx942/mfma.co"), name)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        let e = k * m / 64;
        let mut int = |lo: i32, hi: i32| f64::from(lo + (rng.u32() % (hi - lo + 1) as u32) as i32);
        // Dense A (zeros where compressed out) and its compressed images.
        let mut a = vec![0f64; m * k];
        let (a_lane, b_lane) = (e / 2 * ta.bits() / 8, e * tb.bits() / 8);
        let mut ai = vec![0u8; 64 * a_lane];
        let mut index = vec![0u32; 64];
        let put = |img: &mut [u8], lane_bytes: usize, ty: Ty, lane: usize, x: usize, v: f64| {
            let (w, at) = (ty.bits() / 8, lane * lane_bytes + x * ty.bits() / 8);
            img[at..at + w].copy_from_slice(&encode(ty, v).to_le_bytes()[..w]);
        };
        for i in 0..m {
            for q in 0..k / e {
                let lane = i + m * q;
                for g in 0..e / 4 {
                    let (p0, p1) = pairs[int(0, 5) as usize];
                    for (t, p) in [p0, p1].into_iter().enumerate() {
                        let v = int(-4, 4);
                        a[i * k + q * e + 4 * g + p] = v;
                        put(&mut ai, a_lane, ta, lane, 2 * g + t, v);
                        index[lane] |= (p as u32) << (usize::from(abid) * e + 4 * g + 2 * t);
                    }
                }
            }
        }
        let mut b = vec![0f64; k * m];
        let mut bi = vec![0u8; 64 * b_lane];
        for kk in 0..k {
            for j in 0..m {
                let v = int(-4, 4);
                b[kk * m + j] = v;
                put(&mut bi, b_lane, tb, j + m * (kk / e), kk % e, v);
            }
        }
        let regs = m * m / 64;
        let (mut ci, mut want) = (vec![0u32; 64 * regs], vec![0u32; 64 * regs]);
        for i in 0..m {
            for j in 0..m {
                let cv = int(-50, 50);
                let dv = cv + (0..k).map(|kk| a[i * k + kk] * b[kk * m + j]).sum::<f64>();
                let (reg, lane) = out_place(m, false, i, j, 0);
                let out = |v: f64| match ta {
                    Ty::I8 => v as i32 as u32,
                    _ => (v as f32).to_bits(),
                };
                ci[lane * regs + reg] = out(cv);
                want[lane * regs + reg] = out(dv);
            }
        }
        let (ab, bb, cb, xb) = (
            gpu.upload(&ai),
            gpu.upload(&bi),
            gpu.upload_u32(&ci),
            gpu.upload_u32(&index),
        );
        let db = gpu.filled_u32(64 * regs, SENTINEL);
        gpu.run(
            &program.kernel,
            &[
                Arg::Ptr(ab.gpu_va()),
                Arg::Ptr(bb.gpu_va()),
                Arg::Ptr(cb.gpu_va()),
                Arg::Ptr(xb.gpu_va()),
                Arg::Ptr(db.gpu_va()),
            ],
            [64, 1, 1],
            [64, 1, 1],
        )
        .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(read_u32(&db, 64 * regs), want, "{name}: D");
    }
}
