//! Pipeline layouts and compute pipelines.
//!
//! A compute pipeline joins one entry point of a shader module with a
//! pipeline layout: explicit, checked binding by binding against what the
//! kernel uses, or derived ("auto") from the entry point's bindings, with
//! one new layout per group that is compatible only with this pipeline (as
//! in WebGPU). Pipeline overrides (`constants`) apply to WGSL modules only:
//! the pipeline resolves the variant specialised with them (precompiled by
//! content hash, cached, or compiled at run time; see `crate::wgsl`).

use std::sync::Arc;
use std::sync::atomic::Ordering;

use wgpu_types::{BindGroupLayoutEntry, BindingType, BufferBindingType, BufferSize, ShaderStages};

use crate::Label;
use crate::binding::{BindGroupLayout, BindGroupLayoutDescriptor, create_layout};
use crate::device::DeviceShared;
use crate::error::ValidationError;
use crate::shader::{EntryPoint, ShaderModule};

#[derive(Default)]
pub struct PipelineLayoutDescriptor<'a> {
    pub label: Label<'a>,
    pub bind_group_layouts: &'a [Option<&'a BindGroupLayout>],
    pub immediate_size: u32,
}

#[derive(Debug)]
pub(crate) struct PipelineLayoutInner {
    pub groups: Vec<Option<BindGroupLayout>>,
    pub immediate_size: u32,
    pub valid: bool,
}

/// A pipeline layout (cheap to clone).
#[derive(Clone, Debug)]
pub struct PipelineLayout {
    pub(crate) inner: Arc<PipelineLayoutInner>,
}

pub(crate) fn create_pipeline_layout(
    device: &DeviceShared,
    desc: &PipelineLayoutDescriptor<'_>,
) -> PipelineLayout {
    let limits = &device.limits;
    let groups: Vec<Option<BindGroupLayout>> =
        desc.bind_group_layouts.iter().map(|g| g.cloned()).collect();
    let check = || -> Result<(), String> {
        if groups.len() > limits.max_bind_groups as usize {
            return Err(format!(
                "{} bind group layouts exceed max_bind_groups ({})",
                groups.len(),
                limits.max_bind_groups
            ));
        }
        if desc.immediate_size > limits.max_immediate_size {
            return Err(format!(
                "immediate_size {} exceeds max_immediate_size ({}); request a larger limit \
                 (and Features::IMMEDIATES) when creating the device",
                desc.immediate_size, limits.max_immediate_size
            ));
        }
        if !desc.immediate_size.is_multiple_of(4) {
            return Err(format!(
                "immediate_size {} is not a multiple of 4",
                desc.immediate_size
            ));
        }
        for (i, g) in groups.iter().enumerate() {
            if let Some(g) = g
                && !g.inner.valid
            {
                return Err(format!("bind group layout {i} is invalid"));
            }
        }
        Ok(())
    };
    let valid = match check() {
        Ok(()) => true,
        Err(msg) => {
            device.report(ValidationError::PipelineLayout(format!(
                "create_pipeline_layout{}: {msg}",
                crate::label_suffix(desc.label)
            )));
            false
        }
    };
    PipelineLayout {
        inner: Arc::new(PipelineLayoutInner {
            groups,
            immediate_size: desc.immediate_size,
            valid,
        }),
    }
}

/// Options for pipeline creation (WGSL overrides and workgroup memory
/// zeroing; the latter is what aqueduct-shaderc compiled in).
#[derive(Clone, Debug)]
pub struct PipelineCompilationOptions<'a> {
    pub constants: &'a [(&'a str, f64)],
    pub zero_initialize_workgroup_memory: bool,
}

impl Default for PipelineCompilationOptions<'_> {
    fn default() -> Self {
        Self {
            constants: &[],
            zero_initialize_workgroup_memory: true,
        }
    }
}

pub struct ComputePipelineDescriptor<'a> {
    pub label: Label<'a>,
    /// None: derive the layout from the shader ("auto").
    pub layout: Option<&'a PipelineLayout>,
    pub module: &'a ShaderModule,
    pub entry_point: Option<&'a str>,
    pub compilation_options: PipelineCompilationOptions<'a>,
    /// Pipeline caches do not apply (code objects are loaded as they are).
    pub cache: Option<&'a ()>,
}

#[derive(Debug)]
pub(crate) struct ComputePipelineInner {
    pub device: Arc<DeviceShared>,
    pub id: u64,
    pub label: Option<String>,
    /// None if the pipeline is invalid.
    pub entry: Option<EntryPoint>,
    pub groups: Vec<Option<BindGroupLayout>>,
}

/// A compute pipeline (cheap to clone).
#[derive(Clone, Debug)]
pub struct ComputePipeline {
    pub(crate) inner: Arc<ComputePipelineInner>,
}

impl ComputePipeline {
    pub(crate) fn valid(&self) -> bool {
        self.inner.entry.is_some()
    }

    /// The layout of group `index`: the derived one for an auto layout, the
    /// given one otherwise. Out-of-range indices report a validation error
    /// and return an invalid layout.
    pub fn get_bind_group_layout(&self, index: u32) -> BindGroupLayout {
        if let Some(Some(l)) = self.inner.groups.get(index as usize) {
            return l.clone();
        }
        let msg = format!(
            "get_bind_group_layout({index}): the pipeline{} has {} bind group layouts{}",
            label_of(&self.inner.label),
            self.inner.groups.len(),
            if self.valid() { "" } else { " (it is invalid)" }
        );
        self.inner.device.report(ValidationError::Pipeline(msg));
        BindGroupLayout {
            inner: Arc::new(crate::binding::BindGroupLayoutInner {
                label: None,
                entries: Vec::new(),
                origin: Some(self.inner.id),
                valid: false,
            }),
        }
    }

    pub(crate) fn describe(&self) -> String {
        format!("compute pipeline{}", label_of(&self.inner.label))
    }
}

fn label_of(label: &Option<String>) -> String {
    label
        .as_deref()
        .map(|l| format!(" `{l}`"))
        .unwrap_or_default()
}

/// The entry point a pipeline runs: the module's own, or for a WGSL module
/// with override constants (or entry points still pending) the variant
/// resolved for this entry point and these constants (see `crate::wgsl`).
fn pipeline_entry(
    device: &DeviceShared,
    desc: &ComputePipelineDescriptor<'_>,
) -> Result<EntryPoint, String> {
    let constants = desc.compilation_options.constants;
    let module = desc.module;
    let Some(source) = &module.inner.wgsl else {
        if !constants.is_empty() {
            let names: Vec<&str> = constants.iter().map(|c| c.0).collect();
            return Err(format!(
                "pipeline-overridable constants {names:?} were given, but the shader module is \
                 a code object, which has no overrides; only WGSL modules take constants"
            ));
        }
        return module.entry_point(desc.entry_point).cloned();
    };
    let pending = match desc.entry_point {
        Some(name) => !module.inner.entry_points.iter().any(|e| e.name == name),
        None => module.inner.entry_points.is_empty(),
    };
    if constants.is_empty() && !pending {
        return module.entry_point(desc.entry_point).cloned();
    }
    let eps = crate::wgsl::resolve_pipeline(device, source, desc.entry_point, constants)?;
    crate::shader::select_entry_point(&eps, desc.entry_point).cloned()
}

fn layout_accepts(
    entry: &BindGroupLayoutEntry,
    b: &crate::shader::ShaderBinding,
) -> Result<(), String> {
    let BindingType::Buffer {
        ty,
        min_binding_size,
        ..
    } = entry.ty
    else {
        return Err("the layout entry is not a buffer".into());
    };
    if !entry.visibility.contains(ShaderStages::COMPUTE) {
        return Err("the layout entry is not visible to the COMPUTE stage".into());
    }
    if b.exact && ty != b.ty {
        return Err(format!(
            "the shader declares {:?} but the layout has {ty:?}",
            b.ty
        ));
    }
    if !b.exact && b.ty == (BufferBindingType::Storage { read_only: true }) {
        // A const pointer may be bound read-only or read-write.
    }
    if let Some(min) = min_binding_size
        && min.get() < b.min_binding_size
    {
        return Err(format!(
            "the layout's min_binding_size {} is below the shader's {}",
            min.get(),
            b.min_binding_size
        ));
    }
    Ok(())
}

pub(crate) fn create_compute_pipeline(
    device: &Arc<DeviceShared>,
    desc: &ComputePipelineDescriptor<'_>,
) -> ComputePipeline {
    let id = device.next_id.fetch_add(1, Ordering::Relaxed);
    let label = desc.label.map(str::to_string);
    let build = || -> Result<(EntryPoint, Vec<Option<BindGroupLayout>>, u32), String> {
        if let Some(err) = &desc.module.inner.error {
            return Err(format!("its shader module is invalid ({err})"));
        }
        let entry = pipeline_entry(device, desc)?;
        let limits = &device.limits;
        let wg = entry.workgroup_size;
        let items = wg[0] as u64 * wg[1] as u64 * wg[2] as u64;
        if wg[0] > limits.max_compute_workgroup_size_x
            || wg[1] > limits.max_compute_workgroup_size_y
            || wg[2] > limits.max_compute_workgroup_size_z
            || items > limits.max_compute_invocations_per_workgroup as u64
            || items > entry.kernel.info.max_flat_workgroup_size.max(1) as u64
        {
            return Err(format!(
                "workgroup size {wg:?} exceeds the device limits (x {}, y {}, z {}, {} invocations) \
                 or the kernel's maximum of {} work-items",
                limits.max_compute_workgroup_size_x,
                limits.max_compute_workgroup_size_y,
                limits.max_compute_workgroup_size_z,
                limits.max_compute_invocations_per_workgroup,
                entry.kernel.info.max_flat_workgroup_size
            ));
        }
        if entry.kernel.info.group_segment_fixed_size > limits.max_compute_workgroup_storage_size {
            return Err(format!(
                "the kernel uses {} bytes of workgroup memory, above max_compute_workgroup_storage_size ({})",
                entry.kernel.info.group_segment_fixed_size,
                limits.max_compute_workgroup_storage_size
            ));
        }
        match desc.layout {
            Some(layout) => {
                if !layout.inner.valid {
                    return Err("its pipeline layout is invalid".into());
                }
                for b in &entry.bindings {
                    let group = layout
                        .inner
                        .groups
                        .get(b.group as usize)
                        .and_then(|g| g.as_ref())
                        .ok_or_else(|| {
                            format!(
                                "the shader uses @group({}) @binding({}) but the pipeline layout has no bind group layout {}",
                                b.group, b.binding, b.group
                            )
                        })?;
                    let le = group.entry(b.binding).ok_or_else(|| {
                        format!(
                            "the shader uses @group({}) @binding({}) but bind group layout {} has no binding {}",
                            b.group, b.binding, b.group, b.binding
                        )
                    })?;
                    layout_accepts(le, b)
                        .map_err(|m| format!("@group({}) @binding({}): {m}", b.group, b.binding))?;
                }
                if entry.immediate_size > layout.inner.immediate_size {
                    return Err(format!(
                        "the kernel takes {} bytes of immediates but the pipeline layout's immediate_size is {}",
                        entry.immediate_size, layout.inner.immediate_size
                    ));
                }
                Ok((
                    entry,
                    layout.inner.groups.clone(),
                    layout.inner.immediate_size,
                ))
            }
            None => {
                let max_group = entry
                    .bindings
                    .iter()
                    .map(|b| b.group + 1)
                    .max()
                    .unwrap_or(0);
                if max_group > limits.max_bind_groups {
                    return Err(format!(
                        "the shader uses group {} but max_bind_groups is {}",
                        max_group - 1,
                        limits.max_bind_groups
                    ));
                }
                let mut groups = Vec::new();
                for g in 0..max_group {
                    let entries: Vec<BindGroupLayoutEntry> = entry
                        .bindings
                        .iter()
                        .filter(|b| b.group == g)
                        .map(|b| BindGroupLayoutEntry {
                            binding: b.binding,
                            visibility: ShaderStages::COMPUTE,
                            ty: BindingType::Buffer {
                                ty: b.ty,
                                has_dynamic_offset: false,
                                min_binding_size: BufferSize::new(b.min_binding_size),
                            },
                            count: None,
                        })
                        .collect();
                    groups.push(Some(create_layout(
                        device,
                        &BindGroupLayoutDescriptor {
                            label: None,
                            entries: &entries,
                        },
                        Some(id),
                    )));
                }
                if entry.immediate_size > limits.max_immediate_size {
                    return Err(format!(
                        "the kernel takes {} bytes of immediates (by-value arguments) but max_immediate_size is {}; \
                         request Features::IMMEDIATES and a larger max_immediate_size",
                        entry.immediate_size, limits.max_immediate_size
                    ));
                }
                let imm = entry.immediate_size;
                Ok((entry, groups, imm))
            }
        }
    };
    match build() {
        Ok((entry, groups, _immediate_size)) => ComputePipeline {
            inner: Arc::new(ComputePipelineInner {
                device: device.clone(),
                id,
                label,
                entry: Some(entry),
                groups,
            }),
        },
        Err(msg) => {
            device.report(ValidationError::Pipeline(format!(
                "create_compute_pipeline{}: {msg}",
                crate::label_suffix(desc.label)
            )));
            ComputePipeline {
                inner: Arc::new(ComputePipelineInner {
                    device: device.clone(),
                    id,
                    label,
                    entry: None,
                    groups: Vec::new(),
                }),
            }
        }
    }
}
