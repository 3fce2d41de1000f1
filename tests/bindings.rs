//! Binding model, after wgpu's GPU tests `bind_group_layout_dedup.rs`,
//! `pipeline.rs` (COMPUTE_PIPELINE_DEFAULT_LAYOUT_BAD_*), `buffer.rs`
//! (MINIMUM_BUFFER_BINDING_SIZE_*), dynamic offsets and WGSL shaders
//! precompiled by aqueduct-shaderc (reflection-driven bindings).

use aqueduct_test_harness::facade::*;

use std::borrow::Cow;

use aqueduct::*;

fn copy_module(c: &Ctx) -> ShaderModule {
    kernel_module(&c.device, "vector_copy", [64, 1, 1])
}

fn storage_entry(binding: u32, read_only: bool, dynamic: bool) -> BindGroupLayoutEntry {
    BindGroupLayoutEntry {
        binding,
        visibility: ShaderStages::COMPUTE,
        ty: BindingType::Buffer {
            ty: BufferBindingType::Storage { read_only },
            has_dynamic_offset: dynamic,
            min_binding_size: None,
        },
        count: None,
    }
}

fn explicit_pipeline(c: &Ctx, bgl: &BindGroupLayout, module: &ShaderModule) -> ComputePipeline {
    let layout = c.device.create_pipeline_layout(&PipelineLayoutDescriptor {
        label: None,
        bind_group_layouts: &[Some(bgl)],
        immediate_size: 4,
    });
    c.device
        .create_compute_pipeline(&ComputePipelineDescriptor {
            label: Some("explicit"),
            layout: Some(&layout),
            module,
            entry_point: None,
            compilation_options: Default::default(),
            cache: None,
        })
}

fn run_copy(
    c: &Ctx,
    p: &ComputePipeline,
    bg: &BindGroup,
    offsets: &[u32],
    n: u32,
) -> CommandBuffer {
    let mut enc = c.device.create_command_encoder(&Default::default());
    {
        let mut pass = enc.begin_compute_pass(&Default::default());
        pass.set_pipeline(p);
        pass.set_bind_group(0, bg, offsets);
        pass.set_immediates(0, &n.to_le_bytes());
        pass.dispatch_workgroups(n.div_ceil(64), 1, 1);
    }
    enc.finish()
}

#[test]
fn equal_explicit_layouts_are_interchangeable() {
    let c = ctx();
    let entries = [
        storage_entry(0, true, false),
        storage_entry(1, false, false),
    ];
    let bgl_a = c
        .device
        .create_bind_group_layout(&BindGroupLayoutDescriptor {
            label: Some("a"),
            entries: &entries,
        });
    let bgl_b = c
        .device
        .create_bind_group_layout(&BindGroupLayoutDescriptor {
            label: Some("b"),
            entries: &entries,
        });
    let p = explicit_pipeline(&c, &bgl_a, &copy_module(&c));
    let src = storage_init(&c.device, &[4, 5, 6, 7]);
    let dst = storage(&c.device, 16);
    // A bind group made with the other (equal) layout works.
    let bg = c.device.create_bind_group(&BindGroupDescriptor {
        label: None,
        layout: &bgl_b,
        entries: &[
            BindGroupEntry {
                binding: 0,
                resource: src.as_entire_binding(),
            },
            BindGroupEntry {
                binding: 1,
                resource: dst.as_entire_binding(),
            },
        ],
    });
    let cb = expect_valid(&c.device, || run_copy(&c, &p, &bg, &[], 4));
    c.queue.submit([cb]);
    assert_eq!(read_words(&c, &dst), vec![4, 5, 6, 7]);
}

#[test]
fn derived_layouts_belong_to_their_pipeline() {
    let c = ctx();
    let module = copy_module(&c);
    let p1 = auto_pipeline(&c.device, &module, "vector_copy");
    let p2 = auto_pipeline(&c.device, &module, "vector_copy");
    let src = storage_init(&c.device, &[1, 2]);
    let dst = storage(&c.device, 8);
    let bg1 = bind_group(&c.device, &p1, 0, &[&src, &dst]);
    // p1's layout with p1: fine. With p2: incompatible even though equal.
    expect_valid(&c.device, || run_copy(&c, &p1, &bg1, &[], 2));
    let mut enc = c.device.create_command_encoder(&Default::default());
    {
        let mut pass = enc.begin_compute_pass(&Default::default());
        pass.set_pipeline(&p2);
        pass.set_bind_group(0, &bg1, &[]);
        pass.dispatch_workgroups(1, 1, 1);
    }
    expect_validation(
        &c.device,
        |e| {
            matches!(
                dispatch_error(e),
                Some(DispatchError::IncompatibleBindGroup { index: 0, .. })
            )
        },
        || enc.finish(),
    );
    // The derived layout has the shader's bindings: read-only src, writable dst.
    let l = p1.get_bind_group_layout(0);
    assert_eq!(
        l,
        p1.get_bind_group_layout(0),
        "the same layout object each time"
    );
    expect_validation(
        &c.device,
        |e| {
            matches!(
                e,
                ValidationError::Pipeline(ComputePipelineError::BindGroupLayoutIndex {
                    index: 1,
                    count: 1,
                    ..
                })
            )
        },
        || p1.get_bind_group_layout(1),
    );
}

#[test]
fn bad_module_makes_an_invalid_pipeline() {
    let c = ctx();
    let module = expect_validation(
        &c.device,
        |e| {
            matches!(
                e,
                ValidationError::Shader(ShaderModuleError::Create { label: Some(l), source: ShaderLoadError::Load { .. } }) if l == "garbage"
            )
        },
        || {
            c.device.create_shader_module(ShaderModuleDescriptor {
                label: Some("garbage"),
                source: ShaderSource::CodeObject {
                    code: Cow::Borrowed(&[0x7f, b'E', b'L', b'F', 1, 2, 3]),
                    workgroup_size: None,
                },
            })
        },
    );
    let p = expect_validation(
        &c.device,
        |e| {
            matches!(
                e,
                ValidationError::Pipeline(ComputePipelineError::InvalidModule { .. })
            )
        },
        || auto_pipeline(&c.device, &module, "x"),
    );
    expect_validation(
        &c.device,
        |e| {
            matches!(
                e,
                ValidationError::Pipeline(ComputePipelineError::BindGroupLayoutIndex {
                    index: 0,
                    count: 0,
                    pipeline_valid: false,
                    ..
                })
            )
        },
        || p.get_bind_group_layout(0),
    );
    let m = copy_module(&c);
    expect_validation(
        &c.device,
        |e| {
            matches!(
                e,
                ValidationError::Pipeline(ComputePipelineError::EntryPoint { source: EntryPointError::NotFound { name, .. }, .. }) if name == "nope"
            )
        },
        || auto_pipeline(&c.device, &m, "nope"),
    );
    // The compiler's diagnostic names the file and line: the text is the point.
    expect_validation(
        &c.device,
        |e| {
            matches!(e, ValidationError::Shader(ShaderModuleError::Create { .. }))
                && e.to_string().contains("broken.wgsl:1:")
        },
        || {
            c.device.create_shader_module(ShaderModuleDescriptor {
                label: Some("broken.wgsl"),
                source: ShaderSource::Wgsl(Cow::Borrowed(
                    "@compute @workgroup_size(1) fn main( {}",
                )),
            })
        },
    );
    expect_validation(
        &c.device,
        |e| {
            matches!(
                e,
                ValidationError::Pipeline(ComputePipelineError::ConstantsOnCodeObject { .. })
            )
        },
        || {
            c.device
                .create_compute_pipeline(&ComputePipelineDescriptor {
                    label: None,
                    layout: None,
                    module: &m,
                    entry_point: None,
                    compilation_options: PipelineCompilationOptions {
                        constants: &[("n", 3.0)],
                        ..Default::default()
                    },
                    cache: None,
                })
        },
    );
}

#[test]
fn bind_group_entry_validation() {
    let c = ctx();
    let bgl = c
        .device
        .create_bind_group_layout(&BindGroupLayoutDescriptor {
            label: None,
            entries: &[BindGroupLayoutEntry {
                binding: 0,
                visibility: ShaderStages::COMPUTE,
                ty: BindingType::Buffer {
                    ty: BufferBindingType::Storage { read_only: false },
                    has_dynamic_offset: false,
                    min_binding_size: BufferSize::new(16),
                },
                count: None,
            }],
        });
    let good = storage(&c.device, 1024);
    let uniform_only = c.device.create_buffer(&BufferDescriptor {
        label: Some("u"),
        size: 1024,
        usage: BufferUsages::UNIFORM,
        mapped_at_creation: false,
    });
    let make = |buffer: &Buffer, offset: u64, size: Option<u64>| {
        c.device.create_bind_group(&BindGroupDescriptor {
            label: None,
            layout: &bgl,
            entries: &[BindGroupEntry {
                binding: 0,
                resource: BindingResource::Buffer(BufferBinding {
                    buffer,
                    offset,
                    size: size.and_then(BufferSize::new),
                }),
            }],
        })
    };
    expect_valid(&c.device, || make(&good, 256, Some(64)));
    expect_validation(
        &c.device,
        |e| matches!(e, ValidationError::BindGroup(BindGroupError::MissingUsage { binding: 0, needed, .. }) if *needed == BufferUsages::STORAGE),
        || make(&uniform_only, 0, None),
    );
    expect_validation(
        &c.device,
        |e| {
            matches!(
                e,
                ValidationError::BindGroup(BindGroupError::UnalignedOffset {
                    offset: 4,
                    alignment: 256,
                    ..
                })
            )
        },
        || make(&good, 4, Some(16)),
    );
    expect_validation(
        &c.device,
        |e| {
            matches!(
                e,
                ValidationError::BindGroup(BindGroupError::BelowMinBindingSize { size: 8, .. })
            )
        },
        || make(&good, 0, Some(8)),
    );
    expect_validation(
        &c.device,
        |e| {
            matches!(
                e,
                ValidationError::BindGroup(BindGroupError::Overrun {
                    offset: 768,
                    end: 1280,
                    ..
                })
            )
        },
        || make(&good, 768, Some(512)),
    );
    // A size whose end does not fit in u64 is an overrun, not an overflow.
    expect_validation(
        &c.device,
        |e| {
            matches!(
                e,
                ValidationError::BindGroup(BindGroupError::Overrun { offset: 768, end, .. })
                    if *end == 768 + (u64::MAX - 255) as u128
            )
        },
        || make(&good, 768, Some(u64::MAX - 255)),
    );
    expect_validation(
        &c.device,
        |e| {
            matches!(
                e,
                ValidationError::BindGroup(BindGroupError::EntryCount {
                    given: 0,
                    expected: 1,
                    ..
                })
            )
        },
        || {
            c.device.create_bind_group(&BindGroupDescriptor {
                label: None,
                layout: &bgl,
                entries: &[],
            })
        },
    );
    expect_validation(
        &c.device,
        |e| {
            matches!(
                e,
                ValidationError::BindGroupLayout(BindGroupLayoutError::DuplicateBinding {
                    binding: 1,
                    ..
                })
            )
        },
        || {
            c.device
                .create_bind_group_layout(&BindGroupLayoutDescriptor {
                    label: None,
                    entries: &[
                        storage_entry(1, true, false),
                        storage_entry(1, false, false),
                    ],
                })
        },
    );
}

#[test]
fn dynamic_offsets_select_the_bound_range() {
    let c = ctx();
    let entries = [storage_entry(0, true, true), storage_entry(1, false, false)];
    let bgl = c
        .device
        .create_bind_group_layout(&BindGroupLayoutDescriptor {
            label: None,
            entries: &entries,
        });
    let p = explicit_pipeline(&c, &bgl, &copy_module(&c));
    let src = storage_init(&c.device, &(0..256).collect::<Vec<u32>>()); // 1 KiB
    let dst = storage(&c.device, 64);
    let bg = c.device.create_bind_group(&BindGroupDescriptor {
        label: None,
        layout: &bgl,
        entries: &[
            BindGroupEntry {
                binding: 0,
                resource: BindingResource::Buffer(BufferBinding {
                    buffer: &src,
                    offset: 0,
                    size: BufferSize::new(64),
                }),
            },
            BindGroupEntry {
                binding: 1,
                resource: dst.as_entire_binding(),
            },
        ],
    });
    for offset in [0u32, 256, 768] {
        c.queue.submit([run_copy(&c, &p, &bg, &[offset], 16)]);
        let first = offset / 4;
        assert_eq!(
            read_words(&c, &dst),
            (first..first + 16).collect::<Vec<_>>(),
            "offset {offset}"
        );
    }
    let mut enc = c.device.create_command_encoder(&Default::default());
    {
        let mut pass = enc.begin_compute_pass(&Default::default());
        pass.set_bind_group(0, &bg, &[128]);
    }
    expect_validation(
        &c.device,
        |e| {
            matches!(
                pass_error(e),
                Some(PassError::UnalignedDynamicOffset {
                    offset: 128,
                    alignment: 256,
                    ..
                })
            )
        },
        || enc.finish(),
    );
    let past_end: fn(&ValidationError) -> bool = |e| {
        matches!(
            pass_error(e),
            Some(PassError::DynamicOffsetOverrun { offset: 1024, .. })
        )
    };
    let count: fn(&ValidationError) -> bool = |e| {
        matches!(
            pass_error(e),
            Some(PassError::DynamicOffsetCount {
                given: 0,
                expected: 1,
                ..
            })
        )
    };
    for (offsets, expected) in [(&[1024u32][..], past_end), (&[][..], count)] {
        let mut enc = c.device.create_command_encoder(&Default::default());
        {
            let mut pass = enc.begin_compute_pass(&Default::default());
            pass.set_bind_group(0, &bg, offsets);
        }
        expect_validation(&c.device, expected, || enc.finish());
    }
}

/// Dispatches of one pipeline and grid that differ only in their bind
/// group, dynamic offset or immediates each read and write their own
/// ranges (each starts from the previous one's kernarg bytes).
#[test]
fn consecutive_dispatches_bind_their_own_groups() {
    let c = ctx();
    let entries = [storage_entry(0, true, true), storage_entry(1, false, false)];
    let bgl = c
        .device
        .create_bind_group_layout(&BindGroupLayoutDescriptor {
            label: None,
            entries: &entries,
        });
    let p = explicit_pipeline(&c, &bgl, &copy_module(&c));
    let src = storage_init(&c.device, &(0..256).collect::<Vec<u32>>()); // 1 KiB
    let dsts: Vec<Buffer> = (0..4).map(|_| storage(&c.device, 64)).collect();
    let groups: Vec<BindGroup> = dsts
        .iter()
        .map(|dst| {
            c.device.create_bind_group(&BindGroupDescriptor {
                label: None,
                layout: &bgl,
                entries: &[
                    BindGroupEntry {
                        binding: 0,
                        resource: BindingResource::Buffer(BufferBinding {
                            buffer: &src,
                            offset: 0,
                            size: BufferSize::new(64),
                        }),
                    },
                    BindGroupEntry {
                        binding: 1,
                        resource: dst.as_entire_binding(),
                    },
                ],
            })
        })
        .collect();
    let mut enc = c.device.create_command_encoder(&Default::default());
    {
        let mut pass = enc.begin_compute_pass(&Default::default());
        pass.set_pipeline(&p);
        pass.set_immediates(0, &16u32.to_le_bytes());
        for (i, g) in groups.iter().enumerate() {
            if i == 3 {
                pass.set_immediates(0, &8u32.to_le_bytes());
            }
            pass.set_bind_group(0, g, &[256 * i as u32]);
            pass.dispatch_workgroups(1, 1, 1);
        }
    }
    c.queue.submit([enc.finish()]);
    for (i, dst) in dsts.iter().enumerate() {
        let first = 64 * i as u32;
        let n = if i == 3 { 8 } else { 16 };
        let mut expected: Vec<u32> = (first..first + n).collect();
        expected.resize(16, 0);
        assert_eq!(read_words(&c, dst), expected, "dispatch {i}");
    }
}

#[test]
fn a_writable_binding_may_not_alias_another() {
    let c = ctx();
    let p = auto_pipeline(&c.device, &copy_module(&c), "vector_copy");
    let buf = storage(&c.device, 64);
    let bg = bind_group(&c.device, &p, 0, &[&buf, &buf]);
    let mut enc = c.device.create_command_encoder(&Default::default());
    {
        let mut pass = enc.begin_compute_pass(&Default::default());
        pass.set_pipeline(&p);
        pass.set_bind_group(0, &bg, &[]);
        pass.dispatch_workgroups(1, 1, 1);
    }
    expect_validation(
        &c.device,
        |e| {
            matches!(
                dispatch_error(e),
                Some(DispatchError::WritableAlias { buffer }) if buffer.size == 64
            )
        },
        || enc.finish(),
    );
}

fn wgsl(c: &Ctx, name: &str) -> ShaderModule {
    let dir = format!("{}/shaders/tests/{}", env!("CARGO_MANIFEST_DIR"), target());
    let code = std::fs::read(format!("{dir}/{name}.co")).expect("code object");
    let reflection =
        std::fs::read_to_string(format!("{dir}/{name}.reflect.json")).expect("reflection");
    c.device.create_shader_module(ShaderModuleDescriptor {
        label: Some(name),
        source: ShaderSource::Precompiled {
            code: Cow::Owned(code),
            reflection: Cow::Owned(reflection),
        },
    })
}

#[test]
fn precompiled_wgsl_runtime_array_sizes_and_exact_binding_types() {
    let c = ctx();
    let m = wgsl(&c, "copy_u32");
    let p = auto_pipeline(&c.device, &m, "main");
    let n = 300u32;
    let src = storage_init(&c.device, &(0..n).map(|i| i * 5).collect::<Vec<_>>());
    let dst = storage(&c.device, n as u64 * 4);
    let bg = bind_group(&c.device, &p, 0, &[&src, &dst]);
    let mut enc = c.device.create_command_encoder(&Default::default());
    {
        let mut pass = enc.begin_compute_pass(&Default::default());
        pass.set_pipeline(&p);
        pass.set_bind_group(0, &bg, &[]);
        pass.dispatch_workgroups(n.div_ceil(64), 1, 1);
    }
    c.queue.submit([enc.finish()]);
    // copy_u32.wgsl: dst[i] = src[i] * 3 + i, bounded by arrayLength(&dst).
    assert_eq!(
        read_words(&c, &dst),
        (0..n).map(|i| i * 5 * 3 + i).collect::<Vec<_>>()
    );
    // An explicit layout whose types differ from the shader's is rejected.
    let wrong = c
        .device
        .create_bind_group_layout(&BindGroupLayoutDescriptor {
            label: Some("wrong"),
            entries: &[
                storage_entry(0, false, false),
                storage_entry(1, false, false),
            ],
        });
    expect_validation(
        &c.device,
        |e| {
            matches!(
                e,
                ValidationError::Pipeline(ComputePipelineError::BindingMismatch {
                    source: LayoutMismatch::Type { .. },
                    ..
                })
            )
        },
        || explicit_pipeline(&c, &wrong, &m),
    );
}

#[test]
fn precompiled_wgsl_workgroup_reduction() {
    let c = ctx();
    let p = auto_pipeline(&c.device, &wgsl(&c, "workgroup_reduce"), "main");
    let groups = 4u32;
    let data: Vec<u32> = (0..groups * 128).map(|i| i * 3 + 1).collect();
    let input = storage_init(&c.device, &data);
    let sums = storage(&c.device, groups as u64 * 4);
    let bg = bind_group(&c.device, &p, 0, &[&input, &sums]);
    let mut enc = c.device.create_command_encoder(&Default::default());
    {
        let mut pass = enc.begin_compute_pass(&Default::default());
        pass.set_pipeline(&p);
        pass.set_bind_group(0, &bg, &[]);
        pass.dispatch_workgroups(groups, 1, 1);
    }
    c.queue.submit([enc.finish()]);
    let want: Vec<u32> = data.chunks(128).map(|ch| ch.iter().sum()).collect();
    assert_eq!(read_words(&c, &sums), want);
}

/// A layout entry of `ty` visible to `visibility`.
fn entry_of(binding: u32, visibility: ShaderStages, ty: BindingType) -> BindGroupLayoutEntry {
    BindGroupLayoutEntry {
        binding,
        visibility,
        ty,
        count: None,
    }
}

/// WebGPU's binding slot limits, one row per counted kind: a layout with
/// exactly the limit's number of bindings is valid, one more is a
/// `TooManyBindings` error naming the kind, the count and the limit (at
/// layout creation for one layout, at pipeline layout creation for groups
/// that only exceed it together).
#[test]
fn binding_counts_stop_at_each_limit() {
    use aqueduct::binding_limits::BindingCountKind as K;
    let c = ctx();
    let limits = c.device.limits();
    let compute = ShaderStages::COMPUTE;
    let uniform = |dynamic| BindingType::Buffer {
        ty: BufferBindingType::Uniform,
        has_dynamic_offset: dynamic,
        min_binding_size: None,
    };
    let storage = |dynamic| BindingType::Buffer {
        ty: BufferBindingType::Storage { read_only: false },
        has_dynamic_offset: dynamic,
        min_binding_size: None,
    };
    let rows: [(K, u32, BindingType); 7] = [
        (
            K::StorageBuffers,
            limits.max_storage_buffers_per_shader_stage,
            storage(false),
        ),
        (
            K::UniformBuffers,
            limits.max_uniform_buffers_per_shader_stage,
            uniform(false),
        ),
        (
            K::Samplers,
            limits.max_samplers_per_shader_stage,
            BindingType::Sampler(SamplerBindingType::Filtering),
        ),
        (
            K::SampledTextures,
            limits.max_sampled_textures_per_shader_stage,
            BindingType::Texture {
                sample_type: TextureSampleType::Float { filterable: true },
                view_dimension: TextureViewDimension::D2,
                multisampled: false,
            },
        ),
        (
            K::StorageTextures,
            limits.max_storage_textures_per_shader_stage,
            BindingType::StorageTexture {
                access: StorageTextureAccess::WriteOnly,
                format: TextureFormat::R32Float,
                view_dimension: TextureViewDimension::D2,
            },
        ),
        (
            K::DynamicStorageBuffers,
            limits.max_dynamic_storage_buffers_per_pipeline_layout,
            storage(true),
        ),
        (
            K::DynamicUniformBuffers,
            limits.max_dynamic_uniform_buffers_per_pipeline_layout,
            uniform(true),
        ),
    ];
    for (kind, limit, ty) in rows {
        let entries = |n: u32, first: u32| -> Vec<BindGroupLayoutEntry> {
            (first..first + n)
                .map(|b| entry_of(b, compute, ty))
                .collect()
        };
        let layout = |entries: &[BindGroupLayoutEntry]| {
            c.device
                .create_bind_group_layout(&BindGroupLayoutDescriptor {
                    label: Some("counted"),
                    entries,
                })
        };
        let (_, err) = validation_error(&c.device, || layout(&entries(limit, 0)));
        assert!(err.is_none(), "{kind:?} at its limit {limit}: {err:?}");
        expect_validation(
            &c.device,
            |e| {
                matches!(e, ValidationError::BindGroupLayout(
                    BindGroupLayoutError::TooManyBindings { source, .. })
                    if source.kind == kind && source.count == limit + 1 && source.limit == limit)
            },
            || layout(&entries(limit + 1, 0)),
        );
        // Two groups within the limit apart, past it together.
        let half = limit / 2 + 1;
        let a = layout(&entries(half, 0));
        let b = layout(&entries(half, 0));
        let per_stage = !matches!(kind, K::DynamicStorageBuffers | K::DynamicUniformBuffers);
        expect_validation(
            &c.device,
            |e| {
                matches!(e, ValidationError::PipelineLayout(
                    PipelineLayoutError::TooManyBindings { source, .. })
                    if source.kind == kind
                        && source.count == 2 * half
                        && source.stages == per_stage.then_some(compute))
            },
            || {
                c.device.create_pipeline_layout(&PipelineLayoutDescriptor {
                    label: None,
                    bind_group_layouts: &[Some(&a), Some(&b)],
                    immediate_size: 0,
                })
            },
        );
    }
}

/// Bindings visible to other stages count against those stages, not
/// compute: a layout at the storage-buffer limit for compute may add
/// fragment-only storage buffers.
#[test]
fn binding_counts_are_per_stage() {
    let c = ctx();
    let limit = c.device.limits().max_storage_buffers_per_shader_stage;
    let mut entries: Vec<_> = (0..limit).map(|b| storage_entry(b, false, false)).collect();
    entries.push(BindGroupLayoutEntry {
        visibility: ShaderStages::FRAGMENT,
        ..storage_entry(limit, false, false)
    });
    let (_, err) = validation_error(&c.device, || {
        c.device
            .create_bind_group_layout(&BindGroupLayoutDescriptor {
                label: None,
                entries: &entries,
            })
    });
    assert!(err.is_none(), "{err:?}");
}

/// An auto layout counts the shader's bindings as a pipeline layout would:
/// vector_copy binds two storage buffers, one past a limit of one.
#[test]
fn an_auto_layout_past_a_binding_limit_is_a_pipeline_error() {
    let c = ctx_with(|a| DeviceDescriptor {
        required_features: a.features(),
        experimental_features: experimental_features(),
        required_limits: Limits {
            max_storage_buffers_per_shader_stage: 1,
            ..a.limits()
        },
        ..Default::default()
    });
    let module = copy_module(&c);
    expect_validation(
        &c.device,
        |e| {
            matches!(e, ValidationError::Pipeline(
                ComputePipelineError::TooManyBindings { source, .. })
                if source.count == 2 && source.limit == 1)
        },
        || auto_pipeline(&c.device, &module, "vector_copy"),
    );
}
