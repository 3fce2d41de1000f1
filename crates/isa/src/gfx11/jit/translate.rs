//! One decoded block's wave32 list to a Cranelift function ([`translate`]).
//!
//! The list is cut into lane-local runs ([`Plan`]): maximal sequences of
//! entries whose effect on lane L depends only on lane L's registers,
//! uniform scalars (SGPRs the run does not write, literals) and EXEC. A run
//! is strip-mined: for each 4-lane chunk of the 32 lanes (an `i32x4`, what
//! Cranelift's x86-64 back end offers) it loads each VGPR the run reads
//! once, computes the whole run in SSA values, and stores each VGPR the run
//! writes once, blended under the chunk's EXEC bits (no blend when EXEC is
//! all ones: the run is emitted twice, one branch picks). A compare in a
//! run writes its chunk's four mask bits; a later read of that mask in the
//! run reads the chunk's own lanes; the full mask is stored after the last
//! chunk. Inline SALU ops that do not write EXEC are deferred to the end of
//! the run they sit in (no lane op after them reads what they write, and
//! none writes what they read: [`Plan`] checks). Everything else (memory,
//! lane-crossing ops, rare forms) is a call-out, with the wave's registers
//! in memory around it.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::OnceLock;

use cranelift_codegen::ir::condcodes::{FloatCC, IntCC};
use cranelift_codegen::ir::{
    self, AbiParam, ConstantData, Endianness, InstBuilder, MemFlagsData, Signature, Value, types,
};
use cranelift_codegen::isa::OwnedTargetIsa;
use cranelift_codegen::settings::{self, Configurable};
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext};
use cranelift_jit::{JITBuilder, JITModule};
use cranelift_module::{Module, ModuleError, default_libcall_names};

use super::abi::{
    BlockFn, EXIT_BARRIER, EXIT_END, EXIT_FELL, EXIT_JUMP, EXIT_SHIFT, EXIT_STOP, FRAME_CALLOUT,
    FRAME_LOOP_BUDGET, FRAME_LOOPS, FRAME_SCC, FRAME_SGPR, FRAME_VGPR,
};
use super::code_memory::CodeMemory;
use super::lane_inline;
use super::lane_math::LaneFn;
use super::translation::{Owner, Translation};
use crate::gfx11::code_cache::{Block, Compiled};
use crate::gfx11::decode::vgpr_src;
use crate::gfx11::exec::fast::{Cond, Fast};
use crate::gfx11::exec::operand::{SSrc, VSrc, vsrc};
use crate::gfx11::exec::salu::SOp;
use crate::gfx11::exec::valu::fast::VOp;
use crate::gfx11::exec::valu::fast_f32::{Flt, FltOp};
use crate::gfx11::exec::valu::fast_f64::S64;
use crate::gfx11::exec::valu::fast_fma32::{Fma32, Fma32Op};
use crate::gfx11::exec::valu::fast_vcmp::{Fcmp, FcmpKind};
use crate::gfx11::exec::valu::fast_vopd::{self, DualOp, Half};
use crate::gfx11::inst::{Family, Inst, Mods};
use crate::gfx11::opcodes::Op;
use crate::gfx11::wave::{EXEC, LANES, NULL, VCC};

/// 4-lane chunks per 32-lane row.
const CHUNKS: i64 = LANES as i64 / 4;
/// Bytes per VGPR row.
const ROW_BYTES: i32 = 4 * LANES as i32;
/// The f32 quiet bit.
const QUIET: u32 = 0x0040_0000;

/// Why a block could not be translated (it then stays in the interpreter).
#[derive(Debug, thiserror::Error)]
pub(crate) enum TranslateError {
    #[error("Cranelift has no back end for this host")]
    NoHost,
    #[error("Cranelift could not compile the block: {0}")]
    Module(#[from] Box<ModuleError>),
}

impl From<ModuleError> for TranslateError {
    fn from(e: ModuleError) -> Self {
        TranslateError::Module(Box::new(e))
    }
}

/// The host's Cranelift target (None: none for this host), built once.
fn host_isa() -> Option<OwnedTargetIsa> {
    static ISA: OnceLock<Option<OwnedTargetIsa>> = OnceLock::new();
    ISA.get_or_init(|| {
        let mut flags = settings::builder();
        // The settings JITBuilder::new uses (no PIC, far libcalls), plus speed.
        let set = [
            ("use_colocated_libcalls", "false"),
            ("is_pic", "false"),
            ("opt_level", "speed"),
            (
                "enable_verifier",
                if cfg!(debug_assertions) {
                    "true"
                } else {
                    "false"
                },
            ),
        ];
        for (name, value) in set {
            if let Err(e) = flags.set(name, value) {
                tracing::warn!("Cranelift setting {name}={value}: {e}");
                return None;
            }
        }
        let builder = match cranelift_native::builder() {
            Ok(b) => b,
            Err(why) => {
                tracing::warn!("no translator on this host: {why}");
                return None;
            }
        };
        match builder.finish(settings::Flags::new(flags)) {
            Ok(isa) => Some(isa),
            Err(e) => {
                tracing::warn!("no translator on this host: {e}");
                None
            }
        }
    })
    .clone()
}

/// Whether the target has the boolean ISA flag `name` set.
fn has_flag(isa: &OwnedTargetIsa, name: &str) -> bool {
    isa.isa_flags()
        .iter()
        .any(|v| v.name == name && v.as_bool() == Some(true))
}

/// Translate `block`'s wave32 list.
pub(crate) fn translate(block: &Block) -> Result<Translation, TranslateError> {
    let isa = host_isa().ok_or(TranslateError::NoHost)?;
    let fma = has_flag(&isa, "has_fma");
    let sse41 = has_flag(&isa, "has_sse41");
    let call_conv = isa.default_call_conv();
    let mut module = JITModule::new(JITBuilder::with_isa(isa, default_libcall_names()));
    let ptr = module.target_config().pointer_type();
    let mut ctx = module.make_context();
    ctx.func.signature.call_conv = call_conv;
    ctx.func.signature.params.push(AbiParam::new(ptr));
    ctx.func.signature.returns.push(AbiParam::new(types::I32));
    let mut fctx = FunctionBuilderContext::new();
    let frontend = module.target_config();
    let inlined = {
        let mut b = FunctionBuilder::new(&mut ctx.func, &mut fctx);
        let entry = b.create_block();
        b.append_block_params_for_function_params(entry);
        b.switch_to_block(entry);
        let frame = b.block_params(entry)[0];
        // A block that branches back to its start loops to `top`.
        let top = b.create_block();
        b.ins().jump(top, &[]);
        b.switch_to_block(top);
        let mut callout_sig = Signature::new(call_conv);
        callout_sig.params.push(AbiParam::new(ptr));
        callout_sig.params.push(AbiParam::new(types::I32));
        callout_sig.returns.push(AbiParam::new(types::I32));
        let callout_sig = b.import_signature(callout_sig);
        let mut lane_sig = Signature::new(call_conv);
        lane_sig.params.push(AbiParam::new(ptr));
        let lane_sig = b.import_signature(lane_sig);
        let lane_slot = b.create_sized_stack_slot(ir::StackSlotData::new(
            ir::StackSlotKind::ExplicitSlot,
            32,
            4,
        ));
        let mut tx = Tx {
            b,
            ptr,
            frame,
            sgpr: frame,
            vgpr: frame,
            scc: frame,
            callout_sig,
            lane_sig,
            lane_slot,
            fma,
            sse41,
            chunk: None,
            top,
        };
        tx.load_bases();
        let n = tx.block(block);
        tx.b.seal_all_blocks();
        tx.b.finalize(frontend);
        n
    };
    let id = module.declare_anonymous_function(&ctx.func.signature)?;
    module.define_function(id, &mut ctx)?;
    module.clear_context(&mut ctx);
    module.finalize_definitions()?;
    let code = module.get_finalized_function(id);
    // SAFETY: `code` is the finalized function compiled above with one
    // pointer parameter and an i32 result in the host's default calling
    // convention, which is `extern "C"`: the `BlockFn` type.
    let func = unsafe { std::mem::transmute::<*const u8, BlockFn>(code) };
    Ok(Translation::new(
        Owner::Cranelift(Box::new(CodeMemory::new(module))),
        func,
        inlined,
        block.compiled.len(),
    ))
}

/// One entry of a lane-local run.
#[derive(Clone, Copy, Debug)]
enum Lane {
    /// A pre-resolved form emitted inline ([`Tx::lane`]).
    Form(Fast),
    /// `dst` = `op`(a) for a VOP1 op without a pre-resolved form that
    /// Cranelift computes as the interpreter does ([`Tx::unary`]).
    Unary { op: Op, dst: u8, a: VSrc },
    /// A VOPD pair without a pre-resolved form (a half is v_dual_fmac_f32).
    Dual { x: DualHalf, y: DualHalf },
    /// `dst` = `f`(a [, b]), inline or through a lane_math helper; `mods` are abs
    /// (bits 0..1) and neg (bits 4..5) of the f32 sources, as `Flt`'s.
    Call {
        f: LaneFn,
        dst: u8,
        mods: u8,
        a: VSrc,
        b: VSrc,
    },
}

/// One half of a [`Lane::Dual`] pair.
#[derive(Clone, Copy, Debug)]
enum DualHalf {
    /// A half `fast_vopd` resolves.
    Op(Half),
    /// v_dual_fmac_f32: `dst` = a * VGPR `b` + `dst`.
    Fmac { dst: u8, a: VSrc, b: u8 },
}

impl DualHalf {
    /// The half of VOPD `op` writing `dst` from `a` and `b` (a VGPR).
    fn new(
        op: Op,
        dst: u8,
        a: crate::gfx11::inst::Src,
        b: crate::gfx11::inst::Src,
    ) -> Option<Self> {
        if op == Op::VFmacF32 {
            let crate::gfx11::inst::Src::Vgpr(b) = b else {
                return None;
            };
            return Some(DualHalf::Fmac {
                dst,
                a: vsrc(a)?,
                b,
            });
        }
        fast_vopd::half(op, dst, a, b).map(DualHalf::Op)
    }

    fn a(&self) -> VSrc {
        match self {
            DualHalf::Op(h) => h.a,
            DualHalf::Fmac { a, .. } => *a,
        }
    }

    fn dst(&self) -> u8 {
        match self {
            DualHalf::Op(h) => h.dst,
            DualHalf::Fmac { dst, .. } => *dst,
        }
    }
}

/// What a lane op reads and writes besides VGPRs.
#[derive(Default)]
struct Effects {
    /// SGPRs read as values the same in every lane.
    uniform: Vec<u8>,
    /// SGPRs read as lane masks (cndmask's select).
    masks_read: Vec<u8>,
    /// The SGPR a compare writes its lane mask to.
    mask_write: Option<u8>,
}

/// A lane-local run of a block's list: entries `start..end`, its lane ops
/// in order and the inline SALU ops deferred to its end.
#[derive(Default)]
struct Plan {
    lanes: Vec<Lane>,
    deferred: Vec<Fast>,
    end: usize,
    /// SGPRs read as uniform values (EXEC always), loaded before the chunks.
    uniform: BTreeSet<u8>,
    /// Masks read before the run writes them, loaded before the chunks.
    masks_in: BTreeSet<u8>,
    /// Masks the run writes, stored after the chunks.
    masks_out: Vec<u8>,
}

/// A VGPR row's chunk while a run is emitted.
struct ChunkRow {
    cur: Value,
    /// The value loaded from memory, when loaded (the blend keeps its
    /// inactive lanes).
    orig: Option<Value>,
    dirty: bool,
}

/// The state of one chunk of a run while it is emitted.
struct Chunk {
    /// Address of the chunk's first lane in row 0.
    base: Value,
    /// 4 * the chunk's index (an i32): its first lane's bit in a mask.
    shift: Value,
    rows: BTreeMap<u8, ChunkRow>,
    /// Lane masks (all ones where set) of SGPR masks, this chunk's lanes.
    masks: BTreeMap<u8, Value>,
    /// Uniform SGPR values loaded before the chunks.
    uniform: BTreeMap<u8, Value>,
    /// The mask SGPRs' values loaded before the chunks.
    masks_in: BTreeMap<u8, Value>,
}

/// The builder of one translation.
struct Tx<'f> {
    b: FunctionBuilder<'f>,
    ptr: ir::Type,
    frame: Value,
    /// Base pointers of the register files and SCC (reloaded after call-outs).
    sgpr: Value,
    vgpr: Value,
    scc: Value,
    callout_sig: ir::SigRef,
    /// The lane helpers' signature and the stack slot their chunks pass
    /// through (lane_math.rs).
    lane_sig: ir::SigRef,
    lane_slot: ir::StackSlot,
    /// The host has FMA (Cranelift then emits vfmadd for `fma`).
    fma: bool,
    /// The host has SSE4.1 (`nearest` on vectors: roundps).
    sse41: bool,
    /// The chunk being emitted, inside a run.
    chunk: Option<Chunk>,
    /// The block's first entry (after the function's entry block).
    top: ir::Block,
}

fn mem() -> MemFlagsData {
    MemFlagsData::new().with_notrap()
}

fn lanes_le() -> MemFlagsData {
    MemFlagsData::new().with_endianness(Endianness::Little)
}

/// Is `r` an SGPR slot writes reach (`Wave::set_sgpr` drops null and codes
/// from 128)?
fn real_sgpr(r: u8) -> bool {
    r < 128 && r as usize != NULL
}

/// The helper-run op of a VOP1 instruction without a pre-resolved form.
fn slow_unary(i: &Inst) -> Option<LaneFn> {
    if i.family != Family::Vop1 || i.dpp.is_some() || i.mods != Mods::default() {
        return None;
    }
    Some(match i.op {
        Op::VExpF32 => LaneFn::Exp,
        Op::VLogF32 => LaneFn::Log,
        Op::VRndneF32 => LaneFn::Rndne,
        Op::VCvtI32F32 => LaneFn::CvtI32F32,
        Op::VCvtF32I32 => LaneFn::CvtF32I32,
        _ => return None,
    })
}

impl Lane {
    /// The SGPRs this lane op reads and writes.
    fn effects(&self) -> Effects {
        let mut e = Effects::default();
        let v = |s: VSrc, e: &mut Effects| {
            if let VSrc::Sgpr(r) = s {
                e.uniform.push(r);
            }
        };
        match *self {
            Lane::Call { a, b, .. } => {
                v(a, &mut e);
                v(b, &mut e);
            }
            Lane::Unary { a, .. } => v(a, &mut e),
            Lane::Dual { x, y } => {
                for h in [x, y] {
                    v(h.a(), &mut e);
                    if let DualHalf::Op(h) = h
                        && h.op == DualOp::Cndmask
                    {
                        e.masks_read.push(VCC as u8);
                    }
                }
            }
            Lane::Form(f) => match f {
                Fast::Valu { a, b, c, .. } => {
                    v(a, &mut e);
                    v(b, &mut e);
                    v(c, &mut e);
                }
                Fast::FmaF32 { a, b, c, .. } => {
                    v(a, &mut e);
                    v(b, &mut e);
                    v(c, &mut e);
                }
                Fast::Cndmask { a, b, mask, .. } => {
                    v(a, &mut e);
                    v(b, &mut e);
                    if let SSrc::Reg(r) = mask {
                        e.masks_read.push(r);
                    }
                }
                Fast::Vcmp { a, b, dst, .. } => {
                    v(a, &mut e);
                    v(b, &mut e);
                    e.mask_write = Some(dst);
                }
                Fast::Flt(f) => {
                    v(f.a, &mut e);
                    v(f.b, &mut e);
                }
                Fast::Fma32(f) => {
                    for s in f.src {
                        v(s, &mut e);
                    }
                }
                Fast::Fcmp(c) => {
                    for s in [c.a, c.b] {
                        if let S64::Sgpr(r) = s {
                            e.uniform.push(r);
                        }
                    }
                    e.mask_write = Some(c.dst);
                }
                Fast::Vopd(d) => {
                    for h in [d.x, d.y] {
                        v(h.a, &mut e);
                        if h.op == DualOp::Cndmask {
                            e.masks_read.push(VCC as u8);
                        }
                    }
                }
                _ => {}
            },
        }
        e.mask_write = e.mask_write.filter(|&d| real_sgpr(d));
        e
    }
}

/// The SGPRs an inline SALU form reads.
fn salu_reads(a: SSrc, b: SSrc) -> impl Iterator<Item = u8> {
    [a, b].into_iter().filter_map(|s| match s {
        SSrc::Reg(r) => Some(r & 127),
        SSrc::Imm(_) => None,
    })
}

/// Is `op` a SALU op [`Tx::salu`] emits inline?
fn salu_inline(op: SOp) -> bool {
    matches!(
        op,
        SOp::CmpEq
            | SOp::CmpLg
            | SOp::CmpGtI
            | SOp::CmpGeI
            | SOp::CmpLtI
            | SOp::CmpLeI
            | SOp::CmpGtU
            | SOp::CmpGeU
            | SOp::CmpLtU
            | SOp::CmpLeU
            | SOp::Mov
            | SOp::AddU32
            | SOp::SubU32
            | SOp::AddI32
            | SOp::SubI32
            | SOp::MinI32
            | SOp::MinU32
            | SOp::MaxI32
            | SOp::MaxU32
            | SOp::Cselect
            | SOp::And
            | SOp::Or
            | SOp::Xor
            | SOp::AndNot1
            | SOp::OrNot1
            | SOp::Lshl
            | SOp::Lshr
            | SOp::Ashr
            | SOp::MulI32
    )
}

impl Tx<'_> {
    fn load_bases(&mut self) {
        let (p, f) = (self.ptr, self.frame);
        self.sgpr = self.b.ins().load(p, mem(), f, FRAME_SGPR);
        self.vgpr = self.b.ins().load(p, mem(), f, FRAME_VGPR);
        self.scc = self.b.ins().load(p, mem(), f, FRAME_SCC);
    }

    /// Emit the block; returns how many entries run inline.
    fn block(&mut self, block: &Block) -> usize {
        let list = &block.compiled;
        let mut inlined = 0;
        let mut k = 0;
        while k < list.len() {
            let code = |kind: u32| ((k as u32) << EXIT_SHIFT) | kind;
            match list[k].fast {
                Fast::End => {
                    self.exit(code(EXIT_END));
                    return inlined + 1;
                }
                Fast::Barrier => {
                    self.exit(code(EXIT_BARRIER));
                    return inlined + 1;
                }
                Fast::Branch { cond, target } => {
                    let back = target == block.start && k + 1 == list.len();
                    self.branch(cond, code(EXIT_JUMP), back);
                    inlined += 1;
                    k += 1;
                    continue;
                }
                _ => {}
            }
            let plan = self.plan(block, k);
            if !plan.lanes.is_empty() {
                self.run(&plan);
                inlined += plan.end - k;
                k = plan.end;
                continue;
            }
            match list[k].fast {
                Fast::Salu { op, dst, a, b } if salu_inline(op) => {
                    self.salu(op, dst, a, b);
                    inlined += 1;
                }
                _ => self.callout(k as u32, code(EXIT_STOP)),
            }
            k += 1;
        }
        self.exit(EXIT_FELL);
        inlined
    }

    /// Return `code` (the registers are in memory between runs).
    fn exit(&mut self, code: u32) {
        let v = self.b.ins().iconst(types::I32, code as i64);
        self.b.ins().return_(&[v]);
    }

    /// Run entry `k` through the call-out; leave with `stop` unless it flows on.
    fn callout(&mut self, k: u32, stop: u32) {
        let f = self
            .b
            .ins()
            .load(self.ptr, mem(), self.frame, FRAME_CALLOUT);
        let kv = self.b.ins().iconst(types::I32, k as i64);
        let call = self
            .b
            .ins()
            .call_indirect(self.callout_sig, f, &[self.frame, kv]);
        let r = self.b.inst_results(call)[0];
        let (on, off) = (self.b.create_block(), self.b.create_block());
        self.b.ins().brif(r, off, &[], on, &[]);
        self.b.switch_to_block(off);
        let v = self.b.ins().iconst(types::I32, stop as i64);
        self.b.ins().return_(&[v]);
        self.b.switch_to_block(on);
        self.load_bases();
    }

    /// A branch form: leave with `taken` when its condition holds; `back`:
    /// the branch goes to the block's start, which the code follows itself
    /// while the frame's loop budget lasts.
    fn branch(&mut self, cond: Cond, taken: u32, back: bool) {
        let t = match cond {
            Cond::Always => self.b.ins().iconst(types::I32, 1),
            Cond::Scc0 => {
                let s = self.scc_read();
                self.b.ins().icmp_imm_u(IntCC::Equal, s, 0)
            }
            Cond::Scc1 => self.scc_read(),
            Cond::Vccz | Cond::Vccnz | Cond::Execz | Cond::Execnz => {
                let reg = if matches!(cond, Cond::Vccz | Cond::Vccnz) {
                    VCC
                } else {
                    EXEC
                };
                let v = self.sgpr_read(reg as u8);
                let cc = if matches!(cond, Cond::Vccz | Cond::Execz) {
                    IntCC::Equal
                } else {
                    IntCC::NotEqual
                };
                self.b.ins().icmp_imm_u(cc, v, 0)
            }
        };
        let (yes, no) = (self.b.create_block(), self.b.create_block());
        self.b.ins().brif(t, yes, &[], no, &[]);
        self.b.switch_to_block(yes);
        if back {
            let f = self.frame;
            let loops = self.b.ins().load(types::I32, mem(), f, FRAME_LOOPS);
            let budget = self.b.ins().load(types::I32, mem(), f, FRAME_LOOP_BUDGET);
            let more = self.b.ins().icmp(IntCC::UnsignedLessThan, loops, budget);
            let (again, leave) = (self.b.create_block(), self.b.create_block());
            self.b.ins().brif(more, again, &[], leave, &[]);
            self.b.switch_to_block(again);
            let loops = self.b.ins().iadd_imm_u(loops, 1);
            self.b.ins().store(mem(), loops, f, FRAME_LOOPS);
            self.b.ins().jump(self.top, &[]);
            self.b.switch_to_block(leave);
        }
        let v = self.b.ins().iconst(types::I32, taken as i64);
        self.b.ins().return_(&[v]);
        self.b.switch_to_block(no);
    }

    // Planning.

    /// The lane op of entry `c`, if it is one the translator runs in a
    /// lane-local run.
    fn lane_op(&self, block: &Block, c: &Compiled) -> Option<Lane> {
        let call = |f: LaneFn, dst: u8, mods: u8, a: VSrc, b: VSrc| {
            Some(Lane::Call { f, dst, mods, a, b })
        };
        let form = Some(Lane::Form(c.fast));
        let uniform = |s: VSrc| !matches!(s, VSrc::Vgpr(_));
        match c.fast {
            Fast::Valu { op, dst, a, b, c } => match op {
                VOp::Mov
                | VOp::AddU32
                | VOp::SubU32
                | VOp::SubrevU32
                | VOp::And
                | VOp::Or
                | VOp::Xor
                | VOp::MaxU32
                | VOp::MinU32
                | VOp::MaxI32
                | VOp::MinI32
                | VOp::MulLo
                | VOp::Add3
                | VOp::Or3
                | VOp::Xor3
                | VOp::AndOr
                | VOp::CvtF32U32 => form,
                // Cranelift's 4-lane shifts take one amount for all lanes.
                VOp::Lshlrev | VOp::Lshrrev | VOp::Ashrrev if uniform(a) => form,
                VOp::LshlOr | VOp::LshlAdd if uniform(b) => form,
                VOp::AddLshl if uniform(c) => form,
                VOp::CvtU32F32 => call(LaneFn::CvtU32F32, dst, 0, a, VSrc::Imm(0)),
                _ => None,
            },
            Fast::Cndmask { .. } => form,
            // Cranelift's 4-lane shifts serve 32-bit compares only.
            Fast::Vcmp { cmp, dst, .. } if dst as usize != EXEC && !cmp.bits16 => form,
            Fast::FmaF32 { .. } if self.fma => form,
            Fast::Fma32(f) if self.fma && f.op == Fma32Op::Fma => form,
            Fast::Fcmp(f) if f.kind == FcmpKind::F32 && f.dst as usize != EXEC => form,
            Fast::Flt(f) => {
                let helper = match f.op {
                    FltOp::Add | FltOp::Sub | FltOp::Subrev | FltOp::Mul | FltOp::Sqrt => {
                        return form;
                    }
                    FltOp::Max => LaneFn::Max,
                    FltOp::Min => LaneFn::Min,
                    FltOp::Ldexp => LaneFn::Ldexp,
                    FltOp::Rcp => LaneFn::Rcp,
                    FltOp::Rsq => LaneFn::Rsq,
                    FltOp::FrexpMant => LaneFn::FrexpMant,
                    FltOp::FrexpExp => LaneFn::FrexpExp,
                    _ => return None,
                };
                call(helper, f.dst, f.mods, f.a, f.b)
            }
            Fast::Vopd(d) => {
                let ok = |h: &Half| h.op != DualOp::Lshlrev || uniform(h.a);
                (ok(&d.x) && ok(&d.y)).then_some(Lane::Form(c.fast))
            }
            Fast::Slow => {
                let i = &block.insts[c.index as usize];
                if i.family == Family::Vopd {
                    return self.slow_dual(i);
                }
                let f = slow_unary(i)?;
                let (dst, a) = (u8::try_from(i.dst).ok()?, vsrc(i.src[0].src)?);
                match f {
                    LaneFn::CvtI32F32 | LaneFn::CvtF32I32 => Some(Lane::Unary { op: i.op, dst, a }),
                    LaneFn::Rndne if self.sse41 => Some(Lane::Unary { op: i.op, dst, a }),
                    _ => call(f, dst, 0, a, VSrc::Imm(0)),
                }
            }
            _ => None,
        }
    }

    /// A VOPD pair without a pre-resolved form, if its halves are ones
    /// [`DualHalf`] covers (a shift by a uniform amount only).
    fn slow_dual(&self, i: &Inst) -> Option<Lane> {
        if i.dpp.is_some() || i.mods != Mods::default() {
            return None;
        }
        let y = i.dual?;
        let x = DualHalf::new(i.op, u8::try_from(i.dst).ok()?, i.src[0].src, i.src[1].src)?;
        let y = DualHalf::new(y.op, y.dst, y.src0.src, vgpr_src(y.vsrc1).src)?;
        let ok = |h: &DualHalf| match h {
            DualHalf::Op(h) => h.op != DualOp::Lshlrev || !matches!(h.a, VSrc::Vgpr(_)),
            DualHalf::Fmac { .. } => self.fma,
        };
        (ok(&x) && ok(&y)).then_some(Lane::Dual { x, y })
    }

    /// The lane-local run that starts at entry `start` (no lane op: none).
    fn plan(&self, block: &Block, start: usize) -> Plan {
        let mut p = Plan::default();
        p.uniform.insert(EXEC as u8);
        let (mut sal_reads, mut sal_writes) = (BTreeSet::new(), BTreeSet::new());
        let mut k = start;
        while k < block.compiled.len() {
            let c = &block.compiled[k];
            if let Some(l) = self.lane_op(block, c) {
                let e = l.effects();
                // A uniform read must not see a value the run or a deferred
                // SALU op produces; a mask read must not see a deferred
                // write; a mask write must not be seen by a deferred read
                // or be overwritten by a deferred write.
                let uniform_ok = e
                    .uniform
                    .iter()
                    .all(|r| !p.masks_out.contains(r) && !sal_writes.contains(r));
                let masks_ok = e.masks_read.iter().all(|r| !sal_writes.contains(r));
                let write_ok = e
                    .mask_write
                    .is_none_or(|d| !sal_reads.contains(&d) && !sal_writes.contains(&d));
                if !(uniform_ok && masks_ok && write_ok) {
                    break;
                }
                p.uniform.extend(e.uniform.iter().copied());
                for r in e.masks_read {
                    if !p.masks_out.contains(&r) {
                        p.masks_in.insert(r);
                    }
                }
                if let Some(d) = e.mask_write
                    && !p.masks_out.contains(&d)
                {
                    p.masks_out.push(d);
                }
                p.lanes.push(l);
            } else if let Fast::Salu { op, dst, a, b } = c.fast
                && salu_inline(op)
                && !p.lanes.is_empty()
                && dst as usize != EXEC
            {
                // Every later lane op reads EXEC, so a write of it ends the run.
                sal_reads.extend(salu_reads(a, b));
                if real_sgpr(dst) {
                    sal_writes.insert(dst);
                }
                p.deferred.push(c.fast);
            } else {
                break;
            }
            k += 1;
        }
        p.end = k;
        p
    }

    // Runs.

    /// Emit a lane-local run: EXEC and the uniform values, then the chunks
    /// (without blends when EXEC is all ones), the masks, the deferred SALU.
    fn run(&mut self, p: &Plan) {
        let uniform: BTreeMap<u8, Value> =
            p.uniform.iter().map(|&r| (r, self.sgpr_read(r))).collect();
        let masks_in: BTreeMap<u8, Value> =
            p.masks_in.iter().map(|&r| (r, self.sgpr_read(r))).collect();
        let exec = uniform[&(EXEC as u8)];
        let full = self.b.ins().icmp_imm_u(IntCC::Equal, exec, u32::MAX as i64);
        let (all, some, done) = (
            self.b.create_block(),
            self.b.create_block(),
            self.b.create_block(),
        );
        for _ in &p.masks_out {
            self.b.append_block_param(done, types::I32);
        }
        self.b.ins().brif(full, all, &[], some, &[]);
        for (blk, masked) in [(all, false), (some, true)] {
            self.b.switch_to_block(blk);
            let out = self.chunks(p, masked, &uniform, &masks_in);
            let args: Vec<ir::BlockArg> = out.into_iter().map(ir::BlockArg::Value).collect();
            self.b.ins().jump(done, &args);
        }
        self.b.switch_to_block(done);
        let out = self.b.block_params(done).to_vec();
        for (&d, v) in p.masks_out.iter().zip(out) {
            self.sgpr_write(d, v);
        }
        for f in &p.deferred {
            if let Fast::Salu { op, dst, a, b } = *f {
                self.salu(op, dst, a, b);
            }
        }
    }

    /// The chunk loop of a run; returns the masks it writes.
    fn chunks(
        &mut self,
        p: &Plan,
        masked: bool,
        uniform: &BTreeMap<u8, Value>,
        masks_in: &BTreeMap<u8, Value>,
    ) -> Vec<Value> {
        let head = self.b.create_block();
        let exit = self.b.create_block();
        self.b.append_block_param(head, types::I32);
        for _ in &p.masks_out {
            self.b.append_block_param(head, types::I32);
            self.b.append_block_param(exit, types::I32);
        }
        let zero = self.b.ins().iconst(types::I32, 0);
        let args = vec![ir::BlockArg::Value(zero); p.masks_out.len() + 1];
        self.b.ins().jump(head, &args);
        self.b.switch_to_block(head);
        let params = self.b.block_params(head).to_vec();
        let (index, mut acc) = (params[0], params[1..].to_vec());
        self.chunk(p, masked, index, uniform, masks_in, &mut acc);
        let next = self.b.ins().iadd_imm_u(index, 1);
        let more = self
            .b
            .ins()
            .icmp_imm_u(IntCC::UnsignedLessThan, next, CHUNKS);
        let mut again = vec![ir::BlockArg::Value(next)];
        again.extend(acc.iter().map(|&v| ir::BlockArg::Value(v)));
        let out: Vec<ir::BlockArg> = acc.iter().map(|&v| ir::BlockArg::Value(v)).collect();
        self.b.ins().brif(more, head, &again, exit, &out);
        self.b.switch_to_block(exit);
        self.b.block_params(exit).to_vec()
    }

    /// One chunk (`index` 0..8) of a run: loads, the lane ops, the blended
    /// stores, and the chunk's mask bits or'ed into `acc`.
    fn chunk(
        &mut self,
        p: &Plan,
        masked: bool,
        index: Value,
        uniform: &BTreeMap<u8, Value>,
        masks_in: &BTreeMap<u8, Value>,
        acc: &mut [Value],
    ) {
        let off = self.b.ins().ishl_imm_u(index, 4);
        let off = self.b.ins().uextend(self.ptr, off);
        let base = self.b.ins().iadd(self.vgpr, off);
        let shift = self.b.ins().ishl_imm_u(index, 2);
        self.chunk = Some(Chunk {
            base,
            shift,
            rows: BTreeMap::new(),
            masks: BTreeMap::new(),
            uniform: uniform.clone(),
            masks_in: masks_in.clone(),
        });
        for l in &p.lanes {
            self.lane(l);
        }
        let exec = uniform[&(EXEC as u8)];
        let ebits = if masked {
            let e = self.b.ins().ushr(exec, shift);
            Some(self.b.ins().band_imm_u(e, 15))
        } else {
            None
        };
        let emask = ebits.map(|_| self.mask_of(exec));
        let rows: Vec<(u8, Value, Option<Value>)> = self
            .cx()
            .rows
            .iter()
            .filter(|(_, r)| r.dirty)
            .map(|(&k, r)| (k, r.cur, r.orig))
            .collect();
        for (r, cur, orig) in rows {
            let v = match emask {
                Some(m) => {
                    let old = orig.unwrap_or_else(|| self.load_row(base, r));
                    self.b.ins().bitselect(m, cur, old)
                }
                None => cur,
            };
            self.b.ins().store(mem(), v, base, r as i32 * ROW_BYTES);
        }
        for (slot, &d) in acc.iter_mut().zip(&p.masks_out) {
            let m = self.cx().masks[&d];
            let mut bits = self.b.ins().vhigh_bits(types::I32, m);
            if let Some(e) = ebits {
                bits = self.b.ins().band(bits, e);
            }
            let bits = self.b.ins().ishl(bits, shift);
            *slot = self.b.ins().bor(*slot, bits);
        }
        self.chunk = None;
    }

    fn cx(&mut self) -> &mut Chunk {
        self.chunk.as_mut().expect("inside a run")
    }

    fn load_row(&mut self, base: Value, r: u8) -> Value {
        self.b
            .ins()
            .load(types::I32X4, mem(), base, r as i32 * ROW_BYTES)
    }

    /// VGPR `r`'s chunk (loaded at its first read).
    fn row(&mut self, r: u8) -> Value {
        if let Some(row) = self.cx().rows.get(&r) {
            return row.cur;
        }
        let base = self.cx().base;
        let v = self.load_row(base, r);
        self.cx().rows.insert(
            r,
            ChunkRow {
                cur: v,
                orig: Some(v),
                dirty: false,
            },
        );
        v
    }

    /// Set VGPR `r`'s chunk (stored, blended, after the run's last op).
    fn set_row(&mut self, r: u8, v: Value) {
        let cx = self.cx();
        match cx.rows.get_mut(&r) {
            Some(row) => {
                row.cur = v;
                row.dirty = true;
            }
            None => {
                cx.rows.insert(
                    r,
                    ChunkRow {
                        cur: v,
                        orig: None,
                        dirty: true,
                    },
                );
            }
        }
    }

    /// A uniform SGPR's value (loaded before the chunks).
    fn uniform(&mut self, r: u8) -> Value {
        self.cx().uniform[&r]
    }

    /// A source's chunk: a VGPR's, or a uniform value splatted.
    fn src(&mut self, s: VSrc) -> Value {
        match s {
            VSrc::Vgpr(r) => self.row(r),
            VSrc::Sgpr(r) => {
                let x = self.uniform(r);
                self.b.ins().splat(types::I32X4, x)
            }
            VSrc::Imm(v) => self.splat(v),
        }
    }

    /// A uniform source as a scalar (None for a VGPR).
    fn scalar(&mut self, s: VSrc) -> Option<Value> {
        match s {
            VSrc::Vgpr(_) => None,
            VSrc::Sgpr(r) => Some(self.uniform(r)),
            VSrc::Imm(v) => Some(self.imm(v)),
        }
    }

    fn vconst(&mut self, lanes: [u32; 4]) -> Value {
        let bytes: Vec<u8> = lanes.iter().flat_map(|l| l.to_le_bytes()).collect();
        let c = self.b.func.dfg.constants.insert(ConstantData::from(bytes));
        self.b.ins().vconst(types::I32X4, c)
    }

    fn splat(&mut self, v: u32) -> Value {
        self.vconst([v; 4])
    }

    /// The chunk's lanes of the 32-bit lane mask `bits`: all ones where set.
    fn mask_of(&mut self, bits: Value) -> Value {
        let shift = self.cx().shift;
        let m = self.b.ins().ushr(bits, shift);
        let m = self.b.ins().splat(types::I32X4, m);
        let lane_bits = self.vconst([1, 2, 4, 8]);
        let hit = self.b.ins().band(m, lane_bits);
        let zero = self.splat(0);
        self.b.ins().icmp(IntCC::NotEqual, hit, zero)
    }

    /// The chunk's lane mask of SGPR mask `s` (a run's own write, or the
    /// value before the run).
    fn mask_src(&mut self, s: SSrc) -> Value {
        match s {
            SSrc::Reg(r) => {
                if let Some(&m) = self.cx().masks.get(&r) {
                    return m;
                }
                let bits = self.cx().masks_in[&r];
                let m = self.mask_of(bits);
                self.cx().masks.insert(r, m);
                m
            }
            SSrc::Imm(v) => {
                let bits = self.imm(v);
                self.mask_of(bits)
            }
        }
    }

    /// A compare's lanes (all ones where it holds) as mask `dst`'s chunk.
    fn set_mask(&mut self, dst: u8, hits: Value) {
        if real_sgpr(dst) {
            self.cx().masks.insert(dst, hits);
        }
    }

    // Scalar registers outside runs.

    fn sgpr_read(&mut self, r: u8) -> Value {
        let off = 4 * (r as i32 & 127);
        self.b.ins().load(types::I32, mem(), self.sgpr, off)
    }

    /// `Wave::set_sgpr` of a pre-resolved code (below 128; null drops).
    fn sgpr_write(&mut self, r: u8, v: Value) {
        if !real_sgpr(r) {
            return;
        }
        self.b.ins().store(mem(), v, self.sgpr, 4 * r as i32);
    }

    /// SCC as an i8 0 or 1.
    fn scc_read(&mut self) -> Value {
        self.b.ins().load(types::I8, mem(), self.scc, 0)
    }

    /// Store an i8 0/1 (a compare's result) as SCC.
    fn scc_write(&mut self, v: Value) {
        self.b.ins().store(mem(), v, self.scc, 0);
    }

    fn imm(&mut self, v: u32) -> Value {
        self.b.ins().iconst(types::I32, v as i32 as i64)
    }

    fn sread(&mut self, s: SSrc) -> Value {
        match s {
            SSrc::Reg(r) => self.sgpr_read(r),
            SSrc::Imm(v) => self.imm(v),
        }
    }

    fn salu(&mut self, op: SOp, dst: u8, a: SSrc, b: SSrc) {
        use IntCC::*;
        let compare = match op {
            SOp::CmpEq => Some(Equal),
            SOp::CmpLg => Some(NotEqual),
            SOp::CmpGtI => Some(SignedGreaterThan),
            SOp::CmpGeI => Some(SignedGreaterThanOrEqual),
            SOp::CmpLtI => Some(SignedLessThan),
            SOp::CmpLeI => Some(SignedLessThanOrEqual),
            SOp::CmpGtU => Some(UnsignedGreaterThan),
            SOp::CmpGeU => Some(UnsignedGreaterThanOrEqual),
            SOp::CmpLtU => Some(UnsignedLessThan),
            SOp::CmpLeU => Some(UnsignedLessThanOrEqual),
            _ => None,
        };
        let (x, y) = (self.sread(a), self.sread(b));
        if let Some(cc) = compare {
            let s = self.b.ins().icmp(cc, x, y);
            self.scc_write(s);
            return;
        }
        // (result, SCC as i8; None: result != 0, as salu/mod.rs's sop32).
        let (r, scc): (Value, Option<Value>) = match op {
            SOp::Mov => (x, Some(self.scc_read())),
            SOp::AddU32 => {
                let r = self.b.ins().iadd(x, y);
                (r, Some(self.b.ins().icmp(UnsignedLessThan, r, x)))
            }
            SOp::SubU32 => {
                let r = self.b.ins().isub(x, y);
                (r, Some(self.b.ins().icmp(UnsignedLessThan, x, y)))
            }
            SOp::AddI32 => {
                let (r, o) = self.b.ins().sadd_overflow(x, y);
                (r, Some(o))
            }
            SOp::SubI32 => {
                let (r, o) = self.b.ins().ssub_overflow(x, y);
                (r, Some(o))
            }
            SOp::MinI32 => (
                self.b.ins().smin(x, y),
                Some(self.b.ins().icmp(SignedLessThan, x, y)),
            ),
            SOp::MinU32 => (
                self.b.ins().umin(x, y),
                Some(self.b.ins().icmp(UnsignedLessThan, x, y)),
            ),
            SOp::MaxI32 => (
                self.b.ins().smax(x, y),
                Some(self.b.ins().icmp(SignedGreaterThan, x, y)),
            ),
            SOp::MaxU32 => (
                self.b.ins().umax(x, y),
                Some(self.b.ins().icmp(UnsignedGreaterThan, x, y)),
            ),
            SOp::Cselect => {
                let s = self.scc_read();
                (self.b.ins().select(s, x, y), Some(s))
            }
            SOp::And => (self.b.ins().band(x, y), None),
            SOp::Or => (self.b.ins().bor(x, y), None),
            SOp::Xor => (self.b.ins().bxor(x, y), None),
            SOp::AndNot1 => (self.b.ins().band_not(x, y), None),
            SOp::OrNot1 => (self.b.ins().bor_not(x, y), None),
            // Cranelift masks a 32-bit shift amount to 5 bits, as `b & 31`.
            SOp::Lshl => (self.b.ins().ishl(x, y), None),
            SOp::Lshr => (self.b.ins().ushr(x, y), None),
            SOp::Ashr => (self.b.ins().sshr(x, y), None),
            _ => (self.b.ins().imul(x, y), Some(self.scc_read())),
        };
        let scc = match scc {
            Some(s) => s,
            None => self.b.ins().icmp_imm_u(NotEqual, r, 0),
        };
        self.scc_write(scc);
        self.sgpr_write(dst, r);
    }

    // Lane ops on one chunk.

    fn lane(&mut self, l: &Lane) {
        match *l {
            Lane::Call { f, dst, mods, a, b } => {
                let x = self.src(a);
                let x = self.modify(mods, 0, x);
                let r = if f.binary() {
                    let y = self.src(b);
                    // v_ldexp's exponent is a raw integer (no modifiers).
                    let y = if f == LaneFn::Ldexp {
                        y
                    } else {
                        self.modify(mods, 1, y)
                    };
                    self.call_lane(f, &[x, y])
                } else {
                    self.call_lane(f, &[x])
                };
                self.set_row(dst, r);
            }
            Lane::Form(f) => self.form(&f),
            Lane::Unary { op, dst, a } => {
                let x = self.src(a);
                let r = self.unary(op, x);
                self.set_row(dst, r);
            }
            Lane::Dual { x, y } => {
                let rx = self.dual_half(&x);
                let ry = self.dual_half(&y);
                self.set_row(x.dst(), rx);
                self.set_row(y.dst(), ry);
            }
        }
    }

    /// One [`DualHalf`]'s result on the chunk (nothing written).
    fn dual_half(&mut self, h: &DualHalf) -> Value {
        match *h {
            DualHalf::Op(ref h) => self.half(h),
            DualHalf::Fmac { dst, a, b } => {
                // valu/mod.rs half_compute: fma_lanes(a, b, dst).
                let (x, y, z) = (self.src(a), self.row(b), self.row(dst));
                self.fma3([a, VSrc::Vgpr(b), VSrc::Vgpr(dst)], x, y, z)
            }
        }
    }

    /// The VOP1 ops [`Lane::Unary`] covers, on one chunk.
    fn unary(&mut self, op: Op, x: Value) -> Value {
        match op {
            // Rust's `f32 as i32` saturates and takes NaN to 0, as
            // Cranelift's saturating conversion (valu/mod.rs `cvt_i32`).
            Op::VCvtI32F32 => {
                let f = self.f32_lanes(x);
                self.b.ins().fcvt_to_sint_sat(types::I32X4, f)
            }
            Op::VCvtF32I32 => {
                let r = self.b.ins().fcvt_from_sint(types::F32X4, x);
                self.bits_lanes(r)
            }
            _ => {
                // round_even32 (valu/mod.rs): ties to even, the sign of
                // zero kept, a NaN returned as it is (roundps quiets it).
                let f = self.f32_lanes(x);
                let r = self.b.ins().nearest(f);
                let r = self.bits_lanes(r);
                let nan = self.b.ins().fcmp(FloatCC::Unordered, f, f);
                self.b.ins().bitselect(nan, x, r)
            }
        }
    }

    /// Lane function `f` on the chunk values `args` (one or two): inline
    /// code where lane_inline.rs has it, else a call of its helper.
    fn call_lane(&mut self, f: LaneFn, args: &[Value]) -> Value {
        if let Some(r) = lane_inline::emit(&mut self.b, f, args[0], args[args.len() - 1], self.fma)
        {
            return r;
        }
        for (k, &v) in args.iter().enumerate() {
            self.b
                .ins()
                .stack_store(self.ptr, v, self.lane_slot, 16 * k as i32);
        }
        let io = self.b.ins().stack_addr(self.ptr, self.lane_slot, 0);
        let addr = self.b.ins().iconst(self.ptr, f.address() as i64);
        self.b.ins().call_indirect(self.lane_sig, addr, &[io]);
        self.b
            .ins()
            .stack_load(self.ptr, types::I32X4, self.lane_slot, 0)
    }

    fn form(&mut self, f: &Fast) {
        match *f {
            Fast::Valu { op, dst, a, b, c } => self.valu(op, dst, a, b, c),
            Fast::Cndmask { dst, a, b, mask } => {
                let take = self.mask_src(mask);
                let (x, y) = (self.src(a), self.src(b));
                let r = self.b.ins().bitselect(take, y, x);
                self.set_row(dst, r);
            }
            Fast::Vcmp { cmp, dst, a, b } => {
                let cc = match (cmp.cond, cmp.signed) {
                    (1, true) => IntCC::SignedLessThan,
                    (1, false) => IntCC::UnsignedLessThan,
                    (2, _) => IntCC::Equal,
                    (3, true) => IntCC::SignedLessThanOrEqual,
                    (3, false) => IntCC::UnsignedLessThanOrEqual,
                    (4, true) => IntCC::SignedGreaterThan,
                    (4, false) => IntCC::UnsignedGreaterThan,
                    (5, _) => IntCC::NotEqual,
                    (_, true) => IntCC::SignedGreaterThanOrEqual,
                    (_, false) => IntCC::UnsignedGreaterThanOrEqual,
                };
                let (x, y) = (self.src(a), self.src(b));
                let hits = self.b.ins().icmp(cc, x, y);
                self.set_mask(dst, hits);
            }
            Fast::FmaF32 { dst, a, b, c } => {
                let (x, y, z) = (self.src(a), self.src(b), self.src(c));
                let r = self.fma3([a, b, c], x, y, z);
                self.set_row(dst, r);
            }
            Fast::Flt(ref f) => self.flt(f),
            Fast::Fma32(ref f) => self.fma32(f),
            Fast::Fcmp(ref c) => self.fcmp(c),
            Fast::Vopd(ref v) => {
                let x = self.half(&v.x);
                let y = self.half(&v.y);
                self.set_row(v.x.dst, x);
                self.set_row(v.y.dst, y);
            }
            ref other => unreachable!("not a lane form: {other:?}"),
        }
    }

    fn valu(&mut self, op: VOp, dst: u8, a: VSrc, b: VSrc, c: VSrc) {
        let r = match op {
            VOp::Mov => self.src(a),
            VOp::AddU32
            | VOp::SubU32
            | VOp::SubrevU32
            | VOp::And
            | VOp::Or
            | VOp::Xor
            | VOp::MaxU32
            | VOp::MinU32
            | VOp::MaxI32
            | VOp::MinI32
            | VOp::MulLo => {
                let (x, y) = (self.src(a), self.src(b));
                let i = self.b.ins();
                match op {
                    VOp::AddU32 => i.iadd(x, y),
                    VOp::SubU32 => i.isub(x, y),
                    VOp::SubrevU32 => i.isub(y, x),
                    VOp::And => i.band(x, y),
                    VOp::Or => i.bor(x, y),
                    VOp::Xor => i.bxor(x, y),
                    VOp::MaxU32 => i.umax(x, y),
                    VOp::MinU32 => i.umin(x, y),
                    VOp::MaxI32 => i.smax(x, y),
                    VOp::MinI32 => i.smin(x, y),
                    _ => i.imul(x, y),
                }
            }
            VOp::Lshlrev | VOp::Lshrrev | VOp::Ashrrev => {
                let n = self.scalar(a).expect("a uniform shift amount");
                let y = self.src(b);
                match op {
                    VOp::Lshlrev => self.b.ins().ishl(y, n),
                    VOp::Lshrrev => self.b.ins().ushr(y, n),
                    _ => self.b.ins().sshr(y, n),
                }
            }
            VOp::Add3 | VOp::Or3 | VOp::Xor3 | VOp::AndOr => {
                let (x, y, z) = (self.src(a), self.src(b), self.src(c));
                let i = self.b.ins();
                let xy = match op {
                    VOp::Add3 => i.iadd(x, y),
                    VOp::Or3 => i.bor(x, y),
                    VOp::Xor3 => i.bxor(x, y),
                    _ => i.band(x, y),
                };
                let i = self.b.ins();
                match op {
                    VOp::Add3 => i.iadd(xy, z),
                    VOp::Xor3 => i.bxor(xy, z),
                    _ => i.bor(xy, z),
                }
            }
            VOp::LshlOr | VOp::LshlAdd => {
                let n = self.scalar(b).expect("a uniform shift amount");
                let (x, z) = (self.src(a), self.src(c));
                let s = self.b.ins().ishl(x, n);
                if op == VOp::LshlOr {
                    self.b.ins().bor(s, z)
                } else {
                    self.b.ins().iadd(s, z)
                }
            }
            VOp::AddLshl => {
                let n = self.scalar(c).expect("a uniform shift amount");
                let (x, y) = (self.src(a), self.src(b));
                let s = self.b.ins().iadd(x, y);
                self.b.ins().ishl(s, n)
            }
            VOp::CvtF32U32 => {
                // Cranelift's unsigned conversion rounds once, to nearest
                // even, as Rust's `u32 as f32`.
                let x = self.src(a);
                let r = self.b.ins().fcvt_from_uint(types::F32X4, x);
                self.bits_lanes(r)
            }
            other => unreachable!("not a lane VALU op: {other:?}"),
        };
        self.set_row(dst, r);
    }

    // f32.

    fn f32_lanes(&mut self, v: Value) -> Value {
        self.b.ins().bitcast(types::F32X4, lanes_le(), v)
    }

    fn bits_lanes(&mut self, v: Value) -> Value {
        self.b.ins().bitcast(types::I32X4, lanes_le(), v)
    }

    /// gfxsim's NaN rule (valu/mod.rs `nan_rule!`) on a host result `r` of
    /// sources `srcs` (their bits, `kinds` their operands): where a source
    /// is a NaN, the first NaN source quieted. A NaN source makes the host
    /// result a NaN, and with one NaN source the host returns it quieted,
    /// so only the sources before the last can differ from the host's
    /// choice: the last source needs no select, nor does a constant that
    /// is not a NaN.
    fn nan_rule(&mut self, kinds: &[VSrc], srcs: &[Value], r: Value) -> Value {
        let quiet = self.splat(QUIET);
        let mut pick = r;
        let n = srcs.len();
        for k in (0..n - 1).rev() {
            if let VSrc::Imm(v) = kinds[k]
                && !f32::from_bits(v).is_nan()
            {
                continue;
            }
            let s = srcs[k];
            let f = self.f32_lanes(s);
            let nan = self.b.ins().fcmp(FloatCC::Unordered, f, f);
            let q = self.b.ins().bor(s, quiet);
            pick = self.b.ins().bitselect(nan, q, pick);
        }
        pick
    }

    /// v_fma_f32 on one chunk: the fused result, then the NaN rule.
    fn fma3(&mut self, kinds: [VSrc; 3], x: Value, y: Value, z: Value) -> Value {
        let (fx, fy, fz) = (self.f32_lanes(x), self.f32_lanes(y), self.f32_lanes(z));
        let r = self.b.ins().fma(fx, fy, fz);
        let r = self.bits_lanes(r);
        self.nan_rule(&kinds, &[x, y, z], r)
    }

    /// `x` with source `k`'s abs (bit k of `mods`) and neg (bit 4 + k) applied.
    fn modify(&mut self, mods: u8, k: usize, x: Value) -> Value {
        let abs = mods >> k & 1 != 0;
        let neg = mods >> (4 + k) & 1 != 0;
        let x = if abs {
            let m = self.splat(0x7FFF_FFFF);
            self.b.ins().band(x, m)
        } else {
            x
        };
        if neg {
            let m = self.splat(0x8000_0000);
            self.b.ins().bxor(x, m)
        } else {
            x
        }
    }

    /// f32 add/sub/subrev/mul or sqrt with abs/neg (abs and neg keep a
    /// constant that is not a NaN one that is not a NaN, for `nan_rule`).
    fn flt(&mut self, f: &Flt) {
        let x = self.src(f.a);
        let x = self.modify(f.mods, 0, x);
        if f.op == FltOp::Sqrt {
            // The interpreter's f32::sqrt is the host's correctly rounded
            // square root (sqrtss), as Cranelift's (sqrtps), NaN included.
            let p = self.f32_lanes(x);
            let r = self.b.ins().sqrt(p);
            let r = self.bits_lanes(r);
            self.set_row(f.dst, r);
            return;
        }
        let y = self.src(f.b);
        let y = self.modify(f.mods, 1, y);
        let (p, q) = (self.f32_lanes(x), self.f32_lanes(y));
        let r = match f.op {
            FltOp::Add => self.b.ins().fadd(p, q),
            FltOp::Sub => self.b.ins().fsub(p, q),
            FltOp::Subrev => self.b.ins().fsub(q, p),
            _ => self.b.ins().fmul(p, q),
        };
        let r = self.bits_lanes(r);
        // Sub is the plain host subtraction in the interpreter (x86 returns
        // its first NaN operand, quieted: the rule's own choice).
        let r = if f.op == FltOp::Sub {
            r
        } else {
            self.nan_rule(&[f.a, f.b], &[x, y], r)
        };
        self.set_row(f.dst, r);
    }

    /// v_fma_f32 with abs/neg (the division helpers are call-outs).
    fn fma32(&mut self, f: &Fma32) {
        let [a, b, c] = f.src;
        let x = self.src(a);
        let x = self.modify(f.mods, 0, x);
        let y = self.src(b);
        let y = self.modify(f.mods, 1, y);
        let z = self.src(c);
        let z = self.modify(f.mods, 2, z);
        let r = self.fma3(f.src, x, y, z);
        self.set_row(f.dst, r);
    }

    /// An f32 compare: the relations of `cond` (1 less, 2 equal, 4
    /// greater, 8 unordered) that hold, per lane.
    fn fcmp(&mut self, c: &Fcmp) {
        let src = |tx: &mut Self, s: S64, k: usize| {
            let x = match s {
                S64::Vgpr(r) => tx.row(r),
                S64::Sgpr(r) => tx.src(VSrc::Sgpr(r)),
                S64::Lo(v) => tx.src(VSrc::Imm(v)),
                S64::Hi(_) => tx.src(VSrc::Imm(0)),
            };
            tx.modify(c.mods, k, x)
        };
        let (x, y) = (src(self, c.a, 0), src(self, c.b, 1));
        let (p, q) = (self.f32_lanes(x), self.f32_lanes(y));
        let relations = [
            (1, FloatCC::LessThan),
            (2, FloatCC::Equal),
            (4, FloatCC::GreaterThan),
            (8, FloatCC::Unordered),
        ];
        let mut hit = self.splat(0);
        for (bit, cc) in relations {
            if c.cond & bit != 0 {
                let h = self.b.ins().fcmp(cc, p, q);
                hit = self.b.ins().bor(hit, h);
            }
        }
        self.set_mask(c.dst, hit);
    }

    /// One VOPD half's result on the chunk (nothing written).
    fn half(&mut self, h: &Half) -> Value {
        if h.op == DualOp::Lshlrev {
            let n = self.scalar(h.a).expect("a uniform shift amount");
            let b = self.row(h.b);
            return self.b.ins().ishl(b, n);
        }
        let (a, b) = (self.src(h.a), self.row(h.b));
        match h.op {
            DualOp::Mov => a,
            DualOp::Cndmask => {
                let take = self.mask_src(SSrc::Reg(VCC as u8));
                self.b.ins().bitselect(take, b, a)
            }
            DualOp::Add => self.b.ins().iadd(a, b),
            DualOp::And => self.b.ins().band(a, b),
            DualOp::MaxF32 => self.call_lane(LaneFn::Max, &[a, b]),
            DualOp::MinF32 => self.call_lane(LaneFn::Min, &[a, b]),
            _ => {
                let (p, q) = (self.f32_lanes(a), self.f32_lanes(b));
                let r = match h.op {
                    DualOp::MulF32 => self.b.ins().fmul(p, q),
                    DualOp::AddF32 => self.b.ins().fadd(p, q),
                    DualOp::SubF32 => self.b.ins().fsub(p, q),
                    _ => self.b.ins().fsub(q, p),
                };
                let r = self.bits_lanes(r);
                if h.op == DualOp::SubF32 {
                    r
                } else {
                    self.nan_rule(&[h.a, VSrc::Vgpr(h.b)], &[a, b], r)
                }
            }
        }
    }
}
