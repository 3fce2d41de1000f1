//! The Aqueduct side of the HIP comparison: the six workloads of benches/hip/*.hip, run
//! through the facade with the very code objects clang-19 built from those files' device
//! code (benches/hip/gfx1100/NAME.co, loaded as `ShaderSource::CodeObject`).
//!
//! Shared by the bench (`cargo bench --bench hip`: large sizes, timed) and by
//! tests/hip_kernels.rs (small sizes, every result checked against host arithmetic), so the
//! timed path is the checked path. Each workload sets its buffers up once; `run` is the
//! timed part (as the HIP program times it) and `check` reads the results back and compares
//! them with the host's. Errors are strings naming the workload and the first wrong element.
#![allow(dead_code)]

use std::borrow::Cow;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use aqueduct::util::{BufferInitDescriptor, DeviceExt, read_mapped};
use aqueduct::*;

/// Work-items per workgroup of the reduce kernel (REDUCE_WG in reduce.hip).
pub const REDUCE_WG: u32 = 256;
/// Tile edge of the matmul kernel (TS in matmul.hip).
pub const MATMUL_TILE: u32 = 16;
/// The dispatch count of the throughput workload.
pub const DISPATCHES: u32 = 10_000;

/// The checked-in code objects next to this file for `isa` (gfx1100,
/// gfx942 or gfx90a: benches/hip/build.sh builds each).
pub fn objects_for(isa: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("benches/hip")
        .join(isa)
}

/// A device with the adapter's full limits (kernels' by-value arguments are immediates),
/// recording every uncaptured error instead of logging it.
pub struct Gpu {
    pub device: Device,
    pub queue: Queue,
    pub info: AdapterInfo,
    /// The GPU's ISA, e.g. `gfx942`.
    pub isa: String,
    errors: Arc<Mutex<Vec<String>>>,
}

impl Gpu {
    /// The checked-in code objects for this GPU's ISA.
    pub fn objects(&self) -> PathBuf {
        objects_for(&self.isa)
    }

    pub fn open(choice: DeviceChoice) -> Result<Gpu, String> {
        let instance = Instance::with_device(choice);
        let adapter = instance
            .request_adapter_sync(&RequestAdapterOptions::default())
            .map_err(|e| format!("no adapter: {e}"))?;
        let (device, queue) = adapter
            .request_device_sync(&DeviceDescriptor {
                required_features: adapter.features() - Features::all_experimental_mask(),
                required_limits: adapter.limits(),
                ..Default::default()
            })
            .map_err(|e| e.to_string())?;
        let errors = Arc::new(Mutex::new(Vec::new()));
        let sink = errors.clone();
        device.on_uncaptured_error(Arc::new(move |e: Error| {
            sink.lock()
                .unwrap_or_else(|p| p.into_inner())
                .push(e.to_string());
        }));
        Ok(Gpu {
            isa: adapter.agent().name.clone(),
            info: adapter.get_info(),
            device,
            queue,
            errors,
        })
    }

    /// The errors raised since the last call, as one Err.
    pub fn errors(&self) -> Result<(), String> {
        let mut errors = self.errors.lock().unwrap_or_else(|p| p.into_inner());
        if errors.is_empty() {
            Ok(())
        } else {
            Err(std::mem::take(&mut *errors).join("; "))
        }
    }

    pub fn wait(&self) -> Result<(), String> {
        self.device
            .poll(PollType::wait_indefinitely())
            .map_err(|e| e.to_string())?;
        self.errors()
    }

    // ANCHOR: load_code_object
    /// The kernel `entry` of `dir/file.co` with `workgroup` as its workgroup size.
    pub fn pipeline(
        &self,
        dir: &Path,
        file: &str,
        entry: &str,
        workgroup: [u32; 3],
    ) -> Result<ComputePipeline, String> {
        let path = dir.join(format!("{file}.co"));
        let code = std::fs::read(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        let module = self.device.create_shader_module(ShaderModuleDescriptor {
            label: Some(file),
            source: ShaderSource::CodeObject {
                code: Cow::Owned(code),
                workgroup_size: Some(workgroup),
            },
        });
        let pipeline = self
            .device
            .create_compute_pipeline(&ComputePipelineDescriptor {
                label: Some(entry),
                layout: None,
                module: &module,
                entry_point: Some(entry),
                compilation_options: Default::default(),
                cache: None,
            });
        self.errors().map(|()| pipeline)
    }
    // ANCHOR_END: load_code_object

    pub fn storage(&self, contents: &[u8]) -> Buffer {
        self.device.create_buffer_init(&BufferInitDescriptor {
            label: Some("storage"),
            contents,
            usage: BufferUsages::STORAGE | BufferUsages::COPY_SRC | BufferUsages::COPY_DST,
        })
    }

    pub fn readback(&self, size: u64) -> Buffer {
        self.device.create_buffer(&BufferDescriptor {
            label: Some("readback"),
            size,
            usage: BufferUsages::MAP_READ | BufferUsages::COPY_DST,
            mapped_at_creation: false,
        })
    }

    pub fn bind(&self, pipeline: &ComputePipeline, buffers: &[&Buffer]) -> BindGroup {
        let layout = pipeline.get_bind_group_layout(0);
        let entries: Vec<BindGroupEntry> = buffers
            .iter()
            .enumerate()
            .map(|(i, b)| BindGroupEntry {
                binding: i as u32,
                resource: b.as_entire_binding(),
            })
            .collect();
        self.device.create_bind_group(&BindGroupDescriptor {
            label: None,
            layout: &layout,
            entries: &entries,
        })
    }

    /// One pass: `dispatches` times the same dispatch; submitted, and waited for.
    pub fn dispatch(
        &self,
        pipeline: &ComputePipeline,
        bind: Option<&BindGroup>,
        immediates: &[u8],
        groups: [u32; 3],
        dispatches: u32,
    ) -> Result<Duration, String> {
        let start = Instant::now();
        let mut encoder = self.device.create_command_encoder(&Default::default());
        {
            let mut pass = encoder.begin_compute_pass(&Default::default());
            pass.set_pipeline(pipeline);
            if let Some(bind) = bind {
                pass.set_bind_group(0, bind, &[]);
            }
            if !immediates.is_empty() {
                pass.set_immediates(0, immediates);
            }
            for _ in 0..dispatches {
                pass.dispatch_workgroups(groups[0], groups[1], groups[2]);
            }
        }
        self.queue.submit([encoder.finish()]);
        self.wait()?;
        Ok(start.elapsed())
    }

    /// The bytes of a storage buffer (copied into a MAP_READ buffer, mapped).
    pub fn read(&self, buffer: &Buffer) -> Result<Vec<u8>, String> {
        let rb = self.readback(buffer.size());
        let mut encoder = self.device.create_command_encoder(&Default::default());
        encoder.copy_buffer_to_buffer(buffer, 0, &rb, 0, buffer.size());
        self.queue.submit([encoder.finish()]);
        let bytes = read_mapped(&self.device, &rb).map_err(|e| e.to_string())?;
        self.errors().map(|()| bytes)
    }
}

fn words(bytes: &[u8]) -> Vec<u32> {
    bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

fn floats(bytes: &[u8]) -> Vec<f32> {
    words(bytes).into_iter().map(f32::from_bits).collect()
}

fn first_mismatch<T: PartialEq + std::fmt::Debug>(
    what: &str,
    got: &[T],
    want: &[T],
) -> Result<(), String> {
    if got.len() != want.len() {
        return Err(format!(
            "{what}: {} elements, expected {}",
            got.len(),
            want.len()
        ));
    }
    match got.iter().zip(want).position(|(g, w)| g != w) {
        None => Ok(()),
        Some(i) => Err(format!(
            "{what}: element {i} is {:?}, expected {:?}",
            got[i], want[i]
        )),
    }
}

fn imm(values: &[u32]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_le_bytes()).collect()
}

/// empty.hip: one workgroup of 32 doing nothing.
pub struct Empty {
    pipeline: ComputePipeline,
}

impl Empty {
    pub fn new(gpu: &Gpu, dir: &Path) -> Result<Self, String> {
        Ok(Empty {
            pipeline: gpu.pipeline(dir, "empty", "empty", [32, 1, 1])?,
        })
    }
    /// Submit + wait of one dispatch.
    pub fn run(&self, gpu: &Gpu) -> Result<Duration, String> {
        gpu.dispatch(&self.pipeline, None, &[], [1, 1, 1], 1)
    }
}

/// bump.hip: `dispatches` one-workgroup dispatches, each bumping a counter once.
pub struct Bump {
    pipeline: ComputePipeline,
    counter: Buffer,
    bind: BindGroup,
    dispatches: u32,
}

impl Bump {
    pub fn new(gpu: &Gpu, dir: &Path, dispatches: u32) -> Result<Self, String> {
        let pipeline = gpu.pipeline(dir, "bump", "bump", [64, 1, 1])?;
        let counter = gpu.storage(&0u32.to_le_bytes());
        let bind = gpu.bind(&pipeline, &[&counter]);
        Ok(Bump {
            pipeline,
            counter,
            bind,
            dispatches,
        })
    }
    /// Zero the counter, then record, submit and wait for every dispatch (timed).
    pub fn run(&self, gpu: &Gpu) -> Result<Duration, String> {
        gpu.queue
            .write_buffer(&self.counter, 0, &0u32.to_le_bytes());
        gpu.wait()?;
        gpu.dispatch(
            &self.pipeline,
            Some(&self.bind),
            &[],
            [1, 1, 1],
            self.dispatches,
        )
    }
    pub fn check(&self, gpu: &Gpu) -> Result<(), String> {
        let count = words(&gpu.read(&self.counter)?)[0];
        if count == self.dispatches {
            Ok(())
        } else {
            Err(format!(
                "bump: counter {count}, expected {}",
                self.dispatches
            ))
        }
    }
}

/// The saxpy inputs (as saxpy.hip makes them).
pub fn saxpy_inputs(n: u32) -> (f32, Vec<f32>, Vec<f32>) {
    let x = (0..n).map(|i| (i % 1000) as f32 * 0.25).collect();
    let y = (0..n).map(|i| (i % 7) as f32).collect();
    (2.5, x, y)
}

/// saxpy.hip: y = a * x + y.
pub struct Saxpy {
    pipeline: ComputePipeline,
    a: f32,
    x: Vec<f32>,
    y: Vec<f32>,
    y_buf: Buffer,
    bind: BindGroup,
}

impl Saxpy {
    pub fn new(gpu: &Gpu, dir: &Path, n: u32) -> Result<Self, String> {
        let pipeline = gpu.pipeline(dir, "saxpy", "saxpy", [256, 1, 1])?;
        let (a, x, y) = saxpy_inputs(n);
        let x_buf = gpu.storage(bytemuck::cast_slice(&x));
        let y_buf = gpu.storage(bytemuck::cast_slice(&y));
        let bind = gpu.bind(&pipeline, &[&x_buf, &y_buf]);
        Ok(Saxpy {
            pipeline,
            a,
            x,
            y,
            y_buf,
            bind,
        })
    }
    pub fn bytes(&self) -> u64 {
        12 * self.x.len() as u64
    }
    /// Restore y (untimed), then one dispatch, waited for (timed).
    pub fn run(&self, gpu: &Gpu) -> Result<Duration, String> {
        gpu.queue
            .write_buffer(&self.y_buf, 0, bytemuck::cast_slice(&self.y));
        gpu.wait()?;
        let n = self.x.len() as u32;
        let immediates = imm(&[self.a.to_bits(), n]);
        gpu.dispatch(
            &self.pipeline,
            Some(&self.bind),
            &immediates,
            [n.div_ceil(256), 1, 1],
            1,
        )
    }
    pub fn check(&self, gpu: &Gpu) -> Result<(), String> {
        let got = floats(&gpu.read(&self.y_buf)?);
        let want: Vec<f32> = self
            .x
            .iter()
            .zip(&self.y)
            .map(|(x, y)| self.a * x + y)
            .collect();
        first_mismatch("saxpy", &got, &want)
    }
}

/// reduce.hip: per-workgroup wrapping sums of `n` u32.
pub struct Reduce {
    pipeline: ComputePipeline,
    input: Vec<u32>,
    partials: Buffer,
    bind: BindGroup,
}

impl Reduce {
    pub fn new(gpu: &Gpu, dir: &Path, n: u32) -> Result<Self, String> {
        let pipeline = gpu.pipeline(dir, "reduce", "reduce_sum", [REDUCE_WG, 1, 1])?;
        let input: Vec<u32> = (0..n).map(|i| i.wrapping_mul(2_654_435_761)).collect();
        let in_buf = gpu.storage(bytemuck::cast_slice(&input));
        let groups = n.div_ceil(REDUCE_WG) as usize;
        let partials = gpu.storage(&vec![0u8; groups * 4]);
        let bind = gpu.bind(&pipeline, &[&in_buf, &partials]);
        Ok(Reduce {
            pipeline,
            input,
            partials,
            bind,
        })
    }
    pub fn bytes(&self) -> u64 {
        4 * self.input.len() as u64
    }
    pub fn run(&self, gpu: &Gpu) -> Result<Duration, String> {
        let n = self.input.len() as u32;
        gpu.dispatch(
            &self.pipeline,
            Some(&self.bind),
            &imm(&[n]),
            [n.div_ceil(REDUCE_WG), 1, 1],
            1,
        )
    }
    pub fn check(&self, gpu: &Gpu) -> Result<(), String> {
        let got = words(&gpu.read(&self.partials)?);
        let want: Vec<u32> = self
            .input
            .chunks(REDUCE_WG as usize)
            .map(|c| c.iter().fold(0u32, |s, v| s.wrapping_add(*v)))
            .collect();
        first_mismatch("reduce", &got, &want)
    }
}

/// The word readback.hip's fill_pattern writes at `i`.
pub fn pattern(i: u32, seed: u32) -> u32 {
    i.wrapping_mul(2_654_435_761) ^ seed
}

/// readback.hip: fill `bytes` on the GPU (untimed), then copy them into host memory (timed).
pub struct Readback {
    pipeline: ComputePipeline,
    out: Buffer,
    staging: Buffer,
    bind: BindGroup,
    host: Vec<u8>,
}

impl Readback {
    pub fn new(gpu: &Gpu, dir: &Path, bytes: u64) -> Result<Self, String> {
        let pipeline = gpu.pipeline(dir, "readback", "fill_pattern", [256, 1, 1])?;
        let out = gpu.storage(&vec![0u8; bytes as usize]);
        let staging = gpu.readback(bytes);
        let bind = gpu.bind(&pipeline, &[&out]);
        Ok(Readback {
            pipeline,
            out,
            staging,
            bind,
            host: vec![0; bytes as usize],
        })
    }
    /// Fill with `seed` (untimed); then copy into the MAP_READ buffer, submit, map, copy
    /// into the host Vec and unmap (timed, like hipMemcpy device-to-host).
    pub fn run(&mut self, gpu: &Gpu, seed: u32) -> Result<Duration, String> {
        let words = (self.host.len() / 4) as u32;
        gpu.dispatch(
            &self.pipeline,
            Some(&self.bind),
            &imm(&[seed, words]),
            [words.div_ceil(256), 1, 1],
            1,
        )?;
        let start = Instant::now();
        let mut encoder = gpu.device.create_command_encoder(&Default::default());
        encoder.copy_buffer_to_buffer(&self.out, 0, &self.staging, 0, self.out.size());
        gpu.queue.submit([encoder.finish()]);
        let (tx, rx) = std::sync::mpsc::channel();
        self.staging.map_async(MapMode::Read, .., move |r| {
            let _ = tx.send(r);
        });
        gpu.wait()?;
        rx.recv()
            .map_err(|_| "readback: the map callback did not run".to_string())?
            .map_err(|e| format!("readback: map failed: {e}"))?;
        {
            let view = self
                .staging
                .get_mapped_range(..)
                .map_err(|e| e.to_string())?;
            self.host.copy_from_slice(&view);
        }
        self.staging.unmap();
        Ok(start.elapsed())
    }
    /// The words of the last run against the pattern of `seed`.
    pub fn check(&self, seed: u32) -> Result<(), String> {
        let got = words(&self.host);
        let want: Vec<u32> = (0..got.len() as u32).map(|i| pattern(i, seed)).collect();
        first_mismatch("readback", &got, &want)
    }
}

/// The matmul inputs (as matmul.hip makes them): A is m x k, B is k x n.
pub fn matmul_inputs(m: u32, n: u32, k: u32) -> (Vec<f32>, Vec<f32>) {
    let a = (0..m * k)
        .map(|i| ((i * 7) % 17) as f32 * 0.125 - 1.0)
        .collect();
    let b = (0..k * n)
        .map(|i| ((i * 5) % 13) as f32 * 0.25 - 1.5)
        .collect();
    (a, b)
}

/// C = A * B in f32 with sequential k order (what the tiled kernel computes exactly).
pub fn matmul_host(a: &[f32], b: &[f32], m: u32, n: u32, k: u32) -> Vec<f32> {
    let (m, n, k) = (m as usize, n as usize, k as usize);
    let mut c = vec![0.0f32; m * n];
    for r in 0..m {
        for col in 0..n {
            let mut acc = 0.0f32;
            for i in 0..k {
                acc += a[r * k + i] * b[i * n + col];
            }
            c[r * n + col] = acc;
        }
    }
    c
}

/// matmul.hip: C = A * B with 16 x 16 tiles in LDS.
pub struct Matmul {
    pipeline: ComputePipeline,
    dims: [u32; 3],
    a: Vec<f32>,
    b: Vec<f32>,
    c: Buffer,
    bind: BindGroup,
}

impl Matmul {
    pub fn new(gpu: &Gpu, dir: &Path, m: u32, n: u32, k: u32) -> Result<Self, String> {
        let pipeline = gpu.pipeline(dir, "matmul", "matmul", [MATMUL_TILE, MATMUL_TILE, 1])?;
        let (a, b) = matmul_inputs(m, n, k);
        let a_buf = gpu.storage(bytemuck::cast_slice(&a));
        let b_buf = gpu.storage(bytemuck::cast_slice(&b));
        let c = gpu.storage(&vec![0u8; (m * n * 4) as usize]);
        let bind = gpu.bind(&pipeline, &[&a_buf, &b_buf, &c]);
        Ok(Matmul {
            pipeline,
            dims: [m, n, k],
            a,
            b,
            c,
            bind,
        })
    }
    pub fn flops(&self) -> u64 {
        let [m, n, k] = self.dims.map(u64::from);
        2 * m * n * k
    }
    pub fn run(&self, gpu: &Gpu) -> Result<Duration, String> {
        let [m, n, _] = self.dims;
        gpu.dispatch(
            &self.pipeline,
            Some(&self.bind),
            &imm(&self.dims),
            [n.div_ceil(MATMUL_TILE), m.div_ceil(MATMUL_TILE), 1],
            1,
        )
    }
    pub fn check(&self, gpu: &Gpu) -> Result<(), String> {
        let [m, n, k] = self.dims;
        let got: Vec<u32> = floats(&gpu.read(&self.c)?)
            .into_iter()
            .map(f32::to_bits)
            .collect();
        let want: Vec<u32> = matmul_host(&self.a, &self.b, m, n, k)
            .into_iter()
            .map(f32::to_bits)
            .collect();
        first_mismatch("matmul (f32 bits)", &got, &want)
    }
}
