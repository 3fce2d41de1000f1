//! A decoded gfx11 instruction: the form every encoding family decodes into,
//! shared by the disassembler and the executor. Decoding happens once per
//! code address (see `code_cache`), so this favours cheap execution: source
//! operands carry their constant values already expanded to the operand's
//! width and type.

use super::opcodes::Op;

/// Encoding family (the first-dword formats of the RDNA3 ISA guide).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Family {
    Sop1,
    Sop2,
    Sopk,
    Sopc,
    Sopp,
    Smem,
    Vop1,
    Vop2,
    Vopc,
    Vop3,
    /// VOP3 with a scalar destination (carry out / VCC-like result).
    Vop3sd,
    Vop3p,
    Vopd,
    Ds,
    Flat,
    Scratch,
    Global,
    Mubuf,
    /// Typed buffer loads/stores (the instruction carries the data format).
    Mtbuf,
    /// LDS parameter/direct loads (pixel-shader interpolation inputs).
    Ldsdir,
    /// VINTERP parameter interpolation (pixel shaders).
    Vinterp,
    /// Shader exports (pixel/vertex shaders).
    Exp,
    /// Image loads, stores, samples, gathers and atomics (decoded and
    /// printed; not executed).
    Mimg,
}

/// Where a source operand's value comes from at execution time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Src {
    /// Scalar register file index (0..=127: s0..s105, vcc, null, m0, exec).
    Sgpr(u8),
    /// Vector register.
    Vgpr(u8),
    /// Inline constant or literal, already expanded for the operand's type
    /// (f16/f32/f64 bit patterns, sign/zero extension, f64 literal in the high dword).
    Imm(u64),
    Scc,
    Vccz,
    Execz,
    /// src_shared_base/limit, src_private_base/limit (operand codes 235..=238).
    Aperture(u8),
    /// The DPP-permuted src0 row (computed per instruction into `Wave::dpp_row`).
    DppRow,
    /// Operand code the emulator cannot evaluate (DPP, SDWA, LDS direct, pops_exiting_wave_id...).
    Unsupported(u16),
}

/// A source operand: its encoding (for disassembly) and its value source.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Operand {
    /// Raw operand code: 0..=255 scalar/constant space, 256..=511 VGPRs.
    pub code: u16,
    pub src: Src,
}

impl Operand {
    pub const NONE: Operand = Operand {
        code: 0,
        src: Src::Imm(0),
    };
}

/// VOP3/VOP3P/VOPD modifiers.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Mods {
    /// abs bit per source (VOP3); for VOP3P this field is neg_hi.
    pub abs: u8,
    /// neg bit per source.
    pub neg: u8,
    /// op_sel bits (VOP3: src0..2 and bit 3 for dst; VOP3P: low-half select).
    pub opsel: u8,
    /// VOP3P op_sel_hi bits.
    pub opsel_hi: u8,
    pub clamp: bool,
    /// 0 none, 1 mul:2, 2 mul:4, 3 div:2.
    pub omod: u8,
}

/// The second (Y) half of a VOPD dual-issue instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DualHalf {
    pub op: Op,
    pub mnemonic: &'static str,
    pub dst: u8,
    pub src0: Operand,
    pub vsrc1: u8,
}

/// One decoded instruction.
#[derive(Clone, Debug, PartialEq)]
pub struct Inst {
    pub family: Family,
    pub op: Op,
    /// LLVM's mnemonic for this encoding.
    pub mnemonic: &'static str,
    /// Length in dwords (including a literal).
    pub len: u8,
    /// The raw dwords.
    pub words: [u32; 4],
    /// Register widths in dwords from the opcode table ([dst, src0, src1, src2, sdst]).
    pub widths: [u8; 5],
    /// Destination: a VGPR number for vector ops, an SGPR code for scalar ops
    /// (and VOPC-e64 / v_readlane style scalar results).
    pub dst: u16,
    /// VOP3SD scalar destination (carry out).
    pub sdst: u8,
    pub src: [Operand; 3],
    /// The literal dword, when the instruction has one.
    pub literal: Option<u32>,
    pub mods: Mods,
    /// simm16 (SOPP/SOPK, sign-extended), or the memory offset (SMEM/FLAT
    /// signed, DS offset0 / 16-bit offset).
    pub imm: i32,
    /// DS offset1; SMEM soffset code.
    pub imm2: u32,
    /// Memory: address VGPR (DS/FLAT), or SMEM sbase SGPR.
    pub addr: u8,
    /// Memory: data VGPRs (DS data0/data1, FLAT data).
    pub data: [u8; 2],
    /// FLAT/GLOBAL/SCRATCH saddr code (124 = off).
    pub saddr: u8,
    /// Memory cache bits: bit0 glc, bit1 slc, bit2 dlc, bit3 gds, bit4 sve (scratch vaddr used).
    pub flags: u8,
    /// VOPD second half.
    pub dual: Option<DualHalf>,
    /// DPP16/DPP8 control of a VOP1/VOP2/VOPC instruction (GFX9: DPP with
    /// its row_bcast/wave_shift controls in `ctrl`).
    pub dpp: Option<Dpp>,
    /// GFX9 SDWA controls of a VOP1/VOP2/VOPC instruction.
    pub sdwa: Option<Sdwa>,
    /// GFX9 matrix-core (MFMA/SMFMAC) fields of a VOP3P instruction.
    pub mai: Option<Mai>,
    /// GFX9 accumulation registers: which operands name AGPRs instead of
    /// VGPRs ([`Inst::ACC_DST`], [`Inst::ACC_SRC0`]..., [`Inst::ACC_DATA`]).
    pub acc: u8,
}

/// Sub-dword addressing (GFX9 SDWA, the second dword of a `_sdwa`
/// instruction; AMD CDNA3 ISA guide, "Microcode Formats", VOP_SDWA).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Sdwa {
    /// dst_sel (0..=5 BYTE_0..BYTE_3, WORD_0, WORD_1; 6 DWORD).
    pub dst_sel: u8,
    /// dst_unused (0 pad, 1 sign-extend, 2 preserve).
    pub dst_unused: u8,
    pub src0_sel: u8,
    pub src1_sel: u8,
    /// sext / neg / abs per source: bit 0 src0, bit 1 src1.
    pub sext: u8,
    /// VOPC SDWA: the scalar destination code (`sd` set), else VCC.
    pub sdst: Option<u8>,
}

/// Matrix fused multiply-add controls (GFX9 VOP3P-MAI: AMD CDNA3 ISA guide,
/// "Microcode Formats", VOP3P-MAI).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Mai {
    /// Control broadcast size (cbsz).
    pub cbsz: u8,
    /// A-matrix broadcast identifier (abid).
    pub abid: u8,
    /// B-matrix lane group pattern (blgp; neg modifiers on f64 MFMAs).
    pub blgp: u8,
}

/// Data-parallel primitive controls (the second dword of a `_dpp` instruction).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Dpp {
    /// DPP16 dpp_ctrl (quad_perm, row_shl/shr/ror, mirrors, row_share/xmask).
    pub ctrl: u16,
    /// DPP8: eight 3-bit lane selects (then `ctrl`, masks and bound_ctrl are unused).
    pub dpp8: Option<u32>,
    /// Fetch inactive lanes.
    pub fi: bool,
    pub bound_ctrl: bool,
    pub row_mask: u8,
    pub bank_mask: u8,
}

impl Inst {
    pub const GLC: u8 = 1;
    pub const SLC: u8 = 2;
    pub const DLC: u8 = 4;
    pub const GDS: u8 = 8;
    pub const SVE: u8 = 16;
    /// [`Inst::flags`] of a GFX9 FLAT/GLOBAL/SCRATCH or MUBUF/MTBUF
    /// instruction: the scc bit (gfx942: sc1). Execution ignores it; an
    /// observer sees it ([`crate::observer::LaneAccesses::sc1`]).
    pub const SC1: u8 = 32;
    /// [`Inst::flags`] of a vector compare: a v_cmpx that writes its
    /// destination (VCC or the VOP3 SGPR) as well as EXEC (GFX9).
    pub const CMPX_WRITES_DST: u8 = 128;
    /// [`Inst::flags`] of a SCRATCH instruction: its addresses are relative
    /// to FLAT_SCRATCH (s102/s103), which the kernel sets (gfx90a).
    pub const FLAT_SCRATCH_BASE: u8 = 128;
    /// [`Inst::flags`] of a MUBUF or MTBUF instruction: GFX9's buffer
    /// resource, addressing, range checks and formats apply
    /// (exec/vmem/gfx9_buffer.rs, exec/vmem/gfx9_typed.rs).
    pub const GFX9_BUFFER: u8 = 128;
    /// [`Inst::flags`] of ds_permute_b32 / ds_bpermute_b32: the lane index
    /// spans all 64 lanes of a wave64 (GFX9), not its 32-lane half (gfx11).
    pub const PERMUTE_WAVE64: u8 = 128;
    /// [`Inst::flags`] of s_getreg_b32: its hardware register id is GFX9's
    /// numbering (gfx9/exec_form.rs), not gfx11's.
    pub const GFX9_HWREG: u8 = 128;
    /// [`Inst::flags`] of a GFX9 VALU op with a 16-bit result that writes
    /// zeros to the destination's high half (gfx9/exec_form.rs); gfx11's
    /// 16-bit ops keep it.
    pub const ZERO_HI16: u8 = 128;

    /// [`Inst::acc`] bits: the destination, the sources, the memory data.
    pub const ACC_DST: u8 = 1;
    pub const ACC_SRC0: u8 = 2;
    pub const ACC_SRC1: u8 = 4;
    pub const ACC_SRC2: u8 = 8;
    pub const ACC_DATA: u8 = 16;

    /// The raw dwords of the instruction.
    pub fn raw(&self) -> &[u32] {
        &self.words[..self.len as usize]
    }

    /// Does this instruction end a basic block (the next PC is not pc+len)?
    pub fn ends_block(&self) -> bool {
        use Op::*;
        matches!(
            self.op,
            SEndpgm
                | SBranch
                | SCbranchScc0
                | SCbranchScc1
                | SCbranchVccz
                | SCbranchVccnz
                | SCbranchExecz
                | SCbranchExecnz
                | SSetpcB64
                | SSwappcB64
                | SCallB64
                | STrap
                | SSethalt
                | SEndpgmSaved
        )
    }
}
