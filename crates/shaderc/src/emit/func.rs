//! The per-function emitter: SSA value bookkeeping, temporaries and labels,
//! and the emission of helper functions.
//!
//! naga expressions become SSA values when their `Emit` statement is
//! reached (so they dominate their uses, which naga's validator scopes);
//! constants, arguments and variable pointers need no emission point and
//! are materialised on first use. Local variables are entry-block allocas
//! (LLVM's SROA/mem2reg turns them into registers).

use std::fmt::Write as _;

use naga::valid::FunctionInfo;
use naga::{Expression, Handle, TypeInner};

use super::consts::Const;
use super::types::{AS_CONSTANT, AS_PRIVATE, ptr_ty};
use super::{GlobalKind, ModuleCtx};
use crate::error::{EmitResult, unsupported};

/// An SSA value: LLVM type and operand text.
#[derive(Clone, Debug)]
pub(crate) struct Val {
    pub ty: String,
    pub v: String,
}

impl Val {
    pub(crate) fn new(ty: impl Into<String>, v: impl Into<String>) -> Self {
        Val {
            ty: ty.into(),
            v: v.into(),
        }
    }

    /// `ty v`, as an instruction operand.
    pub(crate) fn typed(&self) -> String {
        format!("{} {}", self.ty, self.v)
    }
}

/// A pointer: its LLVM value and address space, the global it points into
/// with the constant byte offset from that global's start (when known: used
/// to find runtime-sized arrays), and an in-bounds condition (`i1`) that
/// stores must satisfy (out-of-bounds stores are dropped).
#[derive(Clone, Debug)]
pub(crate) struct Ptr {
    pub v: String,
    pub space: u32,
    pub root: Option<usize>,
    pub offset: Option<u32>,
    pub ok: Option<String>,
}

#[derive(Clone, Debug)]
pub(crate) enum Value {
    Val(Val),
    Ptr(Ptr),
}

/// How a function reaches a global: pointer value and (runtime-sized
/// buffers) the byte size value.
#[derive(Clone, Debug)]
pub(crate) struct GlobalRef {
    pub ptr: String,
    pub space: u32,
    pub size: Option<String>,
}

pub(crate) struct FnEmitter<'a> {
    pub m: &'a ModuleCtx<'a>,
    pub fun: &'a naga::Function,
    pub finfo: &'a FunctionInfo,
    pub out: String,
    pub allocas: String,
    next_tmp: u32,
    next_label: u32,
    pub terminated: bool,
    pub values: Vec<Option<Value>>,
    pub globals: Vec<Option<GlobalRef>>,
    pub locals: Vec<String>,
    pub args: Vec<Value>,
    pub breaks: Vec<String>,
    pub continues: Vec<String>,
    /// The return type (None: void).
    pub ret_ty: Option<String>,
}

impl<'a> FnEmitter<'a> {
    pub(crate) fn new(
        m: &'a ModuleCtx<'a>,
        fun: &'a naga::Function,
        finfo: &'a FunctionInfo,
    ) -> Self {
        FnEmitter {
            m,
            fun,
            finfo,
            out: String::new(),
            allocas: String::new(),
            next_tmp: 0,
            next_label: 0,
            terminated: false,
            values: vec![None; fun.expressions.len()],
            globals: vec![None; m.module.global_variables.len()],
            locals: Vec::new(),
            args: Vec::new(),
            breaks: Vec::new(),
            continues: Vec::new(),
            ret_ty: None,
        }
    }

    /// A fresh temporary name.
    pub(crate) fn tmp(&mut self) -> String {
        self.next_tmp += 1;
        format!("%t{}", self.next_tmp)
    }

    /// A fresh label name with a readable prefix.
    pub(crate) fn label(&mut self, hint: &str) -> String {
        self.next_label += 1;
        format!("{hint}{}", self.next_label)
    }

    /// Write one instruction into the current block (opening an unreachable
    /// block first if the current one already ended).
    pub(crate) fn inst(&mut self, text: &str) {
        if self.terminated {
            let dead = self.label("dead");
            self.start_block(&dead);
        }
        let _ = writeln!(self.out, "  {text}");
    }

    /// `%tN = rhs`, returning `%tN`.
    pub(crate) fn def(&mut self, rhs: &str) -> String {
        let name = self.tmp();
        self.inst(&format!("{name} = {rhs}"));
        name
    }

    /// A typed value defined by `rhs`.
    pub(crate) fn defv(&mut self, ty: &str, rhs: &str) -> Val {
        let v = self.def(rhs);
        Val::new(ty, v)
    }

    pub(crate) fn start_block(&mut self, label: &str) {
        let _ = writeln!(self.out, "{label}:");
        self.terminated = false;
    }

    /// End the current block with `text` (a terminator).
    pub(crate) fn terminate(&mut self, text: &str) {
        self.inst(text);
        self.terminated = true;
    }

    /// Branch to `label` unless the block already ended.
    pub(crate) fn br_if_open(&mut self, label: &str) {
        if !self.terminated {
            self.terminate(&format!("br label %{label}"));
        }
    }

    /// An entry-block alloca of `size` bytes, returning its pointer.
    pub(crate) fn alloca_bytes(&mut self, size: u32, align: u32) -> String {
        let name = self.tmp();
        let _ = writeln!(
            self.allocas,
            "  {name} = alloca [{} x i8], align {}, addrspace(5)",
            size.max(1),
            align.max(4)
        );
        name
    }

    /// The naga type of expression `h`.
    pub(crate) fn inner_of(&self, h: Handle<Expression>) -> &'a TypeInner {
        self.finfo[h].ty.inner_with(&self.m.module.types)
    }

    pub(crate) fn span_of(&self, h: Handle<Expression>) -> naga::Span {
        self.fun.expressions.get_span(h)
    }

    /// The value of `h`, evaluating it now if it needs no emission point.
    pub(crate) fn value(&mut self, h: Handle<Expression>) -> EmitResult<Value> {
        if let Some(v) = &self.values[h.index()] {
            return Ok(v.clone());
        }
        let v = match self.fun.expressions[h] {
            Expression::Literal(_)
            | Expression::Constant(_)
            | Expression::ZeroValue(_)
            | Expression::Override(_)
            | Expression::Compose { .. }
            | Expression::Splat { .. }
            | Expression::FunctionArgument(_)
            | Expression::GlobalVariable(_)
            | Expression::LocalVariable(_) => self.eval(h)?,
            ref other => {
                return unsupported(
                    format!("internal: expression {other:?} used before it was evaluated"),
                    self.span_of(h),
                );
            }
        };
        self.values[h.index()] = Some(v.clone());
        Ok(v)
    }

    /// The SSA value of `h` (an error if it is a pointer).
    pub(crate) fn val(&mut self, h: Handle<Expression>) -> EmitResult<Val> {
        match self.value(h)? {
            Value::Val(v) => Ok(v),
            Value::Ptr(_) => unsupported("a pointer used as a value", self.span_of(h)),
        }
    }

    pub(crate) fn ptr(&mut self, h: Handle<Expression>) -> EmitResult<Ptr> {
        match self.value(h)? {
            Value::Ptr(p) => Ok(p),
            Value::Val(_) => unsupported("a value used as a pointer", self.span_of(h)),
        }
    }

    /// Evaluate `h` as a constant if it is one.
    pub(crate) fn try_const(&self, h: Handle<Expression>) -> Option<Const> {
        self.m.const_expr(&self.fun.expressions, h).ok()
    }

    /// The LLVM type of `h`'s value.
    pub(crate) fn ty_of(&self, h: Handle<Expression>) -> EmitResult<String> {
        self.m.lowered_ty(self.inner_of(h), self.span_of(h))
    }

    /// Parameters carrying the module's buffers and private variables into
    /// helper functions: (LLVM parameter text, global index, is size).
    pub(crate) fn hidden_params(m: &ModuleCtx<'_>) -> Vec<(String, usize, bool)> {
        let mut params = Vec::new();
        for (index, kind) in m.globals.iter().enumerate() {
            match kind {
                GlobalKind::Buffer { runtime, .. } => {
                    params.push((format!("ptr addrspace(1) %gv{index}"), index, false));
                    if runtime.is_some() {
                        params.push((format!("i32 %gv{index}.size"), index, true));
                    }
                }
                GlobalKind::Private => {
                    params.push((format!("{} %gv{index}", ptr_ty(AS_PRIVATE)), index, false));
                }
                GlobalKind::Immediate => {
                    params.push((format!("{} %gv{index}", ptr_ty(AS_CONSTANT)), index, false));
                }
                GlobalKind::Texture { .. } => {
                    params.push((
                        format!("{} %gv{index}", super::image::DESCRIPTOR_TY),
                        index,
                        false,
                    ));
                }
                GlobalKind::Sampler { .. } => {
                    params.push((
                        format!("{} %gv{index}", super::image::SAMPLER_TY),
                        index,
                        false,
                    ));
                }
                GlobalKind::Workgroup | GlobalKind::Unsupported(..) => {}
            }
        }
        params
    }

    /// Arguments for the hidden parameters of a call, from this function's
    /// globals (poison where this function has no such global).
    pub(crate) fn hidden_args(&self) -> Vec<String> {
        Self::hidden_params(self.m)
            .into_iter()
            .map(|(param, index, is_size)| {
                let ty = param.rsplit_once(' ').map(|(t, _)| t).unwrap_or("i32");
                let g = self.globals[index].as_ref();
                let v = match (g, is_size) {
                    (Some(g), false) => g.ptr.clone(),
                    (Some(g), true) => g.size.clone().unwrap_or_else(|| "poison".into()),
                    (None, _) => "poison".into(),
                };
                format!("{ty} {v}")
            })
            .collect()
    }

    /// Allocate the function's local variables and store their initial
    /// values (WGSL zero-initialises variables without initialiser).
    pub(crate) fn init_locals(&mut self) -> EmitResult<()> {
        for (h, local) in self.fun.local_variables.iter() {
            let inner = &self.m.module.types[local.ty].inner;
            let size = self.m.size_of(inner);
            let align = self.m.align_of(local.ty);
            let p = self.alloca_bytes(size, align);
            self.locals.push(p.clone());
            let ptr = Ptr {
                v: p,
                space: AS_PRIVATE,
                root: None,
                offset: None,
                ok: None,
            };
            let span = self.fun.local_variables.get_span(h);
            let init = match local.init {
                Some(e) => self.val(e)?,
                None => {
                    let ty = self.m.lowered_ty(inner, span)?;
                    Val::new(ty, "zeroinitializer")
                }
            };
            self.store_value(&ptr, super::memory::Pointee::Handle(local.ty), &init, span)?;
        }
        Ok(())
    }

    /// Emit a helper (non-entry-point) function.
    pub(crate) fn emit_helper(
        m: &'a ModuleCtx<'a>,
        handle: Handle<naga::Function>,
        fun: &'a naga::Function,
    ) -> EmitResult<String> {
        let finfo = &m.info[handle];
        let mut e = FnEmitter::new(m, fun, finfo);
        let span = m.module.functions.get_span(handle);
        let mut params = Vec::new();
        for (i, arg) in fun.arguments.iter().enumerate() {
            let ty = m.lowered_ty_of(arg.ty, span)?;
            let name = format!("%a{i}");
            params.push(format!("{ty} {name}"));
            let value = match m.module.types[arg.ty].inner {
                TypeInner::Pointer { space, .. } => Value::Ptr(Ptr {
                    v: name,
                    space: super::address_space(space).unwrap_or(AS_PRIVATE),
                    root: None,
                    offset: None,
                    ok: None,
                }),
                _ => Value::Val(Val::new(ty, name)),
            };
            e.args.push(value);
        }
        for (param, index, is_size) in Self::hidden_params(m) {
            params.push(param);
            let space = match m.globals[index] {
                GlobalKind::Private => AS_PRIVATE,
                GlobalKind::Immediate => AS_CONSTANT,
                _ => super::types::AS_GLOBAL,
            };
            let slot = e.globals[index].get_or_insert(GlobalRef {
                ptr: format!("%gv{index}"),
                space,
                size: None,
            });
            if is_size {
                slot.size = Some(format!("%gv{index}.size"));
            }
        }
        for (index, kind) in m.globals.iter().enumerate() {
            if let GlobalKind::Workgroup = kind {
                e.globals[index] = Some(GlobalRef {
                    ptr: format!("@{}", m.symbol(&format!("wg.{index}"))),
                    space: super::types::AS_LOCAL,
                    size: None,
                });
            }
        }
        e.ret_ty = match fun.result {
            Some(ref r) => Some(m.lowered_ty_of(r.ty, span)?),
            None => None,
        };
        e.init_locals()?;
        e.block(&fun.body)?;
        match &e.ret_ty {
            None => e.br_ret_void(),
            Some(_) => {
                if !e.terminated {
                    e.terminate("unreachable");
                }
            }
        }
        let ret = e.ret_ty.clone().unwrap_or_else(|| "void".into());
        let mut text = String::new();
        let _ = writeln!(
            text,
            "define internal {ret} @{}({}) alwaysinline nounwind {{",
            m.symbol(&format!("f.{}", handle.index())),
            params.join(", ")
        );
        text.push_str("entry:\n");
        text.push_str(&e.allocas);
        text.push_str(&e.out);
        text.push_str("}\n");
        Ok(text)
    }

    /// `ret void` unless the block already ended.
    pub(crate) fn br_ret_void(&mut self) {
        if !self.terminated {
            self.terminate("ret void");
        }
    }
}
