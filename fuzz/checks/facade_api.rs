//! The `facade_api` fuzz target's invariants: the facade's validation, as
//! sequences of API calls on gfxsim.
//!
//! The input is an `Arbitrary` list of [`Call`]s: buffers with arbitrary
//! descriptors, bind group layouts and groups, pipeline layouts, pipelines
//! from a fixed set of checked-in shaders (as they are, with byte edits in
//! their headers, metadata and reflection, or arbitrary bytes), encoders with copies, clears and
//! compute passes (pipelines, bind groups with dynamic offsets, immediates,
//! direct and indirect dispatches), submissions, write_buffer, map / get
//! mapped range / unmap, polls and destroys. Objects live in per-input pools
//! addressed by a byte index. Invariants: nothing panics; every error the
//! device raises is one of the typed `aqueduct::Error` kinds, caught by the
//! input's error scopes; the device stays usable: every input ends with a
//! small known-good dispatch whose result is checked; and nothing writes
//! outside its buffers: sentinel buffers allocated between the input's
//! buffers keep their contents (checked unless the input set a pipeline
//! whose code is not bounds-checked: a raw code object may write anywhere).
//!
//! One device per process (a `OnceLock`), a fresh set of error scopes per
//! input. Dispatch sizes are kept small (0..=4 workgroups per dimension, or
//! a count above the limit that must be refused) so that an execution stays
//! cheap; buffer sizes are small, or huge ones that must be refused.

use std::borrow::Cow;
use std::num::{NonZeroU32, NonZeroU64};
use std::sync::{Arc, OnceLock};

use aqueduct::util::{BufferInitDescriptor, DeviceExt};
use aqueduct::*;
use arbitrary::{Arbitrary, Unstructured};

/// One shader a pipeline can be made from: (kernel, code object,
/// reflection JSON for shaderc objects; None for raw code objects, which
/// are not bounds-checked).
type Shader = (&'static str, &'static [u8], Option<&'static str>);

/// The shaders for the objects of `$isa` (kernels/ and shaders/).
macro_rules! shaders_for {
    ($isa:literal) => {
        &[
            (
                "vector_copy",
                include_bytes!(concat!("../../kernels/", $isa, "/vector_copy.co")),
                None,
            ),
            (
                "saxpy",
                include_bytes!(concat!("../../kernels/", $isa, "/saxpy.co")),
                None,
            ),
            (
                "empty",
                include_bytes!(concat!("../../kernels/", $isa, "/empty.co")),
                None,
            ),
            (
                "histogram",
                include_bytes!(concat!("../../kernels/", $isa, "/histogram.co")),
                None,
            ),
            (
                "lookup_table",
                include_bytes!(concat!("../../kernels/", $isa, "/lookup_table.co")),
                None,
            ),
            (
                "fill_u32",
                include_bytes!(concat!("../../shaders/", $isa, "/fill_u32.co")),
                Some(include_str!(concat!(
                    "../../shaders/",
                    $isa,
                    "/fill_u32.reflect.json"
                ))),
            ),
            (
                "copy_bytes",
                include_bytes!(concat!("../../shaders/", $isa, "/copy_bytes.co")),
                Some(include_str!(concat!(
                    "../../shaders/",
                    $isa,
                    "/copy_bytes.reflect.json"
                ))),
            ),
        ]
    };
}

/// The shaders for the part a default gfxsim device simulates
/// (`AQUEDUCT_SIM_ISA`).
fn shaders() -> &'static [Shader] {
    use aqueduct::gfxsim::SimPart;
    match aqueduct::gfxsim::default_part() {
        SimPart::Rx7900Xtx => shaders_for!("gfx1100"),
        SimPart::Mi300x => shaders_for!("gfx942"),
        SimPart::Mi210 | SimPart::Mi250xGcd => shaders_for!("gfx90a"),
    }
}

/// A byte offset or size: mostly small and aligned, sometimes anything.
#[derive(Arbitrary, Debug, Clone, Copy)]
enum Amount {
    Small(u8),
    Words(u8),
    Any(u64),
}

impl Amount {
    fn get(self) -> u64 {
        match self {
            Amount::Small(b) => b as u64,
            Amount::Words(w) => w as u64 * 4,
            Amount::Any(v) => v,
        }
    }
}

/// A buffer size: small, a round size, or one above any limit.
#[derive(Arbitrary, Debug, Clone, Copy)]
enum Size {
    Small(u16),
    Pow2(u8),
    Huge(u64),
}

impl Size {
    fn get(self) -> u64 {
        match self {
            Size::Small(s) => s as u64,
            Size::Pow2(p) => 1u64 << (p % 21),
            Size::Huge(h) => h | (1 << 40),
        }
    }
}

/// A workgroup count: 0..=4, or one above the per-dimension limit.
#[derive(Arbitrary, Debug, Clone, Copy)]
enum Count {
    Small(u8),
    Over(u32),
}

impl Count {
    fn get(self) -> u32 {
        match self {
            Count::Small(c) => (c % 5) as u32,
            Count::Over(c) => c.max(65536),
        }
    }
}

#[derive(Arbitrary, Debug, Clone, Copy)]
enum Workgroup {
    Default,
    Common(u8),
    Any([u16; 3]),
}

impl Workgroup {
    fn get(self) -> Option<[u32; 3]> {
        const COMMON: [u32; 6] = [1, 32, 64, 128, 256, 1024];
        match self {
            Workgroup::Default => None,
            Workgroup::Common(i) => Some([COMMON[i as usize % COMMON.len()], 1, 1]),
            Workgroup::Any(w) => Some(w.map(u32::from)),
        }
    }
}

#[derive(Arbitrary, Debug)]
struct LayoutEntry {
    binding: u8,
    visibility: u8,
    kind: u8,
    has_dynamic_offset: bool,
    min_binding_size: u16,
    count: u8,
}

#[derive(Arbitrary, Debug)]
struct GroupEntry {
    binding: u8,
    buffer: u8,
    offset: Amount,
    size: Option<Amount>,
}

#[derive(Arbitrary, Debug)]
enum PassOp {
    SetPipeline(u8),
    SetBindGroup {
        index: u8,
        group: Option<u8>,
        offsets: Vec<u32>,
    },
    SetImmediates {
        offset: u8,
        data: Vec<u8>,
    },
    Dispatch([Count; 3]),
    DispatchIndirect {
        counts: [Count; 3],
        at: Amount,
        offset: Amount,
    },
}

#[derive(Arbitrary, Debug)]
enum Command {
    Copy {
        src: u8,
        src_offset: Amount,
        dst: u8,
        dst_offset: Amount,
        size: Option<Amount>,
    },
    Clear {
        buffer: u8,
        offset: Amount,
        size: Option<Amount>,
    },
    Pass(Vec<PassOp>),
}

#[derive(Arbitrary, Debug)]
enum Call {
    CreateBuffer {
        size: Size,
        usage: u16,
        mapped_at_creation: bool,
    },
    CreateBufferInit {
        contents: Vec<u8>,
        usage: u16,
    },
    DestroyBuffer(u8),
    CreateBindGroupLayout(Vec<LayoutEntry>),
    PipelineBindGroupLayout {
        pipeline: u8,
        index: u8,
    },
    CreateBindGroup {
        layout: u8,
        entries: Vec<GroupEntry>,
    },
    CreatePipelineLayout {
        groups: Vec<Option<u8>>,
        immediate_size: u16,
    },
    CreatePipeline {
        shader: u8,
        entry: Option<u8>,
        layout: Option<u8>,
        workgroup: Workgroup,
    },
    /// A pipeline from arbitrary shader bytes: a raw code object (entry
    /// point `entry` of the fixed set's names), or a shaderc object with
    /// arbitrary reflection text.
    CreatePipelineFromBytes {
        code: Vec<u8>,
        reflection: Option<String>,
        entry: u8,
        workgroup: Workgroup,
    },
    /// A pipeline from one of the fixed shaders with byte edits in its
    /// headers and metadata note (the first 2 KiB, before the kernel
    /// descriptors and code) and in its reflection text.
    CreatePipelineFromEdited {
        shader: u8,
        edits: Vec<(u16, u8)>,
        reflection_edits: Vec<(u16, u8)>,
        workgroup: Workgroup,
    },
    Encode {
        commands: Vec<Command>,
        submit: bool,
    },
    WriteBuffer {
        buffer: u8,
        offset: Amount,
        data: Vec<u8>,
    },
    MapAsync {
        buffer: u8,
        write: bool,
        start: Amount,
        end: Option<Amount>,
    },
    GetMappedRange {
        buffer: u8,
        mutable: bool,
        start: Amount,
        end: Option<Amount>,
        fill: u8,
    },
    Unmap(u8),
    Poll(bool),
    DropBuffer(u8),
}

/// The process's device, and the pieces of the final known-good dispatch.
struct Ctx {
    device: Device,
    queue: Queue,
    check_pipeline: ComputePipeline,
}

fn ctx() -> &'static Ctx {
    static CTX: OnceLock<Ctx> = OnceLock::new();
    CTX.get_or_init(|| {
        let instance = Instance::with_device(DeviceChoice::Sim);
        let adapter = block_on(instance.request_adapter(&RequestAdapterOptions::default()))
            .expect("gfxsim adapter");
        let (device, queue) = block_on(adapter.request_device(&DeviceDescriptor {
            required_features: adapter.features() - Features::all_experimental_mask(),
            required_limits: adapter.limits(),
            ..Default::default()
        }))
        .expect("gfxsim device");
        // Errors outside the input's scopes (none are expected) are ignored
        // here; the scopes below see every error the calls raise.
        device.on_uncaptured_error(Arc::new(|_e| {}));
        let module = shader_module(&device, 0, Some([64, 1, 1]));
        let check_pipeline = device.create_compute_pipeline(&ComputePipelineDescriptor {
            label: Some("known-good"),
            layout: None,
            module: &module,
            entry_point: Some("vector_copy"),
            compilation_options: Default::default(),
            cache: None,
        });
        Ctx {
            device,
            queue,
            check_pipeline,
        }
    })
}

fn shader_module(device: &Device, shader: usize, workgroup: Option<[u32; 3]>) -> ShaderModule {
    let (name, code, reflection) = shaders()[shader % shaders().len()];
    let source = match reflection {
        Some(reflection) => ShaderSource::Precompiled {
            code: Cow::Borrowed(code),
            reflection: Cow::Borrowed(reflection),
        },
        None => ShaderSource::CodeObject {
            code: Cow::Borrowed(code),
            workgroup_size: workgroup,
        },
    };
    device.create_shader_module(ShaderModuleDescriptor {
        label: Some(name),
        source,
    })
}

fn pick<T>(pool: &[T], index: u8) -> Option<&T> {
    if pool.is_empty() {
        None
    } else {
        Some(&pool[index as usize % pool.len()])
    }
}

fn range(start: Amount, end: Option<Amount>) -> (u64, Option<u64>) {
    (start.get(), end.map(|e| e.get()))
}

#[derive(Default)]
struct Pools {
    buffers: Vec<Buffer>,
    layouts: Vec<BindGroupLayout>,
    groups: Vec<BindGroup>,
    pipeline_layouts: Vec<PipelineLayout>,
    pipelines: Vec<ComputePipeline>,
    /// Per pipeline: whether its code may access memory without bounds
    /// checks (a raw code object, or any edited or arbitrary bytes).
    unchecked: Vec<bool>,
    /// Whether a pass set an unchecked pipeline: such a kernel, given
    /// arbitrary arguments, may legally write anywhere in the process's GPU
    /// memory, so the sentinel check is skipped for this input.
    unchecked_used: bool,
    /// Small buffers of known contents, one made before the input's first
    /// call and one after each buffer it creates, never handed to a call.
    sentinels: Vec<Buffer>,
}

/// Words per sentinel buffer.
const SENTINEL_WORDS: usize = 64;

/// The contents of sentinel `k`.
fn sentinel_words(k: usize) -> Vec<u32> {
    (0..SENTINEL_WORDS)
        .map(|i| ((k * SENTINEL_WORDS + i) as u32).wrapping_mul(0x9e37_79b1) ^ 0x5a5a_a5a5)
        .collect()
}

impl Pools {
    fn add_sentinel(&mut self, device: &Device) {
        let words = sentinel_words(self.sentinels.len());
        self.sentinels
            .push(device.create_buffer_init(&BufferInitDescriptor {
                label: Some("sentinel"),
                contents: bytemuck::cast_slice(&words),
                usage: BufferUsages::STORAGE | BufferUsages::COPY_SRC,
            }));
    }

    fn push_pipeline(&mut self, pipeline: ComputePipeline, unchecked: bool) {
        self.pipelines.push(pipeline);
        self.unchecked.push(unchecked);
    }
}

fn layout_entry(e: &LayoutEntry) -> BindGroupLayoutEntry {
    let ty = match e.kind % 3 {
        0 => BufferBindingType::Uniform,
        1 => BufferBindingType::Storage { read_only: true },
        _ => BufferBindingType::Storage { read_only: false },
    };
    BindGroupLayoutEntry {
        binding: e.binding as u32,
        visibility: ShaderStages::from_bits_truncate(e.visibility as u32),
        ty: BindingType::Buffer {
            ty,
            has_dynamic_offset: e.has_dynamic_offset,
            min_binding_size: NonZeroU64::new(e.min_binding_size as u64),
        },
        count: if e.count > 250 {
            NonZeroU32::new(e.count as u32 - 250)
        } else {
            None
        },
    }
}

fn run_pass(ctx: &Ctx, pools: &mut Pools, encoder: &mut CommandEncoder, ops: &[PassOp]) {
    // Indirect argument buffers are made before the pass borrows the encoder.
    let mut indirect = Vec::new();
    for op in ops {
        if let PassOp::DispatchIndirect { counts, at, .. } = op {
            let at = (at.get() % 64) as usize;
            let mut contents = vec![0u8; at + 12];
            for (k, c) in counts.iter().enumerate() {
                contents[at + 4 * k..at + 4 * k + 4].copy_from_slice(&c.get().to_le_bytes());
            }
            indirect.push(ctx.device.create_buffer_init(&BufferInitDescriptor {
                label: Some("indirect"),
                contents: &contents,
                usage: BufferUsages::INDIRECT,
            }));
        }
    }
    let mut indirect = indirect.iter();
    let mut pass = encoder.begin_compute_pass(&Default::default());
    for op in ops {
        match op {
            PassOp::SetPipeline(p) => {
                if !pools.pipelines.is_empty() {
                    let i = *p as usize % pools.pipelines.len();
                    pools.unchecked_used |= pools.unchecked[i];
                    pass.set_pipeline(&pools.pipelines[i]);
                }
            }
            PassOp::SetBindGroup {
                index,
                group,
                offsets,
            } => {
                let group = group.and_then(|g| pick(&pools.groups, g));
                pass.set_bind_group(*index as u32, group, offsets);
            }
            PassOp::SetImmediates { offset, data } => pass.set_immediates(*offset as u32, data),
            PassOp::Dispatch(c) => pass.dispatch_workgroups(c[0].get(), c[1].get(), c[2].get()),
            PassOp::DispatchIndirect { offset, .. } => {
                if let Some(buffer) = indirect.next() {
                    pass.dispatch_workgroups_indirect(buffer, offset.get() % 80);
                }
            }
        }
    }
}

fn call(ctx: &Ctx, pools: &mut Pools, call: &Call) {
    let device = &ctx.device;
    match call {
        Call::CreateBuffer {
            size,
            usage,
            mapped_at_creation,
        } => {
            pools.buffers.push(device.create_buffer(&BufferDescriptor {
                label: Some("fuzz"),
                size: size.get(),
                usage: BufferUsages::from_bits_truncate(*usage as u32),
                mapped_at_creation: *mapped_at_creation,
            }));
            pools.add_sentinel(device);
        }
        Call::CreateBufferInit { contents, usage } => {
            pools
                .buffers
                .push(device.create_buffer_init(&BufferInitDescriptor {
                    label: Some("fuzz-init"),
                    contents,
                    usage: BufferUsages::from_bits_truncate(*usage as u32),
                }));
            pools.add_sentinel(device);
        }
        Call::DestroyBuffer(b) => {
            if let Some(b) = pick(&pools.buffers, *b) {
                b.destroy();
            }
        }
        Call::DropBuffer(b) => {
            if !pools.buffers.is_empty() {
                let i = *b as usize % pools.buffers.len();
                pools.buffers.swap_remove(i);
            }
        }
        Call::CreateBindGroupLayout(entries) => {
            let entries: Vec<BindGroupLayoutEntry> = entries.iter().map(layout_entry).collect();
            pools
                .layouts
                .push(device.create_bind_group_layout(&BindGroupLayoutDescriptor {
                    label: Some("fuzz"),
                    entries: &entries,
                }));
        }
        Call::PipelineBindGroupLayout { pipeline, index } => {
            if let Some(p) = pick(&pools.pipelines, *pipeline) {
                pools.layouts.push(p.get_bind_group_layout(*index as u32));
            }
        }
        Call::CreateBindGroup { layout, entries } => {
            let Some(layout) = pick(&pools.layouts, *layout) else {
                return;
            };
            let mut bound = Vec::new();
            for e in entries {
                let Some(buffer) = pick(&pools.buffers, e.buffer) else {
                    continue;
                };
                bound.push(BindGroupEntry {
                    binding: e.binding as u32,
                    resource: BindingResource::Buffer(BufferBinding {
                        buffer,
                        offset: e.offset.get(),
                        size: e.size.and_then(|s| NonZeroU64::new(s.get())),
                    }),
                });
            }
            pools
                .groups
                .push(device.create_bind_group(&BindGroupDescriptor {
                    label: Some("fuzz"),
                    layout,
                    entries: &bound,
                }));
        }
        Call::CreatePipelineLayout {
            groups,
            immediate_size,
        } => {
            let groups: Vec<Option<&BindGroupLayout>> = groups
                .iter()
                .map(|g| g.and_then(|g| pick(&pools.layouts, g)))
                .collect();
            pools
                .pipeline_layouts
                .push(device.create_pipeline_layout(&PipelineLayoutDescriptor {
                    label: Some("fuzz"),
                    bind_group_layouts: &groups,
                    immediate_size: *immediate_size as u32,
                }));
        }
        Call::CreatePipeline {
            shader,
            entry,
            layout,
            workgroup,
        } => {
            let shader = *shader as usize % shaders().len();
            let module = shader_module(device, shader, workgroup.get());
            let entry_point = match entry {
                None => None,
                Some(e) if e % 4 == 0 => Some("no_such_entry"),
                Some(_) => Some(shaders()[shader].0),
            };
            let layout = layout.and_then(|l| pick(&pools.pipeline_layouts, l));
            pools.push_pipeline(
                device.create_compute_pipeline(&ComputePipelineDescriptor {
                    label: Some("fuzz"),
                    layout,
                    module: &module,
                    entry_point,
                    compilation_options: Default::default(),
                    cache: None,
                }),
                shaders()[shader].2.is_none(),
            );
        }
        Call::CreatePipelineFromBytes {
            code,
            reflection,
            entry,
            workgroup,
        } => {
            let source = match reflection {
                Some(reflection) => ShaderSource::Precompiled {
                    code: Cow::Borrowed(code),
                    reflection: Cow::Borrowed(reflection),
                },
                None => ShaderSource::CodeObject {
                    code: Cow::Borrowed(code),
                    workgroup_size: workgroup.get(),
                },
            };
            let module = device.create_shader_module(ShaderModuleDescriptor {
                label: Some("fuzz-bytes"),
                source,
            });
            pools.push_pipeline(
                device.create_compute_pipeline(&ComputePipelineDescriptor {
                    label: Some("fuzz-bytes"),
                    layout: None,
                    module: &module,
                    entry_point: Some(shaders()[*entry as usize % shaders().len()].0),
                    compilation_options: Default::default(),
                    cache: None,
                }),
                true,
            );
        }
        Call::CreatePipelineFromEdited {
            shader,
            edits,
            reflection_edits,
            workgroup,
        } => {
            let (name, code, reflection) = shaders()[*shader as usize % shaders().len()];
            let mut code = code.to_vec();
            for &(at, value) in edits {
                let at = at as usize % 0x800;
                if at < code.len() {
                    code[at] = value;
                }
            }
            let source = match reflection {
                Some(reflection) => {
                    let mut text = reflection.as_bytes().to_vec();
                    for &(at, value) in reflection_edits {
                        let at = at as usize % text.len();
                        text[at] = value;
                    }
                    ShaderSource::Precompiled {
                        code: Cow::Owned(code),
                        reflection: Cow::Owned(String::from_utf8_lossy(&text).into_owned()),
                    }
                }
                None => ShaderSource::CodeObject {
                    code: Cow::Owned(code),
                    workgroup_size: workgroup.get(),
                },
            };
            let module = device.create_shader_module(ShaderModuleDescriptor {
                label: Some("fuzz-edited"),
                source,
            });
            pools.push_pipeline(
                device.create_compute_pipeline(&ComputePipelineDescriptor {
                    label: Some("fuzz-edited"),
                    layout: None,
                    module: &module,
                    entry_point: Some(name),
                    compilation_options: Default::default(),
                    cache: None,
                }),
                true,
            );
        }
        Call::Encode { commands, submit } => {
            let mut encoder = device.create_command_encoder(&Default::default());
            for command in commands {
                match command {
                    Command::Copy {
                        src,
                        src_offset,
                        dst,
                        dst_offset,
                        size,
                    } => {
                        if let (Some(s), Some(d)) =
                            (pick(&pools.buffers, *src), pick(&pools.buffers, *dst))
                        {
                            encoder.copy_buffer_to_buffer(
                                s,
                                src_offset.get(),
                                d,
                                dst_offset.get(),
                                size.map(|s| s.get()),
                            );
                        }
                    }
                    Command::Clear {
                        buffer,
                        offset,
                        size,
                    } => {
                        if let Some(b) = pick(&pools.buffers, *buffer) {
                            encoder.clear_buffer(b, offset.get(), size.map(|s| s.get()));
                        }
                    }
                    Command::Pass(ops) => run_pass(ctx, pools, &mut encoder, ops),
                }
            }
            let commands = encoder.finish();
            if *submit {
                ctx.queue.submit([commands]);
            }
        }
        Call::WriteBuffer {
            buffer,
            offset,
            data,
        } => {
            if let Some(b) = pick(&pools.buffers, *buffer) {
                ctx.queue.write_buffer(b, offset.get(), data);
            }
        }
        Call::MapAsync {
            buffer,
            write,
            start,
            end,
        } => {
            if let Some(b) = pick(&pools.buffers, *buffer) {
                let mode = if *write {
                    MapMode::Write
                } else {
                    MapMode::Read
                };
                let (start, end) = range(*start, *end);
                let callback = |result: Result<(), BufferAsyncError>| {
                    if let Err(e) = result {
                        let _ = e.to_string();
                    }
                };
                match end {
                    Some(end) => b.map_async(mode, start..end, callback),
                    None => b.map_async(mode, start.., callback),
                }
            }
        }
        Call::GetMappedRange {
            buffer,
            mutable,
            start,
            end,
            fill,
        } => {
            if let Some(b) = pick(&pools.buffers, *buffer) {
                let (start, end) = range(*start, *end);
                let bounds = (
                    std::ops::Bound::Included(start),
                    end.map_or(std::ops::Bound::Unbounded, std::ops::Bound::Excluded),
                );
                if *mutable {
                    if let Ok(mut view) = b.get_mapped_range_mut(bounds) {
                        view.fill(*fill);
                    }
                } else if let Ok(view) = b.get_mapped_range(bounds) {
                    let _ = view.iter().map(|&x| x as u64).sum::<u64>();
                }
            }
        }
        Call::Unmap(b) => {
            if let Some(b) = pick(&pools.buffers, *b) {
                b.unmap();
            }
        }
        Call::Poll(wait) => {
            let poll = if *wait {
                PollType::wait_indefinitely()
            } else {
                PollType::Poll
            };
            let _ = device.poll(poll);
        }
    }
}

/// A small vector copy whose result is checked: the device still works.
fn known_good_dispatch(ctx: &Ctx) {
    let n = 256u32;
    let input: Vec<u32> = (0..n).map(|i| i.wrapping_mul(0x9e37_79b9)).collect();
    let src = ctx.device.create_buffer_init(&BufferInitDescriptor {
        label: Some("check-src"),
        contents: bytemuck::cast_slice(&input),
        usage: BufferUsages::STORAGE,
    });
    let dst = ctx.device.create_buffer(&BufferDescriptor {
        label: Some("check-dst"),
        size: n as u64 * 4,
        usage: BufferUsages::STORAGE | BufferUsages::COPY_SRC,
        mapped_at_creation: false,
    });
    let readback = ctx.device.create_buffer(&BufferDescriptor {
        label: Some("check-readback"),
        size: n as u64 * 4,
        usage: BufferUsages::MAP_READ | BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    let layout = ctx.check_pipeline.get_bind_group_layout(0);
    let group = ctx.device.create_bind_group(&BindGroupDescriptor {
        label: Some("check"),
        layout: &layout,
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
    let mut encoder = ctx.device.create_command_encoder(&Default::default());
    {
        let mut pass = encoder.begin_compute_pass(&Default::default());
        pass.set_pipeline(&ctx.check_pipeline);
        pass.set_bind_group(0, &group, &[]);
        pass.set_immediates(0, &n.to_le_bytes());
        pass.dispatch_workgroups(n / 64, 1, 1);
    }
    encoder.copy_buffer_to_buffer(&dst, 0, &readback, 0, n as u64 * 4);
    ctx.queue.submit([encoder.finish()]);
    let bytes = aqueduct::util::read_mapped(&ctx.device, &readback)
        .unwrap_or_else(|e| panic!("the device is no longer usable: readback failed: {e}"));
    assert_eq!(
        bytes.as_slice(),
        bytemuck::cast_slice::<u32, u8>(&input),
        "known-good dispatch result"
    );
}

/// Every sentinel still holds its contents: no copy, clear, write or
/// bounds-checked kernel of the input wrote outside its own buffers.
fn check_sentinels(ctx: &Ctx, sentinels: &[Buffer]) {
    let bytes_each = (SENTINEL_WORDS * 4) as u64;
    let readback = ctx.device.create_buffer(&BufferDescriptor {
        label: Some("sentinel-readback"),
        size: bytes_each * sentinels.len() as u64,
        usage: BufferUsages::MAP_READ | BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    let mut encoder = ctx.device.create_command_encoder(&Default::default());
    for (k, sentinel) in sentinels.iter().enumerate() {
        encoder.copy_buffer_to_buffer(sentinel, 0, &readback, k as u64 * bytes_each, bytes_each);
    }
    ctx.queue.submit([encoder.finish()]);
    let bytes = aqueduct::util::read_mapped(&ctx.device, &readback)
        .unwrap_or_else(|e| panic!("sentinel readback failed: {e}"));
    for (k, chunk) in bytes.chunks(bytes_each as usize).enumerate() {
        assert_eq!(
            chunk,
            bytemuck::cast_slice::<u32, u8>(&sentinel_words(k)),
            "sentinel {k} (made after buffer {k}) was overwritten"
        );
    }
}

/// Run the calls `bytes` decode to (as libFuzzer's typed input decodes
/// them: `arbitrary_take_rest`), then check the invariants.
pub fn check_bytes(bytes: &[u8]) {
    if let Ok(calls) = Vec::<Call>::arbitrary_take_rest(Unstructured::new(bytes)) {
        check(&calls);
    }
}

/// Run `calls` on the process's device and check the invariants (the
/// design comment above).
fn check(calls: &[Call]) {
    let ctx = ctx();
    let internal = ctx.device.push_error_scope(ErrorFilter::Internal);
    let oom = ctx.device.push_error_scope(ErrorFilter::OutOfMemory);
    let validation = ctx.device.push_error_scope(ErrorFilter::Validation);
    let mut pools = Pools::default();
    pools.add_sentinel(&ctx.device);
    for c in calls.iter().take(64) {
        call(ctx, &mut pools, c);
    }
    // Unmap everything so no map is left pending across inputs, then let
    // in-flight work finish.
    for b in &pools.buffers {
        b.unmap();
    }
    let _ = ctx.device.poll(PollType::wait_indefinitely());
    for (scope, filter) in [
        (validation.pop_now(), ErrorFilter::Validation),
        (oom.pop_now(), ErrorFilter::OutOfMemory),
        (internal.pop_now(), ErrorFilter::Internal),
    ] {
        if let Some(error) = scope {
            assert_eq!(error.filter(), filter, "{error}");
            assert!(!error.to_string().is_empty());
        }
    }
    let check = ctx.device.push_error_scope(ErrorFilter::Validation);
    let internal = ctx.device.push_error_scope(ErrorFilter::Internal);
    known_good_dispatch(ctx);
    if !pools.unchecked_used {
        check_sentinels(ctx, &pools.sentinels);
    }
    drop(pools);
    if let Some(error) = internal.pop_now() {
        panic!("the known-good dispatch raised an internal error: {error}");
    }
    if let Some(error) = check.pop_now() {
        panic!("the known-good dispatch raised a validation error: {error}");
    }
}
