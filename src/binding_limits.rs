//! WebGPU's binding-count limits: how many bindings of each kind one shader
//! stage may see through a pipeline layout (`max_storage_buffers_per_shader_stage`
//! and its siblings) and how many dynamic-offset buffers a pipeline layout
//! may have. A bind group layout is checked alone when it is created, and
//! the sum over a pipeline layout's groups when the pipeline layout (or an
//! auto layout) is made, as the WebGPU specification's "exceeds the binding
//! slot limits" algorithm and wgpu-core's `BindingTypeMaxCountValidator`
//! count them: per stage in the entry's visibility, a binding array
//! counting as its element count.

use wgpu_types::{BindGroupLayoutEntry, BindingType, BufferBindingType, Limits, ShaderStages};

use crate::error::TooManyBindings;

/// A kind of binding a limit counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BindingCountKind {
    /// Uniform buffers with a dynamic offset (per pipeline layout).
    DynamicUniformBuffers,
    /// Storage buffers with a dynamic offset (per pipeline layout).
    DynamicStorageBuffers,
    /// Sampled textures (per shader stage).
    SampledTextures,
    /// Samplers (per shader stage).
    Samplers,
    /// Storage buffers (per shader stage).
    StorageBuffers,
    /// Storage textures (per shader stage).
    StorageTextures,
    /// Uniform buffers (per shader stage).
    UniformBuffers,
}

/// The per-stage kinds, in `BindingCounts::per_stage` order.
const STAGE_KINDS: [BindingCountKind; 5] = [
    BindingCountKind::SampledTextures,
    BindingCountKind::Samplers,
    BindingCountKind::StorageBuffers,
    BindingCountKind::StorageTextures,
    BindingCountKind::UniformBuffers,
];

/// The stages a visibility can name, in `BindingCounts::per_stage` order.
const STAGES: [ShaderStages; 3] = [
    ShaderStages::VERTEX,
    ShaderStages::FRAGMENT,
    ShaderStages::COMPUTE,
];

impl BindingCountKind {
    /// The name of the limit that bounds this kind (a `Limits` field).
    pub fn limit_name(self) -> &'static str {
        match self {
            BindingCountKind::DynamicUniformBuffers => {
                "max_dynamic_uniform_buffers_per_pipeline_layout"
            }
            BindingCountKind::DynamicStorageBuffers => {
                "max_dynamic_storage_buffers_per_pipeline_layout"
            }
            BindingCountKind::SampledTextures => "max_sampled_textures_per_shader_stage",
            BindingCountKind::Samplers => "max_samplers_per_shader_stage",
            BindingCountKind::StorageBuffers => "max_storage_buffers_per_shader_stage",
            BindingCountKind::StorageTextures => "max_storage_textures_per_shader_stage",
            BindingCountKind::UniformBuffers => "max_uniform_buffers_per_shader_stage",
        }
    }

    fn limit(self, limits: &Limits) -> u32 {
        match self {
            BindingCountKind::DynamicUniformBuffers => {
                limits.max_dynamic_uniform_buffers_per_pipeline_layout
            }
            BindingCountKind::DynamicStorageBuffers => {
                limits.max_dynamic_storage_buffers_per_pipeline_layout
            }
            BindingCountKind::SampledTextures => limits.max_sampled_textures_per_shader_stage,
            BindingCountKind::Samplers => limits.max_samplers_per_shader_stage,
            BindingCountKind::StorageBuffers => limits.max_storage_buffers_per_shader_stage,
            BindingCountKind::StorageTextures => limits.max_storage_textures_per_shader_stage,
            BindingCountKind::UniformBuffers => limits.max_uniform_buffers_per_shader_stage,
        }
    }
}

/// Binding counts of one layout or the sum over a pipeline layout.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct BindingCounts {
    dynamic_uniform: u32,
    dynamic_storage: u32,
    /// By `STAGE_KINDS`, then by `STAGES`.
    per_stage: [[u32; 3]; 5],
}

impl BindingCounts {
    /// The counts of `entries`.
    pub(crate) fn of<'a>(entries: impl IntoIterator<Item = &'a BindGroupLayoutEntry>) -> Self {
        let mut counts = BindingCounts::default();
        for e in entries {
            counts.add(e);
        }
        counts
    }

    /// Count `entry` in every stage it is visible to.
    pub(crate) fn add(&mut self, entry: &BindGroupLayoutEntry) {
        let n = entry.count.map_or(1, |c| c.get());
        let kind = match entry.ty {
            BindingType::Buffer {
                ty,
                has_dynamic_offset,
                ..
            } => {
                let dynamic = match ty {
                    BufferBindingType::Uniform => &mut self.dynamic_uniform,
                    BufferBindingType::Storage { .. } => &mut self.dynamic_storage,
                };
                if has_dynamic_offset {
                    *dynamic = dynamic.saturating_add(n);
                }
                match ty {
                    BufferBindingType::Uniform => BindingCountKind::UniformBuffers,
                    BufferBindingType::Storage { .. } => BindingCountKind::StorageBuffers,
                }
            }
            BindingType::Sampler(_) => BindingCountKind::Samplers,
            BindingType::Texture { .. } | BindingType::ExternalTexture => {
                BindingCountKind::SampledTextures
            }
            BindingType::StorageTexture { .. } => BindingCountKind::StorageTextures,
            // Kinds the device refuses in a layout anyway: no limit here.
            _ => return,
        };
        let k = STAGE_KINDS.iter().position(|&s| s == kind).unwrap_or(0);
        for (s, stage) in STAGES.iter().enumerate() {
            if entry.visibility.contains(*stage) {
                self.per_stage[k][s] = self.per_stage[k][s].saturating_add(n);
            }
        }
    }

    /// Add `other`'s counts (another group of the same pipeline layout).
    pub(crate) fn merge(&mut self, other: &BindingCounts) {
        self.dynamic_uniform = self.dynamic_uniform.saturating_add(other.dynamic_uniform);
        self.dynamic_storage = self.dynamic_storage.saturating_add(other.dynamic_storage);
        for (mine, theirs) in self.per_stage.iter_mut().zip(&other.per_stage) {
            for (m, t) in mine.iter_mut().zip(theirs) {
                *m = m.saturating_add(*t);
            }
        }
    }

    /// The first count past its limit in `limits`: the dynamic kinds, then
    /// the per-stage kinds, each naming the stages where it is largest.
    pub(crate) fn check(&self, limits: &Limits) -> Result<(), TooManyBindings> {
        for (kind, count) in [
            (
                BindingCountKind::DynamicUniformBuffers,
                self.dynamic_uniform,
            ),
            (
                BindingCountKind::DynamicStorageBuffers,
                self.dynamic_storage,
            ),
        ] {
            let limit = kind.limit(limits);
            if count > limit {
                return Err(TooManyBindings {
                    kind,
                    stages: None,
                    count,
                    limit,
                });
            }
        }
        for (kind, by_stage) in STAGE_KINDS.iter().zip(&self.per_stage) {
            let limit = kind.limit(limits);
            let count = by_stage.iter().copied().max().unwrap_or(0);
            if count > limit {
                let stages = STAGES
                    .iter()
                    .zip(by_stage)
                    .filter(|&(_, &c)| c == count)
                    .fold(ShaderStages::NONE, |acc, (s, _)| acc | *s);
                return Err(TooManyBindings {
                    kind: *kind,
                    stages: Some(stages),
                    count,
                    limit,
                });
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use std::num::NonZeroU32;

    use wgpu_types::{
        SamplerBindingType, StorageTextureAccess, TextureFormat, TextureViewDimension,
    };

    use super::*;

    fn entry(binding: u32, visibility: ShaderStages, ty: BindingType) -> BindGroupLayoutEntry {
        BindGroupLayoutEntry {
            binding,
            visibility,
            ty,
            count: None,
        }
    }

    fn storage(dynamic: bool) -> BindingType {
        BindingType::Buffer {
            ty: BufferBindingType::Storage { read_only: false },
            has_dynamic_offset: dynamic,
            min_binding_size: None,
        }
    }

    #[test]
    fn each_kind_is_counted_against_its_own_limit() {
        let limits = Limits {
            max_samplers_per_shader_stage: 1,
            max_storage_textures_per_shader_stage: 1,
            ..Limits::defaults()
        };
        let sampler = BindingType::Sampler(SamplerBindingType::Filtering);
        let storage_texture = BindingType::StorageTexture {
            access: StorageTextureAccess::WriteOnly,
            format: TextureFormat::R32Float,
            view_dimension: TextureViewDimension::D2,
        };
        let one = [
            entry(0, ShaderStages::COMPUTE, sampler),
            entry(1, ShaderStages::COMPUTE, storage_texture),
        ];
        assert_eq!(BindingCounts::of(&one).check(&limits), Ok(()));
        let two = [one[0], entry(2, ShaderStages::COMPUTE, sampler)];
        assert_eq!(
            BindingCounts::of(&two).check(&limits),
            Err(TooManyBindings {
                kind: BindingCountKind::Samplers,
                stages: Some(ShaderStages::COMPUTE),
                count: 2,
                limit: 1,
            })
        );
    }

    #[test]
    fn stages_count_apart_and_groups_add_up() {
        let limits = Limits {
            max_storage_buffers_per_shader_stage: 2,
            ..Limits::defaults()
        };
        // Two per stage in each group: within the limit alone.
        let group = [
            entry(0, ShaderStages::COMPUTE, storage(false)),
            entry(1, ShaderStages::COMPUTE, storage(false)),
            entry(2, ShaderStages::FRAGMENT, storage(false)),
        ];
        let counts = BindingCounts::of(&group);
        assert_eq!(counts.check(&limits), Ok(()));
        let mut both = counts.clone();
        both.merge(&counts);
        assert_eq!(
            both.check(&limits),
            Err(TooManyBindings {
                kind: BindingCountKind::StorageBuffers,
                stages: Some(ShaderStages::COMPUTE),
                count: 4,
                limit: 2,
            })
        );
    }

    #[test]
    fn dynamic_offsets_count_per_layout_and_arrays_by_element() {
        let limits = Limits::defaults();
        let max = limits.max_dynamic_storage_buffers_per_pipeline_layout;
        let mut array = entry(0, ShaderStages::COMPUTE, storage(true));
        array.count = NonZeroU32::new(max + 1);
        assert_eq!(
            BindingCounts::of([&array]).check(&limits),
            Err(TooManyBindings {
                kind: BindingCountKind::DynamicStorageBuffers,
                stages: None,
                count: max + 1,
                limit: max,
            })
        );
    }
}
