//! naga types → LLVM IR type text, and memory layouts.
//!
//! Values live in LLVM's own first-class types (i1/i32/float/half, `<N x T>`
//! vectors, `[C x <R x T>]` matrices, `[N x T]` arrays, literal structs), but
//! memory is never laid out by LLVM: every address is a byte offset computed
//! from naga's layouter (WGSL host-shareable layout), so struct member
//! offsets, array strides and vec3 padding match what the host writes.

use naga::{Scalar, ScalarKind, TypeInner, VectorSize};

use super::ModuleCtx;
use crate::error::{EmitResult, UnsupportedKind, unsupported_as};

/// LLVM address spaces of the amdgcn target.
pub(crate) const AS_GLOBAL: u32 = 1;
pub(crate) const AS_LOCAL: u32 = 3;
/// The constant address space: the kernarg segment immediates live in.
pub(crate) const AS_CONSTANT: u32 = 4;
pub(crate) const AS_PRIVATE: u32 = 5;

/// The LLVM address space a naga address space lives in, or None for the
/// spaces a compute kernel here cannot have.
pub(crate) fn address_space(space: naga::AddressSpace) -> Option<u32> {
    use naga::AddressSpace as A;
    match space {
        A::Function | A::Private => Some(AS_PRIVATE),
        A::WorkGroup => Some(AS_LOCAL),
        A::Uniform | A::Storage { .. } => Some(AS_GLOBAL),
        A::Immediate => Some(AS_CONSTANT),
        _ => None,
    }
}

/// `ptr addrspace(N)`.
pub(crate) fn ptr_ty(space: u32) -> String {
    format!("ptr addrspace({space})")
}

/// The LLVM type of a scalar.
pub(crate) fn scalar_ty(s: Scalar) -> Result<&'static str, String> {
    Ok(match (s.kind, s.width) {
        (ScalarKind::Bool, _) => "i1",
        (ScalarKind::Sint | ScalarKind::Uint, 4) => "i32",
        (ScalarKind::Sint | ScalarKind::Uint, 8) => "i64",
        (ScalarKind::Sint | ScalarKind::Uint, 2) => "i16",
        (ScalarKind::Float, 4) => "float",
        (ScalarKind::Float, 2) => "half",
        (ScalarKind::Float, 8) => "double",
        _ => return Err(format!("scalar type {s:?}")),
    })
}

pub(crate) fn vec_len(size: VectorSize) -> u32 {
    size as u32
}

/// The in-memory width of one scalar (bool is stored as one byte).
pub(crate) fn scalar_bytes(s: Scalar) -> u32 {
    if s.kind == ScalarKind::Bool {
        1
    } else {
        u32::from(s.width)
    }
}

/// WGSL alignment of a vector of `n` scalars of `width` bytes.
pub(crate) fn vector_align(n: u32, width: u32) -> u32 {
    match n {
        2 => 2 * width,
        _ => 4 * width,
    }
}

/// Byte stride between matrix columns (a column is a vector of `rows`).
pub(crate) fn column_stride(rows: u32, width: u32) -> u32 {
    let align = vector_align(rows, width);
    (rows * width).div_ceil(align) * align
}

impl ModuleCtx<'_> {
    /// The LLVM value type of a naga type.
    pub(crate) fn llvm_ty(&self, inner: &TypeInner) -> Result<String, String> {
        Ok(match *inner {
            TypeInner::Scalar(s) | TypeInner::Atomic(s) => scalar_ty(s)?.to_string(),
            TypeInner::Vector { size, scalar } => {
                format!("<{} x {}>", vec_len(size), scalar_ty(scalar)?)
            }
            TypeInner::Matrix {
                columns,
                rows,
                scalar,
            } => format!(
                "[{} x <{} x {}>]",
                vec_len(columns),
                vec_len(rows),
                scalar_ty(scalar)?
            ),
            // Cooperative matrices: every element, column-major (see `coop`).
            TypeInner::CooperativeMatrix {
                columns,
                rows,
                scalar,
                ..
            } => format!(
                "<{} x {}>",
                columns as u32 * rows as u32,
                scalar_ty(scalar)?
            ),
            TypeInner::Array { base, size, .. } => match self.fixed_array_len(size) {
                Some(n) => format!(
                    "[{} x {}]",
                    n,
                    self.llvm_ty(&self.module.types[base].inner)?
                ),
                None => return Err("a runtime-sized array as a value".into()),
            },
            TypeInner::Struct { ref members, .. } => {
                let fields = members
                    .iter()
                    .map(|m| self.llvm_ty(&self.module.types[m.ty].inner))
                    .collect::<Result<Vec<_>, _>>()?;
                format!("{{ {} }}", fields.join(", "))
            }
            TypeInner::Pointer { space, .. } | TypeInner::ValuePointer { space, .. } => {
                let s = address_space(space).ok_or_else(|| format!("address space {space:?}"))?;
                ptr_ty(s)
            }
            TypeInner::Image { .. } => super::image::DESCRIPTOR_TY.to_string(),
            TypeInner::Sampler { .. } => super::image::SAMPLER_TY.to_string(),
            ref other => return Err(format!("type {}", type_kind_name(other))),
        })
    }

    /// The class of a type `llvm_ty` refuses: what it holds decides, so an
    /// acceleration structure reached through a struct or array is still
    /// reported as a ray query construct.
    pub(crate) fn type_refusal_kind(&self, inner: &TypeInner) -> UnsupportedKind {
        match *inner {
            TypeInner::AccelerationStructure { .. } | TypeInner::RayQuery { .. } => {
                UnsupportedKind::RayQueries
            }
            TypeInner::BindingArray { .. } => UnsupportedKind::BindingArrays,
            TypeInner::CooperativeMatrix { .. } => UnsupportedKind::CooperativeMatrices,
            TypeInner::Array { base, .. } => self.type_refusal_kind(&self.module.types[base].inner),
            TypeInner::Struct { ref members, .. } => members
                .iter()
                .map(|m| self.type_refusal_kind(&self.module.types[m.ty].inner))
                .find(|k| *k != UnsupportedKind::Other)
                .unwrap_or(UnsupportedKind::Other),
            _ => UnsupportedKind::Other,
        }
    }

    /// The LLVM value type of `inner`, or an unsupported error at `span`
    /// classed by [`Self::type_refusal_kind`].
    pub(crate) fn lowered_ty(&self, inner: &TypeInner, span: naga::Span) -> EmitResult<String> {
        self.llvm_ty(inner)
            .or_else(|why| unsupported_as(self.type_refusal_kind(inner), why, span))
    }

    /// [`Self::lowered_ty`] of a type handle.
    pub(crate) fn lowered_ty_of(
        &self,
        ty: naga::Handle<naga::Type>,
        span: naga::Span,
    ) -> EmitResult<String> {
        self.lowered_ty(&self.module.types[ty].inner, span)
    }

    /// The element count of a fixed-size array: a constant, or an
    /// override-expression already specialised by the front end (naga keeps
    /// such sizes `Pending` and resolves them through the override's
    /// evaluated initialiser). None for runtime-sized arrays.
    pub(crate) fn fixed_array_len(&self, size: naga::ArraySize) -> Option<u32> {
        match size {
            naga::ArraySize::Dynamic => None,
            size => match size.resolve(self.module.to_ctx()) {
                Ok(naga::proc::IndexableLength::Known(n)) => Some(n),
                _ => None,
            },
        }
    }

    /// The LLVM value type of the type `ty`.
    pub(crate) fn llvm_ty_of(&self, ty: naga::Handle<naga::Type>) -> Result<String, String> {
        self.llvm_ty(&self.module.types[ty].inner)
    }

    /// Size in bytes of a naga type (WGSL layout).
    pub(crate) fn size_of(&self, inner: &TypeInner) -> u32 {
        match *inner {
            TypeInner::Scalar(s) | TypeInner::Atomic(s) => scalar_bytes(s),
            TypeInner::Vector { size, scalar } => vec_len(size) * scalar_bytes(scalar),
            TypeInner::Matrix {
                columns,
                rows,
                scalar,
            } => vec_len(columns) * column_stride(vec_len(rows), scalar_bytes(scalar)),
            _ => inner.size(self.module.to_ctx()),
        }
    }

    /// Alignment of a type handle (WGSL layout).
    pub(crate) fn align_of(&self, ty: naga::Handle<naga::Type>) -> u32 {
        self.layouter[ty].alignment.round_up(1)
    }
}

/// A short name of a type's kind for error messages.
pub(crate) fn type_kind_name(inner: &TypeInner) -> &'static str {
    match inner {
        TypeInner::Scalar(_) => "scalar",
        TypeInner::Vector { .. } => "vector",
        TypeInner::Matrix { .. } => "matrix",
        TypeInner::CooperativeMatrix { .. } => "cooperative matrix",
        TypeInner::Atomic(_) => "atomic",
        TypeInner::Pointer { .. } | TypeInner::ValuePointer { .. } => "pointer",
        TypeInner::Array { .. } => "array",
        TypeInner::Struct { .. } => "struct",
        TypeInner::Image { .. } => "texture",
        TypeInner::Sampler { .. } => "sampler",
        TypeInner::AccelerationStructure { .. } => "acceleration structure",
        TypeInner::RayQuery { .. } => "ray query",
        TypeInner::BindingArray { .. } => "binding array",
    }
}

/// The LLVM intrinsic name suffix of a value type (`float` → `f32`,
/// `<4 x i32>` → `v4i32`).
pub(crate) fn mangle(ty: &str) -> String {
    fn scalar(s: &str) -> &str {
        match s {
            "float" => "f32",
            "half" => "f16",
            "double" => "f64",
            other => other,
        }
    }
    if let Some(rest) = ty.strip_prefix('<') {
        let rest = rest.trim_end_matches('>');
        let mut parts = rest.split(" x ");
        let n = parts.next().unwrap_or("1").trim();
        let s = parts.next().unwrap_or("i32").trim();
        format!("v{n}{}", scalar(s))
    } else {
        scalar(ty).to_string()
    }
}

/// Element type and lane count of a vector type text (`<4 x float>`), or
/// the type itself with None.
pub(crate) fn split_vector(ty: &str) -> (String, Option<u32>) {
    if let Some(rest) = ty.strip_prefix('<') {
        let rest = rest.trim_end_matches('>');
        let mut parts = rest.split(" x ");
        let n = parts.next().and_then(|n| n.trim().parse().ok());
        let s = parts.next().unwrap_or("i32").trim().to_string();
        (s, n)
    } else {
        (ty.to_string(), None)
    }
}
