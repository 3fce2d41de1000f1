//! `var<immediate>` in run-time WGSL: the compiler's by-value argument is
//! filled from `set_immediates`, at offsets, changed between dispatches of
//! one pass, and checked against the pipeline layout's `immediate_size`
//! and the device's features (results computed on the host).

use std::borrow::Cow;

use aqueduct::*;
use aqueduct_test_harness::facade::*;
use aqueduct_test_harness::run_time_wgsl::{llvm_installed, no_disk_cache};

/// `p` is 32 bytes: n at 0, scale at 4, bias at 16 (vec4 alignment).
const SHADER: &str = "
struct Params { n: u32, scale: f32, bias: vec4<f32> }
var<immediate> p: Params;
@group(0) @binding(0) var<storage, read_write> out: array<f32>;

fn bias_of(i: u32) -> f32 {
    return p.bias[i % 4u];
}

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    if id.x < p.n {
        out[id.x] = f32(id.x) * p.scale + bias_of(id.x);
    }
}
";

const LEN: usize = 100;

/// A device on gfxsim with the adapter's features (or `features`), with
/// run-time WGSL uncached; None without LLVM.
fn device_with(features: Option<Features>) -> Option<Ctx> {
    if !llvm_installed("WGSL immediates") {
        return None;
    }
    no_disk_cache();
    Some(ctx_with(|a| DeviceDescriptor {
        required_features: features.unwrap_or(a.features()),
        experimental_features: experimental_features(),
        required_limits: a.limits(),
        ..Default::default()
    }))
}

fn immediates_module(c: &Ctx) -> ShaderModule {
    expect_valid(&c.device, || {
        c.device.create_shader_module(ShaderModuleDescriptor {
            label: Some("immediates.wgsl"),
            source: ShaderSource::Wgsl(Cow::Borrowed(SHADER)),
        })
    })
}

fn pipeline(c: &Ctx, module: &ShaderModule, layout: Option<&PipelineLayout>) -> ComputePipeline {
    c.device
        .create_compute_pipeline(&ComputePipelineDescriptor {
            label: Some("immediates"),
            layout,
            module,
            entry_point: Some("main"),
            compilation_options: Default::default(),
            cache: None,
        })
}

fn params_bytes(n: u32, scale: f32, bias: [f32; 4]) -> Vec<u8> {
    let mut bytes = Vec::new();
    bytes.extend(n.to_le_bytes());
    bytes.extend(scale.to_le_bytes());
    bytes.extend([0u8; 8]);
    for b in bias {
        bytes.extend(b.to_le_bytes());
    }
    bytes
}

/// What the shader writes for (n, scale, bias) over a zeroed buffer.
fn expected(n: u32, scale: f32, bias: [f32; 4]) -> Vec<f32> {
    (0..LEN)
        .map(|i| {
            if (i as u32) < n {
                i as f32 * scale + bias[i % 4]
            } else {
                0.0
            }
        })
        .collect()
}

fn read_f32(c: &Ctx, buffer: &Buffer) -> Vec<f32> {
    read_words(c, buffer)
        .into_iter()
        .map(f32::from_bits)
        .collect()
}

fn output(c: &Ctx) -> Buffer {
    storage_init(&c.device, &[0; LEN])
}

#[test]
fn immediates_reach_a_wgsl_struct_through_a_derived_layout() {
    let Some(c) = device_with(None) else { return };
    let module = immediates_module(&c);
    let p = expect_valid(&c.device, || pipeline(&c, &module, None));
    let out = output(&c);
    let bg = bind_group(&c.device, &p, 0, &[&out]);
    let (n, scale, bias) = (77, 1.5, [0.25, -2.0, 10.0, 100.5]);
    let mut enc = c.device.create_command_encoder(&Default::default());
    {
        let mut pass = enc.begin_compute_pass(&Default::default());
        pass.set_pipeline(&p);
        pass.set_bind_group(0, &bg, &[]);
        pass.set_immediates(0, &params_bytes(n, scale, bias));
        pass.dispatch_workgroups(LEN.div_ceil(64) as u32, 1, 1);
    }
    expect_valid(&c.device, || c.queue.submit([enc.finish()]));
    assert_eq!(read_f32(&c, &out), expected(n, scale, bias));
}

/// Immediates set in pieces at offsets, then one member changed between
/// two dispatches of one pass: each dispatch sees the bytes set before it.
#[test]
fn immediates_set_at_offsets_and_changed_between_dispatches() {
    let Some(c) = device_with(None) else { return };
    let module = immediates_module(&c);
    // The group layout from a derived pipeline, shared by the explicit one.
    let derived = expect_valid(&c.device, || pipeline(&c, &module, None));
    let group = derived.get_bind_group_layout(0);
    let layout = expect_valid(&c.device, || {
        c.device.create_pipeline_layout(&PipelineLayoutDescriptor {
            label: Some("32 bytes of immediates"),
            bind_group_layouts: &[Some(&group)],
            immediate_size: 32,
        })
    });
    let p = expect_valid(&c.device, || pipeline(&c, &module, Some(&layout)));
    let (first, second) = (output(&c), output(&c));
    let bg_first = bind_group(&c.device, &p, 0, &[&first]);
    let bg_second = bind_group(&c.device, &p, 0, &[&second]);
    let bias = [3.0, 5.0, 7.0, 9.0];
    let all = params_bytes(60, 2.0, bias);
    let mut enc = c.device.create_command_encoder(&Default::default());
    {
        let mut pass = enc.begin_compute_pass(&Default::default());
        pass.set_pipeline(&p);
        pass.set_immediates(16, &all[16..]);
        pass.set_immediates(0, &all[..8]);
        pass.set_bind_group(0, &bg_first, &[]);
        pass.dispatch_workgroups(2, 1, 1);
        pass.set_immediates(4, &(-0.5f32).to_le_bytes());
        pass.set_immediates(0, &(LEN as u32).to_le_bytes());
        pass.set_bind_group(0, &bg_second, &[]);
        pass.dispatch_workgroups(2, 1, 1);
    }
    expect_valid(&c.device, || c.queue.submit([enc.finish()]));
    assert_eq!(read_f32(&c, &first), expected(60, 2.0, bias));
    assert_eq!(read_f32(&c, &second), expected(LEN as u32, -0.5, bias));
}

/// A layout giving fewer immediate bytes than the shader's `var<immediate>`
/// takes fails pipeline creation, as does a derived layout past the
/// device's `max_immediate_size`, and writes past the limit fail the pass.
#[test]
fn immediates_past_the_layout_or_the_limit_are_errors() {
    let Some(c) = device_with(None) else { return };
    let module = immediates_module(&c);
    let derived = expect_valid(&c.device, || pipeline(&c, &module, None));
    let group = derived.get_bind_group_layout(0);
    let small = expect_valid(&c.device, || {
        c.device.create_pipeline_layout(&PipelineLayoutDescriptor {
            label: None,
            bind_group_layouts: &[Some(&group)],
            immediate_size: 16,
        })
    });
    expect_validation(
        &c.device,
        |e| {
            matches!(
                e,
                ValidationError::Pipeline(ComputePipelineError::ImmediatesExceedLayout {
                    size: 32,
                    layout_size: 16,
                    ..
                })
            )
        },
        || pipeline(&c, &module, Some(&small)),
    );

    let max = c.device.limits().max_immediate_size;
    let out = output(&c);
    let bg = bind_group(&c.device, &derived, 0, &[&out]);
    let mut enc = c.device.create_command_encoder(&Default::default());
    {
        let mut pass = enc.begin_compute_pass(&Default::default());
        pass.set_pipeline(&derived);
        pass.set_bind_group(0, &bg, &[]);
        pass.set_immediates(max - 4, &[0; 8]);
    }
    expect_validation(
        &c.device,
        |e| {
            pass_error(e).is_some_and(
                |p| matches!(p, PassError::ImmediatesOverrun { offset, .. } if *offset == max - 4),
            )
        },
        || enc.finish(),
    );

    // A device whose limit is below the shader's 32 bytes.
    let low = ctx_with(|a| DeviceDescriptor {
        required_features: a.features(),
        experimental_features: experimental_features(),
        required_limits: Limits {
            max_immediate_size: 16,
            ..a.limits()
        },
        ..Default::default()
    });
    let low_module = immediates_module(&low);
    expect_validation(
        &low.device,
        |e| {
            matches!(
                e,
                ValidationError::Pipeline(ComputePipelineError::ImmediateSizeLimit {
                    size: 32,
                    max: 16,
                    ..
                })
            )
        },
        || pipeline(&low, &low_module, None),
    );
}

/// Without `Features::IMMEDIATES` a `var<immediate>` is a shader error that
/// names the feature, and a layout with immediates an error, as in wgpu.
#[test]
fn immediates_need_the_feature() {
    let Some(c) = device_with(Some(Features::empty())) else {
        return;
    };
    let (_module, err) = validation_error(&c.device, || {
        c.device.create_shader_module(ShaderModuleDescriptor {
            label: Some("immediates.wgsl"),
            source: ShaderSource::Wgsl(Cow::Borrowed(SHADER)),
        })
    });
    let err = err.expect("a var<immediate> without Features::IMMEDIATES is an error");
    let Some(ValidationError::Shader(ShaderModuleError::Create {
        source: ShaderLoadError::Wgsl(WgslError::MissingFeatures { missing, .. }),
        ..
    })) = validation_source(&err)
    else {
        panic!("unexpected error: {err:?}");
    };
    assert_eq!(*missing, Features::IMMEDIATES);
    assert!(err.to_string().contains("IMMEDIATES"), "{err}");

    // A layout with immediates needs the feature too (and the limit).
    let limited = ctx_with(|a| DeviceDescriptor {
        required_features: Features::empty(),
        required_limits: a.limits(),
        ..Default::default()
    });
    expect_validation(
        &limited.device,
        |e| {
            matches!(
                e,
                ValidationError::PipelineLayout(PipelineLayoutError::ImmediatesNeedFeature {
                    size: 16,
                    ..
                })
            )
        },
        || {
            limited
                .device
                .create_pipeline_layout(&PipelineLayoutDescriptor {
                    label: None,
                    bind_group_layouts: &[],
                    immediate_size: 16,
                })
        },
    );
}

/// Immediates of other shapes: a matrix, an array indexed dynamically
/// (clamped like any array) and a trailing scalar, read in a helper.
#[test]
fn immediates_with_matrices_and_dynamic_indices() {
    let Some(c) = device_with(None) else { return };
    // Layout: m at 0 (2 columns of 8 bytes), table at 16 (2 x 16 bytes),
    // k at 48; 64 bytes with the struct rounded up to its 16-byte
    // alignment.
    let wgsl = "
struct Table { m: mat2x2<f32>, table: array<vec4<u32>, 2>, k: u32 }
var<immediate> t: Table;
@group(0) @binding(0) var<storage, read_write> out: array<f32>;

fn pick(i: u32) -> u32 {
    return t.table[i / 4u][i % 4u];
}

@compute @workgroup_size(16)
fn main(@builtin(local_invocation_index) i: u32) {
    let v = t.m * vec2<f32>(f32(i), 1.0);
    out[i] = v.x + v.y + f32(pick(i)) + f32(t.k);
}
";
    let module = expect_valid(&c.device, || {
        c.device.create_shader_module(ShaderModuleDescriptor {
            label: Some("table.wgsl"),
            source: ShaderSource::Wgsl(Cow::Borrowed(wgsl)),
        })
    });
    let p = expect_valid(&c.device, || {
        c.device
            .create_compute_pipeline(&ComputePipelineDescriptor {
                label: None,
                layout: None,
                module: &module,
                entry_point: None,
                compilation_options: Default::default(),
                cache: None,
            })
    });
    let m = [2.0f32, -1.0, 0.5, 3.0];
    let table: [u32; 8] = [10, 20, 30, 40, 50, 60, 70, 80];
    let k = 1000u32;
    let mut bytes: Vec<u8> = m.iter().flat_map(|v| v.to_le_bytes()).collect();
    bytes.extend(table.iter().flat_map(|v| v.to_le_bytes()));
    bytes.extend(k.to_le_bytes());
    bytes.resize(64, 0);
    let out = storage_init(&c.device, &[0; 16]);
    let bg = bind_group(&c.device, &p, 0, &[&out]);
    let mut enc = c.device.create_command_encoder(&Default::default());
    {
        let mut pass = enc.begin_compute_pass(&Default::default());
        pass.set_pipeline(&p);
        pass.set_bind_group(0, &bg, &[]);
        pass.set_immediates(0, &bytes);
        pass.dispatch_workgroups(1, 1, 1);
    }
    expect_valid(&c.device, || c.queue.submit([enc.finish()]));
    let want: Vec<f32> = (0..16)
        .map(|i| {
            let x = i as f32;
            let (v0, v1) = (m[0] * x + m[2], m[1] * x + m[3]);
            // Past the table's 8 entries the index clamps to the last.
            let entry = table[(i / 4).min(1) * 4 + i % 4];
            v0 + v1 + entry as f32 + k as f32
        })
        .collect();
    assert_eq!(read_f32(&c, &out), want);
}

/// A dispatch whose shader reads immediate bytes the pass never set is an
/// error naming the bytes (wgpu's `MissingImmediateData`); the padding
/// between `scale` and `bias` (bytes 8..16) is not needed.
#[test]
fn dispatches_need_the_immediates_the_shader_reads() {
    let Some(c) = device_with(None) else { return };
    let module = immediates_module(&c);
    let p = expect_valid(&c.device, || pipeline(&c, &module, None));
    let out = output(&c);
    let bg = bind_group(&c.device, &p, 0, &[&out]);
    let all = params_bytes(10, 1.0, [1.0; 4]);
    // (the (start, end) byte ranges written, the slots still missing)
    type Case = (&'static [(usize, usize)], u64);
    let cases: [Case; 4] = [
        (&[], 0b1111_0011),
        (&[(0, 8)], 0b1111_0000),
        (&[(0, 4), (16, 28)], 0b1000_0010),
        (&[(4, 8), (0, 4), (16, 32)], 0),
    ];
    for (writes, missing) in cases {
        let mut enc = c.device.create_command_encoder(&Default::default());
        {
            let mut pass = enc.begin_compute_pass(&Default::default());
            pass.set_pipeline(&p);
            pass.set_bind_group(0, &bg, &[]);
            for &(start, end) in writes {
                pass.set_immediates(start as u32, &all[start..end]);
            }
            pass.dispatch_workgroups(1, 1, 1);
        }
        if missing == 0 {
            expect_valid(&c.device, || c.queue.submit([enc.finish()]));
            assert_eq!(read_f32(&c, &out), expected(10, 1.0, [1.0; 4]));
            continue;
        }
        let (_, err) = validation_error(&c.device, || enc.finish());
        let err = err.expect("a dispatch with unset immediates is an error");
        let typed = validation_source(&err).and_then(dispatch_error);
        assert!(
            matches!(typed, Some(DispatchError::MissingImmediateData { missing: m }) if *m == missing),
            "{writes:?}: {err}"
        );
    }
    let (_, err) = validation_error(&c.device, || {
        let mut enc = c.device.create_command_encoder(&Default::default());
        {
            let mut pass = enc.begin_compute_pass(&Default::default());
            pass.set_pipeline(&p);
            pass.set_bind_group(0, &bg, &[]);
            pass.set_immediates(4, &all[4..8]);
            pass.dispatch_workgroups(1, 1, 1);
        }
        enc.finish()
    });
    let text = err.expect("unset immediates").to_string();
    assert!(text.contains("missing bytes: 0..4, 16..32"), "{text}");
}
