//! Shared setup of aqueduct-wgpu's API tests: a wgpu device on gfxsim through
//! aqueduct-wgpu, with the Collatz shader of the example precompiled (so no
//! test needs LLVM), and small helpers that read buffers back through
//! wgpu's own mapping API.

pub use aqueduct_test_support::bytes::u32s;
use aqueduct_wgpu::{InstanceOptions, include_precompiled};

/// The example's WGSL (its precompiled objects are registered).
pub const COLLATZ_WGSL: &str =
    include_str!("../../wgpu-backend/examples/shaders/wgpu_hello_compute.wgsl");

/// A device with every feature the adapter offers (timestamps included).
pub fn device() -> (wgpu::Device, wgpu::Queue) {
    let options = InstanceOptions::default()
        .device(aqueduct::DeviceChoice::Sim)
        .precompiled(include_precompiled!(
            "../../wgpu-backend/examples/shaders",
            "wgpu_hello_compute"
        ));
    let instance = aqueduct_wgpu::instance_with(options);
    let adapter =
        pollster::block_on(instance.request_adapter(&Default::default())).expect("gfxsim adapter");
    let desc = wgpu::DeviceDescriptor {
        required_features: adapter.features(),
        required_limits: adapter.limits(),
        // SAFETY: a test accepts that experimental features may be
        // unfinished; Aqueduct's (cooperative matrices) are checked code.
        experimental_features: unsafe { wgpu::ExperimentalFeatures::enabled() },
        ..Default::default()
    };
    pollster::block_on(adapter.request_device(&desc)).expect("device")
}

/// The gfxsim adapter of a plain aqueduct-wgpu instance (nothing
/// precompiled), for tests that choose their own device descriptor.
pub fn sim_adapter() -> wgpu::Adapter {
    let instance = aqueduct_wgpu::instance_with(
        InstanceOptions::default().device(aqueduct::DeviceChoice::Sim),
    );
    pollster::block_on(instance.request_adapter(&Default::default())).expect("gfxsim adapter")
}

/// Collatz step counts computed on the host (u32::MAX on overflow).
pub fn collatz_steps(mut n: u32) -> u32 {
    let mut steps = 0;
    while n > 1 {
        n = if n.is_multiple_of(2) {
            n / 2
        } else {
            match n.checked_mul(3).and_then(|m| m.checked_add(1)) {
                Some(m) => m,
                None => return u32::MAX,
            }
        };
        steps += 1;
    }
    steps
}

/// Map `buffer` (MAP_READ) and return its bytes.
pub fn read(device: &wgpu::Device, buffer: &wgpu::Buffer) -> Vec<u8> {
    let slice = buffer.slice(..);
    let (tx, rx) = std::sync::mpsc::channel();
    slice.map_async(wgpu::MapMode::Read, move |r| tx.send(r).unwrap());
    device.poll(wgpu::PollType::wait_indefinitely()).unwrap();
    rx.recv().unwrap().expect("mapping succeeded");
    let bytes = slice.get_mapped_range().expect("mapped").to_vec();
    buffer.unmap();
    bytes
}

/// Copy `buffer` (COPY_SRC) into a fresh MAP_READ buffer and read it.
pub fn read_back(device: &wgpu::Device, queue: &wgpu::Queue, buffer: &wgpu::Buffer) -> Vec<u8> {
    let staging = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("read back"),
        size: buffer.size(),
        usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    let mut encoder = device.create_command_encoder(&Default::default());
    encoder.copy_buffer_to_buffer(buffer, 0, &staging, 0, buffer.size());
    queue.submit([encoder.finish()]);
    read(device, &staging)
}

/// Run `f` inside a validation error scope; the error it caught.
pub fn validation_error(device: &wgpu::Device, f: impl FnOnce()) -> Option<wgpu::Error> {
    let scope = device.push_error_scope(wgpu::ErrorFilter::Validation);
    f();
    pollster::block_on(scope.pop())
}
