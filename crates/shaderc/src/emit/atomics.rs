//! Atomics, barriers and workgroupUniformLoad.
//!
//! WGSL atomics are relaxed: `atomicrmw`/`cmpxchg` with `monotonic`
//! ordering, at `syncscope("agent")` for storage memory and
//! `syncscope("workgroup")` for workgroup memory. workgroupBarrier and
//! storageBarrier are a workgroup-scope release fence, `s_barrier`, and an
//! acquire fence (LLVM's AMDGPU memory model turns the fences into the
//! right waits and cache invalidations, global memory included).

use naga::{AtomicFunction, Barrier, Expression, Handle, ScalarKind, TypeInner};

use super::func::{FnEmitter, Val, Value};
use crate::error::{EmitResult, unsupported};

impl FnEmitter<'_> {
    /// fence release; s_barrier; fence acquire (all workgroup scope).
    fn barrier(&mut self) {
        self.m
            .declare("declare void @llvm.amdgcn.s.barrier()".into());
        self.inst("fence syncscope(\"workgroup\") release");
        self.inst("call void @llvm.amdgcn.s.barrier()");
        self.inst("fence syncscope(\"workgroup\") acquire");
    }

    pub(crate) fn control_barrier(&mut self, flags: Barrier) {
        if flags == Barrier::SUB_GROUP {
            self.m
                .declare("declare void @llvm.amdgcn.wave.barrier()".into());
            self.inst("call void @llvm.amdgcn.wave.barrier()");
        } else {
            self.barrier();
        }
    }

    pub(crate) fn memory_barrier(&mut self, flags: Barrier) {
        let scope = if flags.contains(Barrier::STORAGE) {
            "agent"
        } else {
            "workgroup"
        };
        self.inst(&format!("fence syncscope(\"{scope}\") acq_rel"));
    }

    pub(crate) fn atomic(
        &mut self,
        pointer: Handle<Expression>,
        fun: &AtomicFunction,
        value: Handle<Expression>,
        result: Option<Handle<Expression>>,
        span: naga::Span,
    ) -> EmitResult<()> {
        let p = self.ptr(pointer)?;
        let v = self.val(value)?;
        let pointee = self.pointee_of(pointer)?;
        let scalar = match *self.pointee_inner(&pointee) {
            TypeInner::Atomic(s) => s,
            _ => return unsupported("an atomic operation on a non-atomic", span),
        };
        let scope = Self::sync_scope(p.space);
        let pt = format!("ptr addrspace({}) {}", p.space, p.v);
        let width = scalar.width;
        let float = scalar.kind == ScalarKind::Float;
        let signed = scalar.kind == ScalarKind::Sint;
        let op = match *fun {
            AtomicFunction::Add if float => "fadd",
            AtomicFunction::Subtract if float => "fsub",
            AtomicFunction::Add => "add",
            AtomicFunction::Subtract => "sub",
            AtomicFunction::And => "and",
            AtomicFunction::InclusiveOr => "or",
            AtomicFunction::ExclusiveOr => "xor",
            AtomicFunction::Min if float => "fmin",
            AtomicFunction::Max if float => "fmax",
            AtomicFunction::Min if signed => "min",
            AtomicFunction::Max if signed => "max",
            AtomicFunction::Min => "umin",
            AtomicFunction::Max => "umax",
            AtomicFunction::Exchange { compare: None } => "xchg",
            AtomicFunction::Exchange { compare: Some(cmp) } => {
                let c = self.val(cmp)?;
                let pair_ty = format!("{{ {}, i1 }}", v.ty);
                let r = self.defv(
                    &pair_ty,
                    &format!(
                        "cmpxchg {pt}, {}, {} {scope} monotonic monotonic, align {width}",
                        c.typed(),
                        v.typed()
                    ),
                );
                if let Some(res) = result {
                    self.values[res.index()] = Some(Value::Val(r));
                }
                return Ok(());
            }
        };
        let r = self.defv(
            &v.ty,
            &format!(
                "atomicrmw {op} {pt}, {} {scope} monotonic, align {width}",
                v.typed()
            ),
        );
        if let Some(res) = result {
            self.values[res.index()] = Some(Value::Val(r));
        }
        Ok(())
    }

    pub(crate) fn workgroup_uniform_load(
        &mut self,
        pointer: Handle<Expression>,
        result: Handle<Expression>,
        span: naga::Span,
    ) -> EmitResult<()> {
        let p = self.ptr(pointer)?;
        let pointee = self.pointee_of(pointer)?;
        self.barrier();
        let v: Val = self.load_value(&p, pointee, span)?;
        self.barrier();
        self.values[result.index()] = Some(Value::Val(v));
        Ok(())
    }
}
