//! The SOPK forms inline (salu/fast.rs `Scalar::Sopk`): s_movk_i32,
//! s_addk_i32, s_mulk_i32 and the s_cmpk compares of an SGPR with the
//! instruction's 16-bit constant.
//!
//! Why: clang's gfx9 code sets loop bounds and masks with s_movk_i32 and
//! tests counters with s_cmpk, in blocks that otherwise run inline; each
//! was a call-out that stored and reloaded every SGPR.
//!
//! Exactness: as salu/fast.rs `run`: the constant is sign-extended
//! (zero-extended for the unsigned compares), s_addk sets SCC on signed
//! overflow, s_mulk keeps SCC, the register read is of the code below 128
//! (0 past it) and the write goes through `set_sgpr`.

use super::emit::Fx;
use super::wide::relation;
use crate::gfx11::exec::salu::fast::KOp;

impl Fx {
    /// salu/fast.rs `run` of `Scalar::Sopk`.
    pub(super) fn sopk(&mut self, op: KOp, dst: u8, simm: i32) {
        let cur = |fx: &mut Fx| {
            if dst < 128 {
                fx.sgpr(dst)
            } else {
                "0".to_owned()
            }
        };
        match op {
            KOp::Movk => self.set_sgpr(dst, simm.to_string()),
            KOp::Addk => {
                let x = cur(self);
                let p = self.ins(format!(
                    "call {{i32, i1}} @llvm.sadd.with.overflow.i32(i32 {x}, i32 {simm})"
                ));
                let r = self.ins(format!("extractvalue {{i32, i1}} {p}, 0"));
                let o = self.ins(format!("extractvalue {{i32, i1}} {p}, 1"));
                self.set_scc(o);
                self.set_sgpr(dst, r);
            }
            KOp::Mulk => {
                let x = cur(self);
                let r = self.ins(format!("mul i32 {x}, {simm}"));
                self.set_sgpr(dst, r);
            }
            KOp::Cmpk { rel, signed } => {
                let x = cur(self);
                let k = if signed { simm } else { i32::from(simm as u16) };
                let s = match relation(rel, signed) {
                    None => "false".to_owned(),
                    Some("true") => "true".to_owned(),
                    Some(p) => self.ins(format!("icmp {p} i32 {x}, {k}")),
                };
                self.set_scc(s);
            }
        }
    }
}
