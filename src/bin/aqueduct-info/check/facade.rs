//! The examples' work through the facade (examples/): hello_compute's
//! Collatz shader, prefix_sum's three-dispatch scan, readback's two ways
//! back to the host, and vector_copy at the HSA level. Their logic runs
//! here as functions, on each side's device, checked against the same host
//! computations the examples use.

use std::borrow::Cow;

use aqueduct::util::{BufferInitDescriptor, DeviceExt, read_mapped};
use aqueduct::*;

use super::dispatch::{self, KernelArg, Launch};
use super::side::{SHIPPED_ISAS, object_for};
use super::{Check, CheckError, Group, Observation, Side, words};

pub fn checks() -> Vec<Check> {
    let g = Group::Facade;
    vec![
        Check::new(g, "hello_compute", hello_compute),
        Check::new(g, "prefix_sum", prefix_sum),
        Check::new(g, "readback", readback),
        Check::new(g, "vector_copy", vector_copy),
    ]
}

/// Runs `work` on `device` inside error scopes: any validation, memory or
/// internal error the device reports fails the check.
pub fn scoped<T>(
    device: &Device,
    work: impl FnOnce() -> Result<T, CheckError>,
) -> Result<T, CheckError> {
    let internal = device.push_error_scope(ErrorFilter::Internal);
    let memory = device.push_error_scope(ErrorFilter::OutOfMemory);
    let validation = device.push_error_scope(ErrorFilter::Validation);
    let result = work();
    let reported = [validation.pop_now(), memory.pop_now(), internal.pop_now()]
        .into_iter()
        .flatten()
        .next();
    match (result, reported) {
        (Err(e), _) => Err(e),
        (Ok(_), Some(error)) => Err(CheckError::facade("the device reported")(error)),
        (Ok(value), None) => Ok(value),
    }
}

/// The examples' precompiled shaders (examples/shaders) are offload
/// bundles for the ISAs the repository ships objects for; elsewhere the
/// checks that use them are skipped.
pub fn example_shaders_run_on(side: &Side) -> Result<(), CheckError> {
    if SHIPPED_ISAS.contains(&side.isa()) {
        Ok(())
    } else {
        Err(CheckError::Unsupported {
            reason: format!(
                "the example shaders are built for {}, this GPU is {}",
                SHIPPED_ISAS.join(", "),
                side.isa()
            ),
        })
    }
}

fn pipeline(device: &Device, desc: ShaderModuleDescriptor<'_>, entry: &str) -> ComputePipeline {
    let module = device.create_shader_module(desc);
    device.create_compute_pipeline(&ComputePipelineDescriptor {
        label: None,
        layout: None,
        module: &module,
        entry_point: Some(entry),
        compilation_options: Default::default(),
        cache: None,
    })
}

fn bind(device: &Device, p: &ComputePipeline, buffers: &[&Buffer]) -> BindGroup {
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
        layout: &p.get_bind_group_layout(0),
        entries: &entries,
    })
}

fn readback_buffer(device: &Device, size: u64) -> Buffer {
    device.create_buffer(&BufferDescriptor {
        label: Some("readback"),
        size,
        usage: BufferUsages::MAP_READ | BufferUsages::COPY_DST,
        mapped_at_creation: false,
    })
}

fn read(device: &Device, buffer: &Buffer) -> Result<Vec<u32>, CheckError> {
    let bytes = read_mapped(device, buffer).map_err(CheckError::facade("reading back"))?;
    Ok(bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect())
}

/// The first index where `got` and `want` differ, as a reference error.
fn against_host(case: &str, got: &[u32], want: &[u32]) -> Result<(), CheckError> {
    if got.len() != want.len() {
        return Err(CheckError::Reference {
            case: case.to_string(),
            message: format!("{} words, want {}", got.len(), want.len()),
        });
    }
    match (0..want.len()).find(|&i| got[i] != want[i]) {
        None => Ok(()),
        Some(i) => Err(CheckError::Reference {
            case: case.to_string(),
            message: format!("word {i}: got {:#x}, want {:#x}", got[i], want[i]),
        }),
    }
}

/// Steps of the Collatz sequence from `n` to 1 (u32::MAX on overflow),
/// as examples/hello_compute.rs counts them.
fn collatz_steps(mut n: u32) -> u32 {
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

fn hello_compute(side: &Side) -> Result<Observation, CheckError> {
    example_shaders_run_on(side)?;
    let device = &side.gpu;
    let numbers: Vec<u32> = [1, 2, 3, 4, 27, 97, 871]
        .into_iter()
        .chain((1..=249).map(|i| i * 7919 % 100_003))
        .collect();
    let steps = scoped(device, || {
        let module = include_shader!("../../../../examples/shaders/collatz");
        let pipeline = pipeline(device, module, "main");
        let size = (numbers.len() * 4) as u64;
        let storage = device.create_buffer_init(&BufferInitDescriptor {
            label: Some("numbers"),
            contents: &words(&numbers),
            usage: BufferUsages::STORAGE | BufferUsages::COPY_SRC,
        });
        let staging = readback_buffer(device, size);
        let bind_group = bind(device, &pipeline, &[&storage]);
        let mut encoder = device.create_command_encoder(&CommandEncoderDescriptor { label: None });
        {
            let mut pass = encoder.begin_compute_pass(&ComputePassDescriptor {
                label: Some("collatz"),
                timestamp_writes: None,
            });
            pass.set_pipeline(&pipeline);
            pass.set_bind_group(0, &bind_group, &[]);
            pass.dispatch_workgroups((numbers.len() as u32).div_ceil(64), 1, 1);
        }
        encoder.copy_buffer_to_buffer(&storage, 0, &staging, 0, size);
        side.gpu_queue.submit([encoder.finish()]);
        read(device, &staging)
    })?;
    let want: Vec<u32> = numbers.iter().map(|&n| collatz_steps(n)).collect();
    against_host("collatz", &steps, &want)?;
    Ok(Observation::of("steps", words(&steps)))
}

fn prefix_sum(side: &Side) -> Result<Observation, CheckError> {
    example_shaders_run_on(side)?;
    let device = &side.gpu;
    let n: u32 = 40_000;
    let blocks = n.div_ceil(256);
    let input: Vec<u32> = (0..n).map(|i| (i * 7 + 3) % 11).collect();
    let got = scoped(device, || {
        let scan = pipeline(
            device,
            include_shader!("../../../../examples/shaders/scan_blocks"),
            "main",
        );
        let add = pipeline(
            device,
            include_shader!("../../../../examples/shaders/add_block_offsets"),
            "main",
        );
        let usage = BufferUsages::STORAGE | BufferUsages::COPY_SRC;
        let values = device.create_buffer_init(&BufferInitDescriptor {
            label: Some("values"),
            contents: &words(&input),
            usage,
        });
        let storage = |label, size| {
            device.create_buffer(&BufferDescriptor {
                label: Some(label),
                size,
                usage,
                mapped_at_creation: false,
            })
        };
        let sums = storage("block sums", u64::from(blocks) * 4);
        let total = storage("total", 4);
        let readback = readback_buffer(device, u64::from(n) * 4);
        let mut encoder = device.create_command_encoder(&Default::default());
        {
            let mut pass = encoder.begin_compute_pass(&ComputePassDescriptor {
                label: Some("scan"),
                timestamp_writes: None,
            });
            pass.set_pipeline(&scan);
            pass.set_bind_group(0, &bind(device, &scan, &[&values, &sums]), &[]);
            pass.dispatch_workgroups(blocks, 1, 1);
            pass.set_bind_group(0, &bind(device, &scan, &[&sums, &total]), &[]);
            pass.dispatch_workgroups(1, 1, 1);
            pass.set_pipeline(&add);
            pass.set_bind_group(0, &bind(device, &add, &[&values, &sums]), &[]);
            pass.dispatch_workgroups(blocks, 1, 1);
        }
        encoder.copy_buffer_to_buffer(&values, 0, &readback, 0, None);
        side.gpu_queue.submit([encoder.finish()]);
        read(device, &readback)
    })?;
    let want: Vec<u32> = input
        .iter()
        .scan(0u32, |acc, &x| {
            *acc = acc.wrapping_add(x);
            Some(*acc)
        })
        .collect();
    against_host("inclusive scan", &got, &want)?;
    Ok(Observation::of("prefix", words(&got)))
}

/// vector_copy objects for the ISAs the repository ships them for.
const VECTOR_COPY: &[(&str, &[u8])] = &[
    (
        "gfx1100",
        include_bytes!("../../../../kernels/gfx1100/vector_copy.co"),
    ),
    (
        "gfx942",
        include_bytes!("../../../../kernels/gfx942/vector_copy.co"),
    ),
    (
        "gfx90a",
        include_bytes!("../../../../kernels/gfx90a/vector_copy.co"),
    ),
];

fn readback(side: &Side) -> Result<Observation, CheckError> {
    const N: u32 = 1 << 14;
    let device = &side.gpu;
    let code = object_for(side, "vector_copy", VECTOR_COPY)?;
    let input: Vec<u32> = (0..N).map(|i| i.wrapping_mul(0x9e37_79b9)).collect();
    let (via_copy, direct) = scoped(device, || {
        let module = device.create_shader_module(ShaderModuleDescriptor {
            label: Some("vector_copy"),
            source: ShaderSource::CodeObject {
                code: Cow::Borrowed(code),
                workgroup_size: Some([256, 1, 1]),
            },
        });
        let pipeline = device.create_compute_pipeline(&ComputePipelineDescriptor {
            label: Some("copy"),
            layout: None,
            module: &module,
            entry_point: Some("vector_copy"),
            compilation_options: Default::default(),
            cache: None,
        });
        let src = device.create_buffer_init(&BufferInitDescriptor {
            label: Some("src"),
            contents: &words(&input),
            usage: BufferUsages::STORAGE,
        });
        let size = u64::from(N) * 4;
        let on_device = device.create_buffer(&BufferDescriptor {
            label: Some("on_device"),
            size,
            usage: BufferUsages::STORAGE | BufferUsages::COPY_SRC,
            mapped_at_creation: false,
        });
        let host_visible = device.create_buffer(&BufferDescriptor {
            label: Some("host_visible"),
            size,
            usage: BufferUsages::STORAGE | BufferUsages::MAP_READ,
            mapped_at_creation: false,
        });
        let staging = readback_buffer(device, size);
        let mut encoder = device.create_command_encoder(&Default::default());
        {
            let mut pass = encoder.begin_compute_pass(&Default::default());
            pass.set_pipeline(&pipeline);
            pass.set_immediates(0, &N.to_le_bytes());
            for dst in [&on_device, &host_visible] {
                pass.set_bind_group(0, &bind(device, &pipeline, &[&src, dst]), &[]);
                pass.dispatch_workgroups(N / 256, 1, 1);
            }
        }
        encoder.copy_buffer_to_buffer(&on_device, 0, &staging, 0, None);
        side.gpu_queue.submit([encoder.finish()]);
        Ok((read(device, &staging)?, read(device, &host_visible)?))
    })?;
    against_host("via a copy", &via_copy, &input)?;
    against_host("mapped directly", &direct, &input)?;
    Ok(Observation::of("via_copy", words(&via_copy)).with("direct", words(&direct)))
}

/// examples/vector_copy.rs at the HSA level: kernargs from the object's
/// metadata, one AQL dispatch, a completion signal.
fn vector_copy(side: &Side) -> Result<Observation, CheckError> {
    const N: u32 = 1 << 16;
    let code = object_for(side, "vector_copy", VECTOR_COPY)?;
    let exe = side
        .runtime
        .load_executable(&side.agent, code)
        .map_err(CheckError::hsa("loading vector_copy"))?;
    let src: Vec<u32> = (0..N).map(|i| i.wrapping_mul(2_654_435_761)).collect();
    let out = dispatch::run(
        side,
        &exe,
        &Launch {
            kernel: "vector_copy",
            grid: [N, 1, 1],
            workgroup: [256, 1, 1],
            buffers: &[words(&src), vec![0; N as usize * 4]],
            args: &[
                KernelArg::Buffer(0),
                KernelArg::Buffer(1),
                KernelArg::u32(N),
            ],
        },
    )?;
    let dst: Vec<u32> = out[1]
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    against_host("copy", &dst, &src)?;
    Ok(Observation::of("dst", out[1].clone()))
}
