//! Kernels: the binding ABI, the prologue (builtins, `var<private>`,
//! zero-initialised `var<workgroup>`), workgroup-size attributes and the
//! entry point's reflection.
//!
//! ABI: `define amdgpu_kernel void @<entry>(ptr addrspace(1) %g0_b0,
//! [i32 %g0_b0_size,] ...)`, one pointer per binding the entry point uses,
//! in (group, binding) order, each followed by its u32 byte size when the
//! binding's type ends in a runtime-sized array, then, when the entry point
//! uses a `var<immediate>`, `ptr addrspace(4) byref([N x i8]) %immediates`:
//! the variable's N bytes passed by value (metadata `by_value`, size N) and
//! read where they lie in the kernarg segment. LLVM names the metadata
//! arguments after the IR arguments. A texture binding takes its place in
//! the (group, binding) order as `<8 x i32> %g{group}_b{binding}`: its
//! image descriptor by value (see `image`). Dispatch geometry comes from the
//! workitem/workgroup id intrinsics and, for num_workgroups, the code
//! object v5 hidden block counts and remainders (implicitarg.ptr).

use std::fmt::Write as _;

use naga::{BuiltIn, TypeInner};

use super::func::{FnEmitter, GlobalRef, Ptr, Val, Value};
use super::image::{DESCRIPTOR_TY, SAMPLER_TY};
use super::memory::Pointee;
use super::types::{AS_CONSTANT, AS_GLOBAL, AS_LOCAL, AS_PRIVATE};
use super::{GlobalKind, ModuleCtx};
use crate::error::{
    ComputeLimit, EmitError, EmitResult, LimitBreach, UnsupportedKind, unsupported, unsupported_as,
};
use crate::reflect::{
    BindingKind, BindingReflection, EntryReflection, ImmediateReflection, SamplerReflection,
};

/// The kernel argument holding an entry point's `var<immediate>` bytes.
const IMMEDIATES_ARG: &str = "immediates";

/// Per-kernel dispatch geometry values, computed on first use.
#[derive(Default)]
struct Geometry {
    local: Option<[String; 3]>,
    group: Option<[String; 3]>,
}

impl FnEmitter<'_> {
    fn local_ids(&mut self, geo: &mut Geometry, wg: [u32; 3]) -> [String; 3] {
        if let Some(l) = &geo.local {
            return l.clone();
        }
        let mut ids = [String::new(), String::new(), String::new()];
        for (i, axis) in ["x", "y", "z"].iter().enumerate() {
            ids[i] = if wg[i] > 1 {
                self.m
                    .declare(format!("declare i32 @llvm.amdgcn.workitem.id.{axis}()"));
                self.def(&format!("call i32 @llvm.amdgcn.workitem.id.{axis}()"))
            } else {
                "0".into()
            };
        }
        geo.local = Some(ids.clone());
        ids
    }

    fn group_ids(&mut self, geo: &mut Geometry) -> [String; 3] {
        if let Some(g) = &geo.group {
            return g.clone();
        }
        let mut ids = [String::new(), String::new(), String::new()];
        for (i, axis) in ["x", "y", "z"].iter().enumerate() {
            self.m
                .declare(format!("declare i32 @llvm.amdgcn.workgroup.id.{axis}()"));
            ids[i] = self.def(&format!("call i32 @llvm.amdgcn.workgroup.id.{axis}()"));
        }
        geo.group = Some(ids.clone());
        ids
    }

    fn vec3(&mut self, parts: &[String; 3]) -> Val {
        let mut acc = "poison".to_string();
        for (i, p) in parts.iter().enumerate() {
            acc = self.def(&format!("insertelement <3 x i32> {acc}, i32 {p}, i32 {i}"));
        }
        Val::new("<3 x i32>", acc)
    }

    fn local_index(&mut self, geo: &mut Geometry, wg: [u32; 3]) -> String {
        let [x, y, z] = self.local_ids(geo, wg);
        let ym = self.def(&format!("mul i32 {y}, {}", wg[0]));
        let zm = self.def(&format!("mul i32 {z}, {}", wg[0] * wg[1]));
        let s = self.def(&format!("add i32 {x}, {ym}"));
        self.def(&format!("add i32 {s}, {zm}"))
    }

    fn builtin(
        &mut self,
        b: BuiltIn,
        geo: &mut Geometry,
        wg: [u32; 3],
        span: naga::Span,
    ) -> EmitResult<Val> {
        Ok(match b {
            BuiltIn::LocalInvocationId => {
                let l = self.local_ids(geo, wg);
                self.vec3(&l)
            }
            BuiltIn::LocalInvocationIndex => Val::new("i32", self.local_index(geo, wg)),
            BuiltIn::WorkGroupId => {
                let g = self.group_ids(geo);
                self.vec3(&g)
            }
            BuiltIn::GlobalInvocationId => {
                let l = self.local_ids(geo, wg);
                let g = self.group_ids(geo);
                let mut parts = [String::new(), String::new(), String::new()];
                for i in 0..3 {
                    let m = self.def(&format!("mul i32 {}, {}", g[i], wg[i]));
                    parts[i] = self.def(&format!("add i32 {m}, {}", l[i]));
                }
                self.vec3(&parts)
            }
            BuiltIn::NumWorkGroups => {
                self.m
                    .declare("declare ptr addrspace(4) @llvm.amdgcn.implicitarg.ptr()".into());
                let ia = self.def("call ptr addrspace(4) @llvm.amdgcn.implicitarg.ptr()");
                let mut parts = [String::new(), String::new(), String::new()];
                for i in 0..3u32 {
                    let cp = self.def(&format!(
                        "getelementptr inbounds i8, ptr addrspace(4) {ia}, i64 {}",
                        4 * i
                    ));
                    let count = self.def(&format!("load i32, ptr addrspace(4) {cp}, align 4"));
                    let rp = self.def(&format!(
                        "getelementptr inbounds i8, ptr addrspace(4) {ia}, i64 {}",
                        18 + 2 * i
                    ));
                    let rem = self.def(&format!("load i16, ptr addrspace(4) {rp}, align 2"));
                    let partial = self.def(&format!("icmp ne i16 {rem}, 0"));
                    let extra = self.def(&format!("zext i1 {partial} to i32"));
                    parts[i as usize] = self.def(&format!("add i32 {count}, {extra}"));
                }
                self.vec3(&parts)
            }
            BuiltIn::WorkGroupSize => Val::new(
                "<3 x i32>",
                format!("<i32 {}, i32 {}, i32 {}>", wg[0], wg[1], wg[2]),
            ),
            BuiltIn::SubgroupSize => Val::new("i32", self.wave_size()),
            BuiltIn::SubgroupInvocationId => Val::new("i32", self.lane_id()),
            // Waves are made of consecutive local invocation indices.
            BuiltIn::SubgroupId => {
                let index = self.local_index(geo, wg);
                let size = self.wave_size();
                Val::new("i32", self.def(&format!("udiv i32 {index}, {size}")))
            }
            BuiltIn::NumSubgroups => {
                let size = self.wave_size();
                let invocations = wg.iter().product::<u32>();
                let up = self.def(&format!("add i32 {size}, {}", invocations - 1));
                Val::new("i32", self.def(&format!("udiv i32 {up}, {size}")))
            }
            other => {
                return unsupported_as(
                    UnsupportedKind::NonComputeBuiltin,
                    format!("the builtin {other:?} in a compute shader"),
                    span,
                );
            }
        })
    }

    /// The value of an entry point argument (a builtin, or a struct of them).
    fn entry_argument(
        &mut self,
        arg: &naga::FunctionArgument,
        geo: &mut Geometry,
        wg: [u32; 3],
        span: naga::Span,
    ) -> EmitResult<Val> {
        match (&arg.binding, &self.m.module.types[arg.ty].inner) {
            (Some(naga::Binding::BuiltIn(b)), _) => self.builtin(*b, geo, wg, span),
            (None, TypeInner::Struct { members, .. }) => {
                let ty = self.m.lowered_ty_of(arg.ty, span)?;
                let mut acc = Val::new(&ty, "poison");
                for (i, m) in members.iter().enumerate() {
                    let Some(naga::Binding::BuiltIn(b)) = m.binding else {
                        return unsupported(
                            "an entry point struct member that is not a builtin",
                            span,
                        );
                    };
                    let v = self.builtin(b, geo, wg, span)?;
                    acc = self.defv(
                        &ty,
                        &format!("insertvalue {}, {}, {i}", acc.typed(), v.typed()),
                    );
                }
                Ok(acc)
            }
            _ => unsupported_as(
                UnsupportedKind::NonComputeBuiltin,
                "an entry point input that is not a compute builtin",
                span,
            ),
        }
    }

    /// Zero `size` bytes of workgroup variable `name`, spread over the
    /// workgroup's invocations (dword stores, stride = workgroup size).
    fn zero_workgroup(&mut self, name: &str, size: u32, local_index: &str, invocations: u32) {
        let counter = self.tmp();
        let _ = writeln!(
            self.allocas,
            "  {counter} = alloca i32, align 4, addrspace(5)"
        );
        self.inst(&format!(
            "store i32 {local_index}, ptr addrspace(5) {counter}, align 4"
        ));
        let head = self.label("wgzero");
        let body = self.label("wgzero.body");
        let end = self.label("wgzero.end");
        self.terminate(&format!("br label %{head}"));
        self.start_block(&head);
        let i = self.def(&format!("load i32, ptr addrspace(5) {counter}, align 4"));
        let more = self.def(&format!("icmp ult i32 {i}, {}", size / 4));
        self.terminate(&format!("br i1 {more}, label %{body}, label %{end}"));
        self.start_block(&body);
        let p = self.def(&format!(
            "getelementptr inbounds i32, ptr addrspace(3) {name}, i32 {i}"
        ));
        self.inst(&format!("store i32 0, ptr addrspace(3) {p}, align 4"));
        let next = self.def(&format!("add i32 {i}, {invocations}"));
        self.inst(&format!(
            "store i32 {next}, ptr addrspace(5) {counter}, align 4"
        ));
        self.terminate(&format!("br label %{head}"));
        self.start_block(&end);
    }
}

/// naga's slot set as a bitmask (bit n: bytes 4n..4n + 4).
fn slot_mask(slots: naga::valid::ImmediateSlots) -> u64 {
    (0..64u32)
        .filter(|&n| slots.contains(naga::valid::ImmediateSlots::from_range(4 * n, 4)))
        .fold(0, |mask, n| mask | 1 << n)
}

/// Bytes a `var<workgroup>` takes in LDS: its size rounded up to dwords
/// (the zero fill stores dwords).
fn workgroup_var_size(m: &ModuleCtx<'_>, h: naga::Handle<naga::GlobalVariable>) -> u32 {
    m.layouter[m.module.global_variables[h].ty]
        .size
        .max(1)
        .div_ceil(4)
        * 4
}

/// An error naming the variable that takes an entry point's workgroup
/// memory past what every gfx target has, before LLVM sees the module
/// (whose own message for it reads like a compiler bug).
fn check_workgroup_storage(
    m: &ModuleCtx<'_>,
    entry_point: &str,
    vars: &[naga::Handle<naga::GlobalVariable>],
) -> EmitResult<()> {
    let limit = ComputeLimit::WorkgroupStorageSize;
    let mut total = 0u64;
    for &h in vars {
        let size = u64::from(workgroup_var_size(m, h));
        total += size;
        if total > limit.max() {
            let name = m.module.global_variables[h].name.clone();
            let all: u64 = vars
                .iter()
                .map(|&v| u64::from(workgroup_var_size(m, v)))
                .sum();
            let shown = name.as_deref().unwrap_or("(unnamed)");
            return Err(EmitError {
                kind: UnsupportedKind::Other,
                construct: format!(
                    "`var<workgroup> {shown}` ({size} bytes) brings entry point `{entry_point}` to \
                     {all} bytes of workgroup memory, above the {} bytes ({limit}) every gfx \
                     target has",
                    limit.max()
                ),
                span: m.module.global_variables.get_span(h),
                limit: Some(LimitBreach {
                    entry_point: entry_point.to_string(),
                    limit,
                    requested: all,
                    variable: name,
                }),
            });
        }
    }
    Ok(())
}

pub(crate) fn emit_kernel(
    m: &ModuleCtx<'_>,
    index: usize,
) -> EmitResult<(String, EntryReflection)> {
    let module = m.module;
    let ep = &module.entry_points[index];
    let finfo = m.info.get_entry_point(index);
    let fun = &ep.function;
    let span = fun
        .body
        .span_iter()
        .next()
        .map(|(_, s)| *s)
        .unwrap_or_default();
    let wg = ep.workgroup_size;
    if wg.contains(&0) || wg.iter().product::<u32>() > 1024 {
        return unsupported_as(
            UnsupportedKind::WorkgroupSize,
            format!("workgroup size {wg:?} (each dimension >= 1, at most 1024 invocations)"),
            span,
        );
    }
    let invocations: u32 = wg.iter().product();

    let mut e = FnEmitter::new(m, fun, finfo);
    let mut params = Vec::new();
    let mut bindings = Vec::new();
    let mut buffers: Vec<(u32, u32, usize)> = Vec::new();
    let mut workgroup_vars = Vec::new();
    let mut private_vars = Vec::new();
    let mut immediate_vars = Vec::new();
    for (h, _var) in module.global_variables.iter() {
        if finfo[h].is_empty() {
            continue;
        }
        let var_span = module.global_variables.get_span(h);
        match &m.globals[h.index()] {
            GlobalKind::Buffer { group, binding, .. }
            | GlobalKind::Texture { group, binding, .. }
            | GlobalKind::Sampler { group, binding, .. } => {
                buffers.push((*group, *binding, h.index()))
            }
            GlobalKind::Workgroup => workgroup_vars.push(h),
            GlobalKind::Private => private_vars.push(h),
            GlobalKind::Immediate => immediate_vars.push(h),
            GlobalKind::Unsupported(kind, what) => {
                return unsupported_as(*kind, what.clone(), var_span);
            }
        }
    }
    check_workgroup_storage(m, &ep.name, &workgroup_vars)?;
    buffers.sort();
    for &(group, binding, gi) in &buffers {
        let (h, var) = module
            .global_variables
            .iter()
            .nth(gi)
            .expect("global index in range");
        let runtime = match m.globals[gi] {
            GlobalKind::Buffer { runtime, .. } => runtime,
            GlobalKind::Texture { texture, .. } => {
                let arg = format!("g{group}_b{binding}");
                params.push(format!("{DESCRIPTOR_TY} %{arg}"));
                e.globals[gi] = Some(GlobalRef {
                    ptr: format!("%{arg}"),
                    space: AS_CONSTANT,
                    size: None,
                });
                let kind = if texture.access.is_some() {
                    BindingKind::StorageTexture
                } else {
                    BindingKind::SampledTexture
                };
                bindings.push(BindingReflection {
                    group,
                    binding,
                    kind,
                    min_binding_size: 0,
                    array_stride: None,
                    arg,
                    size_arg: None,
                    name: var.name.clone(),
                    texture: Some(texture),
                    sampler: None,
                });
                continue;
            }
            GlobalKind::Sampler { comparison, .. } => {
                let arg = format!("g{group}_b{binding}");
                params.push(format!("{SAMPLER_TY} %{arg}"));
                e.globals[gi] = Some(GlobalRef {
                    ptr: format!("%{arg}"),
                    space: AS_CONSTANT,
                    size: None,
                });
                bindings.push(BindingReflection {
                    group,
                    binding,
                    kind: BindingKind::Sampler,
                    min_binding_size: 0,
                    array_stride: None,
                    arg,
                    size_arg: None,
                    name: var.name.clone(),
                    texture: None,
                    sampler: Some(SamplerReflection {
                        comparison,
                        textures: sampled_textures(m, finfo, h),
                    }),
                });
                continue;
            }
            _ => continue,
        };
        let arg = format!("g{group}_b{binding}");
        let kind = match var.space {
            naga::AddressSpace::Uniform => BindingKind::Uniform,
            naga::AddressSpace::Storage { access }
                if !access.contains(naga::StorageAccess::STORE) =>
            {
                BindingKind::StorageRead
            }
            _ => BindingKind::StorageReadWrite,
        };
        let readonly = if kind == BindingKind::StorageReadWrite {
            ""
        } else {
            " readonly"
        };
        params.push(format!("ptr addrspace(1){readonly} %{arg}"));
        let size_arg = runtime.map(|_| format!("{arg}_size"));
        if let Some(s) = &size_arg {
            params.push(format!("i32 %{s}"));
        }
        let min_binding_size = match runtime {
            Some((offset, stride)) => {
                let align = m.align_of(var.ty);
                u64::from((offset + stride).div_ceil(align) * align)
            }
            None => u64::from(m.layouter[var.ty].size),
        };
        e.globals[gi] = Some(GlobalRef {
            ptr: format!("%{arg}"),
            space: AS_GLOBAL,
            size: size_arg.as_ref().map(|s| format!("%{s}")),
        });
        let _ = h;
        bindings.push(BindingReflection {
            group,
            binding,
            kind,
            min_binding_size,
            array_stride: runtime.map(|(_, s)| s),
            arg,
            size_arg,
            name: var.name.clone(),
            texture: None,
            sampler: None,
        });
    }

    // var<immediate> (naga allows one per entry point): the last kernel
    // argument, passed by value and read in place in the kernarg segment.
    let mut immediates = None;
    for &h in &immediate_vars {
        let var = &module.global_variables[h];
        let size = m.layouter[var.ty].size;
        let align = m.align_of(var.ty).max(4);
        let arg = IMMEDIATES_ARG.to_string();
        params.push(format!(
            "ptr addrspace({AS_CONSTANT}) byref([{size} x i8]) align {align} %{arg}"
        ));
        e.globals[h.index()] = Some(GlobalRef {
            ptr: format!("%{arg}"),
            space: AS_CONSTANT,
            size: None,
        });
        immediates = Some(ImmediateReflection {
            arg,
            offset: 0,
            size,
            slots: slot_mask(finfo.immediate_slots_used),
            name: var.name.clone(),
        });
    }

    // Dispatch geometry and entry arguments.
    let mut geo = Geometry::default();
    for arg in &fun.arguments {
        let v = e.entry_argument(arg, &mut geo, wg, span)?;
        e.args.push(Value::Val(v));
    }

    // var<private>: per-invocation slots, initialised (zero by default).
    for &h in &private_vars {
        let var = &module.global_variables[h];
        let size = m.layouter[var.ty].size;
        let p = e.alloca_bytes(size, m.align_of(var.ty));
        e.globals[h.index()] = Some(GlobalRef {
            ptr: p.clone(),
            space: AS_PRIVATE,
            size: None,
        });
        let var_span = module.global_variables.get_span(h);
        let init = match var.init {
            Some(init) => {
                let c = m
                    .global_const(init)
                    .or_else(|err| unsupported(err, var_span))?;
                Val::new(c.ty(), c.text())
            }
            None => {
                let ty = m
                    .llvm_ty_of(var.ty)
                    .or_else(|err| unsupported(err, var_span))?;
                Val::new(ty, "zeroinitializer")
            }
        };
        let ptr = Ptr {
            v: p,
            space: AS_PRIVATE,
            root: None,
            offset: None,
            ok: None,
        };
        e.store_value(&ptr, Pointee::Handle(var.ty), &init, var_span)?;
    }

    // var<workgroup>: zero-initialised by the workgroup, then a barrier.
    let mut workgroup_memory_size = 0;
    for (gi, kind) in m.globals.iter().enumerate() {
        if let GlobalKind::Workgroup = kind {
            e.globals[gi] = Some(GlobalRef {
                ptr: format!("@{}", m.symbol(&format!("wg.{gi}"))),
                space: AS_LOCAL,
                size: None,
            });
        }
    }
    if !workgroup_vars.is_empty() {
        let lidx = e.local_index(&mut geo, wg);
        for &h in &workgroup_vars {
            let size = workgroup_var_size(m, h);
            workgroup_memory_size += size;
            let global = format!("@{}", m.symbol(&format!("wg.{}", h.index())));
            e.zero_workgroup(&global, size, &lidx, invocations);
        }
        e.control_barrier(naga::Barrier::WORK_GROUP);
    }

    e.init_locals()?;
    e.block(&fun.body)?;
    e.br_ret_void();

    // Attributes sit on the definition (no attribute groups), so the
    // modules of a batch concatenate without renumbering.
    let kernel_symbol = m.symbol(&ep.name);
    let mut text = String::new();
    let _ = writeln!(
        text,
        "define amdgpu_kernel void @\"{kernel_symbol}\"({}) \"amdgpu-flat-work-group-size\"=\"{invocations},{invocations}\" nounwind !reqd_work_group_size !{{i32 {}, i32 {}, i32 {}}} {{",
        params.join(", "),
        wg[0],
        wg[1],
        wg[2]
    );
    text.push_str("entry:\n");
    text.push_str(&e.allocas);
    text.push_str(&e.out);
    text.push_str("}\n");
    Ok((
        text,
        EntryReflection {
            name: ep.name.clone(),
            kernel: kernel_symbol,
            workgroup_size: wg,
            workgroup_memory_size,
            uses_subgroups: super::subgroup::entry_uses_subgroups(module, index),
            bindings,
            immediates,
        },
    ))
}

/// The (group, binding) of each texture the entry point samples with the
/// sampler global `sampler` (naga's sampling set, which follows textures
/// and samplers through helper-function arguments), sorted.
fn sampled_textures(
    m: &ModuleCtx<'_>,
    finfo: &naga::valid::FunctionInfo,
    sampler: naga::Handle<naga::GlobalVariable>,
) -> Vec<[u32; 2]> {
    let mut out: Vec<[u32; 2]> = finfo
        .sampling_set
        .iter()
        .filter(|k| k.sampler == sampler)
        .filter_map(|k| match m.globals[k.image.index()] {
            GlobalKind::Texture { group, binding, .. } => Some([group, binding]),
            _ => None,
        })
        .collect();
    out.sort();
    out.dedup();
    out
}
