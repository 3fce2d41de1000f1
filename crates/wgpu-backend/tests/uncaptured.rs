//! What happens on aqueduct-wgpu to an error no error scope catches, as in
//! wgpu: with no handler the call panics with wgpu's message (a wgpu
//! texture program ported by its instance line runs, and stops at its
//! sampler when that asks for anisotropic filtering; an encoder that
//! recorded an error stops it at `finish`), the error
//! is also logged through `log`, an installed handler replaces the panic,
//! `log_uncaptured_error` is the opt-in logging mode, and a pipeline cache
//! (which wgpu makes only with a feature this backend lacks) is an error.

use std::sync::{Arc, Mutex, OnceLock};

use aqueduct_test_harness::run_time_wgsl::texture_shaders;
use aqueduct_test_harness::wgpu_api::{COLLATZ_WGSL, device, read_back, u32s, validation_error};
use wgpu::util::DeviceExt;

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

/// The logged records that contain `needle`.
fn records_with(needle: &str) -> Vec<String> {
    let records = logged().0.lock().unwrap();
    records
        .iter()
        .filter(|r| r.contains(needle))
        .cloned()
        .collect()
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

const BLUR_WGSL: &str = "
@group(0) @binding(0) var source: texture_2d<f32>;
@group(0) @binding(1) var linear: sampler;
@group(0) @binding(2) var dest: texture_storage_2d<rgba8unorm, write>;

@compute @workgroup_size(8, 8)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    let uv = (vec2<f32>(id.xy) + 0.5) / 16.0;
    textureStore(dest, id.xy, textureSampleLevel(source, linear, uv, 0.0));
}
";

/// A wgpu 30 compute program with a sampled texture, a sampler (with
/// `anisotropy_clamp`) and a storage texture: it uploads a flat image,
/// blurs it into another and returns that. `step` records how far it got.
fn blur_program(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    step: &Mutex<Vec<&'static str>>,
    anisotropy_clamp: u16,
) -> Vec<u8> {
    let at = |s| step.lock().unwrap().push(s);
    let size = wgpu::Extent3d {
        width: 16,
        height: 16,
        depth_or_array_layers: 1,
    };
    let texture = |label, usage| wgpu::TextureDescriptor {
        label: Some(label),
        size,
        mip_level_count: 1,
        sample_count: 1,
        dimension: wgpu::TextureDimension::D2,
        format: wgpu::TextureFormat::Rgba8Unorm,
        usage,
        view_formats: &[],
    };
    at("create_texture");
    let source = device.create_texture_with_data(
        queue,
        &texture("source", wgpu::TextureUsages::TEXTURE_BINDING),
        wgpu::util::TextureDataOrder::LayerMajor,
        &[0x80; 16 * 16 * 4],
    );
    at("second create_texture");
    let target = device.create_texture(&texture(
        "target",
        wgpu::TextureUsages::STORAGE_BINDING | wgpu::TextureUsages::COPY_SRC,
    ));
    at("create_sampler");
    let sampler = device.create_sampler(&wgpu::SamplerDescriptor {
        mag_filter: wgpu::FilterMode::Linear,
        min_filter: wgpu::FilterMode::Linear,
        mipmap_filter: wgpu::MipmapFilterMode::Linear,
        anisotropy_clamp,
        ..Default::default()
    });
    at("create_compute_pipeline");
    let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: Some("blur"),
        source: wgpu::ShaderSource::Wgsl(BLUR_WGSL.into()),
    });
    let pipeline = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
        label: Some("blur"),
        layout: None,
        module: &module,
        entry_point: Some("main"),
        compilation_options: Default::default(),
        cache: None,
    });
    let group = device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: None,
        layout: &pipeline.get_bind_group_layout(0),
        entries: &[
            wgpu::BindGroupEntry {
                binding: 0,
                resource: wgpu::BindingResource::TextureView(
                    &source.create_view(&Default::default()),
                ),
            },
            wgpu::BindGroupEntry {
                binding: 1,
                resource: wgpu::BindingResource::Sampler(&sampler),
            },
            wgpu::BindGroupEntry {
                binding: 2,
                resource: wgpu::BindingResource::TextureView(
                    &target.create_view(&Default::default()),
                ),
            },
        ],
    });
    at("submit");
    let readback = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("readback"),
        size: 16 * 256,
        usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    let mut encoder = device.create_command_encoder(&Default::default());
    {
        let mut pass = encoder.begin_compute_pass(&Default::default());
        pass.set_pipeline(&pipeline);
        pass.set_bind_group(0, &group, &[]);
        pass.dispatch_workgroups(2, 2, 1);
    }
    encoder.copy_texture_to_buffer(
        target.as_image_copy(),
        wgpu::TexelCopyBufferInfo {
            buffer: &readback,
            layout: wgpu::TexelCopyBufferLayout {
                offset: 0,
                // wgpu's COPY_BYTES_PER_ROW_ALIGNMENT.
                bytes_per_row: Some(256),
                rows_per_image: None,
            },
        },
        size,
    );
    queue.submit([encoder.finish()]);
    at("read back");
    readback.slice(..).map_async(wgpu::MapMode::Read, |_| {});
    device.poll(wgpu::PollType::wait_indefinitely()).unwrap();
    let rows = readback.slice(..).get_mapped_range().unwrap().to_vec();
    let texels = rows
        .chunks(256)
        .flat_map(|row| &row[..16 * 4])
        .copied()
        .collect();
    at("done");
    texels
}

#[test]
fn a_ported_texture_program_runs() {
    if !texture_shaders("the ported blur program") {
        return;
    }
    let (device, queue) = device();
    let step = Mutex::new(Vec::new());
    let texels = blur_program(&device, &queue, &step, 1);
    assert_eq!(step.lock().unwrap().last(), Some(&"done"));
    // Linear filtering of a flat image gives the image.
    assert!(texels.iter().all(|&t| t == 0x80), "{texels:?}");
}

#[test]
fn a_ported_texture_program_stops_at_an_anisotropic_sampler_with_wgpus_message() {
    logged();
    let (device, queue) = device();
    let step = Mutex::new(Vec::new());
    let message = panic_message(|| {
        blur_program(&device, &queue, &step, 16);
    })
    .expect("the program stops with a panic");
    assert!(
        message.starts_with(
            "wgpu error: Validation Error\n\nCaused by:\n  create_sampler: anisotropy_clamp 16: \
             anisotropic filtering is not supported"
        ),
        "{message}"
    );
    assert!(message.ends_with('\n'), "{message:?}");
    // Textures and their upload work; the sampler is the first refusal.
    assert_eq!(
        *step.lock().unwrap(),
        ["create_texture", "second create_texture", "create_sampler"],
        "it went no further"
    );
    // wgpu logs the error too (through `log`, for env_logger users).
    assert!(
        records_with("anisotropy_clamp 16")
            .iter()
            .any(|r| r.starts_with("Handling wgpu errors as fatal by default")),
        "{:?}",
        logged().0.lock().unwrap()
    );
}

#[test]
fn a_handler_of_the_program_replaces_the_panic() {
    let (device, _queue) = device();
    let caught = Arc::new(Mutex::new(Vec::new()));
    let sink = caught.clone();
    device.on_uncaptured_error(Arc::new(move |e: wgpu::Error| {
        sink.lock().unwrap().push(e.to_string())
    }));
    let sampler = device.create_sampler(&wgpu::SamplerDescriptor {
        anisotropy_clamp: 4,
        ..Default::default()
    });
    // The invalid sampler in a bind group: another error, naming the call.
    let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
        label: None,
        entries: &[],
    });
    let _group = device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: None,
        layout: &layout,
        entries: &[wgpu::BindGroupEntry {
            binding: 0,
            resource: wgpu::BindingResource::Sampler(&sampler),
        }],
    });
    let caught = caught.lock().unwrap().clone();
    assert_eq!(caught.len(), 2, "{caught:?}");
    assert!(
        caught[0].starts_with("Validation Error\n\nCaused by:\n  create_sampler: "),
        "{}",
        caught[0]
    );
    assert!(caught[1].contains("create_bind_group"), "{}", caught[1]);
}

#[test]
fn the_logging_mode_logs_and_the_call_returns() {
    logged();
    let (device, queue) = device();
    device.on_uncaptured_error(Arc::new(aqueduct_wgpu::log_uncaptured_error));
    let buffer = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("logged"),
        size: 16,
        usage: wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    // Out of range: logged, and the call returns.
    queue.write_buffer(&buffer, 8, &[0; 16]);
    let records = records_with("write_buffer: 8..24 overruns buffer `logged`");
    assert_eq!(records.len(), 1, "{:?}", logged().0.lock().unwrap());
    assert!(records[0].contains("Validation Error"), "{}", records[0]);
}

#[test]
fn a_pipeline_cache_is_a_validation_error_and_so_is_a_pipeline_using_it() {
    let (device, _queue) = device();
    let mut cache = None;
    let error = validation_error(&device, || {
        // SAFETY: no data is given, so there is nothing for wgpu to trust.
        cache = Some(unsafe {
            device.create_pipeline_cache(&wgpu::PipelineCacheDescriptor {
                label: Some("cache"),
                data: None,
                fallback: true,
            })
        });
    });
    let Some(wgpu::Error::Validation { description, .. }) = error else {
        panic!("expected a validation error, got {error:?}");
    };
    assert!(
        description.contains("Features::PIPELINE_CACHE"),
        "{description}"
    );
    let cache = cache.unwrap();
    let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: None,
        source: wgpu::ShaderSource::Wgsl(COLLATZ_WGSL.into()),
    });
    let error = validation_error(&device, || {
        let _ = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
            label: Some("cached"),
            layout: None,
            module: &module,
            entry_point: Some("main"),
            compilation_options: Default::default(),
            cache: Some(&cache),
        });
    });
    let Some(wgpu::Error::Validation { description, .. }) = error else {
        panic!("expected a validation error, got {error:?}");
    };
    assert!(
        description.contains("create_compute_pipeline `cached`: the pipeline cache is invalid"),
        "{description}"
    );
}

#[test]
fn an_encoder_that_recorded_an_error_stops_the_program_at_finish_and_runs_nothing() {
    let (device, queue) = device();
    let data = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: Some("data"),
        contents: bytemuck::cast_slice(&[5u32; 4]),
        usage: wgpu::BufferUsages::COPY_SRC | wgpu::BufferUsages::COPY_DST,
    });
    // The texture's own error (a combined depth-stencil format, which
    // textures do not have) is caught, so the program gets its invalid
    // object.
    let mut texture = None;
    assert!(
        validation_error(&device, || {
            texture = Some(device.create_texture(&wgpu::TextureDescriptor {
                label: Some("image"),
                size: wgpu::Extent3d {
                    width: 4,
                    height: 1,
                    depth_or_array_layers: 1,
                },
                mip_level_count: 1,
                sample_count: 1,
                dimension: wgpu::TextureDimension::D2,
                format: wgpu::TextureFormat::Depth24PlusStencil8,
                usage: wgpu::TextureUsages::COPY_SRC,
                view_formats: &[],
            }))
        })
        .is_some()
    );
    let texture = texture.unwrap();
    let record = || {
        let mut encoder = device.create_command_encoder(&Default::default());
        encoder.clear_buffer(&data, 0, None);
        encoder.copy_texture_to_buffer(
            texture.as_image_copy(),
            wgpu::TexelCopyBufferInfo {
                buffer: &data,
                layout: Default::default(),
            },
            wgpu::Extent3d {
                width: 4,
                height: 1,
                depth_or_array_layers: 1,
            },
        );
        encoder
    };
    // Uncaught, the error stops the program where the encoder is finished.
    let encoder = record();
    let message = panic_message(move || {
        let _ = encoder.finish();
    })
    .expect("finish panics");
    assert!(
        message.starts_with(
            "wgpu error: Validation Error\n\nCaused by:\n  command encoder is invalid: \
             copy_texture_to_buffer: texture `image` is invalid"
        ),
        "{message}"
    );
    // Caught, the submission is refused as a whole: the clear before the
    // texture copy does not run either, and the buffer keeps its bytes.
    let error = validation_error(&device, || {
        let commands = record().finish();
        queue.submit([commands]);
    });
    assert!(error.is_some());
    assert_eq!(u32s(&read_back(&device, &queue, &data)), [5; 4]);
}
