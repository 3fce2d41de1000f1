//! Every fast form against `step`, on random registers and EXEC masks.

use std::collections::BTreeSet;

pub(crate) mod gfx9;

use super::*;
use crate::gfx11::decode::decode;
use crate::gfx11::exec::{Env, NoMemory, step};
use crate::gfx11::inst::Inst;
use crate::gfx11::opcodes::Op;
use crate::gfx11::opcodes::{OpInfo, SOP1, SOP2, SOPC, SOPK, SOPP, VOP1, VOP2, VOP3, VOPC};
use crate::gfx11::wave::NUM_VGPRS;
use crate::gfx11::wave::{EXEC, NULL, VCC, Wave};

/// The shared test generator, plus the operand codes these tests draw.
pub(crate) struct Rng(aqueduct_test_support::Rng);
impl Rng {
    pub(crate) fn new(seed: u64) -> Rng {
        Rng(aqueduct_test_support::Rng::new(seed))
    }
    pub(crate) fn next(&mut self) -> u32 {
        self.0.u32()
    }
    pub(crate) fn below(&mut self, n: u32) -> u32 {
        self.0.below(u64::from(n)) as u32
    }
    /// A 32-bit value with a bias to edge cases (`Rng::edge_u32`).
    pub(crate) fn value(&mut self) -> u32 {
        self.0.edge_u32()
    }
    /// A scalar source code: SGPR (incl. VCC, M0, EXEC), inline constant or literal (255).
    pub(crate) fn scalar_src(&mut self) -> u32 {
        match self.below(6) {
            0 => 128 + self.below(81),
            1 => 240 + self.below(9),
            2 => 255,
            3 => [106, 107, 124, 125, 126, 127][self.below(6) as usize],
            _ => self.below(106),
        }
    }
    /// A scalar destination code: mostly s0..s105, sometimes VCC, NULL, M0,
    /// EXEC or s127 (pairs reaching M0/EXEC or past 127).
    pub(crate) fn scalar_dst(&mut self) -> u32 {
        if self.below(4) == 0 {
            [106, 107, 124, 125, 126, 127][self.below(6) as usize]
        } else {
            self.below(106)
        }
    }
    /// A vector source code: mostly VGPRs, else a scalar source.
    pub(crate) fn vector_src(&mut self) -> u32 {
        if self.below(2) == 0 {
            256 + self.below(256)
        } else {
            self.scalar_src()
        }
    }
    pub(crate) fn wave(&mut self) -> Wave {
        let mut w = Wave::default();
        for s in w.sgpr.iter_mut() {
            *s = self.value();
        }
        w.sgpr[NULL] = 0;
        w.scc = self.below(2) == 1;
        for row in w.vgpr.iter_mut().take(NUM_VGPRS) {
            for v in row.iter_mut() {
                *v = self.value();
            }
        }
        w
    }
    /// `w` as a wave64 wave: random high lanes, random EXEC/VCC high words.
    pub(crate) fn wave64(&mut self, w: &Wave) -> Wave {
        let mut w = w.clone();
        w.wave64 = true;
        for row in w.vgpr_hi.iter_mut() {
            for v in row.iter_mut() {
                *v = self.value();
            }
        }
        w
    }
}

pub(crate) fn opcode_words(table: &[Option<OpInfo>]) -> impl Iterator<Item = (u32, Op)> + '_ {
    table
        .iter()
        .enumerate()
        .filter_map(|(n, info)| info.map(|i| (n as u32, i.op)))
}

/// Random encodings of every opcode of the families the fast path covers
/// (operands random; VOP3 modifiers set now and then, which must fall back).
pub(crate) fn random_encodings(rng: &mut Rng) -> Vec<[u32; 3]> {
    let mut out = Vec::new();
    let lit = |rng: &mut Rng| rng.value();
    for (n, _) in opcode_words(&SOP2) {
        let w = 0x8000_0000
            | n << 23
            | rng.scalar_dst() << 16
            | rng.scalar_src() << 8
            | rng.scalar_src();
        out.push([w, lit(rng), 0]);
    }
    for (n, _) in opcode_words(&SOP1) {
        let w = 0xBE80_0000 | rng.scalar_dst() << 16 | n << 8 | rng.scalar_src();
        out.push([w, lit(rng), 0]);
    }
    for (n, _) in opcode_words(&SOPK) {
        // simm16: small, negative or any.
        let simm = match rng.below(3) {
            0 => rng.below(64),
            1 => 0x1_0000 - 1 - rng.below(64),
            _ => rng.below(0x1_0000),
        };
        let w = 0xB000_0000 | n << 23 | rng.scalar_dst() << 16 | simm;
        out.push([w, lit(rng), 0]);
    }
    for (n, _) in opcode_words(&SOPC) {
        let w = 0xBF00_0000 | n << 16 | rng.scalar_src() << 8 | rng.scalar_src();
        out.push([w, lit(rng), 0]);
    }
    for (n, _) in opcode_words(&SOPP) {
        // Some SOPP ops only decode with simm16 = 0.
        for simm in [0, rng.below(0x1_0000)] {
            out.push([0xBF80_0000 | n << 16 | simm, 0, 0]);
        }
    }
    for (n, _) in opcode_words(&VOP1) {
        let w = 0x7E00_0000 | rng.below(256) << 17 | n << 9 | rng.vector_src();
        out.push([w, lit(rng), 0]);
    }
    for (n, _) in opcode_words(&VOP2) {
        let w = n << 25 | rng.below(256) << 17 | rng.below(256) << 9 | rng.vector_src();
        out.push([w, lit(rng), 0]);
    }
    for _ in 0..256 {
        // VOPD: random X and Y ops (16 and 32 slots; undefined ones fail to
        // decode), sources and destinations (vdstY's low bit is implied);
        // v_dual_mov_b32 needs its vsrc1 field 0, so that is 0 half the time.
        let vsrc1 = |rng: &mut Rng| rng.below(2) * rng.below(256);
        let (x1, y1) = (vsrc1(rng), vsrc1(rng));
        let w0 =
            0x32 << 26 | rng.below(16) << 22 | rng.below(32) << 17 | x1 << 9 | rng.vector_src();
        // Y reads X's destination now and then (both read before either writes).
        let dx = rng.below(256);
        let (y0, y1) = match rng.below(4) {
            0 => (256 + dx, y1),
            1 => (rng.vector_src(), dx),
            _ => (rng.vector_src(), y1),
        };
        let w1 = dx << 24 | rng.below(128) << 17 | y1 << 9 | y0;
        out.push([w0, w1, lit(rng)]);
    }
    for (n, _) in opcode_words(&VOPC) {
        let w = 0x7C00_0000 | n << 17 | rng.below(256) << 9 | rng.vector_src();
        out.push([w, lit(rng), 0]);
    }
    for (n, _) in opcode_words(&VOP3) {
        // Bits 14:8 are abs/op_sel/clamp, or VOP3SD's sdst: none, random, or VCC;
        // neg (bits 63:61) now and then. The low byte is vdst (an SGPR for compares).
        for high in [0, rng.below(0x80), 106] {
            let neg = if rng.below(8) == 0 {
                rng.below(8) << 29
            } else {
                0
            };
            let dst = if rng.below(3) == 0 {
                106
            } else {
                rng.below(256)
            };
            let w0 = 0xD400_0000 | n << 16 | high << 8 | dst;
            // Two-source ops only decode with src2 = 0.
            let src2 = if rng.below(2) == 0 {
                0
            } else {
                rng.vector_src()
            };
            // Now and then a source is the (scalar) destination itself, or
            // VCC, which wave64 must read as it was before the instruction.
            let mut src = || match rng.below(8) {
                0 => dst,
                1 => 106,
                _ => rng.vector_src(),
            };
            let (s0, s1) = (src(), src());
            let w1 = neg | src2 << 18 | s1 << 9 | s0;
            out.push([w0, w1, lit(rng)]);
        }
    }
    out
}

/// An environment with no memory, LDS or scratch.
pub(crate) fn no_env<'a>(lds: &'a mut [u8], scratch: &'a mut [u8]) -> Env<'a> {
    env_over(&NoMemory, lds, scratch)
}

/// An environment over `mem` with `lds` and `scratch`, no apertures, no
/// counters and no observer.
pub(crate) fn env_over<'a>(
    mem: &'a dyn crate::GpuMemory,
    lds: &'a mut [u8],
    scratch: &'a mut [u8],
) -> Env<'a> {
    Env {
        mem,
        lds,
        scratch,
        scratch_va: 0,
        scratch_wave_bytes: 0,
        scratch_wave64: false,
        scratch_per_lane: 0,
        shared_base: 0,
        private_base: 0,
        // A test environment owns its cache: a few hundred bytes, leaked.
        spans: Box::leak(Box::default()),
        lds_bank_conflicts: None,
        observer: None,
    }
}

pub(in crate::gfx11::exec) fn compare(inst: &Inst, fast: &Fast, w0: &Wave, pc: u64) {
    let (mut lds, mut scratch) = ([0u8; 0], [0u8; 0]);
    let mut env = no_env(&mut lds, &mut scratch);
    let mut slow = w0.clone();
    slow.pc = pc;
    let want = step(&mut slow, &mut env, inst)
        .unwrap_or_else(|e| panic!("{}: the slow path fails ({e:?})", inst.mnemonic));
    let mut quick = w0.clone();
    quick.pc = pc;
    let got = run(&mut quick, &mut env, fast).expect("the fast form runs");
    let what = format!("{} {:08x?} as {fast:?}", inst.mnemonic, inst.raw());
    assert_eq!(got, want, "{what}: flow");
    assert_eq!(quick.scc, slow.scc, "{what}: SCC");
    assert_eq!(quick.sgpr, slow.sgpr, "{what}: SGPRs");
    for r in 0..NUM_VGPRS {
        assert_eq!(quick.vgpr[r], slow.vgpr[r], "{what}: v{r}");
    }
    for r in 0..quick.vgpr_hi.len() {
        assert_eq!(
            quick.vgpr_hi[r], slow.vgpr_hi[r],
            "{what}: v{r} lanes 32..63"
        );
    }
}

/// One encoding's checks: when it decodes and takes the fast path, the
/// form against `step` on random registers under random, full and empty
/// EXEC masks (wave32 and, where the form runs there, wave64), and what
/// it covered.
fn check_encoding(words: &[u32; 3], waves: u32, rng: &mut Rng, cov: &mut Coverage) {
    let Ok(inst) = decode(words) else { return };
    check_inst(&inst, &format!("{:?}", inst.op), waves, rng, cov);
}

/// [`check_encoding`] of a decoded instruction, covered as `name`.
fn check_inst(inst: &Inst, name: &str, waves: u32, rng: &mut Rng, cov: &mut Coverage) {
    let pc = 0x1_0000 + 4 * rng.below(0x1000) as u64;
    let fast = compile(inst, pc);
    if fast == Fast::Slow {
        return;
    }
    cov.wave32.insert(name.to_owned());
    if let Some(y) = inst.dual {
        cov.dual.insert(format!("{:?}+{:?}", inst.op, y.op));
    }
    let scalar = matches!(
        fast,
        Fast::Nop
            | Fast::Barrier
            | Fast::End
            | Fast::Branch { .. }
            | Fast::Salu { .. }
            | Fast::Scalar(_)
    );
    for _ in 0..waves {
        let mut w = rng.wave();
        // One and two lanes take the lane-by-lane forms (valu/fast_few.rs).
        let one = 1 << rng.below(32);
        let few = one | (rng.below(2) << rng.below(32));
        for exec in [rng.value(), u32::MAX, 0, few] {
            w.sgpr[EXEC] = exec;
            compare(inst, &fast, &w, pc);
            cov.checked += 1;
        }
        // Wave64: the forms that run there must match the slow path
        // (EXEC/VCC high words random, full or empty); the scalar
        // ones always run there.
        let mut w64 = rng.wave64(&w);
        for (lo, hi) in [
            (rng.value(), rng.value()),
            (u32::MAX, u32::MAX),
            (0, 0),
            (few, one),
        ] {
            (w64.sgpr[EXEC], w64.sgpr[EXEC + 1]) = (lo, hi);
            let (mut lds, mut scratch) = ([0u8; 0], [0u8; 0]);
            let mut env = no_env(&mut lds, &mut scratch);
            if run(&mut w64.clone(), &mut env, &fast).is_some() {
                compare(inst, &fast, &w64, pc);
                cov.wave64.insert(name.to_owned());
                cov.checked += 1;
            } else {
                assert!(
                    !scalar,
                    "{}: a scalar form must run in wave64",
                    inst.mnemonic
                );
            }
        }
    }
}

/// The ops (and VOPD pairs) that took the fast path, and how many compares ran.
#[derive(Default)]
struct Coverage {
    wave32: BTreeSet<String>,
    wave64: BTreeSet<String>,
    dual: BTreeSet<String>,
    checked: u32,
}

/// Every opcode of the families the fast path covers, with plain operands
/// of each kind the forms accept (VGPRs, SGPRs, inline constants, a
/// literal; no modifiers), so that every form is exercised whatever the
/// random stream produces. Destinations: a VGPR / SGPR, and VCC (v106 for
/// vector results).
pub(crate) fn plain_encodings() -> Vec<[u32; 3]> {
    // Source codes: VGPR, SGPR, inline integers (7, 53, -5), inline float
    // (1.0), literal.
    const V: [u32; 3] = [256 + 10, 256 + 21, 256 + 32];
    const S: [u32; 3] = [4, 9, 14];
    const INT: u32 = 128 + 7;
    const INT2: u32 = 128 + 53;
    const NEG: u32 = 192 + 5;
    const FLT: u32 = 242;
    const LIT: u32 = 255;
    let lit = 0x4049_0FDB; // pi as f32; also a large integer
    let mut out = Vec::new();
    let scalar_kinds = [S[0], INT, LIT, 106];
    let vector_kinds = [V[0], S[0], INT, NEG, FLT, LIT, 106];
    for (n, _) in opcode_words(&SOP2) {
        for a in scalar_kinds {
            for b in [S[1], INT, LIT] {
                for dst in [20, 106] {
                    out.push([0x8000_0000 | n << 23 | dst << 16 | b << 8 | a, lit, 0]);
                }
            }
        }
    }
    for (n, _) in opcode_words(&SOP1) {
        for a in scalar_kinds {
            for dst in [20, 106] {
                out.push([0xBE80_0000 | dst << 16 | n << 8 | a, lit, 0]);
            }
        }
    }
    for (n, _) in opcode_words(&SOPK) {
        for simm in [5, 0xFFF0] {
            out.push([0xB000_0000 | n << 23 | 20 << 16 | simm, lit, 0]);
        }
    }
    for (n, _) in opcode_words(&SOPC) {
        for a in scalar_kinds {
            for b in [S[1], INT, LIT] {
                out.push([0xBF00_0000 | n << 16 | b << 8 | a, lit, 0]);
            }
        }
    }
    for (n, _) in opcode_words(&SOPP) {
        for simm in [0, 3, 0xFFFC] {
            out.push([0xBF80_0000 | n << 16 | simm, 0, 0]);
        }
    }
    for (n, _) in opcode_words(&VOP1) {
        for a in vector_kinds {
            out.push([0x7E00_0000 | 40 << 17 | n << 9 | a, lit, 0]);
        }
    }
    for (n, _) in opcode_words(&VOP2) {
        for a in vector_kinds {
            out.push([n << 25 | 40 << 17 | 21 << 9 | a, lit, 0]);
        }
    }
    for (n, _) in opcode_words(&VOPC) {
        for a in vector_kinds {
            out.push([0x7C00_0000 | n << 17 | 21 << 9 | a, lit, 0]);
        }
    }
    // VOP3 (and VOP3SD, whose bits 14:8 are the carry destination: s0 or
    // VCC). Two-source ops only decode with src2 = 0.
    let triples = [
        [V[0], V[1], V[2]],
        [S[0], V[1], S[2]],
        [V[0], S[1], V[2]],
        [S[0], S[1], S[2]],
        [INT, V[1], LIT],
        [LIT, INT, V[2]],
        [V[0], FLT, 106],
        [106, S[1], INT],
        [S[0], INT2, NEG],
        [NEG, V[1], INT2],
    ];
    for (n, _) in opcode_words(&VOP3) {
        for (k, [a, b, c]) in triples.into_iter().enumerate() {
            let dst = if k % 2 == 0 { 40 } else { 106 };
            for high in [0, 106] {
                let w0 = 0xD400_0000 | n << 16 | high << 8 | dst;
                for c in [c, 0] {
                    out.push([w0, c << 18 | b << 9 | a, lit]);
                }
            }
        }
    }
    // VOPD: every X and Y op; vsrc1 0 (v_dual_mov_b32) or a VGPR, src0 a
    // VGPR or SGPR; vdstY's low bit is implied.
    for x in 0..16 {
        for y in 0..32 {
            for (x1, y1, x0, y0) in [(0, 0, V[0], S[0]), (21, 32, S[1], V[2])] {
                let w0 = 0x32 << 26 | x << 22 | y << 17 | x1 << 9 | x0;
                let w1 = 40 << 24 | 21 << 17 | y1 << 9 | y0;
                out.push([w0, w1, lit]);
            }
        }
    }
    // The DS lane shuffles: ds_swizzle_b32 in bit-mask and quad-perm mode
    // (its source in the ADDR field), ds_permute_b32 and ds_bpermute_b32
    // with offsets that do and do not move the lane index; the
    // destination also overlapping a source.
    for (op, data) in [(0x35u32, 0), (0xB2, 21), (0xB3, 21)] {
        for offset in [0u32, 4, 0x41F, 0x7C00, 0x801B, 0xFFFF] {
            for dst in [40u32, 10] {
                let w0 = 0x36 << 26 | op << 18 | offset;
                out.push([w0, dst << 24 | data << 8 | 10, 0]);
            }
        }
    }
    out
}

/// Every instruction the fast path accepts computes exactly what `step`
/// computes, on random registers under random, full and empty EXEC masks:
/// every opcode with plain operands of each kind (so each form is covered
/// whatever the seed), then random encodings (random operand kinds and
/// modifiers, which must fall back or match).
#[test]
fn fast_forms_match_the_slow_path() {
    let mut cov = Coverage::default();
    let mut rng = Rng::new(0x9E37_79B9_7F4A_7C15);
    for words in plain_encodings() {
        check_encoding(&words, 3, &mut rng, &mut cov);
    }
    let mut rng = Rng::new(0x2545_F491_4F6C_DD1D);
    for _ in 0..24 {
        for words in random_encodings(&mut rng) {
            check_encoding(&words, 1, &mut rng, &mut cov);
        }
    }
    let Coverage {
        wave32: covered,
        wave64: covered64,
        dual: covered_dual,
        checked,
    } = cov;
    // The hot ops of the corpus must all have been exercised.
    for op in [
        "SDelayAlu",
        "SWaitcnt",
        "SBranch",
        "SCbranchExecz",
        "SCbranchScc1",
        "SEndpgm",
        "SBarrier",
        "SMovB32",
        "SAddU32",
        "SAddcU32",
        "SAndNot1B32",
        "SLshlB32",
        "SCmpLgU32",
        "SCmpLtI32",
        "SCselectB32",
        "SCtzI32B32",
        "VMovB32",
        "VAddNcU32",
        "VAddCoU32",
        "VAddCoCiU32",
        "VSubCoCiU32",
        "VMadU64U32",
        "VLshlrevB64",
        "VReadlaneB32",
        "VCndmaskB32",
        "VAdd3U32",
        "VMulLoU32",
        "VMulHiU32",
        "VMulHiI32",
        "VMadU32U24",
        "VXadU32",
        "VBfeU32",
        "VBfeI32",
        "VAlignbitB32",
        "VCvtF32U32",
        "VCvtU32F32",
        "VCmpGtU32",
        "VCmpxGtU32",
        "VCmpLtI32",
        "VCmpNeU16",
        "VCmpEqI16",
        "VCmpxLtU16",
        "VCmpGeI16",
        "VLshlOrB32",
        "VFmacF32",
        "VFmaF32",
        "VFmaakF32",
        "VFmamkF32",
        "SMovB64",
        "SOrB64",
        "SAndB64",
        "SXorB64",
        "SAndNot1B64",
        "SCselectB64",
        "SLshlB64",
        "SLshrB64",
        "SCmpLgU64",
        "SOrSaveexecB32",
        "SAndSaveexecB32",
        "SXorSaveexecB32",
        "SOrSaveexecB64",
        "SAndNot1SaveexecB64",
        "SAndNot1WrexecB32",
        "SGetpcB64",
        "SSetpcB64",
        "SSwappcB64",
        "SCallB64",
        "SCmpkGtU32",
        "SCmpkLtI32",
        "SMovkI32",
        "SAddkI32",
        "SWaitcntVscnt",
        "VWritelaneB32",
        "VReadfirstlaneB32",
        "DsSwizzleB32",
        "DsPermuteB32",
        "DsBpermuteB32",
        "VCmpLtU64",
        "VCmpGtU64",
        "VCmpEqU64",
        "VCmpNeU64",
        "VCmpLtI64",
        "VCmpxEqU64",
        "VLshrrevB64",
        "VAshrrevI64",
        "VMbcntLoU32B32",
        "VMbcntHiU32B32",
        "VFmaF64",
        "VMulF64",
        "VAddF64",
        "VRcpF64",
        "VRsqF64",
        "VLdexpF64",
        "VDivScaleF64",
        "VDivFmasF64",
        "VDivFixupF64",
        "VCvtF64F32",
        "VCvtF32F64",
        "VDivScaleF32",
        "VDivFmasF32",
        "VDivFixupF32",
        "VAddF32",
        "VSubF32",
        "VMulF32",
        "VMaxF32",
        "VMinF32",
        "VLdexpF32",
        "VRcpF32",
        "VRsqF32",
        "VSqrtF32",
        "VFrexpMantF32",
        "VFrexpExpI32F32",
        "VAddF16",
        "VMulF16",
        "VMaxF16",
        "VMinF16",
        "VFmacF16",
        "VPackB32F16",
        "VCmpGtF32",
        "VCmpLtF32",
        "VCmpNeqF32",
        "VCmpUF32",
        "VCmpxGtF32",
        "VCmpClassF32",
        "VCmpGtF64",
        "VCmpNgeF64",
        "VCmpxLtF64",
        "VCmpClassF64",
    ] {
        assert!(
            covered.contains(op),
            "{op} never took the fast path: {covered:?}"
        );
    }
    // And in wave64 (the scalar forms are the same code in both).
    for op in [
        "VMovB32",
        "VAndB32",
        "VLshrrevB32",
        "VCndmaskB32",
        "VCmpEqU32",
        "VCmpxEqU32",
        "VCmpGtU32",
        "VAddCoU32",
        "VAddCoCiU32",
        "VMadU64U32",
        "VLshlrevB64",
        "VReadlaneB32",
        "VWritelaneB32",
        "VReadfirstlaneB32",
        "VFmacF32",
        "VFmaF32",
        "VCmpLtU64",
        "VCmpxEqU64",
        "VLshrrevB64",
        "VMbcntLoU32B32",
        "VMbcntHiU32B32",
        "VFmaF64",
        "VMulF64",
        "VCvtF32F64",
        "VMulF32",
        "VLdexpF32",
        "VDivFixupF32",
        "VMaxF16",
        "VFmacF16",
        "VCmpGtF32",
        "VCmpxGtF32",
        "VCmpLtF64",
        "VCmpClassF64",
    ] {
        assert!(
            covered64.contains(op),
            "{op} never took the fast path in wave64: {covered64:?}"
        );
    }
    // VOPD pairs, by X and Y op.
    for pair in [
        "VMovB32+VMovB32",
        "VMovB32+VAddNcU32",
        "VCndmaskB32+VCndmaskB32",
        "VCndmaskB32+VAndB32",
        "VMovB32+VLshlrevB32",
        "VMovB32+VMulF32",
        "VAddF32+VSubF32",
        "VSubrevF32+VMaxF32",
        "VMinF32+VCndmaskB32",
    ] {
        assert!(
            covered_dual.contains(pair),
            "{pair} never took the fast path: {covered_dual:?}"
        );
    }
    assert!(checked > 2000, "only {checked} checks");
}

/// The 16-bit integer compares read only the low halves: lanes whose low
/// halves agree and whose high halves differ (and the other way round)
/// give the host's 16-bit answer, on the fast form and the slow path.
#[test]
fn sixteen_bit_compares_ignore_the_high_halves() {
    let vopc = |name: &str| {
        let (n, _) = opcode_words(&VOPC)
            .find(|(_, op)| op.name() == name)
            .unwrap_or_else(|| panic!("{name} is a VOPC opcode"));
        // VOPC: src0 = v1 (257), vsrc1 = v2.
        [0x7C00_0000 | n << 17 | 2 << 9 | 257, 0, 0]
    };
    let mut w = Wave::default();
    w.sgpr[EXEC] = u32::MAX;
    let lows = [0u32, 1, 0x7FFF, 0x8000, 0xFFFF];
    for l in 0..32 {
        let (a, b) = (lows[l % 5], lows[(l / 5) % 5]);
        w.vgpr[1][l] = a | (l as u32 * 0x1357) << 16;
        w.vgpr[2][l] = b | if l % 2 == 0 { 0 } else { 0xFFFF_0000 };
    }
    let host = |f: fn(u16, u16) -> bool| {
        (0..32).fold(0u32, |m, l| {
            let (a, b) = (w.vgpr[1][l] as u16, w.vgpr[2][l] as u16);
            m | (f(a, b) as u32) << l
        })
    };
    type Relation = fn(u16, u16) -> bool;
    let cases: [(&str, Relation); 5] = [
        ("v_cmp_eq_u16", |a, b| a == b),
        ("v_cmp_ne_u16", |a, b| a != b),
        ("v_cmp_lt_u16", |a, b| a < b),
        ("v_cmp_lt_i16", |a, b| (a as i16) < (b as i16)),
        ("v_cmp_ge_i16", |a, b| (a as i16) >= (b as i16)),
    ];
    for (name, f) in cases {
        let inst = decode(&vopc(name)).expect("decodes");
        let fast = compile(&inst, 0x1000);
        assert!(matches!(fast, Fast::Vcmp { .. }), "{name}: {fast:?}");
        compare(&inst, &fast, &w, 0x1000);
        let (mut lds, mut scratch) = ([0u8; 0], [0u8; 0]);
        let mut quick = w.clone();
        run(&mut quick, &mut no_env(&mut lds, &mut scratch), &fast).expect("runs");
        assert_eq!(quick.sgpr[VCC], host(f), "{name}");
    }
}
