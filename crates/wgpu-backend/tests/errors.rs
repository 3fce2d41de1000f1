//! Errors through the wgpu API on aqueduct-wgpu: validation errors caught
//! by error scopes and by the uncaptured-error handler, mapping misuse,
//! invalid submissions, and the compute-only error of render calls, after
//! which the device keeps working.

use std::sync::{Arc, Mutex};

use aqueduct::ValidationError;
use aqueduct::error::{CommandError, QueryUseError, QueueError, ResolveQueryError};
use aqueduct_test_harness::wgpu_api::{
    COLLATZ_WGSL, collatz_steps, device, read_back, u32s, validation_error,
};
use aqueduct_wgpu::{BackendValidationError, ComputeOnlyError};
use wgpu::util::DeviceExt;

/// The facade's typed error behind a wgpu validation error.
fn facade_error(error: &wgpu::Error) -> Option<&aqueduct::ValidationError> {
    match error {
        wgpu::Error::Validation { source, .. } => source.downcast_ref(),
        _ => None,
    }
}

/// The facade's typed error behind the validation error `f` raises.
fn facade_validation_error(device: &wgpu::Device, f: impl FnOnce()) -> aqueduct::ValidationError {
    let error = validation_error(device, f).expect("a validation error");
    facade_error(&error)
        .unwrap_or_else(|| panic!("not a facade error: {error:?}"))
        .clone()
}

/// The backend's own typed error behind a wgpu validation error.
fn backend_error(error: Option<wgpu::Error>) -> BackendValidationError {
    match error {
        Some(wgpu::Error::Validation { source, .. }) => source
            .downcast_ref::<BackendValidationError>()
            .unwrap_or_else(|| panic!("not a backend error: {source}"))
            .clone(),
        other => panic!("expected a validation error, got {other:?}"),
    }
}

/// The call a compute-only validation error names.
fn compute_only_call(error: Option<wgpu::Error>) -> &'static str {
    match error {
        Some(wgpu::Error::Validation { source, .. }) => {
            if let Some(e) = source.downcast_ref::<ComputeOnlyError>() {
                return e.call;
            }
            match source.downcast_ref::<BackendValidationError>() {
                Some(BackendValidationError::InvalidEncoder(first)) => match &**first {
                    BackendValidationError::ComputeOnly(e) => e.call,
                    other => panic!("not compute-only: {other}"),
                },
                other => panic!("not compute-only: {other:?}"),
            }
        }
        other => panic!("expected a validation error, got {other:?}"),
    }
}

/// The message `f` panics with (it must panic).
fn panic_message(f: impl FnOnce()) -> String {
    let payload =
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).expect_err("the call panics");
    match payload.downcast::<String>() {
        Ok(message) => *message,
        Err(payload) => payload
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .unwrap_or_default(),
    }
}

fn validation_message(error: Option<wgpu::Error>) -> String {
    match error {
        Some(wgpu::Error::Validation { description, .. }) => description,
        other => panic!("expected a validation error, got {other:?}"),
    }
}

/// Run the Collatz shader (auto layout) over `numbers` and return the result.
fn run_collatz(device: &wgpu::Device, queue: &wgpu::Queue, numbers: &[u32]) -> Vec<u32> {
    let storage = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: None,
        contents: bytemuck::cast_slice(numbers),
        usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
    });
    let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: None,
        source: wgpu::ShaderSource::Wgsl(COLLATZ_WGSL.into()),
    });
    let pipeline = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
        label: None,
        layout: None,
        module: &module,
        entry_point: None,
        compilation_options: Default::default(),
        cache: None,
    });
    let group = device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: None,
        layout: &pipeline.get_bind_group_layout(0),
        entries: &[wgpu::BindGroupEntry {
            binding: 0,
            resource: storage.as_entire_binding(),
        }],
    });
    let mut encoder = device.create_command_encoder(&Default::default());
    {
        let mut pass = encoder.begin_compute_pass(&Default::default());
        pass.set_pipeline(&pipeline);
        pass.set_bind_group(0, &group, &[]);
        pass.dispatch_workgroups(numbers.len() as u32, 1, 1);
    }
    queue.submit([encoder.finish()]);
    u32s(&read_back(device, queue, &storage))
}

#[test]
fn error_scopes_and_the_uncaptured_handler_get_validation_errors() {
    let (device, queue) = device();
    let buffer = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("small"),
        size: 16,
        usage: wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    // Out of range: caught by the scope, with the facade's error.
    let error = facade_validation_error(&device, || {
        queue.write_buffer(&buffer, 8, &[0; 16]);
    });
    assert!(
        matches!(
            error,
            ValidationError::Queue(QueueError::WriteOverrun {
                offset: 8,
                end: 24,
                ..
            })
        ),
        "{error:?}"
    );
    // Nothing wrong: the scope pops empty.
    assert!(validation_error(&device, || queue.write_buffer(&buffer, 0, &[1; 16])).is_none());
    // An OutOfMemory scope does not catch a validation error.
    let caught = Arc::new(Mutex::new(Vec::new()));
    let sink = caught.clone();
    device.on_uncaptured_error(Arc::new(move |e: wgpu::Error| {
        sink.lock().unwrap().push(facade_error(&e).cloned())
    }));
    let oom = device.push_error_scope(wgpu::ErrorFilter::OutOfMemory);
    queue.write_buffer(&buffer, 3, &[0; 4]);
    assert!(pollster::block_on(oom.pop()).is_none());
    let uncaptured = caught.lock().unwrap().clone();
    assert_eq!(uncaptured.len(), 1, "{uncaptured:?}");
    assert!(
        matches!(
            uncaptured[0],
            Some(ValidationError::Queue(QueueError::WriteUnaligned {
                offset: 3,
                size: 4
            }))
        ),
        "{uncaptured:?}"
    );
    // Nested scopes: the inner one takes the error.
    let outer = device.push_error_scope(wgpu::ErrorFilter::Validation);
    let inner_error = validation_error(&device, || {
        let mut encoder = device.create_command_encoder(&Default::default());
        encoder.copy_buffer_to_buffer(&buffer, 0, &buffer, 0, 4);
        queue.submit([encoder.finish()]);
    });
    assert!(inner_error.is_some());
    assert!(pollster::block_on(outer.pop()).is_none());
}

#[test]
fn mapping_misuse_is_reported_and_a_refused_view_panics() {
    let (device, _queue) = device();
    // Mapping a buffer without MAP_READ: the callback gets an error and the
    // scope a validation error.
    let plain = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("plain"),
        size: 64,
        usage: wgpu::BufferUsages::STORAGE,
        mapped_at_creation: false,
    });
    let (tx, rx) = std::sync::mpsc::channel();
    let error = validation_error(&device, || {
        plain
            .slice(..)
            .map_async(wgpu::MapMode::Read, move |r| tx.send(r).unwrap());
        device.poll(wgpu::PollType::wait_indefinitely()).unwrap();
    });
    assert!(error.is_some(), "map_async without MAP_READ");
    assert_eq!(rx.recv().unwrap(), Err(wgpu::BufferAsyncError));
    plain.unmap();

    // A mutable view of a buffer mapped for reading: reported, the writes
    // do not reach the buffer.
    let readable = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: Some("readable"),
        contents: &[7; 32],
        usage: wgpu::BufferUsages::MAP_READ,
    });
    let (tx, rx) = std::sync::mpsc::channel();
    readable
        .slice(..)
        .map_async(wgpu::MapMode::Read, move |r| tx.send(r).unwrap());
    device.poll(wgpu::PollType::wait_indefinitely()).unwrap();
    rx.recv().unwrap().unwrap();
    let error = backend_error(validation_error(&device, || {
        let mut view = readable.slice(..).get_mapped_range_mut().unwrap();
        view.copy_from_slice(&[1; 32]);
    }));
    assert!(
        matches!(error, BackendValidationError::MappedForRead),
        "{error}"
    );
    assert_eq!(
        &readable.slice(..).get_mapped_range().unwrap()[..],
        &[7; 32]
    );
    readable.unmap();

    // A view before the mapping completed (no poll yet): wgpu answers with
    // Err(MapRangeError), which a backend cannot build, so the backend
    // panics with its text instead of handing out bytes.
    let pending = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("pending"),
        size: 16,
        usage: wgpu::BufferUsages::MAP_READ,
        mapped_at_creation: false,
    });
    pending.slice(..).map_async(wgpu::MapMode::Read, |_| {});
    let message = panic_message(|| {
        let _ = pending.slice(..).get_mapped_range();
    });
    assert!(
        message.starts_with("Buffer view error: get_mapped_range(0..16): "),
        "{message}"
    );
    assert!(message.contains("not mapped"), "{message}");
    pending.unmap();
}

#[test]
fn render_calls_report_compute_only_and_the_device_keeps_working() {
    let (device, queue) = device();
    let texture_desc = wgpu::TextureDescriptor {
        label: Some("texture"),
        size: wgpu::Extent3d {
            width: 4,
            height: 4,
            depth_or_array_layers: 1,
        },
        mip_level_count: 1,
        sample_count: 1,
        dimension: wgpu::TextureDimension::D2,
        format: wgpu::TextureFormat::Rgba8Unorm,
        usage: wgpu::TextureUsages::STORAGE_BINDING,
        view_formats: &[],
    };
    // Textures are supported: creating one and its view raises nothing.
    let error = validation_error(&device, || {
        let texture = device.create_texture(&texture_desc);
        let _view = texture.create_view(&Default::default());
    });
    assert!(error.is_none(), "{error:?}");

    // So are samplers.
    let error = validation_error(&device, || {
        let _sampler = device.create_sampler(&Default::default());
    });
    assert!(error.is_none(), "{error:?}");

    // A render pass: the encoder becomes invalid, reported at finish, and
    // submitting its command buffer is an error too.
    let error = validation_error(&device, || {
        let mut encoder = device.create_command_encoder(&Default::default());
        {
            let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor::default());
            pass.draw(0..3, 0..1);
        }
        let commands = encoder.finish();
        queue.submit([commands]);
    });
    assert!(compute_only_call(error).contains("begin_render_pass"));

    // The device is still usable after all of the above.
    let numbers = [3, 7, 27, 97];
    assert_eq!(
        run_collatz(&device, &queue, &numbers),
        numbers.map(collatz_steps).to_vec()
    );
}

#[test]
fn a_bad_shader_and_a_bad_staging_write_are_validation_errors() {
    let (device, queue) = device();
    // WGSL that neither matches a precompiled object nor compiles (with
    // LLVM: a parse error; without: the "precompile it" error).
    let mut module = None;
    let error = validation_error(&device, || {
        module = Some(device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("broken"),
            source: wgpu::ShaderSource::Wgsl("@compute fn main( {".into()),
        }));
    });
    let message = validation_message(error);
    let module = module.unwrap();
    let info = pollster::block_on(module.get_compilation_info());
    assert_eq!(info.messages.len(), 1);
    assert_eq!(
        info.messages[0].message_type,
        wgpu::CompilationMessageType::Error
    );
    assert!(message.contains(&info.messages[0].message), "{info:?}");
    assert!(
        !info.messages[0].message.starts_with("Validation Error"),
        "{info:?}"
    );
    // A pipeline from it is an error too, not a panic.
    assert!(
        validation_error(&device, || {
            let _ = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                label: None,
                layout: None,
                module: &module,
                entry_point: Some("main"),
                compilation_options: Default::default(),
                cache: None,
            });
        })
        .is_some()
    );

    // write_buffer_with past the end: no view, a validation error.
    let buffer = device.create_buffer(&wgpu::BufferDescriptor {
        label: None,
        size: 16,
        usage: wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::COPY_SRC,
        mapped_at_creation: false,
    });
    let error = facade_validation_error(&device, || {
        assert!(
            queue
                .write_buffer_with(&buffer, 8, wgpu::BufferSize::new(16).unwrap())
                .is_none()
        );
    });
    assert!(
        matches!(
            error,
            ValidationError::Queue(QueueError::WriteOverrun { offset: 8, .. })
        ),
        "{error:?}"
    );
    assert_eq!(read_back(&device, &queue, &buffer), vec![0; 16]);
}

#[test]
fn a_destroyed_query_set_is_a_validation_error() {
    let (device, queue) = device();
    let queries = device.create_query_set(&wgpu::QuerySetDescriptor {
        label: Some("times"),
        ty: wgpu::QueryType::Timestamp,
        count: 2,
    });
    let resolved = device.create_buffer(&wgpu::BufferDescriptor {
        label: None,
        size: 256,
        usage: wgpu::BufferUsages::QUERY_RESOLVE,
        mapped_at_creation: false,
    });
    queries.destroy();
    let error = facade_validation_error(&device, || {
        let mut encoder = device.create_command_encoder(&Default::default());
        encoder.resolve_query_set(&queries, 0..2, &resolved, 0);
        queue.submit([encoder.finish()]);
    });
    let command = match &error {
        ValidationError::Encoder(encoder) => encoder.command(),
        _ => None,
    };
    assert!(
        matches!(
            command,
            Some(CommandError::ResolveQuerySet(ResolveQueryError::Query(
                QueryUseError::Destroyed { label: Some(l) }
            ))) if l == "times"
        ),
        "{error:?}"
    );
    assert_eq!(run_collatz(&device, &queue, &[27]), [collatz_steps(27)]);
}
