//! Compute-bound kernels on both sides: the engine of `cargo bench --bench
//! compute`. Three WGSL kernels (a transcendental loop, a tiled matrix
//! product, an n-body step) run unchanged on Aqueduct (gfxsim, through
//! aqueduct-wgpu, with the translator when built in) and on lavapipe, in
//! this one process.
//!
//! Unlike end-to-end, the figure is the kernel alone: per side, buffers and
//! the pipeline are made once, one warm-up dispatch compiles everything
//! (shaders, and gfxsim's translations of hot blocks, whose cache it
//! fills), then each timed run is one submit of the dispatch plus the wait
//! for it; sides alternate run by run so machine noise falls on both. The
//! output of each side is read back once and checked against the host's
//! answer (f64 for the transcendental loop and the n-body step).

use std::time::{Duration, Instant};

use wgpu::util::DeviceExt;

use crate::gpu::Gpu;

/// Problem sizes: full (about a minute in all on two cores) or quick.
#[derive(Clone, Copy)]
pub struct Sizes {
    /// Invocations of the transcendental loop.
    pub transcendental: u32,
    /// Side of the square matrices.
    pub matmul: u32,
    /// Bodies of the n-body step.
    pub bodies: u32,
}

impl Sizes {
    pub fn new(quick: bool) -> Sizes {
        if quick {
            Sizes {
                transcendental: 1 << 18,
                matmul: 256,
                bodies: 2048,
            }
        } else {
            Sizes {
                transcendental: 1 << 20,
                matmul: 512,
                bodies: 4096,
            }
        }
    }
}

/// Iterations of the transcendental loop per invocation.
const ITERATIONS: u32 = 32;

/// Largest error, in units in the last place of the host's f64 answer
/// rounded to f32, a transcendental-loop result may have: each iteration's
/// f32 sqrt, exp and fma round (Vulkan allows exp 3 + 2|x| ULP), and the
/// loop contracts the error it carries.
const TRANSCENDENTAL_MAX_ULP: u32 = 16;

const TRANSCENDENTAL_WGSL: &str = r#"
@group(0) @binding(0) var<storage, read> input: array<f32>;
@group(0) @binding(1) var<storage, read_write> output: array<f32>;

// 32 rounds of sqrt, exp and multiply-add per invocation; x stays in
// (0, 8], every term is positive (no cancellation to magnify rounding).
@compute @workgroup_size(256)
fn transcendental(@builtin(global_invocation_id) id: vec3<u32>) {
    if (id.x >= arrayLength(&input)) { return; }
    var x = input[id.x];
    var acc = 0.0;
    for (var i = 0u; i < 32u; i++) {
        let e = exp(-sqrt(x));
        acc = fma(e, 0.25, acc);
        x = fma(x, 0.75, e);
    }
    output[id.x] = acc;
}
"#;

/// The transcendental loop of one input, in f64.
fn transcendental_host(x0: f32) -> f64 {
    let mut x = f64::from(x0);
    let mut acc = 0.0f64;
    for _ in 0..ITERATIONS {
        let e = (-x.sqrt()).exp();
        acc = e.mul_add(0.25, acc);
        x = x.mul_add(0.75, e);
    }
    acc
}

/// Distance in f32 units in the last place between `got` and `want`
/// (both finite and positive here).
fn ulps(got: f32, want: f32) -> u32 {
    got.to_bits().abs_diff(want.to_bits())
}

const MATMUL_WGSL: &str = r#"
const T: u32 = 16u;
struct Params { n: u32 }
@group(0) @binding(0) var<storage, read> a: array<f32>;
@group(0) @binding(1) var<storage, read> b: array<f32>;
@group(0) @binding(2) var<storage, read_write> c: array<f32>;
@group(0) @binding(3) var<uniform> params: Params;

var<workgroup> ta: array<f32, 256>;
var<workgroup> tb: array<f32, 256>;

// C = A × B for n×n row-major matrices (n a multiple of 16), 16×16 tiles
// in workgroup memory.
@compute @workgroup_size(16, 16)
fn matmul(@builtin(global_invocation_id) gid: vec3<u32>,
          @builtin(local_invocation_id) lid: vec3<u32>) {
    let n = params.n;
    let row = gid.y;
    let col = gid.x;
    var acc = 0.0;
    for (var t = 0u; t < n / T; t++) {
        ta[lid.y * T + lid.x] = a[row * n + t * T + lid.x];
        tb[lid.y * T + lid.x] = b[(t * T + lid.y) * n + col];
        workgroupBarrier();
        for (var k = 0u; k < T; k++) {
            acc = fma(ta[lid.y * T + k], tb[k * T + lid.x], acc);
        }
        workgroupBarrier();
    }
    c[row * n + col] = acc;
}
"#;

const NBODY_WGSL: &str = r#"
struct Params { dt: f32, softening: f32 }
// xyz: position, w: mass.
@group(0) @binding(0) var<storage, read> bodies: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read> velocities: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read_write> out_bodies: array<vec4<f32>>;
@group(0) @binding(3) var<storage, read_write> out_velocities: array<vec4<f32>>;
@group(0) @binding(4) var<uniform> params: Params;

// One step of a gravitational n-body system: every body's acceleration
// from all others (softened), then velocity and position updates.
@compute @workgroup_size(64)
fn nbody(@builtin(global_invocation_id) id: vec3<u32>) {
    let i = id.x;
    let n = arrayLength(&bodies);
    if (i >= n) { return; }
    let p = bodies[i].xyz;
    var a = vec3<f32>(0.0);
    for (var j = 0u; j < n; j++) {
        let q = bodies[j];
        let d = q.xyz - p;
        let r2 = dot(d, d) + params.softening;
        let inv = inverseSqrt(r2);
        a += d * (q.w * inv * inv * inv);
    }
    let v = velocities[i].xyz + a * params.dt;
    out_velocities[i] = vec4<f32>(v, 0.0);
    out_bodies[i] = vec4<f32>(p + v * params.dt, bodies[i].w);
}
"#;

const NBODY_DT: f32 = 0.01;
const NBODY_SOFTENING: f32 = 0.01;

/// One side's prepared kernel: the pass to time and the buffer to check.
struct Prepared {
    pipeline: wgpu::ComputePipeline,
    bind_group: wgpu::BindGroup,
    groups: (u32, u32),
    /// Output buffers, each read back for the check.
    outputs: Vec<wgpu::Buffer>,
}

/// Checks one side's read-back outputs; the JSON says how close they came.
type Check = Box<dyn Fn(&[Vec<u8>]) -> Result<serde_json::Value, String>>;

/// A kernel: its inputs (the same on both sides), how to prepare it on a
/// device and how to check its read-back outputs.
struct Kernel {
    name: &'static str,
    /// Work done per dispatch, for the JSON (e.g. "1048576 invocations").
    work: String,
    prepare: Box<dyn Fn(&wgpu::Device) -> Prepared>,
    check: Check,
}

fn storage(device: &wgpu::Device, contents: &[u8]) -> wgpu::Buffer {
    device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: None,
        contents,
        usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
    })
}

fn output(device: &wgpu::Device, size: u64) -> wgpu::Buffer {
    device.create_buffer(&wgpu::BufferDescriptor {
        label: None,
        size,
        usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
        mapped_at_creation: false,
    })
}

fn uniform(device: &wgpu::Device, contents: &[u8]) -> wgpu::Buffer {
    device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: None,
        contents,
        usage: wgpu::BufferUsages::UNIFORM,
    })
}

fn prepared(
    device: &wgpu::Device,
    wgsl: &str,
    entry: &str,
    buffers: &[&wgpu::Buffer],
    groups: (u32, u32),
    outputs: Vec<wgpu::Buffer>,
) -> Prepared {
    let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: Some(entry),
        source: wgpu::ShaderSource::Wgsl(wgsl.into()),
    });
    let pipeline = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
        label: Some(entry),
        layout: None,
        module: &module,
        entry_point: Some(entry),
        compilation_options: Default::default(),
        cache: None,
    });
    let entries: Vec<wgpu::BindGroupEntry> = buffers
        .iter()
        .enumerate()
        .map(|(i, b)| wgpu::BindGroupEntry {
            binding: i as u32,
            resource: b.as_entire_binding(),
        })
        .collect();
    let bind_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: None,
        layout: &pipeline.get_bind_group_layout(0),
        entries: &entries,
    });
    Prepared {
        pipeline,
        bind_group,
        groups,
        outputs,
    }
}

fn floats(bytes: &[u8]) -> Vec<f32> {
    bytemuck::pod_collect_to_vec(bytes)
}

/// A small deterministic generator (xorshift32), so both sides and the
/// host see the same inputs without a dependency.
fn random_unit(state: &mut u32) -> f32 {
    *state ^= *state << 13;
    *state ^= *state >> 17;
    *state ^= *state << 5;
    (*state >> 8) as f32 / (1u32 << 24) as f32
}

fn transcendental(n: u32) -> Kernel {
    let mut seed = 0x1234_5678;
    let input: Vec<f32> = (0..n).map(|_| 8.0 * random_unit(&mut seed)).collect();
    let host_input = input.clone();
    Kernel {
        name: "transcendental",
        work: format!("{n} invocations x {ITERATIONS} iterations"),
        prepare: Box::new(move |device| {
            let i = storage(device, bytemuck::cast_slice(&input));
            let o = output(device, u64::from(n) * 4);
            prepared(
                device,
                TRANSCENDENTAL_WGSL,
                "transcendental",
                &[&i, &o],
                (n.div_ceil(256), 1),
                vec![o.clone()],
            )
        }),
        check: Box::new(move |outs| {
            let got = floats(&outs[0]);
            let mut worst = 0;
            for (k, (&x, &g)) in host_input.iter().zip(&got).enumerate() {
                let want = transcendental_host(x) as f32;
                let d = ulps(g, want);
                if !g.is_finite() || d > TRANSCENDENTAL_MAX_ULP {
                    return Err(format!(
                        "transcendental[{k}] (x = {x}) = {g}, expected {want} ({d} ULP apart)"
                    ));
                }
                worst = worst.max(d);
            }
            Ok(serde_json::json!({ "max_ulp": worst }))
        }),
    }
}

fn matmul(n: u32) -> Kernel {
    let len = (n * n) as usize;
    // Small integers keep every product and sum exact in f32.
    let a: Vec<f32> = (0..len).map(|i| (i % 5) as f32).collect();
    let b: Vec<f32> = (0..len).map(|i| (i % 3) as f32 - 1.0).collect();
    let (ha, hb) = (a.clone(), b.clone());
    Kernel {
        name: "matmul",
        work: format!("{n}x{n} by {n}x{n}"),
        prepare: Box::new(move |device| {
            let ab = storage(device, bytemuck::cast_slice(&a));
            let bb = storage(device, bytemuck::cast_slice(&b));
            let cb = output(device, len as u64 * 4);
            let pb = uniform(device, &n.to_le_bytes());
            prepared(
                device,
                MATMUL_WGSL,
                "matmul",
                &[&ab, &bb, &cb, &pb],
                (n / 16, n / 16),
                vec![cb.clone()],
            )
        }),
        check: Box::new(move |outs| {
            let got = floats(&outs[0]);
            let n = n as usize;
            // Row by row: c[r] = sum over k of a[r][k] * b[k].
            let mut row = vec![0f32; n];
            for r in 0..n {
                row.fill(0.0);
                for k in 0..n {
                    let x = ha[r * n + k];
                    for (c, y) in row.iter_mut().zip(&hb[k * n..(k + 1) * n]) {
                        *c += x * y;
                    }
                }
                if let Some(c) = (0..n).find(|&c| got[r * n + c] != row[c]) {
                    return Err(format!(
                        "c[{r}][{c}] = {}, expected {}",
                        got[r * n + c],
                        row[c]
                    ));
                }
            }
            Ok(serde_json::json!({}))
        }),
    }
}

fn nbody(n: u32) -> Kernel {
    let mut seed = 0x9e37_79b9;
    let mut bodies = Vec::with_capacity(n as usize * 4);
    let mut velocities = Vec::with_capacity(n as usize * 4);
    for _ in 0..n {
        for _ in 0..3 {
            bodies.push(2.0 * random_unit(&mut seed) - 1.0);
        }
        bodies.push(0.5 + random_unit(&mut seed));
        for _ in 0..3 {
            velocities.push(0.1 * random_unit(&mut seed) - 0.05);
        }
        velocities.push(0.0);
    }
    let (hb, hv) = (bodies.clone(), velocities.clone());
    Kernel {
        name: "nbody",
        work: format!("{n} bodies, {} interactions", u64::from(n) * u64::from(n)),
        prepare: Box::new(move |device| {
            let b = storage(device, bytemuck::cast_slice(&bodies));
            let v = storage(device, bytemuck::cast_slice(&velocities));
            let ob = output(device, u64::from(n) * 16);
            let ov = output(device, u64::from(n) * 16);
            let mut params = NBODY_DT.to_le_bytes().to_vec();
            params.extend_from_slice(&NBODY_SOFTENING.to_le_bytes());
            let pb = uniform(device, &params);
            prepared(
                device,
                NBODY_WGSL,
                "nbody",
                &[&b, &v, &ob, &ov, &pb],
                (n.div_ceil(64), 1),
                vec![ob.clone(), ov.clone()],
            )
        }),
        check: Box::new(move |outs| nbody_check(&hb, &hv, &floats(&outs[0]), &floats(&outs[1]))),
    }
}

/// Checks an n-body step against the host's f64 answer. The acceleration
/// sums terms of both signs, so each component's tolerance scales with the
/// sum of its terms' magnitudes (f32 rounding of each term, inverseSqrt's
/// 2 ULP), not with the result.
fn nbody_check(
    bodies: &[f32],
    velocities: &[f32],
    got_bodies: &[f32],
    got_velocities: &[f32],
) -> Result<serde_json::Value, String> {
    let n = bodies.len() / 4;
    let dt = f64::from(NBODY_DT);
    let mut worst = 0f64;
    for i in 0..n {
        let p: [f64; 3] = std::array::from_fn(|c| f64::from(bodies[i * 4 + c]));
        let (mut a, mut mag) = ([0f64; 3], [0f64; 3]);
        for j in 0..n {
            let d: [f64; 3] = std::array::from_fn(|c| f64::from(bodies[j * 4 + c]) - p[c]);
            let r2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2] + f64::from(NBODY_SOFTENING);
            let s = f64::from(bodies[j * 4 + 3]) / (r2 * r2.sqrt());
            for c in 0..3 {
                a[c] += d[c] * s;
                mag[c] += (d[c] * s).abs();
            }
        }
        for c in 0..3 {
            let v = f64::from(velocities[i * 4 + c]) + a[c] * dt;
            let x = p[c] + v * dt;
            // Per term: a few f32 roundings (2^-24 each) and inverseSqrt's
            // 2 ULP cubed: 2^-16 of the magnitude covers them with room.
            let tol_v = mag[c] * dt * 2f64.powi(-16) + v.abs() * 2f64.powi(-21);
            let tol_x = tol_v * dt + x.abs() * 2f64.powi(-21);
            let (gv, gx) = (
                f64::from(got_velocities[i * 4 + c]),
                f64::from(got_bodies[i * 4 + c]),
            );
            if (gv - v).abs() > tol_v || (gx - x).abs() > tol_x || gv.is_nan() || gx.is_nan() {
                return Err(format!(
                    "body {i} axis {c}: velocity {gv} position {gx}, expected {v} and {x} \
                     (tolerances {tol_v:e}, {tol_x:e})"
                ));
            }
            worst = worst.max((gv - v).abs() / tol_v);
        }
        if got_bodies[i * 4 + 3] != bodies[i * 4 + 3] {
            return Err(format!("body {i}: mass {} changed", got_bodies[i * 4 + 3]));
        }
    }
    Ok(serde_json::json!({ "worst_velocity_error_of_tolerance": worst }))
}

/// Submits one dispatch of `p` and waits for it.
fn dispatch(device: &wgpu::Device, queue: &wgpu::Queue, p: &Prepared) -> Result<(), String> {
    let mut e = device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: None });
    {
        let mut pass = e.begin_compute_pass(&wgpu::ComputePassDescriptor::default());
        pass.set_pipeline(&p.pipeline);
        pass.set_bind_group(0, &p.bind_group, &[]);
        pass.dispatch_workgroups(p.groups.0, p.groups.1, 1);
    }
    queue.submit([e.finish()]);
    device
        .poll(wgpu::PollType::wait_indefinitely())
        .map(|_| ())
        .map_err(|e| format!("poll: {e}"))
}

/// Reads every output buffer of `p` back.
fn read_outputs(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    p: &Prepared,
) -> Result<Vec<Vec<u8>>, String> {
    let mut e = device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: None });
    let staging: Vec<wgpu::Buffer> = p
        .outputs
        .iter()
        .map(|o| {
            let s = device.create_buffer(&wgpu::BufferDescriptor {
                label: None,
                size: o.size(),
                usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            });
            e.copy_buffer_to_buffer(o, 0, &s, 0, o.size());
            s
        })
        .collect();
    queue.submit([e.finish()]);
    let (tx, rx) = std::sync::mpsc::channel();
    for s in &staging {
        let tx = tx.clone();
        s.map_async(wgpu::MapMode::Read, .., move |r| {
            let _ = tx.send(r);
        });
    }
    device
        .poll(wgpu::PollType::wait_indefinitely())
        .map_err(|e| format!("poll: {e}"))?;
    for _ in &staging {
        rx.recv()
            .map_err(|_| "map callback dropped".to_string())?
            .map_err(|e| format!("map_async: {e}"))?;
    }
    staging
        .iter()
        .map(|s| {
            let bytes = s
                .get_mapped_range(..)
                .map_err(|e| format!("get_mapped_range: {e}"))?
                .to_vec();
            s.unmap();
            Ok(bytes)
        })
        .collect()
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// The Aqueduct side: a wgpu device of aqueduct-wgpu's instance.
fn open_aqueduct() -> Result<(wgpu::Device, wgpu::Queue), String> {
    let instance = aqueduct_wgpu::instance();
    let adapter =
        pollster::block_on(instance.request_adapter(&wgpu::RequestAdapterOptions::default()))
            .map_err(|e| format!("aqueduct-wgpu request_adapter: {e}"))?;
    pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor::default()))
        .map_err(|e| format!("aqueduct-wgpu request_device: {e}"))
}

/// What runs gfxsim's wave code: the interpreter or a translator back end.
fn aqueduct_engine() -> String {
    match (aqueduct_isa::jit_mode(), aqueduct_isa::jit_backend()) {
        (aqueduct_isa::JitMode::Off, _) | (_, None) => "interpreter".into(),
        (mode, Some(backend)) => format!("{backend:?} translator ({mode:?})").to_lowercase(),
    }
}

/// Dispatch `k` on Aqueduct until gfxsim's background translations settle:
/// a dispatch that made no block newly hot, with none still compiling (at
/// most 20 dispatches). Otherwise the first timed runs on an empty
/// translation cache are partly interpreted.
fn settle_translations(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    k: &Prepared,
) -> Result<(), String> {
    for _ in 0..20 {
        let (requested, _) = aqueduct_isa::background_translations();
        let start = Instant::now();
        while aqueduct_isa::background_translations().1 != 0
            && start.elapsed() < Duration::from_secs(60)
        {
            std::thread::sleep(Duration::from_millis(2));
        }
        dispatch(device, queue, k)?;
        if aqueduct_isa::background_translations() == (requested, 0) {
            break;
        }
    }
    Ok(())
}

/// Runs the kernels (only the one named `only`, when given: for profiling
/// one kernel).
pub fn run(
    lavapipe: &Gpu,
    runs: usize,
    quick: bool,
    only: Option<&str>,
) -> Result<serde_json::Value, String> {
    if runs == 0 {
        return Err("--runs must be > 0".into());
    }
    let sizes = Sizes::new(quick);
    let (aq_device, aq_queue) = open_aqueduct()?;
    let (wg_device, wg_queue) = (&lavapipe.device, &lavapipe.queue);
    let kernels = [
        transcendental(sizes.transcendental),
        matmul(sizes.matmul),
        nbody(sizes.bodies),
    ];
    if let Some(name) = only
        && !kernels.iter().any(|k| k.name == name)
    {
        return Err(format!("--only {name:?}: no such kernel"));
    }
    let mut rows = Vec::new();
    for k in kernels.iter().filter(|k| only.is_none_or(|n| n == k.name)) {
        let aq = (k.prepare)(&aq_device);
        let wg = (k.prepare)(wg_device);
        // Warm-up: shader compilation, lavapipe's JIT, gfxsim's translations.
        let warm_up = Instant::now();
        dispatch(&aq_device, &aq_queue, &aq)?;
        let aq_first = warm_up.elapsed();
        settle_translations(&aq_device, &aq_queue, &aq)?;
        let warm_up = Instant::now();
        dispatch(wg_device, wg_queue, &wg)?;
        let wg_first = warm_up.elapsed();
        let (mut aq_t, mut wg_t) = (Vec::new(), Vec::new());
        for _ in 0..runs {
            let t = Instant::now();
            dispatch(&aq_device, &aq_queue, &aq)?;
            aq_t.push(t.elapsed());
            let t = Instant::now();
            dispatch(wg_device, wg_queue, &wg)?;
            wg_t.push(t.elapsed());
        }
        let aq_check = (k.check)(&read_outputs(&aq_device, &aq_queue, &aq)?)
            .map_err(|e| format!("{} on aqueduct: {e}", k.name))?;
        let wg_check = (k.check)(&read_outputs(wg_device, wg_queue, &wg)?)
            .map_err(|e| format!("{} on wgpu: {e}", k.name))?;
        rows.push(serde_json::json!({
            "name": k.name,
            "work": k.work,
            "aqueduct_ms": ms(crate::stats::median(&aq_t)),
            "wgpu_ms": ms(crate::stats::median(&wg_t)),
            "aqueduct_first_ms": ms(aq_first),
            "wgpu_first_ms": ms(wg_first),
            "aqueduct_check": aq_check,
            "wgpu_check": wg_check,
        }));
    }
    Ok(serde_json::json!({
        "measurement": "compute",
        "runs": runs,
        "quick": quick,
        "aqueduct_engine": aqueduct_engine(),
        "kernels": rows,
        "peer": lavapipe.describe(),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ulps_count_representable_steps() {
        assert_eq!(ulps(1.0, 1.0), 0);
        assert_eq!(ulps(1.0, f32::from_bits(1.0f32.to_bits() + 3)), 3);
        assert_eq!(ulps(f32::from_bits(2.0f32.to_bits() - 1), 2.0), 1);
    }

    #[test]
    fn host_transcendental_loop_stays_positive_and_bounded() {
        for x in [0.0f32, 0.5, 1.0, 7.99] {
            let r = transcendental_host(x);
            assert!(r > 0.0 && r < 8.0, "{x}: {r}");
        }
    }
}
