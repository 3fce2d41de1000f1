//! Helpers of the crate's unit tests (queue and host-callback tests): a
//! gfxsim device with everything its adapter offers, and work that runs
//! tests/kernels' faulting kernel.

use std::borrow::Cow;

use crate::block_on::block_on;
use crate::command::encoder::CommandBuffer;
use crate::device::Device;
use crate::device_select::DeviceChoice;
use crate::instance::Instance;
use crate::queue::Queue;

/// A gfxsim device with everything the adapter offers but the
/// experimental features (immediates).
pub(crate) fn device() -> (Device, Queue) {
    let instance = Instance::with_device(DeviceChoice::Sim);
    let adapter = block_on(instance.request_adapter(&Default::default())).expect("adapter");
    let desc = crate::adapter::DeviceDescriptor {
        required_features: adapter.features() - wgpu_types::Features::all_experimental_mask(),
        required_limits: adapter.limits(),
        ..Default::default()
    };
    block_on(adapter.request_device(&desc)).expect("device")
}

/// tests/kernels' fault_at for the part a default gfxsim device simulates.
fn fault_at_object() -> &'static [u8] {
    use crate::gfxsim::SimPart;
    match crate::gfxsim::default_part() {
        SimPart::Rx7900Xtx => include_bytes!("../tests/kernels/gfx1100/fault_at.co"),
        SimPart::Mi300x => include_bytes!("../tests/kernels/gfx942/fault_at.co"),
        SimPart::Mi210 | SimPart::Mi250xGcd => {
            include_bytes!("../tests/kernels/gfx90a/fault_at.co")
        }
    }
}

/// One workgroup of tests/kernels' fault_at, storing 7 to the unmapped low
/// page at 0x1040: a GPU queue fault in kernel `fault_at`.
pub(crate) fn fault_at_work(device: &Device) -> CommandBuffer {
    let module = device.create_shader_module(crate::shader::ShaderModuleDescriptor {
        label: Some("fault_at"),
        source: crate::shader::ShaderSource::CodeObject {
            code: Cow::Borrowed(fault_at_object()),
            workgroup_size: Some([64, 1, 1]),
        },
    });
    let pipeline = device.create_compute_pipeline(&crate::pipeline::ComputePipelineDescriptor {
        label: Some("fault_at"),
        layout: None,
        module: &module,
        entry_point: Some("fault_at"),
        compilation_options: Default::default(),
        cache: None,
    });
    let mut enc = device.create_command_encoder(&Default::default());
    {
        let mut pass = enc.begin_compute_pass(&Default::default());
        pass.set_pipeline(&pipeline);
        let mut immediates = 0x1040u64.to_le_bytes().to_vec();
        immediates.extend(7u32.to_le_bytes());
        pass.set_immediates(0, &immediates);
        pass.dispatch_workgroups(1, 1, 1);
    }
    enc.finish()
}
