//! The VALU integer forms whose lanes reach past 32 bits, inline: the
//! carry chain (v_add_co_u32, v_add_co_ci_u32 and their sub/subrev forms,
//! and the fused pair of a 64-bit add), v_lshlrev_b64 and v_mad_u64_u32
//! (exec/fast/form.rs `Fast::AddCo`, `AddCoCi`, `AddPair`, `LshlrevB64`,
//! `MadU64`); and valu/fast_vint.rs's 64-bit compares, 64-bit right
//! shifts, v_mbcnt and gfx940's v_lshl_add_u64 (`Fast::Vint`).
//!
//! Why: clang forms every global address as a 64-bit add in a carry pair,
//! often after a 64-bit shift of the index (on gfx942 as one
//! v_lshl_add_u64); as call-outs they made nearly every block with a
//! global access fail the tier's inline share, and on gfx942 v_lshl_add_u64
//! was by far the most common call-out of the corpus (7736 of the entries
//! its translations emitted).
//!
//! Exactness: the sums and carries are valu/mod.rs `add_carry` and
//! `sub_borrow` bit for bit (the carry out is bit 31 of the same bitwise
//! expression); v_lshlrev_b64 masks its shift to six bits and
//! v_mad_u64_u32 adds a 64-bit third source to the full 64-bit product, as
//! valu/fast.rs `lshlrev_b64` and `mad_u64_lanes` do. A 64-bit source reads
//! like operand.rs `row_pair`: a VGPR and the next, an SGPR and the next,
//! or a constant with a zero high dword. Carries and overflows go to their
//! SGPR as a compare's mask does (inactive lanes 0, `set_mask`).

use super::emit::{Fx, M, V, splat};
use crate::gfx11::exec::operand::{SSrc, VSrc};
use crate::gfx11::exec::valu::fast_pair::AddPair;
use crate::gfx11::exec::valu::fast_vint::{Below, Vint};

/// The `icmp` predicate of the integer relations `rel` (a mask: 1 less,
/// 2 equal, 4 greater), signed or not; None for none, "true" for all.
pub(super) fn relation(rel: u8, signed: bool) -> Option<&'static str> {
    match (rel & 7, signed) {
        (0, _) => None,
        (7, _) => Some("true"),
        (1, true) => Some("slt"),
        (1, false) => Some("ult"),
        (2, _) => Some("eq"),
        (3, true) => Some("sle"),
        (3, false) => Some("ule"),
        (4, true) => Some("sgt"),
        (4, false) => Some("ugt"),
        (5, _) => Some("ne"),
        (_, true) => Some("sge"),
        (_, false) => Some("uge"),
    }
}

/// `<32 x i64>`: a lane's 64-bit value.
pub(super) const Q: &str = "<32 x i64>";

/// The shape of a carry-chain entry (`Fast::AddCo` or `Fast::AddCoCi`).
#[derive(Clone, Copy)]
pub(super) struct Carry {
    pub sub: bool,
    pub rev: bool,
    pub dst: u8,
    pub sdst: u8,
    pub a: VSrc,
    pub b: VSrc,
    /// The carry-in mask (None: no carry in).
    pub cin: Option<SSrc>,
}

impl Fx {
    /// valu/fast.rs `add_co`.
    pub(super) fn carry(&mut self, c: Carry) {
        let (mut x, mut y) = (self.src(c.a), self.src(c.b));
        if c.rev {
            (x, y) = (y, x);
        }
        let cin = c.cin.map(|m| self.mask_src(m));
        let (r, out) = self.sum(c.sub, &x, &y, cin.as_deref());
        self.set_row(c.dst, r);
        self.set_mask(c.sdst, &out);
    }

    /// valu/fast_pair.rs `run`: both adds, then the writes in the pair's order.
    pub(super) fn add_pair(&mut self, p: &AddPair) {
        let (x, y) = (self.src(p.a), self.src(p.b));
        let (lo, carry) = self.sum(false, &x, &y, None);
        let (z, t) = (self.src(p.c), self.src(p.d));
        let (hi, out) = self.sum(false, &z, &t, Some(&carry));
        self.set_row(p.lo, lo);
        if p.sdst != p.mid {
            self.set_mask(p.mid, &carry);
        }
        self.set_row(p.hi, hi);
        self.set_mask(p.sdst, &out);
    }

    /// `x` + `y` + `cin` (or `x` - `y` - `cin`) and each lane's carry (or
    /// borrow) out as a mask: valu/mod.rs `add_carry` (carry bit 31 of
    /// `(x & y) | ((x | y) & !s)`) and `sub_borrow` (`(!x & y) | (!(x ^ y) & d)`).
    fn sum(&mut self, sub: bool, x: &str, y: &str, cin: Option<&str>) -> (String, String) {
        let op = if sub { "sub" } else { "add" };
        let mut r = self.ins(format!("{op} {V} {x}, {y}"));
        if let Some(m) = cin {
            let k = self.ins(format!("zext {M} {m} to {V}"));
            r = self.ins(format!("{op} {V} {r}, {k}"));
        }
        let ones = splat(u32::MAX);
        let bits = if sub {
            let nx = self.ins(format!("xor {V} {x}, {ones}"));
            let left = self.ins(format!("and {V} {nx}, {y}"));
            let same = self.ins(format!("xor {V} {x}, {y}"));
            let same = self.ins(format!("xor {V} {same}, {ones}"));
            let right = self.ins(format!("and {V} {same}, {r}"));
            self.ins(format!("or {V} {left}, {right}"))
        } else {
            let left = self.ins(format!("and {V} {x}, {y}"));
            let either = self.ins(format!("or {V} {x}, {y}"));
            let ns = self.ins(format!("xor {V} {r}, {ones}"));
            let right = self.ins(format!("and {V} {either}, {ns}"));
            self.ins(format!("or {V} {left}, {right}"))
        };
        let out = self.ins(format!("icmp slt {V} {bits}, zeroinitializer"));
        (r, out)
    }

    /// A 64-bit source's lanes (operand.rs `row_pair`).
    fn src64(&mut self, s: VSrc) -> String {
        let (lo, hi) = match s {
            VSrc::Vgpr(r) => (self.row(r), self.row(r.wrapping_add(1))),
            VSrc::Sgpr(r) => {
                // vsrc64 admits s0..s126, so the pair's high dword exists.
                let (lo, hi) = (self.sgpr(r), self.sgpr(r + 1));
                (self.splat_value(&lo), self.splat_value(&hi))
            }
            VSrc::Imm(v) => (splat(v), splat(0)),
        };
        self.join64(&lo, &hi)
    }

    /// Low and high rows as 64-bit lanes.
    pub(super) fn join64(&mut self, lo: &str, hi: &str) -> String {
        let lo = self.ins(format!("zext {V} {lo} to {Q}"));
        let hi = self.ins(format!("zext {V} {hi} to {Q}"));
        let hi = self.ins(format!("shl {Q} {hi}, splat (i64 32)"));
        self.ins(format!("or {Q} {hi}, {lo}"))
    }

    /// Write 64-bit lanes `v` to the pair at `dst` under EXEC (form.rs
    /// admits no pair at v255).
    pub(super) fn set_rows64(&mut self, dst: u8, v: &str) {
        let lo = self.ins(format!("trunc {Q} {v} to {V}"));
        let hi = self.ins(format!("lshr {Q} {v}, splat (i64 32)"));
        let hi = self.ins(format!("trunc {Q} {hi} to {V}"));
        self.set_row(dst, lo);
        self.set_row(dst + 1, hi);
    }

    /// valu/fast.rs `lshlrev_b64`: `b` << (`a` & 63).
    pub(super) fn lshlrev_b64(&mut self, dst: u8, a: VSrc, b: VSrc) {
        let y = self.src64(b);
        let n = self.src(a);
        let n = self.ins(format!("and {V} {n}, {}", splat(63)));
        let n = self.ins(format!("zext {V} {n} to {Q}"));
        let r = self.ins(format!("shl {Q} {y}, {n}"));
        self.set_rows64(dst, &r);
    }

    /// valu/fast.rs `mad_u64`: `a` * `b` + `c` on 64 bits; the carry out of
    /// the add to `sdst` (its product is below 2^64, so the carry is the
    /// wrapped sum being below the product).
    pub(super) fn mad_u64(&mut self, dst: u8, sdst: u8, a: VSrc, b: VSrc, c: VSrc) {
        let (x, y) = (self.src(a), self.src(b));
        let z = self.src64(c);
        let x = self.ins(format!("zext {V} {x} to {Q}"));
        let y = self.ins(format!("zext {V} {y} to {Q}"));
        let p = self.ins(format!("mul nuw {Q} {x}, {y}"));
        let r = self.ins(format!("add {Q} {p}, {z}"));
        let over = self.ins(format!("icmp ult {Q} {r}, {p}"));
        self.set_rows64(dst, &r);
        self.set_mask(sdst, &over);
    }

    /// valu/fast_vint.rs `run`.
    pub(super) fn vint(&mut self, v: &Vint) -> bool {
        match *v {
            Vint::Cmp64 {
                cond,
                signed,
                dst,
                a,
                b,
            } => {
                let (x, y) = (self.src64(a), self.src64(b));
                let h = match relation(cond, signed) {
                    None => "zeroinitializer".to_owned(),
                    Some("true") => "splat (i1 true)".to_owned(),
                    Some(p) => self.ins(format!("icmp {p} {Q} {x}, {y}")),
                };
                self.set_mask(dst, &h);
            }
            Vint::Shr64 { signed, dst, a, b } => {
                let y = self.src64(b);
                let n = self.src(a);
                let n = self.ins(format!("and {V} {n}, {}", splat(63)));
                let n = self.ins(format!("zext {V} {n} to {Q}"));
                let shift = if signed { "ashr" } else { "lshr" };
                let r = self.ins(format!("{shift} {Q} {y}, {n}"));
                self.set_rows64(dst, &r);
            }
            Vint::Mbcnt { below, dst, a, b } => {
                let (x, y) = (self.src(a), self.src(b));
                let counted = match below {
                    Below::Zero => y,
                    Below::Own | Below::Full => {
                        let m = if below == Below::Own {
                            let lanes: Vec<String> = (0..32)
                                .map(|l| format!("i32 {}", (1u32 << l) - 1))
                                .collect();
                            format!("<{}>", lanes.join(", "))
                        } else {
                            splat(u32::MAX)
                        };
                        let bits = self.ins(format!("and {V} {x}, {m}"));
                        let n = self.ins(format!("call {V} @llvm.ctpop.v32i32({V} {bits})"));
                        self.ins(format!("add {V} {n}, {y}"))
                    }
                };
                self.set_row(dst, counted);
            }
            Vint::LshlAdd64 { dst, a, b, c } => {
                // (a << (b & 7)) + c over 64 bits (AMD CDNA3 ISA guide,
                // V_LSHL_ADD_U64), every source read before the write.
                let x = self.src64(a);
                let n = self.src(b);
                let z = self.src64(c);
                let n = self.ins(format!("and {V} {n}, {}", splat(7)));
                let n = self.ins(format!("zext {V} {n} to {Q}"));
                let shifted = self.ins(format!("shl {Q} {x}, {n}"));
                let r = self.ins(format!("add {Q} {shifted}, {z}"));
                self.set_rows64(dst, &r);
            }
        }
        true
    }
}
