//! Pointers and memory: access chains with robust bounds handling, loads,
//! stores, arrayLength.
//!
//! Addresses are byte offsets (`getelementptr i8`) from naga's layout.
//! Robustness (WGSL "out-of-bounds access"): a dynamic index is clamped to
//! the last element, so every load and atomic touches memory of the same
//! variable. In workgroup, private and function memory a store goes to the
//! clamped element too (naga's `Restrict` policy, which wgpu applies there
//! on every backend and its `oob_indexing` test checks). Into a buffer a
//! store also carries the unclamped index's in-bounds condition and is
//! skipped when it is false (writes out of bounds are dropped, as robust
//! buffer access does).
//! Runtime-sized arrays take their length from the binding's byte-size
//! kernel argument: `(size - array_offset) / stride`.

use naga::{Handle, Scalar, ScalarKind, TypeInner};

use super::func::{FnEmitter, Ptr, Val, Value};
use super::types::{column_stride, scalar_bytes, scalar_ty, vec_len};
use crate::error::{EmitResult, unsupported};

/// AMDGPU's address spaces for workgroup (LDS) and private (scratch,
/// function-local) memory (LLVM AMDGPUUsage, "Address Spaces").
const ADDRSPACE_LOCAL: u32 = 3;
const ADDRSPACE_PRIVATE: u32 = 5;

/// The most elements a whole-array load or store is unrolled into.
const MAX_UNROLLED_ELEMENTS: u32 = 1024;

/// What a pointer points to.
#[derive(Clone, Debug)]
pub(crate) enum Pointee {
    Handle(Handle<naga::Type>),
    Inner(TypeInner),
}

/// An index operand: a constant or an i32 value.
#[derive(Clone, Debug)]
pub(crate) enum Index {
    Const(u32),
    Dyn(Val),
}

impl FnEmitter<'_> {
    pub(crate) fn pointee_inner<'p>(&'p self, p: &'p Pointee) -> &'p TypeInner {
        match p {
            Pointee::Handle(h) => &self.m.module.types[*h].inner,
            Pointee::Inner(i) => i,
        }
    }

    /// What the pointer expression `h` points to.
    pub(crate) fn pointee_of(&self, h: Handle<naga::Expression>) -> EmitResult<Pointee> {
        match *self.inner_of(h) {
            TypeInner::Pointer { base, .. } => Ok(Pointee::Handle(base)),
            TypeInner::ValuePointer {
                size: Some(size),
                scalar,
                ..
            } => Ok(Pointee::Inner(TypeInner::Vector { size, scalar })),
            TypeInner::ValuePointer {
                size: None, scalar, ..
            } => Ok(Pointee::Inner(TypeInner::Scalar(scalar))),
            _ => unsupported("a non-pointer where a pointer is needed", self.span_of(h)),
        }
    }

    /// `p + offset` (offset: an i64 operand text).
    fn gep(&mut self, p: &Ptr, offset: &str) -> String {
        self.def(&format!(
            "getelementptr inbounds i8, ptr addrspace({}) {}, i64 {offset}",
            p.space, p.v
        ))
    }

    /// A pointer `bytes` past `p` (constant offset).
    pub(crate) fn offset_ptr(&mut self, p: &Ptr, bytes: u32) -> Ptr {
        let v = if bytes == 0 {
            p.v.clone()
        } else {
            self.gep(p, &bytes.to_string())
        };
        Ptr {
            v,
            space: p.space,
            root: p.root,
            offset: p.offset.map(|o| o + bytes),
            ok: p.ok.clone(),
        }
    }

    /// AND two optional in-bounds conditions.
    fn and_ok(&mut self, a: Option<String>, b: String) -> String {
        match a {
            Some(a) => self.def(&format!("and i1 {a}, {b}")),
            None => b,
        }
    }

    /// The element count of the runtime-sized array `p` points at (an i32).
    pub(crate) fn runtime_len(&mut self, p: &Ptr, span: naga::Span) -> EmitResult<String> {
        let Some(root) = p.root else {
            return unsupported("a runtime-sized array not reached from its buffer", span);
        };
        let Some((array_offset, stride)) = (match self.m.globals[root] {
            super::GlobalKind::Buffer { runtime, .. } => runtime,
            _ => None,
        }) else {
            return unsupported("a runtime-sized array outside a storage buffer", span);
        };
        if p.offset != Some(array_offset) {
            return unsupported("a runtime-sized array at an unexpected offset", span);
        }
        let Some(size) = self.globals[root].as_ref().and_then(|g| g.size.clone()) else {
            return unsupported("a runtime-sized array without its size argument", span);
        };
        let avail = self.def(&format!(
            "call i32 @llvm.usub.sat.i32(i32 {size}, i32 {array_offset})"
        ));
        self.m
            .declare("declare i32 @llvm.usub.sat.i32(i32, i32)".into());
        Ok(self.def(&format!("udiv i32 {avail}, {stride}")))
    }

    /// Clamp a dynamic index to `[0, len)` given `last = len - 1` (i32
    /// operand texts); returns (clamped i64 index, in-bounds i1).
    fn clamp_index(&mut self, idx: &Val, last: &str, len: &str) -> (String, String) {
        let idx32 = self.index_as_i32(idx);
        self.m
            .declare("declare i32 @llvm.umin.i32(i32, i32)".into());
        let clamped = self.def(&format!("call i32 @llvm.umin.i32(i32 {idx32}, i32 {last})"));
        let ok = self.def(&format!("icmp ult i32 {idx32}, {len}"));
        let wide = self.def(&format!("zext i32 {clamped} to i64"));
        (wide, ok)
    }

    fn index_as_i32(&mut self, idx: &Val) -> String {
        match idx.ty.as_str() {
            "i32" => idx.v.clone(),
            "i64" => self.def(&format!("trunc i64 {} to i32", idx.v)),
            other => self.def(&format!("zext {other} {} to i32", idx.v)),
        }
    }

    /// Index an element of a fixed-length sequence (`len` elements of
    /// `stride` bytes).
    fn index_fixed(&mut self, p: &Ptr, index: &Index, len: u32, stride: u32) -> Ptr {
        match index {
            Index::Const(i) => {
                let i = (*i).min(len.saturating_sub(1));
                self.offset_ptr(p, i * stride)
            }
            Index::Dyn(v) => {
                let (wide, ok) =
                    self.clamp_index(v, &len.saturating_sub(1).to_string(), &len.to_string());
                let off = self.def(&format!("mul i64 {wide}, {stride}"));
                let gv = self.gep(p, &off);
                let ok = if matches!(p.space, ADDRSPACE_LOCAL | ADDRSPACE_PRIVATE) {
                    p.ok.clone()
                } else {
                    Some(self.and_ok(p.ok.clone(), ok))
                };
                Ptr {
                    v: gv,
                    space: p.space,
                    root: p.root,
                    offset: None,
                    ok,
                }
            }
        }
    }

    /// A pointer to member/element `index` of what `p` points at.
    pub(crate) fn access_ptr(
        &mut self,
        p: &Ptr,
        pointee: &Pointee,
        index: Index,
        span: naga::Span,
    ) -> EmitResult<(Ptr, Pointee)> {
        let inner = self.pointee_inner(pointee).clone();
        match inner {
            TypeInner::Struct { ref members, .. } => {
                let Index::Const(i) = index else {
                    return unsupported("a dynamic struct member index", span);
                };
                let Some(member) = members.get(i as usize) else {
                    return unsupported("a struct member index out of range", span);
                };
                Ok((
                    self.offset_ptr(p, member.offset),
                    Pointee::Handle(member.ty),
                ))
            }
            TypeInner::Array { base, size, stride } => {
                let elem = Pointee::Handle(base);
                let fixed = self.m.fixed_array_len(size);
                match size {
                    naga::ArraySize::Constant(_) | naga::ArraySize::Pending(_) => match fixed {
                        Some(n) => Ok((self.index_fixed(p, &index, n, stride), elem)),
                        None => {
                            unsupported("an array whose override-sized length has no value", span)
                        }
                    },
                    naga::ArraySize::Dynamic => {
                        let len = self.runtime_len(p, span)?;
                        let is_empty = self.def(&format!("icmp eq i32 {len}, 0"));
                        let minus = self.def(&format!("sub i32 {len}, 1"));
                        let last = self.def(&format!("select i1 {is_empty}, i32 0, i32 {minus}"));
                        let idx = match index {
                            Index::Const(c) => Val::new("i32", c.to_string()),
                            Index::Dyn(v) => v,
                        };
                        let (wide, ok) = self.clamp_index(&idx, &last, &len);
                        let off = self.def(&format!("mul i64 {wide}, {stride}"));
                        let gv = self.gep(p, &off);
                        let ok = self.and_ok(p.ok.clone(), ok);
                        Ok((
                            Ptr {
                                v: gv,
                                space: p.space,
                                root: p.root,
                                offset: None,
                                ok: Some(ok),
                            },
                            elem,
                        ))
                    }
                }
            }
            TypeInner::Vector { size, scalar } => Ok((
                self.index_fixed(p, &index, vec_len(size), scalar_bytes(scalar)),
                Pointee::Inner(TypeInner::Scalar(scalar)),
            )),
            TypeInner::Matrix {
                columns,
                rows,
                scalar,
            } => Ok((
                self.index_fixed(
                    p,
                    &index,
                    vec_len(columns),
                    column_stride(vec_len(rows), scalar_bytes(scalar)),
                ),
                Pointee::Inner(TypeInner::Vector { size: rows, scalar }),
            )),
            ref other => unsupported(
                format!("indexing into a {}", super::types::type_kind_name(other)),
                span,
            ),
        }
    }

    /// The atomic scope of an address space.
    pub(crate) fn sync_scope(space: u32) -> &'static str {
        if space == super::types::AS_LOCAL {
            "syncscope(\"workgroup\")"
        } else {
            "syncscope(\"agent\")"
        }
    }

    /// Load the value `p` points at.
    pub(crate) fn load_value(
        &mut self,
        p: &Ptr,
        pointee: Pointee,
        span: naga::Span,
    ) -> EmitResult<Val> {
        let inner = self.pointee_inner(&pointee).clone();
        let ty = self.m.lowered_ty(&inner, span)?;
        let pt = format!("ptr addrspace({})", p.space);
        match inner {
            TypeInner::Scalar(s) if s.kind == ScalarKind::Bool => {
                let byte = self.def(&format!("load i8, {pt} {}, align 1", p.v));
                Ok(self.defv("i1", &format!("icmp ne i8 {byte}, 0")))
            }
            TypeInner::Scalar(s) => {
                Ok(self.defv(&ty, &format!("load {ty}, {pt} {}, align {}", p.v, s.width)))
            }
            TypeInner::Atomic(s) => Ok(self.defv(
                &ty,
                &format!(
                    "load atomic {ty}, {pt} {} {} monotonic, align {}",
                    p.v,
                    Self::sync_scope(p.space),
                    s.width
                ),
            )),
            TypeInner::Vector { scalar, .. } | TypeInner::CooperativeMatrix { scalar, .. }
                if scalar.kind != ScalarKind::Bool =>
            {
                Ok(self.defv(
                    &ty,
                    &format!("load {ty}, {pt} {}, align {}", p.v, scalar.width),
                ))
            }
            TypeInner::Vector { size, scalar } => {
                let mut acc = Val::new(&ty, "poison");
                for i in 0..vec_len(size) {
                    let q = self.offset_ptr(p, i);
                    let c = self.load_value(&q, Pointee::Inner(TypeInner::Scalar(scalar)), span)?;
                    acc = self.defv(
                        &ty,
                        &format!("insertelement {}, i1 {}, i32 {i}", acc.typed(), c.v),
                    );
                }
                Ok(acc)
            }
            TypeInner::Matrix {
                columns,
                rows,
                scalar,
            } => {
                let stride = column_stride(vec_len(rows), scalar_bytes(scalar));
                let mut acc = Val::new(&ty, "poison");
                for c in 0..vec_len(columns) {
                    let q = self.offset_ptr(p, c * stride);
                    let col = self.load_value(
                        &q,
                        Pointee::Inner(TypeInner::Vector { size: rows, scalar }),
                        span,
                    )?;
                    acc = self.defv(
                        &ty,
                        &format!("insertvalue {}, {}, {c}", acc.typed(), col.typed()),
                    );
                }
                Ok(acc)
            }
            TypeInner::Array { base, size, stride } if self.m.fixed_array_len(size).is_some() => {
                let n = self.m.fixed_array_len(size).unwrap_or_default();
                if n > MAX_UNROLLED_ELEMENTS {
                    return unsupported(
                        format!(
                            "loading a whole array of more than {MAX_UNROLLED_ELEMENTS} elements"
                        ),
                        span,
                    );
                }
                let mut acc = Val::new(&ty, "poison");
                for i in 0..n {
                    let q = self.offset_ptr(p, i * stride);
                    let e = self.load_value(&q, Pointee::Handle(base), span)?;
                    acc = self.defv(
                        &ty,
                        &format!("insertvalue {}, {}, {i}", acc.typed(), e.typed()),
                    );
                }
                Ok(acc)
            }
            TypeInner::Struct { ref members, .. } => {
                let mut acc = Val::new(&ty, "poison");
                for (i, m) in members.iter().enumerate() {
                    let q = self.offset_ptr(p, m.offset);
                    let e = self.load_value(&q, Pointee::Handle(m.ty), span)?;
                    acc = self.defv(
                        &ty,
                        &format!("insertvalue {}, {}, {i}", acc.typed(), e.typed()),
                    );
                }
                Ok(acc)
            }
            ref other => unsupported(
                format!("loading a {}", super::types::type_kind_name(other)),
                span,
            ),
        }
    }

    /// Store `value` through `p`, skipped when `p` is out of bounds.
    pub(crate) fn store_value(
        &mut self,
        p: &Ptr,
        pointee: Pointee,
        value: &Val,
        span: naga::Span,
    ) -> EmitResult<()> {
        match p.ok.clone() {
            None => self.store_unchecked(p, pointee, value, span),
            Some(ok) => {
                let store = self.label("store");
                let done = self.label("stored");
                self.terminate(&format!("br i1 {ok}, label %{store}, label %{done}"));
                self.start_block(&store);
                self.store_unchecked(p, pointee, value, span)?;
                self.br_if_open(&done);
                self.start_block(&done);
                Ok(())
            }
        }
    }

    fn store_unchecked(
        &mut self,
        p: &Ptr,
        pointee: Pointee,
        value: &Val,
        span: naga::Span,
    ) -> EmitResult<()> {
        let inner = self.pointee_inner(&pointee).clone();
        let pt = format!("ptr addrspace({})", p.space);
        match inner {
            TypeInner::Scalar(s) if s.kind == ScalarKind::Bool => {
                let byte = self.def(&format!("zext i1 {} to i8", value.v));
                self.inst(&format!("store i8 {byte}, {pt} {}, align 1", p.v));
            }
            TypeInner::Scalar(s) => {
                self.inst(&format!(
                    "store {}, {pt} {}, align {}",
                    value.typed(),
                    p.v,
                    s.width
                ));
            }
            TypeInner::Atomic(s) => {
                self.inst(&format!(
                    "store atomic {}, {pt} {} {} monotonic, align {}",
                    value.typed(),
                    p.v,
                    Self::sync_scope(p.space),
                    s.width
                ));
            }
            TypeInner::Vector { scalar, .. } | TypeInner::CooperativeMatrix { scalar, .. }
                if scalar.kind != ScalarKind::Bool =>
            {
                self.inst(&format!(
                    "store {}, {pt} {}, align {}",
                    value.typed(),
                    p.v,
                    scalar.width
                ));
            }
            TypeInner::Vector { size, scalar } => {
                for i in 0..vec_len(size) {
                    let c = self.defv("i1", &format!("extractelement {}, i32 {i}", value.typed()));
                    let q = self.offset_ptr(p, i);
                    self.store_unchecked(&q, Pointee::Inner(TypeInner::Scalar(scalar)), &c, span)?;
                }
            }
            TypeInner::Matrix {
                columns,
                rows,
                scalar,
            } => {
                let stride = column_stride(vec_len(rows), scalar_bytes(scalar));
                let col_ty = format!(
                    "<{} x {}>",
                    vec_len(rows),
                    scalar_ty(scalar).unwrap_or("float")
                );
                for c in 0..vec_len(columns) {
                    let col = self.defv(&col_ty, &format!("extractvalue {}, {c}", value.typed()));
                    let q = self.offset_ptr(p, c * stride);
                    self.store_unchecked(
                        &q,
                        Pointee::Inner(TypeInner::Vector { size: rows, scalar }),
                        &col,
                        span,
                    )?;
                }
            }
            TypeInner::Array { base, size, stride } if self.m.fixed_array_len(size).is_some() => {
                let n = self.m.fixed_array_len(size).unwrap_or_default();
                if n > MAX_UNROLLED_ELEMENTS {
                    return unsupported(
                        format!(
                            "storing a whole array of more than {MAX_UNROLLED_ELEMENTS} elements"
                        ),
                        span,
                    );
                }
                let ety = self.m.lowered_ty_of(base, span)?;
                for i in 0..n {
                    let e = self.defv(&ety, &format!("extractvalue {}, {i}", value.typed()));
                    let q = self.offset_ptr(p, i * stride);
                    self.store_unchecked(&q, Pointee::Handle(base), &e, span)?;
                }
            }
            TypeInner::Struct { ref members, .. } => {
                for (i, m) in members.iter().enumerate() {
                    let ety = self.m.lowered_ty_of(m.ty, span)?;
                    let e = self.defv(&ety, &format!("extractvalue {}, {i}", value.typed()));
                    let q = self.offset_ptr(p, m.offset);
                    self.store_unchecked(&q, Pointee::Handle(m.ty), &e, span)?;
                }
            }
            ref other => {
                return unsupported(
                    format!("storing a {}", super::types::type_kind_name(other)),
                    span,
                );
            }
        }
        Ok(())
    }

    /// A pointer-typed expression `Access`/`AccessIndex` step.
    pub(crate) fn access_expr(
        &mut self,
        h: Handle<naga::Expression>,
        base: Handle<naga::Expression>,
        index: Index,
    ) -> EmitResult<Value> {
        let p = self.ptr(base)?;
        let pointee = self.pointee_of(base)?;
        let (q, _) = self.access_ptr(&p, &pointee, index, self.span_of(h))?;
        Ok(Value::Ptr(q))
    }

    /// `arrayLength(p)` as an i32 value.
    pub(crate) fn array_length(
        &mut self,
        h: Handle<naga::Expression>,
        p: Handle<naga::Expression>,
    ) -> EmitResult<Val> {
        let ptr = self.ptr(p)?;
        let len = self.runtime_len(&ptr, self.span_of(h))?;
        Ok(Val::new("i32", len))
    }

    /// Scalar helper: the naga scalar of a value type (for vectors, the
    /// element scalar).
    pub(crate) fn scalar_of(inner: &TypeInner) -> Option<Scalar> {
        match *inner {
            TypeInner::Scalar(s) | TypeInner::Atomic(s) => Some(s),
            TypeInner::Vector { scalar, .. }
            | TypeInner::Matrix { scalar, .. }
            | TypeInner::CooperativeMatrix { scalar, .. } => Some(scalar),
            _ => None,
        }
    }
}
