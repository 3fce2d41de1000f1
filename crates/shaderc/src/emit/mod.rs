//! The IR emitter: a validated naga module → one textual LLVM IR module for
//! `amdgcn-amd-amdhsa`, one `amdgpu_kernel` per compute entry point.
//!
//! Layout of this back end (one concern per file):
//! - `types`: naga types → LLVM types, WGSL memory layouts;
//! - `consts`: constant expressions → LLVM constants;
//! - `func`: the per-function emitter state, SSA values, naming;
//! - `stmt`: statements and structured control flow;
//! - `expr`: expressions (arithmetic, composites, conversions);
//! - `memory`: pointers, bounds-checked access chains, loads and stores;
//! - `builtins`: WGSL numeric builtins expanded over LLVM intrinsics;
//! - `trig`: sin/cos/tan with range reduction;
//! - `f64math`: exp, log, sin, cos, tan and atan of f64 in software;
//! - `atomics`: atomics, barriers, workgroupUniformLoad;
//! - `subgroup`: subgroup builtins and operations (waves, cross-lane ops);
//! - `coop`: cooperative matrices (loads, stores, multiply-add);
//! - `image`: texture bindings and `textureLoad`/`textureStore`/queries
//!   over the AMDGPU image intrinsics;
//! - `kernel`: kernel signatures (the binding ABI), prologues, metadata;
//! - `reach`: the helper functions the chosen entry points call.
//!
//! Helper functions become `internal alwaysinline` LLVM functions that take
//! the module's storage, uniform and private globals as extra parameters
//! (WGSL has no recursion, so inlining always succeeds and kernels end up
//! call-free).

mod atomics;
mod builtins;
mod consts;
mod coop;
mod expr;
mod f64math;
mod func;
mod image;
mod kernel;
mod memory;
mod reach;
mod stmt;
mod subgroup;
mod trig;
mod types;

use std::cell::RefCell;
use std::collections::BTreeSet;
use std::fmt::Write as _;

use naga::proc::Layouter;
use naga::valid::ModuleInfo;
use naga::{Handle, ShaderStage};

use crate::error::{EmitError, EmitResult, UnsupportedKind};
use crate::reflect::{EntryReflection, TextureReflection};

pub(crate) use types::address_space;

/// How a global variable reaches the code.
#[derive(Clone, Debug)]
pub(crate) enum GlobalKind {
    /// A storage or uniform buffer: a kernel argument `g{group}_b{binding}`,
    /// plus `..._size` when its type ends in a runtime-sized array
    /// (`runtime` = (offset of that array, element stride)).
    Buffer {
        group: u32,
        binding: u32,
        runtime: Option<(u32, u32)>,
    },
    /// A storage or sampled texture: a by-value `<8 x i32>` kernel
    /// argument `g{group}_b{binding}` holding its image descriptor.
    Texture {
        group: u32,
        binding: u32,
        texture: TextureReflection,
    },
    /// A `sampler` or `sampler_comparison`: a by-value `<4 x i32>` kernel
    /// argument `g{group}_b{binding}` holding its sampler descriptor.
    Sampler {
        group: u32,
        binding: u32,
        comparison: bool,
    },
    /// var<workgroup>: an LLVM addrspace(3) global.
    Workgroup,
    /// var<private>: a per-invocation alloca made by the kernel.
    Private,
    /// var<immediate>: a by-value kernel argument holding the variable's
    /// bytes at its WGSL layout, read through a `byref` pointer into the
    /// kernarg segment (addrspace(4)).
    Immediate,
    /// Anything else (samplers, ray queries, binding arrays):
    /// unsupported, with the class and the name of the construct.
    Unsupported(UnsupportedKind, String),
}

/// Module-wide state shared by every function emitter.
pub(crate) struct ModuleCtx<'a> {
    pub module: &'a naga::Module,
    pub info: &'a ModuleInfo,
    pub layouter: Layouter,
    pub globals: Vec<GlobalKind>,
    /// `declare` lines for the intrinsics used.
    pub declares: RefCell<BTreeSet<String>>,
    /// Put before every symbol the module defines (see [`ModuleCtx::symbol`]).
    pub symbol_prefix: &'a str,
    /// Every emitted entry point's workgroup is a whole number of waves on
    /// every target (a multiple of 64 invocations), so every wave starts
    /// with all lanes active.
    pub whole_waves: bool,
}

/// The result of emitting a module.
pub(crate) struct EmittedModule {
    pub llvm_ir: String,
    pub entry_points: Vec<EntryReflection>,
}

impl<'a> ModuleCtx<'a> {
    fn new(
        module: &'a naga::Module,
        info: &'a ModuleInfo,
        symbol_prefix: &'a str,
    ) -> EmitResult<Self> {
        let mut layouter = Layouter::default();
        layouter.update(module.to_ctx()).map_err(|e| EmitError {
            kind: UnsupportedKind::Other,
            construct: format!("type layout: {e}"),
            span: naga::Span::UNDEFINED,
            limit: None,
        })?;
        let mut ctx = ModuleCtx {
            module,
            info,
            layouter,
            globals: Vec::new(),
            declares: RefCell::new(BTreeSet::new()),
            symbol_prefix,
            whole_waves: false,
        };
        ctx.globals = module
            .global_variables
            .iter()
            .map(|(_, var)| ctx.classify_global(var))
            .collect();
        Ok(ctx)
    }

    fn classify_global(&self, var: &naga::GlobalVariable) -> GlobalKind {
        use naga::AddressSpace as A;
        match var.space {
            A::Storage { .. } | A::Uniform => {
                let Some(ref rb) = var.binding else {
                    return GlobalKind::Unsupported(
                        UnsupportedKind::UnboundResource,
                        "a buffer without @group/@binding".into(),
                    );
                };
                if let naga::TypeInner::BindingArray { .. } = self.module.types[var.ty].inner {
                    return GlobalKind::Unsupported(
                        UnsupportedKind::BindingArrays,
                        "binding arrays of buffers".into(),
                    );
                }
                GlobalKind::Buffer {
                    group: rb.group,
                    binding: rb.binding,
                    runtime: self.runtime_array_of(var.ty),
                }
            }
            A::WorkGroup => GlobalKind::Workgroup,
            A::Private => GlobalKind::Private,
            A::Immediate => GlobalKind::Immediate,
            A::Handle => match (self.classify_handle(var.ty), &var.binding) {
                (GlobalKind::Texture { texture, .. }, Some(rb)) => GlobalKind::Texture {
                    group: rb.group,
                    binding: rb.binding,
                    texture,
                },
                (GlobalKind::Texture { .. }, None) => GlobalKind::Unsupported(
                    UnsupportedKind::UnboundResource,
                    "a texture without @group/@binding".into(),
                ),
                (GlobalKind::Sampler { comparison, .. }, Some(rb)) => GlobalKind::Sampler {
                    group: rb.group,
                    binding: rb.binding,
                    comparison,
                },
                (GlobalKind::Sampler { .. }, None) => GlobalKind::Unsupported(
                    UnsupportedKind::UnboundResource,
                    "a sampler without @group/@binding".into(),
                ),
                (other, _) => other,
            },
            other => GlobalKind::Unsupported(UnsupportedKind::Other, format!("var<{other:?}>")),
        }
    }

    /// A handle (opaque) global: its class of unsupported construct.
    fn classify_handle(&self, ty: Handle<naga::Type>) -> GlobalKind {
        use naga::TypeInner as T;
        match self.module.types[ty].inner {
            T::AccelerationStructure { .. } | T::RayQuery { .. } => GlobalKind::Unsupported(
                UnsupportedKind::RayQueries,
                "ray queries (acceleration structures)".into(),
            ),
            T::BindingArray { base, .. } => {
                let what = match self.classify_handle(base) {
                    GlobalKind::Unsupported(_, what) => what,
                    _ => "textures".into(),
                };
                GlobalKind::Unsupported(
                    UnsupportedKind::BindingArrays,
                    format!("binding arrays of {what}"),
                )
            }
            T::Image {
                dim,
                arrayed,
                class,
            } => match image::texture_reflection(dim, arrayed, class) {
                Ok(texture) => GlobalKind::Texture {
                    group: 0,
                    binding: 0,
                    texture,
                },
                Err((kind, what)) => GlobalKind::Unsupported(kind, what),
            },
            T::Sampler { comparison } => GlobalKind::Sampler {
                group: 0,
                binding: 0,
                comparison,
            },
            _ => GlobalKind::Unsupported(UnsupportedKind::Other, "this handle type".into()),
        }
    }

    /// (offset, stride) of the runtime-sized array a buffer type ends in.
    pub(crate) fn runtime_array_of(&self, ty: Handle<naga::Type>) -> Option<(u32, u32)> {
        match self.module.types[ty].inner {
            naga::TypeInner::Array {
                size: naga::ArraySize::Dynamic,
                stride,
                ..
            } => Some((0, stride)),
            naga::TypeInner::Struct { ref members, .. } => {
                let last = members.last()?;
                match self.module.types[last.ty].inner {
                    naga::TypeInner::Array {
                        size: naga::ArraySize::Dynamic,
                        stride,
                        ..
                    } => Some((last.offset, stride)),
                    _ => None,
                }
            }
            _ => None,
        }
    }

    /// The LLVM name of a symbol the module defines (`main`, `f.3`,
    /// `wg.0`): `PREFIX.name` with a symbol prefix, else the name itself.
    pub(crate) fn symbol(&self, name: &str) -> String {
        if self.symbol_prefix.is_empty() {
            name.to_string()
        } else {
            format!("{}.{name}", self.symbol_prefix)
        }
    }

    /// Declare an intrinsic (the full `declare` line).
    pub(crate) fn declare(&self, line: String) {
        self.declares.borrow_mut().insert(line);
    }
}

/// Emit the compute entry points of `module` (all of them, or only
/// `entry`) as one LLVM IR module whose defined symbols carry
/// `symbol_prefix` (see [`ModuleCtx::symbol`]).
pub(crate) fn emit_module(
    module: &naga::Module,
    info: &ModuleInfo,
    entry: Option<&str>,
    module_name: &str,
    symbol_prefix: &str,
) -> EmitResult<EmittedModule> {
    let mut ctx = ModuleCtx::new(module, info, symbol_prefix)?;
    let mut body = String::new();
    let mut entry_points = Vec::new();

    // Helper functions used by the chosen entry points.
    let selected: Vec<usize> = module
        .entry_points
        .iter()
        .enumerate()
        .filter(|(_, ep)| ep.stage == ShaderStage::Compute)
        .filter(|(_, ep)| entry.is_none_or(|name| ep.name == name))
        .map(|(i, _)| i)
        .collect();
    ctx.whole_waves = selected.iter().all(|&i| {
        let size = module.entry_points[i].workgroup_size;
        size.iter().map(|&d| u64::from(d)).product::<u64>() % 64 == 0
    });

    let reached = reach::reached_functions(module, &selected);
    for (handle, function) in module.functions.iter() {
        if !reached[handle.index()] {
            continue;
        }
        let text = func::FnEmitter::emit_helper(&ctx, handle, function)?;
        body.push_str(&text);
        body.push('\n');
    }
    for &index in &selected {
        let (text, reflection) = kernel::emit_kernel(&ctx, index)?;
        body.push_str(&text);
        body.push('\n');
        entry_points.push(reflection);
    }

    let mut out = String::new();
    let _ = writeln!(out, "; aqueduct-shaderc: {module_name}");
    let _ = writeln!(out, "source_filename = \"{module_name}\"");
    let _ = writeln!(out, "target triple = \"amdgcn-amd-amdhsa\"\n");
    for (index, kind) in ctx.globals.iter().enumerate() {
        if let GlobalKind::Workgroup = kind {
            let (_, var) = module
                .global_variables
                .iter()
                .nth(index)
                .expect("index in range");
            let size = ctx.layouter[var.ty].size.max(1).div_ceil(4) * 4;
            let align = ctx.align_of(var.ty).max(4);
            let _ = writeln!(
                out,
                "@{} = internal addrspace(3) global [{size} x i8] poison, align {align}",
                ctx.symbol(&format!("wg.{index}"))
            );
        }
    }
    out.push('\n');
    out.push_str(&body);
    for line in ctx.declares.borrow().iter() {
        out.push_str(line);
        out.push('\n');
    }
    Ok(EmittedModule {
        llvm_ir: out,
        entry_points,
    })
}
