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

use wgpu_types::{
    BindGroupLayoutEntry, BindingType, BufferBindingType, BufferSize, Features, SamplerBindingType,
    ShaderStages, TextureSampleType,
};

use crate::Label;
use crate::binding::{BindGroupLayout, BindGroupLayoutDescriptor, create_layout};
use crate::binding_limits::BindingCounts;
use crate::device::DeviceShared;
use crate::error::{
    ComputePipelineError, DeviceId, EntryPointError, LayoutMismatch, ObjectKind,
    PipelineLayoutError, ShaderLoadError, same_device,
};
use crate::shader::{EntryPoint, ShaderModule};

/// Describes a pipeline layout.
#[derive(Default)]
pub struct PipelineLayoutDescriptor<'a> {
    /// The layout's label, for error messages and debugging.
    pub label: Label<'a>,
    /// The bind group layout at each index; `None` leaves the index unused.
    pub bind_group_layouts: &'a [Option<&'a BindGroupLayout>],
    /// The bytes of immediates the pipelines of this layout may take (a multiple of 4).
    pub immediate_size: u32,
}

#[derive(Debug)]
pub(crate) struct PipelineLayoutInner {
    pub device: DeviceId,
    pub label: Option<String>,
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
    let label = || desc.label.map(str::to_string);
    let check = || -> Result<(), PipelineLayoutError> {
        if groups.len() > limits.max_bind_groups as usize {
            return Err(PipelineLayoutError::TooManyGroups {
                label: label(),
                count: groups.len(),
                max: limits.max_bind_groups,
            });
        }
        if desc.immediate_size != 0 && !device.features.contains(Features::IMMEDIATES) {
            return Err(PipelineLayoutError::ImmediatesNeedFeature {
                label: label(),
                size: desc.immediate_size,
            });
        }
        if desc.immediate_size > limits.max_immediate_size {
            return Err(PipelineLayoutError::ImmediateSizeLimit {
                label: label(),
                size: desc.immediate_size,
                max: limits.max_immediate_size,
            });
        }
        if !desc.immediate_size.is_multiple_of(4) {
            return Err(PipelineLayoutError::UnalignedImmediateSize {
                label: label(),
                size: desc.immediate_size,
            });
        }
        for g in groups.iter().flatten() {
            g.check_device(device)?;
        }
        for (index, g) in groups.iter().enumerate() {
            if let Some(g) = g
                && !g.inner.valid
            {
                return Err(PipelineLayoutError::InvalidGroupLayout {
                    label: label(),
                    index,
                });
            }
        }
        let mut counts = BindingCounts::default();
        for g in groups.iter().flatten() {
            counts.merge(&BindingCounts::of(&g.inner.entries));
        }
        counts
            .check(limits)
            .map_err(|source| PipelineLayoutError::TooManyBindings {
                label: label(),
                source,
            })?;
        Ok(())
    };
    let valid = match check() {
        Ok(()) => true,
        Err(e) => {
            device.report(e);
            false
        }
    };
    PipelineLayout {
        inner: Arc::new(PipelineLayoutInner {
            device: device.id,
            label: label(),
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
    /// Values for the WGSL module's pipeline-overridable constants, by name.
    pub constants: &'a [(&'a str, f64)],
    /// Accepted for wgpu's shape; workgroup memory zeroing is what aqueduct-shaderc compiled into
    /// the kernel.
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

/// Describes a compute pipeline.
pub struct ComputePipelineDescriptor<'a> {
    /// The pipeline's label, for error messages and debugging.
    pub label: Label<'a>,
    /// None: derive the layout from the shader ("auto").
    pub layout: Option<&'a PipelineLayout>,
    /// The shader module holding the entry point.
    pub module: &'a ShaderModule,
    /// The entry point's name; `None` picks the module's only entry point.
    pub entry_point: Option<&'a str>,
    /// WGSL override values and workgroup memory options.
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
        self.inner
            .device
            .report(ComputePipelineError::BindGroupLayoutIndex {
                label: self.inner.label.clone(),
                index,
                count: self.inner.groups.len(),
                pipeline_valid: self.valid(),
            });
        BindGroupLayout {
            inner: Arc::new(crate::binding::BindGroupLayoutInner {
                device: self.inner.device.id,
                label: None,
                entries: Vec::new(),
                origin: Some(self.inner.id),
                valid: false,
            }),
        }
    }

    pub(crate) fn label(&self) -> Option<String> {
        self.inner.label.clone()
    }
}

/// The entry point a pipeline runs: the module's own, or for a WGSL module
/// with override constants (or entry points still pending) the variant
/// resolved for this entry point and these constants (see `crate::wgsl`).
fn pipeline_entry(
    device: &DeviceShared,
    desc: &ComputePipelineDescriptor<'_>,
) -> Result<EntryPoint, ComputePipelineError> {
    let label = || desc.label.map(str::to_string);
    let entry_point_error = |source: EntryPointError| ComputePipelineError::EntryPoint {
        label: label(),
        source,
    };
    let constants = desc.compilation_options.constants;
    let module = desc.module;
    let Some(source) = &module.inner.wgsl else {
        if !constants.is_empty() {
            return Err(ComputePipelineError::ConstantsOnCodeObject {
                label: label(),
                names: constants.iter().map(|c| c.0.to_string()).collect(),
            });
        }
        return module
            .entry_point(desc.entry_point)
            .cloned()
            .map_err(entry_point_error);
    };
    if constants.is_empty()
        && let Some(deferred) = &module.inner.deferred
    {
        let eps = crate::wgsl::resolve_deferred(device, source, deferred).map_err(
            |source: ShaderLoadError| ComputePipelineError::Variant {
                label: label(),
                source,
            },
        )?;
        return crate::shader::select_entry_point(&eps, desc.entry_point)
            .cloned()
            .map_err(entry_point_error);
    }
    let pending = match desc.entry_point {
        Some(name) => !module.inner.entry_points.iter().any(|e| e.name == name),
        None => module.inner.entry_points.is_empty(),
    };
    if constants.is_empty() && !pending {
        return module
            .entry_point(desc.entry_point)
            .cloned()
            .map_err(entry_point_error);
    }
    let eps = crate::wgsl::resolve_pipeline(device, source, desc.entry_point, constants).map_err(
        |source: ShaderLoadError| ComputePipelineError::Variant {
            label: label(),
            source,
        },
    )?;
    crate::shader::select_entry_point(&eps, desc.entry_point)
        .cloned()
        .map_err(entry_point_error)
}

fn layout_accepts(
    entry: &BindGroupLayoutEntry,
    b: &crate::shader::ShaderBinding,
) -> Result<(), LayoutMismatch> {
    if let Some(sampler) = &b.sampler {
        if !entry.visibility.contains(ShaderStages::COMPUTE) {
            return Err(LayoutMismatch::NotComputeVisible);
        }
        // wgpu-core `validation.rs` (`Resource::check`): a
        // `sampler_comparison` needs a Comparison entry, a `sampler` a
        // Filtering or NonFiltering one.
        return match entry.ty {
            BindingType::Sampler(ty)
                if (ty == SamplerBindingType::Comparison) == sampler.comparison =>
            {
                Ok(())
            }
            layout => Err(LayoutMismatch::Sampler {
                comparison: sampler.comparison,
                layout,
            }),
        };
    }
    if let Some(shader) = b.texture {
        if !entry.visibility.contains(ShaderStages::COMPUTE) {
            return Err(LayoutMismatch::NotComputeVisible);
        }
        if !crate::texture_binding::layout_holds(&shader, &entry.ty) {
            return Err(LayoutMismatch::Texture {
                shader,
                layout: entry.ty,
            });
        }
        return Ok(());
    }
    let BindingType::Buffer {
        ty,
        min_binding_size,
        ..
    } = entry.ty
    else {
        return Err(LayoutMismatch::NotBuffer);
    };
    if !entry.visibility.contains(ShaderStages::COMPUTE) {
        return Err(LayoutMismatch::NotComputeVisible);
    }
    if b.exact && ty != b.ty {
        return Err(LayoutMismatch::Type {
            shader: b.ty,
            layout: ty,
        });
    }
    if !b.exact && b.ty == (BufferBindingType::Storage { read_only: true }) {
        // A const pointer may be bound read-only or read-write.
    }
    if let Some(min) = min_binding_size
        && min.get() < b.min_binding_size
    {
        return Err(LayoutMismatch::MinBindingSize {
            layout: min.get(),
            shader: b.min_binding_size,
        });
    }
    Ok(())
}

/// wgpu-core's filtering rule (`validation.rs`, `FilteringError`): a
/// texture the entry point samples with a sampler whose layout entry is
/// `Filtering` must be a filterable float (or depth) texture in its layout.
fn check_filtering(
    entry: &EntryPoint,
    groups: &[Option<BindGroupLayout>],
    label: Label<'_>,
) -> Result<(), ComputePipelineError> {
    let layout_entry = |group: u32, binding: u32| {
        groups
            .get(group as usize)
            .and_then(|g| g.as_ref())
            .and_then(|g| g.entry(binding).map(|e| e.ty))
    };
    for b in &entry.bindings {
        let Some(sampler) = &b.sampler else { continue };
        if layout_entry(b.group, b.binding)
            != Some(BindingType::Sampler(SamplerBindingType::Filtering))
        {
            continue;
        }
        for &[group, binding] in &sampler.textures {
            if let Some(BindingType::Texture { sample_type, .. }) = layout_entry(group, binding) {
                let refused = matches!(
                    sample_type,
                    TextureSampleType::Float { filterable: false }
                        | TextureSampleType::Sint
                        | TextureSampleType::Uint
                );
                if refused {
                    return Err(ComputePipelineError::Filtering {
                        label: label.map(str::to_string),
                        texture: [group, binding],
                        sampler: [b.group, b.binding],
                        sample_type,
                    });
                }
            }
        }
    }
    Ok(())
}

/// The entry type an auto layout gives shader binding `b` (WebGPU's
/// default pipeline layout; wgpu-core's `derive_binding_type`): a sampler
/// is Comparison or Filtering, a float texture some sampler samples is
/// filterable, other float textures unfilterable.
fn auto_entry_type(
    all: &[crate::shader::ShaderBinding],
    b: &crate::shader::ShaderBinding,
) -> BindingType {
    if let Some(sampler) = &b.sampler {
        return BindingType::Sampler(if sampler.comparison {
            SamplerBindingType::Comparison
        } else {
            SamplerBindingType::Filtering
        });
    }
    match b.texture {
        Some(BindingType::Texture {
            sample_type: TextureSampleType::Float { .. },
            view_dimension,
            multisampled,
        }) => BindingType::Texture {
            sample_type: TextureSampleType::Float {
                filterable: crate::shader::ShaderBinding::sampled_by_any(all, b.group, b.binding),
            },
            view_dimension,
            multisampled,
        },
        Some(ty) => ty,
        None => BindingType::Buffer {
            ty: b.ty,
            has_dynamic_offset: false,
            min_binding_size: BufferSize::new(b.min_binding_size),
        },
    }
}

pub(crate) fn create_compute_pipeline(
    device: &Arc<DeviceShared>,
    desc: &ComputePipelineDescriptor<'_>,
) -> ComputePipeline {
    let id = device.next_id.fetch_add(1, Ordering::Relaxed);
    let label = desc.label.map(str::to_string);
    let build =
        || -> Result<(EntryPoint, Vec<Option<BindGroupLayout>>, u32), ComputePipelineError> {
            let label = || desc.label.map(str::to_string);
            desc.module.check_device(device)?;
            if let Some(layout) = desc.layout {
                same_device(
                    ObjectKind::PipelineLayout,
                    layout.inner.label.as_deref(),
                    layout.inner.device,
                    device.id,
                )?;
            }
            if let Some(err) = &desc.module.inner.error {
                return Err(ComputePipelineError::InvalidModule {
                    label: label(),
                    module: Box::new(err.clone()),
                });
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
                return Err(ComputePipelineError::WorkgroupSizeLimit {
                    label: label(),
                    size: wg,
                    max_size: [
                        limits.max_compute_workgroup_size_x,
                        limits.max_compute_workgroup_size_y,
                        limits.max_compute_workgroup_size_z,
                    ],
                    max_invocations: limits.max_compute_invocations_per_workgroup,
                    kernel_max: entry.kernel.info.max_flat_workgroup_size,
                });
            }
            if entry.kernel.info.group_segment_fixed_size
                > limits.max_compute_workgroup_storage_size
            {
                return Err(ComputePipelineError::WorkgroupStorageLimit {
                    label: label(),
                    size: entry.kernel.info.group_segment_fixed_size,
                    max: limits.max_compute_workgroup_storage_size,
                });
            }
            match desc.layout {
                Some(layout) => {
                    if !layout.inner.valid {
                        return Err(ComputePipelineError::InvalidLayout { label: label() });
                    }
                    for b in &entry.bindings {
                        let group = layout
                            .inner
                            .groups
                            .get(b.group as usize)
                            .and_then(|g| g.as_ref())
                            .ok_or_else(|| ComputePipelineError::MissingGroupLayout {
                                label: label(),
                                group: b.group,
                                binding: b.binding,
                            })?;
                        let le = group.entry(b.binding).ok_or_else(|| {
                            ComputePipelineError::MissingLayoutBinding {
                                label: label(),
                                group: b.group,
                                binding: b.binding,
                            }
                        })?;
                        layout_accepts(le, b).map_err(|source| {
                            ComputePipelineError::BindingMismatch {
                                label: label(),
                                group: b.group,
                                binding: b.binding,
                                source,
                            }
                        })?;
                    }
                    if entry.immediate_size > layout.inner.immediate_size {
                        return Err(ComputePipelineError::ImmediatesExceedLayout {
                            label: label(),
                            size: entry.immediate_size,
                            layout_size: layout.inner.immediate_size,
                        });
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
                        return Err(ComputePipelineError::GroupLimit {
                            label: label(),
                            group: max_group - 1,
                            max: limits.max_bind_groups,
                        });
                    }
                    let group_entries = |g: u32| -> Vec<BindGroupLayoutEntry> {
                        entry
                            .bindings
                            .iter()
                            .filter(|b| b.group == g)
                            .map(|b| BindGroupLayoutEntry {
                                binding: b.binding,
                                visibility: ShaderStages::COMPUTE,
                                ty: auto_entry_type(&entry.bindings, b),
                                count: None,
                            })
                            .collect()
                    };
                    // The derived groups together, as a pipeline layout
                    // made of them would be checked.
                    let mut counts = BindingCounts::default();
                    for g in 0..max_group {
                        counts.merge(&BindingCounts::of(&group_entries(g)));
                    }
                    counts.check(limits).map_err(|source| {
                        ComputePipelineError::TooManyBindings {
                            label: label(),
                            source,
                        }
                    })?;
                    let mut groups = Vec::new();
                    for g in 0..max_group {
                        let entries = group_entries(g);
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
                        return Err(ComputePipelineError::ImmediateSizeLimit {
                            label: label(),
                            size: entry.immediate_size,
                            max: limits.max_immediate_size,
                        });
                    }
                    let imm = entry.immediate_size;
                    Ok((entry, groups, imm))
                }
            }
        };
    let build =
        || -> Result<(EntryPoint, Vec<Option<BindGroupLayout>>, u32), ComputePipelineError> {
            let (entry, groups, imm) = build()?;
            check_filtering(&entry, &groups, desc.label)?;
            Ok((entry, groups, imm))
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
        Err(e) => {
            device.report(e);
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
