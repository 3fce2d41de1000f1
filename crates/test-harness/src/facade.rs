//! Shared helpers of the facade tests: a device on gfxsim, the checked-in
//! OpenCL kernels as raw code-object shader modules, readback, and error
//! scope assertions.

use std::borrow::Cow;

pub use aqueduct::error::*;
use aqueduct::util::{BufferInitDescriptor, DeviceExt};
use aqueduct::*;

pub struct Ctx {
    pub instance: Instance,
    pub adapter: Adapter,
    pub device: Device,
    pub queue: Queue,
}

/// A device on gfxsim with the adapter's full limits and features.
pub fn ctx() -> Ctx {
    ctx_with(|a| DeviceDescriptor {
        required_features: a.features(),
        required_limits: a.limits(),
        experimental_features: experimental_features(),
        ..Default::default()
    })
}

/// The opt-in that `EXPERIMENTAL_*` features need (wgpu's rule): tests ask
/// for every feature the adapter offers.
pub fn experimental_features() -> aqueduct::wgt::ExperimentalFeatures {
    // SAFETY: a test accepts that experimental features may be unfinished;
    // the ones Aqueduct offers (cooperative matrices) are checked code.
    unsafe { aqueduct::wgt::ExperimentalFeatures::enabled() }
}

pub fn ctx_with(desc: impl FnOnce(&Adapter) -> DeviceDescriptor<'static>) -> Ctx {
    ctx_on(Instance::with_device(DeviceChoice::Sim), desc)
}

/// A device on a gfxsim the test keeps, to ask it what only gfxsim reports
/// (see [`wave_error`]).
pub fn sim_ctx() -> (Ctx, std::sync::Arc<aqueduct::gfxsim::SimDevice>) {
    sim_ctx_with(aqueduct::gfxsim::SimConfig::default())
}

/// A device on a gfxsim configured by `config` (a value, not the
/// environment), and the simulated device itself.
pub fn sim_ctx_with(
    config: aqueduct::gfxsim::SimConfig,
) -> (Ctx, std::sync::Arc<aqueduct::gfxsim::SimDevice>) {
    let sim = aqueduct::gfxsim::SimDevice::new(config).expect("gfxsim");
    let c = ctx_on(Instance::from_device(sim.clone()), |a| DeviceDescriptor {
        required_features: a.features(),
        required_limits: a.limits(),
        experimental_features: experimental_features(),
        ..Default::default()
    });
    (c, sim)
}

/// gfxsim's account (PC, instruction, exact address) of the queue error
/// behind a reported GPU fault; KFD reports none of it.
pub fn wave_error(sim: &aqueduct::gfxsim::SimDevice, err: &Error) -> Option<String> {
    let mut source = std::error::Error::source(err);
    while let Some(s) = source {
        if let Some(aqueduct::hsa::HsaError::QueueError { queue_id, .. }) = s.downcast_ref() {
            return sim.wave_error(*queue_id);
        }
        source = s.source();
    }
    None
}

fn ctx_on(instance: Instance, desc: impl FnOnce(&Adapter) -> DeviceDescriptor<'static>) -> Ctx {
    let adapter = block_on(instance.request_adapter(&RequestAdapterOptions::default()))
        .expect("gfxsim adapter");
    let d = desc(&adapter);
    let (device, queue) = block_on(adapter.request_device(&d)).expect("device");
    // Tests must see every error: an uncaptured one fails the test.
    device.on_uncaptured_error(std::sync::Arc::new(|e| panic!("uncaptured error: {e}")));
    Ctx {
        instance,
        adapter,
        device,
        queue,
    }
}

/// The gfx target of the part a default gfxsim simulates (`gfx1100`,
/// or `gfx942` / `gfx90a` as `AQUEDUCT_SIM_ISA` / `AQUEDUCT_SIM_PART`
/// say): the checked-in kernels' folder for devices made by [`ctx`],
/// [`sim_ctx`] or a `SimConfig` left at its part's default.
pub fn target() -> &'static str {
    aqueduct::gfxsim::default_part().isa()
}

/// A checked-in test kernel for [`target`] as a shader module.
pub fn kernel_module(device: &Device, name: &str, workgroup: [u32; 3]) -> ShaderModule {
    let code = aqueduct_test_support::repo::kernel(&format!("{}/{name}.co", target()));
    code_object_module(device, name, Cow::Owned(code), workgroup)
}

/// The bytes of the facade tests' own kernel `name` (tests/kernels) for
/// [`target`].
pub fn test_kernel(name: &str) -> Vec<u8> {
    aqueduct_test_support::repo::read(&format!("tests/kernels/{}/{name}.co", target()))
}

/// A checked-in test shader (shaders/tests) precompiled for [`target`]:
/// its code object and its reflection JSON.
pub fn test_shader(name: &str) -> (Vec<u8>, String) {
    let base = format!("shaders/tests/{}/{name}", target());
    let code = aqueduct_test_support::repo::read(&format!("{base}.co"));
    let reflection = aqueduct_test_support::repo::read(&format!("{base}.reflect.json"));
    (
        code,
        String::from_utf8(reflection).expect("UTF-8 reflection"),
    )
}

/// A raw code object as a shader module labelled `label`.
pub fn code_object_module(
    device: &Device,
    label: &str,
    code: Cow<'static, [u8]>,
    workgroup: [u32; 3],
) -> ShaderModule {
    device.create_shader_module(ShaderModuleDescriptor {
        label: Some(label),
        source: ShaderSource::CodeObject {
            code,
            workgroup_size: Some(workgroup),
        },
    })
}

pub fn auto_pipeline(device: &Device, module: &ShaderModule, entry: &str) -> ComputePipeline {
    device.create_compute_pipeline(&ComputePipelineDescriptor {
        label: Some(entry),
        layout: None,
        module,
        entry_point: Some(entry),
        compilation_options: Default::default(),
        cache: None,
    })
}

pub fn storage_init(device: &Device, words: &[u32]) -> Buffer {
    device.create_buffer_init(&BufferInitDescriptor {
        label: Some("storage"),
        contents: bytemuck::cast_slice(words),
        usage: BufferUsages::STORAGE | BufferUsages::COPY_SRC | BufferUsages::COPY_DST,
    })
}

pub fn storage(device: &Device, bytes: u64) -> Buffer {
    device.create_buffer(&BufferDescriptor {
        label: Some("storage"),
        size: bytes,
        usage: BufferUsages::STORAGE | BufferUsages::COPY_SRC | BufferUsages::COPY_DST,
        mapped_at_creation: false,
    })
}

pub fn readback_buffer(device: &Device, bytes: u64) -> Buffer {
    device.create_buffer(&BufferDescriptor {
        label: Some("readback"),
        size: bytes,
        usage: BufferUsages::MAP_READ | BufferUsages::COPY_DST,
        mapped_at_creation: false,
    })
}

/// Copy `src` into a fresh MAP_READ buffer, submit, map and return its words.
pub fn read_words(c: &Ctx, src: &Buffer) -> Vec<u32> {
    let rb = readback_buffer(&c.device, src.size());
    let mut enc = c.device.create_command_encoder(&Default::default());
    enc.copy_buffer_to_buffer(src, 0, &rb, 0, src.size());
    c.queue.submit([enc.finish()]);
    let bytes = aqueduct::util::read_mapped(&c.device, &rb).expect("readback");
    bytemuck::cast_slice(&bytes).to_vec()
}

pub fn bind_group(
    device: &Device,
    pipeline: &ComputePipeline,
    group: u32,
    buffers: &[&Buffer],
) -> BindGroup {
    let layout = pipeline.get_bind_group_layout(group);
    let entries: Vec<BindGroupEntry> = buffers
        .iter()
        .enumerate()
        .map(|(i, b)| BindGroupEntry {
            binding: i as u32,
            resource: b.as_entire_binding(),
        })
        .collect();
    device.create_bind_group(&BindGroupDescriptor {
        label: None,
        layout: &layout,
        entries: &entries,
    })
}

/// Two vector_copy dispatches in one pass, `src -> mid -> dst` (a RAW
/// chain), over `src = [2, 4, 6, 8]`; returns the command buffer and `dst`.
pub fn doubling_work(c: &Ctx) -> (CommandBuffer, Buffer) {
    let module = kernel_module(&c.device, "vector_copy", [64, 1, 1]);
    let p = auto_pipeline(&c.device, &module, "vector_copy");
    let src = storage_init(&c.device, &[2, 4, 6, 8]);
    let mid = storage(&c.device, 16);
    let dst = storage(&c.device, 16);
    let bg1 = bind_group(&c.device, &p, 0, &[&src, &mid]);
    let bg2 = bind_group(&c.device, &p, 0, &[&mid, &dst]);
    let mut enc = c.device.create_command_encoder(&Default::default());
    {
        let mut pass = enc.begin_compute_pass(&Default::default());
        pass.set_pipeline(&p);
        pass.set_immediates(0, &4u32.to_le_bytes());
        pass.set_bind_group(0, &bg1, &[]);
        pass.dispatch_workgroups(1, 1, 1);
        pass.set_bind_group(0, &bg2, &[]);
        pass.dispatch_workgroups(1, 1, 1);
    }
    (enc.finish(), dst)
}

/// Submit `doubling_work` and its copy into `rb` (16 bytes, MAP_READ), then
/// register a map of `rb` and, after it, a work-done callback; each pushes
/// its name ("map", "done") to the returned list when it runs.
pub fn map_then_work_done(
    c: &Ctx,
    rb: &Buffer,
) -> std::sync::Arc<std::sync::Mutex<Vec<&'static str>>> {
    let order = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let (cb, dst) = doubling_work(c);
    let mut enc = c.device.create_command_encoder(&Default::default());
    enc.copy_buffer_to_buffer(&dst, 0, rb, 0, 16);
    c.queue.submit([cb, enc.finish()]);
    let o = order.clone();
    rb.map_async(MapMode::Read, .., move |r| {
        assert!(r.is_ok());
        o.lock().unwrap().push("map");
    });
    let o = order.clone();
    c.queue
        .on_submitted_work_done(move || o.lock().unwrap().push("done"));
    order
}

/// Runs `f` inside scopes for every filter (validation, out of memory,
/// internal): the first error caught, if any.
pub fn any_error<R>(device: &Device, f: impl FnOnce() -> R) -> Option<Error> {
    let internal = device.push_error_scope(ErrorFilter::Internal);
    let oom = device.push_error_scope(ErrorFilter::OutOfMemory);
    let validation = device.push_error_scope(ErrorFilter::Validation);
    let _ = f();
    let v = validation.pop_now();
    let o = oom.pop_now();
    let i = internal.pop_now();
    v.or(o).or(i)
}

/// Run `f` inside a validation scope and return the error it caught.
pub fn validation_error<R>(device: &Device, f: impl FnOnce() -> R) -> (R, Option<Error>) {
    let scope = device.push_error_scope(ErrorFilter::Validation);
    let r = f();
    (r, scope.pop_now())
}

/// The typed error behind a validation error.
pub fn validation_source(e: &Error) -> Option<&ValidationError> {
    std::error::Error::source(e)?.downcast_ref::<ValidationError>()
}

/// Assert `f` raises a validation error for which `expected` holds (a
/// `matches!` on the typed error) and return what `f` returned.
#[track_caller]
pub fn expect_validation<R>(
    device: &Device,
    expected: impl FnOnce(&ValidationError) -> bool,
    f: impl FnOnce() -> R,
) -> R {
    let (r, err) = validation_error(device, f);
    match err {
        Some(e) => {
            let typed = validation_source(&e).unwrap_or_else(|| panic!("untyped error: {e}"));
            assert!(
                expected(typed),
                "unexpected validation error: {typed:?}\n({e})"
            );
        }
        None => panic!("expected a validation error, got none"),
    }
    r
}

/// Whether `e` reports a GPU queue fault, in kernel `kernel` when that is
/// given.
pub fn is_queue_fault(e: &Error, kernel: Option<&str>) -> bool {
    let source = std::error::Error::source(e).and_then(|s| s.downcast_ref::<InternalError>());
    match source {
        Some(InternalError::QueueFault { kernel: k, .. }) => {
            kernel.is_none() || k.as_deref() == kernel
        }
        _ => false,
    }
}

/// The command that made an encoder invalid, when `e` is what `finish`
/// reported.
pub fn command_error(e: &ValidationError) -> Option<&CommandError> {
    match e {
        ValidationError::Encoder(encoder) => encoder.command(),
        _ => None,
    }
}

/// The compute pass command that made an encoder invalid.
pub fn pass_error(e: &ValidationError) -> Option<&PassError> {
    match command_error(e)? {
        CommandError::Pass { source, .. } => Some(source),
        _ => None,
    }
}

/// The dispatch (direct or indirect) that made an encoder invalid.
pub fn dispatch_error(e: &ValidationError) -> Option<&DispatchError> {
    match pass_error(e)? {
        PassError::Dispatch { source, .. } | PassError::DispatchIndirect { source, .. } => {
            Some(source)
        }
        _ => None,
    }
}

/// Assert `f` raises no validation error.
#[track_caller]
pub fn expect_valid<R>(device: &Device, f: impl FnOnce() -> R) -> R {
    let (r, err) = validation_error(device, f);
    if let Some(e) = err {
        panic!("unexpected validation error: {e}");
    }
    r
}
