//! Samplers: each wraps the facade sampler it was created as
//! (`aqueduct::Sampler`); wgpu's descriptor is the facade's, so its rules
//! and errors are the facade's.

use wgpu::custom::SamplerInterface;

/// `wgpu::Sampler`'s backend.
#[derive(Debug)]
pub struct AqueductSampler {
    sampler: aqueduct::Sampler,
}

impl AqueductSampler {
    pub(crate) fn create(device: &aqueduct::Device, desc: &wgpu::SamplerDescriptor<'_>) -> Self {
        AqueductSampler {
            sampler: device.create_sampler(desc),
        }
    }

    /// The facade sampler.
    pub fn aqueduct(&self) -> &aqueduct::Sampler {
        &self.sampler
    }
}

impl SamplerInterface for AqueductSampler {}
