//! Opcode tables of the GFX9-family targets, one generated file per target
//! (`tools/isa-tables/generate.py`, from llvm-mc-19 -mcpu=gfx90a / gfx942):
//! the targets share encodings but not every opcode (gfx942 adds the fp8/bf8
//! and xf32 MFMAs and conversions, v_mov_b64, v_lshl_add_u64; gfx90a keeps
//! the non-fused v_mad_f32/v_mac_f32), so each has its own rows. Every row
//! names a shared [`Op`].

mod gfx90a;
mod gfx942;

pub use crate::opcodes::{Op, OpInfo};

use super::Target;

/// One target's opcode table per encoding family.
#[derive(Debug)]
pub struct Tables {
    pub sop2: &'static [Option<OpInfo>],
    pub sop1: &'static [Option<OpInfo>],
    pub sopk: &'static [Option<OpInfo>],
    pub sopc: &'static [Option<OpInfo>],
    pub sopp: &'static [Option<OpInfo>],
    pub smem: &'static [Option<OpInfo>],
    pub vop1: &'static [Option<OpInfo>],
    pub vop2: &'static [Option<OpInfo>],
    pub vopc: &'static [Option<OpInfo>],
    pub vop3: &'static [Option<OpInfo>],
    pub vop3p: &'static [Option<OpInfo>],
    pub ds: &'static [Option<OpInfo>],
    pub flat: &'static [Option<OpInfo>],
    pub scratch: &'static [Option<OpInfo>],
    pub global: &'static [Option<OpInfo>],
    pub mubuf: &'static [Option<OpInfo>],
    pub mtbuf: &'static [Option<OpInfo>],
}

macro_rules! tables {
    ($m:ident) => {
        Tables {
            sop2: &$m::SOP2,
            sop1: &$m::SOP1,
            sopk: &$m::SOPK,
            sopc: &$m::SOPC,
            sopp: &$m::SOPP,
            smem: &$m::SMEM,
            vop1: &$m::VOP1,
            vop2: &$m::VOP2,
            vopc: &$m::VOPC,
            vop3: &$m::VOP3,
            vop3p: &$m::VOP3P,
            ds: &$m::DS,
            flat: &$m::FLAT,
            scratch: &$m::SCRATCH,
            global: &$m::GLOBAL,
            mubuf: &$m::MUBUF,
            mtbuf: &$m::MTBUF,
        }
    };
}

static GFX90A: Tables = tables!(gfx90a);
static GFX942: Tables = tables!(gfx942);

/// The opcode tables of `target`.
pub fn tables(target: Target) -> &'static Tables {
    match target {
        Target::Gfx90a => &GFX90A,
        Target::Gfx942 => &GFX942,
    }
}
