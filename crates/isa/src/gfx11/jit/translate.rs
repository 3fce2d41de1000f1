//! One decoded block's wave32 list to a Cranelift function
//! ([`translate`]): inline code over the 32 lanes for the forms listed in
//! [`Tx::inline`], a call-out for every other entry (jit/mod.rs says why
//! the results are the interpreter's bit for bit).
//!
//! A 32-lane row is eight 4-lane vectors (`i32x4`: what Cranelift's x86-64
//! back end offers; AVX encodings where the host has them).

use std::collections::BTreeMap;
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
    FRAME_SCC, FRAME_SGPR, FRAME_VGPR,
};
use super::code_memory::CodeMemory;
use crate::gfx11::code_cache::Block;
use crate::gfx11::exec::fast::{Cond, Fast};
use crate::gfx11::exec::operand::{SSrc, VSrc};
use crate::gfx11::exec::salu::SOp;
use crate::gfx11::exec::valu::fast::VOp;
use crate::gfx11::exec::valu::fast_f32::{Flt, FltOp};
use crate::gfx11::exec::valu::fast_f64::S64;
use crate::gfx11::exec::valu::fast_fma32::{Fma32, Fma32Op};
use crate::gfx11::exec::valu::fast_vcmp::{Fcmp, FcmpKind};
use crate::gfx11::exec::valu::fast_vopd::{DualOp, Half, Vopd};
use crate::gfx11::wave::{EXEC, LANES, NULL, VCC};

/// 4-lane groups per 32-lane row.
const GROUPS: usize = LANES / 4;
/// Bytes per VGPR row.
const ROW_BYTES: i32 = 4 * LANES as i32;

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

/// A translated block: its machine code and entry point.
#[derive(Debug)]
pub(crate) struct Translation {
    _memory: CodeMemory,
    func: BlockFn,
    /// Entries of the block's list that run inline (the rest are call-outs).
    pub(crate) inlined: usize,
}

impl Translation {
    /// The entry point; valid while `self` lives.
    pub(crate) fn func(&self) -> BlockFn {
        self.func
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
        let mut callout_sig = Signature::new(call_conv);
        callout_sig.params.push(AbiParam::new(ptr));
        callout_sig.params.push(AbiParam::new(types::I32));
        callout_sig.returns.push(AbiParam::new(types::I32));
        let callout_sig = b.import_signature(callout_sig);
        let mut tx = Tx {
            b,
            ptr,
            frame,
            sgpr: frame,
            vgpr: frame,
            scc: frame,
            rows: BTreeMap::new(),
            exec: None,
            callout_sig,
            fma,
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
    Ok(Translation {
        _memory: CodeMemory::new(module),
        func,
        inlined,
    })
}

/// A VGPR row held in host registers.
struct Row {
    v: [Value; GROUPS],
    /// Changed since it was loaded: written back before the next call-out or exit.
    dirty: bool,
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
    rows: BTreeMap<u8, Row>,
    /// EXEC's value and its lane masks, per group, while known.
    exec: Option<(Value, [Value; GROUPS])>,
    callout_sig: ir::SigRef,
    /// The host has FMA (Cranelift then emits vfmadd for `fma`).
    fma: bool,
}

fn mem() -> MemFlagsData {
    MemFlagsData::new().with_notrap()
}

fn lanes_le() -> MemFlagsData {
    MemFlagsData::new().with_endianness(Endianness::Little)
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
        let mut inlined = 0;
        for (k, c) in block.compiled.iter().enumerate() {
            let code = |kind: u32| ((k as u32) << EXIT_SHIFT) | kind;
            match c.fast {
                Fast::End => {
                    self.exit(code(EXIT_END));
                    return inlined + 1;
                }
                Fast::Barrier => {
                    self.exit(code(EXIT_BARRIER));
                    return inlined + 1;
                }
                Fast::Branch { cond, .. } => {
                    self.branch(cond, code(EXIT_JUMP));
                    inlined += 1;
                }
                ref f => {
                    if self.inline(f) {
                        inlined += 1;
                    } else {
                        self.callout(k as u32, code(EXIT_STOP));
                    }
                }
            }
        }
        self.exit(EXIT_FELL);
        inlined
    }

    /// Write back the changed rows and return `code`.
    fn exit(&mut self, code: u32) {
        self.flush();
        let v = self.b.ins().iconst(types::I32, code as i64);
        self.b.ins().return_(&[v]);
    }

    fn flush(&mut self) {
        for (&r, row) in self.rows.iter_mut() {
            if row.dirty {
                for (g, &v) in row.v.iter().enumerate() {
                    let off = r as i32 * ROW_BYTES + 16 * g as i32;
                    self.b.ins().store(mem(), v, self.vgpr, off);
                }
                row.dirty = false;
            }
        }
    }

    /// Run entry `k` through the call-out; leave with `stop` unless it flows on.
    fn callout(&mut self, k: u32, stop: u32) {
        self.flush();
        self.rows.clear();
        self.exec = None;
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

    /// A branch form: leave with `taken` when its condition holds.
    fn branch(&mut self, cond: Cond, taken: u32) {
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
        self.flush();
        let (yes, no) = (self.b.create_block(), self.b.create_block());
        self.b.ins().brif(t, yes, &[], no, &[]);
        self.b.switch_to_block(yes);
        let v = self.b.ins().iconst(types::I32, taken as i64);
        self.b.ins().return_(&[v]);
        self.b.switch_to_block(no);
    }

    // Registers.

    fn sgpr_read(&mut self, r: u8) -> Value {
        let off = 4 * (r as i32 & 127);
        self.b.ins().load(types::I32, mem(), self.sgpr, off)
    }

    /// `Wave::set_sgpr` of a pre-resolved code (below 128; null drops).
    fn sgpr_write(&mut self, r: u8, v: Value) {
        if r as usize == NULL || r >= 128 {
            return;
        }
        self.b.ins().store(mem(), v, self.sgpr, 4 * r as i32);
        if r as usize == EXEC {
            self.exec = None;
        }
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

    /// A source that is the same in every lane, as a scalar (None for a VGPR).
    fn scalar(&mut self, s: VSrc) -> Option<Value> {
        match s {
            VSrc::Vgpr(_) => None,
            VSrc::Sgpr(r) => Some(self.sgpr_read(r)),
            VSrc::Imm(v) => Some(self.imm(v)),
        }
    }

    fn row(&mut self, r: u8) -> [Value; GROUPS] {
        if let Some(row) = self.rows.get(&r) {
            return row.v;
        }
        let v = std::array::from_fn(|g| {
            let off = r as i32 * ROW_BYTES + 16 * g as i32;
            self.b.ins().load(types::I32X4, mem(), self.vgpr, off)
        });
        self.rows.insert(r, Row { v, dirty: false });
        v
    }

    fn src(&mut self, s: VSrc) -> [Value; GROUPS] {
        match s {
            VSrc::Vgpr(r) => self.row(r),
            _ => {
                let x = self.scalar(s).expect("a scalar source");
                let v = self.b.ins().splat(types::I32X4, x);
                [v; GROUPS]
            }
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

    /// Per group, all ones in the lanes whose bit of `mask` is set.
    fn lane_masks(&mut self, mask: Value) -> [Value; GROUPS] {
        let m = self.b.ins().splat(types::I32X4, mask);
        let zero = self.splat(0);
        std::array::from_fn(|g| {
            let bits = self.vconst(std::array::from_fn(|l| 1u32 << (4 * g + l)));
            let hit = self.b.ins().band(m, bits);
            self.b.ins().icmp(IntCC::NotEqual, hit, zero)
        })
    }

    fn exec_masks(&mut self) -> (Value, [Value; GROUPS]) {
        if let Some(e) = self.exec {
            return e;
        }
        let exec = self.sgpr_read(EXEC as u8);
        let masks = self.lane_masks(exec);
        self.exec = Some((exec, masks));
        (exec, masks)
    }

    /// `Wave::write_vgpr` under EXEC.
    fn write_row(&mut self, dst: u8, vals: [Value; GROUPS]) {
        let (_, masks) = self.exec_masks();
        let old = self.row(dst);
        let v = std::array::from_fn(|g| self.b.ins().bitselect(masks[g], vals[g], old[g]));
        self.rows.insert(dst, Row { v, dirty: true });
    }

    /// The lane mask (i32) of per-group compare results (all ones = set).
    fn pack(&mut self, hits: [Value; GROUPS]) -> Value {
        let mut m = self.imm(0);
        for (g, h) in hits.into_iter().enumerate() {
            let bits = self.b.ins().vhigh_bits(types::I32, h);
            let bits = self.b.ins().ishl_imm_u(bits, 4 * g as i64);
            m = self.b.ins().bor(m, bits);
        }
        m
    }

    fn map2(
        &mut self,
        x: [Value; GROUPS],
        y: [Value; GROUPS],
        f: impl Fn(&mut FunctionBuilder, Value, Value) -> Value,
    ) -> [Value; GROUPS] {
        std::array::from_fn(|g| f(&mut self.b, x[g], y[g]))
    }

    fn map1(
        &mut self,
        x: [Value; GROUPS],
        f: impl Fn(&mut FunctionBuilder, Value) -> Value,
    ) -> [Value; GROUPS] {
        std::array::from_fn(|g| f(&mut self.b, x[g]))
    }

    // The inline forms.

    /// Emit `f` inline if it is one of the forms translated inline.
    fn inline(&mut self, f: &Fast) -> bool {
        match *f {
            Fast::Salu { op, dst, a, b } => self.salu(op, dst, a, b),
            Fast::Valu { op, dst, a, b, c } => self.valu(op, dst, a, b, c),
            Fast::Cndmask { dst, a, b, mask } => {
                let m = self.sread(mask);
                let take = self.lane_masks(m);
                let (x, y) = (self.src(a), self.src(b));
                let r = std::array::from_fn(|g| self.b.ins().bitselect(take[g], y[g], x[g]));
                self.write_row(dst, r);
                true
            }
            Fast::Vcmp {
                cond,
                signed,
                dst,
                a,
                b,
            } => {
                let cc = match (cond, signed) {
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
                let hits = self.map2(x, y, |b, p, q| b.ins().icmp(cc, p, q));
                let m = self.pack(hits);
                let (exec, _) = self.exec_masks();
                let m = self.b.ins().band(m, exec);
                self.sgpr_write(dst, m);
                true
            }
            Fast::FmaF32 { dst, a, b, c } if self.fma => {
                let (x, y, z) = (self.src(a), self.src(b), self.src(c));
                let r = std::array::from_fn(|g| self.fma3(x[g], y[g], z[g]));
                self.write_row(dst, r);
                true
            }
            Fast::Flt(ref f) => self.flt(f),
            Fast::Fma32(ref f) if self.fma => self.fma32(f),
            Fast::Fcmp(ref c) => self.fcmp(c),
            Fast::Vopd(ref v) => self.vopd(v),
            _ => false,
        }
    }

    fn salu(&mut self, op: SOp, dst: u8, a: SSrc, b: SSrc) -> bool {
        use IntCC::*;
        let compare = |op| {
            Some(match op {
                SOp::CmpEq => Equal,
                SOp::CmpLg => NotEqual,
                SOp::CmpGtI => SignedGreaterThan,
                SOp::CmpGeI => SignedGreaterThanOrEqual,
                SOp::CmpLtI => SignedLessThan,
                SOp::CmpLeI => SignedLessThanOrEqual,
                SOp::CmpGtU => UnsignedGreaterThan,
                SOp::CmpGeU => UnsignedGreaterThanOrEqual,
                SOp::CmpLtU => UnsignedLessThan,
                SOp::CmpLeU => UnsignedLessThanOrEqual,
                _ => return None,
            })
        };
        if let Some(cc) = compare(op) {
            let (x, y) = (self.sread(a), self.sread(b));
            let s = self.b.ins().icmp(cc, x, y);
            self.scc_write(s);
            return true;
        }
        if !matches!(
            op,
            SOp::Mov
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
        ) {
            return false;
        }
        let (x, y) = (self.sread(a), self.sread(b));
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
        true
    }

    fn valu(&mut self, op: VOp, dst: u8, a: VSrc, b: VSrc, c: VSrc) -> bool {
        // Shifts by a per-lane amount have no 4-lane Cranelift form: call-outs.
        let shift = |tx: &mut Self, s: VSrc| tx.scalar(s);
        let r = match op {
            VOp::Mov => self.src(a),
            VOp::AddU32 | VOp::SubU32 | VOp::SubrevU32 | VOp::And | VOp::Or | VOp::Xor => {
                let (x, y) = (self.src(a), self.src(b));
                match op {
                    VOp::AddU32 => self.map2(x, y, |b, p, q| b.ins().iadd(p, q)),
                    VOp::SubU32 => self.map2(x, y, |b, p, q| b.ins().isub(p, q)),
                    VOp::SubrevU32 => self.map2(x, y, |b, p, q| b.ins().isub(q, p)),
                    VOp::And => self.map2(x, y, |b, p, q| b.ins().band(p, q)),
                    VOp::Or => self.map2(x, y, |b, p, q| b.ins().bor(p, q)),
                    _ => self.map2(x, y, |b, p, q| b.ins().bxor(p, q)),
                }
            }
            VOp::MaxU32 | VOp::MinU32 | VOp::MaxI32 | VOp::MinI32 | VOp::MulLo => {
                let (x, y) = (self.src(a), self.src(b));
                match op {
                    VOp::MaxU32 => self.map2(x, y, |b, p, q| b.ins().umax(p, q)),
                    VOp::MinU32 => self.map2(x, y, |b, p, q| b.ins().umin(p, q)),
                    VOp::MaxI32 => self.map2(x, y, |b, p, q| b.ins().smax(p, q)),
                    VOp::MinI32 => self.map2(x, y, |b, p, q| b.ins().smin(p, q)),
                    _ => self.map2(x, y, |b, p, q| b.ins().imul(p, q)),
                }
            }
            VOp::Lshlrev | VOp::Lshrrev | VOp::Ashrrev => {
                let Some(n) = shift(self, a) else {
                    return false;
                };
                let y = self.src(b);
                match op {
                    VOp::Lshlrev => self.map1(y, |b, p| b.ins().ishl(p, n)),
                    VOp::Lshrrev => self.map1(y, |b, p| b.ins().ushr(p, n)),
                    _ => self.map1(y, |b, p| b.ins().sshr(p, n)),
                }
            }
            VOp::Add3 | VOp::Or3 | VOp::Xor3 | VOp::AndOr => {
                let (x, y, z) = (self.src(a), self.src(b), self.src(c));
                let xy = match op {
                    VOp::Add3 => self.map2(x, y, |b, p, q| b.ins().iadd(p, q)),
                    VOp::Or3 => self.map2(x, y, |b, p, q| b.ins().bor(p, q)),
                    VOp::Xor3 => self.map2(x, y, |b, p, q| b.ins().bxor(p, q)),
                    _ => self.map2(x, y, |b, p, q| b.ins().band(p, q)),
                };
                match op {
                    VOp::Add3 => self.map2(xy, z, |b, p, q| b.ins().iadd(p, q)),
                    VOp::Xor3 => self.map2(xy, z, |b, p, q| b.ins().bxor(p, q)),
                    _ => self.map2(xy, z, |b, p, q| b.ins().bor(p, q)),
                }
            }
            VOp::LshlOr | VOp::LshlAdd => {
                let Some(n) = shift(self, b) else {
                    return false;
                };
                let (x, z) = (self.src(a), self.src(c));
                let s = self.map1(x, |b, p| b.ins().ishl(p, n));
                if op == VOp::LshlOr {
                    self.map2(s, z, |b, p, q| b.ins().bor(p, q))
                } else {
                    self.map2(s, z, |b, p, q| b.ins().iadd(p, q))
                }
            }
            VOp::AddLshl => {
                let Some(n) = shift(self, c) else {
                    return false;
                };
                let (x, y) = (self.src(a), self.src(b));
                let s = self.map2(x, y, |b, p, q| b.ins().iadd(p, q));
                self.map1(s, |b, p| b.ins().ishl(p, n))
            }
            _ => return false,
        };
        self.write_row(dst, r);
        true
    }

    // f32.

    fn to_f32(&mut self, v: Value) -> Value {
        self.b.ins().bitcast(types::F32X4, lanes_le(), v)
    }

    fn to_bits(&mut self, v: Value) -> Value {
        self.b.ins().bitcast(types::I32X4, lanes_le(), v)
    }

    /// All ones in the lanes where the f32 bits `v` are a NaN.
    fn is_nan(&mut self, v: Value) -> Value {
        let f = self.to_f32(v);
        self.b.ins().fcmp(FloatCC::Unordered, f, f)
    }

    /// gfxsim's NaN rule (valu/mod.rs `nan_rule!`) on bits: where `r` is a
    /// NaN, the first NaN source quieted, or `r` itself if none is.
    fn nan_rule(&mut self, srcs: &[Value], r: Value) -> Value {
        let quiet = self.splat(0x0040_0000);
        let mut pick = r;
        for &s in srcs.iter().rev() {
            let n = self.is_nan(s);
            let q = self.b.ins().bor(s, quiet);
            pick = self.b.ins().bitselect(n, q, pick);
        }
        let rn = self.is_nan(r);
        self.b.ins().bitselect(rn, pick, r)
    }

    /// One group of v_fma_f32: the fused result, then the NaN rule.
    fn fma3(&mut self, x: Value, y: Value, z: Value) -> Value {
        let (fx, fy, fz) = (self.to_f32(x), self.to_f32(y), self.to_f32(z));
        let r = self.b.ins().fma(fx, fy, fz);
        let r = self.to_bits(r);
        self.nan_rule(&[x, y, z], r)
    }

    /// A source of an f32 form with its abs/neg modifiers (`mods`), as bits.
    fn flt_src(&mut self, mods: u8, k: usize, s: VSrc) -> [Value; GROUPS] {
        let x = self.src(s);
        self.modify(mods, k, x)
    }

    /// `x` with source `k`'s abs (bit k of `mods`) and neg (bit 4 + k) applied.
    fn modify(&mut self, mods: u8, k: usize, x: [Value; GROUPS]) -> [Value; GROUPS] {
        let abs = mods >> k & 1 != 0;
        let neg = mods >> (4 + k) & 1 != 0;
        let x = if abs {
            let m = self.splat(0x7FFF_FFFF);
            self.map1(x, |b, p| b.ins().band(p, m))
        } else {
            x
        };
        if neg {
            let m = self.splat(0x8000_0000);
            self.map1(x, |b, p| b.ins().bxor(p, m))
        } else {
            x
        }
    }

    fn flt(&mut self, f: &Flt) -> bool {
        if f.op == FltOp::Sqrt {
            // The interpreter's f32::sqrt is the host's correctly rounded
            // square root (sqrtss), as Cranelift's (sqrtps), NaN included.
            let x = self.flt_src(f.mods, 0, f.a);
            let r = self.map1(x, |b, p| {
                let flags = lanes_le();
                let p = b.ins().bitcast(types::F32X4, flags, p);
                let r = b.ins().sqrt(p);
                b.ins().bitcast(types::I32X4, flags, r)
            });
            self.write_row(f.dst, r);
            return true;
        }
        if !matches!(f.op, FltOp::Add | FltOp::Sub | FltOp::Subrev | FltOp::Mul) {
            return false;
        }
        let (x, y) = (self.flt_src(f.mods, 0, f.a), self.flt_src(f.mods, 1, f.b));
        let r = std::array::from_fn(|g| {
            let (p, q) = (self.to_f32(x[g]), self.to_f32(y[g]));
            let r = match f.op {
                FltOp::Add => self.b.ins().fadd(p, q),
                FltOp::Sub => self.b.ins().fsub(p, q),
                FltOp::Subrev => self.b.ins().fsub(q, p),
                _ => self.b.ins().fmul(p, q),
            };
            let r = self.to_bits(r);
            // Sub is the plain host subtraction in the interpreter, whose NaN
            // is this rule's too (x86 returns its first NaN operand, quieted).
            self.nan_rule(&[x[g], y[g]], r)
        });
        self.write_row(f.dst, r);
        true
    }

    /// v_fma_f32 with abs/neg (the division helpers are call-outs).
    fn fma32(&mut self, f: &Fma32) -> bool {
        if f.op != Fma32Op::Fma {
            return false;
        }
        let [a, b, c] = f.src;
        let (x, y, z) = (
            self.flt_src(f.mods, 0, a),
            self.flt_src(f.mods, 1, b),
            self.flt_src(f.mods, 2, c),
        );
        let r = std::array::from_fn(|g| self.fma3(x[g], y[g], z[g]));
        self.write_row(f.dst, r);
        true
    }

    /// An f32 compare: the relations of `cond` (1 less, 2 equal, 4
    /// greater, 8 unordered) that hold, per lane, under EXEC.
    fn fcmp(&mut self, c: &Fcmp) -> bool {
        if c.kind != FcmpKind::F32 {
            return false;
        }
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
        let relations = [
            (1, FloatCC::LessThan),
            (2, FloatCC::Equal),
            (4, FloatCC::GreaterThan),
            (8, FloatCC::Unordered),
        ];
        let hits = std::array::from_fn(|g| {
            let (p, q) = (self.to_f32(x[g]), self.to_f32(y[g]));
            let mut hit = self.splat(0);
            for (bit, cc) in relations {
                if c.cond & bit != 0 {
                    let h = self.b.ins().fcmp(cc, p, q);
                    hit = self.b.ins().bor(hit, h);
                }
            }
            hit
        });
        let m = self.pack(hits);
        let (exec, _) = self.exec_masks();
        let m = self.b.ins().band(m, exec);
        self.sgpr_write(c.dst, m);
        true
    }

    /// A VOPD pair: both halves read, then X and Y written under EXEC.
    fn vopd(&mut self, v: &Vopd) -> bool {
        let (Some(x), Some(y)) = (self.half(&v.x), self.half(&v.y)) else {
            return false;
        };
        self.write_row(v.x.dst, x);
        self.write_row(v.y.dst, y);
        true
    }

    /// One VOPD half's result (nothing written); None: a call-out.
    fn half(&mut self, h: &Half) -> Option<[Value; GROUPS]> {
        if matches!(h.op, DualOp::MaxF32 | DualOp::MinF32) {
            return None;
        }
        if h.op == DualOp::Lshlrev {
            let n = self.scalar(h.a)?;
            let b = self.row(h.b);
            return Some(self.map1(b, |bld, p| bld.ins().ishl(p, n)));
        }
        let (a, b) = (self.src(h.a), self.row(h.b));
        Some(match h.op {
            DualOp::Mov => a,
            DualOp::Cndmask => {
                let vcc = self.sgpr_read(VCC as u8);
                let take = self.lane_masks(vcc);
                std::array::from_fn(|g| self.b.ins().bitselect(take[g], b[g], a[g]))
            }
            DualOp::Add => self.map2(a, b, |bld, p, q| bld.ins().iadd(p, q)),
            DualOp::And => self.map2(a, b, |bld, p, q| bld.ins().band(p, q)),
            _ => std::array::from_fn(|g| {
                let (p, q) = (self.to_f32(a[g]), self.to_f32(b[g]));
                let r = match h.op {
                    DualOp::MulF32 => self.b.ins().fmul(p, q),
                    DualOp::AddF32 => self.b.ins().fadd(p, q),
                    DualOp::SubF32 => self.b.ins().fsub(p, q),
                    _ => self.b.ins().fsub(q, p),
                };
                let r = self.to_bits(r);
                self.nan_rule(&[a[g], b[g]], r)
            }),
        })
    }
}
