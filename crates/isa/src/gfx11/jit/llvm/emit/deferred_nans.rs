//! Deferred NaN tests in a pair function's copy for two full EXECs.
//!
//! A pair function (`pair.rs`) does not apply gfxsim's NaN rule (lanes.rs
//! `nan_rule`): it tests its f32 results for NaN and, where one is, hands
//! both waves to their one-wave translations, which apply it. The bits of
//! a NaN the host made can differ from the rule's only in its sign and
//! payload, and those show only where a form reads the value as bits (an
//! integer op, a 64-bit source, a store) or where it is left in a register
//! when the pass ends. The float forms that take a NaN to a NaN (add,
//! multiply, fma, square root, min and max, exp2, ...), the forms whose
//! result a NaN's bits do not decide (compares, v_cmp_class_f32,
//! v_cvt_i32_f32) and the moves and selects that pass it on leave it
//! unseen. So the test of each result waits: the values such forms write
//! are *deferred*, and one is tested when a form reads it as bits, when
//! EXEC changes, and at the end of the pass if a register still holds it.
//! Every NaN the host made then reaches a tested value, as with a test of
//! every result, and each straight run of float code is tested once.
//!
//! Only in the copy for two full EXECs (`full`): a deferred value's lanes
//! are tested under EXEC as it was when the value was made, which there is
//! every lane until something writes EXEC (the deferred values are tested
//! then, and later results at once).
//!
//! Why: in the transcendental loop of `cargo bench --bench compute` (pair
//! blocks of f32 code) a test of each result costs about 5% of the time
//! (two cores: 33.1 ms a dispatch with the tests deferred, 34.8 ms with
//! one per result, 31.8 ms with none, which would not be exact).

use std::collections::BTreeSet;

use super::super::footprint::rows;
use super::super::lanes::{DualHalf, slow_dual, slow_unary};
use super::{F, Fx, Reg, row_id};
use crate::gfx11::code_cache::{Block, Compiled};
use crate::gfx11::exec::fast::Fast;
use crate::gfx11::exec::valu::fast::VOp;
use crate::gfx11::exec::valu::fast_f32::FltOp;
use crate::gfx11::exec::valu::fast_f64::S64;
use crate::gfx11::exec::valu::fast_fma32::Fma32Op;
use crate::gfx11::exec::valu::fast_vcmp::FcmpKind;
use crate::gfx11::exec::valu::fast_vopd::DualOp;
use crate::gfx11::inst::Family;
use crate::gfx11::opcodes::Op;
use crate::gfx11::wave::EXEC;

/// How an entry's form treats the deferred values it reads.
#[derive(Debug)]
pub(super) enum NanUse {
    /// A float form, a move or a select: a NaN it reads leaves a NaN (or
    /// a result its bits do not decide), so the rows it writes are
    /// deferred. It reads VGPRs `bits` as bits (tested first).
    Keeps { bits: Vec<u8> },
    /// It reads VGPRs `bits` as bits (tested first) and others only as
    /// floats whose NaN bits do not decide its result (compares, class
    /// tests, conversions to integers); nothing it writes is deferred.
    Ends { bits: Vec<u8> },
    /// Any other form: every deferred value is tested first.
    Unknown,
}

/// A VOPD pair's use: its float halves keep NaNs, its integer halves read
/// their VGPRs as bits.
fn dual(halves: [DualHalf; 2]) -> NanUse {
    let mut bits = Vec::new();
    for h in halves {
        if let DualHalf::Op(h) = h
            && matches!(h.op, DualOp::Add | DualOp::Lshlrev | DualOp::And)
        {
            bits.extend(rows(&[h.a]));
            bits.push(h.b);
        }
    }
    NanUse::Keeps { bits }
}

/// How entry `c` of `block` treats NaNs it reads (what lanes.rs emits for
/// its form).
pub(super) fn nan_use(block: &Block, c: &Compiled) -> NanUse {
    match c.fast {
        Fast::FmaF32 { .. } | Fast::Cndmask { .. } | Fast::Valu { op: VOp::Mov, .. } => {
            NanUse::Keeps { bits: Vec::new() }
        }
        Fast::Fma32(f) if f.op == Fma32Op::Fma => NanUse::Keeps { bits: Vec::new() },
        Fast::Valu { a, b, c, .. } => NanUse::Ends {
            bits: rows(&[a, b, c]),
        },
        Fast::Vcmp { a, b, .. } => NanUse::Ends {
            bits: rows(&[a, b]),
        },
        Fast::Flt(f) => {
            use FltOp::*;
            match f.op {
                Add | Sub | Subrev | Mul | Sqrt | Trunc | Max | Min | Rcp | Rsq | FrexpMant => {
                    NanUse::Keeps { bits: Vec::new() }
                }
                // The exponent is an integer.
                Ldexp => NanUse::Keeps { bits: rows(&[f.b]) },
                _ => NanUse::Unknown,
            }
        }
        Fast::Fcmp(f) if f.kind == FcmpKind::F32 => NanUse::Ends { bits: Vec::new() },
        // The class mask is an integer.
        Fast::Fcmp(f) if f.kind == FcmpKind::Class32 => NanUse::Ends {
            bits: match f.b {
                S64::Vgpr(r) => vec![r],
                _ => Vec::new(),
            },
        },
        Fast::Vopd(v) => dual([DualHalf::Op(v.x), DualHalf::Op(v.y)]),
        // The scalar unit reads no VGPR.
        Fast::Salu { .. } | Fast::Scalar(_) => NanUse::Ends { bits: Vec::new() },
        Fast::Slow => {
            let i = &block.insts[c.index as usize];
            match i.family {
                Family::Vopd => slow_dual(i).map_or(NanUse::Unknown, |(x, y)| dual([x, y])),
                Family::Sop1 | Family::Sop2 | Family::Sopk | Family::Sopc | Family::Sopp => {
                    NanUse::Ends { bits: Vec::new() }
                }
                _ if slow_unary(i) => match i.op {
                    Op::VExpF32 | Op::VLogF32 | Op::VRndneF32 => NanUse::Keeps { bits: Vec::new() },
                    // A NaN converts to 0.
                    Op::VCvtI32F32 => NanUse::Ends { bits: Vec::new() },
                    _ => NanUse::Unknown,
                },
                _ => NanUse::Unknown,
            }
        }
        _ => NanUse::Unknown,
    }
}

impl Fx {
    /// Start deferring NaN tests if this is a pair function's copy whose
    /// EXEC is all ones here (at the start of a pass).
    pub(super) fn defer_nans(&mut self) {
        if self.pair_nans.is_some() && self.exec_all_ones() {
            self.deferred = Some(BTreeSet::new());
        }
    }

    /// Before entry `c` of `block`: test the deferred values it reads as
    /// bits (all of them before a form not known here).
    pub(super) fn before_entry(&mut self, block: &Block, c: &Compiled) {
        if self.deferred.is_none() {
            return;
        }
        self.keeping = match nan_use(block, c) {
            NanUse::Keeps { bits } => {
                self.test_rows(&bits);
                true
            }
            NanUse::Ends { bits } => {
                self.test_rows(&bits);
                false
            }
            NanUse::Unknown => {
                self.test_deferred();
                false
            }
        };
    }

    /// After an entry: what it wrote is deferred if it keeps NaNs
    /// ([`Fx::defer_written`]); if it wrote EXEC, every deferred value
    /// (made under all lanes) is tested and nothing more is deferred.
    pub(super) fn after_entry(&mut self) {
        self.keeping = false;
        if self.deferred.is_some() && !self.exec_all_ones() {
            self.test_deferred();
            self.deferred = None;
        }
    }

    /// Does EXEC hold the constant -1 (the full copy's, until written)?
    fn exec_all_ones(&self) -> bool {
        matches!(self.sgprs.get(&(EXEC as u8)), Some(Reg { v, .. }) if v == "-1")
    }

    /// Row value `v` was just written: deferred if the entry keeps NaNs.
    pub(super) fn defer_written(&mut self, v: &str) {
        if self.keeping
            && let Some(d) = &mut self.deferred
        {
            d.insert(v.to_owned());
        }
    }

    /// Does the entry being emitted defer the NaN test of its f32 results
    /// (lanes.rs `nan_rule`)? They are then in the rows it writes.
    pub(in crate::gfx11::jit::llvm) fn defers_result(&self) -> bool {
        self.keeping && self.deferred.is_some()
    }

    /// Note the lanes of deferred value `v` (bits) that are NaN, in every
    /// lane (it was made under all of them).
    fn note_nans_all_lanes(&mut self, v: &str) {
        let f = self.fl(v);
        let bad = self.ins(format!("fcmp uno {F} {f}, zeroinitializer"));
        self.note_nan_lanes(bad);
    }

    /// Test the deferred values of VGPRs `rows`; they are deferred no more.
    fn test_rows(&mut self, rows: &[u8]) {
        for &r in rows {
            let Some(v) = self.rows.get(&row_id(0, r)).map(|r| r.v.clone()) else {
                continue;
            };
            if self.deferred.as_mut().is_some_and(|d| d.remove(&v)) {
                self.note_nans_all_lanes(&v);
            }
        }
    }

    /// Test every deferred value a register holds (the others were read
    /// only by forms that keep NaNs or whose results their bits do not
    /// decide); none is deferred after.
    pub(super) fn test_deferred(&mut self) {
        let Some(d) = self.deferred.take() else {
            return;
        };
        let held: BTreeSet<String> = self
            .rows
            .values()
            .filter(|r| d.contains(&r.v))
            .map(|r| r.v.clone())
            .collect();
        for v in &held {
            self.note_nans_all_lanes(v);
        }
        self.deferred = Some(BTreeSet::new());
    }
}
