//! What a device's enabled features let its WGSL use: the naga validator
//! capabilities each feature gives (the same pairs wgpu validates with),
//! and back, the features a shader needs when the validator refuses it for
//! want of capabilities.

use aqueduct_shaderc::Capabilities as Caps;
use wgpu_types::Features;

/// Each feature and the capabilities it gives, in the order missing
/// features are named (the first feature that gives a capability names it).
const FEATURE_CAPABILITIES: &[(Features, Caps)] = &[
    (Features::IMMEDIATES, Caps::IMMEDIATES),
    (Features::SHADER_F16, Caps::SHADER_FLOAT16),
    (Features::SHADER_F64, Caps::FLOAT64),
    (Features::SHADER_INT64, Caps::SHADER_INT64),
    (
        Features::SHADER_INT64_ATOMIC_MIN_MAX,
        Caps::SHADER_INT64_ATOMIC_MIN_MAX,
    ),
    (
        Features::SHADER_INT64_ATOMIC_ALL_OPS,
        Caps::SHADER_INT64_ATOMIC_ALL_OPS.union(Caps::SHADER_INT64_ATOMIC_MIN_MAX),
    ),
    (Features::SUBGROUP, Caps::SUBGROUP),
    (Features::SUBGROUP_BARRIER, Caps::SUBGROUP_BARRIER),
    (Features::SHADER_FLOAT32_ATOMIC, Caps::SHADER_FLOAT32_ATOMIC),
    (Features::SHADER_I16, Caps::SHADER_INT16),
    (Features::TEXTURE_ATOMIC, Caps::TEXTURE_ATOMIC),
    (
        Features::EXPERIMENTAL_COOPERATIVE_MATRIX,
        Caps::COOPERATIVE_MATRIX,
    ),
];

/// The capabilities every device has, whatever its features:
/// `quantizeToF16` and `pack2x16float`/`unpack2x16float` (f16 precision in
/// f32 values; the adapter's `DownlevelFlags::SHADER_F16_IN_F32`), and
/// cube-array textures (`DownlevelFlags::CUBE_ARRAY_TEXTURES`, which wgpu
/// turns into this capability the same way).
const ALWAYS: Caps = Caps::SHADER_FLOAT16_IN_FLOAT32.union(Caps::CUBE_ARRAY_TEXTURES);

/// The validator capabilities a device opened with `features` gives.
pub(crate) fn capabilities(features: Features) -> Caps {
    FEATURE_CAPABILITIES
        .iter()
        .filter(|(feature, _)| features.contains(*feature))
        .fold(ALWAYS, |acc, (_, caps)| acc | *caps)
}

/// The features that give the capabilities in `missing` (a capability no
/// feature gives names none).
pub(crate) fn features_for(missing: Caps) -> Features {
    let mut left = missing;
    let mut features = Features::empty();
    for (feature, caps) in FEATURE_CAPABILITIES {
        if left.intersects(*caps) {
            features |= *feature;
            left -= *caps;
        }
    }
    features
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn features_give_their_capabilities_and_name_them_back() {
        let caps = capabilities(Features::SHADER_F16 | Features::SUBGROUP);
        assert!(caps.contains(Caps::SHADER_FLOAT16 | Caps::SUBGROUP | ALWAYS));
        assert!(!caps.intersects(Caps::FLOAT64 | Caps::IMMEDIATES | Caps::SHADER_INT64));
        assert_eq!(capabilities(Features::empty()), ALWAYS);
        assert_eq!(features_for(Caps::SHADER_FLOAT16), Features::SHADER_F16);
        assert_eq!(
            features_for(Caps::SHADER_INT64_ATOMIC_MIN_MAX | Caps::IMMEDIATES),
            Features::SHADER_INT64_ATOMIC_MIN_MAX | Features::IMMEDIATES
        );
        assert_eq!(
            features_for(Caps::SHADER_INT64_ATOMIC_ALL_OPS),
            Features::SHADER_INT64_ATOMIC_ALL_OPS
        );
        assert_eq!(features_for(Caps::RAY_QUERY), Features::empty());
    }
}
