//! The 64-bit SALU forms inline (salu/fast.rs `Scalar::Op64`): moves,
//! bitwise ops, shifts, s_cselect_b64 and the 64-bit compares, on SGPR
//! pairs held as two i32 values; s_ctz_i32_b64 (`Scalar::Ctz64`, GFX9's
//! s_ff1_i32_b64, which wave64 code runs on EXEC to pick a lane); and the
//! saveexec forms (`Scalar::Saveexec`, b32 and b64).
//!
//! Why: s_lshl_b64 of an index into a byte offset sits in hot loops (the
//! n-body kernel's), where a call-out stored and reloaded every SGPR; and
//! s_and_saveexec opens every divergent branch, so a call-out there kept
//! short branchy blocks from paying for their translation.
//!
//! A pair reads like `Wave::sgpr64` (s127's high dword is 0: no s128) and
//! writes like `Wave::set_sgpr64` (each dword through `set_sgpr`, which
//! drops null and codes from 128).

use super::emit::{Fx, real_sgpr};
use crate::gfx11::exec::salu::fast::{Op64, SaveOp, Src64};
use crate::gfx11::wave::EXEC;

impl Fx {
    /// A 64-bit source as an i64.
    pub(super) fn read64(&mut self, s: Src64) -> String {
        let (lo, hi) = match s {
            Src64::Reg(r) => {
                let lo = self.sgpr(r);
                let hi = if r < 127 {
                    self.sgpr(r + 1)
                } else {
                    "0".to_owned()
                };
                (lo, hi)
            }
            Src64::Imm(lo, hi) => ((lo as i32).to_string(), (hi as i32).to_string()),
        };
        let lo = self.ins(format!("zext i32 {lo} to i64"));
        let hi = self.ins(format!("zext i32 {hi} to i64"));
        let hi = self.ins(format!("shl i64 {hi}, 32"));
        self.ins(format!("or i64 {hi}, {lo}"))
    }

    /// The pair at `dst` = `v` (an i64) where `keep` (an i1, or None) is
    /// false; `keep` true leaves it as it is.
    fn write64(&mut self, dst: u8, v: &str, keep: Option<&str>) {
        let lo = self.ins(format!("trunc i64 {v} to i32"));
        let hi = self.ins(format!("lshr i64 {v}, 32"));
        let hi = self.ins(format!("trunc i64 {hi} to i32"));
        for (r, part) in [(Some(dst), lo), (dst.checked_add(1), hi)] {
            let Some(r) = r.filter(|&r| real_sgpr(r)) else {
                continue;
            };
            let new = match keep {
                Some(k) => {
                    let old = self.sgpr(r);
                    self.ins(format!("select i1 {k}, i32 {old}, i32 {part}"))
                }
                None => part,
            };
            self.set_sgpr(r, new);
        }
    }

    /// salu/fast.rs `run` of `Scalar::Op64`.
    /// salu/fast.rs `run` of `Scalar::Ctz64` (s_ctz_i32_b64, GFX9's
    /// s_ff1_i32_b64): the lowest set bit's index, -1 for none; SCC kept.
    pub(super) fn ctz64(&mut self, dst: u8, a: Src64) {
        let x = self.read64(a);
        let t = self.ins(format!("call i64 @llvm.cttz.i64(i64 {x}, i1 false)"));
        let t = self.ins(format!("trunc i64 {t} to i32"));
        let z = self.ins(format!("icmp eq i64 {x}, 0"));
        let r = self.ins(format!("select i1 {z}, i32 -1, i32 {t}"));
        self.set_sgpr(dst, r);
    }

    pub(super) fn op64(&mut self, op: Op64, dst: u8, a: Src64, b: Src64) {
        let x = self.read64(a);
        let y = self.read64(b);
        let two = |fx: &mut Self, inst: &str| fx.ins(format!("{inst} i64 {x}, {y}"));
        let not = |fx: &mut Self, v: String| fx.ins(format!("xor i64 {v}, -1"));
        // The amount of a shift: b's low six bits.
        let amount = |fx: &mut Self| fx.ins(format!("and i64 {y}, 63"));
        let r = match op {
            Op64::Mov => {
                self.write64(dst, &x, None);
                return;
            }
            Op64::Cmov => {
                let s = self.scc();
                let keep = self.ins(format!("xor i1 {s}, true"));
                self.write64(dst, &x, Some(&keep));
                return;
            }
            Op64::CmpEq | Op64::CmpLg => {
                let cc = if op == Op64::CmpEq { "eq" } else { "ne" };
                let s = self.ins(format!("icmp {cc} i64 {x}, {y}"));
                self.set_scc(s);
                return;
            }
            Op64::Cselect => {
                // SCC stays.
                let s = self.scc();
                let r = self.ins(format!("select i1 {s}, i64 {x}, i64 {y}"));
                self.write64(dst, &r, None);
                return;
            }
            Op64::Not => not(self, x.clone()),
            Op64::And => two(self, "and"),
            Op64::Or => two(self, "or"),
            Op64::Xor => two(self, "xor"),
            Op64::AndNot1 | Op64::OrNot1 => {
                let n = not(self, y.clone());
                let inst = if op == Op64::AndNot1 { "and" } else { "or" };
                self.ins(format!("{inst} i64 {x}, {n}"))
            }
            Op64::Nand => {
                let v = two(self, "and");
                not(self, v)
            }
            Op64::Nor => {
                let v = two(self, "or");
                not(self, v)
            }
            Op64::Xnor => {
                let v = two(self, "xor");
                not(self, v)
            }
            Op64::Lshl | Op64::Lshr | Op64::Ashr => {
                let n = amount(self);
                let inst = match op {
                    Op64::Lshl => "shl",
                    Op64::Lshr => "lshr",
                    _ => "ashr",
                };
                self.ins(format!("{inst} i64 {x}, {n}"))
            }
        };
        // SCC = result != 0, set before the write (which cannot read it).
        let s = self.ins(format!("icmp ne i64 {r}, 0"));
        self.set_scc(s);
        self.write64(dst, &r, None);
    }

    /// salu/fast.rs `run` of `Scalar::Saveexec`: EXEC = `op`(a, EXEC), then
    /// `dst` = the old EXEC (the new one for `wr`), SCC = EXEC != 0; on the
    /// pair for `wide`, else on exec_lo and `dst` alone.
    pub(super) fn saveexec(&mut self, op: SaveOp, wide: bool, wr: bool, dst: u8, a: Src64) {
        let (ty, s, e) = match a {
            _ if wide => ("i64", self.read64(a), self.read64(Src64::Reg(EXEC as u8))),
            // The register itself (what the truncated pair holds), so
            // that a compare's lanes stay known (`bitwise_mask`).
            Src64::Reg(r) => ("i32", self.sgpr(r), self.sgpr(EXEC as u8)),
            Src64::Imm(lo, _) => ("i32", (lo as i32).to_string(), self.sgpr(EXEC as u8)),
        };
        let not = |fx: &mut Self, v: &str| fx.ins(format!("xor {ty} {v}, -1"));
        let two =
            |fx: &mut Self, inst: &str, x: &str, y: &str| fx.ins(format!("{inst} {ty} {x}, {y}"));
        let new = match op {
            SaveOp::And => two(self, "and", &s, &e),
            SaveOp::Or => two(self, "or", &s, &e),
            SaveOp::Xor => two(self, "xor", &s, &e),
            SaveOp::Nand => {
                let r = two(self, "and", &s, &e);
                not(self, &r)
            }
            SaveOp::Nor => {
                let r = two(self, "or", &s, &e);
                not(self, &r)
            }
            SaveOp::Xnor => {
                let r = two(self, "xor", &s, &e);
                not(self, &r)
            }
            SaveOp::AndNot0 => {
                let n = not(self, &s);
                two(self, "and", &n, &e)
            }
            SaveOp::AndNot1 => {
                let n = not(self, &e);
                two(self, "and", &s, &n)
            }
            SaveOp::OrNot0 => {
                let n = not(self, &s);
                two(self, "or", &n, &e)
            }
            SaveOp::OrNot1 => {
                let n = not(self, &e);
                two(self, "or", &s, &n)
            }
        };
        if !wide {
            let (inst, not) = match op {
                SaveOp::And | SaveOp::Nand => ("and", [false, false]),
                SaveOp::Or | SaveOp::Nor => ("or", [false, false]),
                SaveOp::Xor | SaveOp::Xnor => ("xor", [false, false]),
                SaveOp::AndNot0 => ("and", [true, false]),
                SaveOp::AndNot1 => ("and", [false, true]),
                SaveOp::OrNot0 => ("or", [true, false]),
                SaveOp::OrNot1 => ("or", [false, true]),
            };
            if !matches!(op, SaveOp::Nand | SaveOp::Nor | SaveOp::Xnor) {
                self.bitwise_mask(&new, inst, &s, &e, not);
            }
        }
        let saved = if wr { new.clone() } else { e };
        if wide {
            self.write64(EXEC as u8, &new, None);
            self.write64(dst, &saved, None);
        } else {
            self.set_sgpr(EXEC as u8, new.clone());
            self.set_sgpr(dst, saved);
        }
        let scc = self.ins(format!("icmp ne {ty} {new}, 0"));
        self.set_scc(scc);
    }
}
