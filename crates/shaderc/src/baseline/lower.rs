//! naga IR of one compute entry point → a baseline gfx11 program.
//!
//! One pass over the entry function, no optimisation: every expression the
//! function emits gets fresh VGPRs (a value is never overwritten, so a
//! value computed before a branch is still there after it), kernel
//! arguments and workgroup ids stay in SGPRs, and booleans are lane masks
//! in SGPRs (what `v_cmp` writes). Divergent control flow runs on EXEC: an
//! `if` saves EXEC and narrows it, a loop runs until no lane is left in it,
//! and `break`, `continue` and `return` take the current lanes out of every
//! saved mask up to the construct they leave (RDNA3 ISA guide, "Data
//! dependency resolution" and "EXEC mask" chapters describe the model).
//!
//! Semantics follow the LLVM path exactly, so the two tiers agree bit for
//! bit: the robustness rules of `emit/memory.rs` (a dynamic buffer index is
//! clamped to the last element; a store whose index is out of bounds is
//! skipped), WGSL's masked shift amounts (the VALU shifts read 5 bits),
//! saturating float→int conversions (`v_cvt_*_f32`, as LLVM lowers
//! `fptosi.sat`/`fptoui.sat`), IEEE float add, multiply and fma. Anything
//! else (integer division, float division and transcendentals, workgroup
//! memory, atomics, switch, textures, `var<uniform>`) is
//! [`Unsupported`]: the caller compiles that module with LLVM instead.

use std::collections::HashMap;

use naga::{
    BinaryOperator as B, BuiltIn, Expression, Handle, Literal, MathFunction, ScalarKind, Statement,
    TypeInner, UnaryOperator,
};

use super::asm::{Cond, Inst, Label, Sdst, Sop1, Sop2, Src, Vop};
use crate::reflect::{BindingKind, EntryReflection};

/// What the baseline compiler does not cover (the caller falls back to
/// LLVM; the text says what, for logs and tests).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Unsupported(pub &'static str);

type R<T> = Result<T, Unsupported>;

fn no<T>(what: &'static str) -> R<T> {
    Err(Unsupported(what))
}

/// Where a binding's kernel arguments lie in the kernarg segment.
#[derive(Clone, Copy, Debug)]
pub(crate) struct BindingArgs {
    pub pointer: u32,
    pub size: Option<u32>,
}

/// A lowered entry point.
#[derive(Debug)]
pub(crate) struct Lowered {
    pub program: Vec<Inst>,
    /// SGPRs used (s0 up to the highest one written or read).
    pub sgprs: u32,
    pub vgprs: u32,
    /// ENABLE_VGPR_WORKITEM_ID: 0 (x), 1 (x, y) or 2 (x, y, z).
    pub workitem_dims: u32,
}

/// Where the hardware puts the inputs the program reads (the object
/// writer's `sgpr_layout` decides).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Inputs {
    /// The kernarg segment pointer's SGPR pair.
    pub kernarg: u8,
    pub workgroup_id: [u8; 3],
    /// The first SGPR after every input.
    pub first_free: u8,
    /// The kernarg offset of the code object v5 hidden arguments, when the
    /// kernel has them (it reads `num_workgroups`).
    pub hidden: Option<u32>,
}
/// s0..s105 are the SGPRs a gfx11 wave can address (RDNA3 ISA, "SGPR
/// allocation"); VCC is s106:107.
const SGPR_LIMIT: u16 = 106;
const VGPR_LIMIT: u16 = 256;
/// Calls inlined into calls (WGSL has no recursion; this bounds the code).
const MAX_INLINE_DEPTH: usize = 8;

/// A 32-bit per-lane (or uniform) word.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Word {
    V(u8),
    S(u8),
    C(u32),
}

impl Word {
    fn src(self) -> Src {
        match self {
            Word::V(n) => Src::Vgpr(n),
            Word::S(n) => Src::Sgpr(n),
            Word::C(c) => Src::Const(c),
        }
    }
}

/// A boolean per lane.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mask {
    S(u8),
    Const(bool),
}

/// What a local variable's component lives in.
#[derive(Clone, Copy, Debug)]
enum Slot {
    V(u8),
    S(u8),
}

#[derive(Clone, Debug)]
enum Val {
    Word(Word),
    Mask(Mask),
    Vector(Vec<Val>),
    Buf(BufPtr),
    /// A pointer to (part of) a local variable: its components' slots.
    Local(Vec<Slot>),
}

/// A pointer into a storage buffer.
#[derive(Clone, Debug)]
struct BufPtr {
    binding: Handle<naga::GlobalVariable>,
    /// Constant byte offset.
    offset: u32,
    /// The element's byte offset past `offset` (clamped index × stride),
    /// and the lane mask of lanes whose index was in bounds.
    index: Option<(Word, Option<Mask>)>,
    ty: TypeInner,
}

/// A storage binding's registers.
#[derive(Clone, Copy, Debug)]
struct Binding {
    base: u8,
    /// For a binding ending in a runtime-sized array: its offset, stride,
    /// element count and last index (VGPRs computed at entry).
    runtime: Option<Runtime>,
}

#[derive(Clone, Copy, Debug)]
struct Runtime {
    offset: u32,
    len: Word,
    last: Word,
}

enum Frame {
    If {
        saved: u8,
    },
    Loop {
        entry: u8,
        cont: u8,
    },
    /// An inlined call: the lanes that entered it, and the registers of
    /// its return value.
    Call {
        entry: u8,
        result: Option<Vec<Slot>>,
    },
}

impl Frame {
    /// The SGPR holding the lanes the construct waits for.
    fn lanes(&self) -> u8 {
        match *self {
            Frame::If { saved } => saved,
            Frame::Loop { entry, .. } | Frame::Call { entry, .. } => entry,
        }
    }
}

struct Lowerer<'a> {
    module: &'a naga::Module,
    info: &'a naga::valid::ModuleInfo,
    fun: &'a naga::Function,
    finfo: &'a naga::valid::FunctionInfo,
    code: Vec<Inst>,
    next_v: u16,
    next_s: u16,
    labels: u32,
    vals: HashMap<Handle<Expression>, Val>,
    locals: HashMap<Handle<naga::LocalVariable>, Vec<Slot>>,
    bindings: HashMap<Handle<naga::GlobalVariable>, Binding>,
    /// The current function's argument values.
    args: HashMap<u32, Val>,
    frames: Vec<Frame>,
    end: Label,
    inputs: Inputs,
}

/// Lower entry point `ep_index` (whose reflection is `entry`, and whose
/// bindings' kernel arguments lie at `args`, in reflection order).
pub(crate) fn lower(
    module: &naga::Module,
    info: &naga::valid::ModuleInfo,
    ep_index: usize,
    entry: &EntryReflection,
    args: &[BindingArgs],
    inputs: Inputs,
) -> R<Lowered> {
    let ep = &module.entry_points[ep_index];
    if entry.immediates.is_some() {
        return no("var<immediate>");
    }
    if entry.workgroup_memory_size != 0 {
        return no("workgroup memory");
    }
    let mut l = Lowerer {
        module,
        info,
        fun: &ep.function,
        finfo: info.get_entry_point(ep_index),
        code: Vec::new(),
        next_v: 1,
        next_s: u16::from(inputs.first_free),
        inputs,
        labels: 1,
        vals: HashMap::new(),
        locals: HashMap::new(),
        bindings: HashMap::new(),
        args: HashMap::new(),
        frames: Vec::new(),
        end: Label(0),
    };
    let wg = ep.workgroup_size;
    let workitem_dims = if wg[2] > 1 {
        2
    } else if wg[1] > 1 {
        1
    } else {
        0
    };
    l.bind_arguments(entry, args)?;
    l.builtin_arguments(wg)?;
    l.init_locals()?;
    l.block(&ep.function.body)?;
    l.code.push(Inst::Bind(l.end));
    l.code.push(Inst::Endpgm);
    Ok(Lowered {
        program: l.code,
        sgprs: u32::from(l.next_s),
        vgprs: u32::from(l.next_v),
        workitem_dims,
    })
}

impl Lowerer<'_> {
    fn vreg(&mut self) -> R<u8> {
        if self.next_v >= VGPR_LIMIT {
            return no("more than 256 VGPRs");
        }
        self.next_v += 1;
        Ok((self.next_v - 1) as u8)
    }

    fn sreg(&mut self) -> R<u8> {
        if self.next_s >= SGPR_LIMIT {
            return no("more than 106 SGPRs");
        }
        self.next_s += 1;
        Ok((self.next_s - 1) as u8)
    }

    fn sreg_pair(&mut self) -> R<u8> {
        self.next_s += self.next_s & 1;
        let lo = self.sreg()?;
        self.sreg()?;
        Ok(lo)
    }

    fn label(&mut self) -> Label {
        self.labels += 1;
        Label(self.labels - 1)
    }

    fn inner_of(&self, h: Handle<Expression>) -> &TypeInner {
        self.finfo[h].ty.inner_with(&self.module.types)
    }

    /// A VALU operation on words; operands beyond the constant bus (two
    /// SGPR or literal reads, one literal, RDNA3 ISA "VOP3 constant bus")
    /// move to VGPRs first.
    fn vop(&mut self, op: Vop, srcs: &[Word]) -> R<Word> {
        let dst = if op.writes_mask() {
            self.sreg()?
        } else {
            self.vreg()?
        };
        self.vop_to(op, dst, srcs)?;
        Ok(if op.writes_mask() {
            Word::S(dst)
        } else {
            Word::V(dst)
        })
    }

    fn vop_to(&mut self, op: Vop, dst: u8, srcs: &[Word]) -> R<()> {
        let mut src = [Src::Const(0); 3];
        let mut bus: Vec<Src> = Vec::new();
        let mut literal: Option<u32> = None;
        for (i, w) in srcs.iter().enumerate() {
            let mut s = w.src();
            let lit_clash =
                matches!((s, literal), (Src::Const(c), Some(l)) if s.is_literal() && c != l);
            let over = s.on_constant_bus() && !bus.contains(&s) && bus.len() >= 2;
            if lit_clash || over {
                let v = self.vreg()?;
                self.code.push(Inst::Vop {
                    op: Vop::MovB32,
                    dst: v,
                    src: [s, Src::Const(0), Src::Const(0)],
                });
                s = Src::Vgpr(v);
            }
            if s.on_constant_bus() && !bus.contains(&s) {
                bus.push(s);
            }
            if let Src::Const(c) = s
                && s.is_literal()
            {
                literal = Some(c);
            }
            src[i] = s;
        }
        self.code.push(Inst::Vop { op, dst, src });
        Ok(())
    }

    /// `w` in a VGPR.
    fn in_vgpr(&mut self, w: Word) -> R<u8> {
        match w {
            Word::V(n) => Ok(n),
            _ => match self.vop(Vop::MovB32, &[w])? {
                Word::V(n) => Ok(n),
                _ => unreachable!("v_mov writes a VGPR"),
            },
        }
    }

    fn sop2(&mut self, op: Sop2, dst: Sdst, a: Src, b: Src) {
        self.code.push(Inst::Sop2 { op, dst, a, b });
    }

    fn mask_src(&self, m: Mask) -> Src {
        match m {
            Mask::S(n) => Src::Sgpr(n),
            Mask::Const(true) => Src::ExecLo,
            Mask::Const(false) => Src::Const(0),
        }
    }

    fn mask_op(&mut self, op: Sop2, a: Mask, b: Mask) -> R<Mask> {
        let d = self.sreg()?;
        let (a, b) = (self.mask_src(a), self.mask_src(b));
        self.sop2(op, Sdst::Sgpr(d), a, b);
        Ok(Mask::S(d))
    }

    fn mask_not(&mut self, m: Mask) -> R<Mask> {
        Ok(match m {
            Mask::Const(b) => Mask::Const(!b),
            Mask::S(n) => {
                let d = self.sreg()?;
                self.code.push(Inst::Sop1 {
                    op: Sop1::NotB32,
                    dst: Sdst::Sgpr(d),
                    src: Src::Sgpr(n),
                });
                Mask::S(d)
            }
        })
    }

    // ---- entry ------------------------------------------------------

    /// Load every binding's pointer and size; compute the element counts
    /// of runtime-sized arrays.
    fn bind_arguments(&mut self, entry: &EntryReflection, args: &[BindingArgs]) -> R<()> {
        let mut runtime_sizes = Vec::new();
        for (b, a) in entry.bindings.iter().zip(args) {
            if !matches!(
                b.kind,
                BindingKind::StorageRead | BindingKind::StorageReadWrite
            ) {
                return no("a binding other than a storage buffer");
            }
            let Some((handle, var)) = self.module.global_variables.iter().find(|(_, v)| {
                v.binding
                    .as_ref()
                    .is_some_and(|r| r.group == b.group && r.binding == b.binding)
            }) else {
                return no("a binding without its variable");
            };
            let base = self.sreg_pair()?;
            self.code.push(Inst::SLoad {
                dst: base,
                base: self.inputs.kernarg,
                offset: a.pointer,
                dwords: 2,
            });
            let size = match a.size {
                Some(off) => {
                    let s = self.sreg()?;
                    self.code.push(Inst::SLoad {
                        dst: s,
                        base: self.inputs.kernarg,
                        offset: off,
                        dwords: 1,
                    });
                    Some(s)
                }
                None => None,
            };
            let runtime = self.runtime_array(var.ty)?;
            if runtime.is_some() != size.is_some() {
                return no("a runtime-sized array without its size argument");
            }
            if let (Some(r), Some(s)) = (runtime, size) {
                runtime_sizes.push((handle, r, s));
            }
            self.bindings.insert(
                handle,
                Binding {
                    base,
                    runtime: None,
                },
            );
        }
        self.code.push(Inst::WaitLgkm);
        for (handle, (offset, stride), size) in runtime_sizes {
            // (size - offset) / stride, saturating, as `runtime_len` in
            // emit/memory.rs; the last index saturates at 0.
            if !stride.is_power_of_two() {
                return no("a runtime-sized array whose stride is not a power of two");
            }
            let avail = self.vop(Vop::MaxU32, &[Word::S(size), Word::C(offset)])?;
            let avail = self.vop(Vop::SubNcU32, &[avail, Word::C(offset)])?;
            let len = self.vop(Vop::LshrrevB32, &[Word::C(stride.trailing_zeros()), avail])?;
            let at_least_one = self.vop(Vop::MaxU32, &[len, Word::C(1)])?;
            let last = self.vop(Vop::SubNcU32, &[at_least_one, Word::C(1)])?;
            if let Some(b) = self.bindings.get_mut(&handle) {
                b.runtime = Some(Runtime { offset, len, last });
            }
        }
        Ok(())
    }

    /// The offset and stride of the runtime-sized array a binding of type
    /// `ty` ends in.
    fn runtime_array(&self, ty: Handle<naga::Type>) -> R<Option<(u32, u32)>> {
        Ok(match self.module.types[ty].inner {
            TypeInner::Array {
                size: naga::ArraySize::Dynamic,
                stride,
                ..
            } => Some((0, stride)),
            TypeInner::Struct { ref members, .. } => match members.last() {
                Some(last) => match self.module.types[last.ty].inner {
                    TypeInner::Array {
                        size: naga::ArraySize::Dynamic,
                        stride,
                        ..
                    } => Some((last.offset, stride)),
                    _ => None,
                },
                None => None,
            },
            _ => None,
        })
    }

    /// The values of the entry point's builtin arguments, computed with
    /// every lane active.
    fn builtin_arguments(&mut self, wg: [u32; 3]) -> R<()> {
        let packed = wg[1] > 1 || wg[2] > 1;
        let mut local: Option<[Word; 3]> = None;
        for (i, arg) in self.fun.arguments.iter().enumerate() {
            let Some(naga::Binding::BuiltIn(b)) = arg.binding else {
                return no("an entry point argument that is not a builtin");
            };
            let local_ids = |l: &mut Self| -> R<[Word; 3]> {
                if !packed {
                    return Ok([Word::V(0), Word::C(0), Word::C(0)]);
                }
                // gfx11 packs the work-item ids into v0: x in bits 0..9,
                // y in 10..19, z in 20..29 (AMDGPUUsage, "Initial Kernel
                // Execution State").
                let x = l.vop(Vop::AndB32, &[Word::C(0x3ff), Word::V(0)])?;
                let y = l.vop(Vop::BfeU32, &[Word::V(0), Word::C(10), Word::C(10)])?;
                let z = if wg[2] > 1 {
                    l.vop(Vop::BfeU32, &[Word::V(0), Word::C(20), Word::C(10)])?
                } else {
                    Word::C(0)
                };
                Ok([x, y, z])
            };
            let value = match b {
                BuiltIn::LocalInvocationId => {
                    let ids = match local {
                        Some(ids) => ids,
                        None => local_ids(self)?,
                    };
                    local = Some(ids);
                    Val::Vector(ids.iter().map(|w| Val::Word(*w)).collect())
                }
                BuiltIn::WorkGroupId => Val::Vector(
                    self.inputs
                        .workgroup_id
                        .iter()
                        .map(|&s| Val::Word(Word::S(s)))
                        .collect(),
                ),
                BuiltIn::GlobalInvocationId => {
                    let ids = match local {
                        Some(ids) => ids,
                        None => local_ids(self)?,
                    };
                    local = Some(ids);
                    let mut out = Vec::new();
                    for axis in 0..3 {
                        let base = self.vop(
                            Vop::MulLoU32,
                            &[Word::S(self.inputs.workgroup_id[axis]), Word::C(wg[axis])],
                        )?;
                        out.push(Val::Word(self.vop(Vop::AddNcU32, &[base, ids[axis]])?));
                    }
                    Val::Vector(out)
                }
                BuiltIn::LocalInvocationIndex => {
                    let ids = match local {
                        Some(ids) => ids,
                        None => local_ids(self)?,
                    };
                    local = Some(ids);
                    let yz = self.vop(Vop::MulLoU32, &[ids[2], Word::C(wg[1])])?;
                    let yz = self.vop(Vop::AddNcU32, &[yz, ids[1]])?;
                    let yz = self.vop(Vop::MulLoU32, &[yz, Word::C(wg[0])])?;
                    Val::Word(self.vop(Vop::AddNcU32, &[yz, ids[0]])?)
                }
                BuiltIn::NumWorkGroups => {
                    // hidden_block_count_x/y/z: the grid's workgroup
                    // counts (AMDGPUUsage, "Code Object V5 Metadata").
                    let Some(hidden) = self.inputs.hidden else {
                        return no("num_workgroups without the hidden arguments");
                    };
                    let mut counts = Vec::new();
                    for axis in 0..3 {
                        let s = self.sreg()?;
                        self.code.push(Inst::SLoad {
                            dst: s,
                            base: self.inputs.kernarg,
                            offset: hidden + super::object::hidden::BLOCK_COUNT[axis],
                            dwords: 1,
                        });
                        counts.push(Val::Word(Word::S(s)));
                    }
                    self.code.push(Inst::WaitLgkm);
                    Val::Vector(counts)
                }
                _ => return no("a builtin other than the invocation and workgroup ids"),
            };
            let value = match (&value, &self.module.types[arg.ty].inner) {
                (Val::Vector(_), TypeInner::Vector { .. })
                | (Val::Word(_), TypeInner::Scalar(_)) => value,
                _ => return no("a builtin argument of an unexpected type"),
            };
            self.args.insert(i as u32, value);
        }
        Ok(())
    }

    /// Registers for every local variable of the current function, set to
    /// its initial value (or zero): for the kernel with every lane active,
    /// for an inlined call with the lanes that entered it.
    fn init_locals(&mut self) -> R<()> {
        for (handle, var) in self.fun.local_variables.iter() {
            let init = match var.init {
                Some(e) => self.constant_of(&self.fun.expressions, e)?,
                None => self.zero(var.ty)?,
            };
            let slots = self.slots_for(&init)?;
            self.locals.insert(handle, slots);
        }
        Ok(())
    }

    // ---- constants ------------------------------------------------------

    fn zero(&self, ty: Handle<naga::Type>) -> R<Val> {
        zero_of(&self.module.types[ty].inner)
    }

    /// A constant expression of `arena` (a literal, a zero value, a
    /// composition of those, or a module constant).
    fn constant_of(&self, arena: &naga::Arena<Expression>, h: Handle<Expression>) -> R<Val> {
        match arena[h] {
            Expression::Literal(lit) => literal(lit),
            Expression::ZeroValue(ty) => self.zero(ty),
            Expression::Constant(c) => {
                let init = self.module.constants[c].init;
                self.constant_of(&self.module.global_expressions, init)
            }
            Expression::Compose { ref components, .. } => {
                let mut parts = Vec::new();
                for &c in components {
                    parts.extend(flatten(&self.constant_of(arena, c)?));
                }
                Ok(Val::Vector(parts))
            }
            Expression::Splat { size, value } => {
                let v = self.constant_of(arena, value)?;
                Ok(Val::Vector(vec![v; size as usize]))
            }
            _ => no("a constant expression other than literals and compositions"),
        }
    }

    // ---- statements -------------------------------------------------------

    fn block(&mut self, block: &naga::Block) -> R<()> {
        for stmt in block.iter() {
            self.statement(stmt)?;
        }
        Ok(())
    }

    fn statement(&mut self, stmt: &Statement) -> R<()> {
        match *stmt {
            Statement::Emit(ref range) => {
                for h in range.clone() {
                    let v = self.expr(h)?;
                    self.vals.insert(h, v);
                }
                Ok(())
            }
            Statement::Block(ref b) => self.block(b),
            Statement::If {
                condition,
                ref accept,
                ref reject,
            } => self.if_(condition, accept, reject),
            Statement::Loop {
                ref body,
                ref continuing,
                break_if,
            } => self.loop_(body, continuing, break_if),
            Statement::Break => self.leave(),
            Statement::Continue => {
                let Some(at) = self.innermost_loop() else {
                    return no("continue outside a loop");
                };
                if let Frame::Loop { cont, .. } = self.frames[at] {
                    self.sop2(Sop2::OrB32, Sdst::Sgpr(cont), Src::Sgpr(cont), Src::ExecLo);
                }
                self.leave()
            }
            Statement::Return { value } => self.return_(value),
            Statement::Call {
                function,
                ref arguments,
                result,
            } => self.call(function, arguments, result),
            Statement::Store { pointer, value } => {
                let p = self.value(pointer)?;
                let v = self.value(value)?;
                self.store(&p, &v)
            }
            _ => no(
                "a statement other than emit, block, if, loop, break, continue, return and store",
            ),
        }
    }

    /// Outside every `if` and loop, an empty EXEC means every lane
    /// returned: the kernel is over. (Inside one, lanes may wait outside
    /// it, at a loop's exit or an `if`'s end.)
    fn end_if_done(&mut self) {
        if self.frames.is_empty() {
            self.code.push(Inst::Branch {
                cond: Cond::ExecZ,
                target: self.end,
            });
        }
    }

    fn exec_off(&mut self) {
        self.code.push(Inst::Sop1 {
            op: Sop1::MovB32,
            dst: Sdst::ExecLo,
            src: Src::Const(0),
        });
    }

    fn innermost_loop(&self) -> Option<usize> {
        self.frames
            .iter()
            .rposition(|f| matches!(f, Frame::Loop { .. } | Frame::Call { .. }))
            .filter(|&at| matches!(self.frames[at], Frame::Loop { .. }))
    }

    /// `return`: from the kernel, the current lanes leave every construct
    /// (at the top level, the kernel ends); from an inlined call, they
    /// store the value and leave every construct inside the call.
    fn return_(&mut self, value: Option<Handle<Expression>>) -> R<()> {
        let call = self
            .frames
            .iter()
            .rposition(|f| matches!(f, Frame::Call { .. }));
        let Some(call) = call else {
            if value.is_some() {
                return no("a kernel returning a value");
            }
            if self.frames.is_empty() {
                self.code.push(Inst::Branch {
                    cond: Cond::Always,
                    target: self.end,
                });
                return Ok(());
            }
            let masks: Vec<u8> = self.frames.iter().map(Frame::lanes).collect();
            for s in masks {
                self.sop2(Sop2::AndNot1B32, Sdst::Sgpr(s), Src::Sgpr(s), Src::ExecLo);
            }
            self.exec_off();
            return Ok(());
        };
        if let (
            Some(v),
            Frame::Call {
                result: Some(slots),
                ..
            },
        ) = (value, &self.frames[call])
        {
            let slots = slots.clone();
            let v = self.value(v)?;
            self.store(&Val::Local(slots), &v)?;
        }
        let masks: Vec<u8> = self.frames[call + 1..].iter().map(Frame::lanes).collect();
        for s in masks {
            self.sop2(Sop2::AndNot1B32, Sdst::Sgpr(s), Src::Sgpr(s), Src::ExecLo);
        }
        self.exec_off();
        Ok(())
    }

    /// A call, inlined: the callee's body over the argument values, with
    /// its own expressions and locals; the result, when there is one, is
    /// what the returning lanes stored.
    fn call(
        &mut self,
        function: Handle<naga::Function>,
        arguments: &[Handle<Expression>],
        result: Option<Handle<Expression>>,
    ) -> R<()> {
        if self
            .frames
            .iter()
            .filter(|f| matches!(f, Frame::Call { .. }))
            .count()
            >= MAX_INLINE_DEPTH
        {
            return no("calls nested deeper than the inlining limit");
        }
        let callee = &self.module.functions[function];
        let mut args = HashMap::new();
        for (i, &a) in arguments.iter().enumerate() {
            args.insert(i as u32, self.value(a)?);
        }
        let result_slots = match &callee.result {
            Some(r) => {
                let zero = self.zero(r.ty)?;
                Some(self.slots_for(&zero)?)
            }
            None => None,
        };
        let entry = self.sreg()?;
        self.code.push(Inst::Sop1 {
            op: Sop1::MovB32,
            dst: Sdst::Sgpr(entry),
            src: Src::ExecLo,
        });
        let saved = (
            std::mem::replace(&mut self.fun, callee),
            std::mem::replace(&mut self.finfo, &self.info[function]),
            std::mem::take(&mut self.vals),
            std::mem::take(&mut self.locals),
            std::mem::replace(&mut self.args, args),
        );
        self.frames.push(Frame::Call {
            entry,
            result: result_slots.clone(),
        });
        let body = self.init_locals().and_then(|()| self.block(&callee.body));
        self.frames.pop();
        (self.fun, self.finfo, self.vals, self.locals, self.args) = saved;
        body?;
        self.code.push(Inst::Sop1 {
            op: Sop1::MovB32,
            dst: Sdst::ExecLo,
            src: Src::Sgpr(entry),
        });
        if let (Some(h), Some(slots)) = (result, result_slots) {
            let v = self.load(&Val::Local(slots))?;
            self.vals.insert(h, v);
        }
        Ok(())
    }

    /// Fresh registers holding `init` (a local variable's or a result's).
    fn slots_for(&mut self, init: &Val) -> R<Vec<Slot>> {
        let mut slots = Vec::new();
        for part in flatten(init) {
            slots.push(match part {
                Val::Word(w) => {
                    let v = self.vreg()?;
                    self.vop_to(Vop::MovB32, v, &[w])?;
                    Slot::V(v)
                }
                Val::Mask(m) => {
                    let s = self.sreg()?;
                    let src = self.mask_src(m);
                    self.code.push(Inst::Sop1 {
                        op: Sop1::MovB32,
                        dst: Sdst::Sgpr(s),
                        src,
                    });
                    Slot::S(s)
                }
                _ => return no("a variable of a composite type"),
            });
        }
        Ok(slots)
    }

    /// `break` (or the exit half of `continue`): the current lanes leave
    /// every `if` inside the innermost loop, and EXEC empties.
    fn leave(&mut self) -> R<()> {
        let Some(at) = self.innermost_loop() else {
            return no("break outside a loop (switch)");
        };
        // Only `if`s lie above the innermost loop (a call's body has loops
        // of its own).
        let saved: Vec<u8> = self.frames[at + 1..].iter().map(Frame::lanes).collect();
        for s in saved {
            self.sop2(Sop2::AndNot1B32, Sdst::Sgpr(s), Src::Sgpr(s), Src::ExecLo);
        }
        self.exec_off();
        Ok(())
    }

    fn if_(
        &mut self,
        condition: Handle<Expression>,
        accept: &naga::Block,
        reject: &naga::Block,
    ) -> R<()> {
        let cond = match self.value(condition)? {
            Val::Mask(m) => m,
            _ => return no("an if condition that is not a bool"),
        };
        if let Mask::Const(b) = cond {
            return self.block(if b { accept } else { reject });
        }
        let Mask::S(c) = cond else { unreachable!() };
        let saved = self.sreg()?;
        self.code.push(Inst::Sop1 {
            op: Sop1::MovB32,
            dst: Sdst::Sgpr(saved),
            src: Src::ExecLo,
        });
        let (skip_accept, done) = (self.label(), self.label());
        self.sop2(Sop2::AndB32, Sdst::ExecLo, Src::ExecLo, Src::Sgpr(c));
        self.frames.push(Frame::If { saved });
        self.code.push(Inst::Branch {
            cond: Cond::ExecZ,
            target: skip_accept,
        });
        self.block(accept)?;
        self.code.push(Inst::Bind(skip_accept));
        if !reject.is_empty() {
            // Lanes that left inside `accept` are out of `saved` already.
            self.sop2(
                Sop2::AndNot1B32,
                Sdst::ExecLo,
                Src::Sgpr(saved),
                Src::Sgpr(c),
            );
            self.code.push(Inst::Branch {
                cond: Cond::ExecZ,
                target: done,
            });
            self.block(reject)?;
        }
        self.code.push(Inst::Bind(done));
        self.frames.pop();
        self.code.push(Inst::Sop1 {
            op: Sop1::MovB32,
            dst: Sdst::ExecLo,
            src: Src::Sgpr(saved),
        });
        self.end_if_done();
        Ok(())
    }

    fn loop_(
        &mut self,
        body: &naga::Block,
        continuing: &naga::Block,
        break_if: Option<Handle<Expression>>,
    ) -> R<()> {
        let (entry, cont) = (self.sreg()?, self.sreg()?);
        let (head, exit) = (self.label(), self.label());
        self.code.push(Inst::Sop1 {
            op: Sop1::MovB32,
            dst: Sdst::Sgpr(entry),
            src: Src::ExecLo,
        });
        self.code.push(Inst::Sop1 {
            op: Sop1::MovB32,
            dst: Sdst::Sgpr(cont),
            src: Src::Const(0),
        });
        self.code.push(Inst::Bind(head));
        self.frames.push(Frame::Loop { entry, cont });
        self.block(body)?;
        // Lanes that continued rejoin for the continuing block.
        self.sop2(Sop2::OrB32, Sdst::ExecLo, Src::ExecLo, Src::Sgpr(cont));
        self.code.push(Inst::Sop1 {
            op: Sop1::MovB32,
            dst: Sdst::Sgpr(cont),
            src: Src::Const(0),
        });
        self.block(continuing)?;
        if let Some(b) = break_if {
            match self.value(b)? {
                Val::Mask(Mask::Const(true)) => self.exec_off(),
                Val::Mask(Mask::Const(false)) => {}
                Val::Mask(Mask::S(m)) => {
                    self.sop2(Sop2::AndNot1B32, Sdst::ExecLo, Src::ExecLo, Src::Sgpr(m))
                }
                _ => return no("a break-if condition that is not a bool"),
            }
        }
        self.frames.pop();
        self.code.push(Inst::Branch {
            cond: Cond::ExecZ,
            target: exit,
        });
        self.code.push(Inst::Branch {
            cond: Cond::Always,
            target: head,
        });
        self.code.push(Inst::Bind(exit));
        self.code.push(Inst::Sop1 {
            op: Sop1::MovB32,
            dst: Sdst::ExecLo,
            src: Src::Sgpr(entry),
        });
        self.end_if_done();
        Ok(())
    }

    // ---- memory -----------------------------------------------------------

    /// The byte offset of `p` in a VGPR.
    fn address(&mut self, p: &BufPtr) -> R<u8> {
        let w = match p.index {
            None => Word::C(p.offset),
            Some((Word::C(c), _)) => Word::C(c.wrapping_add(p.offset)),
            Some((w, _)) if p.offset == 0 => w,
            Some((w, _)) => self.vop(Vop::AddNcU32, &[w, Word::C(p.offset)])?,
        };
        self.in_vgpr(w)
    }

    fn load(&mut self, p: &Val) -> R<Val> {
        match p {
            Val::Local(slots) => {
                let slots = slots.clone();
                let mut out = Vec::new();
                for s in slots {
                    out.push(match s {
                        Slot::V(v) => Val::Word(self.vop(Vop::MovB32, &[Word::V(v)])?),
                        Slot::S(m) => {
                            let d = self.sreg()?;
                            self.code.push(Inst::Sop1 {
                                op: Sop1::MovB32,
                                dst: Sdst::Sgpr(d),
                                src: Src::Sgpr(m),
                            });
                            Val::Mask(Mask::S(d))
                        }
                    });
                }
                Ok(if out.len() == 1 {
                    out.remove(0)
                } else {
                    Val::Vector(out)
                })
            }
            Val::Buf(b) => {
                let words = match b.ty {
                    TypeInner::Scalar(s) if s.width == 4 && s.kind != ScalarKind::Bool => 1,
                    TypeInner::Vector { size, scalar }
                        if scalar.width == 4 && scalar.kind != ScalarKind::Bool =>
                    {
                        size as u32
                    }
                    _ => {
                        return no(
                            "a load of a buffer value that is not a 32-bit scalar or vector",
                        );
                    }
                };
                let base = self.bindings[&b.binding].base;
                let mut out = Vec::new();
                for i in 0..words {
                    let mut q = b.clone();
                    q.offset += 4 * i;
                    let addr = self.address(&q)?;
                    let dst = self.vreg()?;
                    self.code.push(Inst::GlobalLoad {
                        dst,
                        offset: addr,
                        base,
                    });
                    out.push(Val::Word(Word::V(dst)));
                }
                self.code.push(Inst::WaitVm);
                Ok(if words == 1 {
                    out.remove(0)
                } else {
                    Val::Vector(out)
                })
            }
            _ => no("a load through a pointer the baseline compiler does not track"),
        }
    }

    fn store(&mut self, p: &Val, v: &Val) -> R<()> {
        let parts = flatten(v);
        match p {
            Val::Local(slots) => {
                if parts.len() != slots.len() {
                    return no("a store of a value whose shape differs from its variable");
                }
                let slots = slots.clone();
                for (slot, part) in slots.into_iter().zip(parts) {
                    match (slot, part) {
                        (Slot::V(d), Val::Word(w)) => self.vop_to(Vop::MovB32, d, &[w])?,
                        (Slot::S(d), Val::Mask(m)) => {
                            // Only the active lanes' bits change.
                            self.sop2(Sop2::AndNot1B32, Sdst::Sgpr(d), Src::Sgpr(d), Src::ExecLo);
                            if m != Mask::Const(false) {
                                let t = self.sreg()?;
                                let m = self.mask_src(m);
                                self.sop2(Sop2::AndB32, Sdst::Sgpr(t), m, Src::ExecLo);
                                self.sop2(Sop2::OrB32, Sdst::Sgpr(d), Src::Sgpr(d), Src::Sgpr(t));
                            }
                        }
                        _ => return no("a store of a value of another kind than its variable"),
                    }
                }
                Ok(())
            }
            Val::Buf(b) => {
                let words = match b.ty {
                    TypeInner::Scalar(s) if s.width == 4 && s.kind != ScalarKind::Bool => 1,
                    TypeInner::Vector { size, scalar }
                        if scalar.width == 4 && scalar.kind != ScalarKind::Bool =>
                    {
                        size as usize
                    }
                    _ => {
                        return no(
                            "a store of a buffer value that is not a 32-bit scalar or vector",
                        );
                    }
                };
                if parts.len() != words {
                    return no("a store whose value does not match its pointer");
                }
                let base = self.bindings[&b.binding].base;
                // Out-of-bounds lanes skip the store (robust buffer access).
                let saved = match b.index {
                    Some((_, Some(Mask::S(ok)))) => {
                        let s = self.sreg()?;
                        self.code.push(Inst::Sop1 {
                            op: Sop1::MovB32,
                            dst: Sdst::Sgpr(s),
                            src: Src::ExecLo,
                        });
                        self.sop2(Sop2::AndB32, Sdst::ExecLo, Src::ExecLo, Src::Sgpr(ok));
                        Some(s)
                    }
                    Some((_, Some(Mask::Const(false)))) => return Ok(()),
                    _ => None,
                };
                for (i, part) in parts.into_iter().enumerate() {
                    let Val::Word(w) = part else {
                        return no("a store of a non-word into a buffer");
                    };
                    let data = self.in_vgpr(w)?;
                    let mut q = b.clone();
                    q.offset += 4 * i as u32;
                    let addr = self.address(&q)?;
                    self.code.push(Inst::GlobalStore {
                        data,
                        offset: addr,
                        base,
                    });
                }
                if let Some(s) = saved {
                    self.code.push(Inst::Sop1 {
                        op: Sop1::MovB32,
                        dst: Sdst::ExecLo,
                        src: Src::Sgpr(s),
                    });
                }
                Ok(())
            }
            _ => no("a store through a pointer the baseline compiler does not track"),
        }
    }

    // ---- expressions ------------------------------------------------------

    /// The value of `h`: emitted already, or a non-emitted expression
    /// (literals, constants, variables, arguments) evaluated now.
    fn value(&mut self, h: Handle<Expression>) -> R<Val> {
        if let Some(v) = self.vals.get(&h) {
            return Ok(v.clone());
        }
        let v = self.expr(h)?;
        self.vals.insert(h, v.clone());
        Ok(v)
    }

    fn expr(&mut self, h: Handle<Expression>) -> R<Val> {
        let fun = self.fun;
        match fun.expressions[h] {
            Expression::Literal(_) | Expression::Constant(_) | Expression::ZeroValue(_) => {
                self.constant_of(&fun.expressions, h)
            }
            Expression::Compose { ref components, .. } => {
                let mut parts = Vec::new();
                for &c in components {
                    let v = self.value(c)?;
                    parts.extend(flatten(&v));
                }
                Ok(Val::Vector(parts))
            }
            Expression::Splat { size, value } => {
                let v = self.value(value)?;
                Ok(Val::Vector(vec![v; size as usize]))
            }
            Expression::Swizzle {
                size,
                vector,
                pattern,
            } => {
                let Val::Vector(parts) = self.value(vector)? else {
                    return no("a swizzle of a non-vector");
                };
                Ok(Val::Vector(
                    pattern[..size as usize]
                        .iter()
                        .map(|c| parts[*c as usize].clone())
                        .collect(),
                ))
            }
            Expression::FunctionArgument(i) => match self.args.get(&i) {
                Some(v) => Ok(v.clone()),
                None => no("an argument without a value"),
            },
            Expression::GlobalVariable(g) => {
                let var = &self.module.global_variables[g];
                if !self.bindings.contains_key(&g) {
                    return no("a global variable that is not a storage binding");
                }
                Ok(Val::Buf(BufPtr {
                    binding: g,
                    offset: 0,
                    index: None,
                    ty: self.module.types[var.ty].inner.clone(),
                }))
            }
            Expression::LocalVariable(var) => match self.locals.get(&var) {
                Some(slots) => Ok(Val::Local(slots.clone())),
                None => no("a local variable without registers"),
            },
            Expression::AccessIndex { base, index } => {
                let b = self.value(base)?;
                self.access(b, Word::C(index), true)
            }
            Expression::Access { base, index } => {
                let b = self.value(base)?;
                let i = match self.value(index)? {
                    Val::Word(w) => w,
                    _ => return no("an index that is not an integer"),
                };
                self.access(b, i, false)
            }
            Expression::Load { pointer } => {
                let p = self.value(pointer)?;
                self.load(&p)
            }
            Expression::Unary { op, expr } => {
                let kind = self.scalar_kind(expr)?;
                let v = self.value(expr)?;
                self.map1(&v, &mut |l, x| l.unary(op, kind, x))
            }
            Expression::Binary { op, left, right } => {
                let kind = self.scalar_kind(left)?;
                let (a, b) = (self.value(left)?, self.value(right)?);
                self.map2(&a, &b, &mut |l, x, y| l.binary(op, kind, x, y))
            }
            Expression::Select {
                condition,
                accept,
                reject,
            } => {
                let c = self.value(condition)?;
                let (a, r) = (self.value(accept)?, self.value(reject)?);
                self.select(&c, &a, &r)
            }
            Expression::Math {
                fun,
                arg,
                arg1,
                arg2,
                arg3,
            } => {
                if arg3.is_some() {
                    return no("a four-argument math function");
                }
                let kind = self.scalar_kind(arg)?;
                let a = self.value(arg)?;
                let b = match arg1 {
                    Some(e) => Some(self.value(e)?),
                    None => None,
                };
                let c = match arg2 {
                    Some(e) => Some(self.value(e)?),
                    None => None,
                };
                self.math(fun, kind, &a, b.as_ref(), c.as_ref())
            }
            Expression::As {
                expr,
                kind,
                convert,
            } => {
                let from = self.scalar_kind(expr)?;
                let width = match self.inner_of(expr).scalar() {
                    Some(s) => s.width,
                    None => return no("a conversion of a non-scalar, non-vector"),
                };
                if width != 4 && from != ScalarKind::Bool {
                    return no("a conversion from a type narrower or wider than 32 bits");
                }
                if convert.is_some_and(|w| w != 4) && kind != ScalarKind::Bool {
                    return no("a conversion to a type narrower or wider than 32 bits");
                }
                let v = self.value(expr)?;
                self.map1(&v, &mut |l, x| l.convert(x, from, kind, convert.is_some()))
            }
            Expression::ArrayLength(p) => match self.value(p)? {
                Val::Buf(b) => match self.bindings[&b.binding].runtime {
                    Some(r) if r.offset == b.offset && b.index.is_none() => Ok(Val::Word(r.len)),
                    _ => no("arrayLength of an array not at its binding's end"),
                },
                _ => no("arrayLength of a non-buffer"),
            },
            _ => no("an expression the baseline compiler does not cover"),
        }
    }

    fn scalar_kind(&self, h: Handle<Expression>) -> R<ScalarKind> {
        match self.inner_of(h).scalar() {
            Some(s) if s.width == 4 || s.kind == ScalarKind::Bool => Ok(s.kind),
            _ => no("an operand that is not a 32-bit scalar or vector"),
        }
    }

    /// `base[index]`: a vector component, or a step of a buffer or local
    /// variable access chain.
    fn access(&mut self, base: Val, index: Word, constant: bool) -> R<Val> {
        match base {
            Val::Vector(parts) => match index {
                Word::C(i) if (i as usize) < parts.len() => Ok(parts[i as usize].clone()),
                _ => no("a dynamic vector index"),
            },
            Val::Local(slots) => match index {
                Word::C(i) if (i as usize) < slots.len() && slots.len() > 1 => {
                    Ok(Val::Local(vec![slots[i as usize]]))
                }
                _ => no("a dynamic index into a local variable"),
            },
            Val::Buf(mut p) => match p.ty.clone() {
                TypeInner::Struct { ref members, .. } if constant => {
                    let Word::C(i) = index else { unreachable!() };
                    let Some(m) = members.get(i as usize) else {
                        return no("a struct member out of range");
                    };
                    p.offset += m.offset;
                    p.ty = self.module.types[m.ty].inner.clone();
                    Ok(Val::Buf(p))
                }
                TypeInner::Vector { size, scalar } if constant => {
                    let Word::C(i) = index else { unreachable!() };
                    if i >= size as u32 {
                        return no("a vector component out of range");
                    }
                    p.offset += 4 * i;
                    p.ty = TypeInner::Scalar(scalar);
                    Ok(Val::Buf(p))
                }
                TypeInner::Array { base, size, stride } => {
                    if p.index.is_some() {
                        return no("a second dynamic index in one access chain");
                    }
                    let (len, last) = match size {
                        naga::ArraySize::Constant(n) => (Word::C(n.get()), Word::C(n.get() - 1)),
                        naga::ArraySize::Dynamic => match self.bindings[&p.binding].runtime {
                            Some(r) if r.offset == p.offset => (r.len, r.last),
                            _ => return no("a runtime-sized array not at its binding's end"),
                        },
                        naga::ArraySize::Pending(_) => return no("an override-sized array"),
                    };
                    let (clamped, ok) = match (index, len) {
                        (Word::C(i), Word::C(n)) => {
                            (Word::C(i.min(n - 1)), Some(Mask::Const(i < n)))
                        }
                        _ => {
                            let clamped = self.vop(Vop::MinU32, &[index, last])?;
                            let Word::S(ok) = self.vop(Vop::CmpLtU32, &[index, len])? else {
                                unreachable!("a compare writes an SGPR")
                            };
                            (clamped, Some(Mask::S(ok)))
                        }
                    };
                    let bytes = match clamped {
                        Word::C(c) => Word::C(c.wrapping_mul(stride)),
                        w if stride.is_power_of_two() => {
                            self.vop(Vop::LshlrevB32, &[Word::C(stride.trailing_zeros()), w])?
                        }
                        w => self.vop(Vop::MulLoU32, &[w, Word::C(stride)])?,
                    };
                    p.index = Some((bytes, ok));
                    p.ty = self.module.types[base].inner.clone();
                    Ok(Val::Buf(p))
                }
                _ => no("an access into a buffer value of another type"),
            },
            _ => no("an access into a value the baseline compiler does not track"),
        }
    }

    fn map1(&mut self, v: &Val, f: &mut dyn FnMut(&mut Self, &Val) -> R<Val>) -> R<Val> {
        match v {
            Val::Vector(parts) => {
                let mut out = Vec::new();
                for p in parts {
                    out.push(f(self, p)?);
                }
                Ok(Val::Vector(out))
            }
            _ => f(self, v),
        }
    }

    /// `f` component by component; a scalar operand meets every component.
    fn map2(
        &mut self,
        a: &Val,
        b: &Val,
        f: &mut dyn FnMut(&mut Self, &Val, &Val) -> R<Val>,
    ) -> R<Val> {
        match (a, b) {
            (Val::Vector(x), Val::Vector(y)) if x.len() == y.len() => {
                let mut out = Vec::new();
                for (p, q) in x.iter().zip(y) {
                    out.push(f(self, p, q)?);
                }
                Ok(Val::Vector(out))
            }
            (Val::Vector(x), s) => {
                let mut out = Vec::new();
                for p in x {
                    out.push(f(self, p, s)?);
                }
                Ok(Val::Vector(out))
            }
            (s, Val::Vector(y)) => {
                let mut out = Vec::new();
                for q in y {
                    out.push(f(self, s, q)?);
                }
                Ok(Val::Vector(out))
            }
            _ => f(self, a, b),
        }
    }

    fn unary(&mut self, op: UnaryOperator, kind: ScalarKind, x: &Val) -> R<Val> {
        match (op, kind, x) {
            (UnaryOperator::LogicalNot, _, Val::Mask(m)) => Ok(Val::Mask(self.mask_not(*m)?)),
            (UnaryOperator::BitwiseNot, ScalarKind::Uint | ScalarKind::Sint, Val::Word(w)) => {
                Ok(Val::Word(self.vop(Vop::NotB32, &[*w])?))
            }
            (UnaryOperator::Negate, ScalarKind::Sint, Val::Word(w)) => {
                Ok(Val::Word(self.vop(Vop::SubNcU32, &[Word::C(0), *w])?))
            }
            // fneg flips the sign bit (LLVM lowers it to an xor).
            (UnaryOperator::Negate, ScalarKind::Float, Val::Word(w)) => Ok(Val::Word(
                self.vop(Vop::XorB32, &[Word::C(0x8000_0000), *w])?,
            )),
            _ => no("a unary operator on this type"),
        }
    }

    fn binary(&mut self, op: B, kind: ScalarKind, a: &Val, b: &Val) -> R<Val> {
        use ScalarKind::{Bool, Float, Sint, Uint};
        if let (Val::Mask(x), Val::Mask(y)) = (a, b) {
            let (x, y) = (*x, *y);
            return Ok(Val::Mask(match op {
                B::LogicalAnd | B::And => self.mask_op(Sop2::AndB32, x, y)?,
                B::LogicalOr | B::InclusiveOr => self.mask_op(Sop2::OrB32, x, y)?,
                B::NotEqual | B::ExclusiveOr => self.mask_op(Sop2::XorB32, x, y)?,
                B::Equal => {
                    let d = self.mask_op(Sop2::XorB32, x, y)?;
                    self.mask_not(d)?
                }
                _ => return no("a boolean operator"),
            }));
        }
        let (Val::Word(x), Val::Word(y)) = (a, b) else {
            return no("a binary operator on these operands");
        };
        let (x, y) = (*x, *y);
        let w = |v: Word| Ok(Val::Word(v));
        let cmp = |l: &mut Self, op: Vop, p: Word, q: Word| -> R<Val> {
            match l.vop(op, &[p, q])? {
                Word::S(s) => Ok(Val::Mask(Mask::S(s))),
                _ => unreachable!("a compare writes an SGPR"),
            }
        };
        match (op, kind) {
            (B::Add, Uint | Sint) => w(self.vop(Vop::AddNcU32, &[x, y])?),
            (B::Add, Float) => w(self.vop(Vop::AddF32, &[x, y])?),
            (B::Subtract, Uint | Sint) => w(self.vop(Vop::SubNcU32, &[x, y])?),
            (B::Subtract, Float) => w(self.vop(Vop::SubF32, &[x, y])?),
            (B::Multiply, Uint | Sint) => w(self.vop(Vop::MulLoU32, &[x, y])?),
            (B::Multiply, Float) => w(self.vop(Vop::MulF32, &[x, y])?),
            (B::Divide, Uint) => match y {
                Word::C(c) if c.is_power_of_two() => {
                    w(self.vop(Vop::LshrrevB32, &[Word::C(c.trailing_zeros()), x])?)
                }
                _ => no("an integer division by a non-constant or a non-power of two"),
            },
            (B::Modulo, Uint) => match y {
                Word::C(c) if c.is_power_of_two() => {
                    w(self.vop(Vop::AndB32, &[Word::C(c - 1), x])?)
                }
                _ => no("an integer remainder by a non-constant or a non-power of two"),
            },
            (B::And, Uint | Sint) => w(self.vop(Vop::AndB32, &[x, y])?),
            (B::InclusiveOr, Uint | Sint) => w(self.vop(Vop::OrB32, &[x, y])?),
            (B::ExclusiveOr, Uint | Sint) => w(self.vop(Vop::XorB32, &[x, y])?),
            // The shift amount is the first operand of the *rev forms; the
            // VALU reads its low 5 bits, WGSL's `& 31`.
            (B::ShiftLeft, Uint | Sint) => w(self.vop(Vop::LshlrevB32, &[y, x])?),
            (B::ShiftRight, Uint) => w(self.vop(Vop::LshrrevB32, &[y, x])?),
            (B::ShiftRight, Sint) => w(self.vop(Vop::AshrrevI32, &[y, x])?),
            (B::Equal, Uint | Sint) => cmp(self, Vop::CmpEqU32, x, y),
            (B::NotEqual, Uint | Sint) => cmp(self, Vop::CmpNeU32, x, y),
            (B::Less, Uint) => cmp(self, Vop::CmpLtU32, x, y),
            (B::LessEqual, Uint) => cmp(self, Vop::CmpLeU32, x, y),
            (B::Greater, Uint) => cmp(self, Vop::CmpGtU32, x, y),
            (B::GreaterEqual, Uint) => cmp(self, Vop::CmpGeU32, x, y),
            (B::Less, Sint) => cmp(self, Vop::CmpLtI32, x, y),
            (B::LessEqual, Sint) => cmp(self, Vop::CmpLeI32, x, y),
            (B::Greater, Sint) => cmp(self, Vop::CmpGtI32, x, y),
            (B::GreaterEqual, Sint) => cmp(self, Vop::CmpGeI32, x, y),
            // Ordered compares, and `!=` unordered (LLVM's fcmp une).
            (B::Equal, Float) => cmp(self, Vop::CmpEqF32, x, y),
            (B::NotEqual, Float) => cmp(self, Vop::CmpNeqF32, x, y),
            (B::Less, Float) => cmp(self, Vop::CmpLtF32, x, y),
            (B::LessEqual, Float) => cmp(self, Vop::CmpLeF32, x, y),
            (B::Greater, Float) => cmp(self, Vop::CmpGtF32, x, y),
            (B::GreaterEqual, Float) => cmp(self, Vop::CmpGeF32, x, y),
            (_, Bool) => no("a boolean operator on words"),
            _ => no("a binary operator the baseline compiler does not cover"),
        }
    }

    fn select(&mut self, c: &Val, a: &Val, r: &Val) -> R<Val> {
        match (c, a, r) {
            (Val::Vector(cs), Val::Vector(xs), Val::Vector(ys))
                if cs.len() == xs.len() && xs.len() == ys.len() =>
            {
                let mut out = Vec::new();
                for ((c, x), y) in cs.iter().zip(xs).zip(ys) {
                    out.push(self.select(c, x, y)?);
                }
                Ok(Val::Vector(out))
            }
            (Val::Mask(_), Val::Vector(xs), Val::Vector(ys)) if xs.len() == ys.len() => {
                let mut out = Vec::new();
                for (x, y) in xs.iter().zip(ys) {
                    out.push(self.select(c, x, y)?);
                }
                Ok(Val::Vector(out))
            }
            (Val::Mask(Mask::Const(b)), _, _) => Ok(if *b { a.clone() } else { r.clone() }),
            (Val::Mask(Mask::S(m)), Val::Word(x), Val::Word(y)) => Ok(Val::Word(
                self.vop(Vop::CndmaskB32, &[*y, *x, Word::S(*m)])?,
            )),
            (Val::Mask(Mask::S(m)), Val::Mask(x), Val::Mask(y)) => {
                let m = Mask::S(*m);
                let t = self.mask_op(Sop2::AndB32, *x, m)?;
                let nm = self.mask_not(m)?;
                let f = self.mask_op(Sop2::AndB32, *y, nm)?;
                Ok(Val::Mask(self.mask_op(Sop2::OrB32, t, f)?))
            }
            _ => no("a select of these operands"),
        }
    }

    fn math(
        &mut self,
        fun: MathFunction,
        kind: ScalarKind,
        a: &Val,
        b: Option<&Val>,
        c: Option<&Val>,
    ) -> R<Val> {
        use ScalarKind::{Float, Sint, Uint};
        let two = |l: &mut Self, op: Vop, b: Option<&Val>| -> R<Val> {
            let Some(b) = b else {
                return no("a math function missing its operand");
            };
            l.map2(a, b, &mut |l, x, y| match (x, y) {
                (Val::Word(x), Val::Word(y)) => Ok(Val::Word(l.vop(op, &[*x, *y])?)),
                _ => no("a math function of non-words"),
            })
        };
        match (fun, kind) {
            (MathFunction::Min, Uint) => two(self, Vop::MinU32, b),
            (MathFunction::Max, Uint) => two(self, Vop::MaxU32, b),
            (MathFunction::Min, Sint) => two(self, Vop::MinI32, b),
            (MathFunction::Max, Sint) => two(self, Vop::MaxI32, b),
            (MathFunction::Clamp, Uint | Sint) => {
                let (max, min) = if kind == Uint {
                    (Vop::MaxU32, Vop::MinU32)
                } else {
                    (Vop::MaxI32, Vop::MinI32)
                };
                let (Some(lo), Some(hi)) = (b, c) else {
                    return no("clamp missing its bounds");
                };
                let t = self.map2(a, lo, &mut |l, x, y| match (x, y) {
                    (Val::Word(x), Val::Word(y)) => Ok(Val::Word(l.vop(max, &[*x, *y])?)),
                    _ => no("clamp of non-words"),
                })?;
                self.map2(&t, hi, &mut |l, x, y| match (x, y) {
                    (Val::Word(x), Val::Word(y)) => Ok(Val::Word(l.vop(min, &[*x, *y])?)),
                    _ => no("clamp of non-words"),
                })
            }
            (MathFunction::Abs, Uint) => Ok(a.clone()),
            (MathFunction::Abs, Sint) => self.map1(a, &mut |l, x| match x {
                Val::Word(x) => {
                    let n = l.vop(Vop::SubNcU32, &[Word::C(0), *x])?;
                    Ok(Val::Word(l.vop(Vop::MaxI32, &[*x, n])?))
                }
                _ => no("abs of a non-word"),
            }),
            // fabs clears the sign bit (LLVM lowers it to an and).
            (MathFunction::Abs, Float) => self.map1(a, &mut |l, x| match x {
                Val::Word(x) => Ok(Val::Word(l.vop(Vop::AndB32, &[Word::C(0x7fff_ffff), *x])?)),
                _ => no("abs of a non-word"),
            }),
            (MathFunction::Fma, Float) => {
                let (Some(b), Some(c)) = (b, c) else {
                    return no("fma missing its operands");
                };
                let (xs, ys, zs) = (flatten(a), flatten(b), flatten(c));
                if xs.len() != ys.len() || ys.len() != zs.len() {
                    return no("fma of mixed shapes");
                }
                let mut out = Vec::new();
                for ((x, y), z) in xs.iter().zip(&ys).zip(&zs) {
                    let (Val::Word(x), Val::Word(y), Val::Word(z)) = (x, y, z) else {
                        return no("fma of non-words");
                    };
                    out.push(Val::Word(self.vop(Vop::FmaF32, &[*x, *y, *z])?));
                }
                Ok(if out.len() == 1 {
                    out.remove(0)
                } else {
                    Val::Vector(out)
                })
            }
            _ => no("a math function the baseline compiler does not cover"),
        }
    }

    fn convert(&mut self, x: &Val, from: ScalarKind, to: ScalarKind, convert: bool) -> R<Val> {
        use ScalarKind::{Bool, Float, Sint, Uint};
        match (x, from, to) {
            (Val::Word(_), Uint | Sint, Uint | Sint) => Ok(x.clone()),
            (Val::Word(_), _, _) if !convert => Ok(x.clone()),
            (Val::Word(w), Float, Float) => Ok(Val::Word(*w)),
            (Val::Word(w), Sint, Float) => Ok(Val::Word(self.vop(Vop::CvtF32I32, &[*w])?)),
            (Val::Word(w), Uint, Float) => Ok(Val::Word(self.vop(Vop::CvtF32U32, &[*w])?)),
            (Val::Word(w), Float, Sint) => Ok(Val::Word(self.vop(Vop::CvtI32F32, &[*w])?)),
            (Val::Word(w), Float, Uint) => Ok(Val::Word(self.vop(Vop::CvtU32F32, &[*w])?)),
            (Val::Word(w), Uint | Sint, Bool) => {
                match self.vop(Vop::CmpNeU32, &[*w, Word::C(0)])? {
                    Word::S(s) => Ok(Val::Mask(Mask::S(s))),
                    _ => unreachable!("a compare writes an SGPR"),
                }
            }
            (Val::Mask(m), Bool, Uint | Sint | Float) => {
                let one = if to == Float { 1f32.to_bits() } else { 1 };
                match *m {
                    Mask::Const(b) => Ok(Val::Word(Word::C(if b { one } else { 0 }))),
                    Mask::S(s) => Ok(Val::Word(
                        self.vop(Vop::CndmaskB32, &[Word::C(0), Word::C(one), Word::S(s)])?,
                    )),
                }
            }
            (Val::Mask(_), Bool, Bool) => Ok(x.clone()),
            _ => no("a conversion the baseline compiler does not cover"),
        }
    }
}

fn literal(lit: Literal) -> R<Val> {
    Ok(match lit {
        Literal::U32(v) => Val::Word(Word::C(v)),
        Literal::I32(v) => Val::Word(Word::C(v as u32)),
        Literal::F32(v) => Val::Word(Word::C(v.to_bits())),
        Literal::Bool(b) => Val::Mask(Mask::Const(b)),
        _ => return no("a literal that is not a 32-bit scalar or a bool"),
    })
}

fn zero_of(inner: &TypeInner) -> R<Val> {
    match *inner {
        TypeInner::Scalar(s) if s.kind == ScalarKind::Bool => Ok(Val::Mask(Mask::Const(false))),
        TypeInner::Scalar(s) if s.width == 4 => Ok(Val::Word(Word::C(0))),
        TypeInner::Vector { size, scalar } => {
            let z = zero_of(&TypeInner::Scalar(scalar))?;
            Ok(Val::Vector(vec![z; size as usize]))
        }
        _ => no("a zero value of a composite type"),
    }
}

/// The scalar components of `v`, in order.
fn flatten(v: &Val) -> Vec<Val> {
    match v {
        Val::Vector(parts) => parts.iter().flat_map(flatten).collect(),
        other => vec![other.clone()],
    }
}
