//! Every shader feature the adapter advertises works: per feature, a small
//! WGSL kernel through the facade with its results checked on the host;
//! and a device opened without a feature refuses shaders that need it,
//! naming the feature (as wgpu does).

use std::borrow::Cow;

use aqueduct::util::{BufferInitDescriptor, DeviceExt};
use aqueduct::*;
use aqueduct_test_harness::facade::*;
use aqueduct_test_harness::run_time_wgsl::{llvm_installed, no_disk_cache};
use aqueduct_test_support::Rng;

/// A gfxsim device opened with `features` (None: all the adapter offers),
/// run-time WGSL uncached; None without LLVM.
fn device_with(features: Option<Features>) -> Option<Ctx> {
    if !llvm_installed("shader features") {
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

/// The adapter advertises `feature`, and a device with every advertised
/// feature (None without LLVM).
fn advertised(feature: Features) -> Option<Ctx> {
    let c = device_with(None)?;
    assert!(
        c.adapter.features().contains(feature),
        "the adapter does not advertise {feature:?}"
    );
    Some(c)
}

/// Run `wgsl`'s entry point `main` once over `groups` workgroups with
/// storage buffers holding `inputs` (bindings 0, 1, ... of group 0); the
/// buffers' bytes afterwards.
fn run(c: &Ctx, wgsl: &str, inputs: &[&[u8]], groups: u32) -> Vec<Vec<u8>> {
    let module = expect_valid(&c.device, || {
        c.device.create_shader_module(ShaderModuleDescriptor {
            label: Some("feature.wgsl"),
            source: ShaderSource::Wgsl(Cow::Owned(wgsl.to_string())),
        })
    });
    let pipeline = expect_valid(&c.device, || auto_pipeline(&c.device, &module, "main"));
    let buffers: Vec<Buffer> = inputs
        .iter()
        .map(|bytes| {
            c.device.create_buffer_init(&BufferInitDescriptor {
                label: Some("storage"),
                contents: bytes,
                usage: BufferUsages::STORAGE | BufferUsages::COPY_SRC | BufferUsages::COPY_DST,
            })
        })
        .collect();
    let refs: Vec<&Buffer> = buffers.iter().collect();
    let bg = bind_group(&c.device, &pipeline, 0, &refs);
    let mut enc = c.device.create_command_encoder(&Default::default());
    {
        let mut pass = enc.begin_compute_pass(&Default::default());
        pass.set_pipeline(&pipeline);
        pass.set_bind_group(0, &bg, &[]);
        pass.dispatch_workgroups(groups, 1, 1);
    }
    expect_valid(&c.device, || c.queue.submit([enc.finish()]));
    buffers
        .iter()
        .map(|b| bytemuck::cast_slice(&read_words(c, b)).to_vec())
        .collect()
}

fn bytes_of<T: bytemuck::Pod>(values: &[T]) -> Vec<u8> {
    bytemuck::cast_slice(values).to_vec()
}

fn values_of<T: bytemuck::Pod>(bytes: &[u8]) -> Vec<T> {
    bytemuck::pod_collect_to_vec(bytes)
}

#[test]
fn shader_f16_arithmetic_storage_and_conversions() {
    let Some(c) = advertised(Features::SHADER_F16) else {
        return;
    };
    // The matrix conversion is not a constant: it runs on the GPU.
    let wgsl = "
enable f16;
@group(0) @binding(0) var<storage, read> x: array<f16>;
@group(0) @binding(1) var<storage, read_write> h: array<f16>;
@group(0) @binding(2) var<storage, read_write> f: array<f32>;
@group(0) @binding(3) var<storage, read_write> i: array<i32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    let k = id.x;
    let a = x[k];
    let b = f16(f32(k) * 0.25);
    h[k] = a * b + 1.5h;
    let v = vec2<f16>(a, b) * 2.0h;
    let m16 = mat2x2<f16>(mat2x2<f32>(f32(k) * 0.5, 2.0, 3.0, 4.0));
    let m = m16 * v;
    f[2u * k] = f32(m.x) + f32(m.y) + mat2x2<f32>(m16)[1].y;
    f[2u * k + 1u] = f32(max(a, b) / 2.0h);
    i[k] = i32(a * 4.0h) + i32(f16(u32(k)));
}
";
    let n = 64usize;
    let mut rng = Rng::new(16);
    let x: Vec<half::f16> = (0..n)
        .map(|_| half::f16::from_f32(rng.f32(-8.0, 8.0)))
        .collect();
    let out = run(
        &c,
        wgsl,
        &[
            &bytes_of(&x.iter().map(|v| v.to_bits()).collect::<Vec<u16>>()),
            &[0; 128],
            &[0; 512],
            &[0; 256],
        ],
        1,
    );
    let h: Vec<u16> = values_of(&out[1]);
    let f: Vec<f32> = values_of(&out[2]);
    let i: Vec<i32> = values_of(&out[3]);
    let r = |v: f32| half::f16::from_f32(v).to_f32();
    for k in 0..n {
        let a = x[k].to_f32();
        let b = r(k as f32 * 0.25);
        let want_h = r(r(a * b) + 1.5);
        let got_h = half::f16::from_bits(h[k]).to_f32();
        assert!(
            (got_h - want_h).abs() <= want_h.abs() * 2e-3 + 2e-3,
            "h[{k}] = {got_h}, want {want_h}"
        );
        let (v0, v1) = (r(a * 2.0), r(b * 2.0));
        let c00 = k as f32 * 0.5;
        let (m0, m1) = (r(r(c00 * v0) + r(3.0 * v1)), r(r(2.0 * v0) + r(4.0 * v1)));
        let want = m0 + m1 + 4.0;
        assert!(
            (f[2 * k] - want).abs() <= want.abs() * 4e-3 + 4e-2,
            "matrix f[{k}] = {}, want {want}",
            f[2 * k]
        );
        assert_eq!(f[2 * k + 1], r(a.max(b) / 2.0), "max/div at {k}");
        assert_eq!(i[k], r(a * 4.0) as i32 + k as i32, "conversions at {k}");
    }
}

#[test]
fn shader_f64_arithmetic_sqrt_and_conversions() {
    let Some(c) = advertised(Features::SHADER_F64) else {
        return;
    };
    let wgsl = "
@group(0) @binding(0) var<storage, read> x: array<f64>;
@group(0) @binding(1) var<storage, read_write> y: array<f64>;
@group(0) @binding(2) var<storage, read_write> f: array<f32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    let k = id.x;
    let a = x[k];
    let b = f64(k) + 0.5lf;
    y[2u * k] = a * b - a / b;
    y[2u * k + 1u] = sqrt(abs(a)) + f64(i32(a));
    f[k] = f32(fma(a, b, 1.0lf));
}
";
    let n = 64usize;
    let mut rng = Rng::new(64);
    let x: Vec<f64> = (0..n).map(|_| rng.f64(-1e3, 1e3) * 1.000001).collect();
    let out = run(&c, wgsl, &[&bytes_of(&x), &[0; 1024], &[0; 256]], 1);
    let y: Vec<f64> = values_of(&out[1]);
    let f: Vec<f32> = values_of(&out[2]);
    for k in 0..n {
        let (a, b) = (x[k], k as f64 + 0.5);
        assert_eq!(y[2 * k], a * b - a / b, "arithmetic at {k}");
        let want = a.abs().sqrt() + (a as i32) as f64;
        assert!(
            (y[2 * k + 1] - want).abs() <= want.abs() * 1e-15,
            "sqrt at {k}: {} vs {want}",
            y[2 * k + 1]
        );
        assert_eq!(f[k], a.mul_add(b, 1.0) as f32, "fma at {k}");
    }
}

#[test]
fn shader_int64_arithmetic_shifts_and_conversions() {
    let Some(c) = advertised(Features::SHADER_INT64) else {
        return;
    };
    let wgsl = "
@group(0) @binding(0) var<storage, read> x: array<u64>;
@group(0) @binding(1) var<storage, read_write> u: array<u64>;
@group(0) @binding(2) var<storage, read_write> s: array<i64>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    let k = id.x;
    let a = x[k];
    let b = u64(k) * 0x100000001lu + 3lu;
    u[3u * k] = (a * b + (a >> 7u)) ^ (b << 33u);
    u[3u * k + 1u] = a / b + a % b;
    u[3u * k + 2u] = select(0lu, 1lu, a < b) + u64(u32(a));
    s[k] = -bitcast<i64>(a) / 3li + i64(i32(k)) * -5li;
}
";
    let n = 64usize;
    let mut rng = Rng::new(6464);
    let x: Vec<u64> = (0..n).map(|_| rng.u64()).collect();
    let out = run(&c, wgsl, &[&bytes_of(&x), &[0; 64 * 24], &[0; 512]], 1);
    let u: Vec<u64> = values_of(&out[1]);
    let s: Vec<i64> = values_of(&out[2]);
    for k in 0..n {
        let a = x[k];
        let b = (k as u64).wrapping_mul(0x1_0000_0001).wrapping_add(3);
        let want = a.wrapping_mul(b).wrapping_add(a >> 7) ^ (b << 33);
        assert_eq!(u[3 * k], want, "arithmetic at {k}");
        assert_eq!(u[3 * k + 1], a / b + a % b, "division at {k}");
        assert_eq!(
            u[3 * k + 2],
            u64::from(a < b) + u64::from(a as u32),
            "at {k}"
        );
        let want_s = (a as i64).wrapping_neg() / 3 + k as i64 * -5;
        assert_eq!(s[k], want_s, "signed at {k}");
    }
}

#[test]
fn shader_i16_arithmetic_storage_and_conversions() {
    let Some(c) = advertised(Features::SHADER_I16) else {
        return;
    };
    let wgsl = "
enable wgpu_int16;
@group(0) @binding(0) var<storage, read> x: array<i16>;
@group(0) @binding(1) var<storage, read_write> v: array<vec4<u16>>;
@group(0) @binding(2) var<storage, read_write> w: array<i32>;
var<workgroup> tile: array<i16, 64>;

@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) k: u32) {
    let a = x[k];
    tile[k] = a;
    workgroupBarrier();
    let b = tile[63u - k];
    let q = a / select(b, i16(7), b == i16(0));
    let r = a % i16(-5);
    v[k] = vec4<u16>(u16(a), u16(b) >> 3u, u16(q), u16(r)) * vec4<u16>(u16(3));
    w[2u * k] = i32(a) * i32(b) + i32(max(a, b)) + i32(clamp(a, i16(-100), i16(100)));
    w[2u * k + 1u] = i32(u16(a) < u16(b)) + i32(f32(a) * 0.5) + i32(i16(u32(k) * 1000u));
}
";
    let n = 64usize;
    let mut rng = Rng::new(1616);
    let x: Vec<i16> = (0..n).map(|_| rng.u32() as i16).collect();
    let out = run(&c, wgsl, &[&bytes_of(&x), &[0; 64 * 8], &[0; 64 * 8]], 1);
    let v: Vec<u16> = values_of(&out[1]);
    let w: Vec<i32> = values_of(&out[2]);
    for k in 0..n {
        let (a, b) = (x[k], x[63 - k]);
        let q = a.wrapping_div(if b == 0 { 7 } else { b });
        let r = a.wrapping_rem(-5);
        let want_v = [a as u16, (b as u16) >> 3, q as u16, r as u16].map(|e| e.wrapping_mul(3));
        assert_eq!(v[4 * k..4 * k + 4], want_v, "vec4<u16> at {k}");
        let want0 =
            i32::from(a) * i32::from(b) + i32::from(a.max(b)) + i32::from(a.clamp(-100, 100));
        let want1 = i32::from((a as u16) < (b as u16))
            + (f32::from(a) * 0.5) as i32
            + i32::from((k as u32 * 1000) as i16);
        assert_eq!([w[2 * k], w[2 * k + 1]], [want0, want1], "i16 at {k}");
    }
}

/// 64-bit atomics over 4 workgroups of 64: min/max (the results unused,
/// all `SHADER_INT64_ATOMIC_MIN_MAX` allows), then every other operation
/// (`SHADER_INT64_ATOMIC_ALL_OPS`), on storage and workgroup memory.
#[test]
fn shader_int64_atomics() {
    let Some(c) =
        advertised(Features::SHADER_INT64_ATOMIC_MIN_MAX | Features::SHADER_INT64_ATOMIC_ALL_OPS)
    else {
        return;
    };
    let wgsl = "
@group(0) @binding(0) var<storage, read> x: array<u64>;
@group(0) @binding(1) var<storage, read_write> acc: array<atomic<u64>, 10>;
@group(0) @binding(2) var<storage, read_write> sacc: array<atomic<i64>, 2>;
@group(0) @binding(3) var<storage, read_write> old: array<u64>;
var<workgroup> wsum: atomic<u64>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>, @builtin(local_invocation_index) li: u32) {
    let v = x[id.x];
    atomicMin(&acc[0], v);
    atomicMax(&acc[1], v);
    atomicMin(&sacc[0], bitcast<i64>(v));
    atomicMax(&sacc[1], bitcast<i64>(v));
    atomicAdd(&acc[2], v >> 8u);
    atomicOr(&acc[3], 1lu << (id.x % 64u));
    atomicXor(&acc[4], v);
    atomicAnd(&acc[5], ~(v & 0xff00lu));
    atomicSub(&acc[6], v >> 16u);
    atomicAdd(&wsum, u64(li) << 40u);
    old[id.x] = atomicExchange(&acc[7], v);
    workgroupBarrier();
    if li == 0u {
        let r = atomicCompareExchangeWeak(&acc[8], 0lu, atomicLoad(&wsum));
        atomicAdd(&acc[9], select(0lu, 1lu, r.exchanged));
    }
}
";
    let n = 256usize;
    let mut rng = Rng::new(4242);
    let x: Vec<u64> = (0..n).map(|_| rng.u64()).collect();
    let mut acc_init = [0u64; 10];
    acc_init[0] = u64::MAX;
    acc_init[5] = u64::MAX;
    acc_init[6] = 1 << 63;
    let sacc_init = [i64::MAX, i64::MIN];
    let out = run(
        &c,
        wgsl,
        &[
            &bytes_of(&x),
            &bytes_of(&acc_init),
            &bytes_of(&sacc_init),
            &vec![0; n * 8],
        ],
        4,
    );
    let acc: Vec<u64> = values_of(&out[1]);
    let sacc: Vec<i64> = values_of(&out[2]);
    let old: Vec<u64> = values_of(&out[3]);
    assert_eq!(acc[0], *x.iter().min().unwrap(), "atomicMin u64");
    assert_eq!(acc[1], *x.iter().max().unwrap(), "atomicMax u64");
    assert_eq!(
        sacc[0],
        x.iter().map(|&v| v as i64).min().unwrap(),
        "atomicMin i64"
    );
    assert_eq!(
        sacc[1],
        x.iter().map(|&v| v as i64).max().unwrap(),
        "atomicMax i64"
    );
    let sum = x.iter().fold(0u64, |s, &v| s.wrapping_add(v >> 8));
    assert_eq!(acc[2], sum, "atomicAdd");
    assert_eq!(acc[3], u64::MAX, "atomicOr");
    assert_eq!(acc[4], x.iter().fold(0, |s, &v| s ^ v), "atomicXor");
    let ored = x.iter().fold(0, |s, &v| s | (v & 0xff00));
    assert_eq!(acc[5], !ored, "atomicAnd");
    let sub = x.iter().fold(1u64 << 63, |s, &v| s.wrapping_sub(v >> 16));
    assert_eq!(acc[6], sub, "atomicSub");
    // The exchanges form one chain: the olds and the final value hold 0
    // and every input exactly once.
    let mut seen: Vec<u64> = old.clone();
    seen.push(acc[7]);
    seen.sort_unstable();
    let mut want: Vec<u64> = x.clone();
    want.push(0);
    want.sort_unstable();
    assert_eq!(seen, want, "atomicExchange");
    // Each workgroup's sum of li << 40; only the first compare-exchange
    // finds 0.
    assert_eq!(
        acc[8],
        (0..64u64).sum::<u64>() << 40,
        "atomicCompareExchangeWeak"
    );
    assert_eq!(acc[9], 1, "exactly one exchange");
}

/// f32 atomics on storage (`SHADER_FLOAT32_ATOMIC`): add, subtract and
/// exchange over 4 workgroups of 64; every sum is exact in f32.
#[test]
fn shader_float32_atomics() {
    let Some(c) = advertised(Features::SHADER_FLOAT32_ATOMIC) else {
        return;
    };
    let wgsl = "
@group(0) @binding(0) var<storage, read_write> acc: array<atomic<f32>, 3>;
@group(0) @binding(1) var<storage, read_write> old: array<f32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    atomicAdd(&acc[0], f32(id.x) * 0.5);
    atomicSub(&acc[1], 1.5);
    old[id.x] = atomicExchange(&acc[2], f32(id.x + 1u));
}
";
    let n = 256usize;
    let out = run(&c, wgsl, &[&bytes_of(&[0f32; 3]), &vec![0; n * 4]], 4);
    let acc: Vec<f32> = values_of(&out[0]);
    let old: Vec<f32> = values_of(&out[1]);
    assert_eq!(
        acc[0],
        (0..n).map(|i| i as f32 * 0.5).sum::<f32>(),
        "atomicAdd"
    );
    assert_eq!(acc[1], -1.5 * n as f32, "atomicSub");
    let mut seen = old.clone();
    seen.push(acc[2]);
    seen.sort_by(f32::total_cmp);
    let want: Vec<f32> = (0..=n).map(|i| i as f32).collect();
    assert_eq!(seen, want, "atomicExchange");
}

/// Cooperative matrices (`EXPERIMENTAL_COOPERATIVE_MATRIX`): a 16x16
/// f16 x f16 + f32 multiply-add of small integers, exact against the host.
#[test]
fn cooperative_matrix_multiply_add() {
    let Some(c) = advertised(Features::EXPERIMENTAL_COOPERATIVE_MATRIX | Features::SHADER_F16)
    else {
        return;
    };
    let wgsl = "
enable f16;
enable wgpu_cooperative_matrix;
@group(0) @binding(0) var<storage, read> ab: array<f16>;
@group(0) @binding(1) var<storage, read_write> cd: array<f32>;

@compute @workgroup_size(64)
fn main() {
    let a = coopLoad<coop_mat16x16<f16, A>>(&ab[0]);
    let b = coopLoadT<coop_mat16x16<f16, B>>(&ab[256]);
    let c = coopLoad<coop_mat16x16<f32, C>>(&cd[0]);
    coopStore(coopMultiplyAdd(a, b, c), &cd[256]);
}
";
    let n = 16;
    let values: Vec<f32> = Rng::new(91)
        .f32s(2 * n * n, -3.49, 3.49)
        .into_iter()
        .map(f32::round)
        .collect();
    let halves: Vec<u16> = values
        .iter()
        .map(|v| half::f16::from_f32(*v).to_bits())
        .collect();
    let c_in: Vec<f32> = (0..n * n).map(|i| (i % 7) as f32 - 3.0).collect();
    let mut cd = c_in.clone();
    cd.extend(vec![0f32; n * n]);
    let out = run(&c, wgsl, &[&bytes_of(&halves), &bytes_of(&cd)], 1);
    let got: Vec<f32> = values_of(&out[1]);
    // A column-major at 0, B row-major at 256, C and D column-major.
    let a = |r: usize, k: usize| values[k * n + r];
    let b = |k: usize, col: usize| values[n * n + k * n + col];
    for col in 0..n {
        for r in 0..n {
            let want = c_in[col * n + r] + (0..n).map(|k| a(r, k) * b(k, col)).sum::<f32>();
            assert_eq!(got[n * n + col * n + r], want, "d[{r}][{col}]");
        }
    }
}

/// The subgroup size of `c`'s device: 32 on gfx11 (wave32), 64 on the
/// GFX9 parts (wave64).
fn wave_size(c: &Ctx) -> usize {
    let info = c.adapter.get_info();
    assert_eq!(info.subgroup_min_size, info.subgroup_max_size);
    info.subgroup_min_size as usize
}

/// Subgroup builtins and operations over one workgroup of two waves (two
/// subgroups of 32 on gfx11, of 64 on the GFX9 parts).
#[test]
fn subgroup_operations_on_two_waves() {
    let Some(c) = advertised(Features::SUBGROUP | Features::SUBGROUP_BARRIER) else {
        return;
    };
    let size = wave_size(&c);
    let wgsl = format!(
        "
@group(0) @binding(0) var<storage, read> x: array<u32>;
@group(0) @binding(1) var<storage, read_write> out: array<u32>;

@compute @workgroup_size({workgroup})
fn main(
    @builtin(global_invocation_id) id: vec3<u32>,
    @builtin(subgroup_size) size: u32,
    @builtin(subgroup_invocation_id) lane: u32,
    @builtin(subgroup_id) sid: u32,
) {{
    let v = x[id.x];
    let base = id.x * 8u;
    out[base] = size;
    out[base + 1u] = lane + sid * 100u;
    out[base + 2u] = subgroupAdd(v);
    out[base + 3u] = subgroupExclusiveAdd(v);
    out[base + 4u] = subgroupMax(v);
    out[base + 5u] = subgroupBallot(v % 2u == 1u).x;
    out[base + 6u] = subgroupShuffle(v, (lane + 5u) % size);
    subgroupBarrier();
    out[base + 7u] = subgroupBroadcastFirst(v) + u32(subgroupAll(v < 1000u));
}}
",
        workgroup = 2 * size
    );
    let n = 2 * size;
    let mut rng = Rng::new(32);
    let x: Vec<u32> = (0..n).map(|_| rng.below(1000) as u32).collect();
    let out = run(&c, &wgsl, &[&bytes_of(&x), &vec![0; n * 32]], 1);
    let got: Vec<u32> = values_of(&out[1]);
    for k in 0..n {
        let (wave, lane) = (k / size, k % size);
        let w = &x[wave * size..wave * size + size];
        // `.x` holds the ballot of lanes 0..31.
        let ballot = w
            .iter()
            .take(32)
            .enumerate()
            .fold(0u32, |b, (i, v)| b | (u32::from(v % 2 == 1) << i));
        let want = [
            size as u32,
            (lane + wave * 100) as u32,
            w.iter().sum(),
            w[..lane].iter().sum(),
            *w.iter().max().unwrap(),
            ballot,
            w[(lane + 5) % size],
            w[0] + 1,
        ];
        assert_eq!(got[k * 8..k * 8 + 8], want, "invocation {k}");
    }
}

/// Every subgroup operation WGSL has, on u32 values over two waves (of 32
/// on gfx11, of 64 on the GFX9 parts): reductions, inclusive and exclusive
/// scans, votes, ballot, broadcasts, shuffles and quad operations, against
/// the host.
#[test]
fn every_subgroup_operation_on_two_waves() {
    let Some(c) = advertised(Features::SUBGROUP) else {
        return;
    };
    let size = wave_size(&c);
    const OPS: usize = 22;
    let wgsl = format!(
        "
@group(0) @binding(0) var<storage, read> x: array<u32>;
@group(0) @binding(1) var<storage, read_write> out: array<u32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>, @builtin(subgroup_invocation_id) lane: u32) {{
    let v = x[id.x];
    let m = v % 7u + 1u;
    let o = id.x * {OPS}u;
    out[o] = subgroupAdd(v);
    out[o + 1u] = subgroupMul(m);
    out[o + 2u] = subgroupMin(v);
    out[o + 3u] = subgroupMax(v);
    out[o + 4u] = subgroupAnd(v);
    out[o + 5u] = subgroupOr(v);
    out[o + 6u] = subgroupXor(v);
    out[o + 7u] = subgroupInclusiveAdd(v);
    out[o + 8u] = subgroupInclusiveMul(m);
    out[o + 9u] = subgroupExclusiveAdd(v);
    out[o + 10u] = subgroupExclusiveMul(m);
    out[o + 11u] = u32(subgroupAll(v > 10u)) + 2u * u32(subgroupAny(v == x[0]));
    out[o + 12u] = subgroupBallot(v % 3u == 0u).x;
    out[o + 13u] = subgroupBroadcast(v, 7u);
    out[o + 14u] = subgroupBroadcastFirst(v);
    out[o + 15u] = subgroupShuffle(v, {last}u - lane);
    out[o + 16u] = subgroupShuffleDown(v, 3u);
    out[o + 17u] = subgroupShuffleUp(v, 5u);
    out[o + 18u] = subgroupShuffleXor(v, 9u);
    out[o + 19u] = quadBroadcast(v, 2u);
    out[o + 20u] = quadSwapX(v) + 1000u * quadSwapY(v);
    out[o + 21u] = quadSwapDiagonal(v);
}}
",
        last = size - 1
    );
    let n = 2 * size;
    let mut rng = Rng::new(3232);
    let x: Vec<u32> = (0..n).map(|_| rng.u32() % 5000).collect();
    let out = run(
        &c,
        &wgsl,
        &[&bytes_of(&x), &vec![0; n * OPS * 4]],
        (n / 64) as u32,
    );
    let got: Vec<u32> = values_of(&out[1]);
    for k in 0..n {
        let (wave, lane) = (k / size, k % size);
        let w = &x[wave * size..wave * size + size];
        let m: Vec<u32> = w.iter().map(|v| v % 7 + 1).collect();
        let product = |s: &[u32]| s.iter().fold(1u32, |p, &v| p.wrapping_mul(v));
        // `.x` holds the ballot of lanes 0..31.
        let ballot = w
            .iter()
            .take(32)
            .enumerate()
            .fold(0u32, |b, (i, v)| b | (u32::from(v % 3 == 0) << i));
        let want: [Option<u32>; OPS] = [
            Some(w.iter().sum()),
            Some(product(&m)),
            w.iter().min().copied(),
            w.iter().max().copied(),
            Some(w.iter().fold(u32::MAX, |a, v| a & v)),
            Some(w.iter().fold(0, |a, v| a | v)),
            Some(w.iter().fold(0, |a, v| a ^ v)),
            Some(w[..=lane].iter().sum()),
            Some(product(&m[..=lane])),
            Some(w[..lane].iter().sum()),
            Some(product(&m[..lane])),
            Some(u32::from(w.iter().all(|&v| v > 10)) + 2 * u32::from(w.contains(&x[0]))),
            Some(ballot),
            Some(w[7]),
            Some(w[0]),
            Some(w[size - 1 - lane]),
            // Shuffles past the subgroup's edge are indeterminate in WGSL.
            (lane + 3 < size).then(|| w[lane + 3]),
            (lane >= 5).then(|| w[lane - 5]),
            Some(w[lane ^ 9]),
            Some(w[(lane & !3) + 2]),
            Some(w[lane ^ 1] + 1000 * w[lane ^ 2]),
            Some(w[lane ^ 3]),
        ];
        for (op, want) in want.iter().enumerate() {
            if let Some(want) = want {
                assert_eq!(got[k * OPS + op], *want, "op {op} at invocation {k}");
            }
        }
    }
}

/// A device opened without a feature refuses a shader that needs it, and
/// the error names the feature.
#[test]
fn shaders_need_the_features_they_use() {
    let cases: [(&str, Features); 8] = [
        (
            "enable f16;
@group(0) @binding(0) var<storage, read_write> o: array<f16>;
@compute @workgroup_size(1) fn main() { o[0] = 1.0h; }",
            Features::SHADER_F16,
        ),
        (
            "@group(0) @binding(0) var<storage, read_write> o: array<f64>;
@compute @workgroup_size(1) fn main() { o[0] = 1.0lf; }",
            Features::SHADER_F64,
        ),
        (
            "@group(0) @binding(0) var<storage, read_write> o: array<u64>;
@compute @workgroup_size(1) fn main() { o[0] = 1lu; }",
            Features::SHADER_INT64,
        ),
        (
            "@group(0) @binding(0) var<storage, read_write> o: array<u32>;
@compute @workgroup_size(32) fn main(@builtin(subgroup_invocation_id) l: u32) {
    o[l] = subgroupAdd(l);
}",
            Features::SUBGROUP,
        ),
        (
            "@group(0) @binding(0) var<storage, read_write> o: atomic<u64>;
@compute @workgroup_size(1) fn main() { atomicAdd(&o, 1lu); }",
            Features::SHADER_INT64_ATOMIC_ALL_OPS,
        ),
        (
            "@group(0) @binding(0) var<storage, read_write> o: atomic<f32>;
@compute @workgroup_size(1) fn main() { atomicAdd(&o, 1.0); }",
            Features::SHADER_FLOAT32_ATOMIC,
        ),
        (
            "enable wgpu_int16;
@group(0) @binding(0) var<storage, read_write> o: array<i16>;
@compute @workgroup_size(1) fn main() { o[0] = i16(1); }",
            Features::SHADER_I16,
        ),
        (
            "enable wgpu_cooperative_matrix;
@group(0) @binding(0) var<storage, read_write> o: array<f32>;
@compute @workgroup_size(32) fn main() {
    var m: coop_mat8x8<f32, C> = coopLoad<coop_mat8x8<f32, C>>(&o[0]);
    coopStore(m, &o[64]);
}",
            Features::EXPERIMENTAL_COOPERATIVE_MATRIX,
        ),
    ];
    for (wgsl, feature) in cases {
        let others = Features::all() - feature;
        let Some(c) = device_with(Some(
            others
                & (Features::SHADER_F16
                    | Features::SHADER_F64
                    | Features::SHADER_INT64
                    | Features::SUBGROUP
                    | Features::SUBGROUP_BARRIER
                    | Features::SHADER_FLOAT32_ATOMIC
                    | Features::SHADER_I16
                    | Features::EXPERIMENTAL_COOPERATIVE_MATRIX),
        )) else {
            return;
        };
        let (_module, err) = validation_error(&c.device, || {
            c.device.create_shader_module(ShaderModuleDescriptor {
                label: Some("needs a feature"),
                source: ShaderSource::Wgsl(Cow::Borrowed(wgsl)),
            })
        });
        let err = err.unwrap_or_else(|| panic!("{feature:?} off, the shader is accepted"));
        match validation_source(&err) {
            Some(ValidationError::Shader(ShaderModuleError::Create {
                source: ShaderLoadError::Wgsl(WgslError::MissingFeatures { missing, .. }),
                ..
            })) => assert!(missing.contains(feature), "{missing:?} for {feature:?}"),
            _ => panic!("unexpected error for {feature:?}: {err}"),
        }
        let name = format!("{feature:?}");
        let name = name.trim_start_matches("Features(").trim_end_matches(')');
        assert!(err.to_string().contains(name), "{err}");
    }
}
