//! Errors of samplers: creation (`Device::create_sampler`) and how a
//! sampler fits a bind group layout entry.

use aqueduct_isa::gfx11::sampler_desc::SamplerDescriptorError;
use wgpu_types::{BindingType, Features, SamplerBindingType};

use super::ident::label_suffix;

/// A sampler call that failed (reported as a validation error).
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum SamplerError {
    /// `Device::create_sampler` failed; the sampler is invalid.
    #[error("create_sampler{}: {source}", label_suffix(label))]
    Create {
        /// The sampler's label, if it has one.
        label: Option<String>,
        /// The broken rule.
        #[source]
        source: CreateSamplerError,
    },
}

/// Why `Device::create_sampler` failed (wgpu-core's `create_sampler`
/// checks, WebGPU's `createSampler` validation).
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum CreateSamplerError {
    /// `lod_min_clamp` is negative.
    #[error("lod_min_clamp {min} is negative")]
    LodMinClamp {
        /// The clamp given.
        min: f32,
    },
    /// `lod_max_clamp` is below `lod_min_clamp`.
    #[error("lod_max_clamp {max} is below lod_min_clamp {min}")]
    LodMaxClamp {
        /// `lod_min_clamp`.
        min: f32,
        /// `lod_max_clamp`.
        max: f32,
    },
    /// `anisotropy_clamp` is 0 (WebGPU: at least 1).
    #[error("anisotropy_clamp is 0; it is at least 1")]
    ZeroAnisotropy,
    /// Anisotropic filtering: the texture unit model filters without it.
    #[error("anisotropy_clamp {clamp}: anisotropic filtering is not supported; use 1")]
    Anisotropy {
        /// The clamp given.
        clamp: u16,
    },
    /// An address mode or border colour needs a feature the device lacks.
    #[error("the descriptor needs feature {feature:?}, which the device was not opened with")]
    MissingFeature {
        /// The feature.
        feature: Features,
    },
    /// The sampler descriptor words cannot hold the settings.
    #[error("the sampler descriptor cannot hold the settings: {0}")]
    Descriptor(#[source] SamplerDescriptorError),
}

/// Why a sampler does not fit a bind group layout entry (wgpu-core's
/// `create_sampler_binding`: `WrongSamplerFiltering`,
/// `WrongSamplerComparison`, `WrongBindingType`).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SamplerBindingError {
    /// The sampler is invalid: its creation failed.
    #[error("the sampler is invalid: its creation failed")]
    InvalidSampler,
    /// A filtering sampler at a `NonFiltering` entry.
    #[error("the layout entry is {layout:?} but the sampler filters (a linear filter)")]
    Filtering {
        /// The layout entry's sampler type.
        layout: SamplerBindingType,
    },
    /// A comparison sampler at a non-comparison entry, or the other way round.
    #[error(
        "the layout entry is {layout:?} but the sampler {} a comparison sampler",
        if *comparison { "is" } else { "is not" }
    )]
    Comparison {
        /// The layout entry's sampler type.
        layout: SamplerBindingType,
        /// Whether the sampler compares.
        comparison: bool,
    },
    /// The layout entry is a sampler but the resource is not, or the other
    /// way round.
    #[error("the layout entry is {layout:?} but the resource is {resource}")]
    ResourceKind {
        /// The layout entry's type.
        layout: BindingType,
        /// What the resource is (`a buffer`, `a texture view`, `a sampler`).
        resource: &'static str,
    },
}
