//! Fused pairs of pre-resolved instructions.
//!
//! Compilers form a 64-bit address as `v_add_co_u32 lo, m, a, b` followed by
//! `v_add_co_ci_u32 hi, s, c, d, m`: the second adds the first's carry, which
//! travels through the lane-mask SGPR `m`. Run as two forms that is two
//! dispatches, a carry packed into `m` and unpacked again. The code cache
//! replaces such a pair by one [`AddPair`] entry (`fuse`) that keeps the
//! carries per lane between the halves and writes every register the two
//! instructions write, in their order: `lo`, `m` (unless `s` overwrites it),
//! `hi`, `s`. Only no-ops may sit between the two (consecutive entries of a
//! block's compiled list are separated by nothing else).
//!
//! The fusion is exact when nothing the first writes reaches the second other
//! than the carry in: the second's sources do not read `lo` or `m`, and `m`
//! is a plain SGPR below null (not EXEC, M0 or null), so EXEC stays as it was
//! and the carry in reads back what the first wrote (`pack & exec`): lanes
//! outside EXEC carry in 0 there, but their results are not written.
//!
//! Wave32 only: wave64 waves run the unfused list of the block (code_cache.rs),
//! and a pair that still met a wave64 wave would return None having done
//! nothing, so the loop steps both instructions.

use crate::gfx11::exec::operand::{Row, SSrc, VSrc, put_sgpr, row};
use crate::gfx11::exec::valu::add_carry;
use crate::gfx11::wave::{LANES, NULL, Wave, pack_lanes};

/// `v_add_co_u32 lo, mid, a, b` then `v_add_co_ci_u32 hi, sdst, c, d, mid`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct AddPair {
    pub lo: u8,
    pub hi: u8,
    /// The first's carry out, the second's carry in (an SGPR below null).
    pub mid: u8,
    /// The second's carry out (an SGPR code; null and codes >= 128 drop it).
    pub sdst: u8,
    pub a: VSrc,
    pub b: VSrc,
    pub c: VSrc,
    pub d: VSrc,
}

/// The fused form of `v_add_co_u32 lo, mid, a, b` followed by
/// `v_add_co_ci_u32 hi, sdst, c, d, cin`, when fusing them computes exactly
/// what running both does (fast/form.rs matches the two forms).
pub(crate) fn fuse(
    (lo, mid, a, b): (u8, u8, VSrc, VSrc),
    (hi, sdst, c, d): (u8, u8, VSrc, VSrc),
    cin: SSrc,
) -> Option<AddPair> {
    let SSrc::Reg(cin) = cin else {
        return None;
    };
    let sees_first = |s: VSrc| s == VSrc::Vgpr(lo) || s == VSrc::Sgpr(mid);
    let exact = cin == mid && (mid as usize) < NULL && !sees_first(c) && !sees_first(d);
    exact.then_some(AddPair {
        lo,
        hi,
        mid,
        sdst,
        a,
        b,
        c,
        d,
    })
}

/// Run the pair on 32 lanes under `exec` (wave32).
#[inline(always)]
pub(crate) fn run(w: &mut Wave, p: &AddPair, exec: u32) {
    let (mut ba, mut bb) = (Row::uninit(), Row::uninit());
    let (mut lo, mut carry) = ([0u32; LANES], [0u32; LANES]);
    {
        let (x, y) = (row(w, p.a, &mut ba), row(w, p.b, &mut bb));
        for l in 0..LANES {
            (lo[l], carry[l]) = add_carry(x[l], y[l], 0);
        }
    }
    let (mut hi, mut out) = ([0u32; LANES], [0u32; LANES]);
    {
        let (x, y) = (row(w, p.c, &mut ba), row(w, p.d, &mut bb));
        for l in 0..LANES {
            (hi[l], out[l]) = add_carry(x[l], y[l], carry[l]);
        }
    }
    w.write_vgpr(p.lo as usize, &lo, exec);
    if p.sdst != p.mid {
        put_sgpr(w, p.mid, pack_lanes(&carry) & exec);
    }
    w.write_vgpr(p.hi as usize, &hi, exec);
    put_sgpr(w, p.sdst, pack_lanes(&out) & exec);
}

#[cfg(test)]
mod tests {
    use crate::gfx11::decode::decode;
    use crate::gfx11::exec::fast::tests::{Rng, no_env, opcode_words};
    use crate::gfx11::exec::fast::{Fast, compile, fuse};
    use crate::gfx11::exec::step;
    use crate::gfx11::opcodes::{Op, VOP2, VOP3};
    use crate::gfx11::wave::{EXEC, NUM_VGPRS, VCC};

    fn opcode(table: &[Option<crate::gfx11::opcodes::OpInfo>], op: Op) -> u32 {
        opcode_words(table).find(|&(_, o)| o == op).unwrap().0
    }

    /// Every pair `fuse` accepts computes, through `fast::run`, exactly what
    /// `step` computes for the two instructions in turn, on random registers
    /// under random, full and empty EXEC; the pairs include sources reading
    /// the first's results and carries through VCC, other SGPRs, null and
    /// EXEC (which must not fuse, or fuse exactly).
    #[test]
    fn fused_add_pairs_match_the_slow_path() {
        let mut rng = Rng::new(0x9E37_79B9_7F4A_7C15);
        let add3 = opcode(&VOP3, Op::VAddCoU32);
        let addc3 = opcode(&VOP3, Op::VAddCoCiU32);
        let addc2 = opcode(&VOP2, Op::VAddCoCiU32);
        let (mut fused, mut same, mut unfused) = (0, 0, 0);
        for _ in 0..4000 {
            let lo = rng.below(256);
            let mid = match rng.below(6) {
                0 => rng.below(106),
                1 => [124, 126, 125, 107][rng.below(4) as usize],
                _ => VCC as u32,
            };
            // A source: mostly any, sometimes the first's results.
            let src = |rng: &mut Rng| match rng.below(8) {
                0 => 256 + lo,
                1 => mid,
                _ => rng.vector_src(),
            };
            let (s0, s1) = (src(&mut rng), src(&mut rng));
            let first = [
                0xD400_0000 | add3 << 16 | mid << 8 | lo,
                s1 << 9 | s0,
                rng.value(),
            ];
            let hi = if rng.below(4) == 0 {
                lo
            } else {
                rng.below(256)
            };
            let (c, d) = (src(&mut rng), src(&mut rng));
            let second = if mid == VCC as u32 && rng.below(2) == 0 {
                // VOP2: carry in and out in VCC; vsrc1 is a VGPR.
                let d = if d >= 256 { d - 256 } else { rng.below(256) };
                [addc2 << 25 | hi << 17 | d << 9 | c, rng.value(), 0]
            } else {
                let sdst = match rng.below(3) {
                    0 => mid,
                    1 => 124,
                    _ => rng.below(106),
                };
                let cin = if rng.below(8) == 0 {
                    rng.below(106)
                } else {
                    mid
                };
                [
                    0xD400_0000 | addc3 << 16 | sdst << 8 | hi,
                    cin << 18 | d << 9 | c,
                    rng.value(),
                ]
            };
            let (Ok(i1), Ok(i2)) = (decode(&first), decode(&second)) else {
                continue;
            };
            let Some(pair) = fuse(&compile(&i1, 0x1000), &compile(&i2, 0x1008)) else {
                unfused += 1;
                continue;
            };
            let Fast::AddPair(p) = pair else {
                unreachable!("fuse makes AddPair forms")
            };
            if p.sdst == p.mid {
                same += 1;
            } else {
                fused += 1;
            }
            let mut w = rng.wave();
            for exec in [rng.value(), u32::MAX, 0] {
                w.sgpr[EXEC] = exec;
                let (mut lds, mut scratch) = ([0u8; 0], [0u8; 0]);
                let mut env = no_env(&mut lds, &mut scratch);
                let mut slow = w.clone();
                for i in [&i1, &i2] {
                    step(&mut slow, &mut env, i).expect("the slow path runs");
                }
                let mut quick = w.clone();
                crate::gfx11::exec::fast::run(&mut quick, &mut env, &pair).expect("the pair runs");
                let what = format!("{} ; {} as {pair:?}", i1.mnemonic, i2.mnemonic);
                assert_eq!(quick.sgpr, slow.sgpr, "{what}: SGPRs");
                assert_eq!(quick.scc, slow.scc, "{what}: SCC");
                for r in 0..NUM_VGPRS {
                    assert_eq!(quick.vgpr[r], slow.vgpr[r], "{what}: v{r}");
                }
                // A wave64 wave gets None and an unchanged wave (the loop then steps both).
                let mut wide = w.clone();
                wide.wave64 = true;
                let before = wide.clone();
                assert_eq!(
                    crate::gfx11::exec::fast::run(&mut wide, &mut env, &pair),
                    None
                );
                assert_eq!(wide.sgpr, before.sgpr, "{what}: wave64 SGPRs");
                assert_eq!(wide.vgpr, before.vgpr, "{what}: wave64 VGPRs");
            }
        }
        assert!(
            fused > 300,
            "too few fused pairs with two carry outs ({fused})"
        );
        assert!(
            same > 300,
            "too few fused pairs with one carry out ({same})"
        );
        assert!(unfused > 300, "too few refused pairs ({unfused})");
    }
}
