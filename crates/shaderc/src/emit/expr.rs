//! Expressions: constants, composites, swizzles, value indexing, unary and
//! binary operators (with WGSL's integer division and shift rules, matrix
//! arithmetic), select, relational functions and conversions.

use naga::{BinaryOperator, Expression, Handle, ScalarKind, TypeInner, UnaryOperator};

use super::consts::{Const, zero_scalar};
use super::func::{FnEmitter, Ptr, Val, Value};
use super::memory::Index;
use super::types::{mangle, split_vector, vec_len};
use crate::error::{EmitResult, UnsupportedKind, unsupported, unsupported_as};

/// A scalar constant text splatted to `ty` when `ty` is a vector.
pub(crate) fn splat_const(ty: &str, scalar: &str) -> String {
    let (elem, n) = split_vector(ty);
    match n {
        Some(n) => {
            let parts: Vec<String> = (0..n).map(|_| format!("{elem} {scalar}")).collect();
            format!("<{}>", parts.join(", "))
        }
        None => scalar.to_string(),
    }
}

impl FnEmitter<'_> {
    fn const_value(&self, c: Const) -> Value {
        Value::Val(Val::new(c.ty(), c.text()))
    }

    /// A constant u32 index, when `h` is a constant.
    fn const_index(&self, h: Handle<Expression>) -> Option<u32> {
        match self.try_const(h)? {
            Const::Scalar(_, text) => text.parse::<i64>().ok().map(|v| v as u32),
            _ => None,
        }
    }

    pub(crate) fn eval(&mut self, h: Handle<Expression>) -> EmitResult<Value> {
        let span = self.span_of(h);
        let fun = self.fun;
        match fun.expressions[h] {
            Expression::Literal(_)
            | Expression::Constant(_)
            | Expression::ZeroValue(_)
            | Expression::Override(_) => match self.m.const_expr(&fun.expressions, h) {
                Ok(c) => Ok(self.const_value(c)),
                Err(e) => unsupported(e, span),
            },
            Expression::Compose { ty, ref components } => {
                if let Some(c) = self.try_const(h) {
                    return Ok(self.const_value(c));
                }
                self.compose(ty, components, span).map(Value::Val)
            }
            Expression::Splat { size, value } => {
                if let Some(c) = self.try_const(h) {
                    return Ok(self.const_value(c));
                }
                let v = self.val(value)?;
                Ok(Value::Val(self.splat(&v, vec_len(size))))
            }
            Expression::Access { base, index } => {
                let is_ptr = matches!(
                    *self.inner_of(base),
                    TypeInner::Pointer { .. } | TypeInner::ValuePointer { .. }
                );
                let idx = match self.const_index(index) {
                    Some(c) => Index::Const(c),
                    None => Index::Dyn(self.val(index)?),
                };
                if is_ptr {
                    self.access_expr(h, base, idx)
                } else {
                    self.access_value(h, base, idx).map(Value::Val)
                }
            }
            Expression::AccessIndex { base, index } => {
                let is_ptr = matches!(
                    *self.inner_of(base),
                    TypeInner::Pointer { .. } | TypeInner::ValuePointer { .. }
                );
                if is_ptr {
                    self.access_expr(h, base, Index::Const(index))
                } else {
                    self.access_value(h, base, Index::Const(index))
                        .map(Value::Val)
                }
            }
            Expression::Swizzle {
                size,
                vector,
                pattern,
            } => {
                let v = self.val(vector)?;
                let n = vec_len(size) as usize;
                let mask: Vec<String> = pattern[..n]
                    .iter()
                    .map(|c| format!("i32 {}", *c as u32))
                    .collect();
                let ty = self.ty_of(h)?;
                Ok(Value::Val(self.defv(
                    &ty,
                    &format!(
                        "shufflevector {}, {} poison, <{n} x i32> <{}>",
                        v.typed(),
                        v.ty,
                        mask.join(", ")
                    ),
                )))
            }
            Expression::FunctionArgument(i) => match self.args.get(i as usize) {
                Some(v) => Ok(v.clone()),
                None => unsupported_as(
                    UnsupportedKind::NonComputeBuiltin,
                    "an entry point argument without a compute builtin",
                    span,
                ),
            },
            Expression::GlobalVariable(g) => {
                let Some(gr) = self.globals[g.index()].clone() else {
                    return match &self.m.globals[g.index()] {
                        super::GlobalKind::Unsupported(kind, what) => {
                            unsupported_as(*kind, what.clone(), span)
                        }
                        _ => unsupported("this global variable here", span),
                    };
                };
                match self.m.globals[g.index()] {
                    super::GlobalKind::Texture { .. } => {
                        return Ok(Value::Val(Val::new(super::image::DESCRIPTOR_TY, gr.ptr)));
                    }
                    super::GlobalKind::Sampler { .. } => {
                        return Ok(Value::Val(Val::new(super::image::SAMPLER_TY, gr.ptr)));
                    }
                    _ => {}
                }
                Ok(Value::Ptr(Ptr {
                    v: gr.ptr,
                    space: gr.space,
                    root: Some(g.index()),
                    offset: Some(0),
                    ok: None,
                }))
            }
            Expression::LocalVariable(l) => Ok(Value::Ptr(Ptr {
                v: self.locals[l.index()].clone(),
                space: super::types::AS_PRIVATE,
                root: None,
                offset: None,
                ok: None,
            })),
            Expression::Load { pointer } => {
                let p = self.ptr(pointer)?;
                let pointee = self.pointee_of(pointer)?;
                self.load_value(&p, pointee, span).map(Value::Val)
            }
            Expression::Unary { op, expr } => self.unary(h, op, expr).map(Value::Val),
            Expression::Binary { op, left, right } => {
                self.binary(h, op, left, right).map(Value::Val)
            }
            Expression::Select {
                condition,
                accept,
                reject,
            } => {
                let c = self.val(condition)?;
                let a = self.val(accept)?;
                let r = self.val(reject)?;
                Ok(Value::Val(self.defv(
                    &a.ty,
                    &format!("select {}, {}, {}", c.typed(), a.typed(), r.typed()),
                )))
            }
            Expression::Relational { fun, argument } => {
                self.relational(fun, argument).map(Value::Val)
            }
            Expression::Math {
                fun,
                arg,
                arg1,
                arg2,
                arg3,
            } => self.math(h, fun, arg, arg1, arg2, arg3).map(Value::Val),
            Expression::As {
                expr,
                kind,
                convert,
            } => self.convert(h, expr, kind, convert).map(Value::Val),
            Expression::ArrayLength(p) => self.array_length(h, p).map(Value::Val),
            Expression::CallResult(_)
            | Expression::AtomicResult { .. }
            | Expression::WorkGroupUniformLoadResult { .. }
            | Expression::SubgroupBallotResult
            | Expression::SubgroupOperationResult { .. } => unsupported(
                "internal: a statement result used before its statement",
                span,
            ),
            Expression::ImageSample {
                image,
                sampler,
                gather,
                coordinate,
                array_index,
                offset,
                level,
                depth_ref,
                clamp_to_edge,
            } => self
                .image_sample(
                    h,
                    super::image::SampleOperands {
                        image,
                        sampler,
                        gather,
                        coordinate,
                        array_index,
                        offset,
                        level,
                        depth_ref,
                        clamp_to_edge,
                    },
                )
                .map(Value::Val),
            Expression::ImageLoad {
                image,
                coordinate,
                array_index,
                sample,
                level,
            } => self
                .image_load(h, image, coordinate, array_index, sample, level)
                .map(Value::Val),
            Expression::ImageQuery { image, query } => {
                self.image_query(image, query).map(Value::Val)
            }
            Expression::Derivative { .. } => unsupported_as(
                UnsupportedKind::Derivatives,
                "derivatives (fragment shaders only)",
                span,
            ),
            Expression::RayQueryVertexPositions { .. }
            | Expression::RayQueryProceedResult
            | Expression::RayQueryGetIntersection { .. } => {
                unsupported_as(UnsupportedKind::RayQueries, "ray queries", span)
            }
            Expression::CooperativeLoad { ref data, .. } => self.coop_load(h, data).map(Value::Val),
            Expression::CooperativeMultiplyAdd { a, b, c } => {
                self.coop_multiply_add(h, a, b, c).map(Value::Val)
            }
        }
    }

    /// `<n x T>` with every lane `v`.
    pub(crate) fn splat(&mut self, v: &Val, n: u32) -> Val {
        let ty = format!("<{n} x {}>", v.ty);
        let one = self.def(&format!(
            "insertelement <{n} x {}> poison, {}, i32 0",
            v.ty,
            v.typed()
        ));
        self.defv(
            &ty,
            &format!("shufflevector {ty} {one}, {ty} poison, <{n} x i32> zeroinitializer"),
        )
    }

    /// Splat `v` to the vector type `like` when `v` is a scalar and `like`
    /// a vector.
    pub(crate) fn splat_like(&mut self, v: Val, like: &str) -> Val {
        let (_, n) = split_vector(like);
        match (n, split_vector(&v.ty).1) {
            (Some(n), None) => self.splat(&v, n),
            _ => v,
        }
    }

    fn compose(
        &mut self,
        ty: Handle<naga::Type>,
        components: &[Handle<Expression>],
        span: naga::Span,
    ) -> EmitResult<Val> {
        let lty = self.m.lowered_ty_of(ty, span)?;
        let mut acc = Val::new(&lty, "poison");
        match self.m.module.types[ty].inner {
            TypeInner::Vector { .. } => {
                let mut lane = 0;
                for &c in components {
                    let v = self.val(c)?;
                    let (elem, n) = split_vector(&v.ty);
                    match n {
                        None => {
                            acc = self.defv(
                                &lty,
                                &format!(
                                    "insertelement {}, {}, i32 {lane}",
                                    acc.typed(),
                                    v.typed()
                                ),
                            );
                            lane += 1;
                        }
                        Some(n) => {
                            for i in 0..n {
                                let e = self.def(&format!("extractelement {}, i32 {i}", v.typed()));
                                acc = self.defv(
                                    &lty,
                                    &format!(
                                        "insertelement {}, {elem} {e}, i32 {lane}",
                                        acc.typed()
                                    ),
                                );
                                lane += 1;
                            }
                        }
                    }
                }
            }
            _ => {
                for (i, &c) in components.iter().enumerate() {
                    let v = self.val(c)?;
                    acc = self.defv(
                        &lty,
                        &format!("insertvalue {}, {}, {i}", acc.typed(), v.typed()),
                    );
                }
            }
        }
        Ok(acc)
    }

    /// Index into a value (not through a pointer).
    fn access_value(
        &mut self,
        h: Handle<Expression>,
        base: Handle<Expression>,
        index: Index,
    ) -> EmitResult<Val> {
        let span = self.span_of(h);
        let v = self.val(base)?;
        let rty = self.ty_of(h)?;
        let inner = self.inner_of(base).clone();
        match (&inner, index) {
            (TypeInner::Vector { size, .. }, index) => {
                let i = match index {
                    Index::Const(c) => c.min(vec_len(*size) - 1).to_string(),
                    Index::Dyn(d) => {
                        self.m
                            .declare("declare i32 @llvm.umin.i32(i32, i32)".into());
                        self.def(&format!(
                            "call i32 @llvm.umin.i32({}, i32 {})",
                            d.typed(),
                            vec_len(*size) - 1
                        ))
                    }
                };
                Ok(self.defv(&rty, &format!("extractelement {}, i32 {i}", v.typed())))
            }
            (_, Index::Const(c)) => {
                Ok(self.defv(&rty, &format!("extractvalue {}, {c}", v.typed())))
            }
            (TypeInner::Array { size, .. }, Index::Dyn(d))
                if self.m.fixed_array_len(*size).is_some() =>
            {
                let n = self.m.fixed_array_len(*size).unwrap_or_default();
                self.spill_index(&v, &rty, n, &d)
            }
            (TypeInner::Matrix { columns, .. }, Index::Dyn(d)) => {
                self.spill_index(&v, &rty, vec_len(*columns), &d)
            }
            _ => unsupported("a dynamic index into this value", span),
        }
    }

    /// Dynamic indexing of an aggregate value: spill it to a stack slot
    /// (LLVM-typed, private to this access) and load the clamped element.
    fn spill_index(&mut self, v: &Val, elem_ty: &str, len: u32, idx: &Val) -> EmitResult<Val> {
        let slot = self.tmp();
        self.allocas
            .push_str(&format!("  {slot} = alloca {}, addrspace(5)\n", v.ty));
        self.inst(&format!("store {}, ptr addrspace(5) {slot}", v.typed()));
        self.m
            .declare("declare i32 @llvm.umin.i32(i32, i32)".into());
        let i = self.def(&format!(
            "call i32 @llvm.umin.i32({}, i32 {})",
            idx.typed(),
            len - 1
        ));
        let p = self.def(&format!(
            "getelementptr inbounds {}, ptr addrspace(5) {slot}, i32 0, i32 {i}",
            v.ty
        ));
        Ok(self.defv(elem_ty, &format!("load {elem_ty}, ptr addrspace(5) {p}")))
    }

    fn unary(
        &mut self,
        h: Handle<Expression>,
        op: UnaryOperator,
        expr: Handle<Expression>,
    ) -> EmitResult<Val> {
        let v = self.val(expr)?;
        let float =
            FnEmitter::scalar_of(self.inner_of(expr)).is_some_and(|s| s.kind == ScalarKind::Float);
        let rhs = match op {
            UnaryOperator::Negate if float => format!("fneg {}", v.typed()),
            UnaryOperator::Negate if matches!(self.inner_of(expr), TypeInner::Matrix { .. }) => {
                return self
                    .map_columns(&v, |e, col, cty| e.defv(cty, &format!("fneg {cty} {col}")));
            }
            UnaryOperator::Negate => format!("sub {} zeroinitializer, {}", v.ty, v.v),
            UnaryOperator::LogicalNot => {
                format!("xor {}, {}", v.typed(), splat_const(&v.ty, "true"))
            }
            UnaryOperator::BitwiseNot => {
                let ones = if split_vector(&v.ty).0 == "i1" {
                    "true"
                } else {
                    "-1"
                };
                format!("xor {}, {}", v.typed(), splat_const(&v.ty, ones))
            }
        };
        let _ = h;
        Ok(self.defv(&v.ty, &rhs))
    }

    /// Apply `f` to each column of a matrix value, rebuilding the matrix.
    fn map_columns(
        &mut self,
        m: &Val,
        mut f: impl FnMut(&mut Self, &str, &str) -> Val,
    ) -> EmitResult<Val> {
        let (cols, col_ty) = matrix_shape(&m.ty);
        let mut acc = Val::new(&m.ty, "poison");
        for c in 0..cols {
            let col = self.def(&format!("extractvalue {}, {c}", m.typed()));
            let r = f(self, &col, &col_ty);
            acc = self.defv(
                &m.ty,
                &format!("insertvalue {}, {}, {c}", acc.typed(), r.typed()),
            );
        }
        Ok(acc)
    }

    fn binary(
        &mut self,
        h: Handle<Expression>,
        op: BinaryOperator,
        left: Handle<Expression>,
        right: Handle<Expression>,
    ) -> EmitResult<Val> {
        let span = self.span_of(h);
        let lt = self.inner_of(left).clone();
        let rt = self.inner_of(right).clone();
        if matches!(lt, TypeInner::Matrix { .. }) || matches!(rt, TypeInner::Matrix { .. }) {
            return self.matrix_binary(h, op, left, right);
        }
        let mut l = self.val(left)?;
        let mut r = self.val(right)?;
        // WGSL allows vector op scalar (and scalar op vector).
        if op != BinaryOperator::ShiftLeft && op != BinaryOperator::ShiftRight {
            l = self.splat_like(l, &r.ty.clone());
            r = self.splat_like(r, &l.ty.clone());
        } else {
            r = self.splat_like(r, &l.ty.clone());
        }
        let Some(scalar) = FnEmitter::scalar_of(&lt) else {
            return unsupported("a binary operator on this type", span);
        };
        let kind = scalar.kind;
        let ty = l.ty.clone();
        let float = kind == ScalarKind::Float;
        let signed = kind == ScalarKind::Sint;
        let cmp_ty = self.ty_of(h)?;
        let (a, b) = (l.v.clone(), r.v.clone());
        use BinaryOperator as B;
        let rhs = match op {
            B::Add if float => format!("fadd {ty} {a}, {b}"),
            B::Add => format!("add {ty} {a}, {b}"),
            B::Subtract if float => format!("fsub {ty} {a}, {b}"),
            B::Subtract => format!("sub {ty} {a}, {b}"),
            B::Multiply if float => format!("fmul {ty} {a}, {b}"),
            B::Multiply => format!("mul {ty} {a}, {b}"),
            B::Divide if float => format!("fdiv {ty} {a}, {b}"),
            B::Modulo if float => format!("frem {ty} {a}, {b}"),
            B::Divide | B::Modulo => {
                return Ok(self.int_div(op == B::Divide, signed, &l, &r, scalar.width));
            }
            B::Equal if float => format!("fcmp oeq {ty} {a}, {b}"),
            B::NotEqual if float => format!("fcmp une {ty} {a}, {b}"),
            B::Less if float => format!("fcmp olt {ty} {a}, {b}"),
            B::LessEqual if float => format!("fcmp ole {ty} {a}, {b}"),
            B::Greater if float => format!("fcmp ogt {ty} {a}, {b}"),
            B::GreaterEqual if float => format!("fcmp oge {ty} {a}, {b}"),
            B::Equal => format!("icmp eq {ty} {a}, {b}"),
            B::NotEqual => format!("icmp ne {ty} {a}, {b}"),
            B::Less => format!("icmp {} {ty} {a}, {b}", if signed { "slt" } else { "ult" }),
            B::LessEqual => format!("icmp {} {ty} {a}, {b}", if signed { "sle" } else { "ule" }),
            B::Greater => format!("icmp {} {ty} {a}, {b}", if signed { "sgt" } else { "ugt" }),
            B::GreaterEqual => format!("icmp {} {ty} {a}, {b}", if signed { "sge" } else { "uge" }),
            B::And | B::LogicalAnd => format!("and {ty} {a}, {b}"),
            B::InclusiveOr | B::LogicalOr => format!("or {ty} {a}, {b}"),
            B::ExclusiveOr => format!("xor {ty} {a}, {b}"),
            B::ShiftLeft | B::ShiftRight => {
                let bits = u32::from(scalar.width) * 8;
                // The u32 amount widens for 64-bit values and narrows for
                // 16-bit ones (its low bits, all the mask below keeps).
                let mut amount = r.clone();
                if r.ty != ty {
                    let cast = if bits < 32 { "trunc" } else { "zext" };
                    amount = self.defv(&ty, &format!("{cast} {} to {ty}", r.typed()));
                }
                let masked = self.def(&format!(
                    "and {ty} {}, {}",
                    amount.v,
                    splat_const(&ty, &(bits - 1).to_string())
                ));
                let inst = match op {
                    B::ShiftLeft => "shl",
                    _ if signed => "ashr",
                    _ => "lshr",
                };
                format!("{inst} {ty} {a}, {masked}")
            }
        };
        Ok(self.defv(&cmp_ty, &rhs))
    }

    /// Integer division / remainder with WGSL's rules: a zero divisor (and
    /// signed MIN / -1) make the divisor 1, so x / 0 = x and x % 0 = 0.
    fn int_div(&mut self, divide: bool, signed: bool, l: &Val, r: &Val, width: u8) -> Val {
        let ty = l.ty.clone();
        let zero = self.def(&format!("icmp eq {ty} {}, zeroinitializer", r.v));
        let bad = if signed {
            let min = match width {
                8 => i64::MIN.to_string(),
                2 => i16::MIN.to_string(),
                _ => i32::MIN.to_string(),
            };
            let m1 = self.def(&format!("icmp eq {ty} {}, {}", r.v, splat_const(&ty, "-1")));
            let lmin = self.def(&format!("icmp eq {ty} {}, {}", l.v, splat_const(&ty, &min)));
            let ovf = self.def(&format!("and {} {m1}, {lmin}", cmp_ty_of(&ty)));
            self.def(&format!("or {} {zero}, {ovf}", cmp_ty_of(&ty)))
        } else {
            zero
        };
        let safe = self.def(&format!(
            "select {} {bad}, {ty} {}, {ty} {}",
            cmp_ty_of(&ty),
            splat_const(&ty, "1"),
            r.v
        ));
        let inst = match (divide, signed) {
            (true, true) => "sdiv",
            (true, false) => "udiv",
            (false, true) => "srem",
            (false, false) => "urem",
        };
        self.defv(&ty, &format!("{inst} {ty} {}, {safe}", l.v))
    }

    fn matrix_binary(
        &mut self,
        h: Handle<Expression>,
        op: BinaryOperator,
        left: Handle<Expression>,
        right: Handle<Expression>,
    ) -> EmitResult<Val> {
        let span = self.span_of(h);
        let l = self.val(left)?;
        let r = self.val(right)?;
        let lt = self.inner_of(left).clone();
        let rt = self.inner_of(right).clone();
        let rty = self.ty_of(h)?;
        match (op, &lt, &rt) {
            (
                BinaryOperator::Add | BinaryOperator::Subtract,
                TypeInner::Matrix { .. },
                TypeInner::Matrix { .. },
            ) => {
                let inst = if op == BinaryOperator::Add {
                    "fadd"
                } else {
                    "fsub"
                };
                let (cols, col_ty) = matrix_shape(&l.ty);
                let mut acc = Val::new(&l.ty, "poison");
                for c in 0..cols {
                    let a = self.def(&format!("extractvalue {}, {c}", l.typed()));
                    let b = self.def(&format!("extractvalue {}, {c}", r.typed()));
                    let s = self.def(&format!("{inst} {col_ty} {a}, {b}"));
                    acc = self.defv(
                        &l.ty,
                        &format!("insertvalue {}, {col_ty} {s}, {c}", acc.typed()),
                    );
                }
                Ok(acc)
            }
            (BinaryOperator::Multiply, TypeInner::Matrix { .. }, TypeInner::Scalar(_))
            | (BinaryOperator::Multiply, TypeInner::Scalar(_), TypeInner::Matrix { .. }) => {
                let (m, s) = if matches!(lt, TypeInner::Matrix { .. }) {
                    (l, r)
                } else {
                    (r, l)
                };
                let (_, col_ty) = matrix_shape(&m.ty);
                let n = split_vector(&col_ty).1.unwrap_or(1);
                let sv = self.splat(&s, n);
                self.map_columns(&m, |e, col, cty| {
                    e.defv(cty, &format!("fmul {cty} {col}, {}", sv.v))
                })
            }
            (BinaryOperator::Multiply, TypeInner::Matrix { .. }, TypeInner::Vector { .. }) => {
                Ok(self.mat_vec(&l, &r))
            }
            (BinaryOperator::Multiply, TypeInner::Vector { .. }, TypeInner::Matrix { .. }) => {
                let (cols, _) = matrix_shape(&r.ty);
                let mut acc = Val::new(&rty, "poison");
                for c in 0..cols {
                    let col = self.defv(&l.ty, &format!("extractvalue {}, {c}", r.typed()));
                    let d = self.dot(&l, &col);
                    acc = self.defv(
                        &rty,
                        &format!("insertelement {}, {}, i32 {c}", acc.typed(), d.typed()),
                    );
                }
                Ok(acc)
            }
            (BinaryOperator::Multiply, TypeInner::Matrix { .. }, TypeInner::Matrix { .. }) => {
                let (cols, rcol_ty) = matrix_shape(&r.ty);
                let mut acc = Val::new(&rty, "poison");
                for c in 0..cols {
                    let col = self.defv(&rcol_ty, &format!("extractvalue {}, {c}", r.typed()));
                    let out = self.mat_vec(&l, &col);
                    acc = self.defv(
                        &rty,
                        &format!("insertvalue {}, {}, {c}", acc.typed(), out.typed()),
                    );
                }
                Ok(acc)
            }
            _ => unsupported("this matrix operation", span),
        }
    }

    /// matrix × column vector.
    fn mat_vec(&mut self, m: &Val, v: &Val) -> Val {
        let (cols, col_ty) = matrix_shape(&m.ty);
        let n = split_vector(&col_ty).1.unwrap_or(1);
        let (elem, _) = split_vector(&v.ty);
        let mut acc: Option<String> = None;
        for c in 0..cols {
            let col = self.def(&format!("extractvalue {}, {c}", m.typed()));
            let e = self.defv(&elem, &format!("extractelement {}, i32 {c}", v.typed()));
            let s = self.splat(&e, n);
            let p = self.def(&format!("fmul {col_ty} {col}, {}", s.v));
            acc = Some(match acc {
                None => p,
                Some(a) => self.def(&format!("fadd {col_ty} {a}, {p}")),
            });
        }
        Val::new(&col_ty, acc.unwrap_or_else(|| "zeroinitializer".into()))
    }

    /// Dot product of two vectors (float or integer).
    pub(crate) fn dot(&mut self, a: &Val, b: &Val) -> Val {
        let (elem, n) = split_vector(&a.ty);
        let float = matches!(elem.as_str(), "float" | "half" | "double");
        let (mul, add) = if float {
            ("fmul", "fadd")
        } else {
            ("mul", "add")
        };
        let prod = self.def(&format!("{mul} {} {}, {}", a.ty, a.v, b.v));
        let mut acc: Option<String> = None;
        for i in 0..n.unwrap_or(1) {
            let e = self.def(&format!("extractelement {} {prod}, i32 {i}", a.ty));
            acc = Some(match acc {
                None => e,
                Some(x) => self.def(&format!("{add} {elem} {x}, {e}")),
            });
        }
        Val::new(&elem, acc.unwrap_or_else(|| zero_scalar(&elem)))
    }

    fn relational(
        &mut self,
        fun: naga::RelationalFunction,
        argument: Handle<Expression>,
    ) -> EmitResult<Val> {
        let v = self.val(argument)?;
        let (_, n) = split_vector(&v.ty);
        use naga::RelationalFunction as R;
        Ok(match fun {
            R::All | R::Any => match n {
                None => v,
                Some(n) => {
                    let op = if fun == R::All { "and" } else { "or" };
                    self.m.declare(format!(
                        "declare i1 @llvm.vector.reduce.{op}.v{n}i1(<{n} x i1>)"
                    ));
                    self.defv(
                        "i1",
                        &format!("call i1 @llvm.vector.reduce.{op}.v{n}i1({})", v.typed()),
                    )
                }
            },
            R::IsNan => {
                let rty = bool_ty_like(&v.ty);
                self.defv(&rty, &format!("fcmp uno {}, {}", v.typed(), v.v))
            }
            R::IsInf => {
                let abs = self.call_intrinsic("fabs", &v.ty, &[&v]);
                let rty = bool_ty_like(&v.ty);
                let inf = splat_const(&v.ty, "0x7FF0000000000000");
                self.defv(&rty, &format!("fcmp oeq {}, {inf}", abs.typed()))
            }
        })
    }

    /// Call an overloaded LLVM intrinsic `llvm.NAME.<mangle(ty)>` returning `ty`.
    pub(crate) fn call_intrinsic(&mut self, name: &str, ty: &str, args: &[&Val]) -> Val {
        let full = format!("llvm.{name}.{}", mangle(ty));
        let params: Vec<&str> = args.iter().map(|a| a.ty.as_str()).collect();
        self.m
            .declare(format!("declare {ty} @{full}({})", params.join(", ")));
        let typed: Vec<String> = args.iter().map(|a| a.typed()).collect();
        self.defv(ty, &format!("call {ty} @{full}({})", typed.join(", ")))
    }

    fn convert(
        &mut self,
        h: Handle<Expression>,
        expr: Handle<Expression>,
        kind: ScalarKind,
        convert: Option<u8>,
    ) -> EmitResult<Val> {
        let span = self.span_of(h);
        let v = self.val(expr)?;
        let dst = self.ty_of(h)?;
        let Some(src_scalar) = FnEmitter::scalar_of(self.inner_of(expr)) else {
            return unsupported("a conversion of this type", span);
        };
        let Some(dst_width) = convert else {
            // bitcast
            if v.ty == dst {
                return Ok(Val::new(dst, v.v));
            }
            return Ok(self.defv(&dst, &format!("bitcast {} to {dst}", v.typed())));
        };
        // Matrices (float only: `mat2x2<f16>(m)`) convert column by column;
        // LLVM casts take no aggregates.
        if v.ty.starts_with('[') {
            let (columns, src_column) = matrix_shape(&v.ty);
            let (_, dst_column) = matrix_shape(&dst);
            let mut acc = Val::new(&dst, "poison");
            for c in 0..columns {
                let column = self.defv(&src_column, &format!("extractvalue {}, {c}", v.typed()));
                let converted =
                    self.convert_value(column, &dst_column, src_scalar, kind, dst_width, span)?;
                acc = self.defv(
                    &dst,
                    &format!("insertvalue {}, {}, {c}", acc.typed(), converted.typed()),
                );
            }
            return Ok(acc);
        }
        self.convert_value(v, &dst, src_scalar, kind, dst_width, span)
    }

    /// Convert scalar or vector `v` (of `src_scalar`s) to type `dst`, of
    /// `kind` scalars `dst_width` bytes wide.
    fn convert_value(
        &mut self,
        v: Val,
        dst: &str,
        src_scalar: naga::Scalar,
        kind: ScalarKind,
        dst_width: u8,
        span: naga::Span,
    ) -> EmitResult<Val> {
        let dst = dst.to_string();
        let sk = src_scalar.kind;
        let sw = src_scalar.width;
        use ScalarKind as K;
        let rhs = match (sk, kind) {
            (K::Bool, K::Bool) => return Ok(v),
            (K::Bool, K::Sint | K::Uint) => format!("zext {} to {dst}", v.typed()),
            (K::Bool, K::Float) => format!("uitofp {} to {dst}", v.typed()),
            (K::Sint | K::Uint, K::Bool) => format!("icmp ne {}, zeroinitializer", v.typed()),
            (K::Float, K::Bool) => format!("fcmp une {}, zeroinitializer", v.typed()),
            (K::Sint | K::Uint, K::Sint | K::Uint) => {
                if sw == dst_width {
                    return Ok(Val::new(dst, v.v));
                } else if sw > dst_width {
                    format!("trunc {} to {dst}", v.typed())
                } else if sk == K::Sint {
                    format!("sext {} to {dst}", v.typed())
                } else {
                    format!("zext {} to {dst}", v.typed())
                }
            }
            (K::Sint, K::Float) => format!("sitofp {} to {dst}", v.typed()),
            (K::Uint, K::Float) => format!("uitofp {} to {dst}", v.typed()),
            (K::Float, K::Sint | K::Uint) => {
                let name = if kind == K::Sint {
                    "fptosi.sat"
                } else {
                    "fptoui.sat"
                };
                let full = format!("llvm.{name}.{}.{}", mangle(&dst), mangle(&v.ty));
                self.m.declare(format!("declare {dst} @{full}({})", v.ty));
                format!("call {dst} @{full}({})", v.typed())
            }
            (K::Float, K::Float) => {
                if sw == dst_width {
                    return Ok(Val::new(dst, v.v));
                } else if sw > dst_width {
                    format!("fptrunc {} to {dst}", v.typed())
                } else {
                    format!("fpext {} to {dst}", v.typed())
                }
            }
            _ => return unsupported(format!("a conversion from {sk:?} to {kind:?}"), span),
        };
        Ok(self.defv(&dst, &rhs))
    }
}

/// (column count, column type) of a matrix type text `[C x <R x T>]`.
pub(crate) fn matrix_shape(ty: &str) -> (u32, String) {
    let inner = ty.trim_start_matches('[').trim_end_matches(']');
    let mut parts = inner.splitn(2, " x ");
    let cols = parts
        .next()
        .and_then(|c| c.trim().parse().ok())
        .unwrap_or(0);
    let col_ty = parts.next().unwrap_or("").trim().to_string();
    (cols, col_ty)
}

/// The i1 type with the lane count of `ty`.
pub(crate) fn bool_ty_like(ty: &str) -> String {
    match split_vector(ty).1 {
        Some(n) => format!("<{n} x i1>"),
        None => "i1".into(),
    }
}

/// The comparison-result type of operands of type `ty`.
fn cmp_ty_of(ty: &str) -> String {
    bool_ty_like(ty)
}
