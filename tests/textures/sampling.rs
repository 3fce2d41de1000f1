//! Samplers through the facade: WGSL kernels sample (`textureSampleLevel`)
//! and gather (`textureGather`) rgba32float and r32float textures with
//! nearest and linear filters and each address mode, checked against a
//! host model of WebGPU's filtering (coordinates on quarter texels, where
//! gfxsim's 8-bit linear weights are exact); and the sampler rules of
//! `create_sampler`, bind groups and pipelines as typed errors. Comparison
//! sampling of depth textures is in `depth.rs`.

use super::*;

pub(super) const W: u32 = 4;
pub(super) const H: u32 = 2;

/// rgba32float texel (x, y): small integers, so quarter-weight blends are
/// exact in f32.
fn rgba_texel(x: u32, y: u32) -> [f32; 4] {
    let (x, y) = (x as f32, y as f32);
    [
        x + 4.0 * y,
        10.0 * x + 100.0 * y + 1.0,
        20.0 * y - x,
        1.0 + x * y,
    ]
}

fn r_texel(x: u32, y: u32) -> [f32; 4] {
    [(3 * x + 5 * y) as f32 - 4.0, 0.0, 0.0, 1.0]
}

/// The coordinate set: quarter texels from outside the left/top edge to
/// past the right/bottom one, so every address mode wraps.
pub(super) fn coords() -> Vec<[f32; 2]> {
    (0..64)
        .map(|i: i32| {
            let kx = (i * 7) % 41 - 12;
            let ky = (i * 11) % 23 - 6;
            [kx as f32 / (4.0 * W as f32), ky as f32 / (4.0 * H as f32)]
        })
        .collect()
}

/// The texel index `i` lands on along an axis of `size` texels (WebGPU's
/// address modes, Vulkan's "Wrapping Operation"); None: the border.
pub(super) fn wrap(mode: AddressMode, i: i64, size: u32) -> Option<u32> {
    let n = i64::from(size);
    match mode {
        AddressMode::Repeat => Some(i.rem_euclid(n) as u32),
        AddressMode::MirrorRepeat => {
            let m = i.rem_euclid(2 * n);
            Some(if m < n { m } else { 2 * n - 1 - m } as u32)
        }
        AddressMode::ClampToEdge => Some(i.clamp(0, n - 1) as u32),
        AddressMode::ClampToBorder => (0..n).contains(&i).then_some(i as u32),
    }
}

/// One axis's taps: (index, weight) for nearest (floor(u)) or linear
/// (floor(u - 0.5) and the next, the fraction exact on quarter texels).
pub(super) fn taps(u: f64, filter: FilterMode) -> Vec<(i64, f64)> {
    match filter {
        FilterMode::Nearest => vec![(u.floor() as i64, 1.0)],
        FilterMode::Linear => {
            let t = u - 0.5;
            let i0 = t.floor();
            let f = t - i0;
            vec![(i0 as i64, 1.0 - f), (i0 as i64 + 1, f)]
        }
    }
}

/// A texture's contents: texel (x, y) as four components.
pub(super) type TexelFn = dyn Fn(u32, u32) -> [f32; 4];

pub(super) struct Model<'a> {
    pub(super) texel: &'a TexelFn,
    pub(super) mode: AddressMode,
    pub(super) filter: FilterMode,
    pub(super) border: [f32; 4],
}

impl Model<'_> {
    fn fetch(&self, i: i64, j: i64) -> [f32; 4] {
        match (wrap(self.mode, i, W), wrap(self.mode, j, H)) {
            (Some(x), Some(y)) => (self.texel)(x, y),
            _ => self.border,
        }
    }

    pub(super) fn sample(&self, c: [f32; 2]) -> [f32; 4] {
        let (u, v) = (
            f64::from(c[0]) * f64::from(W),
            f64::from(c[1]) * f64::from(H),
        );
        let mut out = [0f64; 4];
        for (j, wy) in taps(v, self.filter) {
            for &(i, wx) in &taps(u, self.filter) {
                let t = self.fetch(i, j);
                for k in 0..4 {
                    out[k] += wx * wy * f64::from(t[k]);
                }
            }
        }
        out.map(|v| v as f32)
    }

    /// `textureGather(component, ...)`: the bilinear footprint's texels in
    /// WGSL's order (i0, j1), (i1, j1), (i1, j0), (i0, j0).
    pub(super) fn gather(&self, c: [f32; 2], component: usize) -> [f32; 4] {
        let (u, v) = (
            f64::from(c[0]) * f64::from(W),
            f64::from(c[1]) * f64::from(H),
        );
        let i0 = (u - 0.5).floor() as i64;
        let j0 = (v - 0.5).floor() as i64;
        [(i0, j0 + 1), (i0 + 1, j0 + 1), (i0 + 1, j0), (i0, j0)]
            .map(|(i, j)| self.fetch(i, j)[component])
    }
}

const SHADER: &str = "@group(0) @binding(0) var t: texture_2d<f32>;
@group(0) @binding(1) var s: sampler;
@group(0) @binding(2) var<storage, read> coords: array<vec2<f32>>;
@group(0) @binding(3) var<storage, read_write> out: array<vec4<f32>>;
@compute @workgroup_size(64)
fn sample(@builtin(global_invocation_id) id: vec3<u32>) {
    if (id.x >= arrayLength(&coords)) { return; }
    out[id.x] = textureSampleLevel(t, s, coords[id.x], 0.0);
}
@compute @workgroup_size(64)
fn gather(@builtin(global_invocation_id) id: vec3<u32>) {
    if (id.x >= arrayLength(&coords)) { return; }
    out[id.x] = textureGather(1, t, s, coords[id.x]);
}";

fn sampler(
    c: &Ctx,
    mode: AddressMode,
    filter: FilterMode,
    border: Option<SamplerBorderColor>,
) -> Sampler {
    expect_valid(&c.device, || {
        c.device.create_sampler(&SamplerDescriptor {
            label: Some("s"),
            address_mode_u: mode,
            address_mode_v: mode,
            address_mode_w: mode,
            mag_filter: filter,
            min_filter: filter,
            border_color: border,
            ..Default::default()
        })
    })
}

fn filled(
    c: &Ctx,
    format: TextureFormat,
    texel: &dyn Fn(u32, u32) -> [f32; 4],
    comps: usize,
) -> Texture {
    let t = texture(c, TextureDimension::D2, format, [W, H, 1], ALL_USAGES);
    let mut data = Vec::new();
    for y in 0..H {
        for x in 0..W {
            data.extend_from_slice(&texel(x, y)[..comps]);
        }
    }
    write_all(c, &t, bytemuck::cast_slice(&data), 4 * comps as u32);
    t
}

/// Run `p` over `coords` with `view` and `sampler`; the vec4 results.
fn run(
    c: &Ctx,
    p: &ComputePipeline,
    view: &TextureView,
    s: &Sampler,
    coords: &[[f32; 2]],
) -> Vec<[f32; 4]> {
    run_inputs(c, p, view, s, bytemuck::cast_slice(coords), coords.len())
}

/// Run `p` once with `view` at binding 0, `s` at 1, a storage buffer of
/// `inputs` at 2 and one of `results` vec4s at 3; the vec4s it wrote.
pub(super) fn run_inputs(
    c: &Ctx,
    p: &ComputePipeline,
    view: &TextureView,
    s: &Sampler,
    inputs: &[u8],
    results: usize,
) -> Vec<[f32; 4]> {
    let input = c
        .device
        .create_buffer_init(&aqueduct::util::BufferInitDescriptor {
            label: None,
            contents: inputs,
            usage: BufferUsages::STORAGE,
        });
    let out = storage(&c.device, results as u64 * 16);
    dispatch(
        c,
        p,
        &[
            BindGroupEntry {
                binding: 0,
                resource: BindingResource::TextureView(view),
            },
            BindGroupEntry {
                binding: 1,
                resource: BindingResource::Sampler(s),
            },
            BindGroupEntry {
                binding: 2,
                resource: input.as_entire_binding(),
            },
            BindGroupEntry {
                binding: 3,
                resource: out.as_entire_binding(),
            },
        ],
        [1, 1, 1],
    );
    let words = read_words(c, &out);
    let floats: &[f32] = bytemuck::cast_slice(&words);
    floats
        .chunks_exact(4)
        .map(|v| [v[0], v[1], v[2], v[3]])
        .collect()
}

pub(super) fn pipeline_of(c: &Ctx, module: &ShaderModule, entry: &str) -> ComputePipeline {
    expect_valid(&c.device, || auto_pipeline(&c.device, module, entry))
}

#[test]
fn sampling_and_gathers_match_the_host_model() {
    if !texture_shaders("sampling_and_gathers_match_the_host_model") {
        return;
    }
    let c = ctx();
    let module = expect_valid(&c.device, || {
        c.device.create_shader_module(ShaderModuleDescriptor {
            label: Some("sampling"),
            source: ShaderSource::Wgsl(Cow::Borrowed(SHADER)),
        })
    });
    let sample = pipeline_of(&c, &module, "sample");
    let gather = pipeline_of(&c, &module, "gather");
    let rgba = filled(&c, TextureFormat::Rgba32Float, &rgba_texel, 4);
    let r = filled(&c, TextureFormat::R32Float, &r_texel, 1);
    let (rgba_view, r_view) = (
        rgba.create_view(&Default::default()),
        r.create_view(&Default::default()),
    );
    let coords = coords();
    let modes = [
        AddressMode::Repeat,
        AddressMode::MirrorRepeat,
        AddressMode::ClampToEdge,
        AddressMode::ClampToBorder,
    ];
    for mode in modes {
        for filter in [FilterMode::Nearest, FilterMode::Linear] {
            let s = sampler(&c, mode, filter, Some(SamplerBorderColor::OpaqueWhite));
            let cases: [(&TextureView, &TexelFn, &str); 2] = [
                (&rgba_view, &rgba_texel, "rgba32float"),
                (&r_view, &r_texel, "r32float"),
            ];
            for (view, texel, name) in cases {
                let model = Model {
                    texel,
                    mode,
                    filter,
                    border: [1.0; 4],
                };
                let got = run(&c, &sample, view, &s, &coords);
                for (k, &co) in coords.iter().enumerate() {
                    assert_eq!(
                        got[k],
                        model.sample(co),
                        "{name} {mode:?} {filter:?} at {co:?}"
                    );
                }
            }
            if filter == FilterMode::Nearest {
                // Gathers ignore the filters: one run per address mode.
                let model = Model {
                    texel: &rgba_texel,
                    mode,
                    filter,
                    border: [1.0; 4],
                };
                let got = run(&c, &gather, &rgba_view, &s, &coords);
                for (k, &co) in coords.iter().enumerate() {
                    assert_eq!(got[k], model.gather(co, 1), "gather {mode:?} at {co:?}");
                }
            }
        }
    }

    // wgpu-core's filtering rule: a Filtering sampler entry with an
    // unfilterable-float texture entry the entry point samples with it.
    let bgl = c
        .device
        .create_bind_group_layout(&BindGroupLayoutDescriptor {
            label: None,
            entries: &[
                layout_entry(
                    0,
                    BindingType::Texture {
                        sample_type: TextureSampleType::Float { filterable: false },
                        view_dimension: TextureViewDimension::D2,
                        multisampled: false,
                    },
                ),
                layout_entry(1, BindingType::Sampler(SamplerBindingType::Filtering)),
                layout_entry(2, storage_buffer(true)),
                layout_entry(3, storage_buffer(false)),
            ],
        });
    let pl = c.device.create_pipeline_layout(&PipelineLayoutDescriptor {
        label: None,
        bind_group_layouts: &[Some(&bgl)],
        immediate_size: 0,
    });
    expect_validation(
        &c.device,
        |e| {
            matches!(
                e,
                ValidationError::Pipeline(ComputePipelineError::Filtering {
                    texture: [0, 0],
                    sampler: [0, 1],
                    sample_type: TextureSampleType::Float { filterable: false },
                    ..
                })
            )
        },
        || {
            c.device
                .create_compute_pipeline(&ComputePipelineDescriptor {
                    label: None,
                    layout: Some(&pl),
                    module: &module,
                    entry_point: Some("sample"),
                    compilation_options: Default::default(),
                    cache: None,
                })
        },
    );
}

pub(super) fn storage_buffer(read_only: bool) -> BindingType {
    BindingType::Buffer {
        ty: BufferBindingType::Storage { read_only },
        has_dynamic_offset: false,
        min_binding_size: None,
    }
}

fn sampler_err(e: &ValidationError) -> Option<&CreateSamplerError> {
    match e {
        ValidationError::Sampler(SamplerError::Create { source, .. }) => Some(source),
        _ => None,
    }
}

pub(super) fn sampler_bind_err(e: &ValidationError) -> Option<&SamplerBindingError> {
    match e {
        ValidationError::BindGroup(BindGroupError::Sampler { source, .. }) => Some(source),
        _ => None,
    }
}

#[test]
fn sampler_rules_are_validated() {
    let c = ctx();
    let create = |desc: SamplerDescriptor<'static>| c.device.create_sampler(&desc);
    expect_validation(
        &c.device,
        |e| {
            matches!(
                sampler_err(e),
                Some(CreateSamplerError::Anisotropy { clamp: 4 })
            )
        },
        || {
            create(SamplerDescriptor {
                anisotropy_clamp: 4,
                ..Default::default()
            })
        },
    );
    expect_validation(
        &c.device,
        |e| matches!(sampler_err(e), Some(CreateSamplerError::ZeroAnisotropy)),
        || {
            create(SamplerDescriptor {
                anisotropy_clamp: 0,
                ..Default::default()
            })
        },
    );
    expect_validation(
        &c.device,
        |e| matches!(sampler_err(e), Some(CreateSamplerError::LodMinClamp { .. })),
        || {
            create(SamplerDescriptor {
                lod_min_clamp: -1.0,
                ..Default::default()
            })
        },
    );
    expect_validation(
        &c.device,
        |e| matches!(sampler_err(e), Some(CreateSamplerError::LodMaxClamp { .. })),
        || {
            create(SamplerDescriptor {
                lod_min_clamp: 2.0,
                lod_max_clamp: 1.0,
                ..Default::default()
            })
        },
    );
    let linear = expect_valid(&c.device, || {
        create(SamplerDescriptor {
            mag_filter: FilterMode::Linear,
            ..Default::default()
        })
    });
    let nearest = expect_valid(&c.device, || create(SamplerDescriptor::default()));
    let compare = expect_valid(&c.device, || {
        create(SamplerDescriptor {
            compare: Some(CompareFunction::Less),
            ..Default::default()
        })
    });
    assert!(linear.is_filtering() && !nearest.is_filtering() && compare.is_comparison());
    let group = |ty: SamplerBindingType, resource: BindingResource<'_>| {
        let layout = c
            .device
            .create_bind_group_layout(&BindGroupLayoutDescriptor {
                label: None,
                entries: &[layout_entry(0, BindingType::Sampler(ty))],
            });
        c.device.create_bind_group(&BindGroupDescriptor {
            label: None,
            layout: &layout,
            entries: &[BindGroupEntry {
                binding: 0,
                resource,
            }],
        })
    };
    // wgpu-core `create_sampler_binding`'s rules, both ways.
    expect_valid(&c.device, || {
        group(
            SamplerBindingType::NonFiltering,
            BindingResource::Sampler(&nearest),
        )
    });
    expect_valid(&c.device, || {
        group(
            SamplerBindingType::Filtering,
            BindingResource::Sampler(&nearest),
        )
    });
    expect_valid(&c.device, || {
        group(
            SamplerBindingType::Comparison,
            BindingResource::Sampler(&compare),
        )
    });
    expect_validation(
        &c.device,
        |e| {
            matches!(
                sampler_bind_err(e),
                Some(SamplerBindingError::Filtering { .. })
            )
        },
        || {
            group(
                SamplerBindingType::NonFiltering,
                BindingResource::Sampler(&linear),
            )
        },
    );
    expect_validation(
        &c.device,
        |e| {
            matches!(
                sampler_bind_err(e),
                Some(SamplerBindingError::Comparison {
                    comparison: false,
                    ..
                })
            )
        },
        || {
            group(
                SamplerBindingType::Comparison,
                BindingResource::Sampler(&nearest),
            )
        },
    );
    expect_validation(
        &c.device,
        |e| {
            matches!(
                sampler_bind_err(e),
                Some(SamplerBindingError::Comparison {
                    comparison: true,
                    ..
                })
            )
        },
        || {
            group(
                SamplerBindingType::Filtering,
                BindingResource::Sampler(&compare),
            )
        },
    );
    let buffer = storage(&c.device, 16);
    expect_validation(
        &c.device,
        |e| {
            matches!(
                sampler_bind_err(e),
                Some(SamplerBindingError::ResourceKind {
                    resource: "a buffer",
                    ..
                })
            )
        },
        || group(SamplerBindingType::Filtering, buffer.as_entire_binding()),
    );
    let invalid = expect_validation(
        &c.device,
        |_| true,
        || {
            create(SamplerDescriptor {
                anisotropy_clamp: 2,
                ..Default::default()
            })
        },
    );
    expect_validation(
        &c.device,
        |e| {
            matches!(
                sampler_bind_err(e),
                Some(SamplerBindingError::InvalidSampler)
            )
        },
        || {
            group(
                SamplerBindingType::Filtering,
                BindingResource::Sampler(&invalid),
            )
        },
    );

    // A sampler of another device.
    let other = ctx();
    let foreign = expect_valid(&other.device, || {
        other.device.create_sampler(&SamplerDescriptor::default())
    });
    expect_validation(
        &c.device,
        |e| {
            matches!(e, ValidationError::BindGroup(BindGroupError::WrongDevice(m))
                if m.kind == ObjectKind::Sampler && m.object_device != m.device)
        },
        || {
            group(
                SamplerBindingType::Filtering,
                BindingResource::Sampler(&foreign),
            )
        },
    );

    // Without FLOAT32_FILTERABLE, r32float is not filterable: a filterable
    // float entry refuses it (WebGPU's `createBindGroup` sample type rule).
    let plain = ctx_with(|a| DeviceDescriptor {
        required_features: a.features()
            - Features::FLOAT32_FILTERABLE
            - Features::ADDRESS_MODE_CLAMP_TO_BORDER,
        experimental_features: experimental_features(),
        required_limits: a.limits(),
        ..Default::default()
    });
    let t = texture(
        &plain,
        TextureDimension::D2,
        TextureFormat::R32Float,
        [W, H, 1],
        ALL_USAGES,
    );
    let view = t.create_view(&Default::default());
    let layout = plain
        .device
        .create_bind_group_layout(&BindGroupLayoutDescriptor {
            label: None,
            entries: &[layout_entry(
                0,
                BindingType::Texture {
                    sample_type: TextureSampleType::Float { filterable: true },
                    view_dimension: TextureViewDimension::D2,
                    multisampled: false,
                },
            )],
        });
    expect_validation(
        &plain.device,
        |e| {
            matches!(
                bind_err(e),
                Some(TextureBindingError::SampleType {
                    format: TextureFormat::R32Float,
                    ..
                })
            )
        },
        || {
            plain.device.create_bind_group(&BindGroupDescriptor {
                label: None,
                layout: &layout,
                entries: &[BindGroupEntry {
                    binding: 0,
                    resource: BindingResource::TextureView(&view),
                }],
            })
        },
    );
    // ClampToBorder needs its feature.
    expect_validation(
        &plain.device,
        |e| {
            matches!(
                sampler_err(e),
                Some(CreateSamplerError::MissingFeature { feature })
                    if *feature == Features::ADDRESS_MODE_CLAMP_TO_BORDER
            )
        },
        || {
            plain.device.create_sampler(&SamplerDescriptor {
                address_mode_u: AddressMode::ClampToBorder,
                ..Default::default()
            })
        },
    );
}

/// A `sampler_comparison` with a `texture_depth_2d`: the auto layout has a
/// Comparison sampler entry and a Depth texture entry (wgpu-core's
/// `derive_binding_type`), so a comparison sampler binds there and a plain
/// one or a float view does not. (`depth.rs` dispatches such kernels.)
#[test]
fn comparison_samplers_get_comparison_and_depth_entries() {
    if !texture_shaders("comparison_samplers_get_comparison_and_depth_entries") {
        return;
    }
    let c = ctx();
    let module = expect_valid(&c.device, || {
        c.device.create_shader_module(ShaderModuleDescriptor {
            label: Some("compare"),
            source: ShaderSource::Wgsl(Cow::Borrowed(
                "@group(0) @binding(0) var t: texture_depth_2d;
@group(0) @binding(1) var s: sampler_comparison;
@group(0) @binding(2) var<storage, read_write> out: array<f32>;
@compute @workgroup_size(1)
fn main() { out[0] = textureSampleCompareLevel(t, s, vec2<f32>(0.5), 0.25); }",
            )),
        })
    });
    let p = pipeline_of(&c, &module, "main");
    let layout = p.get_bind_group_layout(0);
    let (nearest, compare) = (
        c.device.create_sampler(&SamplerDescriptor::default()),
        c.device.create_sampler(&SamplerDescriptor {
            compare: Some(CompareFunction::LessEqual),
            ..Default::default()
        }),
    );
    let float = texture(
        &c,
        TextureDimension::D2,
        TextureFormat::R32Float,
        [W, H, 1],
        ALL_USAGES,
    );
    let float_view = float.create_view(&Default::default());
    let out = storage(&c.device, 16);
    let group = |view: &TextureView, s: &Sampler| {
        c.device.create_bind_group(&BindGroupDescriptor {
            label: None,
            layout: &layout,
            entries: &[
                BindGroupEntry {
                    binding: 0,
                    resource: BindingResource::TextureView(view),
                },
                BindGroupEntry {
                    binding: 1,
                    resource: BindingResource::Sampler(s),
                },
                BindGroupEntry {
                    binding: 2,
                    resource: out.as_entire_binding(),
                },
            ],
        })
    };
    // Entries are checked in the order given: the Depth entry refuses the
    // float view before the sampler is looked at.
    expect_validation(
        &c.device,
        |e| {
            matches!(
                bind_err(e),
                Some(TextureBindingError::SampleType {
                    layout: TextureSampleType::Depth,
                    format: TextureFormat::R32Float,
                })
            )
        },
        || group(&float_view, &compare),
    );
    // A plain sampler at the Comparison entry (the texture entry given
    // last, so the sampler's rule is the one reached).
    let sampler_first = |s: &Sampler| {
        c.device.create_bind_group(&BindGroupDescriptor {
            label: None,
            layout: &layout,
            entries: &[
                BindGroupEntry {
                    binding: 1,
                    resource: BindingResource::Sampler(s),
                },
                BindGroupEntry {
                    binding: 0,
                    resource: BindingResource::TextureView(&float_view),
                },
                BindGroupEntry {
                    binding: 2,
                    resource: out.as_entire_binding(),
                },
            ],
        })
    };
    expect_validation(
        &c.device,
        |e| {
            matches!(
                sampler_bind_err(e),
                Some(SamplerBindingError::Comparison {
                    layout: SamplerBindingType::Comparison,
                    comparison: false
                })
            )
        },
        || sampler_first(&nearest),
    );
}
