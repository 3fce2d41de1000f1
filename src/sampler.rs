//! Samplers: `Device::create_sampler` checks wgpu's descriptor with
//! wgpu-core's `create_sampler` rules (WebGPU's `createSampler`) and what
//! the texture unit model runs, and keeps the gfx11 sampler descriptor
//! (S#, aqueduct-isa's `sampler_desc.rs`) a dispatch writes into the
//! sampler's 16-byte kernel argument; and how a sampler satisfies a bind
//! group layout entry (wgpu-core's `create_sampler_binding`).

use std::sync::Arc;

use aqueduct_isa::gfx11::sampler_desc::{
    self as sd, AddressMode as HwAddress, BorderColor, CompareFunc, MAX_LOD, MipFilter, XyFilter,
};
use wgpu_types::{
    AddressMode, CompareFunction, Features, FilterMode, MipmapFilterMode, SamplerBindingType,
    SamplerBorderColor,
};

use crate::Label;
use crate::device::DeviceShared;
use crate::error::{
    CreateSamplerError, DeviceId, DeviceMismatch, ObjectKind, SamplerBindingError, SamplerError,
    same_device,
};

/// Describes a sampler (wgpu-types' descriptor).
pub type SamplerDescriptor<'a> = wgpu_types::SamplerDescriptor<Label<'a>>;

#[derive(Debug)]
pub(crate) struct SamplerInner {
    pub device: DeviceId,
    pub label: Option<String>,
    /// The S# words; None for an invalid sampler.
    pub words: Option<[u32; 4]>,
    /// A comparison sampler (`compare` set).
    pub comparison: bool,
    /// Any filter is linear (WebGPU's "isFiltering").
    pub filtering: bool,
}

/// A sampler (cheap to clone).
#[derive(Clone, Debug)]
pub struct Sampler {
    pub(crate) inner: Arc<SamplerInner>,
}

impl PartialEq for Sampler {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.inner, &other.inner)
    }
}

impl Sampler {
    /// `Ok` when the sampler belongs to `device`.
    pub(crate) fn check_device(&self, device: &DeviceShared) -> Result<(), DeviceMismatch> {
        same_device(
            ObjectKind::Sampler,
            self.inner.label.as_deref(),
            self.inner.device,
            device.id,
        )
    }

    /// Whether the sampler compares (`compare` was set).
    pub fn is_comparison(&self) -> bool {
        self.inner.comparison
    }

    /// Whether any of its filters is linear (WebGPU's "isFiltering").
    pub fn is_filtering(&self) -> bool {
        self.inner.filtering
    }
}

fn address(mode: AddressMode) -> HwAddress {
    // Mesa's radv maps Vulkan's modes the same way (`radv_tex_wrap`).
    match mode {
        AddressMode::Repeat => HwAddress::Wrap,
        AddressMode::MirrorRepeat => HwAddress::Mirror,
        AddressMode::ClampToEdge => HwAddress::ClampLastTexel,
        AddressMode::ClampToBorder => HwAddress::ClampBorder,
    }
}

fn filter(mode: FilterMode) -> XyFilter {
    match mode {
        FilterMode::Nearest => XyFilter::Point,
        FilterMode::Linear => XyFilter::Bilinear,
    }
}

fn compare(f: CompareFunction) -> CompareFunc {
    match f {
        CompareFunction::Never => CompareFunc::Never,
        CompareFunction::Less => CompareFunc::Less,
        CompareFunction::Equal => CompareFunc::Equal,
        CompareFunction::LessEqual => CompareFunc::LessEqual,
        CompareFunction::Greater => CompareFunc::Greater,
        CompareFunction::NotEqual => CompareFunc::NotEqual,
        CompareFunction::GreaterEqual => CompareFunc::GreaterEqual,
        CompareFunction::Always => CompareFunc::Always,
    }
}

/// The S# of `desc`, after wgpu-core's `create_sampler` checks.
fn build(features: Features, desc: &SamplerDescriptor<'_>) -> Result<[u32; 4], CreateSamplerError> {
    let modes = [
        desc.address_mode_u,
        desc.address_mode_v,
        desc.address_mode_w,
    ];
    let needed = [
        (
            modes.contains(&AddressMode::ClampToBorder),
            Features::ADDRESS_MODE_CLAMP_TO_BORDER,
        ),
        (
            desc.border_color == Some(SamplerBorderColor::Zero),
            Features::ADDRESS_MODE_CLAMP_TO_ZERO,
        ),
    ];
    for (used, feature) in needed {
        if used && !features.contains(feature) {
            return Err(CreateSamplerError::MissingFeature { feature });
        }
    }
    let (min, max) = (desc.lod_min_clamp, desc.lod_max_clamp);
    // WebGPU `createSampler`: lodMinClamp >= 0, lodMaxClamp >= lodMinClamp.
    if min.is_nan() || min < 0.0 {
        return Err(CreateSamplerError::LodMinClamp { min });
    }
    if max.is_nan() || max < min {
        return Err(CreateSamplerError::LodMaxClamp { min, max });
    }
    if desc.anisotropy_clamp == 0 {
        return Err(CreateSamplerError::ZeroAnisotropy);
    }
    if desc.anisotropy_clamp > 1 {
        return Err(CreateSamplerError::Anisotropy {
            clamp: desc.anisotropy_clamp,
        });
    }
    let mut s = sd::SamplerDescriptor::new(
        modes.map(address),
        filter(desc.mag_filter),
        filter(desc.min_filter),
    );
    s.mip_filter = match desc.mipmap_filter {
        MipmapFilterMode::Nearest => MipFilter::Point,
        MipmapFilterMode::Linear => MipFilter::Linear,
    };
    // The S# holds unsigned 4.8 fixed point up to MAX_LOD (Mesa's
    // `ac_build_sampler_descriptor` clamps to 0..15 the same way); wgpu's
    // default maximum is 32.
    s.min_lod = min.min(MAX_LOD);
    s.max_lod = max.min(MAX_LOD);
    if let Some(f) = desc.compare {
        s.compare = compare(f);
    }
    // The border colour is read only with ClampToBorder; `Zero` is
    // transparent black for float formats and 0 for integer ones, which
    // TRANS_BLACK gives both.
    s.border_color = match desc.border_color {
        Some(SamplerBorderColor::OpaqueBlack) => BorderColor::OpaqueBlack,
        Some(SamplerBorderColor::OpaqueWhite) => BorderColor::OpaqueWhite,
        _ => BorderColor::TransparentBlack,
    };
    // Point samplers take texel floor(u) (WebGPU's nearest rule), which is
    // TRUNC_COORD's; radv sets it for Vulkan's nearest filters too. Linear
    // filtering does not read it.
    s.trunc_coord = true;
    s.encode().map_err(CreateSamplerError::Descriptor)
}

pub(crate) fn create_sampler(device: &DeviceShared, desc: &SamplerDescriptor<'_>) -> Sampler {
    let label = desc.label.map(str::to_string);
    let words = match build(device.features, desc) {
        Ok(w) => Some(w),
        Err(source) => {
            device.report(SamplerError::Create {
                label: label.clone(),
                source,
            });
            None
        }
    };
    // WebGPU's `isFiltering` (wgpu-core's `Sampler::filtering`).
    let filtering = desc.mag_filter == FilterMode::Linear
        || desc.min_filter == FilterMode::Linear
        || desc.mipmap_filter == MipmapFilterMode::Linear;
    Sampler {
        inner: Arc::new(SamplerInner {
            device: device.id,
            label,
            words,
            comparison: desc.compare.is_some(),
            filtering,
        }),
    }
}

/// The S# words `sampler` binds at a layout entry of `ty`, after
/// wgpu-core's `create_sampler_binding` checks: a `NonFiltering` entry
/// takes samplers that do not filter (`WrongSamplerFiltering`), and a
/// `Comparison` entry exactly the comparison samplers
/// (`WrongSamplerComparison`). The caller checks the device.
pub(crate) fn bind_sampler(
    ty: SamplerBindingType,
    sampler: &Sampler,
) -> Result<[u32; 4], SamplerBindingError> {
    let s = &sampler.inner;
    let words = s.words.ok_or(SamplerBindingError::InvalidSampler)?;
    if ty == SamplerBindingType::NonFiltering && s.filtering {
        return Err(SamplerBindingError::Filtering { layout: ty });
    }
    if (ty == SamplerBindingType::Comparison) != s.comparison {
        return Err(SamplerBindingError::Comparison {
            layout: ty,
            comparison: s.comparison,
        });
    }
    Ok(words)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The S# a descriptor builds, read back by the decoder gfxsim runs.
    fn decoded(desc: &SamplerDescriptor<'_>) -> sd::SamplerDescriptor {
        let words = build(Features::all(), desc).expect("a valid descriptor");
        sd::SamplerDescriptor::decode(&words).expect("an S# gfxsim runs")
    }

    #[test]
    fn descriptors_map_onto_the_s_sharp() {
        let s = decoded(&SamplerDescriptor {
            address_mode_u: AddressMode::Repeat,
            address_mode_v: AddressMode::MirrorRepeat,
            address_mode_w: AddressMode::ClampToBorder,
            mag_filter: FilterMode::Linear,
            min_filter: FilterMode::Nearest,
            mipmap_filter: MipmapFilterMode::Linear,
            lod_min_clamp: 0.5,
            lod_max_clamp: 2.25,
            compare: Some(CompareFunction::GreaterEqual),
            border_color: Some(SamplerBorderColor::OpaqueWhite),
            ..Default::default()
        });
        assert_eq!(
            s.address,
            [HwAddress::Wrap, HwAddress::Mirror, HwAddress::ClampBorder]
        );
        assert_eq!(
            (s.mag_filter, s.min_filter),
            (XyFilter::Bilinear, XyFilter::Point)
        );
        assert_eq!(s.mip_filter, MipFilter::Linear);
        assert_eq!((s.min_lod, s.max_lod), (0.5, 2.25));
        assert_eq!(s.compare, CompareFunc::GreaterEqual);
        assert_eq!(s.border_color, BorderColor::OpaqueWhite);
        assert!(s.trunc_coord && !s.unnormalized);
        // wgpu's default maximum (32) is above what the S# holds.
        let d = decoded(&SamplerDescriptor::default());
        assert_eq!((d.min_lod, d.max_lod), (0.0, MAX_LOD));
        assert_eq!(d.address, [HwAddress::ClampLastTexel; 3]);
        assert_eq!(d.compare, CompareFunc::Never);
    }

    #[test]
    fn features_gate_the_border_modes() {
        let border = SamplerDescriptor {
            address_mode_u: AddressMode::ClampToBorder,
            ..Default::default()
        };
        let zero = SamplerDescriptor {
            border_color: Some(SamplerBorderColor::Zero),
            ..Default::default()
        };
        assert_eq!(
            build(Features::empty(), &border),
            Err(CreateSamplerError::MissingFeature {
                feature: Features::ADDRESS_MODE_CLAMP_TO_BORDER
            })
        );
        assert_eq!(
            build(Features::ADDRESS_MODE_CLAMP_TO_BORDER, &zero),
            Err(CreateSamplerError::MissingFeature {
                feature: Features::ADDRESS_MODE_CLAMP_TO_ZERO
            })
        );
        let nan = SamplerDescriptor {
            lod_max_clamp: f32::NAN,
            ..Default::default()
        };
        assert!(matches!(
            build(Features::all(), &nan),
            Err(CreateSamplerError::LodMaxClamp { .. })
        ));
    }
}
