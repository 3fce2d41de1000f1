//! Instruction classes for per-dispatch counters: which kind of work a
//! wave instruction is (scalar ALU, vector ALU, memory, LDS, control), as
//! a profiler groups them (the classes of the SQ_INSTS_* counters that
//! AMD's rocprofiler lists for gfx11: SALU, SMEM, VALU, VMEM, LDS, branch,
//! WMMA).
//!
//! A class is decided once per decoded instruction (`Block::classes`, in
//! code_cache.rs, keeps prefix sums per block), so a dispatch that counts
//! adds one row of sums when a wave leaves a block and nothing per
//! instruction.

use super::inst::{Family, Inst};
use super::opcodes::Op;

/// The class of one instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum InstClass {
    /// Scalar ALU (SOP1, SOP2, SOPK, SOPC, and SOPP other than branches,
    /// barriers and program control).
    Salu,
    /// Scalar memory loads (SMEM).
    Smem,
    /// Vector ALU (VOP1/2/3/3P/C, VOPD, VINTERP), WMMA aside.
    Valu,
    /// Matrix multiply-accumulate: `v_wmma_*` on gfx11, `v_mfma_*` and
    /// `v_smfmac_*` on GFX9 (counted under the key `wmma`).
    Wmma,
    /// Vector memory loads (FLAT, GLOBAL, SCRATCH, MUBUF, MTBUF, MIMG).
    VmemLoad,
    /// Vector memory stores.
    VmemStore,
    /// Vector memory atomics.
    VmemAtomic,
    /// LDS and GDS (DS, LDSDIR).
    Lds,
    /// Branches, taken or not (`s_branch`, `s_cbranch_*`, `s_setpc`,
    /// `s_swappc`, `s_call`).
    Branch,
    /// `s_barrier`.
    Barrier,
    /// Program control and scheduling: `s_endpgm`, `s_waitcnt*`, `s_nop`,
    /// `s_delay_alu`, `s_clause`, `s_sleep`, `s_sendmsg`, exports.
    Control,
}

/// The number of classes.
pub const INST_CLASSES: usize = 11;

impl InstClass {
    /// Every class, in [`InstClass::index`] order.
    pub const ALL: [InstClass; INST_CLASSES] = [
        InstClass::Salu,
        InstClass::Smem,
        InstClass::Valu,
        InstClass::Wmma,
        InstClass::VmemLoad,
        InstClass::VmemStore,
        InstClass::VmemAtomic,
        InstClass::Lds,
        InstClass::Branch,
        InstClass::Barrier,
        InstClass::Control,
    ];

    /// Position of the class in [`ClassCounts`].
    pub const fn index(self) -> usize {
        self as usize
    }

    /// A short name for tables and trace arguments.
    pub const fn name(self) -> &'static str {
        match self {
            InstClass::Salu => "salu",
            InstClass::Smem => "smem",
            InstClass::Valu => "valu",
            InstClass::Wmma => "wmma",
            InstClass::VmemLoad => "vmem_load",
            InstClass::VmemStore => "vmem_store",
            InstClass::VmemAtomic => "vmem_atomic",
            InstClass::Lds => "lds",
            InstClass::Branch => "branch",
            InstClass::Barrier => "barrier",
            InstClass::Control => "control",
        }
    }

    /// The class of `inst`.
    pub fn of(inst: &Inst) -> InstClass {
        use Family::*;
        let m = inst.mnemonic;
        match inst.family {
            Sop1 | Sop2 | Sopk | Sopc => {
                if matches!(inst.op, Op::SSetpcB64 | Op::SSwappcB64) {
                    InstClass::Branch
                } else {
                    InstClass::Salu
                }
            }
            Sopp => match inst.op {
                Op::SBarrier => InstClass::Barrier,
                _ if inst.ends_block() && !matches!(inst.op, Op::SEndpgm | Op::SEndpgmSaved) => {
                    InstClass::Branch
                }
                _ if m.starts_with("s_endpgm")
                    || m.starts_with("s_waitcnt")
                    || m.starts_with("s_wait_")
                    || m.starts_with("s_nop")
                    || m.starts_with("s_delay_alu")
                    || m.starts_with("s_clause")
                    || m.starts_with("s_sleep")
                    || m.starts_with("s_sendmsg")
                    || m.starts_with("s_set_inst_prefetch")
                    || m.starts_with("s_icache")
                    || m.starts_with("s_trap")
                    || m.starts_with("s_sethalt") =>
                {
                    InstClass::Control
                }
                _ => InstClass::Salu,
            },
            Smem => InstClass::Smem,
            Vop3p
                if m.starts_with("v_wmma")
                    || m.starts_with("v_mfma")
                    || m.starts_with("v_smfmac") =>
            {
                InstClass::Wmma
            }
            Vop1 | Vop2 | Vopc | Vop3 | Vop3sd | Vop3p | Vopd | Vinterp => InstClass::Valu,
            Ds | Ldsdir => InstClass::Lds,
            Flat | Global | Scratch | Mubuf | Mtbuf | Mimg => {
                if m.contains("atomic") {
                    InstClass::VmemAtomic
                } else if m.contains("store") {
                    InstClass::VmemStore
                } else {
                    InstClass::VmemLoad
                }
            }
            Exp => InstClass::Control,
        }
    }
}

/// Wave instructions by class, indexed by [`InstClass::index`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ClassCounts(pub [u64; INST_CLASSES]);

impl ClassCounts {
    /// The count of `class`.
    pub fn get(&self, class: InstClass) -> u64 {
        self.0[class.index()]
    }

    /// The sum over every class (the dispatch's wave instructions).
    pub fn total(&self) -> u64 {
        self.0.iter().sum()
    }

    /// Add `other` to these counts.
    pub fn add(&mut self, other: &ClassCounts) {
        for (a, b) in self.0.iter_mut().zip(other.0) {
            *a += b;
        }
    }

    /// Add one row of a block's prefix sums.
    #[inline]
    pub(crate) fn add_row(&mut self, row: &ClassRow) {
        for (a, &b) in self.0.iter_mut().zip(row) {
            *a += u64::from(b);
        }
    }
}

/// Instructions of each class among a block's first k (a block holds at
/// most 128 instructions, so a byte per class holds the count).
pub(crate) type ClassRow = [u8; INST_CLASSES];

/// Prefix sums of `insts`' classes: row k counts `insts[..=k]`.
pub(crate) fn prefix_rows(insts: &[Inst]) -> Vec<ClassRow> {
    let mut row = [0u8; INST_CLASSES];
    insts
        .iter()
        .map(|i| {
            row[InstClass::of(i).index()] += 1;
            row
        })
        .collect()
}
