//! Shader modules, bind group layouts, bind groups, pipeline layouts,
//! compute pipelines and query sets: each wraps the facade object it was
//! created as, or nothing when the backend rejected the call before the
//! facade saw it (an invalid object, as wgpu keeps for failed creations;
//! using it reports a validation error).

use std::pin::Pin;

use wgpu::custom::{
    BindGroupInterface, BindGroupLayoutInterface, ComputePipelineInterface,
    DispatchBindGroupLayout, PipelineLayoutInterface, QuerySetInterface,
    ShaderCompilationInfoFuture, ShaderModuleInterface,
};

use crate::buffer::AqueductBuffer;
use crate::compute_only::ComputeOnlyObject;
use crate::device::facade_of;
use crate::error::{
    BackendValidationError, ObjectKind, ObjectRef, report_compute_only, report_validation,
};

/// `wgpu::ShaderModule`'s backend.
#[derive(Debug)]
pub struct AqueductShaderModule {
    module: Option<aqueduct::ShaderModule>,
    /// The first error its creation reported (for `get_compilation_info`).
    error: Option<String>,
}

impl AqueductShaderModule {
    pub(crate) fn create(
        device: &aqueduct::Device,
        desc: wgpu::ShaderModuleDescriptor<'_>,
    ) -> Self {
        let unsupported = |source_kind| {
            Self::invalid(
                device,
                BackendValidationError::UnsupportedSource {
                    label: desc.label.map(str::to_string),
                    source_kind,
                },
            )
        };
        let source = match desc.source {
            wgpu::ShaderSource::Wgsl(text) => aqueduct::ShaderSource::Wgsl(text),
            wgpu::ShaderSource::SpirV(words) => aqueduct::ShaderSource::SpirV(words),
            wgpu::ShaderSource::Glsl {
                shader,
                stage: wgpu::naga::ShaderStage::Compute,
                defines,
            } => aqueduct::ShaderSource::Glsl { shader, defines },
            wgpu::ShaderSource::Glsl { .. } => {
                return unsupported("a GLSL shader of another stage");
            }
            _ => return unsupported("this kind of source"),
        };
        // Catch the module's own error to answer get_compilation_info, then
        // hand it on to the caller's scopes as if uncaught here.
        let scope = device.push_error_scope(aqueduct::ErrorFilter::Validation);
        let module = device.create_shader_module(aqueduct::ShaderModuleDescriptor {
            label: desc.label,
            source,
        });
        let caught = scope.pop_now();
        // The message of the broken rule itself, as wgpu's compilation
        // messages carry naga's text without the error's heading.
        let error = caught.as_ref().map(|e| match std::error::Error::source(e) {
            Some(source) => source.to_string(),
            None => e.to_string(),
        });
        if let Some(e) = caught {
            device.report_error(e);
        }
        AqueductShaderModule {
            module: Some(module),
            error,
        }
    }

    /// An invalid module, after reporting `error`.
    pub(crate) fn invalid(device: &aqueduct::Device, error: BackendValidationError) -> Self {
        let message = error.to_string();
        report_validation(device, error);
        AqueductShaderModule {
            module: None,
            error: Some(message),
        }
    }

    /// The facade module (None when the backend rejected it).
    pub fn aqueduct(&self) -> Option<&aqueduct::ShaderModule> {
        self.module.as_ref()
    }
}

impl ShaderModuleInterface for AqueductShaderModule {
    fn get_compilation_info(&self) -> Pin<Box<dyn ShaderCompilationInfoFuture>> {
        let messages = self
            .error
            .iter()
            .map(|message| wgpu::CompilationMessage {
                message: message.clone(),
                message_type: wgpu::CompilationMessageType::Error,
                location: None,
            })
            .collect();
        Box::pin(std::future::ready(wgpu::CompilationInfo { messages }))
    }
}

/// `wgpu::BindGroupLayout`'s backend.
#[derive(Debug)]
pub struct AqueductBindGroupLayout {
    layout: Option<aqueduct::BindGroupLayout>,
}

impl AqueductBindGroupLayout {
    pub(crate) fn new(layout: Option<aqueduct::BindGroupLayout>) -> Self {
        AqueductBindGroupLayout { layout }
    }

    /// The facade layout (None for a render pipeline's, which is invalid).
    pub fn aqueduct(&self) -> Option<&aqueduct::BindGroupLayout> {
        self.layout.as_ref()
    }
}

impl BindGroupLayoutInterface for AqueductBindGroupLayout {}

/// `wgpu::BindGroup`'s backend.
#[derive(Debug)]
pub struct AqueductBindGroup {
    group: Option<aqueduct::BindGroup>,
}

impl AqueductBindGroup {
    pub(crate) fn create(device: &aqueduct::Device, desc: &wgpu::BindGroupDescriptor<'_>) -> Self {
        let invalid = AqueductBindGroup { group: None };
        let what = ObjectRef::labelled("create_bind_group", desc.label, ObjectKind::Layout);
        let Some(layout) = facade_of(
            device,
            what,
            desc.layout.as_custom::<AqueductBindGroupLayout>(),
            |l| l.layout.as_ref(),
        ) else {
            return invalid;
        };
        let mut entries = Vec::with_capacity(desc.entries.len());
        for entry in desc.entries {
            let binding = match &entry.resource {
                wgpu::BindingResource::Buffer(b) => b,
                wgpu::BindingResource::TextureView(view) => {
                    let what = ObjectRef::new(
                        "create_bind_group",
                        ObjectKind::BindingTextureView(entry.binding),
                    );
                    let Some(view) = facade_of(
                        device,
                        what,
                        view.as_custom::<crate::texture::AqueductTextureView>(),
                        |v| Some(v.aqueduct()),
                    ) else {
                        return invalid;
                    };
                    entries.push(aqueduct::BindGroupEntry {
                        binding: entry.binding,
                        resource: aqueduct::BindingResource::TextureView(view),
                    });
                    continue;
                }
                wgpu::BindingResource::Sampler(sampler) => {
                    let what = ObjectRef::new(
                        "create_bind_group",
                        ObjectKind::BindingSampler(entry.binding),
                    );
                    let Some(sampler) = facade_of(
                        device,
                        what,
                        sampler.as_custom::<crate::sampler::AqueductSampler>(),
                        |s| Some(s.aqueduct()),
                    ) else {
                        return invalid;
                    };
                    entries.push(aqueduct::BindGroupEntry {
                        binding: entry.binding,
                        resource: aqueduct::BindingResource::Sampler(sampler),
                    });
                    continue;
                }
                wgpu::BindingResource::BufferArray(_) => {
                    report_validation(
                        device,
                        BackendValidationError::BufferArray {
                            binding: entry.binding,
                        },
                    );
                    return invalid;
                }
                _ => {
                    report_compute_only(
                        device,
                        "create_bind_group with a sampler or texture array",
                    );
                    return invalid;
                }
            };
            let what = ObjectRef::new(
                "create_bind_group",
                ObjectKind::BindingBuffer(entry.binding),
            );
            let Some(buffer) = facade_of(
                device,
                what,
                binding.buffer.as_custom::<AqueductBuffer>(),
                |b| Some(b.aqueduct()),
            ) else {
                return invalid;
            };
            entries.push(aqueduct::BindGroupEntry {
                binding: entry.binding,
                resource: aqueduct::BindingResource::Buffer(aqueduct::BufferBinding {
                    buffer,
                    offset: binding.offset,
                    size: binding.size,
                }),
            });
        }
        let group = device.create_bind_group(&aqueduct::BindGroupDescriptor {
            label: desc.label,
            layout,
            entries: &entries,
        });
        AqueductBindGroup { group: Some(group) }
    }

    pub(crate) fn group(&self) -> Option<&aqueduct::BindGroup> {
        self.group.as_ref()
    }
}

impl BindGroupInterface for AqueductBindGroup {}

/// `wgpu::PipelineLayout`'s backend.
#[derive(Debug)]
pub struct AqueductPipelineLayout {
    layout: Option<aqueduct::PipelineLayout>,
}

impl AqueductPipelineLayout {
    pub(crate) fn create(
        device: &aqueduct::Device,
        desc: &wgpu::PipelineLayoutDescriptor<'_>,
    ) -> Self {
        let mut groups = Vec::with_capacity(desc.bind_group_layouts.len());
        for (index, layout) in desc.bind_group_layouts.iter().enumerate() {
            match layout {
                None => groups.push(None),
                Some(layout) => {
                    let what = ObjectRef::new(
                        "create_pipeline_layout",
                        ObjectKind::GroupLayout(index as u32),
                    );
                    let Some(l) = facade_of(
                        device,
                        what,
                        layout.as_custom::<AqueductBindGroupLayout>(),
                        |l| l.layout.as_ref(),
                    ) else {
                        return AqueductPipelineLayout { layout: None };
                    };
                    groups.push(Some(l));
                }
            }
        }
        let layout = device.create_pipeline_layout(&aqueduct::PipelineLayoutDescriptor {
            label: desc.label,
            bind_group_layouts: &groups,
            immediate_size: desc.immediate_size,
        });
        AqueductPipelineLayout {
            layout: Some(layout),
        }
    }
}

impl PipelineLayoutInterface for AqueductPipelineLayout {}

/// `wgpu::ComputePipeline`'s backend.
#[derive(Debug)]
pub struct AqueductComputePipeline {
    device: aqueduct::Device,
    pipeline: Option<aqueduct::ComputePipeline>,
}

impl AqueductComputePipeline {
    pub(crate) fn create(
        device: &aqueduct::Device,
        desc: &wgpu::ComputePipelineDescriptor<'_>,
    ) -> Self {
        let invalid = AqueductComputePipeline {
            device: device.clone(),
            pipeline: None,
        };
        let what = |object| ObjectRef::labelled("create_compute_pipeline", desc.label, object);
        let layout = match desc.layout {
            None => None,
            Some(layout) => {
                match facade_of(
                    device,
                    what(ObjectKind::Layout),
                    layout.as_custom::<AqueductPipelineLayout>(),
                    |l| l.layout.as_ref(),
                ) {
                    Some(l) => Some(l),
                    None => return invalid,
                }
            }
        };
        // This backend never makes a valid pipeline cache: one given here
        // is invalid (or another backend's), and so is the pipeline.
        if let Some(cache) = desc.cache {
            let cache = cache.as_custom::<ComputeOnlyObject>();
            let _ = facade_of(
                device,
                what(ObjectKind::PipelineCache),
                cache,
                |_| None::<&()>,
            );
            return invalid;
        }
        let Some(module) = facade_of(
            device,
            what(ObjectKind::ShaderModule),
            desc.module.as_custom::<AqueductShaderModule>(),
            |m| m.module.as_ref(),
        ) else {
            return invalid;
        };
        let pipeline = device.create_compute_pipeline(&aqueduct::ComputePipelineDescriptor {
            label: desc.label,
            layout,
            module,
            entry_point: desc.entry_point,
            compilation_options: aqueduct::PipelineCompilationOptions {
                constants: desc.compilation_options.constants,
                zero_initialize_workgroup_memory: desc
                    .compilation_options
                    .zero_initialize_workgroup_memory,
            },
            cache: None,
        });
        AqueductComputePipeline {
            device: device.clone(),
            pipeline: Some(pipeline),
        }
    }

    pub(crate) fn pipeline(&self) -> Option<&aqueduct::ComputePipeline> {
        self.pipeline.as_ref()
    }
}

impl ComputePipelineInterface for AqueductComputePipeline {
    fn get_bind_group_layout(&self, index: u32) -> DispatchBindGroupLayout {
        let layout = match &self.pipeline {
            Some(p) => Some(p.get_bind_group_layout(index)),
            None => {
                report_validation(
                    &self.device,
                    BackendValidationError::LayoutOfInvalidPipeline { index },
                );
                None
            }
        };
        DispatchBindGroupLayout::custom(AqueductBindGroupLayout::new(layout))
    }
}

/// `wgpu::QuerySet`'s backend.
#[derive(Debug)]
pub struct AqueductQuerySet {
    query_set: aqueduct::QuerySet,
}

impl AqueductQuerySet {
    pub(crate) fn new(query_set: aqueduct::QuerySet) -> Self {
        AqueductQuerySet { query_set }
    }

    /// The facade query set.
    pub fn aqueduct(&self) -> &aqueduct::QuerySet {
        &self.query_set
    }
}

impl QuerySetInterface for AqueductQuerySet {
    fn destroy(&self) {
        self.query_set.destroy();
    }
}
