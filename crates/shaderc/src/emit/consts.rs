//! Constant expressions → LLVM constant text.
//!
//! naga folds constant arithmetic itself (its constant evaluator), so what
//! reaches here is literals, named constants, zero values, splats and
//! composes. They become LLVM constants (never instructions), so a constant
//! used in several branches needs no dominating definition.

use naga::{Arena, Expression, Handle, Literal, TypeInner};

use super::ModuleCtx;
use super::types::{scalar_ty, vec_len};

/// A constant, structured so vectors can be flattened and rebuilt.
#[derive(Clone, Debug)]
pub(crate) enum Const {
    /// A scalar: LLVM type and literal text.
    Scalar(String, String),
    /// A vector: element type and element literals.
    Vector(String, Vec<String>),
    /// An array, struct or matrix: its LLVM type and typed fields.
    Aggregate(String, Vec<Const>),
    /// The zero value of an LLVM type.
    Zero(String),
}

impl Const {
    pub(crate) fn ty(&self) -> String {
        match self {
            Const::Scalar(t, _) | Const::Aggregate(t, _) | Const::Zero(t) => t.clone(),
            Const::Vector(e, v) => format!("<{} x {}>", v.len(), e),
        }
    }

    /// The constant's text without its type.
    pub(crate) fn text(&self) -> String {
        match self {
            Const::Scalar(_, v) => v.clone(),
            Const::Vector(e, v) => {
                let parts: Vec<String> = v.iter().map(|x| format!("{e} {x}")).collect();
                format!("<{}>", parts.join(", "))
            }
            Const::Aggregate(t, fields) => {
                let parts: Vec<String> = fields
                    .iter()
                    .map(|f| format!("{} {}", f.ty(), f.text()))
                    .collect();
                if t.starts_with('{') {
                    format!("{{ {} }}", parts.join(", "))
                } else {
                    format!("[{}]", parts.join(", "))
                }
            }
            Const::Zero(_) => "zeroinitializer".into(),
        }
    }

    /// Elements of a scalar or vector constant (for flattening composes).
    fn elements(&self) -> Vec<(String, String)> {
        match self {
            Const::Scalar(t, v) => vec![(t.clone(), v.clone())],
            Const::Vector(e, v) => v.iter().map(|x| (e.clone(), x.clone())).collect(),
            Const::Zero(t) => {
                let (e, n) = super::types::split_vector(t);
                let z = zero_scalar(&e);
                vec![(e, z); n.unwrap_or(1) as usize]
            }
            Const::Aggregate(..) => Vec::new(),
        }
    }
}

/// The zero literal of a scalar LLVM type.
pub(crate) fn zero_scalar(ty: &str) -> String {
    match ty {
        "i1" => "false".into(),
        "float" | "half" | "double" => "0.0".into(),
        _ => "0".into(),
    }
}

/// An f32 as LLVM IR text (the exact value in double hex form).
pub(crate) fn f32_text(v: f32) -> String {
    format!("0x{:016X}", f64::from(v).to_bits())
}

pub(crate) fn f64_text(v: f64) -> String {
    format!("0x{:016X}", v.to_bits())
}

pub(crate) fn f16_text(bits: u16) -> String {
    format!("0xH{bits:04X}")
}

/// A literal's LLVM type and text.
pub(crate) fn literal(l: &Literal) -> Result<(String, String), String> {
    Ok(match *l {
        Literal::F32(v) => ("float".into(), f32_text(v)),
        Literal::F64(v) => ("double".into(), f64_text(v)),
        Literal::F16(v) => ("half".into(), f16_text(v.to_bits())),
        Literal::U32(v) => ("i32".into(), v.to_string()),
        Literal::I32(v) => ("i32".into(), v.to_string()),
        Literal::U64(v) => ("i64".into(), (v as i64).to_string()),
        Literal::I64(v) => ("i64".into(), v.to_string()),
        Literal::U16(v) => ("i16".into(), (v as i16).to_string()),
        Literal::I16(v) => ("i16".into(), v.to_string()),
        Literal::Bool(v) => ("i1".into(), v.to_string()),
        Literal::AbstractInt(_) | Literal::AbstractFloat(_) => {
            return Err("an abstract numeric literal".into());
        }
    })
}

impl ModuleCtx<'_> {
    /// Evaluate the constant expression `h` of `arena` (module-level
    /// `global_expressions` or a function's expressions).
    pub(crate) fn const_expr(
        &self,
        arena: &Arena<Expression>,
        h: Handle<Expression>,
    ) -> Result<Const, String> {
        Ok(match arena[h] {
            Expression::Literal(ref l) => {
                let (t, v) = literal(l)?;
                Const::Scalar(t, v)
            }
            Expression::Constant(c) => {
                let init = self.module.constants[c].init;
                self.const_expr(&self.module.global_expressions, init)?
            }
            Expression::ZeroValue(ty) => Const::Zero(self.llvm_ty_of(ty)?),
            Expression::Splat { size, value } => {
                let v = self.const_expr(arena, value)?;
                let (e, x) = v
                    .elements()
                    .into_iter()
                    .next()
                    .ok_or("a splat of a non-scalar")?;
                Const::Vector(e, vec![x; vec_len(size) as usize])
            }
            Expression::Compose { ty, ref components } => {
                let inner = &self.module.types[ty].inner;
                let parts = components
                    .iter()
                    .map(|&c| self.const_expr(arena, c))
                    .collect::<Result<Vec<_>, _>>()?;
                match *inner {
                    TypeInner::Vector { scalar, .. } => {
                        let e = scalar_ty(scalar)?.to_string();
                        let elems = parts
                            .iter()
                            .flat_map(|p| p.elements().into_iter().map(|(_, x)| x))
                            .collect();
                        Const::Vector(e, elems)
                    }
                    _ => Const::Aggregate(self.llvm_ty(inner)?, parts),
                }
            }
            Expression::Override(_) => return Err("an unspecialised override".into()),
            ref other => {
                return Err(format!(
                    "a non-constant expression in a constant ({other:?})"
                ));
            }
        })
    }

    /// A module-level constant expression.
    pub(crate) fn global_const(&self, h: Handle<Expression>) -> Result<Const, String> {
        self.const_expr(&self.module.global_expressions, h)
    }
}
