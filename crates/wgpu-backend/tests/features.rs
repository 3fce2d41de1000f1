//! Shader features through the wgpu API on aqueduct-wgpu: the adapter
//! offers what the facade's does, a WGSL kernel using f16, f64 and
//! subgroups runs with host-checked results, a device opened without
//! SHADER_F16 refuses an f16 shader with an error naming the feature,
//! experimental features need the descriptor's opt-in, and cooperative
//! matrices run with the configurations the adapter reports.

use aqueduct_test_harness::run_time_wgsl::{llvm_installed, no_disk_cache};
use aqueduct_test_harness::wgpu_api::{device, read_back, sim_adapter, validation_error};
use wgpu::util::DeviceExt;

const SHADER: &str = "
enable f16;
@group(0) @binding(0) var<storage, read_write> o: array<f32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>, @builtin(subgroup_invocation_id) lane: u32) {
    let h = f16(id.x) * 0.5h;
    let d = f64(id.x) * 0.25lf;
    o[id.x] = f32(h) + f32(d) + f32(subgroupAdd(lane));
}
";

#[test]
fn shader_features_run_through_wgpu() {
    if !llvm_installed("shader features") {
        return;
    }
    no_disk_cache();
    let (device, queue) = device();
    let wanted = wgpu::Features::SHADER_F16
        | wgpu::Features::SHADER_F64
        | wgpu::Features::SUBGROUP
        | wgpu::Features::SHADER_INT64;
    assert!(
        device.features().contains(wanted),
        "{:?}",
        device.features()
    );
    let got = run_f32s(&device, &queue, "features.wgsl", SHADER, &[0; 64 * 4]);
    // The lanes of each subgroup sum to 0 + 1 + ... + (wave - 1): wave32
    // on gfx1100, wave64 on the GFX9 parts.
    let wave = if aqueduct::gfxsim::default_part().isa() == "gfx1100" {
        32
    } else {
        64
    };
    let lanes = (wave * (wave - 1) / 2) as f32;
    let want: Vec<f32> = (0..64)
        .map(|i| i as f32 * 0.5 + i as f32 * 0.25 + lanes)
        .collect();
    assert_eq!(got, want);
}

#[test]
fn a_shader_needing_a_feature_the_device_lacks_is_an_error() {
    if !llvm_installed("shader features") {
        return;
    }
    no_disk_cache();
    let adapter = sim_adapter();
    let (device, _queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
        required_features: wgpu::Features::SUBGROUP | wgpu::Features::SHADER_F64,
        ..Default::default()
    }))
    .expect("device");
    let err = validation_error(&device, || {
        let _ = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("features.wgsl"),
            source: wgpu::ShaderSource::Wgsl(SHADER.into()),
        });
    })
    .expect("f16 without SHADER_F16 is an error");
    let text = err.to_string();
    assert!(text.contains("SHADER_F16"), "{text}");
}

/// An `EXPERIMENTAL_*` feature without `experimental_features` enabled is
/// refused when the device is requested, as wgpu-core refuses it.
#[test]
fn experimental_features_need_the_opt_in() {
    let adapter = sim_adapter();
    let err = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
        required_features: wgpu::Features::EXPERIMENTAL_COOPERATIVE_MATRIX,
        ..Default::default()
    }))
    .expect_err("no opt-in");
    let text = err.to_string();
    assert!(
        text.contains("experimental features are not enabled"),
        "{text}"
    );
}

/// Cooperative matrices through wgpu: the adapter offers
/// `EXPERIMENTAL_COOPERATIVE_MATRIX` and reports its configurations, and
/// an 8x8 f32 `coopMultiplyAdd` of small integers matches the host.
#[test]
fn cooperative_matrices_run_through_wgpu() {
    if !llvm_installed("cooperative matrices") {
        return;
    }
    no_disk_cache();
    let adapter = sim_adapter();
    assert!(
        adapter
            .features()
            .contains(wgpu::Features::EXPERIMENTAL_COOPERATIVE_MATRIX)
    );
    let configs = adapter.cooperative_matrix_properties();
    for size in [8, 16] {
        for (ab, cr) in [
            (
                wgpu::wgt::CooperativeScalarType::F32,
                wgpu::wgt::CooperativeScalarType::F32,
            ),
            (
                wgpu::wgt::CooperativeScalarType::F16,
                wgpu::wgt::CooperativeScalarType::F32,
            ),
        ] {
            assert!(
                configs.iter().any(|c| c.m_size == size
                    && c.n_size == size
                    && c.k_size == size
                    && c.ab_type == ab
                    && c.cr_type == cr),
                "{size}x{size} {ab:?} -> {cr:?} missing from {configs:?}"
            );
        }
    }
    let (device, queue) = device();
    let wgsl = "
enable wgpu_cooperative_matrix;
@group(0) @binding(0) var<storage, read_write> m: array<f32>;
@compute @workgroup_size(64)
fn main() {
    let a = coopLoad<coop_mat8x8<f32, A>>(&m[0]);
    let b = coopLoad<coop_mat8x8<f32, B>>(&m[64]);
    let c = coopLoad<coop_mat8x8<f32, C>>(&m[128]);
    coopStore(coopMultiplyAdd(a, b, c), &m[192]);
}
";
    let input: Vec<f32> = (0..256).map(|i| ((i * 7 + 3) % 7) as f32 - 3.0).collect();
    let bytes: Vec<u8> = input.iter().flat_map(|v| v.to_le_bytes()).collect();
    let got = run_f32s(&device, &queue, "coop.wgsl", wgsl, &bytes);
    // Column-major with stride 8: element (r, c) of the matrix at `first`
    // is input[first + 8 c + r].
    let at = |first: usize, r: usize, c: usize| input[first + 8 * c + r];
    for c in 0..8 {
        for r in 0..8 {
            let want = at(128, r, c) + (0..8).map(|k| at(0, r, k) * at(64, k, c)).sum::<f32>();
            assert_eq!(got[192 + 8 * c + r], want, "d[{r}][{c}]");
        }
    }
}

/// Runs `wgsl`'s `main` over one workgroup with one storage buffer (binding
/// 0) holding `contents`, checks no validation error was raised, and reads
/// the buffer back as f32s.
fn run_f32s(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    label: &str,
    wgsl: &str,
    contents: &[u8],
) -> Vec<f32> {
    let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: Some(label),
        source: wgpu::ShaderSource::Wgsl(wgsl.into()),
    });
    let pipeline = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
        label: None,
        layout: None,
        module: &module,
        entry_point: Some("main"),
        compilation_options: Default::default(),
        cache: None,
    });
    let buffer = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: Some(label),
        contents,
        usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
    });
    let bg = device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: None,
        layout: &pipeline.get_bind_group_layout(0),
        entries: &[wgpu::BindGroupEntry {
            binding: 0,
            resource: buffer.as_entire_binding(),
        }],
    });
    let err = validation_error(device, || {
        let mut enc = device.create_command_encoder(&Default::default());
        {
            let mut pass = enc.begin_compute_pass(&Default::default());
            pass.set_pipeline(&pipeline);
            pass.set_bind_group(0, &bg, &[]);
            pass.dispatch_workgroups(1, 1, 1);
        }
        queue.submit([enc.finish()]);
    });
    assert!(err.is_none(), "{err:?}");
    read_back(device, queue, &buffer)
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}
