//! What happens to an error no error scope catches, as in wgpu: with no
//! handler the call that raised it panics with the message (a wgpu texture
//! program ported to the facade stops at its anisotropic sampler), the
//! error is also logged through `log` and `tracing`, an installed handler
//! replaces the panic, and the opt-in logging mode writes to stderr when no
//! logger takes the error.

use std::sync::{Arc, Mutex, OnceLock};

use aqueduct::wgt::{
    SamplerBindingType, StorageTextureAccess, TextureFormat, TextureSampleType,
    TextureViewDimension,
};
use aqueduct::*;

/// A device on gfxsim with no uncaptured-error handler installed (the
/// shared test context installs a panicking one of its own).
fn bare_device() -> (Device, Queue) {
    let instance = Instance::with_device(DeviceChoice::Sim);
    let adapter = instance
        .request_adapter_sync(&RequestAdapterOptions::default())
        .expect("gfxsim adapter");
    adapter
        .request_device_sync(&DeviceDescriptor::default())
        .expect("device")
}

/// A `log` logger keeping every record's text, so a test can see what an
/// `env_logger` user would.
struct Captured(Mutex<Vec<String>>);

impl log::Log for Captured {
    fn enabled(&self, metadata: &log::Metadata<'_>) -> bool {
        metadata.level() <= log::Level::Error
    }

    fn log(&self, record: &log::Record<'_>) {
        self.0.lock().unwrap().push(record.args().to_string());
    }

    fn flush(&self) {}
}

/// The process's capturing logger, installed on first use.
fn logged() -> &'static Captured {
    static LOGGER: OnceLock<&'static Captured> = OnceLock::new();
    LOGGER.get_or_init(|| {
        let logger: &'static Captured = Box::leak(Box::new(Captured(Mutex::new(Vec::new()))));
        log::set_logger(logger).expect("no other logger in this test binary");
        log::set_max_level(log::LevelFilter::Error);
        logger
    })
}

/// The message `f` panics with, or None when it returns.
fn panic_message(f: impl FnOnce()) -> Option<String> {
    let payload = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).err()?;
    Some(match payload.downcast::<String>() {
        Ok(message) => *message,
        Err(payload) => payload
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .unwrap_or_default(),
    })
}

/// A wgpu compute program that blurs a sampled texture into a storage
/// texture, ported to the facade by its crate name: its layout (wgpu-types,
/// shared) is accepted, and its sampler asks for anisotropic filtering,
/// which the facade refuses. `step` records how far it got.
fn ported_blur_program(device: &Device, queue: &Queue, step: &Mutex<Vec<&'static str>>) {
    let at = |s| step.lock().unwrap().push(s);
    at("create_buffer");
    let params = device.create_buffer(&BufferDescriptor {
        label: Some("params"),
        size: 16,
        usage: BufferUsages::UNIFORM | BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    queue.write_buffer(&params, 0, &[0; 16]);
    at("create_bind_group_layout");
    let _layout = device.create_bind_group_layout(&BindGroupLayoutDescriptor {
        label: Some("blur"),
        entries: &[
            BindGroupLayoutEntry {
                binding: 0,
                visibility: ShaderStages::COMPUTE,
                ty: BindingType::Texture {
                    sample_type: TextureSampleType::Float { filterable: true },
                    view_dimension: TextureViewDimension::D2,
                    multisampled: false,
                },
                count: None,
            },
            BindGroupLayoutEntry {
                binding: 1,
                visibility: ShaderStages::COMPUTE,
                ty: BindingType::Sampler(SamplerBindingType::Filtering),
                count: None,
            },
            BindGroupLayoutEntry {
                binding: 2,
                visibility: ShaderStages::COMPUTE,
                ty: BindingType::StorageTexture {
                    access: StorageTextureAccess::WriteOnly,
                    format: TextureFormat::Rgba8Unorm,
                    view_dimension: TextureViewDimension::D2,
                },
                count: None,
            },
        ],
    });
    at("create_sampler");
    let _sampler = device.create_sampler(&SamplerDescriptor {
        label: Some("blur"),
        mag_filter: FilterMode::Linear,
        min_filter: FilterMode::Linear,
        mipmap_filter: MipmapFilterMode::Linear,
        anisotropy_clamp: 16,
        ..Default::default()
    });
    at("done");
}

#[test]
fn a_ported_program_stops_at_its_first_invalid_call_with_the_message() {
    logged();
    let (device, queue) = bare_device();
    let step = Mutex::new(Vec::new());
    let message = panic_message(|| ported_blur_program(&device, &queue, &step))
        .expect("the program stops with a panic");
    assert!(
        message.starts_with(
            "aqueduct error: Validation Error: create_sampler `blur`: anisotropy_clamp 16: \
             anisotropic filtering is not supported"
        ),
        "{message}"
    );
    assert_eq!(
        *step.lock().unwrap(),
        [
            "create_buffer",
            "create_bind_group_layout",
            "create_sampler"
        ],
        "it went no further"
    );
    // Logged as well, through `log` (and `tracing`).
    let records = logged().0.lock().unwrap().clone();
    assert!(
        records
            .iter()
            .any(|r| r.starts_with("uncaptured error: ") && r.contains("create_sampler `blur`")),
        "{records:?}"
    );
}

#[test]
fn an_installed_handler_takes_the_error_instead() {
    let (device, queue) = bare_device();
    let caught = Arc::new(Mutex::new(Vec::new()));
    let sink = caught.clone();
    device.on_uncaptured_error(Arc::new(move |e: Error| {
        sink.lock().unwrap().push(e.to_string())
    }));
    let buffer = device.create_buffer(&BufferDescriptor {
        label: Some("small"),
        size: 16,
        usage: BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    queue.write_buffer(&buffer, 8, &[0; 16]);
    // A scope still comes first.
    let scope = device.push_error_scope(ErrorFilter::Validation);
    queue.write_buffer(&buffer, 3, &[0; 4]);
    assert!(scope.pop_now().is_some());
    let caught = caught.lock().unwrap().clone();
    assert_eq!(
        caught,
        ["Validation Error: write_buffer: 8..24 overruns buffer `small` (16 bytes)"]
    );
}

/// A `tracing` writer keeping what the subscriber writes.
#[derive(Clone, Default)]
struct Written(Arc<Mutex<Vec<u8>>>);

impl std::io::Write for Written {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[test]
fn an_uncaught_error_reaches_a_tracing_subscriber_before_the_panic() {
    let (device, queue) = bare_device();
    let written = Written::default();
    let writer = written.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_ansi(false)
        .with_writer(move || writer.clone())
        .finish();
    let message = tracing::subscriber::with_default(subscriber, || {
        panic_message(|| {
            let buffer = device.create_buffer(&BufferDescriptor {
                label: Some("traced"),
                size: 16,
                usage: BufferUsages::COPY_DST,
                mapped_at_creation: false,
            });
            queue.write_buffer(&buffer, 4, &[0; 16]);
        })
    })
    .expect("the call panics");
    let expected = "Validation Error: write_buffer: 4..20 overruns buffer `traced` (16 bytes)";
    assert_eq!(message, format!("aqueduct error: {expected}\n"));
    let written = String::from_utf8(written.0.lock().unwrap().clone()).unwrap();
    assert!(
        written.contains(&format!("ERROR aqueduct: uncaptured error: {expected}")),
        "{written}"
    );
}

/// What the child process of the next test runs: the logging mode on a
/// process with no logger and no subscriber.
#[test]
#[ignore = "run in a child process by logging_mode_writes_to_stderr_without_a_logger"]
fn logging_mode_child() {
    let (device, queue) = bare_device();
    device.on_uncaptured_error(Arc::new(log_uncaptured_error));
    let buffer = device.create_buffer(&BufferDescriptor {
        label: Some("child"),
        size: 16,
        usage: BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    queue.write_buffer(&buffer, 8, &[0; 16]);
    println!("the call returned");
}

#[test]
fn logging_mode_writes_to_stderr_without_a_logger() {
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "logging_mode_child",
            "--ignored",
            "--nocapture",
            "--test-threads=1",
        ])
        .env_remove("RUST_LOG")
        .output()
        .expect("the test binary runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stdout}\n{stderr}");
    assert!(stdout.contains("the call returned"), "{stdout}");
    assert!(
        stderr.contains(
            "aqueduct: uncaptured error: Validation Error: write_buffer: 8..24 overruns buffer \
             `child` (16 bytes)"
        ),
        "{stderr}"
    );
}
