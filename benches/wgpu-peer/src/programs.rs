//! Whole wgpu programs for `cargo bench --bench end_to_end`: each creates its
//! shader modules, pipelines and buffers, uploads its input, dispatches,
//! reads the result back and checks it against the host's answer, on
//! whatever `wgpu::Device` it is given (Aqueduct through aqueduct-wgpu, or
//! lavapipe). Nothing is shared between runs but the device.

use std::sync::mpsc;

use wgpu::util::DeviceExt;

/// A program: its name and its body (an error says what came out wrong).
pub struct Program {
    pub name: &'static str,
    pub run: fn(&wgpu::Device, &wgpu::Queue) -> Result<(), String>,
}

/// Every program, in the order the bench prints them.
pub const PROGRAMS: &[Program] = &[
    Program {
        name: "hello_compute",
        run: hello_compute,
    },
    Program {
        name: "saxpy_1m",
        run: saxpy,
    },
    Program {
        name: "reduce_pipeline",
        run: reduce_pipeline,
    },
    Program {
        name: "matmul_128",
        run: matmul,
    },
    Program {
        name: "small_dispatches",
        run: small_dispatches,
    },
];

fn storage(device: &wgpu::Device, contents: &[u8]) -> wgpu::Buffer {
    device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: None,
        contents,
        usage: wgpu::BufferUsages::STORAGE
            | wgpu::BufferUsages::COPY_SRC
            | wgpu::BufferUsages::COPY_DST,
    })
}

fn empty_storage(device: &wgpu::Device, size: u64) -> wgpu::Buffer {
    device.create_buffer(&wgpu::BufferDescriptor {
        label: None,
        size,
        usage: wgpu::BufferUsages::STORAGE
            | wgpu::BufferUsages::COPY_SRC
            | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    })
}

fn pipeline(device: &wgpu::Device, wgsl: &str, entry: &str) -> wgpu::ComputePipeline {
    let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: Some(entry),
        source: wgpu::ShaderSource::Wgsl(wgsl.into()),
    });
    device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
        label: Some(entry),
        layout: None,
        module: &module,
        entry_point: Some(entry),
        compilation_options: Default::default(),
        cache: None,
    })
}

fn bind(
    device: &wgpu::Device,
    p: &wgpu::ComputePipeline,
    buffers: &[&wgpu::Buffer],
) -> wgpu::BindGroup {
    let entries: Vec<wgpu::BindGroupEntry> = buffers
        .iter()
        .enumerate()
        .map(|(i, b)| wgpu::BindGroupEntry {
            binding: i as u32,
            resource: b.as_entire_binding(),
        })
        .collect();
    device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: None,
        layout: &p.get_bind_group_layout(0),
        entries: &entries,
    })
}

/// Copies `src` into a fresh MAP_READ buffer with `encoder`'s work, submits,
/// maps it and returns its bytes.
fn submit_and_read(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    mut encoder: wgpu::CommandEncoder,
    src: &wgpu::Buffer,
) -> Result<Vec<u8>, String> {
    let size = src.size();
    let staging = device.create_buffer(&wgpu::BufferDescriptor {
        label: None,
        size,
        usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    encoder.copy_buffer_to_buffer(src, 0, &staging, 0, size);
    queue.submit([encoder.finish()]);
    let (tx, rx) = mpsc::channel();
    staging.map_async(wgpu::MapMode::Read, .., move |r| {
        let _ = tx.send(r);
    });
    device
        .poll(wgpu::PollType::wait_indefinitely())
        .map_err(|e| format!("poll: {e}"))?;
    rx.recv()
        .map_err(|_| "map callback dropped".to_string())?
        .map_err(|e| format!("map_async: {e}"))?;
    let bytes = staging
        .get_mapped_range(..)
        .map_err(|e| format!("get_mapped_range: {e}"))?
        .to_vec();
    staging.unmap();
    Ok(bytes)
}

fn encoder(device: &wgpu::Device) -> wgpu::CommandEncoder {
    device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: None })
}

fn words(bytes: &[u8]) -> Vec<u32> {
    bytemuck::pod_collect_to_vec(bytes)
}

fn floats(bytes: &[u8]) -> Vec<f32> {
    bytemuck::pod_collect_to_vec(bytes)
}

const COLLATZ_WGSL: &str = r#"
@group(0) @binding(0) var<storage, read_write> values: array<u32>;

fn collatz_steps(start: u32) -> u32 {
    var n = start;
    var steps = 0u;
    loop {
        if (n <= 1u) { break; }
        if (n % 2u == 0u) {
            n = n / 2u;
        } else {
            if (n >= 1431655765u) { return 4294967295u; }
            n = 3u * n + 1u;
        }
        steps = steps + 1u;
    }
    return steps;
}

@compute @workgroup_size(1)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    values[id.x] = collatz_steps(values[id.x]);
}
"#;

fn collatz_host(mut n: u32) -> u32 {
    let mut steps = 0;
    while n > 1 {
        if n.is_multiple_of(2) {
            n /= 2;
        } else {
            if n >= 1_431_655_765 {
                return u32::MAX;
            }
            n = 3 * n + 1;
        }
        steps += 1;
    }
    steps
}

/// wgpu's hello_compute (Collatz steps), on 1024 numbers: one invocation per
/// workgroup, one workgroup per number.
fn hello_compute(device: &wgpu::Device, queue: &wgpu::Queue) -> Result<(), String> {
    let numbers: Vec<u32> = (1..=1024).collect();
    let buffer = storage(device, bytemuck::cast_slice(&numbers));
    let p = pipeline(device, COLLATZ_WGSL, "main");
    let bg = bind(device, &p, &[&buffer]);
    let mut e = encoder(device);
    {
        let mut pass = e.begin_compute_pass(&wgpu::ComputePassDescriptor::default());
        pass.set_pipeline(&p);
        pass.set_bind_group(0, &bg, &[]);
        pass.dispatch_workgroups(numbers.len() as u32, 1, 1);
    }
    let got = words(&submit_and_read(device, queue, e, &buffer)?);
    for (n, g) in numbers.iter().zip(&got) {
        if *g != collatz_host(*n) {
            return Err(format!("collatz({n}) = {g}, expected {}", collatz_host(*n)));
        }
    }
    Ok(())
}

const SAXPY_WGSL: &str = r#"
struct Params { a: f32, n: u32 }
@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> y: array<f32>;
@group(0) @binding(2) var<uniform> params: Params;

@compute @workgroup_size(256)
fn saxpy(@builtin(global_invocation_id) id: vec3<u32>) {
    if (id.x < params.n) {
        y[id.x] = params.a * x[id.x] + y[id.x];
    }
}
"#;

/// saxpy on 1M floats: upload x and y (8 MiB), one dispatch, read y back.
fn saxpy(device: &wgpu::Device, queue: &wgpu::Queue) -> Result<(), String> {
    let n = 1u32 << 20;
    let x: Vec<f32> = (0..n).map(|i| (i % 1000) as f32 * 0.5).collect();
    let y: Vec<f32> = (0..n).map(|i| (i % 7) as f32).collect();
    let a = 2.5f32;
    let xb = storage(device, bytemuck::cast_slice(&x));
    let yb = storage(device, bytemuck::cast_slice(&y));
    let mut params = a.to_le_bytes().to_vec();
    params.extend_from_slice(&n.to_le_bytes());
    let pb = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: None,
        contents: &params,
        usage: wgpu::BufferUsages::UNIFORM,
    });
    let p = pipeline(device, SAXPY_WGSL, "saxpy");
    let bg = bind(device, &p, &[&xb, &yb, &pb]);
    let mut e = encoder(device);
    {
        let mut pass = e.begin_compute_pass(&wgpu::ComputePassDescriptor::default());
        pass.set_pipeline(&p);
        pass.set_bind_group(0, &bg, &[]);
        pass.dispatch_workgroups(n.div_ceil(256), 1, 1);
    }
    let got = floats(&submit_and_read(device, queue, e, &yb)?);
    for i in 0..n as usize {
        let want = a.mul_add(x[i], y[i]);
        if (got[i] - want).abs() > 1e-4 * want.abs().max(1.0) {
            return Err(format!("y[{i}] = {}, expected {want}", got[i]));
        }
    }
    Ok(())
}

const REDUCE_WGSL: &str = r#"
@group(0) @binding(0) var<storage, read> input: array<f32>;
@group(0) @binding(1) var<storage, read_write> output: array<f32>;

var<workgroup> partial: array<f32, 256>;

// Squares each element and sums 256 of them per workgroup (tree reduction
// in workgroup memory).
@compute @workgroup_size(256)
fn square_sum(@builtin(global_invocation_id) gid: vec3<u32>,
              @builtin(local_invocation_index) lid: u32,
              @builtin(workgroup_id) wid: vec3<u32>) {
    let v = input[gid.x];
    partial[lid] = v * v;
    workgroupBarrier();
    for (var s = 128u; s > 0u; s = s / 2u) {
        if (lid < s) {
            partial[lid] = partial[lid] + partial[lid + s];
        }
        workgroupBarrier();
    }
    if (lid == 0u) {
        output[wid.x] = partial[0];
    }
}

// Sums 256 elements per workgroup (the same tree, no squaring).
@compute @workgroup_size(256)
fn sum(@builtin(global_invocation_id) gid: vec3<u32>,
       @builtin(local_invocation_index) lid: u32,
       @builtin(workgroup_id) wid: vec3<u32>) {
    partial[lid] = input[gid.x];
    workgroupBarrier();
    for (var s = 128u; s > 0u; s = s / 2u) {
        if (lid < s) {
            partial[lid] = partial[lid] + partial[lid + s];
        }
        workgroupBarrier();
    }
    if (lid == 0u) {
        output[wid.x] = partial[0];
    }
}
"#;

/// A multi-kernel pipeline: the sum of squares of 256 Ki floats by three
/// chained reductions (256 Ki → 1 Ki → 4 → partial sums), eight times with
/// fresh uploads between them, each result read back.
fn reduce_pipeline(device: &wgpu::Device, queue: &wgpu::Queue) -> Result<(), String> {
    let n = 256 * 1024u32;
    let square_sum = pipeline(device, REDUCE_WGSL, "square_sum");
    let sum = pipeline(device, REDUCE_WGSL, "sum");
    let input = storage(device, &vec![0u8; n as usize * 4]);
    let stage1 = empty_storage(device, u64::from(n / 256) * 4);
    let stage2 = empty_storage(device, 256 * 4);
    let out = empty_storage(device, 256 * 4);
    let bg1 = bind(device, &square_sum, &[&input, &stage1]);
    let bg2 = bind(device, &sum, &[&stage1, &stage2]);
    let bg3 = bind(device, &sum, &[&stage2, &out]);
    for round in 0..8u32 {
        // Small integers keep every partial sum exact in f32.
        let data: Vec<f32> = (0..n).map(|i| ((i + round) % 4) as f32).collect();
        queue.write_buffer(&input, 0, bytemuck::cast_slice(&data));
        let mut e = encoder(device);
        {
            let mut pass = e.begin_compute_pass(&wgpu::ComputePassDescriptor::default());
            pass.set_pipeline(&square_sum);
            pass.set_bind_group(0, &bg1, &[]);
            pass.dispatch_workgroups(n / 256, 1, 1);
            pass.set_pipeline(&sum);
            pass.set_bind_group(0, &bg2, &[]);
            pass.dispatch_workgroups(n / 256 / 256, 1, 1);
            pass.set_bind_group(0, &bg3, &[]);
            pass.dispatch_workgroups(1, 1, 1);
        }
        let got = floats(&submit_and_read(device, queue, e, &out)?)[0];
        let want: f32 = data.iter().map(|v| v * v).sum();
        if got != want {
            return Err(format!(
                "round {round}: sum of squares {got}, expected {want}"
            ));
        }
    }
    Ok(())
}

const MATMUL_WGSL: &str = r#"
const N: u32 = 128u;
const T: u32 = 16u;
@group(0) @binding(0) var<storage, read> a: array<f32>;
@group(0) @binding(1) var<storage, read> b: array<f32>;
@group(0) @binding(2) var<storage, read_write> c: array<f32>;

var<workgroup> ta: array<f32, 256>;
var<workgroup> tb: array<f32, 256>;

// C = A × B for N×N row-major matrices, 16×16 tiles in workgroup memory.
@compute @workgroup_size(16, 16)
fn matmul(@builtin(global_invocation_id) gid: vec3<u32>,
          @builtin(local_invocation_id) lid: vec3<u32>) {
    let row = gid.y;
    let col = gid.x;
    var acc = 0.0;
    for (var t = 0u; t < N / T; t++) {
        ta[lid.y * T + lid.x] = a[row * N + t * T + lid.x];
        tb[lid.y * T + lid.x] = b[(t * T + lid.y) * N + col];
        workgroupBarrier();
        for (var k = 0u; k < T; k++) {
            acc = acc + ta[lid.y * T + k] * tb[k * T + lid.x];
        }
        workgroupBarrier();
    }
    c[row * N + col] = acc;
}
"#;

/// A 128×128 matrix product with workgroup-memory tiles.
fn matmul(device: &wgpu::Device, queue: &wgpu::Queue) -> Result<(), String> {
    const N: usize = 128;
    // Small integers keep every product and sum exact in f32.
    let a: Vec<f32> = (0..N * N).map(|i| (i % 5) as f32).collect();
    let b: Vec<f32> = (0..N * N).map(|i| (i % 3) as f32 - 1.0).collect();
    let ab = storage(device, bytemuck::cast_slice(&a));
    let bb = storage(device, bytemuck::cast_slice(&b));
    let cb = empty_storage(device, (N * N * 4) as u64);
    let p = pipeline(device, MATMUL_WGSL, "matmul");
    let bg = bind(device, &p, &[&ab, &bb, &cb]);
    let mut e = encoder(device);
    {
        let mut pass = e.begin_compute_pass(&wgpu::ComputePassDescriptor::default());
        pass.set_pipeline(&p);
        pass.set_bind_group(0, &bg, &[]);
        pass.dispatch_workgroups((N / 16) as u32, (N / 16) as u32, 1);
    }
    let got = floats(&submit_and_read(device, queue, e, &cb)?);
    for r in 0..N {
        for c in 0..N {
            let want: f32 = (0..N).map(|k| a[r * N + k] * b[k * N + c]).sum();
            if got[r * N + c] != want {
                return Err(format!("c[{r}][{c}] = {}, expected {want}", got[r * N + c]));
            }
        }
    }
    Ok(())
}

const BUMP_WGSL: &str = r#"
@group(0) @binding(0) var<storage, read_write> counter: array<atomic<u32>>;

@compute @workgroup_size(64)
fn bump(@builtin(local_invocation_index) lid: u32) {
    if (lid == 0u) {
        atomicAdd(&counter[0], 1u);
    }
}
"#;

/// 256 small buffers, a bind group each, four dispatches per buffer in one
/// pass, every counter gathered into one buffer and read back.
fn small_dispatches(device: &wgpu::Device, queue: &wgpu::Queue) -> Result<(), String> {
    const BUFFERS: usize = 256;
    let p = pipeline(device, BUMP_WGSL, "bump");
    let buffers: Vec<wgpu::Buffer> = (0..BUFFERS).map(|_| storage(device, &[0; 4])).collect();
    let groups: Vec<wgpu::BindGroup> = buffers.iter().map(|b| bind(device, &p, &[b])).collect();
    let gathered = empty_storage(device, (BUFFERS * 4) as u64);
    let mut e = encoder(device);
    {
        let mut pass = e.begin_compute_pass(&wgpu::ComputePassDescriptor::default());
        pass.set_pipeline(&p);
        for _ in 0..4 {
            for g in &groups {
                pass.set_bind_group(0, g, &[]);
                pass.dispatch_workgroups(1, 1, 1);
            }
        }
    }
    for (i, b) in buffers.iter().enumerate() {
        e.copy_buffer_to_buffer(b, 0, &gathered, i as u64 * 4, 4);
    }
    let got = words(&submit_and_read(device, queue, e, &gathered)?);
    if let Some(i) = got.iter().position(|&c| c != 4) {
        return Err(format!("counter {i} is {}, expected 4", got[i]));
    }
    Ok(())
}
