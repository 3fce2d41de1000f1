//! Cooperative matrices (`enable wgpu_cooperative_matrix;`): `coopLoad`,
//! `coopLoadT`, `coopStore`, `coopStoreT` and `coopMultiplyAdd`.
//!
//! A cooperative matrix is a subgroup-scoped value that every invocation of
//! the subgroup holds alike (naga's uniformity analysis requires uniform
//! control flow around its operations). Here each invocation holds the
//! whole matrix as one LLVM vector of `rows * columns` scalars in
//! column-major element order (element (r, c) in lane `c * rows + r`), loads
//! every element itself, computes `A * B + C` itself and stores every
//! element; invocations storing the same values to the same addresses
//! agree, so the subgroup's result is the matrix's. 16 x 16 multiply-adds
//! of f16 and f32 matrices run on the matrix cores where the target has
//! them (`matrix_cores.rs`: WMMA on gfx11, MFMA on gfx90a and gfx942).
//!
//! Memory layout (naga `CooperativeData`, the SPIR-V back end's
//! `OpCooperativeMatrixLoadKHR` layouts): with `row_major` (`coopLoadT`,
//! `coopStoreT`) element (r, c) is `r * stride + c` scalars past the
//! pointer, else `c * stride + r`. The pointer is an element of an array of
//! scalars, and every matrix element is an index into that array, so the
//! emitter's robust access rules hold per element: loads clamp to the
//! array, stores out of a buffer are dropped.

use naga::{CooperativeData, Expression, Handle, Scalar, ScalarKind, TypeInner};

use super::func::{FnEmitter, Ptr, Val};
use super::memory::{Index, Pointee};
use super::types::scalar_ty;
use crate::error::{EmitResult, UnsupportedKind, unsupported_as};
use crate::matrix_cores::{MmaKind, TILE};

/// The shape of a cooperative matrix type.
#[derive(Clone, Copy, Debug)]
struct Shape {
    rows: u32,
    columns: u32,
    scalar: Scalar,
}

/// The element type of the LLVM vector a cooperative matrix lives in.
fn element_ty(scalar: Scalar) -> &'static str {
    scalar_ty(scalar).unwrap_or("float")
}

impl Shape {
    fn of(inner: &TypeInner) -> Option<Shape> {
        match *inner {
            TypeInner::CooperativeMatrix {
                columns,
                rows,
                scalar,
                ..
            } => Some(Shape {
                rows: rows as u32,
                columns: columns as u32,
                scalar,
            }),
            _ => None,
        }
    }

    fn llvm_ty(self) -> String {
        format!(
            "<{} x {}>",
            self.rows * self.columns,
            element_ty(self.scalar)
        )
    }

    /// The vector lane holding element (row, column).
    fn lane(self, row: u32, column: u32) -> u32 {
        column * self.rows + row
    }
}

/// Where a cooperative load or store addresses memory: an array of scalars
/// and the index of the element the pointer names.
struct ArrayWindow {
    array: Ptr,
    pointee: Pointee,
    first: Val,
}

impl FnEmitter<'_> {
    fn coop_shape(&self, h: Handle<Expression>) -> EmitResult<Shape> {
        match Shape::of(self.inner_of(h)) {
            Some(shape) => Ok(shape),
            None => unsupported_as(
                UnsupportedKind::CooperativeMatrices,
                "a cooperative operand that is not a cooperative matrix",
                self.span_of(h),
            ),
        }
    }

    /// The array a cooperative load or store pointer indexes into.
    fn coop_window(&mut self, pointer: Handle<Expression>) -> EmitResult<ArrayWindow> {
        let span = self.span_of(pointer);
        let (base, first) = match self.fun.expressions[pointer] {
            Expression::Access { base, index } => {
                let v = self.val(index)?;
                (base, self.index_i32(&v))
            }
            Expression::AccessIndex { base, index } => (base, Val::new("i32", index.to_string())),
            _ => {
                return unsupported_as(
                    UnsupportedKind::CooperativeMatrices,
                    "a cooperative load or store through a pointer that is not an array element",
                    span,
                );
            }
        };
        let pointee = self.pointee_of(base)?;
        let elements_are_scalars = match *self.pointee_inner(&pointee) {
            TypeInner::Array { base, .. } => {
                matches!(self.m.module.types[base].inner, TypeInner::Scalar(_))
            }
            _ => false,
        };
        if !elements_are_scalars {
            return unsupported_as(
                UnsupportedKind::CooperativeMatrices,
                "a cooperative load or store through an element of something other than an array of scalars",
                span,
            );
        }
        let array = self.ptr(base)?;
        Ok(ArrayWindow {
            array,
            pointee,
            first,
        })
    }

    /// An integer index value as i32 (u32 and i32 as they are, i64
    /// truncated, narrower types zero-extended).
    pub(crate) fn index_i32(&mut self, v: &Val) -> Val {
        match v.ty.as_str() {
            "i32" => v.clone(),
            "i64" => self.defv("i32", &format!("trunc i64 {} to i32", v.v)),
            other => self.defv("i32", &format!("zext {other} {} to i32", v.v)),
        }
    }

    /// Pointers to every element of a matrix of `shape` laid out by `data`,
    /// in lane order, each bounded by the array the pointer indexes.
    fn coop_element_ptrs(&mut self, shape: Shape, data: &CooperativeData) -> EmitResult<Vec<Ptr>> {
        let span = self.span_of(data.pointer);
        let window = self.coop_window(data.pointer)?;
        let stride = self.val(data.stride)?;
        let stride = self.index_i32(&stride);
        let mut ptrs = Vec::with_capacity((shape.rows * shape.columns) as usize);
        for column in 0..shape.columns {
            for row in 0..shape.rows {
                // The line (row or column) across the stride and the
                // element along it.
                let (line, along) = if data.row_major {
                    (row, column)
                } else {
                    (column, row)
                };
                let line_start = self.def(&format!("mul i32 {}, {line}", stride.v));
                let offset = self.def(&format!("add i32 {line_start}, {along}"));
                let index = self.def(&format!("add i32 {}, {offset}", window.first.v));
                let (p, _) = self.access_ptr(
                    &window.array,
                    &window.pointee,
                    Index::Dyn(Val::new("i32", index)),
                    span,
                )?;
                ptrs.push(p);
            }
        }
        Ok(ptrs)
    }

    /// `coopLoad` / `coopLoadT`.
    pub(crate) fn coop_load(
        &mut self,
        h: Handle<Expression>,
        data: &CooperativeData,
    ) -> EmitResult<Val> {
        let span = self.span_of(h);
        let shape = self.coop_shape(h)?;
        let ptrs = self.coop_element_ptrs(shape, data)?;
        let ty = shape.llvm_ty();
        let mut acc = Val::new(&ty, "poison");
        for (lane, p) in ptrs.iter().enumerate() {
            let e = self.load_value(p, Pointee::Inner(TypeInner::Scalar(shape.scalar)), span)?;
            acc = self.defv(
                &ty,
                &format!("insertelement {}, {}, i32 {lane}", acc.typed(), e.typed()),
            );
        }
        Ok(acc)
    }

    /// `coopStore` / `coopStoreT`.
    pub(crate) fn coop_store(
        &mut self,
        target: Handle<Expression>,
        data: &CooperativeData,
        span: naga::Span,
    ) -> EmitResult<()> {
        let shape = self.coop_shape(target)?;
        let value = self.val(target)?;
        let ptrs = self.coop_element_ptrs(shape, data)?;
        let elem = element_ty(shape.scalar);
        for (lane, p) in ptrs.iter().enumerate() {
            let e = self.defv(
                elem,
                &format!("extractelement {}, i32 {lane}", value.typed()),
            );
            self.store_value(p, Pointee::Inner(TypeInner::Scalar(shape.scalar)), &e, span)?;
        }
        Ok(())
    }

    /// `coopMultiplyAdd(a, b, c)`: `a * b + c`. 16 x 16 f16 and f32
    /// matrices run on the matrix cores where the target has them and the
    /// whole wave is active; otherwise every invocation computes the
    /// product itself (`coop_multiply_add_generic`).
    pub(crate) fn coop_multiply_add(
        &mut self,
        h: Handle<Expression>,
        a: Handle<Expression>,
        b: Handle<Expression>,
        c: Handle<Expression>,
    ) -> EmitResult<Val> {
        let (sa, sb, sc) = (
            self.coop_shape(a)?,
            self.coop_shape(b)?,
            self.coop_shape(c)?,
        );
        // A is M x K, B is K x N, C is M x N.
        if sa.columns != sb.rows || sa.rows != sc.rows || sb.columns != sc.columns {
            return unsupported_as(
                UnsupportedKind::CooperativeMatrices,
                format!(
                    "coopMultiplyAdd of a {}x{} A, a {}x{} B and a {}x{} C",
                    sa.rows, sa.columns, sb.rows, sb.columns, sc.rows, sc.columns
                ),
                self.span_of(h),
            );
        }
        let va = self.val(a)?;
        let vb = self.val(b)?;
        let vc = self.val(c)?;
        let kind = MmaKind::of(sa.scalar.width, sc.scalar.width).filter(|_| {
            sa.scalar == sb.scalar
                && [sa.rows, sa.columns, sb.columns] == [TILE; 3]
                && sa.scalar.kind == ScalarKind::Float
                && sc.scalar.kind == ScalarKind::Float
        });
        let Some(kind) = kind else {
            return Ok(self.coop_multiply_add_generic(va, vb, vc, (sa, sb, sc)));
        };
        // The matrix cores where the target has them and the whole wave
        // runs (`matrix_cores.rs` defines both helpers per target). WGSL's
        // uniformity rules keep every invocation of the subgroup here
        // together, so when every workgroup is whole waves the test folds
        // to the target's answer and the generic path drops out. Not for
        // f32 inputs: f32 matrices loaded from read-only storage sit in
        // SGPRs, and with no vector FMA using them LLVM keeps all of them
        // there and spills them lane by lane (a 16x16 gfx942 kernel took
        // 12.8 s to compile instead of 6.8 s).
        self.m.declare(kind.declare_available());
        self.m.declare(kind.declare_function());
        let whole_waves = self.m.whole_waves && kind != MmaKind::F32F32;
        let available = self.def(&format!("call i1 {}(i1 {whole_waves})", kind.available()));
        let (cores, generic, join) = (
            self.label("coop_cores"),
            self.label("coop_generic"),
            self.label("coop_join"),
        );
        self.terminate(&format!(
            "br i1 {available}, label %{cores}, label %{generic}"
        ));
        self.start_block(&cores);
        let ty = sc.llvm_ty();
        let on_cores = self.def(&format!(
            "call {ty} {}({}, {}, {})",
            kind.function(),
            va.typed(),
            vb.typed(),
            vc.typed()
        ));
        self.terminate(&format!("br label %{join}"));
        self.start_block(&generic);
        let by_lane = self.coop_multiply_add_generic(va, vb, vc, (sa, sb, sc));
        self.terminate(&format!("br label %{join}"));
        self.start_block(&join);
        Ok(self.defv(
            &ty,
            &format!(
                "phi {ty} [ {on_cores}, %{cores} ], [ {}, %{generic} ]",
                by_lane.v
            ),
        ))
    }

    /// `a * b + c` computed by every invocation, one fused multiply-add per
    /// step of the inner dimension in ascending order, in `c`'s scalar type.
    fn coop_multiply_add_generic(
        &mut self,
        va: Val,
        vb: Val,
        mut acc: Val,
        (sa, sb, sc): (Shape, Shape, Shape),
    ) -> Val {
        let va = self.coop_convert(va, sa, sc.scalar);
        let vb = self.coop_convert(vb, sb, sc.scalar);
        let ty = sc.llvm_ty();
        for k in 0..sa.columns {
            // Lane (r, c) of the spread A is a[r][k], of the spread B b[k][c].
            let mut a_mask = Vec::new();
            let mut b_mask = Vec::new();
            for column in 0..sc.columns {
                for row in 0..sc.rows {
                    a_mask.push(format!("i32 {}", sa.lane(row, k)));
                    b_mask.push(format!("i32 {}", sb.lane(k, column)));
                }
            }
            let n = sc.rows * sc.columns;
            let spread_a = self.defv(
                &ty,
                &format!(
                    "shufflevector {}, {} poison, <{n} x i32> <{}>",
                    va.typed(),
                    va.ty,
                    a_mask.join(", ")
                ),
            );
            let spread_b = self.defv(
                &ty,
                &format!(
                    "shufflevector {}, {} poison, <{n} x i32> <{}>",
                    vb.typed(),
                    vb.ty,
                    b_mask.join(", ")
                ),
            );
            acc = self.call_intrinsic("fma", &ty, &[&spread_a, &spread_b, &acc]);
        }
        acc
    }

    /// A matrix value of `shape` converted to `to` scalars.
    fn coop_convert(&mut self, v: Val, shape: Shape, to: Scalar) -> Val {
        if shape.scalar == to {
            return v;
        }
        let ty = Shape {
            scalar: to,
            ..shape
        }
        .llvm_ty();
        let cast = if to.width > shape.scalar.width {
            "fpext"
        } else {
            "fptrunc"
        };
        self.defv(&ty, &format!("{cast} {} to {ty}", v.typed()))
    }
}
